/**
 * The call's time budget bounds every attempt and every retry (core/call-budget.ts,
 * core/platform/attempt.ts, upstream.ts): an attempt ends at the deadline, even one whose answer
 * keeps trickling in; no backoff, retry or rate-limit wait starts that the deadline would cut; an
 * attempt it cuts is `budget_exceeded`, never sent again, and a create it cut is said to have
 * possibly happened. Work is counted (requests, pauses); the only times are budgets of 2 s with
 * bounds many times over them, or an injected clock.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { attachBudget, CallBudget, endedByDeadline, WorkScope } from '../src/core/call-budget.js';
import { ToolError } from '../src/core/errors.js';
import { silentLogger } from '../src/core/logger.js';
import { UpstreamClient, type UpstreamClientOptions } from '../src/core/platform/upstream.js';
import { jsonResponse, scriptedFetch } from './support/harness.js';

/** A signal carrying a budget of `wallMs`, on `clock` when given. */
function budgetSignal(wallMs: number, clock?: () => number): AbortSignal {
  const signal = new AbortController().signal;
  attachBudget(signal, new CallBudget({ wallMs }, clock));
  return signal;
}

function client(options: Partial<UpstreamClientOptions> = {}): UpstreamClient {
  return new UpstreamClient({ baseUrl: 'https://api.example.test', platformName: 'Example', authorization: () => 'Bearer t0k3n-abcdefgh', logger: silentLogger, ...options });
}

/** A fetch whose answer never comes: only an abort ends it. */
const hanging = () => new Promise<Response>(() => undefined);

/** An answer whose body sends one byte every 100 ms and never ends. */
function drippingResponse(): Response {
  let timer: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"items":['));
      timer = setInterval(() => controller.enqueue(new TextEncoder().encode(' ')), 100);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

async function failure(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolError, String(error));
    return error;
  }
  assert.fail('the request succeeded');
}

