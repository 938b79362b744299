/**
 * The fair share of shared pools (core/concurrency.ts, core/caller.ts): slots go round-robin across
 * callers' groups, then across a group's members, each caller's queue FIFO; a group never holds the
 * slots kept for others; a caller over its share is refused with what to reduce; a cancelled waiter
 * leaves its queue. The pools built on it: the off-thread pool (its small lane, its per-caller share)
 * and the platform client's request slots. Over real HTTP: the caller's key (address, header, its
 * checks) and a client hanging up, whose queued steps leave the queue and whose worker is stopped.
 * Everything is counted (grants, starts, requests seen), never timed.
 */
import assert from 'node:assert/strict';
import { request, type ClientRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { callsInFlightCount, runAsCaller, type Caller } from '../src/core/caller.js';
import { CallBudget, WorkScope } from '../src/core/call-budget.js';
import { ConcurrencyLimiter } from '../src/core/concurrency.js';
import { silentLogger } from '../src/core/logger.js';
import { UpstreamClient } from '../src/core/platform/upstream.js';
import { addressGroup, callerOf } from '../src/core/serving/http/caller-key.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { offThreadPool, OffThreadPool, runOffThread, type OffThreadStep } from '../src/core/tools/off-thread.js';
import type { ToolServer } from '../src/core/tools/registry.js';
import { defineTool, READ_ONLY_HINTS } from '../src/core/tools/tool.js';
import { toolErrorOf } from './support/tool-error-of.js';

const caller = (group: string, member = group): Caller => ({ group, member });
const A = caller('A');
const B = caller('B');
const C = caller('C');

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits until `condition` holds; fails after 10 s (a safety net, not a measure). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) assert.fail(`never: ${what}`);
    await sleep(10);
  }
}

/** A platform client whose requests are held until the test answers them, in the order sent. */
function heldPlatform(maxConcurrentRequests: number): { client: UpstreamClient; held: { path: string; answer: (response: Response) => void }[] } {
  const held: { path: string; answer: (response: Response) => void }[] = [];
  const client = new UpstreamClient({
    baseUrl: 'http://platform.test',
    platformName: 'P',
    authorization: () => 'Bearer token',
    maxConcurrentRequests,
    fetch: (url) => new Promise<Response>((resolve) => held.push({ path: new URL(String(url)).pathname, answer: resolve })),
  });
  return { client, held };
}

/** Answers held platform requests in the order they were sent, from `from` until `total` are answered. */
async function answerAsSent(held: { answer: (response: Response) => void }[], from: number, total: number, body: string): Promise<void> {
  for (let answered = from; answered < total; answered++) {
    await until(() => held.length > answered, 'the next request was sent');
    held[answered]?.answer(new Response(body, { headers: { 'content-type': 'application/json' } }));
  }
}

/** Acquires for named waiters and records the order of their grants. */
class Grants {
  readonly order: string[] = [];
  private readonly releases = new Map<string, () => void>();
  constructor(private readonly limiter: ConcurrencyLimiter) {}
  ask(name: string, who: Caller, signal?: AbortSignal, neverRefuse = false): Promise<unknown> {
    return this.limiter.acquire(signal, { caller: who, neverRefuse }).then((release) => {
      this.order.push(name);
      this.releases.set(name, release);
    });
  }
  async release(name: string): Promise<void> {
    const release = this.releases.get(name);
    assert.ok(release, `${name} holds a slot`);
    this.releases.delete(name);
    release();
    await settle();
  }
  /** Releases what was granted last and is still held, until nothing is held. */
  async drain(): Promise<void> {
    for (let i = 0; i < 100 && this.limiter.inFlight > 0; i++) {
      const name = [...this.order].reverse().find((held) => this.releases.has(held)) as string;
      await this.release(name);
    }
  }
}

