/**
 * Client ID Metadata Documents: a client whose client_id is the URL of a JSON document about
 * itself, with no registration. The dev path (TOOLSERVERS_DEV_ALLOW_HTTP_CLIENT_IDS) accepts a
 * document on http loopback, so the whole flow runs here: code + PKCE, the document's client_name
 * on the consent page, a token that calls tools. Bad documents are refused with an OAuth error
 * naming what is wrong; without the flag an http client_id is refused, and an https one whose
 * host does not resolve fails cleanly.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { DEMO_USER_ID } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, CLIENT_REDIRECT, HttpBrowser, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';

const CLIENT_NAME = 'Metadata Document Client';
/** No answer to any step may take longer than this (a bound against hangs, not a timing check). */
const NO_HANG_MS = 10_000;

/** A loopback web server publishing client metadata documents, good and bad. */
async function startDocumentHost(): Promise<{ url: string; fetches: Map<string, number>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const fetches = new Map<string, number>();
  let base = '';
  const document = (path: string, extra: Record<string, unknown> = {}) => ({
    client_id: `${base}${path}`,
    client_name: CLIENT_NAME,
    redirect_uris: [CLIENT_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    fetches.set(path, (fetches.get(path) ?? 0) + 1);
    if (path === '/good.json') return json(res, document(path));
    if (path === '/other-id.json') return json(res, document(path, { client_id: `${base}/good.json` }));
    if (path === '/with-secret.json') return json(res, document(path, { client_secret: 'not-allowed' }));
    if (path === '/too-large.json') return json(res, document(path, { padding: 'x'.repeat(200 * 1024) }));
    if (path === '/not-json.json') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Not a document</title>');
    }
    if (path === '/slow.json') {
      // Headers, then a body that never ends.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"client_id":');
      return;
    }
    res.writeHead(404).end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: base,
    fetches,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Pkce {
  verifier: string;
  challenge: string;
}

function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizationUrl(server: OAuthTestServer, clientId: string, code: Pkce, options: { redirectUri?: string; loginHint?: string } = {}): string {
  const url = new URL(`${server.http.url}/oauth/auth`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: options.redirectUri ?? CLIENT_REDIRECT,
    scope: 'mcp:tools',
    state: randomBytes(8).toString('base64url'),
    code_challenge: code.challenge,
    code_challenge_method: 'S256',
    resource: server.endpoint('incidentops'),
    ...(options.loginHint ? { login_hint: options.loginHint } : {}),
  }).toString();
  return url.href;
}

/** The authorization endpoint's answer to a request it refuses: an HTML error page (never a redirect to an unverified client). */
async function refusal(url: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(NO_HANG_MS) });
  const text = (await response.text()).replace(/<[^>]+>/g, ' ').replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  return { status: response.status, text };
}

