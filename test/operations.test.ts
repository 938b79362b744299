/**
 * Operations over real HTTP: /health and /ready (with the shared store and added readiness
 * checks), X-Request-Id on every answer with `request_id` on every log line of the request
 * (and a fresh one per tools/call on stdio), and Prometheus metrics at /metrics: per tool call,
 * per upstream request, per rate-limit wait, bounded labels, an optional bearer key, and
 * prom-client loaded only when metrics are on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createLogger, silentLogger, type Logger } from '../src/core/logger.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import type { SharedStore } from '../src/core/store/store.js';
import { createIncidentOpsServer } from '../src/incidentops/index.js';
import { resolveIncidentOpsSettings } from '../src/incidentops/settings.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, jsonResponse, scriptedFetch, startTestSandbox } from './support/harness.js';
import { rawRequest, type RawAnswer } from './support/raw-http.js';

type Json = Record<string, unknown>;
const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(here, '..', 'src', 'cli.js');
const PRELOAD = path.resolve(here, 'support', 'module-log.js');
const SERVER_KEY = 'operations-test-server-key-0123';
const METRICS_KEY = 'operations-test-metrics-key-0123';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function incidentOps(sandbox: RunningSandbox, logger: Logger = silentLogger, fetchImpl?: typeof fetch): AnyToolServer {
  return createIncidentOpsServer({
    settings: resolveIncidentOpsSettings({ baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token }, {}),
    logger,
    version: '0.0.0-test',
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

/** A request with any headers (Host included, which fetch does not let us set). */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawAnswer> {
  return rawRequest(url, options);
}

/** Log lines captured from a real pino logger (the project's, with its request-ID mixin). */
function capturingLogger(level = 'debug'): { logger: Logger; lines: Json[] } {
  const lines: Json[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Json);
      done();
    },
  });
  return { logger: createLogger(level, stream), lines };
}

/** A client whose every HTTP request carries the X-Request-Id we choose: `<method>.<n>`. */
function labelledClient(): { client: Client; fetch: typeof fetch; ids: string[] } {
  const ids: string[] = [];
  const labelled: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    let method = 'get';
    try {
      method = String((JSON.parse(String(init?.body)) as Json).method ?? 'message').replace(/[^A-Za-z0-9._-]/g, '.');
    } catch {
      // a GET or DELETE without a JSON body
    }
    const id = `${method}.${ids.length + 1}`;
    ids.push(id);
    headers.set('x-request-id', id);
    return fetch(input, { ...init, headers });
  };
  return { client: new Client({ name: 'operations-test', version: '1.0.0' }), fetch: labelled, ids };
}

/** `name{labels} value` lines of the Prometheus text format, by series. */
function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

function value(series: Map<string, number>, name: string, labels: Record<string, string>): number {
  const key = `${name}{${Object.entries(labels).map(([label, text]) => `${label}="${text}"`).join(',')}}`;
  return series.get(key) ?? 0;
}

