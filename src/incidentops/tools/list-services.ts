import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { LIST_TRUNCATION_HINT, listOutput, page, shapeService } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListServices',
  title: 'List services',
  description: 'Services with status, policy and teams.',
  toolset: 'services',
  input: z
    .strictObject({
      query: z.string().trim().min(1).optional().describe('Name contains this.'),
      limit: limitParam,
      offset: offsetParam,
    })
    .superRefine(checkPageWindow),
  output: listOutput('services'),
  truncationHint: LIST_TRUNCATION_HINT,
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/services', 'services', { query: args.query, limit: args.limit, offset: args.offset }, signal);
    return { services: result.items.map(shapeService), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
