import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, checkTimeWindow, idsParam, isoTimeParam, limitParam, offsetParam, timeZoneParam } from '../params.js';
import { page, pageFields, recordSchema, shapeLogEntry } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListLogEntries',
  title: 'List log entries (activity feed)',
  description:
    "The account's activity feed: triggers, acknowledgements, escalations, notes and resolutions, with who did what to which incident. Compact overview by default (is_overview true keeps only the key events).",
  toolset: 'incidents',
  input: z
    .strictObject({
      since: isoTimeParam('Start of the time window (ISO 8601).'),
      until: isoTimeParam('End of the time window (ISO 8601); must be after since.'),
      team_ids: idsParam('entries of teams'),
      time_zone: timeZoneParam,
      is_overview: z.boolean().default(true).describe('true (default): only the most important events; false: every event, including notifications.'),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine((args, ctx) => {
      checkPageWindow(args, ctx);
      checkTimeWindow(args, ctx);
    }),
  output: z.object({ log_entries: z.array(recordSchema), ...pageFields }),
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage(
      '/log_entries',
      'log_entries',
      {
        since: args.since,
        until: args.until,
        'team_ids[]': args.team_ids,
        time_zone: args.time_zone,
        is_overview: args.is_overview,
        limit: args.limit,
        offset: args.offset,
      },
      signal,
    );
    return { log_entries: result.items.map(shapeLogEntry), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