describe('the fair limiter', () => {
  it('grants round-robin across callers, each caller FIFO, the caller served last going last', async () => {
    const grants = new Grants(new ConcurrencyLimiter(1));
    await grants.ask('a0', A);
    for (const name of ['a1', 'a2', 'a3']) void grants.ask(name, A);
    for (const name of ['b1', 'b2']) void grants.ask(name, B);
    void grants.ask('c1', C);
    await settle();
    assert.deepEqual(grants.order, ['a0']);
    await grants.drain();
    // A's burst came first, yet B and C each get their turn before A's second.
    assert.deepEqual(grants.order, ['a0', 'b1', 'c1', 'a1', 'b2', 'a2', 'a3']);
  });

  it('shares a group across its members, and members invented by one group buy no more than its share', async () => {
    const grants = new Grants(new ConcurrencyLimiter(1));
    await grants.ask('e0', caller('E', 'e0'));
    for (let i = 1; i <= 5; i++) void grants.ask(`e${i}`, caller('E', `e${i}`));
    for (const name of ['v1', 'v2', 'v3']) void grants.ask(name, caller('V'));
    await grants.drain();
    assert.deepEqual(grants.order, ['e0', 'v1', 'e1', 'v2', 'e2', 'v3', 'e3', 'e4', 'e5']);
  });

  it('keeps a quarter of the slots from any one caller, an eighth from any group: others start at once during a burst', async () => {
    const limiter = new ConcurrencyLimiter(8);
    assert.deepEqual([limiter.maxInFlightPerCaller, limiter.maxInFlightPerGroup], [6, 7]);
    const grants = new Grants(limiter);
    for (let i = 0; i < 10; i++) void grants.ask(`a${i}`, A);
    await settle();
    assert.deepEqual({ inFlight: limiter.inFlight, queued: limiter.queued }, { inFlight: 6, queued: 4 }, 'A holds 6 of 8; its 4 others wait though 2 slots are free');
    await grants.ask('a-other-agent', caller('A', 'another agent'));
    void grants.ask('a-third-agent', caller('A', 'a third agent'));
    await settle();
    assert.deepEqual(limiter.shareOf(A), { inFlight: 6, waiting: 4, groupInFlight: 7, groupWaiting: 5 }, "A's group holds 7 at most");
    await grants.ask('b0', B);
    assert.equal(limiter.inFlight, 8, "B started at once, on the slot kept from A's group");
    await grants.release('a0');
    assert.equal(grants.order.at(-1), 'a-third-agent', "a freed slot of A's goes to the member of its group served longest ago");
    await grants.release('a1');
    assert.equal(grants.order.at(-1), 'a6');
    await grants.drain();
    assert.deepEqual({ inFlight: limiter.inFlight, queued: limiter.queued }, { inFlight: 0, queued: 0 });
    assert.deepEqual([new ConcurrencyLimiter(1).maxInFlightPerCaller, new ConcurrencyLimiter(1).maxInFlightPerGroup], [1, 1]);
    assert.deepEqual([new ConcurrencyLimiter(2).maxInFlightPerCaller, new ConcurrencyLimiter(2).maxInFlightPerGroup], [2, 2]);
    assert.deepEqual([new ConcurrencyLimiter(16).maxInFlightPerCaller, new ConcurrencyLimiter(16).maxInFlightPerGroup], [12, 14]);
  });

  it('refuses a waiter over its share with what to reduce: per caller, per group, in all; work under way still waits', async () => {
    const limiter = new ConcurrencyLimiter(1, { name: 'layouts', maxWaitingPerCaller: 2, maxWaitingPerGroup: 3, maxWaiting: 4, retryAfterSeconds: 7 });
    const grants = new Grants(limiter);
    await grants.ask('a0', A);
    void grants.ask('a1', A);
    void grants.ask('a2', A);
    const mine = await toolErrorOf(grants.ask('a3', A));
    assert.equal(mine.details.kind, 'unavailable');
    assert.equal(mine.details.retryAfterSeconds, 7);
    assert.match(mine.message, /^You have 2 layouts waiting for this server already, the most one caller may have waiting \(2\), so this one was not started \(1 run at a time\); nothing was sent\.$/);
    assert.match(mine.details.nextStep ?? '', /Send fewer at once/);
    void grants.ask('x1', caller('A', 'another agent'));
    const group = await toolErrorOf(grants.ask('y1', caller('A', 'a third agent')));
    assert.match(group.message, /^Your clients \(one signed-in user, or one network address\) have 3 layouts waiting .* \(3\)/);
    void grants.ask('b1', B);
    const all = await toolErrorOf(grants.ask('c1', C));
    assert.match(all.message, /^The server has 4 layouts waiting from all its callers, its limit \(4\)/);
    assert.equal(limiter.queued, 4, 'refused waiters are not counted');
    // A platform request's second attempt is never refused.
    void grants.ask('c-retry', C, undefined, true);
    assert.equal(limiter.queued, 5);
    await grants.drain();
    // A's own member was served (a0): its other member goes first within the group.
    assert.deepEqual(grants.order, ['a0', 'b1', 'c-retry', 'x1', 'a1', 'a2']);
  });

  it('a cancelled waiter leaves its queue at once, the others keep their turns', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const grants = new Grants(limiter);
    await grants.ask('a0', A);
    const cancel = new AbortController();
    const cancelled = grants.ask('b1', B, cancel.signal).then(
      () => 'granted',
      (reason: unknown) => String(reason),
    );
    void grants.ask('c1', C);
    assert.equal(limiter.queued, 2);
    cancel.abort(new Error('hung up'));
    assert.equal(await cancelled, 'Error: hung up');
    assert.equal(limiter.queued, 1);
    assert.deepEqual(limiter.shareOf(B), { inFlight: 0, waiting: 0, groupInFlight: 0, groupWaiting: 0 }, "B's group is forgotten");
    await grants.drain();
    assert.deepEqual(grants.order, ['a0', 'c1']);
    await assert.rejects(limiter.acquire(AbortSignal.abort()));
  });

  it('tryAcquire takes a free slot within the caller\'s share, or nothing; it never queues', () => {
    const limiter = new ConcurrencyLimiter(4);
    const held = [1, 2, 3].map(() => limiter.tryAcquire(A));
    assert.ok(held.every(Boolean), 'A takes 3 of 4');
    assert.equal(limiter.tryAcquire(A), undefined, "the fourth is kept from A (a quarter for others)");
    assert.equal(limiter.queued, 0);
    const fromB = limiter.tryAcquire(B);
    assert.ok(fromB, 'B takes the last one');
    assert.equal(limiter.tryAcquire(C), undefined, 'none left');
    for (const release of [...held, fromB]) release?.();
    assert.equal(limiter.inFlight, 0);
  });

  it('lets alike short work borrow the slots kept for others while its caller is alone, and stops borrowing once another comes', async () => {
    const limiter = new ConcurrencyLimiter(8);
    const walk = (name: string) => limiter.acquire(undefined, { caller: A, borrowWhenAlone: true }).then((release) => ({ name, release }));
    const held = await Promise.all(Array.from({ length: 8 }, (_, i) => walk(`a${i}`)));
    assert.deepEqual({ inFlight: limiter.inFlight, queued: limiter.queued }, { inFlight: 8, queued: 0 }, 'alone, A took all 8 (its cap is 6)');
    const grants = new Grants(limiter);
    void grants.ask('b0', B);
    const more = walk('a8');
    await settle();
    assert.deepEqual({ inFlight: limiter.inFlight, queued: limiter.queued }, { inFlight: 8, queued: 2 });
    held[0]!.release();
    await settle();
    assert.deepEqual(grants.order, ['b0'], "the first freed slot goes to B, not to A's next piece");
    held[1]!.release();
    await settle();
    assert.deepEqual([limiter.shareOf(A).inFlight, limiter.shareOf(A).waiting], [6, 1], 'beside B, A keeps to its cap of 6: its next piece waits though a slot is free');
    held[2]!.release();
    await settle();
    assert.deepEqual([limiter.shareOf(A).inFlight, limiter.shareOf(A).waiting], [6, 0], "A's next piece took the freed slot, within its cap");
    for (const { release } of held.slice(3)) release();
    (await more).release();
    await grants.drain();
    assert.deepEqual({ inFlight: limiter.inFlight, queued: limiter.queued }, { inFlight: 0, queued: 0 });
    const plain = await Promise.all(Array.from({ length: 6 }, () => limiter.acquire(undefined, { caller: A })));
    const seventh = limiter.acquire(undefined, { caller: A });
    await settle();
    assert.deepEqual({ inFlight: limiter.inFlight, queued: limiter.queued }, { inFlight: 6, queued: 1 }, 'without borrowing, a lone caller keeps to its cap');
    for (const release of plain) release();
    (await seventh)();
    assert.equal(limiter.inFlight, 0);
  });

  it('takes the caller from the async context by default (caller.ts)', async () => {
    const limiter = new ConcurrencyLimiter(4);
    const release = await runAsCaller({ caller: caller('user x', 'agent 1') }, async () => {
      await settle();
      return limiter.acquire();
    });
    assert.deepEqual(limiter.shareOf(caller('user x', 'agent 1')), { inFlight: 1, waiting: 0, groupInFlight: 1, groupWaiting: 0 });
    assert.equal(limiter.shareOf(caller('local')).groupInFlight, 0);
    release();
    release();
    assert.equal(limiter.inFlight, 0);
  });
});

