/**
 * CPU-heavy steps off the event loop. A step is a pure function exported by a module of its own;
 * `runOffThread` runs it in a fresh worker thread (off-thread-worker.ts) with a time limit and a
 * heap limit, so that while it computes, the process goes on answering other calls and probes.
 * Workers are few (one fewer than the cores, at most 2, at least 1) and shared fairly by callers
 * (../concurrency.ts): further steps wait in their caller's queue, of bounded length and time, and
 * workers go round-robin across callers. A small step (the caller says so: a layout of a few nodes)
 * runs in a lane of its own, so it never waits behind big ones. A cancelled call, or one whose
 * client hung up, leaves the queue at once and stops its running worker. Every failure is a ToolError: past a limit, an invalid_input
 * naming what to reduce (the step says what); cancelled; the server too busy; or the step's own.
 *
 * Both builds find the files beside the code that names them: tsc's build keeps the source tree,
 * and the esbuild bundle puts this code in dist/chunks/, where scripts/bundle.mjs writes the worker
 * and each step's module under their own names.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { currentCaller } from '../caller.js';
import { ConcurrencyLimiter } from '../concurrency.js';
import { ToolError, type InputIssue, type ToolErrorDetails } from '../errors.js';

/** One pure function run in a worker: its input and output cross threads by structured clone. */
export interface OffThreadStep {
  /** The module that exports it, located beside the caller: `new URL('./layout.js', import.meta.url)`. */
  module: URL;
  exportName: string;
  /** What the step computes, for messages: "the layout". */
  what: string;
  /** Past a limit ("30 s", "256 MB of memory"): which parameters to reduce and how. */
  overLimit: (limit: string) => InputIssue[];
  /** Default DEFAULT_STEP_LIMITS.timeoutMs; TOOLSERVERS_OFF_THREAD_TIMEOUT_MS replaces it. */
  timeoutMs?: number;
  /** The worker's heap (V8 old generation); default DEFAULT_STEP_LIMITS.maxMemoryMb. */
  maxMemoryMb?: number;
}

export const DEFAULT_STEP_LIMITS = { timeoutMs: 30_000, maxMemoryMb: 256 } as const;
export const OFF_THREAD_TIMEOUT_ENV = 'TOOLSERVERS_OFF_THREAD_TIMEOUT_MS';

export interface OffThreadPoolOptions {
  /** Workers running big steps at once. */
  workers: number;
  /** Steps waiting for a worker at most, from all callers; one more is refused as busy. */
  maxWaiting: number;
  /** Steps one caller may have waiting (default 8, at most maxWaiting); one more is refused, naming it. */
  maxWaitingPerCaller?: number;
  /** How long a step may wait for a worker before it is refused as busy. */
  maxWaitMs: number;
  /** Workers of the small steps' own lane (default 2). */
  smallWorkers?: number;
}

/** How one step is run. */
export interface OffThreadRunOptions {
  /**
   * A step known to be small (quick to compute, whatever the input's shape says: the tool decides,
   * never the client): it runs in the small lane, never behind big steps.
   */
  small?: boolean;
}

/** What the worker posts back: the function's value, or its error described. */
export type WorkerAnswer = { ok: true; value: unknown } | { ok: false; toolError?: ToolErrorDetails; message: string };

const WORKER_FILE = new URL('./off-thread-worker.js', import.meta.url);

export class OffThreadPool {
  private readonly big: ConcurrencyLimiter;
  private readonly small: ConcurrencyLimiter;
  private readonly options: OffThreadPoolOptions;

  constructor(options: OffThreadPoolOptions) {
    this.options = options;
    const maxWaitingPerCaller = Math.min(options.maxWaiting, options.maxWaitingPerCaller ?? 8);
    const share = { name: 'computations (layouts and other heavy steps)', maxWaitingPerCaller, maxWaitingPerGroup: Math.min(options.maxWaiting, 2 * maxWaitingPerCaller), maxWaiting: options.maxWaiting };
    this.big = new ConcurrencyLimiter(options.workers, share);
    this.small = new ConcurrencyLimiter(options.smallWorkers ?? 2, share);
  }

  /** Workers running now, and steps waiting for one (both lanes). */
  get load(): { running: number; waiting: number } {
    return { running: this.big.inFlight + this.small.inFlight, waiting: this.big.queued + this.small.queued };
  }

  /** Each lane's workers, those running now and the steps waiting. */
  get lanes(): Record<'big' | 'small', { workers: number; running: number; waiting: number }> {
    const lane = (slots: ConcurrencyLimiter) => ({ workers: slots.limit, running: slots.inFlight, waiting: slots.queued });
    return { big: lane(this.big), small: lane(this.small) };
  }

  /** The step's value for this input; rejects with a ToolError. The worker is gone when it settles. */
  async run<Input, Output>(step: OffThreadStep, input: Input, signal: AbortSignal, how: OffThreadRunOptions = {}): Promise<Output> {
    if (signal.aborted) throw cancelled(step);
    const timeoutMs = stepTimeout(step);
    const release = await this.waitForWorker(how.small ? this.small : this.big, step, signal);
    try {
      return (await runInWorker(step, input, signal, timeoutMs)) as Output;
    } finally {
      release();
    }
  }

