import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { ToolError } from '../src/core/errors.js';
import type { Logger } from '../src/core/logger.js';
import { ConcurrencyLimiter } from '../src/core/concurrency.js';
import {
  UpstreamClient,
  buildPath,
  effectOf,
  mayResend,
  buildQueryString,
  defaultRetryAfterSeconds,
  isIdempotent,
  type UpstreamClientOptions,
} from '../src/core/platform/upstream.js';

const TOKEN = 'sk_live_SUPERsecret_0123456789abcdef';
const AUTH = `Token token=${TOKEN}`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

interface TestServer {
  url: string;
  port: number;
  seen: Seen[];
  close: () => Promise<void>;
}

/** A scripted server: the n-th request gets the n-th handler; extra requests get a 599. */
async function startServer(script: Handler[]): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = script[seen.length - 1];
      if (handler) handler(req, res, body);
      else json(599, { error: 'unscripted request' })(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: async () => {
      for (const timer of pendingTimers) clearTimeout(timer);
      pendingTimers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Timers of slow answers, cleared when a server closes (tests run one at a time). */
const pendingTimers = new Set<NodeJS.Timeout>();

function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

function raw(status: number, text: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, headers);
    res.end(text);
  };
}

/** Answers after `ms` (the timer is cleared when the server closes). */
function slow(ms: number, then: Handler): Handler {
  return (req, res, body) => {
    const timer = setTimeout(() => then(req, res, body), ms);
    pendingTimers.add(timer);
  };
}

const hang: Handler = () => undefined;
const resetSocket: Handler = (req) => {
  req.socket.destroy();
};

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[]; text: () => string } {
  const raws: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void raws.push(line) });
  return {
    logger,
    get lines() {
      return raws.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    text: () => raws.join(''),
  };
}

/** A clock that only moves when the client sleeps: waits are exact and instant. */
function fakeClock(start = Date.UTC(2030, 0, 1)): { now: () => Date; sleep: (ms: number) => Promise<void>; delays: number[]; advance: (ms: number) => void } {
  let at = start;
  const delays: number[] = [];
  return {
    now: () => new Date(at),
    sleep: async (ms) => {
      delays.push(ms);
      at += ms;
    },
    delays,
    advance: (ms) => {
      at += ms;
    },
  };
}

function makeClient(
  baseUrl: string,
  overrides: Partial<UpstreamClientOptions> = {},
): { client: UpstreamClient; delays: number[] } {
  const delays: number[] = [];
  const client = new UpstreamClient({
    baseUrl,
    platformName: 'IncidentOps',
    authorization: () => AUTH,
    missingCredentialsMessage: 'No IncidentOps API token is configured.',
    missingCredentialsNextStep: 'Set INCIDENTOPS_TOKEN and restart.',
    defaultHeaders: { Accept: 'application/vnd.pagerduty+json;version=2' },
    timeoutMs: 3000,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...overrides,
  });
  return { client, delays };
}

