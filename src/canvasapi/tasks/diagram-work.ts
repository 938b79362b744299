/**
 * CreateDiagram's layout plan and its work, counted the way dagre does it, without dagre (the
 * main thread decides before any worker runs; the worker, diagram-layout.ts, follows the same plan).
 *
 * dagre's time follows the layered graph it builds: the nodes, one bend point (dummy node) per
 * rank an edge crosses after the first (dagre doubles every edge's length), the ranks, and for
 * subgraphs laid out as clusters, two border nodes per cluster and rank and ranks tripled. Its
 * ranking (network simplex) costs about nodes x (nodes + edges) per round, and takes rounds in
 * proportion to the nodes; past SIMPLEX_PRODUCT the plan asks dagre for its tight-tree ranker,
 * which stops after the first feasible ranking. The weights below are CPU microseconds on the
 * reference 2-core machine, fitted by bench/layout-bounds.ts (docs/performance.md), with a margin
 * over its shapes; WORK_LIMIT keeps every accepted layout near 0.8 s of CPU, about 2 s on a busy core.
 *
 * Subgraphs: dagre's clusters are slow (border nodes on every rank a cluster spans) and can fail
 * ("Not possible to find intersection inside of the rectangle") when edges cross them. They are
 * used only for small diagrams; otherwise, and whenever dagre fails, each subgraph is laid out on
 * its own and then placed as one box in the diagram's flow ("boxes"): frames then hold their nodes
 * and never overlap. Past the limit, the edges that cross the most ranks are left out of the
 * layout (drawn all the same), at most half of them; past that the input is refused.
 */

export type Ranker = 'network-simplex' | 'tight-tree';

/** What the plan needs of the layout input (diagram-layout.ts's FlowLayoutInput). */
export interface WorkInput {
  nodes: { id: string }[];
  edges: { from: string; to: string }[];
  groups?: (number | undefined)[];
  groupCount?: number;
  /** Default BEND_POINT_LIMIT. */
  bendPointLimit?: number;
  /** Default WORK_LIMIT. */
  workLimit?: number;
  /** Default CLUSTER_WORK (tests and the bench set it to force one layout or the other). */
  clusterWork?: number;
}

/** One flat dagre layout: node indices into the input (or group boxes, -1 - group), edges by input index. */
export interface Piece {
  /** Input node index, or -1 - g for group g's box (top level of "boxes"). */
  members: number[];
  /** Edges between members, by position in `members`; `sources` lists each one's input edges. */
  edges: { from: number; to: number; sources: number[] }[];
  /** Edges of this piece left out of its layout, by position in `edges`. */
  leftOut: number[];
  ranker: Ranker;
  /** Each member's rank as counted here (a fallback places members by it if dagre fails). */
  ranks: Int32Array;
  bendPoints: number;
  work: number;
}

export interface LayoutPlan {
  /** flat: one dagre layout; clusters: dagre's compound layout; boxes: each subgraph, then the boxes. */
  mode: 'flat' | 'clusters' | 'boxes';
  /** flat and clusters: one piece (all nodes); boxes: one per group (by group index), then the top level. */
  pieces: Piece[];
  /** Input edges left out of the layout, ascending. */
  leftOut: number[];
  /** Predicted CPU microseconds, all pieces (clusters: the compound layout and its fallback). */
  work: number;
  /** Why not clusters, when the diagram has subgraphs and is laid out as boxes. */
  boxesBecause?: string;
  /** clusters: the boxes plan, should dagre fail on the clusters. */
  fallback?: LayoutPlan;
}

/** Bend points dagre may add, at most: beyond, long edges are left out (as before this model). */
export const BEND_POINT_LIMIT = 3_000;
/** Predicted CPU microseconds one layout may take: 0.8 s (about 2 s on a busy core). */
export const WORK_LIMIT = 800_000;
/** A layout small enough to run at once, ahead of big ones: about 50 ms on a busy core. */
export const SMALL_WORK = 25_000;
/** Network simplex up to this nodes x (nodes + edges) of its ranking graph; tight-tree beyond. */
export const SIMPLEX_PRODUCT = 20_000;
/** Subgraph diagrams as dagre clusters up to this predicted work (else boxes). */
export const CLUSTER_WORK = 250_000;
/** Share of the edges that may be left out before the input is refused. */
const LEAVE_OUT_SHARE = 0.5;

