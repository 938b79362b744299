/**
 * BulkEditItems' reads: the items a filter matches, each with the state a change could touch
 * (text, position, size, parent, modifiedAt; its colour from its own record when colour matters,
 * its tags when tags change). The list a filter starts from is read first (the tag's items, the
 * named items, the frame's children, the items of a type, or the board's), bounded; the rest of
 * the filter is applied to what it holds. The preview and the confirming call both run it, so the
 * confirmation token (bulk-edit.ts) is computed from the same reads.
 */
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import { walkPages, type PagePosition } from '../../core/tools/pager.js';
import { BULK_LIMITS, STICKY_COLORS } from '../task-vocabulary.js';
import { piecesInclude, plainPieces } from './text.js';

type Json = Record<string, unknown>;

export type Get = (path: string, query: Record<string, QueryValue>, pathParams?: Record<string, string>) => Promise<unknown>;

export interface BulkFilter {
  item_ids?: string[] | undefined;
  type?: string | undefined;
  frame_id?: string | undefined;
  tag?: string | undefined;
  text?: string | undefined;
  color?: string | undefined;
}

/** One matched item as read: what a change may touch, and its stamps. */
export interface Target {
  id: string;
  type: string;
  /** The platform's text (HTML for notes, shapes and texts; the title of cards and frames). */
  text: string;
  x: number;
  y: number;
  parent?: string;
  width?: number;
  height?: number;
  modifiedAt: string;
  createdAt: string;
  /** From the item's own record, when colour matters. */
  color?: string;
  /** Tag IDs, when tags change. */
  tags?: string[];
}

/** The own endpoint of each type whose record has a style, and the style field that is its colour. */
export const OWN_PATH: Readonly<Record<string, string>> = { sticky_note: 'sticky_notes', shape: 'shapes', text: 'texts', card: 'cards', frame: 'frames' };
export const COLOR_FIELD: Readonly<Record<string, string>> = { sticky_note: 'fillColor', shape: 'fillColor', text: 'color', card: 'cardTheme', frame: 'fillColor' };
/** Items that can carry tags. */
export const TAGGABLE: ReadonlySet<string> = new Set(['sticky_note', 'card']);

const READ_CONCURRENCY = 8;

/** The board's tags, title (lower case) -> ID and title; complete or not. */
export interface BoardTags {
  byTitle: Map<string, { id: string; title: string }>;
  byId: Map<string, string>;
  complete: boolean;
}

export async function readBoardTags(get: Get, signal: AbortSignal): Promise<BoardTags> {
  const tags: BoardTags = { byTitle: new Map(), byId: new Map(), complete: false };
  const walk = await walkPages<Json>({
    signal,
    maxPages: BULK_LIMITS.tagPages,
    fetchPage: offsetPage(get, '/v2/boards/{board_id}/tags', {}),
    idOf: (tag) => (tag.id === undefined ? undefined : String(tag.id)),
    onPage: (page) => {
      for (const tag of page.records) {
        if (tag.id === undefined || typeof tag.title !== 'string') continue;
        tags.byTitle.set(tag.title.trim().toLowerCase(), { id: String(tag.id), title: tag.title });
        tags.byId.set(String(tag.id), tag.title);
      }
    },
  });
  tags.complete = walk.complete;
  return tags;
}

/** A tag by its title (any case), or a refusal naming the parameter. */
export function tagNamed(tags: BoardTags, title: string, parameter: string): { id: string; title: string } {
  const found = tags.byTitle.get(title.trim().toLowerCase());
  if (found) return found;
  const read = tags.complete ? `among the board's ${tags.byId.size} tags` : `among the first ${tags.byId.size} tags read (the board has more)`;
  throw ToolError.invalidParameter(parameter, `no tag is titled ${JSON.stringify(title)} ${read}; CanvasApi.GetBoardTags lists them, CanvasApi.CreateBoardTag makes one`, true);
}

function offsetPage(get: Get, path: string, query: Record<string, QueryValue>) {
  return async (at: PagePosition | undefined) => {
    const offset = at?.offset ?? 0;
    const answer = await get(path, { ...query, limit: 50, offset: String(offset) });
    if (!isRecord(answer) || !Array.isArray(answer.data)) throw unexpected('a list page without data');
    const records = answer.data.filter(isRecord);
    const total = typeof answer.total === 'number' ? answer.total : undefined;
    const more = total !== undefined ? offset + records.length < total : records.length === 50;
    return { records, ...(more ? { next: { offset: offset + records.length } } : {}), ...(total !== undefined ? { total } : {}) };
  };
}

