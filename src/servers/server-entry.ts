/**
 * What a server's entry is (servers/<id>.ts) and what building one takes: the types server-info.ts
 * and the entries share. Below both, so that server-info.ts, which loads the entries, and the
 * entries, which fill these in, do not import each other.
 */
import type { Logger } from '../core/logger.js';
import type { Credentials } from '../core/signin/credentials.js';
import type { PlatformAuth } from '../core/signin/platform-auth.js';
import type { FileTokenStore } from '../core/signin/token-store.js';
import type { SharedStore } from '../core/store/store.js';
import type { AnyToolServer } from '../core/tools/registry.js';
import type { RunningSandbox } from '../sandbox/server.js';
import type { ServerDescription } from '../server-descriptions.js';

/** Flags a command may pass; each server reads the ones it knows. */
export interface ServerSettingsInput {
  accessToken?: string;
  apiToken?: string;
  baseUrl?: string;
  region?: string;
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  inviteAllowedDomains?: string;
  fullRecords?: boolean;
}

export interface BuildOptions {
  logger: Logger;
  /** Serve against this in-process sandbox (its own token; real credentials are never sent there). */
  sandbox?: RunningSandbox;
  /** Where stored sign-ins live (default: TOOLSERVERS_CREDENTIALS_FILE or the user config directory). */
  store?: FileTokenStore;
  /** State shared with other replicas (`--store`): the SearchUsers directory and rate-limit holds. */
  shared?: SharedStore;
  env?: NodeJS.ProcessEnv;
  /**
   * OAuth mode: the platform credentials of the user each request acts for (replaces the explicit
   * token and the stored sign-in entirely).
   */
  userCredentials?: (auth: PlatformAuth) => Credentials;
}

/** A server as the CLI knows it before loading it. */
export interface ServerInfo extends ServerDescription {
  /** This server's code, imported on first use. */
  load(): Promise<ServerEntry>;
}

export interface ServerEntry extends ServerInfo {
  /** How this platform signs in, from flags and environment. */
  auth(input: ServerSettingsInput, options: Omit<BuildOptions, 'logger' | 'store'>): PlatformAuth;
  /** The tool server, its credentials from an explicit token or the stored sign-in. */
  create(input: ServerSettingsInput, options: BuildOptions): AnyToolServer;
}