/** CPU microseconds per unit (fitted by bench/layout-bounds.ts). */
export const WEIGHTS = { fixed: 4_000, perNode: 50, perEdge: 70, perBendPoint: 200, perBendPointAndWidth: 20, simplex: 8, tightTree: 0.3, perBorder: 200 } as const;

/** Why a layout is over the limit: what to reduce. */
export class LayoutTooBig extends Error {
  constructor(readonly work: number, readonly limit: number, readonly leftOutNeeded: number, readonly edgeCount: number) {
    super(`laying this diagram out would take about ${Math.round(work / 1000)} ms of CPU, over the ${Math.round(limit / 1000)} ms allowed`);
  }
}

/** The refusal of a layout past the bound: on the parameter the diagram came in, saying what to reduce. */
export function overBoundIssue(error: LayoutTooBig, source: 'mermaid' | 'nodes', subgraphs: boolean): { parameter: string; problem: string } {
  const within = error.leftOutNeeded ? ` even with ${error.leftOutNeeded} of its ${error.edgeCount} edges left out of the layout` : '';
  return {
    parameter: source === 'mermaid' ? 'mermaid' : 'edges',
    problem: `${error.message}${within}, so nothing was laid out or sent: draw fewer nodes or edges (edges back up a long flow cost most)${subgraphs ? ', fewer subgraphs' : ''}, split the diagram in two, or use layout "grid"`,
  };
}

/** dagre's node order (graphlib's Object.keys): integer-like ids first, ascending, then the rest as added. */
export function dagreOrder(ids: string[]): number[] {
  const integers: number[] = [];
  const rest: number[] = [];
  ids.forEach((id, index) => (/^(0|[1-9][0-9]{0,9})$/.test(id) && Number(id) < 4_294_967_295 ? integers : rest).push(index));
  integers.sort((a, b) => Number(ids[a]) - Number(ids[b]));
  return [...integers, ...rest];
}

/** A piece's ranks and each edge's bend points, as dagre's first steps give them (at most). */
interface Counted {
  ranks: Int32Array;
  spans: Int32Array;
}

/**
 * At most how many bend points dagre gives each kept edge (0 for the others): dagre's acyclic
 * step (edges against its depth-first walk, in its node order, reversed), then the better of two
 * longest-path rankings, with dagre's minimum length of 2 ranks per edge.
 */
