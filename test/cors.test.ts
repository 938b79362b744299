/**
 * CORS over real HTTP: browser clients from allowed origins (loopback, and --allowed-origin host
 * names) get preflight answers without the server key and read every answer, errors included;
 * any other origin is refused as before, with no CORS header at all. --allowed-origin takes full
 * origins (matched exactly) and bare host names; any other value stops the start with one line.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { allowedOriginRule } from '../src/core/serving/http/origins.js';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { incidentOpsServerFor, startTestSandbox } from './support/harness.js';

const SERVER_KEY = 'cors-test-server-key-0123456789';
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const LOOPBACK_ORIGIN = 'http://localhost:5173';
const ALLOWED_ORIGIN = 'https://app.example.com';
const FOREIGN_ORIGIN = 'https://evil.example';

function headerList(value: string | null): string[] {
  return (value ?? '').split(',').map((part) => part.trim().toLowerCase()).filter(Boolean);
}

function corsHeadersOf(response: Response): string[] {
  return [...response.headers.keys()].filter((name) => name.startsWith('access-control-'));
}

function preflight(url: string, origin: string, requestHeaders = 'authorization, content-type, mcp-protocol-version'): Promise<Response> {
  return fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders } });
}

describe('CORS for browser clients', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  let endpoint: string;

  before(async () => {
    sandbox = await startTestSandbox();
    http = await serveOverHttp({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      serverKey: SERVER_KEY,
      allowedOrigins: ['app.example.com'],
      mounts: [{ path: '/incidentops/mcp', server: incidentOpsServerFor(sandbox) }],
    });
    endpoint = `${http.url}/incidentops/mcp`;
  });

  after(async () => {
    await http?.close();
    await sandbox?.close();
  });

  it('answers a preflight from a loopback origin with 204 and no key (it used to get 401)', async () => {
    const response = await preflight(endpoint, LOOPBACK_ORIGIN);
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), LOOPBACK_ORIGIN, 'the origin is echoed, never *');
    assert.deepEqual(headerList(response.headers.get('access-control-allow-methods')), ['get', 'post', 'delete', 'options']);
    const allowed = headerList(response.headers.get('access-control-allow-headers'));
    for (const name of [
      'authorization',
      'content-type',
      'accept',
      'mcp-protocol-version',
      'mcp-session-id',
      'mcp-method',
      'mcp-name',
      'last-event-id',
      'x-request-id',
      'x-toolservers-profile',
      'x-toolservers-toolsets',
      'x-toolservers-tools',
      'x-toolservers-exclude-tools',
      'x-toolservers-read-only',
      'x-toolservers-tool-names',
    ]) {
      assert.ok(allowed.includes(name), `Access-Control-Allow-Headers lists ${name}`);
    }
    assert.ok(Number(response.headers.get('access-control-max-age')) > 0);
    assert.ok(headerList(response.headers.get('vary')).includes('origin'));
    assert.equal(response.headers.get('access-control-allow-credentials'), null, 'no credentials mode: bearer headers need none');
    assert.equal(await response.text(), '');
  });

  it('answers a preflight from an --allowed-origin host name, on any route, and allows requested Mcp-Param-* headers', async () => {
    const response = await preflight(endpoint, ALLOWED_ORIGIN, 'content-type, Mcp-Param-Region');
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.ok(headerList(response.headers.get('access-control-allow-headers')).includes('mcp-param-region'));
    // A route without an MCP endpoint (e.g. metadata added later) is preflighted alike.
    const elsewhere = await preflight(`${http.url}/.well-known/oauth-protected-resource`, ALLOWED_ORIGIN);
    assert.equal(elsewhere.status, 204);
    assert.equal(elsewhere.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
  });

  it('answers Chrome private-network preflights from allowed origins', async () => {
    const allowed = await fetch(endpoint, {
      method: 'OPTIONS',
      headers: { origin: LOOPBACK_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-private-network': 'true' },
    });
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-private-network'), 'true');
  });

  it('refuses a preflight from any other origin with 403 and no CORS headers', async () => {
    for (const origin of [FOREIGN_ORIGIN, 'null', 'http://app.example.com.evil.example']) {
      const response = await preflight(endpoint, origin);
      assert.equal(response.status, 403, origin);
      assert.deepEqual(corsHeadersOf(response), [], `${origin}: no Access-Control-* header`);
      await response.text();
    }
  });

  it('lets an allowed origin read every answer: 401 with WWW-Authenticate exposed, 404, the probes', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const unauthorized = await fetch(endpoint, { method: 'POST', body, headers: { origin: LOOPBACK_ORIGIN, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('access-control-allow-origin'), LOOPBACK_ORIGIN);
    const exposed = headerList(unauthorized.headers.get('access-control-expose-headers'));
    for (const name of ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'x-request-id']) assert.ok(exposed.includes(name), `exposes ${name}`);
    assert.match(unauthorized.headers.get('www-authenticate') ?? '', /^Bearer /);
    await unauthorized.text();

    const missing = await fetch(`${http.url}/nothing/here`, { headers: { origin: ALLOWED_ORIGIN } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    await missing.text();

    // The probes are routes like any other.
    for (const probe of ['/health', '/ready']) {
      const answer = await fetch(`${http.url}${probe}`, { headers: { origin: LOOPBACK_ORIGIN } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('access-control-allow-origin'), LOOPBACK_ORIGIN, probe);
      await answer.text();
    }
  });

  it('serves a whole MCP session from an allowed origin with CORS headers on every answer', async () => {
    const seen: Response[] = [];
    const browserLikeFetch: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('origin', LOOPBACK_ORIGIN);
      const response = await fetch(input, { ...init, headers });
      seen.push(response);
      return response;
    };
    const client = new Client({ name: 'cors-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { fetch: browserLikeFetch, requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
    try {
      const result = await client.callTool({ name: 'IncidentOps.WhoAmI', arguments: {} });
      assert.equal(result.isError, undefined);
    } finally {
      await client.close();
    }
    assert.ok(seen.length >= 2);
    for (const response of seen) {
      assert.equal(response.headers.get('access-control-allow-origin'), LOOPBACK_ORIGIN, `${response.status} answer carries the origin`);
      assert.ok(headerList(response.headers.get('access-control-expose-headers')).includes('x-request-id'));
    }
  });

  it('adds no CORS headers to requests without an Origin (non-browser clients) and still refuses foreign origins', async () => {
    const plain = await fetch(`${http.url}/health`);
    assert.equal(plain.status, 200);
    assert.deepEqual(corsHeadersOf(plain), []);
    await plain.text();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    const foreign = await fetch(endpoint, { method: 'POST', body, headers: { origin: FOREIGN_ORIGIN, authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' } });
    assert.equal(foreign.status, 403, 'the DNS-rebinding Origin check stays');
    assert.deepEqual(corsHeadersOf(foreign), []);
    assert.equal(foreign.headers.get('www-authenticate'), null, 'refused before the key check');
    await foreign.text();
  });
});

describe('--allowed-origin: full origins matched exactly, bare host names on any scheme and port, anything else refused at start', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  let endpoint: string;

  before(async () => {
    sandbox = await startTestSandbox();
    http = await serveOverHttp({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      serverKey: SERVER_KEY,
      allowedOrigins: ['http://app.example.com:8080', 'https://Secure.Example.com:443/', 'bare.example.com'],
      mounts: [{ path: '/incidentops/mcp', server: incidentOpsServerFor(sandbox) }],
    });
    endpoint = `${http.url}/incidentops/mcp`;
  });

  after(async () => {
    await http?.close();
    await sandbox?.close();
  });

  it('a preflight from a full origin given that way gets 204 with CORS headers', async () => {
    for (const origin of ['http://app.example.com:8080', 'https://secure.example.com', 'https://bare.example.com', 'http://bare.example.com:3000']) {
      const response = await preflight(endpoint, origin);
      assert.equal(response.status, 204, origin);
      assert.equal(response.headers.get('access-control-allow-origin'), origin);
      assert.ok(headerList(response.headers.get('access-control-allow-methods')).includes('post'), origin);
    }
  });

  it('another port or scheme than the full origin given is refused, before and after the preflight', async () => {
    for (const origin of ['http://app.example.com', 'http://app.example.com:8081', 'https://app.example.com:8080', 'http://secure.example.com', 'https://secure.example.com:8443', 'ftp://bare.example.com']) {
      const response = await preflight(endpoint, origin);
      assert.equal(response.status, 403, origin);
      assert.deepEqual(corsHeadersOf(response), [], `${origin}: no Access-Control-* header`);
      await response.text();
      const post = await fetch(endpoint, { method: 'POST', body: '{}', headers: { origin, authorization: `Bearer ${SERVER_KEY}`, 'content-type': 'application/json' } });
      assert.equal(post.status, 403, `${origin}: the Origin check refuses the request itself`);
      await post.text();
    }
  });

  it('names a value that is neither spelling and says what is allowed; accepts both spellings', async () => {
    for (const bad of ['https://app.example.com/path', 'https://app.example.com?x=1', 'https://app.example.com#top', '*.example.com', 'https://*.example.com', 'ftp://app.example.com', 'app.example.com:8080', 'app.example.com/mcp', 'not a host', '', 'https://user:pw@app.example.com', 'chrome-extension://abcdef']) {
      assert.throws(
        () => allowedOriginRule(bad),
        (error: Error) => error.message.includes(JSON.stringify(bad)) && /full origin such as https:\/\/app\.example\.com/.test(error.message) && !error.message.includes('\n'),
        bad,
      );
      await assert.rejects(serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: SERVER_KEY, allowedOrigins: [bad], mounts: [] }), /--allowed-origin/);
    }
    assert.deepEqual(allowedOriginRule('https://App.Example.com:443'), { origin: 'https://app.example.com' });
    assert.deepEqual(allowedOriginRule('http://app.example.com:8080/'), { origin: 'http://app.example.com:8080' });
    assert.deepEqual(allowedOriginRule('App.Example.com'), { hostname: 'app.example.com' });
    assert.deepEqual(allowedOriginRule('[::1]'), { hostname: '[::1]' });
  });

  it('the CLI stops at start with a one-line error naming a bad --allowed-origin value', () => {
    const result = spawnSync(process.execPath, [CLI, 'incidentops', '--transport', 'http', '--port', '0', '--sandbox', '--allowed-origin', 'https://app.example.com', 'https://app.example.com/app'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'error', HOME: process.env.HOME ?? '' },
    });
    assert.equal(result.status, 2, result.stderr);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0] ?? '', /^--allowed-origin "https:\/\/app\.example\.com\/app": an origin has no path, query or fragment; give a full origin/);
  });
});
