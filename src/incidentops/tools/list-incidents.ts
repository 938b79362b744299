import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, checkTimeWindow, idsParam, isoTimeParam, limitParam, offsetParam } from '../params.js';
import { page, pageFields, recordSchema, shapeIncident } from '../shape.js';

/** The platform refuses incident windows longer than six months. */
export const MAX_INCIDENT_WINDOW_DAYS = 180;

export default incidentOpsTool({
  name: 'IncidentOps.ListIncidents',
  title: 'List incidents',
  description:
    'Incidents filtered by status, urgency, services, teams and a time window (the platform defaults to the last 30 days; at most 180 days per call). Each incident has its number, title, status, urgency, priority, service, teams and assignees.',
  toolset: 'incidents',
  input: z
    .strictObject({
      status: z.enum(['triggered', 'acknowledged', 'resolved']).optional().describe('Only incidents in this status.'),
      urgency: z.enum(['high', 'low']).optional().describe('Only incidents of this urgency.'),
      service_ids: idsParam('incidents of services'),
      team_ids: idsParam('incidents of teams'),
      since: isoTimeParam('Start of the time window (ISO 8601), e.g. "2026-05-01T00:00:00Z".'),
      until: isoTimeParam('End of the time window (ISO 8601); must be after since.'),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine((args, ctx) => {
      checkPageWindow(args, ctx);
      checkTimeWindow(args, ctx, { maxSpanDays: MAX_INCIDENT_WINDOW_DAYS });
    }),
  output: z.object({ incidents: z.array(recordSchema), ...pageFields }),
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
      },
      signal,
    );
    return { incidents: result.items.map(shapeIncident), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
