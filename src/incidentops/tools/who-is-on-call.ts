import { DateTime } from 'luxon';
import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { named, onCallLevels, type OnCallPolicy } from '../oncall-levels.js';
import { idParam, isoTimeParam, parseIsoTime, timeZoneParam } from '../params.js';
import { checkedOutput } from '../shape.js';
import { MAX_ONCALL_FUTURE_DAYS } from './list-on-calls.js';

/** How far past `at` to look for the next person: longer than a weekly rotation with a gap. */
export const NEXT_SHIFT_LOOKAHEAD_DAYS = 15;
/** `at` may be this far ahead, so that its lookahead stays inside the platform's on-call window. */
export const MAX_AT_FUTURE_DAYS = MAX_ONCALL_FUTURE_DAYS - NEXT_SHIFT_LOOKAHEAD_DAYS;
/** The platform's on-call filter takes at most this many policies at once. */
const MAX_POLICIES = 100;
const SUBJECTS = ['service_id', 'team_id', 'schedule_id', 'escalation_policy_id'] as const;

const onCallSchema = z.looseObject({ user: z.string().optional(), next: z.object({ user: z.string(), from: z.string() }).optional() });
const outputSchema = z.object({
  at: z.string(),
  service: z.string().optional(),
  team_policies: z.number().int().optional(),
  escalation_policies: z.array(z.object({ escalation_policy: z.string(), levels: z.array(z.object({ level: z.number().int(), on_call: z.array(onCallSchema) })) })),
  note: z.string().optional(),
});

/** `at` as an instant: an ISO time with an offset, or a local time read in `time_zone` (UTC by default); shown in that zone. */
function instantOf(at: string | undefined, timeZone: string | undefined, now: Date): DateTime {
  const zone = timeZone ?? 'utc';
  if (at === undefined) return DateTime.fromJSDate(now).setZone(zone);
  return DateTime.fromISO(at.trim(), { zone, setZone: true }).setZone(zone);
}

export default incidentOpsTool({
  name: 'IncidentOps.WhoIsOnCall',
  title: 'Who is on call',
  description: 'Who is on call per escalation level at a time (default now), since and until when, and who is next. Give one of service_id, team_id, schedule_id, escalation_policy_id.',
  toolset: 'tasks',
  beyondContract: true,
  input: z
    .strictObject({
      service_id: idParam("Its escalation policy's on-calls.").optional(),
      team_id: idParam("Its escalation policies' on-calls.").optional(),
      schedule_id: idParam('On-calls through this schedule.').optional(),
      escalation_policy_id: idParam('This policy.').optional(),
      at: isoTimeParam(`When (default now; at most ${MAX_AT_FUTURE_DAYS} days ahead); without an offset, in time_zone (else UTC).`),
      time_zone: timeZoneParam,
    })
    .superRefine((args, ctx) => {
      const given = SUBJECTS.filter((key) => args[key] !== undefined);
      if (given.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: [given[1] ?? 'service_id'],
          message: `give exactly one of ${SUBJECTS.join(', ')} (got ${given.length === 0 ? 'none' : given.join(' and ')})`,
        });
      }
      if (args.at !== undefined && parseIsoTime(args.at)) {
        const at = instantOf(args.at, args.time_zone, new Date());
        if (at.diffNow('days').days > MAX_AT_FUTURE_DAYS) ctx.addIssue({ code: 'custom', path: ['at'], message: `may be at most ${MAX_AT_FUTURE_DAYS} days in the future` });
      }
    }),
  output: checkedOutput(outputSchema),
  truncationHint: 'Cut to fit: ask about one escalation_policy_id at a time.',
  handler: async (args, { deps, signal, progress }) => {
    const at = instantOf(args.at, args.time_zone, deps.now()).set({ millisecond: 0 });
    const shown = (time: DateTime) => time.toISO({ suppressMilliseconds: true }) as string;
    const base = { at: shown(at) };
    // One count over both walks (the team's policies, then the shifts): progress only increases.
    let pagesRead = 0;
    const pages = (what: string) => (page: number, total?: number) => progress(++pagesRead, undefined, `Reading ${what}: page ${page}${total !== undefined ? ` of ${total}` : ''}`);
    let policyIds: string[] | undefined = args.escalation_policy_id ? [args.escalation_policy_id] : undefined;
    let service: string | undefined;
    let note: string | undefined;
    if (args.service_id) {
      const record = await deps.api.getOne('/services/{id}', { id: args.service_id }, 'service', signal, `service "${args.service_id}"`);
      service = named(record);
      const policy = record.escalation_policy as { id?: unknown } | undefined;
      policyIds = typeof policy?.id === 'string' ? [policy.id] : [];
    } else if (args.team_id) {
      const { items } = await deps.api.listAll('/escalation_policies', 'escalation_policies', { 'team_ids[]': [args.team_id] }, signal, {
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
      return { ...base, ...(service ? { service } : {}), escalation_policies: [], note: args.team_id ? 'The team has no escalation policies.' : 'The service has no escalation policy.' };
    }
    const { items, truncated } = await deps.api.listAll(
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
      { maxItems: 5000, onProgress: pages('on-call shifts') },
    );
    const policies: OnCallPolicy[] = onCallLevels(items, at.toMillis(), true);
    if (truncated) note = `More than 5,000 shifts in the next ${NEXT_SHIFT_LOOKAHEAD_DAYS} days: the next person may be missing. Ask by escalation_policy_id.`;
    if (policies.length === 0) note ??= args.schedule_id ? 'No escalation policy uses this schedule, so nobody is paged through it.' : 'Nobody is on call.';
    return {
      ...base,
      ...(service ? { service } : {}),
      ...(args.team_id ? { team_policies: policyIds?.length ?? 0 } : {}),
      escalation_policies: policies,
      ...(note ? { note } : {}),
    };
  },
});
