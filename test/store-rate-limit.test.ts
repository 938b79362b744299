/**
 * Rate-limit holds shared by replicas: a 429 seen by one UpstreamClient holds back the clients
 * of the other replicas (same platform base URL and credential identity), with no store round
 * trip per request. Run on the embedded store and on a real Redis with one connection per replica.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { ToolError } from '../src/core/errors.js';
import { runAs } from '../src/core/platform/request-identity.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { rateLimitKey, sharedRateLimit, watchRateLimits } from '../src/core/platform/rate-limits.js';
import { RedisStore } from '../src/core/store/redis-store.js';
import type { SharedStore } from '../src/core/store/store.js';
import { UpstreamClient } from '../src/core/platform/upstream.js';
import { missingPrograms, startRedis, type RunningRedis } from './support/replicas.js';

interface Platform {
  url: string;
  /** Requests received, by the caller's Authorization header. */
  received: string[];
  /** Answer the next requests with 429 (Retry-After 60 s). */
  limited: boolean;
  close(): Promise<void>;
}

async function startPlatform(): Promise<Platform> {
  const platform = { received: [] as string[], limited: false } as Platform;
  const server: Server = createServer((req, res) => {
    platform.received.push(req.headers.authorization ?? '');
    if (platform.limited) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' });
      res.end('{"message":"slow down"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  platform.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  platform.close = () => new Promise((resolve) => server.close(() => resolve()));
  return platform;
}

function client(store: SharedStore, platform: Platform): UpstreamClient {
  return new UpstreamClient({
    baseUrl: platform.url,
    platformName: 'Platform',
    authorization: () => 'Bearer replica-token',
    sharedRateLimit: sharedRateLimit(store, platform.url),
  });
}

async function rejectsAsRateLimited(promise: Promise<unknown>, notSent: boolean): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ToolError);
    assert.equal(error.details.kind, 'rate_limited');
    if (notSent) assert.match(error.details.message, /rate limiting this server .*This request was not sent/);
    assert.ok(error.details.retryAfterSeconds! > 50);
    return true;
  });
}

/**
 * Waits until the replica on `store` has heard of the hold. Between processes the HTTP round trip
 * to the next replica orders this; in one process the published message may still sit unread.
 */
async function heard(store: SharedStore, platform: Platform): Promise<void> {
  const hold = sharedRateLimit(store, platform.url);
  await until(() => hold.notBefore() > Date.now());
}

/** Waits until a delivery made elsewhere shows (fails after 5 s). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await sleep(10);
  assert.ok(condition(), 'the condition did not become true');
}

/** Two stores standing for two replicas, and a way to start a third later (none for the embedded store: it is one process). */
type ReplicaStores = [SharedStore, SharedStore, (() => Promise<SharedStore>) | undefined];

