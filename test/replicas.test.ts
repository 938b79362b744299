/**
 * Two replicas behind nginx, sharing Redis, against one sandbox, all real processes on loopback
 * (test/support/replicas.ts).
 *
 * Server-key mode: calls through nginx reach both replicas; state written through one replica
 * (the SearchUsers directory, a rate-limit hold) is seen by the other; and killing a replica
 * (SIGKILL) in the middle of a read load fails no read beyond one bounded retry by the client.
 *
 * OAuth mode (`--auth oauth --public-url <nginx>`, one state key): two users sign in through
 * nginx, every step included (the interaction moves between replicas), and each sees their own
 * WhoAmI on both; an MCP refresh on one replica is valid on the other and the old refresh token is
 * refused on both; a platform token renewed by one replica is used by the other (one refresh
 * grant, also when both need it at once); a replica killed during the users' reads loses no
 * sign-in, and a replica started afterwards knows them all.
 *
 * Skipped, saying why, only when redis-server or nginx is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TokenVault } from '../src/core/serving/oauth/vault.js';
import { RedisStore } from '../src/core/store/redis-store.js';
import { generateStateKey, STATE_KEY_ENV, stateKeyFrom } from '../src/core/store/sealed.js';
import { createIncidentOpsPlatform } from '../src/sandbox/incidentops/api.js';
import { DEMO_USER_ID, startSandbox, type RunningSandbox } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, connectWithOAuth, MemoryOAuthProvider } from './support/oauth-client.js';
import { missingPrograms, retriedOnce, startReplicaSet, type AccessLogEntry, type ReplicaSet, type RunningReplica } from './support/replicas.js';

const SERVER_KEY = 'replica-test-server-key-0123456789';
const missing = missingPrograms('redis-server', 'nginx');
if (missing) console.log(`# replicas test skipped: ${missing}`);

type Json = Record<string, unknown>;
/** Platform access-token lifetime in the OAuth replicas test: short, so renewals happen during it. */
const PLATFORM_TOKEN_SECONDS = 2;

/** A sandbox IncidentOps user other than the demo user. */
async function otherIncidentOpsUser(sandbox: RunningSandbox): Promise<{ id: string; email: string }> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}/users?limit=5`, {
    headers: { authorization: `Bearer ${sandbox.incidentops.token}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
  });
  const { users } = (await response.json()) as { users: { id: string; email: string }[] };
  const other = users.find((user) => user.id !== DEMO_USER_ID);
  assert.ok(other, 'the sandbox has a second user');
  return other;
}

