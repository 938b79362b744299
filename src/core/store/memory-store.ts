import { EventEmitter } from 'node:events';
import type { SharedStore } from './store.js';

interface Entry {
  value: string | Set<string>;
  /** Epoch ms; Infinity when it never expires. */
  expiresAt: number;
}

/** The embedded store: one process, nothing to set up. Expired entries are dropped when touched and by a sweep. */
export class MemoryStore implements SharedStore {
  readonly kind = 'memory';
  private readonly entries = new Map<string, Entry>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly channels = new EventEmitter();

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    // Any number of subscribers per channel is normal here (one per server and feature).
    this.channels.setMaxListeners(0);
  }

  /** How many live keys the store holds (for bounds checks and tests). */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private expiry(ttlMs: number | undefined): number {
    return ttlMs === undefined ? Number.POSITIVE_INFINITY : this.now() + ttlMs;
  }

  async get(key: string): Promise<string | undefined> {
    const value = this.live(key)?.value;
    return typeof value === 'string' ? value : undefined;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.entries.set(key, { value, expiresAt: this.expiry(ttlMs) });
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    if (this.live(key)) return false;
    this.entries.set(key, { value, expiresAt: this.expiry(ttlMs) });
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    const value = this.live(key)?.value;
    this.entries.delete(key);
    return typeof value === 'string' ? value : undefined;
  }

  async delete(...keys: string[]): Promise<void> {
    for (const key of keys) this.entries.delete(key);
  }

  async extendIfHeld(key: string, value: string, ttlMs: number): Promise<boolean> {
    const entry = this.live(key);
    if (entry?.value !== value) return false;
    entry.expiresAt = this.expiry(ttlMs);
    return true;
  }

  async deleteIfHeld(key: string, value: string): Promise<boolean> {
    if (this.live(key)?.value !== value) return false;
    this.entries.delete(key);
    return true;
  }

  async addToSet(key: string, member: string, ttlMs?: number): Promise<void> {
    const entry = this.live(key);
    const set = entry && entry.value instanceof Set ? entry.value : new Set<string>();
    set.add(member);
    this.entries.set(key, { value: set, expiresAt: ttlMs === undefined ? entry?.expiresAt ?? Number.POSITIVE_INFINITY : this.expiry(ttlMs) });
  }

  async setMembers(key: string): Promise<string[]> {
    const value = this.live(key)?.value;
    return value instanceof Set ? [...value] : [];
  }

  async raiseTo(key: string, value: number, ttlMs?: number): Promise<number> {
    if (!Number.isFinite(value)) throw new RangeError('raiseTo needs a finite number');
    // No await between reading and writing: concurrent raises cannot interleave.
    const stored = this.live(key)?.value;
    const current = typeof stored === 'string' && stored.trim() !== '' ? Number(stored) : Number.NaN;
    if (Number.isFinite(current) && current >= value) return current;
    this.entries.set(key, { value: String(value), expiresAt: this.expiry(ttlMs) });
    return value;
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const entry = this.live(key);
    const current = typeof entry?.value === 'string' ? Number(entry.value) || 0 : 0;
    // A running counter keeps the expiry it got when it was created.
    this.entries.set(key, { value: String(current + 1), expiresAt: entry ? entry.expiresAt : this.expiry(ttlMs) });
    return current + 1;
  }

  async publish(channel: string, message: string): Promise<void> {
    // Asynchronous like a real broker: a subscriber never runs inside the publisher's call.
    queueMicrotask(() => this.channels.emit(channel, message));
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const listener = (message: string) => onMessage(message);
    this.channels.on(channel, listener);
    return async () => {
      this.channels.off(channel, listener);
    };
  }

  async ping(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
    this.channels.removeAllListeners();
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
