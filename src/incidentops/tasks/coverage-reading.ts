/**
 * What WhoIsOnCall's coverage reads, within the call's budget of requests, time and kept bytes
 * (core/call-budget.ts), so that past it the answer covers the first part of the window in full
 * and says up to when, instead of failing whole.
 *
 * Shifts: the first page of `/oncalls` over the window, with its total. When the rest fits the
 * budget (what is left once the overrides' requests, time and bytes are set aside), the rest of
 * the window; else the window is read in consecutive slices of a few pages each, sized from the
 * total, each read whole, until the next would not fit: the slices read are the part covered (the
 * platform's order of shifts is not by time, so a cut list says nothing about when it stops).
 * Then per schedule its overrides over the part covered and, only for a schedule with some, its
 * layers over the overrides' span; a schedule whose reading the budget refuses is named.
 */
import { budgetOf, CallBudget, WorkScope } from '../../core/call-budget.js';
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { walkPages, walkNote, type WalkResult } from '../../core/tools/pager.js';
import { API_PAGE_SIZE, type IncidentOpsApi, type ListPage, type Query } from '../api.js';
import { instantMs, paced, type Span } from './coverage-sweep.js';
import { overrideSpans, replacedSteps, type OverridePiece } from './oncall-coverage.js';

type Json = Record<string, unknown>;

/** What the overrides are set aside before the shifts are read: their requests, and shares of the time and bytes. */
export interface Reserve {
  requests: number;
}

export interface ShiftsRead {
  rows: Json[];
  /** The window's end, or where the part read in full ends. */
  coveredUntil: number;
  /** Shifts in the whole window, as the platform counted them (when it did). */
  total?: number;
  /** Why not the whole window: "reading the whole window would pass this call's budget of 45 s". */
  short?: string;
  /** The platform gave no total and the list was cut: which part is missing is unknown (the walk's note). */
  truncated?: string;
}

interface ShiftReading {
  api: IncidentOpsApi;
  query: Query;
  window: Span;
  signal: AbortSignal;
  reserve: Reserve;
  /** Shifts read at most. */
  maxRows: number;
  onProgress: (page: number, total?: number) => void;
}

/** Slices are at least a minute long, and at most this many pages each. */
const SLICE_PAGES = { min: 1, max: 8 } as const;
/** Time and bytes kept back for the overrides, their layers and the arithmetic. */
const RESERVE_SHARE = { time: 0.2, bytes: 0.25 } as const;
const MINUTE = 60_000;

const iso = (time: number) => new Date(time).toISOString().replace('.000Z', 'Z');

/** Pages the budget still allows the shifts, and the budget that would run out first. */
function capacity(budget: CallBudget, reading: ShiftReading, page: { ms: number; bytes: number }, rows: number, reserve = true): { pages: number; limit: string } {
  const { limits } = budget;
  const kept = reserve ? 1 : 0;
  const byRequests = limits.requests - budget.requestsSent - kept * reading.reserve.requests;
  const byTime = Math.floor((budget.timeLeftMs() - kept * RESERVE_SHARE.time * limits.wallMs) / Math.max(1, page.ms));
  const byBytes = Math.floor((limits.keptBytes * (1 - kept * RESERVE_SHARE.bytes) - budget.bytesKept) / Math.max(1, page.bytes));
  const byRows = Math.ceil((reading.maxRows - rows) / API_PAGE_SIZE);
  const all: [number, string][] = [
    [byRequests, budget.describe('requests')],
    [byTime, budget.describe('time')],
    [byBytes, budget.describe('memory')],
    [byRows, `${reading.maxRows.toLocaleString('en-US')} shifts`],
  ];
  const [pages, limit] = all.reduce((least, next) => (next[0] < least[0] ? next : least));
  return { pages: Math.max(0, pages), limit };
}

/** Walks /oncalls over [from, to) from `offset`, at most `maxPages` pages, keeping every page's records. */
async function walkWindow(reading: ShiftReading, from: number, to: number, offset: number, maxPages: number, rows: Json[], pagesRead: { count: number }): Promise<WalkResult> {
  const budget = budgetOf(reading.signal);
  return walkPages<Json>({
    signal: reading.signal,
    start: offset > 0 ? { offset } : undefined,
    maxPages,
    fetchPage: async (at, pageSignal) => {
      const start = at?.offset ?? 0;
      const page = await reading.api.listPage('/oncalls', 'oncalls', { ...reading.query, since: iso(from), until: iso(to), limit: API_PAGE_SIZE, offset: start }, pageSignal);
      budget?.keep(page.bytes);
      return { records: page.items, ...(page.more ? { next: { offset: start + page.items.length } } : {}) };
    },
    onPage: (page) => {
      rows.push(...page.records);
      reading.onProgress(++pagesRead.count);
    },
  });
}

