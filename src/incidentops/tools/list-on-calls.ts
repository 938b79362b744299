import { z } from 'zod';
import { ToolError } from '../../core/errors.js';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, checkTimeWindow, idsParam, isoTimeParam, limitParam, offsetParam, timeZoneParam } from '../params.js';
import { reportPages } from '../api.js';
import { checkedOutput, LIST_TRUNCATION_HINT, oncallSchema, page, pageFields, shapeOncall } from '../shape.js';

/** The platform serves on-call shifts at most this far ahead. */
export const MAX_ONCALL_FUTURE_DAYS = 90;

export default incidentOpsTool({
  name: 'IncidentOps.ListOnCalls',
  title: 'List on-call shifts',
  description: 'On-call shifts (default: now) by escalation policy and level; 1 is paged first.',
  toolset: 'oncalls',
  input: z
    .strictObject({
      schedule_ids: idsParam('Only these schedules.'),
      escalation_policy_ids: idsParam('Only these policies.'),
      team_ids: idsParam("Only these teams' policies."),
      time_zone: timeZoneParam,
      since: isoTimeParam('Window start.'),
      until: isoTimeParam(`Window end, at most ${MAX_ONCALL_FUTURE_DAYS} days ahead.`),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine((args, ctx) => {
      checkPageWindow(args, ctx);
      checkTimeWindow(args, ctx, { maxFutureDays: MAX_ONCALL_FUTURE_DAYS });
    }),
  output: checkedOutput(z.object({ oncalls: z.array(oncallSchema), ...pageFields, escalation_policy_ids: z.array(z.string()).optional() })),
  truncationHint: LIST_TRUNCATION_HINT,
  handler: async (args, { deps, signal, progress }) => {
    let policyIds = args.escalation_policy_ids;
    let resolvedFromTeams: string[] | undefined;
    if (args.team_ids?.length) {
      // /oncalls has no team filter: resolve the teams to their escalation policies first.
      const { items, truncated, why } = await deps.api.listAll('/escalation_policies', 'escalation_policies', { 'team_ids[]': args.team_ids }, signal, {
        onProgress: reportPages(progress, "the teams' escalation policies"),
      });
      if (truncated) throw new ToolError({ kind: 'bad_request', message: `These teams' escalation policies could not all be read (${why ?? 'more than 10,000'}).`, nextStep: 'Filter by escalation_policy_ids instead.' });
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
