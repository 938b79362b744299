import type { Credentials } from '../core/signin/credentials.js';
import type { Logger } from '../core/logger.js';
import type { ToolServer } from '../core/tools/registry.js';
import type { ToolProfile } from '../core/tools/selection.js';
import type { AnyToolDefinition } from '../core/tools/tool.js';
import { IncidentOpsApi } from './api.js';
import type { IncidentOpsDeps } from './deps.js';
import type { IncidentOpsSettings } from './settings.js';
import { sharedRateLimit } from '../core/platform/rate-limits.js';
import type { SharedStore } from '../core/store/store.js';
import { DIRECTORY_TTL_MS, UserDirectory } from './user-directory.js';
import getEscalationPolicy from './tools/get-escalation-policy.js';
import getIncident from './tools/get-incident.js';
import findSimilarIncidents from './tools/find-similar-incidents.js';
import getIncidentContext from './tools/get-incident-context.js';
import getService from './tools/get-service.js';
import getTeam from './tools/get-team.js';
import listEscalationPolicies from './tools/list-escalation-policies.js';
import listIncidentAlerts from './tools/list-incident-alerts.js';
import incidentStats from './tools/incident-stats.js';
import listIncidents from './tools/list-incidents.js';
import listLogEntries from './tools/list-log-entries.js';
import listOnCalls from './tools/list-on-calls.js';
import listSchedules from './tools/list-schedules.js';
import listServices from './tools/list-services.js';
import listTeams from './tools/list-teams.js';
import listUsers from './tools/list-users.js';
import searchUsers from './tools/search-users.js';
import whoAmI from './tools/who-am-i.js';
import whoIsOnCall from './tools/who-is-on-call.js';
import shiftHandoff from './tools/shift-handoff.js';

/** The 14 tools, in the contract's order, then the opt-in task tools (toolset `tasks`, beyond the contract). */
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
  getIncidentContext,
  whoIsOnCall,
  findSimilarIncidents,
  listIncidentAlerts,
  incidentStats,
  shiftHandoff,
] as readonly AnyToolDefinition<IncidentOpsDeps>[];

/**
 * Sent once at connection: the conventions every tool shares, so that tool and parameter
 * descriptions need not repeat them.
 */
export const INCIDENTOPS_INSTRUCTIONS = [
  'Read-only access to an incident-management account: incidents, the activity log, services, teams, users, schedules, escalation policies and who is on call.',
  'Start with IncidentOps.WhoAmI to learn who the signed-in user is.',
  'IDs (like PABC123) come from the list tools. To find a person by name or e-mail use IncidentOps.SearchUsers: it ranks users by confidence (1 = exact name or e-mail); when it returns close matches and accepts none, ask which one is meant.',
  'List tools page with limit (1-50, default 10) and offset (default 0), and return {<records>, limit, offset, more, next_offset}: while more is true, call again with offset = next_offset. offset + limit may not exceed 10000; narrow the filters instead.',
  '*_ids filters take up to 100 IDs and match any of them. since and until are ISO 8601 (2026-05-06, 2026-05-06T17:00Z, 2026-05-06T03:30:00-07:00); time_zone is an IANA name (Europe/Berlin) for the times returned.',
  'Records are compact: nulls are dropped and nested references are {id, name}; the records a tool is about carry html_url, their web page. List tools show the main fields; the Get tools return {<record>} with every field; team members are in IncidentOps.GetTeam.',
  'A result too large for the context is cut at a record boundary, and result_truncated says what was left out and how to get it.',
].join(' ');

/** Named tool sets for `--profile`: the server is small and has no enterprise administration. */
export const INCIDENTOPS_PROFILES: Readonly<Record<string, ToolProfile>> = {
  // ListIncidentAlerts stays out: its listing (~200 tokens) would leave less than the room kept for the next task tools (docs/tasks.md).
  everyday: { description: 'all 14 IncidentOps tools and 4 of the task tools: every one is a read an agent needs day to day', includeBeyondContract: true, excludeTools: ['IncidentOps.ListIncidentAlerts'] },
  'no-enterprise': { description: 'all 14 IncidentOps tools: none of them is enterprise administration' },
};

export interface IncidentOpsServerOptions {
  settings: IncidentOpsSettings;
  logger: Logger;
  version: string;
  fetch?: typeof fetch;
  now?: () => Date;
  /** Where the Authorization header comes from; defaults to the explicit token in the settings. */
  credentials?: Credentials;
  /** Shared with other replicas: the user directory and rate-limit holds. */
  store?: SharedStore;
}

export function createIncidentOpsServer(options: IncidentOpsServerOptions): ToolServer<IncidentOpsDeps> {
  const { store, settings, logger } = options;
  const api = new IncidentOpsApi(settings, logger, options.fetch, options.credentials, store ? sharedRateLimit(store, settings.baseUrl, logger) : undefined);
  const now = options.now ?? (() => new Date());
  return {
    id: 'incidentops',
    name: 'IncidentOps',
    version: options.version,
    instructions: INCIDENTOPS_INSTRUCTIONS,
    tools: incidentOpsTools,
    profiles: INCIDENTOPS_PROFILES,
    skills: () => import('./skills.js').then((module) => module.INCIDENTOPS_SKILLS),
    deps: { api, now, directory: new UserDirectory(api, () => now().getTime(), DIRECTORY_TTL_MS, store ? { store, baseUrl: settings.baseUrl, logger } : undefined) },
    logger: options.logger,
  };
}
