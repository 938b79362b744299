/**
 * Per-user store for sign-ins (OAuth token sets), one entry per platform.
 *
 * The store is a single JSON file in the user's config directory (owner-only: directory 0700,
 * file 0600). An OS keychain is not used: the file IS the store. A keychain backend would be
 * welcome later; it only has to offer the same get/set/delete/list/update contract.
 *
 * Safety properties:
 * - every write is atomic (temp file in the same directory, fsync, rename), so a reader never
 *   sees a half-written file;
 * - every read-modify-write runs under a cross-process lock (proper-lockfile, a sibling
 *   `<file>.lock` directory with stale-lock detection) and, inside one process, in a queue, so
 *   concurrent writers never lose each other's updates;
 * - `update` is the primitive the refresh logic uses: a rotated refresh token is stored together
 *   with its new access token in one write.
 */

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import envPaths from 'env-paths';
import lockfile from 'proper-lockfile';
import { isRecord } from '../json.js';
import { silentLogger, type Logger } from '../logger.js';

export interface StoredCredential {
  /** Platform key, e.g. `incidentops`. */
  platform: string;
  accessToken: string;
  refreshToken?: string;
  /** As the token endpoint sent it (usually `bearer`). */
  tokenType: string;
  scope?: string;
  /** Epoch ms; undefined when the provider did not say. */
  expiresAt?: number;
  /** Epoch ms when this access token was obtained. */
  obtainedAt: number;
  /** The client and endpoints that issued the token, so refresh/revoke go back to the same place. */
  clientId?: string;
  tokenUrl?: string;
  revokeUrl?: string;
  /** The API base URL the sign-in is meant for. */
  baseUrl?: string;
  account?: { id?: string; name?: string; email?: string };
}

/** Setting (environment variable) that overrides where the credentials file lives. */
export const CREDENTIALS_FILE_ENV = 'TOOLSERVERS_CREDENTIALS_FILE';

/** `TOOLSERVERS_CREDENTIALS_FILE`, else `<user config dir>/toolservers/credentials.json`. */
export function defaultCredentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[CREDENTIALS_FILE_ENV]?.trim();
  if (override) return path.resolve(override);
  return path.join(envPaths('toolservers', { suffix: '' }).config, 'credentials.json');
}

export interface FileTokenStoreOptions {
  logger?: Logger;
  /** How long a writer waits for another process's lock before giving up (default 30 s). */
  lockTimeoutMs?: number;
  /** A lock whose holder stopped refreshing it for this long is taken over (default 10 s, min 2 s). */
  staleLockMs?: number;
}

interface StoreFile {
  version: 1;
  credentials: Record<string, StoredCredential>;
}

const FILE_VERSION = 1;
const IS_POSIX = process.platform !== 'win32';

/** In-process queues per file, so writers of one process do not poll each other's lock. */
const processQueues = new Map<string, Promise<void>>();

