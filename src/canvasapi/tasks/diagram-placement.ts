/**
 * Where a diagram that extends a drawing goes: beside the first existing item its edges name,
 * clear of everything around. The existing items are read one by one (a wrong ID is refused
 * before anything is created); then the items around, in a bounded way: the frame's children when
 * the item is in a frame (the new nodes go into that frame if they fit), else the board's items,
 * EXTEND_READS.pages pages of 50 at most. Candidate spots on a grid around the item are tried
 * nearest first, the side the flow goes to preferred; the first that overlaps nothing (with a gap)
 * wins, else the spot below everything read.
 *
 * A new diagram without an origin (placeClear) goes clear of the board's items (those not in
 * frames; a frame counts whole), PLACE_READS.pages pages of 50 at most: at 0,0 (its top-left
 * corner) when that overlaps nothing read, else to the right of everything read, level with its top.
 */
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { idText, quotedText } from '../../core/tools/line-text.js';
import { walkPages } from '../../core/tools/pager.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import { BOARD_READS, EXTEND_READS, PLACE_READS } from '../task-vocabulary.js';
import { toItem, type BoardItem } from './board-lines.js';
import type { BoardGet } from './board-tags.js';

type Json = Record<string, unknown>;

export interface Box {
  /** Top-left corner. */
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Placement {
  /** The diagram's top-left corner, on the board or (with `parent`) from the frame's top-left corner. */
  origin: { x: number; y: number };
  /** The existing frame the new nodes go into, and its top-left corner on the board. */
  parent?: { id: string; title: string; corner: { x: number; y: number } };
  /** The existing items the edges name, by ID. */
  anchors: Map<string, BoardItem>;
  /** What the answer says about it. */
  note: string;
}

/** Room kept between the new nodes and anything else. */
const CLEARANCE = 60;
/** Candidate spots: a grid of this step, this many steps each way from the item. */
const STEP = 60;
const REACH = 40;

/** Room between a new diagram placed without an origin and the items already on the board. */
const SEPARATION = 200;

/**
 * `known`: items already read (the bare item IDs looked up), not read again. An item in a frame
 * is given relative to its frame; its frame is read to place it.
 */
export async function placeBeside(get: BoardGet, signal: AbortSignal, itemIds: string[], size: { width: number; height: number }, flow: 'TB' | 'BT' | 'LR' | 'RL', mayEnterFrame: boolean, known: ReadonlyMap<string, Json> = new Map()): Promise<Placement> {
  const anchors = new Map<string, BoardItem>();
  await Promise.all(
    itemIds.map(async (id) => {
      const record = known.get(id) ?? await get('/v2/boards/{board_id}/items/{item_id}', {}, signal, { item_id: id }).catch((error: unknown) => {
        if (error instanceof ToolError && error.details.kind === 'not_found') throw ToolError.invalidInput([{ parameter: 'edges', problem: `item:${id} is not an item of this board (ReadBoard lists its item IDs)` }]);
        throw error;
      });
      if (!isRecord(record)) throw new ToolError({ kind: 'upstream_error', message: `The platform answered the read of item ${id} with something other than an item; nothing was created.` });
      anchors.set(id, toItem(record));
    }),
  );
  const anchor = anchors.get(itemIds[0]!)!;
  const label = `item ${idText(anchor.id)} ${quotedText(anchor.text, 40)}`;
  const frame = anchor.parent ? toItem(asRecord(await get('/v2/boards/{board_id}/items/{item_id}', {}, signal, { item_id: anchor.parent }))) : undefined;
  if (frame && mayEnterFrame) {
    const children = await readAround(get, signal, { parent_item_id: frame.id });
    const bounds = { left: 0, top: 0, width: frame.width ?? 0, height: frame.height ?? 0 };
    const spot = freeSpot(boxOf(anchor), size, flow, children.items.filter((item) => item.id !== anchor.id).map(boxOf), bounds);
    if (spot) {
      const corner = { x: (frame.x ?? 0) - (frame.width ?? 0) / 2, y: (frame.y ?? 0) - (frame.height ?? 0) / 2 };
      return { origin: { x: spot.left, y: spot.top }, parent: { id: frame.id, title: frame.text, corner }, anchors, note: `beside ${label}, in its frame ${idText(frame.id)}, clear of the ${children.items.length} items read in it${children.note}` };
    }
  }
  // On the board: an item in a frame is placed beside its frame (frames do not nest, and the frame may be full).
  const around = await readAround(get, signal, {});
  const from = frame ? boxOf(frame) : boxOf(anchor);
  const obstacles = topLevel(around.items);
  const spot = freeSpot(from, size, flow, obstacles, undefined) ?? below(from, size, obstacles);
  const where = frame ? `beside the frame ${idText(frame.id)} of ${label}${mayEnterFrame ? ' (no room inside it)' : ''}` : `beside ${label}`;
  return { origin: { x: spot.left, y: spot.top }, anchors, note: `${where}, clear of the ${around.items.length} items read${around.note}` };
}

const asRecord = (value: unknown): Json => (isRecord(value) ? value : {});

/**
 * Where a new diagram without an origin goes: its top-left corner, so that its box (`extent`,
 * from that corner) overlaps none of the board's items read (those not in frames; frames whole).
 */
export async function placeClear(get: BoardGet, signal: AbortSignal, extent: { width: number; height: number }): Promise<{ origin: { x: number; y: number }; note: string }> {
  const around = await readAround(get, signal, {}, PLACE_READS.pages);
  const obstacles = topLevel(around.items);
  const read = `${around.items.length} item${around.items.length === 1 ? '' : 's'} read on the board${around.note}`;
  if (!obstacles.length) return { origin: { x: 0, y: 0 }, note: around.note ? `at 0,0: no items could be read on the board${around.note}` : 'at 0,0: the board has no items' };
  const atCentre: Box = { left: 0, top: 0, ...extent };
  if (!obstacles.some((obstacle) => overlaps(atCentre, obstacle, SEPARATION))) return { origin: { x: 0, y: 0 }, note: `at 0,0, clear of the ${read}` };
  const right = Math.max(...obstacles.map((o) => o.left + o.width));
  const top = Math.min(...obstacles.map((o) => o.top));
  return { origin: { x: Math.round(right + SEPARATION), y: Math.round(top) }, note: `right of the ${read}, clear of them` };
}

/** Items of the board (or of a frame), `maxPages` pages at most. */
async function readAround(get: BoardGet, signal: AbortSignal, filter: Record<string, QueryValue>, maxPages: number = EXTEND_READS.pages): Promise<{ items: BoardItem[]; note: string }> {
  const items: BoardItem[] = [];
  const walk = await walkPages<Json>({
    signal,
    maxPages,
    pageSize: BOARD_READS.pageSize,
    fetchPage: async (at, pageSignal) => {
      const answer = await get('/v2/boards/{board_id}/items', { limit: BOARD_READS.pageSize, ...filter, ...(at?.cursor ? { cursor: at.cursor } : {}) }, pageSignal);
      const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data.filter(isRecord) : [];
      const cursor = isRecord(answer) && typeof answer.cursor === 'string' && answer.cursor ? answer.cursor : undefined;
      return { records: data, ...(cursor ? { next: { cursor } } : {}) };
    },
    idOf: (record) => (record.id === undefined ? undefined : String(record.id)),
    onPage: (page) => {
      for (const record of page.records) items.push(toItem(record));
    },
  });
  return { items, note: walk.complete ? '' : ` (the first ${items.length}; the rest were not read)` };
}

/** Items on the board itself: those in frames sit inside their frame, which is there. */
function topLevel(items: BoardItem[]): Box[] {
  return items.filter((item) => !item.parent).map(boxOf);
}

function boxOf(item: BoardItem): Box {
  const width = item.width ?? 0;
  const height = item.height ?? width;
  return { left: (item.x ?? 0) - width / 2, top: (item.y ?? 0) - height / 2, width, height };
}

const overlaps = (a: Box, b: Box, gap = CLEARANCE) => a.left < b.left + b.width + gap && b.left < a.left + a.width + gap && a.top < b.top + b.height + gap && b.top < a.top + a.height + gap;

/**
 * The nearest spot for a box of `size` beside `from` that overlaps no obstacle (and lies within
 * `bounds`, when given): spots on a grid around `from`, nearest first, those downstream of the
 * flow counted nearer. At most (2 REACH + 1)^2 spots, each against every obstacle.
 */
export function freeSpot(from: Box, size: { width: number; height: number }, flow: 'TB' | 'BT' | 'LR' | 'RL', obstacles: Box[], bounds: Box | undefined): Box | undefined {
  // The preferred spot: just past `from` in the flow's direction.
  const centre = { x: from.left + from.width / 2, y: from.top + from.height / 2 };
  const first: Box = {
    TB: { left: centre.x - size.width / 2, top: from.top + from.height + CLEARANCE + 30, ...size },
    BT: { left: centre.x - size.width / 2, top: from.top - CLEARANCE - 30 - size.height, ...size },
    LR: { left: from.left + from.width + CLEARANCE + 30, top: centre.y - size.height / 2, ...size },
    RL: { left: from.left - CLEARANCE - 30 - size.width, top: centre.y - size.height / 2, ...size },
  }[flow];
  const spots: { box: Box; distance: number }[] = [];
  for (let i = -REACH; i <= REACH; i++) {
    for (let j = -REACH; j <= REACH; j++) {
      const box = { left: first.left + i * STEP, top: first.top + j * STEP, ...size };
      if (bounds && (box.left < bounds.left + 20 || box.top < bounds.top + 60 || box.left + box.width > bounds.left + bounds.width - 20 || box.top + box.height > bounds.top + bounds.height - 20)) continue;
      spots.push({ box, distance: Math.hypot(i, j) });
    }
  }
  spots.sort((a, b) => a.distance - b.distance);
  const all = [...obstacles, from];
  return spots.find(({ box }) => !all.some((obstacle) => overlaps(box, obstacle)))?.box;
}

/** Below everything: always free. */
function below(from: Box, size: { width: number; height: number }, obstacles: Box[]): Box {
  const bottom = Math.max(from.top + from.height, ...obstacles.map((o) => o.top + o.height));
  return { left: from.left + from.width / 2 - size.width / 2, top: bottom + CLEARANCE + 30, ...size };
}
