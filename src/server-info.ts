/**
 * What the CLI needs to know about each shipped server before it runs one: its description
 * (server-descriptions.ts) and how to load it. Nothing here loads a server: each entry's
 * `load()` imports that server's code (and only that server's) when a command uses it, so
 * `toolservers incidentops` never loads CanvasApi, and neither loads the sandbox or sign-in.
 * `src/servers.ts` gives the same entries fully loaded, for tests and benchmarks.
 */
import type { FileTokenStore } from './core/signin/token-store.js';
import type { SharedStore } from './core/store/store.js';
import type { PlatformAuth } from './core/signin/platform-auth.js';
import type { Credentials } from './core/signin/credentials.js';
import type { Logger } from './core/logger.js';
import type { AnyToolServer } from './core/tools/registry.js';
import { CANVASAPI_DESCRIPTION, INCIDENTOPS_DESCRIPTION, type ServerDescription } from './server-descriptions.js';
import type { RunningSandbox } from './sandbox/server.js';

export { PACKAGE_VERSION, SERVER_IDS, type ServerDescription, type ServerFlag, type ServerId } from './server-descriptions.js';

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

export const INCIDENTOPS_INFO: ServerInfo = { ...INCIDENTOPS_DESCRIPTION, load: async () => (await import('./servers/incidentops.js')).incidentOpsEntry };

export const CANVASAPI_INFO: ServerInfo = { ...CANVASAPI_DESCRIPTION, load: async () => (await import('./servers/canvasapi.js')).canvasApiEntry };

/** Every shipped server, in the order commands list them. */
export const SERVER_INFO: readonly ServerInfo[] = [INCIDENTOPS_INFO, CANVASAPI_INFO];

export function findServerInfo(id: string): ServerInfo | undefined {
  return SERVER_INFO.find((server) => server.id === id.toLowerCase());
}

/** The server whose tools carry this name prefix (`IncidentOps.WhoAmI` or `IncidentOps_WhoAmI` -> incidentops). */
export function serverInfoForTool(toolName: string): ServerInfo | undefined {
  const prefix = toolName.split(/[._]/)[0]?.toLowerCase();
  return SERVER_INFO.find((server) => server.name.toLowerCase() === prefix);
}
