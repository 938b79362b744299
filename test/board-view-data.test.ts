/**
 * The board view's data (MCP Apps): ReadBoard, CreateDiagram and ViewBoard put the items they
 * answer for, with their geometry, in the result's `_meta["io.github.toolservers/board"]`, and
 * only for a client that declared the MCP Apps extension: any other client gets exactly the
 * result it always did. Bounded in bytes and text length; its only URL is our item link. On the
 * sandbox, in memory (a 2025-era connection) and over Streamable HTTP (2026-07-28 requests carry
 * their capabilities; a 2025-era HTTP client is stateless, so its capabilities are unknown and it gets the data).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp } from '../src/core/serving/serve.js';
import { buildMcpServer, viewFor } from '../src/core/tools/registry.js';
import { clientShowsViews, UI_EXTENSION_ID, VIEW_DATA_MAX_BYTES, withViewMeta } from '../src/core/tools/result-view.js';
import { BOARD_VIEW_MAX_BYTES, BOARD_VIEW_TEXT_CHARS, boardViewData } from '../src/canvasapi/tasks/board-view-data.js';
import type { PictureItem } from '../src/canvasapi/tasks/board-picture.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, startTestSandbox, sandboxBoards } from './support/harness.js';
import { platform } from './support/sandbox-board.js';
import { htmlLines } from './support/svg-text.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const KEY = 'io.github.toolservers/board';
const UI = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

/** The first token of each answer line: the item's ID. */
const idsOf = (lines: string[]) => lines.map((line) => line.slice(0, line.indexOf(' ')));

