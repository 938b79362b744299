/**
 * Each signed-in user's platform tokens, encrypted at rest in the shared store (JWE, dir +
 * A256GCM, key from TOOLSERVERS_STATE_KEY). The user key is in the authenticated header, so a
 * value copied to another user's slot does not decrypt as theirs. Platform tokens live only here
 * and in memory while a request uses them: they never go to an MCP client.
 */
import type { Logger } from '../../logger.js';
import type { SharedStore } from '../../store/store.js';
import { decryptValue, encryptValue, generateStateKey, STATE_KEY_ENV, stateKeyFrom, stateKeyFromEnv, type StateKey } from '../../store/sealed.js';
import type { PlatformTokens } from '../../platform/request-identity.js';

export type { PlatformTokens } from '../../platform/request-identity.js';

/**
 * The state key from the environment. Unset: a random key for this process with a warning
 * (memory store: nothing outlives the process anyway); refused with a shared store, where
 * replicas and restarts must read what others wrote.
 */
export function resolveStateKey(env: NodeJS.ProcessEnv, storeKind: string, logger: Logger): StateKey {
  const key = stateKeyFromEnv(env);
  if (key) return key;
  if (storeKind !== 'memory') {
    throw new Error(`${STATE_KEY_ENV} must be set with --store ${storeKind}: every replica needs the same key to read the platform tokens the others stored. Generate one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"`);
  }
  logger.warn(`${STATE_KEY_ENV} is not set: platform tokens are encrypted with a random key of this process, and every sign-in is lost on restart`);
  return stateKeyFrom(generateStateKey());
}

const PREFIX = 'oauth:platform-tokens:';
const RENEWAL_LOCK_PREFIX = 'oauth:platform-renewal:';

/** Opened sign-ins remembered per process (by their sealed text); past it the oldest go first. */
const MAX_OPENED = 10_000;

export class TokenVault {
  /** The last sealed text read per user and what it opened to: decrypted again only when it changes. */
  private readonly opened = new Map<string, { sealed: string; tokens: PlatformTokens }>();

  constructor(
    private readonly store: SharedStore,
    private readonly key: StateKey,
  ) {}

  /** Sealed for one user key (the JWE's context), so a value copied to another user's slot does not open as theirs. */
  async seal(userKey: string, tokens: PlatformTokens): Promise<string> {
    return encryptValue(this.key, JSON.stringify(tokens), PREFIX + userKey);
  }

  async open(userKey: string, sealed: string): Promise<PlatformTokens | undefined> {
    try {
      return JSON.parse(await decryptValue(this.key, sealed, PREFIX + userKey)) as PlatformTokens;
    } catch {
      // Another key (a restart with a random key), another user's value or a damaged one: as if nobody signed in.
      return undefined;
    }
  }

  async put(userKey: string, tokens: PlatformTokens): Promise<void> {
    await this.store.set(PREFIX + userKey, await this.seal(userKey, tokens));
  }

  /** One store read; the value is opened again only when it changed (a renewal, a new sign-in). */
  async get(userKey: string): Promise<PlatformTokens | undefined> {
    const sealed = await this.store.get(PREFIX + userKey);
    if (sealed === undefined) {
      this.opened.delete(userKey);
      return undefined;
    }
    const known = this.opened.get(userKey);
    if (known?.sealed === sealed) return known.tokens;
    const tokens = await this.open(userKey, sealed);
    if (tokens) {
      if (this.opened.size >= MAX_OPENED && !this.opened.has(userKey)) this.opened.delete(this.opened.keys().next().value as string);
      this.opened.set(userKey, { sealed, tokens });
    }
    return tokens;
  }

  async delete(userKey: string): Promise<void> {
    await this.store.delete(PREFIX + userKey);
  }

  /**
   * Takes the one renewal of this user's platform token across replicas (rotating refresh tokens
   * allow one use); true when taken. It frees itself after `ttlMs` unless its holder extends it.
   */
  async claimRenewal(userKey: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.store.setIfAbsent(RENEWAL_LOCK_PREFIX + userKey, owner, ttlMs);
  }

  /** Keeps `owner`'s claim alive for another `ttlMs`; false when it lapsed (another replica may hold it now). */
  async extendRenewal(userKey: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.store.extendIfHeld(RENEWAL_LOCK_PREFIX + userKey, owner, ttlMs);
  }

  /** Frees the renewal if `owner` still holds it, in one step (never another replica's claim). */
  async releaseRenewal(userKey: string, owner: string): Promise<void> {
    await this.store.deleteIfHeld(RENEWAL_LOCK_PREFIX + userKey, owner);
  }
}
