/**
 * CanvasApi.ReadBoard: a board as an agent reads it, at a cost that follows from what it answers.
 * Items are read page by page until the answer has `max_items` of them (after `offset`, or from
 * `cursor`) and the rest of that page has been looked through, or until the call's budget or
 * page share runs out (core/tools/pager.ts); then next_page says where to go on. Alongside: the
 * board, its frames, the connectors of the listed items, and the tags of the listed items
 * (board-tags.ts). Only what lines need is kept: the listed items, and the first words of the
 * others (connector ends). Counts cover the whole board only when that costs nothing more (a
 * board read to its end, the platform's totals) or when asked (`counts`); else they say what they cover.
 */
import { endedByDeadline, WorkScope } from '../../core/call-budget.js';
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { walkNote, walkPages, type PagePosition, type WalkResult } from '../../core/tools/pager.js';
import { RESULT_BUDGET_BYTES } from '../../core/tools/result-budget.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import type { CanvasApiDeps } from '../handler.js';
import { itemLinkTemplate } from '../params.js';
import { BOARD_READS, ITEM_TYPES, itemPagesFor, READ_LIMITS } from '../task-vocabulary.js';
import { connectorLine, cut, END_TEXT_CHARS, frameLine, itemLine, itemTextIncludes, lineBytes, toConnector, toItem, type BoardConnector, type BoardItem } from './board-lines.js';
import { encodePosition, startOf, type ItemPosition } from './board-position.js';
import { answerBytes, itemsTaggedLike, pageSizeAfter, readTagList, TAGGABLE, tagsOfItems, unexpected, type BoardGet, type TagList } from './board-tags.js';
import { boardViewData, connectorsBetween, readBoardPicture, withBoardView } from './board-view-data.js';
import { countKept, flat } from './kept-text.js';
import { plainText } from './text.js';
import { flatText, idText } from '../../core/tools/line-text.js';

type Json = Record<string, unknown>;

/** What the logic is called with: the definition's checked input (index.ts). */
export interface ReadBoardArgs {
  board_id: string;
  frame_id?: string | undefined;
  item_types?: string[] | undefined;
  query?: string | undefined;
  max_items?: number | undefined;
  offset?: number | undefined;
  cursor?: string | undefined;
  counts?: boolean | undefined;
  /** `outline`: board-outline-read.ts; `mermaid`: a frame, or the shapes connected to a query's, as Mermaid text (board-mermaid.ts). */
  format?: 'items' | 'outline' | 'mermaid' | undefined;
}

/** Bytes the item and connector lines may take, leaving room for the rest of the answer within the result budget. */
const LINES_BUDGET_BYTES = RESULT_BUDGET_BYTES - 12_000;
/** Frames listed at most (about 6 KB of that room): those of the frames walk and of the items read. */
const FRAMES_SHOWN = 100;
/** Characters of a frame's title kept, in `frames` and in item lines. */
const FRAME_TITLE_CHARS = 200;

/**
 * What is kept of a frame: its title cut to FRAME_TITLE_CHARS, a flat copy (kept-text.ts),
 * counted against the call's budget like everything else the answer holds.
 */
function keptFrame(record: Json, signal: AbortSignal): BoardItem {
  const frame = toItem(record, FRAME_TITLE_CHARS);
  const kept = { ...frame, text: flat(frame.text) };
  countKept(signal, kept.id, kept.text);
  return kept;
}

/** What the item walk found. */
interface ItemWalk {
  /** Listed items, each with where it was found (a continuation, should it be left out). */
  listed: { item: BoardItem; at: ItemPosition }[];
  /** Where the next matching item is, or where to look on. */
  next?: ItemPosition;
  /** Matching items up to where the walk stopped, those before `from` included. */
  matched: number;
  /** Records read per type. */
  counts: Record<string, number>;
  /** The start of each item's text read (connector ends), and each frame's title. */
  endText: Map<string, string>;
  frames: Map<string, BoardItem>;
  walk: WalkResult;
  /** The walk reached the end of the list: `matched` is every matching item. */
  readToEnd: boolean;
  /** And it started at the list's first record: the counts are the whole list's. */
  wholeList: boolean;
}

