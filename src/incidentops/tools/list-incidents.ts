import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, checkTimeWindow, idsParam, isoTimeParam, limitParam, offsetParam } from '../params.js';
import { LIST_TRUNCATION_HINT, listOutput, page, shapeIncidentSummary } from '../shape.js';

/** The platform refuses incident windows longer than six months. */
export const MAX_INCIDENT_WINDOW_DAYS = 180;

export default incidentOpsTool({
  name: 'IncidentOps.ListIncidents',
  title: 'List incidents',
  description: `Incidents of the last 30 days or of since/until (max ${MAX_INCIDENT_WINDOW_DAYS} days), newest first.`,
  toolset: 'incidents',
  input: z
    .strictObject({
      status: z.enum(['triggered', 'acknowledged', 'resolved']).optional().describe('Only this status.'),
      urgency: z.enum(['high', 'low']).optional().describe('Only this urgency.'),
      service_ids: idsParam('Only these services.'),
      team_ids: idsParam('Only these teams.'),
      since: isoTimeParam('Window start.'),
      until: isoTimeParam('Window end.'),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine((args, ctx) => {
      checkPageWindow(args, ctx);
      checkTimeWindow(args, ctx, { maxSpanDays: MAX_INCIDENT_WINDOW_DAYS });
    }),
  output: listOutput('incidents'),
  truncationHint: LIST_TRUNCATION_HINT,
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage(
      '/incidents',
      'incidents',
      {
        'statuses[]': args.status ? [args.status] : undefined,
        'urgencies[]': args.urgency ? [args.urgency] : undefined,
        'service_ids[]': args.service_ids,
        'team_ids[]': args.team_ids,
        since: args.since,
        until: args.until,
        limit: args.limit,
        offset: args.offset,
        // The platform's default is oldest first: the newest would be on the last page.
        sort_by: 'created_at:desc',
      },
      signal,
    );
    return { incidents: result.items.map(shapeIncidentSummary), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
