import { setMaxListeners } from 'node:events';
import { ToolError } from '../core/errors.js';
import { raceAbort } from '../core/upstream.js';
import type { IncidentOpsApi, PageProgress } from './api.js';

type Json = Record<string, unknown>;

/** How long the fetched user directory is reused before it is fetched again. */
export const DIRECTORY_TTL_MS = 5 * 60_000;
/**
 * Parallel page requests while fetching the directory: 16, the upstream client's cap on requests
 * in flight per platform (TOOLSERVERS_MAX_CONCURRENT_REQUESTS), so a lower cap still bounds it.
 * 10,000 users are 100 requests, once per DIRECTORY_TTL_MS: far inside the platform's documented
 * REST limit (960 requests a minute per user), and a 429 is waited out by the client as usual.
 * At 50 ms per request the directory loads in about 0.35-0.5 s (four at a time: 1.3-1.8 s).
 */
export const DIRECTORY_CONCURRENCY = 16;

export interface Directory {
  users: Json[];
  /** The platform's offset cap (10,000) cut the directory short. */
  truncated: boolean;
  total?: number;
  fetchedAt: number;
}

/**
 * All users of the account, fetched 100 per request (the remaining pages 16 at a time once
 * the total is known) and cached for a few minutes; concurrent callers share one fetch, and
 * each of them hears of its progress from the moment it joins.
 */
export class UserDirectory {
  private cached?: Directory;
  private inflight?: Promise<Directory>;
  private listeners = new Set<PageProgress>();

  constructor(
    private readonly api: IncidentOpsApi,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = DIRECTORY_TTL_MS,
  ) {}

  /** The cached directory, or a fresh fetch; `onProgress` hears of the pages fetched. */
  async get(signal: AbortSignal, onProgress?: PageProgress): Promise<Directory> {
    if (this.cached && this.now() - this.cached.fetchedAt < this.ttlMs) return this.cached;
    if (!this.inflight) {
      // The shared fetch must not die with the first caller's cancellation.
      const controller = new AbortController();
      // Every page request in flight listens to it: more than Node's default warning level of 10.
      setMaxListeners(DIRECTORY_CONCURRENCY * 2, controller.signal);
      const listeners = (this.listeners = new Set<PageProgress>());
      const tell: PageProgress = (fetched, total) => {
        for (const listener of listeners) listener(fetched, total);
      };
      this.inflight = this.api
        .listAll('/users', 'users', {}, controller.signal, { concurrency: DIRECTORY_CONCURRENCY, onProgress: tell })
        .then(({ items, truncated, total }) => {
          const directory: Directory = { users: items, truncated, fetchedAt: this.now(), ...(total !== undefined ? { total } : {}) };
          this.cached = directory;
          return directory;
        })
        .finally(() => {
          this.inflight = undefined;
        });
    }
    const listeners = this.listeners;
    if (onProgress) listeners.add(onProgress);
    try {
      return await raceAbort(this.inflight, signal);
    } catch (error) {
      if (signal.aborted) throw new ToolError({ kind: 'cancelled', message: 'The call was cancelled while the user directory was being fetched.' });
      throw error;
    } finally {
      if (onProgress) listeners.delete(onProgress);
    }
  }

  clear(): void {
    this.cached = undefined;
  }
}