async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolError, `expected a ToolError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the request to fail');
}

const pagerDutyParseError: UpstreamClientOptions['parseError'] = (_status, body) => {
  const error = (body as { error?: { code?: number; message?: string; errors?: unknown } } | undefined)?.error;
  return { code: error?.code, message: error?.message, details: error?.errors };
};

// ---------------------------------------------------------------------------------------------
// Pure helpers

test('buildPath encodes every character that could change the path', () => {
  assert.equal(buildPath('/incidents/{id}', { id: 'PABC123' }), '/incidents/PABC123');
  assert.equal(buildPath('/incidents/{id}/notes', { id: 'a/../b' }), '/incidents/a%2F..%2Fb/notes');
  assert.equal(buildPath('/x/{id}', { id: 'q?x=1#frag' }), '/x/q%3Fx%3D1%23frag');
  assert.equal(buildPath('/x/{id}', { id: '100%' }), '/x/100%25');
  assert.equal(buildPath('/x/{id}', { id: 'é漢🚀' }), `/x/${encodeURIComponent('é漢🚀')}`);
  assert.equal(buildPath('/boards/{board}/items/{item}', { board: 'uXjV=', item: 42 }), '/boards/uXjV%3D/items/42');
  assert.equal(buildPath('/x/{id}.json', { id: '.' }), '/x/..json');
});

test('buildPath refuses missing, empty and dot-segment parameters', () => {
  for (const [params, parameter] of [
    [{}, 'id'],
    [{ id: '' }, 'id'],
    [{ id: '  ' }, 'id'],
    [{ id: '..' }, 'id'],
    [{ id: '.' }, 'id'],
    [{ id: '\ud800' }, 'id'],
  ] as const) {
    assert.throws(
      () => buildPath('/incidents/{id}', params as Record<string, string>),
      (error: unknown) =>
        error instanceof ToolError && error.details.kind === 'invalid_input' && error.details.issues?.[0]?.parameter === parameter,
      JSON.stringify(params),
    );
  }
});

test('buildQueryString repeats array keys verbatim and skips undefined', () => {
  assert.equal(
    buildQueryString({
      'statuses[]': ['triggered', 'acknowledged'],
      limit: 25,
      total: true,
      include_deleted: false,
      skip: undefined,
      query: 'a b&c=d',
      'team_ids[]': [],
    }),
    'statuses[]=triggered&statuses[]=acknowledged&limit=25&total=true&include_deleted=false&query=a%20b%26c%3Dd',
  );
  assert.equal(buildQueryString(undefined), '');
  assert.equal(buildQueryString({ a: undefined }), '');
  assert.throws(() => buildQueryString({ limit: Number.NaN }), ToolError);
});

test('isIdempotent', () => {
  for (const m of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'] as const) assert.equal(isIdempotent(m), true, m);
  for (const m of ['POST', 'PATCH'] as const) assert.equal(isIdempotent(m), false, m);
});

test('defaultRetryAfterSeconds reads seconds and HTTP dates', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const at = (value: string): Response => new Response(null, { status: 429, headers: { 'retry-after': value } });
  assert.equal(defaultRetryAfterSeconds(at('7'), now), 7);
  assert.equal(defaultRetryAfterSeconds(at('Tue, 01 Jan 2030 00:00:12 GMT'), now), 12);
  assert.equal(defaultRetryAfterSeconds(at('Mon, 31 Dec 2029 23:00:00 GMT'), now), 0);
  assert.equal(defaultRetryAfterSeconds(at('soon'), now), undefined);
  assert.equal(defaultRetryAfterSeconds(new Response(null, { status: 429 }), now), undefined);
});

// ---------------------------------------------------------------------------------------------
// Request building against a real server

test('IDs with /, ?, #, .. and unicode never change the path; base path prefix is kept', async (t) => {
  const server = await startServer([json(200, {}), json(200, {}), json(200, {})]);
  t.after(server.close);
  const { client } = makeClient(`${server.url}/incidentops/`);
  await client.request({ method: 'GET', path: '/incidents/{id}/notes', pathParams: { id: 'a/../../b?c=1#d' } });
  await client.request({ method: 'GET', path: 'incidents/{id}', pathParams: { id: 'é漢🚀 x' } });
  await client.request({ method: 'GET', path: '/incidents/{id}', pathParams: { id: '..%2F' } });
  assert.deepEqual(
    server.seen.map((s) => s.url),
    [
      '/incidentops/incidents/a%2F..%2F..%2Fb%3Fc%3D1%23d/notes',
      `/incidentops/incidents/${encodeURIComponent('é漢🚀 x')}`,
      '/incidentops/incidents/..%252F',
    ],
  );

  const dots = await toolError(client.request({ method: 'GET', path: '/incidents/{id}', pathParams: { id: '..' } }));
  assert.equal(dots.details.kind, 'invalid_input');
  const missing = await toolError(client.request({ method: 'DELETE', path: '/incidents/{id}' }));
  assert.equal(missing.details.kind, 'invalid_input');
  assert.equal(server.seen.length, 3, 'invalid paths are never sent');
});

test('query arrays become repeated keys, headers and JSON body are sent', async (t) => {
  const server = await startServer([json(200, { incidents: [] }), json(201, { ok: true })]);
  t.after(server.close);
  const { client } = makeClient(server.url);
  await client.request({
    method: 'GET',
    path: '/incidents',
    query: { 'statuses[]': ['triggered', 'acknowledged'], limit: 10, total: true, offset: undefined },
    headers: { 'Content-Type': 'application/json' },
  });
  const get = server.seen[0];
  assert.ok(get);
  assert.equal(get.url, '/incidents?statuses[]=triggered&statuses[]=acknowledged&limit=10&total=true');
  assert.equal(get.headers['content-type'], 'application/json');
  assert.equal(get.headers.accept, 'application/vnd.pagerduty+json;version=2');
  assert.equal(get.headers.authorization, AUTH);

  const res = await client.request({ method: 'POST', path: '/incidents', body: { incident: { title: 'Disk full' } } });
  assert.equal(res.status, 201);
  assert.deepEqual(res.data, { ok: true });
  const post = server.seen[1];
  assert.ok(post);
  assert.equal(post.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(post.body), { incident: { title: 'Disk full' } });
});

// ---------------------------------------------------------------------------------------------
// Response parsing

test('204 and empty bodies give undefined data; vnd+json parses', async (t) => {
  const server = await startServer([
    raw(204, ''),
    raw(200, ''),
    raw(200, '{"a":1}', { 'content-type': 'application/vnd.pagerduty+json;version=2' }),
    raw(200, '[1,2]', { 'content-type': 'text/plain' }),
  ]);
  t.after(server.close);
  const { client } = makeClient(server.url);
  const r204 = await client.request({ method: 'DELETE', path: '/incidents/{id}', pathParams: { id: 'P1' } });
  assert.equal(r204.status, 204);
  assert.equal(r204.data, undefined);
  assert.equal((await client.request({ method: 'GET', path: '/x' })).data, undefined);
  assert.deepEqual((await client.request({ method: 'GET', path: '/x' })).data, { a: 1 });
  assert.deepEqual((await client.request({ method: 'GET', path: '/x' })).data, [1, 2]);
});

test('a 2xx with invalid JSON is an upstream_error and is not retried', async (t) => {
  const server = await startServer([raw(200, '{"broken', { 'content-type': 'application/json' })]);
  t.after(server.close);
  const { client } = makeClient(server.url);
  const error = await toolError(client.request({ method: 'GET', path: '/x' }));
  assert.equal(error.details.kind, 'upstream_error');
  assert.equal(error.details.status, 200);
  assert.equal(server.seen.length, 1);
});

// ---------------------------------------------------------------------------------------------
// Retries

test('GET is retried on 503 then succeeds', async (t) => {
  const server = await startServer([json(503, { error: { message: 'busy' } }), json(200, { incident: { id: 'P1' } })]);
  t.after(server.close);
  const { client, delays } = makeClient(server.url);
  const res = await client.request<{ incident: { id: string } }>({ method: 'GET', path: '/incidents/P1' });
  assert.equal(res.data.incident.id, 'P1');
  assert.equal(server.seen.length, 2);
  assert.deepEqual(delays, [125], 'full jitter: 0.5 * min(2000, 250 * 2^0)');
});

test('retry budget exhausted -> upstream_error with status and backoff growth', async (t) => {
  const server = await startServer([json(503, {}), json(502, {}), json(500, { error: { code: 9, message: 'down' } })]);
  t.after(server.close);
  const { client, delays } = makeClient(server.url, { parseError: pagerDutyParseError });
  const error = await toolError(client.request({ method: 'GET', path: '/incidents' }));
  assert.equal(error.details.kind, 'upstream_error');
  assert.equal(error.details.status, 500);
  assert.equal(error.details.platformCode, 9);
  assert.equal(error.details.platformMessage, 'down');
  assert.match(error.message, /3 attempts/);
  assert.equal(server.seen.length, 3);
  assert.deepEqual(delays, [125, 250]);
});

test('backoff is capped by maxDelayMs', async (t) => {
  const server = await startServer([json(503, {}), json(503, {}), json(503, {}), json(503, {}), json(200, {})]);
  t.after(server.close);
  const { client, delays } = makeClient(server.url, {
    random: () => 1,
    retry: { maxRetries: 4, baseDelayMs: 300, maxDelayMs: 1000 },
  });
  await client.request({ method: 'PUT', path: '/x', body: {}, effect: 'update' });
  assert.deepEqual(delays, [300, 600, 1000, 1000]);
});

test('501 is not retried even for GET', async (t) => {
  const server = await startServer([json(501, {}), json(200, {})]);
  t.after(server.close);
  const { client } = makeClient(server.url);
  const error = await toolError(client.request({ method: 'GET', path: '/x' }));
  assert.equal(error.details.kind, 'upstream_error');
  assert.equal(error.details.status, 501);
  assert.equal(server.seen.length, 1);
});

test('POST is not retried after a 500 (exactly one request)', async (t) => {
  const server = await startServer([json(500, {}), json(201, {})]);
  t.after(server.close);
  const { client, delays } = makeClient(server.url);
  const error = await toolError(client.request({ method: 'POST', path: '/incidents', body: { title: 'x' } }));
  assert.equal(error.details.kind, 'upstream_error');
  assert.equal(error.details.status, 500);
  assert.match(error.details.nextStep ?? '', /may or may not have been applied/);
  assert.equal(server.seen.length, 1);
  assert.deepEqual(delays, []);
});

test('PATCH is not retried after a per-attempt timeout; GET is', async (t) => {
  const server = await startServer([hang, json(200, {})]);
  t.after(server.close);
  const { client } = makeClient(server.url, { timeoutMs: 150 });
  const error = await toolError(client.request({ method: 'PATCH', path: '/items/{id}', pathParams: { id: 'i1' }, body: {} }));
  assert.equal(error.details.kind, 'timeout');
  assert.match(error.details.nextStep ?? '', /may or may not have been applied/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(server.seen.length, 1, 'PATCH sent exactly once');

  const getServer = await startServer([hang, json(200, { ok: 1 })]);
  t.after(getServer.close);
  const { client: getClient, delays } = makeClient(getServer.url, { timeoutMs: 150 });
  const res = await getClient.request({ method: 'GET', path: '/items' });
  assert.deepEqual(res.data, { ok: 1 });
  assert.equal(getServer.seen.length, 2);
  assert.equal(delays.length, 1);
});

test('per-attempt timeout -> timeout kind, well before the slow answer', async (t) => {
  const server = await startServer([slow(5000, json(200, {}))]);
  t.after(server.close);
  const { client } = makeClient(server.url, { timeoutMs: 100, retry: { maxRetries: 0 } });
  const started = Date.now();
  const error = await toolError(client.request({ method: 'GET', path: '/x' }));
  assert.equal(error.details.kind, 'timeout');
  assert.match(error.message, /100 ms/);
  assert.ok(Date.now() - started < 2500, 'finished well before the slow response');
});

test('POST is retried after 429 with Retry-After', async (t) => {
  const server = await startServer([json(429, {}, { 'retry-after': '2' }), json(201, { id: 'new' })]);
  t.after(server.close);
  const log = capturingLogger();
  const { client, delays } = makeClient(server.url, { logger: log.logger });
  const res = await client.request({ method: 'POST', path: '/incidents', body: { n: 1 } });
  assert.deepEqual(res.data, { id: 'new' });
  assert.equal(server.seen.length, 2);
  assert.deepEqual(delays, [2000]);
  assert.ok(log.lines.some((l) => l.level === 40), 'rate-limit wait logged at warn');
});

test('POST is retried after 429 using a platform reset header hook', async (t) => {
  const server = await startServer([json(429, {}, { 'x-ratelimit-reset': '1893456003' }), json(201, {})]);
  t.after(server.close);
  const now = new Date(1893456000 * 1000);
  const { client, delays } = makeClient(server.url, {
    now: () => now,
    retryAfterSeconds: (response, at) => {
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      return Number.isFinite(reset) ? reset - at.getTime() / 1000 : undefined;
    },
  });
  await client.request({ method: 'POST', path: '/boards', body: {} });
  assert.equal(server.seen.length, 2);
  assert.deepEqual(delays, [3000]);
});

test('429 with a wait over the cap -> rate_limited with retryAfterSeconds, no wait', async (t) => {
  const server = await startServer([json(429, { error: { message: 'slow down' } }, { 'retry-after': '60' }), json(200, {})]);
  t.after(server.close);
  const { client, delays } = makeClient(server.url, { parseError: pagerDutyParseError });
  const error = await toolError(client.request({ method: 'GET', path: '/incidents' }));
  assert.equal(error.details.kind, 'rate_limited');
  assert.equal(error.details.retryAfterSeconds, 60);
  assert.equal(error.details.status, 429);
  assert.equal(error.details.platformMessage, 'slow down');
  assert.match(error.details.nextStep ?? '', /Wait 60 seconds and retry/);
  assert.deepEqual(delays, []);
  assert.equal(server.seen.length, 1);
});

test('429 without a usable reset time waits at least 1 s, then longer; never "0 seconds"; repeated 429s exhaust the budget', async (t) => {
  const server = await startServer([
    json(429, {}),
    json(429, {}, { 'retry-after': '0' }),
    json(201, { id: 'new' }),
    json(429, {}, { 'retry-after': '1' }),
    json(429, {}, { 'retry-after': '1' }),
    json(429, {}, { 'retry-after': '1' }),
  ]);
  t.after(server.close);
  const clock = fakeClock();
  const { client } = makeClient(server.url, { now: clock.now, sleep: clock.sleep });
  const res = await client.request({ method: 'POST', path: '/x', body: {} });
  assert.deepEqual(res.data, { id: 'new' });
  assert.equal(server.seen.length, 3, 'a 429 was not processed, so even a POST is sent again');
  assert.deepEqual(clock.delays, [1000, 2000], 'no header (and Retry-After: 0) -> 1 s, then doubled');

  const exhausted = await toolError(client.request({ method: 'POST', path: '/x', body: {} }));
  assert.equal(exhausted.details.kind, 'rate_limited');
  assert.equal(exhausted.details.retryAfterSeconds, 1);
  assert.match(exhausted.message, /allowed again in 1 second\b/);
  assert.match(exhausted.message, /not carried out/);
  assert.equal(server.seen.length, 6);
  assert.deepEqual(clock.delays, [1000, 2000, 1000, 1000]);
});

test('a 429 without a reset time that is over the wait cap reports at least 1 second, never 0', async (t) => {
  const server = await startServer([json(429, {}), json(200, {})]);
  t.after(server.close);
  const clock = fakeClock();
  const { client } = makeClient(server.url, { now: clock.now, sleep: clock.sleep, rateLimit: { maxWaitMs: 500 } });
  const error = await toolError(client.request({ method: 'GET', path: '/x' }));
  assert.equal(error.details.kind, 'rate_limited');
  assert.equal(error.details.retryAfterSeconds, 1);
  assert.doesNotMatch(JSON.stringify(error.toJSON()), /\b0 seconds/);
  assert.match(error.details.nextStep ?? '', /Wait 1 second and retry/);
  assert.equal(server.seen.length, 1);
});

test('POST is retried after ECONNREFUSED (closed port), then reaches the server once', async (t) => {
  const server = await startServer([json(201, { created: true })]);
  t.after(server.close);
  const deadPort = await closedPort();
  let calls = 0;
  const fetchImpl: typeof fetch = (input, init) => {
    calls += 1;
    const target = calls === 1 ? String(input).replace(`:${server.port}`, `:${deadPort}`) : String(input);
    return fetch(target, init);
  };
  const { client, delays } = makeClient(server.url, { fetch: fetchImpl });
  const res = await client.request({ method: 'POST', path: '/incidents', body: {} });
  assert.deepEqual(res.data, { created: true });
  assert.equal(calls, 2);
  assert.equal(server.seen.length, 1);
  assert.equal(delays.length, 1);
});

test('refused connection for every attempt -> network_error naming ECONNREFUSED', async () => {
  const deadPort = await closedPort();
  let calls = 0;
  const { client } = makeClient(`http://127.0.0.1:${deadPort}/api`, {
    fetch: (input, init) => {
      calls += 1;
      return fetch(input, init);
    },
  });
  const error = await toolError(client.request({ method: 'POST', path: '/x', body: {} }));
  assert.equal(error.details.kind, 'network_error');
  assert.match(error.message, /ECONNREFUSED/);
  assert.equal(calls, 3);
});

