import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { recordSchema, shapeService } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.GetService',
  title: 'Get a service',
  description: 'One service by ID: status, description, escalation policy, teams, timeouts, urgency rule and when its last incident happened.',
  toolset: 'services',
  input: z.strictObject({ service_id: idParam('service') }),
  output: z.object({ service: recordSchema }),
  handler: async (args, { deps, signal }) => {
    const service = await deps.api.getOne('/services/{id}', { id: args.service_id }, 'service', signal, `service "${args.service_id}"`);
    return { service: shapeService(service) };
  },
});
