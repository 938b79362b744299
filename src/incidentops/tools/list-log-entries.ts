import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, checkTimeWindow, idsParam, isoTimeParam, limitParam, offsetParam, timeZoneParam } from '../params.js';
import { LIST_TRUNCATION_HINT, listOutput, page, shapeLogEntry } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListLogEntries',
  title: 'List log entries',
  description: 'Activity feed: who triggered, acknowledged, escalated or resolved what.',
  toolset: 'incidents',
  input: z
    .strictObject({
      since: isoTimeParam('Window start.'),
      until: isoTimeParam('Window end.'),
      team_ids: idsParam('Only these teams.'),
      time_zone: timeZoneParam,
      is_overview: z.boolean().default(true).describe('Key events only; false: all.'),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine((args, ctx) => {
      checkPageWindow(args, ctx);
      checkTimeWindow(args, ctx);
    }),
  output: listOutput('log_entries'),
  truncationHint: LIST_TRUNCATION_HINT,
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
