import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { incidentIdParam } from '../params.js';
import { recordOutput, shapeIncident } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.GetIncident',
  title: 'Get an incident',
  description: 'One incident, all fields.',
  toolset: 'incidents',
  input: z.strictObject({ incident_id: incidentIdParam }),
  output: recordOutput('incident'),
  handler: async (args, { deps, signal }) => {
    const incident = await deps.api.getOne('/incidents/{id}', { id: args.incident_id }, 'incident', signal, `incident "${args.incident_id}"`);
    return { incident: shapeIncident(incident) };
  },
});
