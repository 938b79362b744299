/**
 * ReadBoard with `format: "outline"`: what it reads, then board-outline-lines.ts. It reads the
 * whole board (or the frame) up to ReadBoard's bounds rather than one page: items up to
 * `max_items` (default and at most 2,000), the frames, the connectors (1,000), the tags of the
 * sticky notes (32 requests) and the colours of some of them (one GET each, spread over the
 * clusters, OUTLINE_READS.styleReads at most). ReadBoard's own readers are passed in
 * (read-board.ts calls this), so this file imports nothing of it.
 */
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { flatText } from '../../core/tools/line-text.js';
import { runOffThread, type OffThreadStep } from '../../core/tools/off-thread.js';
import { walkNote, walkPages, type Page, type PagePosition, type WalkResult } from '../../core/tools/pager.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import { BOARD_READS, OUTLINE_READS, outlineItemPages } from '../task-vocabulary.js';
import { toItem, type BoardConnector, type BoardItem } from './board-lines.js';
import { clusterNotes, Work, type Box } from './board-outline.js';
import { OUTLINE_FORMAT, OUTLINE_TEXT_CHARS, outlineOf, type Outline, type OutlineInput, type OutlineItem } from './board-outline-lines.js';
import { readTagList, tagsOfItems, type BoardGet, type TagList } from './board-tags.js';
import { countKept, flat } from './kept-text.js';
import { plainText } from './text.js';

type Json = Record<string, unknown>;

/**
 * The outline's steps in a worker thread from this many items and connectors: below, they take a
 * few milliseconds; at 2,000 items packed on one spot, their bounded work (board-outline.ts) is
 * tens of milliseconds, which other calls and probes should not wait for.
 */
const OFF_THREAD_FROM = 500;
const OUTLINE_STEP: OffThreadStep = {
  module: new URL('./board-outline-lines.js', import.meta.url),
  exportName: 'outlineOf',
  what: 'the board outline',
  overLimit: (limit) => [{ parameter: 'max_items', problem: `outlining this many items takes more than ${limit}: pass a smaller max_items, or a frame_id` }],
};

/** The outline of what was read: on this thread when small, else in a worker. */
function outlineOff(input: OutlineInput, signal: AbortSignal): Promise<Outline> | Outline {
  return input.items.length + input.connectors.length < OFF_THREAD_FROM ? outlineOf(input) : runOffThread<OutlineInput, Outline>(OUTLINE_STEP, input, signal);
}

/** What ReadBoard gives the outline: its GET, its readers, and where it stands. */
export interface OutlineReaders {
  get: BoardGet;
  /** Reads outside the walks: one the time cut off is left out with a note. */
  optional<T>(read: Promise<T>, what: string): Promise<T | undefined>;
  timeNotes: readonly string[];
  readFrames: (get: BoardGet, signal: AbortSignal) => Promise<{ frames: BoardItem[]; note?: string }>;
  readConnectors: (get: BoardGet, signal: AbortSignal, maxItems: number, report: (message: string) => void) => Promise<{ records: BoardConnector[]; walk: WalkResult; note?: string }>;
  itemPages: (get: BoardGet, query: Record<string, QueryValue>) => (at: PagePosition | undefined, signal: AbortSignal) => Promise<Page<Json>>;
  report: (message: string) => void;
  /** The frame of `frame_id`, read first. */
  frame?: unknown;
  itemLink: string;
  /** Bytes the outline's lines may take. */
  linesBudget: number;
}

export interface OutlineArgs {
  board_id: string;
  frame_id?: string | undefined;
  max_items?: number | undefined;
  query?: string | undefined;
  item_types?: readonly string[] | undefined;
  offset?: number | undefined;
  cursor?: string | undefined;
  counts?: boolean | undefined;
}

/** Parameters of the items listing that the outline does not take: refused before anything is sent. */
export function checkOutlineArgs(args: OutlineArgs): void {
  const refused = (['query', 'item_types', 'offset', 'cursor', 'counts'] as const).filter((name) => args[name] !== undefined);
  if (refused.length === 0) return;
  throw ToolError.invalidInput(
    refused.map((parameter) => ({
      parameter,
      problem: `is not taken with format "outline", which reads the whole board (or frame_id's frame) up to max_items: leave ${parameter} out, or use format "items" (the default) to list matching items page by page`,
    })),
  );
}

