/**
 * CreateDiagram's flow layout: dagre's layered layout, following the plan diagram-work.ts makes
 * (which layout, which edges left out, which ranker), its work bounded first. A pure function,
 * run in a worker thread (core/tools/off-thread.ts), so dagre never loads on the main thread.
 *
 * Within the bounds, a diagram without subgraphs is dagre's layout of the whole graph, as before.
 * Past them, the edges that cross the most ranks are left out of the layout (drawn all the same).
 * Subgraphs are dagre's clusters when small; else, or when dagre fails on them, each is laid out
 * on its own and placed as a box ("boxes"). Should dagre fail on a flat layout too, its nodes are
 * placed in rows by the ranks counted for the plan: the caller gets a drawing, never dagre's error.
 */
import { Graph, layout } from '@dagrejs/dagre';
import { planLayout, type LayoutPlan, type Piece, type WorkInput } from './diagram-work.js';

export { BEND_POINT_LIMIT, WORK_LIMIT, isSmallLayout } from './diagram-work.js';

export interface FlowLayoutInput extends WorkInput {
  nodes: { id: string; width: number; height: number }[];
  edges: { from: string; to: string }[];
  direction: 'TB' | 'BT' | 'LR' | 'RL';
  /** Each node's group (a subgraph, drawn as a frame) by index, if any. */
  groups?: (number | undefined)[];
  groupCount?: number;
  nodeGap: number;
  rankGap: number;
}

export interface FlowLayout {
  /** Node centres in input order, relative to the diagram's top-left corner. */
  centres: { x: number; y: number }[];
  /** Indices of the edges left out of the layout to stay within its bounds, ascending. */
  leftOut: number[];
  /** Each group's box (centre and size), from the same corner. */
  groupBoxes: { x: number; y: number; width: number; height: number }[];
  /** How the layout differs from dagre's of the whole diagram, when it does (a short note). */
  fallback?: string;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A group's key in dagre's graph: apart from every node id (which never holds a NUL). */
const groupKey = (index: number) => `\u0000group ${index}`;

/** The graph methods used here (dagre's own types name the graphlib it bundles, which does not resolve). */
interface LayoutGraph {
  node(id: string): Box;
  setParent(id: string, parent: string): void;
}

export function layOutFlow(input: FlowLayoutInput): FlowLayout {
  const plan = planLayout(input);
  if (plan.mode === 'flat') {
    const { centres, failed } = layOutPiece(input, plan.pieces[0]!, (node) => input.nodes[node]!);
    return finish(input, centres, [], plan.leftOut, failed ? ROWS_NOTE : undefined);
  }
  if (plan.mode === 'clusters') {
    try {
      return layOutClusters(input);
    } catch (error) {
      const boxes = layOutBoxes(input, plan.fallback!);
      return { ...boxes, fallback: joinNotes(`dagre could not lay the subgraphs out together (${messageOf(error)}), so each subgraph was laid out on its own and placed as a box.`, boxes.fallback) };
    }
  }
  const boxes = layOutBoxes(input, plan);
  return { ...boxes, fallback: joinNotes(`Each subgraph was laid out on its own and placed as a box (${plan.boxesBecause ?? 'subgraphs laid out together take long'}).`, boxes.fallback) };
}

const ROWS_NOTE = 'dagre could not lay part of the diagram out, so its nodes were placed in rows by rank.';

const joinNotes = (...notes: (string | undefined)[]) => notes.filter(Boolean).join(' ') || undefined;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 100);

