import { z } from 'zod';
import { cappedString } from '../../core/tools/schema.js';
import { incidentOpsTool } from '../deps.js';
import { checkTimeWindow, isoTimeParam, STATS_PAGES, timeZoneParam } from '../params.js';
import { checkedOutput } from '../shape.js';

// Only the definition lives here; the logic (src/incidentops/tasks/incident-stats.ts) loads on the first call.

/** The longest window: the platform's incident list spans six months per query. */
export const MAX_STATS_DAYS = 180;
const SUBJECTS = ['service_id', 'team_id', 'escalation_policy_id'] as const;

const timesSchema = z.object({ count: z.number().int(), median_min: z.number().optional(), p90_min: z.number().optional(), left_out: z.number().int().optional() });
const outputSchema = z.object({
  of: z.string(),
  window: z.string(),
  incidents: z.object({ total: z.number().int(), by_urgency: z.record(z.string(), z.number().int()), by_status: z.record(z.string(), z.number().int()) }),
  time_to_acknowledge: timesSchema,
  time_to_resolve: timesSchema,
  pages: z.object({ total: z.number().int(), out_of_hours: z.number().int(), at_night: z.number().int() }),
  responders: z.array(z.string()),
  measured: z.string(),
  partial: z.array(z.string()).optional(),
});

const idOrName = (description: string) => cappedString('identifier', z.string().trim().min(1)).describe(description);

const input = z
  .strictObject({
    service_id: idOrName('ID or name.').optional(),
    team_id: idOrName('ID or name.').optional(),
    escalation_policy_id: idOrName('ID or name.').optional(),
    since: isoTimeParam('Window start (default until minus days).'),
    until: isoTimeParam('Window end (default now).'),
    days: z.number().int().min(1).max(MAX_STATS_DAYS).optional().describe('Window length; default 30.'),
    time_zone: timeZoneParam.describe("For responders with no zone of their own (default UTC)."),
  })
  .superRefine((args, ctx) => {
    const given = SUBJECTS.filter((key) => args[key] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({ code: 'custom', path: [given[1] ?? 'service_id'], message: `give exactly one of ${SUBJECTS.join(', ')} (got ${given.length === 0 ? 'none' : given.join(' and ')})` });
    }
    if (args.since !== undefined && args.days !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['days'], message: 'give since or days, not both' });
    }
    checkTimeWindow(args, ctx, { maxSpanDays: MAX_STATS_DAYS });
  });

const incidentStats = incidentOpsTool({
  name: 'IncidentOps.IncidentStats',
  title: 'Incident statistics',
  description:
    "How is a service, team or policy doing? Over a window (default 30 days): incidents by urgency and status, time to acknowledge and resolve (median, p90), pages out of hours and at night in each responder's time zone, load per responder.",
  toolset: 'tasks',
  beyondContract: true,
  input,
  output: checkedOutput(outputSchema),
  truncationHint: 'Cut to fit: ask for a shorter window.',
  // The subject by ID or name (two at most), its policy's services, the incidents, the log feed, the responders' zones.
  budget: () => ({ requests: 3 + STATS_PAGES.incidents + STATS_PAGES.logEntries + STATS_PAGES.users }),
  handler: async (args, context) => (await import('../tasks/incident-stats.js')).incidentStats(args, context),
});

export default incidentStats;
