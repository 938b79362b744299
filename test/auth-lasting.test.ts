/**
 * A sign-in that lasts, a store that loses nothing, and hygiene, through the real CLI against the
 * sandbox (offline):
 *  - `login` with --client-secret stores what renewal and revocation need; a server started with an
 *    empty environment keeps working past token expiry (short-lived sandbox tokens) and the store
 *    holds the rotated pair; `logout` with an empty environment revokes with the stored client;
 *  - a stray request to the login callback is answered 400 and the real redirect still signs in;
 *  - unusable credentials files (not JSON, another version, a malformed entry, a symlink) are never
 *    rewritten by login, logout or a refresh, and tools, `call` and `auth status` give the real reason;
 *  - provider text reaches the terminal without control characters; an unknown log level is a
 *    one-line error with exit code 2 for every command.
 * Every output is searched for every secret at the end.
 */
import assert from 'node:assert/strict';
import { chmod, lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { configuredClient } from '../src/core/signin/platform-auth.js';
import type { StoredCredential } from '../src/core/signin/token-store.js';
import { findServer } from '../src/servers.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { CLI, runCli, type CliRun } from './support/cli.js';
import { startTestSandbox } from './support/harness.js';

const LIFETIME_S = 2;
const posix = process.platform !== 'win32';

type Json = Record<string, any>;

/** Everything printed or returned, searched for secrets at the end (the stored files are not added). */
const transcript: string[] = [];

let sandbox: RunningSandbox;
let dir: string;

before(async () => {
  sandbox = await startTestSandbox({ oauth: { tokenLifetimeSeconds: LIFETIME_S } });
  dir = await mkdtemp(path.join(tmpdir(), 'toolservers-lasting-'));
});

after(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI with exactly this environment (plus PATH and a private HOME). */
function run(args: string[], env: Record<string, string>, onStderr?: (text: string) => void): Promise<CliRun> {
  return runCli(args, { home: dir, env, transcript, ...(onStderr ? { onStderr } : {}) });
}

/** `toolservers login <platform>` with every OAuth setting as a flag; plays the browser, after a stray request to the callback. */
async function login(platform: 'canvasapi' | 'incidentops', file: string, extraEnv: Record<string, string> = {}): Promise<{ run: CliRun; stray?: { status: number; body: string } }> {
  const o = sandbox.oauth[platform];
  const baseUrl = sandbox[platform].baseUrl;
  let stray: { status: number; body: string } | undefined;
  let started = false;
  let browsing: Promise<void> = Promise.resolve();
  const result = await run(
    ['login', platform, '--no-browser', '--base-url', baseUrl, '--client-id', o.clientId, '--client-secret', o.clientSecret, '--authorize-url', o.authorizeUrl, '--token-url', o.tokenUrl],
    { TOOLSERVERS_CREDENTIALS_FILE: file, TOOLSERVERS_LOG_LEVEL: 'debug', ...extraEnv },
    (stderr) => {
      const url = /(http:\/\/127\.0\.0\.1:\d+\/[\w-]+\/oauth\/authorize\S+)/.exec(stderr)?.[1];
      if (!url || started) return;
      started = true;
      browsing = (async () => {
        const redirect = new URL(new URL(url).searchParams.get('redirect_uri') ?? '');
        // Another local process gets there first, with a made-up code and state.
        redirect.searchParams.set('code', 'stray-code');
        redirect.searchParams.set('state', 'stray-state');
        const page = await fetch(redirect);
        stray = { status: page.status, body: await page.text() };
        transcript.push(stray.body);
        const authorize = await fetch(url, { redirect: 'manual' });
        const location = authorize.headers.get('location');
        assert.ok(location, 'the authorize endpoint redirects');
        transcript.push(await (await fetch(location)).text());
      })();
    },
  );
  await browsing;
  return { run: result, ...(stray ? { stray } : {}) };
}

async function readStore(file: string): Promise<{ version: number; credentials: Record<string, StoredCredential> }> {
  return JSON.parse(await readFile(file, 'utf8')) as { version: number; credentials: Record<string, StoredCredential> };
}

/** An MCP client on `toolservers <platform>` over stdio, whose environment holds nothing but the store's place and the base URL. */
async function emptyEnvServer(platform: 'canvasapi' | 'incidentops', file: string): Promise<{ client: Client; stderr: () => string }> {
  const baseUrlSetting = platform === 'canvasapi' ? 'CANVASAPI_BASE_URL' : 'INCIDENTOPS_BASE_URL';
  const env = { HOME: dir, TOOLSERVERS_CREDENTIALS_FILE: file, [baseUrlSetting]: sandbox[platform].baseUrl, TOOLSERVERS_LOG_LEVEL: 'debug' };
  for (const name of Object.keys(env)) assert.doesNotMatch(name, /CLIENT|TOKEN_URL|SECRET|ACCESS_TOKEN/, 'no OAuth setting reaches the server');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, platform], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'toolservers-lasting', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function callTool(client: Client, name: string, args: Json = {}): Promise<{ isError: boolean; data: Json }> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Json };
  const text = result.content[0]?.text ?? '{}';
  transcript.push(text);
  return { isError: result.isError === true, data: result.isError ? (JSON.parse(text) as Json).error : result.structuredContent ?? (JSON.parse(text) as Json) };
}

