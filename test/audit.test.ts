/**
 * The audit line (core/tools/audit.ts, docs/operations.md "Audit"): a session of mixed calls by two
 * users signed in through OAuth leaves exactly one line per write, each with its user, its target
 * IDs and its outcome, and nothing of what was written; `all` adds the reads, `off` writes none;
 * key mode names `key` and the address, a direct call `local`; a meta call names the tool it ran.
 * The serving commands audit writes by default, over stdio too.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createLogger, silentLogger } from '../src/core/logger.js';
import { SettingsError } from '../src/core/settings.js';
import { auditToolCalls, resolveAuditMode, type AuditMode } from '../src/core/tools/audit.js';
import { serveOverHttp } from '../src/core/serving/serve.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { CLI } from './support/cli.js';
import { callTool, canvasApiServerFor, incidentOpsServerFor, jsonResponse, scriptedFetch, startTestSandbox } from './support/harness.js';
import { callJson, connectWithOAuth, MemoryOAuthProvider, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';

type Json = Record<string, unknown>;

/** Audit lines written while `work` runs, parsed; the logger is at `warn`, as a stdio server's is. */
async function auditedLines(mode: AuditMode, work: () => Promise<void>): Promise<{ lines: Json[]; text: string }> {
  let text = '';
  const logger = createLogger('warn', { write: (line: string) => void (text += line) });
  const stop = auditToolCalls(mode, logger);
  try {
    await work();
  } finally {
    stop();
  }
  return { lines: text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Json), text };
}

const SECRET_TEXT = 'Quarterly layoffs plan, do not share';
const DIAGRAM_TEXT = 'Confidential merger step';
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;

/** A CanvasApi member other than the demo user: id and e-mail. */
async function otherMember(sandbox: RunningSandbox): Promise<{ id: string; email: string }> {
  const demo = sandbox.canvasapi.demo!;
  const response = await fetch(`${sandbox.canvasapi.baseUrl}/v2/orgs/${demo.organizationId}/members?limit=20`, { headers: { authorization: `Bearer ${sandbox.canvasapi.token}` } });
  const { data } = (await response.json()) as { data: { id: string; email: string; role: string }[] };
  const me = (await (await fetch(`${sandbox.canvasapi.baseUrl}/v1/oauth-token`, { headers: { authorization: `Bearer ${sandbox.canvasapi.token}` } })).json()) as { user: { id: string } };
  const other = data.find((member) => member.id !== me.user.id && member.role !== 'organization_external_user');
  assert.ok(other, 'the sandbox has a second member');
  return other;
}