export async function readBoard(args: ReadBoardArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  if (args.format === 'mermaid') return (await import('./board-mermaid.js')).readBoardMermaid(args, context);
  // Checked before anything is sent; the outline's code loads only when asked for.
  const outline = args.format === 'outline' ? await import('./board-outline-read.js') : undefined;
  outline?.checkOutlineArgs(args);
  const start = startOf(args);
  // One failed read stops the others: nothing of a failed call stays in flight. Reads end a
  // margin before the call's deadline: the answer is made of what arrived by then.
  const scope = new WorkScope(context.signal, { until: 'deadline' });
  try {
    return await read(args, start, context, scope.signal, outline?.readOutline);
  } catch (error) {
    scope.abort();
    throw error;
  } finally {
    scope.dispose();
  }
}

async function read(args: ReadBoardArgs, start: ReturnType<typeof startOf>, context: ToolContext<CanvasApiDeps>, signal: AbortSignal, readOutline?: typeof import('./board-outline-read.js').readOutline): Promise<Json> {
  const { client } = context.deps;
  const boardId = args.board_id;
  const label = `the board "${boardId}"`;
  const get: BoardGet = async (path, query, pageSignal, pathParams = {}, resourceLabel = label) => {
    const answer = await client.request<unknown>({ method: 'GET', effect: 'read', path, pathParams: { board_id: boardId, ...pathParams }, query, signal: pageSignal, resourceLabel });
    if (isRecord(answer.data) && answer.bytes !== undefined) answerBytes.set(answer.data, answer.bytes);
    return answer.data;
  };
  // One count over every walk's pages, so that progress only increases.
  let pagesRead = 0;
  const report = (message: string) => context.progress(++pagesRead, undefined, message);

  const timeUp = new TimeUp(signal, context.budget.describe('time'));
  // The frame first, so that a wrong frame_id is reported as such.
  const frameOfFilter = args.frame_id ? await timeUp.required(get('/v2/boards/{board_id}/frames/{item_id}', {}, signal, { item_id: args.frame_id }, `the frame "${args.frame_id}" on ${label}`), `the frame "${args.frame_id}"`) : undefined;
  // The outline (board-outline-read.ts) reads with these same readers, the whole board up to its bounds.
  if (readOutline) {
    const readers = { get, optional: timeUp.optional.bind(timeUp), timeNotes: timeUp.notes, readFrames, readConnectors, itemPages, report, frame: frameOfFilter, itemLink: itemLinkTemplate(context.deps.webBase, boardId), linesBudget: LINES_BUDGET_BYTES };
    return readOutline(args, signal, readers);
  }
  const tagList: TagList = { titles: new Map(), complete: false };
  const [board, frames, connectors, items] = await Promise.all([
    timeUp.optional(get('/v2/boards/{board_id}', {}, signal), 'board: its name and description'),
    args.frame_id ? undefined : readFrames(get, signal),
    readConnectors(get, signal, args.max_items ?? READ_LIMITS.defaultMaxItems, report),
    (async () => {
      // A query matches tag titles too: the items of matching tags are known before the items are read.
      const tagged = args.query ? await itemsTaggedLike(get, signal, args.query, tagList) : undefined;
      // The first page of tags says whether the board has any (and how many), for the tag lines.
      const [walked] = await Promise.all([walkItems(get, signal, args, start, tagged?.ids, report), args.query ? undefined : readTagList(get, signal, 1, tagList)]);
      return { ...walked, tagNote: tagged?.note };
    })(),
  ]);

  const taggable = items.listed.filter(({ item }) => TAGGABLE.has(item.type)).map(({ item }) => item.id);
  const tags = (await timeUp.optional(tagsOfItems(get, signal, taggable, tagList), 'tags: the tags of the listed items')) ?? { byItem: new Map<string, string[]>() };
  if (frameOfFilter && isRecord(frameOfFilter)) items.frames.set(String(frameOfFilter.id), keptFrame(frameOfFilter, signal));
  for (const frame of frames?.frames ?? []) items.frames.set(frame.id, frame);
  const frameTitle = new Map([...items.frames.values()].map((frame) => [frame.id, frame.text]));
  for (const [id, title] of frameTitle) if (!items.endText.has(id)) items.endText.set(id, cut(title, END_TEXT_CHARS));

  const lines = fitLines(items, connectors.records, (item) => itemLine(item, tags.byItem.get(item.id), frameTitle), args, start.from);
  const boardInfo = isRecord(board) ? board : {};
  const description = flatText(plainText(boardInfo.description));
  const counts = await countsOf(args, start, items, connectors, get, signal);
  const next = lines.next ? { ...(encodeNext(lines.next, args) ?? {}), offset: Math.max(lines.next.matched, start.offset) } : undefined;
  const partial = [
    walkNote(items.walk, 'items', signal) && `items: ${walkNote(items.walk, 'items', signal)}${next ? '; next_page continues' : ''}`,
    !items.readToEnd && `matching_items_at_least counts the matches up to where reading stopped, not the whole ${args.frame_id ? 'frame' : 'board'}`,
    connectors.note,
    frames?.note,
    lines.cutToFit && `items: the text of ${idText(lines.cutToFit)} is cut to fit this answer (it ends with …)`,
    items.frames.size > FRAMES_SHOWN && `frames: the first ${FRAMES_SHOWN} of the ${items.frames.size} frames read are listed`,
    items.tagNote && `tags: ${items.tagNote}`,
    tags.note && `tags: ${tags.note}`,
    ...counts.notes,
    ...timeUp.notes,
  ].filter((note): note is string => typeof note === 'string' && note.length > 0);
  const itemLink = itemLinkTemplate(context.deps.webBase, boardId);
  const answer = {
    board: { id: boardId, name: typeof boardInfo.name === 'string' ? flatText(boardInfo.name) : undefined, ...(description ? { description } : {}) },
    item_link: itemLink,
    ...counts.fields,
    frames: [...items.frames.values()].slice(0, FRAMES_SHOWN).map(frameLine),
    item_format: 'ID type x,y wxh [frame "title"] [#"tag" ...]: "text" (x,y is the centre; inside a frame, from its top-left corner; texts are JSON strings)',
    items: lines.items,
    ...(items.readToEnd ? { matching_items: items.matched } : { matching_items_at_least: items.matched }),
    connectors: lines.connectors,
    ...(next ? { next_page: next } : {}),
    ...(partial.length ? { partial } : {}),
  };
  // The board view (MCP Apps): the answer's frames and listed items (the lines are the first of
  // items.listed, in order), and its connectors between them.
  return withBoardView(answer, () => {
    const listedConnectors = new Set(lines.connectors.map((line) => line.slice(0, line.indexOf(':'))));
    const picture = readBoardPicture([...items.frames.values()].slice(0, FRAMES_SHOWN).concat(items.listed.slice(0, lines.items.length).map(({ item }) => item)));
    return boardViewData(picture, connectorsBetween(connectors.records.filter((c) => listedConnectors.has(idText(c.id))), picture), itemLink);
  });
}

