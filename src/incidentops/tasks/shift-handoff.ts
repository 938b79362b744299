/** ShiftHandoff's logic, loaded on its first call (the definition is in ../tools/shift-handoff.ts). */
import { isRecord } from '../../core/json.js';
import { quotedText, timeText } from '../../core/tools/line-text.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { IncidentOpsDeps } from '../deps.js';
import { named, onCallLevels } from '../oncall-levels.js';
import { NEXT_SHIFT_LOOKAHEAD_DAYS } from '../params.js';
import { noteLine } from './note-line.js';
import { whoIsOnCall } from './who-is-on-call.js';

type Json = Record<string, unknown>;

export interface ShiftHandoffArgs {
  user_id?: string | undefined;
  schedule_id?: string | undefined;
  escalation_policy_id?: string | undefined;
  escalation_level?: number | undefined;
}

export interface ShiftHandoffResult {
  at: string;
  subject: string;
  phase: 'ending' | 'started' | 'ended' | 'none';
  shift?: string;
  handover?: string;
  levels: string[];
  incidents?: {
    opened: number;
    open: number;
    resolved: number;
    time_to_acknowledge: string;
    time_to_resolve: string;
    open_incidents: string[];
    resolved_incidents: string[];
  };
  next_on_call: string[];
  coming_24h: string[];
  partial?: string[];
  note?: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A shift that began this recently has just started: the handover that matters is the one at its start. */
export const JUST_STARTED = 2 * HOUR;
/** Shifts are looked for this far back (a weekly shift that just ended, with a day to spare). */
export const LOOKBACK_DAYS = 8;
/** Bounds (pages of 100, policies, notes): past them the answer says `partial`. */
export const HANDOFF_BOUNDS = { subjectPages: 2, aroundPages: 2, policies: 3, incidentPages: 3, logPages: 3, notes: 10, coveragePolicies: 2 } as const;
const NOTE_CHARS = 300;
const TITLE_CHARS = 200;

const ms = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : Number.NaN);
const iso = (time: number): string => new Date(time).toISOString().replace(/\.000Z$/, 'Z');
const minutes = (span: number): string => (span < HOUR ? `${Math.round(span / 60_000)} min` : `${(span / HOUR).toFixed(1)} h`);
const idOf = (value: unknown): string | undefined => (isRecord(value) && typeof value.id === 'string' ? value.id : undefined);

interface Shift {
  rows: Json[];
  start: number;
  end: number;
  scheduleId: string | undefined;
  user: Json;
}

/** /oncalls rows with times grouped into shifts: one person, one schedule, one span (policies and levels through it together). */
function shiftsOf(rows: readonly Json[]): Shift[] {
  const byKey = new Map<string, Shift>();
  for (const row of rows) {
    const start = ms(row.start);
    const end = ms(row.end);
    if (!(start < end) || !isRecord(row.user)) continue;
    const scheduleId = idOf(row.schedule);
    const key = `${scheduleId ?? ''}|${String(row.user.id)}|${start}|${end}`;
    const seen = byKey.get(key);
    if (seen) seen.rows.push(row);
    else byKey.set(key, { rows: [row], start, end, scheduleId, user: row.user });
  }
  return [...byKey.values()];
}

const levelKey = (row: Json) => `${String(idOf(row.escalation_policy))}|${String(row.escalation_level)}`;

/** Time-to figures as one line: average and longest over the incidents that have one. */
function figure(spans: number[], what: string, none: string): string {
  if (spans.length === 0) return none;
  const average = spans.reduce((a, b) => a + b, 0) / spans.length;
  return `average ${minutes(average)}, longest ${minutes(Math.max(...spans))} (${spans.length} ${what})`;
}

