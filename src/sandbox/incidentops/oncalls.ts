/**
 * On-call shift computation from schedule layers.
 *
 * A layer rotates through its users in fixed-length turns counted from rotation_virtual_start:
 * turn k covers [vs + k*len, vs + (k+1)*len) and belongs to users[k mod n]. The layer only
 * counts between its start and end, and, when it has restrictions, only inside the restriction
 * windows (computed in the schedule's time zone). The final schedule stacks the layers: layer 0
 * wins wherever it has a shift; lower layers fill the gaps. Shift boundaries are therefore always
 * real boundaries (turn changes, restriction edges, or a higher layer taking over), never the
 * edges of the query window, and the same instant always yields the same user.
 *
 * All intervals are half-open [start, end) in epoch milliseconds. Callers that ask about a single
 * instant t use the window [t, t + 1).
 */
import { DateTime } from 'luxon';
import type { LayerRecord, RestrictionRecord, ScheduleRecord } from './model.js';

export interface Shift {
  userId: string;
  start: number;
  end: number;
  layerId: string;
}

const DAY_MS = 86_400_000;
/** Guard against pathological requests (e.g. a 30-year window over a daily rotation). */
const MAX_TURNS_PER_LAYER = 200_000;

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

/** Does [start, end) meet the query window [from, to)? */
export function intersects(start: number, end: number, from: number, to: number): boolean {
  return start < to && end > from;
}

/**
 * Restriction windows (full extent, merged when they touch or overlap) that meet [from, to).
 * Local times are interpreted in `timeZone`, so windows follow daylight-saving changes.
 */
export function restrictionWindows(restrictions: readonly RestrictionRecord[], timeZone: string, from: number, to: number): [number, number][] {
  const windows: [number, number][] = [];
  const longest = Math.max(...restrictions.map((r) => r.durationSeconds * 1000), 0);
  // Start early enough to catch a window that began before `from` and is still running.
  let day = DateTime.fromMillis(from - longest - DAY_MS, { zone: timeZone }).startOf('day');
  const stop = to + DAY_MS;
  for (let guard = 0; day.toMillis() < stop && guard < 100_000; guard++) {
    for (const r of restrictions) {
      if (r.type === 'weekly_restriction' && day.weekday !== r.startDayOfWeek) continue;
      const [h, m, s] = r.startTimeOfDay.split(':').map((x) => Number(x));
      const startAt = day.set({ hour: h ?? 0, minute: m ?? 0, second: s ?? 0, millisecond: 0 }).toMillis();
      const endAt = startAt + r.durationSeconds * 1000;
      if (intersects(startAt, endAt, from, to)) windows.push([startAt, endAt]);
    }
    day = day.plus({ days: 1 });
  }
  windows.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const w of windows) {
    const last = merged[merged.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push([w[0], w[1]]);
  }
  return merged;
}

/** The pieces of one layer (turns, cut by the layer's bounds and restrictions) that meet [from, to), sorted. */
export function layerShifts(layer: LayerRecord, timeZone: string, from: number, to: number): Shift[] {
  const n = layer.userIds.length;
  if (n === 0) return [];
  const len = layer.turnLengthSeconds * 1000;
  const vs = layer.rotationVirtualStart;
  const lo = Math.max(from, layer.start);
  const hi = Math.min(to, layer.end ?? Number.POSITIVE_INFINITY);
  if (!(lo < hi)) return [];
  const kFirst = Math.floor((lo - vs) / len);
  const kLast = Math.floor((hi - 1 - vs) / len);
  if (kLast - kFirst > MAX_TURNS_PER_LAYER) throw new RangeError('time window too large for on-call computation');
  const out: Shift[] = [];
  const windows = layer.restrictions.length > 0 ? restrictionWindows(layer.restrictions, timeZone, vs + kFirst * len, vs + (kLast + 1) * len) : null;
  let w = 0;
  for (let k = kFirst; k <= kLast; k++) {
    const turnStart = Math.max(vs + k * len, layer.start);
    const turnEnd = Math.min(vs + (k + 1) * len, layer.end ?? Number.POSITIVE_INFINITY);
    if (!(turnStart < turnEnd)) continue;
    const userId = layer.userIds[mod(k, n)] as string;
    if (!windows) {
      out.push({ userId, start: turnStart, end: turnEnd, layerId: layer.id });
      continue;
    }
    while (w < windows.length && (windows[w] as [number, number])[1] <= turnStart) w++;
    for (let i = w; i < windows.length; i++) {
      const [ws, we] = windows[i] as [number, number];
      if (ws >= turnEnd) break;
      const s = Math.max(ws, turnStart);
      const e = Math.min(we, turnEnd);
      if (s < e) out.push({ userId, start: s, end: e, layerId: layer.id });
    }
  }
  return out.filter((p) => intersects(p.start, p.end, from, to));
}

