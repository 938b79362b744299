/** WhoIsOnCall's logic, loaded on its first call (the definition is in ../tools/who-is-on-call.ts). */
import type { DateTime } from 'luxon';
import type { ToolContext } from '../../core/tools/tool.js';
import type { IncidentOpsDeps } from '../deps.js';
import { named, onCallLevels, type OnCallPolicy } from '../oncall-levels.js';
import { API_PAGE_SIZE } from '../api.js';
import { instantOf, MAX_TEAM_POLICIES, MAX_WINDOW_DAYS, NEXT_SHIFT_LOOKAHEAD_DAYS, OVERRIDE_SCHEDULES, TASK_PAGES, windowDays } from '../params.js';
import { ToolError } from '../../core/errors.js';
import { resolveByIdOrName } from './by-name.js';
import { isRecord } from '../../core/json.js';
import { coverageCancelled, readCoverageShifts, readOverrides, type ShiftsRead } from './coverage-reading.js';
import { paced } from './coverage-sweep.js';
import { coverageSteps, coverageSummary, shownTime, type CoveragePolicy, type CoverageWindow } from './oncall-coverage.js';

type Json = Record<string, unknown>;

/** What the logic is called with: the definition's checked input (../tools/who-is-on-call.ts). */
export interface WhoIsOnCallArgs {
  service_id?: string | undefined;
  team_id?: string | undefined;
  schedule_id?: string | undefined;
  escalation_policy_id?: string | undefined;
  at?: string | undefined;
  until?: string | undefined;
  time_zone?: string | undefined;
}

/** Who is on call at one level: their name, and who comes next from when (other fields as the shift gives them). */
type OnCallEntry = Json & { user?: string | undefined; next?: { user: string; from: string } | undefined };

/** What it answers, as the definition's output schema states it. */
export interface WhoIsOnCallResult {
  at: string;
  service?: string | undefined;
  team?: string | undefined;
  team_policies?: number | undefined;
  until?: string | undefined;
  summary?: string | undefined;
  covered_until?: string | undefined;
  escalation_policies: { escalation_policy: string; levels: { level: number; on_call?: OnCallEntry[] | undefined; shifts?: Record<string, string[]> | undefined; gaps?: string[] | undefined }[] }[];
  note?: string | undefined;
}

/** `until` after `at` (default now) and at most MAX_WINDOW_DAYS after it: an invalid_input naming until otherwise. */
function checkWindow(args: WhoIsOnCallArgs, now: Date): void {
  const days = windowDays(args, now);
  const problem = !(days > 0) ? 'must be after at (at defaults to now)' : days > MAX_WINDOW_DAYS ? `may be at most ${MAX_WINDOW_DAYS} days after at (it is ${Math.ceil(days)} days); ask for a shorter window` : undefined;
  if (!problem) return;
  throw new ToolError({ kind: 'invalid_input', message: `Invalid arguments (nothing was sent): until: ${problem}`, nextStep: 'Fix until and call the tool again.', issues: [{ parameter: 'until', problem }] });
}

/** Distinct schedules the policies' levels page (their targets), when the policies are known. */
function schedulesOf(policies: readonly Json[]): number | undefined {
  if (policies.length === 0) return undefined;
  const ids = new Set<string>();
  for (const policy of policies) {
    for (const rule of Array.isArray(policy.escalation_rules) ? policy.escalation_rules : []) {
      for (const target of isRecord(rule) && Array.isArray(rule.targets) ? rule.targets : []) {
        if (isRecord(target) && typeof target.type === 'string' && target.type.startsWith('schedule')) ids.add(String(target.id));
      }
    }
  }
  return ids.size;
}

interface CoverageInput {
  deps: IncidentOpsDeps;
  signal: AbortSignal;
  args: WhoIsOnCallArgs;
  window: CoverageWindow;
  teamPolicies: Json[];
  policyIds: string[] | undefined;
  onProgress: (page: number, total?: number) => void;
}

type CoveragePart = Pick<WhoIsOnCallResult, 'summary' | 'note' | 'covered_until'> & { escalation_policies: CoveragePolicy[] };

/**
 * The coverage answer over [at, until): the policies' levels (a level nobody covers in the whole
 * window has no shift at all), the overrides of the schedules the shifts go through, the gaps;
 * past the call's budget, the same over the first part of the window read in full (`covered_until`).
 */