const STEPS = new URL('./support/off-thread-steps.js', import.meta.url);
const step = (exportName: string): OffThreadStep => ({ module: STEPS, exportName, what: `the ${exportName} step`, overLimit: () => [] });

/** Jobs of the `hold` step: each blocks in its worker until let go; counts which started, in which order. */
class HeldJobs {
  readonly cells = new SharedArrayBuffer(4 * 128);
  private readonly view = new Int32Array(this.cells);
  get started(): number {
    return Atomics.load(this.view, 0);
  }
  /** Start order of a job (1 first), 0 when it never started. */
  startOf(job: number): number {
    return Atomics.load(this.view, 1 + job);
  }
  letGo(job: number): void {
    Atomics.store(this.view, 64 + job, 1);
    Atomics.notify(this.view, 64 + job);
  }
  input(job: number): { cells: SharedArrayBuffer; job: number } {
    return { cells: this.cells, job };
  }
}

describe('the off-thread pool shares its workers', () => {
  it('runs small steps in their own lane: never behind a big one', async () => {
    const pool = new OffThreadPool({ workers: 1, maxWaiting: 8, maxWaitMs: 60_000 });
    const jobs = new HeldJobs();
    const big = pool.run(step('hold'), jobs.input(0), new AbortController().signal);
    const another = pool.run(step('hold'), jobs.input(1), new AbortController().signal);
    await until(() => jobs.started === 1, 'the big step started');
    const small = await Promise.all([1, 2, 3].map((n) => pool.run<{ values: number[] }, { doubled: number[] }>(step('double'), { values: [n] }, new AbortController().signal, { small: true })));
    assert.deepEqual(small.map((answer) => answer.doubled), [[2], [4], [6]]);
    assert.deepEqual(pool.lanes.big, { workers: 1, running: 1, waiting: 1 }, 'the big steps were still there all along');
    jobs.letGo(0);
    jobs.letGo(1);
    assert.deepEqual(await Promise.all([big, another]), [0, 1]);
    assert.deepEqual(pool.load, { running: 0, waiting: 0 });
  });

  it("gives each caller its turn, and refuses a caller's step past its share, naming it", async () => {
    const pool = new OffThreadPool({ workers: 1, maxWaiting: 16, maxWaitingPerCaller: 2, maxWaitMs: 60_000 });
    const jobs = new HeldJobs();
    const as = (who: Caller, job: number) => runAsCaller({ caller: who }, () => pool.run(step('hold'), jobs.input(job), new AbortController().signal));
    const mine = [as(A, 0), as(A, 1), as(A, 2)];
    await until(() => jobs.started === 1, "A's first step started");
    const refused = await toolErrorOf(as(A, 3));
    assert.equal(refused.details.kind, 'unavailable');
    assert.match(refused.message, /^Not computing the hold step: You have 2 computations \(layouts and other heavy steps\) waiting for this server already, the most one caller may have waiting \(2\)/);
    const theirs = as(B, 4);
    await settle();
    assert.deepEqual(pool.load, { running: 1, waiting: 3 });
    jobs.letGo(0);
    await until(() => jobs.started === 2, 'the next step started');
    assert.equal(jobs.startOf(4), 2, "B's step runs next, before A's two others");
    for (const job of [4, 1, 2]) jobs.letGo(job);
    assert.deepEqual(await Promise.all([...mine, theirs]), [0, 1, 2, 4]);
    assert.deepEqual([jobs.startOf(1), jobs.startOf(2), jobs.startOf(3)], [3, 4, 0], 'the refused step never ran');
  });
});