function cursorPage(get: Get, query: Record<string, QueryValue>) {
  return async (at: PagePosition | undefined) => {
    const answer = await get('/v2/boards/{board_id}/items', { ...query, limit: '50', ...(at?.cursor ? { cursor: at.cursor } : {}) });
    if (!isRecord(answer) || !Array.isArray(answer.data)) throw unexpected('a list page without data');
    const cursor = typeof answer.cursor === 'string' && answer.cursor !== '' ? answer.cursor : undefined;
    return { records: answer.data.filter(isRecord), ...(cursor ? { next: { cursor } } : {}), ...(typeof answer.total === 'number' ? { total: answer.total } : {}) };
  };
}

/** A generic item record as a target (its colour and tags are read apart). */
export function targetOf(record: Json): Target | undefined {
  if (record.id === undefined || typeof record.type !== 'string') return undefined;
  const data = isRecord(record.data) ? record.data : {};
  const position = isRecord(record.position) ? record.position : {};
  const geometry = isRecord(record.geometry) ? record.geometry : {};
  const text = typeof data.content === 'string' ? data.content : typeof data.title === 'string' ? data.title : '';
  const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const parent = isRecord(record.parent) && record.parent.id !== undefined ? String(record.parent.id) : undefined;
  const width = num(geometry.width);
  const height = num(geometry.height);
  return {
    id: String(record.id),
    type: record.type,
    text,
    x: num(position.x) ?? 0,
    y: num(position.y) ?? 0,
    ...(parent !== undefined ? { parent } : {}),
    ...(width !== undefined ? { width } : {}),
    ...(height !== undefined ? { height } : {}),
    modifiedAt: typeof record.modifiedAt === 'string' ? record.modifiedAt : '',
    createdAt: typeof record.createdAt === 'string' ? record.createdAt : '',
  };
}

/** Runs `work` on each item, READ_CONCURRENCY at a time. */
export async function eachAtMost<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export interface Selection {
  targets: Target[];
  /** Named item IDs the board does not have. */
  notFound: string[];
}

/**
 * The items the filter matches, with their state. Refused (nothing written) when the list to look
 * through is longer than scanPages, when colour needs more than styleReads own records, or when
 * more than maxItems match.
 */
export async function selectTargets(get: Get, signal: AbortSignal, filter: BulkFilter, options: { tags: BoardTags | undefined; readColor: boolean; readTags: boolean }): Promise<Selection> {
  const notFound: string[] = [];
  let records: Json[];
  if (filter.tag !== undefined) {
    const tag = tagNamed(options.tags!, filter.tag, 'filter.tag');
    records = await walkAll(signal, offsetPage(get, '/v2/boards/{board_id}/items', { tag_id: tag.id }), 'the items tagged so');
    if (filter.item_ids) {
      const named = new Set(filter.item_ids);
      records = records.filter((record) => named.has(String(record.id)));
    }
  } else if (filter.item_ids) {
    records = [];
    await eachAtMost([...new Set(filter.item_ids)], READ_CONCURRENCY, async (id) => {
      try {
        const record = await get('/v2/boards/{board_id}/items/{item_id}', {}, { item_id: id });
        if (isRecord(record)) records.push(record);
      } catch (error) {
        if (!(error instanceof ToolError && error.details.kind === 'not_found')) throw error;
        notFound.push(id);
      }
    });
  } else {
    const query: Record<string, QueryValue> = { ...(filter.frame_id !== undefined ? { parent_item_id: filter.frame_id } : {}), ...(filter.type !== undefined ? { type: filter.type } : {}) };
    records = await walkAll(signal, cursorPage(get, query), filter.frame_id !== undefined ? "the frame's items" : filter.type !== undefined ? `the board's items of type ${filter.type}` : "the board's items");
  }
  const lowered = filter.text?.toLowerCase();
  let targets = records
    .map(targetOf)
    .filter((t): t is Target => t !== undefined)
    .filter((t) => (filter.type === undefined || t.type === filter.type) && (filter.frame_id === undefined || t.parent === filter.frame_id))
    .filter((t) => lowered === undefined || piecesInclude((each) => plainPieces(t.text, each), lowered));
  targets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (filter.color !== undefined) {
    // A colour name is a sticky note's, a #RRGGBB anything else's: only those are read.
    const named = (STICKY_COLORS as readonly string[]).includes(filter.color);
    targets = targets.filter((t) => t.type in OWN_PATH && (t.type === 'sticky_note') === named);
    if (targets.length > BULK_LIMITS.styleReads) throw tooMany('filter.color', `${targets.length} items would each need a read of their colour (at most ${BULK_LIMITS.styleReads} a call)`);
  } else if (targets.length > BULK_LIMITS.maxItems) {
    throw tooMany('filter', `${targets.length} items match`);
  }
  if (options.readColor || filter.color !== undefined) targets = await withOwnRecords(get, targets, notFound);
  if (filter.color !== undefined) {
    const wanted = filter.color.toLowerCase();
    targets = targets.filter((t) => t.color?.toLowerCase() === wanted);
    if (targets.length > BULK_LIMITS.maxItems) throw tooMany('filter', `${targets.length} items match`);
  }
  if (options.readTags) await withTags(get, targets, notFound);
  return { targets: targets.filter((t) => !notFound.includes(t.id)), notFound: notFound.sort() };
}