describe('/health and /ready', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  async function serving(options: { store?: SharedStore; readinessChecks?: { name: string; check(): Promise<boolean> }[]; logger?: Logger }): Promise<RunningHttpServer> {
    return serveOverHttp({ host: '127.0.0.1', port: 0, logger: options.logger ?? silentLogger, serverKey: SERVER_KEY, mounts: [{ path: '/mcp', server: incidentOps(sandbox) }], ...options });
  }

  it('answers /health and /ready without a key, also to probes that address the server by IP (any Host)', async () => {
    const http = await serving({ store: new MemoryStore() });
    try {
      for (const host of [undefined, '10.0.0.7:3000']) {
        const headers = host ? { host } : undefined;
        const health = await send(`${http.url}/health`, headers ? { headers } : {});
        assert.equal(health.status, 200);
        assert.deepEqual(JSON.parse(health.body), { status: 'ok' });
        const ready = await send(`${http.url}/ready`, headers ? { headers } : {});
        assert.equal(ready.status, 200);
        assert.deepEqual(JSON.parse(ready.body), { status: 'ready' });
      }
      // Everything else still goes through the Host check.
      const mcp = await send(`${http.url}/mcp`, { method: 'POST', headers: { host: '10.0.0.7:3000', authorization: `Bearer ${SERVER_KEY}` } });
      assert.equal(mcp.status, 403);
    } finally {
      await http.close();
    }
  });

  it('answers /ready 503 with the failing check named, and nothing of the configuration', async () => {
    let storeUp = false;
    const store: SharedStore = Object.assign(new MemoryStore(), { kind: 'redis', ping: async () => storeUp });
    const { logger, lines } = capturingLogger('warn');
    const http = await serving({
      store,
      logger,
      readinessChecks: [
        { name: 'oauth keys', check: async () => true },
        {
          name: 'platform directory',
          check: async () => {
            throw new Error('connect ECONNREFUSED redis://:hunter2@10.1.2.3:6379');
          },
        },
      ],
    });
    try {
      const down = await send(`${http.url}/ready`);
      assert.equal(down.status, 503);
      const body = JSON.parse(down.body) as { status: string; reasons: string[] };
      assert.equal(body.status, 'not ready');
      assert.deepEqual(body.reasons.sort(), ['platform directory: failed', 'store (redis): not available']);
      assert.doesNotMatch(down.body, /hunter2|10\.1\.2\.3|ECONNREFUSED/);
      // The operator finds the cause in the log, with the request's ID.
      const logged = lines.find((line) => line.check === 'platform directory');
      assert.match(String(logged?.err), /ECONNREFUSED/);
      assert.equal(logged?.request_id, down.headers['x-request-id']);

      storeUp = true;
      const stillDown = await send(`${http.url}/ready`);
      assert.equal(stillDown.status, 503);
      assert.deepEqual((JSON.parse(stillDown.body) as { reasons: string[] }).reasons, ['platform directory: failed']);
      // Liveness does not depend on readiness.
      assert.equal((await send(`${http.url}/health`)).status, 200);
    } finally {
      await http.close();
    }
  });

  it('in key mode stays ready while the store is down (every call is served without it), reporting it as degraded', async () => {
    let storeUp = false;
    const store: SharedStore = Object.assign(new MemoryStore(), { kind: 'redis', ping: async () => storeUp });
    const http = await serving({ store });
    try {
      const degraded = await send(`${http.url}/ready`);
      assert.equal(degraded.status, 200);
      assert.deepEqual(JSON.parse(degraded.body), { status: 'degraded', reasons: ['store (redis): not available'] });
      storeUp = true;
      assert.deepEqual(JSON.parse((await send(`${http.url}/ready`)).body), { status: 'ready' });
    } finally {
      await http.close();
    }
  });

  it('counts a readiness check that never answers as not ready', async () => {
    const http = await serving({ readinessChecks: [{ name: 'stuck dependency', check: () => new Promise<boolean>(() => undefined) }] });
    try {
      const ready = await send(`${http.url}/ready`);
      assert.equal(ready.status, 503);
      assert.match((JSON.parse(ready.body) as { reasons: string[] }).reasons[0] ?? '', /^stuck dependency: no answer within \d+ ms$/);
    } finally {
      await http.close();
    }
  });
});

