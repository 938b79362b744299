/**
 * CanvasApi.ViewBoard end to end: the tool's answer is one JSON text plus one PNG image block of
 * the stated size; a frame narrows the picture; too many items are refused before anything is
 * drawn; and requests (style GETs included) stay within the call's budget. On the sandbox's demo
 * boards, and on a 5,000-item stand-in (support/fake-board.ts). Requests are counted, never time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { VIEW_LIMITS, VIEW_READS, viewBoardBudget } from '../src/canvasapi/task-vocabulary.js';
import { callRecorded, callTool, canvasApiServerFor, outcomeOf, startTestSandbox, sandboxBoards } from './support/harness.js';
import { executeTool, viewFor } from '../src/core/tools/registry.js';
import { FAKE_LAYOUT, startFakeBoard, type FakeBoard } from './support/fake-board.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The answer's PNG, decoded as a client would. */
function pictureOf(raw: J): PNG {
  assert.equal(raw.content.length, 2, 'one text, one image');
  const [text, image] = raw.content as J[];
  assert.equal(text.type, 'text');
  assert.equal(image.type, 'image');
  assert.equal(image.mimeType, 'image/png');
  assert.ok(!text.text.includes(image.data.slice(0, 40)), 'the picture is not in the text');
  return PNG.sync.read(Buffer.from(image.data, 'base64'));
}

const sizeOf = (data: J) => data.size_px.split('x').map(Number) as [number, number];

describe('CanvasApi.ViewBoard on the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: ReturnType<typeof canvasApiServerFor>;
  let boards: J[];
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    boards = await sandboxBoards(sandbox);
  });
  after(async () => {
    await sandbox.close();
  });
  const boardNamed = (name: string) => boards.find((b) => b.name === name).id as string;

  it('a whole demo board: a PNG of the stated size, the area and scale in the text, requests within the budget', async () => {
    const args = { board_id: boardNamed('Sprint 42 Retrospective') };
    const { isError, data, raw, sent } = await callRecorded(sandbox, server, 'CanvasApi.ViewBoard', args);
    assert.equal(isError, false, JSON.stringify(data));
    const d = data as J;
    const png = pictureOf(raw);
    assert.deepEqual([png.width, png.height], sizeOf(d));
    assert.equal(Math.max(png.width, png.height), VIEW_LIMITS.defaultLongSidePx);
    assert.match(d.area, /^-?[\d.]+,-?[\d.]+ → -?[\d.]+,-?[\d.]+$/);
    const [x0, y0, x1, y1] = d.area.split(/,| → /).map(Number);
    assert.ok(Math.abs((x1 - x0) * d.scale - png.width) < 1 && Math.abs((y1 - y0) * d.scale - png.height) < 1, `${d.area} at ${d.scale} is ${d.size_px}`);
    assert.ok(d.items > 5);
    assert.ok(sent.length <= viewBoardBudget({}).requests, `${sent.length} requests`);
    assert.ok(sent.every((r) => r.method === 'GET'));
    assert.equal(d.partial, undefined, 'every item coloured');
    // Not every sandbox pixel is white: something was drawn.
    let ink = 0;
    for (let i = 0; i < png.data.length; i += 4 * 97) if (png.data[i]! < 200) ink++;
    assert.ok(ink > 50, `${ink} inked samples`);
  });

  it('a frame (by ID or title) narrows the picture; number_items lists numbers with item IDs; max_side sizes it', async () => {
    const board = boardNamed('Q3 Launch Plan');
    const whole = await callTool(server, 'CanvasApi.ViewBoard', { board_id: board });
    const read = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, item_types: ['frame'] });
    const frameLine = (read.data as J).frames[0] as string;
    const frameId = frameLine.split(' ')[0]!;
    // `ID "title" x,y wxh`: the title is a JSON string.
    const title = JSON.parse(/^\S+ ("(?:[^"\\]|\\.)*")/.exec(frameLine)![1]!) as string;
    const byId = await callTool(server, 'CanvasApi.ViewBoard', { board_id: board, frame_id: frameId, number_items: true, max_side: 600 });
    assert.equal(byId.isError, false, JSON.stringify(byId.data));
    const d = byId.data as J;
    assert.ok(d.items < (whole.data as J).items, `${d.items} items in the frame, ${(whole.data as J).items} on the board`);
    const png = pictureOf(byId.raw);
    assert.equal(Math.max(png.width, png.height), 600);
    assert.equal(d.numbers.length, d.items - 1, 'every item but the frame is numbered');
    assert.match(d.numbers[0], /^1: \S+$/);
    const byTitle = await callTool(server, 'CanvasApi.ViewBoard', { board_id: board, frame_title: title.toUpperCase() });
    assert.equal((byTitle.data as J).items, d.items);
    assert.equal((byTitle.data as J).area.split(' → ')[0], ((await callTool(server, 'CanvasApi.ViewBoard', { board_id: board, frame_id: frameId })).data as J).area.split(' → ')[0]);
  });

  it('mind-map nodes the platform gives no place for are counted in partial, not drawn', async () => {
    const board = boardNamed('Q3 Launch Plan');
    const nodes = await fetch(`${sandbox.canvasapi.baseUrl}/v2-experimental/boards/${board}/mindmap_nodes?limit=50`, { headers: { authorization: `Bearer ${sandbox.canvasapi.token}` } });
    const count = ((await nodes.json()) as J).data.length as number;
    assert.ok(count > 0);
    const { isError, data, sent } = await callRecorded(sandbox, server, 'CanvasApi.ViewBoard', { board_id: board });
    assert.equal(isError, false, JSON.stringify(data));
    assert.ok((data as J).partial.some((note: string) => note.startsWith(`mind map: ${count} nodes are not drawn`)), JSON.stringify((data as J).partial));
    assert.equal(sent.filter((r) => r.path.includes('/mindmap_nodes')).length, 1);
    assert.ok(sent.length <= viewBoardBudget({}).requests);
  });

  it('meta mode: CallReadOnlyTool and CallTool pass the picture through as the same image block', async () => {
    const board = boardNamed('Payments Architecture');
    const args = { board_id: board, max_side: 400 };
    const direct = pictureOf((await callTool(server, 'CanvasApi.ViewBoard', args)).raw);
    const view = viewFor(server, { selections: [{ profile: 'meta' }] });
    for (const name of ['CanvasApi.CallReadOnlyTool', 'CanvasApi.CallTool']) {
      const meta = view.exposed.find((tool) => tool.name === name)!;
      const raw = await executeTool(server, meta, { name: 'CanvasApi.ViewBoard', arguments: args }, new AbortController().signal);
      const outcome = outcomeOf(raw);
      assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
      const png = pictureOf(raw);
      assert.deepEqual([png.width, png.height], sizeOf(outcome.data as J));
      assert.deepEqual(png.data, direct.data, `${name}: the same picture`);
      assert.equal(JSON.stringify(raw.structuredContent).includes((raw.content[1] as J).data.slice(0, 40)), false, 'not in structuredContent');
    }
  });

  it('item_ids and an area narrow too; two ways at once are refused before anything is sent', async () => {
    const board = boardNamed('Payments Architecture');
    const whole = (await callTool(server, 'CanvasApi.ViewBoard', { board_id: board, number_items: true })).data as J;
    const two = whole.numbers.slice(0, 2).map((line: string) => line.split(': ')[1]);
    const picked = await callTool(server, 'CanvasApi.ViewBoard', { board_id: board, item_ids: two });
    assert.equal((picked.data as J).items, 2);
    const [x0, y0] = whole.area.split(/,| → /).map(Number);
    const area = await callTool(server, 'CanvasApi.ViewBoard', { board_id: board, area: { x0, y0, x1: x0 + 10, y1: y0 + 10 } });
    assert.equal(area.isError, false, JSON.stringify(area.data));
    assert.ok((area.data as J).items < whole.items);
    const both = await callRecorded(sandbox, server, 'CanvasApi.ViewBoard', { board_id: board, frame_id: '1', item_ids: two });
    assert.equal(both.isError, true);
    assert.equal((both.data as J).kind, 'invalid_input');
    assert.equal(both.sent.length, 0);
  });
});

