/**
 * IncidentStats' logic, loaded on its first call (the definition is in ../tools/incident-stats.ts).
 * GET only: the incidents of the window, the account's log feed over it (notifications and
 * acknowledgements; the analytics endpoints are POST queries and are not used), and the
 * responders' time zones. Sorting and grouping are plain loops over at most a few thousand records.
 */
import { isRecord } from '../../core/json.js';
import { labelText } from '../../core/tools/line-text.js';
import type { ToolContext } from '../../core/tools/tool.js';
import { API_PAGE_SIZE } from '../api.js';
import type { IncidentOpsDeps } from '../deps.js';
import { named } from '../oncall-levels.js';
import { luxon, MAX_FILTER_IDS, parseIsoTime, STATS_PAGES } from '../params.js';
import { resolveByIdOrName } from './by-name.js';

type Json = Record<string, unknown>;

/** What the logic is called with: the definition's checked input. */
export interface IncidentStatsArgs {
  service_id?: string | undefined;
  team_id?: string | undefined;
  escalation_policy_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  days?: number | undefined;
  time_zone?: string | undefined;
}

export interface Times {
  count: number;
  median_min?: number;
  p90_min?: number;
  left_out?: number;
}

/** What it answers, as the definition's output schema states it. */
export interface IncidentStatsResult {
  of: string;
  window: string;
  incidents: { total: number; by_urgency: Record<string, number>; by_status: Record<string, number> };
  time_to_acknowledge: Times;
  time_to_resolve: Times;
  pages: { total: number; out_of_hours: number; at_night: number };
  responders: string[];
  measured: string;
  partial?: string[];
}

export const DEFAULT_DAYS = 30;
const DAY_MS = 86_400_000;
/** Office hours, local: a page before OFFICE_START or from OFFICE_END, or on a weekend, is out of hours. */
export const OFFICE_START = 8;
export const OFFICE_END = 20;
/** Night, local: from NIGHT_START to NIGHT_END (the next morning). */
export const NIGHT_START = 22;
export const NIGHT_END = 7;
/** Responders listed (most paged first); the rest are one line. */
export const RESPONDERS_SHOWN = 10;
/** An incident's urgencies and statuses as the spec lists them. */
const URGENCIES: readonly string[] = ['high', 'low'];
const STATUSES: readonly string[] = ['triggered', 'acknowledged', 'resolved'];

export const MEASURED =
  'Acknowledge: created to the first acknowledge log entry (never-acknowledged left out). Resolve: created to resolved_at (else last_status_change_at), resolved only. ' +
  "Median and p90 by nearest rank. Pages: notify log entries; in the responder's time zone: out of hours before 08:00, from 20:00 or weekends; night 22:00-07:00.";

/** The window: `since`/`until` as given, else `days` (default 30) back from `until` (default now). */
export function statsWindow(args: IncidentStatsArgs, now: Date): { since: number; until: number } {
  const until = args.until !== undefined ? (parseIsoTime(args.until)?.toMillis() ?? now.getTime()) : now.getTime();
  const since = args.since !== undefined ? (parseIsoTime(args.since)?.toMillis() ?? until) : until - (args.days ?? DEFAULT_DAYS) * DAY_MS;
  return { since, until };
}

/** The value at rank ceil(p * n) of the sorted values (nearest rank), in minutes to one decimal. */
export function nearestRank(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const value = sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
  return Math.round(value / 6_000) / 10;
}

function times(durations: number[], leftOut: number): Times {
  durations.sort((a, b) => a - b);
  const median = nearestRank(durations, 0.5);
  const p90 = nearestRank(durations, 0.9);
  return { count: durations.length, ...(median !== undefined ? { median_min: median } : {}), ...(p90 !== undefined ? { p90_min: p90 } : {}), ...(leftOut > 0 ? { left_out: leftOut } : {}) };
}

/** Local weekday (0 Sunday) and hour of `ms` in `zone` (an IANA name). */
export function localClock(ms: number, zone: string): { weekday: number; hour: number } {
  const local = luxon().DateTime.fromMillis(ms, { zone });
  return { weekday: local.weekday % 7, hour: local.hour };
}

export function outOfHours(clock: { weekday: number; hour: number }): boolean {
  return clock.weekday === 0 || clock.weekday === 6 || clock.hour < OFFICE_START || clock.hour >= OFFICE_END;
}

export function atNight(clock: { hour: number }): boolean {
  return clock.hour >= NIGHT_START || clock.hour < NIGHT_END;
}

function utcText(ms: number): string {
  return new Date(ms).toISOString().replace(/:\d\d\.\d{3}Z$/, 'Z');
}

function refId(value: unknown): string | undefined {
  return isRecord(value) && typeof value.id === 'string' ? value.id : undefined;
}

function refIds(list: unknown): string[] {
  return Array.isArray(list) ? list.map(refId).filter((id): id is string => id !== undefined) : [];
}

