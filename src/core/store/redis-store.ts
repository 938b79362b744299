/**
 * The shared store on Redis (ioredis), for replicas. Loaded only with `--store redis`: nothing on
 * the stdio or embedded path imports this module or ioredis.
 *
 * Never hangs a tool call: every command has a time limit (`commandTimeoutMs`), and while the
 * connection is down queued commands are failed after one reconnection attempt, so a dead Redis
 * costs a call at most about that long and then a StoreUnavailableError that says what happened.
 * Multi-step operations (take, raiseTo, increment) are Lua scripts: atomic across replicas.
 */
import { Redis, type RedisOptions } from 'ioredis';
import { silentLogger, type Logger } from '../logger.js';
import { StoreUnavailableError, type SharedStore } from './store.js';

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` (TLS). */
  url: string;
  /** Put before every key and channel, so deployments can share one Redis (default `toolservers:`). */
  keyPrefix?: string;
  /** Longest wait for one command (default 2000 ms). */
  commandTimeoutMs?: number;
  /** How long `connect` keeps trying before it gives up (default 5000 ms). */
  startupTimeoutMs?: number;
  logger?: Logger;
}

export const DEFAULT_REDIS_KEY_PREFIX = 'toolservers:';
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
const DEFAULT_STARTUP_TIMEOUT_MS = 5000;

/** Reads and deletes in one step (GETDEL needs Redis 6.2; this runs on any version with Lua). */
const TAKE_SCRIPT = `local v = redis.call('GET', KEYS[1])
if v then redis.call('DEL', KEYS[1]) end
return v`;

/** Raises the number to ARGV[1] when lower or absent; ARGV[2] is the TTL in ms ('' for none). Returns the result as text (Lua numbers would lose decimals). */
const RAISE_SCRIPT = `local raw = redis.call('GET', KEYS[1])
local current = tonumber(raw)
if current and current >= tonumber(ARGV[1]) then return raw end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) else redis.call('SET', KEYS[1], ARGV[1]) end
return ARGV[1]`;

/** Counts one more; only a new counter gets the TTL (ARGV[1], ms), so the window never slides. */
const INCREMENT_SCRIPT = `local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

/** Resets the TTL (ARGV[2] ms) only while the key holds ARGV[1]; 1 when it did. */
const EXTEND_IF_HELD_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/** Deletes the key only while it holds ARGV[1]; 1 when it did. */
const DELETE_IF_HELD_SCRIPT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

interface ScriptedRedis extends Redis {
  takeValue(key: string): Promise<string | null>;
  extendIfHeld(key: string, value: string, ttl: string): Promise<number>;
  deleteIfHeld(key: string, value: string): Promise<number>;
  raiseNumber(key: string, value: string, ttl: string): Promise<string>;
  incrementCounter(key: string, ttl: string): Promise<number>;
}

/** The URL without user name or password, for messages and logs. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the configured Redis URL';
  }
}

/** A clear error for a URL that is not a Redis URL; the URL itself is not echoed (it may hold a password). */
export function checkRedisUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUnavailableError('The Redis URL is not a valid URL. Use redis://host:port (or rediss://host:port for TLS), optionally with user:password@ and /<db number>.');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new StoreUnavailableError(`The Redis URL must start with redis:// or rediss:// (TLS), not ${parsed.protocol}//. Example: redis://127.0.0.1:6379/0.`);
  }
  if (parsed.pathname !== '' && parsed.pathname !== '/' && !/^\/\d{1,2}$/.test(parsed.pathname)) {
    throw new StoreUnavailableError('The path of the Redis URL must be a database number (for example /0), or nothing.');
  }
}

function ttlArgument(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs));
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').slice(0, 200);
}

export class RedisStore implements SharedStore {
  readonly kind = 'redis';
  private readonly client: ScriptedRedis;
  private subscriber?: Redis;
  private readonly listeners = new Map<string, Set<(message: string) => void>>();
  private readonly prefix: string;
  private readonly where: string;
  private readonly logger: Logger;
  /** Last connection problem logged, so that a Redis outage is one warning, not one per retry. */
  private lastProblem?: string;
  private closed = false;

