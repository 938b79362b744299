import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { attachBudget, CallBudget, WorkScope } from '../core/call-budget.js';
import { ToolError } from '../core/errors.js';
import { requestIdOf, tagRequest, type Logger } from '../core/logger.js';
import { currentIdentity } from '../core/platform/request-identity.js';
import type { SharedStore } from '../core/store/store.js';
import { raceAbort } from '../core/platform/upstream.js';
import { API_PAGE_SIZE, type IncidentOpsApi, type PageProgress } from './api.js';
import { ref } from './shape.js';
import { UserIndex, type MatchCandidate } from './user-matching.js';

type Json = Record<string, unknown>;

/** A directory user as SearchUsers ranks it. */
export type DirectoryCandidate = MatchCandidate & { raw: Json };

export function toCandidate(user: Json): DirectoryCandidate {
  return { id: String(user.id), name: String(user.name ?? user.summary ?? ''), email: String(user.email ?? ''), raw: user };
}

/**
 * SearchUsers' index of a directory this process walked, built page by page while the other
 * pages were still on their way (so the first search does not index 10,000 users after the last
 * page). Directories read from the shared store are indexed by SearchUsers on first use.
 */
export const walkedIndexes = new WeakMap<Directory, UserIndex<DirectoryCandidate>>();

/** How long the fetched user directory is reused before it is fetched again. */
export const DIRECTORY_TTL_MS = 5 * 60_000;
/**
 * Parallel page requests while fetching the directory: 16, the upstream client's cap on requests
 * in flight per platform (TOOLSERVERS_MAX_CONCURRENT_REQUESTS), so a lower cap still bounds it.
 * A caller alone gets all of them; beside other callers, its fair share (core/concurrency.ts).
 * 10,000 users are 100 requests, once per DIRECTORY_TTL_MS: far inside the platform's documented
 * REST limit (960 requests a minute per user), and a 429 is waited out by the client as usual.
 * At 50 ms per request the directory of 10,000 users loads in about 0.6 s against the sandbox (four at a time: 1.3-1.8 s).
 */
export const DIRECTORY_CONCURRENCY = 16;
/** Parallel page requests at the start; one more per full page received, up to DIRECTORY_CONCURRENCY. */
export const DIRECTORY_INITIAL_CONCURRENCY = 8;
/** The platform's offset cap: no page starts at or beyond it. */
const OFFSET_CAP = 10_000;
/**
 * The directory walk's own budget (core/call-budget.ts): every page up to the offset cap and the
 * early pages, within the time another replica waits for the walk's lock.
 */
export const DIRECTORY_BUDGET = { requests: OFFSET_CAP / API_PAGE_SIZE + DIRECTORY_INITIAL_CONCURRENCY, wallMs: 30_000 } as const;

export interface Directory {
  /** Each user with only what SearchUsers matches on and shows (see slimUser). */
  users: Json[];
  /** The directory may lack users: the platform's offset cap (10,000), the walk's budget, or paging that repeated itself cut it short. */
  truncated: boolean;
  total?: number;
  fetchedAt: number;
}

/** Shares the directory through the replicas' store (src/core/store): one walk per account and freshness period. */
export interface DirectorySharing {
  store: SharedStore;
  /** The platform's base URL: part of the cache key (another account, another directory). */
  baseUrl: string;
  logger?: Logger;
  /** How long a replica may hold the right to walk the directory (default DIRECTORY_LOCK_TTL_MS). */
  lockTtlMs?: number;
  /** How long a replica waits for another one's walk before walking itself (default DIRECTORY_WAIT_MS). */
  waitMs?: number;
}

/** A walk takes about a second (100 pages, 16 at a time); a walker that died frees the lock after this. */
export const DIRECTORY_LOCK_TTL_MS = 30_000;
/** The longest wait for another replica's walk: past it a replica walks itself. */
export const DIRECTORY_WAIT_MS = 10_000;
/** Directories kept in process per server (one per signed-in user in OAuth mode); the least recently used goes first. */
export const DIRECTORY_LOCAL_COPIES = 8;
/** A directory larger than this once encoded is not shared (10,000 users encode to about 0.26 MB). */
const MAX_SHARED_CHARS = 16 * 1024 * 1024;