/** A shift's identity across slices: the same shift read in two slices is one (cut at a slice's edge, its pieces are joined). */
const shiftKey = (row: Json) =>
  [row.escalation_policy, row.schedule, row.user].map((ref) => (isRecord(ref) ? String(ref.id) : '')).join('|') + `|${String(row.escalation_level)}`;

/**
 * Adds a slice's rows: rows already read are dropped, and pieces of one shift cut at `edge` are
 * joined to the rows the previous slice added or extended (`touched`). Returns this slice's.
 */
function addSlice(rows: Json[], slice: readonly Json[], edge: number, seen: Set<string>, touched: readonly number[]): number[] {
  const endingAtEdge = new Map<string, number>();
  for (const index of touched) if (instantMs((rows[index] as Json).end) === edge) endingAtEdge.set(shiftKey(rows[index] as Json), index);
  const now: number[] = [];
  for (const row of slice) {
    const whole = `${shiftKey(row)}|${instantMs(row.start)}|${instantMs(row.end)}`;
    if (seen.has(whole)) continue;
    seen.add(whole);
    const joined = instantMs(row.start) === edge ? endingAtEdge.get(shiftKey(row)) : undefined;
    if (joined !== undefined) rows[joined] = { ...(rows[joined] as Json), end: row.end };
    else rows.push(row);
    now.push(joined ?? rows.length - 1);
  }
  return now;
}

/** Reads the window in consecutive slices, each whole, while the next fits: the part read, and the budget that stopped it. */
async function readInSlices(reading: ShiftReading, total: number, page: { ms: number; bytes: number }, pagesRead: { count: number }): Promise<Omit<ShiftsRead, 'total'>> {
  const budget = budgetOf(reading.signal) ?? new CallBudget();
  const { start: from, end: to } = reading.window;
  const density = total / (to - from);
  const rows: Json[] = [];
  const seen = new Set<string>();
  let touched: number[] = [];
  let reached = from;
  let short: string | undefined;
  let paging = false;
  while (reached < to) {
    // With nothing covered yet, a first slice is worth more than the overrides' share.
    const reserved = capacity(budget, reading, page, rows.length);
    const room = reserved.pages < 1 && reached === from ? capacity(budget, reading, page, rows.length, false) : reserved;
    const pages = Math.min(SLICE_PAGES.max, Math.max(SLICE_PAGES.min, Math.floor(room.pages / 2)));
    // Rows expected in a slice: a little under its pages, so that one usually takes no extra request.
    const sliceMs = Math.max(MINUTE, Math.floor((pages * API_PAGE_SIZE * 0.85) / density / MINUTE) * MINUTE);
    const edge = Math.min(to, reached + sliceMs);
    if (room.pages < 1) {
      short = room.limit;
      break;
    }
    const slice: Json[] = [];
    const walk = await walkWindow(reading, reached, edge, 0, room.pages, slice, pagesRead);
    if (!walk.complete) {
      short = walk.stop === 'requests' || walk.stop === 'time' || walk.stop === 'memory' ? budget.describe(walk.stop) : walk.stop === 'pages' ? room.limit : undefined;
      paging = short === undefined;
      break;
    }
    touched = addSlice(rows, slice, reached, seen, touched);
    reached = edge;
  }
  const why = paging ? 'the platform paged its shifts wrongly there (a page again, or more than its total)' : `reading the whole window would pass this call's budget of ${short ?? 'requests'}`;
  return { rows, coveredUntil: reached, ...(reached < to ? { short: why } : {}) };
}

/** The window's first page, with the total; abandoned at the call's deadline with a budget_exceeded error. */
async function firstPage(reading: ShiftReading, budget: CallBudget): Promise<ListPage> {
  const scope = new WorkScope(reading.signal, { until: 'deadline' });
  const { start: from, end: to } = reading.window;
  try {
    return await reading.api.listPage('/oncalls', 'oncalls', { ...reading.query, since: iso(from), until: iso(to), limit: API_PAGE_SIZE, offset: 0, total: true }, scope.signal);
  } catch (error) {
    if (!scope.timedOut) throw error;
    throw new ToolError({
      kind: 'budget_exceeded',
      message: `The platform did not send the first page of on-call shifts within this call's budget of ${budget.describe('time')}; nothing is shown.`,
      nextStep: 'Try again later, or ask for a shorter window or by escalation_policy_id or schedule_id.',
    });
  } finally {
    scope.dispose();
  }
}

