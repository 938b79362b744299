/**
 * Each signed-in user's platform tokens, encrypted at rest in the shared store (JWE, dir +
 * A256GCM, key from TOOLSERVERS_STATE_KEY). The user key is in the authenticated header, so a
 * value copied to another user's slot does not decrypt as theirs. Platform tokens live only here
 * and in memory while a request uses them: they never go to an MCP client.
 */
import { randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import type { Logger } from '../logger.js';
import type { SharedStore } from '../store/store.js';

export const STATE_KEY_ENV = 'TOOLSERVERS_STATE_KEY';

/** What the server keeps of one user's sign-in to a platform. */
export interface PlatformTokens {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  /** Epoch ms. */
  expiresAt?: number;
  obtainedAt: number;
  scope?: string;
  account?: { id?: string; name?: string; email?: string };
}

/**
 * The 32-byte state key from the environment. Unset: a random key for this process with a
 * warning (memory store: nothing outlives the process anyway); refused with a shared store,
 * where replicas and restarts must read what others wrote.
 */
export function resolveStateKey(env: NodeJS.ProcessEnv, storeKind: string, logger: Logger): Uint8Array {
  const raw = env[STATE_KEY_ENV]?.trim();
  if (!raw) {
    if (storeKind !== 'memory') {
      throw new Error(`${STATE_KEY_ENV} must be set with --store ${storeKind}: every replica needs the same key to read the platform tokens the others stored. Generate one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"`);
    }
    logger.warn(`${STATE_KEY_ENV} is not set: platform tokens are encrypted with a random key of this process, and every sign-in is lost on restart`);
    return new Uint8Array(randomBytes(32));
  }
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error(`${STATE_KEY_ENV} must be base64url (A-Z a-z 0-9 - _), 32 bytes (43 characters).`);
  const key = Buffer.from(raw, 'base64url');
  if (key.length !== 32) throw new Error(`${STATE_KEY_ENV} must decode to 32 bytes; it decodes to ${key.length}. Generate one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"`);
  return new Uint8Array(key);
}

const PREFIX = 'oauth:platform-tokens:';

export class TokenVault {
  constructor(
    private readonly store: SharedStore,
    private readonly key: Uint8Array,
  ) {}

  /** Sealed for one user key; also used for sign-ins waiting for consent. */
  async seal(userKey: string, tokens: PlatformTokens): Promise<string> {
    return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(tokens))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', sub: userKey }).encrypt(this.key);
  }

  async open(userKey: string, sealed: string): Promise<PlatformTokens | undefined> {
    try {
      const { plaintext, protectedHeader } = await compactDecrypt(sealed, this.key);
      if (protectedHeader.sub !== userKey) return undefined;
      return JSON.parse(new TextDecoder().decode(plaintext)) as PlatformTokens;
    } catch {
      // Another key (a restart with a random key) or a damaged value: as if nobody signed in.
      return undefined;
    }
  }

  async put(userKey: string, tokens: PlatformTokens): Promise<void> {
    await this.store.set(PREFIX + userKey, await this.seal(userKey, tokens));
  }

  async get(userKey: string): Promise<PlatformTokens | undefined> {
    const sealed = await this.store.get(PREFIX + userKey);
    return sealed === undefined ? undefined : this.open(userKey, sealed);
  }

  async delete(userKey: string): Promise<void> {
    await this.store.delete(PREFIX + userKey);
  }
}