/** The subject, its label, and the filters its incidents and log feed are read with. */
async function subjectOf(args: IncidentStatsArgs, deps: IncidentOpsDeps, signal: AbortSignal): Promise<{ of: string; incidentFilter: Json; teamIds: string[]; note?: string }> {
  if (args.service_id !== undefined) {
    const service = await resolveByIdOrName(deps.api, 'service', 'service_id', args.service_id, signal);
    return { of: `service ${named(service) as string}`, incidentFilter: { 'service_ids[]': [String(service.id)] }, teamIds: refIds(service.teams) };
  }
  if (args.team_id !== undefined) {
    const team = await resolveByIdOrName(deps.api, 'team', 'team_id', args.team_id, signal);
    return { of: `team ${named(team) as string}`, incidentFilter: { 'team_ids[]': [String(team.id)] }, teamIds: [String(team.id)] };
  }
  const policy = await resolveByIdOrName(deps.api, 'escalation_policy', 'escalation_policy_id', args.escalation_policy_id as string, signal);
  const services = refIds(policy.services);
  const kept = services.slice(0, MAX_FILTER_IDS);
  return {
    of: `escalation policy ${named(policy) as string}`,
    // A policy with no service has no incidents; the filter with none would read every service's.
    incidentFilter: { 'service_ids[]': kept.length > 0 ? kept : ['-'] },
    teamIds: refIds(policy.teams),
    ...(services.length > kept.length ? { note: `incidents: the policy's first ${kept.length} of ${services.length} services only` } : {}),
  };
}

interface Responder {
  id: string;
  name?: string;
  pages: number;
  outOfHours: number;
  night: number;
  nightIncidents: Set<string>;
}