describe('an answer that trickles in ends with the attempt', () => {
  let server: Server;
  let base: string;
  let received = 0;
  before(async () => {
    server = createServer((_req, res) => {
      received += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items":[');
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('over node:http: the attempt timeout covers the whole body, not only its first byte', async () => {
    received = 0;
    const started = performance.now();
    const error = await failure(client({ baseUrl: base, timeoutMs: 1500, retry: { maxRetries: 1, baseDelayMs: 1 } }).request({ method: 'GET', path: '/drip' }));
    assert.equal(error.details.kind, 'timeout');
    assert.equal(received, 2, 'the first attempt ended, and its one retry was sent');
    assert.ok(performance.now() - started < 15_000);
  });

  it("over node:http: the call's deadline ends it before the client's 30 s timeout, with no retry", async () => {
    received = 0;
    const started = performance.now();
    const error = await failure(client({ baseUrl: base, timeoutMs: 30_000 }).request({ method: 'GET', path: '/drip', signal: budgetSignal(2000) }));
    assert.equal(error.details.kind, 'budget_exceeded');
    assert.match(error.message, /time budget of 2 s ran out while waiting for the answer to the GET request \(read\)/);
    assert.match(error.message, /abandoned and not sent again/);
    assert.equal(received, 1);
    assert.ok(performance.now() - started < 15_000);
  });

  it('through an injected fetch the same', async () => {
    const { fetch, calls } = scriptedFetch(() => drippingResponse());
    const error = await failure(client({ fetch, timeoutMs: 30_000 }).request({ method: 'GET', path: '/drip', signal: budgetSignal(2000) }));
    assert.equal(error.details.kind, 'budget_exceeded');
    assert.equal(calls.length, 1);
  });
});

describe("the call's deadline bounds attempts and retries", () => {
  it('a create cut by the deadline is reported as possibly carried out and never sent again', async () => {
    const { fetch, calls } = scriptedFetch(() => hanging());
    const error = await failure(client({ fetch, timeoutMs: 30_000, retry: { maxRetries: 5 } }).request({ method: 'POST', effect: 'create', path: '/items', body: { title: 'x' }, signal: budgetSignal(2000) }));
    assert.equal(error.details.kind, 'budget_exceeded');
    assert.match(error.message, /time budget of 2 s ran out while waiting for the answer to the POST request \(create\)/);
    assert.match(error.message, /may have reached the platform and been carried out; it was not sent again/);
    assert.match(error.details.nextStep ?? '', /Check the current state/);
    assert.equal(calls.length, 1);
  });

  it('a read cut by it says nothing happened twice, and names the budget', async () => {
    const { fetch, calls } = scriptedFetch(() => hanging());
    const error = await failure(client({ fetch, timeoutMs: 30_000 }).request({ method: 'GET', path: '/a', signal: budgetSignal(2000) }));
    assert.equal(error.details.kind, 'budget_exceeded');
    assert.doesNotMatch(error.message, /carried out/);
    assert.equal(calls.length, 1);
  });

  it('no backoff nor retry starts that the deadline would cut (injected clock)', async () => {
    let now = 0;
    const pauses: number[] = [];
    const sleep = async (ms: number) => void pauses.push(ms);
    // Each 503 comes as the call has 200 ms left: less than the backoff could take (up to 250 ms).
    const { fetch, calls } = scriptedFetch(() => {
      now = 44_800;
      return jsonResponse(503, { error: 'busy' });
    });
    const error = await failure(client({ fetch, sleep, random: () => 0 }).request({ method: 'GET', path: '/a', signal: budgetSignal(45_000, () => now) }));
    assert.equal(error.details.kind, 'upstream_error');
    assert.match(error.message, /It was not tried again: too little of this call's time budget of 45 s was left\.$/);
    assert.equal(calls.length, 1);
    assert.deepEqual(pauses, []);
    // The same with time to spare: the retries are sent.
    now = 0;
    const again = scriptedFetch(() => jsonResponse(503, { error: 'busy' }));
    const spent = await failure(client({ fetch: again.fetch, sleep, random: () => 0 }).request({ method: 'GET', path: '/a', signal: budgetSignal(45_000, () => now) }));
    assert.equal(again.calls.length, 3);
    assert.doesNotMatch(spent.message, /not tried again/);
  });

  it('a create that is never sent twice does not blame the deadline for not being retried (injected clock)', async () => {
    let now = 0;
    const { fetch, calls } = scriptedFetch(() => {
      now = 44_900;
      return jsonResponse(503, { error: 'busy' });
    });
    const error = await failure(client({ fetch }).request({ method: 'POST', effect: 'create', path: '/items', body: {}, signal: budgetSignal(45_000, () => now) }));
    assert.equal(error.details.kind, 'upstream_error');
    assert.doesNotMatch(error.message, /not tried again/);
    assert.equal(calls.length, 1);
  });

  it('no rate-limit wait starts that ends past the deadline (injected clock)', async () => {
    let now = 0;
    const pauses: number[] = [];
    const sleep = async (ms: number) => void pauses.push(ms);
    const { fetch, calls } = scriptedFetch(() => {
      now = 44_000;
      return jsonResponse(429, { error: 'slow down' }, { 'retry-after': '3' });
    });
    const platform = client({ fetch, sleep });
    const signal = budgetSignal(45_000, () => now);
    const error = await failure(platform.request({ method: 'GET', path: '/a', signal }));
    assert.equal(error.details.kind, 'rate_limited');
    assert.equal(calls.length, 1);
    assert.deepEqual(pauses, []);
    // Another request of the call, held back by that 429, is refused unsent: the wait would pass the deadline.
    const held = await failure(platform.request({ method: 'GET', path: '/b', signal }));
    assert.equal(held.details.kind, 'rate_limited');
    assert.match(held.message, /after this call's time budget of 45 s runs out\. This request was not sent/);
    assert.equal(calls.length, 1);
    assert.deepEqual(pauses, []);
  });

  it('an attempt due after the deadline is not sent', async () => {
    let now = 0;
    const sleep = async () => {
      // The backoff ran into the deadline (another part of the call spent the time).
      now = 45_000;
    };
    const { fetch, calls } = scriptedFetch(() => jsonResponse(503, { error: 'busy' }));
    const error = await failure(client({ fetch, sleep }).request({ method: 'GET', path: '/a', signal: budgetSignal(45_000, () => now) }));
    assert.equal(error.details.kind, 'budget_exceeded');
    assert.match(error.message, /ran out before the GET request \(read\) could be sent again; it was not sent again/);
    assert.equal(calls.length, 1);
  });
});

describe('reads that answer in part end a margin before the deadline', () => {
  it('a deadline scope is aborted at once past the time for reads, and scopes inside it know why', () => {
    let now = 0;
    const signal = budgetSignal(45_000, () => now);
    now = 41_000; // 4 s left: within the 4.5 s kept to answer
    const scope = new WorkScope(signal, { until: 'deadline' });
    assert.equal(scope.signal.aborted, true);
    assert.equal(scope.timedOut, true);
    const inner = new WorkScope(scope.signal);
    assert.equal(inner.timedOut, true);
    assert.equal(endedByDeadline(inner.signal), true);
    inner.dispose();
    scope.dispose();
    // A caller's cancel is not the deadline.
    const caller = new AbortController();
    const cancelled = new WorkScope(caller.signal, { budget: new CallBudget({}), until: 'deadline' });
    caller.abort();
    assert.equal(cancelled.timedOut, false);
    cancelled.dispose();
  });

  it('with time left it is not', () => {
    let now = 0;
    const signal = budgetSignal(45_000, () => now);
    now = 40_000;
    const scope = new WorkScope(signal, { until: 'deadline' });
    assert.equal(scope.signal.aborted, false);
    scope.dispose();
  });
});
