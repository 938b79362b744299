/**
 * OAuth mode when the shared store fails under a signed-in user (in process, a store that fails
 * on chosen keys; test/store-outage.test.ts does it to a real Redis):
 *  - a store that cannot be read gives a tool error that says so and names no host, never
 *    "nobody has signed in";
 *  - a token that is still valid is used when its renewal cannot be claimed;
 *  - a renewed pair the store refuses is kept, used, and written once the store takes writes, so
 *    the user is not signed out by the platform's rotation;
 *  - a renewal claim lapses within seconds when its holder died, and stays held while a slow
 *    renewal runs (no second use of the rotating refresh token).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { RENEWAL_CLAIM_MS, userCredentials } from '../src/core/serving/oauth/user-credentials.js';
import { TokenVault } from '../src/core/serving/oauth/vault.js';
import { runAs } from '../src/core/platform/request-identity.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { generateStateKey, STATE_KEY_ENV, stateKeyFrom } from '../src/core/store/sealed.js';
import { StoreUnavailableError, type SharedStore } from '../src/core/store/store.js';
import { DEMO_USER_ID, type RunningSandbox } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { prepareOAuthMode } from '../src/servers/oauth-mode.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, connectWithOAuth, MemoryOAuthProvider } from './support/oauth-client.js';

type Json = Record<string, unknown>;

const READS = new Set(['get', 'take', 'setMembers']);
const WRITES = new Set(['set', 'setIfAbsent', 'delete', 'addToSet', 'raiseTo', 'extendIfHeld', 'deleteIfHeld']);

/** A MemoryStore whose reads or writes of matching keys fail as a Redis outage does (naming a host the caller must never see). */
class FailingStore {
  failReads: RegExp | undefined;
  failWrites: RegExp | undefined;
  readonly store: SharedStore;

