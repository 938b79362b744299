/**
 * ReadBoard's outline (`format: "outline"`), the geometry and the graph: pure functions over the
 * items read, no platform text looked at except for equal texts. Every step's work is counted
 * and bounded (OUTLINE_WORK per item), so 2,000 items cost a few hundred thousand simple steps
 * at most (run in a worker for big boards: board-outline-read.ts); what a bound cut short is said
 * by the caller.
 *
 * - Reading order: rows top to bottom, left to right within a row. A row starts at the highest
 *   box not yet placed; a box whose top edge lies less than half that box's height below its top
 *   joins the row (so boxes roughly level are one row, whatever their heights).
 * - Clusters of sticky notes (by container: a frame, or the open board): two notes are neighbours
 *   when the gap between their boxes, along x and along y, is at most half the smaller side of
 *   the smaller note; a cluster is a chain of neighbours. Notes are put into grid cells by their
 *   boxes grown by half that gap, so only notes sharing a cell are compared.
 * - Overlaps: pairs of boxes that intersect with an area, other than a frame and its own child;
 *   the same grid.
 * - Flows: a depth-first walk along connectors from each source (no incoming), in reading order.
 */

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Work allowed per item and step (pair checks, cell entries), plus a base: past it the step stops, marked `cut`. */
export const OUTLINE_WORK = { perItem: 60, base: 5_000, cellsPerBox: 256 } as const;
/** A note's neighbours are at most this share of the smaller side of the smaller note away. */
export const CLUSTER_GAP = 0.5;
/** Near-misses (a note this close to another cluster, relative to the same side) are reported as ambiguous. */
export const NEAR_GAP = 1;

export const boxWidth = (b: Box) => b.right - b.left;
export const boxHeight = (b: Box) => b.bottom - b.top;

/** A counter of work steps, with a limit: `spend` says false once it is over. */
export class Work {
  done = 0;
  constructor(readonly limit: number) {}
  static forItems(items: number): Work {
    return new Work(OUTLINE_WORK.base + OUTLINE_WORK.perItem * items);
  }
  spend(steps = 1): boolean {
    this.done += steps;
    return this.done <= this.limit;
  }
  get over(): boolean {
    return this.done > this.limit;
  }
}

/**
 * The rows of `boxes` (lists of indices): a row starts at the highest box not yet placed, and
 * takes every box whose top edge is above that box's middle (or level with its top); each row is
 * left to right (by left edge, then top).
 */
export function readingRows(boxes: readonly Box[]): number[][] {
  const at = (i: number) => boxes[i] as Box;
  const byTop = boxes.map((_, i) => i).sort((a, b) => at(a).top - at(b).top || at(a).left - at(b).left || a - b);
  const rows: number[][] = [];
  let next = 0;
  while (next < byTop.length) {
    const first = at(byTop[next] as number);
    const limit = first.top + boxHeight(first) / 2;
    const row = [byTop[next++] as number];
    // Boxes are taken by top, so a row is a run of them.
    while (next < byTop.length && (at(byTop[next] as number).top < limit || at(byTop[next] as number).top === first.top)) row.push(byTop[next++] as number);
    rows.push(row.sort((a, b) => at(a).left - at(b).left || at(a).top - at(b).top || a - b));
  }
  return rows;
}

/** Indices of `boxes` in reading order: the rows top to bottom, each left to right. */
export function readingOrder(boxes: readonly Box[]): number[] {
  return readingRows(boxes).flat();
}

/** The gap between two boxes along x and along y (0 when they overlap along that axis). */
export function gaps(a: Box, b: Box): { x: number; y: number } {
  return { x: Math.max(0, a.left - b.right, b.left - a.right), y: Math.max(0, a.top - b.bottom, b.top - a.bottom) };
}

const smallerSide = (b: Box) => Math.max(0, Math.min(boxWidth(b), boxHeight(b)));

/** The largest gap at which two notes are neighbours (`share` = CLUSTER_GAP), or near (NEAR_GAP). */
export function reach(a: Box, b: Box, share = CLUSTER_GAP): number {
  return share * Math.min(smallerSide(a), smallerSide(b));
}

export function neighbours(a: Box, b: Box, share = CLUSTER_GAP): boolean {
  const g = gaps(a, b);
  return Math.max(g.x, g.y) <= reach(a, b, share);
}

/** Boxes intersect with an area (touching edges do not). */
export function intersect(a: Box, b: Box): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/**
 * A grid over boxes, each entered in every cell its box grown by `grow(box)` touches (at most
 * OUTLINE_WORK.cellsPerBox cells; a larger box is kept apart and met by every other). `pairs`
 * visits each pair sharing a cell (a pair sharing several cells, once per cell), counting work.
 */
