/**
 * CanvasApi.ViewBoard: a board, a frame, some items or an area as a PNG a vision model can read.
 * Reads within the call's budget (VIEW_READS): the frame or the frames list, the items (a page
 * more than a readable picture holds, so too many is known before anything is drawn), the
 * connectors, and one GET per coloured item (the items list has no style), at most
 * VIEW_READS.styleReads: the others are drawn grey and the answer says how many. The picture is
 * drawn off the event loop (board-render.ts) and sent as an image block (core result-image.ts).
 */
import { WorkScope } from '../../core/call-budget.js';
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { walkPages, walkNote, type PagePosition } from '../../core/tools/pager.js';
import { withImage } from '../../core/tools/result-image.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import type { CanvasApiDeps } from '../handler.js';
import { BOARD_READS, VIEW_LIMITS, VIEW_READS } from '../task-vocabulary.js';
import { drawableText, toPictureConnectors, toPictureItems, type PictureInput, type PictureItem } from './board-picture.js';
import { itemLinkTemplate } from '../params.js';
import { boardViewData, withBoardView } from './board-view-data.js';
import { plainText } from './text.js';
import { boundsOf, drawPicture, fitPicture } from './view-board.js';

type Json = Record<string, unknown>;
type Area = { x0: number; y0: number; x1: number; y1: number };

/** What the logic is called with: the definition's checked input (index.ts). */
export interface ViewBoardArgs {
  board_id: string;
  frame_id?: string | undefined;
  frame_title?: string | undefined;
  item_ids?: string[] | undefined;
  area?: Area | undefined;
  max_side?: number | undefined;
  number_items?: boolean | undefined;
}

/** Each styled item type's own endpoint: the only place its colours are. */
const STYLE_PATH: Record<string, string> = { sticky_note: 'sticky_notes', shape: 'shapes', card: 'cards', app_card: 'app_cards', text: 'texts' };
/** Style reads go to the items that show the most colour first. */
const STYLE_ORDER = ['sticky_note', 'shape', 'card', 'app_card', 'text'];
/** Drawn for an item whose style was not read: plainly not one of the platform's colours. */
const NEUTRAL = '#d9d9d9';
const STYLE_CONCURRENCY = 8;
/** Characters of an item's text sent to the drawing: more never fits in its box. */
const DRAWN_TEXT_CHARS = 400;

const ITEMS_PATH = '/v2/boards/{board_id}/items';
const MINDMAP_PATH = '/v2-experimental/boards/{board_id}/mindmap_nodes';

const SCOPES = ['frame_id', 'frame_title', 'item_ids', 'area'] as const;

function tooMany(count: string, where: string): ToolError {
  return new ToolError({
    kind: 'invalid_input',
    message: `${where} has ${count} items: more than ${VIEW_LIMITS.maxItems} do not make a readable picture, so nothing was drawn.`,
    nextStep: 'Narrow the picture: a frame (frame_id or frame_title, the frames are in CanvasApi.ReadBoard), an area (area: x0,y0,x1,y1 in board coordinates) or item_ids.',
    issues: [{ parameter: 'frame_id', problem: `narrow to a frame or an area: ${where} has ${count} items` }],
  });
}

export async function viewBoard(args: ViewBoardArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const given = SCOPES.filter((key) => args[key] !== undefined);
  if (given.length > 1) throw ToolError.invalidParameter(given[1] as string, `give one of ${SCOPES.join(', ')}, not ${given.join(' and ')}`);
  // One failed read stops the others; reads end a margin before the call's deadline.
  const scope = new WorkScope(context.signal, { until: 'deadline' });
  try {
    return await view(args, context, scope.signal);
  } catch (error) {
    scope.abort();
    throw error;
  } finally {
    scope.dispose();
  }
}

