/**
 * CanvasApi.ReadBoard: a board as an agent reads it. Walks every page of items, connectors and
 * tags (concurrently), and answers plain-text lines: what each item says, where it is, which
 * frame and tags it has. Text and type filters apply after the walk, so counts describe the
 * whole board (with frame_id, the frame).
 */
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { requestIdOf, tagRequest } from '../../core/logger.js';
import { RESULT_BUDGET_BYTES } from '../../core/tools/result-budget.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import type { CanvasApiDeps } from '../handler.js';
import type { ReadBoardArgs } from './index.js';
import { READ_LIMITS } from '../task-vocabulary.js';
import { plainText } from './text.js';

type Json = Record<string, unknown>;

/** The platform's largest page. */
const PAGE_SIZE = 50;
/** Pages one walk may read (25,000 records): past that the answer says the board was not read to the end. */
const MAX_PAGES = 500;
/** Bytes the item and connector lines may take, leaving room for the rest of the answer within the result budget. */
const LINES_BUDGET_BYTES = RESULT_BUDGET_BYTES - 12_000;
/** Characters of an item's text shown in a connector line. */
const END_TEXT_CHARS = 40;

interface Walked {
  records: Json[];
  complete: boolean;
}

interface BoardItem {
  id: string;
  type: string;
  text: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  parent?: string;
}

export async function readBoard(args: ReadBoardArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  // One failed read stops the others: nothing of a failed call stays in flight. The signal
  // carries the call's request ID (logs), as the MCP request's own does.
  const stop = new AbortController();
  const onCancel = () => stop.abort(context.signal.reason);
  if (context.signal.aborted) onCancel();
  else context.signal.addEventListener('abort', onCancel, { once: true });
  const requestId = requestIdOf(context.signal);
  if (requestId) tagRequest(stop.signal, requestId);
  try {
    return await readWholeBoard(args, context, stop);
  } finally {
    context.signal.removeEventListener('abort', onCancel);
  }
}