test('POST is not retried after ECONNRESET; GET is', async (t) => {
  const server = await startServer([resetSocket, json(201, {})]);
  t.after(server.close);
  const { client } = makeClient(server.url);
  const error = await toolError(client.request({ method: 'POST', path: '/incidents', body: { a: 1 } }));
  assert.equal(error.details.kind, 'network_error');
  assert.match(error.details.nextStep ?? '', /may or may not have been applied/);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(server.seen.length, 1);

  const getServer = await startServer([resetSocket, json(200, { ok: true })]);
  t.after(getServer.close);
  const { client: getClient } = makeClient(getServer.url);
  const res = await getClient.request({ method: 'GET', path: '/incidents' });
  assert.deepEqual(res.data, { ok: true });
  assert.equal(getServer.seen.length, 2);
});

test('fake fetch: network failures classified by error.cause.code', async () => {
  const failWith = (code: string): typeof fetch => {
    let calls = 0;
    const impl = (async () => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
      return new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    return impl;
  };
  for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED']) {
    const { client } = makeClient('http://upstream.invalid', { fetch: failWith(code) });
    const res = await client.request({ method: 'POST', path: '/x', body: {} });
    assert.deepEqual(res.data, { ok: true }, code);
  }
  for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']) {
    const { client } = makeClient('http://upstream.invalid', { fetch: failWith(code) });
    const error = await toolError(client.request({ method: 'PATCH', path: '/x', body: {} }));
    assert.equal(error.details.kind, 'network_error', code);
  }
});