function countSpans(order: number[], nodeCount: number, edges: { from: number; to: number }[], kept: Uint8Array): Counted {
  const outEdges: number[][] = Array.from({ length: nodeCount }, () => []);
  edges.forEach((edge, index) => outEdges[edge.from]!.push(index));
  const reversed = new Uint8Array(edges.length);
  // Depth-first, iteratively: 0 unseen, 1 on the path, 2 done. Finishing order, reversed, is topological.
  const state = new Uint8Array(nodeCount);
  const finished: number[] = [];
  const next = new Int32Array(nodeCount);
  for (const start of order) {
    if (state[start]) continue;
    const path = [start];
    state[start] = 1;
    while (path.length) {
      const node = path[path.length - 1]!;
      const out = outEdges[node]!;
      if (next[node]! < out.length) {
        const edge = out[next[node]!++]!;
        if (!kept[edge]) continue;
        const target = edges[edge]!.to;
        if (state[target] === 1) reversed[edge] = 1;
        else if (state[target] === 0) {
          state[target] = 1;
          path.push(target);
        }
      } else {
        state[node] = 2;
        finished.push(node);
        path.pop();
      }
    }
  }
  const tail = (edge: number) => (reversed[edge] ? edges[edge]!.to : edges[edge]!.from);
  const head = (edge: number) => (reversed[edge] ? edges[edge]!.from : edges[edge]!.to);
  const successors: number[][] = Array.from({ length: nodeCount }, () => []);
  for (let edge = 0; edge < edges.length; edge++) if (kept[edge]) successors[tail(edge)]!.push(edge);
  // Ranks pushed down from the sources, and pulled up from the sinks.
  const down = new Int32Array(nodeCount);
  const up = new Int32Array(nodeCount);
  for (let i = finished.length - 1; i >= 0; i--) {
    const node = finished[i]!;
    for (const edge of successors[node]!) down[head(edge)] = Math.max(down[head(edge)]!, down[node]! + 2);
  }
  for (const node of finished) {
    for (const edge of successors[node]!) up[node] = Math.min(up[node]!, up[head(edge)]! - 2);
  }
  const spansBy = (rank: Int32Array) => {
    const spans = new Int32Array(edges.length);
    let total = 0;
    for (let edge = 0; edge < edges.length; edge++) {
      if (!kept[edge]) continue;
      spans[edge] = rank[head(edge)]! - rank[tail(edge)]! - 1;
      total += spans[edge]!;
    }
    return { spans, total };
  };
  const pushed = spansBy(down);
  const pulled = spansBy(up);
  if (pushed.total <= pulled.total) return { ranks: down, spans: pushed.spans };
  const lowest = Math.min(0, ...up);
  return { ranks: up.map((rank) => rank - lowest), spans: pulled.spans };
}

/**
 * The work of one flat layout of `nodeCount` nodes, `edgeCount` kept edges, `bendPoints` over
 * `rankCount` ranks. A bend point costs more the wider its rank (dagre's crossing reduction
 * compares it with the others there): by the layered nodes per rank.
 */
export function flatWork(nodeCount: number, edgeCount: number, bendPoints: number, rankCount: number): { ranker: Ranker; work: number } {
  // The ranking graph: the nodes and a root, the edges and one from the root to each node.
  const product = (nodeCount + 1) * (2 * nodeCount + 1 + edgeCount);
  const ranker: Ranker = product <= SIMPLEX_PRODUCT ? 'network-simplex' : 'tight-tree';
  const width = (nodeCount + bendPoints) / Math.max(1, rankCount);
  const layered = WEIGHTS.perNode * nodeCount + WEIGHTS.perEdge * edgeCount + (WEIGHTS.perBendPoint + WEIGHTS.perBendPointAndWidth * width) * bendPoints;
  return { ranker, work: Math.round(WEIGHTS.fixed + layered + (ranker === 'network-simplex' ? WEIGHTS.simplex : WEIGHTS.tightTree) * product) };
}

interface PieceGraph {
  members: number[];
  /** The members' dagre ids, for dagre's node order. */
  ids: string[];
  edges: Piece['edges'];
}

/** A piece being fitted: its edges kept, its count. */
class Fitting {
  readonly order: number[];
  readonly kept: Uint8Array;
  readonly leftOut: number[] = [];
  counted!: Counted;
  bendPoints = 0;
  longest = -1;
  ranker: Ranker = 'network-simplex';
  work = 0;

  constructor(readonly graph: PieceGraph) {
    this.order = dagreOrder(graph.ids);
    this.kept = new Uint8Array(graph.edges.length).fill(1);
    this.count();
  }

  count(): void {
    this.counted = countSpans(this.order, this.graph.members.length, this.graph.edges, this.kept);
    const { spans } = this.counted;
    this.bendPoints = 0;
    this.longest = -1;
    spans.forEach((span, index) => {
      this.bendPoints += span;
      if (this.kept[index] && (this.longest < 0 || span >= spans[this.longest]!)) this.longest = index;
    });
    const ranks = this.counted.ranks;
    const rankCount = ranks.length ? Math.max(...ranks) - Math.min(...ranks) + 1 : 0;
    ({ ranker: this.ranker, work: this.work } = flatWork(this.graph.members.length, this.graph.edges.length - this.leftOut.length, this.bendPoints, rankCount));
  }

  leaveOutLongest(): void {
    this.kept[this.longest] = 0;
    this.leftOut.push(this.longest);
    this.count();
  }

