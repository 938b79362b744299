import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { recordSchema, shapeEscalationPolicy, shapeService, shapeTeam, shapeUser } from '../shape.js';

/** GetTeam lists at most this many members, services and policies each. */
export const TEAM_DETAIL_CAP = 1000;

export default incidentOpsTool({
  name: 'IncidentOps.GetTeam',
  title: 'Get a team with members, services and escalation policies',
  description: 'One team by ID with its members (name, e-mail, team role), the services it owns and its escalation policies.',
  toolset: 'teams',
  input: z.strictObject({ team_id: idParam('team') }),
  output: z.object({
    team: recordSchema,
    members: z.array(z.looseObject({})),
    services: z.array(recordSchema),
    escalation_policies: z.array(recordSchema),
    truncated: z.array(z.string()).optional(),
  }),
  handler: async (args, { deps, signal }) => {
    const label = `team "${args.team_id}"`;
    const cap = { maxItems: TEAM_DETAIL_CAP };
    const [team, members, services, policies] = await Promise.allSettled([
      deps.api.getOne('/teams/{id}', { id: args.team_id }, 'team', signal, label),
      deps.api.listAll('/teams/{id}/members', 'members', { 'include[]': ['users'] }, signal, { ...cap, pathParams: { id: args.team_id }, resourceLabel: label }),
      deps.api.listAll('/services', 'services', { 'team_ids[]': [args.team_id] }, signal, cap),
      deps.api.listAll('/escalation_policies', 'escalation_policies', { 'team_ids[]': [args.team_id] }, signal, cap),
    ]);
    // The team's own failure (say, 404) explains the others best.
    for (const outcome of [team, members, services, policies]) if (outcome.status === 'rejected') throw outcome.reason;
    const value = <T>(outcome: PromiseSettledResult<T>) => (outcome as PromiseFulfilledResult<T>).value;
    const truncated = [
      value(members).truncated ? 'members' : undefined,
      value(services).truncated ? 'services' : undefined,
      value(policies).truncated ? 'escalation_policies' : undefined,
    ].filter((name): name is string => name !== undefined);
    return {
      team: shapeTeam(value(team)),
      members: value(members).items.map((member) => ({ ...shapeUser((member.user ?? {}) as Record<string, unknown>), team_role: member.role })),
      services: value(services).items.map(shapeService),
      escalation_policies: value(policies).items.map(shapeEscalationPolicy),
      ...(truncated.length ? { truncated } : {}),
    };
  },
});