// ---------------------------------------------------------------------------------------------
// Cancellation

test('abort signal cancels during a slow response', async (t) => {
  const server = await startServer([slow(5000, json(200, {}))]);
  t.after(server.close);
  const { client } = makeClient(server.url, { timeoutMs: 20_000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const started = Date.now();
  const error = await toolError(client.request({ method: 'GET', path: '/slow', signal: controller.signal }));
  assert.equal(error.details.kind, 'cancelled');
  assert.ok(Date.now() - started < 2500, 'finished well before the slow response');
  assert.equal(server.seen.length, 1);
});

test('abort during a slow POST -> cancelled (not a network error), sent once', async (t) => {
  const server = await startServer([slow(5000, json(201, {})), json(201, {})]);
  t.after(server.close);
  const { client, delays } = makeClient(server.url, { timeoutMs: 20_000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const error = await toolError(client.request({ method: 'POST', path: '/incidents', body: {}, signal: controller.signal }));
  assert.equal(error.details.kind, 'cancelled');
  assert.match(error.details.nextStep ?? '', /may or may not have been applied/);
  assert.deepEqual(delays, []);
  assert.equal(server.seen.length, 1);
});

test('abort signal cancels during backoff sleep (default sleep)', async (t) => {
  const server = await startServer([json(503, {}), json(200, {})]);
  t.after(server.close);
  const client = new UpstreamClient({
    baseUrl: server.url,
    platformName: 'CanvasApi',
    authorization: () => 'Bearer abc',
    random: () => 1,
    retry: { baseDelayMs: 5000, maxDelayMs: 5000 },
  });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const started = Date.now();
  const error = await toolError(client.request({ method: 'GET', path: '/boards', signal: controller.signal }));
  assert.equal(error.details.kind, 'cancelled');
  assert.ok(Date.now() - started < 2500, 'finished well before the backoff would have');
  assert.equal(server.seen.length, 1);
});

test('abort ends the wait even when an injected sleep ignores the signal; pre-aborted sends nothing', async (t) => {
  const server = await startServer([json(429, {}, { 'retry-after': '3' }), json(200, {})]);
  t.after(server.close);
  const { client } = makeClient(server.url, { sleep: () => new Promise<void>(() => undefined) });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 150);
  const error = await toolError(client.request({ method: 'POST', path: '/x', body: {}, signal: controller.signal }));
  assert.equal(error.details.kind, 'cancelled');
  assert.equal(server.seen.length, 1);

  const again = await toolError(client.request({ method: 'GET', path: '/x', signal: AbortSignal.abort() }));
  assert.equal(again.details.kind, 'cancelled');
  assert.equal(server.seen.length, 1);
});

// ---------------------------------------------------------------------------------------------
// Refusals before sending

test('allowedMethods blocks a POST before any request is made', async (t) => {
  const server = await startServer([json(200, {})]);
  t.after(server.close);
  const { client } = makeClient(server.url, { allowedMethods: ['GET'] });
  const error = await toolError(client.request({ method: 'POST', path: '/incidents', body: {} }));
  assert.equal(error.details.kind, 'internal');
  assert.match(error.message, /only sends GET/);
  assert.equal(server.seen.length, 0);
  await client.request({ method: 'GET', path: '/incidents' });
  assert.equal(server.seen.length, 1);
});

test('missing authorization -> not_configured, nothing sent', async (t) => {
  const server = await startServer([json(200, {})]);
  t.after(server.close);
  for (const authorization of [() => undefined, async () => undefined, () => '']) {
    const { client } = makeClient(server.url, { authorization });
    const error = await toolError(client.request({ method: 'GET', path: '/incidents' }));
    assert.equal(error.details.kind, 'not_configured');
    assert.equal(error.message, 'No IncidentOps API token is configured.');
    assert.equal(error.details.nextStep, 'Set INCIDENTOPS_TOKEN and restart.');
  }
  assert.equal(server.seen.length, 0);
});

// ---------------------------------------------------------------------------------------------
// Error mapping

test('401/403/404/422 map to kinds with platform code and message', async (t) => {
  const body = (code: number, message: string, errors?: string[]) => ({ error: { code, message, errors } });
  const server = await startServer([
    json(401, body(2006, 'Invalid token')),
    json(403, body(2010, 'Access denied: requires the incidents.write scope')),
    json(404, body(2100, 'Not Found')),
    json(404, body(2100, 'Not Found')),
    json(422, body(2001, 'Invalid Input Provided', ['title is required'])),
    json(404, body(2100, 'Not Found')),
  ]);
  t.after(server.close);
  const { client } = makeClient(server.url, {
    parseError: pagerDutyParseError,
    describeError: (ctx) =>
      ctx.kind === 'not_found' && ctx.pathParams?.id === 'PCUSTOM'
        ? { message: `No incident with ID ${ctx.pathParams.id} exists.`, nextStep: 'Use list_incidents.' }
        : undefined,
  });

  const e401 = await toolError(client.request({ method: 'GET', path: '/users/me' }));
  assert.equal(e401.details.kind, 'unauthorized');
  assert.equal(e401.details.status, 401);
  assert.equal(e401.details.platformCode, 2006);
  assert.equal(e401.details.platformMessage, 'Invalid token');
  assert.match(e401.message, /invalid, expired/);
  assert.match(e401.details.nextStep ?? '', /token/);

  const e403 = await toolError(client.request({ method: 'PUT', path: '/incidents/P1', body: {} }));
  assert.equal(e403.details.kind, 'forbidden');
  assert.match(e403.message, /incidents\.write scope/);
  assert.equal(e403.details.platformCode, 2010);

  const e404 = await toolError(
    client.request({ method: 'GET', path: '/incidents/{id}', pathParams: { id: 'PXYZ' }, resourceLabel: 'Incident PXYZ' }),
  );
  assert.equal(e404.details.kind, 'not_found');
  assert.match(e404.message, /^Incident PXYZ was not found on IncidentOps/);

  const e404path = await toolError(client.request({ method: 'GET', path: '/services/{id}', pathParams: { id: 'S9' } }));
  assert.match(e404path.message, /\/services\/S9/);

  const e422 = await toolError(client.request({ method: 'POST', path: '/incidents', body: {} }));
  assert.equal(e422.details.kind, 'bad_request');
  assert.equal(e422.details.status, 422);
  assert.deepEqual(e422.details.platformDetails, ['title is required']);
  assert.equal(server.seen.length, 5, 'no 4xx is retried');

  const custom = await toolError(client.request({ method: 'GET', path: '/incidents/{id}', pathParams: { id: 'PCUSTOM' } }));
  assert.equal(custom.message, 'No incident with ID PCUSTOM exists.');
  assert.equal(custom.details.nextStep, 'Use list_incidents.');
  assert.equal(custom.details.platformCode, 2100);
});

test('non-JSON error bodies give the first 300 characters as platformMessage', async (t) => {
  const html = `<html>${'x'.repeat(1000)}</html>`;
  const server = await startServer([raw(400, html, { 'content-type': 'text/html' })]);
  t.after(server.close);
  const { client } = makeClient(server.url, { parseError: pagerDutyParseError });
  const error = await toolError(client.request({ method: 'GET', path: '/x' }));
  assert.equal(error.details.kind, 'bad_request');
  assert.equal(error.details.platformMessage, html.slice(0, 300));
});

test('the Authorization value never appears in errors or logs', async (t) => {
  const echo: Handler = (req, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `bad credentials: ${req.headers.authorization}`, errors: [req.headers] } }));
  };
  const server = await startServer([echo, json(500, {}), resetSocket]);
  t.after(server.close);
  const log = capturingLogger();
  const { client } = makeClient(server.url, { parseError: pagerDutyParseError, logger: log.logger, timeoutMs: 100 });
  const errors = [
    await toolError(client.request({ method: 'GET', path: '/users/me' })),
    await toolError(client.request({ method: 'POST', path: '/incidents', body: {} })),
    await toolError(client.request({ method: 'POST', path: '/incidents', body: {} })),
  ];
  assert.equal(server.seen[0]?.headers.authorization, AUTH, 'the token was sent');
  assert.match(errors[0]?.details.platformMessage ?? '', /bad credentials: \[redacted\]/);
  for (const error of errors) {
    for (const text of [JSON.stringify(error), JSON.stringify(error.details), error.message, String(error.stack)]) {
      assert.ok(!text.includes(TOKEN), `token leaked: ${text}`);
    }
  }
  const logs = log.text();
  assert.ok(logs.length > 0);
  assert.ok(!logs.includes(TOKEN), 'token leaked into logs');
});