/** The shifts of the window, or of its first part as far as the budget goes (see the module's comment). */
export async function readCoverageShifts(reading: ShiftReading): Promise<ShiftsRead> {
  const budget = budgetOf(reading.signal) ?? new CallBudget();
  const { start: from, end: to } = reading.window;
  // Measured on the budget's own clock: what a page costs in the budget's time.
  const timeLeft = budget.timeLeftMs();
  const first = await firstPage(reading, budget);
  budget.keep(first.bytes);
  const pagesRead = { count: 1 };
  const total = first.total;
  reading.onProgress(1, total !== undefined ? Math.ceil(total / API_PAGE_SIZE) : undefined);
  if (!first.more) return { rows: first.items, coveredUntil: to, ...(total !== undefined ? { total } : {}) };
  const page = { ms: timeLeft - budget.timeLeftMs(), bytes: first.bytes };
  const room = capacity(budget, reading, page, first.items.length);
  if (total === undefined || Math.ceil(total / API_PAGE_SIZE) - 1 <= room.pages) {
    // The whole window fits (or the platform gave no total to plan with): the rest of its pages.
    const rows = [...first.items];
    const walk = await walkWindow(reading, from, to, first.items.length, total === undefined ? room.pages : Math.ceil(total / API_PAGE_SIZE), rows, pagesRead);
    if (walk.complete) return { rows, coveredUntil: to, ...(total !== undefined ? { total } : {}) };
    const truncated = walkNote(walk, 'shifts', reading.signal) ?? `${rows.length} shifts read, as many as this call reads`;
    return { rows, coveredUntil: to, truncated, ...(total !== undefined ? { total } : {}) };
  }
  return { ...(await readInSlices(reading, total, page, pagesRead)), total };
}

/** The caller cancelled while the coverage was being worked out. */
export function coverageCancelled(): ToolError {
  return new ToolError({ kind: 'cancelled', message: 'The call was cancelled while the coverage was being worked out.' });
}

/** Overrides per schedule, each with whom it replaces, and the schedules whose overrides the budget left unread. */
export interface OverridesRead {
  bySchedule: Map<string, OverridePiece[]>;
  unread: string[];
}

/** A refusal by the budget or its deadline: the schedule is left unread, the rest of the answer stands. */
function outOfBudget(error: unknown, scope: WorkScope): boolean {
  return scope.timedOut || (error instanceof ToolError && error.details.kind === 'budget_exceeded');
}

/**
 * Per schedule, its overrides over the window (`/schedules/{id}/overrides`, one request each),
 * then, for a schedule that has some, its layers over the overrides' span (one more), until the
 * budget runs out; whom each override replaces is computed as each schedule arrives.
 */
export async function readOverrides(api: IncidentOpsApi, scheduleIds: readonly string[], window: Span, signal: AbortSignal): Promise<OverridesRead> {
  const scope = new WorkScope(signal, { until: 'deadline' });
  const budget = scope.budget;
  const bySchedule = new Map<string, OverridePiece[]>();
  const unread: string[] = [];
  const read = async (id: string): Promise<void> => {
    const { items, bytes } = await api.listPage('/schedules/{id}/overrides', 'overrides', { since: iso(window.start), until: iso(window.end) }, scope.signal, { id }, `schedule "${id}"`);
    budget?.keep(bytes);
    const overrides = overrideSpans(id, items, window);
    if (overrides.length === 0) return void bySchedule.set(id, []);
    const span = { since: iso(overrides.reduce((least, o) => Math.min(least, o.start), window.end)), until: iso(overrides.reduce((most, o) => Math.max(most, o.end), window.start)) };
    const answer = await api.client.request<unknown>({ method: 'GET', path: '/schedules/{id}', pathParams: { id }, query: span, signal: scope.signal, resourceLabel: `schedule "${id}"` });
    budget?.keep(answer.bytes ?? 0);
    const schedule = isRecord(answer.data) && isRecord(answer.data.schedule) ? answer.data.schedule : {};
    const layers = (Array.isArray(schedule.schedule_layers) ? schedule.schedule_layers : []).filter(isRecord);
    // In pieces of a few milliseconds, so other calls and probes are answered in between; the deadline leaves it unread.
    bySchedule.set(id, await paced(replacedSteps(overrides, layers), scope.signal, coverageCancelled));
  };
  try {
    await Promise.all(
      scheduleIds.map((id) =>
        read(id).catch((error: unknown) => {
          if (!outOfBudget(error, scope)) throw error;
          unread.push(id);
        }),
      ),
    );
  } finally {
    scope.dispose();
  }
  return { bySchedule, unread: scheduleIds.filter((id) => unread.includes(id)) };
}