/**
 * All users of the account, fetched 100 per request (the remaining pages 16 at a time once
 * the total is known) and cached for a few minutes; concurrent callers share one fetch, and
 * each of them hears of its progress from the moment it joins.
 *
 * With a store, replicas share it: the directory is cached per base URL and, in OAuth mode, per
 * user (`currentIdentity().userKey`: users may see different directories), with the same
 * freshness (DIRECTORY_TTL_MS from when it was fetched, wherever). Only one replica walks it at
 * a time (a lock with a TTL); the others wait for its result, up to DIRECTORY_WAIT_MS. The last
 * directory of each user stays in process, so a cached search never touches the store.
 */
export class UserDirectory {
  private readonly copies = new Map<string, Directory>();
  private readonly loads = new Map<string, { promise: Promise<Directory>; listeners: Set<PageProgress> }>();
  /** Written into the lock: which process walks (for people looking at the store). */
  private readonly lockOwner = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

  constructor(
    private readonly api: IncidentOpsApi,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = DIRECTORY_TTL_MS,
    private readonly sharing?: DirectorySharing,
  ) {}

  /** The cached directory, or a fresh fetch; `onProgress` hears of the pages fetched. */
  async get(signal: AbortSignal, onProgress?: PageProgress): Promise<Directory> {
    const who = currentIdentity()?.userKey ?? '';
    const copy = this.copies.get(who);
    if (copy && this.fresh(copy)) return copy;
    let load = this.loads.get(who);
    if (!load) {
      // The shared fetch must not die with the first caller's cancellation.
      const controller = new AbortController();
      // Every page request in flight listens to it: more than Node's default warning level of 10.
      setMaxListeners(DIRECTORY_CONCURRENCY * 2, controller.signal);
      // Its platform requests log under the request that started the walk.
      const startedBy = requestIdOf(signal);
      if (startedBy !== undefined) tagRequest(controller.signal, startedBy);
      // A walk serves every caller for DIRECTORY_TTL_MS: it has a budget of its own, sized for the whole directory.
      attachBudget(controller.signal, new CallBudget(DIRECTORY_BUDGET));
      const listeners = new Set<PageProgress>();
      const tell: PageProgress = (fetched, total) => {
        for (const listener of listeners) listener(fetched, total);
      };
      const promise = this.load(who, controller.signal, tell)
        .then((directory) => {
          this.copies.delete(who);
          this.copies.set(who, directory);
          if (this.copies.size > DIRECTORY_LOCAL_COPIES) this.copies.delete(this.copies.keys().next().value!);
          return directory;
        })
        .finally(() => {
          this.loads.delete(who);
        });
      load = { promise, listeners };
      this.loads.set(who, load);
    }
    const { listeners } = load;
    if (onProgress) listeners.add(onProgress);
    try {
      return await raceAbort(load.promise, signal);
    } catch (error) {
      if (signal.aborted) throw new ToolError({ kind: 'cancelled', message: 'The call was cancelled while the user directory was being fetched.' });
      throw error;
    } finally {
      if (onProgress) listeners.delete(onProgress);
    }
  }

  clear(): void {
    this.copies.clear();
  }

  private fresh(directory: Directory): boolean {
    return this.now() - directory.fetchedAt < this.ttlMs;
  }

  private async walk(signal: AbortSignal, tell: PageProgress): Promise<Directory> {
    const index = new UserIndex<DirectoryCandidate>([]);
    let indexed = 0;
    const prepare = (page: Json[]): Json[] => {
      const slim = page.map(slimUser);
      index.add(slim.map(toCandidate));
      indexed += slim.length;
      return slim;
    };
    const { items, truncated, total } = await fetchDirectory(this.api, signal, tell, prepare);
    const directory: Directory = { users: items, truncated, fetchedAt: this.now(), ...(total !== undefined ? { total } : {}) };
    // Pages the walk dropped (after an empty one) are in the index too: then SearchUsers indexes what was kept.
    if (indexed === items.length) walkedIndexes.set(directory, index);
    return directory;
  }

