/**
 * OAuth mode against someone who can read or write the store, forge proxy headers or send odd
 * token requests:
 *  - No access token, refresh token or code appears in any store key or value, and a record
 *    written without the state key (a forged token, a real record moved to another key) is
 *    refused; revoking a grant leaves nothing of it behind.
 *  - An MCP token whose platform sign-in cannot be opened (state key changed) gets 401.
 *  - DPoP is not offered: a token request with a proof gets a Bearer token that works.
 *  - With a public URL, forwarded headers change no URL of the metadata or registration; metadata
 *    carries cache headers, token and registration answers `no-store`.
 *  - A refresh naming a resource the grant does not cover is refused without using up the
 *    refresh token.
 * The servers here are built from prepareOAuthMode over a store that records every key and value
 * it is given, as an attacker reading a Redis backup or the MONITOR stream would see them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { createLogger, silentLogger, type Logger } from '../src/core/logger.js';
import type { RunningHttpServer } from '../src/core/serving/serve.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { generateStateKey } from '../src/core/store/sealed.js';
import type { SharedStore } from '../src/core/store/store.js';
import { DEMO_USER_ID, type RunningSandbox } from '../src/sandbox/server.js';
import { RECORDS_GONE_CHANNEL } from '../src/core/serving/oauth/record-cache.js';
import { startTestSandbox } from './support/harness.js';
import { CLIENT_REDIRECT, HttpBrowser, MemoryOAuthProvider, startOAuthServer } from './support/oauth-client.js';

type Json = Record<string, unknown>;

/** Every key and value handed to the store, in order. */
interface StoreLog {
  keys: string[];
  values: string[];
}

/** A MemoryStore that logs what it is given (keys of every operation, values written). */
function recordingStore(): { store: SharedStore; log: StoreLog } {
  const inner = new MemoryStore();
  const log: StoreLog = { keys: [], values: [] };
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (['get', 'set', 'setIfAbsent', 'take', 'addToSet', 'setMembers', 'raiseTo'].includes(String(property))) log.keys.push(String(args[0]));
        if (property === 'delete') log.keys.push(...args.map(String));
        if (['set', 'setIfAbsent', 'addToSet'].includes(String(property))) log.values.push(String(args[1]));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, log };
}

interface Running {
  http: RunningHttpServer;
  base: string;
  endpoint: string;
}

async function startServer(sandbox: RunningSandbox, store: SharedStore, stateKey: string, publicUrl?: string, logger: Logger = silentLogger): Promise<Running> {
  const { http } = await startOAuthServer(sandbox, { store, stateKey, logger, ...(publicUrl ? { publicUrl } : {}) });
  return { http, base: http.url, endpoint: `${http.url}/incidentops/mcp` };
}

async function tokenRequest(base: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}

/** A tools/list with this Authorization header: status and challenge. */
async function mcpStatus(endpoint: string, authorization: string): Promise<{ status: number; challenge: string }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.arrayBuffer();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

/** Registration, the browser's way through the platform and consent, and the client's redirect: the code and what the token request needs. */
async function authorizationCode(endpoint: string, loginHint: string): Promise<{ code: string; form: Record<string, string>; provider: MemoryOAuthProvider }> {
  const provider = new MemoryOAuthProvider(loginHint);
  const client = new Client({ name: 'token-security-test', version: '1' });
  await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider })), (error: unknown) => error instanceof UnauthorizedError);
  const answer = await new HttpBrowser().authorize((provider.authorizationUrl as URL).href);
  const code = answer.get('code');
  assert.ok(code, answer.toString());
  return { code, provider, form: { grant_type: 'authorization_code', code, code_verifier: provider.verifier, redirect_uri: CLIENT_REDIRECT, client_id: String(provider.clientInfo.client_id), resource: endpoint } };
}

/** A signed-in client: its access and refresh tokens (and the code they came from). */
async function signIn(running: Running, loginHint: string): Promise<{ code: string; accessToken: string; refreshToken: string; clientId: string }> {
  const { code, form } = await authorizationCode(running.endpoint, loginHint);
  const tokens = await tokenRequest(running.base, form);
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  return { code, accessToken: String(tokens.body.access_token), refreshToken: String(tokens.body.refresh_token), clientId: form.client_id as string };
}

