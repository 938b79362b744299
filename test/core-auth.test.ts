/**
 * The platform-neutral sign-in core: browser login (PKCE + state) against a fake OAuth server,
 * refresh (before expiry, single-flight, rotation, after a 401), revocation, the credential
 * source's precedence and messages, and the token store's modes, atomicity and locking.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { resolveClient } from '../src/core/signin/client.js';
import { CredentialSource } from '../src/core/signin/credential-source.js';
import { sourceCredentials } from '../src/core/signin/credentials.js';
import { signIn, signOut, type PlatformAuth } from '../src/core/signin/platform-auth.js';
import { printable } from '../src/core/signin/printable.js';
import { LOG_LEVELS, LogLevelError, resolveLogLevel } from '../src/core/logger.js';
import { loginWithBrowser, OAuthError, refreshTokenSet, revokeToken, type OAuthEndpoints } from '../src/core/signin/oauth.js';
import { CredentialStoreError, FileTokenStore, defaultCredentialsFile, type StoredCredential } from '../src/core/signin/token-store.js';
import { ToolError } from '../src/core/errors.js';

const execFileAsync = promisify(execFile);

const CLIENT_ID = 'toolservers-test-client';
const CLIENT_SECRET = 'client-secret-Zq8xW3vN5m';
const HOUR = 3_600_000;

// ---------------------------------------------------------------------------------------------
// A fake OAuth 2.0 authorization server (authorize, token, revoke) on 127.0.0.1
// ---------------------------------------------------------------------------------------------

interface TokenRequest {
  grantType: string | null;
  params: URLSearchParams;
  authorization: string | undefined;
}

interface FakeAuthServer {
  origin: string;
  endpoints(overrides?: Partial<OAuthEndpoints>): OAuthEndpoints;
  tokenRequests: TokenRequest[];
  revokeRequests: { path: string; contentType: string | undefined; body: string; authorization: string | undefined }[];
  /** Every secret the server handed out or knows (for leak checks). */
  secrets: Set<string>;
  /** Issues a fresh access/refresh pair directly (as if a login happened). */
  issue(): { accessToken: string; refreshToken: string };
  revokeAllRefreshTokens(): void;
  settings: { expiresIn: number; tokenDelayMs: number; rotate: boolean; deny: boolean };
  close(): Promise<void>;
}

function base64url(buffer: Buffer): string {
  return buffer.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function startFakeAuthServer(): Promise<FakeAuthServer> {
  const codes = new Map<string, { challenge: string; method: string; redirectUri: string; clientId: string; scope: string }>();
  const activeRefresh = new Set<string>();
  const secrets = new Set<string>([CLIENT_SECRET]);
  const tokenRequests: TokenRequest[] = [];
  const revokeRequests: FakeAuthServer['revokeRequests'] = [];
  const settings = { expiresIn: 3600, tokenDelayMs: 0, rotate: true, deny: false };
  let counter = 0;

  const issue = (): { accessToken: string; refreshToken: string } => {
    counter += 1;
    const accessToken = `at-${counter}-${randomBytes(8).toString('hex')}`;
    const refreshToken = `rt-${counter}-${randomBytes(8).toString('hex')}`;
    secrets.add(accessToken);
    secrets.add(refreshToken);
    activeRefresh.add(refreshToken);
    return { accessToken, refreshToken };
  };

  /** Client authentication: client_secret_post, client_secret_basic, or a public client (id only). */
  const authenticate = (params: URLSearchParams, authorization: string | undefined): { ok: boolean; clientId?: string } => {
    if (authorization?.startsWith('Basic ')) {
      const [id, secret] = Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':').map(decodeURIComponent);
      return { ok: id === CLIENT_ID && secret === CLIENT_SECRET, clientId: id };
    }
    const id = params.get('client_id') ?? undefined;
    const secret = params.get('client_secret');
    if (secret !== null) return { ok: id === CLIENT_ID && secret === CLIENT_SECRET, clientId: id };
    return { ok: id === CLIENT_ID, clientId: id }; // public client
  };

  let origin = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      if (url.pathname === '/authorize' && req.method === 'GET') {
        const q = url.searchParams;
        const redirectUri = q.get('redirect_uri') ?? '';
        const state = q.get('state') ?? '';
        if (q.get('client_id') !== CLIENT_ID || q.get('response_type') !== 'code' || !/^http:\/\/127\.0\.0\.1:\d+\//.test(redirectUri)) {
          sendJson(res, 400, { error: 'invalid_request' });
          return;
        }
        const target = new URL(redirectUri);
        if (settings.deny) {
          target.searchParams.set('error', 'access_denied');
          target.searchParams.set('error_description', 'The user declined the request');
          target.searchParams.set('state', state);
        } else {
          const code = `code-${randomBytes(8).toString('hex')}`;
          secrets.add(code);
          codes.set(code, {
            challenge: q.get('code_challenge') ?? '',
            method: q.get('code_challenge_method') ?? '',
            redirectUri,
            clientId: q.get('client_id') ?? '',
            scope: q.get('scope') ?? '',
          });
          target.searchParams.set('code', code);
          target.searchParams.set('state', state);
        }
        res.writeHead(302, { location: target.href });
        res.end();
        return;
      }
      if (url.pathname === '/token' && req.method === 'POST') {
        const params = new URLSearchParams(await readBody(req));
        const authorization = req.headers.authorization;
        tokenRequests.push({ grantType: params.get('grant_type'), params, authorization });
        if (settings.tokenDelayMs > 0) await sleep(settings.tokenDelayMs);
        const client = authenticate(params, authorization);
        if (!client.ok) {
          // Echoes the secret on purpose: the client must not repeat it in its errors.
          sendJson(res, 401, { error: 'invalid_client', error_description: `client ${client.clientId} with secret ${params.get('client_secret')} is unknown` });
          return;
        }
        const grantType = params.get('grant_type');
        if (grantType === 'authorization_code') {
          const code = params.get('code') ?? '';
          const entry = codes.get(code);
          codes.delete(code);
          const verifier = params.get('code_verifier') ?? '';
          if (!entry || entry.redirectUri !== params.get('redirect_uri') || entry.clientId !== client.clientId) {
            sendJson(res, 400, { error: 'invalid_grant', error_description: `code ${code} is unknown` });
            return;
          }
          if (entry.method !== 'S256' || base64url(createHash('sha256').update(verifier).digest()) !== entry.challenge) {
            sendJson(res, 400, { error: 'invalid_grant', error_description: `PKCE verification failed for verifier ${verifier}` });
            return;
          }
          const pair = issue();
          sendJson(res, 200, { access_token: pair.accessToken, token_type: 'Bearer', expires_in: settings.expiresIn, refresh_token: pair.refreshToken, scope: entry.scope || 'read' });
          return;
        }
        if (grantType === 'refresh_token') {
          const refreshToken = params.get('refresh_token') ?? '';
          if (!activeRefresh.has(refreshToken)) {
            sendJson(res, 400, { error: 'invalid_grant', error_description: `refresh token ${refreshToken} is revoked or expired` });
            return;
          }
          const pair = issue();
          if (settings.rotate) {
            activeRefresh.delete(refreshToken);
            sendJson(res, 200, { access_token: pair.accessToken, token_type: 'bearer', expires_in: settings.expiresIn, refresh_token: pair.refreshToken });
          } else {
            activeRefresh.delete(pair.refreshToken);
            sendJson(res, 200, { access_token: pair.accessToken, token_type: 'bearer', expires_in: settings.expiresIn });
          }
          return;
        }
        sendJson(res, 400, { error: 'unsupported_grant_type' });
        return;
      }
      if ((url.pathname === '/revoke' || url.pathname === '/v2/oauth/revoke') && req.method === 'POST') {
        const body = await readBody(req);
        revokeRequests.push({ path: url.pathname, contentType: req.headers['content-type'], body, authorization: req.headers.authorization });
        if (url.pathname === '/revoke') {
          const params = new URLSearchParams(body);
          if (!authenticate(params, req.headers.authorization).ok) {
            sendJson(res, 401, { error: 'invalid_client', error_description: `token ${params.get('token')} not revoked` });
            return;
          }
          activeRefresh.delete(params.get('token') ?? '');
          res.writeHead(200).end();
          return;
        }
        const json = JSON.parse(body) as { accessToken?: string; clientId?: string; clientSecret?: string };
        if (json.clientId !== CLIENT_ID || json.clientSecret !== CLIENT_SECRET) {
          sendJson(res, 400, { message: `cannot revoke ${json.accessToken} with secret ${json.clientSecret}` });
          return;
        }
        res.writeHead(204).end();
        return;
      }
      sendJson(res, 404, { error: 'not_found' });
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    endpoints: (overrides = {}) => ({
      authorizeUrl: `${origin}/authorize`,
      tokenUrl: `${origin}/token`,
      revokeUrl: `${origin}/revoke`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      scope: 'read write',
      ...overrides,
    }),
    tokenRequests,
    revokeRequests,
    secrets,
    issue,
    revokeAllRefreshTokens: () => activeRefresh.clear(),
    settings,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface BrowserVisit {
  status: number;
  body: string;
}

/** Plays the browser: follows /authorize (optionally tampering), then loads the loopback redirect. */
function fakeBrowser(tamper: { authorizeUrl?: (url: URL) => void; callbackUrl?: (url: URL) => void } = {}) {
  const visits: BrowserVisit[] = [];
  let done: Promise<void> = Promise.resolve();
  const openBrowser = (href: string): void => {
    done = (async () => {
      const authorize = new URL(href);
      tamper.authorizeUrl?.(authorize);
      const first = await fetch(authorize, { redirect: 'manual' });
      const location = first.headers.get('location');
      assert.ok(location, 'the authorize endpoint redirects');
      const callback = new URL(location);
      tamper.callbackUrl?.(callback);
      const page = await fetch(callback);
      visits.push({ status: page.status, body: await page.text() });
    })();
  };
  return { openBrowser, visits, finished: () => done };
}

const thrownMessages: string[] = [];

/** Awaits a rejection, records its message for the global leak check and returns the error. */
async function rejection<T extends Error = Error>(promise: Promise<unknown>): Promise<T> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error, 'rejects with an Error');
    thrownMessages.push(error.message);
    if (error instanceof ToolError) thrownMessages.push(JSON.stringify(error.toJSON()));
    if (error instanceof OAuthError) thrownMessages.push(`${error.error ?? ''} ${error.errorDescription ?? ''}`);
    return error as T;
  }
  assert.fail('expected a rejection');
}

