/**
 * Sign-in end to end against the sandbox, offline: login (library and CLI), a tool call with the
 * stored sign-in, expiry and silent refresh, refresh after a 401, revocation, and what a tool says
 * afterwards. Every output is searched for the secrets involved.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { canvasApiAuth } from '../src/canvasapi/auth.js';
import { runCli, type CliRun } from './support/cli.js';
import { createCanvasApiServer } from '../src/canvasapi/index.js';
import { resolveCanvasApiSettings } from '../src/canvasapi/settings.js';
import { platformCredentials, signIn, signOut, type PlatformAuth } from '../src/core/signin/platform-auth.js';
import { FileTokenStore } from '../src/core/signin/token-store.js';
import type { Logger } from '../src/core/logger.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import { incidentOpsAuth } from '../src/incidentops/auth.js';
import { createIncidentOpsServer } from '../src/incidentops/index.js';
import { resolveIncidentOpsSettings } from '../src/incidentops/settings.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, startTestSandbox } from './support/harness.js';

const HOUR_MS = 3_600_000;

/** Everything any part of the flow printed or returned, searched for secrets at the end. */
const transcript: string[] = [];

function capturingLogger(): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      transcript.push(chunk.toString('utf8'));
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}

/** Plays the browser: follows the authorize redirect to the loopback callback. */
async function browser(url: string): Promise<void> {
  const authorize = await fetch(url, { redirect: 'manual' });
  const location = authorize.headers.get('location');
  assert.ok(location, `the authorize endpoint redirects (status ${authorize.status})`);
  const callback = await fetch(location);
  transcript.push(await callback.text());
}

let sandbox: RunningSandbox;
let clockMs = Date.now();
const clock = () => clockMs;
let dir: string;

