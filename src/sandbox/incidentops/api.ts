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
 */
import { DateTime } from 'luxon';
import type { SandboxUser, TokenVerification } from '../oauth.js';
import type { SandboxPlatform, SandboxRequest, SandboxResponse } from '../exchange.js';
import { generateDataset } from './data.js';
import type { IncidentRecord, LogEntryRecord, ScheduleRecord, UserRecord } from './model.js';
import { intelligenceRoutes, type PlanOptions } from './intelligence.js';
import { clip, coveragePercentage, finalShifts, layerShifts, nextShiftFor, overrideShifts, type Shift } from './oncalls.js';
import { listScheduleOverrides } from './overrides-api.js';
import { Renderer } from './render.js';
import { ApiError, invalid, notFound, Query, type RequestContext } from './request.js';

export interface IncidentOpsPlatformOptions {
  token: string;
  users?: number;
  seed?: number;
  now?: () => Date;
  /** Checks bearer tokens other than `token` (the identity service's OAuth user tokens). */
  verifyToken?: (token: string) => TokenVerification;
  /** Past and related incidents, related change events: a plan without them (intelligence.ts). */
  plan?: PlanOptions;
}

export const ACCEPT_MEDIA_TYPE = 'application/vnd.pagerduty+json;version=2';
const DAY = 86_400_000;

// Enumerations copied from the spec's parameter declarations.
const INCLUDE = {
  userDetail: ['contact_methods', 'notification_rules', 'teams', 'subdomains', 'calendar_urls'],
  users: ['contact_methods', 'notification_rules', 'teams', 'subdomains'],
  oncalls: ['escalation_policies', 'users', 'schedules'],
  incidents: ['acknowledgers', 'agents', 'assignees', 'conference_bridge', 'escalation_policies', 'first_trigger_log_entries', 'priorities', 'services', 'teams', 'users'],
  incident: ['acknowledgers', 'agents', 'assignees', 'conference_bridge', 'custom_fields', 'escalation_policies', 'first_trigger_log_entries', 'priorities', 'services', 'teams', 'users'],
  logEntries: ['incidents', 'services', 'channels', 'teams'],
  alerts: ['services', 'first_trigger_log_entries', 'incidents'],
  policies: ['services', 'teams', 'targets', 'escalation_rule_assignment_strategies'],
  services: ['escalation_policies', 'teams', 'integrations', 'auto_pause_notifications_parameters'],
  schedules: ['schedule_layers', 'overrides_subschedule', 'final_schedule'],
  team: ['privileges'],
  members: ['users'],
} as const;
/** `body` is documented for incidents although it is missing from the include enum; accept it too. */
const INCIDENT_EXTRA_INCLUDES = ['body'];
const STATUSES = ['triggered', 'acknowledged', 'resolved'] as const;
const URGENCIES = ['high', 'low'] as const;
/** Log entry types shown when is_overview=true (the state changes and human actions, not notifications). */
const OVERVIEW_TYPES = new Set([
  'trigger_log_entry',
  'acknowledge_log_entry',
  'unacknowledge_log_entry',
  'resolve_log_entry',
  'escalate_log_entry',
  'assign_log_entry',
  'delegate_log_entry',
  'annotate_log_entry',
  'snooze_log_entry',
  'urgency_change_log_entry',
]);

/** A handler's answer already encoded as JSON. */
class RawJson {
  constructor(readonly text: string) {}
}

function paginate<T>(key: string, items: readonly T[], page: { limit: number; offset: number; total: boolean }, render: (item: T) => unknown): unknown {
  const slice = items.slice(page.offset, page.offset + page.limit);
  return {
    [key]: slice.map(render),
    limit: page.limit,
    offset: page.offset,
    more: page.offset + slice.length < items.length,
    total: page.total ? items.length : null,
  };
}

