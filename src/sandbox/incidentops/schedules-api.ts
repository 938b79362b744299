/**
 * GET /schedules and /schedules/{id}: each schedule with, as asked, its layers, final schedule
 * and overrides rendered over a window (two weeks by default, at most a year), and the next shift
 * of one user.
 */
import { intersectsAny, nameFilter, paginate } from './listing.js';
import type { ScheduleRecord } from './model.js';
import { clip, coveragePercentage, finalShifts, layerShifts, nextShiftFor, overrideShifts, type Shift } from './oncalls.js';
import type { Renderer } from './render.js';
import { invalid, notFound, type Query, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_SCHEDULES = ['schedule_layers', 'overrides_subschedule', 'final_schedule'];
const DAY = 86_400_000;

interface ScheduleRendering {
  layers: boolean;
  final: boolean;
  overrides: boolean;
  from: number;
  to: number;
  /** Entries as they are, not cut at the window's bounds. */
  overflow: boolean;
  /** The user whose next shift (within 90 days) the answer names. */
  nextFor: string | undefined;
}

/** since/until for rendered entries: either bound defaults to two weeks from the other; neither = now .. now+14d. */
export function scheduleWindow(q: Query, zone: string, now: number): { from: number; to: number; explicit: boolean } {
  const s = q.date('since', zone);
  const u = q.date('until', zone);
  const from = s ?? (u !== null ? u - 14 * DAY : now);
  const to = u ?? from + 14 * DAY;
  if (to < from) throw invalid('until must not be before since.');
  if (to - from > 366 * DAY) throw invalid('The range between since and until must not exceed one year.');
  return { from, to, explicit: s !== null || u !== null };
}

function renderSchedule(ctx: RequestContext, r: Renderer, s: ScheduleRecord, opts: ScheduleRendering): unknown {
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

export function listSchedules(state: IncidentOpsState, ctx: RequestContext): unknown {
  const { data } = state;
  const { q } = ctx;
  const page = q.page();
  const zone = q.timeZone();
  const include = new Set(q.enumList('include[]', INCLUDE_SCHEDULES));
  const teams = q.ids('team_ids[]');
  const nextFor = q.one('include_next_oncall_for_user');
  if (nextFor !== undefined && !data.usersById.has(nextFor)) throw invalid(`include_next_oncall_for_user: unknown user ${JSON.stringify(nextFor)}.`);
  const window = scheduleWindow(q, zone ?? data.accountTimeZone, ctx.now);
  const items = nameFilter(state.sorted.schedules, q.one('query')).filter((s) => intersectsAny(s.teamIds, teams));
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

export function getSchedule(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  const { data } = state;
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
