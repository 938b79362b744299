import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { LIST_TRUNCATION_HINT, listOutput, page, shapeTeam } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListTeams',
  title: 'List teams',
  description: 'Teams of the account.',
  toolset: 'teams',
  input: z.strictObject({ limit: limitParam, offset: offsetParam }).superRefine(checkPageWindow),
  output: listOutput('teams'),
  truncationHint: LIST_TRUNCATION_HINT,
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/teams', 'teams', { limit: args.limit, offset: args.offset }, signal);
    return { teams: result.items.map(shapeTeam), ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