function assertNoSecrets(texts: readonly string[], secrets: Iterable<string>): void {
  for (const secret of secrets) {
    for (const text of texts) assert.ok(!text.includes(secret), `a message leaked a secret: ${text}`);
  }
}

let tempRoot = '';
async function tempFile(name = 'credentials.json'): Promise<string> {
  const dir = await mkdtemp(path.join(tempRoot, 'store-'));
  return path.join(dir, 'nested', name);
}

function credential(auth: FakeAuthServer, pair: { accessToken: string; refreshToken: string }, expiresAt: number, extra: Partial<StoredCredential> = {}): StoredCredential {
  return {
    platform: 'incidentops',
    accessToken: pair.accessToken,
    refreshToken: pair.refreshToken,
    tokenType: 'bearer',
    scope: 'read write',
    expiresAt,
    obtainedAt: expiresAt - HOUR,
    clientId: CLIENT_ID,
    tokenUrl: `${auth.origin}/token`,
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------

let auth: FakeAuthServer;

before(async () => {
  tempRoot = await mkdtemp(path.join(tmpdir(), 'toolservers-auth-'));
  auth = await startFakeAuthServer();
});

after(async () => {
  await auth.close();
  await rm(tempRoot, { recursive: true, force: true });
  // Every message thrown anywhere in this file is free of every token, code and the client secret.
  assertNoSecrets(thrownMessages, auth.secrets);
});

describe('loginWithBrowser', () => {
  it('signs in with PKCE S256 and state, printing the URL and answering the browser', async () => {
    auth.tokenRequests.length = 0;
    const printed: string[] = [];
    const browser = fakeBrowser();
    const set = await loginWithBrowser(auth.endpoints(), { print: (line) => printed.push(line), openBrowser: browser.openBrowser, now: () => 1_000 });
    await browser.finished();

    assert.match(set.accessToken, /^at-/);
    assert.match(set.refreshToken ?? '', /^rt-/);
    assert.equal(set.tokenType, 'bearer');
    assert.equal(set.expiresAt, 1_000 + 3_600_000);
    assert.equal(set.scope, 'read write');

    const url = new URL(printed.find((line) => line.includes('/authorize'))?.trim() ?? '');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('client_id'), CLIENT_ID);
    assert.equal(url.searchParams.get('scope'), 'read write');
    assert.match(url.searchParams.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.ok((url.searchParams.get('state') ?? '').length >= 16);

    assert.equal(auth.tokenRequests.length, 1);
    const request = auth.tokenRequests[0]!;
    assert.equal(request.grantType, 'authorization_code');
    assert.equal(request.params.get('client_secret'), CLIENT_SECRET, 'client_secret_post by default when a secret exists');
    assert.equal(request.authorization, undefined);
    assert.ok(request.params.get('code_verifier'));

    assert.deepEqual(browser.visits.map((v) => v.status), [200]);
    assert.match(browser.visits[0]!.body, /Signed in/);

    // The loopback server is closed afterwards.
    const redirect = url.searchParams.get('redirect_uri')!;
    await assert.rejects(fetch(redirect));
  });

  it('supports a public client (no secret) and client_secret_basic', async () => {
    auth.tokenRequests.length = 0;
    const publicBrowser = fakeBrowser();
    await loginWithBrowser(auth.endpoints({ clientSecret: undefined }), { print: () => undefined, openBrowser: publicBrowser.openBrowser });
    const basicBrowser = fakeBrowser();
    await loginWithBrowser(auth.endpoints(), { print: () => undefined, openBrowser: basicBrowser.openBrowser, clientAuth: 'basic' });
    const [publicRequest, basicRequest] = auth.tokenRequests;
    assert.equal(publicRequest?.params.get('client_id'), CLIENT_ID);
    assert.equal(publicRequest?.params.get('client_secret'), null);
    assert.equal(publicRequest?.authorization, undefined);
    assert.match(basicRequest?.authorization ?? '', /^Basic /);
    assert.equal(basicRequest?.params.get('client_secret'), null);
  });

  it('ignores callbacks with a wrong, missing or repeated state (400, nothing printed of them) and keeps waiting for the real one', async () => {
    auth.tokenRequests.length = 0;
    const printed: string[] = [];
    const strays: { status: number; body: string }[] = [];
    let real: Promise<void> = Promise.resolve();
    const openBrowser = (href: string): void => {
      real = (async () => {
        const authorize = await fetch(href, { redirect: 'manual' });
        const callback = new URL(authorize.headers.get('location') ?? '');
        const code = callback.searchParams.get('code') ?? '';
        // Another local process tries first: a forged state, no state, the right code with a wrong state, two states, an error without state.
        const forged = new URL(callback);
        forged.searchParams.set('state', 'forged-state-value');
        const missing = new URL(callback);
        missing.searchParams.delete('state');
        const doubled = new URL(callback);
        doubled.searchParams.append('state', 'second');
        const abort = new URL(`${callback.origin}${callback.pathname}?error=access_denied&error_description=aborted`);
        for (const url of [forged, missing, doubled, abort]) {
          const page = await fetch(url);
          strays.push({ status: page.status, body: await page.text() });
        }
        assert.ok(code.length > 0);
        const page = await fetch(callback);
        strays.push({ status: page.status, body: await page.text() });
      })();
    };
    const set = await loginWithBrowser(auth.endpoints(), { print: (line) => printed.push(line), openBrowser });
    await real;
    assert.match(set.accessToken, /^at-/, 'the real redirect still signs in');
    assert.deepEqual(strays.map((s) => s.status), [400, 400, 400, 400, 200]);
    assert.match(strays[0]!.body, /does not carry its state/);
    assert.equal(auth.tokenRequests.length, 1, 'only the real code was exchanged');
    const notices = printed.filter((line) => line.startsWith('Ignored'));
    assert.equal(notices.length, 3, 'the first three strays are mentioned, then silence');
    for (const line of printed) {
      assert.doesNotMatch(line, /forged-state-value|code-|aborted/, 'nothing of a stray request is printed');
    }
  });

  it('a provider error that carries the right state ends the login; control characters of its text are stripped', async () => {
    const evil = 'Denied\u001b[2J\u001b]0;owned\u0007 by\u0000 the\u009b31m user\r\nFAKE PROMPT $ \u202eabc';
    const openBrowser = (href: string): void => {
      void (async () => {
        const authorize = new URL(href);
        const redirect = new URL(authorize.searchParams.get('redirect_uri') ?? '');
        redirect.searchParams.set('state', authorize.searchParams.get('state') ?? '');
        redirect.searchParams.set('error', 'access_denied\u001b[31m');
        redirect.searchParams.set('error_description', evil);
        await fetch(redirect);
      })();
    };
    const error = await rejection<OAuthError>(loginWithBrowser(auth.endpoints(), { print: () => undefined, openBrowser }));
    assert.equal(error.kind, 'authorization_denied');
    assert.equal(error.error, 'access_denied');
    assert.equal(error.errorDescription, 'Denied by the user FAKE PROMPT $ abc');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(error.message, /[\u0000-\u001f\u007f-\u009f\u202e]/);
    assert.match(error.message, /access_denied \(Denied by the user FAKE PROMPT \$ abc\)/);
  });

  it('reports the provider error of an error callback', async () => {
    auth.tokenRequests.length = 0;
    auth.settings.deny = true;
    try {
      const browser = fakeBrowser();
      const error = await rejection<OAuthError>(loginWithBrowser(auth.endpoints(), { print: () => undefined, openBrowser: browser.openBrowser }));
      await browser.finished();
      assert.equal(error.kind, 'authorization_denied');
      assert.equal(error.error, 'access_denied');
      assert.equal(error.errorDescription, 'The user declined the request');
      assert.match(error.message, /access_denied.*The user declined the request/);
      assert.equal(auth.tokenRequests.length, 0);
      assert.match(browser.visits[0]?.body ?? '', /access_denied/);
    } finally {
      auth.settings.deny = false;
    }
  });

  it('fails when the PKCE verifier does not match the challenge', async () => {
    const forged = base64url(createHash('sha256').update('some-other-verifier-0123456789-0123456789').digest());
    const browser = fakeBrowser({ authorizeUrl: (url) => url.searchParams.set('code_challenge', forged) });
    const error = await rejection<OAuthError>(loginWithBrowser(auth.endpoints(), { print: () => undefined, openBrowser: browser.openBrowser }));
    await browser.finished();
    assert.equal(error.kind, 'token_error');
    assert.equal(error.error, 'invalid_grant');
    assert.equal(error.status, 400);
    assert.match(error.message, /PKCE verification failed/);
    assert.doesNotMatch(error.message, /verifier [A-Za-z0-9_-]{20,}/, 'the echoed verifier is redacted');
    assert.equal(browser.visits[0]?.status, 400);
  });

  it('times out, prints the URL even when the browser cannot be opened, and frees the port', async () => {
    const printed: string[] = [];
    const error = await rejection<OAuthError>(
      loginWithBrowser(auth.endpoints(), {
        print: (line) => printed.push(line),
        openBrowser: () => {
          throw new Error('no browser here');
        },
        timeoutMs: 100,
      }),
    );
    assert.equal(error.kind, 'timeout');
    const url = new URL(printed.find((line) => line.includes('/authorize'))?.trim() ?? '');
    await assert.rejects(fetch(url.searchParams.get('redirect_uri')!));
  });

  it('an abort while the receiver is still starting ends the sign-in at once (no wait for the timeout)', async () => {
    const controller = new AbortController();
    const pending = loginWithBrowser(auth.endpoints(), { print: () => undefined, openBrowser: () => undefined, signal: controller.signal, timeoutMs: 60_000 });
    controller.abort(); // before the PKCE challenge and the listen have completed
    const error = await rejection<OAuthError>(pending);
    assert.equal(error.kind, 'cancelled');
  });

  it('can be cancelled with an AbortSignal', async () => {
    const controller = new AbortController();
    const pending = loginWithBrowser(auth.endpoints(), { print: () => undefined, openBrowser: () => undefined, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const error = await rejection<OAuthError>(pending);
    assert.equal(error.kind, 'cancelled');
  });

  it('refuses plain http to a non-loopback host before sending anything', async () => {
    let calls = 0;
    const error = await rejection<OAuthError>(
      refreshTokenSet({ ...auth.endpoints(), tokenUrl: 'http://auth.example.test/token' }, 'rt-x', {
        fetch: async () => {
          calls += 1;
          return new Response('{}');
        },
      }),
    );
    assert.equal(error.kind, 'configuration');
    assert.equal(calls, 0);
  });
});

describe('refreshTokenSet and revokeToken', () => {
  it('rotates, keeps the old refresh token for non-rotating providers, and maps invalid_grant', async () => {
    const pair = auth.issue();
    const rotated = await refreshTokenSet(auth.endpoints(), pair.refreshToken, { now: () => 5_000 });
    assert.notEqual(rotated.refreshToken, pair.refreshToken);
    assert.equal(rotated.expiresAt, 5_000 + 3_600_000);

    auth.settings.rotate = false;
    try {
      const kept = await refreshTokenSet(auth.endpoints(), rotated.refreshToken!);
      assert.equal(kept.refreshToken, rotated.refreshToken, 'no refresh_token in the answer: the old one is kept');
    } finally {
      auth.settings.rotate = true;
    }

    const error = await rejection<OAuthError>(refreshTokenSet(auth.endpoints(), pair.refreshToken));
    assert.equal(error.kind, 'token_error');
    assert.equal(error.error, 'invalid_grant');
    assert.ok(!error.message.includes(pair.refreshToken), 'the echoed refresh token is redacted');
  });

  it('refuses a token answer nested too deep with a clear error, never a stack overflow', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    let calls = 0;
    const error = await rejection<OAuthError>(
      refreshTokenSet(auth.endpoints(), 'rt-deep', {
        fetch: async () => {
          calls += 1;
          return new Response(`{"access_token":${deep}}`, { status: 200, headers: { 'content-type': 'application/json' } });
        },
      }),
    );
    assert.equal(calls, 1);
    assert.equal(error.kind, 'token_error');
    assert.match(error.message, /nested more than 128 levels deep/);
  });

  it('does not repeat a client secret the token endpoint echoes', async () => {
    const pair = auth.issue();
    const wrongSecret = 'wrong-secret-Hk29dLq0';
    auth.secrets.add(wrongSecret);
    const error = await rejection<OAuthError>(refreshTokenSet(auth.endpoints({ clientSecret: wrongSecret }), pair.refreshToken));
    assert.equal(error.error, 'invalid_client');
    assert.equal(error.status, 401);
    assert.ok(!error.message.includes(wrongSecret));
  });

  it('revokes RFC 7009 style and in the whiteboard JSON style', async () => {
    auth.revokeRequests.length = 0;
    const pair = auth.issue();
    await revokeToken(auth.endpoints(), pair.refreshToken, { tokenTypeHint: 'refresh_token' });
    const form = auth.revokeRequests[0]!;
    assert.equal(form.path, '/revoke');
    assert.match(form.contentType ?? '', /application\/x-www-form-urlencoded/);
    const params = new URLSearchParams(form.body);
    assert.equal(params.get('token'), pair.refreshToken);
    assert.equal(params.get('token_type_hint'), 'refresh_token');
    assert.equal(params.get('client_secret'), CLIENT_SECRET);

    await revokeToken(auth.endpoints({ revokeUrl: `${auth.origin}/v2/oauth/revoke` }), pair.accessToken, { style: 'canvas-json' });
    const json = auth.revokeRequests[1]!;
    assert.equal(json.path, '/v2/oauth/revoke');
    assert.match(json.contentType ?? '', /application\/json/);
    assert.deepEqual(JSON.parse(json.body), { accessToken: pair.accessToken, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });

    const wrongSecret = 'another-wrong-secret-77';
    auth.secrets.add(wrongSecret);
    const error = await rejection<OAuthError>(
      revokeToken(auth.endpoints({ revokeUrl: `${auth.origin}/v2/oauth/revoke`, clientSecret: wrongSecret }), pair.accessToken, { style: 'canvas-json' }),
    );
    assert.equal(error.kind, 'revocation_error');
    assert.equal(error.status, 400);
  });
});

describe('CredentialSource', () => {
  async function setup(options: { expiresInMs: number; clock?: { now: number } } = { expiresInMs: HOUR }) {
    const clock = options.clock ?? { now: 1_700_000_000_000 };
    const file = await tempFile();
    const store = new FileTokenStore(file);
    const pair = auth.issue();
    await store.set(credential(auth, pair, clock.now + options.expiresInMs));
    const make = (extra: Partial<ConstructorParameters<typeof CredentialSource>[0]> = {}) =>
      new CredentialSource({ platform: 'incidentops', store: new FileTokenStore(file), client: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenUrl: `${auth.origin}/token` }, now: () => clock.now, ...extra });
    return { clock, file, store, pair, make };
  }

  it('uses a fresh stored token without refreshing, then refreshes within the skew (injected clock)', async () => {
    const { clock, store, pair, make } = await setup({ expiresInMs: 10 * 60_000 });
    const source = make();
    auth.tokenRequests.length = 0;
    assert.equal(await source.authorization(), `Bearer ${pair.accessToken}`);
    assert.equal(auth.tokenRequests.length, 0);

    clock.now += 10 * 60_000 - 30_000; // 30 s before expiry, inside the 60 s skew
    const renewed = await source.authorization();
    assert.equal(auth.tokenRequests.length, 1);
    assert.notEqual(renewed, `Bearer ${pair.accessToken}`);

    const stored = await store.get('incidentops');
    assert.equal(`Bearer ${stored?.accessToken}`, renewed);
    assert.notEqual(stored?.refreshToken, pair.refreshToken, 'the rotated refresh token is stored');
    assert.equal(stored?.expiresAt, clock.now + HOUR);
    assert.equal(source.describe().source, 'stored sign-in');
    assert.equal(source.describe().expiresAt, clock.now + HOUR);
    assert.equal(source.describe().problem, undefined);
  });

  it('single-flight: 10 concurrent callers share one refresh', async () => {
    const { make, store, file } = await setup({ expiresInMs: 10_000 });
    let lockedUpdates = 0;
    class CountingStore extends FileTokenStore {
      override update(...args: Parameters<FileTokenStore['update']>): ReturnType<FileTokenStore['update']> {
        lockedUpdates += 1;
        return super.update(...args);
      }
    }
    const source = make({ store: new CountingStore(file) });
    auth.tokenRequests.length = 0;
    auth.settings.tokenDelayMs = 50;
    try {
      const values = await Promise.all(Array.from({ length: 10 }, () => source.authorization()));
      assert.equal(auth.tokenRequests.length, 1);
      assert.equal(lockedUpdates, 1, 'the callers shared one refresh in memory (one locked update)');
      assert.equal(new Set(values).size, 1);
      assert.equal(values[0], `Bearer ${(await store.get('incidentops'))?.accessToken}`);
    } finally {
      auth.settings.tokenDelayMs = 0;
    }
  });

  it('stores a rotation atomically: new access and new refresh token in the file together', async () => {
    const { make, file, pair } = await setup({ expiresInMs: 1_000 });
    await make().authorization();
    const onDisk = JSON.parse(await readFile(file, 'utf8')) as { credentials: Record<string, StoredCredential> };
    const entry = onDisk.credentials.incidentops!;
    assert.notEqual(entry.accessToken, pair.accessToken);
    assert.notEqual(entry.refreshToken, pair.refreshToken);
    const last = auth.tokenRequests.at(-1)!;
    assert.equal(last.params.get('refresh_token'), pair.refreshToken);
    // The new refresh token works (it is the one the server just issued).
    const next = await refreshTokenSet(auth.endpoints(), entry.refreshToken!);
    assert.ok(next.accessToken);
  });

  it('uses what another process already rotated instead of spending the old refresh token', async () => {
    const { make } = await setup({ expiresInMs: 5_000 });
    const first = make();
    const second = make(); // a separate instance with its own store object: as another process
    auth.tokenRequests.length = 0;
    auth.settings.tokenDelayMs = 30;
    try {
      const [a, b] = await Promise.all([first.authorization(), second.authorization()]);
      assert.equal(auth.tokenRequests.length, 1, 'only one refresh: the second saw the rotated entry under the lock');
      assert.equal(a, b);
      assert.equal(second.describe().problem, undefined);
    } finally {
      auth.settings.tokenDelayMs = 0;
    }
  });

  it('refreshes once after a 401, never twice for the same access token', async () => {
    const { make, pair } = await setup({ expiresInMs: HOUR });
    const source = make();
    auth.tokenRequests.length = 0;
    assert.equal(await source.authorization(), `Bearer ${pair.accessToken}`);

    const concurrent = await Promise.all([source.onUnauthorized(), source.onUnauthorized(), source.onUnauthorized()]);
    assert.deepEqual(concurrent, [true, true, true]);
    assert.equal(auth.tokenRequests.length, 1);
    assert.equal(await source.onUnauthorized(`Bearer ${pair.accessToken}`), true, 'a newer token exists');
    assert.equal(auth.tokenRequests.length, 1, 'no second forced refresh for the same token');

    const second = await source.authorization();
    assert.notEqual(second, `Bearer ${pair.accessToken}`);
    assert.equal(await source.onUnauthorized(), true);
    assert.equal(auth.tokenRequests.length, 2, 'the new token gets its own single forced refresh');
    assert.equal(await source.onUnauthorized(second), true);
    assert.equal(auth.tokenRequests.length, 2);
  });

  it('returns false after a 401 when nothing can be renewed', async () => {
    const { make } = await setup({ expiresInMs: HOUR });
    const source = make();
    await source.authorization();
    auth.revokeAllRefreshTokens();
    assert.equal(await source.onUnauthorized(), false);
    assert.equal(await source.onUnauthorized(), false);
    assert.match(source.describe().problem ?? '', /toolservers login incidentops/);
  });

  it('invalid_grant: no token, a message naming `toolservers login`, and nothing deleted', async () => {
    const { make, store, clock } = await setup({ expiresInMs: 1_000 });
    auth.revokeAllRefreshTokens();
    const source = make();
    clock.now += 2_000; // expired
    assert.equal(await source.authorization(), undefined);
    const problem = source.describe().problem ?? '';
    assert.match(problem, /invalid_grant/);
    assert.match(problem, /Run `toolservers login incidentops`/);
    thrownMessages.push(problem);

    const error = await rejection<ToolError>(source.requireAuthorization());
    assert.ok(error instanceof ToolError);
    assert.equal(error.details.kind, 'unauthorized');
    assert.match(error.message, /invalid_grant/);
    assert.match(error.details.nextStep ?? '', /toolservers login incidentops/);
    assert.ok(await store.get('incidentops'), 'the stored sign-in is kept');
  });

  it('still sends a not-yet-expired token when the early refresh fails', async () => {
    const { make, pair } = await setup({ expiresInMs: 20_000 });
    auth.revokeAllRefreshTokens();
    const source = make();
    assert.equal(await source.authorization(), `Bearer ${pair.accessToken}`);
    assert.match(source.describe().problem ?? '', /toolservers login incidentops/);
  });

  it('the environment token wins over the stored sign-in and is never refreshed', async () => {
    const { make } = await setup({ expiresInMs: 1_000 });
    const source = make({ envToken: 'env-token-abcdef' });
    auth.tokenRequests.length = 0;
    assert.equal(await source.authorization(), 'Bearer env-token-abcdef');
    assert.equal(await source.authorization('Token token='), 'Token token=env-token-abcdef');
    assert.equal(await source.onUnauthorized(), false);
    assert.equal(auth.tokenRequests.length, 0);
    assert.deepEqual(source.describe(), { source: 'environment' });
  });

  it('describe() never exposes secrets; no credentials at all gives "none" and a not_configured error', async () => {
    const { make, pair } = await setup({ expiresInMs: HOUR });
    const source = make();
    const status = await source.status();
    assert.equal(status.source, 'stored sign-in');
    assert.equal(status.refreshable, true);
    assert.equal(status.scope, 'read write');
    const text = JSON.stringify(status);
    assert.ok(!text.includes(pair.accessToken) && !text.includes(pair.refreshToken));

    const empty = new CredentialSource({ platform: 'canvasapi', store: new FileTokenStore(await tempFile()) });
    assert.equal(await empty.authorization(), undefined);
    assert.equal(empty.describe().source, 'none');
    const error = await rejection<ToolError>(empty.requireAuthorization());
    assert.equal(error.details.kind, 'not_configured');
    assert.match(error.message, /canvasapi/);
  });

  it('does not send a sign-in made for another base URL', async () => {
    const clock = { now: 1_700_000_000_000 };
    const store = new FileTokenStore(await tempFile());
    await store.set(credential(auth, auth.issue(), clock.now + HOUR, { baseUrl: 'http://127.0.0.1:4000/incidentops' }));
    const same = new CredentialSource({ platform: 'incidentops', store, baseUrl: 'http://127.0.0.1:4000/incidentops/', now: () => clock.now });
    assert.ok(await same.authorization());
    const other = new CredentialSource({ platform: 'incidentops', store, baseUrl: 'https://api.pagerduty.com', now: () => clock.now });
    assert.equal(await other.authorization(), undefined);
    assert.match(other.describe().problem ?? '', /toolservers login incidentops/);
  });

  it('renews with the client stored with the sign-in when the server has no client settings at all', async () => {
    const clock = { now: 1_700_000_000_000 };
    const file = await tempFile();
    const pair = auth.issue();
    await new FileTokenStore(file).set(credential(auth, pair, clock.now + 1_000, { clientSecret: CLIENT_SECRET, revokeUrl: `${auth.origin}/revoke` }));
    const source = new CredentialSource({ platform: 'incidentops', store: new FileTokenStore(file), now: () => clock.now });
    auth.tokenRequests.length = 0;
    const value = await source.authorization();
    assert.ok(value && value !== `Bearer ${pair.accessToken}`, 'renewed');
    const request = auth.tokenRequests[0]!;
    assert.equal(request.params.get('client_id'), CLIENT_ID);
    assert.equal(request.params.get('client_secret'), CLIENT_SECRET, 'the stored secret authenticates the client');
    const stored = (await new FileTokenStore(file).get('incidentops'))!;
    assert.equal(stored.clientSecret, CLIENT_SECRET, 'the client stays stored after the rotation');
    assert.equal(stored.revokeUrl, `${auth.origin}/revoke`);
    const status = source.describe();
    assert.deepEqual(status.renewal, { clientId: CLIENT_ID, clientIdFrom: 'stored sign-in', clientSecret: 'stored sign-in', tokenUrl: `${auth.origin}/token`, tokenUrlFrom: 'stored sign-in' });
    assert.ok(!JSON.stringify(status).includes(CLIENT_SECRET), 'describe() names where the secret comes from, never the secret');
  });

  it('settings that are set win over stored values; a stored secret is never sent with another client ID', async () => {
    const clock = { now: 1_700_000_000_000 };
    const wrongSecret = 'stale-stored-secret-Pq7';
    auth.secrets.add(wrongSecret);
    const file = await tempFile();
    await new FileTokenStore(file).set(credential(auth, auth.issue(), clock.now + 1_000, { clientSecret: wrongSecret, tokenUrl: `${auth.origin}/nowhere` }));
    auth.tokenRequests.length = 0;
    // The settings' secret and token URL win: renewal works although the stored ones are wrong.
    const fixed = new CredentialSource({ platform: 'incidentops', store: new FileTokenStore(file), now: () => clock.now, client: { clientSecret: CLIENT_SECRET, tokenUrl: `${auth.origin}/token` } });
    assert.ok(await fixed.authorization());
    assert.equal(auth.tokenRequests.at(-1)?.params.get('client_secret'), CLIENT_SECRET);

    // Another client ID in the settings: the stored secret is not sent with it, and the message names both IDs.
    clock.now += 2 * HOUR;
    auth.tokenRequests.length = 0;
    const other = new CredentialSource({
      platform: 'incidentops',
      store: new FileTokenStore(file),
      now: () => clock.now,
      client: { clientId: 'another-app', tokenUrl: `${auth.origin}/token`, names: { clientId: 'INCIDENTOPS_CLIENT_ID', clientSecret: 'INCIDENTOPS_CLIENT_SECRET' } },
    });
    assert.equal(await other.authorization(), undefined);
    assert.equal(auth.tokenRequests[0]?.params.get('client_id'), 'another-app');
    assert.equal(auth.tokenRequests[0]?.params.get('client_secret'), null, 'no secret of another app');
    const problem = other.describe().problem ?? '';
    thrownMessages.push(problem);
    assert.equal(other.describe().problemCode, 'renewal_rejected');
    assert.match(problem, /invalid_client/);
    assert.match(problem, new RegExp(`made with client ID ${CLIENT_ID}, but INCIDENTOPS_CLIENT_ID sets another-app`));
    assert.match(problem, /unset INCIDENTOPS_CLIENT_ID/);

    // resolveClient, the rule itself.
    const stored = { clientId: 'a', clientSecret: 's-a', tokenUrl: 'https://t/stored', revokeUrl: 'https://r/stored' };
    assert.deepEqual(resolveClient(stored, { defaultTokenUrl: 'https://t/default', defaultRevokeUrl: 'https://r/default' }), {
      clientId: 'a',
      clientSecret: 's-a',
      tokenUrl: 'https://t/stored',
      revokeUrl: 'https://r/stored',
      from: { clientId: 'stored sign-in', clientSecret: 'stored sign-in', tokenUrl: 'stored sign-in', revokeUrl: 'stored sign-in' },
    });
    assert.equal(resolveClient(stored, { clientId: 'a', clientSecret: 's-env' }).clientSecret, 's-env');
    assert.equal(resolveClient(stored, { clientId: 'b' }).clientSecret, undefined);
    assert.equal(resolveClient(stored, { clientId: 'b', clientSecret: 's-b' }).clientSecret, 's-b');
    assert.equal(resolveClient({ clientId: 'a' }, { defaultTokenUrl: 'https://t/default' }).tokenUrl, 'https://t/default');
    assert.equal(resolveClient(stored, { tokenUrl: 'https://t/env' }).tokenUrl, 'https://t/env');
  });

  it('a token that lives shorter than twice the skew is renewed at half its lifetime, not on every call', async () => {
    const clock = { now: 1_700_000_000_000 };
    const file = await tempFile();
    const pair = auth.issue();
    await new FileTokenStore(file).set(credential(auth, pair, clock.now + 4_000, { obtainedAt: clock.now }));
    const source = new CredentialSource({ platform: 'incidentops', store: new FileTokenStore(file), client: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenUrl: `${auth.origin}/token` }, now: () => clock.now });
    auth.tokenRequests.length = 0;
    assert.equal(await source.authorization(), `Bearer ${pair.accessToken}`);
    clock.now += 1_500;
    assert.equal(await source.authorization(), `Bearer ${pair.accessToken}`);
    assert.equal(auth.tokenRequests.length, 0);
    clock.now += 1_000; // 1.5 s left of 4 s: inside half the lifetime
    assert.notEqual(await source.authorization(), `Bearer ${pair.accessToken}`);
    assert.equal(auth.tokenRequests.length, 1);
  });

  it('tool errors give the real reason: an unusable file, a malformed entry, another base URL, an expired sign-in; only "nobody signed in" is left to the server', async () => {
    const clock = { now: 1_700_000_000_000 };
    const errorOf = async (source: CredentialSource): Promise<ToolError> => rejection<ToolError>(sourceCredentials(source, 'Bearer').authorization());

    // Nobody signed in: undefined, so that the server names its own settings.
    const empty = new CredentialSource({ platform: 'canvasapi', store: new FileTokenStore(await tempFile()) });
    assert.equal(await sourceCredentials(empty, 'Bearer').authorization(), undefined);

    // Not JSON.
    const garbled = await tempFile();
    await new FileTokenStore(garbled).set({ platform: 'x', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 });
    await writeFile(garbled, '{"version": 1, "credentials": {"canvasapi": {"accessToken": "secret-in-file-Wz9', { mode: 0o600 });
    let error = await errorOf(new CredentialSource({ platform: 'canvasapi', store: new FileTokenStore(garbled) }));
    assert.equal(error.details.kind, 'not_configured');
    assert.ok(error.message.includes(garbled), 'names the file');
    assert.match(error.message, /is not valid JSON/);
    assert.match(error.details.nextStep ?? '', /mv .*\.broken.* and sign in again with `toolservers login canvasapi`/);
    assert.ok(!JSON.stringify(error.toJSON()).includes('secret-in-file'), 'the file is never quoted');

    // A malformed entry of this platform.
    const malformed = await tempFile();
    await new FileTokenStore(malformed).set({ platform: 'x', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 });
    await writeFile(malformed, JSON.stringify({ version: 1, credentials: { canvasapi: { accessToken: 'ok-token-1', expiresAt: 'tomorrow' } } }), { mode: 0o600 });
    error = await errorOf(new CredentialSource({ platform: 'canvasapi', store: new FileTokenStore(malformed, { platforms: ['canvasapi'] }) }));
    assert.match(error.message, /malformed entry for "canvasapi" \(expiresAt is not a number\)/);
    assert.match(error.details.nextStep ?? '', /Run `toolservers logout canvasapi` to remove just that entry/);

    // Another base URL.
    const elsewhere = await tempFile();
    await new FileTokenStore(elsewhere).set(credential(auth, auth.issue(), clock.now + HOUR, { baseUrl: 'https://api.eu.example.test' }));
    error = await errorOf(new CredentialSource({ platform: 'incidentops', store: new FileTokenStore(elsewhere), baseUrl: 'https://api.example.test', baseUrlSetting: 'INCIDENTOPS_BASE_URL', now: () => clock.now }));
    assert.equal(error.details.kind, 'not_configured');
    assert.match(error.message, /was made for https:\/\/api\.eu\.example\.test, but this server uses https:\/\/api\.example\.test/);
    assert.match(error.details.nextStep ?? '', /INCIDENTOPS_BASE_URL=https:\/\/api\.eu\.example\.test/);
    assert.match(error.details.nextStep ?? '', /toolservers login incidentops --base-url https:\/\/api\.example\.test/);

    // Expired without a refresh token.
    const expired = await tempFile();
    const { refreshToken: _dropped, ...noRefresh } = credential(auth, auth.issue(), clock.now - 1_000);
    await new FileTokenStore(expired).set(noRefresh);
    error = await errorOf(new CredentialSource({ platform: 'incidentops', store: new FileTokenStore(expired), now: () => clock.now }));
    assert.equal(error.details.kind, 'unauthorized');
    assert.match(error.message, /expired at .* and cannot be renewed: the platform issued no refresh token/);

    // Expired, with a refresh token but no client known anywhere.
    const clientless = await tempFile();
    const { clientId: _id, ...noClient } = credential(auth, auth.issue(), clock.now - 1_000);
    await new FileTokenStore(clientless).set(noClient);
    error = await errorOf(new CredentialSource({ platform: 'incidentops', store: new FileTokenStore(clientless), now: () => clock.now, client: { names: { clientId: 'INCIDENTOPS_CLIENT_ID' } } }));
    assert.match(error.message, /cannot be renewed: no client ID is known \(the sign-in stored none and INCIDENTOPS_CLIENT_ID is not set\)/);
    for (const text of [error.message]) assert.doesNotMatch(text, /nobody has signed in/i);
  });
});

describe('FileTokenStore', () => {
  const posix = process.platform !== 'win32';

  it('creates the directory 0700 and the file 0600, and tightens a loosened file', { skip: !posix }, async () => {
    const file = await tempFile();
    const store = new FileTokenStore(file);
    await store.set({ platform: 'canvasapi', accessToken: 'a1', tokenType: 'bearer', obtainedAt: 1 });
    assert.equal((await stat(path.dirname(file))).mode & 0o777, 0o700);
    assert.equal((await stat(file)).mode & 0o777, 0o600);

    await chmod(file, 0o644);
    assert.equal((await store.get('canvasapi'))?.accessToken, 'a1');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    // No temp files are left behind.
    assert.deepEqual((await readdir(path.dirname(file))).filter((name) => name.endsWith('.tmp')), []);
  });

  it('get / set / list / delete / update', async () => {
    const store = new FileTokenStore(await tempFile());
    assert.equal(await store.get('x'), undefined);
    assert.deepEqual(await store.list(), []);
    await store.set({ platform: 'b', accessToken: 't-b', tokenType: 'bearer', obtainedAt: 2, account: { email: 'b@example.test' } });
    await store.set({ platform: 'a', accessToken: 't-a', tokenType: 'bearer', obtainedAt: 1 });
    assert.deepEqual((await store.list()).map((c) => c.platform), ['a', 'b']);
    assert.deepEqual((await store.get('b'))?.account, { email: 'b@example.test' });
    const updated = await store.update('a', (current) => (current ? { ...current, accessToken: 't-a2' } : undefined));
    assert.equal(updated?.accessToken, 't-a2');
    assert.equal(await store.delete('a'), true);
    assert.equal(await store.delete('a'), false);
    assert.deepEqual((await store.list()).map((c) => c.platform), ['b']);
  });

  it('refuses to guess on a corrupt file and names it', async () => {
    const file = await tempFile();
    const store = new FileTokenStore(file);
    await store.set({ platform: 'a', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 });
    await writeFile(file, '{"credentials": {', { mode: 0o600 });
    const error = await rejection(store.get('a'));
    assert.ok(error.message.includes(file));
    await rejection(store.set({ platform: 'b', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 }));
    assert.equal(await readFile(file, 'utf8'), '{"credentials": {', 'a corrupt file is not overwritten');
  });

  it('the default file honours TOOLSERVERS_CREDENTIALS_FILE', () => {
    assert.equal(defaultCredentialsFile({ TOOLSERVERS_CREDENTIALS_FILE: '/tmp/x/creds.json' }), '/tmp/x/creds.json');
    assert.match(defaultCredentialsFile({}), /toolservers[/\\]credentials\.json$/);
  });

  it('50 concurrent updates from separate store instances lose nothing', async () => {
    const file = await tempFile();
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const store = new FileTokenStore(file);
        await store.update('counter', async (current) => {
          const value = Number(current?.accessToken ?? '0');
          await sleep(Math.random() * 3);
          return { platform: 'counter', accessToken: String(value + 1), tokenType: 'bearer', obtainedAt: i };
        });
        await store.set({ platform: `writer-${i}`, accessToken: `t-${i}`, tokenType: 'bearer', obtainedAt: i });
      }),
    );
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { credentials: Record<string, StoredCredential> };
    assert.equal(parsed.credentials.counter?.accessToken, '50');
    assert.equal(Object.keys(parsed.credentials).length, 51);
  });

  it('5 processes hammering update() on the same file lose nothing', { timeout: 60_000 }, async () => {
    const file = await tempFile();
    await new FileTokenStore(file).set({ platform: 'seed', accessToken: 'seed', tokenType: 'bearer', obtainedAt: 0 });
    const moduleUrl = new URL('../src/core/signin/token-store.js', import.meta.url).href;
    const script = `
      const [moduleUrl, file, id] = process.argv.slice(1);
      const { FileTokenStore } = await import(moduleUrl);
      const store = new FileTokenStore(file);
      for (let i = 0; i < 20; i += 1) {
        await store.update('counter', async (current) => {
          const value = Number(current?.accessToken ?? '0');
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          return { platform: 'counter', accessToken: String(value + 1), refreshToken: 'r-' + (value + 1), tokenType: 'bearer', obtainedAt: Date.now() };
        });
        await store.set({ platform: 'proc-' + id + '-' + i, accessToken: 'x', tokenType: 'bearer', obtainedAt: i });
      }
    `;
    await Promise.all(
      Array.from({ length: 5 }, (_, id) => execFileAsync(process.execPath, ['--input-type=module', '-e', script, moduleUrl, file, String(id)])),
    );
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { credentials: Record<string, StoredCredential> };
    assert.equal(parsed.credentials.counter?.accessToken, '100');
    assert.equal(parsed.credentials.counter?.refreshToken, 'r-100', 'access and refresh token were written together');
    assert.equal(Object.keys(parsed.credentials).length, 1 + 1 + 5 * 20);
    if (posix) assert.equal((await stat(file)).mode & 0o777, 0o600);
    const leftovers = (await readdir(path.dirname(file))).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'));
    assert.deepEqual(leftovers, []);
  });

  /** A file with a good entry (with a field from the future), something else, and a top-level key from the future. */
  async function mixedFile(other: unknown, version: unknown): Promise<{ file: string; text: string }> {
    const file = await tempFile();
    await new FileTokenStore(file).set({ platform: 'seed', accessToken: 'seed', tokenType: 'bearer', obtainedAt: 0 });
    const text = JSON.stringify(
      { version, credentials: { canvasapi: { platform: 'canvasapi', accessToken: 'good-token', refreshToken: 'good-refresh', tokenType: 'bearer', obtainedAt: 5, futureField: [1, 2] }, incidentops: other }, futureTopLevel: 'x' },
      null,
      2,
    );
    await writeFile(file, text, { mode: 0o600 });
    return { file, text };
  }

  it('a malformed entry: the other entries stay readable; no write path touches the file (fn not run); logout of that entry repairs it and keeps the rest exactly', async () => {
    const { file, text } = await mixedFile({ accessToken: 'broken-token', refreshToken: 42, account: 'me' }, 1);
    const store = new FileTokenStore(file, { platforms: ['canvasapi', 'incidentops'] });
    assert.equal((await store.get('canvasapi'))?.accessToken, 'good-token');
    const own = await rejection<CredentialStoreError>(store.get('incidentops'));
    assert.ok(own instanceof CredentialStoreError);
    assert.equal(own.problem, 'malformed_entry');
    assert.equal(own.platform, 'incidentops');
    assert.ok(own.message.includes(file));
    assert.match(own.message, /\(refreshToken is not a string; account is not an object\)/);
    assert.match(own.message, /Run `toolservers logout incidentops` to remove just that entry/);
    assert.ok(!own.message.includes('broken-token'));
    assert.deepEqual((await store.inspect()).malformed, [{ platform: 'incidentops', problem: 'refreshToken is not a string; account is not an object' }]);

    let ran = false;
    const writes: (() => Promise<unknown>)[] = [
      () => store.set({ platform: 'canvasapi', accessToken: 'new', tokenType: 'bearer', obtainedAt: 1 }),
      () => store.set({ platform: 'incidentops', accessToken: 'new', tokenType: 'bearer', obtainedAt: 1 }),
      () => store.delete('canvasapi'),
      () => store.delete('incidentops'),
      () =>
        store.update('canvasapi', (current) => {
          ran = true;
          return current;
        }),
      () => store.checkWritable('canvasapi'),
    ];
    for (const write of writes) {
      const error = await rejection<CredentialStoreError>(write());
      assert.equal(error.problem, 'malformed_entry');
      assert.match(error.message, /The file was not rewritten/);
    }
    assert.equal(ran, false, 'the update function (a refresh) never ran');
    assert.equal(await readFile(file, 'utf8'), text, 'byte for byte untouched');

    assert.equal(await store.delete('incidentops', { removeMalformed: true }), true);
    const after = JSON.parse(await readFile(file, 'utf8')) as Record<string, any>;
    const before = JSON.parse(text) as Record<string, any>;
    assert.deepEqual(after.credentials, { canvasapi: before.credentials.canvasapi });
    assert.equal(after.futureTopLevel, 'x');
    // Now writable again; a rewrite of the entry keeps its unknown field.
    await store.update('canvasapi', (current) => (current ? { ...current, accessToken: 'rotated' } : undefined));
    const rewritten = JSON.parse(await readFile(file, 'utf8')) as Record<string, any>;
    assert.equal(rewritten.credentials.canvasapi.accessToken, 'rotated');
    assert.deepEqual(rewritten.credentials.canvasapi.futureField, [1, 2]);
  });

  it('an unknown version (or none) is never read as if it were known, and never rewritten', async () => {
    for (const version of [2, '1', undefined]) {
      const { file, text } = await mixedFile({ accessToken: 'fine' }, version);
      const store = new FileTokenStore(file);
      const error = await rejection<CredentialStoreError>(store.get('canvasapi'));
      assert.equal(error.problem, 'unknown_version');
      assert.ok(error.message.includes(file));
      assert.match(error.message, version === undefined ? /has no "version"/ : /has version .*; this toolservers understands version 1 only/);
      assert.match(error.repair, /move it aside \(mv .* .*\.broken\)/);
      const writes = [
        () => store.set({ platform: 'x', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 }),
        () => store.delete('canvasapi'),
        () => store.delete('canvasapi', { removeMalformed: true }),
        () => store.update('canvasapi', (c) => c),
      ];
      for (const write of writes) assert.equal((await rejection<CredentialStoreError>(write())).problem, 'unknown_version', String(version));
      assert.equal(await readFile(file, 'utf8'), text);
    }
  });

  it('refuses a symlinked file without following it: the target keeps its mode, the link stays a link', { skip: !posix }, async () => {
    const target = await tempFile();
    await new FileTokenStore(target).set({ platform: 'canvasapi', accessToken: 't1', tokenType: 'bearer', obtainedAt: 1 });
    await chmod(target, 0o644);
    const text = await readFile(target, 'utf8');
    const link = path.join(path.dirname(target), 'link.json');
    await symlink(target, link);
    const store = new FileTokenStore(link);
    const error = await rejection<CredentialStoreError>(store.get('canvasapi'));
    assert.equal(error.problem, 'symlink');
    assert.ok(error.message.includes(link) && error.message.includes(target), error.message);
    assert.match(error.repair, /TOOLSERVERS_CREDENTIALS_FILE=/);
    assert.equal((await rejection<CredentialStoreError>(store.set({ platform: 'canvasapi', accessToken: 't2', tokenType: 'bearer', obtainedAt: 2 }))).problem, 'symlink');
    assert.equal((await rejection<CredentialStoreError>(store.delete('canvasapi'))).problem, 'symlink');
    assert.equal((await stat(target)).mode & 0o777, 0o644, 'the target mode is unchanged');
    assert.equal(await readFile(target, 'utf8'), text);
    assert.ok((await lstat(link)).isSymbolicLink());

    // A dangling link is refused too (a write would otherwise replace it).
    const dangling = path.join(path.dirname(target), 'dangling.json');
    await symlink(path.join(path.dirname(target), 'missing.json'), dangling);
    assert.equal((await rejection<CredentialStoreError>(new FileTokenStore(dangling).set({ platform: 'a', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 }))).problem, 'symlink');
    assert.ok((await lstat(dangling)).isSymbolicLink());
  });

  it('a directory in the file\'s place is refused, and the parser never quotes the file', async () => {
    const file = await tempFile();
    await new FileTokenStore(file).set({ platform: 'a', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 });
    await rm(file);
    const { mkdir } = await import('node:fs/promises');
    await mkdir(file);
    assert.equal((await rejection<CredentialStoreError>(new FileTokenStore(file).get('a'))).problem, 'not_a_file');
    const garbled = await tempFile();
    await new FileTokenStore(garbled).set({ platform: 'a', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 });
    await writeFile(garbled, 'access-token-Quoted-Abc123 not json');
    const error = await rejection<CredentialStoreError>(new FileTokenStore(garbled).get('a'));
    assert.equal(error.problem, 'not_json');
    assert.ok(!error.message.includes('Quoted'));
  });
});

