import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { recordSchema, shapeIncident } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.GetIncident',
  title: 'Get an incident',
  description: 'One incident by ID: number, title, status, urgency, priority, service, escalation policy, teams, assignees, acknowledgers and timestamps.',
  toolset: 'incidents',
  input: z.strictObject({ incident_id: idParam('incident') }),
  output: z.object({ incident: recordSchema }),
  handler: async (args, { deps, signal }) => {
    const incident = await deps.api.getOne('/incidents/{id}', { id: args.incident_id }, 'incident', signal, `incident "${args.incident_id}"`);
    return { incident: shapeIncident(incident) };
  },
});
