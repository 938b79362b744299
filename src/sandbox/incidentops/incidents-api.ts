/**
 * GET /incidents and /incidents/{id} (or its number): the list with its filters, its date range
 * (a month back from `until` by default, at most six months, or date_range=all) and its sort_by.
 */
import { DateTime } from 'luxon';
import { intersectsAny, paginate } from './listing.js';
import type { IncidentRecord } from './model.js';
import { invalid, notFound, type Query, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_INCIDENTS = ['acknowledgers', 'agents', 'assignees', 'conference_bridge', 'escalation_policies', 'first_trigger_log_entries', 'priorities', 'services', 'teams', 'users'];
const INCLUDE_INCIDENT = ['acknowledgers', 'agents', 'assignees', 'conference_bridge', 'custom_fields', 'escalation_policies', 'first_trigger_log_entries', 'priorities', 'services', 'teams', 'users'];
/** `body` is documented for incidents although it is missing from the include enum; accept it too. */
const INCIDENT_EXTRA_INCLUDES = ['body'];
const STATUSES = ['triggered', 'acknowledged', 'resolved'] as const;
const URGENCIES = ['high', 'low'] as const;

function incidentInclude(q: Query, allowed: readonly string[]): Set<string> {
  return new Set(q.enumList('include[]', [...allowed, ...INCIDENT_EXTRA_INCLUDES]));
}

export function listIncidents(state: IncidentOpsState, ctx: RequestContext): unknown {
  const { q, now } = ctx;
  const page = q.page();
  const zone = q.timeZone();
  const include = incidentInclude(q, INCLUDE_INCIDENTS);
  const statuses = q.enumList('statuses[]', STATUSES);
  const urgencies = q.enumList('urgencies[]', URGENCIES);
  const services = q.ids('service_ids[]');
  const teams = q.ids('team_ids[]');
  const users = q.ids('user_ids[]');
  const incidentKey = q.one('incident_key');
  const dateRange = q.one('date_range');
  if (dateRange !== undefined && dateRange !== 'all') throw invalid(`date_range must be "all", got ${JSON.stringify(dateRange)}.`);
  const sort = parseIncidentSort(q.one('sort_by'));
  const { since, until } = dateRange === 'all' ? { since: -Infinity, until: Infinity } : incidentWindow(q, zone ?? state.data.accountTimeZone, now);

  let items = state.data.incidents.filter(
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

/** since/until read in `zone`: until defaults to now, since to a month before until; at most six months apart. */
export function incidentWindow(q: Query, zone: string, now: number): { since: number; until: number } {
  const s = q.date('since', zone);
  const u = q.date('until', zone);
  const until = u ?? now;
  const since = s ?? DateTime.fromMillis(until, { zone }).minus({ months: 1 }).toMillis();
  if (until < since) throw invalid('until must not be before since.');
  if (DateTime.fromMillis(since, { zone }).plus({ months: 6 }).toMillis() < until) {
    throw invalid('The date range between since and until must not exceed 6 months.');
  }
  return { since, until };
}

export function getIncident(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  const { data } = state;
  const include = incidentInclude(ctx.q, INCLUDE_INCIDENT);
  // The platform answers an incident's number at the same path as its ID.
  const incident = data.incidentsById.get(id) ?? (/^\d{1,12}$/.test(id) ? data.incidents.find((i) => String(i.number) === id) : undefined);
  if (!incident) throw notFound();
  return { incident: ctx.renderer(null).incident(incident, include, ctx.now) };
}

// ---------------------------------------------------------------- incident sorting

type SortKey = { field: 'incident_number' | 'created_at' | 'resolved_at' | 'urgency'; dir: 1 | -1 };

export function parseIncidentSort(raw: string | undefined): SortKey[] {
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

export function compareIncidents(a: IncidentRecord, b: IncidentRecord, keys: SortKey[]): number {
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