/** A record as the outline keeps it: its text cut to OUTLINE_TEXT_CHARS (a flat copy, counted), its box relative to its frame for now. */
function keptItem(record: Json, signal: AbortSignal): BoardItem & { cut: boolean } {
  const item = toItem(record, OUTLINE_TEXT_CHARS);
  const text = flat(item.text);
  countKept(signal, item.id, text);
  return { ...item, text, cut: text.length > OUTLINE_TEXT_CHARS };
}

const centredBox = (item: BoardItem): Box | undefined =>
  item.x === undefined || item.y === undefined ? undefined : { left: item.x - (item.width ?? 0) / 2, top: item.y - (item.height ?? 0) / 2, right: item.x + (item.width ?? 0) / 2, bottom: item.y + (item.height ?? 0) / 2 };

/** Items in board coordinates: a child's position is from its frame's top-left corner (none when that frame was not read). */
function placed(items: readonly (BoardItem & { cut?: boolean })[], frames: ReadonlyMap<string, BoardItem>): OutlineItem[] {
  return items.map((item) => {
    const frame = item.parent ? frames.get(item.parent) : undefined;
    const frameBox = frame ? centredBox(frame) : undefined;
    const own = centredBox(item);
    const box = !item.parent ? own : own && frameBox ? { left: own.left + frameBox.left, top: own.top + frameBox.top, right: own.right + frameBox.left, bottom: own.bottom + frameBox.top } : undefined;
    return { id: item.id, type: item.type, text: item.text, ...(box ? { box } : {}), ...(item.parent ? { parent: item.parent } : {}), ...(item.cut ? { cut: true } : {}) };
  });
}

export async function readOutline(args: OutlineArgs, signal: AbortSignal, r: OutlineReaders): Promise<Json> {
  const maxItems = args.max_items ?? OUTLINE_READS.maxItems;
  const tagList: TagList = { titles: new Map(), complete: false };
  const [board, frameWalk, connectors, items] = await Promise.all([
    r.optional(r.get('/v2/boards/{board_id}', {}, signal), 'board: its name and description'),
    args.frame_id ? undefined : r.readFrames(r.get, signal),
    r.readConnectors(r.get, signal, maxItems, r.report),
    (async () => (await Promise.all([walkItems(args, maxItems, signal, r), readTagList(r.get, signal, 1, tagList)]))[0])(),
  ]);
  const frames = new Map<string, BoardItem>();
  if (isRecord(r.frame)) frames.set(String(r.frame.id), keptItem(r.frame, signal));
  for (const frame of [...items.frames, ...(frameWalk?.frames ?? [])]) frames.set(frame.id, frame);
  const outlineItems = placed([...frames.values(), ...items.items], frames);
  // The connectors read (with frame_id, those touching the frame's items), less any without both ends (the platform named none).
  const ids = new Set(outlineItems.map((item) => item.id));
  const shownConnectors = connectors.records.filter((c) => c.from !== '?' && c.to !== '?' && (args.frame_id ? ids.has(c.from) || ids.has(c.to) : true));

  const notes = outlineItems.filter((item) => item.type === 'sticky_note');
  const tags = (await r.optional(tagsOfItems(r.get, signal, notes.map((n) => n.id), tagList), 'tags: the tags of the sticky notes')) ?? { byItem: new Map<string, string[]>() };
  const colours = (await r.optional(readColours(r.get, signal, notesForColours(outlineItems)), 'colours: the colours of the sticky notes')) ?? { byId: new Map<string, string>() };
  const outline = await outlineOff({ items: outlineItems, connectors: shownConnectors, tags: tags.byItem, colours: colours.byId, budgetBytes: r.linesBudget }, signal);

  const boardInfo = isRecord(board) ? board : {};
  const description = flatText(plainText(boardInfo.description));
  const itemsNote = walkNote(items.walk, 'items', signal) ?? (items.stoppedAt ? `items: the first ${items.stoppedAt} items read (max_items)${items.walk.total !== undefined ? ` of ${items.walk.total}` : ''}; the outline covers those` : undefined);
  const partial = [
    itemsNote && (itemsNote.startsWith('items:') ? itemsNote : `items: ${itemsNote}; the outline covers those read`),
    connectors.note && `connectors: ${walkNote(connectors.walk, 'connectors', signal)}; the flows follow those read`,
    frameWalk?.note,
    notes.length > OUTLINE_READS.styleReads && `colours: read for ${OUTLINE_READS.styleReads} of the ${notes.length} sticky notes (one request each), a few from every cluster; a cluster line says of how many`,
    tags.note && `tags: ${tags.note}`,
    colours.note,
    ...outline.notes,
    ...r.timeNotes,
  ].filter((note): note is string => typeof note === 'string' && note.length > 0);
  const complete = items.walk.complete || (items.walk.stop === 'enough' && !items.stoppedAt);
  const counts = { ...items.counts, ...(connectors.walk.complete ? { connector: shownConnectors.length } : connectors.walk.total !== undefined && !args.frame_id ? { connector: connectors.walk.total } : {}) };
  return {
    board: { id: args.board_id, name: typeof boardInfo.name === 'string' ? flatText(boardInfo.name) : undefined, ...(description ? { description } : {}) },
    item_link: r.itemLink,
    ...(complete ? { counts } : { counts_read: counts, ...(items.walk.total !== undefined ? { total_items: items.walk.total } : {}) }),
    outline_format: OUTLINE_FORMAT,
    outline: outline.outline,
    ...(partial.length ? { partial } : {}),
  };
}

