/**
 * What the CLI needs to know about each shipped server before it runs one: its description
 * (server-descriptions.ts) and how to load it. Nothing here loads a server: each entry's
 * `load()` imports that server's code (and only that server's) when a command uses it, so
 * `toolservers incidentops` never loads CanvasApi, and neither loads the sandbox or sign-in.
 * `src/servers.ts` gives the same entries fully loaded, for tests and benchmarks.
 */
import { CANVASAPI_DESCRIPTION, INCIDENTOPS_DESCRIPTION } from './server-descriptions.js';
import type { ServerInfo } from './servers/server-entry.js';

export { PACKAGE_VERSION, SERVER_IDS, type ServerDescription, type ServerFlag, type ServerId } from './server-descriptions.js';
export type { BuildOptions, ServerEntry, ServerInfo, ServerSettingsInput } from './servers/server-entry.js';

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
