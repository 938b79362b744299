/**
 * Per-user store for sign-ins (OAuth token sets), one entry per platform.
 *
 * The store is a single JSON file in the user's config directory (owner-only: directory 0700,
 * file 0600). An OS keychain is not used: the file IS the store. It holds, per sign-in, what
 * renewal and revocation need: the access and refresh tokens, the client ID and (when the app has
 * one) the client secret, and the token and revoke URLs.
 *
 * Safety properties:
 * - every write is atomic (temp file in the same directory, fsync, rename), so a reader never
 *   sees a half-written file;
 * - every read-modify-write runs under a cross-process lock (proper-lockfile, a sibling
 *   `<file>.lock` directory with stale-lock detection) and, inside one process, in a queue, so
 *   concurrent writers never lose each other's updates;
 * - `update` is the primitive the refresh logic uses: a rotated refresh token is stored together
 *   with its new access token in one write;
 * - nothing it does not understand is ever dropped: a file that is not valid JSON, has another
 *   `version`, or holds a malformed entry is never rewritten (the write fails with a
 *   `CredentialStoreError` that says which file, what is wrong and how to repair it, before any
 *   token is spent); unknown fields of well-formed entries and unknown top-level keys are kept;
 * - the file is never followed through a symbolic link (opened with O_NOFOLLOW, checked with
 *   lstat before the rename), so neither its mode nor a link's target is ever changed.
 */

import { randomBytes } from 'node:crypto';
import { constants, lstatSync } from 'node:fs';
import { chmod, lstat, mkdir, open, readlink, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import envPaths from 'env-paths';
import { isRecord } from '../json.js';
import { silentLogger, type Logger } from '../logger.js';
import { printable } from './printable.js';

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
  /** The app's client secret, when it has one: as sensitive as the refresh token beside it, in the same 0600 file. */
  clientSecret?: string;
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
  /** Platforms `toolservers logout <platform>` knows, for repair advice (default: any). */
  platforms?: readonly string[];
}

/** What is wrong with the credentials file (or with the store's access to it). */
export type CredentialStoreProblem =
  | 'symlink' // the file is a symbolic link: refused, never followed
  | 'not_a_file' // a directory, FIFO, device ...
  | 'unreadable' // permissions or another I/O error
  | 'not_json' // not valid JSON
  | 'not_a_store' // JSON, but not an object with `version` and `credentials`
  | 'unknown_version' // a `version` this code does not understand (or none)
  | 'malformed_entry' // one platform's entry does not have the expected shape
  | 'locked' // another process holds the lock for too long
  | 'write_failed'; // the new file could not be written

/**
 * A problem with the credentials file. `reason` says what is wrong (naming the file, and the
 * platform for a malformed entry), `repair` what to do; the message is both. Never contains a
 * token or secret.
 */
export class CredentialStoreError extends Error {
  readonly problem: CredentialStoreProblem;
  readonly file: string;
  /** The entry concerned, for `malformed_entry`. */
  readonly platform?: string;
  /** What is wrong with that entry (field names only), for `malformed_entry`. */
  readonly detail?: string;
  readonly reason: string;
  readonly repair: string;

  constructor(details: { problem: CredentialStoreProblem; file: string; platform?: string; detail?: string; reason: string; repair: string }) {
    super(`${details.reason} ${details.repair}`);
    this.name = 'CredentialStoreError';
    this.problem = details.problem;
    this.file = details.file;
    if (details.platform !== undefined) this.platform = details.platform;
    if (details.detail !== undefined) this.detail = details.detail;
    this.reason = details.reason;
    this.repair = details.repair;
  }

  /** The same error with its advice naming this platform's login command instead of `toolservers login <platform>`. */
  forPlatform(platform: string): CredentialStoreError {
    const repair = this.repair.split('toolservers login <platform>').join(`toolservers login ${printable(platform)}`);
    if (repair === this.repair) return this;
    return new CredentialStoreError({
      problem: this.problem,
      file: this.file,
      ...(this.platform !== undefined ? { platform: this.platform } : {}),
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      reason: this.reason,
      repair,
    });
  }
}