describe('CanvasApi.ViewBoard on a 5,000-item board', () => {
  let board: FakeBoard;
  before(async () => {
    board = await startFakeBoard({ items: 5_000, frameEvery: 500, connectors: 3_000 });
  });
  after(async () => {
    await board.close();
  });

  it('the whole board is refused after one page of items, naming a frame or an area; no picture', async () => {
    board.requests.length = 0;
    const { isError, data, raw } = await callTool(canvasApiServerFor(board), 'CanvasApi.ViewBoard', { board_id: board.boardId });
    assert.equal(isError, true);
    const d = data as J;
    assert.equal(d.kind, 'invalid_input');
    assert.match(d.message, /5000 items/);
    assert.match(d.next_step, /frame_id or frame_title.*area/);
    assert.equal(raw.content.length, 1, 'no image');
    const itemPages = board.requests.filter((r) => r.path.endsWith('/items') && !r.query.get('type'));
    assert.equal(itemPages.length, 1, 'one page of items');
    assert.ok(board.requests.length <= 1 + VIEW_READS.framePages, `${board.requests.length} requests`);
  });

  it('narrowed to a frame of 499 notes: drawn within the budget, style GETs capped, the rest said to be grey', async () => {
    board.requests.length = 0;
    const frameId = String(3458764500000000000n + 1000n);
    const args = { board_id: board.boardId, frame_id: frameId };
    const { isError, data, raw } = await callTool(canvasApiServerFor(board), 'CanvasApi.ViewBoard', args);
    assert.equal(isError, false, JSON.stringify(data));
    const d = data as J;
    assert.equal(d.items, 500, 'the frame and its 499 notes');
    const png = pictureOf(raw);
    assert.deepEqual([png.width, png.height], sizeOf(d));
    const styleReads = board.requests.filter((r) => r.path.includes('/sticky_notes/')).length;
    assert.equal(styleReads, VIEW_READS.styleReads);
    assert.ok(d.partial.some((note: string) => note.startsWith(`colours: ${499 - VIEW_READS.styleReads} items are drawn grey`)), JSON.stringify(d.partial));
    assert.ok(board.requests.length <= viewBoardBudget(args).requests, `${board.requests.length} requests`);
  });
});

