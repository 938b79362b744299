/**
 * Rate-limit holds shared by replicas: when one replica gets a 429, the others hold back too.
 *
 * A hold is a "not before" time (epoch ms) per platform base URL and credential identity (the
 * request's `userKey` in OAuth mode, `server` for the server's own credentials). Reading it must
 * cost nothing per upstream request, so every replica keeps the holds in memory: the replica
 * that got the 429 raises the stored value (`raiseTo`, so a later hold never shortens) and
 * publishes it; every replica's subscription updates its copy. A replica that starts during a
 * hold reads the stored value once per identity, in the background. Store failures are logged
 * and never fail a request: each replica then still honours its own 429s.
 * Deadlines are wall-clock times: replicas need synchronised clocks (NTP), as usual.
 */
import { currentIdentity } from './request-identity.js';
import { silentLogger, type Logger } from '../logger.js';
import type { SharedStore } from '../store/store.js';

/** What an UpstreamClient needs (see `sharedRateLimit` in its options). */
export interface SharedRateLimit {
  /** The latest hold for the current request's identity (epoch ms; 0 when none). Synchronous: no store round trip. */
  notBefore(): number;
  /** Tells every replica to hold back until `until`; resolves once published (bounded by the store's command timeout), never rejects. */
  raise(until: number): Promise<void>;
}

const CHANNEL = 'ratelimit';
/** Whose hold stops requests made with the server's own credentials (no request identity). */
const SERVER_HOLDER = 'server';
/** Identities remembered per process before old entries are dropped (expired holds go first). */
const MAX_HOLDS = 10_000;

interface HoldMessage {
  key: string;
  until: number;
}

/** One subscription per store, shared by every platform client of the process. */
class RateLimitBoard {
  private readonly holds = new Map<string, number>();
  /** Keys already read from the store (or being read): once per key and process. */
  private readonly primed = new Set<string>();
  private subscription?: Promise<() => Promise<void>>;

  constructor(
    private readonly store: SharedStore,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** Subscribes once; resolves when subscribed (or when that failed, which is logged: each replica then honours only its own 429s). */
  start(): Promise<void> {
    this.subscription ??= this.store.subscribe(CHANNEL, (message) => this.receive(message));
    return this.subscription.then(
      () => {
        // Holds published before the subscription were missed: read each known key again.
        this.primed.clear();
      },
      (error: unknown) => {
        this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not subscribe to shared rate-limit holds; each replica honours only its own 429s');
        this.subscription = undefined;
      },
    );
  }

  private receive(message: string): void {
    let parsed: Partial<HoldMessage>;
    try {
      parsed = JSON.parse(message) as Partial<HoldMessage>;
    } catch {
      return;
    }
    if (typeof parsed.key === 'string' && typeof parsed.until === 'number' && Number.isFinite(parsed.until)) this.remember(parsed.key, parsed.until);
  }

  private remember(key: string, until: number): void {
    if (until <= (this.holds.get(key) ?? 0)) return;
    if (this.holds.size >= MAX_HOLDS && !this.holds.has(key)) this.forgetExpired();
    this.holds.set(key, until);
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [key, until] of this.holds) if (until <= now) this.holds.delete(key);
    // Still full: the oldest entries go.
    for (const key of this.holds.keys()) {
      if (this.holds.size < MAX_HOLDS) break;
      this.holds.delete(key);
      this.primed.delete(key);
    }
  }

  notBefore(key: string): number {
    const until = this.holds.get(key);
    if (until === undefined && !this.primed.has(key)) this.prime(key);
    return until ?? 0;
  }

  private prime(key: string): void {
    if (this.primed.size >= MAX_HOLDS) this.primed.clear();
    this.primed.add(key);
    this.store.get(key).then(
      (value) => {
        const until = Number(value);
        if (value !== undefined && Number.isFinite(until)) this.remember(key, until);
      },
      () => this.primed.delete(key), // tried again on a later request
    );
  }

  async raise(key: string, until: number): Promise<void> {
    this.remember(key, until);
    const ttlMs = until - this.now() + 1000;
    if (ttlMs <= 0) return;
    // A store that refuses writes (full, read-only) may still deliver messages: the hold is published either way.
    let shared = until;
    try {
      shared = await this.store.raiseTo(key, until, ttlMs);
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not store a rate-limit hold; publishing it anyway');
    }
    try {
      await this.store.publish(CHANNEL, JSON.stringify({ key, until: shared } satisfies HoldMessage));
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'could not share a rate-limit hold with the other replicas');
    }
  }
}

const boards = new WeakMap<SharedStore, RateLimitBoard>();

function boardOf(store: SharedStore, logger: Logger): RateLimitBoard {
  let board = boards.get(store);
  if (!board) {
    board = new RateLimitBoard(store, logger, Date.now);
    boards.set(store, board);
  }
  return board;
}

/**
 * Starts listening for other replicas' holds; resolves once subscribed. Opening a store does this
 * (serving/open-store.ts), so a replica serves no request before it can hear of a hold.
 */
export function watchRateLimits(store: SharedStore, logger: Logger = silentLogger): Promise<void> {
  return boardOf(store, logger).start();
}

/** The shared hold of one platform (by base URL) for the credentials a request uses. */
export function sharedRateLimit(store: SharedStore, baseUrl: string, logger: Logger = silentLogger): SharedRateLimit {
  const shared = boardOf(store, logger);
  void shared.start();
  const platform = baseUrl.replace(/\/+$/, '');
  const keyNow = () => rateLimitKey(platform, currentIdentity()?.userKey);
  return {
    notBefore: () => shared.notBefore(keyNow()),
    raise: (until) => shared.raise(keyNow(), until),
  };
}

/**
 * Whose credentials the current request uses, which is whose requests a 429 holds back: the
 * request's user in OAuth mode, else `server` (the server's own credentials). The one rule both
 * the in-process holds (UpstreamClient) and the shared ones key on.
 */
export function rateLimitHolder(): string {
  return currentIdentity()?.userKey ?? SERVER_HOLDER;
}

/** `ratelimit:<base URL>:<userKey or server>`: whose requests a hold stops. */
export function rateLimitKey(baseUrl: string, userKey: string | undefined): string {
  return `${CHANNEL}:${baseUrl}:${userKey ?? SERVER_HOLDER}`;
}