async function connect(baseUrl: string, server: 'incidentops' | 'canvasapi'): Promise<Client> {
  const client = new Client({ name: 'replicas-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/${server}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Json = {}): Promise<{ isError: boolean; data: Json }> {
  const result = await client.callTool({ name, arguments: args });
  // Errors carry their JSON only as text.
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find((part) => part.type === 'text')?.text;
  return { isError: result.isError === true, data: (result.structuredContent as Json | undefined) ?? (JSON.parse(text ?? '{}') as Json) };
}

describe('replicas behind nginx with Redis', { skip: missing }, () => {
  let sandbox: RunningSandbox;
  let set: ReplicaSet;
  /** When set, the incident platform answers 429 (allowed again in 60 s). */
  let rateLimited = false;
  const clients: Client[] = [];
  const client = async (baseUrl: string, server: 'incidentops' | 'canvasapi') => {
    const made = await connect(baseUrl, server);
    clients.push(made);
    return made;
  };

  before(async () => {
    const incidents = createIncidentOpsPlatform({ token: 'sandbox-token', users: 250 });
    sandbox = await startSandbox({
      platforms: [
        {
          prefix: 'incidentops',
          handle: (request) =>
            rateLimited ? { status: 429, headers: { 'ratelimit-reset': '60' }, body: { error: { message: 'Rate Limit Exceeded', code: 2020 } } } : incidents.handle(request),
        },
      ],
    });
    set = await startReplicaSet({
      env: {
        TOOLSERVERS_SERVER_KEY: SERVER_KEY,
        INCIDENTOPS_BASE_URL: sandbox.incidentops.baseUrl,
        INCIDENTOPS_ACCESS_TOKEN: sandbox.incidentops.token,
        CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl,
        CANVASAPI_ACCESS_TOKEN: sandbox.canvasapi.token,
        TOOLSERVERS_LOG_LEVEL: process.env.REPLICAS_LOG_LEVEL ?? 'warn',
      },
    });
  });

  after(async () => {
    for (const made of clients) await made.close().catch(() => undefined);
    await set?.close();
    await sandbox?.close();
  });

  it('calls through nginx reach both replicas (round robin, no sticky sessions)', async () => {
    const viaNginx = await client(set.publicUrl, 'incidentops');
    for (let i = 0; i < 8; i++) {
      const { isError, data } = await call(viaNginx, 'IncidentOps.WhoAmI');
      assert.equal(isError, false, JSON.stringify(data));
    }
    const served = new Set(set.nginx.accessLog().filter((entry) => entry.uri === '/incidentops/mcp' && entry.status === 200).map((entry) => entry.upstream));
    for (const replica of set.replicas) assert.ok(served.has(replica.address), `${replica.address} served no call: ${[...served].join(' ')}`);
  });

  it('the SearchUsers directory walked through one replica serves the other', async () => {
    const [first, second] = await Promise.all(set.replicas.map((replica) => client(replica.url, 'incidentops')));
    const directoryPages = () => sandbox.requests.filter((request) => request.platform === 'incidentops' && request.path === '/users').length;
    // A walk starts with the page that asks for the total (a few more pages leave with it).
    const walks = () => sandbox.requests.filter((request) => request.platform === 'incidentops' && request.path === '/users' && request.query.some(([key, value]) => key === 'total' && value === 'true')).length;
    sandbox.clearRequests();
    const there = await call(first!, 'IncidentOps.SearchUsers', { query: 'an' });
    assert.equal(there.isError, false, JSON.stringify(there.data));
    assert.equal(walks(), 1);
    sandbox.clearRequests();
    const here = await call(second!, 'IncidentOps.SearchUsers', { query: 'an' });
    assert.equal(directoryPages(), 0, `the second replica read the directory from Redis\n${set.replicas.map((r) => r.output().split('\n').filter((l) => l.startsWith('{"')).join('\n')).join('\n---\n')}`);
    assert.deepEqual(here.data, there.data);
  });

  it('a rate-limit hold from one replica holds back the other: its request is not sent', async () => {
    const [first, second] = await Promise.all(set.replicas.map((replica) => client(replica.url, 'incidentops')));
    rateLimited = true;
    const limited = await call(first!, 'IncidentOps.ListIncidents', { limit: 1 });
    rateLimited = false;
    assert.equal(limited.isError, true);
    assert.equal((limited.data.error as Json).kind, 'rate_limited');
    sandbox.clearRequests();
    const held = await call(second!, 'IncidentOps.ListIncidents', { limit: 1 });
    assert.equal(held.isError, true);
    assert.equal((held.data.error as Json).kind, 'rate_limited');
    assert.match(String((held.data.error as Json).message), /rate limiting this server.*This request was not sent/);
    assert.equal(sandbox.requests.filter((request) => request.platform === 'incidentops').length, 0, 'nothing reached the platform');
  });

  it('killing a replica in the middle of a read load fails no read beyond one retry by the client', async () => {
    const workers = await Promise.all([0, 1, 2, 3].map(() => client(set.publicUrl, 'canvasapi')));
    const victim = set.replicas[1]!;
    const survivor = set.replicas[0]!;
    let completed = 0;
    const tally = { retried: 0, failures: [] as string[] };
    let killedAt: number | undefined;
    const logBefore = set.nginx.accessLog().length;
    const read = (worker: Client) =>
      retriedOnce(tally, async () => {
        const { isError, data } = await call(worker, 'CanvasApi.GetAccessTokenInfo');
        if (isError) throw new Error(JSON.stringify(data));
      });
    await Promise.all(
      workers.map(async (worker) => {
        while (killedAt === undefined || completed < killedAt + 60) {
          await read(worker);
          completed++;
          if (completed === 30 && killedAt === undefined) {
            killedAt = completed;
            void victim.kill();
          }
        }
      }),
    );
    console.log(`# ${completed} reads, ${tally.retried} retried once, ${tally.failures.length} failed`);
    assert.deepEqual(tally.failures, []);
    const entries = set.nginx.accessLog().slice(logBefore).filter((entry) => entry.uri === '/canvasapi/mcp');
    assert.ok(entries.some((entry) => entry.upstream === victim.address && entry.status === 200), 'the killed replica had served reads');
    const last = entries.slice(-20);
    assert.ok(last.every((entry) => entry.upstream.endsWith(survivor.address) && entry.status === 200), `after the kill only ${survivor.address} serves: ${JSON.stringify(last)}`);
  });

});

describe('OAuth mode: replicas behind nginx with Redis', { skip: missing }, () => {
  let sandbox: RunningSandbox;
  let set: ReplicaSet;
  const stateKey = generateStateKey();
  /** Signed in through nginx in the first test, used by the later ones. */
  let alice: { provider: MemoryOAuthProvider; client: Client; id: string };
  let bob: { provider: MemoryOAuthProvider; client: Client; id: string };
  const clients: Client[] = [];
  const endpoint = (baseUrl: string) => `${baseUrl}/incidentops/mcp`;
  /** The MCP resource every token is bound to: nginx's URL, whichever replica checks it. */
  const resource = () => endpoint(set.publicUrl);
  const refreshGrants = () => sandbox.requests.filter((request) => request.path === '/oauth/token' && (request.body as Json | undefined)?.grant_type === 'refresh_token').length;

  async function signIn(loginHint: string): Promise<{ provider: MemoryOAuthProvider; client: Client; steps: AccessLogEntry[] }> {
    const before = set.nginx.accessLog().length;
    const provider = new MemoryOAuthProvider(loginHint);
    const client = await connectWithOAuth(resource(), provider);
    clients.push(client);
    // Registration, authorization, the platform's answer, the consent page and form, the token: all through nginx.
    const steps = set.nginx.accessLog().slice(before).filter((entry) => entry.uri.startsWith('/oauth/'));
    return { provider, client, steps };
  }

  async function whoAmI(client: Client): Promise<string> {
    const { isError, data } = await callJson(client, 'IncidentOps.WhoAmI');
    assert.equal(isError, false, JSON.stringify(data));
    return String((data.user as Json).id);
  }

  /** A client that talks to one replica directly with a user's MCP access token. */
  async function directClient(baseUrl: string, provider: MemoryOAuthProvider): Promise<Client> {
    const client = new Client({ name: 'replicas-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint(baseUrl)), { requestInit: { headers: { Authorization: `Bearer ${String(provider.savedTokens.access_token)}` } } }));
    clients.push(client);
    return client;
  }

  async function tokenRequest(baseUrl: string, form: Record<string, string>): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    return { status: response.status, body: (await response.json()) as Json };
  }

  async function mcpStatus(baseUrl: string, token: string): Promise<number> {
    const response = await fetch(endpoint(baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  before(async () => {
    // Platform tokens live 2 s, so the replicas renew them (after 1 s) while the tests run.
    sandbox = await startTestSandbox({ oauth: { tokenLifetimeSeconds: PLATFORM_TOKEN_SECONDS } });
    const { incidentops, canvasapi } = sandbox.oauth;
    set = await startReplicaSet({
      env: {
        [STATE_KEY_ENV]: stateKey,
        INCIDENTOPS_BASE_URL: sandbox.incidentops.baseUrl,
        INCIDENTOPS_CLIENT_ID: incidentops.clientId,
        INCIDENTOPS_CLIENT_SECRET: incidentops.clientSecret,
        INCIDENTOPS_AUTHORIZE_URL: incidentops.authorizeUrl,
        INCIDENTOPS_TOKEN_URL: incidentops.tokenUrl,
        CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl,
        CANVASAPI_CLIENT_ID: canvasapi.clientId,
        CANVASAPI_CLIENT_SECRET: canvasapi.clientSecret,
        CANVASAPI_AUTHORIZE_URL: canvasapi.authorizeUrl,
        CANVASAPI_TOKEN_URL: canvasapi.tokenUrl,
        TOOLSERVERS_LOG_LEVEL: process.env.REPLICAS_LOG_LEVEL ?? 'warn',
      },
      args: ({ publicUrl }) => ['--auth', 'oauth', '--public-url', publicUrl],
    });
  });

  after(async () => {
    for (const made of clients) await made.close().catch(() => undefined);
    await set?.close();
    await sandbox?.close();
  });

  it('two users sign in through nginx (the steps of each sign-in land on both replicas) and each sees their own WhoAmI on both replicas', async () => {
    const other = await otherIncidentOpsUser(sandbox);
    const first = await signIn('demo.user@example.com');
    const second = await signIn(other.email);
    for (const { steps } of [first, second]) {
      assert.ok(steps.every((step) => step.status < 400), JSON.stringify(steps));
      // One interaction (the platform's answer, the consent page, the form) moved between the replicas.
      const interaction = steps.filter((step) => /^\/oauth\/(interaction\/|callback\?)/.test(step.uri));
      assert.equal(new Set(interaction.map((step) => step.upstream)).size, 2, `the interaction was served by both replicas: ${JSON.stringify(interaction)}`);
      const replicaName = (address: string) => `replica ${set.replicas.findIndex((replica) => replica.address === address) + 1}`;
      console.log(`# sign-in: ${steps.map((step) => `${step.method} ${step.uri.split('?')[0]!.replace(/[A-Za-z0-9_-]{20,}/g, '…')} on ${replicaName(step.upstream)}`).join(', ')}`);
      assert.ok(steps.some((step) => step.method === 'POST' && /^\/oauth\/interaction\/[^/]+\/confirm$/.test(step.uri)), 'the consent form went through nginx');
      assert.ok(steps.some((step) => step.uri.startsWith('/oauth/callback?')), 'the platform answered through nginx');
    }
    alice = { provider: first.provider, client: first.client, id: DEMO_USER_ID };
    bob = { provider: second.provider, client: second.client, id: other.id };
    // Each user alone: consecutive calls alternate between the replicas, and every one answers as that user.
    for (const user of [alice, bob]) {
      const before = set.nginx.accessLog().length;
      for (let i = 0; i < 4; i++) assert.equal(await whoAmI(user.client), user.id);
      const served = new Set(set.nginx.accessLog().slice(before).filter((entry) => entry.uri === '/incidentops/mcp' && entry.status === 200).map((entry) => entry.upstream));
      for (const replica of set.replicas) assert.ok(served.has(replica.address), `${replica.address} served none of these calls: ${[...served].join(' ')}`);
    }
    // Both at once, interleaved: nobody ever sees the other.
    const ids = await Promise.all([alice, bob, alice, bob, alice, bob].map((user) => whoAmI(user.client)));
    assert.deepEqual(ids, [alice.id, bob.id, alice.id, bob.id, alice.id, bob.id]);
  });

  it('an MCP token refreshed on one replica works on the other, and the old refresh token is refused on both (the reuse ends the grant)', async () => {
    const { provider } = await signIn('demo.user@example.com');
    const [one, two] = set.replicas as [RunningReplica, RunningReplica];
    const old = provider.savedTokens as Record<string, string>;
    const form = { grant_type: 'refresh_token', client_id: String(provider.clientInfo.client_id), resource: resource() };
    const refreshed = await tokenRequest(one.url, { ...form, refresh_token: String(old.refresh_token) });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, old.refresh_token);
    assert.equal(await mcpStatus(two.url, String(refreshed.body.access_token)), 200);
    for (const replica of [two, one]) {
      const reused = await tokenRequest(replica.url, { ...form, refresh_token: String(old.refresh_token) });
      assert.equal(reused.status, 400, replica.address);
      assert.equal(reused.body.error, 'invalid_grant');
    }
    // Reuse means the refresh token leaked: every token of that grant is dead on every replica.
    for (const replica of [one, two]) assert.equal(await mcpStatus(replica.url, String(refreshed.body.access_token)), 401);
    assert.equal((await tokenRequest(two.url, { ...form, refresh_token: String(refreshed.body.refresh_token) })).status, 400);
    // The other sign-ins of the same user are separate grants and unaffected.
    assert.equal(await whoAmI(alice.client), alice.id);
  });

  it('a platform token renewed by one replica is used by the other without a second renewal, also when both need it at once', async () => {
    const [one, two] = set.replicas as [RunningReplica, RunningReplica];
    const [onOne, onTwo] = [await directClient(one.url, alice.provider), await directClient(two.url, alice.provider)];
    const store = await RedisStore.connect({ url: set.redis.url });
    try {
      const vault = new TokenVault(store, stateKeyFrom(stateKey));
      const userKey = `incidentops:${alice.id}`;
      // Past half the platform token's lifetime, the next call renews it.
      await sleep((PLATFORM_TOKEN_SECONDS / 2) * 1000 + 100);
      const before = await vault.get(userKey);
      sandbox.clearRequests();
      assert.equal(await whoAmI(onOne), alice.id);
      assert.equal(refreshGrants(), 1, 'the first replica renewed the token');
      const renewed = await vault.get(userKey);
      assert.notEqual(renewed?.accessToken, before?.accessToken);
      assert.equal(await whoAmI(onTwo), alice.id);
      assert.equal(refreshGrants(), 1, 'the second replica used the renewed token');
      assert.equal((await vault.get(userKey))?.accessToken, renewed?.accessToken);

      await sleep((PLATFORM_TOKEN_SECONDS / 2) * 1000 + 100);
      sandbox.clearRequests();
      const ids = await Promise.all([onOne, onTwo, onOne, onTwo].map((client) => whoAmI(client)));
      assert.deepEqual(ids, [alice.id, alice.id, alice.id, alice.id]);
      assert.equal(refreshGrants(), 1, 'one renewal for both replicas at once');
    } finally {
      await store.close();
    }
  });

  it('killing a replica in the middle of the users\' reads fails no read beyond one retry and loses no sign-in; a new replica knows every sign-in', async () => {
    const victim = set.replicas[1]!;
    let completed = 0;
    const tally = { retried: 0, failures: [] as string[] };
    let killed = false;
    const read = (user: typeof alice) => retriedOnce(tally, async () => assert.equal(await whoAmI(user.client), user.id));
    await Promise.all(
      [alice, bob, alice, bob].map(async (user) => {
        while (completed < 60) {
          await read(user);
          completed++;
          if (completed === 20 && !killed) {
            killed = true;
            void victim.kill();
          }
        }
      }),
    );
    console.log(`# OAuth: ${completed} reads, ${tally.retried} retried once, ${tally.failures.length} failed`);
    assert.deepEqual(tally.failures, []);
    // The sign-ins lived in Redis, not in the dead process: a replica started now serves both users.
    const fresh = await set.startAnother();
    for (const user of [alice, bob]) assert.equal(await whoAmI(await directClient(fresh.url, user.provider)), user.id);
  });
});
