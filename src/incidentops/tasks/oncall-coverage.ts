/**
 * WhoIsOnCall over a window (`until`): per escalation policy and level, the shifts, every gap
 * where nobody at that level is on call, and the overrides among the shifts with whom they
 * replace. Loaded with WhoIsOnCall's logic on its first call.
 *
 * "Replaces" comes from the schedule rendered without its overrides: the platform renders each
 * layer on its own (`schedule_layers[].rendered_schedule_entries`), and the layer listed first
 * wins where several have someone, as in the final schedule.
 */
import { isRecord } from '../../core/json.js';
import type { IncidentOpsApi } from '../api.js';
import { named } from '../oncall-levels.js';
import { luxon } from '../params.js';

type Json = Record<string, unknown>;

export interface CoverageLevel {
  level: number;
  shifts: Record<string, string[]>;
  gaps: string[];
}

export interface CoveragePolicy {
  escalation_policy: string;
  levels: CoverageLevel[];
}

interface Interval {
  start: number;
  end: number;
}

/** One override of a schedule within the window, and who it stands in for over each part of it. */
export interface OverridePiece extends Interval {
  userId: string;
  replaces: { start: number; end: number; user?: string }[];
}

/** The window and how its times are shown. */
export interface CoverageWindow extends Interval {
  zone: string;
}

function millis(value: unknown): number {
  return typeof value === 'string' ? luxon().DateTime.fromISO(value, { setZone: true }).toMillis() : Number.NaN;
}

