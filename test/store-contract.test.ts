/**
 * One contract for both SharedStore implementations: the embedded MemoryStore and RedisStore
 * against a real redis-server on a random loopback port (skipped, saying why, only when
 * redis-server is not installed). Then what only Redis has: key prefixes, connection failures
 * that must end in a clear error instead of a hang, and URLs that must never be echoed.
 */
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { storeChoice } from '../src/core/serving/open-store.js';
import { checkRedisUrl, describeRedisUrl, RedisStore } from '../src/core/store/redis-store.js';
import { StoreUnavailableError, type SharedStore } from '../src/core/store/store.js';
import { freePort, missingPrograms, startRedis, type RunningRedis } from './support/replicas.js';

const noRedis = missingPrograms('redis-server');
if (noRedis) console.log(`# RedisStore contract skipped: ${noRedis}`);

let redis: RunningRedis | undefined;
let prefixCount = 0;

before(async () => {
  if (!noRedis) redis = await startRedis();
});
after(async () => {
  await redis?.close();
});

/** A fresh key space per test: stores share the server but not keys. */
async function redisStore(prefix = `test${++prefixCount}:`): Promise<RedisStore> {
  return RedisStore.connect({ url: redis!.url, keyPrefix: prefix, commandTimeoutMs: 1000, startupTimeoutMs: 2000 });
}

function contract(name: string, open: () => Promise<SharedStore>, skip: string | undefined): void {
  describe(`SharedStore contract: ${name}`, { skip }, () => {
    const opened: SharedStore[] = [];
    const store = async () => {
      const s = await open();
      opened.push(s);
      return s;
    };
    after(async () => {
      for (const s of opened) await s.close();
    });

    it('sets, gets and deletes values; absent keys read as undefined', async () => {
      const s = await store();
      assert.equal(await s.get('a'), undefined);
      await s.set('a', 'one');
      await s.set('b', 'two');
      await s.set('c', 'three');
      assert.equal(await s.get('a'), 'one');
      await s.set('a', 'uno');
      assert.equal(await s.get('a'), 'uno');
      await s.delete('a', 'b', 'missing');
      assert.equal(await s.get('a'), undefined);
      assert.equal(await s.get('b'), undefined);
      assert.equal(await s.get('c'), 'three');
      await s.delete();
    });

    it('keeps text exactly, including Unicode and large values', async () => {
      const s = await store();
      const text = 'Jørgen 🚀 "quoted" \n\t\\ ' + 'x'.repeat(300_000);
      await s.set('text', text);
      assert.equal(await s.get('text'), text);
    });

    it('lets values expire after their TTL and keeps values without one', async () => {
      const s = await store();
      await s.set('short', 'v', 40);
      await s.set('long', 'v', 60_000);
      await s.set('forever', 'v');
      assert.equal(await s.get('short'), 'v');
      await sleep(120);
      assert.equal(await s.get('short'), undefined);
      assert.equal(await s.get('long'), 'v');
      assert.equal(await s.get('forever'), 'v');
    });

    it('setIfAbsent: of many concurrent writers exactly one wins, and the value is the winner\'s', async () => {
      const s = await store();
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.setIfAbsent('lock', `writer-${i}`, 10_000)));
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await s.get('lock'), `writer-${results.indexOf(true)}`);
      assert.equal(await s.setIfAbsent('lock', 'late'), false);
    });

    it('setIfAbsent succeeds again once the earlier value expired', async () => {
      const s = await store();
      assert.equal(await s.setIfAbsent('lease', 'first', 40), true);
      await sleep(120);
      assert.equal(await s.setIfAbsent('lease', 'second', 10_000), true);
      assert.equal(await s.get('lease'), 'second');
    });

    it('extendIfHeld and deleteIfHeld act only for the value that holds the key', async () => {
      const s = await store();
      assert.equal(await s.setIfAbsent('claim', 'owner-a', 60), true);
      assert.equal(await s.extendIfHeld('claim', 'owner-b', 10_000), false, 'another owner cannot extend it');
      assert.equal(await s.extendIfHeld('claim', 'owner-a', 10_000), true);
      await sleep(150);
      assert.equal(await s.get('claim'), 'owner-a', 'the extension outlived the first TTL');
      assert.equal(await s.deleteIfHeld('claim', 'owner-b'), false, 'another owner cannot free it');
      assert.equal(await s.get('claim'), 'owner-a');
      assert.equal(await s.deleteIfHeld('claim', 'owner-a'), true);
      assert.equal(await s.get('claim'), undefined);
      assert.equal(await s.extendIfHeld('claim', 'owner-a', 10_000), false, 'nothing to extend once gone');
      assert.equal(await s.get('claim'), undefined);
      assert.equal(await s.deleteIfHeld('claim', 'owner-a'), false);
    });

    it('take: of many concurrent takers exactly one gets the value, and it is gone afterwards', async () => {
      const s = await store();
      await s.set('code', 'one-time');
      const taken = await Promise.all(Array.from({ length: 20 }, () => s.take('code')));
      assert.deepEqual(taken.filter((value) => value !== undefined), ['one-time']);
      assert.equal(await s.get('code'), undefined);
      assert.equal(await s.take('code'), undefined);
    });

    it('sets: members added once each, readable, deleted with the key; a TTL covers the whole set', async () => {
      const s = await store();
      await s.addToSet('members', 'a');
      await s.addToSet('members', 'b');
      await s.addToSet('members', 'a');
      assert.deepEqual((await s.setMembers('members')).sort(), ['a', 'b']);
      assert.deepEqual(await s.setMembers('none'), []);
      await s.delete('members');
      assert.deepEqual(await s.setMembers('members'), []);
      await s.addToSet('brief', 'x', 40);
      await s.addToSet('brief', 'y');
      assert.deepEqual((await s.setMembers('brief')).sort(), ['x', 'y']);
      await sleep(120);
      assert.deepEqual(await s.setMembers('brief'), []);
    });

    it('raiseTo raises, never lowers, and concurrent raises end at the highest', async () => {
      const s = await store();
      assert.equal(await s.raiseTo('until', 1000), 1000);
      assert.equal(await s.raiseTo('until', 500), 1000);
      assert.equal(await s.raiseTo('until', 1500.5), 1500.5);
      const values = Array.from({ length: 20 }, (_, i) => 2000 + ((i * 7) % 20));
      await Promise.all(values.map((value) => s.raiseTo('until', value)));
      assert.equal(Number(await s.get('until')), Math.max(...values));
      assert.equal(await s.raiseTo('brief', 1_700_000_000_000, 40), 1_700_000_000_000);
      await sleep(120);
      assert.equal(await s.get('brief'), undefined);
    });

    it('increment counts every concurrent call exactly once; the first call sets the expiry and later ones do not slide it', async () => {
      const s = await store();
      const counts = await Promise.all(Array.from({ length: 50 }, () => s.increment('hits', 60_000)));
      assert.deepEqual([...counts].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
      assert.equal(Number(await s.get('hits')), 50);
      assert.equal(await s.increment('window', 1000), 1);
      await sleep(500);
      assert.equal(await s.increment('window', 1000), 2);
      await sleep(700);
      assert.equal(await s.get('window'), undefined, 'the window ended 1 s after its first count, not after the last');
      assert.equal(await s.increment('window', 1000), 1);
    });

    it('publish reaches every subscriber of the channel, not others; unsubscribing stops delivery', async () => {
      const s = await store();
      const first: string[] = [];
      const second: string[] = [];
      const other: string[] = [];
      const stopFirst = await s.subscribe('news', (message) => first.push(message));
      await s.subscribe('news', (message) => second.push(message));
      await s.subscribe('other', (message) => other.push(message));
      await s.publish('news', 'hello');
      await until(() => first.length === 1 && second.length === 1);
      await stopFirst();
      await s.publish('news', 'again');
      await until(() => second.length === 2);
      assert.deepEqual(first, ['hello']);
      assert.deepEqual(second, ['hello', 'again']);
      assert.deepEqual(other, []);
    });

    it('answers ping while open', async () => {
      const s = await store();
      assert.equal(await s.ping(), true);
    });
  });
}

