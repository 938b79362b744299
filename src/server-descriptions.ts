/**
 * Each shipped server described as data: ids, names, flags, environment variables and the package
 * version. No code of any server: server-info.ts adds how each one is loaded, and each server's
 * entry (servers/) starts from its description here, so neither imports the other.
 */
import { createRequire } from 'node:module';
import { CANVASAPI_ENV } from './canvasapi/settings.js';
import { INCIDENTOPS_ENV } from './incidentops/settings.js';

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

/** A command-line flag a server reads (the same key may be read by several servers). */
export interface ServerFlag {
  flags: string;
  description: string;
  /** An operator's choice, not a host or credential: `toolservers serve` takes it too. */
  serve?: true;
}

/** What the CLI knows of a server before loading it. */
export interface ServerDescription {
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
}

const OAUTH_CLIENT_FLAGS = (env: { clientId: string; clientSecret: string; authorizeUrl: string; tokenUrl: string }): ServerFlag[] => [
  { flags: '--client-id <id>', description: `OAuth app client ID (${env.clientId}); stored with the sign-in for renewal and logout` },
  { flags: '--client-secret <secret>', description: `OAuth app client secret, if the app has one; stored with the sign-in (prefer ${env.clientSecret}: flags show in process lists)` },
  { flags: '--authorize-url <url>', description: `authorization endpoint (${env.authorizeUrl})` },
  { flags: '--token-url <url>', description: `token endpoint (${env.tokenUrl})` },
];

export const INCIDENTOPS_DESCRIPTION: ServerDescription = {
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
};

export const CANVASAPI_DESCRIPTION: ServerDescription = {
  id: 'canvasapi',
  name: 'CanvasApi',
  exampleTool: 'CanvasApi.GetAccessTokenInfo',
  env: { ...CANVASAPI_ENV },
  flags: [
    { flags: '--base-url <url>', description: `API base URL (${CANVASAPI_ENV.baseUrl}), default https://api.miro.com` },
    { flags: '--access-token <token>', description: `OAuth access token; prefer ${CANVASAPI_ENV.accessToken}, flags show in process lists` },
    { flags: '--invite-allowed-domains <list>', description: 'comma-separated e-mail domains and addresses that tools may share with; set, no board, project or team is opened wider (TOOLSERVERS_INVITE_ALLOWED_DOMAINS); default: anyone', serve: true },
    { flags: '--full-records', description: 'lists and write echoes keep creator, modifier, timestamps and default styles (TOOLSERVERS_FULL_RECORDS; per HTTP request X-Toolservers-Full-Records); default: lean', serve: true },
  ],
  loginFlags: [{ flags: '--base-url <url>', description: `API base URL the sign-in is for (${CANVASAPI_ENV.baseUrl})` }, ...OAUTH_CLIENT_FLAGS(CANVASAPI_ENV)],
};

/** Every shipped server, in the order commands list them. */
export const SERVER_DESCRIPTIONS: readonly ServerDescription[] = [INCIDENTOPS_DESCRIPTION, CANVASAPI_DESCRIPTION];

/** The ids the credentials store keeps sign-ins for. */
export const SERVER_IDS: readonly ServerId[] = SERVER_DESCRIPTIONS.map((server) => server.id);