/**
 * Reads outside the walks (which stop at the time for reads themselves): one the time cut off is
 * left out with a note, or, when the answer cannot do without it, fails saying the time ran out.
 * Other failures stay the call's.
 */
class TimeUp {
  readonly notes: string[] = [];
  constructor(
    private readonly signal: AbortSignal,
    private readonly budget: string,
  ) {}

  async optional<T>(read: Promise<T>, what: string): Promise<T | undefined> {
    try {
      return await read;
    } catch (error) {
      if (!endedByDeadline(this.signal)) throw error;
      this.notes.push(`${what} not read: the platform did not answer within this call's time budget of ${this.budget}`);
      return undefined;
    }
  }

  async required<T>(read: Promise<T>, what: string): Promise<T> {
    try {
      return await read;
    } catch (error) {
      if (!endedByDeadline(this.signal)) throw error;
      throw new ToolError({
        kind: 'budget_exceeded',
        message: `The platform did not answer with ${what} within this call's time budget of ${this.budget}; nothing of the board was read.`,
        nextStep: 'The platform is slow: try again in a little while.',
      });
    }
  }
}

function encodeNext(position: ItemPosition, args: ReadBoardArgs): { cursor: string } | undefined {
  const cursor = encodePosition(position, args);
  return cursor ? { cursor } : undefined;
}

