import { z } from 'zod';
import { ToolError } from '../../core/errors.js';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, checkTimeWindow, idsParam, isoTimeParam, limitParam, offsetParam, timeZoneParam } from '../params.js';
import { page, pageFields, shapeOncall } from '../shape.js';

/** The platform serves on-call shifts at most this far ahead. */
export const MAX_ONCALL_FUTURE_DAYS = 90;

export default incidentOpsTool({
  name: 'IncidentOps.ListOnCalls',
  title: 'List on-call shifts',
  description:
    'Who is on call: one entry per user, escalation policy and level (escalation_level 1 is paged first), with the schedule and the shift start and end (none for permanent on-calls). Without since/until it shows now; until may be at most 90 days ahead. Filter by schedules, escalation policies or teams (a team filter means the escalation policies of those teams).',
  toolset: 'oncalls',
  input: z
    .strictObject({
      schedule_ids: idsParam('shifts on schedules'),
      escalation_policy_ids: idsParam('shifts for escalation policies'),
      team_ids: idsParam('shifts for the escalation policies of teams'),
      time_zone: timeZoneParam,
      since: isoTimeParam('Start of the time window (ISO 8601); defaults to now.'),
      until: isoTimeParam('End of the time window (ISO 8601); defaults to now, at most 90 days ahead.'),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine((args, ctx) => {
      checkPageWindow(args, ctx);
      checkTimeWindow(args, ctx, { maxFutureDays: MAX_ONCALL_FUTURE_DAYS });
    }),
  output: z.object({ oncalls: z.array(z.looseObject({})), ...pageFields, escalation_policy_ids: z.array(z.string()).optional() }),
  handler: async (args, { deps, signal }) => {
    let policyIds = args.escalation_policy_ids;
    let resolvedFromTeams: string[] | undefined;
    if (args.team_ids?.length) {
      // /oncalls has no team filter: resolve the teams to their escalation policies first.
      const { items, truncated } = await deps.api.listAll('/escalation_policies', 'escalation_policies', { 'team_ids[]': args.team_ids }, signal);
      if (truncated) throw new ToolError({ kind: 'bad_request', message: 'These teams have more than 10,000 escalation policies.', nextStep: 'Filter by escalation_policy_ids instead.' });
      resolvedFromTeams = items.map((p) => String(p.id));
      // Filters combine with AND: keep only the requested policies that belong to the teams.
      policyIds = policyIds ? policyIds.filter((id) => resolvedFromTeams?.includes(id)) : resolvedFromTeams;
      if (policyIds.length === 0) {
        return { oncalls: [], ...page(args.limit, args.offset, false, 0), escalation_policy_ids: [] };
      }
    }
    const result = await deps.api.listPage(
      '/oncalls',
      'oncalls',
      {
        'schedule_ids[]': args.schedule_ids,
        'escalation_policy_ids[]': policyIds,
        time_zone: args.time_zone,
        since: args.since,
        until: args.until,
        limit: args.limit,
        offset: args.offset,
      },
      signal,
    );
    return {
      oncalls: result.items.map(shapeOncall),
      ...page(args.limit, args.offset, result.more, result.items.length),
      ...(resolvedFromTeams ? { escalation_policy_ids: policyIds } : {}),
    };
  },
});