async function coverageAnswer(input: CoverageInput): Promise<CoveragePart> {
  const { deps, signal, args, window } = input;
  const notes: string[] = [];
  let policies = input.teamPolicies;
  if (!args.team_id && input.policyIds?.length === 1) {
    const id = input.policyIds[0] as string;
    policies = [await deps.api.getOne('/escalation_policies/{id}', { id }, 'escalation_policy', signal, `escalation policy "${id}"`)];
  }
  const levelCounts = new Map(
    policies.map((policy) => [String(policy.id), { label: named(policy) as string, levels: Array.isArray(policy.escalation_rules) ? policy.escalation_rules.length : 0 }]),
  );
  const cap = args.team_id ? OVERRIDE_SCHEDULES.team : OVERRIDE_SCHEDULES.onePolicy;
  // The overrides' two requests per schedule are set aside before the shifts take the rest.
  const expected = args.schedule_id ? 1 : Math.min(cap, schedulesOf(policies) ?? cap);
  const shifts = await readCoverageShifts({
    api: deps.api,
    query: { 'escalation_policy_ids[]': input.policyIds, 'schedule_ids[]': args.schedule_id ? [args.schedule_id] : undefined, time_zone: args.time_zone },
    window,
    signal,
    reserve: { requests: 2 * expected },
    maxRows: MAX_SHIFTS,
    onProgress: input.onProgress,
  });
  if (shifts.coveredUntil <= window.start) throw nothingCovered(shifts);
  const covered = { ...window, end: shifts.coveredUntil };
  const scheduleIds = [...new Set(shifts.rows.flatMap((row) => (isRecord(row.schedule) ? [String(row.schedule.id)] : [])))];
  if (scheduleIds.length > cap) notes.push(`Overrides are shown for the first ${cap} of ${scheduleIds.length} schedules only; ask by schedule_id for the others.`);
  const overrides = await readOverrides(deps.api, scheduleIds.slice(0, cap), covered, signal);
  if (overrides.unread.length > 0) notes.push(`This call's budget ran out before the overrides of ${overrides.unread.length === 1 ? 'schedule' : 'schedules'} ${overrides.unread.join(', ')} were read: their shifts are shown without them; ask by schedule_id for them.`);
  const coverage = await paced(coverageSteps(shifts.rows, covered, overrides.bySchedule, levelCounts), signal, coverageCancelled);
  if (coverage.policies.length === 0) notes.push(args.schedule_id ? 'Nobody is on call through this schedule in the window, or no escalation policy uses it.' : 'Nobody is on call in the window.');
  if (shifts.truncated) notes.push(`Not every shift of the window was read (${shifts.truncated}): gaps shown late in the window may be shifts not read. Ask by escalation_policy_id or for a shorter window.`);
  let summary = coverageSummary(coverage);
  const part: Partial<CoveragePart> = {};
  if (shifts.coveredUntil < window.end) {
    part.covered_until = shownTime(shifts.coveredUntil, window.zone);
    summary = `Up to ${part.covered_until} only: ${summary}`;
    notes.unshift(
      `Covered from at to covered_until only, in full: ${shifts.short ?? 'the budget ran out'} (${shifts.total?.toLocaleString('en-US') ?? 'more'} shifts in it). ` +
        'For the rest, call again with at set to covered_until, or ask for a shorter window or by escalation_policy_id.',
    );
  }
  return { summary, escalation_policies: coverage.policies, ...part, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) };
}

/** Not even the first slice of the window fits the call's budget. */
function nothingCovered(shifts: ShiftsRead): ToolError {
  return new ToolError({
    kind: 'budget_exceeded',
    message: `Not even the start of the window could be read in full: ${shifts.short ?? "this call's budget ran out"} (${shifts.total?.toLocaleString('en-US') ?? 'many'} shifts in it); nothing is shown.`,
    nextStep: 'Ask for a shorter window (until closer to at), or by escalation_policy_id or schedule_id.',
  });
}

/** The platform's on-call filter takes at most this many policies at once. */
const MAX_POLICIES = MAX_TEAM_POLICIES;
/** Shifts read over the lookahead: past these the next person may be missing (the answer says so). */
const MAX_SHIFTS = TASK_PAGES.shifts * API_PAGE_SIZE;