  /** From the store when another replica has it fresh; else walked here, by one replica at a time. */
  private async load(who: string, signal: AbortSignal, tell: PageProgress): Promise<Directory> {
    const sharing = this.sharing;
    if (!sharing) return this.walk(signal, tell);
    const key = directoryKey(sharing.baseUrl, who || undefined);
    const lock = `${key}:lock`;
    const shared = await this.readShared(key);
    if (shared) {
      this.debug('user directory read from the store');
      return shared;
    }
    const waitUntil = Date.now() + (sharing.waitMs ?? DIRECTORY_WAIT_MS);
    for (;;) {
      if (Date.now() >= waitUntil) {
        // Waited long enough for another replica: walk here, and share the result without the lock.
        const directory = await this.walk(signal, tell);
        void this.share(key, undefined, directory);
        return directory;
      }
      let mine: boolean;
      try {
        mine = await sharing.store.setIfAbsent(lock, this.lockOwner, sharing.lockTtlMs ?? DIRECTORY_LOCK_TTL_MS);
      } catch (error) {
        this.warn(error, 'could not coordinate the user directory walk through the store; walking it here');
        return this.walk(signal, tell);
      }
      if (mine) {
        // Another replica may have finished its walk between the first read and taking the lock.
        const written = await this.readShared(key);
        if (written) {
          await sharing.store.delete(lock).catch(() => undefined);
          return written;
        }
        this.debug('walking the user directory for the replicas');
        let directory: Directory;
        try {
          directory = await this.walk(signal, tell);
        } catch (error) {
          sharing.store.delete(lock).catch(() => undefined);
          throw error;
        }
        // Callers get it now; the other replicas once it is written (the lock is held until then).
        void this.share(key, lock, directory);
        return directory;
      }
      this.debug('waiting for another replica walking the user directory');
      await this.waitForUnlock(lock, waitUntil, signal);
      const written = await this.readShared(key);
      if (written) return written;
      // Unlocked without a value (the walker failed): the next round takes the lock; past the wait, walks anyway.
    }
  }

  /** Polls the other replica's lock until it goes, the wait ends or the store fails (then the caller walks). */
  private async waitForUnlock(lock: string, until: number, signal: AbortSignal): Promise<void> {
    for (let pause = 25; Date.now() < until; pause = Math.min(pause * 2, 250)) {
      await sleep(Math.min(pause, Math.max(1, until - Date.now())), undefined, { signal });
      try {
        if ((await this.sharing!.store.get(lock)) === undefined) return;
      } catch (error) {
        this.warn(error, 'could not read the user directory lock from the store');
        return;
      }
    }
  }

  private async readShared(key: string): Promise<Directory | undefined> {
    let text: string | undefined;
    try {
      text = await this.sharing!.store.get(key);
    } catch (error) {
      this.warn(error, 'could not read the shared user directory; fetching it here');
      return undefined;
    }
    if (text === undefined) return undefined;
    try {
      const directory = await decodeDirectory(text);
      return this.fresh(directory) ? directory : undefined;
    } catch (error) {
      this.warn(error, 'the shared user directory could not be decoded; fetching it again');
      return undefined;
    }
  }

  private async share(key: string, lock: string | undefined, directory: Directory): Promise<void> {
    const { store } = this.sharing!;
    try {
      const text = await encodeDirectory(directory);
      const ttlMs = this.ttlMs - (this.now() - directory.fetchedAt);
      if (text.length <= MAX_SHARED_CHARS && ttlMs > 0) {
        await store.set(key, text, ttlMs);
        this.debug(`user directory shared (${text.length} characters)`);
      }
      else this.sharing!.logger?.warn({ chars: text.length }, 'user directory too large to share; each replica fetches its own');
    } catch (error) {
      this.warn(error, 'could not share the user directory with the other replicas');
    } finally {
      if (lock !== undefined) await store.delete(lock).catch(() => undefined);
    }
  }

  private debug(message: string): void {
    this.sharing?.logger?.debug({ lockOwner: this.lockOwner }, message);
  }

  private warn(error: unknown, message: string): void {
    this.sharing?.logger?.warn({ err: error instanceof Error ? error.message : String(error) }, message);
  }
}

/** `cache:incidentops:users:v1:<base URL>:<userKey or server>`: one directory per account and user. */
export function directoryKey(baseUrl: string, userKey: string | undefined): string {
  return `cache:incidentops:users:v1:${baseUrl.replace(/\/+$/, '')}:${userKey ?? 'server'}`;
}