/** A malformed entry as `inspect()` reports it. */
export interface MalformedEntry {
  platform: string;
  /** What is wrong with it (field names only, never values). */
  problem: string;
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

const STRING_FIELDS = ['refreshToken', 'tokenType', 'scope', 'clientId', 'clientSecret', 'tokenUrl', 'revokeUrl', 'baseUrl'] as const;
const NUMBER_FIELDS = ['expiresAt', 'obtainedAt'] as const;
const KNOWN_FIELDS: ReadonlySet<string> = new Set(['platform', 'accessToken', 'account', ...STRING_FIELDS, ...NUMBER_FIELDS]);
const ACCOUNT_FIELDS = ['id', 'name', 'email'] as const;

/**
 * A stored entry checked field by field: the credential, or what is wrong with it. Absent, null
 * and empty-string optional fields count as absent; a known field of the wrong type makes the
 * entry malformed (it is not silently dropped). Unknown fields are ignored here and kept on disk.
 */
function parseEntry(platform: string, value: unknown): { credential: StoredCredential } | { problem: string } {
  if (!isRecord(value)) return { problem: 'it is not a JSON object' };
  const problems: string[] = [];
  if (value.platform !== undefined && value.platform !== null && value.platform !== platform) problems.push('its "platform" field does not match its key');
  if (value.accessToken === undefined || value.accessToken === null || value.accessToken === '') problems.push('it has no accessToken');
  else if (typeof value.accessToken !== 'string') problems.push('accessToken is not a string');
  const out: StoredCredential = { platform, accessToken: typeof value.accessToken === 'string' ? value.accessToken : '', tokenType: 'bearer', obtainedAt: 0 };
  for (const key of STRING_FIELDS) {
    const field = value[key];
    if (field === undefined || field === null || field === '') continue;
    if (typeof field !== 'string') problems.push(`${key} is not a string`);
    else out[key] = field;
  }
  for (const key of NUMBER_FIELDS) {
    const field = value[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'number' || !Number.isFinite(field)) problems.push(`${key} is not a number`);
    else out[key] = field;
  }
  const account = value.account;
  if (account !== undefined && account !== null) {
    if (!isRecord(account)) problems.push('account is not an object');
    else {
      const copy: Record<string, unknown> = { ...account };
      for (const key of ACCOUNT_FIELDS) {
        const field = account[key];
        if (field === undefined || field === null || field === '') delete copy[key];
        else if (typeof field !== 'string') problems.push(`account.${key} is not a string`);
      }
      if (Object.keys(copy).length > 0) out.account = copy as StoredCredential['account'];
    }
  }
  if (problems.length > 0) return { problem: problems.join('; ') };
  return { credential: out };
}

/** The entry as written: known fields in a stable order, after any unknown fields the old entry had. */
function serialiseEntry(credential: StoredCredential, previousRaw: unknown): Record<string, unknown> {
  const unknown: Record<string, unknown> = {};
  if (isRecord(previousRaw)) for (const [key, value] of Object.entries(previousRaw)) if (!KNOWN_FIELDS.has(key)) unknown[key] = value;
  const out: Record<string, unknown> = { platform: credential.platform, accessToken: credential.accessToken };
  for (const key of ['refreshToken', 'tokenType', 'scope', 'expiresAt', 'obtainedAt', 'clientId', 'clientSecret', 'tokenUrl', 'revokeUrl', 'baseUrl', 'account'] as const) {
    if (credential[key] !== undefined) out[key] = credential[key];
  }
  return { ...unknown, ...out };
}

function requirePlatform(platform: unknown): string {
  if (typeof platform !== 'string' || platform.trim() === '') throw new Error('A stored credential needs a non-empty platform name.');
  return platform;
}

/** The file as read: every entry as parsed, the well-formed ones, the malformed ones, other top-level keys. */
interface Snapshot {
  extra: Record<string, unknown>;
  raw: Map<string, unknown>;
  good: Map<string, StoredCredential>;
  malformed: Map<string, string>;
}

function emptySnapshot(): Snapshot {
  return { extra: {}, raw: new Map(), good: new Map(), malformed: new Map() };
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export class FileTokenStore {
  readonly file: string;
  private readonly dir: string;
  private readonly lockPath: string;
  private readonly logger: Logger;
  private readonly lockTimeoutMs: number;
  private readonly staleLockMs: number;
  private readonly platforms: readonly string[] | undefined;
  private readonly reported = new Set<string>();

  constructor(file: string = defaultCredentialsFile(), options: FileTokenStoreOptions = {}) {
    this.file = path.resolve(file);
    this.dir = path.dirname(this.file);
    this.lockPath = `${this.file}.lock`;
    this.logger = options.logger ?? silentLogger;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
    this.staleLockMs = Math.max(2_000, options.staleLockMs ?? 10_000);
    this.platforms = options.platforms;
  }

  /**
   * A fingerprint of the file as it is now (inode, size, modification and change times), without
   * reading it: it changes whenever a write replaces the file (this store renames a new one into
   * place) or changes it in place. 'absent' when there is no file; undefined when it cannot be told
   * (read the file then). Synchronous: one lstat, far cheaper than a read.
   */
  stamp(): string | undefined {
    try {
      const info = lstatSync(this.file, { throwIfNoEntry: false });
      if (!info) return 'absent';
      // Times in ms with their fractions (µs resolution): enough, and cheaper than bigint stats.
      return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.mode}`;
    } catch {
      return undefined;
    }
  }

  /** The platform's sign-in, or undefined when there is none. Throws a CredentialStoreError when the file or this entry cannot be used. */
  async get(platform: string): Promise<StoredCredential | undefined> {
    const data = await this.read();
    const problem = data.malformed.get(platform);
    if (problem !== undefined) throw this.malformedError(platform, problem);
    return data.good.get(platform);
  }

  /** The well-formed entries (see `inspect` for the malformed ones). */
  async list(): Promise<StoredCredential[]> {
    return (await this.inspect()).credentials;
  }

  /** Every entry: the well-formed ones and what is wrong with the others. Throws a CredentialStoreError when the file itself cannot be used. */
  async inspect(): Promise<{ credentials: StoredCredential[]; malformed: MalformedEntry[] }> {
    const data = await this.read();
    return {
      credentials: [...data.good.values()].sort((a, b) => a.platform.localeCompare(b.platform)),
      malformed: [...data.malformed].map(([platform, problem]) => ({ platform, problem })).sort((a, b) => a.platform.localeCompare(b.platform)),
    };
  }

  /**
   * Throws the CredentialStoreError a write of `platform`'s entry would fail with (unusable file,
   * a malformed entry), so that a long operation (a browser sign-in) can fail before it starts.
   */
  async checkWritable(platform: string): Promise<void> {
    const data = await this.read();
    this.assertWritable(data, platform, false);
  }

  async set(credential: StoredCredential): Promise<void> {
    const platform = requirePlatform(credential.platform);
    await this.update(platform, () => credential);
  }

  /**
   * True when an entry was removed. With `removeMalformed`, a malformed entry of this platform is
   * removed too (the repair `toolservers logout <platform>` offers); other entries are kept as they are.
   */
  async delete(platform: string, options: { removeMalformed?: boolean } = {}): Promise<boolean> {
    let existed = false;
    const { removedMalformed } = await this.mutate(
      platform,
      (current) => {
        existed = current !== undefined;
        return undefined;
      },
      options.removeMalformed === true,
    );
    return existed || removedMalformed;
  }

  /**
   * Read-modify-write of one platform's entry under the lock. `fn` sees the entry as it is on disk
   * right now; returning `undefined` removes the entry, returning `current` itself leaves the file
   * untouched, anything else replaces the entry (its `platform` is forced to `platform`).
   * `fn` may be async (e.g. a token refresh or a revocation) but must not call writing methods of a
   * store on the same file (that would wait for itself). Resolves with the entry as stored afterwards.
   *
   * Before `fn` runs, the file is checked: when it could not be rewritten without losing something
   * (not valid JSON, another version, a malformed entry, a symbolic link), a CredentialStoreError is
   * thrown, `fn` is not called (no refresh token is spent) and the file is left as it is.
   */
  async update(
    platform: string,
    fn: (current: StoredCredential | undefined) => StoredCredential | undefined | Promise<StoredCredential | undefined>,
  ): Promise<StoredCredential | undefined> {
    return (await this.mutate(platform, fn, false)).stored;
  }

  private async mutate(
    platform: string,
    fn: (current: StoredCredential | undefined) => StoredCredential | undefined | Promise<StoredCredential | undefined>,
    removeMalformed: boolean,
  ): Promise<{ stored: StoredCredential | undefined; removedMalformed: boolean }> {
    requirePlatform(platform);
    return inProcessQueue(this.file, async () => {
      await this.ensureDir();
      const release = await this.acquireLock();
      try {
        const data = await this.read();
        if (removeMalformed && data.malformed.has(platform)) {
          this.assertWritable(data, platform, true);
          data.raw.delete(platform);
          data.malformed.delete(platform);
          await this.write(data, new Map());
          this.logger.info({ file: this.file, platform }, 'removed a malformed entry from the credentials file');
          return { stored: undefined, removedMalformed: true };
        }
        this.assertWritable(data, platform, false);
        const current = data.good.get(platform);
        const next = await fn(current === undefined ? undefined : { ...current, ...(current.account ? { account: { ...current.account } } : {}) });
        if (next === undefined) {
          if (current !== undefined) {
            data.raw.delete(platform);
            data.good.delete(platform);
            await this.write(data, new Map());
          }
          return { stored: undefined, removedMalformed: false };
        }
        const parsed = parseEntry(platform, { ...next, platform });
        if (!('credential' in parsed)) throw new Error(`A stored credential must be well-formed: ${parsed.problem}.`);
        const normalised = parsed.credential;
        if (current !== undefined && JSON.stringify(normalised) === JSON.stringify(current)) return { stored: normalised, removedMalformed: false };
        data.good.set(platform, normalised);
        await this.write(data, new Map([[platform, normalised]]));
        return { stored: normalised, removedMalformed: false };
      } finally {
        await release();
      }
    });
  }

  // -------------------------------------------------------------------------------------------

  private platformAdvice(platform: string): string {
    const known = this.platforms === undefined || this.platforms.includes(platform);
    const name = printable(platform);
    return known
      ? `Run \`toolservers logout ${name}\` to remove just that entry (the other sign-ins are kept), or fix it by hand`
      : `Remove the "${name}" entry by hand (the other sign-ins are kept)`;
  }

  private malformedError(platform: string, problem: string): CredentialStoreError {
    return new CredentialStoreError({
      problem: 'malformed_entry',
      file: this.file,
      platform,
      detail: problem,
      reason: `The credentials file ${this.file} has a malformed entry for "${printable(platform)}" (${problem}).`,
      repair: `The file was not rewritten. ${this.platformAdvice(platform)}; then sign in again with \`toolservers login ${printable(platform)}\` if you need it.`,
    });
  }

  /** Throws when writing `platform`'s entry would have to rewrite something not understood. */
  private assertWritable(data: Snapshot, platform: string, removingMalformed: boolean): void {
    const own = data.malformed.get(platform);
    if (own !== undefined && !removingMalformed) throw this.malformedError(platform, own);
    for (const [other, problem] of data.malformed) {
      if (other === platform) continue;
      throw new CredentialStoreError({
        problem: 'malformed_entry',
        file: this.file,
        platform: other,
        detail: problem,
        reason: `Saving the ${printable(platform)} sign-in would rewrite the credentials file ${this.file}, which has a malformed entry for "${printable(other)}" (${problem}).`,
        repair: `The file was not rewritten. ${this.platformAdvice(other)}, then try again.`,
      });
    }
  }

  private moveAsideAdvice(): string {
    const aside = `${this.file}.broken`;
    return `move it aside (mv ${shellQuote(this.file)} ${shellQuote(aside)}) and sign in again with \`toolservers login <platform>\``;
  }

  private async ensureDir(): Promise<void> {
    let created: string | undefined;
    try {
      created = await mkdir(this.dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new CredentialStoreError({
        problem: 'write_failed',
        file: this.file,
        reason: `The directory of the credentials file ${this.file} cannot be created (${errorCode(error) ?? 'error'}).`,
        repair: `Check that ${this.dir} is a directory you own, or set ${CREDENTIALS_FILE_ENV} to another place.`,
      });
    }
    // Only tighten a directory we created: the file may have been pointed into a shared one.
    if (created !== undefined && IS_POSIX) await chmod(this.dir, 0o700);
  }

  private async acquireLock(): Promise<() => Promise<void>> {
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        // Loaded on the first write: reading a sign-in needs no lock.
        const { default: lockfile } = await import('proper-lockfile');
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
          throw new CredentialStoreError({
            problem: 'locked',
            file: this.file,
            reason: `Timed out after ${Math.round(this.lockTimeoutMs / 1000)} s waiting for the lock on ${this.file} (another toolservers process holds it).`,
            repair: `If no other process is running, remove ${this.lockPath} and try again.`,
          });
        }
        await sleep(10 + Math.floor(Math.random() * 40));
      }
    }
  }

