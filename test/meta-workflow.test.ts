/**
 * Meta mode for real: an agent that sees only FindTools, DescribeTool, CallReadOnlyTool and
 * CallTool does a whole board workflow over stateless HTTP against the whiteboard sandbox,
 * with the same validation as direct calls.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { startTestSandbox } from './support/harness.js';

type Json = Record<string, unknown>;
const KEY = 'meta-workflow-server-key-0123456789';

describe('meta mode: a board workflow through four tools', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  let client: Client;

  before(async () => {
    sandbox = await startTestSandbox();
    const mounts = SERVERS.map((entry) => ({ path: `/${entry.id}/mcp`, server: entry.create({}, { logger: silentLogger, sandbox }) }));
    http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: KEY, mounts });
    client = new Client({ name: 'meta-agent', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/canvasapi/meta/underscore/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
  });
  after(async () => {
    await client.close();
    await http.close();
    await sandbox.close();
  });

  async function call(name: string, args: Json): Promise<{ isError: boolean; data: Json }> {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { text: string }[])[0]?.text ?? '{}';
    return { isError: Boolean(result.isError), data: (result.isError ? (JSON.parse(text) as { error: Json }).error : result.structuredContent) as Json };
  }
  async function ok(name: string, args: Json): Promise<Json> {
    const result = await call(name, args);
    assert.equal(result.isError, false, `${name} ${JSON.stringify(args)} -> ${JSON.stringify(result.data)}`);
    return result.data;
  }
  async function find(query: string): Promise<string[]> {
    return ((await ok('CanvasApi_FindTools', { query })).tools as Json[]).map((tool) => String(tool.name));
  }

  it('lists only the meta tools, named for clients that refuse dots', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ['CanvasApi_FindTools', 'CanvasApi_DescribeTool', 'CanvasApi_CallReadOnlyTool', 'CanvasApi_CallTool']);
    assert.match(client.getInstructions() ?? '', /CanvasApi_FindTools/);
  });

  it('finds, describes, creates, reads, updates, tags and deletes through the meta tools', async () => {
    assert.ok((await find('create board')).slice(0, 3).includes('CanvasApi_CreateCanvasBoard'), 'FindTools finds the board creator');
    const described = await ok('CanvasApi_DescribeTool', { name: 'CanvasApi_CreateCanvasBoard' });
    assert.equal(described.call_with, 'CanvasApi_CallTool');
    assert.ok(((described.input_schema as Json).properties as Json).request_body, 'the schema shows request_body');

    const board = await ok('CanvasApi_CallTool', { name: 'CanvasApi_CreateCanvasBoard', arguments: { mode: 'execute', request_body: JSON.stringify({ name: 'Meta workflow' }) } });
    const boardId = String(board.id);
    assert.ok(boardId);

    assert.ok((await find('add sticky note')).includes('CanvasApi_AddStickyNoteToBoard'));
    const note = await ok('CanvasApi_CallTool', {
      name: 'CanvasApi_AddStickyNoteToBoard',
      arguments: { mode: 'execute', board_id: boardId, request_body: JSON.stringify({ data: { content: 'Hello from meta mode' }, position: { x: 10, y: 20 } }) },
    });
    const noteId = String(note.id);

    const items = await ok('CanvasApi_CallReadOnlyTool', { name: 'CanvasApi_RetrieveBoardItems', arguments: { board_identifier: boardId } });
    assert.ok((items.data as Json[]).some((item) => item.id === noteId), 'the new note is listed');

    await ok('CanvasApi_CallTool', {
      name: 'CanvasApi_UpdateStickyNote',
      arguments: { mode: 'execute', board_id_for_update: boardId, sticky_note_id: noteId, request_body: JSON.stringify({ data: { content: 'Updated' } }) },
    });
    const read = await ok('CanvasApi_CallReadOnlyTool', { name: 'CanvasApi.GetStickyNoteInfo', arguments: { canvas_board_id: boardId, sticky_note_id: noteId } });
    assert.equal((read.data as Json).content, 'Updated', 'a dotted name works through the meta tools too');
    assert.deepEqual(read.position && { x: (read.position as Json).x, y: (read.position as Json).y }, { x: 10, y: 20 }, 'updating the text did not move the note');

    const tag = await ok('CanvasApi_CallTool', { name: 'CanvasApi_CreateBoardTag', arguments: { board_unique_id: boardId, tag_title: 'meta', tag_fill_color: 'cyan' } });
    await ok('CanvasApi_CallTool', { name: 'CanvasApi_AttachTagToItem', arguments: { board_id: boardId, item_identifier: noteId, tag_id: String(tag.id) } });

    await ok('CanvasApi_CallTool', { name: 'CanvasApi_DeleteStickyNote', arguments: { board_id: boardId, sticky_note_id: noteId } });
    await ok('CanvasApi_CallTool', { name: 'CanvasApi_DeleteCanvasBoard', arguments: { board_identifier: boardId } });
    const gone = await call('CanvasApi_CallReadOnlyTool', { name: 'CanvasApi_RetrieveBoardInfo', arguments: { board_identifier: boardId } });
    assert.equal(gone.isError, true);
  });

  it('validates like a direct call and sends nothing on bad input; read-only calls cannot write', async () => {
    const before = sandbox.requests.length;
    const bad = await call('CanvasApi_CallTool', { name: 'CanvasApi_CreateBoardTag', arguments: { board_unique_id: 'b', tag_title: 'x', tag_fill_color: 'pink' } });
    assert.equal(bad.isError, true);
    assert.equal(bad.data.kind, 'invalid_input');
    assert.match(JSON.stringify(bad.data.issues), /tag_fill_color/);
    const write = await call('CanvasApi_CallReadOnlyTool', { name: 'CanvasApi_DeleteCanvasBoard', arguments: { board_identifier: 'b' } });
    assert.equal(write.isError, true);
    assert.match(String((write.data.issues as Json[])[0]?.problem), /changes data/);
    const unknown = await call('CanvasApi_DescribeTool', { name: 'CanvasApi_CreateCanvasBord' });
    assert.match(String((unknown.data.issues as Json[])[0]?.problem), /Did you mean CanvasApi_CreateCanvasBoard\?/);
    assert.equal(sandbox.requests.length, before, 'nothing reached the platform');
  });
});