/** The fields of a user SearchUsers matches on (summary only stands in for a missing name) and shows. */
const USER_FIELDS = ['id', 'name', 'summary', 'email', 'role', 'job_title', 'time_zone', 'description', 'html_url'] as const;

/**
 * A user reduced to what SearchUsers reads (shapeUser and the matcher give the same results for
 * both): a platform user record is about 1.7 KB, this about 0.3 KB.
 */
export function slimUser(user: Json): Json {
  const out: Json = {};
  // The summary only stands in for a missing name. Not added then deleted: a deleted property
  // turns every kept user into a slow dictionary object for all later reads.
  const named = user.name !== undefined && user.name !== null;
  for (const field of USER_FIELDS) {
    const value = user[field];
    if (value !== undefined && value !== null && !(named && field === 'summary')) out[field] = value;
  }
  if (Array.isArray(user.teams)) out.teams = user.teams.map((team) => ref(team)).filter((team): team is Json => team !== undefined);
  return out;
}

interface EncodedDirectory {
  v: 1;
  fetchedAt: number;
  truncated: boolean;
  total?: number;
  fields: readonly string[];
  /** Each team reference once; rows point into it. */
  teams: Json[];
  /** Per user: the USER_FIELDS values (null when absent), then team indexes (null when the user had no team list). */
  rows: unknown[][];
}

/**
 * The directory as stored: columns instead of repeated field names, each team once, gzip, base64.
 * 10,000 sandbox users: 16.7 MB as the platform sends them, 1.6 MB as these columns, 0.26 MB stored.
 */
export async function encodeDirectory(directory: Directory): Promise<string> {
  const teamIndex = new Map<string, number>();
  const teams: Json[] = [];
  const rows = directory.users.map((user) => {
    const row: unknown[] = USER_FIELDS.map((field) => user[field] ?? null);
    row.push(
      Array.isArray(user.teams)
        ? (user.teams as Json[]).map((team) => {
            const id = JSON.stringify(team);
            let index = teamIndex.get(id);
            if (index === undefined) {
              index = teams.length;
              teams.push(team);
              teamIndex.set(id, index);
            }
            return index;
          })
        : null,
    );
    return row;
  });
  const encoded: EncodedDirectory = {
    v: 1,
    fetchedAt: directory.fetchedAt,
    truncated: directory.truncated,
    ...(directory.total !== undefined ? { total: directory.total } : {}),
    fields: USER_FIELDS,
    teams,
    rows,
  };
  const { gzip } = await import('node:zlib');
  const packed = await promisify(gzip)(JSON.stringify(encoded));
  return packed.toString('base64');
}

export async function decodeDirectory(text: string): Promise<Directory> {
  const { gunzip } = await import('node:zlib');
  const encoded = JSON.parse((await promisify(gunzip)(Buffer.from(text, 'base64'))).toString('utf8')) as EncodedDirectory;
  if (encoded.v !== 1 || !Array.isArray(encoded.rows) || !Array.isArray(encoded.fields) || !Array.isArray(encoded.teams) || typeof encoded.fetchedAt !== 'number') {
    throw new Error('not a user directory of this version');
  }
  const { fields, teams } = encoded;
  const users = encoded.rows.map((row) => {
    const user: Json = {};
    fields.forEach((field, i) => {
      if (row[i] !== null && row[i] !== undefined) user[field] = row[i];
    });
    const teamRefs = row[fields.length];
    if (Array.isArray(teamRefs)) user.teams = teamRefs.map((index) => teams[index as number]!);
    return user;
  });
  return { users, truncated: encoded.truncated === true, fetchedAt: encoded.fetchedAt, ...(typeof encoded.total === 'number' ? { total: encoded.total } : {}) };
}

/**
 * Every user, 100 per request: the first page asks for the total, the others follow in parallel,
 * 8 at first and one more per full page received, up to DIRECTORY_CONCURRENCY (slow start: a
 * platform whose total is wrong costs a handful of requests, not 16). The first page that comes
 * back empty, or holds only users already seen (the platform ignoring the offset), ends the walk:
 * pages after it are not asked for, nor kept. Stops at the offset cap and at the walk's budget
 * (DIRECTORY_BUDGET); `truncated` then says the directory may lack users.
 */