export function shownTime(time: number, zone: string): string {
  return luxon().DateTime.fromMillis(time, { zone }).toISO({ suppressSeconds: true, suppressMilliseconds: true }) as string;
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours === 0 ? `${rest} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** The parts of [from, to) that no interval covers. */
export function uncovered(intervals: readonly Interval[], from: number, to: number): Interval[] {
  const gaps: Interval[] = [];
  let reached = from;
  // A shift without a readable start or end covers nothing we can place (NaN would end every later comparison).
  for (const { start, end } of intervals.filter((i) => Number.isFinite(i.start) && Number.isFinite(i.end)).sort((a, b) => a.start - b.start)) {
    if (start > reached) gaps.push({ start: reached, end: Math.min(start, to) });
    reached = Math.max(reached, end);
    if (reached >= to) break;
  }
  if (reached < to) gaps.push({ start: reached, end: to });
  return gaps.filter((gap) => gap.start < gap.end);
}

/** Who the layers put on call over [start, end), the first listed layer winning; parts with nobody have no user. */
export function renderedWithoutOverrides(layers: readonly Json[], start: number, end: number): OverridePiece['replaces'] {
  const entries = layers.map((layer) =>
    (Array.isArray(layer.rendered_schedule_entries) ? layer.rendered_schedule_entries : []).filter(isRecord).map((entry) => ({ start: millis(entry.start), end: millis(entry.end), user: named(entry.user) })),
  );
  const cuts = new Set([start, end]);
  for (const entry of entries.flat()) for (const t of [entry.start, entry.end]) if (t > start && t < end) cuts.add(t);
  const times = [...cuts].sort((a, b) => a - b);
  const parts: OverridePiece['replaces'] = [];
  for (let i = 0; i + 1 < times.length; i++) {
    const [from, to] = [times[i] as number, times[i + 1] as number];
    const user = entries.map((layer) => layer.find((entry) => entry.start <= from && from < entry.end)).find(Boolean)?.user;
    const last = parts[parts.length - 1];
    if (last && last.user === user) last.end = to;
    else parts.push({ start: from, end: to, ...(user ? { user } : {}) });
  }
  return parts;
}

/**
 * Overrides of each schedule within the window (`/schedules/{id}/overrides`, one request each),
 * then, for the schedules that have some, the schedule's layers over the window (one more each).
 */
export async function readOverrides(api: IncidentOpsApi, scheduleIds: readonly string[], window: CoverageWindow, signal: AbortSignal): Promise<Map<string, OverridePiece[]>> {
  const range = { since: new Date(window.start).toISOString(), until: new Date(window.end).toISOString() };
  const read = async (id: string): Promise<[string, OverridePiece[]]> => {
    const { items } = await api.listPage('/schedules/{id}/overrides', 'overrides', range, signal, { id }, `schedule "${id}"`);
    const overrides = items.map((o) => ({ start: Math.max(millis(o.start), window.start), end: Math.min(millis(o.end), window.end), userId: String(isRecord(o.user) ? o.user.id : '') }));
    const real = overrides.filter((o) => o.start < o.end && o.userId !== '');
    if (real.length === 0) return [id, []];
    const schedule = await api.getOne('/schedules/{id}', { id }, 'schedule', signal, `schedule "${id}"`, range);
    const layers = (Array.isArray(schedule.schedule_layers) ? schedule.schedule_layers : []).filter(isRecord);
    return [id, real.map((o) => ({ ...o, replaces: renderedWithoutOverrides(layers, o.start, o.end) }))];
  };
  return new Map(await Promise.all(scheduleIds.map(read)));
}

function overrideFlag(piece: OverridePiece, shift: Interval, zone: string): string {
  const when = piece.start === shift.start && piece.end === shift.end ? '' : ` ${shownTime(piece.start, zone)} to ${shownTime(piece.end, zone)}`;
  const whom = piece.replaces.map((part, i) => {
    const who = part.user ?? 'nobody (a gap)';
    return i === 0 ? who : `from ${shownTime(part.start, zone)} ${who}`;
  });
  return `override${when}, replaces ${whom.length > 0 ? whom.join(', then ') : 'nobody (a gap)'}`;
}

/** Users a policy names directly, under `shifts`: on call throughout. */
export const ALWAYS = 'always';

/** One level's shifts per schedule ("Name (ID)", or ALWAYS), each override flagged with whom it replaces. */
function shiftLines(rows: readonly Json[], overrides: ReadonlyMap<string, OverridePiece[]>, zone: string): Record<string, string[]> {
  const bySchedule: Record<string, string[]> = {};
  for (const row of [...rows].sort((a, b) => millis(a.start) - millis(b.start))) {
    const user = named(row.user) as string;
    const via = row.start == null && row.end == null ? ALWAYS : (named(row.schedule) ?? '');
    const lines = (bySchedule[via] ??= []);
    if (via === ALWAYS) {
      lines.push(user);
      continue;
    }
    const shift = { start: millis(row.start), end: millis(row.end) };
    const scheduleId = isRecord(row.schedule) ? String(row.schedule.id) : undefined;
    const userId = isRecord(row.user) ? String(row.user.id) : undefined;
    const flags = (scheduleId ? (overrides.get(scheduleId) ?? []) : [])
      .filter((piece) => piece.userId === userId && piece.start < shift.end && shift.start < piece.end)
      .map((piece) => overrideFlag(piece, shift, zone));
    lines.push(`${shownTime(shift.start, zone)} to ${shownTime(shift.end, zone)} ${user}${flags.length > 0 ? `: ${flags.join('; ')}` : ''}`);
  }
  return bySchedule;
}

/**
 * Groups /oncalls rows over the window per policy and level. `levelCounts` (policy ID -> its
 * number of levels, when known) adds the levels nobody is on call at during the whole window.
 */
export function coverageLevels(rows: readonly Json[], window: CoverageWindow, overrides: ReadonlyMap<string, OverridePiece[]>, levelCounts: ReadonlyMap<string, { label: string; levels: number }>): CoveragePolicy[] {
  const policies = new Map<string, { label: string; levels: Map<number, Json[]> }>();
  for (const [id, { label, levels }] of levelCounts) {
    policies.set(id, { label, levels: new Map(Array.from({ length: levels }, (_, i) => [i + 1, []])) });
  }
  for (const row of rows) {
    const label = named(row.escalation_policy);
    if (!label || typeof row.escalation_level !== 'number' || !isRecord(row.user) || !isRecord(row.escalation_policy)) continue;
    const id = String(row.escalation_policy.id);
    let policy = policies.get(id);
    if (!policy) policies.set(id, (policy = { label, levels: new Map() }));
    const level = policy.levels.get(row.escalation_level);
    if (level) level.push(row);
    else policy.levels.set(row.escalation_level, [row]);
  }
  return [...policies.values()].map(({ label, levels }) => ({
    escalation_policy: label,
    levels: [...levels.entries()]
      .sort(([a], [b]) => a - b)
      .map(([level, levelRows]) => {
        // An open end (null) runs past the window; an open start began before it.
        const covered = levelRows.map((row) => ({ start: row.start == null ? window.start : millis(row.start), end: row.end == null ? window.end : millis(row.end) }));
        const gaps = uncovered(covered, window.start, window.end).map((gap) => `${shownTime(gap.start, window.zone)} to ${shownTime(gap.end, window.zone)} (${duration(gap.end - gap.start)})`);
        return { level, shifts: shiftLines(levelRows, overrides, window.zone), gaps };
      }),
  }));
}

/** One line for "any gap?": the gaps and overrides counted, and the first gaps named. */
export function coverageSummary(policies: readonly CoveragePolicy[]): string {
  const gaps = policies.flatMap((policy) => policy.levels.flatMap((level) => level.gaps.map((gap) => `${policy.escalation_policy} level ${level.level} ${gap}`)));
  const lines = policies.flatMap((policy) => policy.levels.flatMap((level) => Object.values(level.shifts).flat()));
  // Names are quoted (core/tools/line-text.ts): only a flag outside the quotes counts. (Interim: the "coverage" part counts the records.)
  const overrides = lines.filter((line) => line.replace(/"(?:[^"\\]|\\.)*"/g, '""').includes(': override')).length;
  const gapText = gaps.length === 0 ? 'No gaps: someone is on call at every level throughout.' : `${gaps.length} gap${gaps.length > 1 ? 's' : ''}: ${gaps.slice(0, 3).join('; ')}${gaps.length > 3 ? '; ...' : ''}.`;
  return `${gapText} ${overrides} override shift${overrides === 1 ? '' : 's'}.`;
}