/** dagre's compound layout: each group a cluster, laid out as a box within the one layout. */
function layOutClusters(input: FlowLayoutInput): FlowLayout {
  const groupCount = input.groupCount ?? 0;
  const graph = newGraph(input, true);
  for (const node of input.nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  for (let group = 0; group < groupCount; group++) graph.setNode(groupKey(group), {});
  input.nodes.forEach((node, index) => {
    const group = input.groups?.[index];
    if (group !== undefined) (graph as unknown as LayoutGraph).setParent(node.id, groupKey(group));
  });
  input.edges.forEach((edge, index) => graph.setEdge(edge.from, edge.to, {}, String(index)));
  layout(graph);
  const at = input.nodes.map((node) => (graph as unknown as LayoutGraph).node(node.id));
  const boxes = Array.from({ length: groupCount }, (_, group) => (graph as unknown as LayoutGraph).node(groupKey(group)));
  return finish(input, at, boxes, [], undefined);
}

function newGraph(input: FlowLayoutInput, compound: boolean, ranker?: Piece['ranker']): Graph {
  const graph = new Graph({ multigraph: true, compound });
  // The default ranker (network simplex) is left unnamed: the layout is then exactly dagre's default.
  graph.setGraph({ rankdir: input.direction, nodesep: input.nodeGap, ranksep: input.rankGap, marginx: 0, marginy: 0, ...(ranker === 'tight-tree' ? { ranker } : {}) });
  graph.setDefaultEdgeLabel(() => ({}));
  return graph;
}

/**
 * One flat dagre layout of a piece: its members' centres (dagre's coordinates). If dagre fails,
 * the members in rows by the ranks the plan counted (`failed`).
 */
function layOutPiece(input: FlowLayoutInput, piece: Piece, sizeOf: (member: number) => { width: number; height: number }): { centres: Box[]; failed: boolean } {
  const ids = piece.members.map((member) => (member >= 0 ? input.nodes[member]!.id : groupKey(-1 - member)));
  const sizes = piece.members.map((member) => ({ width: sizeOf(member).width, height: sizeOf(member).height }));
  const graph = newGraph(input, false, piece.ranker);
  ids.forEach((id, index) => graph.setNode(id, { ...sizes[index]! }));
  const left = new Set(piece.leftOut);
  piece.edges.forEach((edge, index) => {
    if (!left.has(index)) graph.setEdge(ids[edge.from]!, ids[edge.to]!, {}, String(index));
  });
  try {
    layout(graph);
    return { centres: ids.map((id, index) => ({ x: (graph as unknown as LayoutGraph).node(id).x, y: (graph as unknown as LayoutGraph).node(id).y, ...sizes[index]! })), failed: false };
  } catch {
    return { centres: inRows(input, piece, sizes), failed: true };
  }
}

/** Members in rows (columns for LR, RL) by rank, in input order: no dagre, never fails. */
function inRows(input: FlowLayoutInput, piece: Piece, sizes: { width: number; height: number }[]): Box[] {
  const across = input.direction === 'LR' || input.direction === 'RL';
  const rankOf = [...new Set(piece.ranks)].sort((a, b) => a - b);
  const row = new Map(rankOf.map((rank, index) => [rank, index]));
  const along = (s: { width: number; height: number }) => (across ? s.height : s.width);
  const deep = (s: { width: number; height: number }) => (across ? s.width : s.height);
  const depth = Math.max(...sizes.map(deep)) + input.rankGap;
  const filled = new Map<number, number>();
  return piece.members.map((_, index) => {
    const r = row.get(piece.ranks[index]!)!;
    const at = filled.get(r) ?? 0;
    filled.set(r, at + along(sizes[index]!) + input.nodeGap);
    const a = at + along(sizes[index]!) / 2;
    const d = (input.direction === 'BT' || input.direction === 'RL' ? rankOf.length - 1 - r : r) * depth;
    return { ...(across ? { x: d, y: a } : { x: a, y: d }), ...sizes[index]! };
  });
}

/** Room between a subgraph's box (its frame) and its nodes, each side. */
const BOX_PADDING = 60;

/** Each group laid out on its own; then the top level, each group a box of its layout's size; then the groups placed in their boxes. */
function layOutBoxes(input: FlowLayoutInput, plan: LayoutPlan): FlowLayout {
  const groupCount = input.groupCount ?? 0;
  const centres: Box[] = input.nodes.map(() => ({ x: 0, y: 0, width: 0, height: 0 }));
  const inner: Box[] = [];
  let failed = false;
  for (let group = 0; group < groupCount; group++) {
    const piece = plan.pieces[group]!;
    const laid = layOutPiece(input, piece, (member) => input.nodes[member]!);
    failed ||= laid.failed;
    const left = Math.min(...laid.centres.map((c) => c.x - c.width / 2));
    const top = Math.min(...laid.centres.map((c) => c.y - c.height / 2));
    const right = Math.max(...laid.centres.map((c) => c.x + c.width / 2));
    const bottom = Math.max(...laid.centres.map((c) => c.y + c.height / 2));
    const empty = !piece.members.length;
    inner.push(empty ? { x: 0, y: 0, width: 2 * BOX_PADDING, height: 2 * BOX_PADDING } : { x: left, y: top, width: right - left + 2 * BOX_PADDING, height: bottom - top + 2 * BOX_PADDING });
    // Relative to the box's top-left corner for now.
    piece.members.forEach((member, index) => {
      const c = laid.centres[index]!;
      centres[member] = { ...c, x: c.x - left + BOX_PADDING, y: c.y - top + BOX_PADDING };
    });
  }
  const top = layOutPiece(input, plan.pieces[groupCount]!, (member) => (member >= 0 ? input.nodes[member]! : inner[-1 - member]!));
  failed ||= top.failed;
  const boxes: Box[] = [];
  plan.pieces[groupCount]!.members.forEach((member, index) => {
    const c = top.centres[index]!;
    if (member >= 0) centres[member] = c;
    else boxes[-1 - member] = c;
  });
  input.nodes.forEach((_, node) => {
    const group = input.groups?.[node];
    if (group === undefined) return;
    const box = boxes[group]!;
    centres[node] = { ...centres[node]!, x: centres[node]!.x + box.x - box.width / 2, y: centres[node]!.y + box.y - box.height / 2 };
  });
  return finish(input, centres, boxes, plan.leftOut, failed ? ROWS_NOTE : undefined);
}

/** Centres and boxes from the diagram's top-left corner. */
function finish(input: FlowLayoutInput, at: { x: number; y: number }[], boxes: Box[], leftOut: number[], fallback: string | undefined): FlowLayout {
  const left = Math.min(...input.nodes.map((node, i) => at[i]!.x - node.width / 2), ...boxes.map((b) => b.x - b.width / 2));
  const top = Math.min(...input.nodes.map((node, i) => at[i]!.y - node.height / 2), ...boxes.map((b) => b.y - b.height / 2));
  return {
    centres: at.map((p) => ({ x: p.x - left, y: p.y - top })),
    leftOut,
    groupBoxes: boxes.map((b) => ({ x: b.x - left, y: b.y - top, width: b.width, height: b.height })),
    ...(fallback ? { fallback } : {}),
  };
}
