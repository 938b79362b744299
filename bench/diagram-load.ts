/**
 * The heaviest CreateDiagram against the server's liveness: `npm run build:test && node build/bench/diagram-load.js`.
 *
 * Each round starts a fresh server process (the sandbox and an HTTP server in it) per variant, in
 * rotating order; this process probes its `/health` every 50 ms (one probe at a time) while the
 * variant runs, on test/support/worst-diagram.ts (200 nodes, 199 edges down a chain, 201 back up):
 * - `main-layout`: the baseline, what the previous release did: dagre on the whole graph on the
 *   event loop (the flow layout without its bound);
 * - `off-thread-layout`: the layout as CreateDiagram runs it now, bounded, in a worker thread;
 * - `create-diagram`: the whole call now, layout and 600 creates against the sandbox;
 * and what the worker costs an everyday diagram (30 nodes, 35 edges): `small-main-layout` (dagre on
 * the event loop, the baseline) against `small-off-thread-layout` (a worker started for it).
 * Prints per variant the medians over BENCH_ROUNDS rounds (default 3) of: the variant's time, the
 * slowest and the median /health answer during it, and the server process's peak RSS; and the
 * ratios to its baseline. Nothing asserts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { layOutFlow, type FlowLayout, type FlowLayoutInput } from '../src/canvasapi/tasks/diagram-layout.js';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp } from '../src/core/serving/serve.js';
import { runOffThread } from '../src/core/tools/off-thread.js';
import { callTool, canvasApiServerFor, startTestSandbox } from '../test/support/harness.js';
import { worstDiagram } from '../test/support/worst-diagram.js';

const VARIANTS = ['main-layout', 'off-thread-layout', 'create-diagram', 'small-main-layout', 'small-off-thread-layout'] as const;
type Variant = (typeof VARIANTS)[number];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROBE_EVERY_MS = 50;

/** CreateDiagram's layout input for the worst diagram (shapes: 220 x 110). */
function worstLayoutInput(): FlowLayoutInput {
  const { nodes, edges } = worstDiagram('b');
  return { nodes: nodes.map(({ id }) => ({ id, width: 220, height: 110 })), edges, direction: 'TB', nodeGap: 60, rankGap: 90 };
}

/** A 30-node flow: a chain, and a branch from every fifth node to the next-but-one (test/canvasapi-tasks.test.ts). */
function smallLayoutInput(): FlowLayoutInput {
  const nodes = Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, width: 220, height: 110 }));
  const edges: FlowLayoutInput['edges'] = [];
  for (let i = 1; i < 30; i++) edges.push({ from: `n${i - 1}`, to: `n${i}` });
  for (let i = 0; i + 2 < 30; i += 5) edges.push({ from: `n${i}`, to: `n${i + 2}` });
  return { nodes, edges, direction: 'TB', nodeGap: 60, rankGap: 90 };
}

/** The server process: prints its URL, waits for `go`, runs the variant, prints its time and peak RSS. */
async function child(variant: Variant): Promise<void> {
  const sandbox = await startTestSandbox();
  const server = canvasApiServerFor(sandbox.canvasapi);
  const http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: 'diagram-load-bench-key-0123456789', mounts: [{ path: '/mcp', server }] });
  const input = worstLayoutInput();
  const step = { module: new URL('../src/canvasapi/tasks/diagram-layout.js', import.meta.url), exportName: 'layOutFlow', what: 'the layout', overLimit: () => [] };
  const board = sandbox.canvasapi.demo!.boardIds[0]!;
  // Code loaded before the measure: the tool's first call.
  await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, nodes: [{ id: 'a', text: 'a' }, { id: 'b', text: 'b' }], edges: [{ from: 'a', to: 'b' }], layout: 'flow-down' });
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  console.log(JSON.stringify({ url: http.url }));
  while ((await lines.next()).value !== 'go');
  const started = performance.now();
  let note = '';
  if (variant === 'main-layout') note = `${layOutFlow({ ...input, bendPointLimit: Number.POSITIVE_INFINITY, workLimit: Number.POSITIVE_INFINITY }).leftOut.length} edges left out`;
  if (variant === 'off-thread-layout') note = `${(await runOffThread<FlowLayoutInput, FlowLayout>(step, input, new AbortController().signal)).leftOut.length} edges left out`;
  if (variant === 'small-main-layout') note = `${layOutFlow(smallLayoutInput()).centres.length} nodes`;
  if (variant === 'small-off-thread-layout') note = `${(await runOffThread<FlowLayoutInput, FlowLayout>(step, smallLayoutInput(), new AbortController().signal)).centres.length} nodes`;
  if (variant === 'create-diagram') note = String((await callTool(server, 'CanvasApi.CreateDiagram', worstDiagram(board))).data.summary);
  const ms = performance.now() - started;
  console.log(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, note }));
  // Closed once the probes have stopped (stdin ends).
  while (!(await lines.next()).done);
  await http.close();
  await sandbox.close();
  process.exit(0);
}

