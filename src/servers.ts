/**
 * The catalogue of tool servers this package ships, and how each one is built from
 * settings. The CLI and tests go through here; the core stays platform-neutral.
 */
import { createRequire } from 'node:module';
import type { Logger } from './core/logger.js';
import type { AnyToolServer } from './core/registry.js';
import { createCanvasApiServer } from './canvasapi/index.js';
import { CANVASAPI_ENV, resolveCanvasApiSettings } from './canvasapi/settings.js';
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

export interface ServerSettingsInput {
  accessToken?: string;
  apiToken?: string;
  baseUrl?: string;
  region?: string;
}

/** A command-line flag a server reads (the same key may be read by several servers). */
export interface ServerFlag {
  flags: string;
  description: string;
}

export interface ServerEntry {
  id: ServerId;
  name: string;
  /** Environment variables the server reads, for help texts. */
  env: Record<string, string>;
  /** Credential and host flags of `toolservers <id>`. */
  flags: ServerFlag[];
  create(input: ServerSettingsInput, logger: Logger, sandbox?: RunningSandbox): AnyToolServer;
}

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
    create(input, logger, sandbox) {
      const flags: IncidentOpsSettingsInput = sandbox
        ? // The sandbox gets its own token: real credentials are never sent to it.
          { baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token }
        : input;
      const env = sandbox ? {} : process.env;
      return createIncidentOpsServer({ settings: resolveIncidentOpsSettings(flags, env), logger, version: PACKAGE_VERSION });
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
    create(input, logger, sandbox) {
      const flags = sandbox
        ? { baseUrl: sandbox.canvasapi.baseUrl, accessToken: sandbox.canvasapi.token }
        : { ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}), ...(input.accessToken ? { accessToken: input.accessToken } : {}) };
      return createCanvasApiServer({ settings: resolveCanvasApiSettings(flags, sandbox ? {} : process.env), logger, version: PACKAGE_VERSION });
    },
  },
];

export function findServer(id: string): ServerEntry | undefined {
  return SERVERS.find((server) => server.id === id.toLowerCase());
}

/** The server whose tools carry this name prefix (`IncidentOps.WhoAmI` -> incidentops). */
export function serverForTool(toolName: string): ServerEntry | undefined {
  const prefix = toolName.split('.')[0]?.toLowerCase();
  return SERVERS.find((server) => server.name.toLowerCase() === prefix);
}
