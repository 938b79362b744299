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

/** Work in pieces: a generator that yields between pieces (every PIECE items), run at once or paced. */
export type Paced<T> = Generator<void, T, void>;
export const PIECE = 1024;

/** Runs paced work to its end at once (tests, small inputs). */
export function atOnce<T>(work: Paced<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/**
 * Runs paced work, giving the event loop a turn whenever a piece has run `sliceMs` since the last
 * one, so that other calls and `/health` go on being answered; stops when `signal` aborts.
 */
export async function paced<T>(work: Paced<T>, signal: AbortSignal | undefined, onAbort: () => Error, sliceMs = 20): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
    if (performance.now() - since < sliceMs) continue;
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw onAbort();
    since = performance.now();
  }
}

export interface Span {
  start: number;
  end: number;
}

/** Who is on call over a span; no user: nobody. */
export interface Held extends Span {
  user?: string;
}

/** The number in `length` decimal digits of `text` from `at`; -1 when one is not a digit. */
function digits(text: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

/**
 * The platform's own form, read by hand: `2026-05-06T12:00Z`, with seconds and a fraction or
 * not, `Z` or an offset `+01:00` / `+0100`. Undefined for anything else (luxon reads it).
 */
function plainIso(text: string): number | undefined {
  if (text.length < 17 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58) return undefined;
  const [year, month, day, hour, minute] = [digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2), digits(text, 11, 2), digits(text, 14, 2)];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > (DAYS_IN_MONTH[month - 1] as number) + (month === 2 && leap ? 1 : 0) || hour < 0 || hour > 23 || minute < 0 || minute > 59) return undefined;
  let at = 16;
  let second = 0;
  let millis = 0;
  if (text.charCodeAt(at) === 58) {
    second = digits(text, at + 1, 2);
    if (second < 0 || second > 59) return undefined;
    at += 3;
    if (text.charCodeAt(at) === 46) {
      let end = at + 1;
      while (end < text.length && end - at <= 9 && digits(text, end, 1) >= 0) end++;
      if (end === at + 1 || end - at > 10) return undefined;
      millis = digits((text.slice(at + 1, Math.min(end, at + 4)) + '00').slice(0, 3), 0, 3);
      at = end;
    }
  }
  let offset = 0;
  if (text.charCodeAt(at) === 90 && at + 1 === text.length) offset = 0;
  else {
    const sign = text.charCodeAt(at) === 43 ? 1 : text.charCodeAt(at) === 45 ? -1 : 0;
    const colon = text.charCodeAt(at + 3) === 58 ? 1 : 0;
    const [hours, minutes] = [digits(text, at + 1, 2), digits(text, at + 3 + colon, 2)];
    if (sign === 0 || hours < 0 || minutes < 0 || minutes > 59 || at + 5 + colon !== text.length) return undefined;
    offset = sign * (hours * 60 + minutes) * 60_000;
  }
  return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis - offset;
}

/** Milliseconds of an ISO 8601 time; NaN when it is none (as luxon reads it, without luxon for the platform's own form). */
export function instantMs(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  const plain = plainIso(value);
  if (plain !== undefined) return plain;
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

/**
 * Who the layers put on call, the first listed layer winning where several have someone: one sweep
 * over every entry's start and end, sorted once. Sorted, disjoint spans, each with someone;
 * neighbours that touch have different users. Events are numbers in typed arrays (event k: entry
 * k >> 1 opening when k is even, closing when odd), not objects: a big schedule makes no garbage.
 */
export function* layeredSchedule(layers: readonly (readonly Held[])[]): Paced<Held[]> {
  const userIndex = new Map<string | undefined, number>();
  const users: (string | undefined)[] = [];
  const total = layers.reduce((sum, entries) => sum + entries.length, 0);
  const time = new Float64Array(2 * total);
  const layerOf = new Int32Array(total);
  const userOf = new Int32Array(total);
  let count = 0;
  for (const [layer, entries] of layers.entries()) {
    for (const [index, entry] of entries.entries()) {
      if (index % PIECE === PIECE - 1) yield;
      if (!readable(entry)) continue;
      let user = userIndex.get(entry.user);
      if (user === undefined) userIndex.set(entry.user, (user = users.push(entry.user) - 1));
      [time[2 * count], time[2 * count + 1], layerOf[count], userOf[count]] = [entry.start, entry.end, layer, user];
      count += 1;
    }
  }
  const order = new Uint32Array(2 * count).map((_, k) => k);
  yield;
  order.sort((a, b) => {
    coverageWork.steps += 1;
    return (time[a] as number) - (time[b] as number);
  });
  // Per layer, the users of its open entries (usually one), counted: the first still open is on call.
  const open = layers.map(() => new Map<number, number>());
  const heap = new LayerHeap();
  const live = (layer: number) => (open[layer] as Map<number, number>).size > 0;
  const held: Held[] = [];
  yield;
  for (let i = 0, pieces = 0; i < order.length; ) {
    if (++pieces % PIECE === 0) yield;
    const at = time[order[i] as number] as number;
    for (; i < order.length && time[order[i] as number] === at; i++) {
      coverageWork.steps += 1;
      const event = order[i] as number;
      const [layer, user, opens] = [layerOf[event >> 1] as number, userOf[event >> 1] as number, (event & 1) === 0];
      const users = open[layer] as Map<number, number>;
      const now = (users.get(user) ?? 0) + (opens ? 1 : -1);
      if (now > 0) users.set(user, now);
      else users.delete(user);
      if (opens && users.size === 1 && now === 1) heap.push(layer);
    }
    const next = i < order.length ? (time[order[i] as number] as number) : undefined;
    const layer = heap.top(live);
    if (next === undefined || layer === undefined) continue;
    const user = users[(open[layer] as Map<number, number>).keys().next().value as number];
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
