/**
 * The upstream attempt leaves nothing behind: after a call resolves (or fails), no timer of it is
 * pending and no listener is left on the caller's signal; the timeout and the caller's
 * cancellation still end an attempt; headers are sent as plain values with the same checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolError } from '../src/core/errors.js';
import { UpstreamClient } from '../src/core/platform/upstream.js';

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const timers = (): number => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;

test('after a call resolves, no timer of it remains and the caller signal has no listener left', async (t) => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
  });
  t.after(() => server.close());
  const client = new UpstreamClient({ baseUrl: server.url, platformName: 'P', authorization: () => 'Bearer token-aaaaaaaa', timeoutMs: 30_000 });
  const controller = new AbortController();
  await client.request({ method: 'GET', path: '/warm', signal: controller.signal });
  const before = timers();
  for (let i = 0; i < 20; i++) {
    const answer = await client.request({ method: 'GET', path: '/x', signal: controller.signal });
    assert.deepEqual(answer.data, { ok: true });
  }
  assert.equal(timers(), before, 'no 30 s timer per call is left alive');
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'no listener left on the caller signal');
  await client.request({ method: 'GET', path: '/x' });
  assert.equal(timers(), before);
});

test('after a failed call, no timer remains either', async (t) => {
  const server = await serve((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"nope"}}');
  });
  t.after(() => server.close());
  const client = new UpstreamClient({ baseUrl: server.url, platformName: 'P', authorization: () => 'Bearer token-aaaaaaaa', timeoutMs: 30_000 });
  const controller = new AbortController();
  const before = timers();
  await assert.rejects(client.request({ method: 'GET', path: '/x', signal: controller.signal }), (error: unknown) => error instanceof ToolError && error.details.kind === 'not_found');
  assert.equal(timers(), before);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});

test('the one timer per attempt still times out a silent platform, and the caller signal still cancels', async (t) => {
  const server = await serve(() => undefined); // never answers
  t.after(() => server.close());
  const client = new UpstreamClient({ baseUrl: server.url, platformName: 'P', authorization: () => 'Bearer token-aaaaaaaa', timeoutMs: 150, retry: { maxRetries: 0 } });
  await assert.rejects(client.request({ method: 'GET', path: '/slow' }), (error: unknown) => error instanceof ToolError && error.details.kind === 'timeout');
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const slowClient = new UpstreamClient({ baseUrl: server.url, platformName: 'P', authorization: () => 'Bearer token-aaaaaaaa', timeoutMs: 30_000 });
  const before = timers();
  await assert.rejects(slowClient.request({ method: 'GET', path: '/slow', signal: controller.signal }), (error: unknown) => error instanceof ToolError && error.details.kind === 'cancelled');
  assert.ok(timers() <= before, 'the 30 s timer was cleared on cancellation');
});

test('an injected fetch that ignores the signal is still cut off by the timeout', async () => {
  const client = new UpstreamClient({
    baseUrl: 'http://127.0.0.1:9',
    platformName: 'P',
    authorization: () => 'Bearer token-aaaaaaaa',
    timeoutMs: 100,
    retry: { maxRetries: 0 },
    fetch: () => new Promise<Response>(() => undefined),
  });
  await assert.rejects(client.request({ method: 'GET', path: '/x' }), (error: unknown) => error instanceof ToolError && error.details.kind === 'timeout');
});

test('headers: plain values, defaults merged case-insensitively, invalid values refused without quoting them', async () => {
  const seen: Record<string, string>[] = [];
  const client = new UpstreamClient({
    baseUrl: 'http://platform.test',
    platformName: 'P',
    authorization: () => 'Bearer token-aaaaaaaa',
    defaultHeaders: { Accept: 'application/json', 'Content-Type': 'application/json' },
    fetch: async (_url, init) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
      seen.push(headers);
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  await client.request({ method: 'POST', path: '/x', body: { a: 1 }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.deepEqual(seen[0], { accept: 'application/json', authorization: 'Bearer token-aaaaaaaa', 'content-type': 'application/merge-patch+json' });
  await assert.rejects(client.request({ method: 'GET', path: '/x', headers: { 'x-bad': 'a\r\nb: c' } }), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.details.kind, 'invalid_input');
    assert.ok(!error.details.message.includes('b: c'));
    return true;
  });
  const badToken = new UpstreamClient({ baseUrl: 'http://platform.test', platformName: 'P', authorization: () => 'Bearer tok\nen-secret', fetch: async () => new Response('{}') });
  await assert.rejects(badToken.request({ method: 'GET', path: '/x' }), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.details.kind, 'not_configured');
    assert.ok(!error.details.message.includes('secret'));
    return true;
  });
});