function assertBounded(data: J, linkTemplate: string): void {
  assert.ok(Buffer.byteLength(JSON.stringify(data)) <= BOARD_VIEW_MAX_BYTES);
  for (const item of data.items) assert.ok(item.text.length <= BOARD_VIEW_TEXT_CHARS + 1, `${item.id}'s text is cut`);
  assert.equal(data.link_template, linkTemplate);
  // No URL but our own template: nothing the platform gave.
  const urls = JSON.stringify(data).match(/[a-z][a-z0-9+.-]*:\/\//gi) ?? [];
  assert.equal(urls.length, 1, JSON.stringify(urls));
}

it('the copied extension ID is the App SDK’s EXTENSION_ID', () => {
  assert.equal(UI_EXTENSION_ID, EXTENSION_ID);
});

it('the core: the UI capability read as declared; view data over its bound, or on an error, is not sent', () => {
  assert.equal(clientShowsViews(UI), true);
  for (const none of [undefined, null, {}, { extensions: {} }, { extensions: { [EXTENSION_ID]: true } }, { experimental: { [EXTENSION_ID]: {} } }]) assert.equal(clientShowsViews(none), false, JSON.stringify(none));
  const result = { content: [{ type: 'text' as const, text: '{}' }], structuredContent: {} };
  assert.deepEqual(withViewMeta(result, 'board', { a: 1 })._meta, { [KEY]: { a: 1 } });
  assert.equal(withViewMeta(result, 'board', { big: 'x'.repeat(VIEW_DATA_MAX_BYTES) }), result);
  assert.equal(withViewMeta({ ...result, isError: true }, 'board', { a: 1 })._meta, undefined);
  assert.equal(withViewMeta(result, 'board', undefined), result);
});

it('the data is bounded in bytes, texts cut, items kept in the answer’s order, the rest counted', () => {
  const items: PictureItem[] = Array.from({ length: 3_000 }, (_, i) => ({ id: String(10_000 + i), type: 'sticky_note', x: i * 10.123456, y: 0, width: 100, height: 100, text: 'x'.repeat(1_000) }));
  const data = boardViewData(items, [], 'https://example.test/app/board/b/?moveToWidget={item_id}');
  const bytes = Buffer.byteLength(JSON.stringify(data));
  assert.ok(bytes <= BOARD_VIEW_MAX_BYTES, `${bytes} bytes`);
  assert.ok(data.items.length > 100 && data.items.length < items.length);
  assert.deepEqual(data.items.map((item) => item.id), items.slice(0, data.items.length).map((item) => item.id));
  assert.deepEqual(data.omitted, { items: items.length - data.items.length, connectors: 0 });
  assert.equal(data.items[0]!.text, `${'x'.repeat(BOARD_VIEW_TEXT_CHARS)}…`);
  assert.equal(data.items[1]!.x, 10.12, 'coordinates to 2 decimals');
  const few = boardViewData(items.slice(0, 3), [], 't');
  assert.equal(few.omitted, undefined);
  assert.deepEqual(few.area, { x0: -90, y0: -90, x1: 20.25 + 50 + 40, y1: 90 }, 'the items’ box with a 40-unit margin');
});

describe('the board view data on the sandbox', () => {
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

  /** Each item of the data where the board has it (read back from the platform; children from their frame's top-left corner). */
  async function assertPlaced(data: J, boardId: string): Promise<void> {
    const get = async (id: string) => (await (await fetch(`${sandbox.canvasapi.baseUrl}/v2/boards/${boardId}/items/${id}`, { headers: { authorization: `Bearer ${sandbox.canvasapi.token}` } })).json()) as J;
    for (const item of data.items) {
      const record = await get(item.id);
      const parent = record.parent ? await get(String(record.parent.id)) : undefined;
      const relative = parent && record.position.relativeTo === 'parent_top_left';
      const x = relative ? parent.position.x - parent.geometry.width / 2 + record.position.x : record.position.x;
      const y = relative ? parent.position.y - parent.geometry.height / 2 + record.position.y : record.position.y;
      assert.ok(Math.abs(item.x - x) <= 1 && Math.abs(item.y - y) <= 1, `${item.id} at ${item.x},${item.y}, the board has ${x},${y}`);
      assert.ok(Math.abs(item.width - (record.geometry.width ?? record.geometry.height)) <= 1, `${item.id}'s width`);
    }
  }

  async function connected(capabilities?: object): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await buildMcpServer(viewFor(server, { selections: [{ toolsets: ['tasks'] }] })).connect(serverSide);
    const client = new Client({ name: 'board-view-data', version: '1' }, capabilities ? { capabilities } : {});
    await client.connect(clientSide);
    return client;
  }

  it('ReadBoard: no _meta without the UI capability (the same result otherwise); with it, the answer’s items and frames', async () => {
    const plain = await connected();
    const ui = await connected(UI);
    try {
      const args = { board_id: boardNamed('Q3 Launch Plan') };
      const without = await plain.callTool({ name: 'CanvasApi.ReadBoard', arguments: args });
      const withUi = await ui.callTool({ name: 'CanvasApi.ReadBoard', arguments: args });
      assert.equal('_meta' in without, false, 'nothing added for a client without MCP Apps');
      const { _meta: meta, ...rest } = withUi;
      assert.deepEqual(rest, without, 'the text and structuredContent are the same for both');
      assert.deepEqual(Object.keys(meta!), [KEY]);
      const answer = withUi.structuredContent as J;
      const data = meta![KEY] as J;
      const answered = new Set([...idsOf(answer.frames), ...idsOf(answer.items)]);
      assert.ok(answered.size > 5);
      assert.deepEqual(new Set(data.items.map((item: J) => item.id)), answered, 'the answer’s frames and items, each once');
      assert.equal(data.items.length, answered.size);
      assert.equal(data.connectors.length, answer.connectors.length, 'the demo board’s connectors join listed items');
      assertBounded(data, answer.item_link);
      // Each where the board has it: an item in a frame from the frame's top-left corner.
      await assertPlaced(data, args.board_id);
    } finally {
      await plain.close();
      await ui.close();
    }
  });

  it('CreateDiagram: the frame, nodes and connectors it created, where it put them, in their colours', async () => {
    const ui = await connected(UI);
    try {
      const args = {
        board_id: boardNamed('Payments Architecture'),
        nodes: [
          { id: 'a', text: 'Start', shape: 'sticky_note', color: 'light_green' },
          { id: 'b', text: 'Check', shape: 'rhombus', color: '#a6ccf5' },
          { id: 'c', text: 'Done' },
        ],
        edges: [{ from: 'a', to: 'b', label: 'go' }, { from: 'b', to: 'c' }],
        layout: 'flow-down',
        origin_x: 5_000,
        origin_y: 7_000,
        frame_title: 'View test',
      };
      const result = await ui.callTool({ name: 'CanvasApi.CreateDiagram', arguments: args });
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      const answer = result.structuredContent as J;
      const data = result._meta![KEY] as J;
      const created = [answer.frame.id, ...Object.values(answer.node_items)];
      assert.deepEqual(data.items.map((item: J) => item.id).sort(), created.sort());
      assert.equal(data.connectors.length, answer.connector_items.filter((id: unknown) => id !== null).length);
      assertBounded(data, answer.item_link);
      await assertPlaced(data, args.board_id);
      const byText = (text: string) => data.items.find((item: J) => item.text === text);
      assert.equal(byText('Start').fill, '#d5f692', 'light_green');
      assert.equal(byText('Check').fill, '#a6ccf5');
      assert.equal(byText('Check').shape, 'rhombus');
    } finally {
      await ui.close();
    }
  });

  it('CreateDiagram: class boxes and sequence blocks carry the lines and the alignment it sent, as the platform holds them', async () => {
    const ui = await connected(UI);
    try {
      const board = boardNamed('Payments Architecture');
      const classes = ['classDiagram', '  class Customer {', '    +String name', '    +String custNumber', '    +placeOrder() Order', '  }', '  Customer --> Order'].join('\n');
      const sequence = ['sequenceDiagram', '  Alice->>Cache: get', '  alt cache hit', '    Cache-->>Alice: value', '  else miss', '    Alice->>DB: query', '  end'].join('\n');
      const seen: J[] = [];
      for (const [mermaid, x] of [[classes, 9_000], [sequence, 12_000]] as const) {
        const result = await ui.callTool({ name: 'CanvasApi.CreateDiagram', arguments: { board_id: board, mermaid, origin_x: x, origin_y: 9_000 } });
        assert.equal(result.isError, undefined, JSON.stringify(result.content));
        const data = result._meta![KEY] as J;
        assertBounded(data, (result.structuredContent as J).item_link);
        for (const item of data.items.filter((i: J) => i.type === 'shape')) {
          // Read back by raw HTTP: the lines its HTML shows, and where its style puts them (centre and middle are the drawing's default, left out).
          const record = await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${item.id}`);
          assert.deepEqual(item.text ? item.text.split('\n') : [], htmlLines(record.data.content), item.id);
          const h = record.style.textAlign;
          const v = record.style.textAlignVertical;
          assert.equal(item.textAlign, h === 'left' || h === 'right' ? h : undefined, `${item.id}'s textAlign`);
          assert.equal(item.textAlignVertical, v === 'top' || v === 'bottom' ? v : undefined, `${item.id}'s textAlignVertical`);
          seen.push(item);
        }
      }
      const box = seen.find((item) => item.text.startsWith('Customer\n'));
      assert.ok(box && box.text.split('\n').length >= 4 && box.textAlign === 'left' && box.textAlignVertical === 'top', JSON.stringify(box));
      const block = seen.find((item) => item.text === 'alt: cache hit');
      assert.ok(block && block.textAlign === 'left' && block.textAlignVertical === 'top', JSON.stringify(block));
    } finally {
      await ui.close();
    }
  });

  it('ViewBoard: the items and connectors it drew, with colours, over the stated area', async () => {
    const ui = await connected(UI);
    try {
      const result = await ui.callTool({ name: 'CanvasApi.ViewBoard', arguments: { board_id: boardNamed('Sprint 42 Retrospective') } });
      const answer = result.structuredContent as J;
      const data = result._meta![KEY] as J;
      assert.equal(data.items.length, answer.items);
      assert.equal(data.connectors.length, answer.connectors);
      const [x0, y0, x1, y1] = answer.area.split(/,| → /).map(Number);
      assert.ok(Math.abs(data.area.x0 - x0) < 0.1 && Math.abs(data.area.y0 - y0) < 0.1 && Math.abs(data.area.x1 - x1) < 0.1 && Math.abs(data.area.y1 - y1) < 0.1);
      assert.ok(data.items.filter((item: J) => item.type === 'sticky_note').every((item: J) => /^#[0-9a-f]{6}$/.test(item.fill)));
      const read = await ui.callTool({ name: 'CanvasApi.ReadBoard', arguments: { board_id: boardNamed('Sprint 42 Retrospective') } });
      assertBounded(data, (read.structuredContent as J).item_link);
      assert.equal(result.content.length, 2, 'the picture is still there');
    } finally {
      await ui.close();
    }
  });

  for (const { era, options, sent, unknown } of [
    { era: 'modern', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } }, sent: true, unknown: false },
    // Stateless: each request gets a fresh server that never saw the client's initialize, so it may show views.
    { era: 'legacy', options: {}, sent: true, unknown: true },
  ] as const) {
    it(`over Streamable HTTP, a ${era} client with the UI capability ${sent ? 'gets' : 'does not get'} the data; one without ${unknown ? 'too (its capabilities are unknown)' : 'does not'}`, async () => {
      const key = 'board-view-data-key-0123456789abcdef';
      const http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: key, mounts: [{ path: '/mcp', server }] });
      const call = async (capabilities?: object) => {
        const client = new Client({ name: 'board-view-data', version: '1' }, { ...options, ...(capabilities ? { capabilities } : {}) });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp?toolsets=tasks`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
        try {
          assert.equal(client.getProtocolEra(), era);
          return await client.callTool({ name: 'CanvasApi.ReadBoard', arguments: { board_id: boardNamed('Sprint 42 Retrospective') } });
        } finally {
          await client.close();
        }
      };
      try {
        const withUi = await call(UI);
        const without = await call();
        assert.equal(without._meta?.[KEY] !== undefined, unknown);
        assert.equal(withUi._meta?.[KEY] !== undefined, sent);
        const strip = (r: J) => ({ ...r, _meta: Object.fromEntries(Object.entries(r._meta ?? {}).filter(([k]) => k !== KEY)) });
        assert.deepEqual(strip(withUi), strip(without), 'otherwise the same result');
      } finally {
        await http.close();
      }
    });
  }
});
