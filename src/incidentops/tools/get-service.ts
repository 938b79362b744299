import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { recordOutput, shapeService } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.GetService',
  title: 'Get a service',
  description: 'One service, all fields.',
  toolset: 'services',
  input: z.strictObject({ service_id: idParam('Service ID.') }),
  output: recordOutput('service'),
  handler: async (args, { deps, signal }) => {
    const service = await deps.api.getOne('/services/{id}', { id: args.service_id }, 'service', signal, `service "${args.service_id}"`);
    return { service: shapeService(service) };
  },
});
