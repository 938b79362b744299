/**
 * The rate-limit hold of one client: a 429 holds back the requests made with the same
 * credentials (the server's own, or in OAuth mode one user's: the holder, `rateLimitHolder()`)
 * until the platform allows them again, so one user's 429 never holds back another. The wait is
 * the platform's reset time when it gives one of at least a second; otherwise a backoff that
 * starts at `minBackoffMs` (≥ 1 s) and doubles while 429s keep coming for requests sent after
 * the previous wait ended (one burst counts once). Holds shared by replicas: rate-limits.ts.
 */
import type { AnswerHead } from './upstream-request.js';

/** Holds kept before expired ones are swept (a sweep runs only when a new identity gets a 429). */
const HOLDS_SWEPT_AT = 64;
/** Most holds kept at once; past it the oldest go (a forgotten hold costs one more 429, nothing else). */
const MAX_HOLDS = 10_000;

/** Reads the standard `Retry-After` header: delta seconds or an HTTP date. */
export function defaultRetryAfterSeconds(response: AnswerHead, now: Date): number | undefined {
  const raw = response.headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(raw)) return Math.ceil(Number(raw));
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** One credential identity's 429 state. */
interface RateLimitHold {
  /** Epoch ms before which no request of this identity is sent. */
  notBefore: number;
  /** Doubling level of the wait after 429s without a usable reset time; -1 when the last answer was no 429. */
  level: number;
  /** End of the latest such wait: a 429 for a request sent before it belongs to the same burst. */
  windowEnd: number;
}

export interface RateLimitHoldOptions {
  now: () => Date;
  minBackoffMs: number;
  maxBackoffMs: number;
  /** Seconds until a 429 may be retried; default reads `Retry-After`. */
  retryAfterSeconds?: ((response: AnswerHead, now: Date) => number | undefined) | undefined;
}

/**
 * 429 state per credential identity, keyed like the shared holds. Only identities that got a 429
 * have an entry; it goes with the identity's next answer after its hold, or when a sweep finds
 * its hold passed, so the map stays about as small as the set of users being held (and never
 * above MAX_HOLDS).
 */
export class RateLimitHolds {
  private readonly holds = new Map<string, RateLimitHold>();

  constructor(private readonly options: RateLimitHoldOptions) {}

  /** How many identities have 429 state. */
  get size(): number {
    return this.holds.size;
  }

  /** Epoch ms before which the holder's requests wait (0 when not held). */
  notBefore(holder: string): number {
    return this.holds.get(holder)?.notBefore ?? 0;
  }

  /** A 429 for a request sent at `sentAt`: the wait it asks for, and the holder's deadline (epoch ms), now held. */
  holdAfter429(holder: string, response: AnswerHead, sentAt: number): { waitMs: number; deadline: number } {
    const hold = this.holdOf(holder);
    const waitMs = this.rateLimitWait(response, sentAt, hold);
    const deadline = this.options.now().getTime() + waitMs;
    hold.notBefore = Math.max(hold.notBefore, deadline);
    return { waitMs, deadline };
  }

  /** An answer that is no 429: the doubling starts over, and a hold that has passed is forgotten. */
  settle(holder: string): void {
    const hold = this.holds.get(holder);
    if (!hold) return;
    if (hold.notBefore <= this.options.now().getTime()) this.holds.delete(holder);
    else hold.level = -1;
  }

  private rateLimitWait(response: AnswerHead, sentAt: number, hold: RateLimitHold): number {
    const seconds = this.readRetryAfter(response);
    if (seconds !== undefined && seconds >= 1) return seconds * 1000;
    if (hold.level < 0) hold.level = 0;
    else if (sentAt >= hold.windowEnd) hold.level = Math.min(hold.level + 1, 30);
    const waitMs = Math.min(this.options.maxBackoffMs, this.options.minBackoffMs * 2 ** hold.level);
    hold.windowEnd = Math.max(hold.windowEnd, this.options.now().getTime() + waitMs);
    return waitMs;
  }

  /** The identity's 429 state, created on its first 429 (sweeping passed holds first when there are many). */
  private holdOf(holder: string): RateLimitHold {
    let hold = this.holds.get(holder);
    if (hold) return hold;
    if (this.holds.size >= HOLDS_SWEPT_AT) {
      const now = this.options.now().getTime();
      for (const [key, entry] of this.holds) if (entry.notBefore <= now && entry.windowEnd <= now) this.holds.delete(key);
      // Still full of live holds: the oldest go.
      for (const key of this.holds.keys()) {
        if (this.holds.size < MAX_HOLDS) break;
        this.holds.delete(key);
      }
    }
    hold = { notBefore: 0, level: -1, windowEnd: Number.NEGATIVE_INFINITY };
    this.holds.set(holder, hold);
    return hold;
  }

  private readRetryAfter(response: AnswerHead): number | undefined {
    let seconds: number | undefined;
    try {
      seconds = (this.options.retryAfterSeconds ?? defaultRetryAfterSeconds)(response, this.options.now());
    } catch {
      seconds = undefined;
    }
    if (seconds === undefined || !Number.isFinite(seconds)) return undefined;
    return Math.max(0, Math.ceil(seconds));
  }
}