/** Where each platform's OAuth endpoints are recorded (the incident platform's identity service is a host of its own). */
const OAUTH_HOST = { canvasapi: 'canvasapi', incidentops: 'incidentops-identity' } as const;

function refreshGrants(platform: keyof typeof OAUTH_HOST): number {
  return sandbox.requests.filter((r) => r.platform === OAUTH_HOST[platform] && r.path.endsWith('/oauth/token') && JSON.stringify(r.body ?? {}).includes('refresh_token')).length;
}

function revocations(platform: keyof typeof OAUTH_HOST): { status: number }[] {
  return sandbox.requests.filter((r) => r.platform === OAUTH_HOST[platform] && r.method === 'POST' && r.path.endsWith('/oauth/revoke')).map((r) => ({ status: r.status ?? 0 }));
}

const TOOL = { canvasapi: 'CanvasApi.GetAccessTokenInfo', incidentops: 'IncidentOps.WhoAmI' } as const;

describe('a sign-in that lasts with an empty server environment', () => {
  for (const platform of ['canvasapi', 'incidentops'] as const) {
    it(`${platform}: login --client-secret stores the client; a server without OAuth settings renews after expiry; logout revokes with the stored client`, { timeout: 60_000 }, async () => {
      const file = path.join(dir, `${platform}-lasting.json`);
      const o = sandbox.oauth[platform];

      // 1. Sign in (a stray callback request comes first and is ignored).
      const { run: signed, stray } = await login(platform, file);
      assert.equal(signed.code, 0, signed.stderr);
      assert.equal(stray?.status, 400, 'the stray request was answered 400');
      assert.match(stray?.body ?? '', /does not carry its state/);
      assert.match(signed.stderr, /Ignored a request to the sign-in receiver/);
      assert.doesNotMatch(signed.stderr, /stray-code|stray-state/, 'nothing of the stray request is printed');
      assert.match(signed.stdout, /Signed in to/);
      assert.match(signed.stdout, /with the client ID, client secret, token URL and revoke URL/);

      // 2. What is stored: the client and its endpoints, beside the tokens, in an owner-only file.
      const first = (await readStore(file)).credentials[platform]!;
      assert.equal(first.clientId, o.clientId);
      assert.equal(first.clientSecret, o.clientSecret);
      assert.equal(first.tokenUrl, o.tokenUrl);
      assert.equal(first.revokeUrl, o.revokeUrl);
      assert.equal(first.baseUrl, sandbox[platform].baseUrl);
      assert.ok(first.refreshToken && first.expiresAt);
      if (posix) assert.equal((await stat(file)).mode & 0o777, 0o600);

      // 3. Let the token expire, then call a tool on a server that has no OAuth settings at all.
      await sleep(LIFETIME_S * 1000 + 300);
      assert.ok(Date.now() > first.expiresAt!, 'the stored access token has expired');
      const grantsBefore = refreshGrants(platform);
      const { client, stderr } = await emptyEnvServer(platform, file);
      try {
        const result = await callTool(client, TOOL[platform]);
        assert.equal(result.isError, false, JSON.stringify(result.data));
        assert.equal(refreshGrants(platform), grantsBefore + 1, 'renewed once, with the stored client');
        const second = (await readStore(file)).credentials[platform]!;
        assert.notEqual(second.accessToken, first.accessToken, 'a new access token is stored');
        assert.notEqual(second.refreshToken, first.refreshToken, 'the rotated refresh token is stored with it');
        assert.ok(second.expiresAt! > Date.now(), 'the new token is valid');
        assert.equal(second.clientSecret, o.clientSecret, 'the client stays stored');

        // Within its lifetime a call renews nothing; after the next expiry it renews again.
        assert.equal((await callTool(client, TOOL[platform])).isError, false);
        assert.equal(refreshGrants(platform), grantsBefore + 1);
        await sleep(LIFETIME_S * 1000 + 300);
        const again = await callTool(client, TOOL[platform]);
        assert.equal(again.isError, false, JSON.stringify(again.data));
        assert.equal(refreshGrants(platform), grantsBefore + 2);
        const third = (await readStore(file)).credentials[platform]!;
        assert.notEqual(third.refreshToken, second.refreshToken);
      } finally {
        await client.close();
        transcript.push(stderr());
      }

      // 4. auth status with an empty environment: renewal uses the stored client; never a secret.
      const status = await run(['auth', 'status', '--json'], { TOOLSERVERS_CREDENTIALS_FILE: file });
      assert.equal(status.code, 0, status.stderr);
      const entry = (JSON.parse(status.stdout) as { platforms: Json[] }).platforms.find((p) => p.platform === platform)!;
      assert.equal(entry.source, 'stored sign-in');
      assert.deepEqual(
        { clientId: entry.renewal?.clientId, clientIdFrom: entry.renewal?.clientIdFrom, clientSecret: entry.renewal?.clientSecret, tokenUrlFrom: entry.renewal?.tokenUrlFrom },
        { clientId: o.clientId, clientIdFrom: 'stored sign-in', clientSecret: 'stored sign-in', tokenUrlFrom: 'stored sign-in' },
      );

      // 5. logout with an empty environment revokes with the stored client, then deletes.
      const last = (await readStore(file)).credentials[platform]!;
      const revokesBefore = revocations(platform).length;
      const out = await run(['logout', platform], { TOOLSERVERS_CREDENTIALS_FILE: file });
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /the token was revoked and deleted/);
      const revokes = revocations(platform).slice(revokesBefore);
      assert.equal(revokes.length, 1);
      assert.ok(revokes[0]!.status < 300, `the platform accepted the revocation (HTTP ${revokes[0]!.status})`);
      assert.equal((await readStore(file)).credentials[platform], undefined);
      // The grant is dead: its refresh token no longer renews anything.
      const refused = await fetch(o.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: last.refreshToken!, client_id: o.clientId, client_secret: o.clientSecret }).toString(),
      });
      assert.equal(refused.status, 400);
      assert.equal(((await refused.json()) as Json).error, 'invalid_grant');
    });
  }

  it('a sign-in stored without a client secret (older toolservers) says exactly why it cannot be renewed', { timeout: 30_000 }, async () => {
    const file = path.join(dir, 'old-style.json');
    const { run: signed } = await login('canvasapi', file);
    assert.equal(signed.code, 0, signed.stderr);
    const data = await readStore(file);
    delete data.credentials.canvasapi!.clientSecret;
    await writeFile(file, JSON.stringify(data), { mode: 0o600 });
    await sleep(LIFETIME_S * 1000 + 300);
    const call = await run(['call', 'CanvasApi.GetAccessTokenInfo'], { TOOLSERVERS_CREDENTIALS_FILE: file, CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl });
    assert.equal(call.code, 1);
    const error = (JSON.parse(call.stdout) as Json).error as Json;
    assert.equal(error.kind, 'unauthorized');
    assert.match(error.message, /invalid_client/);
    assert.match(error.message, /No client secret was sent: none is stored with the sign-in/);
    assert.match(error.message, /CANVASAPI_CLIENT_SECRET is not set/);
    assert.match(error.next_step, /toolservers login canvasapi/);
    assert.doesNotMatch(call.stdout, /nobody has signed in/i);
  });
});