describe('request IDs', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  let lines: Json[];
  before(async () => {
    sandbox = await startTestSandbox();
    const captured = capturingLogger('debug');
    lines = captured.lines;
    http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: captured.logger, serverKey: SERVER_KEY, mounts: [{ path: '/mcp', server: incidentOps(sandbox, captured.logger) }] });
  });
  after(async () => {
    await http?.close();
    await sandbox?.close();
  });

  it('puts an X-Request-Id on every answer: generated, or the caller\'s when it is short and safe', async () => {
    const answers = [
      await send(`${http.url}/health`),
      await send(`${http.url}/ready`),
      await send(`${http.url}/nowhere`),
      await send(`${http.url}/mcp`, { method: 'POST' }),
      await send(`${http.url}/mcp`, { method: 'POST', headers: { host: 'evil.example' } }),
    ];
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 404, 401, 403]);
    const ids = answers.map((answer) => String(answer.headers['x-request-id']));
    for (const id of ids) assert.match(id, UUID);
    assert.equal(new Set(ids).size, ids.length, 'a fresh ID per request');

    for (const safe of ['abc-123', 'trace.4bf92f3577b34da6a3ce929d0e0e4736', 'A'.repeat(64)]) {
      assert.equal((await send(`${http.url}/health`, { headers: { 'x-request-id': safe } })).headers['x-request-id'], safe);
    }
    for (const unsafe of ['A'.repeat(65), 'has space', 'semi;colon', 'line"quote', '{"json":1}', '']) {
      const id = String((await send(`${http.url}/health`, { headers: { 'x-request-id': unsafe } })).headers['x-request-id']);
      assert.match(id, UUID, `${JSON.stringify(unsafe)} is replaced`);
    }
  });

  it('writes request_id on every log line of a request: serve, registry, upstream and tool code alike', async () => {
    lines.length = 0;
    const { client, fetch: labelled, ids } = labelledClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { fetch: labelled, requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
    try {
      assert.equal((await client.callTool({ name: 'IncidentOps.WhoAmI', arguments: {} })).isError, undefined);
      assert.equal((await client.callTool({ name: 'IncidentOps.ListIncidents', arguments: { limit: 0 } })).isError, true);
    } finally {
      await client.close();
    }
    const rejected = await send(`${http.url}/mcp`, { method: 'POST', headers: { 'x-request-id': 'no-key.1' } });
    assert.equal(rejected.status, 401);

    assert.ok(lines.length > 0);
    for (const line of lines) assert.equal(typeof line.request_id, 'string', `every line has request_id: ${JSON.stringify(line)}`);
    const calls = ids.filter((id) => id.startsWith('tools.call.'));
    assert.equal(calls.length, 2);
    const [whoAmI, invalid] = calls as [string, string];
    // The tool call's own line (registry) and its platform request's line (upstream) carry the HTTP request's ID.
    assert.ok(lines.some((line) => line.request_id === whoAmI && line.msg === 'tool call succeeded' && line.tool === 'IncidentOps.WhoAmI'));
    assert.ok(lines.some((line) => line.request_id === whoAmI && line.msg === 'upstream request' && line.platform === 'IncidentOps'));
    assert.ok(lines.some((line) => line.request_id === invalid && line.msg === 'tool call failed' && line.kind === 'invalid_input'));
    assert.ok(lines.some((line) => line.request_id === 'no-key.1' && /server key/.test(String(line.msg))));
    // No line of one request names another's ID.
    for (const line of lines) assert.ok([...ids, 'no-key.1'].includes(String(line.request_id)), String(line.request_id));
  });

  it('gives each tools/call on stdio an ID of its own, and stdio never loads prom-client', async () => {
    const { stderr, modules } = await runStdio(['IncidentOps.WhoAmI', 'IncidentOps.WhoAmI']);
    const logLines = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Json);
    const callIds = logLines.filter((line) => line.msg === 'tool call succeeded').map((line) => String(line.request_id));
    assert.equal(callIds.length, 2);
    for (const id of callIds) assert.match(id, UUID);
    assert.notEqual(callIds[0], callIds[1]);
    for (const id of callIds) assert.ok(logLines.some((line) => line.request_id === id && line.msg === 'upstream request'), 'the upstream line of the call carries its ID');
    assert.deepEqual(modules.filter((module) => /node_modules\/prom-client\//.test(module)), []);
    assert.ok(modules.some((module) => module.includes('/src/incidentops/index.js')), 'the preload recorded the server itself');
  });
});

