import type { Credentials } from '../core/auth/credentials.js';
import type { Logger } from '../core/logger.js';
import type { ToolServer } from '../core/registry.js';
import type { AnyToolDefinition } from '../core/tool.js';
import { IncidentOpsApi } from './api.js';
import type { IncidentOpsDeps } from './deps.js';
import type { IncidentOpsSettings } from './settings.js';
import { UserDirectory } from './user-directory.js';
import getEscalationPolicy from './tools/get-escalation-policy.js';
import getIncident from './tools/get-incident.js';
import getService from './tools/get-service.js';
import getTeam from './tools/get-team.js';
import listEscalationPolicies from './tools/list-escalation-policies.js';
import listIncidents from './tools/list-incidents.js';
import listLogEntries from './tools/list-log-entries.js';
import listOnCalls from './tools/list-on-calls.js';
import listSchedules from './tools/list-schedules.js';
import listServices from './tools/list-services.js';
import listTeams from './tools/list-teams.js';
import listUsers from './tools/list-users.js';
import searchUsers from './tools/search-users.js';
import whoAmI from './tools/who-am-i.js';

/** The 14 tools, in the contract's order. */
export const incidentOpsTools: readonly AnyToolDefinition<IncidentOpsDeps>[] = [
  whoAmI,
  listIncidents,
  getIncident,
  listLogEntries,
  listEscalationPolicies,
  getEscalationPolicy,
  listServices,
  getService,
  listSchedules,
  listOnCalls,
  listUsers,
  searchUsers,
  listTeams,
  getTeam,
] as readonly AnyToolDefinition<IncidentOpsDeps>[];

export const INCIDENTOPS_INSTRUCTIONS =
  'Read-only access to an incident-management account: incidents, the activity log, services, teams, users, schedules, escalation policies and who is on call. ' +
  'Start with IncidentOps.WhoAmI to learn who the signed-in user is. List tools page with limit (1-50) and offset; use next_offset from a result to continue. ' +
  'Times are ISO 8601. To find a person by name or e-mail use IncidentOps.SearchUsers, then filter other tools by the returned IDs.';

export interface IncidentOpsServerOptions {
  settings: IncidentOpsSettings;
  logger: Logger;
  version: string;
  fetch?: typeof fetch;
  now?: () => Date;
  /** Where the Authorization header comes from; defaults to the explicit token in the settings. */
  credentials?: Credentials;
}

export function createIncidentOpsServer(options: IncidentOpsServerOptions): ToolServer<IncidentOpsDeps> {
  const api = new IncidentOpsApi(options.settings, options.logger, options.fetch, options.credentials);
  const now = options.now ?? (() => new Date());
  return {
    id: 'incidentops',
    name: 'IncidentOps',
    version: options.version,
    instructions: INCIDENTOPS_INSTRUCTIONS,
    tools: incidentOpsTools,
    deps: { api, now, directory: new UserDirectory(api, () => now().getTime()) },
    logger: options.logger,
  };
}
