/**
 * The default upstream transport (node:http over a keep-alive agent): connections are reused,
 * bodies are sent with the right length whatever their characters, a user agent is sent, and a
 * connection the platform closes mid-answer is a failure, never a short body.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ToolError } from '../src/core/errors.js';
import { UpstreamClient } from '../src/core/platform/upstream.js';

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ url: string; sockets: Set<Socket>; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sockets,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const client = (baseUrl: string) => new UpstreamClient({ baseUrl, platformName: 'P', authorization: () => 'Bearer token-aaaaaaaa', retry: { maxRetries: 0 } });

test('sequential calls reuse one connection; a user agent and the exact body length are sent', async (t) => {
  const seen: { ua?: string; length?: string; body: string }[] = [];
  const server = await serve((req, res, body) => {
    seen.push({ ua: req.headers['user-agent'], length: req.headers['content-length'], body });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ echoed: body.length }));
  });
  t.after(() => server.close());
  const upstream = client(server.url);
  const text = 'Grüße, 付箋 🗒️';
  for (let i = 0; i < 5; i++) await upstream.request({ method: 'POST', path: '/notes', body: { text }, effect: 'create' });
  assert.equal(server.sockets.size, 1, 'one keep-alive connection served all five calls');
  for (const entry of seen) {
    assert.equal(entry.ua, 'toolservers');
    assert.equal(Number(entry.length), Buffer.byteLength(entry.body), 'Content-Length counts bytes, not characters');
    assert.deepEqual(JSON.parse(entry.body), { text });
  }
});

test('an answer cut off mid-body is a network failure naming the reset, not a short or empty result', async (t) => {
  const server = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"items":[1,2,3');
    setTimeout(() => res.socket?.destroy(), 20);
  });
  t.after(() => server.close());
  await assert.rejects(client(server.url).request({ method: 'GET', path: '/items' }), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.details.kind, 'network_error');
    assert.match(error.message, /reset|closed/i);
    return true;
  });
});

test('a refused connection is reported as never sent', async () => {
  const server = await serve(() => undefined);
  const url = server.url;
  await server.close();
  await assert.rejects(client(url).request({ method: 'POST', path: '/x', body: {}, effect: 'create' }), (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.details.kind, 'network_error');
    assert.match(error.message, /refused/i);
    return true;
  });
});
