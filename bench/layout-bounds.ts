/**
 * CreateDiagram's layout bound against dagre's real time: `npm run build:test && node build/bench/layout-bounds.js`.
 *
 * Generates a spread of flows at and around the tool's limits (200 nodes, 400 edges, 20
 * subgraphs): random graphs and random DAGs, chains with edges back up them, wide fans, complete
 * bipartite layers, many edges between the same nodes, and the same with subgraphs (in blocks,
 * alternating, at random, chains alternating across them: the issue's two shapes among them).
 * For each, the plan the tool makes (src/canvasapi/tasks/diagram-work.ts): refused, or laid out
 * here by layOutFlow as the worker would, its CPU and wall time measured. Prints one line per
 * shape (mode, edges left out, predicted work, CPU, wall, CPU per predicted) and per family the
 * worst CPU and wall of the accepted shapes against the bound (WORK_LIMIT). BENCH_SEEDS (default 2)
 * random variants per shape; BENCH_ONLY=<substring> runs the matching shapes only; BENCH_FEATURES=1 also
 * prints each piece's counts (nodes, edges kept, bend points, network simplex or not), to refit
 * diagram-work.ts's WEIGHTS. Nothing asserts.
 */
import { performance } from 'node:perf_hooks';
import { layOutFlow, type FlowLayoutInput } from '../src/canvasapi/tasks/diagram-layout.js';
import { planOf } from '../src/canvasapi/tasks/diagram-plan.js';
import { LayoutTooBig, planLayout, WORK_LIMIT } from '../src/canvasapi/tasks/diagram-work.js';

type Edge = { from: number; to: number };
interface Shape {
  family: string;
  name: string;
  input: FlowLayoutInput;
}

/** A small deterministic generator (mulberry32): the same shapes every run. */
function random(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function input(n: number, edges: Edge[], groups?: (number | undefined)[], direction: FlowLayoutInput['direction'] = 'TB'): FlowLayoutInput {
  const groupCount = groups ? Math.max(-1, ...groups.map((g) => g ?? -1)) + 1 : 0;
  return {
    nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, width: 220, height: 110 })),
    edges: edges.map(({ from, to }) => ({ from: `n${from}`, to: `n${to}` })),
    direction,
    nodeGap: 60,
    rankGap: 90,
    ...(groupCount ? { groups, groupCount } : {}),
  };
}

const graphs: Record<string, (n: number, m: number, r: (n: number) => number) => Edge[]> = {
  random: (n, m, r) => pairs(m, () => ({ from: r(n), to: r(n) })),
  dag: (n, m, r) => pairs(m, () => ordered(r(n), r(n))),
  'chain-back': (n, m, r) => [...chain(n), ...pairs(m - (n - 1), () => ({ from: n - 1 - r(Math.min(50, n)), to: r(Math.min(50, n)) }))],
  fan: (n) => Array.from({ length: n - 1 }, (_, i) => ({ from: 0, to: i + 1 })),
  'two-level-fan': (n) => Array.from({ length: n - 1 }, (_, i) => ({ from: i < 14 ? 0 : 1 + (i % 14), to: i + 1 })),
  bipartite: (n, m) => {
    const sources = Math.max(1, Math.round(m / (n - Math.round(m / n))));
    return Array.from({ length: m }, (_, k) => ({ from: k % sources, to: sources + (Math.floor(k / sources) % (n - sources)) }));
  },
  layered: (n, m, r) => pairs(m, () => {
    const from = r(n - 10);
    return { from, to: Math.min(n - 1, (Math.floor(from / 10) + 1) * 10 + r(10)) };
  }),
  'same-pair': (n, m) => [...chain(n), ...Array.from({ length: m - (n - 1) }, () => ({ from: 0, to: 1 }))],
};

function pairs(m: number, make: () => Edge): Edge[] {
  const edges: Edge[] = [];
  while (edges.length < m) {
    const edge = make();
    if (edge.from !== edge.to) edges.push(edge);
  }
  return edges;
}
const ordered = (a: number, b: number): Edge => (a < b ? { from: a, to: b } : { from: b, to: a });
const chain = (n: number): Edge[] => Array.from({ length: n - 1 }, (_, i) => ({ from: i, to: i + 1 }));

const groupings: Record<string, (n: number, g: number, r: (n: number) => number) => (number | undefined)[]> = {
  blocks: (n, g) => Array.from({ length: n }, (_, i) => Math.floor((i * g) / n)),
  alternating: (n, g) => Array.from({ length: n }, (_, i) => i % g),
  random: (n, g, r) => Array.from({ length: n }, () => r(g)),
  'half-outside': (n, g) => Array.from({ length: n }, (_, i) => (i % 2 ? undefined : (i / 2) % g)),
};

