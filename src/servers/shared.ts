/** What building any server needs: the store of sign-ins and credentials from settings. */
import type { Credentials } from '../core/signin/credentials.js';
import { platformCredentials, type PlatformAuth } from '../core/signin/platform-auth.js';
import { CREDENTIALS_FILE_ENV, defaultCredentialsFile, FileTokenStore } from '../core/signin/token-store.js';
import type { Logger } from '../core/logger.js';
import { SERVER_DESCRIPTIONS, SERVER_IDS } from '../server-descriptions.js';
import type { BuildOptions } from './server-entry.js';

/** The store of sign-ins used when none is given. */
export function defaultStore(logger: Logger, env: NodeJS.ProcessEnv = process.env): FileTokenStore {
  return new FileTokenStore(env[CREDENTIALS_FILE_ENV]?.trim() || defaultCredentialsFile(env), { logger, platforms: [...SERVER_IDS] });
}

/** Whether a flag or variable sets this value (an explicit value wins over the one stored with a sign-in). */
export function isSet(flag: string | undefined, env: NodeJS.ProcessEnv, name: string): boolean {
  return Boolean(flag?.trim() || env[name]?.trim());
}

/** Every platform's connection and credential variables (base URL, tokens, OAuth app, timeouts). */
const PLATFORM_VARIABLES: ReadonlySet<string> = new Set(SERVER_DESCRIPTIONS.flatMap((server) => Object.values(server.env)));

/**
 * The environment settings are read from: the one place for every command and server. The sandbox
 * brings its own host and credentials, so the platforms' variables (real credentials) are not read
 * then; the operator's choices (TOOLSERVERS_*: the invitation allowlist, full records) still are.
 */
export function settingsEnv(options: Pick<BuildOptions, 'sandbox' | 'env'>): NodeJS.ProcessEnv {
  const env = options.env ?? process.env;
  if (!options.sandbox) return env;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !PLATFORM_VARIABLES.has(name)));
}

/** OAuth mode: the request's user's token; else explicit token first, else the stored sign-in; against the sandbox only its own token. */
export function credentialsFor(auth: PlatformAuth, options: BuildOptions): Credentials {
  if (options.userCredentials) return options.userCredentials(auth);
  const store = options.sandbox ? undefined : options.store ?? defaultStore(options.logger, settingsEnv(options));
  return platformCredentials(auth, store, options.logger).credentials;
}

export function pickDefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined && value !== '')) as Partial<T>;
}