describe("the platform client's request slots are shared per caller", () => {
  it("another caller's request goes through at once while one caller's 30 wait", async () => {
    const { client, held } = heldPlatform(8);
    const get = (who: Caller, path: string) => runAsCaller({ caller: who }, () => client.request({ method: 'GET', path }));
    const fromA = Array.from({ length: 30 }, (_, i) => get(A, `/a/${i}`));
    await until(() => held.length === 6, "A's first requests were sent");
    await settle();
    assert.equal(held.length, 6, 'A holds 6 of the 8 slots');
    assert.equal(client.stats().queued, 24);
    const fromB = get(B, '/b');
    await until(() => held.length === 7, "B's request was sent");
    assert.equal(held[6]?.path, '/b', "B's request went through ahead of A's 24 waiting");
    // Answer everything as it arrives until every request is done.
    await answerAsSent(held, 0, 31, '{"ok":true}');
    assert.equal((await fromB).status, 200);
    assert.equal((await Promise.all(fromA)).length, 30);
    assert.equal(client.stats().inFlight, 0);
  });
});

describe("waiting for a request slot ends at the call's deadline", () => {
  it('a request still waiting when the time is up is never sent, and says so', async () => {
    const { client, held } = heldPlatform(1);
    const sent = () => held.map((request) => request.path);
    // B's one slot is taken by A's request, held past B's deadline (B's budget: 1.5 s).
    const fromA = runAsCaller({ caller: A }, () => client.request({ method: 'GET', path: '/a' }));
    await until(() => held.length === 1, "A's request was sent");
    const scope = new WorkScope(new AbortController().signal, { budget: new CallBudget({ wallMs: 1500 }) });
    const fromB = runAsCaller({ caller: B }, () => client.request({ method: 'GET', path: '/b', signal: scope.signal }));
    const refused = await toolErrorOf(fromB);
    assert.equal(refused.details.kind, 'budget_exceeded');
    assert.match(refused.details.message, /ran out before the GET request.* could be sent; it was not sent/);
    assert.deepEqual(sent(), ['/a'], "B's request was never sent");
    assert.equal(client.stats().queued, 0, 'B left the queue');
    await answerAsSent(held, 0, 1, '{"ok":true}');
    assert.equal((await fromA).status, 200);
    scope.dispose();
  });
});

