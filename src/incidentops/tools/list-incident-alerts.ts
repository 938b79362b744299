import { z } from 'zod';
import { cappedString } from '../../core/tools/schema.js';
import { incidentOpsTool } from '../deps.js';
import { incidentIdParam, MAX_PAGE_WINDOW, offsetParam } from '../params.js';
import { checkedOutput } from '../shape.js';

// Only the definition lives here; the logic (src/incidentops/tasks/incident-alerts.ts) loads on the first call.

/** Alerts one call shows at most; the platform's pages of 100 are read until then (or the answer's size). */
export const MAX_ALERTS = 500;

const alertSchema = z.object({
  alert: z.string(),
  severity: z.string().optional(),
  status: z.string().optional(),
  created: z.string().optional(),
  service: z.string().optional(),
  integration: z.string().optional(),
  dedup_key: z.string().optional(),
  links: z.array(z.string()),
  details: z.array(z.string()),
  details_left_out: z.number().int().optional(),
});
const outputSchema = z.object({
  incident: z.string(),
  total: z.number().int().optional(),
  alerts: z.array(alertSchema),
  next_offset: z.number().int().optional(),
  cut: z.string().optional(),
  note: z.string().optional(),
});

const input = z
  .strictObject({
    incident_id: incidentIdParam,
    status: z.enum(['triggered', 'resolved']).optional(),
    alert_key: cappedString('identifier', z.string().trim().min(1)).optional().describe('Dedup key: one alert, its details cut less.'),
    limit: z.number().int().min(1).max(MAX_ALERTS).default(100),
    offset: offsetParam,
  })
  .superRefine((args, ctx) => {
    if (args.offset + Math.min(args.limit, 100) > MAX_PAGE_WINDOW) {
      ctx.addIssue({ code: 'custom', path: ['offset'], message: `offset must stay below ${MAX_PAGE_WINDOW - 100} (got ${args.offset}): the platform reads no further` });
    }
  });

const listIncidentAlerts = incidentOpsTool({
  name: 'IncidentOps.ListIncidentAlerts',
  title: "An incident's alerts in full",
  description: 'Every alert of an incident, oldest first, with its body: severity, status, service, integration, dedup key, links, details as key: value lines. Long bodies are cut by a rule; cut says what.',
  toolset: 'tasks',
  beyondContract: true,
  input,
  output: checkedOutput(outputSchema),
  truncationHint: 'Cut to fit: call again with offset = next_offset, or one alert by alert_key.',
  // The incident by number (one GET, skipped for an ID), then pages of 100 alerts.
  budget: (args) => ({ requests: 1 + Math.ceil(args.limit / 100) }),
  handler: async (args, context) => (await import('../tasks/incident-alerts.js')).listIncidentAlerts(args, context),
});

export default listIncidentAlerts;
