/**
 * Values encrypted at rest (per-user platform tokens): JWE compact serialization, `dir` +
 * `A256GCM`, with the 32-byte key from TOOLSERVERS_STATE_KEY (base64url). Every replica needs
 * the same key. The JWE header carries `kid` (a fingerprint of the key, not the key) so that a
 * value sealed with another key is reported as such, and an optional `ctx` naming what the
 * value is for (e.g. the store key), checked on opening so a value cannot be moved to another key.
 *
 * API:
 *   const key = stateKeyFromEnv(process.env);          // undefined when unset; StateKeyError when malformed
 *   const text = await encryptValue(key, 'secret', 'oauth:platform-token:incidentops:P123');
 *   await decryptValue(key, text, 'oauth:platform-token:incidentops:P123');   // 'secret'
 *   const tokens = sealed(store, key);                  // get/set/setIfAbsent/take/delete that seal values
 * Load this module with a dynamic import: it pulls in jose.
 */
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import { compactDecrypt, CompactEncrypt } from 'jose';
import type { SharedStore } from './store.js';

export const STATE_KEY_ENV = 'TOOLSERVERS_STATE_KEY';

export class StateKeyError extends Error {
  override readonly name = 'StateKeyError';
}

/** A sealed value that cannot be opened: another key, another context, or damaged. Never carries the value. */
export class SealedValueError extends Error {
  override readonly name = 'SealedValueError';
}

export interface StateKey {
  readonly bytes: Uint8Array;
  /** Short fingerprint (base64url of SHA-256, 12 characters): safe to log, names the key in errors. */
  readonly id: string;
}

const KEY_BYTES = 32;
const HOW_TO_MAKE =
  `Generate one with \`node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"\` and give every replica the same value.`;

/** A key from its base64url text (43 characters, 32 bytes). */
export function stateKeyFrom(text: string, source = STATE_KEY_ENV): StateKey {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(trimmed)) {
    throw new StateKeyError(`${source} must be base64url text (A-Z, a-z, 0-9, - and _) encoding ${KEY_BYTES} bytes. ${HOW_TO_MAKE}`);
  }
  const bytes = Buffer.from(trimmed.replace(/=+$/, ''), 'base64url');
  if (bytes.length !== KEY_BYTES) {
    throw new StateKeyError(`${source} must encode exactly ${KEY_BYTES} bytes (43 base64url characters); it encodes ${bytes.length}. ${HOW_TO_MAKE}`);
  }
  return { bytes: new Uint8Array(bytes), id: fingerprint(bytes) };
}

/** TOOLSERVERS_STATE_KEY as a key; undefined when unset or empty; a StateKeyError saying what is wrong when malformed. */
export function stateKeyFromEnv(env: NodeJS.ProcessEnv = process.env): StateKey | undefined {
  const text = env[STATE_KEY_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  return stateKeyFrom(text);
}

/** A fresh random key as TOOLSERVERS_STATE_KEY takes it. */
export function generateStateKey(): string {
  return randomBytes(KEY_BYTES).toString('base64url');
}

function fingerprint(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 12);
}

/**
 * The key imported into WebCrypto once per StateKey: given raw bytes, jose imports them on every
 * call, which was about half the cost of opening a value (OAuth mode opens three per request).
 */
const imported = new WeakMap<StateKey, Promise<webcrypto.CryptoKey>>();

function cryptoKeyOf(key: StateKey): Promise<webcrypto.CryptoKey> {
  let found = imported.get(key);
  if (!found) {
    found = webcrypto.subtle.importKey('raw', key.bytes, 'AES-GCM', false, ['encrypt', 'decrypt']);
    imported.set(key, found);
  }
  return found;
}

/** Encrypts `plaintext`; `context`, when given, must be given again to decrypt. */
export async function encryptValue(key: StateKey, plaintext: string, context?: string): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(plaintext))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: key.id, ...(context !== undefined ? { ctx: context } : {}) })
    .encrypt(await cryptoKeyOf(key));
}

/** Decrypts what encryptValue made with the same key and context; a SealedValueError saying why not otherwise. */
export async function decryptValue(key: StateKey, text: string, context?: string): Promise<string> {
  const kid = headerOf(text)?.kid;
  if (typeof kid === 'string' && kid !== key.id) {
    throw new SealedValueError(
      `A stored value was encrypted with another ${STATE_KEY_ENV} (key ${kid}; this process has key ${key.id}). Give every replica the same key; values sealed with a lost key cannot be recovered (users sign in again).`,
    );
  }
  let result: Awaited<ReturnType<typeof compactDecrypt>>;
  try {
    result = await compactDecrypt(text, await cryptoKeyOf(key), { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] });
  } catch {
    throw new SealedValueError(`A stored value could not be decrypted with ${STATE_KEY_ENV} (key ${key.id}): it is damaged or was sealed with another key.`);
  }
  const sealedFor = result.protectedHeader.ctx;
  if (sealedFor !== context) {
    throw new SealedValueError('A stored value was sealed for another purpose or key than the one it was read from; it was not used.');
  }
  return new TextDecoder().decode(result.plaintext);
}

function headerOf(text: string): Record<string, unknown> | undefined {
  const [header] = text.split('.', 1);
  try {
    const parsed = JSON.parse(Buffer.from(header ?? '', 'base64url').toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The store's value operations with values sealed at rest; each value is bound to its key (the `ctx` of its JWE). */
export interface SealedStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  take(key: string): Promise<string | undefined>;
  delete(...keys: string[]): Promise<void>;
}

export function sealed(store: SharedStore, key: StateKey): SealedStore {
  const open = async (name: string, text: string | undefined) => (text === undefined ? undefined : decryptValue(key, text, name));
  return {
    get: async (name) => open(name, await store.get(name)),
    set: async (name, value, ttlMs) => store.set(name, await encryptValue(key, value, name), ttlMs),
    setIfAbsent: async (name, value, ttlMs) => store.setIfAbsent(name, await encryptValue(key, value, name), ttlMs),
    take: async (name) => open(name, await store.take(name)),
    delete: (...names) => store.delete(...names),
  };
}
