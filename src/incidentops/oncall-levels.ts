/**
 * On-call shifts grouped the way people ask about them: per escalation policy and level, who is
 * on call at an instant, until when, and who takes over next. Shared by the task tools.
 */
import { isRecord } from '../core/json.js';
import { labelText } from '../core/tools/line-text.js';
import { luxon } from './params.js';
import { ref } from './shape.js';

type Json = Record<string, unknown>;

/** Names in labels are cut here. */
const NAME_CHARS = 200;

/** `Name (ID)`: a person or thing with the ID to act on, the name quoted unless plain words (core/tools/line-text.ts); `maxChars` cuts it. */
export function named(value: unknown, maxChars = NAME_CHARS): string | undefined {
  const reference = ref(value);
  if (!reference) return undefined;
  const { id, name } = reference as { id?: string; name?: string };
  return labelText(name, id, maxChars);
}

export type OnCallNow = {
  user?: string;
  /** The schedule the user is on call through; absent for a user the policy names directly. */
  via?: string;
  since?: string;
  until?: string;
  /** Named directly by the policy: on call at all times. */
  always?: true;
  /** The schedule has nobody on call at the instant asked about. */
  nobody?: true;
  next?: { user: string; from: string };
};

export interface OnCallLevel {
  level: number;
  on_call: OnCallNow[];
}

export interface OnCallPolicy {
  escalation_policy: string;
  levels: OnCallLevel[];
}

/** Milliseconds of an ISO time from the platform; NaN when it is not one. */
function millis(value: unknown): number {
  return typeof value === 'string' ? luxon().DateTime.fromISO(value, { setZone: true }).toMillis() : Number.NaN;
}

/**
 * Groups /oncalls rows (shifts meeting [at, later)) by policy, level and target. For each
 * schedule target: the shift running at `at` and the first later shift of someone else.
 * Policies keep the platform's order; levels ascend.
 */
export function onCallLevels(rows: readonly Json[], at: number, withNext: boolean): OnCallPolicy[] {
  const policies = new Map<string, { label: string; targets: Map<string, { level: number; rows: Json[] }> }>();
  for (const row of rows) {
    const policyLabel = named(row.escalation_policy);
    const level = typeof row.escalation_level === 'number' ? row.escalation_level : undefined;
    if (!policyLabel || level === undefined || !isRecord(row.user)) continue;
    const policyKey = String((row.escalation_policy as Json).id ?? policyLabel);
    let policy = policies.get(policyKey);
    if (!policy) policies.set(policyKey, (policy = { label: policyLabel, targets: new Map() }));
    const scheduleId = isRecord(row.schedule) ? String(row.schedule.id) : undefined;
    const targetKey = `${level}|${scheduleId ?? `user:${String(row.user.id)}`}`;
    let target = policy.targets.get(targetKey);
    if (!target) policy.targets.set(targetKey, (target = { level, rows: [] }));
    target.rows.push(row);
  }

  return [...policies.values()].map((policy) => {
    const levels = new Map<number, OnCallNow[]>();
    for (const { level, rows: shifts } of policy.targets.values()) {
      const entry = describeTarget(shifts, at, withNext);
      if (!entry) continue;
      levels.set(level, [...(levels.get(level) ?? []), entry]);
    }
    return {
      escalation_policy: policy.label,
      levels: [...levels.entries()].sort(([a], [b]) => a - b).map(([level, onCall]) => ({ level, on_call: oncePerPerson(onCall) })),
    };
  });
}

/**
 * One entry per person at a level: someone the policy names directly ("always") and who is also on
 * call through a schedule, or through two, is one entry that says each way (`always` and `via`,
 * schedules joined by ", "). Shifts on call at one instant overlap, so together they run from the
 * earliest `since` to the latest `until`; `next` is the first hand-over.
 */
function oncePerPerson(entries: OnCallNow[]): OnCallNow[] {
  const byUser = new Map<string, OnCallNow>();
  const out: OnCallNow[] = [];
  for (const entry of entries) {
    const seen = entry.user === undefined ? undefined : byUser.get(entry.user);
    if (!seen) {
      if (entry.user !== undefined) byUser.set(entry.user, entry);
      out.push(entry);
      continue;
    }
    const merged: OnCallNow = { ...seen };
    if (entry.always) merged.always = true;
    if (entry.via) merged.via = merged.via ? `${merged.via}, ${entry.via}` : entry.via;
    if (entry.since && (!merged.since || millis(entry.since) < millis(merged.since))) merged.since = entry.since;
    if (entry.until && (!merged.until || millis(entry.until) > millis(merged.until))) merged.until = entry.until;
    if (entry.next && (!merged.next || millis(entry.next.from) < millis(merged.next.from))) merged.next = entry.next;
    // Key order as a single entry has it: user, via, since, until, always, next.
    const { user, via, since, until, always, next } = merged;
    const tidy: OnCallNow = { ...(user !== undefined ? { user } : {}), ...(via ? { via } : {}), ...(since ? { since } : {}), ...(until ? { until } : {}), ...(always ? { always } : {}), ...(next ? { next } : {}) };
    out[out.indexOf(seen)] = tidy;
    byUser.set(entry.user as string, tidy);
  }
  return out;
}

function describeTarget(shifts: Json[], at: number, withNext: boolean): OnCallNow | undefined {
  const first = shifts[0];
  if (!first) return undefined;
  if (first.start == null && first.end == null) return { user: named(first.user) as string, always: true };
  const sorted = shifts.slice().sort((a, b) => millis(a.start) - millis(b.start));
  // Without a lookahead the platform answered for its own "now": its shift is the current one.
  const current = sorted.find((shift) => millis(shift.start) <= at && at < millis(shift.end)) ?? (withNext ? undefined : sorted[0]);
  const via = named(first.schedule);
  const currentUserId = current && isRecord(current.user) ? current.user.id : undefined;
  const after = current ? millis(current.end) : at;
  const next = withNext
    ? sorted.find((shift) => millis(shift.start) >= after && isRecord(shift.user) && shift.user.id !== currentUserId)
    : undefined;
  const base: OnCallNow = current
    ? { user: named(current.user) as string, ...(via ? { via } : {}), since: current.start as string, until: current.end as string }
    : { nobody: true, ...(via ? { via } : {}) };
  if (!current && !withNext) return undefined;
  return next ? { ...base, next: { user: named(next.user) as string, from: next.start as string } } : base;
}
