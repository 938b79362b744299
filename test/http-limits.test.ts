/**
 * The HTTP server against slow and greedy clients: slowloris connections (headers one byte at a
 * time) are cut by the headers timeout, a slow body by the request timeout, connections past the
 * cap are refused, and normal requests work during and after each flood. A tool call whose answer
 * takes longer than the request timeout is not cut (the timeouts cover receiving the request only).
 * The server runs with timeouts of a few seconds so that the test stays short; the defaults are
 * checked separately.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Writable } from 'node:stream';
import { createLogger, silentLogger, type Logger } from '../src/core/logger.js';
import { DEFAULT_HTTP_LIMITS, httpLimits, MAX_CONNECTIONS_ENV, serveOverHttp, type HttpLimits, type RunningHttpServer } from '../src/core/serving/serve.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { incidentOpsServerFor, startTestSandbox } from './support/harness.js';

const SERVER_KEY = 'http-limits-test-key-0123456789';
const TEST_LIMITS: Partial<HttpLimits> = { headersTimeoutMs: 2000, requestTimeoutMs: 3000 };

interface Probe {
  socket: Socket;
  /** What the server sent before closing. */
  answer: string;
  /** ms from `started` until the server closed the connection; undefined while open. */
  closedAfter?: number;
}

/** A raw connection that records what it is answered and when it is closed. */
async function open(url: string, started: number): Promise<Probe> {
  const { port, hostname } = new URL(url);
  const socket = connect(Number(port), hostname);
  const probe: Probe = { socket, answer: '' };
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    probe.answer += chunk;
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    probe.closedAfter = Date.now() - started;
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return probe;
}

/** Writes `text` one byte every `everyMs` until it is written or the connection closes. */
function dribble(probe: Probe, text: string, everyMs: number): void {
  let next = 0;
  const timer = setInterval(() => {
    if (probe.closedAfter !== undefined || probe.socket.destroyed || next >= text.length) {
      clearInterval(timer);
      return;
    }
    probe.socket.write(text[next++]!);
  }, everyMs);
}

/** Waits until every probe is closed, or `limitMs` passed; returns those still open. */
async function closedWithin(probes: Probe[], limitMs: number): Promise<Probe[]> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline && probes.some((probe) => probe.closedAfter === undefined)) await sleep(50);
  return probes.filter((probe) => probe.closedAfter === undefined);
}