describe('printable and log levels', () => {
  it('strips ANSI escapes (CSI, OSC, 8-bit), C0/C1 controls, DEL and bidi overrides; keeps ordinary text', () => {
    assert.equal(printable('plain text, ünïcödé, 日本語 — ok'), 'plain text, ünïcödé, 日本語 — ok');
    assert.equal(printable('a\u001b[31mred\u001b[0m b'), 'ared b');
    assert.equal(printable('x\u001b]0;title\u0007y\u001b]8;;http://e\u001b\\z'), 'xyz');
    assert.equal(printable('x\u009b2Jy\u009d0;t\u009cz'), 'xyz');
    assert.equal(printable('line1\r\nline2\tend'), 'line1 line2 end');
    assert.equal(printable('a\u0000b\u0007c\u007fd\u0085e\u202ef\u2066g'), 'abcd efg');
    assert.equal(printable('\u001bc reset'), ' reset');
  });

  it('log levels: the valid ones, aliases, case and blanks; anything else is a one-line LogLevelError', () => {
    for (const level of LOG_LEVELS) assert.equal(resolveLogLevel(level), level);
    assert.equal(resolveLogLevel('warning'), 'warn');
    assert.equal(resolveLogLevel(' WARNING '), 'warn');
    assert.equal(resolveLogLevel('Debug'), 'debug');
    assert.equal(resolveLogLevel('off'), 'silent');
    assert.equal(resolveLogLevel(undefined, 'warn'), 'warn');
    assert.equal(resolveLogLevel('  ', 'info'), 'info');
    assert.throws(() => resolveLogLevel('verbose'), (error: unknown) => {
      assert.ok(error instanceof LogLevelError);
      assert.equal(error.message.split('\n').length, 1);
      assert.match(error.message, /^TOOLSERVERS_LOG_LEVEL="verbose" is not a log level\. Use one of: trace, debug, info, warn, error, fatal, silent \(also accepted: warning for warn/);
      return true;
    });
    assert.throws(() => resolveLogLevel('\u001b[31mred'), (error: unknown) => error instanceof Error && !error.message.includes('\u001b'));
  });
});

describe('signIn and signOut', () => {
  function platform(configured: { clientId?: string; clientSecret?: string }, accountName: string): PlatformAuth {
    return {
      platform: 'incidentops',
      name: 'IncidentOps',
      baseUrl: 'https://api.example.test',
      oauth: { authorizeUrl: `${auth.origin}/authorize`, tokenUrl: `${auth.origin}/token`, revokeUrl: `${auth.origin}/revoke`, scope: 'read', ...configured },
      settingNames: { clientId: 'INCIDENTOPS_CLIENT_ID', clientSecret: 'INCIDENTOPS_CLIENT_SECRET', tokenUrl: 'INCIDENTOPS_TOKEN_URL', baseUrl: 'INCIDENTOPS_BASE_URL' },
      revokeStyle: 'rfc7009',
      lookupAccount: async () => ({ id: 'U1', name: accountName, email: 'eve@example.test\u0007' }),
    };
  }

  it('login stores the client and endpoints with the tokens, and account names without control characters; logout with no client settings revokes with the stored secret', async () => {
    const file = await tempFile();
    const browser = fakeBrowser();
    const credential = await signIn(platform({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }, 'Eve\u001b[2J\u001b]0;x\u0007 Example\r\n'), new FileTokenStore(file), { print: () => undefined, openBrowser: browser.openBrowser });
    await browser.finished();
    assert.deepEqual(credential.account, { id: 'U1', name: 'Eve Example', email: 'eve@example.test' });
    const stored = (await new FileTokenStore(file).get('incidentops'))!;
    assert.deepEqual(
      { clientId: stored.clientId, clientSecret: stored.clientSecret, tokenUrl: stored.tokenUrl, revokeUrl: stored.revokeUrl, baseUrl: stored.baseUrl },
      { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenUrl: `${auth.origin}/token`, revokeUrl: `${auth.origin}/revoke`, baseUrl: 'https://api.example.test' },
    );
    if (process.platform !== 'win32') assert.equal((await stat(file)).mode & 0o777, 0o600);

    auth.revokeRequests.length = 0;
    const result = await signOut(platform({}, 'unused'), new FileTokenStore(file));
    assert.deepEqual(result, { signedIn: true, revoked: true });
    const request = new URLSearchParams(auth.revokeRequests[0]?.body ?? '');
    assert.equal(request.get('token'), stored.refreshToken, 'RFC 7009: the refresh token ends the grant');
    assert.equal(request.get('client_secret'), CLIENT_SECRET, 'the stored secret authenticates the revocation');
    assert.equal(await new FileTokenStore(file).get('incidentops'), undefined);
    // The grant is gone: its refresh token renews nothing.
    assert.equal((await rejection<OAuthError>(refreshTokenSet(auth.endpoints(), stored.refreshToken!))).error, 'invalid_grant');
  });

  it('login fails before the browser opens when the store could not be rewritten safely', async () => {
    const file = await tempFile();
    await new FileTokenStore(file).set({ platform: 'x', accessToken: 't', tokenType: 'bearer', obtainedAt: 1 });
    await writeFile(file, JSON.stringify({ version: 7, credentials: {} }));
    let opened = false;
    const error = await rejection<CredentialStoreError>(
      signIn(platform({ clientId: CLIENT_ID }, 'n'), new FileTokenStore(file), {
        print: () => undefined,
        openBrowser: () => {
          opened = true;
        },
      }),
    );
    assert.equal(error.problem, 'unknown_version');
    assert.match(error.repair, /sign in again with `toolservers login incidentops`/);
    assert.equal(opened, false);
  });
});
