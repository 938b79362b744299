/**
 * The incident platform emulator (wire-compatible with PagerDuty REST API v2, read-only subset).
 *
 * What it enforces, in this order, on every request:
 *  1. Authentication: `Authorization: Bearer <token>` or `Authorization: Token token=<token>` with
 *     the configured token, or `Authorization: Bearer <token>` with a live user token issued by the
 *     sandbox identity service (`verifyToken`); anything else -> 401
 *     {"error":{"message":"Authentication failed","code":2006}} (expired or revoked OAuth tokens
 *     say why in `errors`). Every token belongs to the demo user, so /users/me works with all.
 *  2. Routing: unknown path or unknown ID -> 404 {"error":{"message":"Not Found","code":2100}};
 *     a known path with a method other than GET -> 405 (with `Allow: GET`) and the error body.
 *  3. Headers the spec marks as required, checked strictly so that a client that forgets them is
 *     caught: `Accept` must list `application/vnd.pagerduty+json;version=2` (whitespace and extra
 *     parameters tolerated, other media types alone are not), and `Content-Type` must be
 *     `application/json` (a charset parameter is fine) even on GET -> otherwise 400, code 2001.
 *  4. Query parameters as the spec declares them: `limit` integer 1..100 (default 25), `offset`
 *     integer >= 0, `offset + limit` <= 10000 (else 400 code 2002 "Arguments Caused Error"),
 *     `total` / booleans must be `true` or `false`, enum values (`statuses[]`, `urgencies[]`,
 *     `include[]`, `date_range`, `sort_by`) must be in the spec's enum, `time_zone` must be an IANA
 *     zone, dates must be ISO 8601 and `since` <= `until` -> 400 code 2001 otherwise.
 *     Set filters are the repeated `name[]` keys; parameters the operation does not declare are
 *     ignored, like the real API does (so `team_ids[]` on /oncalls silently filters nothing).
 *
 * The pieces: state.ts (the account and its serving order, built once), dispatch.ts (the order
 * above; access.ts the credential and header rules), one handler file per resource (*-api.ts and
 * intelligence.ts), listing.ts (pages and list filters), request.ts (errors, query reading).
 */
import type { SandboxUser } from '../oauth.js';
import type { SandboxPlatform } from '../exchange.js';
import { getIncident, listIncidents } from './incidents-api.js';
import { listIncidentAlerts } from './alerts-api.js';
import { intelligenceRoutes } from './intelligence.js';
import { dispatch, type Route } from './dispatch.js';
import { listIncidentNotes, listLogEntries } from './log-entries-api.js';
import { listOnCalls } from './oncalls-api.js';
import { listScheduleOverrides } from './overrides-api.js';
import { getPolicy, listPolicies } from './policies-api.js';
import { ApiError, notFound } from './request.js';
import { getSchedule, listSchedules } from './schedules-api.js';
import { getService, listServices } from './services-api.js';
import { getBusinessService, listBusinessServices, serviceDependencies } from './dependencies-api.js';
import { createIncidentOpsState, type IncidentOpsPlatformOptions, type IncidentOpsState } from './state.js';
import { getTeam, listMembers, listTeams } from './teams-api.js';
import { getUser, listUsers } from './users-api.js';

export { ACCEPT_MEDIA_TYPE } from './access.js';
export type { IncidentOpsPlatformOptions } from './state.js';

export function createIncidentOpsPlatform(options: IncidentOpsPlatformOptions): SandboxPlatform & { users(): SandboxUser[] } {
  const state = createIncidentOpsState(options);
  const routes = routeTable(state);
  // Who can sign in through the identity service (its consent page's picker and login_hint).
  const users = (): SandboxUser[] => state.sorted.users.map((user) => ({ id: user.id, name: user.name, email: user.email }));
  return { prefix: 'incidentops', handle: (request) => dispatch(state, routes, request), users };
}

/** Every path the emulator serves (GET only), first match wins. */
function routeTable(state: IncidentOpsState): Route[] {
  return [
    { pattern: /^\/users\/me$/, handler: (ctx) => getUser(state, ctx, ctx.userId) },
    { pattern: /^\/users$/, handler: (ctx) => listUsers(state, ctx) },
    { pattern: /^\/users\/([^/]+)$/, handler: (ctx, [id]) => getUser(state, ctx, id as string) },
    { pattern: /^\/oncalls$/, handler: (ctx) => listOnCalls(state, ctx) },
    { pattern: /^\/incidents$/, handler: (ctx) => listIncidents(state, ctx) },
    { pattern: /^\/incidents\/([^/]+)$/, handler: (ctx, [id]) => getIncident(state, ctx, id as string) },
    { pattern: /^\/incidents\/([^/]+)\/alerts$/, handler: (ctx, [id]) => listIncidentAlerts(state, ctx, id as string) },
    { pattern: /^\/incidents\/([^/]+)\/notes$/, handler: (ctx, [id]) => listIncidentNotes(state, ctx, id as string) },
    { pattern: /^\/incidents\/([^/]+)\/log_entries$/, handler: (ctx, [id]) => listLogEntries(state, ctx, id as string) },
    { pattern: /^\/log_entries$/, handler: (ctx) => listLogEntries(state, ctx) },
    { pattern: /^\/escalation_policies$/, handler: (ctx) => listPolicies(state, ctx) },
    { pattern: /^\/escalation_policies\/([^/]+)$/, handler: (ctx, [id]) => getPolicy(state, ctx, id as string) },
    { pattern: /^\/services$/, handler: (ctx) => listServices(state, ctx) },
    { pattern: /^\/services\/([^/]+)$/, handler: (ctx, [id]) => getService(state, ctx, id as string) },
    { pattern: /^\/business_services$/, handler: (ctx) => listBusinessServices(state, ctx) },
    { pattern: /^\/business_services\/([^/]+)$/, handler: (ctx, [id]) => getBusinessService(state, ctx, id as string) },
    { pattern: /^\/service_dependencies\/technical_services\/([^/]+)$/, handler: (_ctx, [id]) => serviceDependencies(state, 'technical', id as string) },
    { pattern: /^\/service_dependencies\/business_services\/([^/]+)$/, handler: (_ctx, [id]) => serviceDependencies(state, 'business', id as string) },
    { pattern: /^\/schedules$/, handler: (ctx) => listSchedules(state, ctx) },
    { pattern: /^\/schedules\/([^/]+)$/, handler: (ctx, [id]) => getSchedule(state, ctx, id as string) },
    { pattern: /^\/schedules\/([^/]+)\/overrides$/, handler: (ctx, [id]) => listScheduleOverrides(ctx, id as string) },
    { pattern: /^\/teams$/, handler: (ctx) => listTeams(state, ctx) },
    { pattern: /^\/teams\/([^/]+)$/, handler: (ctx, [id]) => getTeam(state, ctx, id as string) },
    { pattern: /^\/teams\/([^/]+)\/members$/, handler: (ctx, [id]) => listMembers(state, ctx, id as string) },
    ...intelligenceRoutes(state.data, state.plan, { notFound, status: (...args) => new ApiError(...args) }),
  ];
}