async function view(args: ViewBoardArgs, context: ToolContext<CanvasApiDeps>, signal: AbortSignal): Promise<Json> {
  const { client } = context.deps;
  const boardId = args.board_id;
  const label = `the board "${boardId}"`;
  const get = async (path: string, query: Record<string, QueryValue>, pageSignal: AbortSignal, pathParams: Record<string, string> = {}, resourceLabel = label): Promise<unknown> =>
    (await client.request<unknown>({ method: 'GET', effect: 'read', path, pathParams: { board_id: boardId, ...pathParams }, query, signal: pageSignal, resourceLabel })).data;
  const notes: string[] = [];

  // The frame shown, or the frames (to find one by title, and to place their children).
  let frames: Json[] = [];
  let frame: Json | undefined;
  if (args.frame_id) {
    const answer = await get('/v2/boards/{board_id}/frames/{item_id}', {}, signal, { item_id: args.frame_id }, `the frame "${args.frame_id}" on ${label}`);
    if (!isRecord(answer)) throw unexpected('a frame that is not an object');
    frame = { ...answer, type: 'frame' };
  } else {
    const listed = await readList(get, signal, ITEMS_PATH, { type: 'frame' }, VIEW_READS.framePages);
    frames = listed.records;
    if (listed.note) notes.push(`frames: ${listed.note}`);
    if (args.frame_title) frame = frameTitled(frames, args.frame_title, notes);
  }

  // The items: read up to one page past what a picture may hold.
  let records: Json[];
  let where = args.area ? 'the area' : frame ? `the frame "${String(frame.id)}"` : 'the board';
  if (args.item_ids) {
    records = await Promise.all(
      args.item_ids.map(async (id) => {
        const answer = await get('/v2/boards/{board_id}/items/{item_id}', {}, signal, { item_id: id }, `the item "${id}" on ${label}`);
        if (!isRecord(answer)) throw unexpected('an item that is not an object');
        return answer;
      }),
    );
    where = 'item_ids';
  } else if (args.area) {
    records = await itemsOfArea(get, signal, args.area, frames, notes);
  } else {
    const query: Record<string, QueryValue> = frame ? { parent_item_id: String(frame.id) } : {};
    // A whole board or frame: the first page's total already says when there are too many.
    const limit = VIEW_LIMITS.maxItems;
    const listed = await readList(get, signal, ITEMS_PATH, query, VIEW_READS.itemPages, limit);
    if ((listed.total ?? 0) > limit) throw tooMany(String(listed.total), where);
    if (listed.records.length > limit) throw tooMany(`more than ${limit}`, where);
    records = listed.records;
  }
  if (frame) records = [frame, ...records];
  // Mind maps may be anywhere: looked for on a whole board and in an area, not in a frame.
  if (!args.item_ids && !frame) records.push(...(await mindmapNodes(get, signal, records, notes)));

  // Positions need the parents: children are placed from their frame's top-left corner.
  const known = new Set(records.map((record) => String(record.id)));
  const parents = frames.filter((f) => !known.has(String(f.id)));
  const placed = toPictureItems([...parents, ...records]);
  const wanted = args.item_ids ? new Set(args.item_ids) : undefined;
  let shown = placed.filter((item) => (wanted ? wanted.has(item.id) : known.has(item.id)) && (!args.area || overlaps(item, args.area)));
  if (shown.length > VIEW_LIMITS.maxItems) throw tooMany(String(shown.length), where);

  // Colours: one GET per styled item, the most colourful kinds first, within the budget.
  const styles = await readStyles(get, signal, shown);
  const styled = records.map((record) => {
    const style = styles.get(String(record.id));
    return style ? { ...record, style } : record;
  });
  const shownIds = new Set(shown.map((item) => item.id));
  shown = toPictureItems([...parents, ...styled]).filter((item) => shownIds.has(item.id));
  let grey = 0;
  for (const item of shown) {
    // Characters the font lacks are left out (no empty boxes); not counted in `partial`, whose lines platform text must never change.
    item.text = drawableText(item.text).slice(0, DRAWN_TEXT_CHARS);
    if (item.type in STYLE_PATH && !styles.has(item.id)) {
      grey++;
      if (item.type !== 'text') item.fill = NEUTRAL;
    }
  }
  if (grey > 0) notes.push(`colours: ${grey} items are drawn grey (their style was not read: at most ${VIEW_READS.styleReads} style reads a call); narrow the picture to see their colours`);

  // Connectors between the items shown.
  const connectorList = await readList(get, signal, '/v2/boards/{board_id}/connectors', {}, VIEW_READS.connectorPages);
  if (connectorList.note) notes.push(`connectors: only those read are drawn; ${connectorList.note}`);
  const ends = (record: Json, end: string) => (isRecord(record[end]) ? String((record[end] as Json).id) : '');
  const connectors = toPictureConnectors(
    connectorList.records.filter((record) => shownIds.has(ends(record, 'startItem')) && shownIds.has(ends(record, 'endItem'))),
    shown,
  );

  const numbered: string[] = [];
  if (args.number_items) {
    // Read in rows, top to bottom, left to right: frames keep no number (their title names them).
    const order = shown.filter((item) => item.type !== 'frame').sort((a, b) => Math.round(a.y / 100) - Math.round(b.y / 100) || a.x - b.x);
    order.forEach((item, index) => {
      item.number = index + 1;
      numbered.push(`${index + 1}: ${item.id}`);
    });
  }

  const fitted = fitPicture(args.area ?? boundsOf(shown), args.max_side ?? VIEW_LIMITS.defaultLongSidePx);
  const input: PictureInput = { ...fitted, items: shown, connectors };
  const picture = await drawPicture(input, signal);
  const { area, scale } = fitted;
  const round = (n: number) => Math.round(n * 10) / 10;
  const data: Json = {
    board_id: boardId,
    area: `${round(area.x0)},${round(area.y0)} → ${round(area.x1)},${round(area.y1)}`,
    scale: Math.round(scale * 10_000) / 10_000,
    size_px: `${picture.width}x${picture.height}`,
    items: shown.length,
    connectors: connectors.length,
    about: 'area in board coordinates (x right, y down); scale in pixels per board unit',
    ...(numbered.length ? { numbers: numbered } : {}),
    ...(notes.length ? { partial: notes } : {}),
  };
  withImage(data, { mimeType: 'image/png', data: Buffer.from(picture.png).toString('base64') });
  // The board view (MCP Apps): the items and connectors drawn, with their colours, over the same area.
  return withBoardView(data, () => boardViewData(shown, connectors, itemLinkTemplate(context.deps.webBase, boardId), area));
}

