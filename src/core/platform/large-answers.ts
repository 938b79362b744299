/**
 * A process-wide gate on large platform answers held at once. Reading a page of a few MB costs
 * several times its size while it is buffered, decoded and parsed (a 19 MB page of board items
 * about 100 MB); ten calls doing so together took 2 GB. So an answer past LARGE_ANSWER_BYTES
 * (announced by its Content-Length, or once its reading passes that size) takes one of
 * LARGE_ANSWER_SLOTS slots before it is read further, and keeps it until it is parsed
 * (upstream.ts). Smaller answers never wait. The gate is the core's ConcurrencyLimiter, so it
 * shares that limiter's order and fairness; a waiter whose call is cancelled or times out leaves
 * the queue. A holder needs nothing else to finish (read, decode, parse), so it cannot deadlock.
 */
import type { Caller } from '../caller.js';
import { ConcurrencyLimiter } from '../concurrency.js';

/** Bytes past which an answer is large. */
export const LARGE_ANSWER_BYTES = 4 * 1024 * 1024;
/** Large answers read or parsed at once, in the whole process. */
export const LARGE_ANSWER_SLOTS = 2;

// One slot per user at a time: a user reading several large pages never holds both from another.
// Never refused: the request was sent already; the wait ends with the call (its signal).
const gate = new ConcurrencyLimiter(LARGE_ANSWER_SLOTS, { name: 'large platform answers', maxInFlightPerCaller: 1, maxInFlightPerGroup: 1 });
let mostHeld = 0;

/** Waits for a large-answer slot (rejects with the signal's reason when it aborts first); resolves with its release. */
export async function takeLargeAnswerSlot(signal: AbortSignal, caller?: Caller): Promise<() => void> {
  const release = await gate.acquire(signal, { neverRefuse: true, ...(caller ? { caller } : {}) });
  mostHeld = Math.max(mostHeld, gate.inFlight);
  return release;
}

/** Slots held and waited for now, and the most held at once since the last `resetMostHeld` (tests and benches count it). */
export function largeAnswerStats(): { held: number; waiting: number; mostHeld: number } {
  return { held: gate.inFlight, waiting: gate.queued, mostHeld };
}

export function resetMostHeld(): void {
  mostHeld = gate.inFlight;
}
