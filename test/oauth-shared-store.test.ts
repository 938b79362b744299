/**
 * OAuth mode on two servers sharing one store, in this process (MemoryStore, and RedisStore on a
 * real redis-server): what must hold when requests of one user land on different replicas at the
 * same moment.
 *  - A user's expiring platform token is renewed once across both servers (the platform's refresh
 *    token rotates: a second use would fail), and every concurrent call succeeds as that user; a
 *    renewal claimed by a replica that died is taken over once its claim lapses.
 *  - An authorization code redeemed on both servers at once gives tokens once; the loser's
 *    invalid_grant revokes the grant, so the winner's token dies too (RFC 6749 4.1.2).
 *  - A refresh token used on both servers at once rotates once; the reuse revokes the grant.
 * Both servers have the same public URL and state key, as replicas behind a load balancer do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { userCredentials } from '../src/core/serving/oauth/user-credentials.js';
import { TokenVault } from '../src/core/serving/oauth/vault.js';
import { runAs } from '../src/core/platform/request-identity.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { RedisStore } from '../src/core/store/redis-store.js';
import { generateStateKey, STATE_KEY_ENV, stateKeyFrom } from '../src/core/store/sealed.js';
import type { SharedStore } from '../src/core/store/store.js';
import { DEMO_USER_ID, type RunningSandbox } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { prepareOAuthMode } from '../src/servers/oauth-mode.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, CLIENT_REDIRECT, connectWithOAuth, HttpBrowser, MemoryOAuthProvider } from './support/oauth-client.js';
import { freePort, missingPrograms, startRedis, type RunningRedis } from './support/replicas.js';

const noRedis = missingPrograms('redis-server');
if (noRedis) console.log(`# OAuth over RedisStore skipped: ${noRedis}`);

type Json = Record<string, unknown>;

interface Replica {
  http: RunningHttpServer;
  store: SharedStore;
}

/** One server in OAuth mode over `store`, answering for `publicUrl` (bound to `port`). */
async function startReplica(sandbox: RunningSandbox, store: SharedStore, stateKey: string, publicUrl: string, port: number): Promise<Replica> {
  const mode = prepareOAuthMode({ entries: SERVERS, input: {}, logger: silentLogger, sandbox, env: { [STATE_KEY_ENV]: stateKey }, single: false, store, publicUrl });
  const http = await serveOverHttp({
    host: '127.0.0.1',
    port,
    mounts: mode.servers.map((server) => ({ path: `/${server.id}/mcp`, server })),
    logger: silentLogger,
    auth: { kind: 'oauth', layer: mode.layer },
  });
  return { http, store };
}

async function tokenRequest(baseUrl: string, form: Record<string, string>): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  return { status: response.status, body: (await response.json()) as Json };
}

