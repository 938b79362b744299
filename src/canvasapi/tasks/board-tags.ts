/**
 * ReadBoard's tags, at a bounded number of requests. Items do not name their tags, so there are
 * two ways to learn them: ask each listed item (`/items/{id}/tags`), or walk each tag's items
 * (`/items?tag_id=`). The cheaper one is chosen from what is known (the listed items that can
 * carry tags: sticky notes and cards; the board's tag count from the first page of its tags),
 * within BOARD_READS.tagRequests; what does not fit is said. `query` matches tag titles through
 * the tags whose title matches, read before the items.
 */
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import { walkNote, walkPages, type PagePosition } from '../../core/tools/pager.js';
import { BOARD_READS } from '../task-vocabulary.js';
import { cut } from './board-lines.js';
import { countKept, flat } from './kept-text.js';
import { plainPieces, plainStart } from './text.js';

type Json = Record<string, unknown>;

/** A GET on the board (its ID is in every path), with the signal of the walk that asks. */
export type BoardGet = (path: string, query: Record<string, QueryValue>, signal: AbortSignal, pathParams?: Record<string, string>, label?: string) => Promise<unknown>;

/** Characters of a tag's title kept: the platform's own limit (longer ones are cut, marked with an ellipsis). */
const TAG_TITLE_CHARS = 120;

/** A tag title as kept: plain text, cut, a flat copy (kept-text.ts), counted against the call's budget. */
function keptTitle(title: unknown, signal: AbortSignal): string {
  const kept = flat(cut(plainStart((each) => plainPieces(title, each), TAG_TITLE_CHARS), TAG_TITLE_CHARS));
  countKept(signal, kept);
  return kept;
}

/** The items that can carry tags. */
export const TAGGABLE = new Set(['sticky_note', 'card']);

export interface TagList {
  /** Tag ID -> title, as far as read. */
  titles: Map<string, string>;
  /** The board's tag count, when the platform said. */
  total?: number;
  complete: boolean;
  /** Where the list goes on. */
  next?: PagePosition;
  note?: string;
}

/** Bytes of the answers a BoardGet gave, by answer (read-board.ts records them), for pageSizeAfter. */
export const answerBytes = new WeakMap<object, number>();

/**
 * Records the next page of a list asks for: as many as before, or after a page past
 * BOARD_READS.pageBytes as many as take about that (the platform's least `limit` at the fewest).
 * A page is held about three times its size while it is read, decoded and parsed: 19 MB pages
 * of board items (items of 380,000 characters) would cost 60 MB each.
 */
export function pageSizeAfter(answer: unknown, records: number, asked: number): number {
  const bytes = isRecord(answer) ? answerBytes.get(answer) : undefined;
  if (bytes === undefined || records === 0 || bytes <= BOARD_READS.pageBytes) return asked;
  return Math.max(BOARD_READS.leastPageSize, Math.min(asked, Math.floor(BOARD_READS.pageBytes / (bytes / records))));
}

/** An offset-paged list of the board: `data`, `total`, 50 a page (fewer after a large one). */
function offsetPage(get: BoardGet, path: string, query: Record<string, QueryValue>) {
  let limit: number = BOARD_READS.pageSize;
  return async (at: PagePosition | undefined, signal: AbortSignal) => {
    const offset = at?.offset ?? 0;
    const asked = limit;
    const answer = await get(path, { ...query, limit: asked, offset: String(offset) }, signal);
    if (!isRecord(answer) || !Array.isArray(answer.data)) throw unexpected('a list page without data');
    const records = answer.data.filter(isRecord);
    limit = pageSizeAfter(answer, records.length, asked);
    const total = typeof answer.total === 'number' ? answer.total : undefined;
    const more = total !== undefined ? offset + records.length < total : records.length === asked;
    return { records, ...(more ? { next: { offset: offset + records.length } } : {}), ...(total !== undefined ? { total } : {}) };
  };
}

/** Reads the board's tag list, from `start`, at most `maxPages` pages, into `into`. */
export async function readTagList(get: BoardGet, signal: AbortSignal, maxPages: number, into?: TagList): Promise<TagList> {
  const list: TagList = into ?? { titles: new Map(), complete: false };
  if (into?.complete) return list;
  const walk = await walkPages<Json>({
    signal,
    ...(into?.next ? { start: into.next } : {}),
    maxPages,
    fetchPage: offsetPage(get, '/v2/boards/{board_id}/tags', {}),
    idOf: (tag) => (tag.id === undefined ? undefined : String(tag.id)),
    onPage: (page) => {
      for (const tag of page.records) {
        if (tag.id === undefined) continue;
        const id = String(tag.id);
        countKept(signal, id);
        list.titles.set(id, keptTitle(tag.title, signal));
      }
    },
  });
  list.total ??= walk.total;
  list.complete = walk.complete;
  if (walk.next) list.next = walk.next;
  else delete list.next;
  const note = walkNote({ ...walk, records: list.titles.size }, 'tags', signal);
  if (note) list.note = note;
  return list;
}

/**
 * The items of each tag (IDs), `maxRequests` in all, shared out between the tags; `keep` says
 * which items matter (undefined: all). Returns item ID -> titles, and a note when a tag's items
 * were not all read.
 */
