/**
 * The SearchUsers directory shared through the store: two servers on one store stand for two
 * replicas. One walk serves both (also when they ask at the same moment), each user of OAuth
 * mode has their own directory, freshness is the same as in one process, a dead walker or a
 * failing store never stops a search, and the stored form of 10,000 users stays small.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../src/core/logger.js';
import { runAs } from '../src/core/platform/request-identity.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { RedisStore } from '../src/core/store/redis-store.js';
import type { SharedStore } from '../src/core/store/store.js';
import type { IncidentOpsDeps } from '../src/incidentops/deps.js';
import { createIncidentOpsServer } from '../src/incidentops/index.js';
import { resolveIncidentOpsSettings } from '../src/incidentops/settings.js';
import { shapeUser } from '../src/incidentops/shape.js';
import { decodeDirectory, directoryKey, encodeDirectory, slimUser, UserDirectory, type Directory } from '../src/incidentops/user-directory.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.js';
import { missingPrograms, startRedis, type RunningRedis } from './support/replicas.js';

let sandbox: RunningSandbox;
before(async () => {
  sandbox = await startSandbox({ incidentops: { users: 250 } });
});
after(async () => {
  await sandbox.close();
});

const signal = () => new AbortController().signal;

function replica(store: SharedStore | undefined, now?: () => Date, target: RunningSandbox = sandbox): IncidentOpsDeps {
  const server = createIncidentOpsServer({
    settings: resolveIncidentOpsSettings({ baseUrl: target.incidentops.baseUrl, accessToken: target.incidentops.token }, {}),
    logger: silentLogger,
    version: 'test',
    ...(store ? { store } : {}),
    ...(now ? { now } : {}),
  });
  return server.deps as IncidentOpsDeps;
}

/**
 * Directory walks the platform saw since the last clear: each starts with the page that asks for
 * the total (the walk also asks for a few pages early, before it knows how many there are).
 */
function walks(target: RunningSandbox = sandbox): number {
  return target.requests.filter((request) => request.platform === 'incidentops' && request.path === '/users' && request.query.some(([key, value]) => key === 'total' && value === 'true')).length;
}