describe("the user directory walk's pages borrow idle request slots", () => {
  it('a lone caller walking uses every slot; beside another caller, its share', async () => {
    const { client, held } = heldPlatform(8);
    const page = (who: Caller, path: string) => runAsCaller({ caller: who }, () => client.request({ method: 'GET', path, borrowIdleSlots: true }));
    const pages = Array.from({ length: 10 }, (_, i) => page(A, `/users/${i}`));
    await until(() => held.length === 8, "A's pages were sent");
    await settle();
    assert.deepEqual({ sent: held.length, queued: client.stats().queued }, { sent: 8, queued: 2 }, 'alone, A has all 8 in flight');
    const fromB = runAsCaller({ caller: B }, () => client.request({ method: 'GET', path: '/b' }));
    await settle();
    held[0]!.answer(new Response('{"users":[]}', { headers: { 'content-type': 'application/json' } }));
    await until(() => held.length === 9, 'the freed slot was used');
    assert.equal(held[8]?.path, '/b', "B gets the first freed slot, ahead of A's waiting pages");
    await answerAsSent(held, 1, 11, '{"users":[]}');
    assert.equal((await fromB).status, 200);
    assert.equal((await Promise.all(pages)).length, 10);
    assert.equal(client.stats().inFlight, 0);
  });
});

