/**
 * What a replica remembers of OAuth records between MCP requests, so that a bearer check costs no
 * store round trip for the token and its grant: records that only ever appear or disappear (an
 * access token, a grant), kept until they expire, until any replica announces that they are gone
 * (revocation, a used-up grant) over the store's pub/sub, and never longer than `recheckMs`, which
 * bounds how late a replica that missed the announcement learns of it.
 */
import type { Logger } from '../../logger.js';
import type { SharedStore } from '../../store/store.js';

/** Where a replica announces records that are gone or changed (their store keys, one per line). */
export const RECORDS_GONE_CHANNEL = 'oauth:records-gone';
/** Records remembered per process; past it the oldest go first. */
const MAX_ENTRIES = 20_000;
/** A replica that missed an announcement reads the record again after this. */
export const RECORD_RECHECK_MS = 30_000;

interface Entry<T> {
  value: T;
  until: number;
}

export class RecordCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private subscribed?: Promise<unknown>;

  constructor(
    private readonly store: SharedStore,
    private readonly logger: Logger,
    private readonly recheckMs = RECORD_RECHECK_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Listens for other replicas' announcements; a failure is logged and leaves `recheckMs` as the bound. */
  listen(): void {
    this.subscribed ??= this.store
      .subscribe(RECORDS_GONE_CHANNEL, (message) => {
        for (const key of message.split('\n')) this.entries.delete(key);
      })
      .catch((error: unknown) => {
        this.subscribed = undefined;
        this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, `could not listen for revoked OAuth records; other replicas learn of a revocation within ${this.recheckMs / 1000} s`);
      });
  }

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Remembers `value` until `expiresAt` (epoch ms) or `recheckMs` from now, whichever comes first. */
  set(key: string, value: T, expiresAt = Number.POSITIVE_INFINITY): void {
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(key);
    this.entries.set(key, { value, until: Math.min(expiresAt, this.now() + this.recheckMs) });
  }

  /** Forgets the records here and tells every replica to (best effort: the store may be down). */
  async gone(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    for (const key of keys) this.entries.delete(key);
    try {
      await this.store.publish(RECORDS_GONE_CHANNEL, keys.join('\n'));
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, `could not announce revoked OAuth records; other replicas learn of it within ${this.recheckMs / 1000} s`);
    }
  }
}
