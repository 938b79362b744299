import { z } from 'zod';
import { cappedString } from '../../core/tools/schema.js';
import { incidentOpsTool } from '../deps.js';
import { incidentIdParam, SIMILAR_INCIDENT_PAGES, SIMILAR_MAX_WINDOW_DAYS, SIMILAR_NOTE_READS } from '../params.js';
import { checkedOutput } from '../shape.js';

// Only the definition lives here; the logic (src/incidentops/tasks/) loads on the first call.

const MAX_WINDOW_DAYS = SIMILAR_MAX_WINDOW_DAYS;

const similarSchema = z.object({
  incident: z.string(),
  when: z.string().optional(),
  resolved_in: z.string().optional(),
  resolved_by: z.string().optional(),
  score: z.number().optional(),
  last_notes: z.array(z.string()),
});
const outputSchema = z.object({
  similar_to: z.string(),
  ranked_by: z.string(),
  incidents: z.array(similarSchema),
  note: z.string().optional(),
});

const input = z
  .strictObject({
    incident_id: incidentIdParam.optional(),
    text: cappedString('text', z.string().trim().min(1)).optional().describe('Or what is happening, in words.'),
    service_id: cappedString('identifier', z.string().trim().min(1)).optional().describe("ID or name. Default: the incident's service; with text, all."),
    window_days: z.number().int().min(1).max(MAX_WINDOW_DAYS).default(MAX_WINDOW_DAYS).describe('How far back.'),
    limit: z.number().int().min(1).max(10).default(5),
  })
  .superRefine((args, ctx) => {
    if ((args.incident_id === undefined) === (args.text === undefined)) {
      ctx.addIssue({ code: 'custom', path: [args.incident_id === undefined ? 'incident_id' : 'text'], message: `give exactly one of incident_id, text (got ${args.incident_id === undefined ? 'none' : 'both'})` });
    }
  });

const findSimilarIncidents = incidentOpsTool({
  name: 'IncidentOps.FindSimilarIncidents',
  title: 'Find similar past incidents',
  description: 'Has this happened before? Past incidents like an incident (or a text): when, how long to resolve, who resolved them, their last notes (what fixed it).',
  toolset: 'tasks',
  beyondContract: true,
  input,
  output: checkedOutput(outputSchema),
  truncationHint: 'Cut to fit: ask for a smaller limit.',
  // The incident, its alerts, the service by ID or name (two at most), the platform's past
  // incidents and each one's record and notes (2 per limit); else the walk and the notes and
  // alerts of the candidates read (SIMILAR_NOTE_READS, at least the largest limit).
  budget: () => ({ requests: 5 + SIMILAR_INCIDENT_PAGES + 2 * SIMILAR_NOTE_READS }),
  handler: async (args, context) => (await import('../tasks/similar-incidents.js')).findSimilarIncidents(args, context),
});

export default findSimilarIncidents;
