/**
 * Bounded upstream use: a 400 MB answer is abandoned at the byte cap with memory to match,
 * 300 parallel tool calls keep at most 16 requests in flight at the platform (one caller 12 of them,
 * its fair share), and a 429 without reset headers slows the client down by at least a second, never "0 seconds".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAsCaller } from '../src/core/caller.js';
import { ConcurrencyLimiter } from '../src/core/concurrency.js';
import { ToolError } from '../src/core/errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, UpstreamClient } from '../src/core/platform/upstream.js';
import { callTool, canvasApiServerFor, incidentOpsServerFor, jsonResponse, scriptedFetch, startTestSandbox } from './support/harness.js';
import { startFaultProxy } from './support/fault-proxy.js';

const MB = 1024 * 1024;
const HUGE_BYTES = 400 * MB;

/** One ~64 KB piece of a boards list, generated once and written over and over (nothing of 400 MB is ever held). */
const PIECE = Buffer.from(
  Array.from({ length: 400 }, (_, i) => JSON.stringify({ id: `3458764${String(i).padStart(12, '0')}`, type: 'board', name: `Board ${i}`, description: 'x'.repeat(80) })).join(',') + ',',
);

interface Streamer {
  url: string;
  /** Bytes written to sockets so far, over all requests. */
  written: () => number;
  close: () => Promise<void>;
}