describe('precedence: OAuth settings that are set win over the stored client, defaults do not', () => {
  it('only values set by a flag or variable count; a default never overrides what a sign-in stored', () => {
    const canvas = findServer('canvasapi')!;
    const none = configuredClient(canvas.auth({}, { env: {} }));
    assert.deepEqual(
      { clientId: none.clientId, clientSecret: none.clientSecret, tokenUrl: none.tokenUrl, revokeUrl: none.revokeUrl, defaultTokenUrl: none.defaultTokenUrl, defaultRevokeUrl: none.defaultRevokeUrl },
      { clientId: undefined, clientSecret: undefined, tokenUrl: undefined, revokeUrl: undefined, defaultTokenUrl: 'https://api.miro.com/v1/oauth/token', defaultRevokeUrl: 'https://api.miro.com/v2/oauth/revoke' },
    );
    // Set explicitly, even to the default value: it wins.
    const set = configuredClient(canvas.auth({}, { env: { CANVASAPI_TOKEN_URL: 'https://api.miro.com/v1/oauth/token', CANVASAPI_CLIENT_ID: 'id-env', CANVASAPI_CLIENT_SECRET: 'secret-env' } }));
    assert.deepEqual({ clientId: set.clientId, clientSecret: set.clientSecret, tokenUrl: set.tokenUrl }, { clientId: 'id-env', clientSecret: 'secret-env', tokenUrl: 'https://api.miro.com/v1/oauth/token' });
    assert.equal(configuredClient(canvas.auth({ tokenUrl: 'https://flag.example/token' }, { env: {} })).tokenUrl, 'https://flag.example/token');

    const incident = findServer('incidentops')!;
    const eu = configuredClient(incident.auth({}, { env: { INCIDENTOPS_REGION: 'eu' } }));
    assert.equal(eu.tokenUrl, undefined);
    assert.equal(eu.defaultTokenUrl, 'https://identity.eu.pagerduty.com/oauth/token');
    const tokenOnly = configuredClient(incident.auth({}, { env: { INCIDENTOPS_TOKEN_URL: 'https://id.example.test/oauth/token' } }));
    assert.deepEqual({ tokenUrl: tokenOnly.tokenUrl, revokeUrl: tokenOnly.revokeUrl }, { tokenUrl: 'https://id.example.test/oauth/token', revokeUrl: 'https://id.example.test/oauth/revoke' });
    const revokeOnly = configuredClient(incident.auth({}, { env: { INCIDENTOPS_REVOKE_URL: 'https://id.example.test/oauth/revoke' } }));
    assert.deepEqual({ tokenUrl: revokeOnly.tokenUrl, revokeUrl: revokeOnly.revokeUrl }, { tokenUrl: undefined, revokeUrl: 'https://id.example.test/oauth/revoke' });
  });
});