async function whoAmI(http: RunningHttpServer): Promise<unknown> {
  const client = new Client({ name: 'http-limits', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
  try {
    const result = await client.callTool({ name: 'IncidentOps.WhoAmI', arguments: {} });
    assert.equal(result.isError ?? false, false, JSON.stringify(result.content));
    return result.structuredContent;
  } finally {
    await client.close();
  }
}

const SLOW_HEAD = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SERVER_KEY}\r\nX-Padding: ${'a'.repeat(4000)}\r\n\r\n`;

describe('HTTP limits against slow and greedy clients', () => {
  let sandbox: RunningSandbox;
  const servers: RunningHttpServer[] = [];
  const sockets: Socket[] = [];
  const serve = async (limits: Partial<HttpLimits>, latencyMs = 0, logger: Logger = silentLogger) => {
    const platform = latencyMs > 0 ? await startTestSandbox({ latencyMs }) : sandbox;
    const http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger, serverKey: SERVER_KEY, mounts: [{ path: '/mcp', server: incidentOpsServerFor(platform) }], limits, env: {} });
    servers.push(http);
    if (platform !== sandbox) {
      const close = http.close;
      http.close = async () => {
        await close();
        await platform.close();
      };
    }
    return http;
  };
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    for (const http of servers) await http.close();
    await sandbox.close();
  });

  it('cuts 200 slowloris connections (headers one byte at a time) at the headers timeout, while normal requests go through', async () => {
    const http = await serve(TEST_LIMITS);
    const started = Date.now();
    const probes = await Promise.all(Array.from({ length: 200 }, () => open(http.url, started)));
    sockets.push(...probes.map((probe) => probe.socket));
    for (const probe of probes) dribble(probe, SLOW_HEAD, 100);
    // During the flood a real client is served.
    assert.ok(await whoAmI(http));
    // Node's default would keep them for 60 s and more; here every one goes by 2 s plus checking slack.
    const open200 = await closedWithin(probes, 15_000);
    assert.equal(open200.length, 0, `${open200.length} slowloris connections still open after 15 s`);
    const slowest = Math.max(...probes.map((probe) => probe.closedAfter!));
    assert.ok(slowest < 10_000, `the last slowloris connection was cut after ${slowest} ms`);
    // Each was told why: 408, never a request handled.
    assert.ok(probes.every((probe) => probe.answer === '' || probe.answer.startsWith('HTTP/1.1 408')), probes.find((probe) => !probe.answer.startsWith('HTTP/1.1 408'))?.answer.slice(0, 80));
    assert.ok(await whoAmI(http));
  });

  it('cuts a request whose body arrives too slowly at the request timeout (408), not at the headers timeout', async () => {
    const http = await serve(TEST_LIMITS);
    const started = Date.now();
    const probe = await open(http.url, started);
    sockets.push(probe.socket);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}, padding: 'b'.repeat(200) });
    probe.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SERVER_KEY}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    dribble(probe, body, 100);
    assert.deepEqual(await closedWithin([probe], 15_000), [], 'the slow body was never cut');
    assert.match(probe.answer, /^HTTP\/1\.1 408 /);
    // Headers were complete at once, so only the whole-request limit (3 s) can have cut it.
    assert.ok(probe.closedAfter! >= 2500 && probe.closedAfter! < 10_000, `cut after ${probe.closedAfter} ms`);
  });

  it('does not cut a tool call whose answer takes longer than the request timeout', async () => {
    // WhoAmI makes two platform requests: 4 s in all, past the 3 s request timeout.
    const http = await serve(TEST_LIMITS, 2000);
    const started = Date.now();
    assert.ok(await whoAmI(http));
    assert.ok(Date.now() - started >= 3500, 'the call did wait for the slow platform');
  });

  it('refuses connections past the cap and serves again once the flood clears', async () => {
    const lines: Record<string, unknown>[] = [];
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const http = await serve({ ...TEST_LIMITS, headersTimeoutMs: 20_000, requestTimeoutMs: 20_000, maxConnections: 20 }, 0, createLogger('warn', logStream));
    const started = Date.now();
    const flood: Probe[] = [];
    for (let i = 0; i < 20; i += 1) flood.push(await open(http.url, started));
    sockets.push(...flood.map((probe) => probe.socket));
    const count = () => new Promise<number>((resolve) => http.http.getConnections((_error, n) => resolve(n)));
    for (let i = 0; i < 200 && (await count()) < 20; i += 1) await sleep(10);
    assert.equal(await count(), 20);
    const extra = await open(http.url, started);
    sockets.push(extra.socket);
    extra.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    assert.deepEqual(await closedWithin([extra], 5000), [], 'the connection past the cap was kept');
    assert.equal(extra.answer, '', 'the connection past the cap got no answer');
    assert.ok(flood.every((probe) => probe.closedAfter === undefined), 'the connections within the cap stay open');
    const refused = lines.filter((line) => String(line.msg).startsWith('refused connections'));
    assert.equal(refused.length, 1, JSON.stringify(lines));
    assert.equal(refused[0]!.maxConnections, 20);
    for (const probe of flood) probe.socket.destroy();
    for (let i = 0; i < 200 && (await count()) > 0; i += 1) await sleep(10);
    assert.ok(await whoAmI(http));
  });

  it('has deliberate defaults; the connection cap can be set from the environment, and a bad value is refused naming it', async () => {
    assert.deepEqual(httpLimits({}, {}), DEFAULT_HTTP_LIMITS);
    assert.ok(DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs > 60_000, 'idle connections outlive a load balancer\'s 60 s');
    assert.ok(DEFAULT_HTTP_LIMITS.headersTimeoutMs <= 15_000 && DEFAULT_HTTP_LIMITS.requestTimeoutMs <= 60_000);
    assert.equal(httpLimits({}, { [MAX_CONNECTIONS_ENV]: '5_000' }).maxConnections, 5000);
    assert.throws(() => httpLimits({}, { [MAX_CONNECTIONS_ENV]: 'lots' }), new RegExp(`${MAX_CONNECTIONS_ENV} must be a whole number of at least 1 \\(got "lots"\\)`));
    assert.throws(() => httpLimits({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 }), /requestTimeoutMs .* must not be shorter than headersTimeoutMs/);
    const http = await serve({});
    assert.equal(http.http.headersTimeout, DEFAULT_HTTP_LIMITS.headersTimeoutMs);
    assert.equal(http.http.requestTimeout, DEFAULT_HTTP_LIMITS.requestTimeoutMs);
    assert.equal(http.http.keepAliveTimeout, DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs);
    assert.equal(http.http.maxConnections, DEFAULT_HTTP_LIMITS.maxConnections);
    // A head past 16 KiB is refused with 431 before any handler runs.
    const response = await fetch(`${http.url}/health`, { headers: { 'x-big': 'c'.repeat(20_000) } });
    assert.equal(response.status, 431);
  });
});
