/**
 * core/tools/off-thread.ts: a pure function run in a worker thread, its value back by structured
 * clone; past its time or heap limit an invalid_input naming what to reduce; cancellation stops the
 * worker or takes the step out of the queue; the pool runs a bounded number at once, refuses a
 * step past its queue; the step's own errors come back as ToolErrors. While a step computes, the
 * main thread's event loop keeps turning (counted, not timed).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { OFF_THREAD_TIMEOUT_ENV, OffThreadPool, runOffThread, type OffThreadStep } from '../src/core/tools/off-thread.js';
import { toolErrorOf } from './support/tool-error-of.js';

const STEPS = new URL('./support/off-thread-steps.js', import.meta.url);
const step = (exportName: string, limits: Partial<Pick<OffThreadStep, 'timeoutMs' | 'maxMemoryMb'>> = {}): OffThreadStep => ({
  module: STEPS,
  exportName,
  what: `the ${exportName} step`,
  overLimit: (limit) => [{ parameter: 'size', problem: `over ${limit}: make it smaller` }],
  ...limits,
});

/** Counts turns of the main thread's event loop (timer callbacks) until stopped. */
function turnCounter(): { stop(): number } {
  let turns = 0;
  const timer = setInterval(() => turns++, 5);
  return {
    stop() {
      clearInterval(timer);
      return turns;
    },
  };
}

describe('off-thread steps', () => {
  const pool = new OffThreadPool({ workers: 1, maxWaiting: 1, maxWaitMs: 60_000 });
  after(() => delete process.env[OFF_THREAD_TIMEOUT_ENV]);

  it('computes in a worker thread and answers the value', async () => {
    const answer = await pool.run<{ values: number[] }, { doubled: number[]; onMainThread: boolean }>(step('double'), { values: [1, 2, 3] }, new AbortController().signal);
    assert.deepEqual(answer, { doubled: [2, 4, 6], onMainThread: false });
    assert.deepEqual(pool.load, { running: 0, waiting: 0 });
  });

  it('stops a step past its time limit with invalid_input naming what to reduce, the event loop turning all along', async () => {
    const turns = turnCounter();
    const error = await toolErrorOf(pool.run(step('spin', { timeoutMs: 1500 }), {}, new AbortController().signal));
    assert.ok(turns.stop() >= 10, 'the main thread kept running timers while the step spun');
    assert.equal(error.details.kind, 'invalid_input');
    assert.deepEqual(error.details.issues, [{ parameter: 'size', problem: 'over 1.5 s: make it smaller' }]);
    assert.match(error.message, /^Computing the spin step took more than 1\.5 s, its limit \(nothing was sent\): size: over 1\.5 s/);
    assert.deepEqual(pool.load, { running: 0, waiting: 0 }, 'the worker is gone');
  });

  it('stops a step past its heap limit the same way', async () => {
    const error = await toolErrorOf(pool.run(step('hog', { maxMemoryMb: 32 }), {}, new AbortController().signal));
    assert.equal(error.details.kind, 'invalid_input');
    assert.deepEqual(error.details.issues, [{ parameter: 'size', problem: 'over 32 MB of memory: make it smaller' }]);
  });

  it("keeps a step's ToolError, and reports any other failure as internal", async () => {
    const refused = await toolErrorOf(pool.run(step('refuse'), {}, new AbortController().signal));
    assert.equal(refused.details.kind, 'invalid_input');
    assert.deepEqual(refused.details.issues, [{ parameter: 'size', problem: 'must be small' }]);
    const crashed = await toolErrorOf(pool.run(step('crash'), {}, new AbortController().signal));
    assert.equal(crashed.details.kind, 'internal');
    assert.match(crashed.message, /the crash step: step broke/);
    const missing = await toolErrorOf(pool.run(step('notAFunction'), {}, new AbortController().signal));
    assert.match(missing.message, /exports no function notAFunction/);
  });

  it('a cancelled call stops its running worker, and leaves the queue when it waits', async () => {
    const running = new AbortController();
    const spinning = toolErrorOf(pool.run(step('spin'), {}, running.signal));
    const queued = new AbortController();
    const waiting = toolErrorOf(pool.run(step('double'), { values: [1] }, queued.signal));
    await sleep(50);
    assert.deepEqual(pool.load, { running: 1, waiting: 1 });
    // One worker and one waiter: a third step is refused at once as busy.
    const busy = await toolErrorOf(pool.run(step('double'), { values: [1] }, new AbortController().signal));
    assert.equal(busy.details.kind, 'unavailable');
    assert.equal(busy.details.retryAfterSeconds, 5);

    queued.abort();
    assert.equal((await waiting).details.kind, 'cancelled');
    assert.deepEqual(pool.load, { running: 1, waiting: 0 }, 'the waiter left the queue');
    running.abort();
    assert.equal((await spinning).details.kind, 'cancelled');
    assert.deepEqual(pool.load, { running: 0, waiting: 0 }, 'the spinning worker was stopped');
    const already = new AbortController();
    already.abort();
    assert.equal((await toolErrorOf(pool.run(step('double'), { values: [1] }, already.signal))).details.kind, 'cancelled');
  });

  it('refuses a step that waited for a worker too long as busy', async () => {
    const impatient = new OffThreadPool({ workers: 1, maxWaiting: 4, maxWaitMs: 200 });
    const running = new AbortController();
    const spinning = toolErrorOf(impatient.run(step('spin'), {}, running.signal));
    const waited = await toolErrorOf(impatient.run(step('double'), { values: [1] }, new AbortController().signal));
    assert.equal(waited.details.kind, 'unavailable');
    running.abort();
    await spinning;
  });

  it(`takes the time limit from ${OFF_THREAD_TIMEOUT_ENV}, and refuses a value that is not one`, async () => {
    process.env[OFF_THREAD_TIMEOUT_ENV] = '1200';
    const error = await toolErrorOf(runOffThread(step('spin', { timeoutMs: 600_000 }), {}, new AbortController().signal));
    assert.deepEqual(error.details.issues, [{ parameter: 'size', problem: 'over 1.2 s: make it smaller' }]);
    process.env[OFF_THREAD_TIMEOUT_ENV] = 'soon';
    const misconfigured = await toolErrorOf(runOffThread(step('double'), { values: [1] }, new AbortController().signal));
    assert.equal(misconfigured.details.kind, 'not_configured');
    assert.match(misconfigured.message, /TOOLSERVERS_OFF_THREAD_TIMEOUT_MS must be a whole number of milliseconds/);
    delete process.env[OFF_THREAD_TIMEOUT_ENV];
  });
});