/** sort_by of an incident's alerts: up to two of created_at / resolved_at, each optionally :asc or :desc. */
function parseAlertSort(raw: string | undefined): { field: 'created_at' | 'resolved_at'; direction: 1 | -1 }[] {
  if (raw === undefined || raw === '') return [{ field: 'created_at', direction: 1 }];
  const parts = raw.split(',');
  if (parts.length > 2) throw invalid('sort_by takes at most two fields.');
  return parts.map((part) => {
    const [field, direction = 'asc', extra] = part.trim().split(':');
    if ((field !== 'created_at' && field !== 'resolved_at') || (direction !== 'asc' && direction !== 'desc') || extra !== undefined) {
      throw invalid(`sort_by must be created_at or resolved_at, each optionally followed by :asc or :desc; got ${JSON.stringify(raw)}.`);
    }
    return { field, direction: direction === 'desc' ? -1 : 1 };
  });
}

function byName<T extends { name: string; id: string }>(a: T, b: T): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function nameFilter<T extends { name: string }>(items: readonly T[], query: string | undefined): readonly T[] {
  if (query === undefined || query === '') return items;
  const needle = query.toLowerCase();
  return items.filter((i) => i.name.toLowerCase().includes(needle));
}

function intersectsAny(ids: readonly string[], wanted: Set<string> | null): boolean {
  return wanted === null || ids.some((id) => wanted.has(id));
}

function parseMediaType(value: string): { essence: string; params: Map<string, string> } {
  const [head, ...rest] = value.split(';');
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"|"$/g, ''));
  }
  return { essence: (head ?? '').trim().toLowerCase(), params };
}

/** The user the request acts as, or the 401 to answer. */
function authenticate(header: string | undefined, token: string, verify: ((token: string) => TokenVerification) | undefined, demoUserId: string): string | ApiError {
  const failed = (reason?: string) => new ApiError(401, 2006, 'Authentication failed', reason === undefined ? undefined : [reason]);
  if (!header) return failed();
  const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) {
    const presented = bearer[1] as string;
    if (presented === token) return demoUserId;
    const v = verify?.(presented);
    if (v?.status === 'valid' && v.user !== undefined) return v.user;
    if (v?.status === 'expired') return failed('The OAuth access token has expired; refresh it.');
    if (v?.status === 'revoked') return failed('The OAuth access token has been revoked.');
    return failed();
  }
  const apiKey = /^\s*Token\s+token=(\S+)\s*$/i.exec(header);
  if (apiKey && apiKey[1] === token) return demoUserId;
  return failed();
}

function checkHeaders(headers: Record<string, string>): void {
  const accept = headers['accept'];
  const acceptOk =
    accept !== undefined &&
    accept.split(',').some((entry) => {
      const m = parseMediaType(entry);
      return m.essence === 'application/vnd.pagerduty+json' && m.params.get('version') === '2';
    });
  const contentType = headers['content-type'];
  const contentTypeOk = contentType !== undefined && parseMediaType(contentType).essence === 'application/json';
  const errors: string[] = [];
  if (!acceptOk) errors.push(`The Accept header must be "${ACCEPT_MEDIA_TYPE}" (got ${accept === undefined ? 'none' : JSON.stringify(accept)}).`);
  if (!contentTypeOk) errors.push(`The Content-Type header must be "application/json" (got ${contentType === undefined ? 'none' : JSON.stringify(contentType)}).`);
  if (errors.length > 0) throw invalid(...errors);
}

type Handler = (ctx: RequestContext, params: string[]) => unknown;

type Route = { pattern: RegExp; handler: Handler };