test('each attempt is logged at debug with method, path, status, duration and attempt', async (t) => {
  const server = await startServer([json(503, {}), json(200, {})]);
  t.after(server.close);
  const log = capturingLogger();
  const { client } = makeClient(server.url, { logger: log.logger });
  await client.request({ method: 'GET', path: '/incidents', query: { secretish: 'value' } });
  const attempts = log.lines.filter((l) => l.msg === 'upstream request');
  assert.equal(attempts.length, 2);
  assert.deepEqual(
    attempts.map((l) => [l.level, l.method, l.path, l.status, l.attempt, typeof l.durationMs]),
    [
      [20, 'GET', '/incidents', 503, 1, 'number'],
      [20, 'GET', '/incidents', 200, 2, 'number'],
    ],
  );
});

test('a 401 triggers one credential refresh and one more send, even for a POST', async () => {
  const server = await startServer([json(401, { error: { code: 2006, message: 'expired' } }), json(201, { ok: true })]);
  try {
    let current = 'Bearer old-token-aaaaaaaa';
    let refreshes = 0;
    const { client } = makeClient(server.url, {
      authorization: () => current,
      refreshAuthorization: async () => {
        refreshes += 1;
        current = 'Bearer new-token-bbbbbbbb';
        return true;
      },
    });
    const response = await client.request({ method: 'POST', path: '/things', body: { a: 1 } });
    assert.equal(response.status, 201);
    assert.equal(refreshes, 1);
    assert.deepEqual(server.seen.map((s) => s.headers.authorization), ['Bearer old-token-aaaaaaaa', 'Bearer new-token-bbbbbbbb']);
  } finally {
    await server.close();
  }
});

