/**
 * End to end through the official MCP client: stdio (a real child process) and Streamable HTTP,
 * each with a 2025-era client (initialize) and a 2026-07-28 client (stateless, pinned).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { pino } from 'pino';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { incidentOpsServerFor, startTestSandbox } from './support/harness.js';

type Json = Record<string, unknown>;
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ERAS = [
  { era: 'legacy', options: {} },
  { era: 'modern', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

function newClient(options: object): Client {
  return new Client({ name: 'toolservers-e2e', version: '1.0.0' }, options);
}

async function call(client: Client, name: string, args: Json = {}): Promise<{ isError: boolean; data: Json }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  if (result.isError) return { isError: true, data: JSON.parse(content[0]?.text ?? '{}') as Json };
  const text = JSON.parse(content[0]?.text ?? '{}') as Json;
  assert.deepEqual(result.structuredContent, text, `${name}: text content carries the same JSON as structuredContent`);
  return { isError: false, data: result.structuredContent as Json };
}

/** Calls all 14 tools with valid arguments discovered from the data itself. */
async function exerciseEveryTool(client: Client): Promise<Set<string>> {
  const called = new Set<string>();
  const ok = async (name: string, args: Json = {}) => {
    const result = await call(client, name, args);
    assert.equal(result.isError, false, `${name} ${JSON.stringify(args)} -> ${JSON.stringify(result.data)}`);
    called.add(name);
    return result.data;
  };
  const me = await ok('IncidentOps.WhoAmI');
  const incidents = (await ok('IncidentOps.ListIncidents', { status: 'triggered', urgency: 'high', limit: 5 })).incidents as Json[];
  const anyIncident = ((await ok('IncidentOps.ListIncidents', { limit: 1 })).incidents as Json[])[0] ?? incidents[0];
  assert.ok(anyIncident, 'the sandbox has incidents');
  await ok('IncidentOps.GetIncident', { incident_id: anyIncident.id });
  await ok('IncidentOps.ListLogEntries', { limit: 5, time_zone: 'Europe/Paris' });
  const policies = (await ok('IncidentOps.ListEscalationPolicies', { limit: 2 })).escalation_policies as Json[];
  await ok('IncidentOps.GetEscalationPolicy', { escalation_policy_id: policies[0]!.id });
  const services = (await ok('IncidentOps.ListServices', { limit: 2 })).services as Json[];
  await ok('IncidentOps.GetService', { service_id: services[0]!.id });
  await ok('IncidentOps.ListSchedules', { limit: 3 });
  await ok('IncidentOps.ListOnCalls', { limit: 5 });
  await ok('IncidentOps.ListUsers', { limit: 3 });
  const found = await ok('IncidentOps.SearchUsers', { query: String((me.user as Json).name), auto_accept_matches: true });
  assert.equal((found.accepted as Json | undefined)?.id, (me.user as Json).id);
  const teams = (await ok('IncidentOps.ListTeams', { limit: 2 })).teams as Json[];
  await ok('IncidentOps.GetTeam', { team_id: teams[0]!.id });
  return called;
}

async function assertListing(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.equal(tools.length, 14);
  for (const tool of tools) {
    assert.ok(tool.name.startsWith('IncidentOps.'));
    assert.deepEqual(
      [tool.annotations?.readOnlyHint, tool.annotations?.destructiveHint, tool.annotations?.idempotentHint, tool.annotations?.openWorldHint],
      [true, false, true, true],
    );
    assert.equal(tool.inputSchema.type, 'object');
    // Only tools with a shape of their own advertise one; the rest follow the instructions' convention.
    const ownShape = ['IncidentOps.WhoAmI', 'IncidentOps.SearchUsers', 'IncidentOps.GetTeam'].includes(tool.name);
    assert.equal(Boolean(tool.outputSchema), ownShape, `${tool.name} ${ownShape ? 'has' : 'has no'} output schema`);
  }
}

const SERVER_KEY = 'e2e-server-key-0123456789abcdef';

/** Debug-level server logs, kept to search them for secrets. */
const serverLog = (() => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, sink) };
})();

