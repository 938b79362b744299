import { z } from 'zod';
import { cappedString } from '../../core/tools/schema.js';
import { incidentOpsTool } from '../deps.js';
import { idParam, instantOf, isoTimeParam, MAX_TEAM_POLICIES, MAX_WINDOW_DAYS, NEXT_SHIFT_LOOKAHEAD_DAYS, OVERRIDE_SCHEDULES, parseIsoTime, TASK_PAGES, timeZoneParam, windowDays } from '../params.js';
import { checkedOutput } from '../shape.js';
import { API_PAGE_SIZE } from '../api.js';
import { MAX_ONCALL_FUTURE_DAYS } from './list-on-calls.js';

// Only the definition lives here; the logic (src/incidentops/tasks/) loads on the first call.

/** `at` may be this far ahead, so that its lookahead stays inside the platform's on-call window. */
export const MAX_AT_FUTURE_DAYS = MAX_ONCALL_FUTURE_DAYS - NEXT_SHIFT_LOOKAHEAD_DAYS;
const SUBJECTS = ['service_id', 'team_id', 'schedule_id', 'escalation_policy_id'] as const;
/** Shifts a coverage budget expects per policy and day (restricted layers split days into several). */
const SHIFTS_PER_POLICY_DAY = 20;

const onCallSchema = z.looseObject({ user: z.string().optional(), next: z.object({ user: z.string(), from: z.string() }).optional() });
const outputSchema = z.object({
  at: z.string(),
  service: z.string().optional(),
  team: z.string().optional(),
  team_policies: z.number().int().optional(),
  until: z.string().optional(),
  summary: z.string().optional(),
  covered_until: z.string().optional(),
  escalation_policies: z.array(
    z.object({
      escalation_policy: z.string(),
      levels: z.array(z.object({ level: z.number().int(), on_call: z.array(onCallSchema).optional(), shifts: z.record(z.string(), z.array(z.string())).optional(), gaps: z.array(z.string()).optional() })),
    }),
  ),
  note: z.string().optional(),
});

/** A service or team ID, or its name: a name is only ever sent as a query value, never in a path. */
const idOrNameParam = (description: string) => cappedString('identifier', z.string().trim().min(1)).describe(description);

const input = z
  .strictObject({
    service_id: idOrNameParam("ID or name (or part of it). Its escalation policy's on-calls.").optional(),
    team_id: idOrNameParam("ID or name (or part of it). Its escalation policies' on-calls.").optional(),
    schedule_id: idParam('On-calls through this schedule.').optional(),
    escalation_policy_id: idParam('This policy.').optional(),
    at: isoTimeParam(`When (default now; at most ${MAX_AT_FUTURE_DAYS} days ahead); without an offset, in time_zone (else UTC).`),
    until: isoTimeParam(`Coverage from at to this (at most ${MAX_WINDOW_DAYS} days): shifts, gaps, overrides per level.`),
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
  });


/**
 * Requests: a service or team by ID or name (at most two), the team's policies, the shifts; over a
 * window also the policy's levels and, per schedule, its overrides and its layers, sized from the
 * window's days and the policies it may cover (one, or a team's).
 */
function whoIsOnCallBudget(args: WhoIsOnCallArgs): { requests: number } {
  if (args.until === undefined) return { requests: 2 + TASK_PAGES.teamPolicies + TASK_PAGES.shifts };
  const policies = args.team_id !== undefined ? MAX_TEAM_POLICIES : 1;
  const asked = Math.ceil(windowDays(args));
  const days = Number.isFinite(asked) ? Math.min(MAX_WINDOW_DAYS, Math.max(1, asked)) : MAX_WINDOW_DAYS;
  const shiftPages = Math.min(TASK_PAGES.shifts, 1 + Math.ceil((days * policies * SHIFTS_PER_POLICY_DAY) / API_PAGE_SIZE));
  const schedules = args.team_id !== undefined ? OVERRIDE_SCHEDULES.team : OVERRIDE_SCHEDULES.onePolicy;
  return { requests: 2 + TASK_PAGES.teamPolicies + 1 + shiftPages + 2 * schedules };
}

const whoIsOnCall = incidentOpsTool({
  name: 'IncidentOps.WhoIsOnCall',
  title: 'Who is on call',
  description: 'Who is on call per escalation level at a time (default now), since and until when, and who is next; with until, the coverage over a window: shifts, gaps, overrides (past the call budget, up to covered_until). Give one of service_id, team_id, schedule_id, escalation_policy_id.',
  toolset: 'tasks',
  beyondContract: true,
  // With until: shifts, gaps and overrides per level as a chart (views/coverage.html).
  view: 'coverage',
  input,
  output: checkedOutput(outputSchema),
  truncationHint: 'Cut to fit: ask about one escalation_policy_id at a time.',
  budget: whoIsOnCallBudget,
  handler: async (args, context) => (await import('../tasks/who-is-on-call.js')).whoIsOnCall(args, context),
});

type WhoIsOnCallArgs = z.output<typeof input>;
export default whoIsOnCall;
