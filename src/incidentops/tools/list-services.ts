import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { page, pageFields, recordSchema, shapeService } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListServices',
  title: 'List services',
  description: 'Services by name, optionally only those whose name contains `query`; each with its status (active, warning, critical, maintenance, disabled), escalation policy and teams.',
  toolset: 'services',
  input: z
    .strictObject({
      query: z.string().trim().min(1).optional().describe('Only services whose name contains this text (case-insensitive).'),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine(checkPageWindow),
  output: z.object({ services: z.array(recordSchema), ...pageFields }),
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/services', 'services', { query: args.query, limit: args.limit, offset: args.offset }, signal);
    return { services: result.items.map(shapeService), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