  private async symlinkError(): Promise<CredentialStoreError> {
    let target = '';
    try {
      target = path.resolve(this.dir, await readlink(this.file));
    } catch {
      // the link vanished meanwhile; say so without a target
    }
    return new CredentialStoreError({
      problem: 'symlink',
      file: this.file,
      reason: `The credentials file ${this.file} is a symbolic link${target ? ` (to ${target})` : ''}; toolservers does not read or write credentials through a link, and changed nothing.`,
      repair: target
        ? `Set ${CREDENTIALS_FILE_ENV}=${shellQuote(target)} to use the file itself, or replace the link with it (mv ${shellQuote(target)} ${shellQuote(this.file)}).`
        : `Replace the link with a regular file, or set ${CREDENTIALS_FILE_ENV} to one.`,
    });
  }

  private notAFileError(): CredentialStoreError {
    return new CredentialStoreError({
      problem: 'not_a_file',
      file: this.file,
      reason: `The credentials file ${this.file} is not a regular file.`,
      repair: `Move it aside, or set ${CREDENTIALS_FILE_ENV} to a file path.`,
    });
  }

  /** Opens the file for reading without following a symbolic link; undefined when it does not exist. */
  private async openForReading(): Promise<FileHandle | undefined> {
    if (!IS_POSIX) {
      // No O_NOFOLLOW here: check with lstat first.
      try {
        const info = await lstat(this.file);
        if (info.isSymbolicLink()) throw await this.symlinkError();
      } catch (error) {
        if (error instanceof CredentialStoreError) throw error;
        if (errorCode(error) === 'ENOENT') return undefined;
      }
    }
    try {
      // O_NONBLOCK: a FIFO put in the file's place must not hang the reader.
      return await open(this.file, IS_POSIX ? constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK : 'r');
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      if (code === 'ELOOP' || code === 'EMLINK') throw await this.symlinkError();
      if (code === 'EISDIR') throw this.notAFileError();
      throw new CredentialStoreError({
        problem: 'unreadable',
        file: this.file,
        reason: `The credentials file ${this.file} cannot be read (${code ?? 'error'}).`,
        repair: 'Check that it belongs to you and is readable by you (mode 0600), then try again.',
      });
    }
  }