/** A cursor-paged list of the board: `data`, `cursor`, `total`. */
function cursorPage(get: BoardGet, path: string, query: Record<string, QueryValue>) {
  return async (at: PagePosition | undefined, signal: AbortSignal) => listPage(await get(path, { ...query, ...(at?.cursor ? { cursor: at.cursor } : {}) }, signal));
}

/** The board's items, page by page, the pages made smaller after a large one (board-tags.ts, pageSizeAfter). */
function itemPages(get: BoardGet, query: Record<string, QueryValue>) {
  let limit: number = BOARD_READS.pageSize;
  return async (at: PagePosition | undefined, signal: AbortSignal) => {
    const answer = await get('/v2/boards/{board_id}/items', { ...query, limit, ...(at?.cursor ? { cursor: at.cursor } : {}) }, signal);
    const page = listPage(answer);
    limit = pageSizeAfter(answer, page.records.length, limit);
    return page;
  };
}

function listPage(answer: unknown) {
  if (!isRecord(answer) || !Array.isArray(answer.data)) throw unexpected('a list page without data');
  const cursor = typeof answer.cursor === 'string' && answer.cursor.length > 0 ? answer.cursor : undefined;
  return { records: answer.data.filter(isRecord), ...(cursor ? { next: { cursor } } : {}), ...(typeof answer.total === 'number' ? { total: answer.total } : {}) };
}

const recordId = (record: Json) => (record.id === undefined ? undefined : String(record.id));

/**
 * Items page after page from `start`, each record looked at once: counted, the start of its
 * text kept, and listed when it matches, is at or past `offset` and fits (`max_items`, the
 * lines' bytes). Once the list is full, the rest of the page is looked through for the next
 * match, and the walk ends.
 */
async function walkItems(get: BoardGet, signal: AbortSignal, args: ReadBoardArgs, start: ReturnType<typeof startOf>, taggedMatch: ReadonlySet<string> | undefined, report: (message: string) => void): Promise<ItemWalk> {
  const maxItems = args.max_items ?? READ_LIMITS.defaultMaxItems;
  const query = args.query?.toLowerCase();
  const types = args.item_types as readonly string[] | undefined;
  const wanted = (item: BoardItem, record: Json) => item.type !== 'frame' && (!types || types.includes(item.type)) && (!query || taggedMatch?.has(item.id) === true || itemTextIncludes(record, query));
  const itemQuery: Record<string, QueryValue> = {};
  if (args.frame_id) itemQuery.parent_item_id = args.frame_id;
  // One type is filtered by the platform: nothing else is read.
  if (types?.length === 1) itemQuery.type = types[0] as string;

  const found: Omit<ItemWalk, 'walk' | 'readToEnd' | 'wholeList'> = { listed: [], matched: start.from.matched, counts: {}, endText: new Map(), frames: new Map() };
  let bytes = 0;
  let full = false;
  let skip = start.from.skip;
  let read = 0;
  const walk = await walkPages<Json>({
    signal,
    ...(start.from.cursor ? { start: { cursor: start.from.cursor } } : {}),
    maxPages: itemPagesFor(args),
    pageSize: BOARD_READS.pageSize,
    fetchPage: itemPages(get, itemQuery),
    idOf: recordId,
    onPage: (page, at) => {
      const records = page.records;
      for (let index = skip; index < records.length; index++) {
        const record = records[index] as Json;
        // Only the start of its text is made (text.ts): the whole text is only looked through for a query.
        const item = toItem(record, END_TEXT_CHARS);
        found.counts[item.type] = (found.counts[item.type] ?? 0) + 1;
        // Kept of every item read: a flat copy of its text's start (a cut would keep the whole text alive).
        const endText = flat(item.text);
        found.endText.set(item.id, endText);
        countKept(signal, item.id, endText);
        if (item.type === 'frame') found.frames.set(item.id, keptFrame(record, signal));
        if (!wanted(item, record)) continue;
        const here: ItemPosition = { ...(at?.cursor ? { cursor: at.cursor } : {}), skip: index, matched: found.matched };
        found.matched += 1;
        if (here.matched < start.offset) continue;
        if (full || found.listed.length >= maxItems) {
          found.next ??= here;
          full = true;
          continue;
        }
        // Its text up to what a line can show (ITEM_TEXT_CHARS), as a flat copy.
        const listed = { ...item, text: flat(toItem(record).text) };
        const size = lineBytes(itemLine(listed, undefined, new Map()));
        // The first item listed always is (cut to fit, fitLines), so that next_page always moves on.
        if (found.listed.length > 0 && bytes + size > LINES_BUDGET_BYTES) {
          // The next matching item: where the next call starts.
          found.next ??= here;
          full = true;
          continue;
        }
        found.listed.push({ item: listed, at: here });
        countKept(signal, listed.text);
        bytes += Math.min(size, LINES_BUDGET_BYTES);
      }
      skip = 0;
      read += records.length;
      report(`read ${read}${page.total !== undefined ? ` of ${page.total}` : ''} items`);
      if (found.listed.length >= maxItems) full = true;
      return full;
    },
  });
  const readToEnd = walk.complete || (walk.stop === 'enough' && walk.next === undefined);
  const wholeList = readToEnd && !start.from.cursor && start.from.skip === 0;
  // Otherwise the next call goes on from the first page not read (after broken paging there is nowhere to go on).
  if (!found.next && walk.pages === 0 && walk.next) found.next = start.from;
  else if (!found.next && walk.next) found.next = { ...(walk.next.cursor ? { cursor: walk.next.cursor } : {}), skip: 0, matched: found.matched };
  return { ...found, walk, readToEnd, wholeList };
}