describe('Client ID Metadata Documents', () => {
  let sandbox: RunningSandbox;
  let dev: OAuthTestServer;
  let plain: OAuthTestServer;
  let host: Awaited<ReturnType<typeof startDocumentHost>>;

  before(async () => {
    sandbox = await startTestSandbox();
    dev = await startOAuthServer(sandbox, { allowHttpClientIds: true });
    plain = await startOAuthServer(sandbox);
    host = await startDocumentHost();
  });
  after(async () => {
    await host?.close();
    await dev?.close();
    await plain?.close();
    await sandbox?.close();
  });

  it('the authorization server metadata advertises client_id_metadata_document_supported', async () => {
    for (const server of [dev, plain]) {
      const metadata = (await (await fetch(`${server.http.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
      assert.equal(metadata.client_id_metadata_document_supported, true);
      assert.ok(typeof metadata.registration_endpoint === 'string', 'registration stays available as the fallback');
    }
  });

  it('dev flag: an http loopback document completes code + PKCE, names the client on the consent page, and its token calls tools', async () => {
    const clientId = `${host.url}/good.json`;
    const code = pkce();
    const browser = new HttpBrowser();
    const answer = await browser.authorize(authorizationUrl(dev, clientId, code, { loginHint: 'demo.user@example.com' }));
    assert.ok(answer.get('code'), `authorization answered ${answer.toString()}`);
    const consent = browser.pages.find((page) => page.html.includes('name="csrf"'));
    assert.ok(consent, 'the consent page was shown');
    assert.match(consent.html, new RegExp(`<h1>Allow ${CLIENT_NAME} to use IncidentOps\\?</h1>`));
    assert.ok(consent.html.includes(clientId.replace(/&/g, '&#38;')), 'the consent page shows the client ID URL');

    // Without the verifier the code is useless; with it, tokens for the one endpoint.
    const tokenRequest = (verifier: string) =>
      fetch(`${dev.http.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: answer.get('code') as string, redirect_uri: CLIENT_REDIRECT, client_id: clientId, code_verifier: verifier, resource: dev.endpoint('incidentops') }),
        signal: AbortSignal.timeout(NO_HANG_MS),
      });
    const wrong = await tokenRequest(pkce().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as { error: string }).error, 'invalid_grant');
    const response = await tokenRequest(code.verifier);
    const tokens = (await response.json()) as { access_token?: string; refresh_token?: string; token_type?: string };
    assert.equal(response.status, 200, JSON.stringify(tokens));
    assert.ok(tokens.access_token && tokens.refresh_token);

    const client = new Client({ name: 'cimd-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(dev.endpoint('incidentops')), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }));
    try {
      const who = await callJson(client, 'IncidentOps.WhoAmI');
      assert.equal(who.isError, false, JSON.stringify(who.data));
      assert.equal((who.data.user as Record<string, unknown>).id, DEMO_USER_ID);
    } finally {
      await client.close();
    }
  });

  it('dev flag: a redirect_uri the document does not list is refused', async () => {
    const { status, text } = await refusal(authorizationUrl(dev, `${host.url}/good.json`, pkce(), { redirectUri: 'http://127.0.0.1:9/elsewhere' }));
    assert.equal(status, 400);
    assert.match(text, /invalid_redirect_uri/);
    assert.match(text, /redirect_uri/);
  });

  const badDocuments: [string, string, RegExp][] = [
    ['/other-id.json', 'a document naming another client_id', /invalid_client_metadata.*client_id/],
    ['/with-secret.json', 'a document carrying a client_secret', /invalid_client_metadata.*client_secret/],
    ['/not-json.json', 'an answer that is not JSON', /invalid_client.*JSON/i],
    ['/too-large.json', 'a document over the size limit', /invalid_client.*(large|size)/i],
    ['/slow.json', 'a document whose body never ends', /invalid_client.*no complete answer within/],
    ['/missing.json', 'a URL that answers 404', /invalid_client.*404/],
  ];
  for (const [path, what, expected] of badDocuments) {
    it(`dev flag: ${what} is refused with an OAuth error saying why`, async () => {
      const { status, text } = await refusal(authorizationUrl(dev, `${host.url}${path}`, pkce()));
      assert.equal(status, 400, text);
      assert.match(text.replace(/\s+/g, ' '), expected);
    });
  }

  it('without the dev flag an http client_id is refused without being fetched', async () => {
    const before_ = host.fetches.get('/good.json') ?? 0;
    const { status, text } = await refusal(authorizationUrl(plain, `${host.url}/good.json`, pkce()));
    assert.equal(status, 400, text);
    assert.match(text, /invalid_client/);
    assert.match(text, /https/);
    assert.equal(host.fetches.get('/good.json') ?? 0, before_, 'the document was not fetched');
  });

  it('an https client_id whose host does not resolve fails cleanly, without hanging', async () => {
    const { status, text } = await refusal(authorizationUrl(plain, 'https://client-metadata.invalid/client.json', pkce()));
    assert.equal(status, 400, text);
    assert.match(text, /invalid_client/);
    assert.match(text, /metadata document/);
  });
});