  private async waitForWorker(lane: ConcurrencyLimiter, step: OffThreadStep, signal: AbortSignal): Promise<() => void> {
    const waiting = new AbortController();
    const stopWaiting = () => waiting.abort();
    signal.addEventListener('abort', stopWaiting, { once: true });
    const timer = setTimeout(stopWaiting, this.options.maxWaitMs);
    try {
      return await lane.acquire(waiting.signal, { caller: currentCaller(signal) });
    } catch (error) {
      if (signal.aborted) throw cancelled(step);
      // Over the caller's share: the limiter's refusal says what to reduce.
      if (error instanceof ToolError) throw new ToolError({ ...error.details, message: `Not computing ${step.what}: ${error.message}` });
      throw busy(step, this.options, lane.limit);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', stopWaiting);
    }
  }
}

let sharedPool: OffThreadPool | undefined;

/** The process's pool: every server and call shares the cores. */
export function offThreadPool(): OffThreadPool {
  return (sharedPool ??= new OffThreadPool({ workers: Math.max(1, Math.min(2, availableParallelism() - 1)), maxWaiting: 64, maxWaitingPerCaller: 8, maxWaitMs: 60_000 }));
}

/** Runs `step` on `input` in a worker of the process's pool (see OffThreadPool.run); `how.small` for a step known to be small. */
export function runOffThread<Input, Output>(step: OffThreadStep, input: Input, signal: AbortSignal, how?: OffThreadRunOptions): Promise<Output> {
  return offThreadPool().run<Input, Output>(step, input, signal, how);
}

function stepTimeout(step: OffThreadStep): number {
  const fromEnv = process.env[OFF_THREAD_TIMEOUT_ENV]?.trim();
  if (!fromEnv) return step.timeoutMs ?? DEFAULT_STEP_LIMITS.timeoutMs;
  const value = Number(fromEnv);
  if (Number.isSafeInteger(value) && value >= 1) return value;
  throw new ToolError({
    kind: 'not_configured',
    message: `${OFF_THREAD_TIMEOUT_ENV} must be a whole number of milliseconds of at least 1 (got "${fromEnv.slice(0, 40)}"), so ${step.what} was not computed.`,
    nextStep: `The server's operator should fix or unset ${OFF_THREAD_TIMEOUT_ENV} (default ${DEFAULT_STEP_LIMITS.timeoutMs}).`,
  });
}

/** One fresh worker for one step: settles once the worker has exited, whatever ended it. */
function runInWorker(step: OffThreadStep, input: unknown, signal: AbortSignal, timeoutMs: number): Promise<unknown> {
  const maxMemoryMb = step.maxMemoryMb ?? DEFAULT_STEP_LIMITS.maxMemoryMb;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_FILE, {
      workerData: { module: step.module.href, exportName: step.exportName, input },
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
      // The worker's console goes to stderr: stdout may be the MCP channel.
      stdout: true,
    });
    worker.stdout.pipe(process.stderr, { end: false });
    let outcome: { value: unknown } | { error: ToolError } | undefined;
    const settle = (result: { value: unknown } | { error: ToolError }) => {
      if (outcome) return;
      outcome = result;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      // terminate() stops even a busy loop; the promise settles with the exit.
      void worker.terminate();
    };
    const onAbort = () => settle({ error: cancelled(step) });
    const timer = setTimeout(() => settle({ error: overLimit(step, formatSeconds(timeoutMs)) }), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    worker.on('message', (answer: WorkerAnswer) => settle(answer.ok ? { value: answer.value } : { error: stepError(step, answer) }));
    worker.on('error', (error: Error & { code?: string }) => {
      settle({ error: error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? overLimit(step, `${maxMemoryMb} MB of memory`) : failed(step, error.message) });
    });
    worker.on('exit', () => {
      settle({ error: failed(step, 'the worker stopped without an answer') });
      if (outcome && 'value' in outcome) resolve(outcome.value);
      else reject(outcome?.error);
    });
  });
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function overLimit(step: OffThreadStep, limit: string): ToolError {
  const issues = step.overLimit(limit);
  return new ToolError({
    kind: 'invalid_input',
    message: `Computing ${step.what} took more than ${limit}, its limit (nothing was sent): ${issues.map((i) => `${i.parameter}: ${i.problem}`).join('; ')}`,
    nextStep: 'Reduce what the issues name and call again.',
    issues,
  });
}

function cancelled(step: OffThreadStep): ToolError {
  return new ToolError({ kind: 'cancelled', message: `The call was cancelled while computing ${step.what}; nothing was sent.` });
}

function busy(step: OffThreadStep, options: OffThreadPoolOptions, workers: number): ToolError {
  return new ToolError({
    kind: 'unavailable',
    message: `The server is busy computing for other calls (${workers} at a time, waiting ${formatSeconds(options.maxWaitMs)} at most), so ${step.what} was not computed; nothing was sent.`,
    nextStep: 'Call again in a few seconds.',
    retryAfterSeconds: 5,
  });
}

function stepError(step: OffThreadStep, answer: Extract<WorkerAnswer, { ok: false }>): ToolError {
  return answer.toolError ? new ToolError(answer.toolError) : failed(step, answer.message);
}

function failed(step: OffThreadStep, message: string): ToolError {
  return new ToolError({
    kind: 'internal',
    message: `Unexpected failure while computing ${step.what}: ${message}`,
    nextStep: 'This is a bug in the tool server; retrying will probably not help. Report it with the arguments used.',
  });
}