/** Remove the parts of `segments` covered by `cutters` (both sorted, each non-overlapping). */
function subtract(segments: Shift[], cutters: Shift[]): Shift[] {
  const out: Shift[] = [];
  let c = 0;
  for (const seg of segments) {
    let start = seg.start;
    const end = seg.end;
    while (c < cutters.length && (cutters[c] as Shift).end <= start) c++;
    let i = c;
    while (start < end && i < cutters.length && (cutters[i] as Shift).start < end) {
      const cut = cutters[i] as Shift;
      if (cut.start > start) out.push({ ...seg, start, end: Math.min(cut.start, end) });
      start = Math.max(start, cut.end);
      i++;
    }
    if (start < end) out.push({ ...seg, start, end });
  }
  return out;
}

/** Final-schedule shifts meeting [from, to), sorted by start. */
export function finalShifts(schedule: ScheduleRecord, from: number, to: number): Shift[] {
  // A piece that meets the window can reach out by up to one turn; higher layers that cut it
  // lie inside that reach, so compute every layer over the widened window.
  const reach = Math.max(0, ...schedule.layers.map((l) => l.turnLengthSeconds * 1000));
  const wideFrom = from - reach;
  const wideTo = to + reach;
  let segments: Shift[] = [];
  for (let i = schedule.layers.length - 1; i >= 0; i--) {
    const pieces = layerShifts(schedule.layers[i] as LayerRecord, schedule.timeZone, wideFrom, wideTo);
    segments = subtract(segments, pieces).concat(pieces).sort((a, b) => a.start - b.start);
  }
  // Overrides lie above every layer.
  const overrides = overrideShifts(schedule, wideFrom, wideTo);
  if (overrides.length > 0) segments = subtract(segments, overrides).concat(overrides).sort((a, b) => a.start - b.start);
  return segments.filter((s) => intersects(s.start, s.end, from, to));
}

/** The schedule's overrides meeting [from, to), as shifts of the layer `overrides`, sorted. */
export function overrideShifts(schedule: ScheduleRecord, from: number, to: number): Shift[] {
  return (schedule.overrides ?? [])
    .filter((o) => intersects(o.start, o.end, from, to))
    .map((o) => ({ userId: o.userId, start: o.start, end: o.end, layerId: 'overrides' }));
}

/** Who is on call on the final schedule at instant t (null when nobody is). */
export function onCallAt(schedule: ScheduleRecord, t: number): string | null {
  return finalShifts(schedule, t, t + 1)[0]?.userId ?? null;
}

/** The shift of `userId` on `schedule` that is running at `t` or starts next, searching `horizonMs` ahead. */
export function nextShiftFor(schedule: ScheduleRecord, userId: string, t: number, horizonMs: number): Shift | undefined {
  return finalShifts(schedule, t, t + horizonMs).find((s) => s.userId === userId);
}

/** Clip shifts to [from, to) (for rendered entries without overflow). */
export function clip(shifts: Shift[], from: number, to: number): Shift[] {
  return shifts
    .map((s) => ({ ...s, start: Math.max(s.start, from), end: Math.min(s.end, to) }))
    .filter((s) => s.start < s.end);
}

/** Share of [from, to) covered by the shifts, as a percentage with two decimals. */
export function coveragePercentage(shifts: Shift[], from: number, to: number): number {
  if (!(from < to)) return 0;
  const covered = clip(shifts, from, to).reduce((sum, s) => sum + (s.end - s.start), 0);
  return Math.round((covered / (to - from)) * 10_000) / 100;
}
