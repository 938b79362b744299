/** WhoIsOnCall's logic, loaded on its first call (the definition is in ../tools/who-is-on-call.ts). */
import type { DateTime } from 'luxon';
import type { ToolContext } from '../../core/tools/tool.js';
import type { IncidentOpsDeps } from '../deps.js';
import { named, onCallLevels, type OnCallPolicy } from '../oncall-levels.js';
import { API_PAGE_SIZE } from '../api.js';
import { instantOf, NEXT_SHIFT_LOOKAHEAD_DAYS, TASK_PAGES } from '../params.js';
import type { WhoIsOnCallArgs, WhoIsOnCallResult } from '../tools/who-is-on-call.js';
import { resolveByIdOrName } from './by-name.js';

/** The platform's on-call filter takes at most this many policies at once. */
const MAX_POLICIES = 100;
/** Shifts read over the lookahead: past these the next person may be missing (the answer says so). */
const MAX_SHIFTS = TASK_PAGES.shifts * API_PAGE_SIZE;

export async function whoIsOnCall(args: WhoIsOnCallArgs, { deps, signal, progress }: ToolContext<IncidentOpsDeps>): Promise<WhoIsOnCallResult> {
  const at = instantOf(args.at, args.time_zone, deps.now()).set({ millisecond: 0 });
  const shown = (time: DateTime) => time.toISO({ suppressMilliseconds: true }) as string;
  const base = { at: shown(at) };
  // One count over both walks (the team's policies, then the shifts): progress only increases.
  let pagesRead = 0;
  const pages = (what: string) => (page: number, total?: number) => progress(++pagesRead, undefined, `Reading ${what}: page ${page}${total !== undefined ? ` of ${total}` : ''}`);
  let policyIds: string[] | undefined = args.escalation_policy_id ? [args.escalation_policy_id] : undefined;
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
    policyIds = items.map((policy) => String(policy.id));
    if (policyIds.length > MAX_POLICIES) {
      policyIds = policyIds.slice(0, MAX_POLICIES);
      note = `The team has more than ${MAX_POLICIES} escalation policies; only the first ${MAX_POLICIES} are shown. Ask by escalation_policy_id for the others.`;
    }
  }
  if (policyIds && policyIds.length === 0) {
    return { ...base, ...subject, escalation_policies: [], note: args.team_id ? 'The team has no escalation policies.' : 'The service has no escalation policy.' };
  }
  const { items, truncated, why } = await deps.api.listAll(
    '/oncalls',
    'oncalls',
    {
      'escalation_policy_ids[]': policyIds,
      'schedule_ids[]': args.schedule_id ? [args.schedule_id] : undefined,
      since: shown(at.toUTC()),
      until: shown(at.plus({ days: NEXT_SHIFT_LOOKAHEAD_DAYS }).toUTC()),
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