/** `prepare` turns each page's users into what is kept, as the page arrives. */
async function fetchDirectory(api: IncidentOpsApi, signal: AbortSignal, onProgress: PageProgress, prepare: (users: Json[]) => Json[]): Promise<{ items: Json[]; truncated: boolean; total?: number }> {
  type Page = Awaited<ReturnType<IncidentOpsApi['listPage']>>;
  // Alike short pages: alone, the walk may use every request slot, as before fair share (core/concurrency.ts).
  const page = (offset: number, extra: Record<string, string | number | boolean> = {}, on: AbortSignal = signal): Promise<Page> =>
    api.listPage('/users', 'users', { ...extra, limit: API_PAGE_SIZE, offset }, on, undefined, undefined, { borrowIdleSlots: true });
  // The next pages are asked for with the first, before its total says whether they exist: a
  // directory worth walking in parallel saves a whole round trip, and a small one costs a few
  // requests that come back empty (once per DIRECTORY_TTL_MS). Those not needed are cancelled.
  const early = new WorkScope(signal);
  const budget = early.budget;
  const earlyPages = new Map<number, Promise<Page>>();
  for (let i = 1; i < DIRECTORY_INITIAL_CONCURRENCY; i++) {
    const pending = page(i * API_PAGE_SIZE, {}, early.signal);
    pending.catch(() => undefined); // awaited by the walk when needed
    earlyPages.set(i * API_PAGE_SIZE, pending);
  }
  try {
    const first = await page(0, { total: true });
    if (!first.more || first.items.length === 0 || first.total === undefined) {
      early.abort();
      if (!first.more || first.items.length === 0) {
        onProgress(1, 1);
        return { items: prepare(first.items), truncated: false, ...(first.total !== undefined ? { total: first.total } : {}) };
      }
      // No total: one page after another.
      const all = await api.listAll('/users', 'users', {}, signal, { onProgress });
      return { ...all, items: prepare(all.items) };
    }
    const total = first.total;
    const offsets: number[] = [];
    for (let offset = API_PAGE_SIZE; offset < Math.min(total, OFFSET_CAP); offset += API_PAGE_SIZE) offsets.push(offset);
    const pagesTotal = offsets.length + 1;
    const pages = new Map<number, Json[]>();
    let fetched = 1;
    onProgress(fetched, pagesTotal);
    let emptyAt = Number.POSITIVE_INFINITY;
    // Users seen so far: a page of users all seen before is the platform ignoring the offset (core/tools/pager.ts's rule).
    const seen = new Set(first.items.map((user) => String(user.id)));
    let cutShort = false;
    let limit = DIRECTORY_INITIAL_CONCURRENCY;
    let next = 0;
    let running = 0;
    await new Promise<void>((resolve, reject) => {
      let failed = false;
      const launch = (): void => {
        while (!failed && running < limit && next < offsets.length && offsets[next]! < emptyAt) {
          if (!earlyPages.has(offsets[next]!) && budget?.shortfall()) {
            cutShort = true;
            break;
          }
          const offset = offsets[next++]!;
          running++;
          (earlyPages.get(offset) ?? page(offset)).then(
            (result) => {
              running--;
              // One pass: a page with no user unseen before it is the platform repeating itself.
              let unseen = 0;
              for (const user of result.items) {
                const id = String(user.id);
                if (!seen.has(id)) {
                  seen.add(id);
                  unseen++;
                }
              }
              const again = result.items.length > 0 && unseen === 0;
              if (again) cutShort = true;
              if (result.items.length === 0 || again) emptyAt = Math.min(emptyAt, offset);
              else {
                pages.set(offset, prepare(result.items));
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
    const items = prepare(first.items);
    for (const offset of offsets) {
      if (offset >= emptyAt) break;
      items.push(...(pages.get(offset) ?? []));
    }
    const truncated = cutShort || (emptyAt === Number.POSITIVE_INFINITY && total > OFFSET_CAP);
    return { items: items.slice(0, OFFSET_CAP), truncated, total };
  } finally {
    early.abort();
    early.dispose();
  }
}