/** The status of a tools/list with this bearer token at `endpoint`. */
async function mcpStatus(endpoint: string, token: string): Promise<number> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function bearerClient(endpoint: string, token: string): Promise<Client> {
  const client = new Client({ name: 'shared-store-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

function sharedStoreSuite(kind: 'memory' | 'redis', skip: string | undefined): void {
  describe(`OAuth mode on two servers sharing one ${kind} store`, { skip }, () => {
    let sandbox: RunningSandbox;
    let redis: RunningRedis | undefined;
    let a: Replica;
    let b: Replica;
    const stateKey = generateStateKey();
    let publicUrl: string;
    const endpoint = (replica: Replica) => `${replica.http.url}/incidentops/mcp`;
    const resource = () => `${publicUrl}/incidentops/mcp`;
    const refreshGrants = () => sandbox.requests.filter((request) => request.path === '/oauth/token' && (request.body as Json | undefined)?.grant_type === 'refresh_token');

    before(async () => {
      sandbox = await startTestSandbox();
      const open = async (): Promise<SharedStore> => {
        if (kind === 'memory') return shared;
        return RedisStore.connect({ url: redis!.url, keyPrefix: 'oauth-shared:' });
      };
      let shared: SharedStore = new MemoryStore();
      if (kind === 'redis') {
        await shared.close();
        redis = await startRedis();
        shared = await open();
      }
      // A answers at the public URL; B answers for it too (as behind a load balancer).
      const port = await freePort();
      publicUrl = `http://127.0.0.1:${port}`;
      a = await startReplica(sandbox, shared, stateKey, publicUrl, port);
      b = await startReplica(sandbox, await open(), stateKey, publicUrl, 0);
    });

    after(async () => {
      for (const replica of [a, b]) await replica?.http.close();
      await a?.store.close();
      if (b && b.store !== a?.store) await b.store.close();
      await redis?.close();
      await sandbox?.close();
    });

    it('renews an expiring platform token once for calls on both servers at once, all as the same user', async () => {
      const provider = new MemoryOAuthProvider('demo.user@example.com');
      const viaA = await connectWithOAuth(`${publicUrl}/incidentops/mcp`, provider);
      const viaB = await bearerClient(endpoint(b), String(provider.savedTokens.access_token));
      try {
        // The stored platform token now looks about to expire (the platform still takes it).
        const vault = new TokenVault(a.store, stateKeyFrom(stateKey));
        const userKey = `incidentops:${DEMO_USER_ID}`;
        const stored = await vault.get(userKey);
        assert.ok(stored?.refreshToken, 'the sign-in stored a refresh token');
        await vault.put(userKey, { ...stored, obtainedAt: Date.now() - 3_600_000, expiresAt: Date.now() });
        sandbox.clearRequests();
        const results = await Promise.all([viaA, viaB, viaA, viaB, viaA, viaB].map((client) => callJson(client, 'IncidentOps.WhoAmI')));
        for (const result of results) {
          assert.equal(result.isError, false, JSON.stringify(result.data));
          assert.equal((result.data.user as Json).id, DEMO_USER_ID);
        }
        assert.equal(refreshGrants().length, 1, 'one refresh grant reached the platform');
        const renewed = await vault.get(userKey);
        assert.notEqual(renewed?.accessToken, stored.accessToken);
        assert.notEqual(renewed?.refreshToken, stored.refreshToken, 'the rotated refresh token was stored');
        // Both servers now send the renewed token; nothing more is renewed.
        sandbox.clearRequests();
        for (const client of [viaA, viaB]) assert.equal(((await callJson(client, 'IncidentOps.WhoAmI')).data.user as Json).id, DEMO_USER_ID);
        assert.equal(refreshGrants().length, 0);
      } finally {
        await viaA.close();
        await viaB.close();
      }
    });

    it('takes over the renewal of a replica that died holding it, once its claim lapses, and renews once', async () => {
      // The demo user signed in in the test before.
      const vault = new TokenVault(a.store, stateKeyFrom(stateKey));
      const userKey = `incidentops:${DEMO_USER_ID}`;
      const stored = await vault.get(userKey);
      assert.ok(stored);
      await vault.put(userKey, { ...stored, obtainedAt: Date.now() - 3_600_000, expiresAt: Date.now() });
      assert.ok(await vault.claimRenewal(userKey, 'a replica that died', 300));
      const entry = SERVERS.find((candidate) => candidate.id === 'incidentops')!;
      const credentials = userCredentials(entry.auth({}, { sandbox, env: {} }), vault, silentLogger, Date.now, 300);
      sandbox.clearRequests();
      const header = await runAs({ userKey }, () => credentials.authorization());
      const renewed = await vault.get(userKey);
      assert.notEqual(renewed?.accessToken, stored.accessToken);
      assert.equal(header, `Bearer ${renewed?.accessToken}`);
      assert.equal(refreshGrants().length, 1);
    });

    it('gives tokens for an authorization code redeemed on both servers at once only once, and revokes that grant', async () => {
      const provider = new MemoryOAuthProvider('demo.user@example.com');
      const first = new Client({ name: 'shared-store-test', version: '1' });
      await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(resource()), { authProvider: provider })), (error: unknown) => error instanceof UnauthorizedError);
      const answer = await new HttpBrowser().authorize((provider.authorizationUrl as URL).href);
      const code = answer.get('code');
      assert.ok(code, answer.toString());
      const form = { grant_type: 'authorization_code', code, code_verifier: provider.verifier, redirect_uri: CLIENT_REDIRECT, client_id: String(provider.clientInfo.client_id), resource: resource() };
      const answers = await Promise.all([tokenRequest(a.http.url, form), tokenRequest(b.http.url, form)]);
      const granted = answers.filter((one) => one.status === 200);
      assert.equal(granted.length, 1, JSON.stringify(answers));
      const refused = answers.find((one) => one.status !== 200)!;
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error, 'invalid_grant');
      // The second use revoked the grant: the token the first use got works nowhere.
      for (const replica of [a, b]) assert.equal(await mcpStatus(endpoint(replica), String(granted[0]!.body.access_token)), 401);
    });

    it('rotates a refresh token used on both servers at once only once; the reuse revokes the grant', async () => {
      const provider = new MemoryOAuthProvider('demo.user@example.com');
      const client = await connectWithOAuth(resource(), provider);
      await client.close();
      const tokens = provider.savedTokens as Record<string, string>;
      const form = { grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: String(provider.clientInfo.client_id), resource: resource() };
      const answers = await Promise.all([tokenRequest(a.http.url, form), tokenRequest(b.http.url, form)]);
      const granted = answers.filter((one) => one.status === 200);
      assert.equal(granted.length, 1, JSON.stringify(answers));
      assert.equal(answers.find((one) => one.status !== 200)?.body.error, 'invalid_grant');
      const rotated = granted[0]!.body;
      for (const replica of [a, b]) {
        assert.equal(await mcpStatus(endpoint(replica), String(rotated.access_token)), 401);
        assert.equal(await mcpStatus(endpoint(replica), String(tokens.access_token)), 401);
      }
      const again = await tokenRequest(b.http.url, { ...form, refresh_token: String(rotated.refresh_token) });
      assert.equal(again.status, 400, 'the rotated refresh token died with the grant');
    });
  });
}

sharedStoreSuite('memory', undefined);
sharedStoreSuite('redis', noRedis);