async function readWholeBoard(args: ReadBoardArgs, context: ToolContext<CanvasApiDeps>, stop: AbortController): Promise<Json> {
  const { client } = context.deps;
  const signal = stop.signal;
  const boardId = args.board_id;
  const label = `the board "${boardId}"`;
  const get = async (path: string, query: Record<string, QueryValue> = {}, pathParams: Record<string, string> = {}, resourceLabel = label) =>
    (await client.request<unknown>({ method: 'GET', effect: 'read', path, pathParams: { board_id: boardId, ...pathParams }, query, signal, resourceLabel })).data;

  let itemsRead = 0;
  let lastTotal: number | undefined;
  const itemQuery: Record<string, QueryValue> = { limit: PAGE_SIZE };
  // Types are filtered here, not by the platform, so that counts describe the whole board (or frame).
  if (args.frame_id) itemQuery.parent_item_id = args.frame_id;

  // The frame first, so that a wrong frame_id is reported as such.
  const frameOfFilter = args.frame_id ? await get('/v2/boards/{board_id}/frames/{item_id}', {}, { item_id: args.frame_id }, `the frame "${args.frame_id}" on ${label}`) : undefined;
  const reads = Promise.all([
    get('/v2/boards/{board_id}'),
    walkCursor((cursor) => get('/v2/boards/{board_id}/items', { ...itemQuery, ...(cursor ? { cursor } : {}) }), (page) => {
      itemsRead += page.records;
      lastTotal = page.total ?? lastTotal;
      context.progress(itemsRead, lastTotal, `read ${itemsRead}${lastTotal ? ` of ${lastTotal}` : ''} items`);
    }),
    walkCursor((cursor) => get('/v2/boards/{board_id}/connectors', { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) })),
    tagTitlesByItem(get),
  ]);
  const [board, items, connectors, tagsOf] = await reads.catch((error: unknown) => {
    stop.abort();
    throw error;
  });

  const all = items.records.map(toItem);
  const frames = [...(frameOfFilter && isRecord(frameOfFilter) ? [toItem(frameOfFilter)] : []), ...all.filter((item) => item.type === 'frame')];
  const frameTitle = new Map(frames.map((frame) => [frame.id, frame.text]));
  const counts: Record<string, number> = {};
  for (const item of all) counts[item.type] = (counts[item.type] ?? 0) + 1;
  counts.connector = connectors.records.length;

  const wanted = (item: BoardItem) =>
    item.type !== 'frame' &&
    (!args.item_types || args.item_types.includes(item.type as never)) &&
    (!args.query || `${item.text} ${(tagsOf.get(item.id) ?? []).join(' ')}`.toLowerCase().includes(args.query.toLowerCase()));
  const matching = all.filter(wanted);

  // Lines until max_items or the byte budget, whichever comes first; connectors of the listed
  // items keep a share of the budget (up to a quarter), so a long board still shows its arrows.
  const textOf = new Map(all.map((item) => [item.id, item.text]));
  const candidates = connectors.records.map((connector) => {
    const from = endId(connector.startItem);
    const to = endId(connector.endItem);
    return { from, to, line: connectorLine(connector, from, to, textOf) };
  });
  const connectorShare = Math.min(LINES_BUDGET_BYTES / 4, candidates.reduce((sum, c) => sum + lineBytes(c.line), 0));
  const offset = args.offset ?? 0;
  const maxItems = args.max_items ?? READ_LIMITS.defaultMaxItems;
  const itemLines: string[] = [];
  let bytes = 0;
  let next = offset;
  for (; next < matching.length && itemLines.length < maxItems; next++) {
    const item = matching[next] as BoardItem;
    const line = itemLine(item, tagsOf.get(item.id), frameTitle);
    if (bytes + lineBytes(line) > LINES_BUDGET_BYTES - connectorShare) break;
    itemLines.push(line);
    bytes += lineBytes(line);
  }
  const shown = new Set(matching.slice(offset, next).map((item) => item.id));
  const everything = !(args.query || args.item_types || args.frame_id) && offset === 0 && next === matching.length;
  const connectorLines: string[] = [];
  for (const { from, to, line } of candidates) {
    if (!everything && !shown.has(from) && !shown.has(to)) continue;
    if (bytes + lineBytes(line) > LINES_BUDGET_BYTES) break;
    connectorLines.push(line);
    bytes += lineBytes(line);
  }

  const boardInfo = isRecord(board) ? board : {};
  const description = plainText(boardInfo.description);
  const result: Json = {
    board: { id: boardId, name: boardInfo.name, ...(description ? { description } : {}) },
    counts,
    frames: frames.map((frame) => `${frame.id} "${frame.text}" ${placement(frame)}`),
    item_format: 'ID type x,y wxh [frame "title"] [#tag ...]: text (x,y is the centre; inside a frame, from its top-left corner)',
    items: itemLines,
    matching_items: matching.length,
    connectors: connectorLines,
  };
  if (next < matching.length) result.next_page = { offset: next };
  if (!items.complete || !connectors.complete) {
    result.incomplete = `The board has more than ${MAX_PAGES * PAGE_SIZE} items or connectors; only the first ${MAX_PAGES * PAGE_SIZE} were read. Narrow with frame_id or item_types.`;
  }
  return result;
}

/** Reads every page of a cursor list, in order. */
async function walkCursor(fetchPage: (cursor: string | undefined) => Promise<unknown>, onPage?: (page: { records: number; total?: number }) => void): Promise<Walked> {
  const records: Json[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await fetchPage(cursor);
    if (!isRecord(answer) || !Array.isArray(answer.data)) throw unexpected('a list page without data');
    const data = answer.data.filter(isRecord);
    records.push(...data);
    onPage?.({ records: data.length, ...(typeof answer.total === 'number' ? { total: answer.total } : {}) });
    const nextCursor = typeof answer.cursor === 'string' && answer.cursor.length > 0 ? answer.cursor : undefined;
    if (!nextCursor || nextCursor === cursor || data.length === 0) return { records, complete: true };
    cursor = nextCursor;
  }
  return { records, complete: false };
}

