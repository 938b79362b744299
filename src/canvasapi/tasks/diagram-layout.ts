/**
 * CreateDiagram's flow layout: dagre's layered layout, its work bounded first. A pure function,
 * run in a worker thread (core/tools/off-thread.ts), so dagre never loads on the main thread.
 *
 * dagre's time and memory grow with the bend points it adds: one per rank an edge crosses after
 * the first (dagre doubles every edge's length, so each has at least one). A few edges back up a
 * long flow add tens of thousands (200 nodes with 400 edges: 60,000, 30 s and a gigabyte). So the
 * layout first bounds their number, following dagre's own first steps: the edges that go against
 * its depth-first walk are reversed, then ranks by longest path bound the ranks dagre reaches
 * (its ranking minimises the total length). Past BEND_POINT_LIMIT, the edge that crosses the most
 * ranks is left out of the layout (it is drawn all the same), and the next, until within the
 * limit. Within it, the layout is dagre's of the whole graph, as before.
 */
import { Graph, layout } from '@dagrejs/dagre';

export interface FlowLayoutInput {
  nodes: { id: string; width: number; height: number }[];
  edges: { from: string; to: string }[];
  direction: 'TB' | 'BT' | 'LR' | 'RL';
  /** Each node's group (a subgraph, drawn as a frame) by index, if any: dagre lays each group out as a box of its own. */
  groups?: (number | undefined)[];
  groupCount?: number;
  nodeGap: number;
  rankGap: number;
  /** Default BEND_POINT_LIMIT. */
  bendPointLimit?: number;
}

export interface FlowLayout {
  /** Node centres in input order, relative to the diagram's top-left corner. */
  centres: { x: number; y: number }[];
  /** Indices of the edges left out of the layout to stay within BEND_POINT_LIMIT, ascending. */
  leftOut: number[];
  /** Each group's box (centre and size), from the same corner. */
  groupBoxes: { x: number; y: number; width: number; height: number }[];
}

/** A group's key in dagre's graph: apart from every node id (which never holds a NUL). */
const groupKey = (index: number) => `\u0000group ${index}`;

/** Bend points dagre may add: about 2 s of layout on one busy core, 150 MB. */
export const BEND_POINT_LIMIT = 3_000;

/** The graph methods used here (dagre's own types name the graphlib it bundles, which does not resolve). */
interface LayoutGraph {
  nodes(): string[];
  outEdges(id: string): { v: string; w: string; name?: string }[] | undefined;
  node(id: string): { x: number; y: number };
  removeEdge(from: string, to: string, name: string): void;
}