export async function whoIsOnCall(args: WhoIsOnCallArgs, { deps, signal, progress }: ToolContext<IncidentOpsDeps>): Promise<WhoIsOnCallResult> {
  const at = instantOf(args.at, args.time_zone, deps.now()).set({ millisecond: 0 });
  if (args.until !== undefined) checkWindow(args, deps.now());
  const shown = (time: DateTime) => time.toISO({ suppressMilliseconds: true }) as string;
  const base = { at: shown(at) };
  // One count over both walks (the team's policies, then the shifts): progress only increases.
  let pagesRead = 0;
  const pages = (what: string) => (page: number, total?: number) => progress(++pagesRead, undefined, `Reading ${what}: page ${page}${total !== undefined ? ` of ${total}` : ''}`);
  let policyIds: string[] | undefined = args.escalation_policy_id ? [args.escalation_policy_id] : undefined;
  /** The team's policies as listed (with their levels), kept for a coverage answer. */
  let teamPolicies: Record<string, unknown>[] = [];
  let subject: { service: string } | { team: string } | Record<string, never> = {};
  let note: string | undefined;
  if (args.service_id) {
    const record = await resolveByIdOrName(deps.api, 'service', 'service_id', args.service_id, signal);
    subject = { service: named(record) as string };
    const policy = record.escalation_policy as { id?: unknown } | undefined;
    policyIds = typeof policy?.id === 'string' ? [policy.id] : [];
  } else if (args.team_id) {
    const team = await resolveByIdOrName(deps.api, 'team', 'team_id', args.team_id, signal);
    subject = { team: named(team) as string };
    const { items } = await deps.api.listAll('/escalation_policies', 'escalation_policies', { 'team_ids[]': [String(team.id)] }, signal, {
      maxItems: MAX_POLICIES + 1,
      onProgress: pages("the team's escalation policies"),
    });
    teamPolicies = items.slice(0, MAX_POLICIES);
    policyIds = items.map((policy) => String(policy.id));
    if (policyIds.length > MAX_POLICIES) {
      policyIds = policyIds.slice(0, MAX_POLICIES);
      note = `The team has more than ${MAX_POLICIES} escalation policies; only the first ${MAX_POLICIES} are shown. Ask by escalation_policy_id for the others.`;
    }
  }
  if (policyIds && policyIds.length === 0) {
    return { ...base, ...subject, escalation_policies: [], note: args.team_id ? 'The team has no escalation policies.' : 'The service has no escalation policy.' };
  }
  if (args.until !== undefined) {
    const until = instantOf(args.until, args.time_zone, deps.now()).set({ millisecond: 0 });
    const window = { start: at.toMillis(), end: until.toMillis(), zone: at.zoneName ?? 'utc' };
    const coverage = await coverageAnswer({ deps, signal, args, window, teamPolicies, policyIds, onProgress: pages('on-call shifts') });
    // Asked by schedule, the shifts are that schedule's: a level's other schedules (or users the policy names) may cover its gaps.
    if (args.schedule_id) {
      coverage.summary = `Through schedule ${args.schedule_id} only: ${coverage.summary}`;
      coverage.note = `Gaps are where this schedule has nobody on call; other schedules of the same level may cover them (ask by escalation_policy_id for the level's own gaps).${coverage.note ? ` ${coverage.note}` : ''}`;
    }
    return { ...base, until: shown(until), ...subject, ...(args.team_id ? { team_policies: policyIds?.length ?? 0 } : {}), ...coverage, ...(note ? { note: [note, coverage.note].filter(Boolean).join(' ') } : {}) };
  }
  const until = at.plus({ days: NEXT_SHIFT_LOOKAHEAD_DAYS });
  const { items, truncated, why } = await deps.api.listAll(
    '/oncalls',
    'oncalls',
    {
      'escalation_policy_ids[]': policyIds,
      'schedule_ids[]': args.schedule_id ? [args.schedule_id] : undefined,
      since: shown(at.toUTC()),
      until: shown(until.toUTC()),
      time_zone: args.time_zone,
    },
    signal,
    { maxItems: MAX_SHIFTS, onProgress: pages('on-call shifts') },
  );
  const policies: OnCallPolicy[] = onCallLevels(items, at.toMillis(), true);
  if (truncated) note = `Not every shift of the next ${NEXT_SHIFT_LOOKAHEAD_DAYS} days was read (${why ?? `more than ${MAX_SHIFTS.toLocaleString('en-US')}`}): the next person may be missing. Ask by escalation_policy_id.`;
  if (policies.length === 0) note ??= args.schedule_id ? 'No escalation policy uses this schedule, so nobody is paged through it.' : 'Nobody is on call.';
  return {
    ...base,
    ...subject,
    ...(args.team_id ? { team_policies: policyIds?.length ?? 0 } : {}),
    escalation_policies: policies,
    ...(note ? { note } : {}),
  };
}
