/**
 * WhoIsOnCall over a window (`until`): per escalation policy and level, the shifts, every gap
 * where nobody at that level is on call, and the overrides among the shifts with whom they
 * replace. Loaded with WhoIsOnCall's logic on its first call. The arithmetic, linear or n log n,
 * is in coverage-sweep.ts; the reading, within the call's budget, in coverage-reading.ts.
 *
 * "Replaces" comes from the schedule rendered without its overrides: the platform renders each
 * layer on its own (`schedule_layers[].rendered_schedule_entries`), and the layer listed first
 * wins where several have someone, as in the final schedule.
 */
import { isRecord } from '../../core/json.js';
import { named } from '../oncall-levels.js';
import { luxon } from '../params.js';
import { atOnce, coverageWork, instantMs, layeredSchedule, overridesMeeting, PIECE, replacementsOver, uncovered, type Held, type OverrideSpan, type Paced, type Replaced, type Span } from './coverage-sweep.js';

export { uncovered } from './coverage-sweep.js';

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

/** One override of a schedule within the window, and who it stands in for over each part of it. */
export interface OverridePiece extends OverrideSpan {
  replaces: Replaced;
}

/** The window and how its times are shown. */
export interface CoverageWindow extends Span {
  zone: string;
}

/** Parts of an override named one by one; past them, how many more hand-overs there are. */
const NAMED_PARTS = 6;
/** Overrides flagged on one shift line; past them, how many more. */
const FLAGS_PER_SHIFT = 3;

/** 0000-01-01 and 10000-01-01 UTC: the years both write with four digits. */
const [YEAR_0, YEAR_10000] = [-62_167_219_200_000, 253_402_300_800_000];