describe('a store that never drops what it does not understand', () => {
  /** A file with a good canvasapi sign-in (it has a field from the future) and something else. */
  async function fixture(name: string, other: unknown, extra: Json = {}, expiresAt = Date.now() + 3_600_000): Promise<{ file: string; text: string }> {
    const file = path.join(dir, name);
    const good = {
      platform: 'canvasapi',
      accessToken: 'stored-access-token-AAAAAAAAAA',
      refreshToken: 'stored-refresh-token-BBBBBBBBBB',
      tokenType: 'bearer',
      expiresAt,
      obtainedAt: expiresAt - 3_600_000,
      clientId: sandbox.oauth.canvasapi.clientId,
      clientSecret: sandbox.oauth.canvasapi.clientSecret,
      tokenUrl: sandbox.oauth.canvasapi.tokenUrl,
      baseUrl: sandbox.canvasapi.baseUrl,
      futureField: { kept: true },
    };
    const text = JSON.stringify({ version: 1, credentials: { canvasapi: good, incidentops: other }, ...extra }, null, 2);
    await writeFile(file, text, { mode: 0o600 });
    return { file, text };
  }

  it('a malformed entry: login, logout and refresh of the other platform fail before doing anything, the file is untouched; logout of the broken entry repairs it and keeps the rest', { timeout: 30_000 }, async () => {
    // The canvasapi sign-in is well-formed but expired: using it needs a refresh, which would rewrite the file.
    const { file, text } = await fixture('malformed.json', { accessToken: 'x-token-CCCCCCCCCC', refreshToken: 42 }, { note: 'kept' }, Date.now() - 60_000);
    const env = { TOOLSERVERS_CREDENTIALS_FILE: file, CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl };

    const grantsBefore = refreshGrants('canvasapi');
    const renewal = await run(['call', 'CanvasApi.RetrieveUserBoards'], env);
    assert.equal(renewal.code, 1);
    const renewalError = (JSON.parse(renewal.stdout) as Json).error as Json;
    assert.equal(renewalError.kind, 'not_configured');
    assert.match(renewalError.message, /The stored canvasapi sign-in cannot be renewed: Saving the canvasapi sign-in would rewrite the credentials file .* which has a malformed entry for "incidentops" \(refreshToken is not a string\)/);
    assert.match(renewalError.next_step, /The file was not rewritten\. Run `toolservers logout incidentops`/);
    assert.equal(refreshGrants('canvasapi'), grantsBefore, 'the refresh token was not spent');
    assert.equal(await readFile(file, 'utf8'), text, 'the refresh did not rewrite the file');

    // logout of the well-formed platform would rewrite the file: refused, nothing revoked.
    const revokesBefore = revocations('canvasapi').length;
    const out = await run(['logout', 'canvasapi'], env);
    assert.equal(out.code, 1);
    assert.match(out.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(out.stderr, /malformed entry for "incidentops" \(refreshToken is not a string\)/);
    assert.match(out.stderr, /The file was not rewritten\. Run `toolservers logout incidentops` to remove just that entry/);
    assert.equal(revocations('canvasapi').length, revokesBefore, 'nothing was revoked');
    assert.equal(await readFile(file, 'utf8'), text);

    // login fails before the browser opens.
    const signed = await login('canvasapi', file);
    assert.equal(signed.run.code, 1);
    assert.doesNotMatch(signed.run.stderr, /open this address/, 'no sign-in was started');
    assert.match(signed.run.stderr, /malformed entry for "incidentops"/);
    assert.equal(await readFile(file, 'utf8'), text);

    // A tool of the broken platform names the file, the entry and the repair.
    const broken = await run(['call', 'IncidentOps.WhoAmI'], { TOOLSERVERS_CREDENTIALS_FILE: file, INCIDENTOPS_BASE_URL: sandbox.incidentops.baseUrl });
    assert.equal(broken.code, 1);
    const error = (JSON.parse(broken.stdout) as Json).error as Json;
    assert.equal(error.kind, 'not_configured');
    assert.ok(String(error.message).includes(file), error.message);
    assert.match(error.message, /malformed entry for "incidentops" \(refreshToken is not a string\)/);
    assert.match(error.next_step, /toolservers logout incidentops/);
    assert.doesNotMatch(broken.stdout, /nobody has signed in/i);

    // auth status shows it.
    const status = await run(['auth', 'status'], { TOOLSERVERS_CREDENTIALS_FILE: file });
    assert.equal(status.code, 0);
    assert.match(status.stdout, /IncidentOps .*\n.*malformed entry for "incidentops"/);

    // The repair: logout of the broken entry removes just it.
    const repaired = await run(['logout', 'incidentops'], { TOOLSERVERS_CREDENTIALS_FILE: file });
    assert.equal(repaired.code, 0, repaired.stderr);
    assert.match(repaired.stdout, /Removed the malformed IncidentOps entry/);
    const after = JSON.parse(await readFile(file, 'utf8')) as Json;
    const before = JSON.parse(text) as Json;
    assert.deepEqual(after.credentials, { canvasapi: before.credentials.canvasapi }, 'the other entry is kept exactly, unknown field included');
    assert.equal(after.note, 'kept', 'unknown top-level keys are kept');
    if (posix) assert.equal((await stat(file)).mode & 0o777, 0o600);
  });

  it('another version or invalid JSON: every command leaves the file alone and says which file, what is wrong and how to repair it', { timeout: 30_000 }, async () => {
    const cases = [
      { name: 'future.json', text: JSON.stringify({ version: 2, credentials: { canvasapi: { accessToken: 'tok-DDDDDDDDDD', refreshToken: 'ref-EEEEEEEEEE' } } }), what: /has version 2; this toolservers understands version 1 only/ },
      { name: 'garbled.json', text: '{"version": 1, "credentials": {"canvasapi": {"accessToken": "tok-FFFFFFFFFF"', what: /is not valid JSON/ },
    ];
    for (const { name, text, what } of cases) {
      const file = path.join(dir, name);
      await writeFile(file, text, { mode: 0o600 });
      const env = { TOOLSERVERS_CREDENTIALS_FILE: file, CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl };
      for (const args of [['logout', 'canvasapi'], ['logout', 'incidentops']]) {
        const out = await run(args, env);
        assert.equal(out.code, 1, `${args.join(' ')}: ${out.stdout}`);
        assert.match(out.stderr, what);
        assert.ok(out.stderr.includes(file));
        assert.match(out.stderr, /The file was not rewritten/);
        assert.match(out.stderr, /move it aside \(mv /);
      }
      const signed = await login('canvasapi', file);
      assert.equal(signed.run.code, 1);
      assert.match(signed.run.stderr, what);
      const call = await run(['call', 'CanvasApi.GetAccessTokenInfo'], env);
      const error = (JSON.parse(call.stdout) as Json).error as Json;
      assert.match(error.message, what);
      assert.ok(String(error.message).includes(file));
      assert.match(error.next_step, /mv .* and sign in again with `toolservers login canvasapi`/);
      assert.doesNotMatch(call.stdout, /tok-|ref-/, 'the parser never quotes the file');
      assert.equal(await readFile(file, 'utf8'), text, `${name} is untouched`);
    }
  });

  it('a symlinked credentials file is refused: its target keeps its mode and content, the link stays a link', { skip: !posix, timeout: 30_000 }, async () => {
    const { file: target, text } = await fixture('real-target.json', { accessToken: 'ok-token-GGGGGGGGGG' });
    await chmod(target, 0o644);
    const link = path.join(dir, 'linked.json');
    await symlink(target, link);
    const env = { TOOLSERVERS_CREDENTIALS_FILE: link, CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl };
    const call = await run(['call', 'CanvasApi.GetAccessTokenInfo'], env);
    const error = (JSON.parse(call.stdout) as Json).error as Json;
    assert.match(error.message, /is a symbolic link \(to .*real-target\.json\)/);
    assert.match(error.next_step, /TOOLSERVERS_CREDENTIALS_FILE=/);
    for (const args of [['logout', 'canvasapi'], ['auth', 'status']]) {
      const out = await run(args, env);
      assert.match(out.stdout + out.stderr, /symbolic link/);
    }
    assert.equal((await stat(target)).mode & 0o777, 0o644, 'the target mode was not changed');
    assert.equal(await readFile(target, 'utf8'), text);
    assert.ok((await lstat(link)).isSymbolicLink());
  });

  it('a sign-in made for another base URL: the tool names both addresses', async () => {
    const { file } = await fixture('other-base.json', { accessToken: 'ok-token-HHHHHHHHHH', baseUrl: 'https://api.eu.example.test' });
    const call = await run(['call', 'IncidentOps.WhoAmI'], { TOOLSERVERS_CREDENTIALS_FILE: file, INCIDENTOPS_BASE_URL: sandbox.incidentops.baseUrl });
    assert.equal(call.code, 1);
    const error = (JSON.parse(call.stdout) as Json).error as Json;
    assert.equal(error.kind, 'not_configured');
    assert.match(error.message, new RegExp(`was made for https://api\\.eu\\.example\\.test, but this server uses ${sandbox.incidentops.baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(error.next_step, /INCIDENTOPS_BASE_URL=https:\/\/api\.eu\.example\.test/);
    assert.match(error.next_step, /toolservers login incidentops --base-url/);
    assert.doesNotMatch(call.stdout, /nobody has signed in/i);
  });
});

describe('hygiene', () => {
  it('account names and other stored text reach the terminal without control characters or escape sequences', async () => {
    const file = path.join(dir, 'evil-account.json');
    const evil = 'Eve\u001b]0;owned\u0007\u001b[31m Mallory\u009b2J\r\nFAKE> \u202egnp.exe';
    await writeFile(
      file,
      JSON.stringify({ version: 1, credentials: { canvasapi: { accessToken: 'tok-IIIIIIIIII', tokenType: 'bearer', obtainedAt: 1, scope: 'boards:read\u001b[8m', account: { id: 'u1', name: evil, email: 'e@x.test\u0007' } } } }),
      { mode: 0o600 },
    );
    const status = await run(['auth', 'status'], { TOOLSERVERS_CREDENTIALS_FILE: file });
    assert.equal(status.code, 0, status.stderr);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(status.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/, 'only line breaks remain');
    assert.match(status.stdout, /as Eve Mallory FAKE> gnp\.exe <e@x\.test>/);
  });

  it('an unknown log level is a one-line error listing the valid ones, exit code 2, for every command; aliases work', async () => {
    for (const args of [['auth', 'status'], ['tools'], ['login', 'canvasapi'], ['logout', 'canvasapi'], ['call', 'IncidentOps.WhoAmI', '--sandbox'], ['incidentops', '--sandbox'], ['serve'], ['--version']]) {
      const out = await run(args, { TOOLSERVERS_LOG_LEVEL: 'verbose', TOOLSERVERS_CREDENTIALS_FILE: path.join(dir, 'unused.json') });
      assert.equal(out.code, 2, `${args.join(' ')}: ${out.stderr}`);
      assert.equal(out.stdout, '');
      assert.equal(out.stderr.trim().split('\n').length, 1, `one line: ${out.stderr}`);
      assert.match(out.stderr, /^TOOLSERVERS_LOG_LEVEL="verbose" is not a log level\. Use one of: trace, debug, info, warn, error, fatal, silent/);
      assert.doesNotMatch(out.stderr, /\bat .*\.js:\d+/, 'no stack trace');
    }
    for (const level of ['warning', 'WARN', ' Debug ', 'off', '']) {
      const out = await run(['auth', 'status'], { TOOLSERVERS_LOG_LEVEL: level, TOOLSERVERS_CREDENTIALS_FILE: path.join(dir, 'unused.json') });
      assert.equal(out.code, 0, `${JSON.stringify(level)}: ${out.stderr}`);
    }
  });
});

describe('secrets', () => {
  it('no token, refresh token or client secret appears in any output, log or tool result', () => {
    const text = transcript.join('\n');
    assert.ok(text.length > 2000, 'the transcript covers the flows');
    for (const secret of [sandbox.oauth.canvasapi.clientSecret, sandbox.oauth.incidentops.clientSecret]) assert.ok(!text.includes(secret), 'a client secret leaked');
    const issued = /(pdu[sr]\+_0[\w-]{8,}|eyJjYW52YXNhcGkub3JpZ2luIjoic2FuZGJveCJ9_[\w-]{8,})/g;
    assert.deepEqual(text.match(issued) ?? [], [], 'an issued token leaked');
    for (const fixed of ['stored-access-token-AAAAAAAAAA', 'stored-refresh-token-BBBBBBBBBB', 'x-token-CCCCCCCCCC', 'tok-DDDDDDDDDD', 'ref-EEEEEEEEEE', 'tok-FFFFFFFFFF', 'ok-token-GGGGGGGGGG', 'ok-token-HHHHHHHHHH', 'tok-IIIIIIIIII']) {
      assert.ok(!text.includes(fixed), `a stored token leaked: ${fixed}`);
    }
  });
});