export async function incidentStats(args: IncidentStatsArgs, context: ToolContext<IncidentOpsDeps>): Promise<IncidentStatsResult> {
  const { deps, signal } = context;
  const { since, until } = statsWindow(args, deps.now());
  const subject = await subjectOf(args, deps, signal);
  const partial: string[] = subject.note ? [subject.note] : [];
  const window = { since: new Date(since).toISOString(), until: new Date(until).toISOString() };

  // Newest first, so that a walk cut short still covers the window's end, whole.
  const [incidentsRead, logRead] = await Promise.all([
    deps.api.listAll('/incidents', 'incidents', { ...window, ...subject.incidentFilter, sort_by: 'created_at:desc' }, signal, { maxItems: STATS_PAGES.incidents * API_PAGE_SIZE }),
    deps.api.listAll('/log_entries', 'log_entries', { ...window, ...(subject.teamIds.length > 0 ? { 'team_ids[]': subject.teamIds.slice(0, MAX_FILTER_IDS) } : {}) }, signal, {
      maxItems: STATS_PAGES.logEntries * API_PAGE_SIZE,
    }),
  ]);

  // What was read whole: incidents from the oldest one read, log entries from the oldest entry read.
  let incidentsFrom = since;
  if (incidentsRead.truncated) {
    incidentsFrom = oldest(incidentsRead.items) ?? until;
    partial.push(`incidents: those created from ${utcText(incidentsFrom)} only (${incidentsRead.items.length} read${incidentsRead.why ? `; ${incidentsRead.why}` : ', the most one call reads'}); ask for a shorter window`);
  }
  const incidents = incidentsRead.items.filter((incident) => createdAt(incident) >= incidentsFrom);
  let logFrom = since;
  if (logRead.truncated) {
    logFrom = Math.max(oldest(logRead.items) ?? until, incidentsFrom);
    partial.push(`acknowledgements and pages: for incidents created from ${utcText(logFrom)} only (the log feed, ${logRead.items.length} entries read${logRead.why ? `; ${logRead.why}` : ', the most one call reads'})`);
  }

  const byUrgency: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const created = new Map<string, number>();
  const resolveDurations: number[] = [];
  for (const incident of incidents) {
    // Keys are the spec's values only: any other text a platform sends is counted as `other`, never made a key.
    const urgency = URGENCIES.includes(incident.urgency as string) ? (incident.urgency as string) : 'other';
    const status = STATUSES.includes(incident.status as string) ? (incident.status as string) : 'other';
    byUrgency[urgency] = (byUrgency[urgency] ?? 0) + 1;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const start = createdAt(incident);
    created.set(String(incident.id), start);
    if (status === 'resolved') {
      const end = Date.parse(String(incident.resolved_at ?? incident.last_status_change_at ?? ''));
      if (Number.isFinite(end) && end >= start) resolveDurations.push(end - start);
    }
  }

  // The log feed: the first acknowledgement of each incident, and every notification.
  const firstAck = new Map<string, number>();
  const notifications: { incident: string; user: Json; at: number }[] = [];
  for (const entry of logRead.items) {
    const incidentId = refId(entry.incident);
    const start = incidentId !== undefined ? created.get(incidentId) : undefined;
    if (incidentId === undefined || start === undefined || start < logFrom) continue;
    const at = Date.parse(String(entry.created_at ?? ''));
    if (!Number.isFinite(at)) continue;
    if (entry.type === 'acknowledge_log_entry') {
      const known = firstAck.get(incidentId);
      if (known === undefined || at < known) firstAck.set(incidentId, at);
    } else if (entry.type === 'notify_log_entry' && isRecord(entry.user) && refId(entry.user) !== undefined) {
      notifications.push({ incident: incidentId, user: entry.user, at });
    }
  }
  const ackDurations: number[] = [];
  let neverAcked = 0;
  for (const [id, start] of created) {
    if (start < logFrom) continue;
    const ack = firstAck.get(id);
    if (ack === undefined) neverAcked += 1;
    else ackDurations.push(Math.max(0, ack - start));
  }

  // Each responder's time zone (GET /users/{id}), the most paged first, within the call's share.
  const responders = new Map<string, Responder>();
  for (const { user } of notifications) {
    const id = refId(user) as string;
    const known = responders.get(id) ?? { id, pages: 0, outOfHours: 0, night: 0, nightIncidents: new Set<string>(), ...(typeof user.summary === 'string' ? { name: user.summary } : {}) };
    known.pages += 1;
    responders.set(id, known);
  }
  const ranked = [...responders.values()].sort((a, b) => b.pages - a.pages || (a.id < b.id ? -1 : 1));
  const zones = await responderZones(ranked.slice(0, STATS_PAGES.users), deps, signal, partial);
  const fallbackZone = args.time_zone ?? 'Etc/UTC';
  if (ranked.length > STATS_PAGES.users) partial.push(`time zones: read for the ${STATS_PAGES.users} most paged responders; the other ${ranked.length - STATS_PAGES.users} counted in ${fallbackZone}`);
  let outOfHoursPages = 0;
  let nightPages = 0;
  for (const page of notifications) {
    const responder = responders.get(refId(page.user) as string) as Responder;
    const clock = localClock(page.at, zones.get(responder.id)?.zone ?? fallbackZone);
    if (outOfHours(clock)) {
      outOfHoursPages += 1;
      responder.outOfHours += 1;
    }
    if (atNight(clock)) {
      nightPages += 1;
      responder.night += 1;
      responder.nightIncidents.add(page.incident);
    }
  }

  const lines = ranked.slice(0, RESPONDERS_SHOWN).map((r) => {
    const zone = zones.get(r.id);
    const name = zone?.name ?? r.name;
    return `${labelText(name, r.id) as string}: ${r.pages} pages, ${r.outOfHours} out of hours, ${r.night} at night (${r.nightIncidents.size} incidents) in ${zone?.zone ?? `${fallbackZone} (no zone read)`}`;
  });
  if (ranked.length > RESPONDERS_SHOWN) lines.push(`… and ${ranked.length - RESPONDERS_SHOWN} more`);

  return {
    of: subject.of,
    window: `${utcText(since)} to ${utcText(until)} (${Math.round(((until - since) / DAY_MS) * 10) / 10} days)`,
    incidents: { total: incidents.length, by_urgency: byUrgency, by_status: byStatus },
    time_to_acknowledge: times(ackDurations, neverAcked),
    time_to_resolve: times(resolveDurations, incidents.length - resolveDurations.length),
    pages: { total: notifications.length, out_of_hours: outOfHoursPages, at_night: nightPages },
    responders: lines,
    measured: MEASURED,
    ...(partial.length > 0 ? { partial } : {}),
  };
}

function createdAt(record: Json): number {
  const at = Date.parse(String(record.created_at ?? ''));
  return Number.isFinite(at) ? at : Number.NaN;
}

function oldest(records: readonly Json[]): number | undefined {
  let least: number | undefined;
  for (const record of records) {
    const at = createdAt(record);
    if (Number.isFinite(at) && (least === undefined || at < least)) least = at;
  }
  return least;
}

/** Each responder's name and IANA zone from their user record; one that cannot be read keeps the fallback, said in `partial`. */
async function responderZones(responders: readonly Responder[], deps: IncidentOpsDeps, signal: AbortSignal, partial: string[]): Promise<Map<string, { zone?: string; name?: string }>> {
  const zones = new Map<string, { zone?: string; name?: string }>();
  let unread = 0;
  await Promise.all(
    responders.map(async (responder) => {
      try {
        const user = await deps.api.getOne('/users/{id}', { id: responder.id }, 'user', signal, `user ${responder.id}`);
        const zone = typeof user.time_zone === 'string' && luxon().IANAZone.isValidZone(user.time_zone) ? user.time_zone : undefined;
        zones.set(responder.id, { ...(zone ? { zone } : {}), ...(typeof user.name === 'string' ? { name: user.name } : {}) });
      } catch (error) {
        if (signal.aborted) throw error;
        unread += 1;
      }
    }),
  );
  if (unread > 0) partial.push(`time zones: ${unread} responders' records could not be read; their pages counted in the fallback zone`);
  return zones;
}