test('a second 401 after a refresh, or a refresh that yields nothing, is reported as unauthorized', async () => {
  const twice = await startServer([json(401, {}), json(401, {})]);
  try {
    let refreshes = 0;
    const { client } = makeClient(twice.url, { refreshAuthorization: async () => (refreshes += 1) > 0 });
    const error = await toolError(client.request({ method: 'GET', path: '/x' }));
    assert.equal(error.details.kind, 'unauthorized');
    assert.equal(refreshes, 1, 'refreshes at most once per request');
    assert.equal(twice.seen.length, 2);
  } finally {
    await twice.close();
  }
  const none = await startServer([json(401, {})]);
  try {
    const { client } = makeClient(none.url, { refreshAuthorization: async () => false });
    const error = await toolError(client.request({ method: 'GET', path: '/x' }));
    assert.equal(error.details.kind, 'unauthorized');
    assert.equal(none.seen.length, 1);
  } finally {
    await none.close();
  }
});

// ---------------------------------------------------------------------------------------------
// Retries follow the operation's effect, not the HTTP method

const html502: Handler = raw(502, '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>', {
  'content-type': 'text/html',
});

test('retry table: creates and actions are sent once after 5xx, HTML 502, reset or timeout; reads, updates and deletes again', async (t) => {
  const operations = [
    { method: 'GET', effect: 'read', resend: true, ok: json(200, { ok: true }) },
    { method: 'POST', effect: 'create', resend: false, ok: json(201, { id: 'new' }) },
    { method: 'PUT', effect: 'create', resend: false, ok: json(201, { id: 'copy' }) },
    { method: 'POST', effect: 'action', resend: false, ok: raw(204, '') },
    { method: 'PATCH', effect: 'update', resend: true, ok: json(200, { id: 'i1' }) },
    { method: 'PUT', effect: 'update', resend: true, ok: json(200, { id: 'g1' }) },
    { method: 'DELETE', effect: 'delete', resend: true, ok: raw(204, '') },
  ] as const;
  const faults: [string, Handler][] = [
    ['503', json(503, { message: 'busy' })],
    ['HTML 502', html502],
    ['reset', resetSocket],
    ['timeout', hang],
  ];
  for (const op of operations) {
    for (const [faultName, fault] of faults) {
      const label = `${op.method} (${op.effect}) after ${faultName}`;
      const server = await startServer([fault, op.ok]);
      t.after(server.close);
      const { client } = makeClient(server.url, { timeoutMs: 150 });
      const request = client.request({ method: op.method, effect: op.effect, path: '/things/{id}', pathParams: { id: 'x1' }, body: op.method === 'GET' || op.method === 'DELETE' ? undefined : { a: 1 } });
      if (op.resend) {
        const res = await request;
        assert.ok(res.status >= 200 && res.status < 300, label);
        assert.equal(server.seen.length, 2, `${label}: sent again`);
      } else {
        const error = await toolError(request);
        await new Promise((resolve) => setTimeout(resolve, 30));
        assert.equal(server.seen.length, 1, `${label}: sent exactly once`);
        assert.match(error.message, /may have (reached IncidentOps and )?been carried out|may have been carried out despite the error/, label);
        assert.match(error.message, /not sent again/, label);
        assert.match(error.details.nextStep ?? '', /may or may not have been applied; check the current state/, label);
        if (faultName === 'timeout') assert.equal(error.details.kind, 'timeout', label);
        if (faultName === 'reset') assert.equal(error.details.kind, 'network_error', label);
        if (faultName === '503' || faultName === 'HTML 502') assert.equal(error.details.kind, 'upstream_error', label);
      }
      await server.close();
    }
  }
});

test('without an effect: GET and DELETE are resent, POST, PUT and PATCH are not; idempotent overrides both ways', async (t) => {
  const cases = [
    { req: { method: 'GET' }, sends: 2 },
    { req: { method: 'DELETE' }, sends: 2 },
    { req: { method: 'PUT', body: {} }, sends: 1 },
    { req: { method: 'POST', body: {} }, sends: 1 },
    { req: { method: 'PATCH', body: {} }, sends: 1 },
    { req: { method: 'PUT', body: {}, idempotent: true }, sends: 2 },
    { req: { method: 'POST', body: {}, effect: 'create', idempotent: true }, sends: 2 },
    { req: { method: 'DELETE', idempotent: false }, sends: 1 },
    { req: { method: 'PATCH', body: {}, effect: 'update', idempotent: false }, sends: 1 },
  ] as const;
  for (const { req, sends } of cases) {
    const server = await startServer([json(500, {}), json(200, {})]);
    t.after(server.close);
    const { client } = makeClient(server.url);
    await client.request({ path: '/x', ...req }).catch(() => undefined);
    assert.equal(server.seen.length, sends, JSON.stringify(req));
    await server.close();
  }
  assert.equal(mayResend({ method: 'PUT' }), false);
  assert.equal(mayResend({ method: 'PUT', effect: 'update' }), true);
  assert.equal(mayResend({ method: 'PUT', effect: 'create' }), false);
  assert.equal(mayResend({ method: 'POST', effect: 'action' }), false);
  assert.equal(mayResend({ method: 'POST', effect: 'update' }), true);
  assert.equal(effectOf({ method: 'HEAD' }), 'read');
  assert.equal(effectOf({ method: 'PATCH' }), undefined);
});

test('a create is resent only when it provably never reached the platform (DNS, refused), and says so when all attempts failed', async () => {
  const deadPort = await closedPort();
  let calls = 0;
  const { client } = makeClient(`http://127.0.0.1:${deadPort}`, {
    fetch: (input, init) => {
      calls += 1;
      return fetch(input, init);
    },
  });
  const error = await toolError(client.request({ method: 'PUT', effect: 'create', path: '/boards', query: { copy_from: 'b1' }, body: {} }));
  assert.equal(error.details.kind, 'network_error');
  assert.equal(calls, 3, 'never reached the platform: sent again within the budget');
  assert.match(error.message, /Nothing reached IncidentOps, so nothing was changed/);
  assert.doesNotMatch(error.message, /may have/);
});

test('a 2xx whose body breaks while being read: a create is not resent and the error says it was answered', async (t) => {
  const broken: Handler = (_req, res) => {
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"id":"new-board"');
    setTimeout(() => res.socket?.destroy(), 20);
  };
  const server = await startServer([broken, json(201, {})]);
  t.after(server.close);
  const { client } = makeClient(server.url);
  const error = await toolError(client.request({ method: 'POST', effect: 'create', path: '/boards', body: {} }));
  assert.equal(error.details.kind, 'network_error');
  assert.equal(error.details.status, 201);
  assert.match(error.message, /after IncidentOps answered HTTP 201/);
  assert.match(error.details.nextStep ?? '', /check the current state/);
  assert.equal(server.seen.length, 1);
});

