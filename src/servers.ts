/**
 * The catalogue of tool servers this package ships, every one loaded, and how each is built from
 * settings. Tests and benchmarks go through here; the CLI uses `server-info.ts` and loads only
 * the server a command needs. The core stays platform-neutral.
 */
import type { ServerEntry } from './server-info.js';
import { canvasApiEntry } from './servers/canvasapi.js';
import { incidentOpsEntry } from './servers/incidentops.js';

export { PACKAGE_VERSION, type BuildOptions, type ServerEntry, type ServerFlag, type ServerId, type ServerSettingsInput } from './server-info.js';
export { defaultStore } from './servers/shared.js';

export const SERVERS: readonly ServerEntry[] = [incidentOpsEntry, canvasApiEntry];

export function findServer(id: string): ServerEntry | undefined {
  return SERVERS.find((server) => server.id === id.toLowerCase());
}

/** The server whose tools carry this name prefix (`IncidentOps.WhoAmI` or `IncidentOps_WhoAmI` -> incidentops). */
export function serverForTool(toolName: string): ServerEntry | undefined {
  const prefix = toolName.split(/[._]/)[0]?.toLowerCase();
  return SERVERS.find((server) => server.name.toLowerCase() === prefix);
}
