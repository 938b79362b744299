/** What building any server needs: the store of sign-ins and credentials from settings. */
import type { Credentials } from '../core/signin/credentials.js';
import { platformCredentials, type PlatformAuth } from '../core/signin/platform-auth.js';
import { CREDENTIALS_FILE_ENV, defaultCredentialsFile, FileTokenStore } from '../core/signin/token-store.js';
import type { Logger } from '../core/logger.js';
import { SERVER_IDS } from '../server-descriptions.js';
import type { BuildOptions } from './server-entry.js';

/** The store of sign-ins used when none is given. */
export function defaultStore(logger: Logger, env: NodeJS.ProcessEnv = process.env): FileTokenStore {
  return new FileTokenStore(env[CREDENTIALS_FILE_ENV]?.trim() || defaultCredentialsFile(env), { logger, platforms: [...SERVER_IDS] });
}

/** Whether a flag or variable sets this value (an explicit value wins over the one stored with a sign-in). */
export function isSet(flag: string | undefined, env: NodeJS.ProcessEnv, name: string): boolean {
  return Boolean(flag?.trim() || env[name]?.trim());
}

/** The sandbox brings its own settings: the environment (real credentials) is not read then. */
export function settingsEnv(options: Pick<BuildOptions, 'sandbox' | 'env'>): NodeJS.ProcessEnv {
  return options.sandbox ? {} : options.env ?? process.env;
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