async function inProcessQueue<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = processQueues.get(key) ?? Promise.resolve();
  const run = previous.then(task);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  processQueues.set(key, tail);
  try {
    return await run;
  } finally {
    if (processQueues.get(key) === tail) processQueues.delete(key);
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A well-formed copy of a stored entry (unknown fields dropped), or undefined when unusable. */
function normaliseCredential(platform: string, value: unknown): StoredCredential | undefined {
  if (!isRecord(value) || typeof value.accessToken !== 'string' || value.accessToken === '') return undefined;
  const out: StoredCredential = {
    platform,
    accessToken: value.accessToken,
    tokenType: optionalString(value.tokenType) ?? 'bearer',
    obtainedAt: optionalNumber(value.obtainedAt) ?? 0,
  };
  const strings = ['refreshToken', 'scope', 'clientId', 'tokenUrl', 'revokeUrl', 'baseUrl'] as const;
  for (const key of strings) {
    const text = optionalString(value[key]);
    if (text !== undefined) out[key] = text;
  }
  const expiresAt = optionalNumber(value.expiresAt);
  if (expiresAt !== undefined) out.expiresAt = expiresAt;
  if (isRecord(value.account)) {
    const account: NonNullable<StoredCredential['account']> = {};
    for (const key of ['id', 'name', 'email'] as const) {
      const text = optionalString(value.account[key]);
      if (text !== undefined) account[key] = text;
    }
    if (Object.keys(account).length > 0) out.account = account;
  }
  return out;
}

function requirePlatform(platform: unknown): string {
  if (typeof platform !== 'string' || platform.trim() === '') throw new Error('A stored credential needs a non-empty platform name.');
  return platform;
}

export class FileTokenStore {
  readonly file: string;
  private readonly dir: string;
  private readonly lockPath: string;
  private readonly logger: Logger;
  private readonly lockTimeoutMs: number;
  private readonly staleLockMs: number;

  constructor(file: string = defaultCredentialsFile(), options: FileTokenStoreOptions = {}) {
    this.file = path.resolve(file);
    this.dir = path.dirname(this.file);
    this.lockPath = `${this.file}.lock`;
    this.logger = options.logger ?? silentLogger;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.staleLockMs = Math.max(2_000, options.staleLockMs ?? 10_000);
  }

  async get(platform: string): Promise<StoredCredential | undefined> {
    const data = await this.read();
    return data.get(platform);
  }

  async list(): Promise<StoredCredential[]> {
    const data = await this.read();
    return [...data.values()].sort((a, b) => a.platform.localeCompare(b.platform));
  }

  async set(credential: StoredCredential): Promise<void> {
    const platform = requirePlatform(credential.platform);
    await this.update(platform, () => credential);
  }

  /** True when an entry was removed. */
  async delete(platform: string): Promise<boolean> {
    let existed = false;
    await this.update(platform, (current) => {
      existed = current !== undefined;
      return undefined;
    });
    return existed;
  }

  /**
   * Read-modify-write of one platform's entry under the lock. `fn` sees the entry as it is on disk
   * right now; returning `undefined` removes the entry, returning `current` itself leaves the file
   * untouched, anything else replaces the entry (its `platform` is forced to `platform`).
   * `fn` may be async (e.g. a token refresh) but must not call writing methods of a store on the same
   * file (that would wait for itself). Resolves with the entry as stored afterwards.
   */
  async update(
    platform: string,
    fn: (current: StoredCredential | undefined) => StoredCredential | undefined | Promise<StoredCredential | undefined>,
  ): Promise<StoredCredential | undefined> {
    requirePlatform(platform);
    return inProcessQueue(this.file, async () => {
      await this.ensureDir();
      const release = await this.acquireLock();
      try {
        const data = await this.read();
        const current = data.get(platform);
        const next = await fn(current === undefined ? undefined : { ...current });
        if (next === undefined) {
          if (current === undefined) return undefined;
          data.delete(platform);
        } else {
          const normalised = normaliseCredential(platform, { ...next, platform });
          if (!normalised) throw new Error('A stored credential needs a non-empty accessToken.');
          if (current !== undefined && JSON.stringify(normalised) === JSON.stringify(current)) return normalised;
          data.set(platform, normalised);
          await this.write(data);
          return normalised;
        }
        await this.write(data);
        return undefined;
      } finally {
        await release();
      }
    });
  }

  private async ensureDir(): Promise<void> {
    const created = await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Only tighten a directory we created: the file may have been pointed into a shared one.
    if (created !== undefined && IS_POSIX) await chmod(this.dir, 0o700);
  }

  private async acquireLock(): Promise<() => Promise<void>> {
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        const release = await lockfile.lock(this.file, {
          realpath: false,
          lockfilePath: this.lockPath,
          stale: this.staleLockMs,
          retries: 0,
          onCompromised: (error) => {
            this.logger.warn({ file: this.file, err: error.message }, 'credentials file lock was compromised');
          },
        });
        return async () => {
          try {
            await release();
          } catch (error) {
            this.logger.warn({ file: this.file, err: error instanceof Error ? error.message : String(error) }, 'could not release the credentials file lock');
          }
        };
      } catch (error) {
        if (errorCode(error) !== 'ELOCKED') throw error;
        if (Date.now() >= deadline) {
          throw new Error(
            `Timed out after ${Math.round(this.lockTimeoutMs / 1000)} s waiting for the lock on ${this.file} (another toolservers process holds it). ` +
              `If no other process is running, remove ${this.lockPath} and try again.`,
          );
        }
        await sleep(10 + Math.floor(Math.random() * 40));
      }
    }
  }

  /** The entries on disk (empty when the file does not exist). Tightens a too-open file mode first. */
  private async read(): Promise<Map<string, StoredCredential>> {
    let handle;
    try {
      handle = await open(this.file, 'r');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return new Map();
      throw new Error(`Cannot read the credentials file ${this.file}: ${errorCode(error) ?? String(error)}`);
    }
    let text: string;
    try {
      if (IS_POSIX) {
        const stat = await handle.stat();
        if ((stat.mode & 0o077) !== 0) {
          this.logger.warn(
            { file: this.file, mode: (stat.mode & 0o777).toString(8) },
            'credentials file was readable by other users; restricting it to the owner (0600)',
          );
          try {
            await handle.chmod(0o600);
          } catch (error) {
            this.logger.warn({ file: this.file, err: errorCode(error) }, 'could not restrict the credentials file mode');
          }
        }
      }
      text = await handle.readFile({ encoding: 'utf8' });
    } finally {
      await handle.close();
    }
    if (text.trim() === '') return new Map();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(
        `The credentials file ${this.file} is not valid JSON. Delete it (every stored sign-in is lost) and sign in again with \`toolservers login <platform>\`.`,
      );
    }
    const out = new Map<string, StoredCredential>();
    const credentials = isRecord(parsed) ? parsed.credentials : undefined;
    if (!isRecord(credentials)) return out;
    for (const [platform, value] of Object.entries(credentials)) {
      const credential = normaliseCredential(platform, value);
      if (credential) out.set(platform, credential);
      else this.logger.warn({ file: this.file, platform }, 'ignoring a malformed entry in the credentials file');
    }
    return out;
  }

  /** Atomic replace: temp file (0600) in the same directory, fsync, rename, fsync the directory. */
  private async write(data: Map<string, StoredCredential>): Promise<void> {
    const body: StoreFile = { version: FILE_VERSION, credentials: Object.fromEntries([...data].sort(([a], [b]) => a.localeCompare(b))) };
    const text = `${JSON.stringify(body, null, 2)}\n`;
    const temp = path.join(this.dir, `.${path.basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      try {
        if (IS_POSIX) await handle.chmod(0o600);
        await handle.writeFile(text, { encoding: 'utf8' });
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    if (IS_POSIX) {
      try {
        const dirHandle = await open(this.dir, 'r');
        try {
          await dirHandle.sync();
        } finally {
          await dirHandle.close();
        }
      } catch {
        // Directory fsync is best effort (not supported everywhere).
      }
    }
  }
}
