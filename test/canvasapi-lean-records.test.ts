/**
 * Lean answers: CanvasApi lists and write echoes leave out the bookkeeping that repeats on every
 * record (creator, modifier, timestamps, default styles); single-item reads keep it, and so does
 * every answer with the full-records setting (flag, TOOLSERVERS_FULL_RECORDS, or per HTTP request
 * X-Toolservers-Full-Records). MEASURE=1 prints the token figures quoted in docs/tasks.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { countTokens } from '../src/core/tools/context-size.js';
import { silentLogger } from '../src/core/logger.js';
import { executeTool, findTool, type AnyToolServer } from '../src/core/tools/registry.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { UNTRUSTED_NOTICE } from '../src/core/tools/untrusted.js';
import { CANVASAPI_INSTRUCTIONS } from '../src/canvasapi/index.js';
import { BOOKKEEPING_FIELDS, DEFAULT_STYLES, leanAnswer } from '../src/canvasapi/lean-records.js';
import { FULL_RECORDS_ENV, resolveCanvasApiSettings } from '../src/canvasapi/settings.js';
import { CANVASAPI_INFO } from '../src/server-info.js';
import { settingsFrom } from '../src/serve-command.js';
import { canvasApiEntry } from '../src/servers/canvasapi.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, outcomeOf, startTestSandbox } from './support/harness.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const SERVER_KEY = 'lean-records-test-key-0123456789';

/** The bookkeeping fields a record carries. */
function bookkeepingOf(record: J): string[] {
  return BOOKKEEPING_FIELDS.filter((field) => record[field] !== undefined);
}

/** Style keys whose value is the platform's default for the record's type. */
function defaultStyleKeys(record: J): string[] {
  const defaults = DEFAULT_STYLES[record.type] ?? {};
  return Object.entries(record.style ?? {})
    .filter(([key, value]) => defaults[key] !== undefined && String(value) === defaults[key])
    .map(([key]) => key);
}

