/**
 * GET /oncalls: who is on call for which escalation policy and level over a window, from the
 * policies' user targets (always on call, no start or end) and their schedules' final shifts.
 */
import { paginate } from './listing.js';
import type { ScheduleRecord, UserRecord } from './model.js';
import { finalShifts, type Shift } from './oncalls.js';
import type { Renderer } from './render.js';
import { invalid, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_ONCALLS = ['escalation_policies', 'users', 'schedules'];
const DAY = 86_400_000;

interface OnCallRow {
  policyId: string;
  level: number;
  userId: string;
  scheduleId: string | null;
  start: number | null;
  end: number | null;
}

interface OnCallFilters {
  policyIds: Set<string> | null;
  scheduleIds: Set<string> | null;
  since: number;
  windowEnd: number;
}

export function listOnCalls(state: IncidentOpsState, ctx: RequestContext): unknown {
  const { data } = state;
  const { q, now } = ctx;
  const zone = q.timeZone();
  const page = q.page();
  const include = new Set(q.enumList('include[]', INCLUDE_ONCALLS));
  const userIds = q.ids('user_ids[]');
  const policyIds = q.ids('escalation_policy_ids[]');
  const scheduleIds = q.ids('schedule_ids[]');
  const earliest = q.bool('earliest', false);
  const readZone = zone ?? data.accountTimeZone;
  const since = q.date('since', readZone) ?? now;
  const until = q.date('until', readZone) ?? now;
  if (until < since) throw invalid('until must not be before since.');
  if (until > now + 90 * DAY) throw invalid('until must be at most 90 days in the future.');
  // Half-open window; a single instant asks "who is on call at that moment".
  const windowEnd = until > since ? until : since + 1;

  let result = onCallRows(state, { policyIds, scheduleIds, since, windowEnd }).filter((r) => !userIds || userIds.has(r.userId));
  if (earliest) result = keepEarliest(result);
  result.sort(
    (a, b) =>
      (state.policyOrder.get(a.policyId) ?? 0) - (state.policyOrder.get(b.policyId) ?? 0) ||
      a.level - b.level ||
      (a.start ?? -Infinity) - (b.start ?? -Infinity) ||
      (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
  );
  const r = ctx.renderer(zone);
  return paginate('oncalls', result, page, (row) => renderOnCall(state, r, include, row));
}

/** One row per policy level and user target, and per shift of a schedule target meeting the window. */
function onCallRows(state: IncidentOpsState, filters: OnCallFilters): OnCallRow[] {
  const { policyIds, scheduleIds, since, windowEnd } = filters;
  const rows: OnCallRow[] = [];
  const shiftCache = new Map<string, Shift[]>();
  for (const policy of state.sorted.policies) {
    if (policyIds && !policyIds.has(policy.id)) continue;
    policy.rules.forEach((rule, index) => {
      const level = index + 1;
      for (const target of rule.targets) {
        if (target.kind === 'user') {
          if (scheduleIds && !scheduleIds.has('null')) continue;
          rows.push({ policyId: policy.id, level, userId: target.id, scheduleId: null, start: null, end: null });
          continue;
        }
        if (scheduleIds && !scheduleIds.has(target.id)) continue;
        const schedule = state.data.schedulesById.get(target.id) as ScheduleRecord;
        let shifts = shiftCache.get(schedule.id);
        if (!shifts) {
          shifts = finalShifts(schedule, since, windowEnd);
          shiftCache.set(schedule.id, shifts);
        }
        for (const s of shifts) rows.push({ policyId: policy.id, level, userId: s.userId, scheduleId: schedule.id, start: s.start, end: s.end });
      }
    });
  }
  return rows;
}

/** earliest=true: per policy, level and user only the row that starts first. */
function keepEarliest(rows: OnCallRow[]): OnCallRow[] {
  const seen = new Map<string, OnCallRow>();
  for (const r of rows) {
    const key = `${r.policyId}|${r.level}|${r.userId}`;
    const prev = seen.get(key);
    if (!prev || (r.start ?? -Infinity) < (prev.start ?? -Infinity)) seen.set(key, r);
  }
  return rows.filter((r) => seen.get(`${r.policyId}|${r.level}|${r.userId}`) === r);
}

function renderOnCall(state: IncidentOpsState, r: Renderer, include: Set<string>, row: OnCallRow): unknown {
  const { data } = state;
  const user = data.usersById.get(row.userId) as UserRecord;
  const policy = data.policiesById.get(row.policyId);
  const schedule = row.scheduleId ? data.schedulesById.get(row.scheduleId) : undefined;
  return {
    escalation_policy: include.has('escalation_policies') && policy ? r.policy(policy) : r.policyRef(row.policyId),
    escalation_level: row.level,
    schedule: schedule ? (include.has('schedules') ? r.schedule(schedule) : r.scheduleRef(schedule.id)) : null,
    user: include.has('users') ? r.user(user) : r.userRef(user.id),
    start: row.start === null ? null : r.time(row.start),
    end: row.end === null ? null : r.time(row.end),
  };
}
