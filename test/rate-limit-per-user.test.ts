/**
 * A 429 holds back the requests made with the credentials that got it, and only those: in OAuth
 * mode one user's, in key mode the server's (every call). In this process (the UpstreamClient's
 * own hold) and across replicas (the shared hold), and end to end through `serve --auth oauth`,
 * where each user's platform token is limited on its own. The in-process holds stay bounded.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ToolError } from '../src/core/errors.js';
import { currentIdentity, runAs } from '../src/core/platform/request-identity.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { sharedRateLimit } from '../src/core/platform/rate-limits.js';
import { UpstreamClient } from '../src/core/platform/upstream.js';
import { DEMO_USER_ID, type RunningSandbox } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, connectWithOAuth, MemoryOAuthProvider, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';

type Json = Record<string, unknown>;

/**
 * A platform in front of `target` (or answering 200 itself) that rate-limits per credential:
 * once `limitNext` is set, the next request's Authorization value is answered 429 (Retry-After
 * 60 s) from then on; every other credential goes through.
 */
interface Platform {
  url: string;
  /** Authorization values received, in order. */
  received: string[];
  limitNext: boolean;
  limited: Set<string>;
  close(): Promise<void>;
}

async function startPlatform(target?: string): Promise<Platform> {
  const platform = { received: [] as string[], limitNext: false, limited: new Set<string>() } as Platform;
  const server: Server = createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    platform.received.push(authorization);
    if (platform.limitNext) {
      platform.limitNext = false;
      platform.limited.add(authorization);
    }
    if (platform.limited.has(authorization)) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' });
      res.end('{"error":{"message":"slow down"}}');
      return;
    }
    if (!target) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers[name] = value;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) })
        .then(async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
          res.end(text);
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  platform.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  platform.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return platform;
}

/** Each identity signs with its own token, as OAuth mode does; no identity uses the server's. */
function clientFor(platform: Platform, options: { store?: MemoryStore; now?: () => Date } = {}): UpstreamClient {
  return new UpstreamClient({
    baseUrl: `${platform.url}/api`,
    platformName: 'Platform',
    authorization: () => `Bearer token-of-${currentIdentity()?.userKey ?? 'server'}`,
    ...(options.store ? { sharedRateLimit: sharedRateLimit(options.store, `${platform.url}/api`) } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

async function rejectsAsRateLimited(promise: Promise<unknown>, notSent: boolean): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ToolError, String(error));
    assert.equal(error.details.kind, 'rate_limited');
    if (notSent) assert.match(error.details.message, /rate limiting this server .*This request was not sent/);
    else assert.doesNotMatch(error.details.message, /not sent/);
    return true;
  });
}

const asAlice = <T>(work: () => Promise<T>) => runAs({ userKey: 'platform:alice' }, work);
const asBob = <T>(work: () => Promise<T>) => runAs({ userKey: 'platform:bob' }, work);