/** Every item of the board (or the frame) up to `maxItems`, page by page, the frames among them kept apart. */
async function walkItems(args: OutlineArgs, maxItems: number, signal: AbortSignal, r: OutlineReaders) {
  const found = { items: [] as (BoardItem & { cut: boolean })[], frames: [] as BoardItem[], counts: {} as Record<string, number>, stoppedAt: 0 };
  let read = 0;
  const walk = await walkPages<Json>({
    signal,
    maxPages: outlineItemPages(maxItems),
    pageSize: BOARD_READS.pageSize,
    fetchPage: r.itemPages(r.get, args.frame_id ? { parent_item_id: args.frame_id } : {}),
    idOf: (record) => (record.id === undefined ? undefined : String(record.id)),
    onPage: (page) => {
      for (const record of page.records) {
        if (read >= maxItems) {
          found.stoppedAt = read;
          return true;
        }
        read += 1;
        const item = keptItem(record, signal);
        found.counts[item.type] = (found.counts[item.type] ?? 0) + 1;
        if (item.type === 'frame') found.frames.push(item);
        else found.items.push(item);
      }
      r.report(`read ${read}${page.total !== undefined ? ` of ${page.total}` : ''} items`);
      return read >= maxItems && page.next !== undefined ? ((found.stoppedAt = read), true) : false;
    },
  });
  return { ...found, walk };
}

/**
 * The sticky notes whose colours are read: taken in turn from each cluster (in the outline's
 * order of containers and clusters), so that every cluster gets some before any gets many.
 */
function notesForColours(items: readonly OutlineItem[]): string[] {
  const byContainer = new Map<string, OutlineItem[]>();
  for (const item of items) {
    if (item.type !== 'sticky_note' || !item.box) continue;
    const key = item.parent ?? '';
    byContainer.set(key, [...(byContainer.get(key) ?? []), item]);
  }
  const clusters: OutlineItem[][] = [];
  for (const notes of byContainer.values()) {
    const clustering = clusterNotes(notes.map((n) => n.box as Box), Work.forItems(notes.length));
    for (const cluster of clustering.clusters) clusters.push(cluster.map((i) => notes[i] as OutlineItem));
  }
  const chosen: string[] = [];
  for (let round = 0; chosen.length < OUTLINE_READS.styleReads; round++) {
    const before = chosen.length;
    for (const cluster of clusters) if (cluster[round] && chosen.length < OUTLINE_READS.styleReads) chosen.push((cluster[round] as OutlineItem).id);
    if (chosen.length === before) break;
  }
  return chosen;
}

/** Each chosen note's fill colour, a few GETs at a time; a failed read only costs the note its colour. */
async function readColours(get: BoardGet, signal: AbortSignal, ids: readonly string[]): Promise<{ byId: Map<string, string>; note?: string }> {
  const byId = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      try {
        const answer = await get('/v2/boards/{board_id}/sticky_notes/{item_id}', {}, signal, { item_id: id });
        const fill = isRecord(answer) && isRecord(answer.style) ? answer.style.fillColor : undefined;
        if (typeof fill === 'string') byId.set(id, fill);
      } catch (error) {
        if (signal.aborted) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OUTLINE_READS.styleConcurrency, ids.length) }, worker));
  const missing = ids.length - byId.size;
  return { byId, ...(missing > 0 ? { note: `colours: ${missing} of the ${ids.length} sticky notes asked were not read (the platform refused, or this call's budget ran out)` } : {}) };
}
