import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam } from '../params.js';
import { page, pageFields, recordSchema, shapeEscalationPolicy } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListEscalationPolicies',
  title: 'List escalation policies',
  description: 'Escalation policies by name, each with its levels (delay and targets: users or schedules), repeat count, services and teams.',
  toolset: 'escalation_policies',
  input: z.strictObject({ limit: limitParam, offset: offsetParam }).superRefine(checkPageWindow),
  output: z.object({ escalation_policies: z.array(recordSchema), ...pageFields }),
  handler: async (args, { deps, signal }) => {
    const result = await deps.api.listPage('/escalation_policies', 'escalation_policies', { limit: args.limit, offset: args.offset }, signal);
    return {
      escalation_policies: result.items.map(shapeEscalationPolicy),
      ...page(args.limit, args.offset, result.more, result.items.length),
    };
  },
});