export function shownTime(time: number, zone: string): string {
  // UTC, the common case, without luxon: as its toISO with seconds and milliseconds suppressed when zero.
  if ((zone === 'UTC' || zone === 'utc') && time >= YEAR_0 && time < YEAR_10000) {
    const text = new Date(time).toISOString();
    return text.endsWith(':00.000Z') ? `${text.slice(0, -8)}Z` : text.endsWith('.000Z') ? `${text.slice(0, -5)}Z` : text;
  }
  return luxon().DateTime.fromMillis(time, { zone }).toISO({ suppressSeconds: true, suppressMilliseconds: true }) as string;
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours === 0 ? `${rest} min` : rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

/** A schedule's layers as the platform renders them over the window: each entry's times parsed once. */
function* layerEntries(layers: readonly Json[]): Paced<Held[][]> {
  const all: Held[][] = [];
  // "Name (ID)" made once per person, not once per entry.
  const labels = new Map<unknown, Map<unknown, string | undefined>>();
  const label = (user: unknown) => {
    if (!isRecord(user)) return undefined;
    let byName = labels.get(user.id);
    if (!byName) labels.set(user.id, (byName = new Map()));
    const name = user.name ?? user.summary;
    if (!byName.has(name)) byName.set(name, named(user));
    return byName.get(name);
  };
  for (const layer of layers) {
    const held: Held[] = [];
    for (const entry of Array.isArray(layer.rendered_schedule_entries) ? layer.rendered_schedule_entries : []) {
      if (held.length % PIECE === PIECE - 1) yield;
      if (!isRecord(entry)) continue;
      const user = label(entry.user);
      held.push({ start: instantMs(entry.start), end: instantMs(entry.end), ...(user !== undefined ? { user } : {}) });
    }
    all.push(held);
  }
  return all;
}

/** Who the layers put on call over [start, end), the first listed layer winning; parts with nobody have no user. */
export function renderedWithoutOverrides(layers: readonly Json[], start: number, end: number): Held[] {
  return replacementsOver(atOnce(layeredSchedule(atOnce(layerEntries(layers)))), Number.POSITIVE_INFINITY)({ start, end }).parts;
}

/** A schedule's overrides as listed (`/schedules/{id}/overrides`), cut to the window; those without a time or a user dropped. */
export function overrideSpans(scheduleId: string, items: readonly Json[], window: Span): OverrideSpan[] {
  return items.flatMap((o, index) => {
    const [start, end] = [Math.max(instantMs(o.start), window.start), Math.min(instantMs(o.end), window.end)];
    const userId = isRecord(o.user) && typeof o.user.id === 'string' ? o.user.id : '';
    if (!(start < end) || userId === '') return [];
    // The same override comes back for every policy that shares the schedule: its ID makes it one.
    const id = typeof o.id === 'string' && o.id !== '' ? o.id : `#${index}`;
    return [{ start, end, userId, key: `${scheduleId}|${id}` }];
  });
}

/** Whom each override replaces: the layers swept once, one binary search per override; in pieces (coverage-sweep.ts). */
export function* replacedSteps(overrides: readonly OverrideSpan[], layers: readonly Json[]): Paced<OverridePiece[]> {
  const replaced = replacementsOver(yield* layeredSchedule(yield* layerEntries(layers)), NAMED_PARTS);
  return overrides.map((o) => ({ ...o, replaces: replaced(o) }));
}

export const withReplaced = (overrides: readonly OverrideSpan[], layers: readonly Json[]): OverridePiece[] => atOnce(replacedSteps(overrides, layers));

/**
 * The one-line formats of a coverage answer: a shift ("<start> to <end> Name (ID)", its overrides
 * after a colon) and an override's flag. Platform text goes in through here only.
 */
const lineFormat = {
  shift(shift: Span, user: string, flags: readonly string[], zone: string): string {
    return `${shownTime(shift.start, zone)} to ${shownTime(shift.end, zone)} ${user}${flags.length > 0 ? `: ${flags.join('; ')}` : ''}`;
  },
  flag(piece: OverridePiece, shift: Span, zone: string): string {
    const when = piece.start === shift.start && piece.end === shift.end ? '' : ` ${shownTime(piece.start, zone)} to ${shownTime(piece.end, zone)}`;
    const whom = piece.replaces.parts.map((part, i) => {
      const who = part.user ?? 'nobody (a gap)';
      return i === 0 ? who : `from ${shownTime(part.start, zone)} ${who}`;
    });
    const more = piece.replaces.more > 0 ? `, then ${piece.replaces.more} more hand-over${piece.replaces.more === 1 ? '' : 's'}` : '';
    return `override${when}, replaces ${whom.length > 0 ? whom.join(', then ') : 'nobody (a gap)'}${more}`;
  },
  moreFlags(count: number): string {
    return `and ${count} more override${count === 1 ? '' : 's'}`;
  },
  gap(gap: Span, zone: string): string {
    return `${shownTime(gap.start, zone)} to ${shownTime(gap.end, zone)} (${duration(gap.end - gap.start)})`;
  },
};

/** Users a policy names directly, under `shifts`: on call throughout. */
export const ALWAYS = 'always';

/** A /oncalls row with its times read once (an open start began before the window, an open end runs past it). */
interface ShiftRow extends Span {
  row: Json;
  always: boolean;
}

/** Finds the overrides a shift holds: one lookup per schedule and user, built on first use. */
function overrideFinder(overrides: ReadonlyMap<string, OverridePiece[]>) {
  const lookups = new Map<string, ReturnType<typeof overridesMeeting<OverridePiece>>>();
  return (scheduleId: string | undefined, userId: string | undefined, shift: Span) => {
    if (scheduleId === undefined || userId === undefined) return { found: [], count: 0 };
    const key = `${scheduleId}|${userId}`;
    let lookup = lookups.get(key);
    if (!lookup) {
      lookup = overridesMeeting((overrides.get(scheduleId) ?? []).filter((piece) => piece.userId === userId), FLAGS_PER_SHIFT);
      lookups.set(key, lookup);
    }
    return lookup(shift);
  };
}

/** One level's shifts per schedule ("Name (ID)", or ALWAYS), each override flagged with whom it replaces; the overrides flagged are added to `shown`. */
function* shiftLines(rows: readonly ShiftRow[], find: ReturnType<typeof overrideFinder>, zone: string, shown: Set<string>): Paced<Record<string, string[]>> {
  const bySchedule: Record<string, string[]> = {};
  for (const [index, { row, start, end, always }] of rows.entries()) {
    if (index % 256 === 255) yield;
    const user = named(row.user) as string;
    const via = always ? ALWAYS : (named(row.schedule) ?? '');
    const lines = (bySchedule[via] ??= []);
    if (always) {
      lines.push(user);
      continue;
    }
    const shift = { start, end };
    const scheduleId = isRecord(row.schedule) ? String(row.schedule.id) : undefined;
    const userId = isRecord(row.user) ? String(row.user.id) : undefined;
    const { found, count } = find(scheduleId, userId, shift);
    for (const piece of found) shown.add(piece.key);
    const flags = found.map((piece) => lineFormat.flag(piece, shift, zone));
    if (count > found.length) flags.push(lineFormat.moreFlags(count - found.length));
    lines.push(lineFormat.shift(shift, user, flags, zone));
  }
  return bySchedule;
}

/** Rows meeting the window, times read once, sorted by start once. */
function shiftRows(rows: readonly Json[], window: Span): ShiftRow[] {
  const read = rows.map((row) => {
    const always = row.start == null && row.end == null;
    return { row, always, start: row.start == null ? window.start : instantMs(row.start), end: row.end == null ? window.end : instantMs(row.end) };
  });
  // A shift with unreadable times stays listed (NaN sorts it nowhere in particular) but covers nothing.
  return read.filter((shift) => shift.always || !(shift.start >= window.end || shift.end <= window.start)).sort((a, b) => {
    coverageWork.steps += 1;
    return a.start - b.start || 0;
  });
}

/** The coverage per policy and level, and how many distinct overrides its lines flag (counted from the records, not the lines). */
export interface Coverage {
  policies: CoveragePolicy[];
  overrides: number;
}

/**
 * Groups /oncalls rows over the window per policy and level. `levelCounts` (policy ID -> its
 * number of levels, when known) adds the levels nobody is on call at during the whole window.
 * In pieces (coverage-sweep.ts); `coverageLevels` runs it at once.
 */
export function* coverageSteps(rows: readonly Json[], window: CoverageWindow, overrides: ReadonlyMap<string, OverridePiece[]>, levelCounts: ReadonlyMap<string, { label: string; levels: number }>): Paced<Coverage> {
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
  const find = overrideFinder(overrides);
  const shown = new Set<string>();
  const result: CoveragePolicy[] = [];
  for (const { label, levels } of policies.values()) {
    const policy: CoveragePolicy = { escalation_policy: label, levels: [] };
    for (const [level, levelRows] of [...levels.entries()].sort(([a], [b]) => a - b)) {
      yield;
      const shifts = shiftRows(levelRows, window);
      const gaps = uncovered(shifts, window.start, window.end).map((gap) => lineFormat.gap(gap, window.zone));
      policy.levels.push({ level, shifts: yield* shiftLines(shifts, find, window.zone, shown), gaps });
    }
    result.push(policy);
  }
  return { policies: result, overrides: shown.size };
}

export const coverageLevels = (...args: Parameters<typeof coverageSteps>): Coverage => atOnce(coverageSteps(...args));

/** One line for "any gap?": the gaps and the distinct overrides counted, and the first gaps named. */
export function coverageSummary({ policies, overrides }: Coverage): string {
  const gaps = policies.flatMap((policy) => policy.levels.flatMap((level) => level.gaps.map((gap) => `${policy.escalation_policy} level ${level.level} ${gap}`)));
  const gapText = gaps.length === 0 ? 'No gaps: someone is on call at every level throughout.' : `${gaps.length} gap${gaps.length > 1 ? 's' : ''}: ${gaps.slice(0, 3).join('; ')}${gaps.length > 3 ? '; ...' : ''}.`;
  return `${gapText} ${overrides} override${overrides === 1 ? '' : 's'}.`;
}