async function otherIncidentOpsUser(sandbox: RunningSandbox): Promise<{ id: string; email: string }> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}/users?limit=5`, {
    headers: { authorization: `Bearer ${sandbox.incidentops.token}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
  });
  const { users } = (await response.json()) as { users: { id: string; email: string }[] };
  const other = users.find((user) => user.id !== DEMO_USER_ID);
  assert.ok(other);
  return other;
}

describe('OAuth mode: tokens in the store', () => {
  let sandbox: RunningSandbox;
  let recorded: { store: SharedStore; log: StoreLog };
  let server: Running;
  const stateKey = generateStateKey();
  const logLines: string[] = [];

  before(async () => {
    sandbox = await startTestSandbox();
    recorded = recordingStore();
    server = await startServer(sandbox, recorded.store, stateKey, undefined, createLogger('warn', { write: (line: string) => logLines.push(line) }));
  });
  after(async () => {
    await server?.http.close();
    await recorded?.store.close();
    await sandbox?.close();
  });

  it('keeps no access token, refresh token or code in any store key or value, through sign-in and refresh', async () => {
    const first = await signIn(server, 'demo.user@example.com');
    const refreshed = await tokenRequest(server.base, { grant_type: 'refresh_token', refresh_token: first.refreshToken, client_id: first.clientId, resource: server.endpoint });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal((await mcpStatus(server.endpoint, `Bearer ${String(refreshed.body.access_token)}`)).status, 200);
    const secrets = [first.code, first.accessToken, first.refreshToken, String(refreshed.body.access_token), String(refreshed.body.refresh_token)];
    assert.ok(recorded.log.keys.some((key) => key.startsWith('oauth:AccessToken:')), 'access tokens are stored');
    for (const secret of secrets) {
      assert.ok(secret.length >= 20, secret);
      const inKey = recorded.log.keys.find((key) => key.includes(secret));
      assert.equal(inKey, undefined, `a store key holds a token: ${inKey}`);
      assert.ok(!recorded.log.values.some((value) => value.includes(secret)), 'a stored value holds a token');
    }
  });

  it('refuses records written without the state key: a forged token and a real record moved under another token', async () => {
    const victim = await signIn(server, 'demo.user@example.com');
    const attackerUser = await otherIncidentOpsUser(sandbox);
    const keysBefore = recorded.log.keys.length;
    const attacker = await signIn(server, attackerUser.email);
    const attackerTokenKeys = [...new Set(recorded.log.keys.slice(keysBefore).filter((key) => /^oauth:AccessToken:[^:]+$/.test(key)))];
    assert.equal(attackerTokenKeys.length, 1, JSON.stringify(attackerTokenKeys));
    assert.equal((await mcpStatus(server.endpoint, `Bearer ${attacker.accessToken}`)).status, 200);

    // 1. A token made up from scratch for the victim, with its grant, as plain records in the store.
    const now = Math.floor(Date.now() / 1000);
    const victimKey = `incidentops:${DEMO_USER_ID}`;
    const grantId = `forged-grant-${randomUUID()}`;
    const madeUp = `forged-${randomUUID()}`;
    await recorded.store.set(
      `oauth:Grant:${grantId}`,
      JSON.stringify({ iat: now, exp: now + 3600, accountId: victimKey, clientId: attacker.clientId, kind: 'Grant', jti: grantId, openid: { scope: 'openid offline_access mcp:tools' }, resources: { [server.endpoint]: 'mcp:tools' } }),
    );
    await recorded.store.set(
      `oauth:AccessToken:${madeUp}`,
      JSON.stringify({ iat: now, exp: now + 3600, accountId: victimKey, aud: server.endpoint, clientId: attacker.clientId, grantId, gty: 'authorization_code', kind: 'AccessToken', jti: madeUp, scope: 'mcp:tools', expiresWithSession: false }),
    );
    const forged = await mcpStatus(server.endpoint, `Bearer ${madeUp}`);
    assert.equal(forged.status, 401, 'a forged token record is refused');
    assert.match(forged.challenge, /invalid_token/);

    // 2. The victim's real record copied over the attacker's own token's record.
    const victimTokenKeys = [...new Set(recorded.log.keys.slice(0, keysBefore).filter((key) => /^oauth:AccessToken:[^:]+$/.test(key)))];
    const victimRecord = (await Promise.all(victimTokenKeys.map((key) => recorded.store.get(key)))).filter((value): value is string => value !== undefined);
    assert.ok(victimRecord.length > 0, 'the victim\'s token record is in the store');
    await recorded.store.set(attackerTokenKeys[0] as string, victimRecord.at(-1) as string);
    // A replica that remembers the token reads it again once told it changed (anyone who can write to Redis can tell it): the moved record is refused.
    await recorded.store.publish(RECORDS_GONE_CHANNEL, attackerTokenKeys[0] as string);
    const moved = await mcpStatus(server.endpoint, `Bearer ${attacker.accessToken}`);
    assert.equal(moved.status, 401, 'a record moved to another key is refused');
    // The refusal is logged, naming the key and not the record.
    const warnings = logLines.filter((line) => line.includes('does not verify'));
    assert.ok(warnings.some((line) => line.includes(attackerTokenKeys[0] as string)), logLines.join(''));
    assert.ok(!warnings.some((line) => line.includes(victimRecord.at(-1) as string) || line.includes(victim.accessToken)));
    // The victim's own token still works.
    assert.equal((await mcpStatus(server.endpoint, `Bearer ${victim.accessToken}`)).status, 200);
  });

  it('revoking a grant removes every record of it from the store', async () => {
    const keysBefore = recorded.log.keys.length;
    const first = await signIn(server, 'demo.user@example.com');
    const refreshed = await tokenRequest(server.base, { grant_type: 'refresh_token', refresh_token: first.refreshToken, client_id: first.clientId, resource: server.endpoint });
    assert.equal(refreshed.status, 200);
    const grantRecords = [...new Set(recorded.log.keys.slice(keysBefore).filter((key) => /^oauth:(AccessToken|RefreshToken|AuthorizationCode|Grant):/.test(key)))];
    const stored = async () => (await Promise.all(grantRecords.map(async (key) => ((await recorded.store.get(key)) === undefined ? [] : [key])))).flat();
    assert.ok((await stored()).length >= 5, `codes, tokens, the grant and the used markers are stored: ${JSON.stringify(await stored())}`);
    const revoke = await fetch(`${server.base}/oauth/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: String(refreshed.body.refresh_token), token_type_hint: 'refresh_token', client_id: first.clientId }).toString(),
    });
    assert.equal(revoke.status, 200);
    assert.deepEqual(await stored(), []);
    assert.equal((await mcpStatus(server.endpoint, `Bearer ${String(refreshed.body.access_token)}`)).status, 401);
  });

  it('answers 401 invalid_token once the platform sign-in cannot be opened (the state key changed)', async () => {
    const signedIn = await signIn(server, 'demo.user@example.com');
    assert.equal((await mcpStatus(server.endpoint, `Bearer ${signedIn.accessToken}`)).status, 200);
    // The same public URL (the token's audience), the same store, another state key.
    const restarted = await startServer(sandbox, recorded.store, generateStateKey(), server.base);
    try {
      const refused = await mcpStatus(restarted.endpoint, `Bearer ${signedIn.accessToken}`);
      assert.equal(refused.status, 401);
      assert.match(refused.challenge, /error="invalid_token"/);
    } finally {
      await restarted.http.close();
    }
  });
});

describe('OAuth mode: token requests and metadata', () => {
  let sandbox: RunningSandbox;
  let store: SharedStore;
  let server: Running;

  before(async () => {
    sandbox = await startTestSandbox();
    store = new MemoryStore();
    server = await startServer(sandbox, store, generateStateKey());
  });
  after(async () => {
    await server?.http.close();
    await store?.close();
    await sandbox?.close();
  });

  it('does not offer DPoP: a code exchange with a DPoP proof gets a Bearer token that works as Bearer', async () => {
    const metadata = (await (await fetch(`${server.base}/.well-known/oauth-authorization-server/oauth`)).json()) as Json;
    assert.equal(metadata.dpop_signing_alg_values_supported, undefined);
    const { form } = await authorizationCode(server.endpoint, 'demo.user@example.com');
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const proof = await new SignJWT({ htm: 'POST', htu: `${server.base}/oauth/token`, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
      .setIssuedAt()
      .sign(privateKey);
    const tokens = await tokenRequest(server.base, form, { dpop: proof });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    assert.equal(tokens.body.token_type, 'Bearer');
    assert.equal((await mcpStatus(server.endpoint, `Bearer ${String(tokens.body.access_token)}`)).status, 200);
  });

  it('refuses a refresh for a resource the grant does not cover without using the refresh token up', async () => {
    const { form } = await authorizationCode(server.endpoint, 'demo.user@example.com');
    const tokens = await tokenRequest(server.base, form);
    assert.equal(tokens.status, 200);
    const refresh = { grant_type: 'refresh_token', refresh_token: String(tokens.body.refresh_token), client_id: form.client_id as string };
    for (const resource of [`${server.base}/canvasapi/mcp`, 'https://elsewhere.example/mcp']) {
      const wrong = await tokenRequest(server.base, { ...refresh, resource });
      assert.equal(wrong.status, 400, resource);
      assert.equal(wrong.body.error, 'invalid_target', JSON.stringify(wrong.body));
    }
    const right = await tokenRequest(server.base, { ...refresh, resource: server.endpoint });
    assert.equal(right.status, 200, `the retry with the granted resource works: ${JSON.stringify(right.body)}`);
    assert.equal((await mcpStatus(server.endpoint, `Bearer ${String(right.body.access_token)}`)).status, 200);
  });

  it('keeps every metadata and registration URL on the public URL whatever the forwarded headers say, with cache headers', async () => {
    const publicUrl = 'https://tools.example.test';
    const behindProxy = await startServer(sandbox, store, generateStateKey(), publicUrl);
    try {
      const forged = { 'x-forwarded-host': 'attacker.example', 'x-forwarded-proto': 'http', 'x-forwarded-port': '8443', forwarded: 'host=attacker.example;proto=http' };
      for (const path of ['/.well-known/oauth-authorization-server/oauth', '/.well-known/openid-configuration/oauth', '/.well-known/oauth-authorization-server', '/oauth/.well-known/openid-configuration']) {
        const response = await fetch(`${behindProxy.base}${path}`, { headers: forged });
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get('cache-control'), 'public, max-age=300', path);
        const metadata = (await response.json()) as Json;
        assert.equal(metadata.issuer, `${publicUrl}/oauth`);
        const urls = Object.entries(metadata).filter(([name]) => name.endsWith('_endpoint') || name.endsWith('_uri'));
        assert.ok(urls.length >= 4, JSON.stringify(urls));
        for (const [name, url] of urls) assert.ok(String(url).startsWith(`${publicUrl}/oauth/`), `${path} ${name}: ${String(url)}`);
      }
      const resource = await fetch(`${behindProxy.base}/.well-known/oauth-protected-resource/incidentops/mcp`, { headers: forged });
      assert.equal(resource.headers.get('cache-control'), 'public, max-age=300');
      assert.equal(((await resource.json()) as Json).resource, `${publicUrl}/incidentops/mcp`);

      const registration = await fetch(`${behindProxy.base}/oauth/reg`, {
        method: 'POST',
        headers: { ...forged, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'forwarded', redirect_uris: [CLIENT_REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
      });
      assert.equal(registration.status, 201);
      assert.equal(registration.headers.get('cache-control'), 'no-store');
      const registered = (await registration.json()) as Json;
      // No client management is offered, so no URL of it to forge; every URL the answer does carry is the public one.
      assert.equal(registered.registration_client_uri, undefined);
      for (const value of Object.values(registered)) if (typeof value === 'string' && /^https?:\/\//.test(value) && value !== CLIENT_REDIRECT) assert.ok(value.startsWith(publicUrl), value);
      const token = await tokenRequest(behindProxy.base, { grant_type: 'refresh_token', refresh_token: 'unknown', client_id: String(registered.client_id) });
      assert.equal(token.status, 400);
      assert.equal(token.headers.get('cache-control'), 'no-store');
    } finally {
      await behindProxy.http.close();
    }
  });
});
