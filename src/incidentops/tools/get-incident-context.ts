import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { incidentIdParam, TASK_PAGES } from '../params.js';
import { checkedOutput } from '../shape.js';

// Only the definition lives here; the logic (src/incidentops/tasks/) loads on the first call.

const outputSchema = z.object({
  incident: z.looseObject({ id: z.string() }),
  alerts: z.looseObject({ count: z.number().int().optional(), newest: z.array(z.looseObject({ id: z.string() })) }),
  notes: z.array(z.string()),
  timeline: z.array(z.string()),
  on_call_now: z.array(z.string()),
  changes: z.array(z.string()),
  other_open: z.array(z.string()),
  depends_on: z.array(z.string()),
  depended_on_by: z.array(z.string()),
  partial: z.array(z.string()).optional(),
});

const input = z.strictObject({ incident_id: incidentIdParam });

const getIncidentContext = incidentOpsTool({
  name: 'IncidentOps.GetIncidentContext',
  title: 'Get an incident with its context',
  description: "What happened in an incident: the incident, its alerts' count and newest alerts, its notes, its timeline of key events, who is on call for it now, related changes, other open incidents, and what its service depends on or is depended on by, with what is open there.",
  toolset: 'tasks',
  beyondContract: true,
  // The header, a timeline chart, on call now, changes and related incidents (views/incident.html).
  view: 'incident',
  input,
  output: checkedOutput(outputSchema),
  truncationHint: 'Cut to fit: IncidentOps.ListLogEntries pages through the account feed.',
  // The incident, its alerts and notes, the two walks, its related changes, its related
  // incidents and, on a plan without them, the service's open incidents; its service's
  // dependencies, their names (services, business services) and their open incidents.
  budget: () => ({ requests: 9 + TASK_PAGES.logEntries + TASK_PAGES.incidentOnCalls + TASK_PAGES.dependentsOpen }),
  handler: async (args, context) => (await import('../tasks/incident-context.js')).getIncidentContext(args, context),
});

export default getIncidentContext;