describe('audit lines of an OAuth session with two users', () => {
  let sandbox: RunningSandbox;
  let server: OAuthTestServer;

  before(async () => {
    sandbox = await startTestSandbox();
    server = await startOAuthServer(sandbox);
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it('finds exactly the writes, each with its user, target IDs and outcome, and no content', async () => {
    const board = sandbox.canvasapi.demo!.boardIds[0]!;
    const bobMember = await otherMember(sandbox);
    const aliceSignIn = new MemoryOAuthProvider();
    const alice = await connectWithOAuth(server.endpoint('canvasapi'), aliceSignIn);
    // The same user's second client, with the task tools (her token, no second sign-in).
    const aliceTasks = new Client({ name: 'audit-test-tasks', version: '1.0.0' });
    await aliceTasks.connect(new StreamableHTTPClientTransport(new URL(server.endpoint('canvasapi')), { authProvider: aliceSignIn, requestInit: { headers: { 'x-toolservers-toolsets': 'all,tasks' } } }));
    const bob = await connectWithOAuth(server.endpoint('canvasapi'), new MemoryOAuthProvider(bobMember.email));
    const writes: { who: string; tool: string; outcome: string; targets: Json; changed: string }[] = [];
    let aliceId = '';
    const { lines, text } = await auditedLines('writes', async () => {
      try {
        aliceId = ((await callJson(alice, 'CanvasApi.GetAccessTokenInfo')).data.user as Json).id as string;
        assert.ok((await callJson(alice, 'CanvasApi.GetBoardItems', { board_identifier: board })).isError === false);
        const note = await callJson(alice, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: { data: { content: SECRET_TEXT } } });
        assert.equal(note.isError, false, JSON.stringify(note.data));
        const noteId = note.data.id as string;
        writes.push({ who: 'alice', tool: 'CanvasApi.AddStickyNoteToBoard', outcome: 'ok', targets: { board_id: board, created_id: noteId }, changed: 'yes' });
        assert.equal((await callJson(alice, 'CanvasApi.GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: noteId })).isError, false);
        // A two-mode tool asked for its schema sends nothing: on record, having changed nothing.
        assert.equal((await callJson(alice, 'CanvasApi.UpdateStickyNote', { mode: 'get_request_schema' })).isError, false);
        writes.push({ who: 'alice', tool: 'CanvasApi.UpdateStickyNote', outcome: 'ok', targets: {}, changed: 'no' });
        const missing = await callJson(alice, 'CanvasApi.DeleteBoardFrame', { board_id: board, frame_id: '3458764999999999999' });
        assert.equal(missing.isError, true);
        writes.push({ who: 'alice', tool: 'CanvasApi.DeleteBoardFrame', outcome: 'not_found', targets: { board_id: board, item_id: '3458764999999999999' }, changed: 'no' });
        // An ID that is an e-mail address is masked.
        const reset = await callJson(alice, 'CanvasApi.ResetUserSessions', { user_email_for_session_reset: bobMember.email });
        assert.equal(reset.isError, false, JSON.stringify(reset.data));
        writes.push({ who: 'alice', tool: 'CanvasApi.ResetUserSessions', outcome: 'ok', targets: { email: '[e-mail]' }, changed: 'yes' });
        const diagram = await callJson(aliceTasks, 'CanvasApi.CreateDiagram', { board_id: board, nodes: [{ id: 'a', text: DIAGRAM_TEXT }, { id: 'b', text: 'Next' }], edges: [{ from: 'a', to: 'b' }], layout: 'flow-down', origin_x: 90_000, origin_y: 90_000 });
        assert.equal(diagram.isError, false, JSON.stringify(diagram.data));
        writes.push({ who: 'alice', tool: 'CanvasApi.CreateDiagram', outcome: 'ok', targets: { board_id: board }, changed: 'yes' });
        assert.equal((await callJson(bob, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: board })).isError, false);
        // Who deleted that note, and when: Bob.
        const deleted = await callJson(bob, 'CanvasApi.DeleteStickyNote', { board_id: board, sticky_note_id: noteId });
        assert.equal(deleted.isError, false, JSON.stringify(deleted.data));
        writes.push({ who: 'bob', tool: 'CanvasApi.DeleteStickyNote', outcome: 'ok', targets: { board_id: board, item_id: noteId }, changed: 'yes' });
      } finally {
        await alice.close();
        await aliceTasks.close();
        await bob.close();
      }
    });
    assert.deepEqual(
      lines.map((line) => line.tool),
      writes.map((write) => write.tool),
      'one line per write, none per read',
    );
    const users = { alice: `canvasapi:${aliceId}`, bob: `canvasapi:${bobMember.id}` };
    const requestIds = new Set<unknown>();
    lines.forEach((line, index) => {
      const expected = writes[index]!;
      assert.equal(line.msg, 'audit');
      assert.equal(line.level, 30, 'info');
      assert.equal(typeof line.time, 'number');
      assert.equal(line.user, users[expected.who as 'alice' | 'bob'], `${expected.tool}: its user`);
      assert.equal(line.server, 'canvasapi');
      assert.equal(line.access, 'write');
      assert.equal(line.outcome, expected.outcome, `${expected.tool}: its outcome`);
      assert.equal(line.changed, expected.changed, `${expected.tool}: whether it changed anything`);
      assert.equal(typeof line.request_id, 'string');
      requestIds.add(line.request_id);
      const targets = (line.targets ?? {}) as Json;
      for (const [key, value] of Object.entries(expected.targets)) assert.equal(targets[key], value, `${expected.tool}: targets.${key}`);
    });
    assert.equal(requestIds.size, lines.length, 'each line names its own request');
    const diagramLine = lines.find((line) => line.tool === 'CanvasApi.CreateDiagram')!;
    assert.equal(((diagramLine.targets as Json).created_ids as unknown[]).length, 3, 'the two nodes and the connector it created');
    assert.ok(!text.includes(SECRET_TEXT) && !text.includes(DIAGRAM_TEXT) && !text.includes('Next"'), 'no content');
    assert.doesNotMatch(text, EMAIL, 'no e-mail address');
    assert.ok(!text.includes(bobMember.email));
  });
});

describe('audit modes, key mode, direct and meta calls', () => {
  let sandbox: RunningSandbox;

  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  it('all writes a line for reads too; off writes none; a direct call is local', async () => {
    const server = canvasApiServerFor(sandbox.canvasapi);
    const board = sandbox.canvasapi.demo!.boardIds[0]!;
    const session = async () => {
      await callTool(server, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: board });
      await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, max_items: 5 });
      await callTool(server, 'CanvasApi.AddBoardFrame', { board_id: board, frame_title: SECRET_TEXT });
    };
    const all = await auditedLines('all', session);
    assert.deepEqual(all.lines.map((line) => [line.tool, line.access, line.user, line.outcome]), [
      ['CanvasApi.RetrieveBoardInfo', 'read', 'local', 'ok'],
      ['CanvasApi.ReadBoard', 'read', 'local', 'ok'],
      ['CanvasApi.AddBoardFrame', 'write', 'local', 'ok'],
    ]);
    assert.deepEqual(all.lines[1]!.targets, { board_id: board });
    assert.equal(all.lines[0]!.changed, undefined, 'a read says nothing of changes');
    assert.ok(!all.text.includes(SECRET_TEXT));
    const writes = await auditedLines('writes', session);
    assert.deepEqual(writes.lines.map((line) => line.tool), ['CanvasApi.AddBoardFrame']);
    const off = await auditedLines('off', session);
    assert.equal(off.text, '');
  });

  it('names the IDs an IncidentOps tool read, with all', async () => {
    const server = incidentOpsServerFor(sandbox);
    const listed = await callTool(server, 'IncidentOps.ListIncidents', { limit: 1 });
    const incident = (listed.data.incidents as Json[])[0]!.id as string;
    const { lines } = await auditedLines('all', async () => {
      await callTool(server, 'IncidentOps.GetIncident', { incident_id: incident });
    });
    assert.deepEqual(lines.map((line) => [line.server, line.tool, line.access, line.targets, line.changed]), [['incidentops', 'IncidentOps.GetIncident', 'read', { incident_id: incident }, undefined]]);
  });

  it('names `key`, the address and the client in key mode, and the tool a meta call ran', async () => {
    const server = canvasApiServerFor(sandbox.canvasapi);
    const serverKey = 'audit-test-key-0123456789abcdef';
    const http = await serveOverHttp({ host: '127.0.0.1', port: 0, mounts: [{ path: '/mcp', server, view: { selections: [{ profile: 'meta' }] } }], logger: silentLogger, auth: { kind: 'key', serverKey, keyLocation: 'test' } });
    const board = sandbox.canvasapi.demo!.boardIds[0]!;
    const client = new Client({ name: 'audit-test', version: '1.0.0' });
    try {
      const { lines } = await auditedLines('writes', async () => {
        await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serverKey}`, 'x-toolservers-caller': 'ci-bot' } } }));
        const read = await callJson(client, 'CanvasApi.CallReadOnlyTool', { name: 'RetrieveBoardInfo', arguments: { board_unique_identifier: board } });
        assert.equal(read.isError, false, JSON.stringify(read.data));
        const made = await callJson(client, 'CanvasApi.CallTool', { name: 'AddBoardFrame', arguments: { board_id: board, frame_title: SECRET_TEXT } });
        assert.equal(made.isError, false, JSON.stringify(made.data));
        // A meta call of a read through CallTool is a read: no line.
        assert.equal((await callJson(client, 'CanvasApi.CallTool', { name: 'RetrieveBoardInfo', arguments: { board_unique_identifier: board } })).isError, false);
      });
      assert.equal(lines.length, 1, JSON.stringify(lines));
      const [line] = lines as [Json];
      assert.equal(line.tool, 'CanvasApi.AddBoardFrame');
      assert.equal(line.via, 'CanvasApi.CallTool');
      assert.equal(line.user, 'key');
      assert.equal(line.address, '127.0.0.1');
      assert.equal(line.client, 'ci-bot');
      assert.equal((line.targets as Json).board_id, board);
      assert.equal(typeof (line.targets as Json).created_id, 'string');
    } finally {
      await client.close();
      await http.close();
    }
  });

  it('says a failed write changed nothing when the platform refused it, and maybe when it may have been carried out', async () => {
    const board = sandbox.canvasapi.demo!.boardIds[0]!;
    const answering = (status: number) =>
      canvasApiServerFor(sandbox.canvasapi, { fetch: scriptedFetch(() => jsonResponse(status, { status, message: 'no' })).fetch });
    const { lines } = await auditedLines('writes', async () => {
      await callTool(answering(400), 'CanvasApi.AddBoardFrame', { board_id: board, frame_title: 'x' });
      await callTool(answering(500), 'CanvasApi.AddBoardFrame', { board_id: board, frame_title: 'x' });
      await callTool(answering(500), 'CanvasApi.DeleteBoardFrame', { board_id: board, frame_id: '3458764000000000001' });
      await callTool(answering(200), 'CanvasApi.AddBoardFrame', { board_id: board, frame_title: 'x', frame_colour: 'red' });
    });
    assert.deepEqual(lines.map((line) => [line.tool, line.outcome, line.changed]), [
      ['CanvasApi.AddBoardFrame', 'bad_request', 'no'],
      ['CanvasApi.AddBoardFrame', 'upstream_error', 'maybe'],
      ['CanvasApi.DeleteBoardFrame', 'upstream_error', 'maybe'],
      ['CanvasApi.AddBoardFrame', 'invalid_input', 'no'],
    ]);
    assert.equal(lines[3]!.targets, undefined, 'arguments that did not pass the check name nothing');
  });

  it('reads the setting: writes by default, all, off, anything else refused', () => {
    assert.equal(resolveAuditMode(undefined), 'writes');
    assert.equal(resolveAuditMode(' '), 'writes');
    assert.equal(resolveAuditMode('ALL'), 'all');
    assert.equal(resolveAuditMode('off'), 'off');
    assert.throws(() => resolveAuditMode('reads'), (error: unknown) => error instanceof SettingsError && /writes, all, off/.test(error.message));
  });
});

describe('the serving commands audit writes by default', () => {
  /** `toolservers canvasapi --sandbox` over stdio: one read and one write; its stderr. */
  async function stdioSession(): Promise<string> {
    const home = mkdtempSync(path.join(tmpdir(), 'toolservers-audit-'));
    try {
      const calls = [
        { name: 'CanvasApi.GetAccessTokenInfo', arguments: {} },
        { name: 'CanvasApi.CreateCanvasBoard', arguments: { mode: 'execute', request_body: { name: SECRET_TEXT } } },
      ];
      const messages = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'audit-test', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        ...calls.map((params, index) => ({ jsonrpc: '2.0', id: index + 2, method: 'tools/call', params })),
      ];
      return await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [CLI, 'canvasapi', '--sandbox'], { env: { PATH: process.env.PATH ?? '', HOME: home, TOOLSERVERS_CREDENTIALS_FILE: path.join(home, 'c.json') } });
        let out = '';
        let err = '';
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes(`"id":${calls.length + 1}`)) child.stdin.end();
        });
        child.on('error', reject);
        child.on('exit', () => {
          clearTimeout(timer);
          resolve(err);
        });
        child.stdin.write(messages.map((message) => JSON.stringify(message)).join('\n') + '\n');
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  it('over stdio, at its quiet log level: one line for the write, none for the read', async () => {
    const stderr = await stdioSession();
    const lines = stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Json);
    assert.deepEqual(lines.map((line) => [line.msg, line.tool, line.user, line.outcome, line.changed]), [['audit', 'CanvasApi.CreateCanvasBoard', 'local', 'ok', 'yes']], stderr);
    assert.equal(typeof (lines[0]!.targets as Json).created_id, 'string');
    assert.ok(!stderr.includes(SECRET_TEXT));
  });

  it('refuses an unknown mode before serving (exit code 2, one line)', async () => {
    const code = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--port', '0'], { env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), TOOLSERVERS_AUDIT: 'everything' } });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('exit', (exitCode) => resolve({ code: exitCode, stderr }));
    });
    assert.equal(code.code, 2, code.stderr);
    assert.equal(code.stderr.trim().split('\n').length, 1, code.stderr);
    assert.match(code.stderr, /--audit \(TOOLSERVERS_AUDIT\) must be writes, all, off/);
  });
});
