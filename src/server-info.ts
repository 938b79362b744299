/**
 * What the CLI needs to know about each shipped server before it runs one: ids, names, flags,
 * environment variables and the package version. Nothing here loads a server: each entry's
 * `load()` imports that server's code (and only that server's) when a command uses it, so
 * `toolservers incidentops` never loads CanvasApi, and neither loads the sandbox or sign-in.
 * `src/servers.ts` gives the same entries fully loaded, for tests and benchmarks.
 */
import { createRequire } from 'node:module';
import type { FileTokenStore } from './core/signin/token-store.js';
import type { SharedStore } from './core/store/store.js';
import type { PlatformAuth } from './core/signin/platform-auth.js';
import type { Credentials } from './core/signin/credentials.js';
import type { Logger } from './core/logger.js';
import type { AnyToolServer } from './core/tools/registry.js';
import { CANVASAPI_ENV } from './canvasapi/settings.js';
import { INCIDENTOPS_ENV } from './incidentops/settings.js';
import type { RunningSandbox } from './sandbox/server.js';

/** The package version, from the nearest package.json above this module (dist/ or build/src/). */
export const PACKAGE_VERSION: string = (() => {
  const require = createRequire(import.meta.url);
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === 'toolservers' && pkg.version) return pkg.version;
    } catch {
      // not at this level
    }
  }
  return '0.0.0';
})();

export type ServerId = 'incidentops' | 'canvasapi';

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

/** A command-line flag a server reads (the same key may be read by several servers). */
export interface ServerFlag {
  flags: string;
  description: string;
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
export interface ServerInfo {
  id: ServerId;
  name: string;
  /** Environment variables the server reads, for help texts. */
  env: Record<string, string>;
  /** Credential and host flags of `toolservers <id>`. */
  flags: ServerFlag[];
  /** Sign-in flags of `toolservers login <id>`. */
  loginFlags: ServerFlag[];
  /** A tool for help texts' examples, by its contract name. */
  exampleTool: string;
  /** This server's code, imported on first use. */
  load(): Promise<ServerEntry>;
}

export interface ServerEntry extends ServerInfo {
  /** How this platform signs in, from flags and environment. */
  auth(input: ServerSettingsInput, options: Omit<BuildOptions, 'logger' | 'store'>): PlatformAuth;
  /** The tool server, its credentials from an explicit token or the stored sign-in. */
  create(input: ServerSettingsInput, options: BuildOptions): AnyToolServer;
}

const OAUTH_CLIENT_FLAGS = (env: { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string }): ServerFlag[] => [
  { flags: '--client-id <id>', description: `OAuth app client ID (${env.clientId}); stored with the sign-in for renewal and logout` },
  { flags: '--client-secret <secret>', description: `OAuth app client secret, if the app has one; stored with the sign-in (prefer ${env.clientSecret}: flags show in process lists)` },
  { flags: '--authorize-url <url>', description: `authorization endpoint (${env.authorizeUrl})` },
  { flags: '--token-url <url>', description: `token endpoint (${env.tokenUrl})` },
];

export const INCIDENTOPS_INFO: ServerInfo = {
  id: 'incidentops',
  name: 'IncidentOps',
  exampleTool: 'IncidentOps.WhoAmI',
  env: { ...INCIDENTOPS_ENV },
  flags: [
    { flags: '--base-url <url>', description: `API base URL (${INCIDENTOPS_ENV.baseUrl}); overrides --region` },
    { flags: '--region <region>', description: `us (default) or eu (${INCIDENTOPS_ENV.region})` },
    { flags: '--access-token <token>', description: `OAuth user token; prefer ${INCIDENTOPS_ENV.accessToken}, flags show in process lists` },
    { flags: '--api-token <token>', description: `REST API key; prefer ${INCIDENTOPS_ENV.apiToken}` },
  ],
  loginFlags: [
    { flags: '--base-url <url>', description: `API base URL the sign-in is for (${INCIDENTOPS_ENV.baseUrl})` },
    { flags: '--region <region>', description: `us (default) or eu: picks the API and identity hosts (${INCIDENTOPS_ENV.region})` },
    ...OAUTH_CLIENT_FLAGS(INCIDENTOPS_ENV),
  ],
  load: async () => (await import('./servers/incidentops.js')).incidentOpsEntry,
};

export const CANVASAPI_INFO: ServerInfo = {
  id: 'canvasapi',
  name: 'CanvasApi',
  exampleTool: 'CanvasApi.GetAccessTokenInfo',
  env: { ...CANVASAPI_ENV },
  flags: [
    { flags: '--base-url <url>', description: `API base URL (${CANVASAPI_ENV.baseUrl}), default https://api.miro.com` },
    { flags: '--access-token <token>', description: `OAuth access token; prefer ${CANVASAPI_ENV.accessToken}, flags show in process lists` },
    { flags: '--invite-allowed-domains <list>', description: 'comma-separated e-mail domains and addresses that tools may invite or add (TOOLSERVERS_INVITE_ALLOWED_DOMAINS); default: anyone' },
    { flags: '--full-records', description: 'lists and write echoes keep creator, modifier, timestamps and default styles (TOOLSERVERS_FULL_RECORDS; per HTTP request X-Toolservers-Full-Records); default: lean' },
  ],
  loginFlags: [{ flags: '--base-url <url>', description: `API base URL the sign-in is for (${CANVASAPI_ENV.baseUrl})` }, ...OAUTH_CLIENT_FLAGS(CANVASAPI_ENV)],
  load: async () => (await import('./servers/canvasapi.js')).canvasApiEntry,
};

/** Every shipped server, in the order commands list them. */
export const SERVER_INFO: readonly ServerInfo[] = [INCIDENTOPS_INFO, CANVASAPI_INFO];

/** The ids the credentials store keeps sign-ins for. */
export const SERVER_IDS: readonly ServerId[] = SERVER_INFO.map((server) => server.id);

export function findServerInfo(id: string): ServerInfo | undefined {
  return SERVER_INFO.find((server) => server.id === id.toLowerCase());
}

/** The server whose tools carry this name prefix (`IncidentOps.WhoAmI` or `IncidentOps_WhoAmI` -> incidentops). */
export function serverInfoForTool(toolName: string): ServerInfo | undefined {
  const prefix = toolName.split(/[._]/)[0]?.toLowerCase();
  return SERVER_INFO.find((server) => server.name.toLowerCase() === prefix);
}