describe('rate-limit holds per credential identity (one UpstreamClient for every user)', () => {
  let platform: Platform;
  before(async () => {
    platform = await startPlatform();
  });
  after(async () => {
    await platform.close();
  });

  for (const shared of [false, true]) {
    it(`a 429 for Alice holds back Alice's calls only; Bob's and the server's go through at once (${shared ? 'with' : 'without'} a shared store)`, async () => {
      const store = shared ? new MemoryStore() : undefined;
      try {
        const client = clientFor(platform, store ? { store } : {});
        platform.limited.clear();
        platform.limitNext = true;
        await asAlice(() => rejectsAsRateLimited(client.request({ method: 'GET', path: '/items' }), false));
        const sent = platform.received.length;
        // Alice is held: her next call is refused without being sent.
        await asAlice(() => rejectsAsRateLimited(client.request({ method: 'GET', path: '/items' }), true));
        assert.equal(platform.received.length, sent, "Alice's held call was not sent");
        // Bob (and the server's own credentials) are not: sent and answered, with no wait.
        const bob = await asBob(() => client.request<Json>({ method: 'GET', path: '/items' }));
        assert.deepEqual(bob.data, { ok: true });
        assert.equal(platform.received.at(-1), 'Bearer token-of-platform:bob');
        const server = await client.request<Json>({ method: 'GET', path: '/items' });
        assert.deepEqual(server.data, { ok: true });
        assert.equal(platform.received.length, sent + 2);
        assert.ok((await asAlice(async () => client.stats().notBefore)) > Date.now() + 50_000, "Alice's hold lasts the platform's 60 s");
        assert.equal((await asBob(async () => client.stats().notBefore)), 0);
      } finally {
        await store?.close();
      }
    });
  }

  it('in key mode (no identity) one 429 holds back every later call of the server', async () => {
    const client = clientFor(platform);
    platform.limited.clear();
    platform.limitNext = true;
    await rejectsAsRateLimited(client.request({ method: 'GET', path: '/a' }), false);
    const sent = platform.received.length;
    for (const path of ['/a', '/b', '/c']) await rejectsAsRateLimited(client.request({ method: 'GET', path }), true);
    assert.equal(platform.received.length, sent, 'nothing more was sent');
  });

  it('keeps state only for identities being held: a hold that has passed is forgotten, so 500 users leave no growing map', async () => {
    let clock = Date.now();
    const client = clientFor(platform, { now: () => new Date(clock) });
    platform.limited.clear();
    for (let user = 0; user < 500; user += 1) {
      platform.limitNext = true;
      await runAs({ userKey: `platform:user-${user}` }, () => rejectsAsRateLimited(client.request({ method: 'GET', path: '/x' }), false));
    }
    const live = client.stats().holds;
    assert.ok(live >= 1 && live <= 500, `${live} holds while all 500 users are held`);
    // Every hold has passed (60 s): the next user's 429 sweeps them away.
    clock += 61_000;
    platform.limitNext = true;
    await runAs({ userKey: 'platform:late' }, () => rejectsAsRateLimited(client.request({ method: 'GET', path: '/x' }), false));
    assert.equal(client.stats().holds, 1, 'only the live hold is kept');
    // An answer that is no 429 after the hold has passed forgets that identity's state too.
    clock += 61_000;
    platform.limited.clear();
    await runAs({ userKey: 'platform:late' }, () => client.request({ method: 'GET', path: '/x' }));
    assert.equal(client.stats().holds, 0);
  });
});

describe('rate-limit holds per user in OAuth mode (serve --auth oauth, one platform token per user)', () => {
  let sandbox: RunningSandbox;
  let platform: Platform;
  let server: OAuthTestServer;
  before(async () => {
    sandbox = await startTestSandbox();
    platform = await startPlatform(sandbox.url);
    // The IncidentOps API goes through the per-token rate limiter; sign-in goes to the sandbox directly.
    server = await startOAuthServer({ ...sandbox, incidentops: { ...sandbox.incidentops, baseUrl: `${platform.url}/incidentops` } });
  });
  after(async () => {
    await server?.close();
    await platform?.close();
    await sandbox?.close();
  });

  it("a 429 on Alice's platform token holds back Alice's calls only: Bob's WhoAmI goes through at once", async () => {
    const listing = await fetch(`${sandbox.incidentops.baseUrl}/users?limit=5`, {
      headers: { authorization: `Bearer ${sandbox.incidentops.token}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
    });
    const { users } = (await listing.json()) as { users: { id: string; email: string }[] };
    const bobUser = users.find((user) => user.id !== DEMO_USER_ID);
    assert.ok(bobUser);
    const alice = await connectWithOAuth(server.endpoint('incidentops'), new MemoryOAuthProvider('demo.user@example.com'));
    const bob = await connectWithOAuth(server.endpoint('incidentops'), new MemoryOAuthProvider(bobUser.email));
    try {
      assert.equal((await callJson(alice, 'IncidentOps.WhoAmI')).isError, false);
      assert.equal((await callJson(bob, 'IncidentOps.WhoAmI')).isError, false);
      platform.limitNext = true;
      const limited = await callJson(alice, 'IncidentOps.WhoAmI');
      assert.equal(limited.isError, true);
      assert.equal((limited.data.error as Json).kind, 'rate_limited');
      assert.equal(platform.limited.size, 1);
      const sent = platform.received.length;
      const started = Date.now();
      const bobs = await callJson(bob, 'IncidentOps.WhoAmI');
      assert.equal(bobs.isError, false, JSON.stringify(bobs.data));
      assert.equal((bobs.data.user as Json).id, bobUser.id);
      assert.ok(Date.now() - started < 10_000, 'not held for the 60 s wait');
      assert.ok(platform.received.length > sent, "Bob's call reached the platform");
      const afterBob = platform.received.length;
      const held = await callJson(alice, 'IncidentOps.WhoAmI');
      assert.equal((held.data.error as Json).kind, 'rate_limited');
      assert.match(String((held.data.error as Json).message), /rate limiting this server.*This request was not sent/);
      assert.equal(platform.received.length, afterBob, "Alice's held call was not sent");
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