/** `toolservers incidentops --sandbox` over stdio: initialize, then the given calls; returns stderr and the modules it loaded. */
async function runStdio(calls: string[]): Promise<{ stderr: string; modules: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-ops-'));
  const log = path.join(dir, 'modules.log');
  try {
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'operations-test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      ...calls.map((name, index) => ({ jsonrpc: '2.0', id: index + 2, method: 'tools/call', params: { name, arguments: {} } })),
    ];
    const lastId = calls.length + 1;
    const stderr = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', PRELOAD, CLI, 'incidentops', '--sandbox'], {
        env: { PATH: process.env.PATH ?? '', HOME: dir, MODULE_LOG: log, TOOLSERVERS_CREDENTIALS_FILE: path.join(dir, 'credentials.json'), TOOLSERVERS_LOG_LEVEL: 'debug' },
      });
      let out = '';
      let err = '';
      let answered = false;
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (!answered && out.split('\n').some((line) => line.includes(`"id":${lastId}`))) {
          answered = true;
          child.stdin.end();
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        if (!answered) reject(new Error(`no answer to the last call; stderr: ${err}`));
        else resolve(err);
      });
      child.stdin.write(requests.map((message) => JSON.stringify(message)).join('\n') + '\n');
    });
    return { stderr, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `toolservers incidentops --transport http --sandbox`: the modules loaded once it answered /health, and what /metrics answered. */
async function runHttp(env: Record<string, string>): Promise<{ modules: string[]; metricsStatus: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-ops-'));
  const log = path.join(dir, 'modules.log');
  try {
    const child = spawn(process.execPath, ['--import', PRELOAD, CLI, 'incidentops', '--transport', 'http', '--port', '0', '--sandbox'], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, MODULE_LOG: log, TOOLSERVERS_CREDENTIALS_FILE: path.join(dir, 'credentials.json'), TOOLSERVERS_LOG_LEVEL: 'warn', ...env },
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let err = '';
        const timer = setTimeout(() => reject(new Error(`no endpoint printed: ${err}`)), 30_000);
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          const match = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(err);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${err}`)));
      });
      assert.equal((await send(`${url}/health`)).status, 200);
      const metricsStatus = (await send(`${url}/metrics`)).status;
      return { modules: readFileSync(log, 'utf8').split('\n').filter(Boolean), metricsStatus };
    } finally {
      child.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Prometheus metrics', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  let serviceId: string;
  before(async () => {
    sandbox = await startTestSandbox();
    http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: SERVER_KEY, metrics: {}, mounts: [{ path: '/mcp', server: incidentOps(sandbox) }] });
  });
  after(async () => {
    await http?.close();
    await sandbox?.close();
  });

  async function scrape(headers: Record<string, string> = {}): Promise<Map<string, number>> {
    const answer = await send(`${http.url}/metrics`, { headers });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return parseMetrics(answer.body);
  }

  it('counts tool calls by server, tool and outcome, with latency, and upstream requests by status', async () => {
    const client = new Client({ name: 'operations-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
    try {
      const services = (await client.callTool({ name: 'IncidentOps.ListServices', arguments: { limit: 1 } })).structuredContent as { services: { id: string }[] };
      serviceId = services.services[0]!.id;
      assert.equal((await client.callTool({ name: 'IncidentOps.GetService', arguments: { service_id: serviceId } })).isError, undefined);
      assert.equal((await client.callTool({ name: 'IncidentOps.GetService', arguments: { service_id: 'PNOSUCH1' } })).isError, true);
      assert.equal((await client.callTool({ name: 'IncidentOps.ListIncidents', arguments: { limit: -1 } })).isError, true);
    } finally {
      await client.close();
    }
    const series = await scrape();
    const tool = (name: string, outcome: string) => value(series, 'toolservers_tool_calls_total', { server: 'incidentops', tool: name, outcome });
    assert.equal(tool('IncidentOps.ListServices', 'ok'), 1);
    assert.equal(tool('IncidentOps.GetService', 'ok'), 1);
    assert.equal(tool('IncidentOps.GetService', 'not_found'), 1);
    assert.equal(tool('IncidentOps.ListIncidents', 'invalid_input'), 1);
    assert.equal(value(series, 'toolservers_tool_call_duration_seconds_count', { server: 'incidentops', tool: 'IncidentOps.GetService' }), 2);
    assert.ok(value(series, 'toolservers_tool_call_duration_seconds_sum', { server: 'incidentops', tool: 'IncidentOps.GetService' }) > 0);
    assert.equal(value(series, 'toolservers_tool_call_duration_seconds_bucket', { le: '+Inf', server: 'incidentops', tool: 'IncidentOps.GetService' }), 2);

    // The invalid call sent nothing: two answered GETs and one 404.
    const ok = value(series, 'toolservers_upstream_requests_total', { platform: 'IncidentOps', method: 'GET', status: '200' });
    const notFound = value(series, 'toolservers_upstream_requests_total', { platform: 'IncidentOps', method: 'GET', status: '404' });
    assert.equal(ok, 2);
    assert.equal(notFound, 1);
    assert.equal(value(series, 'toolservers_upstream_request_duration_seconds_count', { platform: 'IncidentOps', method: 'GET' }), ok + notFound);

    // prom-client's default process metrics come along.
    assert.ok([...series.keys()].some((key) => key.startsWith('process_cpu_user_seconds_total')));
    assert.ok([...series.keys()].some((key) => key.startsWith('nodejs_heap_size_used_bytes')));
  });

  it('counts rate-limit waits and network failures by platform, and never labels by ID or path', async () => {
    // 429 with Retry-After: 1, then the sandbox's real answer.
    const limited = scriptedFetch((url, init, attempt) =>
      attempt === 1 ? jsonResponse(429, { error: { message: 'Rate limit exceeded' } }, { 'retry-after': '1' }) : fetch(url, init as RequestInit),
    );
    assert.equal((await callTool(incidentOps(sandbox, silentLogger, limited.fetch), 'IncidentOps.WhoAmI', {})).isError, false);
    // Connection refused every time: retried (it never reached the platform), then reported.
    const refused = scriptedFetch(() => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    });
    const failure = await callTool(incidentOps(sandbox, silentLogger, refused.fetch), 'IncidentOps.WhoAmI', {});
    assert.equal(failure.isError, true);

    const series = await scrape();
    assert.equal(value(series, 'toolservers_rate_limit_waits_total', { platform: 'IncidentOps' }), 1);
    assert.equal(value(series, 'toolservers_rate_limit_wait_seconds_total', { platform: 'IncidentOps' }), 1);
    assert.equal(value(series, 'toolservers_upstream_requests_total', { platform: 'IncidentOps', method: 'GET', status: '429' }), 1);
    assert.equal(value(series, 'toolservers_upstream_failures_total', { platform: 'IncidentOps', method: 'GET', reason: 'ECONNREFUSED' }), refused.calls.length);
    assert.equal(value(series, 'toolservers_tool_calls_total', { server: 'incidentops', tool: 'IncidentOps.WhoAmI', outcome: String(failure.data.kind) }), 1);

    const text = (await send(`${http.url}/metrics`)).body;
    assert.ok(serviceId);
    assert.doesNotMatch(text, new RegExp(serviceId), 'no ID in any label');
    assert.doesNotMatch(text, /PNOSUCH1|\/services|\/users/, 'no path in any label');
  });

  it('asks for the metrics key when one is set; the server key does not open /metrics', async () => {
    const keyed = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: SERVER_KEY, metrics: { key: METRICS_KEY }, mounts: [{ path: '/mcp', server: incidentOps(sandbox) }] });
    try {
      const none = await send(`${keyed.url}/metrics`);
      assert.equal(none.status, 401);
      assert.match(String(none.headers['www-authenticate']), /^Bearer /);
      assert.doesNotMatch(none.body, /toolservers_/);
      assert.equal((await send(`${keyed.url}/metrics`, { headers: { authorization: `Bearer ${SERVER_KEY}` } })).status, 401);
      const ok = await send(`${keyed.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_KEY}` } });
      assert.equal(ok.status, 200);
      assert.match(ok.body, /# TYPE toolservers_tool_calls_total counter/);
      assert.equal((await send(`${keyed.url}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${METRICS_KEY}` } })).status, 405);
    } finally {
      await keyed.close();
    }
  });

  it('is off unless asked for: /metrics is 404 and prom-client is never loaded; TOOLSERVERS_METRICS=true turns it on', async () => {
    const off = await runHttp({});
    assert.equal(off.metricsStatus, 404);
    assert.deepEqual(off.modules.filter((module) => /node_modules\/prom-client\//.test(module)), []);
    const on = await runHttp({ TOOLSERVERS_METRICS: 'true' });
    assert.equal(on.metricsStatus, 200);
    assert.ok(on.modules.some((module) => /node_modules\/prom-client\//.test(module)), 'the positive control: the preload sees prom-client when metrics are on');
  });
});