export async function shiftHandoff(args: ShiftHandoffArgs, context: ToolContext<IncidentOpsDeps>): Promise<ShiftHandoffResult> {
  const { deps, signal } = context;
  const now = Math.floor(deps.now().getTime() / 1000) * 1000;
  const partial: string[] = [];
  let pagesRead = 0;
  const pages = (what: string) => (page: number) => context.progress(++pagesRead, undefined, `Reading ${what}: page ${page}`);

  // The subject, and its shifts over the lookback up to now.
  let subject: string;
  const query: Json = {};
  if (args.schedule_id) {
    subject = `schedule ${args.schedule_id}`;
    query['schedule_ids[]'] = [args.schedule_id];
  } else if (args.escalation_policy_id) {
    subject = `escalation policy ${args.escalation_policy_id} level ${args.escalation_level ?? 1}`;
    query['escalation_policy_ids[]'] = [args.escalation_policy_id];
  } else {
    const user = args.user_id ? await deps.api.getOne('/users/{id}', { id: args.user_id }, 'user', signal, `user "${args.user_id}"`) : await deps.api.getOne('/users/me', {}, 'user', signal, 'the current user');
    subject = named(user) as string;
    query['user_ids[]'] = [String(user.id)];
  }
  const mine = await deps.api.listAll('/oncalls', 'oncalls', { ...query, since: iso(now - LOOKBACK_DAYS * DAY), until: iso(now + 60_000) }, signal, {
    maxItems: HANDOFF_BOUNDS.subjectPages * 100,
    onProgress: pages('the shifts'),
  });
  if (mine.truncated) partial.push(`shifts: not every shift of the last ${LOOKBACK_DAYS} days was read${mine.why ? ` (${mine.why})` : ''}`);
  let rows = mine.items;
  if (args.escalation_policy_id) rows = rows.filter((row) => row.escalation_level === (args.escalation_level ?? 1));
  const shifts = shiftsOf(rows);
  const current = shifts.filter((s) => s.start <= now && now < s.end).sort((a, b) => a.end - b.end)[0];
  const ended = shifts.filter((s) => s.end <= now).sort((a, b) => b.end - a.end)[0];
  const base = { at: iso(now), subject };
  const chosen = current ?? ended;
  if (!chosen) {
    const always = rows.some((row) => row.start == null);
    return {
      ...base,
      phase: 'none',
      levels: [],
      next_on_call: [],
      coming_24h: [],
      ...(partial.length > 0 ? { partial } : {}),
      note: always ? 'On call at all times (named directly by an escalation policy): no shift to hand over.' : `No shift now or in the last ${LOOKBACK_DAYS} days.`,
    };
  }
  const phase: ShiftHandoffResult['phase'] = current ? (now - current.start <= JUST_STARTED ? 'started' : 'ending') : 'ended';
  const handoverAt = phase === 'started' ? chosen.start : chosen.end;
  const levels = new Set(chosen.rows.map(levelKey));
  const policyIds = [...new Set(chosen.rows.map((row) => idOf(row.escalation_policy)).filter((id): id is string => id !== undefined))];

  // The shifts around the handover, for the same policies: who hands over, who takes over, who is next.
  const around = await deps.api.listAll(
    '/oncalls',
    'oncalls',
    { 'escalation_policy_ids[]': policyIds, since: iso(handoverAt - 1000), until: iso(handoverAt + NEXT_SHIFT_LOOKAHEAD_DAYS * DAY) },
    signal,
    { maxItems: HANDOFF_BOUNDS.aroundPages * 100, onProgress: pages('the shifts around the handover') },
  );
  if (around.truncated) partial.push(`next_on_call: not every shift after the handover was read${around.why ? ` (${around.why})` : ''}`);
  const sameLevel = around.items.filter((row) => levels.has(levelKey(row)) && idOf(row.schedule) === chosen.scheduleId);
  const before = shiftsOf(sameLevel).find((s) => s.end === handoverAt);
  const after = shiftsOf(sameLevel).find((s) => s.start <= handoverAt && handoverAt < s.end);
  // The shift whose incidents are shown: the one ending (up to now), or the one that just ended.
  const reported = phase === 'started' ? before : chosen;
  const from = phase === 'started' ? named(before?.user) : named(chosen.user);
  const to = phase === 'started' ? named(chosen.user) : named(after?.user);
  const via = named(chosen.rows[0]?.schedule) ?? 'no schedule';
  const shiftLine = reported ? `${timeText(iso(reported.start))} to ${timeText(iso(reported.end))} ${named(reported.user) ?? 'unknown'} via ${via}` : undefined;
  const handover = `${timeText(iso(handoverAt))}: ${from ?? 'nobody'} hands over to ${to ?? 'nobody (a gap)'}${phase === 'ending' ? ` (in ${minutes(handoverAt - now)})` : ` (${minutes(now - handoverAt)} ago)`}`;
  const levelLines = chosen.rows.map((row) => `${named(row.escalation_policy) ?? 'unknown policy'} level ${String(row.escalation_level)}`);
  const nextOnCall = onCallLevels(
    around.items.filter((row) => levels.has(levelKey(row))),
    handoverAt,
    true,
  ).flatMap((policy) =>
    policy.levels.flatMap((level) =>
      level.on_call.map((who) => `${policy.escalation_policy} level ${level.level}: ${who.nobody ? 'nobody' : who.user}${who.always ? ' (always)' : ''}${who.until ? ` until ${timeText(who.until)}` : ''}${who.next ? `, then ${who.next.user} from ${timeText(who.next.from)}` : ''}`),
    ),
  );

  const [incidents, coming] = await Promise.all([
    reported ? shiftIncidents(context, policyIds, reported.start, Math.min(reported.end, now), now, partial, pages) : Promise.resolve(undefined),
    coming24h(context, policyIds, now, partial),
  ]);
  return {
    ...base,
    phase,
    ...(shiftLine ? { shift: shiftLine } : {}),
    handover,
    levels: levelLines,
    ...(incidents ? { incidents } : {}),
    next_on_call: nextOnCall,
    coming_24h: coming,
    ...(partial.length > 0 ? { partial } : {}),
    ...(phase === 'started' && !before ? { note: 'The shift before this one was not found: nobody was on call at this level just before it.' } : {}),
  };
}

