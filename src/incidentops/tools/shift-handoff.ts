import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { checkedOutput } from '../shape.js';

// Only the definition lives here; the logic (src/incidentops/tasks/shift-handoff.ts) loads on the first call.

const SUBJECTS = ['user_id', 'schedule_id', 'escalation_policy_id'] as const;

const outputSchema = z.object({
  at: z.string(),
  subject: z.string(),
  phase: z.enum(['ending', 'started', 'ended', 'none']),
  shift: z.string().optional(),
  handover: z.string().optional(),
  levels: z.array(z.string()),
  incidents: z
    .object({
      opened: z.number().int(),
      open: z.number().int(),
      resolved: z.number().int(),
      time_to_acknowledge: z.string(),
      time_to_resolve: z.string(),
      open_incidents: z.array(z.string()),
      resolved_incidents: z.array(z.string()),
    })
    .optional(),
  next_on_call: z.array(z.string()),
  coming_24h: z.array(z.string()),
  partial: z.array(z.string()).optional(),
  note: z.string().optional(),
});

const input = z
  .strictObject({
    user_id: idParam('This user (default: you).').optional(),
    schedule_id: idParam("This schedule's shifts.").optional(),
    escalation_policy_id: idParam("This policy's shifts.").optional(),
    escalation_level: z.number().int().min(1).max(20).optional().describe('With escalation_policy_id (default 1).'),
  })
  .superRefine((args, ctx) => {
    const given = SUBJECTS.filter((key) => args[key] !== undefined);
    if (given.length > 1) ctx.addIssue({ code: 'custom', path: [given[1] as string], message: `give at most one of ${SUBJECTS.join(', ')} (got ${given.join(' and ')})` });
    if (args.escalation_level !== undefined && args.escalation_policy_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['escalation_level'], message: 'needs escalation_policy_id' });
    }
  });

/**
 * Requests: me, the subject's shifts (2 pages), the shifts around the handover (2), the policies
 * (3), the shift's incidents (3 pages) and log entries (3), notes of open incidents (10), and the
 * coming 24 hours' coverage of up to 2 policies (27 each, WhoIsOnCall's over 24 hours).
 */
export const SHIFT_HANDOFF_REQUESTS = 1 + 2 + 2 + 3 + 3 + 3 + 10 + 2 * 27;

const shiftHandoff = incidentOpsTool({
  name: 'IncidentOps.ShiftHandoff',
  title: 'Shift handoff',
  description: "The handoff of a shift (yours by default, or a schedule's or policy level's): who hands over to whom and when, the shift's incidents (opened, open, resolved, time to acknowledge and resolve, last notes), who is on call next, gaps and overrides in the next 24 hours.",
  toolset: 'tasks',
  beyondContract: true,
  input,
  output: checkedOutput(outputSchema),
  truncationHint: 'Cut to fit: ask by escalation_policy_id and escalation_level.',
  budget: () => ({ requests: SHIFT_HANDOFF_REQUESTS }),
  handler: async (args, context) => (await import('../tasks/shift-handoff.js')).shiftHandoff(args, context),
});

export default shiftHandoff;