describe('shared SearchUsers directory', () => {
  it('one replica walks the directory; the other reads it from the store and walks nothing', async () => {
    const store = new MemoryStore();
    const [a, b] = [replica(store), replica(store)];
    sandbox.clearRequests();
    const first = await a.directory.get(signal());
    assert.equal(first.users.length, 250);
    assert.equal(walks(), 1);
    sandbox.clearRequests();
    const second = await b.directory.get(signal());
    assert.equal(walks(), 0, 'the second replica must not walk the directory');
    assert.deepEqual(second.users, first.users);
    assert.equal(second.fetchedAt, first.fetchedAt);
    // And the in-process copy serves the next search without the store.
    const reads = countReads(store);
    assert.equal(await b.directory.get(signal()), await b.directory.get(signal()));
    assert.equal(reads(), 0);
    await store.close();
  });

  it('two replicas asking at the same moment walk the directory once (the walk lock)', async () => {
    const store = new MemoryStore();
    const replicas = [replica(store), replica(store), replica(store)];
    sandbox.clearRequests();
    const directories = await Promise.all(replicas.map((deps) => deps.directory.get(signal())));
    assert.equal(walks(), 1, 'one walk, not one per replica');
    for (const directory of directories) assert.equal(directory.users.length, 250);
    await store.close();
  });

  it('keeps one directory per base URL and per signed-in user', async () => {
    const store = new MemoryStore();
    const [a, b] = [replica(store), replica(store)];
    sandbox.clearRequests();
    await runAs({ userKey: 'incidentops:alice' }, () => a.directory.get(signal()));
    await runAs({ userKey: 'incidentops:bob' }, () => b.directory.get(signal()));
    assert.equal(walks(), 2, 'alice and bob each get their own walk');
    sandbox.clearRequests();
    await runAs({ userKey: 'incidentops:alice' }, () => b.directory.get(signal()));
    await runAs({ userKey: 'incidentops:bob' }, () => a.directory.get(signal()));
    assert.equal(walks(), 0);
    assert.ok(await store.get(directoryKey(sandbox.incidentops.baseUrl, 'incidentops:alice')));
    assert.ok(await store.get(directoryKey(sandbox.incidentops.baseUrl, 'incidentops:bob')));
    assert.equal(await store.get(directoryKey(sandbox.incidentops.baseUrl, undefined)), undefined);
    assert.notEqual(directoryKey('https://api.example.com', undefined), directoryKey('https://api.eu.example.com', undefined));
    await store.close();
  });

  it('has the same freshness as in one process: a stored directory older than the TTL is walked again', async () => {
    const store = new MemoryStore();
    let clock = Date.parse('2026-05-01T00:00:00Z');
    const now = () => new Date(clock);
    const [a, b] = [replica(store, now), replica(store, now)];
    await a.directory.get(signal());
    clock += 4 * 60_000;
    sandbox.clearRequests();
    await b.directory.get(signal());
    assert.equal(walks(), 0, 'four minutes old: still fresh');
    clock += 2 * 60_000;
    await b.directory.get(signal());
    assert.equal(walks(), 1, 'six minutes old: fetched again');
    await store.close();
  });

  it('a walk that ends between a replica\'s first read and its taking the lock is not repeated', async () => {
    const store = new MemoryStore();
    const key = directoryKey(sandbox.incidentops.baseUrl, undefined);
    await replica(store).directory.get(signal());
    for (let i = 0; i < 100 && (await store.get(key)) === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // The second replica's first read happened while the walker was still writing: it saw nothing.
    const get = store.get.bind(store);
    let first = true;
    store.get = async (name: string) => {
      if (name === key && first) {
        first = false;
        return undefined;
      }
      return get(name);
    };
    sandbox.clearRequests();
    assert.equal((await replica(store).directory.get(signal())).users.length, 250);
    assert.equal(walks(), 0);
    assert.equal(await store.get(`${key}:lock`), undefined, 'the lock taken for nothing is given back');
    await store.close();
  });

  it('a replica waiting on a walker that died walks itself after the wait bound', async () => {
    const store = new MemoryStore();
    const api = replica(undefined).api;
    const key = directoryKey(sandbox.incidentops.baseUrl, undefined);
    await store.set(`${key}:lock`, 'a replica that died', 60_000);
    const directory = new UserDirectory(api, Date.now, 300_000, { store, baseUrl: sandbox.incidentops.baseUrl, waitMs: 150 });
    sandbox.clearRequests();
    assert.equal((await directory.get(signal())).users.length, 250);
    assert.equal(walks(), 1);
    await store.close();
  });

  it('a walker that fails frees the lock at once, so the next search walks without waiting for its TTL', async () => {
    const store = new MemoryStore();
    const key = directoryKey(sandbox.incidentops.baseUrl, undefined);
    const failing = createIncidentOpsServer({
      settings: resolveIncidentOpsSettings({ baseUrl: sandbox.incidentops.baseUrl, accessToken: 'wrong-token' }, {}),
      logger: silentLogger,
      version: 'test',
      store,
    }).deps as IncidentOpsDeps;
    await assert.rejects(failing.directory.get(signal()), /rejected the credentials/);
    assert.equal(await store.get(`${key}:lock`), undefined);
    assert.equal((await replica(store).directory.get(signal())).users.length, 250);
    await store.close();
  });

  it('a store that fails is logged and skipped: the search still gets its directory', async () => {
    const broken = new MemoryStore();
    const fail = async () => {
      throw new Error('store down');
    };
    Object.assign(broken, { get: fail, set: fail, setIfAbsent: fail, delete: fail });
    const deps = replica(broken);
    sandbox.clearRequests();
    assert.equal((await deps.directory.get(signal())).users.length, 250);
    assert.equal(walks(), 1);
    await broken.close();
  });
});

describe('stored form of the directory', () => {
  it('keeps exactly what SearchUsers shows and matches on', async () => {
    const raw = (await replica(undefined).api.listPage('/users', 'users', { limit: 100, offset: 0 }, signal())).items;
    const withoutName: Record<string, unknown> = { ...raw[0]!, name: undefined, summary: 'Only A Summary' };
    for (const user of [...raw, withoutName]) {
      const slim = slimUser(user);
      assert.deepEqual(shapeUser(slim), shapeUser(user));
      assert.equal(slim.name ?? slim.summary, user.name ?? user.summary);
      assert.equal(slim.email, user.email);
      assert.equal(slim.id, user.id);
    }
  });

  it('round-trips through the encoding', async () => {
    const directory = await replica(undefined).directory.get(signal());
    const decoded = await decodeDirectory(await encodeDirectory(directory));
    assert.deepEqual(decoded, directory);
    const odd: Directory = { users: [{ id: 'P1', summary: 'No Name' }, { id: 'P2', name: 'No Teams', teams: [] }], truncated: true, total: 12_000, fetchedAt: 5 };
    assert.deepEqual(await decodeDirectory(await encodeDirectory(odd)), odd);
    await assert.rejects(decodeDirectory(Buffer.from('not gzip').toString('base64')));
  });

  it('10,000 users fit comfortably: the stored value stays under 400 KB', async () => {
    const large = await startSandbox({ incidentops: { users: 10_000 } });
    try {
      const deps = replica(undefined, undefined, large);
      const directory = await deps.directory.get(signal());
      assert.equal(directory.users.length, 10_000);
      const text = await encodeDirectory(directory);
      console.log(`directory of 10,000 users: ${text.length} bytes stored, ${Buffer.byteLength(JSON.stringify(directory.users))} bytes as JSON in process`);
      assert.ok(text.length < 400_000, `stored directory is ${text.length} bytes`);
    } finally {
      await large.close();
    }
  });
});

const noRedis = missingPrograms('redis-server');
describe('shared directory on Redis', { skip: noRedis }, () => {
  let redis: RunningRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.close();
  });

  it('two replicas on two Redis connections walk the directory once', async () => {
    const stores = await Promise.all([0, 1].map(() => RedisStore.connect({ url: redis.url })));
    try {
      const [a, b] = stores.map((store) => replica(store));
      sandbox.clearRequests();
      const [first, second] = await Promise.all([a!.directory.get(signal()), b!.directory.get(signal())]);
      assert.equal(walks(), 1);
      assert.deepEqual(second.users, first.users);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});

/** Counts store reads from now on. */
function countReads(store: MemoryStore): () => number {
  let reads = 0;
  const get = store.get.bind(store);
  store.get = async (key: string) => {
    reads++;
    return get(key);
  };
  return () => reads;
}