describe('CanvasApi lean answers', () => {
  let sandbox: RunningSandbox;
  let lean: AnyToolServer;
  let full: AnyToolServer;
  let board = '';
  let stickyId = '';
  let connectorId = '';

  const raw = async (server: AnyToolServer, name: string, args: Record<string, unknown>) => {
    const result = await executeTool(server, findTool(server, `CanvasApi.${name}`)!, args, new AbortController().signal);
    const { data, isError } = outcomeOf(result);
    assert.equal(isError, false, `${name}: ${JSON.stringify(data)}`);
    return { data: data as J, text: (result.content[0] as { text: string }).text };
  };
  const call = async (server: AnyToolServer, name: string, args: Record<string, unknown>): Promise<J> => (await raw(server, name, args)).data;

  const platform = async (method: string, path: string, body?: unknown): Promise<J> => {
    const response = await fetch(`${sandbox.canvasapi.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    assert.ok(response.ok, `${method} ${path}: ${response.status}`);
    return response.json();
  };

  const stickies = (count: number, from = 0) =>
    Array.from({ length: count }, (_, n) => ({ type: 'sticky_note', data: { content: `<p>Idea ${from + n}: ask five customers</p>` }, style: { fillColor: 'light_green' }, position: { x: (n % 10) * 240, y: Math.floor(n / 10) * 240 } }));

  before(async () => {
    sandbox = await startTestSandbox();
    lean = canvasApiServerFor(sandbox.canvasapi);
    full = canvasApiServerFor(sandbox.canvasapi, { fullRecords: true });
    board = (await platform('POST', '/v2/boards', { name: 'Lean answers' })).id;
    for (let from = 0; from < 50; from += 20) await platform('POST', `/v2/boards/${board}/items/bulk`, stickies(Math.min(20, 50 - from), from));
    const items = (await platform('GET', `/v2/boards/${board}/items?limit=10`)).data;
    stickyId = items[0].id;
    connectorId = (await platform('POST', `/v2/boards/${board}/connectors`, { startItem: { id: items[0].id }, endItem: { id: items[1].id } })).id;
  });

  after(async () => {
    await sandbox?.close();
  });

  it('lists leave out creator, modifier, timestamps and default styles; the platform sent them', async () => {
    const page = await call(lean, 'RetrieveBoardItems', { board_identifier: board, items_limit: 50 });
    assert.equal(page.data.length, 50);
    for (const item of page.data) assert.deepEqual(bookkeepingOf(item), [], `item ${item.id}`);
    assert.ok(page.data.every((item: J) => item.data?.content && item.position && item.id), 'what an agent acts on stays');
    const upstream = await platform('GET', `/v2/boards/${board}/items?limit=50`);
    assert.deepEqual(bookkeepingOf(upstream.data[0]), [...BOOKKEEPING_FIELDS], 'the platform does send them');

    const connectors = await call(lean, 'GetBoardConnectors', { board_identifier: board, result_limit: 10 });
    assert.equal(connectors.data[0].id, connectorId);
    assert.deepEqual(bookkeepingOf(connectors.data[0]), []);
    assert.deepEqual(defaultStyleKeys(connectors.data[0]), [], 'default connector styles are gone');
    assert.ok(connectors.data[0].style?.color, 'a style value that is not a dropped default stays');

    const boards = await call(lean, 'RetrieveUserBoards', {});
    assert.ok(boards.data.length > 0);
    for (const record of boards.data) assert.deepEqual(bookkeepingOf(record), [], `board ${record.id}`);
  });

  it('write echoes (one item, a bulk create, an update) leave them out; what was written stays', async () => {
    const created = await call(lean, 'AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: { data: { content: 'Echo me' }, style: { fillColor: 'yellow' } } });
    assert.deepEqual(bookkeepingOf(created), []);
    assert.deepEqual(defaultStyleKeys(created), [], 'textAlign center and textAlignVertical top are the defaults');
    assert.equal(created.data.content, 'Echo me');
    assert.equal(created.style.fillColor, 'yellow', 'a chosen colour stays');

    const bulk = await call(lean, 'AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: board, request_body: stickies(12, 100) });
    assert.equal(bulk.data.length, 12);
    for (const item of bulk.data) assert.deepEqual(bookkeepingOf(item), []);

    const updated = await call(lean, 'UpdateStickyNote', { mode: 'execute', board_id_for_update: board, sticky_note_id: created.id, request_body: { data: { content: 'Edited' } } });
    assert.deepEqual(bookkeepingOf(updated), []);
    assert.equal(updated.data.content, 'Edited');
  });

  it("a value the call set stays in its echo even at the default: a connector's startStrokeCap none", async () => {
    const [first, second] = (await platform('GET', `/v2/boards/${board}/items?limit=10`)).data;
    const created = await call(lean, 'AddConnectorToBoard', {
      mode: 'execute',
      board_unique_id: board,
      request_body: { startItem: { id: first.id }, endItem: { id: second.id }, style: { startStrokeCap: 'none', strokeColor: '#1a1a1a' } },
    });
    assert.equal(created.style.startStrokeCap, 'none', 'set by the caller, so shown although it is the default');
    assert.equal(created.style.strokeColor, '#1a1a1a');
    assert.equal(created.style.endStrokeCap, undefined, 'a default the caller did not set is still left out');
    assert.deepEqual(bookkeepingOf(created), []);

    const updated = await call(lean, 'UpdateConnectorOnBoard', { mode: 'execute', board_identifier: board, connector_identifier: created.id, request_body: { style: { strokeWidth: '1.0', endStrokeCap: 'stealth' } } });
    assert.equal(updated.style.strokeWidth, '1.0');
    assert.equal(updated.style.endStrokeCap, 'stealth');
    assert.equal(updated.style.startStrokeCap, undefined, 'set by an earlier call, not this one: left out as a default');
  });

  it('shapes and sticky notes keep the default styles their call set', async () => {
    const shape = await call(lean, 'AddShapeToCanvasBoard', {
      mode: 'execute',
      board_id: board,
      request_body: { data: { shape: 'rectangle', content: 'Box' }, style: { fontSize: '14', borderStyle: 'normal', fillColor: '#ffffff' } },
    });
    assert.equal(shape.style.fontSize, '14');
    assert.equal(shape.style.borderStyle, 'normal');
    assert.equal(shape.style.fillColor, '#ffffff');
    assert.deepEqual(defaultStyleKeys(shape).sort(), ['borderStyle', 'fontSize'], 'only the defaults this call set');

    const sticky = await call(lean, 'AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: { data: { content: 'Centred' }, style: { textAlign: 'center' } } });
    assert.equal(sticky.style.textAlign, 'center');
    assert.equal(sticky.style.textAlignVertical, undefined);
    // (A bulk create's answer carries no styles; its pairing of body and items is checked on the rule alone below.)
  });

  it('property: any default-valued style set in the body survives in the echo, for every styled type (sandbox)', async () => {
    const [first, second] = (await platform('GET', `/v2/boards/${board}/items?limit=10`)).data;
    const creates: Record<string, (style: Record<string, string>) => [string, Record<string, unknown>]> = {
      sticky_note: (style) => ['AddStickyNoteToBoard', { board_id: board, request_body: { data: { content: 'p' }, style } }],
      shape: (style) => ['AddShapeToCanvasBoard', { board_id: board, request_body: { data: { shape: 'rectangle' }, style } }],
      text: (style) => ['AddTextToCanvasBoard', { board_identifier: board, request_body: { data: { content: 't' }, style } }],
      connector: (style) => ['AddConnectorToBoard', { board_unique_id: board, request_body: { startItem: { id: first.id }, endItem: { id: second.id }, style } }],
    };
    const typeAndSubset = fc.constantFrom(...Object.keys(creates)).chain((type) => fc.tuple(fc.constant(type), fc.subarray(Object.keys(DEFAULT_STYLES[type]!))));
    await fc.assert(
      fc.asyncProperty(typeAndSubset, async ([type, keys]) => {
        const style = Object.fromEntries(keys.map((key) => [key, DEFAULT_STYLES[type]![key]!]));
        const [tool, args] = creates[type]!(style);
        const echo = await call(lean, tool, { mode: 'execute', ...args });
        assert.deepEqual(defaultStyleKeys(echo).sort(), [...keys].sort(), `${tool} with ${JSON.stringify(style)}: ${JSON.stringify(echo.style)}`);
        assert.deepEqual(bookkeepingOf(echo), []);
      }),
      { numRuns: 40 },
    );
  });

  it('the server instructions say where the left-out fields are', () => {
    assert.match(CANVASAPI_INSTRUCTIONS, /Lists and the answers of creates and updates leave out creator, modifier and timestamps/);
  });

  it('single-item reads keep every field', async () => {
    const item = await call(lean, 'GetBoardItemInfo', { board_identifier: board, item_identifier: stickyId });
    assert.deepEqual(bookkeepingOf(item), [...BOOKKEEPING_FIELDS]);
    const sticky = await call(lean, 'GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: stickyId });
    assert.deepEqual(bookkeepingOf(sticky), [...BOOKKEEPING_FIELDS]);
    assert.deepEqual(defaultStyleKeys(sticky).sort(), ['textAlign', 'textAlignVertical']);
    const connector = await call(lean, 'RetrieveBoardConnectorInfo', { board_unique_identifier: board, connector_unique_id: connectorId });
    assert.deepEqual(bookkeepingOf(connector), [...BOOKKEEPING_FIELDS]);
    assert.ok(defaultStyleKeys(connector).length > 0);
    const info = await call(lean, 'RetrieveBoardInfo', { board_unique_identifier: board });
    assert.deepEqual(bookkeepingOf(info), [...BOOKKEEPING_FIELDS]);
  });

  it('with the full-records setting, lists and echoes keep every field', async () => {
    const page = await call(full, 'RetrieveBoardItems', { board_identifier: board, items_limit: 10 });
    for (const item of page.data) assert.deepEqual(bookkeepingOf(item), [...BOOKKEEPING_FIELDS]);
    const created = await call(full, 'AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: { data: { content: 'Full echo' } } });
    assert.deepEqual(bookkeepingOf(created), [...BOOKKEEPING_FIELDS]);
    assert.deepEqual(defaultStyleKeys(created).sort(), ['textAlign', 'textAlignVertical']);
  });

  it('the setting comes from the flag or TOOLSERVERS_FULL_RECORDS; a wrong value is refused by name', () => {
    assert.ok(CANVASAPI_INFO.flags.some((flag) => flag.flags === '--full-records'));
    assert.equal(settingsFrom({ fullRecords: true }).fullRecords, true);
    assert.equal(resolveCanvasApiSettings({ fullRecords: true }, {}).fullRecords, true);
    assert.equal(resolveCanvasApiSettings({}, { [FULL_RECORDS_ENV]: 'yes' }).fullRecords, true);
    assert.equal(resolveCanvasApiSettings({}, { [FULL_RECORDS_ENV]: 'false' }).fullRecords, false);
    assert.equal(resolveCanvasApiSettings({}, {}).fullRecords, false);
    assert.throws(() => resolveCanvasApiSettings({}, { [FULL_RECORDS_ENV]: 'sometimes' }), (error: Error) => error.message.includes(FULL_RECORDS_ENV) && error.message.includes('true or false') && error.message.includes('"sometimes"'));
  });

  it('TOOLSERVERS_FULL_RECORDS holds against the sandbox too, whose credentials come from itself', async () => {
    const built = canvasApiEntry.create({}, { logger: silentLogger, sandbox, env: { [FULL_RECORDS_ENV]: 'true' } });
    const page = await call(built, 'RetrieveBoardItems', { board_identifier: board, items_limit: 10 });
    for (const item of page.data) assert.deepEqual(bookkeepingOf(item), [...BOOKKEEPING_FIELDS]);
    const plain = canvasApiEntry.create({}, { logger: silentLogger, sandbox, env: {} });
    for (const item of (await call(plain, 'RetrieveBoardItems', { board_identifier: board, items_limit: 10 })).data) assert.deepEqual(bookkeepingOf(item), []);
  });

  describe('per HTTP request', () => {
    let http: RunningHttpServer;
    let endpoint = '';

    before(async () => {
      http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: SERVER_KEY, mounts: [{ path: '/canvasapi/mcp', server: lean }] });
      endpoint = `${http.url}/canvasapi/mcp`;
    });

    after(async () => {
      await http?.close();
    });

    const listOver = async (headers: Record<string, string>): Promise<J> => {
      const client = new Client({ name: 'lean-records-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}`, ...headers } } }));
      try {
        const result = await client.callTool({ name: 'CanvasApi.RetrieveBoardItems', arguments: { board_identifier: board, items_limit: 10 } });
        assert.notEqual(result.isError, true);
        return result.structuredContent;
      } finally {
        await client.close();
      }
    };

    it('X-Toolservers-Full-Records: true keeps every field for that request only', async () => {
      const fullPage = await listOver({ 'X-Toolservers-Full-Records': 'true' });
      for (const item of fullPage.data) assert.deepEqual(bookkeepingOf(item), [...BOOKKEEPING_FIELDS]);
      const leanPage = await listOver({});
      for (const item of leanPage.data) assert.deepEqual(bookkeepingOf(item), []);
    });

    it('a header value other than true or false is refused with 400, naming the header', async () => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { Authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'X-Toolservers-Full-Records': 'maybe' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { error: string };
      assert.match(body.error, /X-Toolservers-Full-Records header must be true or false \(got "maybe"\)/);
    });
  });

  it('a page of 50 sticky notes and the echo of 12 cost far fewer tokens lean than full', async () => {
    const notice = JSON.stringify(UNTRUSTED_NOTICE);
    // A board of its own, so that the figures do not depend on what other tests added.
    const measured = (await platform('POST', '/v2/boards', { name: 'Measured' })).id;
    for (let from = 0; from < 50; from += 20) await platform('POST', `/v2/boards/${measured}/items/bulk`, stickies(Math.min(20, 50 - from), from));
    const page = async (server: AnyToolServer) => countTokens((await raw(server, 'RetrieveBoardItems', { board_identifier: measured, items_limit: 50 })).text);
    const echo = async (server: AnyToolServer) => countTokens((await raw(server, 'AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: measured, request_body: stickies(12, 200) })).text);
    const [pageLean, pageFull, echoLean, echoFull] = [await page(lean), await page(full), await echo(lean), await echo(full)];
    if (process.env.MEASURE) console.log(JSON.stringify({ pageLean, pageFull, echoLean, echoFull, noticeTokens: await countTokens(notice) }));
    assert.ok(pageLean < pageFull * 0.75, `page: ${pageLean} lean vs ${pageFull} full`);
    assert.ok(echoLean < echoFull * 0.75, `echo: ${echoLean} lean vs ${echoFull} full`);
  });
});

describe('lean answers keep what the call set (the rule alone)', () => {
  const field = fc.constantFrom(...BOOKKEEPING_FIELDS);
  const typed = fc.constantFrom(...Object.keys(DEFAULT_STYLES));

  it('property: every field path the body set stays; every default or bookkeeping field it did not set goes', () => {
    fc.assert(
      fc.property(typed, fc.nat(), fc.nat(), fc.uniqueArray(field), fc.boolean(), (type, styleMask, otherMask, bookkeepingSet, bulk) => {
        const defaults = DEFAULT_STYLES[type]!;
        const keys = Object.keys(defaults);
        const setStyle = keys.filter((_, i) => (styleMask >> i) & 1);
        const record: J = { id: '1', type, style: { ...defaults, color: '#123456' }, data: { content: 'x' } };
        for (const name of BOOKKEEPING_FIELDS) record[name] = name.endsWith('At') ? '2026-01-01T00:00:00Z' : { id: '9' };
        // The body sets some default styles, maybe a non-default one, and (however unlikely) some bookkeeping field.
        const body: J = { data: { content: 'x' }, style: Object.fromEntries(setStyle.map((key) => [key, defaults[key]])) };
        if (otherMask & 1) body.style.color = '#123456';
        for (const name of bookkeepingSet) body[name] = record[name];
        const answer = bulk ? leanAnswer({ data: [record, record] }, [{}, body]) : leanAnswer(record, body);
        const echo: J = bulk ? (answer.data as J[])[1] : answer;
        assert.deepEqual(defaultStyleKeys(echo).sort(), [...setStyle].sort());
        assert.equal(echo.style.color, '#123456', 'a value that is no default always stays');
        assert.deepEqual(bookkeepingOf(echo).sort(), [...bookkeepingSet].sort());
        if (bulk) assert.deepEqual(defaultStyleKeys((answer.data as J[])[0]), [], 'the item whose body set nothing is lean');
      }),
      { numRuns: 500 },
    );
  });
});