export function createIncidentOpsPlatform(options: IncidentOpsPlatformOptions): SandboxPlatform & { users(): SandboxUser[] } {
  const clock = options.now ?? (() => new Date());
  const data = generateDataset({ now: clock().getTime(), seed: options.seed, users: options.users });
  // Lists are served in a stable order: users/teams/services/policies/schedules by name.
  const sortedUsers = data.users.slice().sort(byName);
  const renderedUsers = new Map<string, Map<string, string>>();
  const sortedTeams = data.teams.slice().sort(byName);
  const sortedServices = data.services.slice().sort(byName);
  const sortedPolicies = data.policies.slice().sort(byName);
  const sortedSchedules = data.schedules.slice().sort(byName);
  const policyOrder = new Map(sortedPolicies.map((p, i) => [p.id, i]));

  const routes: Route[] = [
    { pattern: /^\/users\/me$/, handler: (ctx) => getUser(ctx, ctx.userId) },
    { pattern: /^\/users$/, handler: (ctx) => listUsers(ctx) },
    { pattern: /^\/users\/([^/]+)$/, handler: (ctx, [id]) => getUser(ctx, id as string) },
    { pattern: /^\/oncalls$/, handler: (ctx) => listOnCalls(ctx) },
    { pattern: /^\/incidents$/, handler: (ctx) => listIncidents(ctx) },
    { pattern: /^\/incidents\/([^/]+)$/, handler: (ctx, [id]) => getIncident(ctx, id as string) },
    { pattern: /^\/incidents\/([^/]+)\/alerts$/, handler: (ctx, [id]) => listIncidentAlerts(ctx, id as string) },
    { pattern: /^\/incidents\/([^/]+)\/notes$/, handler: (ctx, [id]) => listIncidentNotes(ctx, id as string) },
    { pattern: /^\/incidents\/([^/]+)\/log_entries$/, handler: (ctx, [id]) => listLogEntries(ctx, id as string) },
    { pattern: /^\/log_entries$/, handler: (ctx) => listLogEntries(ctx) },
    { pattern: /^\/escalation_policies$/, handler: (ctx) => listPolicies(ctx) },
    { pattern: /^\/escalation_policies\/([^/]+)$/, handler: (ctx, [id]) => getPolicy(ctx, id as string) },
    { pattern: /^\/services$/, handler: (ctx) => listServices(ctx) },
    { pattern: /^\/services\/([^/]+)$/, handler: (ctx, [id]) => getService(ctx, id as string) },
    { pattern: /^\/schedules$/, handler: (ctx) => listSchedules(ctx) },
    { pattern: /^\/schedules\/([^/]+)$/, handler: (ctx, [id]) => getSchedule(ctx, id as string) },
    { pattern: /^\/schedules\/([^/]+)\/overrides$/, handler: (ctx, [id]) => listScheduleOverrides(ctx, id as string) },
    { pattern: /^\/teams$/, handler: (ctx) => listTeams(ctx) },
    { pattern: /^\/teams\/([^/]+)$/, handler: (ctx, [id]) => getTeam(ctx, id as string) },
    { pattern: /^\/teams\/([^/]+)\/members$/, handler: (ctx, [id]) => listMembers(ctx, id as string) },
    ...intelligenceRoutes(data, options.plan ?? {}, { notFound, status: (...args) => new ApiError(...args) }),
  ];

  // ---------------------------------------------------------------- users

  function getUser(ctx: RequestContext, id: string): unknown {
    const include = ctx.q.enumList('include[]', INCLUDE.userDetail);
    const user = data.usersById.get(id);
    if (!user) throw notFound();
    return {
      user: ctx.renderer(null).user(user, {
        calendarUrls: include.includes('calendar_urls'),
        contactMethods: include.includes('contact_methods'),
        notificationRules: include.includes('notification_rules'),
      }),
    };
  }

  function listUsers(ctx: RequestContext): unknown {
    const { q } = ctx;
    q.enumList('include[]', INCLUDE.users); // validated; team/contact references are kept as references
    const page = q.page();
    const teams = q.ids('team_ids[]');
    const named = nameFilter(sortedUsers, q.one('query'));
    const users = teams === null ? named : named.filter((u) => intersectsAny(u.teamIds, teams));
    // Users never change: each one's JSON is rendered once per base URL, so that a client walking
    // the whole directory in parallel is not held up by the emulator's own CPU.
    let rendered = renderedUsers.get(ctx.baseUrl);
    if (!rendered) renderedUsers.set(ctx.baseUrl, (rendered = new Map()));
    const r = ctx.renderer(null);
    const slice = users.slice(page.offset, page.offset + page.limit);
    const parts = slice.map((u) => {
      let text = rendered.get(u.id);
      if (text === undefined) rendered.set(u.id, (text = JSON.stringify(r.user(u))));
      return text;
    });
    const more = page.offset + slice.length < users.length;
    return new RawJson(`{"users":[${parts.join(',')}],"limit":${page.limit},"offset":${page.offset},"more":${more},"total":${page.total ? users.length : null}}`);
  }

  // ---------------------------------------------------------------- on-calls

  interface OnCallRow {
    policyId: string;
    level: number;
    userId: string;
    scheduleId: string | null;
    start: number | null;
    end: number | null;
  }

  function listOnCalls(ctx: RequestContext): unknown {
    const { q, now } = ctx;
    const zone = q.timeZone();
    const page = q.page();
    const include = new Set(q.enumList('include[]', INCLUDE.oncalls));
    const userIds = q.ids('user_ids[]');
    const policyIds = q.ids('escalation_policy_ids[]');
    const scheduleIds = q.ids('schedule_ids[]');
    const earliest = q.bool('earliest', false);
    const readZone = zone ?? data.accountTimeZone;
    const since = q.date('since', readZone) ?? now;
    const until = q.date('until', readZone) ?? now;
    if (until < since) throw invalid('until must not be before since.');
    if (until > now + 90 * DAY) throw invalid('until must be at most 90 days in the future.');
    // Half-open window; a single instant asks "who is on call at that moment".
    const windowEnd = until > since ? until : since + 1;

    const rows: OnCallRow[] = [];
    const shiftCache = new Map<string, Shift[]>();
    for (const policy of sortedPolicies) {
      if (policyIds && !policyIds.has(policy.id)) continue;
      policy.rules.forEach((rule, index) => {
        const level = index + 1;
        for (const target of rule.targets) {
          if (target.kind === 'user') {
            if (scheduleIds && !scheduleIds.has('null')) continue;
            rows.push({ policyId: policy.id, level, userId: target.id, scheduleId: null, start: null, end: null });
            continue;
          }
          if (scheduleIds && !scheduleIds.has(target.id)) continue;
          const schedule = data.schedulesById.get(target.id) as ScheduleRecord;
          let shifts = shiftCache.get(schedule.id);
          if (!shifts) {
            shifts = finalShifts(schedule, since, windowEnd);
            shiftCache.set(schedule.id, shifts);
          }
          for (const s of shifts) rows.push({ policyId: policy.id, level, userId: s.userId, scheduleId: schedule.id, start: s.start, end: s.end });
        }
      });
    }
    let result = rows.filter((r) => !userIds || userIds.has(r.userId));
    if (earliest) {
      const seen = new Map<string, OnCallRow>();
      for (const r of result) {
        const key = `${r.policyId}|${r.level}|${r.userId}`;
        const prev = seen.get(key);
        if (!prev || (r.start ?? -Infinity) < (prev.start ?? -Infinity)) seen.set(key, r);
      }
      result = result.filter((r) => seen.get(`${r.policyId}|${r.level}|${r.userId}`) === r);
    }
    result.sort(
      (a, b) =>
        (policyOrder.get(a.policyId) ?? 0) - (policyOrder.get(b.policyId) ?? 0) ||
        a.level - b.level ||
        (a.start ?? -Infinity) - (b.start ?? -Infinity) ||
        (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
    );
    const r = ctx.renderer(zone);
    return paginate('oncalls', result, page, (row) => {
      const user = data.usersById.get(row.userId) as UserRecord;
      const policy = data.policiesById.get(row.policyId);
      const schedule = row.scheduleId ? data.schedulesById.get(row.scheduleId) : undefined;
      return {
        escalation_policy: include.has('escalation_policies') && policy ? r.policy(policy) : r.policyRef(row.policyId),
        escalation_level: row.level,
        schedule: schedule ? (include.has('schedules') ? r.schedule(schedule) : r.scheduleRef(schedule.id)) : null,
        user: include.has('users') ? r.user(user) : r.userRef(user.id),
        start: row.start === null ? null : r.time(row.start),
        end: row.end === null ? null : r.time(row.end),
      };
    });
  }

  // ---------------------------------------------------------------- incidents

  function incidentInclude(q: Query, allowed: readonly string[]): Set<string> {
    return new Set(q.enumList('include[]', [...allowed, ...INCIDENT_EXTRA_INCLUDES]));
  }

  function listIncidents(ctx: RequestContext): unknown {
    const { q, now } = ctx;
    const page = q.page();
    const zone = q.timeZone();
    const include = incidentInclude(q, INCLUDE.incidents);
    const statuses = q.enumList('statuses[]', STATUSES);
    const urgencies = q.enumList('urgencies[]', URGENCIES);
    const services = q.ids('service_ids[]');
    const teams = q.ids('team_ids[]');
    const users = q.ids('user_ids[]');
    const incidentKey = q.one('incident_key');
    const dateRange = q.one('date_range');
    if (dateRange !== undefined && dateRange !== 'all') throw invalid(`date_range must be "all", got ${JSON.stringify(dateRange)}.`);
    const sort = parseIncidentSort(q.one('sort_by'));

    let since = -Infinity;
    let until = Infinity;
    if (dateRange !== 'all') {
      const readZone = zone ?? data.accountTimeZone;
      const s = q.date('since', readZone);
      const u = q.date('until', readZone);
      until = u ?? now;
      since = s ?? DateTime.fromMillis(until, { zone: readZone }).minus({ months: 1 }).toMillis();
      if (until < since) throw invalid('until must not be before since.');
      if (DateTime.fromMillis(since, { zone: readZone }).plus({ months: 6 }).toMillis() < until) {
        throw invalid('The date range between since and until must not exceed 6 months.');
      }
    }

    let items = data.incidents.filter(
      (i) =>
        i.createdAt >= since &&
        i.createdAt < until &&
        (statuses.length === 0 || statuses.includes(i.status)) &&
        (urgencies.length === 0 || urgencies.includes(i.urgency)) &&
        (!services || services.has(i.serviceId)) &&
        intersectsAny(i.teamIds, teams) &&
        (!users || i.assignments.some((a) => users.has(a.userId))) &&
        (incidentKey === undefined || i.incidentKey === incidentKey),
    );
    if (sort.length > 0) items = items.slice().sort((a, b) => compareIncidents(a, b, sort));
    const r = ctx.renderer(zone);
    return paginate('incidents', items, page, (i) => r.incident(i, include, now));
  }

  function getIncident(ctx: RequestContext, id: string): unknown {
    const include = incidentInclude(ctx.q, INCLUDE.incident);
    // The platform answers an incident's number at the same path as its ID.
    const incident = data.incidentsById.get(id) ?? (/^\d{1,12}$/.test(id) ? data.incidents.find((i) => String(i.number) === id) : undefined);
    if (!incident) throw notFound();
    return { incident: ctx.renderer(null).incident(incident, include, ctx.now) };
  }

  // ---------------------------------------------------------------- log entries

  /** The account's feed, or with `incidentId` one incident's entries (GET /incidents/{id}/log_entries). */
  function listLogEntries(ctx: RequestContext, incidentId?: string): unknown {
    const { q } = ctx;
    if (incidentId !== undefined && !data.incidentsById.has(incidentId)) throw notFound();
    const page = q.page();
    const zone = q.timeZone();
    q.enumList('include[]', INCLUDE.logEntries); // validated; references are kept
    // The per-incident endpoint has no team filter.
    const teams = incidentId === undefined ? q.ids('team_ids[]') : null;
    const overview = q.bool('is_overview', false);
    const readZone = zone ?? data.accountTimeZone;
    const since = q.date('since', readZone);
    const until = q.date('until', readZone);
    if (since !== null && until !== null && until < since) throw invalid('until must not be before since.');
    // Newest first, like the platform's activity feed.
    const items: LogEntryRecord[] = [];
    for (let i = data.logEntries.length - 1; i >= 0; i--) {
      const e = data.logEntries[i] as LogEntryRecord;
      if (incidentId !== undefined && e.incidentId !== incidentId) continue;
      if (since !== null && e.createdAt < since) continue;
      if (until !== null && e.createdAt >= until) continue;
      if (overview && !OVERVIEW_TYPES.has(e.type)) continue;
      if (!intersectsAny(e.teamIds, teams)) continue;
      items.push(e);
    }
    const r = ctx.renderer(zone);
    return paginate('log_entries', items, page, (e) => r.logEntry(e));
  }

  function listIncidentAlerts(ctx: RequestContext, incidentId: string): unknown {
    const { q } = ctx;
    const alerts = data.alertsByIncident.get(incidentId);
    if (!alerts) throw notFound();
    const page = q.page();
    q.enumList('include[]', INCLUDE.alerts); // validated; references are kept
    const statuses = q.enumList('statuses[]', ['triggered', 'resolved']);
    const alertKey = q.one('alert_key');
    const sort = parseAlertSort(q.one('sort_by'));
    const items = alerts
      .filter((a) => (statuses.length === 0 || statuses.includes(a.resolvedAt === null ? 'triggered' : 'resolved')) && (alertKey === undefined || a.alertKey === alertKey))
      .sort((a, b) => {
        for (const { field, direction } of sort) {
          const x = field === 'created_at' ? a.createdAt : (a.resolvedAt ?? Infinity);
          const y = field === 'created_at' ? b.createdAt : (b.resolvedAt ?? Infinity);
          if (x !== y) return x < y ? -direction : direction;
        }
        return a.id < b.id ? -1 : 1;
      });
    const r = ctx.renderer(null);
    return paginate('alerts', items, page, (a) => r.alert(a));
  }

  /** An incident's notes, oldest first; the endpoint has no paging. */
  function listIncidentNotes(ctx: RequestContext, incidentId: string): unknown {
    if (!data.incidentsById.has(incidentId)) throw notFound();
    const r = ctx.renderer(null);
    return { notes: data.logEntries.filter((e) => e.incidentId === incidentId && e.type === 'annotate_log_entry').map((e) => r.note(e)) };
  }

  // ---------------------------------------------------------------- escalation policies

  function sortOrder(q: Query): 1 | -1 {
    const sortBy = q.one('sort_by') ?? 'name';
    if (!['name', 'name:asc', 'name:desc'].includes(sortBy)) throw invalid(`sort_by must be one of name, name:asc, name:desc; got ${JSON.stringify(sortBy)}.`);
    return sortBy === 'name:desc' ? -1 : 1;
  }

  function listPolicies(ctx: RequestContext): unknown {
    const { q } = ctx;
    const page = q.page();
    q.enumList('include[]', INCLUDE.policies); // validated; references are kept
    const order = sortOrder(q);
    const users = q.ids('user_ids[]');
    const teams = q.ids('team_ids[]');
    let items = nameFilter(sortedPolicies, q.one('query')).filter(
      (p) => intersectsAny(p.teamIds, teams) && (!users || p.rules.some((r) => r.targets.some((t) => t.kind === 'user' && users.has(t.id)))),
    );
    if (order < 0) items = items.slice().reverse();
    const r = ctx.renderer(null);
    return paginate('escalation_policies', items, page, (p) => r.policy(p));
  }

  function getPolicy(ctx: RequestContext, id: string): unknown {
    ctx.q.enumList('include[]', INCLUDE.policies);
    const policy = data.policiesById.get(id);
    if (!policy) throw notFound();
    return { escalation_policy: ctx.renderer(null).policy(policy) };
  }

  // ---------------------------------------------------------------- services

  function listServices(ctx: RequestContext): unknown {
    const { q } = ctx;
    const page = q.page();
    const zone = q.timeZone();
    const include = q.enumList('include[]', INCLUDE.services);
    const order = sortOrder(q);
    const teams = q.ids('team_ids[]');
    const exact = q.one('name');
    let items = nameFilter(sortedServices, q.one('query')).filter((s) => intersectsAny(s.teamIds, teams) && (exact === undefined || s.name === exact));
    if (order < 0) items = items.slice().reverse();
    const r = ctx.renderer(zone);
    const autoPause = include.includes('auto_pause_notifications_parameters');
    return paginate('services', items, page, (s) => r.service(s, { autoPause }));
  }

  function getService(ctx: RequestContext, id: string): unknown {
    const include = ctx.q.enumList('include[]', INCLUDE.services);
    const service = data.servicesById.get(id);
    if (!service) throw notFound();
    return { service: ctx.renderer(null).service(service, { autoPause: include.includes('auto_pause_notifications_parameters') }) };
  }

  // ---------------------------------------------------------------- schedules

  /** since/until for rendered entries: either bound defaults to two weeks from the other; neither = now .. now+14d. */
  function scheduleWindow(q: Query, zone: string, now: number): { from: number; to: number; explicit: boolean } {
    const s = q.date('since', zone);
    const u = q.date('until', zone);
    const from = s ?? (u !== null ? u - 14 * DAY : now);
    const to = u ?? from + 14 * DAY;
    if (to < from) throw invalid('until must not be before since.');
    if (to - from > 366 * DAY) throw invalid('The range between since and until must not exceed one year.');
    return { from, to, explicit: s !== null || u !== null };
  }

  function renderSchedule(ctx: RequestContext, r: Renderer, s: ScheduleRecord, opts: { layers: boolean; final: boolean; overrides: boolean; from: number; to: number; overflow: boolean; nextFor: string | undefined }): unknown {
    const out = r.schedule(s) as Record<string, unknown>;
    const keep = (shifts: Shift[]) => (opts.overflow ? shifts : clip(shifts, opts.from, opts.to));
    if (opts.layers) {
      out.schedule_layers = s.layers.map((l) => {
        const shifts = layerShifts(l, s.timeZone, opts.from, opts.to);
        return r.layer(l, { entries: keep(shifts), coverage: coveragePercentage(shifts, opts.from, opts.to) });
      });
    }
    if (opts.final) {
      const shifts = finalShifts(s, opts.from, opts.to);
      out.final_schedule = { name: 'Final Schedule', rendered_schedule_entries: r.entries(keep(shifts)), rendered_coverage_percentage: coveragePercentage(shifts, opts.from, opts.to) };
    }
    if (opts.overrides) {
      const shifts = overrideShifts(s, opts.from, opts.to);
      out.overrides_subschedule = { name: 'Overrides', rendered_schedule_entries: r.entries(keep(shifts)), rendered_coverage_percentage: coveragePercentage(shifts, opts.from, opts.to) };
    }
    if (opts.nextFor !== undefined) {
      const next = nextShiftFor(s, opts.nextFor, ctx.now, 90 * DAY);
      if (next) out.next_oncall_for_user = { start: r.time(next.start), end: r.time(next.end), user: r.userRef(opts.nextFor) };
    }
    return out;
  }

  function listSchedules(ctx: RequestContext): unknown {
    const { q } = ctx;
    const page = q.page();
    const zone = q.timeZone();
    const include = new Set(q.enumList('include[]', INCLUDE.schedules));
    const teams = q.ids('team_ids[]');
    const nextFor = q.one('include_next_oncall_for_user');
    if (nextFor !== undefined && !data.usersById.has(nextFor)) throw invalid(`include_next_oncall_for_user: unknown user ${JSON.stringify(nextFor)}.`);
    const window = scheduleWindow(q, zone ?? data.accountTimeZone, ctx.now);
    const items = nameFilter(sortedSchedules, q.one('query')).filter((s) => intersectsAny(s.teamIds, teams));
    return paginate('schedules', items, page, (s) =>
      renderSchedule(ctx, ctx.renderer(zone ?? s.timeZone), s, {
        layers: include.has('schedule_layers'),
        final: include.has('final_schedule'),
        overrides: include.has('overrides_subschedule'),
        from: window.from,
        to: window.to,
        overflow: false,
        nextFor,
      }),
    );
  }

  function getSchedule(ctx: RequestContext, id: string): unknown {
    const { q } = ctx;
    const zone = q.timeZone();
    const overflow = q.bool('overflow', false);
    const nextFor = q.one('include_next_oncall_for_user');
    const schedule = data.schedulesById.get(id);
    if (!schedule) throw notFound();
    if (nextFor !== undefined && !data.usersById.has(nextFor)) throw invalid(`include_next_oncall_for_user: unknown user ${JSON.stringify(nextFor)}.`);
    const window = scheduleWindow(q, zone ?? schedule.timeZone, ctx.now);
    return {
      schedule: renderSchedule(ctx, ctx.renderer(zone ?? schedule.timeZone), schedule, {
        layers: true,
        final: true,
        overrides: true,
        from: window.from,
        to: window.to,
        overflow,
        nextFor,
      }),
    };
  }

  // ---------------------------------------------------------------- teams

  function listTeams(ctx: RequestContext): unknown {
    const { q } = ctx;
    const page = q.page();
    const items = nameFilter(sortedTeams, q.one('query'));
    const r = ctx.renderer(null);
    return paginate('teams', items, page, (t) => r.team(t));
  }

  function getTeam(ctx: RequestContext, id: string): unknown {
    ctx.q.enumList('include[]', INCLUDE.team);
    const team = data.teamsById.get(id);
    if (!team) throw notFound();
    return { team: ctx.renderer(null).team(team) };
  }

  function listMembers(ctx: RequestContext, id: string): unknown {
    const { q } = ctx;
    const page = q.page();
    const include = new Set(q.enumList('include[]', INCLUDE.members));
    const team = data.teamsById.get(id);
    if (!team) throw notFound();
    const r = ctx.renderer(null);
    return paginate('members', team.members, page, (m) => {
      const user = data.usersById.get(m.userId) as UserRecord;
      return { user: include.has('users') ? r.user(user) : r.userRef(user.id), role: m.role };
    });
  }

  // ---------------------------------------------------------------- dispatch

  function handle(request: SandboxRequest): SandboxResponse {
    try {
      const userId = authenticate(request.headers['authorization'], options.token, options.verifyToken, data.demoUserId);
      if (userId instanceof ApiError) throw userId;
      for (const route of routes) {
        const m = route.pattern.exec(request.path);
        if (!m) continue;
        let params: string[];
        try {
          params = m.slice(1).map((p) => decodeURIComponent(p));
        } catch {
          throw notFound();
        }
        if (request.method !== 'GET') {
          return {
            status: 405,
            headers: { allow: 'GET' },
            body: { error: { message: 'Method Not Allowed', code: 2001, errors: [`The sandbox serves only GET on ${request.path}.`] } },
          };
        }
        checkHeaders(request.headers);
        const now = clock().getTime();
        const renderers = new Map<string | null, Renderer>();
        const ctx: RequestContext = {
          data,
          userId,
          q: new Query(request.query),
          baseUrl: request.baseUrl,
          now,
          renderer(zone) {
            let r = renderers.get(zone);
            if (!r) {
              r = new Renderer({ data, baseUrl: request.baseUrl, zone });
              renderers.set(zone, r);
            }
            return r;
          },
        };
        const body = route.handler(ctx, params);
        if (body instanceof RawJson) return { status: 200, text: body.text, headers: { 'content-type': 'application/json; charset=utf-8' } };
        return { status: 200, body };
      }
      throw notFound();
    } catch (err) {
      if (err instanceof ApiError) return { status: err.status, body: err.toBody() };
      if (err instanceof RangeError) return { status: 400, body: invalid(err.message).toBody() };
      throw err;
    }
  }

  // Who can sign in through the identity service (its consent page's picker and login_hint).
  const users = (): SandboxUser[] => sortedUsers.map((user) => ({ id: user.id, name: user.name, email: user.email }));
  return { prefix: 'incidentops', handle, users };
}

// ---------------------------------------------------------------- incident sorting

type SortKey = { field: 'incident_number' | 'created_at' | 'resolved_at' | 'urgency'; dir: 1 | -1 };

function parseIncidentSort(raw: string | undefined): SortKey[] {
  if (raw === undefined || raw === '') return [];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 2) throw invalid('sort_by accepts at most two fields.');
  return parts.map((p) => {
    const [field, dir = 'asc'] = p.split(':');
    if (!['incident_number', 'created_at', 'resolved_at', 'urgency'].includes(field ?? '') || !['asc', 'desc'].includes(dir)) {
      throw invalid(`sort_by ${JSON.stringify(p)} is invalid; use incident_number, created_at, resolved_at or urgency with :asc or :desc.`);
    }
    return { field: field as SortKey['field'], dir: dir === 'desc' ? -1 : 1 };
  });
}

function compareIncidents(a: IncidentRecord, b: IncidentRecord, keys: SortKey[]): number {
  for (const { field, dir } of keys) {
    let x: number;
    let y: number;
    if (field === 'incident_number') [x, y] = [a.number, b.number];
    else if (field === 'created_at') [x, y] = [a.createdAt, b.createdAt];
    else if (field === 'resolved_at') [x, y] = [a.resolvedAt ?? Infinity, b.resolvedAt ?? Infinity];
    else [x, y] = [a.urgency === 'high' ? 1 : 0, b.urgency === 'high' ? 1 : 0];
    if (x !== y) return (x < y ? -1 : 1) * dir;
  }
  return a.createdAt - b.createdAt || a.number - b.number;
}
