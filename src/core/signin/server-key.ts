/**
 * The server key of HTTP key mode when none is set: generated once and kept beside the sign-ins
 * (`server-key`, mode 0600), so that a pasted client configuration survives a restart. A key set
 * by --server-key or TOOLSERVERS_SERVER_KEY always wins; `toolservers key rotate` replaces the file.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { defaultCredentialsFile } from './token-store.js';

export const SERVER_KEY_FILE_NAME = 'server-key';
/** Keys shorter than this are refused (the HTTP server enforces the same minimum). */
export const MIN_SERVER_KEY_LENGTH = 16;
const IS_POSIX = process.platform !== 'win32';

/** A fresh random key: 256 bits, base64url. */
export function generateServerKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Where the kept key lives: beside the credentials file (TOOLSERVERS_CREDENTIALS_FILE moves both). */
export function serverKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(path.dirname(defaultCredentialsFile(env)), SERVER_KEY_FILE_NAME);
}

/** A kept key file that cannot be used; the message names the file and the way out. */
export class ServerKeyFileError extends Error {
  constructor(file: string, problem: string) {
    super(`The server key file ${file} ${problem}. Run \`toolservers key rotate\` to write a new key, or set TOOLSERVERS_SERVER_KEY.`);
    this.name = 'ServerKeyFileError';
  }
}

/** The kept key, or undefined when there is none yet. Never follows a symbolic link. */
export async function readServerKey(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | (IS_POSIX ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new ServerKeyFileError(file, 'is a symbolic link');
    throw new ServerKeyFileError(file, `cannot be read (${code ?? 'unknown error'})`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ServerKeyFileError(file, 'is not a regular file');
    // Only its owner may read it: a looser mode (a copied file, a umask) is tightened.
    if (IS_POSIX && (info.mode & 0o077) !== 0) await handle.chmod(0o600);
    const key = (await handle.readFile({ encoding: 'utf8' })).trim();
    if (key.length < MIN_SERVER_KEY_LENGTH || /\s/.test(key)) throw new ServerKeyFileError(file, `does not hold a key (one line of at least ${MIN_SERVER_KEY_LENGTH} characters)`);
    return key;
  } finally {
    await handle.close();
  }
}

/** Writes `key` to a new owner-only file beside `file` and returns its name. */
async function writeTemp(file: string, key: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    if (IS_POSIX) await handle.chmod(0o600);
    await handle.writeFile(`${key}\n`, { encoding: 'utf8' });
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

/**
 * The kept key, made on first use. Two servers starting at once agree on one key: the new file is
 * linked into place only if none exists (atomic and exclusive), so the loser reads the winner's.
 */
export async function keptServerKey(file: string): Promise<{ key: string; created: boolean }> {
  const existing = await readServerKey(file);
  if (existing) return { key: existing, created: false };
  const key = generateServerKey();
  const temp = await writeTemp(file, key);
  try {
    await link(temp, file);
    return { key, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new ServerKeyFileError(file, `cannot be written (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
    const winner = await readServerKey(file);
    if (!winner) throw new ServerKeyFileError(file, 'vanished while it was being created');
    return { key: winner, created: false };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Replaces the kept key with a new one (atomic rename); running servers keep the old one until they restart. */
export async function rotateServerKey(file: string): Promise<string> {
  const key = generateServerKey();
  const temp = await writeTemp(file, key);
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw new ServerKeyFileError(file, `cannot be replaced (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  return key;
}