/**
 * The incidents created during [start, end) on the services of the shift's policies, with time to
 * acknowledge and resolve from their log entries (the first acknowledge and resolve entries; the
 * incident's own fields where the entries were not read), and each open one's newest note.
 */
async function shiftIncidents(
  context: ToolContext<IncidentOpsDeps>,
  policyIds: string[],
  start: number,
  end: number,
  now: number,
  partial: string[],
  pages: (what: string) => (page: number) => void,
): Promise<NonNullable<ShiftHandoffResult['incidents']>> {
  const { deps, signal } = context;
  if (policyIds.length > HANDOFF_BOUNDS.policies) partial.push(`incidents: the services of the first ${HANDOFF_BOUNDS.policies} of ${policyIds.length} policies only`);
  const policies = await Promise.all(
    policyIds.slice(0, HANDOFF_BOUNDS.policies).map((id) => deps.api.getOne('/escalation_policies/{id}', { id }, 'escalation_policy', signal, `escalation policy "${id}"`)),
  );
  const serviceIds = [...new Set(policies.flatMap((policy) => (Array.isArray(policy.services) ? policy.services.map(idOf).filter((id): id is string => id !== undefined) : [])))];
  const empty = { opened: 0, open: 0, resolved: 0, time_to_acknowledge: 'no incidents', time_to_resolve: 'no incidents', open_incidents: [], resolved_incidents: [] };
  if (serviceIds.length === 0) return empty;
  const [listed, log] = await Promise.all([
    deps.api.listAll(
      '/incidents',
      'incidents',
      { 'service_ids[]': serviceIds, 'statuses[]': ['triggered', 'acknowledged', 'resolved'], since: iso(start), until: iso(end), sort_by: 'created_at:asc' },
      signal,
      { maxItems: HANDOFF_BOUNDS.incidentPages * 100, onProgress: pages("the shift's incidents") },
    ),
    // Without the log, the times come from the incidents' own fields (said in partial).
    deps.api
      .listAll('/log_entries', 'log_entries', { since: iso(start), until: iso(now + 1000), is_overview: true }, signal, {
        maxItems: HANDOFF_BOUNDS.logPages * 100,
        onProgress: pages('the log entries'),
      })
      .catch((error: unknown) => {
        if (signal.aborted) throw error;
        partial.push(`times: the log entries could not be read (${error instanceof Error ? error.message : String(error)}); times from the incidents' own fields`);
        return { items: [] as Json[], truncated: false, why: undefined };
      }),
  ]);
  if (listed.truncated) partial.push(`incidents: the first ${listed.items.length} of the shift only${listed.why ? ` (${listed.why})` : ''}`);
  if (log.truncated) partial.push(`times: log entries read up to ${HANDOFF_BOUNDS.logPages * 100}; the others' times from the incidents' own fields`);
  const incidents = listed.items.filter((incident) => ms(incident.created_at) >= start && ms(incident.created_at) < end);
  const firstEntry = new Map<string, number>();
  for (const entry of log.items) {
    const incidentId = idOf(entry.incident);
    if (!incidentId || (entry.type !== 'acknowledge_log_entry' && entry.type !== 'resolve_log_entry')) continue;
    const key = `${incidentId}|${String(entry.type)}`;
    const at = ms(entry.created_at);
    if (!(at >= (firstEntry.get(key) ?? Infinity))) firstEntry.set(key, at);
  }
  const acked: number[] = [];
  const resolvedSpans: number[] = [];
  const open: Json[] = [];
  const resolvedLines: string[] = [];
  const timesOf = (incident: Json) => {
    const created = ms(incident.created_at);
    const id = String(incident.id);
    const firstAck = Array.isArray(incident.acknowledgements) && isRecord(incident.acknowledgements[0]) ? ms(incident.acknowledgements[0].at) : Number.NaN;
    const ack = firstEntry.get(`${id}|acknowledge_log_entry`) ?? firstAck;
    const fieldResolved = incident.status === 'resolved' ? ms(incident.resolved_at ?? incident.last_status_change_at) : Number.NaN;
    const resolved = firstEntry.get(`${id}|resolve_log_entry`) ?? fieldResolved;
    return { ack: ack - created, resolve: resolved - created };
  };
  for (const incident of incidents) {
    const { ack, resolve } = timesOf(incident);
    if (ack >= 0) acked.push(ack);
    if (incident.status === 'resolved') {
      if (resolve >= 0) resolvedSpans.push(resolve);
      resolvedLines.push(`${incidentLabel(incident)}: ${String(incident.urgency)}, resolved${resolve >= 0 ? ` in ${minutes(resolve)}` : ''}${ack >= 0 ? `, acknowledged in ${minutes(ack)}` : ''}`);
    } else open.push(incident);
  }
  const withNotes = open.slice(0, HANDOFF_BOUNDS.notes);
  if (open.length > withNotes.length) partial.push(`notes: the last note of the first ${withNotes.length} of ${open.length} open incidents only`);
  let why: string | undefined;
  const notes = await Promise.all(
    withNotes.map(async (incident) => {
      const id = String(incident.id);
      try {
        const page = await deps.api.listPage('/incidents/{id}/notes', 'notes', {}, signal, { id }, `incident "${id}"`);
        return page.items.filter(isRecord).sort((a, b) => ms(b.created_at) - ms(a.created_at))[0];
      } catch (error) {
        if (signal.aborted) throw error;
        why ??= error instanceof Error ? error.message : String(error);
        return null;
      }
    }),
  );
  const unread = withNotes.filter((_, index) => notes[index] === null).map((incident) => `#${String(incident.incident_number)}`);
  if (unread.length > 0) partial.push(`notes: ${unread.join(', ')}'s could not be read (${why ?? 'no answer'})`);
  const openLines = open.map((incident, index) => {
    const { ack } = timesOf(incident);
    const who = Array.isArray(incident.assignments) ? incident.assignments.map((a) => (isRecord(a) ? named(a.assignee) : undefined)).filter(Boolean).join(', ') : '';
    const note = notes[index];
    return `${incidentLabel(incident)}: ${String(incident.urgency)}, ${String(incident.status)}${ack >= 0 ? ` in ${minutes(ack)}` : ''}${who ? `, assigned to ${who}` : ''}; last note: ${note ? noteLine(note, NOTE_CHARS) : note === null || index >= withNotes.length ? 'not read' : 'none'}`;
  });
  return {
    opened: incidents.length,
    open: open.length,
    resolved: resolvedLines.length,
    time_to_acknowledge: figure(acked, 'acknowledged', 'none acknowledged'),
    time_to_resolve: figure(resolvedSpans, 'resolved', 'none resolved'),
    open_incidents: openLines,
    resolved_incidents: resolvedLines,
  };
}

