/**
 * The HTTP request pipeline's steps, each alone (e2e-mcp, cors, operations and http-limits run
 * them together through serveOverHttp): admission (Host and Origin against DNS rebinding, CORS,
 * probes), key mode's bearer check, and the MCP endpoints' mount matching and view choice.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { hostHeaderValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';
import { silentLogger, type LogFn, type Logger } from '../src/core/logger.js';
import { admitRequest, allowedHostNames, isLoopbackHost, LOOPBACK_ORIGIN_HOSTS, type AdmissionGate } from '../src/core/serving/http/admission.js';
import { answerInternalError } from '../src/core/serving/http/answers.js';
import { corsPolicy } from '../src/core/serving/http/cors.js';
import { admitServerKey, serverKeyCheck, serverKeyProblem } from '../src/core/serving/http/key-check.js';
import { answerNoEndpoint, choosesNothing, createMcpDispatch, dispatchMcp, type HttpMount } from '../src/core/serving/http/mcp-dispatch.js';
import { matchMount } from '../src/core/serving/http/mount-paths.js';
import { allowedOriginsFrom } from '../src/core/serving/http/origins.js';
import { probes, type Probes } from '../src/core/serving/http/probes.js';
import { handleWithRequestId } from '../src/core/serving/http/request-id.js';
import { MIN_SERVER_KEY_LENGTH } from '../src/core/signin/server-key.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import { rawRequest, type RawAnswer } from './support/raw-http.js';

type Line = Record<string, unknown>;

/** A logger that keeps every line (its fields, bindings and message). */
function recordingLogger(lines: Line[], bindings: Line = {}): Logger {
  const at =
    (level: string): LogFn =>
    ((fields: object | string, message?: string) => {
      lines.push(typeof fields === 'string' ? { level, ...bindings, msg: fields } : { level, ...bindings, ...fields, msg: message });
    }) as LogFn;
  return {
    level: 'trace',
    isLevelEnabled: () => true,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: (more) => recordingLogger(lines, { ...bindings, ...more }),
  };
}