class Grid {
  private readonly cells = new Map<string, { x: number; y: number; boxes: number[] }>();
  readonly large: number[] = [];
  constructor(
    private readonly boxes: readonly Box[],
    private readonly size: number,
    grow: (box: Box) => number,
    private readonly work: Work,
  ) {
    boxes.forEach((box, index) => {
      const g = grow(box);
      const [x0, x1, y0, y1] = [Math.floor((box.left - g) / size), Math.floor((box.right + g) / size), Math.floor((box.top - g) / size), Math.floor((box.bottom + g) / size)];
      if ((x1 - x0 + 1) * (y1 - y0 + 1) > OUTLINE_WORK.cellsPerBox || ![x0, x1, y0, y1].every(Number.isFinite)) {
        this.large.push(index);
        return;
      }
      for (let x = x0; x <= x1; x++) {
        for (let y = y0; y <= y1; y++) {
          const key = `${x},${y}`;
          const cell = this.cells.get(key);
          if (cell) cell.boxes.push(index);
          else this.cells.set(key, { x, y, boxes: [index] });
        }
      }
      work.spend((x1 - x0 + 1) * (y1 - y0 + 1));
    });
  }

  /**
   * Calls `visit(a, b, cell)` (a < b) for each pair sharing a cell (`cell` its grid position: a pair
   * sharing several is met in each), and each large box with every other (`cell` undefined); false when the work ran out.
   */
  pairs(visit: (a: number, b: number, cell: { x: number; y: number } | undefined) => void): boolean {
    for (const cell of this.cells.values()) {
      const list = cell.boxes;
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          if (!this.work.spend()) return false;
          visit(list[i] as number, list[j] as number, cell);
        }
      }
    }
    const isLarge = new Set(this.large);
    for (const a of this.large) {
      for (let b = 0; b < this.boxes.length; b++) {
        if (b === a || (isLarge.has(b) && b < a)) continue;
        if (!this.work.spend()) return false;
        visit(Math.min(a, b), Math.max(a, b), undefined);
      }
    }
    return true;
  }

  /** Whether a point lies in the cell. */
  holds(cell: { x: number; y: number }, x: number, y: number): boolean {
    return Math.floor(x / this.size) === cell.x && Math.floor(y / this.size) === cell.y;
  }
}

/** Cells about twice the median box's larger side: a few boxes to a cell on a board of notes. */
function cellSize(boxes: readonly Box[]): number {
  const sides = boxes.map((b) => Math.max(boxWidth(b), boxHeight(b), 1)).sort((a, b) => a - b);
  return 2 * (sides[Math.floor(sides.length / 2)] ?? 1);
}

