/**
 * The arithmetic of WhoIsOnCall's coverage, in n log n at most: every platform time parsed once
 * (a strict ISO 8601 form read by hand, luxon only for the rest), each list sorted once, then
 * swept. Whom overrides replace comes from one merged sweep over a schedule's layers (the first
 * listed layer winning) and a binary search per override; a shift finds its overrides by binary
 * search too. `coverageWork` counts the work (luxon parses, sweep steps), so that tests can check
 * the growth by counting, not timing.
 */
import { luxon } from '../params.js';

/** Work done since the last reset: parses that needed luxon, and steps of sorts, sweeps and searches. */
export const coverageWork = { luxonParses: 0, steps: 0 };

export interface Span {
  start: number;
  end: number;
}

/** Who is on call over a span; no user: nobody. */
export interface Held extends Span {
  user?: string;
}

// 2026-05-06T12:00Z, 2026-05-06T12:00:00.000+01:00: what the platform sends. Anything else goes to luxon.
const PLAIN_ISO = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d\d):?(\d\d))$/;

/** Milliseconds of an ISO 8601 time; NaN when it is none (as luxon reads it, without luxon for the platform's own form). */
export function instantMs(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  const m = PLAIN_ISO.exec(value);
  if (m) {
    const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    if (month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59) {
      const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
      const offset = m[8] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) * 60_000;
      // Date.UTC reads years 0-99 as 1900-1999.
      const utc = new Date(0);
      utc.setUTCFullYear(year, month - 1, day);
      utc.setUTCHours(hour, minute, second, millis);
      return utc.getTime() - offset;
    }
  }
  coverageWork.luxonParses += 1;
  return luxon().DateTime.fromISO(value, { setZone: true }).toMillis();
}

const readable = (span: Span) => Number.isFinite(span.start) && Number.isFinite(span.end) && span.start < span.end;

/** Sorts by start, counting comparisons. */
function byStart<T extends Span>(items: T[]): T[] {
  return items.sort((a, b) => {
    coverageWork.steps += 1;
    return a.start - b.start;
  });
}

/** The parts of [from, to) that no span covers, in one sweep over the spans sorted once. */
export function uncovered(spans: readonly Span[], from: number, to: number): Span[] {
  const gaps: Span[] = [];
  let reached = from;
  // A shift without a readable start or end covers nothing we can place (NaN would end every later comparison).
  for (const { start, end } of byStart(spans.filter(readable))) {
    coverageWork.steps += 1;
    if (start > reached) gaps.push({ start: reached, end: Math.min(start, to) });
    reached = Math.max(reached, end);
    if (reached >= to) break;
  }
  if (reached < to) gaps.push({ start: reached, end: to });
  return gaps.filter((gap) => gap.start < gap.end);
}

/** A min-heap of layer indices: the highest listed layer with someone on call. */
class LayerHeap {
  private readonly items: number[] = [];

  push(value: number): void {
    const items = this.items;
    items.push(value);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      [items[i], items[parent]] = [items[parent] as number, value];
      i = parent;
    }
  }

  /** The smallest index for which `live` holds; indices that no longer do are dropped on the way. */
  top(live: (index: number) => boolean): number | undefined {
    const items = this.items;
    while (items.length > 0 && !live(items[0] as number)) {
      coverageWork.steps += 1;
      const last = items.pop() as number;
      if (items.length === 0) break;
      items[0] = last;
      for (let i = 0; ; ) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let least = i;
        if (l < items.length && (items[l] as number) < (items[least] as number)) least = l;
        if (r < items.length && (items[r] as number) < (items[least] as number)) least = r;
        if (least === i) break;
        [items[i], items[least]] = [items[least] as number, items[i] as number];
        i = least;
      }
    }
    return items[0];
  }
}

interface LayerEvent {
  at: number;
  layer: number;
  user: string | undefined;
  opens: boolean;
}

/**
 * Who the layers put on call, the first listed layer winning where several have someone: one sweep
 * over every entry's start and end, sorted once. Sorted, disjoint spans, each with someone;
 * neighbours that touch have different users.
 */
export function layeredSchedule(layers: readonly (readonly Held[])[]): Held[] {
  const events: LayerEvent[] = [];
  layers.forEach((entries, layer) => {
    for (const entry of entries) {
      if (!readable(entry)) continue;
      events.push({ at: entry.start, layer, user: entry.user, opens: true }, { at: entry.end, layer, user: entry.user, opens: false });
    }
  });
  events.sort((a, b) => {
    coverageWork.steps += 1;
    return a.at - b.at;
  });
  // Per layer, the users of its open entries (usually one), counted: the first still open is on call.
  const open = layers.map(() => new Map<string | undefined, number>());
  const heap = new LayerHeap();
  const live = (layer: number) => (open[layer] as Map<string | undefined, number>).size > 0;
  const held: Held[] = [];
  for (let i = 0; i < events.length; ) {
    const at = (events[i] as LayerEvent).at;
    for (; i < events.length && (events[i] as LayerEvent).at === at; i++) {
      coverageWork.steps += 1;
      const { layer, user, opens } = events[i] as LayerEvent;
      const users = open[layer] as Map<string | undefined, number>;
      const count = (users.get(user) ?? 0) + (opens ? 1 : -1);
      if (count > 0) users.set(user, count);
      else users.delete(user);
      if (opens && users.size === 1 && count === 1) heap.push(layer);
    }
    const next = events[i]?.at;
    const layer = heap.top(live);
    if (next === undefined || layer === undefined) continue;
    const user = (open[layer] as Map<string | undefined, number>).keys().next().value;
    const last = held[held.length - 1];
    if (last && last.end === at && last.user === user) last.end = next;
    else held.push({ start: at, end: next, ...(user !== undefined ? { user } : {}) });
  }
  return held;
}

