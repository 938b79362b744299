/**
 * A loopback stand-in for the whiteboard platform's board-reading endpoints, for boards too big
 * (or too broken) for the sandbox: items, frames, connectors and tags are made up from their
 * index when asked for, never stored, so a 25,000-item board of 6,000-character notes costs
 * nothing until it is read. It answers in the shapes of the official OpenAPI document
 * (GenericItemCursorPaged, ConnectorsCursorPaged, TagsPagedResponse, ItemPagedResponse,
 * GetTagsResponse), and can page like a broken platform: cursors that never end, the same cursor
 * again, random totals, empty pages that claim more. It records every request and the bytes it sent.
 */
import { startLoopbackJson } from './loopback-json.js';

/** How the platform pages: `honest`, or a way of never ending. */
export type Paging = 'honest' | 'new-cursor-forever' | 'same-cursor' | 'random-totals' | 'empty-with-cursor';

export interface FakeBoardOptions {
  items: number;
  /** Characters of each item's text (default 60). */
  textChars?: number;
  /** Every n-th item is a frame (default: none). */
  frameEvery?: number;
  /** Characters of each frame's title, made of the 3-byte `€` after its name (default: the name alone). */
  frameTitleChars?: number;
  tags?: number;
  /** Items carrying each tag (default: none), the first ones of the board. */
  itemsPerTag?: number;
  connectors?: number;
  paging?: Paging;
  /**
   * Frames apart in a row (frame k centred at k × FRAME_PITCH, 0; FRAME_SIDE square) and each
   * item after a frame its child, in a grid from the frame's top-left (`parent`, `parent_top_left`);
   * by default every item sits near the centre, none a child.
   */
  framedLayout?: boolean;
}

/** framedLayout: frame k's centre is at (k × FRAME_PITCH, 0); children are CHILD_SIDE squares, CHILDREN_PER_ROW a row. */
export const FAKE_LAYOUT = { FRAME_PITCH: 3000, FRAME_SIDE: 2500, CHILD_SIDE: 100, CHILD_PITCH: 105, CHILDREN_PER_ROW: 23 } as const;

export interface FakeBoardRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

export interface FakeBoard {
  baseUrl: string;
  token: string;
  boardId: string;
  requests: FakeBoardRequest[];
  /** Bytes of every answer sent. */
  bytesSent: number;
  close(): Promise<void>;
}

const BOARD_ID = 'uXjVFakeBoard=';
const ID_BASE = 3458764500000000000n;

const itemId = (index: number) => String(ID_BASE + BigInt(index));
const indexOfId = (id: string) => Number(BigInt(id) - ID_BASE);
const encodeCursor = (index: number) => Buffer.from(`at:${index}`).toString('base64url');
const decodeCursor = (cursor: string | null) => (cursor ? Number(Buffer.from(cursor, 'base64url').toString().slice(3)) : 0);