function suite(name: string, replicaStores: () => Promise<ReplicaStores>, skip?: string): void {
  describe(`shared rate-limit holds: ${name}`, { skip }, () => {
    let platform: Platform;
    let stores: SharedStore[] = [];
    let a: SharedStore;
    let b: SharedStore;
    let another: (() => Promise<SharedStore>) | undefined;
    before(async () => {
      platform = await startPlatform();
    });
    after(async () => {
      await platform.close();
    });
    const fresh = async () => {
      for (const store of stores) await store.close();
      [a, b, another] = await replicaStores();
      stores = [a, b];
      platform.limited = false;
      platform.received = [];
    };
    after(async () => {
      for (const store of stores) await store.close();
    });

    it('a 429 on one replica holds back the other replica: its request is not sent', async () => {
      await fresh();
      const [first, second] = [client(a, platform), client(b, platform)];
      await second.request({ method: 'GET', path: '/ok' });
      platform.limited = true;
      await rejectsAsRateLimited(first.request({ method: 'GET', path: '/items' }), false);
      platform.limited = false;
      await heard(b, platform);
      const sent = platform.received.length;
      await rejectsAsRateLimited(second.request({ method: 'GET', path: '/items' }), true);
      assert.equal(platform.received.length, sent, 'the held replica sent nothing');
    });

    it('holds only the identity that was limited, and only on that platform', async () => {
      await fresh();
      const otherPlatform = await startPlatform();
      try {
        const [first, second] = [client(a, platform), client(b, platform)];
        platform.limited = true;
        await runAs({ userKey: 'p:alice' }, () => rejectsAsRateLimited(first.request({ method: 'GET', path: '/x' }), false));
        platform.limited = false;
        await runAs({ userKey: 'p:alice' }, () => heard(b, platform));
        await runAs({ userKey: 'p:bob' }, () => second.request({ method: 'GET', path: '/x' }));
        await runAs({ userKey: 'p:alice' }, () => rejectsAsRateLimited(second.request({ method: 'GET', path: '/x' }), true));
        await runAs({ userKey: 'p:alice' }, () => client(b, otherPlatform).request({ method: 'GET', path: '/x' }));
        assert.equal(otherPlatform.received.length, 1);
        // Without an identity (server-key mode) the server's own credentials are not held by alice's 429.
        await second.request({ method: 'GET', path: '/x' });
      } finally {
        await otherPlatform.close();
      }
    });

    it('a replica that starts during a hold learns it from the store', async (t) => {
      await fresh();
      if (!another) return t.skip('one process: nothing starts later');
      platform.limited = true;
      await rejectsAsRateLimited(client(a, platform).request({ method: 'GET', path: '/x' }), false);
      platform.limited = false;
      const late = await another();
      stores.push(late);
      const hold = sharedRateLimit(late, platform.url);
      assert.equal(hold.notBefore(), 0, 'the first look starts a background read');
      await until(() => hold.notBefore() > Date.now());
      const sent = platform.received.length;
      await rejectsAsRateLimited(client(late, platform).request({ method: 'GET', path: '/x' }), true);
      assert.equal(platform.received.length, sent);
    });

    it('a failing store leaves each replica with its own holds, and no request fails because of it', async () => {
      await fresh();
      const broken = new MemoryStore();
      const fail = async () => {
        throw new Error('store down');
      };
      Object.assign(broken, { get: fail, raiseTo: fail, publish: fail, subscribe: fail });
      const alone = client(broken, platform);
      await alone.request({ method: 'GET', path: '/ok' });
      platform.limited = true;
      await rejectsAsRateLimited(alone.request({ method: 'GET', path: '/x' }), false);
      platform.limited = false;
      await rejectsAsRateLimited(alone.request({ method: 'GET', path: '/x' }), true);
      await broken.close();
    });

    it('a store that refuses writes (full, read-only) still carries the hold to the other replica', async () => {
      await fresh();
      const refuse = async () => {
        throw new Error('OOM command not allowed when used memory > maxmemory');
      };
      const [first, second] = [client(Object.assign(Object.create(a) as SharedStore, { raiseTo: refuse }), platform), client(b, platform)];
      await second.request({ method: 'GET', path: '/ok' });
      platform.limited = true;
      await rejectsAsRateLimited(first.request({ method: 'GET', path: '/items' }), false);
      platform.limited = false;
      await heard(b, platform);
      const sent = platform.received.length;
      await rejectsAsRateLimited(second.request({ method: 'GET', path: '/items' }), true);
      assert.equal(platform.received.length, sent, 'the held replica sent nothing');
    });
  });
}

suite('embedded store', async () => {
  const store = new MemoryStore();
  return [store, store, undefined];
});

const noRedis = missingPrograms('redis-server');
if (noRedis) console.log(`# shared rate-limit holds on Redis skipped: ${noRedis}`);
let redis: RunningRedis | undefined;
let prefix = 0;
before(async () => {
  if (!noRedis) redis = await startRedis();
});
after(async () => {
  await redis?.close();
});
/** One replica's store, opened as openStore does: subscribed to holds before use. */
const connect = async (keyPrefix: string) => {
  const store = await RedisStore.connect({ url: redis!.url, keyPrefix });
  await watchRateLimits(store);
  return store;
};
suite(
  'Redis, one connection per replica',
  async () => {
    const keyPrefix = `rl${++prefix}:`;
    return [await connect(keyPrefix), await connect(keyPrefix), () => connect(keyPrefix)];
  },
  noRedis,
);

describe('cost of the shared hold per request', { skip: noRedis }, () => {
  it('requests without a hold send no command to Redis (the holds are pushed, not read)', async () => {
    const platform = await startPlatform();
    const store = await connect('cost:');
    const admin = new Redis(redis!.url);
    try {
      const replica = client(store, platform);
      await replica.request({ method: 'GET', path: '/warm' }); // the one background read per identity
      await sleep(50);
      const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await admin.info('stats'))![1]);
      const before = await commands();
      for (let i = 0; i < 50; i++) await replica.request({ method: 'GET', path: `/item/${i}` });
      const afterwards = await commands();
      // Only the INFO call itself counts.
      assert.ok(afterwards - before <= 1, `${afterwards - before} Redis commands for 50 requests`);
      assert.equal(await admin.get(`cost:${rateLimitKey(platform.url, undefined)}`), null);
    } finally {
      admin.disconnect();
      await store.close();
      await platform.close();
    }
  });
});