  constructor(inner = new MemoryStore()) {
    this.store = new Proxy(inner, {
      get: (target, property, receiver) => {
        const original = Reflect.get(target, property, receiver) as unknown;
        if (typeof original !== 'function' || typeof property !== 'string') return original;
        return (...args: unknown[]) => {
          const keys = args.filter((arg): arg is string => typeof arg === 'string');
          const failing = READS.has(property) ? this.failReads : WRITES.has(property) ? this.failWrites : undefined;
          if (failing && keys.some((key) => failing.test(key))) {
            return Promise.reject(new StoreUnavailableError(`The shared store (Redis at redis://10.9.8.7:6379) could not ${property}: Command timed out.`));
          }
          return (original as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  heal(): void {
    this.failReads = undefined;
    this.failWrites = undefined;
  }
}

const VAULT_KEYS = /^oauth:platform-tokens:/;
const RENEWAL_KEYS = /^oauth:platform-renewal:/;

describe('OAuth mode when the store fails under a signed-in user', () => {
  let sandbox: RunningSandbox;
  let failing: FailingStore;
  let http: RunningHttpServer;
  let client: Client;
  let provider: MemoryOAuthProvider;
  let vault: TokenVault;
  const stateKey = generateStateKey();
  const userKey = `incidentops:${DEMO_USER_ID}`;
  const refreshGrants = () => sandbox.requests.filter((request) => request.path === '/oauth/token' && (request.body as Json | undefined)?.grant_type === 'refresh_token');

  before(async () => {
    sandbox = await startTestSandbox();
    failing = new FailingStore();
    const mode = prepareOAuthMode({ entries: SERVERS, input: {}, logger: silentLogger, sandbox, env: { [STATE_KEY_ENV]: stateKey }, single: false, store: failing.store });
    http = await serveOverHttp({ host: '127.0.0.1', port: 0, mounts: mode.servers.map((server) => ({ path: `/${server.id}/mcp`, server })), logger: silentLogger, auth: { kind: 'oauth', layer: mode.layer }, store: failing.store });
    provider = new MemoryOAuthProvider('demo.user@example.com');
    client = await connectWithOAuth(`${http.url}/incidentops/mcp`, provider);
    vault = new TokenVault(failing.store, stateKeyFrom(stateKey));
  });

  after(async () => {
    await client?.close();
    await http?.close();
    await sandbox?.close();
  });

  /** The stored pair, made to look like it expires at `expiresAt` (the platform still honours it). */
  async function storedExpiringAt(expiresAt: number) {
    failing.heal();
    const stored = await vault.get(userKey);
    assert.ok(stored?.refreshToken);
    await vault.put(userKey, { ...stored, obtainedAt: Date.now() - 3_600_000, expiresAt });
    return stored;
  }

  it('answers an MCP request 503 temporarily_unavailable with Retry-After when the sign-in store cannot be read, naming no host', async () => {
    await storedExpiringAt(Date.now() + 3_600_000);
    failing.failReads = VAULT_KEYS;
    try {
      const response = await fetch(`${http.url}/incidentops/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${String(provider.savedTokens.access_token)}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('retry-after'), '2');
      const text = await response.text();
      assert.equal((JSON.parse(text) as Json).error, 'temporarily_unavailable');
      assert.doesNotMatch(text, /10\.9\.8\.7|redis:\/\//);
    } finally {
      failing.heal();
    }
    assert.equal(((await callJson(client, 'IncidentOps.WhoAmI')).data.user as Json).id, DEMO_USER_ID, 'calls work again once the store answers');
  });

  it('says in the tool result that the sign-in store is unavailable, naming no host, when an expired token cannot be renewed for it', async () => {
    await storedExpiringAt(Date.now() - 1000);
    failing.failWrites = RENEWAL_KEYS;
    try {
      const result = await callJson(client, 'IncidentOps.WhoAmI');
      assert.equal(result.isError, true);
      const error = result.data.error as Json;
      assert.equal(error.kind, 'unavailable');
      assert.match(String(error.message), /sign-in store is not answering/);
      assert.match(String(error.next_step), /still signed in/);
      assert.doesNotMatch(JSON.stringify(result.data), /10\.9\.8\.7|redis:\/\/|nobody has signed in|sign in again/i);
    } finally {
      failing.heal();
    }
    assert.equal(((await callJson(client, 'IncidentOps.WhoAmI')).data.user as Json).id, DEMO_USER_ID, 'calls work again once the store answers');
  });

  it('keeps using a token that is still valid when its renewal cannot be claimed', async () => {
    const stored = await storedExpiringAt(Date.now() + 30_000);
    failing.failWrites = RENEWAL_KEYS;
    sandbox.clearRequests();
    try {
      const result = await callJson(client, 'IncidentOps.WhoAmI');
      assert.equal(result.isError, false, JSON.stringify(result.data));
      assert.equal((result.data.user as Json).id, DEMO_USER_ID);
      assert.equal(refreshGrants().length, 0, 'no renewal without a claim');
      assert.equal((await vault.get(userKey))?.accessToken, stored.accessToken);
    } finally {
      failing.heal();
    }
  });

  it('keeps a renewed pair the store refused, uses it, and writes it once the store takes writes: nobody is signed out', async () => {
    const stored = await storedExpiringAt(Date.now() - 1000);
    failing.failWrites = VAULT_KEYS;
    sandbox.clearRequests();
    const first = await callJson(client, 'IncidentOps.WhoAmI');
    assert.equal(first.isError, false, JSON.stringify(first.data));
    assert.equal(refreshGrants().length, 1, 'renewed once');
    assert.equal((await vault.get(userKey))?.accessToken, stored.accessToken, 'the store still holds the old pair');
    // The renewed pair is used meanwhile, with no second renewal (the old refresh token is dead at the platform).
    for (let i = 0; i < 3; i += 1) assert.equal((await callJson(client, 'IncidentOps.WhoAmI')).isError, false);
    assert.equal(refreshGrants().length, 1);
    failing.heal();
    let renewed = await vault.get(userKey);
    for (let waited = 0; renewed?.accessToken === stored.accessToken && waited < 10_000; waited += 100) {
      await sleep(100);
      renewed = await vault.get(userKey);
    }
    assert.notEqual(renewed?.accessToken, stored.accessToken, 'the renewed pair reached the store');
    assert.notEqual(renewed?.refreshToken, stored.refreshToken);
    // Another replica (fresh credentials over the same store) renews with the stored pair: the rotation chain is intact.
    await vault.put(userKey, { ...(renewed as NonNullable<typeof renewed>), obtainedAt: Date.now() - 3_600_000, expiresAt: Date.now() - 1000 });
    const entry = SERVERS.find((candidate) => candidate.id === 'incidentops')!;
    const replica = userCredentials(entry.auth({}, { sandbox, env: {} }), vault, silentLogger);
    sandbox.clearRequests();
    const header = await runAs({ userKey }, () => replica.authorization());
    assert.equal(refreshGrants().length, 1);
    assert.equal(refreshGrants()[0]?.status, 200, 'the platform took the stored refresh token');
    assert.equal(header, `Bearer ${(await vault.get(userKey))?.accessToken}`);
  });

  it('takes over the claim of a replica that died while renewing within seconds, not ten', async () => {
    const stored = await storedExpiringAt(Date.now() - 1000);
    assert.ok(await vault.claimRenewal(userKey, 'a replica that died', RENEWAL_CLAIM_MS));
    const entry = SERVERS.find((candidate) => candidate.id === 'incidentops')!;
    const credentials = userCredentials(entry.auth({}, { sandbox, env: {} }), vault, silentLogger);
    sandbox.clearRequests();
    const started = Date.now();
    await runAs({ userKey }, () => credentials.authorization());
    const waited = Date.now() - started;
    assert.ok(waited < 2 * RENEWAL_CLAIM_MS + 2000, `waited ${waited} ms for a claim of ${RENEWAL_CLAIM_MS} ms`);
    assert.equal(refreshGrants().length, 1);
    assert.notEqual((await vault.get(userKey))?.accessToken, stored.accessToken);
  });

  it('is not ready while the store answers PING but refuses writes, and ready again when it takes them', async () => {
    failing.failWrites = /./;
    try {
      const down = await fetch(`${http.url}/ready`);
      assert.equal(down.status, 503);
      assert.deepEqual(await down.json(), { status: 'not ready', reasons: ['store (memory): failed'] });
    } finally {
      failing.heal();
    }
    const up = await fetch(`${http.url}/ready`);
    assert.equal(up.status, 200);
    assert.deepEqual(await up.json(), { status: 'ready' });
  });

  it('keeps its claim while a slow renewal runs past the claim time: the refresh token is used once', async () => {
    await storedExpiringAt(Date.now() - 1000);
    // The platform takes 4 claim periods to answer a refresh.
    const claimMs = 300;
    const slow = await slowTokenProxy(new URL(sandbox.oauth.incidentops.tokenUrl), 4 * claimMs);
    try {
      const entry = SERVERS.find((candidate) => candidate.id === 'incidentops')!;
      const auth = entry.auth({}, { sandbox, env: {} });
      const viaSlow = { ...auth, oauth: { ...auth.oauth, tokenUrl: slow.url } };
      const replicas = [userCredentials(viaSlow, vault, silentLogger, Date.now, claimMs), userCredentials(viaSlow, vault, silentLogger, Date.now, claimMs)];
      sandbox.clearRequests();
      const headers = await Promise.all(
        replicas.map(async (replica, index) => {
          await sleep(index * 2 * claimMs); // the second starts after the first's original claim would have lapsed
          return runAs({ userKey }, () => replica.authorization());
        }),
      );
      assert.equal(refreshGrants().length, 1, 'one refresh grant reached the platform');
      assert.equal(headers[0], headers[1]);
      assert.equal(headers[0], `Bearer ${(await vault.get(userKey))?.accessToken}`);
    } finally {
      await new Promise<void>((resolve) => slow.server.close(() => resolve()));
    }
  });
});

/** Forwards token requests to `target` after `delayMs`. */
async function slowTokenProxy(target: URL, delayMs: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void sleep(delayMs)
        .then(() => fetch(target, { method: 'POST', headers: { 'content-type': String(req.headers['content-type'] ?? ''), ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) }, body: Buffer.concat(chunks) }))
        .then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`, server };
}