test('a delete resent after an ambiguous failure that then gets 404 reports success with a note', async (t) => {
  for (const [name, fault] of [
    ['HTTP 503', json(503, {})],
    ['reset', resetSocket],
    ['no answer within 150 ms', hang],
  ] as const) {
    const server = await startServer([fault, json(404, { message: 'Item not found' })]);
    t.after(server.close);
    const { client } = makeClient(server.url, { timeoutMs: 150 });
    const res = await client.request<Record<string, unknown>>({
      method: 'DELETE',
      effect: 'delete',
      path: '/boards/{board}/items/{item}',
      pathParams: { board: 'b1', item: 'i1' },
      resourceLabel: 'item i1',
    });
    assert.equal(res.alreadyApplied, true, name);
    assert.equal(res.status, 404);
    assert.equal(res.data.success, true);
    assert.equal(res.data.already_deleted, true);
    assert.equal(res.data.note, res.note);
    assert.match(res.note ?? '', /earlier attempt of this delete failed/);
    assert.match(res.note ?? '', new RegExp(name === 'reset' ? 'ECONNRESET|closed unexpectedly' : name));
    assert.match(res.note ?? '', /most likely deleted item i1/);
    assert.equal(server.seen.length, 2);
    await server.close();
  }
});

test('a 404 on the first delete attempt, or on a resent update, stays not_found', async (t) => {
  const first = await startServer([json(404, {})]);
  t.after(first.close);
  const { client } = makeClient(first.url);
  const error = await toolError(client.request({ method: 'DELETE', effect: 'delete', path: '/items/i9' }));
  assert.equal(error.details.kind, 'not_found');

  const update = await startServer([json(503, {}), json(404, {})]);
  t.after(update.close);
  const { client: updater } = makeClient(update.url);
  const notFound = await toolError(updater.request({ method: 'PATCH', effect: 'update', path: '/items/i9', body: {} }));
  assert.equal(notFound.details.kind, 'not_found');
});

test('an update that fails on every attempt says it may have been applied and that calling again is safe', async (t) => {
  const server = await startServer([json(503, {}), json(503, {}), json(503, {})]);
  t.after(server.close);
  const { client } = makeClient(server.url);
  const error = await toolError(client.request({ method: 'PATCH', effect: 'update', path: '/items/i1', body: { x: 1 } }));
  assert.equal(error.details.kind, 'upstream_error');
  assert.match(error.message, /3 attempts/);
  assert.match(error.message, /may have been carried out/);
  assert.match(error.details.nextStep ?? '', /safe to call again/);
  assert.equal(server.seen.length, 3);
});

// ---------------------------------------------------------------------------------------------
// Bounded answers

test('an answer larger than maxResponseBytes is abandoned with a clear upstream_error (announced or streamed)', async (t) => {
  const big = 'x'.repeat(5000);
  const streamed: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":"');
    for (let i = 0; i < 10; i += 1) res.write(big);
    res.end('"}');
  };
  const server = await startServer([
    raw(200, JSON.stringify({ data: big }), { 'content-type': 'application/json', 'content-length': String(big.length + 11) }),
    streamed,
    raw(200, JSON.stringify({ data: 'x'.repeat(1000 - 11) }), { 'content-type': 'application/json' }),
    json(201, { id: 'new', data: big }),
    raw(400, `<html>${big}</html>`, { 'content-type': 'text/html' }),
  ]);
  t.after(server.close);
  const { client } = makeClient(server.url, { maxResponseBytes: 1000 });
  assert.equal(client.maxResponseBytes, 1000);

  const announced = await toolError(client.request({ method: 'GET', path: '/boards' }));
  assert.equal(announced.details.kind, 'upstream_error');
  assert.equal(announced.details.status, undefined, 'the status is in the message; the answer itself was fine');
  assert.match(announced.message, /answered HTTP 200 with a body larger than 1,000 bytes/);
  assert.match(announced.message, /announced 5,011 bytes/);
  assert.match(announced.details.nextStep ?? '', /Narrow the request/);
  assert.match(announced.details.nextStep ?? '', /TOOLSERVERS_MAX_RESPONSE_BYTES/);

  const chunked = await toolError(client.request({ method: 'GET', path: '/boards' }));
  assert.equal(chunked.details.kind, 'upstream_error');
  assert.match(chunked.message, /larger than 1,000 bytes/);

  const exact = await client.request<{ data: string }>({ method: 'GET', path: '/boards' });
  assert.equal(exact.data.data.length, 989, 'exactly the limit is read');

  const created = await toolError(client.request({ method: 'POST', effect: 'create', path: '/boards', body: {} }));
  assert.match(created.message, /itself was carried out \(HTTP 201\)/);
  assert.match(created.details.nextStep ?? '', /Do not repeat it/);

  const errorBody = await toolError(client.request({ method: 'GET', path: '/x' }));
  assert.equal(errorBody.details.kind, 'bad_request', 'an over-long error body is cut, not an error of its own');
  assert.equal(errorBody.details.platformMessage?.length, 300);
  assert.equal(server.seen.length, 5, 'nothing was retried');
});

test('TOOLSERVERS_MAX_RESPONSE_BYTES and TOOLSERVERS_MAX_CONCURRENT_REQUESTS set the bounds; bad values stop the client', () => {
  const { client } = makeClient('http://127.0.0.1:9', { env: { TOOLSERVERS_MAX_RESPONSE_BYTES: '1_000_000', TOOLSERVERS_MAX_CONCURRENT_REQUESTS: '4' } });
  assert.equal(client.maxResponseBytes, 1_000_000);
  assert.equal(client.stats().maxConcurrentRequests, 4);
  const { client: defaults } = makeClient('http://127.0.0.1:9', { env: {} });
  assert.equal(defaults.maxResponseBytes, 20 * 1024 * 1024);
  assert.equal(defaults.stats().maxConcurrentRequests, 16);
  const { client: explicit } = makeClient('http://127.0.0.1:9', { env: { TOOLSERVERS_MAX_RESPONSE_BYTES: '5' }, maxResponseBytes: 7 });
  assert.equal(explicit.maxResponseBytes, 7, 'the option wins over the environment');
  for (const [name, value] of [
    ['TOOLSERVERS_MAX_RESPONSE_BYTES', 'lots'],
    ['TOOLSERVERS_MAX_CONCURRENT_REQUESTS', '0'],
    ['TOOLSERVERS_MAX_CONCURRENT_REQUESTS', '2.5'],
  ] as const) {
    assert.throws(
      () => makeClient('http://127.0.0.1:9', { env: { [name]: value } }),
      (error: unknown) => error instanceof ToolError && error.details.kind === 'not_configured' && error.message.includes(name),
    );
  }
});

