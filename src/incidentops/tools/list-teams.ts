import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { page, pageFields, recordSchema, shapeTeam } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListTeams',
  title: 'List teams',
  description: 'Teams of the account with name and description. For members, services and escalation policies of one team, use IncidentOps.GetTeam.',
  toolset: 'teams',
  input: z.strictObject({ limit: limitParam, offset: offsetParam }).superRefine(checkPageWindow),
  output: z.object({ teams: z.array(recordSchema), ...pageFields }),
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/teams', 'teams', { limit: args.limit, offset: args.offset }, signal);
    return { teams: result.items.map(shapeTeam), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