describe('the caller of an HTTP request', () => {
  const fakeRequest = (remoteAddress: string | undefined, named?: string | string[]) =>
    ({ socket: { remoteAddress }, headers: named === undefined ? {} : { 'x-toolservers-caller': named } }) as unknown as Parameters<typeof callerOf>[0];

  it('is the signed-in user, else the address (IPv6 by its /64), divided by X-Toolservers-Caller', () => {
    assert.deepEqual(callerOf(fakeRequest('10.0.0.7'), undefined), { group: 'address 10.0.0.7', member: 'address 10.0.0.7' });
    assert.deepEqual(callerOf(fakeRequest('10.0.0.7', 'agent-2'), undefined), { group: 'address 10.0.0.7', member: 'agent-2' });
    assert.deepEqual(callerOf(fakeRequest('10.0.0.7', 'agent-2'), 'canvasapi:u1'), { group: 'user canvasapi:u1', member: 'agent-2' });
    assert.equal(addressGroup('::ffff:192.168.1.9'), '192.168.1.9');
    assert.equal(addressGroup('2001:db8:0:12:aaaa::1'), '2001:db8:0:12::/64');
    assert.equal(addressGroup('2001:db8:0:12:ffff:1:2:3'), '2001:db8:0:12::/64', 'one /64, one group');
    assert.equal(addressGroup('2001:0db8::12:1%eth0'), '2001:db8:0:0::/64');
    assert.equal(addressGroup('::1'), '0:0:0:0::/64');
    for (const bad of ['', 'x'.repeat(65), 'a b', 'a\nb', ['a', 'b']]) {
      const refused = callerOf(fakeRequest('10.0.0.7', bad), undefined);
      assert.ok('refused' in refused, `refused: ${JSON.stringify(bad)}`);
      assert.match(refused.refused, /^X-Toolservers-Caller .*: it must be sent once, 1 to 64 letters, digits or \. _ : @ -/);
    }
  });
});