/** Waits for a condition that an asynchronous delivery makes true (fails after 5 s). */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await sleep(10);
  assert.ok(condition(), 'the condition did not become true');
}

contract('MemoryStore', async () => new MemoryStore(), undefined);
contract('RedisStore', () => redisStore(), noRedis);

describe('RedisStore specifics', { skip: noRedis }, () => {
  it('shares values between connections with the same prefix (replicas) and isolates other prefixes', async () => {
    const a = await redisStore('deployment-a:');
    const b = await redisStore('deployment-a:');
    const other = await redisStore('deployment-b:');
    try {
      await a.set('k', 'from a');
      assert.equal(await b.get('k'), 'from a');
      assert.equal(await other.get('k'), undefined);
      const heard: string[] = [];
      await b.subscribe('channel', (message) => heard.push(message));
      await other.subscribe('channel', (message) => heard.push(`other:${message}`));
      await a.publish('channel', 'm');
      await until(() => heard.includes('m'));
      await sleep(50);
      assert.deepEqual(heard, ['m']);
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
    }
  });

  it('a Redis nobody answers at is a clear error at start, without the password', async () => {
    const port = await freePort();
    await assert.rejects(
      RedisStore.connect({ url: `redis://:pa55word-not-shown@127.0.0.1:${port}/0`, startupTimeoutMs: 300 }),
      (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError);
        assert.match(error.message, new RegExp(`Could not connect to Redis at redis://127\\.0\\.0\\.1:${port}/0 within 300 ms`));
        assert.match(error.message, /ECONNREFUSED/);
        assert.doesNotMatch(error.message, /pa55word/);
        return true;
      },
    );
  });

  it('commands fail with a clear error, in bounded time, when Redis goes away; ping says false; it reconnects when Redis is back', async () => {
    const own = await startRedis();
    const store = await RedisStore.connect({ url: own.url, commandTimeoutMs: 300 });
    try {
      await store.set('k', 'v');
      await own.close();
      await assert.rejects(store.get('k'), (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError);
        assert.match(error.message, /^The shared store \(Redis at redis:\/\/127\.0\.0\.1:\d+\) could not read a value: /);
        return true;
      });
      await assert.rejects(store.setIfAbsent('lock', 'x', 1000), StoreUnavailableError);
      assert.equal(await store.ping(), false);
    } finally {
      await store.close();
    }
  });

  it('subscribes again after a reconnection, and a Redis that stalls just then is a warning, never an unhandled rejection that stops the process', async () => {
    // A proxy between the store and Redis that can swallow every SUBSCRIBE, as a Redis stalled at that moment would.
    let stallSubscribes = false;
    const sockets = new Set<Socket>();
    const proxy = createServer((client) => {
      const upstream = connect(redis!.port, '127.0.0.1');
      let stalled = false;
      sockets.add(client);
      client.on('data', (chunk: Buffer) => {
        if (stallSubscribes && /subscribe/i.test(chunk.toString('latin1'))) stalled = true;
        if (!stalled) upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => client.write(chunk));
      const end = () => {
        sockets.delete(client);
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const prefix = `resubscribe${++prefixCount}:`;
    const store = await RedisStore.connect({ url: `redis://127.0.0.1:${port}`, keyPrefix: prefix, commandTimeoutMs: 300 });
    const publisher = await redisStore(prefix);
    try {
      const heard: string[] = [];
      await store.subscribe('channel', (message) => heard.push(message));
      // Every connection drops; the reconnected subscriber's SUBSCRIBE gets no answer and times out.
      stallSubscribes = true;
      for (const socket of sockets) socket.destroy();
      await sleep(1500);
      assert.deepEqual(unhandled.map(String), [], 'no rejection is left unhandled');
      // Redis answers again: the next reconnection subscribes again, and messages arrive.
      stallSubscribes = false;
      for (const socket of sockets) socket.destroy();
      for (let i = 0; i < 100 && !heard.includes('after'); i++) {
        await publisher.publish('channel', 'after');
        await sleep(50);
      }
      assert.ok(heard.includes('after'), 'messages arrive once the subscription is renewed');
      assert.deepEqual(unhandled.map(String), []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await Promise.all([store.close(), publisher.close()]);
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('closes cleanly, also with a subscription open', async () => {
    const store = await redisStore();
    await store.subscribe('c', () => undefined);
    await store.close();
    await store.close();
    await assert.rejects(store.get('k'), StoreUnavailableError);
  });
});

describe('store choice', () => {
  it('defaults to memory and takes redis with a URL, from flags or environment', () => {
    assert.deepEqual(storeChoice({}, {}), { kind: 'memory' });
    assert.deepEqual(storeChoice({ store: 'redis', redisUrl: 'redis://h:6379' }, {}), { kind: 'redis', redisUrl: 'redis://h:6379' });
    assert.deepEqual(storeChoice({}, { TOOLSERVERS_STORE: 'redis', TOOLSERVERS_REDIS_URL: 'redis://e:1', TOOLSERVERS_REDIS_KEY_PREFIX: 'p:' }), {
      kind: 'redis',
      redisUrl: 'redis://e:1',
      keyPrefix: 'p:',
    });
  });

  it('refuses an unknown store, redis without URL, and a URL without redis, saying what to do', () => {
    assert.throws(() => storeChoice({ store: 'postgres' }, {}), /Unknown store "postgres".*memory.*redis/);
    assert.throws(() => storeChoice({ store: 'redis' }, {}), /--store redis needs --redis-url \(or TOOLSERVERS_REDIS_URL\)/);
    assert.throws(() => storeChoice({ redisUrl: 'redis://h' }, {}), /--redis-url is only used with --store redis/);
  });

  it('refuses URLs that are not Redis URLs without echoing them', () => {
    assert.throws(() => checkRedisUrl('http://user:secret@h:80'), (error: Error) => /must start with redis:\/\/ or rediss:\/\//.test(error.message) && !error.message.includes('secret'));
    assert.throws(() => checkRedisUrl('not a url secret'), (error: Error) => /not a valid URL/.test(error.message) && !error.message.includes('secret'));
    assert.throws(() => checkRedisUrl('redis://h:6379/zero'), /database number/);
    assert.equal(describeRedisUrl('rediss://user:secret@cache.internal:6380/2'), 'rediss://cache.internal:6380/2');
  });
});