/** The board's frames (`type=frame`), BOARD_READS.framePages pages at most. */
async function readFrames(get: BoardGet, signal: AbortSignal): Promise<{ frames: BoardItem[]; note?: string }> {
  const frames: BoardItem[] = [];
  const walk = await walkPages<Json>({
    signal,
    maxPages: BOARD_READS.framePages,
    fetchPage: cursorPage(get, '/v2/boards/{board_id}/items', { limit: BOARD_READS.pageSize, type: 'frame' }),
    idOf: recordId,
    onPage: (page) => {
      for (const record of page.records) frames.push(keptFrame(record, signal));
    },
  });
  const note = walkNote(walk, 'frames', signal);
  return { frames, ...(note ? { note: `frames: ${note}` } : {}) };
}

/** The board's connectors, as many pages as the answer's size calls for; the total comes with the first. */
async function readConnectors(get: BoardGet, signal: AbortSignal, maxItems: number, report: (message: string) => void): Promise<{ records: BoardConnector[]; walk: WalkResult; note?: string }> {
  const records: BoardConnector[] = [];
  const walk = await walkPages<Json>({
    signal,
    maxPages: BOARD_READS.connectorPages(maxItems),
    fetchPage: cursorPage(get, '/v2/boards/{board_id}/connectors', { limit: BOARD_READS.pageSize }),
    idOf: recordId,
    onPage: (page) => {
      for (const record of page.records) {
        const connector = toConnector(record);
        // Its caption, cut, as a flat copy: the cut would keep every caption whole.
        const kept = { ...connector, caption: flat(connector.caption) };
        countKept(signal, kept.id, kept.from, kept.to, kept.caption);
        records.push(kept);
      }
      report(`read ${records.length}${page.total !== undefined ? ` of ${page.total}` : ''} connectors`);
    },
  });
  const note = walkNote(walk, 'connectors', signal);
  return { records, walk, ...(note ? { note: `connectors: only those touching the listed items among the ${note}` } : {}) };
}

/**
 * The lines: items until the byte budget, connectors of the listed items keeping up to a quarter
 * of it (all connectors when the whole board is listed). Items that do not fit are left for
 * next_page, which then starts at the first of them.
 */
