import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { page, pageFields, recordSchema, shapeUser } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListUsers',
  title: 'List users',
  description: 'Users of the account with name, e-mail, role, job title, time zone and teams. To find a particular person, use IncidentOps.SearchUsers.',
  toolset: 'users',
  input: z.strictObject({ limit: limitParam, offset: offsetParam }).superRefine(checkPageWindow),
  output: z.object({ users: z.array(recordSchema), ...pageFields }),
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/users', 'users', { limit: args.limit, offset: args.offset }, signal);
    return { users: result.items.map(shapeUser), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