type BoardGet = (path: string, query: Record<string, QueryValue>, signal: AbortSignal, pathParams?: Record<string, string>, resourceLabel?: string) => Promise<unknown>;

/** A cursor-paged list, `pages` pages at most, stopping once it holds more than `limit` records. */
async function readList(get: BoardGet, signal: AbortSignal, path: string, query: Record<string, QueryValue>, pages: number, limit?: number, start?: PagePosition): Promise<{ records: Json[]; total?: number; more: boolean; pages: number; next?: PagePosition; note?: string }> {
  const records: Json[] = [];
  let total: number | undefined;
  const walk = await walkPages<Json>({
    signal,
    ...(start ? { start } : {}),
    maxPages: pages,
    pageSize: BOARD_READS.pageSize,
    fetchPage: async (at: PagePosition | undefined, pageSignal: AbortSignal) => {
      const answer = await get(path, { ...query, limit: BOARD_READS.pageSize, ...(at?.cursor ? { cursor: at.cursor } : {}) }, pageSignal);
      if (!isRecord(answer) || !Array.isArray(answer.data)) throw unexpected('a list page without data');
      const cursor = typeof answer.cursor === 'string' && answer.cursor.length > 0 ? answer.cursor : undefined;
      return { records: answer.data.filter(isRecord), ...(cursor ? { next: { cursor } } : {}), ...(typeof answer.total === 'number' ? { total: answer.total } : {}) };
    },
    idOf: (record) => (record.id === undefined ? undefined : String(record.id)),
    onPage: (page) => {
      records.push(...page.records);
      total ??= page.total;
      return limit !== undefined && ((total ?? 0) > limit || records.length > limit);
    },
  });
  const more = !walk.complete && walk.stop !== 'enough';
  const note = more ? walkNote(walk, path.endsWith('connectors') ? 'connectors' : 'items', signal) : undefined;
  return { records, ...(total !== undefined ? { total } : {}), more, pages: walk.pages, ...(walk.next ? { next: walk.next } : {}), ...(note ? { note } : {}) };
}

/**
 * The items an area may hold. The platform cannot filter items by place: the board's first pages
 * are read; when the board has more, the children of the frames overlapping the area (by
 * parent_item_id), then more of the board's pages, all within VIEW_READS.areaItemPages pages;
 * `notes` says what was not covered.
 */
async function itemsOfArea(get: BoardGet, signal: AbortSignal, area: Area, frames: readonly Json[], notes: string[]): Promise<Json[]> {
  const loose = await readList(get, signal, ITEMS_PATH, {}, VIEW_READS.areaLoosePages);
  if (!loose.more) return loose.records;
  const records = new Map(loose.records.map((record) => [String(record.id), record]));
  const overlapping = toPictureItems(frames).filter((item) => item.type === 'frame' && overlaps(item, area));
  // The frames themselves are in the area too, whether or not the first pages held them.
  for (const frame of frames) if (overlapping.some((item) => item.id === String(frame.id))) records.set(String(frame.id), frame);
  let pagesLeft = VIEW_READS.areaItemPages - loose.pages;
  let framesRead = 0;
  let cut = 0;
  for (const frame of overlapping) {
    if (pagesLeft <= 0) break;
    const children = await readList(get, signal, ITEMS_PATH, { parent_item_id: frame.id }, Math.min(pagesLeft, VIEW_READS.itemPages));
    pagesLeft -= children.pages;
    framesRead++;
    if (children.more) cut++;
    for (const child of children.records) records.set(String(child.id), child);
  }
  // The pages left go on through the board's list, where the first pages stopped.
  let looked = loose.records.length;
  let rest: Awaited<ReturnType<typeof readList>> | undefined;
  if (pagesLeft > 0 && loose.next) {
    rest = await readList(get, signal, ITEMS_PATH, {}, pagesLeft, undefined, loose.next);
    looked += rest.records.length;
    for (const record of rest.records) records.set(String(record.id), record);
  }
  const unread = [
    ...(overlapping.length > framesRead ? [`${overlapping.length - framesRead} of the ${overlapping.length} frames overlapping the area were not read (page limit)`] : []),
    ...(cut > 0 ? [`${cut} frames' children were read in part`] : []),
    ...(frames.length >= VIEW_READS.framePages * BOARD_READS.pageSize ? [`only the first ${frames.length} frames were looked at`] : []),
  ];
  // The whole list read after all: every item was looked at, frames' children included.
  if (rest && !rest.more) return [...records.values()];
  if (rest === undefined || rest.more) unread.unshift(`the board has more than ${looked} items and the platform cannot list them by place, so an area shows those among the first ${looked} and the children of the frames overlapping it; items outside frames past those are missing`);
  if (unread.length > 0) notes.push(`area: ${unread.join('; ')}; a smaller area, a frame (frame_id) or item_ids show all they hold`);
  return [...records.values()];
}