interface Round {
  ms: number;
  maxRssMb: number;
  healthMax: number;
  healthMedian: number;
  note: string;
}

async function round(variant: Variant): Promise<Round> {
  const server: ChildProcess = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', variant], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(((await lines.next()).value as string | undefined) ?? '{}') as Record<string, unknown>;
  const { url } = (await next()) as { url: string };
  const latencies: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const sent = performance.now();
      await (await fetch(`${url}/health`)).text();
      latencies.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  server.stdin!.write('go\n');
  const result = (await next()) as { ms: number; maxRssMb: number; note: string };
  done = true;
  await probing;
  server.stdin!.end();
  await new Promise((resolve) => server.once('exit', resolve));
  const sorted = latencies.sort((a, b) => a - b);
  return { ...result, healthMax: sorted[sorted.length - 1]!, healthMedian: sorted[Math.floor(sorted.length / 2)]! };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const results = new Map<Variant, Round[]>(VARIANTS.map((v) => [v, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < VARIANTS.length; i++) {
      const variant = VARIANTS[(i + r) % VARIANTS.length]!;
      const measured = await round(variant);
      results.get(variant)!.push(measured);
      console.error(`round ${r + 1} ${variant}: ${measured.ms.toFixed(0)} ms, /health max ${measured.healthMax.toFixed(0)} ms, RSS ${measured.maxRssMb.toFixed(0)} MB (${measured.note})`);
    }
  }
  const baseOf = (variant: Variant) => results.get(variant.startsWith('small-') ? 'small-main-layout' : 'main-layout')!;
  const figure = (rounds: Round[], key: keyof Omit<Round, 'note'>) => median(rounds.map((x) => x[key]));
  console.log(`\nCreateDiagram's worst case (200 nodes, 400 edges, 201 back up the flow), and a 30-node flow (small-), with /health probed every ${PROBE_EVERY_MS} ms; Node ${process.version}, medians of ${ROUNDS} interleaved rounds; ratios to main-layout (small-main-layout)\n`);
  console.log(`${'variant'.padEnd(26)}${'time ms'.padStart(16)}${'/health max ms'.padStart(22)}${'/health p50 ms'.padStart(20)}${'peak RSS MB'.padStart(20)}`);
  for (const [variant, rounds] of results) {
    const cell = (key: keyof Omit<Round, 'note'>, digits = 0) => {
      const value = figure(rounds, key);
      return `${value.toFixed(digits)} (${(value / figure(baseOf(variant), key)).toPrecision(2)}x)`;
    };
    console.log(`${variant.padEnd(26)}${cell('ms').padStart(16)}${cell('healthMax').padStart(22)}${cell('healthMedian', 1).padStart(20)}${cell('maxRssMb').padStart(20)}`);
  }
}

const asChild = process.argv.indexOf('--child');
if (asChild >= 0) await child(process.argv[asChild + 1] as Variant);
else await main();