function incidentLabel(incident: Json): string {
  return `#${String(incident.incident_number)} ${quotedText(incident.title, TITLE_CHARS)} (${String(incident.id)})`;
}

/** A coverage shift line with an override: `time to time Name (ID): override`, the name and ID bare or quoted, so no name can fake one. */
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const OVERRIDE_SHIFT = new RegExp(`^\\S+ to \\S+ (?:${QUOTED}|[^"(:]*?) \\((?:${QUOTED}|[^)"]*)\\): override`);

/** Gaps and overrides over the next 24 hours, per policy: WhoIsOnCall's coverage, its gap and override lines. */
async function coming24h(context: ToolContext<IncidentOpsDeps>, policyIds: string[], now: number, partial: string[]): Promise<string[]> {
  const lines: string[] = [];
  const asked = policyIds.slice(0, HANDOFF_BOUNDS.coveragePolicies);
  if (policyIds.length > asked.length) partial.push(`coming_24h: the first ${asked.length} of ${policyIds.length} policies only`);
  for (const id of asked) {
    const coverage = await whoIsOnCall({ escalation_policy_id: id, at: iso(now), until: iso(now + DAY) }, context);
    for (const policy of coverage.escalation_policies) {
      for (const level of policy.levels) {
        for (const gap of level.gaps ?? []) lines.push(`${policy.escalation_policy} level ${level.level}: gap ${gap}`);
        for (const shift of Object.values(level.shifts ?? {}).flat()) if (OVERRIDE_SHIFT.test(shift)) lines.push(`${policy.escalation_policy} level ${level.level}: ${shift}`);
      }
    }
    if (coverage.covered_until) partial.push(`coming_24h: ${coverage.escalation_policies[0]?.escalation_policy ?? id} covered up to ${coverage.covered_until} only`);
    if (lines.length === 0 && coverage.summary) lines.push(`${coverage.escalation_policies[0]?.escalation_policy ?? id}: ${coverage.summary}`);
  }
  return lines;
}