/** How many of the sorted spans pass `test` before the first that does not: a binary search. */
function countWhile(spans: readonly Span[], test: (span: Span) => boolean): number {
  let [lo, hi] = [0, spans.length];
  while (lo < hi) {
    coverageWork.steps += 1;
    const mid = (lo + hi) >> 1;
    if (test(spans[mid] as Span)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whom an override replaces over each part of it: the first parts, and how many follow them. */
export interface Replaced {
  parts: Held[];
  more: number;
}

/**
 * Replacement lookups over one schedule's layered schedule: for [start, end), who the layers had
 * on call, part by part (nobody over a gap), at most `maxParts` named and the rest counted, in
 * O(log n + maxParts) per override.
 */
export function replacementsOver(layered: readonly Held[], maxParts: number): (span: Span) => Replaced {
  // gapsBefore[i]: gaps between the spans up to span i, so that parts past the named ones are counted, not walked.
  const gapsBefore: number[] = [];
  for (const [i, span] of layered.entries()) gapsBefore.push((gapsBefore[i - 1] ?? 0) + (i > 0 && (layered[i - 1] as Span).end < span.start ? 1 : 0));
  return ({ start, end }) => {
    // Spans from..to-1 meet [start, end).
    const from = countWhile(layered, (span) => span.end <= start);
    const to = countWhile(layered, (span) => span.start < end);
    if (from >= to) return { parts: [{ start, end }], more: 0 };
    const [first, last] = [layered[from] as Span, layered[to - 1] as Span];
    const total = to - from + ((gapsBefore[to - 1] as number) - (gapsBefore[from] as number)) + (first.start > start ? 1 : 0) + (last.end < end ? 1 : 0);
    const parts: Held[] = [];
    let reached = start;
    for (let i = from; i < to && parts.length < maxParts; i++) {
      coverageWork.steps += 1;
      const span = layered[i] as Held;
      if (span.start > reached) parts.push({ start: reached, end: span.start });
      if (parts.length >= maxParts) break;
      parts.push({ start: Math.max(span.start, start), end: Math.min(span.end, end), ...(span.user !== undefined ? { user: span.user } : {}) });
      reached = span.end;
    }
    if (parts.length < maxParts && reached < end) parts.push({ start: reached, end });
    return { parts, more: total - parts.length };
  };
}

/** An override as the platform lists it, read once. */
export interface OverrideSpan extends Span {
  /** Known across the policies that share the schedule: counted once. */
  key: string;
  userId: string;
}

/**
 * The overrides one user holds on one schedule, sorted once, for shifts to look up: those that
 * meet [start, end), the first `max` of them, and how many meet it in all, by binary search.
 */
export function overridesMeeting<T extends Span>(overrides: readonly T[], max: number): (shift: Span) => { found: T[]; count: number } {
  const sorted = byStart([...overrides.filter(readable)]);
  const ends = sorted.map((o) => o.end).sort((a, b) => {
    coverageWork.steps += 1;
    return a - b;
  });
  const starts = sorted.map((o) => o.start);
  // The latest end among the first i overrides: no earlier override reaches past a shift's start once it is below.
  const reach: number[] = [];
  for (const o of sorted) reach.push(Math.max(o.end, reach[reach.length - 1] ?? Number.NEGATIVE_INFINITY));
  /** How many of `values` (sorted) are below `time` (`orEqual`: at most `time`). */
  const countBelow = (values: readonly number[], time: number, orEqual: boolean) => {
    let [lo, hi] = [0, values.length];
    while (lo < hi) {
      coverageWork.steps += 1;
      const mid = (lo + hi) >> 1;
      const value = values[mid] as number;
      if (value < time || (orEqual && value === time)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return ({ start, end }) => {
    // Overlap: starts before the shift ends, and ends after it starts (an override that ends by then also started by then).
    const count = countBelow(starts, end, false) - countBelow(ends, start, true);
    if (count <= 0) return { found: [], count: 0 };
    const found: T[] = [];
    const before = countBelow(starts, start, false);
    // Those running at the shift's start, latest first, then those starting within it, in order.
    // Looked at a bounded number of times: the count above stays exact whatever is not named.
    for (let j = before - 1, looked = 0; j >= 0 && (reach[j] as number) > start && found.length < max && looked < 4 * max + 16; j--, looked++) {
      coverageWork.steps += 1;
      if ((sorted[j] as T).end > start) found.unshift(sorted[j] as T);
    }
    for (let j = before; j < sorted.length && (sorted[j] as T).start < end && found.length < max; j++) {
      coverageWork.steps += 1;
      found.push(sorted[j] as T);
    }
    return { found: byStart(found), count };
  };
}