// ---------------------------------------------------------------------------------------------
// Concurrency and shared rate limits

test('ConcurrencyLimiter: FIFO grants, a cancelled waiter leaves the queue, release is idempotent', async () => {
  const limiter = new ConcurrencyLimiter(2);
  const order: string[] = [];
  const a = await limiter.acquire();
  const b = await limiter.acquire();
  const controller = new AbortController();
  const c = limiter.acquire().then((release) => (order.push('c'), release));
  const cancelled = limiter.acquire(controller.signal).then(
    () => order.push('cancelled-granted'),
    () => order.push('cancelled-rejected'),
  );
  const d = limiter.acquire().then((release) => (order.push('d'), release));
  assert.equal(limiter.queued, 3);
  controller.abort();
  await cancelled;
  assert.equal(limiter.queued, 2, 'the cancelled waiter is gone');
  a();
  a();
  const releaseC = await c;
  assert.equal(limiter.inFlight, 2);
  b();
  const releaseD = await d;
  assert.deepEqual(order, ['cancelled-rejected', 'c', 'd']);
  releaseC();
  releaseD();
  assert.equal(limiter.inFlight, 0);
  await assert.rejects(limiter.acquire(AbortSignal.abort()));
  assert.throws(() => new ConcurrencyLimiter(0), RangeError);
});

test('300 parallel requests of one caller never have more than its share of maxConcurrentRequests in flight at the upstream', async (t) => {
  let inFlight = 0;
  let maxInFlight = 0;
  let served = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        inFlight -= 1;
        served += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const { client } = makeClient(`http://127.0.0.1:${port}`, { env: {} });
  let maxQueued = 0;
  const sampler = setInterval(() => {
    maxQueued = Math.max(maxQueued, client.stats().queued);
  }, 1);
  const calls = Array.from({ length: 300 }, (_, i) => client.request({ method: 'GET', path: '/items/{id}', pathParams: { id: String(i) } }));
  const results = await Promise.all(calls).finally(() => clearInterval(sampler));
  assert.equal(results.length, 300);
  assert.equal(served, 300);
  // One caller holds at most 12 of the 16 slots: a quarter stays free for other callers (test/fair-share.test.ts).
  assert.ok(maxInFlight <= 12, `at most 12 in flight for one caller (saw ${maxInFlight})`);
  assert.equal(maxInFlight, 12, "the caller's share is used");
  assert.ok(maxQueued > 100, `the rest waited in the queue (at most ${maxQueued} at once)`);
  assert.deepEqual(client.stats().inFlight, 0);
});

test('a request cancelled while it waits for a slot leaves the queue and sends nothing', async (t) => {
  const server = await startServer([slow(300, json(200, { first: true })), json(200, { third: true })]);
  t.after(server.close);
  const { client } = makeClient(server.url, { maxConcurrentRequests: 1 });
  const first = client.request({ method: 'GET', path: '/slow' });
  const controller = new AbortController();
  const second = toolError(client.request({ method: 'POST', effect: 'create', path: '/boards', body: {}, signal: controller.signal }));
  const third = client.request({ method: 'GET', path: '/next' });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(client.stats().queued, 2);
  controller.abort();
  const cancelled = await second;
  assert.equal(cancelled.details.kind, 'cancelled');
  assert.match(cancelled.message, /before anything was sent/);
  assert.match(cancelled.details.nextStep ?? '', /Nothing to do/);
  assert.equal(client.stats().queued, 1);
  assert.deepEqual((await first).data, { first: true });
  assert.deepEqual((await third).data, { third: true });
  assert.deepEqual(server.seen.map((s) => s.url), ['/slow', '/next']);
});

test('a 429 holds back every request of the client; a wait over the cap fails the others fast without sending', async (t) => {
  const server = await startServer([json(429, {}, { 'retry-after': '60' }), json(200, { later: true })]);
  t.after(server.close);
  const clock = fakeClock();
  const { client } = makeClient(server.url, { now: clock.now, sleep: clock.sleep });
  const limited = await toolError(client.request({ method: 'GET', path: '/a' }));
  assert.equal(limited.details.retryAfterSeconds, 60);
  clock.advance(15_000);
  const held = await toolError(client.request({ method: 'POST', effect: 'create', path: '/b', body: {} }));
  assert.equal(held.details.kind, 'rate_limited');
  assert.equal(held.details.retryAfterSeconds, 45);
  assert.match(held.message, /This request was not sent/);
  assert.equal(server.seen.length, 1);
  clock.advance(45_000);
  const later = await client.request({ method: 'GET', path: '/c' });
  assert.deepEqual(later.data, { later: true });
  assert.deepEqual(clock.delays, [], 'nothing slept: over the cap fails fast, after it nothing is held');
});

test('a 429 without reset headers holds back another call of the same client for at least 1 s (real time)', async (t) => {
  const events: { what: string; at: number }[] = [];
  let limitedOnce = false;
  let answered429: () => void = () => undefined;
  const sent429 = new Promise<void>((resolve) => {
    answered429 = resolve;
  });
  const server = createServer((req, res) => {
    events.push({ what: `${req.method} ${req.url}`, at: performance.now() });
    req.resume();
    if (req.url === '/a' && !limitedOnce) {
      limitedOnce = true;
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end('{"message":"Too many requests"}', () => answered429());
      events.push({ what: '429 sent', at: performance.now() });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const client = new UpstreamClient({ baseUrl: `http://127.0.0.1:${port}`, platformName: 'CanvasApi', authorization: () => 'Bearer abcdefgh12345678' });
  const a = client.request({ method: 'GET', path: '/a' });
  await sent429;
  while (client.stats().notBefore === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  const b = client.request({ method: 'POST', effect: 'create', path: '/b', body: {} });
  await Promise.all([a, b]);
  const at = (what: string): number => {
    const event = events.find((e) => e.what === what);
    assert.ok(event, what);
    return event.at;
  };
  const limitedAt = at('429 sent');
  assert.deepEqual(
    events.map((e) => e.what),
    ['GET /a', '429 sent', ...events.slice(2).map((e) => e.what)],
  );
  for (const later of events.slice(2)) {
    assert.ok(later.at - limitedAt >= 990, `${later.what} came ${Math.round(later.at - limitedAt)} ms after the 429 (at least 1 s)`);
  }
  assert.equal(events.length, 4, 'A once more and B once');
});