/** A server that runs `handle` on each request, with its request ID set as serve.ts does. */
async function serving(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => handleWithRequestId(req, res, () => handle(req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function send(port: number, path: string, options: { method?: string; headers?: OutgoingHttpHeaders } = {}): Promise<RawAnswer> {
  return rawRequest(`http://127.0.0.1:${port}${path}`, options);
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('admission', () => {
  const lines: Line[] = [];
  const origins = allowedOriginsFrom([...LOOPBACK_ORIGIN_HOSTS, 'https://app.example.com']);
  /** Probes whose readiness fails unexpectedly: admission answers it as a failed request. */
  const brokenReady: Probes = { health: probes([]).health, ready: () => Promise.reject(new Error('probe exploded')) };
  const gate: AdmissionGate = {
    logger: recordingLogger(lines),
    validateHost: hostHeaderValidation(allowedHostNames('127.0.0.1', ['mcp.example.com'])),
    origins,
    cors: corsPolicy(origins),
    probes: brokenReady,
  };
  let server: Server;
  let port = 0;
  before(async () => {
    ({ server, port } = await serving((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (!admitRequest(gate, req, res, path)) return;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('routed');
    }));
  });
  after(() => closeServer(server));

  it('routes a request to a loopback or allowed host without an Origin, or from an allowed one with CORS headers', async () => {
    assert.equal((await send(port, '/mcp')).body, 'routed');
    assert.equal((await send(port, '/mcp', { headers: { host: 'mcp.example.com:8443' } })).body, 'routed');
    const browser = await send(port, '/mcp', { headers: { origin: 'https://app.example.com' } });
    assert.equal(browser.body, 'routed');
    assert.equal(browser.headers['access-control-allow-origin'], 'https://app.example.com');
  });

  it('refuses another Host or Origin with 403 before routing, and logs why', async () => {
    lines.length = 0;
    const host = await send(port, '/mcp', { headers: { host: 'evil.example' } });
    assert.equal(host.status, 403);
    assert.notEqual(host.body, 'routed');
    const origin = await send(port, '/mcp', { headers: { origin: 'https://evil.example' } });
    assert.equal(origin.status, 403);
    assert.deepEqual(JSON.parse(origin.body), { jsonrpc: '2.0', error: { code: -32000, message: 'Origin not allowed' }, id: null });
    const rejected = lines.filter((line) => line.msg === 'rejected request: Host or Origin not allowed');
    assert.deepEqual(
      rejected.map(({ path, host: h, origin: o }) => [path, h, o]),
      [
        ['/mcp', 'evil.example', undefined],
        ['/mcp', `127.0.0.1:${port}`, 'https://evil.example'],
      ],
    );
    assert.ok(rejected.every((line) => typeof line.request_id === 'string'), 'the lines carry the request ID');
  });

  it('answers a preflight from an allowed origin itself', async () => {
    const preflight = await send(port, '/mcp', { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.body, '');
  });

  it('answers the probes under any Host, but not from another Origin', async () => {
    const health = await send(port, '/health', { headers: { host: '10.0.0.7:3000' } });
    assert.equal(health.status, 200);
    assert.deepEqual(JSON.parse(health.body), { status: 'ok' });
    assert.equal((await send(port, '/health', { headers: { origin: 'https://evil.example' } })).status, 403);
    assert.equal((await send(port, '/metrics', { headers: { host: '10.0.0.7:3000' } })).status, 403, 'only the probes skip the Host check');
  });

  it('answers a readiness probe that failed unexpectedly 500, its reason logged only', async () => {
    lines.length = 0;
    const ready = await send(port, '/ready', { headers: { host: '10.0.0.7:3000' } });
    assert.equal(ready.status, 500);
    assert.deepEqual(JSON.parse(ready.body), { error: 'internal error' });
    assert.deepEqual(
      lines.filter((line) => line.level === 'error').map(({ err, msg }) => [err, msg]),
      [['probe exploded', 'request failed']],
    );
  });

  it('accepts as Host the loopback names, the address served on and the operator\'s names', () => {
    const loopback = ['localhost', '127.0.0.1', '[::1]', '::1'];
    assert.deepEqual(allowedHostNames('127.0.0.1'), loopback);
    assert.deepEqual(allowedHostNames('127.4.5.6'), loopback);
    assert.deepEqual(allowedHostNames('0.0.0.0', ['mcp.example.com']), [...loopback, 'mcp.example.com']);
    assert.deepEqual(allowedHostNames('::'), loopback);
    assert.deepEqual(allowedHostNames('10.0.0.7'), [...loopback, '10.0.0.7']);
    assert.equal(isLoopbackHost('127.0.0.9'), true);
    assert.equal(isLoopbackHost('128.0.0.1'), false);
  });
});

describe("key mode's bearer check", () => {
  const KEY = 'k'.repeat(MIN_SERVER_KEY_LENGTH);

  it('refuses a key that is too short at start', () => {
    assert.throws(() => serverKeyCheck(KEY.slice(1), undefined), { message: `The server key must be at least ${MIN_SERVER_KEY_LENGTH} characters long.` });
  });

  it('reads "Bearer <key>" in any case, and tells a missing key from a wrong one', () => {
    const { digest } = serverKeyCheck(KEY, undefined);
    assert.equal(serverKeyProblem(`Bearer ${KEY}`, digest), undefined);
    assert.equal(serverKeyProblem(`bearer   ${KEY}  `, digest), undefined);
    assert.equal(serverKeyProblem(`Bearer ${KEY}x`, digest), 'wrong');
    assert.equal(serverKeyProblem(`Bearer ${KEY.slice(1)}`, digest), 'wrong');
    for (const header of [undefined, '', 'Bearer', 'Bearer ', `Basic ${KEY}`, `Bearer ${KEY} more`, KEY]) {
      assert.equal(serverKeyProblem(header, digest), 'missing', String(header));
    }
  });

  it('answers 401 with the challenge and where the key is, never the key', async (t) => {
    const lines: Line[] = [];
    const logger = recordingLogger(lines);
    const withLocation = serverKeyCheck(KEY, 'the key in ~/.config/toolservers/server-key');
    const withoutLocation = serverKeyCheck(KEY, undefined);
    const { server, port } = await serving((req, res) => {
      const check = req.url === '/plain/mcp' ? withoutLocation : withLocation;
      if (!admitServerKey(check, logger, req, res, req.url ?? '')) return;
      res.end('admitted');
    });
    t.after(() => closeServer(server));
    assert.equal((await send(port, '/mcp', { headers: { authorization: `Bearer ${KEY}` } })).body, 'admitted');
    const missing = await send(port, '/mcp');
    assert.equal(missing.status, 401);
    assert.equal(missing.headers['www-authenticate'], 'Bearer realm="toolservers"');
    assert.deepEqual(JSON.parse(missing.body), { error: 'This server needs "Authorization: Bearer <server key>". It expects the key in ~/.config/toolservers/server-key.' });
    const wrong = await send(port, '/plain/mcp', { headers: { authorization: `Bearer ${KEY}-old` } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['www-authenticate'], 'Bearer realm="toolservers", error="invalid_token"');
    assert.deepEqual(JSON.parse(wrong.body), { error: "The server key sent is not this server's. It expects the key its operator configured." });
    assert.deepEqual(
      lines.map(({ path, reason, msg }) => [path, reason, msg]),
      [
        ['/mcp', 'missing', 'rejected request: missing or wrong server key'],
        ['/plain/mcp', 'wrong', 'rejected request: missing or wrong server key'],
      ],
    );
    assert.ok(!JSON.stringify(lines).includes(KEY) && !wrong.body.includes(KEY));
  });
});

describe('the MCP endpoints', () => {
  const shapes: AnyToolServer = {
    id: 'shapes',
    name: 'Shapes',
    version: '1.0.0',
    instructions: 'Shapes on sheets.',
    tools: [
      {
        name: 'Shapes.ListShapes',
        title: 'List shapes',
        description: 'Lists shapes.',
        toolset: 'shapes',
        input: z.strictObject({}),
        output: z.looseObject({}),
        hints: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
        handler: async () => ({}),
      },
    ],
    deps: {},
    logger: silentLogger,
  };
  const mounts: HttpMount[] = [
    { path: '/shapes/mcp', server: shapes },
    { path: '/dots/mcp', server: shapes, view: { nameStyle: 'underscore' } },
  ];

  it('match a mount by its path, with up to three lowercase choice segments before /mcp', () => {
    assert.deepEqual(matchMount(mounts, '/shapes/mcp'), { mount: mounts[0], segments: [] });
    assert.deepEqual(matchMount(mounts, '/dots/readonly/short/mcp'), { mount: mounts[1], segments: ['readonly', 'short'] });
    assert.deepEqual(matchMount(mounts, '/shapes/a/b-2/c/mcp')?.segments, ['a', 'b-2', 'c']);
    for (const path of ['/shapes/a/b/c/d/mcp', '/shapes/ReadOnly/mcp', '/shapes/1st/mcp', '/shapes//mcp', '/other/mcp', '/shapes/mcp/x', '/mcp']) {
      assert.equal(matchMount(mounts, path), undefined, path);
    }
  });

  it('name every endpoint when a path is none', async (t) => {
    const { server, port } = await serving((_req, res) => answerNoEndpoint(mounts, res, '/nope/mcp'));
    t.after(() => closeServer(server));
    const answer = await send(port, '/nope/mcp');
    assert.equal(answer.status, 404);
    assert.deepEqual(JSON.parse(answer.body), { error: 'No MCP endpoint at /nope/mcp. Endpoints: /shapes/mcp, /dots/mcp (a profile may be inserted before /mcp, e.g. /readonly/mcp)' });
  });

  it('serve the plain view only to a request that chooses nothing: no segments, query or choice headers', () => {
    const req = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;
    assert.equal(choosesNothing(req('/shapes/mcp'), []), true);
    assert.equal(choosesNothing(req('/shapes/mcp'), ['readonly']), false);
    assert.equal(choosesNothing(req('/shapes/mcp?toolsets=shapes'), []), false);
    assert.equal(choosesNothing(req('/shapes/mcp', { 'x-toolservers-toolsets': 'shapes' }), []), false);
    assert.equal(choosesNothing(req('/shapes/mcp', { 'x-other': '1' }), []), true);
  });

  it("refuse an operator's choice of unknown tools at start", () => {
    assert.throws(() => createMcpDispatch([{ path: '/mcp', server: shapes, view: { selections: [{ tools: ['Shapes.Nope'] }] } }], silentLogger, toNodeHandler), /Nope/);
  });

  it('answer a request choosing unknown names 400, after removing its Authorization header', async (t) => {
    const dispatch = createMcpDispatch(mounts, silentLogger, toNodeHandler);
    const seen: (string | undefined)[] = [];
    const { server, port } = await serving((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const match = matchMount(mounts, path);
      if (!match) return answerNoEndpoint(mounts, res, path);
      dispatchMcp(dispatch, req, res, path, match);
      seen.push(req.headers.authorization);
    });
    t.after(() => closeServer(server));
    const answer = await send(port, '/shapes/nosuchprofile/mcp', { method: 'POST', headers: { authorization: 'Bearer secret-of-this-server' } });
    assert.equal(answer.status, 400);
    assert.match(JSON.parse(answer.body).error, /nosuchprofile/);
    assert.deepEqual(seen, [undefined], 'the client key never goes further than this server');
  });

  it('log a failed request and answer it 500, or end an answer already begun', async (t) => {
    const lines: Line[] = [];
    const { server, port } = await serving((req, res) => {
      if (req.url === '/begun') res.writeHead(200, { 'content-type': 'text/plain' });
      answerInternalError(recordingLogger(lines), res, { path: req.url, err: 'broke' }, 'MCP request failed');
    });
    t.after(() => closeServer(server));
    const fresh = await send(port, '/fresh');
    assert.equal(fresh.status, 500);
    assert.deepEqual(JSON.parse(fresh.body), { error: 'internal error' });
    const begun = await send(port, '/begun');
    assert.deepEqual([begun.status, begun.body], [200, '']);
    assert.deepEqual(lines, [
      { level: 'error', path: '/fresh', err: 'broke', msg: 'MCP request failed' },
      { level: 'error', path: '/begun', err: 'broke', msg: 'MCP request failed' },
    ]);
  });
});