describe('Streamable HTTP', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  const upstreamAuthorizations: string[] = [];

  before(async () => {
    sandbox = await startTestSandbox();
    // Record what the server sends upstream, to prove the client's key stays with this server.
    const recordingFetch: typeof fetch = (input, init) => {
      upstreamAuthorizations.push(new Headers(init?.headers).get('authorization') ?? '');
      return fetch(input, init);
    };
    http = await serveOverHttp({
      host: '127.0.0.1',
      port: 0,
      logger: serverLog.logger,
      serverKey: SERVER_KEY,
      mounts: [{ path: '/mcp', server: incidentOpsServerFor(sandbox, { fetch: recordingFetch }) }],
    });
  });
  after(async () => {
    await http.close();
    await sandbox.close();
  });

  for (const { era, options } of ERAS) {
    it(`serves a ${era} client: lists 14 tools and every tool succeeds`, async () => {
      const client = newClient(options);
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
      try {
        assert.equal(client.getProtocolEra(), era);
        await assertListing(client);
        const called = await exerciseEveryTool(client);
        assert.equal(called.size, 14);
        const bad = await call(client, 'IncidentOps.ListIncidents', { limit: 500 });
        assert.equal(bad.isError, true);
        assert.equal(bad.data.error && (bad.data.error as Json).kind, 'invalid_input');
      } finally {
        await client.close();
      }
    });
  }

  it('never forwards the client key upstream: the platform only sees its own token', () => {
    assert.ok(upstreamAuthorizations.length > 0);
    for (const value of upstreamAuthorizations) {
      assert.equal(value, `Bearer ${sandbox.incidentops.token}`);
      assert.ok(!value.includes(SERVER_KEY));
    }
  });

  it('answers 401 with WWW-Authenticate without the key or with a wrong one', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${http.url}/mcp`, { method: 'POST', body, headers });
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer realm="toolservers"/);
    const wrong = await fetch(`${http.url}/mcp`, { method: 'POST', body, headers: { ...headers, authorization: 'Bearer not-the-key-but-long-enough' } });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const basic = await fetch(`${http.url}/mcp`, { method: 'POST', body, headers: { ...headers, authorization: `Basic ${Buffer.from(`u:${SERVER_KEY}`).toString('base64')}` } });
    assert.equal(basic.status, 401);
    const ok = await fetch(`${http.url}/mcp`, { method: 'POST', body, headers: { ...headers, authorization: `Bearer ${SERVER_KEY}` } });
    assert.equal(ok.status, 200);
  });

  it('refuses a foreign Host header (DNS rebinding) and a foreign Origin, even with the key', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${SERVER_KEY}` };
    const foreignOrigin = await fetch(`${http.url}/mcp`, { method: 'POST', body, headers: { ...headers, origin: 'https://evil.example' } });
    assert.equal(foreignOrigin.status, 403);
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${http.url}/mcp`, { method: 'POST', headers: { ...headers, host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(status, 403);
  });

  it('logs rejections and calls without the server key or the platform token', () => {
    const text = serverLog.lines.join('');
    assert.match(text, /missing or wrong server key/, 'rejections are logged');
    assert.ok(!text.includes(SERVER_KEY), 'the server key is not logged');
    assert.ok(!text.includes('not-the-key-but-long-enough'), 'a presented wrong key is not logged');
    assert.ok(!text.includes(sandbox.incidentops.token), 'the platform token is not logged');
  });

  it('answers unknown paths with 404 and reports health', async () => {
    assert.equal((await fetch(`${http.url}/nope`)).status, 404);
    const health = (await (await fetch(`${http.url}/health`)).json()) as Json;
    assert.deepEqual(health, { status: 'ok' }, 'health says nothing about the servers without a key');
  });
});

describe('stdio (child process via the CLI)', () => {
  for (const { era, options } of ERAS) {
    it(`serves a ${era} client from \`toolservers incidentops --sandbox\``, async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'incidentops', '--sandbox'],
        env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'warn' },
        stderr: 'pipe',
      });
      const client = newClient(options);
      await client.connect(transport);
      try {
        assert.equal(client.getProtocolEra(), era);
        await assertListing(client);
        assert.equal((await exerciseEveryTool(client)).size, 14);
      } finally {
        await client.close();
      }
    });
  }
});

describe('CanvasApi over stdio (2025-era client)', () => {
  it('lists the 139 tools and calls a read and a two-mode schema request', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'canvasapi', '--sandbox'],
      env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'warn' },
      stderr: 'pipe',
    });
    const client = newClient({});
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 139);
      assert.ok(tools.every((t) => t.name.startsWith('CanvasApi.') && t.annotations?.openWorldHint === true));
      const info = await call(client, 'CanvasApi.GetAccessTokenInfo');
      assert.equal(info.isError, false, JSON.stringify(info.data));
      const schema = await call(client, 'CanvasApi.AddStickyNoteToBoard', { mode: 'get_request_schema' });
      assert.equal(schema.isError, false);
      assert.equal((schema.data.request_schema as Json).type, 'object');
      const boards = await call(client, 'CanvasApi.RetrieveUserBoards', { maximum_number_of_boards: '1' });
      assert.equal(boards.isError, false, JSON.stringify(boards.data));
      assert.ok(boards.data.next_page, 'more boards than one: the next page is spelled out');
    } finally {
      await client.close();
    }
  });
});

describe('binding beyond loopback', () => {
  it('refuses to start without an explicitly set server key', () => {
    const result = spawnSync(process.execPath, [CLI, 'incidentops', '--transport', 'http', '--host', '0.0.0.0', '--port', '0', '--sandbox'], {
      env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /TOOLSERVERS_SERVER_KEY/);
  });
});
