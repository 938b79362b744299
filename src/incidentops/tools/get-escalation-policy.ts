import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { recordSchema, shapeEscalationPolicy } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.GetEscalationPolicy',
  title: 'Get an escalation policy',
  description: 'One escalation policy by ID: its levels in order (delay in minutes, targeted users and schedules), repeat count, services and teams.',
  toolset: 'escalation_policies',
  input: z.strictObject({ escalation_policy_id: idParam('escalation policy') }),
  output: z.object({ escalation_policy: recordSchema }),
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