class UnionFind {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(a: number): number {
    let root = a;
    while (this.parent[root] !== root) root = this.parent[root] as number;
    while (this.parent[a] !== root) {
      const next = this.parent[a] as number;
      this.parent[a] = root;
      a = next;
    }
    return root;
  }
  union(a: number, b: number): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

export interface Clustering {
  /** Clusters as lists of indices, each in its own reading order; clusters in the order the board's reading order meets them. */
  clusters: number[][];
  /** Pairs of notes in different clusters closer than NEAR_GAP of their side: a note that may belong to either. */
  near: [number, number][];
  /** The work ran out: clusters may be split that should be one. */
  cut: boolean;
}

/** Sticky notes of one container grouped by position (the rule above). */
export function clusterNotes(boxes: readonly Box[], work: Work): Clustering {
  const sets = new UnionFind(boxes.length);
  const close: [number, number][] = [];
  // Grown by half the near reach on each side: two notes within it share a cell.
  const grid = new Grid(boxes, cellSize(boxes), (box) => (NEAR_GAP / 2) * smallerSide(box), work);
  const complete = grid.pairs((a, b) => {
    const [boxA, boxB] = [boxes[a] as Box, boxes[b] as Box];
    if (neighbours(boxA, boxB)) sets.union(a, b);
    else if (neighbours(boxA, boxB, NEAR_GAP)) close.push([a, b]);
  });
  const byRoot = new Map<number, number[]>();
  for (const index of readingOrder(boxes)) {
    const root = sets.find(index);
    const cluster = byRoot.get(root);
    if (cluster) cluster.push(index);
    else byRoot.set(root, [index]);
  }
  // Each cluster in its own reading order (a row of the board may cut across a cluster's).
  const clusters = [...byRoot.values()].map((cluster) => readingOrder(cluster.map((i) => boxes[i] as Box)).map((k) => cluster[k] as number));
  const seen = new Set<number>();
  const near = close.filter(([a, b]) => {
    if (sets.find(a) === sets.find(b)) return false;
    const key = a * boxes.length + b;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return { clusters, near, cut: !complete };
}

/** The box around boxes. */
export function boxAround(boxes: readonly Box[]): Box {
  return boxes.reduce((all, b) => ({ left: Math.min(all.left, b.left), top: Math.min(all.top, b.top), right: Math.max(all.right, b.right), bottom: Math.max(all.bottom, b.bottom) }), { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity });
}

export interface Overlaps {
  /** Pairs (a < b), in order of a then b, at most `max`. */
  pairs: [number, number][];
  /** Every overlapping pair found (more than `pairs` when cut to `max`). */
  count: number;
  /** The work ran out: there may be more. */
  cut: boolean;
}

/** Pairs of boxes that intersect, other than those `exempt` (a frame and its own child). */
export function findOverlaps(boxes: readonly Box[], exempt: (a: number, b: number) => boolean, max: number, work: Work): Overlaps {
  const pairs: [number, number][] = [];
  const grid = new Grid(boxes, cellSize(boxes), () => 0, work);
  const complete = grid.pairs((a, b, cell) => {
    const [boxA, boxB] = [boxes[a] as Box, boxes[b] as Box];
    if (!intersect(boxA, boxB) || exempt(a, b)) return;
    // Met once: in the cell holding the top-left corner of the two boxes' intersection (both boxes are in it).
    if (cell !== undefined && !grid.holds(cell, Math.max(boxA.left, boxB.left), Math.max(boxA.top, boxB.top))) return;
    pairs.push([a, b]);
  });
  pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  return { pairs: pairs.slice(0, max), count: pairs.length, cut: !complete };
}

/** One step of a flow: the connector's index (its caption) and the item it leads to. */
export interface FlowStep {
  connector: number;
  to: string;
}

export interface FlowChain {
  start: string;
  steps: FlowStep[];
  /** How the chain ends: at an item with no way on (`end`), at one shown before (`joins`), or back on its own path (`cycle`). */
  ends: 'end' | 'joins' | 'cycle';
}

export interface Flows {
  chains: FlowChain[];
  /** Each cycle once: the items from where it loops back to the last before it. */
  cycles: string[][];
  cut: boolean;
}

/**
 * Chains along connectors (`from` -> `to`), starting from each item with no incoming connector
 * in `rank` order (reading order), then from items left (only cycles reach them). A walk goes
 * depth first: the first way on continues the chain, each other way starts a chain of its own
 * at the branching item. An item reached again ends the chain: a cycle when it is on the walk's
 * own path, else a join.
 */
export function traceFlows(connectors: readonly { from: string; to: string }[], rank: (id: string) => number, work: Work): Flows {
  const out = new Map<string, number[]>();
  const incoming = new Map<string, number>();
  connectors.forEach((c, index) => {
    if (!out.has(c.from)) out.set(c.from, []);
    (out.get(c.from) as number[]).push(index);
    incoming.set(c.to, (incoming.get(c.to) ?? 0) + 1);
  });
  for (const list of out.values()) list.sort((a, b) => rank((connectors[a] as { to: string }).to) - rank((connectors[b] as { to: string }).to) || a - b);
  const byRank = (a: string, b: string) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
  const starts = [...out.keys()].filter((id) => !incoming.has(id)).sort(byRank);
  const rest = [...out.keys()].filter((id) => incoming.has(id)).sort(byRank);
  const state = new Map<string, 'open' | 'done'>();
  const result: Flows = { chains: [], cycles: [], cut: false };
  for (const start of [...starts, ...rest]) {
    if (state.has(start)) continue;
    if (!walkFrom(start, connectors, out, state, result, work)) {
      result.cut = true;
      break;
    }
  }
  return result;
}

/** One depth-first walk (iterative: a chain of 1,000 connectors needs no deep stack). */
function walkFrom(start: string, connectors: readonly { from: string; to: string }[], out: ReadonlyMap<string, number[]>, state: Map<string, 'open' | 'done'>, result: Flows, work: Work): boolean {
  // The walk's path: each item and how many of its ways it has taken.
  const path: { id: string; taken: number }[] = [{ id: start, taken: 0 }];
  state.set(start, 'open');
  let chain: FlowChain | undefined = { start, steps: [], ends: 'end' };
  result.chains.push(chain);
  while (path.length > 0) {
    if (!work.spend()) return false;
    const top = path[path.length - 1] as { id: string; taken: number };
    const ways = out.get(top.id) ?? [];
    if (top.taken >= ways.length) {
      state.set(top.id, 'done');
      path.pop();
      chain = undefined;
      continue;
    }
    const connector = ways[top.taken++] as number;
    const to = (connectors[connector] as { to: string }).to;
    // A way after the first, or after the chain ended: a new chain from this item.
    if (!chain) {
      chain = { start: top.id, steps: [], ends: 'end' };
      result.chains.push(chain);
    }
    chain.steps.push({ connector, to });
    const seen = state.get(to);
    if (seen === 'open') {
      chain.ends = 'cycle';
      const from = path.findIndex((p) => p.id === to);
      result.cycles.push(path.slice(from).map((p) => p.id));
      chain = undefined;
    } else if (seen === 'done') {
      chain.ends = 'joins';
      chain = undefined;
    } else {
      state.set(to, 'open');
      path.push({ id: to, taken: 0 });
    }
  }
  return true;
}