export async function startFakeBoard(options: FakeBoardOptions): Promise<FakeBoard> {
  const paging = options.paging ?? 'honest';
  const textChars = options.textChars ?? 60;
  const filler = 'a long note about the pricing workshop and what people said about it; '.repeat(Math.ceil(textChars / 70) + 1);
  const frameTitle = (index: number) => (options.frameTitleChars ? `Frame ${index} ${'€'.repeat(options.frameTitleChars)}`.slice(0, options.frameTitleChars) : `Frame ${index}`);
  const typeOf = (index: number) => (options.frameEvery && index % options.frameEvery === 0 ? 'frame' : 'sticky_note');
  const every = options.frameEvery ?? 0;
  const place = (index: number, type: string) => {
    const L = FAKE_LAYOUT;
    if (!options.framedLayout || every === 0) return { position: { x: index % 100, y: Math.floor(index / 100), origin: 'center', relativeTo: 'canvas_center' }, geometry: { width: 200, height: 200 } };
    if (type === 'frame') return { position: { x: (index / every) * L.FRAME_PITCH, y: 0, origin: 'center', relativeTo: 'canvas_center' }, geometry: { width: L.FRAME_SIDE, height: L.FRAME_SIDE } };
    const frame = index - (index % every);
    const slot = index - frame - 1;
    return {
      position: { x: 100 + (slot % L.CHILDREN_PER_ROW) * L.CHILD_PITCH, y: 100 + Math.floor(slot / L.CHILDREN_PER_ROW) * L.CHILD_PITCH, origin: 'center', relativeTo: 'parent_top_left' },
      geometry: { width: L.CHILD_SIDE, height: L.CHILD_SIDE },
      parent: { id: itemId(frame) },
    };
  };
  const item = (index: number) => {
    const type = typeOf(index);
    const text = `Note ${index}: ${filler}`.slice(0, textChars);
    return {
      id: itemId(index),
      type,
      data: type === 'frame' ? { title: frameTitle(index), format: 'custom', type: 'freeform' } : { content: `<p>${text}</p>`, shape: 'square' },
      ...place(index, type),
      createdAt: '2026-01-01T00:00:00Z',
      modifiedAt: '2026-01-01T00:00:00Z',
      links: { self: `https://api.example.test/v2/boards/${BOARD_ID}/items/${itemId(index)}` },
    };
  };
  const tagOf = (index: number) => ({ id: String(ID_BASE * 2n + BigInt(index)), type: 'tag', title: `topic ${index}`, fillColor: 'red' });
  const state = { requests: [] as FakeBoardRequest[], sameCursor: encodeCursor(50) };

  /** A cursor page of `count` records made by `make`, paged as the options say. */
  const cursorPage = (query: URLSearchParams, count: number, make: (index: number) => unknown, filter: (index: number) => boolean = () => true) => {
    const limit = Math.min(50, Number(query.get('limit') ?? 10));
    if (paging !== 'honest') return brokenPage(query, limit, make);
    const matching = (from: number) => {
      const out: number[] = [];
      for (let index = from; index < count && out.length < limit + 1; index++) if (filter(index)) out.push(index);
      return out;
    };
    const indexes = matching(decodeCursor(query.get('cursor')));
    const shown = indexes.slice(0, limit);
    let total = 0;
    for (let index = 0; index < count; index++) if (filter(index)) total++;
    const following = indexes[limit];
    return { data: shown.map(make), total, size: shown.length, limit, ...(following !== undefined ? { cursor: encodeCursor(following) } : {}), links: {} };
  };
  const brokenPage = (query: URLSearchParams, limit: number, make: (index: number) => unknown) => {
    const at = decodeCursor(query.get('cursor'));
    const random = (max: number) => Math.floor(Math.random() * max);
    if (paging === 'empty-with-cursor') return { data: [], total: 1_000_000, size: 0, limit, cursor: encodeCursor(at + 1), links: {} };
    const start = paging === 'same-cursor' ? 0 : at;
    const data = Array.from({ length: limit }, (_, i) => make(paging === 'random-totals' ? random(1e9) : start + i));
    const cursor = paging === 'same-cursor' ? state.sameCursor : encodeCursor(at + limit + (paging === 'random-totals' ? random(1000) : 0));
    const total = paging === 'random-totals' ? random(1e9) : undefined;
    return { data, ...(total !== undefined ? { total } : {}), size: data.length, limit, cursor, links: {} };
  };
  const offsetPage = (query: URLSearchParams, count: number, make: (index: number) => unknown, first = 0) => {
    const limit = Math.min(50, Number(query.get('limit') ?? 20));
    const offset = Number(query.get('offset') ?? 0);
    if (paging === 'random-totals') return { data: Array.from({ length: limit }, () => make(first + Math.floor(Math.random() * 1e9))), total: Math.floor(Math.random() * 1e9), size: limit, offset, limit, links: {}, type: 'cursor-list' };
    const data: unknown[] = [];
    for (let index = offset; index < Math.min(count, offset + limit); index++) data.push(make(first + index));
    return { data, total: count, size: data.length, offset, limit, links: {}, type: 'cursor-list' };
  };

  const route = (method: string, path: string, query: URLSearchParams): [number, unknown] => {
    if (method !== 'GET') return [405, { status: 405, code: 'methodNotAllowed', message: 'read-only fake', type: 'error' }];
    const base = `/v2/boards/${encodeURIComponent(BOARD_ID)}`;
    if (path === base) return [200, { id: BOARD_ID, type: 'board', name: 'Huge board', description: 'A board far too big to read at once.' }];
    if (path === `${base}/items`) {
      const tagId = query.get('tag_id');
      if (tagId !== null) {
        const tagIndex = Number(BigInt(tagId) - ID_BASE * 2n);
        return [200, offsetPage(query, Math.min(options.itemsPerTag ?? 0, options.items), item, tagIndex % Math.max(1, options.items))];
      }
      const type = query.get('type');
      // A frame's children: the items after it up to the next frame.
      const parent = query.get('parent_item_id');
      const inFrame = parent !== null && every > 0 ? (index: number) => index > indexOfId(parent) && index < indexOfId(parent) + every : undefined;
      return [200, cursorPage(query, options.items, item, inFrame ?? (type ? (index) => typeOf(index) === type : undefined))];
    }
    const frame = new RegExp(`^${escape(base)}/frames/(\\d+)$`).exec(path);
    if (frame && typeOf(indexOfId(frame[1]!)) === 'frame') return [200, item(indexOfId(frame[1]!))];
    // An item's own endpoint, with its style (the generic list has none).
    const sticky = new RegExp(`^${escape(base)}/sticky_notes/(\\d+)$`).exec(path);
    if (sticky && typeOf(indexOfId(sticky[1]!)) === 'sticky_note') return [200, { ...item(indexOfId(sticky[1]!)), style: { fillColor: 'light_blue', textAlign: 'center', textAlignVertical: 'top' } }];
    const itemTags = new RegExp(`^${escape(base)}/items/(\\d+)/tags$`).exec(path);
    if (itemTags) {
      const index = indexOfId(itemTags[1]!);
      // Tag t is on items t to t + itemsPerTag - 1.
      const tags: number[] = [];
      for (let t = Math.max(0, index - (options.itemsPerTag ?? 0) + 1); t <= Math.min(index, (options.tags ?? 0) - 1) && tags.length < 8; t++) tags.push(t);
      return [200, { tags: tags.map(tagOf) }];
    }
    if (path === `${base}/tags`) return [200, offsetPage(query, options.tags ?? 0, tagOf)];
    if (path === `${base}/connectors`) {
      const connector = (index: number) => ({ id: String(ID_BASE * 3n + BigInt(index)), startItem: { id: itemId(index % options.items) }, endItem: { id: itemId((index + 1) % options.items) }, shape: 'curved' });
      return [200, cursorPage(query, options.connectors ?? 0, connector)];
    }
    return [404, { status: 404, code: 'notFound', message: `no route for ${path}`, type: 'error' }];
  };

  const server = await startLoopbackJson((req, url) => {
    state.requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams });
    const [status, body] = route(req.method ?? 'GET', url.pathname, url.searchParams);
    return { status, body };
  });
  return {
    baseUrl: server.baseUrl,
    token: 'fake-board-token',
    boardId: BOARD_ID,
    get requests() {
      return state.requests;
    },
    get bytesSent() {
      return server.bytesSent;
    },
    close: () => server.close(),
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
