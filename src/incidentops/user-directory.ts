import { setMaxListeners } from 'node:events';
import { ToolError } from '../core/errors.js';
import { raceAbort } from '../core/upstream.js';
import { API_PAGE_SIZE, type IncidentOpsApi, type PageProgress } from './api.js';

type Json = Record<string, unknown>;

/** How long the fetched user directory is reused before it is fetched again. */
export const DIRECTORY_TTL_MS = 5 * 60_000;
/**
 * Parallel page requests while fetching the directory: 16, the upstream client's cap on requests
 * in flight per platform (TOOLSERVERS_MAX_CONCURRENT_REQUESTS), so a lower cap still bounds it.
 * 10,000 users are 100 requests, once per DIRECTORY_TTL_MS: far inside the platform's documented
 * REST limit (960 requests a minute per user), and a 429 is waited out by the client as usual.
 * At 50 ms per request the directory of 10,000 users loads in about 0.6 s against the sandbox (four at a time: 1.3-1.8 s).
 */
export const DIRECTORY_CONCURRENCY = 16;
/** Parallel page requests at the start; one more per full page received, up to DIRECTORY_CONCURRENCY. */
export const DIRECTORY_INITIAL_CONCURRENCY = 8;
/** The platform's offset cap: no page starts at or beyond it. */
const OFFSET_CAP = 10_000;

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
      this.inflight = fetchDirectory(this.api, controller.signal, tell)
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

/**
 * Every user, 100 per request: the first page asks for the total, the others follow in parallel,
 * 4 at first and one more per full page received, up to DIRECTORY_CONCURRENCY (slow start: a
 * platform whose total is wrong costs a handful of requests, not 16). The first page that comes
 * back empty ends the walk: pages after it are not asked for, nor kept. Stops at the offset cap
 * (`truncated` then says so).
 */
async function fetchDirectory(api: IncidentOpsApi, signal: AbortSignal, onProgress: PageProgress): Promise<{ items: Json[]; truncated: boolean; total?: number }> {
  const page = (offset: number, extra: Record<string, string | number | boolean> = {}) =>
    api.listPage('/users', 'users', { ...extra, limit: API_PAGE_SIZE, offset }, signal);
  const first = await page(0, { total: true });
  if (!first.more || first.items.length === 0 || first.total === undefined) {
    if (!first.more || first.items.length === 0) {
      onProgress(1, 1);
      return { items: first.items, truncated: false, ...(first.total !== undefined ? { total: first.total } : {}) };
    }
    // No total: one page after another.
    return api.listAll('/users', 'users', {}, signal, { onProgress });
  }
  const total = first.total;
  const offsets: number[] = [];
  for (let offset = API_PAGE_SIZE; offset < Math.min(total, OFFSET_CAP); offset += API_PAGE_SIZE) offsets.push(offset);
  const pagesTotal = offsets.length + 1;
  const pages = new Map<number, Json[]>();
  let fetched = 1;
  onProgress(fetched, pagesTotal);
  let emptyAt = Number.POSITIVE_INFINITY;
  let limit = DIRECTORY_INITIAL_CONCURRENCY;
  let next = 0;
  let running = 0;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const launch = (): void => {
      while (!failed && running < limit && next < offsets.length && offsets[next]! < emptyAt) {
        const offset = offsets[next++]!;
        running++;
        page(offset).then(
          (result) => {
            running--;
            if (result.items.length === 0) emptyAt = Math.min(emptyAt, offset);
            else {
              pages.set(offset, result.items);
              if (result.items.length === API_PAGE_SIZE) limit = Math.min(DIRECTORY_CONCURRENCY, limit + 1);
            }
            onProgress(++fetched, pagesTotal);
            launch();
            if (running === 0) resolve();
          },
          (error: unknown) => {
            failed = true;
            reject(error);
          },
        );
      }
      if (running === 0) resolve();
    };
    launch();
  });
  const items = [...first.items];
  for (const offset of offsets) {
    if (offset >= emptyAt) break;
    items.push(...(pages.get(offset) ?? []));
  }
  const truncated = emptyAt === Number.POSITIVE_INFINITY && total > OFFSET_CAP;
  return { items: items.slice(0, OFFSET_CAP), truncated, total };
}