before(async () => {
  sandbox = await startTestSandbox({ oauth: { tokenLifetimeSeconds: 3600, now: () => new Date(clockMs) } });
  dir = mkdtempSync(path.join(tmpdir(), 'toolservers-auth-'));
});
after(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

function canvasAuth(): PlatformAuth {
  const o = sandbox.oauth.canvasapi;
  return canvasApiAuth(
    resolveCanvasApiSettings({ baseUrl: sandbox.canvasapi.baseUrl, clientId: o.clientId, clientSecret: o.clientSecret, authorizeUrl: o.authorizeUrl, tokenUrl: o.tokenUrl }, {}),
  );
}

function incidentAuth(): PlatformAuth {
  const o = sandbox.oauth.incidentops;
  const settings = resolveIncidentOpsSettings(
    { baseUrl: sandbox.incidentops.baseUrl, clientId: o.clientId, clientSecret: o.clientSecret, authorizeUrl: o.authorizeUrl, tokenUrl: o.tokenUrl, revokeUrl: o.revokeUrl },
    {},
  );
  return incidentOpsAuth(settings);
}

function refreshGrants(platform: string): number {
  return sandbox.requests.filter((r) => r.platform === platform && r.path.endsWith('/oauth/token') && JSON.stringify(r.body ?? {}).includes('refresh_token')).length;
}

function apiUnauthorized(platform: string): number {
  return sandbox.requests.filter((r) => r.platform === platform && !r.path.includes('oauth') && r.status === 401).length;
}

describe('CanvasApi sign-in, expiry, refresh and revocation', () => {
  const store = () => new FileTokenStore(path.join(dir, 'canvas.json'));
  let server: AnyToolServer;
  let logger: Logger;

  it('signs in with PKCE through the loopback redirect and stores the tokens with account and expiry', async () => {
    const lines: string[] = [];
    const credential = await signIn(canvasAuth(), store(), { print: (line) => lines.push(line), openBrowser: browser, now: clock });
    assert.ok(lines.some((line) => line.includes(sandbox.oauth.canvasapi.authorizeUrl)), 'the sign-in URL is printed');
    assert.ok(credential.refreshToken);
    assert.ok(credential.expiresAt && Math.abs(credential.expiresAt - (clockMs + HOUR_MS)) < 5_000, 'a one-hour token');
    assert.equal(credential.baseUrl, sandbox.canvasapi.baseUrl);
    assert.ok(credential.account?.id, 'the account is looked up');
    const stored = await store().get('canvasapi');
    assert.equal(stored?.accessToken, credential.accessToken);
    transcript.push(...lines);
  });

  it('a tool works with the stored sign-in', async () => {
    logger = capturingLogger();
    const auth = canvasAuth();
    const { credentials } = platformCredentials(auth, store(), logger, { now: clock });
    server = createCanvasApiServer({ settings: resolveCanvasApiSettings({ baseUrl: sandbox.canvasapi.baseUrl, clientId: auth.oauth.clientId, clientSecret: auth.oauth.clientSecret }, {}), logger, version: 'test', credentials });
    const result = await callTool(server, 'CanvasApi.GetAccessTokenInfo', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    transcript.push(JSON.stringify(result.raw));
  });

  it('an hour later the token is renewed before it is used, without a failed call', async () => {
    const before = (await store().get('canvasapi'))!;
    const refreshesBefore = refreshGrants('canvasapi');
    const unauthorizedBefore = apiUnauthorized('canvasapi');
    clockMs += HOUR_MS - 30_000; // inside the refresh margin, not yet expired
    const result = await callTool(server, 'CanvasApi.RetrieveUserBoards', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(refreshGrants('canvasapi'), refreshesBefore + 1, 'one refresh');
    assert.equal(apiUnauthorized('canvasapi'), unauthorizedBefore, 'no call failed');
    const after = (await store().get('canvasapi'))!;
    assert.notEqual(after.accessToken, before.accessToken);
    assert.notEqual(after.refreshToken, before.refreshToken, 'the rotated pair is stored together');
    transcript.push(JSON.stringify(result.raw));
  });

  it('a token the platform stopped accepting is renewed once after the 401 and the call succeeds', async () => {
    // Another clock for the client: it believes the token is fresh while the platform says expired.
    const auth = canvasAuth();
    const lagging = platformCredentials(auth, store(), logger, { now: () => clockMs - 2 * HOUR_MS });
    const laggingServer = createCanvasApiServer({ settings: resolveCanvasApiSettings({ baseUrl: sandbox.canvasapi.baseUrl }, {}), logger, version: 'test', credentials: lagging.credentials });
    clockMs += 2 * HOUR_MS;
    const refreshesBefore = refreshGrants('canvasapi');
    const unauthorizedBefore = apiUnauthorized('canvasapi');
    const result = await callTool(laggingServer, 'CanvasApi.RetrieveUserBoards', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(apiUnauthorized('canvasapi'), unauthorizedBefore + 1, 'the platform refused the old token once');
    assert.equal(refreshGrants('canvasapi'), refreshesBefore + 1, 'one refresh, then the call went through');
  });

  it('after revocation at the platform, a tool says to sign in again', async () => {
    const stored = (await store().get('canvasapi'))!;
    const o = sandbox.oauth.canvasapi;
    const revoke = await fetch(`${sandbox.canvasapi.baseUrl}/v2/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accessToken: stored.accessToken, clientId: o.clientId, clientSecret: o.clientSecret }),
    });
    assert.equal(revoke.status, 204);
    const result = await callTool(server, 'CanvasApi.GetAccessTokenInfo', {});
    assert.equal(result.isError, true);
    assert.equal(result.data.kind, 'unauthorized');
    assert.match(JSON.stringify(result.data), /toolservers login canvasapi/);
    transcript.push(JSON.stringify(result.raw));
  });

  it('logout revokes and deletes; then tools say what to run or set', async () => {
    await signIn(canvasAuth(), store(), { print: (line) => transcript.push(line), openBrowser: browser, now: clock });
    const token = (await store().get('canvasapi'))!.accessToken;
    const result = await signOut(canvasAuth(), store());
    assert.deepEqual(result, { signedIn: true, revoked: true });
    assert.equal(await store().get('canvasapi'), undefined);
    const info = await fetch(`${sandbox.canvasapi.baseUrl}/v2/boards`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(info.status, 401, 'the revoked token no longer works');
    const after = await callTool(server, 'CanvasApi.GetAccessTokenInfo', {});
    assert.equal(after.data.kind, 'not_configured');
    assert.match(JSON.stringify(after.data), /toolservers login canvasapi/);
    assert.match(JSON.stringify(after.data), /CANVASAPI_ACCESS_TOKEN/);
  });
});

describe('IncidentOps sign-in', () => {
  it('signs in, calls a tool, and logout revokes the grant (RFC 7009)', async () => {
    const store = new FileTokenStore(path.join(dir, 'incident.json'));
    const auth = incidentAuth();
    const credential = await signIn(auth, store, { print: (line) => transcript.push(line), openBrowser: browser, now: clock });
    assert.equal(credential.scope, 'read');
    assert.equal(credential.account?.id, 'PDEMO01');
    const logger = capturingLogger();
    const { credentials } = platformCredentials(auth, store, logger, { now: clock });
    const settings = resolveIncidentOpsSettings({ baseUrl: sandbox.incidentops.baseUrl }, {});
    const server = createIncidentOpsServer({ settings, logger, version: 'test', credentials });
    const me = await callTool(server, 'IncidentOps.WhoAmI', {});
    assert.equal(me.isError, false, JSON.stringify(me.data));
    transcript.push(JSON.stringify(me.raw));
    assert.deepEqual(await signOut(auth, store), { signedIn: true, revoked: true });
    const gone = await fetch(`${sandbox.incidentops.baseUrl}/users/me`, {
      headers: { authorization: `Bearer ${credential.accessToken}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
    });
    assert.equal(gone.status, 401);
  });
});

describe('the CLI: login, auth status, call, logout', () => {
  function run(args: string[], env: Record<string, string>, onStderr?: (text: string) => void): Promise<CliRun> {
    return runCli(args, { home: dir, env: { TOOLSERVERS_LOG_LEVEL: 'debug', ...env }, transcript, ...(onStderr ? { onStderr } : {}) });
  }


  it('signs in from the command line and never prints a secret', async () => {
    clockMs = Date.now();
    const o = sandbox.oauth.canvasapi;
    const file = path.join(dir, 'cli-credentials.json');
    const env = {
      TOOLSERVERS_CREDENTIALS_FILE: file,
      CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl,
      CANVASAPI_CLIENT_ID: o.clientId,
      CANVASAPI_CLIENT_SECRET: o.clientSecret,
      CANVASAPI_AUTHORIZE_URL: o.authorizeUrl,
      CANVASAPI_TOKEN_URL: o.tokenUrl,
    };
    let visited = false;
    const login = await run(['login', 'canvasapi', '--no-browser'], env, (stderr) => {
      const url = /(http:\/\/127\.0\.0\.1:\d+\/canvasapi\/oauth\/authorize\S+)/.exec(stderr)?.[1];
      if (url && !visited) {
        visited = true;
        void browser(url);
      }
    });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, /Signed in to CanvasApi/);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    transcript.push('stored:' + JSON.stringify(stored));

    const status = await run(['auth', 'status', '--json'], env);
    assert.equal(status.code, 0, status.stderr);
    const parsed = JSON.parse(status.stdout) as { platforms: { platform: string; source: string; scope?: string; expiresAt?: number }[] };
    const canvas = parsed.platforms.find((p) => p.platform === 'canvasapi');
    assert.equal(canvas?.source, 'stored sign-in');
    assert.ok(canvas?.expiresAt);
    assert.equal(parsed.platforms.find((p) => p.platform === 'incidentops')?.source, 'none');

    const call = await run(['call', 'CanvasApi.GetAccessTokenInfo'], env);
    assert.equal(call.code, 0, call.stdout + call.stderr);

    const logout = await run(['logout', 'canvasapi'], env);
    assert.equal(logout.code, 0, logout.stderr);
    assert.match(logout.stdout, /revoked/);

    const afterwards = await run(['call', 'CanvasApi.GetAccessTokenInfo'], env);
    assert.equal(afterwards.code, 1);
    assert.match(afterwards.stdout, /toolservers login canvasapi/);
  });
});

describe('secrets', () => {
  it('no token, refresh token or client secret appears in any log, error, result or CLI output', async () => {
    const secrets = new Set<string>([sandbox.oauth.canvasapi.clientSecret, sandbox.oauth.incidentops.clientSecret]);
    // Every token the sandbox issued shows up in the token responses we can no longer see; collect
    // the ones the stores and transcripts could have leaked: anything shaped like an issued token.
    const issued = /(pdu[sr]\+_0[\w-]{8,}|eyJjYW52YXNhcGkub3JpZ2luIjoic2FuZGJveCJ9_[\w-]{8,})/g;
    const text = transcript.filter((chunk) => !chunk.startsWith('stored:')).join('\n');
    assert.ok(text.length > 1000, 'the transcript covers the flow');
    for (const secret of secrets) assert.ok(!text.includes(secret), 'a client secret leaked');
    assert.deepEqual(text.match(issued) ?? [], [], 'an issued token leaked');
    // Sanity: the pattern does find the tokens that were stored on disk.
    const stored = transcript.find((chunk) => chunk.startsWith('stored:')) ?? '';
    assert.ok((stored.match(issued) ?? []).length >= 2, 'the token pattern matches real tokens');
  });
});