export function layOutFlow(input: FlowLayoutInput): FlowLayout {
  const groupCount = input.groupCount ?? 0;
  const graph = new Graph({ multigraph: true, compound: groupCount > 0 });
  graph.setGraph({ rankdir: input.direction, nodesep: input.nodeGap, ranksep: input.rankGap, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of input.nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  for (let group = 0; group < groupCount; group++) graph.setNode(groupKey(group), {});
  input.nodes.forEach((node, index) => {
    const group = input.groups?.[index];
    if (group !== undefined) (graph as unknown as { setParent(id: string, parent: string): void }).setParent(node.id, groupKey(group));
  });
  input.edges.forEach((edge, index) => graph.setEdge(edge.from, edge.to, {}, String(index)));
  const leftOut = edgesToLeaveOut(graph as LayoutGraph, input.edges.length, input.bendPointLimit ?? BEND_POINT_LIMIT);
  for (const index of leftOut) graph.removeEdge(input.edges[index]!.from, input.edges[index]!.to, String(index));
  layout(graph);
  const at = input.nodes.map((node) => (graph as LayoutGraph).node(node.id));
  const boxes = Array.from({ length: groupCount }, (_, group) => (graph as LayoutGraph).node(groupKey(group)) as { x: number; y: number; width: number; height: number });
  const left = Math.min(...input.nodes.map((node, i) => at[i]!.x - node.width / 2), ...boxes.map((b) => b.x - b.width / 2));
  const top = Math.min(...input.nodes.map((node, i) => at[i]!.y - node.height / 2), ...boxes.map((b) => b.y - b.height / 2));
  return {
    centres: at.map((p) => ({ x: p.x - left, y: p.y - top })),
    leftOut: leftOut.sort((a, b) => a - b),
    groupBoxes: boxes.map((b) => ({ x: b.x - left, y: b.y - top, width: b.width, height: b.height })),
  };
}

/** The graph as dagre walks it: nodes in its order, each node's out-edges in its order, edges by index. */
interface WalkOrder {
  from: Int32Array;
  to: Int32Array;
  outEdges: number[][];
}

function walkOrder(graph: LayoutGraph, edgeCount: number): WalkOrder {
  const ids = graph.nodes();
  const indexOf = new Map(ids.map((id, index) => [id, index]));
  const from = new Int32Array(edgeCount);
  const to = new Int32Array(edgeCount);
  const outEdges = ids.map((id) =>
    (graph.outEdges(id) ?? []).map((edge) => {
      const index = Number(edge.name);
      from[index] = indexOf.get(edge.v)!;
      to[index] = indexOf.get(edge.w)!;
      return index;
    }),
  );
  return { from, to, outEdges };
}

/** The edges to leave out, longest first, until the bend points are within the limit. */
function edgesToLeaveOut(graph: LayoutGraph, edgeCount: number, limit: number): number[] {
  const order = walkOrder(graph, edgeCount);
  const kept = new Uint8Array(edgeCount).fill(1);
  const leftOut: number[] = [];
  for (;;) {
    const spans = bendPointsPerEdge(order, kept);
    let total = 0;
    let longest = -1;
    spans.forEach((span, index) => {
      total += span;
      if (kept[index] && (longest < 0 || span >= spans[longest]!)) longest = index;
    });
    if (total <= limit || longest < 0) return leftOut;
    kept[longest] = 0;
    leftOut.push(longest);
  }
}

/**
 * At most how many bend points dagre gives each kept edge (0 for the others): dagre's acyclic
 * step (edges against its depth-first walk reversed), then the better of two longest-path
 * rankings, with dagre's minimum length of 2 ranks per edge.
 */
function bendPointsPerEdge({ from, to, outEdges }: WalkOrder, kept: Uint8Array): Int32Array {
  const nodeCount = outEdges.length;
  const reversed = new Uint8Array(from.length);
  // Depth-first, iteratively: 0 unseen, 1 on the path, 2 done. Finishing order, reversed, is topological.
  const state = new Uint8Array(nodeCount);
  const finished: number[] = [];
  const next = new Int32Array(nodeCount);
  for (let start = 0; start < nodeCount; start++) {
    if (state[start]) continue;
    const path = [start];
    state[start] = 1;
    while (path.length) {
      const node = path[path.length - 1]!;
      const edges = outEdges[node]!;
      if (next[node]! < edges.length) {
        const edge = edges[next[node]!++]!;
        if (!kept[edge]) continue;
        const target = to[edge]!;
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
  const tail = (edge: number) => (reversed[edge] ? to[edge]! : from[edge]!);
  const head = (edge: number) => (reversed[edge] ? from[edge]! : to[edge]!);
  const successors: number[][] = Array.from({ length: nodeCount }, () => []);
  for (let edge = 0; edge < from.length; edge++) if (kept[edge]) successors[tail(edge)]!.push(edge);
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
    const spans = new Int32Array(from.length);
    let total = 0;
    for (let edge = 0; edge < from.length; edge++) {
      if (!kept[edge]) continue;
      spans[edge] = rank[head(edge)]! - rank[tail(edge)]! - 1;
      total += spans[edge]!;
    }
    return { spans, total };
  };
  const pushed = spansBy(down);
  const pulled = spansBy(up);
  return pushed.total <= pulled.total ? pushed.spans : pulled.spans;
}
