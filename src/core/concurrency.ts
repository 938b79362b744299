/**
 * A counting semaphore with a FIFO queue: at most `limit` holders at a time, the rest wait in
 * arrival order. A waiter whose signal aborts leaves the queue at once (it never takes a slot).
 *
 * UpstreamClient holds one per platform client, around each attempt (connect, send, read the
 * answer), so that however many tool calls run in parallel, at most `limit` requests are in
 * flight at the platform. Backoff sleeps between attempts hold no slot. The off-thread pool
 * (tools/off-thread.ts) holds one around each worker thread.
 */

interface Waiter {
  grant: () => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export class ConcurrencyLimiter {
  readonly limit: number;
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency limit must be a positive integer (got ${limit})`);
    this.limit = limit;
  }

  /** Holders right now. */
  get inFlight(): number {
    return this.active;
  }

  /** Waiters right now. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Resolves with a release function once a slot is free (in arrival order). Rejects with the
   * signal's reason when it aborts first; the waiter is then gone from the queue. The release
   * function is safe to call more than once.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.active < this.limit && this.queue.length === 0) {
      this.active += 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        onAbort: undefined,
        grant: () => {
          if (waiter.onAbort) signal?.removeEventListener('abort', waiter.onAbort);
          resolve(this.releaser());
        },
      };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.queue.indexOf(waiter);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal.reason ?? new Error('aborted'));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.queue.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next.grant(); // the slot passes straight on: `active` stays the same
      else this.active -= 1;
    };
  }
}