describe('a client hanging up over HTTP', () => {
  const jobs = new HeldJobs();
  const hold = defineTool({
    name: 'Test.Hold',
    title: 'Hold',
    description: 'Holds a worker until the test lets it go.',
    toolset: 'test',
    input: z.object({ job: z.number().int() }),
    output: z.object({ job: z.number() }),
    hints: READ_ONLY_HINTS,
    handler: async ({ job }, context) => ({ job: await runOffThread<unknown, number>(step('hold'), jobs.input(job), context.signal) }),
  });
  const server: ToolServer<undefined> = { id: 'test', name: 'Test', version: '1', instructions: 'test', tools: [hold], deps: undefined, logger: silentLogger };
  const KEY = 'fair-share-test-key-0123456789';
  let http: RunningHttpServer;
  before(async () => {
    http = await serveOverHttp({ host: '127.0.0.1', port: 0, mounts: [{ path: '/mcp', server }], logger: silentLogger, serverKey: KEY });
  });
  after(() => http.close());

  /** A 2025-era tools/call over a plain HTTP connection, left open. */
  function call(job: number, headers: Record<string, string> = {}): { req: ClientRequest; status: Promise<number> } {
    const body = JSON.stringify({ jsonrpc: '2.0', id: job, method: 'tools/call', params: { name: 'Test.Hold', arguments: { job } } });
    let req!: ClientRequest;
    const status = new Promise<number>((resolve) => {
      req = request(`${http.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => resolve(-1));
      req.end(body);
    });
    return { req, status };
  }

  it('takes its steps out of the queue and stops the worker it holds (2025 era, plain HTTP)', async () => {
    const pool = offThreadPool();
    assert.deepEqual(pool.load, { running: 0, waiting: 0 });
    const { workers } = pool.lanes.big;
    const calls = [1, 2, 3, 4, 5].map((job) => call(job, { 'x-toolservers-caller': 'hanging-up' }));
    await until(() => pool.load.running + pool.load.waiting === 5 && jobs.started === workers, 'the five calls reached the pool, the first started');
    for (const { req } of calls) req.destroy();
    await until(() => pool.load.running + pool.load.waiting === 0, 'the pool is empty');
    assert.equal(jobs.started, workers, 'no waiting step ever started: they left the queue');
    // No job was let go: the running ones ended only because their workers were stopped.
    const after = call(10);
    await until(() => jobs.startOf(10) > 0, 'the next caller started at once');
    jobs.letGo(10);
    assert.equal(await after.status, 200);
  });

  it('the same with an SDK client cancelling (2026-07-28: it closes the request)', async () => {
    const pool = offThreadPool();
    const client = new Client({ name: 'fair-share', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
    try {
      const cancel = new AbortController();
      const results = [20, 21, 22].map((job) => client.callTool({ name: 'Test.Hold', arguments: { job } }, { signal: cancel.signal }).catch(() => 'cancelled'));
      const started = () => [20, 21, 22].filter((job) => jobs.startOf(job) > 0).length;
      await until(() => pool.load.running + pool.load.waiting === 3 && started() === pool.lanes.big.workers, 'the three calls reached the pool, the first started');
      cancel.abort();
      assert.deepEqual(await Promise.all(results), ['cancelled', 'cancelled', 'cancelled']);
      await until(() => pool.load.running + pool.load.waiting === 0, 'the pool is empty');
      assert.equal(started(), pool.lanes.big.workers, 'the waiting ones never started, the running ones were stopped');
    } finally {
      await client.close();
    }
  });

  /** A 2025-era notifications/cancelled on a request of its own, as a stateless client sends it. */
  async function cancelNotice(id: number, headers: Record<string, string> = {}): Promise<number> {
    const response = await fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the user stopped it' } }),
    });
    await response.arrayBuffer();
    return response.status;
  }

  it('a notifications/cancelled on another request ends the call, only from the same caller (2025 era)', async () => {
    const pool = offThreadPool();
    const { workers } = pool.lanes.big;
    const mine = { 'x-toolservers-caller': 'canceller' };
    const calls = [40, 41, 42].map((job) => call(job, mine));
    const started = () => [40, 41, 42].filter((job) => jobs.startOf(job) > 0).length;
    await until(() => pool.load.running + pool.load.waiting === 3 && callsInFlightCount() === 3 && started() === workers, 'the three calls reached the pool, the first started');
    // Another client (another member) names the same request IDs: nothing happens to these calls.
    for (const id of [40, 41, 42]) assert.equal(await cancelNotice(id, { 'x-toolservers-caller': 'someone-else' }), 202);
    await settle();
    assert.equal(pool.load.running + pool.load.waiting, 3, "another caller's notice cancels nothing");
    // The waiting ones first: they leave the queue without ever starting.
    for (const id of [42, 41, 40]) assert.equal(await cancelNotice(id, mine), 202);
    await until(() => pool.load.running + pool.load.waiting === 0, 'the pool is empty');
    assert.equal(started(), workers, 'the waiting ones never started, the running one was stopped');
    for (const { req } of calls) req.destroy();
    await until(() => callsInFlightCount() === 0, 'no call is registered any more');
  });

  it('refuses a malformed X-Toolservers-Caller with 400 naming the header', async () => {
    const refused = call(30, { 'x-toolservers-caller': 'has spaces in it' });
    assert.equal(await refused.status, 400);
    assert.equal(jobs.startOf(30), 0);
  });
});