/**
 * The board's mind-map nodes (the experimental endpoint, first page): drawn when the platform
 * gives their place, else counted in `notes`. A platform without the endpoint costs one request.
 */
async function mindmapNodes(get: BoardGet, signal: AbortSignal, records: readonly Json[], notes: string[]): Promise<Json[]> {
  let listed: Awaited<ReturnType<typeof readList>>;
  try {
    listed = await readList(get, signal, MINDMAP_PATH, {}, VIEW_READS.mindmapPages);
  } catch (error) {
    if (signal.aborted) throw error;
    return [];
  }
  const known = new Set(records.map((record) => String(record.id)));
  const fresh = listed.records.filter((node) => !known.has(String(node.id)));
  const placed = fresh.filter((node) => isRecord(node.position) && typeof node.position.x === 'number' && typeof node.position.y === 'number');
  const unplaced = fresh.length - placed.length;
  if (unplaced > 0) notes.push(`mind map: ${unplaced}${listed.more ? '+' : ''} nodes are not drawn: the platform gives their text and links but not their place (CanvasApi.GetMindmapNodes lists them)`);
  else if (listed.more) notes.push(`mind map: only the first ${listed.records.length} nodes were read`);
  return placed.map((node) => ({ ...node, type: 'mindmap_node' }));
}

function frameTitled(frames: readonly Json[], title: string, notes: string[]): Json {
  const wanted = title.trim().toLowerCase();
  const titleOf = (f: Json) => plainText(isRecord(f.data) ? f.data.title : '').trim().toLowerCase();
  const matches = frames.filter((f) => titleOf(f) === wanted);
  const [first] = matches;
  if (!first) throw ToolError.invalidParameter('frame_title', `no frame is titled "${title}" among the ${frames.length} frames read (CanvasApi.ReadBoard lists them; frame_id names one exactly)`);
  if (matches.length > 1) notes.push(`frame_title: ${matches.length} frames have this title; shown: ${String(first.id)} (others: ${matches.slice(1, 6).map((f) => String(f.id)).join(', ')})`);
  return first;
}

function overlaps(item: PictureItem, area: Area): boolean {
  return item.x + item.width / 2 >= area.x0 && item.x - item.width / 2 <= area.x1 && item.y + item.height / 2 >= area.y0 && item.y - item.height / 2 <= area.y1;
}

/** Each shown styled item's style, at most VIEW_READS.styleReads GETs, a few at a time; a failed read leaves the item grey. */
async function readStyles(get: BoardGet, signal: AbortSignal, items: readonly PictureItem[]): Promise<Map<string, Json>> {
  const queue = items.filter((item) => item.type in STYLE_PATH).sort((a, b) => STYLE_ORDER.indexOf(a.type) - STYLE_ORDER.indexOf(b.type)).slice(0, VIEW_READS.styleReads);
  const styles = new Map<string, Json>();
  let next = 0;
  const worker = async () => {
    while (next < queue.length) {
      const item = queue[next++] as PictureItem;
      try {
        const answer = await get(`/v2/boards/{board_id}/${STYLE_PATH[item.type]}/{item_id}`, {}, signal, { item_id: item.id });
        if (isRecord(answer) && isRecord(answer.style)) styles.set(item.id, answer.style);
      } catch (error) {
        // The call itself ended: stop. Any other failure only costs this item its colours.
        if (signal.aborted) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(STYLE_CONCURRENCY, queue.length) }, worker));
  return styles;
}

function unexpected(what: string): ToolError {
  return new ToolError({ kind: 'upstream_error', message: `The platform answered with ${what}.`, nextStep: 'Try again; if it persists, the platform changed its answers.' });
}
