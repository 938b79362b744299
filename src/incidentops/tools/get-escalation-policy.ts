import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { recordOutput, shapeEscalationPolicy } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.GetEscalationPolicy',
  title: 'Get an escalation policy',
  description: 'One escalation policy, levels in order.',
  toolset: 'escalation_policies',
  input: z.strictObject({ escalation_policy_id: idParam('Policy ID.') }),
  output: recordOutput('escalation_policy'),
  handler: async (args, { deps, signal }) => {
    const policy = await deps.api.getOne(
      '/escalation_policies/{id}',
      { id: args.escalation_policy_id },
      'escalation_policy',
      signal,
      `escalation policy "${args.escalation_policy_id}"`,
    );
    return { escalation_policy: shapeEscalationPolicy(policy) };
  },
});
