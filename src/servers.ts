/**
 * The catalogue of tool servers this package ships, and how each one is built from
 * settings. The CLI and tests go through here; the core stays platform-neutral.
 */
import { createRequire } from 'node:module';
import type { Credentials } from './core/auth/credentials.js';
import { platformCredentials, type PlatformAuth } from './core/auth/platform-auth.js';
import { CREDENTIALS_FILE_ENV, defaultCredentialsFile, FileTokenStore } from './core/auth/token-store.js';
import type { Logger } from './core/logger.js';
import type { AnyToolServer } from './core/registry.js';
import { canvasApiAuth } from './canvasapi/auth.js';
import { createCanvasApiServer } from './canvasapi/index.js';
import { CANVASAPI_ENV, resolveCanvasApiSettings, type CanvasApiSettingsInput } from './canvasapi/settings.js';
import { incidentOpsAuth } from './incidentops/auth.js';
import { createIncidentOpsServer } from './incidentops/index.js';
import { INCIDENTOPS_ENV, resolveIncidentOpsSettings, type IncidentOpsSettingsInput } from './incidentops/settings.js';
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
  env?: NodeJS.ProcessEnv;
}

export interface ServerEntry {
  id: ServerId;
  name: string;
  /** Environment variables the server reads, for help texts. */
  env: Record<string, string>;
  /** Credential and host flags of `toolservers <id>`. */
  flags: ServerFlag[];
  /** Sign-in flags of `toolservers login <id>`. */
  loginFlags: ServerFlag[];
  /** How this platform signs in, from flags and environment. */
  auth(input: ServerSettingsInput, options: Omit<BuildOptions, 'logger' | 'store'>): PlatformAuth;
  /** The tool server, its credentials from an explicit token or the stored sign-in. */
  create(input: ServerSettingsInput, options: BuildOptions): AnyToolServer;
}

/** The store of sign-ins used when none is given. */
export function defaultStore(logger: Logger, env: NodeJS.ProcessEnv = process.env): FileTokenStore {
  return new FileTokenStore(env[CREDENTIALS_FILE_ENV]?.trim() || defaultCredentialsFile(env), { logger, platforms: SERVERS.map((server) => server.id) });
}

/** Whether a flag or variable sets this value (an explicit value wins over the one stored with a sign-in). */
function isSet(flag: string | undefined, env: NodeJS.ProcessEnv, name: string): boolean {
  return Boolean(flag?.trim() || env[name]?.trim());
}

/** The sandbox brings its own settings: the environment (real credentials) is not read then. */
function settingsEnv(options: Pick<BuildOptions, 'sandbox' | 'env'>): NodeJS.ProcessEnv {
  return options.sandbox ? {} : options.env ?? process.env;
}

/** Explicit token first, else the stored sign-in; against the sandbox only its own token. */
function credentialsFor(auth: PlatformAuth, options: BuildOptions): Credentials {
  const store = options.sandbox ? undefined : options.store ?? defaultStore(options.logger, settingsEnv(options));
  return platformCredentials(auth, store, options.logger).credentials;
}

function pickDefined<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined && value !== '')) as Partial<T>;
}

function incidentOpsInput(input: ServerSettingsInput, sandbox?: RunningSandbox): IncidentOpsSettingsInput {
  if (sandbox) return { baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token };
  return pickDefined({ ...input });
}

function canvasApiInput(input: ServerSettingsInput, sandbox?: RunningSandbox): CanvasApiSettingsInput {
  if (sandbox) return { baseUrl: sandbox.canvasapi.baseUrl, accessToken: sandbox.canvasapi.token };
  const { apiToken: _apiToken, region: _region, ...rest } = input;
  return pickDefined(rest);
}

/** IncidentOps sign-in from flags and environment; endpoints set explicitly win over those stored with a sign-in. */
function incidentOpsAuthFor(input: ServerSettingsInput, options: Pick<BuildOptions, 'sandbox' | 'env'>): PlatformAuth {
  const env = settingsEnv(options);
  const settings = resolveIncidentOpsSettings(incidentOpsInput(input, options.sandbox), env);
  const tokenUrl = isSet(input.tokenUrl, env, INCIDENTOPS_ENV.tokenUrl);
  // A token URL that is set implies its sibling revoke URL (see resolveIncidentOpsSettings).
  return incidentOpsAuth(settings, { explicit: { tokenUrl, revokeUrl: tokenUrl || isSet(undefined, env, INCIDENTOPS_ENV.revokeUrl) } });
}

/** CanvasApi sign-in from flags and environment; a token URL set explicitly wins over the one stored with a sign-in. */
function canvasApiAuthFor(input: ServerSettingsInput, options: Pick<BuildOptions, 'sandbox' | 'env'>): PlatformAuth {
  const env = settingsEnv(options);
  const settings = resolveCanvasApiSettings(canvasApiInput(input, options.sandbox), env);
  return canvasApiAuth(settings, { explicit: { tokenUrl: isSet(input.tokenUrl, env, CANVASAPI_ENV.tokenUrl) } });
}

const OAUTH_CLIENT_FLAGS = (env: { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string }): ServerFlag[] => [
  { flags: '--client-id <id>', description: `OAuth app client ID (${env.clientId}); stored with the sign-in for renewal and logout` },
  { flags: '--client-secret <secret>', description: `OAuth app client secret, if the app has one; stored with the sign-in (prefer ${env.clientSecret}: flags show in process lists)` },
  { flags: '--authorize-url <url>', description: `authorization endpoint (${env.authorizeUrl})` },
  { flags: '--token-url <url>', description: `token endpoint (${env.tokenUrl})` },
];

export const SERVERS: readonly ServerEntry[] = [
  {
    id: 'incidentops',
    name: 'IncidentOps',
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
    auth: (input, options) => incidentOpsAuthFor(input, options),
    create(input, options) {
      const settings = resolveIncidentOpsSettings(incidentOpsInput(input, options.sandbox), settingsEnv(options));
      return createIncidentOpsServer({ settings, logger: options.logger, version: PACKAGE_VERSION, credentials: credentialsFor(incidentOpsAuthFor(input, options), options) });
    },
  },
  {
    id: 'canvasapi',
    name: 'CanvasApi',
    env: { ...CANVASAPI_ENV },
    flags: [
      { flags: '--base-url <url>', description: `API base URL (${CANVASAPI_ENV.baseUrl}), default https://api.miro.com` },
      { flags: '--access-token <token>', description: `OAuth access token; prefer ${CANVASAPI_ENV.accessToken}, flags show in process lists` },
    ],
    loginFlags: [{ flags: '--base-url <url>', description: `API base URL the sign-in is for (${CANVASAPI_ENV.baseUrl})` }, ...OAUTH_CLIENT_FLAGS(CANVASAPI_ENV)],
    auth: (input, options) => canvasApiAuthFor(input, options),
    create(input, options) {
      const settings = resolveCanvasApiSettings(canvasApiInput(input, options.sandbox), settingsEnv(options));
      return createCanvasApiServer({ settings, logger: options.logger, version: PACKAGE_VERSION, credentials: credentialsFor(canvasApiAuthFor(input, options), options) });
    },
  },
];

export function findServer(id: string): ServerEntry | undefined {
  return SERVERS.find((server) => server.id === id.toLowerCase());
}

/** The server whose tools carry this name prefix (`IncidentOps.WhoAmI` or `IncidentOps_WhoAmI` -> incidentops). */
export function serverForTool(toolName: string): ServerEntry | undefined {
  const prefix = toolName.split(/[._]/)[0]?.toLowerCase();
  return SERVERS.find((server) => server.name.toLowerCase() === prefix);
}