  piece(): Piece {
    const { members, edges } = this.graph;
    return { members, edges, leftOut: [...this.leftOut].sort((a, b) => a - b), ranker: this.ranker, ranks: this.counted.ranks, bendPoints: this.bendPoints, work: this.work };
  }
}

/**
 * The pieces with edges left out, the one crossing the most ranks first (of any piece), until
 * their bend points and work are within the limits, or `maxLeftOut` edges are left out.
 */
function fitPieces(graphs: PieceGraph[], bendLimit: number, workLimit: number, maxLeftOut: number): Piece[] {
  const fittings = graphs.map((graph) => new Fitting(graph));
  const sum = (of: (f: Fitting) => number) => fittings.reduce((total, f) => total + of(f), 0);
  for (let leftOut = 0; leftOut < maxLeftOut && (sum((f) => f.bendPoints) > bendLimit || sum((f) => f.work) > workLimit); leftOut++) {
    let chosen: Fitting | undefined;
    for (const f of fittings) {
      if (f.longest >= 0 && (!chosen || f.counted.spans[f.longest]! >= chosen.counted.spans[chosen.longest]!)) chosen = f;
    }
    if (!chosen) break;
    chosen.leaveOutLongest();
  }
  return fittings.map((f) => f.piece());
}

/** Each input edge's ends by node index (edges to unknown ids, which the plan never holds, are dropped). */
function edgeEnds(input: WorkInput): { from: number; to: number; index: number }[] {
  const indexOf = new Map(input.nodes.map((node, index) => [node.id, index]));
  return input.edges.flatMap((edge, index) => {
    const from = indexOf.get(edge.from);
    const to = indexOf.get(edge.to);
    return from === undefined || to === undefined ? [] : [{ from, to, index }];
  });
}

/** The whole graph as one piece (flat, or the clusters' estimate). */
function wholeGraph(input: WorkInput): PieceGraph {
  return { members: input.nodes.map((_, index) => index), ids: input.nodes.map((node) => node.id), edges: edgeEnds(input).map(({ from, to, index }) => ({ from, to, sources: [index] })) };
}

/** Each group's own graph, then the top level: group boxes and the nodes outside groups, edges merged per pair. */
function boxGraphs(input: WorkInput): PieceGraph[] {
  const groupCount = input.groupCount ?? 0;
  const groupOf = (node: number) => input.groups?.[node];
  const inner: PieceGraph[] = Array.from({ length: groupCount }, () => ({ members: [], ids: [], edges: [] }));
  const top: PieceGraph = { members: [], ids: [], edges: [] };
  const position = new Int32Array(input.nodes.length);
  for (let group = 0; group < groupCount; group++) {
    top.members.push(-1 - group);
    top.ids.push(`\u0000group ${group}`);
  }
  input.nodes.forEach((node, index) => {
    const group = groupOf(index);
    const piece = group === undefined ? top : inner[group]!;
    position[index] = piece.members.length;
    piece.members.push(index);
    piece.ids.push(node.id);
  });
  const unitOf = (node: number) => (groupOf(node) === undefined ? position[node]! : groupOf(node)!);
  const merged = new Map<string, Piece['edges'][number]>();
  for (const { from, to, index } of edgeEnds(input)) {
    const group = groupOf(from);
    if (group !== undefined && group === groupOf(to)) {
      inner[group]!.edges.push({ from: position[from]!, to: position[to]!, sources: [index] });
      continue;
    }
    const key = `${unitOf(from)} ${unitOf(to)}`;
    const edge = merged.get(key);
    if (edge) edge.sources.push(index);
    else {
      const made = { from: unitOf(from), to: unitOf(to), sources: [index] };
      merged.set(key, made);
      top.edges.push(made);
    }
  }
  return [...inner, top];
}

/**
 * A conservative count of dagre's compound layout: ranks tripled (its nesting graph), every edge's
 * bend points tripled and two more, and two border nodes per cluster on every rank it spans.
 */