/** Item ID -> the titles of its tags: the board's tags, then each tag's items (tags are few; items per tag paged by offset). */
async function tagTitlesByItem(get: (path: string, query?: Record<string, QueryValue>) => Promise<unknown>): Promise<Map<string, string[]>> {
  const tags = await walkOffset((offset) => get('/v2/boards/{board_id}/tags', { limit: PAGE_SIZE, offset: String(offset) }));
  const byItem = new Map<string, string[]>();
  await Promise.all(
    tags.map(async (tag) => {
      if (typeof tag.id !== 'string' && typeof tag.id !== 'number') return;
      const tagged = await walkOffset((offset) => get('/v2/boards/{board_id}/items', { tag_id: String(tag.id), limit: PAGE_SIZE, offset: String(offset) }));
      for (const item of tagged) {
        const id = String(item.id);
        byItem.set(id, [...(byItem.get(id) ?? []), plainText(tag.title)]);
      }
    }),
  );
  return byItem;
}

async function walkOffset(fetchPage: (offset: number) => Promise<unknown>): Promise<Json[]> {
  const records: Json[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await fetchPage(records.length);
    if (!isRecord(answer) || !Array.isArray(answer.data)) throw unexpected('a list page without data');
    const data = answer.data.filter(isRecord);
    records.push(...data);
    const total = typeof answer.total === 'number' ? answer.total : undefined;
    if (data.length === 0 || total === undefined || records.length >= total) break;
  }
  return records;
}

function unexpected(what: string): ToolError {
  return new ToolError({ kind: 'upstream_error', message: `The platform answered ${what}.`, nextStep: 'Nothing is wrong with the arguments; try again later.' });
}

function toItem(record: Json): BoardItem {
  const data = isRecord(record.data) ? record.data : {};
  const position = isRecord(record.position) ? record.position : {};
  const geometry = isRecord(record.geometry) ? record.geometry : {};
  const parent = isRecord(record.parent) ? record.parent : undefined;
  const text = [data.title, data.content, data.description].map(plainText).filter(Boolean).join(' — ');
  return {
    id: String(record.id),
    type: String(record.type ?? 'item'),
    text,
    ...(typeof position.x === 'number' ? { x: position.x } : {}),
    ...(typeof position.y === 'number' ? { y: position.y } : {}),
    ...(typeof geometry.width === 'number' ? { width: geometry.width } : {}),
    ...(typeof geometry.height === 'number' ? { height: geometry.height } : {}),
    ...(parent && parent.id !== undefined ? { parent: String(parent.id) } : {}),
  };
}

/** A line's bytes in the JSON answer (quotes and comma). */
const lineBytes = (line: string) => Buffer.byteLength(line) + 4;

const round = (n: number | undefined) => (n === undefined ? '?' : String(Math.round(n)));

function placement(item: BoardItem): string {
  return `${round(item.x)},${round(item.y)} ${round(item.width)}x${round(item.height)}`;
}

function itemLine(item: BoardItem, tags: string[] | undefined, frameTitle: Map<string, string>): string {
  const frame = item.parent ? ` frame "${frameTitle.get(item.parent) ?? item.parent}"` : '';
  const tagText = tags?.length ? ` ${tags.map((t) => `#${t}`).join(' ')}` : '';
  return `${item.id} ${item.type} ${placement(item)}${frame}${tagText}: ${item.text}`;
}

function endId(end: unknown): string {
  return isRecord(end) && end.id !== undefined ? String(end.id) : '?';
}

function connectorLine(connector: Json, from: string, to: string, textOf: Map<string, string>): string {
  const named = (id: string) => {
    const text = textOf.get(id);
    return text ? `${id} "${text.length > END_TEXT_CHARS ? `${text.slice(0, END_TEXT_CHARS)}…` : text}"` : id;
  };
  const captions = Array.isArray(connector.captions) ? connector.captions.filter(isRecord).map((c) => plainText(c.content)).filter(Boolean) : [];
  return `${String(connector.id)}: ${named(from)} -> ${named(to)}${captions.length ? ` [${captions.join(' / ')}]` : ''}`;
}
