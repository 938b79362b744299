/**
 * What replicas of one deployment share: issued MCP tokens and registered clients, each user's
 * platform tokens (encrypted by the caller before they get here), the SearchUsers directory
 * cache and rate-limit state. Two implementations: memory-store.ts (embedded, one process) and
 * the Redis one. Values are strings; keys are namespaced by the caller (`oauth:…`, `cache:…`).
 * Every operation is atomic on its own, so replicas never need sticky sessions.
 */
export interface SharedStore {
  /** `memory` or `redis`, for /ready and logs. */
  readonly kind: string;
  get(key: string): Promise<string | undefined>;
  /** Sets the value; `ttlMs` makes it expire (none: kept until deleted). */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when the key is absent; true when it was set (locks, one-time records). */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  /** Reads and deletes in one step: of two concurrent takers only one gets the value (codes, one-time tokens). */
  take(key: string): Promise<string | undefined>;
  delete(...keys: string[]): Promise<void>;
  /** Resets the TTL of `key` only while it still holds `value` (a claim's owner keeps it alive); true when it did. */
  extendIfHeld(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Deletes `key` only while it still holds `value` (a claim's owner frees it, never another's); true when it did. */
  deleteIfHeld(key: string, value: string): Promise<boolean>;
  /** Adds a member to the set at `key`; `ttlMs` (re)sets the whole set's expiry. */
  addToSet(key: string, member: string, ttlMs?: number): Promise<void>;
  setMembers(key: string): Promise<string[]>;
  /** Raises the number at `key` to `value` if it is lower or absent (shared "not before" times); returns the result. */
  raiseTo(key: string, value: number, ttlMs?: number): Promise<number>;
  /** Adds one to the counter at `key` (absent: 0) and returns the new count; a new counter expires after `ttlMs` (fixed-window rate limits). */
  increment(key: string, ttlMs: number): Promise<number>;
  /**
   * Sends `message` to every subscriber of `channel` in every replica (this one included). Delivery
   * is best effort: a replica that is not connected at that moment misses it.
   */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `onMessage` for each message published on `channel` from now on; the result unsubscribes. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  /** Whether the store answers now (for /ready); never throws. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The store could not be reached or did not answer in time; the message names it and why (never a password). */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