/** The issue's two shapes, as Mermaid text read by the tool's own reader. */
function issueShapes(): Shape[] {
  const r = random(31);
  let blocks = 'flowchart TD\n';
  for (let s = 0; s < 20; s++) {
    blocks += `subgraph s${s} [Stage ${s}]\n`;
    for (let i = 0; i < 10; i++) {
      const node = s * 10 + i;
      let to = r(200);
      if (to === node) to = (to + 1) % 200;
      blocks += `  n${node}[Step ${node}] --> n${to}\n`;
    }
    blocks += 'end\n';
  }
  let alternating = 'flowchart TD\n';
  for (let s = 0; s < 10; s++) alternating += `subgraph g${s}\n${Array.from({ length: 10 }, (_, k) => `c${s + 10 * k}`).join('\n')}\nend\n`;
  for (let i = 1; i < 100; i++) alternating += `c${i - 1}-->c${i}\n`;
  return [
    { family: 'issue', name: `200 nodes in 20 subgraphs (${blocks.length} chars)`, input: fromMermaid(blocks) },
    { family: 'issue', name: `chain across 10 subgraphs (${alternating.length} chars)`, input: fromMermaid(alternating) },
  ];
}

function fromMermaid(text: string): FlowLayoutInput {
  const plan = planOf({ board_id: 'b', mermaid: text });
  return {
    nodes: plan.nodes.map((node) => ({ id: node.id, width: 220, height: 110 })),
    edges: plan.edges.map(({ from, to }) => ({ from, to })),
    direction: 'TB',
    nodeGap: 60,
    rankGap: 90,
    groups: plan.nodes.map((node) => node.frame),
    groupCount: plan.frames.length,
  };
}

function shapes(seeds: number): Shape[] {
  const all: Shape[] = issueShapes();
  const sizes = [
    [30, 45],
    [100, 200],
    [200, 200],
    [200, 300],
    [200, 400],
  ] as const;
  for (let seed = 1; seed <= seeds; seed++) {
    for (const [family, make] of Object.entries(graphs)) {
      for (const [n, m] of sizes) {
        if (seed > 1 && !['random', 'dag', 'layered', 'chain-back'].includes(family)) continue;
        const edges = make(n, m, random(seed * 1000 + n + m));
        all.push({ family, name: `${family} ${n}/${edges.length} #${seed}`, input: input(n, edges) });
      }
    }
    for (const [grouping, group] of Object.entries(groupings)) {
      for (const [family, make] of Object.entries({ random: graphs.random!, dag: graphs.dag!, chain: (n: number) => chain(n) })) {
        for (const [n, m, g] of [
          [30, 40, 3],
          [100, 150, 10],
          [200, 200, 20],
          [200, 400, 20],
          [200, 300, 5],
        ] as const) {
          const r = random(seed * 7777 + n + m + g);
          all.push({ family: `subgraphs ${grouping}`, name: `${family} ${n}/${m} in ${g} ${grouping} #${seed}`, input: input(n, make(n, m, r), group(n, g, r)) });
        }
      }
    }
  }
  return all;
}

interface Row {
  family: string;
  accepted: boolean;
  cpuMs: number;
  wallMs: number;
}

function measure(shape: Shape): Row {
  let plan;
  try {
    plan = planLayout(shape.input);
  } catch (error) {
    if (!(error instanceof LayoutTooBig)) throw error;
    console.log(`${shape.name.padEnd(44)} refused: ${error.message}`);
    return { family: shape.family, accepted: false, cpuMs: 0, wallMs: 0 };
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  const laid = layOutFlow(shape.input);
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const predictedMs = plan.work / 1000;
  console.log(
    `${shape.name.padEnd(44)} ${plan.mode.padEnd(8)} left out ${String(laid.leftOut.length).padStart(3)}  predicted ${predictedMs.toFixed(0).padStart(5)} ms  cpu ${cpuMs.toFixed(0).padStart(5)} ms  wall ${wallMs.toFixed(0).padStart(5)} ms  cpu/predicted ${(cpuMs / predictedMs).toFixed(2)}${laid.fallback ? `  [${laid.fallback.slice(0, 60)}]` : ''}`,
  );
  if (process.env.BENCH_FEATURES) {
    const pieces = plan.pieces.map((p) => [p.members.length, p.edges.length - p.leftOut.length, p.bendPoints, p.ranker === 'network-simplex' ? 1 : 0]);
    console.log(`FEATURES ${JSON.stringify({ mode: plan.mode, cpuMs, pieces })}`);
  }
  return { family: shape.family, accepted: true, cpuMs, wallMs };
}

const only = process.env.BENCH_ONLY;
const rows = shapes(Number(process.env.BENCH_SEEDS ?? 2))
  .filter((shape) => !only || shape.name.includes(only))
  .map(measure);
console.log(`\nWorst accepted layout per family, against the bound (${WORK_LIMIT / 1000} ms of predicted CPU; the aim: under 2 s of wall on a busy 2-core machine):`);
for (const family of [...new Set(rows.map((row) => row.family))]) {
  const of = rows.filter((row) => row.family === family);
  const accepted = of.filter((row) => row.accepted);
  const worst = (key: 'cpuMs' | 'wallMs') => Math.max(0, ...accepted.map((row) => row[key])).toFixed(0);
  console.log(`${family.padEnd(26)} ${accepted.length}/${of.length} accepted  worst cpu ${worst('cpuMs').padStart(5)} ms  worst wall ${worst('wallMs').padStart(5)} ms`);
}
const accepted = rows.filter((row) => row.accepted);
console.log(`all: ${accepted.length}/${rows.length} accepted, worst cpu ${Math.max(...accepted.map((r) => r.cpuMs)).toFixed(0)} ms, worst wall ${Math.max(...accepted.map((r) => r.wallMs)).toFixed(0)} ms`);