async function itemsOfTags(get: BoardGet, signal: AbortSignal, tags: readonly [string, string][], maxRequests: number, keep?: ReadonlySet<string>) {
  const byItem = new Map<string, string[]>();
  const shown = tags.slice(0, maxRequests);
  const pagesEach = Math.max(1, Math.floor(maxRequests / Math.max(1, shown.length)));
  const walks = await Promise.all(
    shown.map(([tagId, title]) =>
      walkPages<Json>({
        signal,
        maxPages: pagesEach,
        fetchPage: offsetPage(get, '/v2/boards/{board_id}/items', { tag_id: tagId }),
        idOf: (item) => (item.id === undefined ? undefined : String(item.id)),
        onPage: (page) => {
          for (const item of page.records) {
            const id = String(item.id);
            if (keep && !keep.has(id)) continue;
            const titles = byItem.get(id) ?? [];
            if (titles.includes(title)) continue;
            countKept(signal, id, title);
            byItem.set(id, [...titles, title]);
          }
        },
      }),
    ),
  );
  const unfinished = walks.filter((walk) => !walk.complete).length + (tags.length - shown.length);
  return { byItem, unfinished };
}

/** Item IDs whose tags' titles contain `query` (any case), from the first pages of the tag list. */
export async function itemsTaggedLike(get: BoardGet, signal: AbortSignal, query: string, list: TagList): Promise<{ ids: Set<string>; note?: string }> {
  await readTagList(get, signal, BOARD_READS.queryTagListPages, list);
  const wanted = query.toLowerCase();
  const matching = [...list.titles].filter(([, title]) => title.toLowerCase().includes(wanted));
  const searched = list.complete ? undefined : `query searched the titles of the first ${list.titles.size}${list.total !== undefined ? ` of ${list.total}` : ''} tags only (${list.note ?? 'the rest were not read'})`;
  if (matching.length === 0) return { ids: new Set(), ...(searched ? { note: searched } : {}) };
  const { byItem, unfinished } = await itemsOfTags(get, signal, matching, BOARD_READS.queryTagRequests);
  const notes = [...(searched ? [searched] : []), ...(unfinished > 0 ? [`the items of ${unfinished} of the ${matching.length} tags whose title matches were not all read`] : [])];
  return { ids: new Set(byItem.keys()), ...(notes.length ? { note: notes.join('; ') } : {}) };
}

/**
 * The tags of the listed items that can carry them, at most BOARD_READS.tagRequests requests:
 * per item when they are fewer than the board's tags, else per tag. A note says what is missing.
 */
export async function tagsOfItems(get: BoardGet, signal: AbortSignal, itemIds: readonly string[], list: TagList): Promise<{ byItem: Map<string, string[]>; note?: string }> {
  const allowance = BOARD_READS.tagRequests;
  const tagCount = list.total ?? list.titles.size;
  if (itemIds.length === 0 || (list.complete && list.titles.size === 0) || tagCount === 0) return { byItem: new Map() };
  const listPagesLeft = list.complete ? 0 : Math.max(1, Math.ceil((tagCount - list.titles.size) / BOARD_READS.pageSize));
  if (itemIds.length <= listPagesLeft + tagCount) {
    const asked = itemIds.slice(0, allowance);
    const byItem = new Map<string, string[]>();
    let unread = 0;
    await Promise.all(asked.map(async (id) => {
      const titles = await tagsOfItem(get, signal, id);
      if (titles === 'unread') unread += 1;
      else if (titles.length) byItem.set(id, titles);
    }));
    const notes = [
      ...(asked.length < itemIds.length ? [`tags are shown for the first ${asked.length} of the ${itemIds.length} listed sticky notes and cards (a request each): ask for fewer items (max_items) to see all their tags`] : []),
      ...(unread > 0 ? [`the tags of ${unread} items were not read: this call reached its budget`] : []),
    ];
    return { byItem, ...(notes.length ? { note: notes.join('; ') } : {}) };
  }
  await readTagList(get, signal, Math.min(listPagesLeft, allowance - 1), list);
  const listRequests = Math.ceil(list.titles.size / BOARD_READS.pageSize);
  const { byItem, unfinished } = await itemsOfTags(get, signal, [...list.titles], Math.max(1, allowance - listRequests), new Set(itemIds));
  const notes = [...(list.complete ? [] : [`only the first ${list.titles.size} of the board's ${tagCount} tags were matched to the items`]), ...(unfinished > 0 ? [`the items of ${unfinished} tags were not all read, so some tags may be missing`] : [])];
  return { byItem, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

/** One item's tag titles; none when the item is gone (deleted meanwhile), `unread` when the budget is spent. */
async function tagsOfItem(get: BoardGet, signal: AbortSignal, itemId: string): Promise<string[] | 'unread'> {
  let answer: unknown;
  try {
    answer = await get('/v2/boards/{board_id}/items/{item_id}/tags', {}, signal, { item_id: itemId });
  } catch (error) {
    if (error instanceof ToolError && error.details.kind === 'not_found') return [];
    if (error instanceof ToolError && error.details.kind === 'budget_exceeded') return 'unread';
    throw error;
  }
  if (!isRecord(answer) || !Array.isArray(answer.tags)) throw unexpected("an item's tags without a tags list");
  return answer.tags.filter(isRecord).map((tag) => keptTitle(tag.title, signal)).filter(Boolean);
}

export function unexpected(what: string): ToolError {
  return new ToolError({ kind: 'upstream_error', message: `The platform answered ${what}.`, nextStep: 'Nothing is wrong with the arguments; try again later.' });
}
