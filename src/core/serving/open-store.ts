/**
 * Which shared store a process uses, from `--store` / `TOOLSERVERS_STORE` and `--redis-url` /
 * `TOOLSERVERS_REDIS_URL`, and opening it. The Redis code (and ioredis) is imported only when
 * chosen; this module itself imports nothing heavy.
 */
import type { Logger } from '../logger.js';
import { StoreUnavailableError, type SharedStore } from '../store/store.js';

export const STORE_ENV = {
  store: 'TOOLSERVERS_STORE',
  redisUrl: 'TOOLSERVERS_REDIS_URL',
  redisKeyPrefix: 'TOOLSERVERS_REDIS_KEY_PREFIX',
} as const;

export const STORE_KINDS = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export interface StoreChoice {
  kind: StoreKind;
  redisUrl?: string;
  keyPrefix?: string;
}

/** The choice from flags, else environment; a clear error for an unknown kind or a missing or useless URL. */
export function storeChoice(flags: { store?: string; redisUrl?: string }, env: NodeJS.ProcessEnv = process.env): StoreChoice {
  const kind = (flags.store?.trim() || env[STORE_ENV.store]?.trim() || 'memory').toLowerCase();
  const redisUrl = flags.redisUrl?.trim() || env[STORE_ENV.redisUrl]?.trim() || undefined;
  if (!(STORE_KINDS as readonly string[]).includes(kind)) {
    throw new StoreUnavailableError(`Unknown store "${kind.slice(0, 40)}" (--store / ${STORE_ENV.store}). Use memory (one process, the default) or redis (shared by replicas; needs --redis-url).`);
  }
  if (kind === 'memory') {
    if (redisUrl && flags.redisUrl) throw new StoreUnavailableError(`--redis-url is only used with --store redis (or ${STORE_ENV.store}=redis).`);
    return { kind: 'memory' };
  }
  if (!redisUrl) throw new StoreUnavailableError(`--store redis needs --redis-url (or ${STORE_ENV.redisUrl}), for example redis://127.0.0.1:6379/0.`);
  const keyPrefix = env[STORE_ENV.redisKeyPrefix];
  return { kind: 'redis', redisUrl, ...(keyPrefix !== undefined ? { keyPrefix } : {}) };
}

/** Opens the chosen store: the embedded one at once, Redis once connected (or a StoreUnavailableError saying why not). */
export async function openStore(choice: StoreChoice, logger: Logger): Promise<SharedStore> {
  if (choice.kind === 'memory') {
    const { MemoryStore } = await import('../store/memory-store.js');
    return new MemoryStore();
  }
  const [{ RedisStore }, { watchRateLimits }] = await Promise.all([import('../store/redis-store.js'), import('../platform/rate-limits.js')]);
  const store = await RedisStore.connect({ url: choice.redisUrl!, logger, ...(choice.keyPrefix !== undefined ? { keyPrefix: choice.keyPrefix } : {}) });
  // Subscribed before the first request, so that no hold published by another replica is missed.
  await watchRateLimits(store, logger);
  logger.info({ store: 'redis' }, 'connected to the shared store');
  return store;
}
