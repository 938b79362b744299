import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { LIST_TRUNCATION_HINT, listOutput, page, shapeUser } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListUsers',
  title: 'List users',
  description: 'Users with e-mail, role and teams.',
  toolset: 'users',
  input: z.strictObject({ limit: limitParam, offset: offsetParam }).superRefine(checkPageWindow),
  output: listOutput('users'),
  truncationHint: LIST_TRUNCATION_HINT,
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/users', 'users', { limit: args.limit, offset: args.offset }, signal);
    return { users: result.items.map(shapeUser), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