function clusterWork(input: WorkInput, flat: Piece): number {
  const groupCount = input.groupCount ?? 0;
  const low = new Int32Array(groupCount).fill(2 ** 30);
  const high = new Int32Array(groupCount).fill(-1);
  input.nodes.forEach((_, index) => {
    const group = input.groups?.[index];
    if (group === undefined) return;
    low[group] = Math.min(low[group]!, flat.ranks[index]!);
    high[group] = Math.max(high[group]!, flat.ranks[index]!);
  });
  let borders = 0;
  for (let group = 0; group < groupCount; group++) if (high[group]! >= 0) borders += 2 * (3 * (high[group]! - low[group]!) + 3);
  const edgeCount = flat.edges.length;
  const nodeCount = input.nodes.length + groupCount * 2;
  const rankCount = 3 * (Math.max(0, ...flat.ranks) + 1);
  const base = flatWork(nodeCount, edgeCount + groupCount * 2, 3 * flat.bendPoints + 2 * edgeCount, rankCount);
  return base.work + WEIGHTS.perBorder * borders;
}

/**
 * The plan for this input: which layout, which edges left out, the predicted work. Throws
 * LayoutTooBig when even with half the edges left out it would pass the limit.
 */
export function planLayout(input: WorkInput): LayoutPlan {
  const bendLimit = input.bendPointLimit ?? BEND_POINT_LIMIT;
  const workLimit = input.workLimit ?? WORK_LIMIT;
  const edgeCount = input.edges.length;
  const maxLeftOut = Math.floor(edgeCount * LEAVE_OUT_SHARE);
  const grouped = (input.groupCount ?? 0) > 0;
  const whole = fitPieces([wholeGraph(input)], bendLimit, workLimit, grouped ? 0 : maxLeftOut)[0]!;
  if (!grouped) {
    if (whole.work > workLimit || whole.bendPoints > bendLimit) throw new LayoutTooBig(whole.work, workLimit, whole.leftOut.length, edgeCount);
    return { mode: 'flat', pieces: [whole], leftOut: sourcesOf(whole), work: whole.work };
  }
  const boxes = planBoxes(input, bendLimit, workLimit, maxLeftOut);
  const clusters = clusterWork(input, whole);
  // The clusters only when small, with room left for the boxes should dagre fail on them.
  if (clusters <= (input.clusterWork ?? CLUSTER_WORK) && clusters + boxes.work <= workLimit && whole.bendPoints <= bendLimit) {
    return { mode: 'clusters', pieces: [whole], leftOut: [], work: clusters + boxes.work, fallback: boxes };
  }
  return { ...boxes, boxesBecause: `laying the ${input.groupCount} subgraphs out together would take about ${Math.round(clusters / 1000)} ms` };
}

function planBoxes(input: WorkInput, bendLimit: number, workLimit: number, maxLeftOut: number): LayoutPlan {
  const pieces = fitPieces(boxGraphs(input), bendLimit, workLimit, maxLeftOut);
  const work = pieces.reduce((sum, piece) => sum + piece.work, 0);
  const leftOut = pieces.flatMap(sourcesOf).sort((a, b) => a - b);
  if (work > workLimit || pieces.reduce((sum, piece) => sum + piece.bendPoints, 0) > bendLimit) throw new LayoutTooBig(work, workLimit, leftOut.length, input.edges.length);
  return { mode: 'boxes', pieces, leftOut, work };
}

const sourcesOf = (piece: Piece) => piece.leftOut.flatMap((edge) => piece.edges[edge]!.sources);

/** Whether a layout is small enough to run at once, ahead of big ones: few nodes, at most 2 subgraphs, little predicted work. */
export function isSmallLayout(input: WorkInput): boolean {
  if (input.nodes.length > 40 || input.edges.length > 80 || (input.groupCount ?? 0) > 2) return false;
  try {
    const plan = planLayout(input);
    // The clusters' fallback runs only should dagre fail on them.
    return plan.work - (plan.fallback?.work ?? 0) <= SMALL_WORK;
  } catch {
    return false;
  }
}