describe('CanvasApi.ViewBoard: an area on a 5,000-item board of frames', () => {
  let board: FakeBoard;
  const every = 500;
  before(async () => {
    board = await startFakeBoard({ items: 5_000, frameEvery: every, connectors: 3_000, framedLayout: true });
  });
  after(async () => {
    await board.close();
  });
  const L = FAKE_LAYOUT;
  const frameIndex = 8;
  const frameId = String(3458764500000000000n + BigInt(frameIndex * every));

  it('found through the frames overlapping it (children by parent_item_id), past the first pages; partial says what was not covered', async () => {
    board.requests.length = 0;
    // The top-left quarter of frame 8, whose children (items 4,001-4,499) are far past the first pages.
    const left = frameIndex * L.FRAME_PITCH - L.FRAME_SIDE / 2;
    const top = -L.FRAME_SIDE / 2;
    const area = { x0: left, y0: top, x1: left + L.FRAME_SIDE / 2, y1: top + L.FRAME_SIDE / 2 };
    // Expected: the frame and each child whose box meets the area, from the layout's own numbers.
    let expected = 1;
    for (let slot = 0; slot < every - 1; slot++) {
      const cx = left + 100 + (slot % L.CHILDREN_PER_ROW) * L.CHILD_PITCH;
      const cy = top + 100 + Math.floor(slot / L.CHILDREN_PER_ROW) * L.CHILD_PITCH;
      if (cx - L.CHILD_SIDE / 2 <= area.x1 && cy - L.CHILD_SIDE / 2 <= area.y1) expected++;
    }
    const args = { board_id: board.boardId, area };
    const { isError, data, raw } = await callTool(canvasApiServerFor(board), 'CanvasApi.ViewBoard', args);
    assert.equal(isError, false, JSON.stringify(data));
    const d = data as J;
    assert.equal(d.items, expected);
    const png = pictureOf(raw);
    assert.deepEqual([png.width, png.height], sizeOf(d));
    const childReads = board.requests.filter((r) => r.path.endsWith('/items') && r.query.get('parent_item_id'));
    assert.ok(childReads.length > 0 && childReads.every((r) => r.query.get('parent_item_id') === frameId), 'only the overlapping frame\'s children are read');
    // The first pages, the frame's children, then the pages left further through the board's list.
    const loosePages = board.requests.filter((r) => r.path.endsWith('/items') && !r.query.get('parent_item_id') && !r.query.get('type'));
    assert.equal(loosePages.length + childReads.length, VIEW_READS.areaItemPages);
    const looked = loosePages.length * 50;
    assert.ok(d.partial.some((note: string) => note.startsWith(`area: the board has more than ${looked} items`) && note.includes('children of the frames overlapping it')), JSON.stringify(d.partial));
    assert.ok(board.requests.length <= viewBoardBudget(args).requests, `${board.requests.length} requests`);
  });

  it('an area over too many frames\' items is refused, naming how to narrow, with no picture', async () => {
    const area = { x0: 0, y0: -1250, x1: 3 * L.FRAME_PITCH, y1: 1250 };
    const { isError, data, raw } = await callTool(canvasApiServerFor(board), 'CanvasApi.ViewBoard', { board_id: board.boardId, area });
    assert.equal(isError, true);
    assert.equal((data as J).kind, 'invalid_input');
    assert.equal(raw.content.length, 1);
  });
});

describe('CanvasApi.ViewBoard: an area on a board of 1,500 items outside frames', () => {
  it('the board is read on past the first pages within the area\'s pages: all looked at, nothing said missing', async () => {
    const board = await startFakeBoard({ items: 1_500 });
    try {
      const args = { board_id: board.boardId, area: { x0: 5_000, y0: 5_000, x1: 6_000, y1: 6_000 } };
      const { isError, data } = await callTool(canvasApiServerFor(board), 'CanvasApi.ViewBoard', args);
      assert.equal(isError, false, JSON.stringify(data));
      assert.equal((data as J).items, 0);
      assert.equal((data as J).partial, undefined);
      const itemPages = board.requests.filter((r) => r.path.endsWith('/items') && !r.query.get('type'));
      assert.equal(itemPages.length, 30, '1,500 items in pages of 50');
      assert.ok(board.requests.length <= viewBoardBudget(args).requests);
    } finally {
      await board.close();
    }
  });
});