function tooMany(parameter: string, what: string): ToolError {
  return ToolError.invalidParameter(parameter, `${what}; at most ${BULK_LIMITS.maxItems} items are changed in one call: narrow the filter (type, frame_id, tag, text, color, or item_ids), then edit the rest with another call`, true);
}

/** Every page of a list, at most scanPages: a longer list is refused, naming what to narrow with. */
async function walkAll(signal: AbortSignal, fetchPage: (at: PagePosition | undefined) => Promise<{ records: Json[]; next?: PagePosition; total?: number }>, what: string): Promise<Json[]> {
  const records: Json[] = [];
  const walk = await walkPages<Json>({
    signal,
    maxPages: BULK_LIMITS.scanPages,
    fetchPage,
    idOf: (record) => (record.id === undefined ? undefined : String(record.id)),
    onPage: (page) => {
      records.push(...page.records);
    },
  });
  if (!walk.complete) {
    throw ToolError.invalidParameter('filter', `${what} were not all read (${walk.stop === 'pages' ? `more than ${BULK_LIMITS.scanPages * 50} to look through` : `stopped: ${walk.stop}`}): narrow the filter with type, frame_id, tag or item_ids, so that the whole set is known before anything changes`, true);
  }
  return records;
}

/** Each target's own record (its style: the colour), READ_CONCURRENCY at a time; items without a style endpoint keep no colour. */
async function withOwnRecords(get: Get, targets: Target[], notFound: string[]): Promise<Target[]> {
  const read = new Map<string, Target>();
  await eachAtMost(targets.filter((t) => t.type in OWN_PATH), READ_CONCURRENCY, async (t) => {
    try {
      const record = await get(`/v2/boards/{board_id}/${OWN_PATH[t.type]}/{item_id}`, {}, { item_id: t.id });
      const fresh = isRecord(record) ? targetOf(record) : undefined;
      if (!fresh || !isRecord(record)) throw unexpected("an item's record without its ID or type");
      const style = isRecord(record.style) ? record.style : {};
      const color = style[COLOR_FIELD[t.type]!];
      read.set(t.id, { ...fresh, ...(typeof color === 'string' ? { color } : {}) });
    } catch (error) {
      // Deleted meanwhile: not matched.
      if (!(error instanceof ToolError && error.details.kind === 'not_found')) throw error;
      notFound.push(t.id);
    }
  });
  return targets.map((t) => read.get(t.id) ?? t);
}

/** Each taggable target's tag IDs (`/items/{id}/tags`), READ_CONCURRENCY at a time. */
async function withTags(get: Get, targets: Target[], notFound: string[]): Promise<void> {
  await eachAtMost(targets.filter((t) => TAGGABLE.has(t.type)), READ_CONCURRENCY, async (t) => {
    try {
      const answer = await get('/v2/boards/{board_id}/items/{item_id}/tags', {}, { item_id: t.id });
      if (!isRecord(answer) || !Array.isArray(answer.tags)) throw unexpected("an item's tags without a tags list");
      t.tags = answer.tags.filter(isRecord).map((tag) => String(tag.id)).sort();
    } catch (error) {
      if (!(error instanceof ToolError && error.details.kind === 'not_found')) throw error;
      notFound.push(t.id);
    }
  });
}

function unexpected(what: string): ToolError {
  return new ToolError({ kind: 'upstream_error', message: `The platform answered ${what}.`, nextStep: 'Nothing was changed; try again later.' });
}