/** A loopback server whose every answer is a 400 MB JSON list, streamed with backpressure until done or the client leaves. */
async function startHugeStreamer(announceLength: boolean): Promise<Streamer> {
  let written = 0;
  const write = async (res: ServerResponse): Promise<void> => {
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const head = Buffer.from('{"data":[');
    const tail = Buffer.from('{}],"total":1}');
    res.writeHead(200, { 'content-type': 'application/json', ...(announceLength ? { 'content-length': String(HUGE_BYTES) } : {}) });
    res.write(head);
    let sent = head.length;
    while (!closed && sent + PIECE.length + tail.length <= HUGE_BYTES) {
      sent += PIECE.length;
      written += PIECE.length;
      if (!res.write(PIECE)) await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
    if (!closed) res.end(Buffer.concat([Buffer.alloc(HUGE_BYTES - sent - tail.length, 0x20), tail]));
  };
  const server = createServer((req, res) => {
    req.resume();
    void write(res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    written: () => written,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

test('a 400 MB answer streamed without a length is abandoned at the 20 MiB cap; memory grows far less than the answer', async (t) => {
  const streamer = await startHugeStreamer(false);
  t.after(streamer.close);
  const client = new UpstreamClient({ baseUrl: streamer.url, platformName: 'CanvasApi', authorization: () => 'Bearer abcdefgh12345678', env: {} });
  assert.equal(client.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  let error: unknown;
  try {
    await client.request({ method: 'GET', path: '/v2/boards' });
  } catch (caught) {
    error = caught;
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  assert.ok(error instanceof ToolError, String(error));
  assert.equal(error.details.kind, 'upstream_error');
  assert.match(error.message, /answered HTTP 200 with a body larger than 20,971,520 bytes, the most this server reads/);
  assert.match(error.details.nextStep ?? '', /Narrow the request/);
  const growthMb = (peak - rssBefore) / MB;
  console.log(`400 MB streamed answer: RSS ${Math.round(rssBefore / MB)} MB before, peak ${Math.round(peak / MB)} MB (+${growthMb.toFixed(1)} MB); the server wrote ${(streamer.written() / MB).toFixed(1)} MB before the client left`);
  assert.ok(growthMb < DEFAULT_MAX_RESPONSE_BYTES / MB + 100, `RSS grew by ${growthMb.toFixed(1)} MB (bound: cap + 100 MB)`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(streamer.written() < 200 * MB, `reading stopped early: ${(streamer.written() / MB).toFixed(1)} MB of 400 MB were written`);
});

test('through a CanvasApi tool: a 400 MB answer (announced or not) is a clear error, not a huge or empty result', async (t) => {
  for (const announce of [true, false]) {
    const streamer = await startHugeStreamer(announce);
    t.after(streamer.close);
    const server = canvasApiServerFor({ baseUrl: streamer.url, token: 'sandbox-token' });
    const rssBefore = process.memoryUsage().rss;
    const outcome = await callTool(server, 'CanvasApi.RetrieveUserBoards', {});
    const growthMb = (process.memoryUsage().rss - rssBefore) / MB;
    assert.equal(outcome.isError, true);
    assert.equal(outcome.data.kind, 'upstream_error');
    assert.match(String(outcome.data.message), announce ? /announced 419,430,400 bytes/ : /larger than 20,971,520 bytes/);
    assert.match(String(outcome.data.next_step), /Narrow the request/);
    assert.ok(growthMb < DEFAULT_MAX_RESPONSE_BYTES / MB + 100, `RSS grew by ${growthMb.toFixed(1)} MB`);
    await streamer.close();
  }
});

test('300 parallel tool calls keep at most 16 requests in flight at the platform, per server', async (t) => {
  const sandbox = await startTestSandbox({ latencyMs: 15 });
  t.after(() => sandbox.close());
  const proxy = await startFaultProxy(sandbox.url);
  t.after(() => proxy.close());
  const demo = sandbox.canvasapi.demo;
  assert.ok(demo);
  const canvas = canvasApiServerFor({ baseUrl: `${proxy.url}/canvasapi`, token: sandbox.canvasapi.token });
  const incidents = incidentOpsServerFor(undefined, { baseUrl: `${proxy.url}/incidentops`, accessToken: sandbox.incidentops.token });

  // Two callers (one alone holds at most three quarters of the slots: core/concurrency.ts).
  const outcomes = await Promise.all(
    Array.from({ length: 300 }, (_, i) => {
      const who = i % 2 === 0 ? 'user-a' : 'user-b';
      return runAsCaller({ caller: { group: who, member: who } }, () => callTool(canvas, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: demo.boardIds[i % demo.boardIds.length] as string }));
    }),
  );
  assert.equal(outcomes.filter((o) => !o.isError).length, 300);
  assert.ok(proxy.maxInFlight <= 16, `CanvasApi: at most 16 in flight (saw ${proxy.maxInFlight})`);
  assert.equal(proxy.maxInFlight, 16, 'CanvasApi: the cap is reached by the two, not undershot');

  // One caller alone (the local one) reaches its fair share of the 16.
  proxy.resetCounters();
  await Promise.all(Array.from({ length: 100 }, (_, i) => callTool(canvas, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: demo.boardIds[i % demo.boardIds.length] as string })));
  assert.equal(proxy.maxInFlight, new ConcurrencyLimiter(16).maxInFlightPerCaller, "CanvasApi: one caller's share is reached, not undershot");

  proxy.resetCounters();
  const reads = await Promise.all(Array.from({ length: 300 }, () => callTool(incidents, 'IncidentOps.ListTeams', {})));
  assert.equal(reads.filter((o) => !o.isError).length, 300);
  assert.ok(proxy.maxInFlight <= 16, `IncidentOps: at most 16 in flight (saw ${proxy.maxInFlight})`);
});

test('CanvasApi: a 429 without reset headers waits at least 1 s, then 2 s, and reports a wait of at least 1 second', async () => {
  const times: number[] = [];
  const { fetch } = scriptedFetch(() => {
    times.push(performance.now());
    return jsonResponse(429, { status: 429, code: 'tooManyRequests', message: 'Rate limit exceeded', type: 'error' });
  });
  const server = canvasApiServerFor({ baseUrl: 'http://canvas.invalid', token: 'sandbox-token' }, { fetch });
  const outcome = await callTool(server, 'CanvasApi.RetrieveUserBoards', {});
  assert.equal(outcome.isError, true);
  assert.equal(outcome.data.kind, 'rate_limited');
  assert.equal(times.length, 3, 'the first attempt and two more, within the budget');
  const [first = 0, second = 0, third = 0] = times;
  assert.ok(second - first >= 990, `waited ${Math.round(second - first)} ms before the second request (at least 1 s)`);
  assert.ok(third - second >= 1990, `waited ${Math.round(third - second)} ms before the third request (at least 2 s)`);
  assert.ok(Number(outcome.data.retry_after_seconds) >= 1, `retry_after_seconds ${String(outcome.data.retry_after_seconds)}`);
  assert.doesNotMatch(JSON.stringify(outcome.data), /\b0 seconds/);
});