  private constructor(options: RedisStoreOptions) {
    checkRedisUrl(options.url);
    this.prefix = options.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
    this.where = describeRedisUrl(options.url);
    this.logger = options.logger ?? silentLogger;
    const settings: RedisOptions = {
      lazyConnect: true,
      connectTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
      // While disconnected, queued commands fail after one reconnection attempt instead of 20.
      maxRetriesPerRequest: 1,
      retryStrategy: (times) => Math.min(50 * 2 ** times, 2000),
    };
    this.client = new Redis(options.url, settings) as ScriptedRedis;
    this.client.defineCommand('takeValue', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.client.defineCommand('raiseNumber', { numberOfKeys: 1, lua: RAISE_SCRIPT });
    this.client.defineCommand('incrementCounter', { numberOfKeys: 1, lua: INCREMENT_SCRIPT });
    this.client.defineCommand('extendIfHeld', { numberOfKeys: 1, lua: EXTEND_IF_HELD_SCRIPT });
    this.client.defineCommand('deleteIfHeld', { numberOfKeys: 1, lua: DELETE_IF_HELD_SCRIPT });
    this.watch(this.client, 'commands');
  }

  /** Connects, retrying for up to `startupTimeoutMs` (Redis may start after the replicas); a clear error when it cannot. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const store = new RedisStore(options);
    const limit = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        store.client.once('ready', resolve);
        timer = setTimeout(
          () => reject(new StoreUnavailableError(`Could not connect to Redis at ${store.where} within ${limit} ms${store.lastProblem ? ` (${store.lastProblem})` : ''}. Check that Redis runs there and that --redis-url (TOOLSERVERS_REDIS_URL) is right.`)),
          limit,
        );
        store.client.connect().catch(() => undefined); // failures are retried; the timer reports them
      });
    } catch (error) {
      store.client.disconnect();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return store;
  }

  private watch(connection: Redis, role: string): void {
    connection.on('error', (error: unknown) => {
      const problem = reasonOf(error);
      if (problem === this.lastProblem || this.closed) return;
      this.lastProblem = problem;
      this.logger.warn({ store: this.where, connection: role, err: problem }, 'Redis connection problem; reconnecting');
    });
    connection.on('ready', () => {
      if (this.lastProblem !== undefined) this.logger.info({ store: this.where, connection: role }, 'Redis connection back');
      this.lastProblem = undefined;
    });
  }

  private key(key: string): string {
    return this.prefix + key;
  }

  private async run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw new StoreUnavailableError(`The shared store (Redis at ${this.where}) could not ${what}: ${reasonOf(error)}.`);
    }
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.run('read a value', () => this.client.get(this.key(key)))) ?? undefined;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    await this.run('write a value', () =>
      ttlMs === undefined ? this.client.set(this.key(key), value) : this.client.set(this.key(key), value, 'PX', ttlArgument(ttlMs)),
    );
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const answer = await this.run('write a value', () =>
      ttlMs === undefined ? this.client.set(this.key(key), value, 'NX') : this.client.set(this.key(key), value, 'PX', ttlArgument(ttlMs), 'NX'),
    );
    return answer === 'OK';
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.run('take a value', () => this.client.takeValue(this.key(key)))) ?? undefined;
  }

  async delete(...keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.run('delete values', () => this.client.del(...keys.map((key) => this.key(key))));
  }

  async extendIfHeld(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.run('extend a claim', () => this.client.extendIfHeld(this.key(key), value, String(ttlArgument(ttlMs))))) === 1;
  }

  async deleteIfHeld(key: string, value: string): Promise<boolean> {
    return (await this.run('free a claim', () => this.client.deleteIfHeld(this.key(key), value))) === 1;
  }

  async addToSet(key: string, member: string, ttlMs?: number): Promise<void> {
    const full = this.key(key);
    await this.run('add to a set', async () => {
      if (ttlMs === undefined) {
        await this.client.sadd(full, member);
        return;
      }
      const results = await this.client.multi().sadd(full, member).pexpire(full, ttlArgument(ttlMs)).exec();
      const failed = results?.find(([error]) => error);
      if (failed?.[0]) throw failed[0];
    });
  }

  async setMembers(key: string): Promise<string[]> {
    return this.run('read a set', () => this.client.smembers(this.key(key)));
  }

  async raiseTo(key: string, value: number, ttlMs?: number): Promise<number> {
    if (!Number.isFinite(value)) throw new RangeError('raiseTo needs a finite number');
    const result = await this.run('raise a value', () => this.client.raiseNumber(this.key(key), String(value), ttlMs === undefined ? '' : String(ttlArgument(ttlMs))));
    return Number(result);
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    const count = await this.run('count', () => this.client.incrementCounter(this.key(key), String(ttlArgument(ttlMs))));
    return Number(count);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run('publish a message', () => this.client.publish(this.key(channel), message));
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    const full = this.key(channel);
    if (!this.subscriber) {
      // A connection in subscriber mode can do nothing else: a second one, made on first use.
      // It subscribes again itself after a reconnection: ioredis's own resubscription leaves the
      // rejection of a command that times out (Redis stalled just then) unhandled, which stops the process.
      const subscriber = this.client.duplicate({ autoResubscribe: false });
      this.watch(subscriber, 'subscriber');
      let connectedBefore = false;
      subscriber.on('ready', () => {
        const channels = [...this.listeners.keys()];
        if (connectedBefore && channels.length > 0) {
          subscriber.subscribe(...channels).catch((error: unknown) => this.logger.warn({ store: this.where, channels: channels.length, err: reasonOf(error) }, 'Redis subscriptions not renewed; retried at the next reconnection'));
        }
        connectedBefore = true;
      });
      subscriber.on('message', (from: string, message: string) => {
        for (const listener of this.listeners.get(from) ?? []) {
          try {
            listener(message);
          } catch (error) {
            this.logger.warn({ channel: from.slice(this.prefix.length), err: reasonOf(error) }, 'a store message listener failed');
          }
        }
      });
      this.subscriber = subscriber;
    }
    const subscriber = this.subscriber;
    let listeners = this.listeners.get(full);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(full, listeners);
      await this.run('subscribe to a channel', () => subscriber.subscribe(full));
    }
    listeners.add(onMessage);
    return async () => {
      const current = this.listeners.get(full);
      if (!current?.delete(onMessage) || current.size > 0) return;
      this.listeners.delete(full);
      if (!this.closed) await this.run('unsubscribe', () => subscriber.unsubscribe(full));
    };
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const quit = async (connection: Redis) => {
      try {
        await connection.quit();
      } catch {
        connection.disconnect();
      }
    };
    await Promise.all([quit(this.client), ...(this.subscriber ? [quit(this.subscriber)] : [])]);
  }
}
