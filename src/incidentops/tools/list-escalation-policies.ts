import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { LIST_TRUNCATION_HINT, listOutput, page, shapeEscalationPolicy } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListEscalationPolicies',
  title: 'List escalation policies',
  description: 'Escalation policies with their levels and targets.',
  toolset: 'escalation_policies',
  input: z.strictObject({ limit: limitParam, offset: offsetParam }).superRefine(checkPageWindow),
  output: listOutput('escalation_policies'),
  truncationHint: LIST_TRUNCATION_HINT,
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/escalation_policies', 'escalation_policies', { limit: args.limit, offset: args.offset }, signal);
    return {
      escalation_policies: result.items.map(shapeEscalationPolicy),
      ...page(args.limit, args.offset, result.more, result.items.length),
    };
  },
});