function fitLines(items: ItemWalk, connectors: readonly BoardConnector[], lineOf: (item: BoardItem) => string, args: ReadBoardArgs, from: ItemPosition) {
  const listedIds = new Set(items.listed.map(({ item }) => item.id));
  // The whole board listed: every connector, also those between frames or unlisted ends.
  const mayBeEverything = !(args.query || args.item_types || args.frame_id) && items.wholeList && from.matched === 0 && (args.offset ?? 0) === 0 && !items.next;
  const touching = (c: BoardConnector, ids: ReadonlySet<string>) => ids.has(c.from) || ids.has(c.to);
  const candidates = connectors.filter((c) => mayBeEverything || touching(c, listedIds)).map((c) => ({ c, line: connectorLine(c, items.endText) }));
  const connectorShare = Math.min(LINES_BUDGET_BYTES / 4, candidates.reduce((sum, { line }) => sum + lineBytes(line), 0));
  const itemLines: string[] = [];
  const shown = new Set<string>();
  let bytes = 0;
  let next = items.next;
  let cutToFit: string | undefined;
  for (const { item, at } of items.listed) {
    let line = lineOf(item);
    const room = LINES_BUDGET_BYTES - connectorShare;
    if (bytes + lineBytes(line) > room) {
      if (itemLines.length > 0) {
        next = at;
        break;
      }
      // The first item is listed whatever its size, its text cut to the room: next_page then moves past it.
      line = fittedLine(item, lineOf, room);
      cutToFit = item.id;
    }
    itemLines.push(line);
    shown.add(item.id);
    bytes += lineBytes(line);
  }
  const everything = mayBeEverything && next === undefined;
  const connectorLines: string[] = [];
  for (const { c, line } of candidates) {
    if (!everything && !touching(c, shown)) continue;
    if (bytes + lineBytes(line) > LINES_BUDGET_BYTES) break;
    connectorLines.push(line);
    bytes += lineBytes(line);
  }
  return { items: itemLines, connectors: connectorLines, ...(next ? { next } : {}), ...(cutToFit ? { cutToFit } : {}) };
}

/** The item's line with its text cut to the most characters that keep the line within `room` bytes (the text alone, `…`, when nothing fits). */
function fittedLine(item: BoardItem, lineOf: (item: BoardItem) => string, room: number): string {
  const withText = (chars: number) => lineOf({ ...item, text: cut(item.text, chars) });
  let low = 0;
  let high = item.text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (lineBytes(withText(middle)) <= room) low = middle;
    else high = middle - 1;
  }
  return withText(low);
}

/**
 * Counts per type: exact when the walk looked at the whole list (without a platform-side type
 * filter) or when asked (`counts`: each type's total, one request each); else those of the items
 * read, with the platform's total of the list. The connectors' count is their list's total.
 */
async function countsOf(args: ReadBoardArgs, start: ReturnType<typeof startOf>, items: ItemWalk, connectors: { records: BoardConnector[]; walk: WalkResult }, get: BoardGet, signal: AbortSignal): Promise<{ fields: Json; notes: string[] }> {
  const connectorCount = connectors.walk.complete ? connectors.records.length : connectors.walk.total;
  const withConnectors = (counts: Record<string, number>) => ({ ...counts, ...(connectorCount !== undefined ? { connector: connectorCount } : {}) });
  const oneType = args.item_types?.length === 1;
  if (items.wholeList && !oneType) return { fields: { counts: withConnectors(items.counts) }, notes: [] };
  if (!args.counts) {
    const total = start.from.cursor || oneType ? undefined : items.walk.total;
    return { fields: { counts_read: withConnectors(items.counts), ...(total !== undefined ? { total_items: total } : {}) }, notes: ['counts_read: the items read by this call (counts: true counts the whole board by type)'] };
  }
  const counts: Record<string, number> = {};
  const unknown: string[] = [];
  await Promise.all(
    ITEM_TYPES.map(async (type) => {
      const query: Record<string, QueryValue> = { limit: 10, type, ...(args.frame_id ? { parent_item_id: args.frame_id } : {}) };
      const answer = await get('/v2/boards/{board_id}/items', query, signal).catch((error: unknown) => {
        // Within the call's budget by its sum; should another read have spent it, the type is said to be uncounted.
        if ((error instanceof ToolError && error.details.kind === 'budget_exceeded') || endedByDeadline(signal)) return undefined;
        throw error;
      });
      if (isRecord(answer) && typeof answer.total === 'number') {
        if (answer.total > 0) counts[type] = answer.total;
      } else unknown.push(type);
    }),
  );
  const ordered = Object.fromEntries(ITEM_TYPES.filter((type) => type in counts).map((type) => [type, counts[type] as number]));
  return { fields: { counts: withConnectors(ordered) }, notes: unknown.length ? [`counts: no total for ${unknown.join(', ')} (the platform gave none, or this call's budget ran out)`] : [] };
}