  /** The entries on disk (empty when the file does not exist). Tightens a too-open file mode first. */
  private async read(): Promise<Snapshot> {
    const handle = await this.openForReading();
    if (!handle) return emptySnapshot();
    let text: string;
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw this.notAFileError();
      if (IS_POSIX && (info.mode & 0o077) !== 0) {
        this.logger.warn(
          { file: this.file, mode: (info.mode & 0o777).toString(8) },
          'credentials file was readable by other users; restricting it to the owner (0600)',
        );
        try {
          // On the open descriptor: the file itself, never a link's target.
          await handle.chmod(0o600);
        } catch (error) {
          this.logger.warn({ file: this.file, err: errorCode(error) }, 'could not restrict the credentials file mode');
        }
      }
      text = await handle.readFile({ encoding: 'utf8' });
    } catch (error) {
      if (error instanceof CredentialStoreError) throw error;
      throw new CredentialStoreError({
        problem: 'unreadable',
        file: this.file,
        reason: `The credentials file ${this.file} cannot be read (${errorCode(error) ?? 'error'}).`,
        repair: 'Check that it belongs to you and is readable by you (mode 0600), then try again.',
      });
    } finally {
      await handle.close();
    }
    return this.parse(text);
  }

  private parse(text: string): Snapshot {
    if (text.trim() === '') return emptySnapshot();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // The parser's message may quote the file's content (a token): it is not repeated.
      throw new CredentialStoreError({
        problem: 'not_json',
        file: this.file,
        reason: `The credentials file ${this.file} is not valid JSON, so none of its sign-ins can be used.`,
        repair: `The file was not rewritten. Fix it by hand, or ${this.moveAsideAdvice()}.`,
      });
    }
    if (!isRecord(parsed)) {
      throw new CredentialStoreError({
        problem: 'not_a_store',
        file: this.file,
        reason: `The credentials file ${this.file} is not a toolservers credentials file (expected a JSON object with "version" and "credentials").`,
        repair: `The file was not rewritten. Point ${CREDENTIALS_FILE_ENV} elsewhere, or ${this.moveAsideAdvice()}.`,
      });
    }
    if (Object.keys(parsed).length === 0) return emptySnapshot();
    const { version, credentials, ...extra } = parsed;
    if (version !== FILE_VERSION) {
      const what = version === undefined ? 'has no "version"' : `has version ${printable(JSON.stringify(version)).slice(0, 40)}`;
      throw new CredentialStoreError({
        problem: 'unknown_version',
        file: this.file,
        reason: `The credentials file ${this.file} ${what}; this toolservers understands version ${FILE_VERSION} only (a newer toolservers may have written it).`,
        repair: `The file was not rewritten. Use the toolservers that wrote it, or ${this.moveAsideAdvice()}.`,
      });
    }
    if (credentials !== undefined && !isRecord(credentials)) {
      throw new CredentialStoreError({
        problem: 'not_a_store',
        file: this.file,
        reason: `The credentials file ${this.file} has a "credentials" member that is not an object.`,
        repair: `The file was not rewritten. Fix it by hand, or ${this.moveAsideAdvice()}.`,
      });
    }
    const snapshot: Snapshot = { extra, raw: new Map(), good: new Map(), malformed: new Map() };
    for (const [platform, value] of Object.entries(credentials ?? {})) {
      snapshot.raw.set(platform, value);
      const entry = parseEntry(platform, value);
      if ('credential' in entry) snapshot.good.set(platform, entry.credential);
      else {
        snapshot.malformed.set(platform, entry.problem);
        // Once per store and problem: servers read the file on every call.
        const key = `${platform}\u0000${entry.problem}`;
        if (!this.reported.has(key)) {
          this.reported.add(key);
          this.logger.warn({ file: this.file, platform: printable(platform), problem: entry.problem }, 'malformed entry in the credentials file');
        }
      }
    }
    return snapshot;
  }

  /** Atomic replace: temp file (0600) in the same directory, fsync, rename, fsync the directory. Unchanged entries are written as they were read. */
  private async write(data: Snapshot, changed: Map<string, StoredCredential>): Promise<void> {
    const credentials: Record<string, unknown> = {};
    const platforms = [...new Set([...data.raw.keys(), ...changed.keys()])].sort((a, b) => a.localeCompare(b));
    for (const platform of platforms) {
      const updated = changed.get(platform);
      credentials[platform] = updated ? serialiseEntry(updated, data.raw.get(platform)) : data.raw.get(platform);
    }
    const body = { version: FILE_VERSION, credentials, ...data.extra };
    const text = `${JSON.stringify(body, null, 2)}\n`;
    const temp = path.join(this.dir, `.${path.basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        try {
          if (IS_POSIX) await handle.chmod(0o600);
          await handle.writeFile(text, { encoding: 'utf8' });
          await handle.sync();
        } finally {
          await handle.close();
        }
        // Never replace a link (or anything but a regular file) that appeared since the read.
        const existing = await lstat(this.file).catch((error: unknown) => {
          if (errorCode(error) === 'ENOENT') return undefined;
          throw error;
        });
        if (existing?.isSymbolicLink()) throw await this.symlinkError();
        if (existing && !existing.isFile()) throw this.notAFileError();
        await rename(temp, this.file);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      if (error instanceof CredentialStoreError) throw error;
      throw new CredentialStoreError({
        problem: 'write_failed',
        file: this.file,
        reason: `The credentials file ${this.file} could not be written (${errorCode(error) ?? 'error'}); it was left as it was.`,
        repair: `Check the free space and the permissions of ${this.dir}, then try again.`,
      });
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
