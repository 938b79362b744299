import { z } from 'zod';
import { API_PAGE_SIZE } from '../api.js';
import { incidentOpsTool } from '../deps.js';
import { idParam } from '../params.js';
import { anyArray, anyObject, checkedOutput, recordSchema, refSchema, shapeEscalationPolicyRef, shapeMember, shapeServiceSummary, shapeTeam } from '../shape.js';

/**
 * GetTeam lists at most this many members, services and escalation policies each: one page of
 * each (the platform's largest), so a 2,000-member team costs four requests and about 15 KB.
 */
export const TEAM_LIST_CAP = API_PAGE_SIZE;

type Json = Record<string, unknown>;

/** Where the rest of a capped list can be read with the tools there are (none of them filters by team). */
function howToSeeTheRest(list: 'members' | 'services' | 'escalation_policies', teamId: string): string {
  if (list === 'members') {
    return `No tool lists users by team. For one person, use IncidentOps.SearchUsers (each user lists their teams); for all members, page through IncidentOps.ListUsers (50 per call) and keep the users whose teams include ${teamId}.`;
  }
  const tool = list === 'services' ? 'IncidentOps.ListServices' : 'IncidentOps.ListEscalationPolicies';
  return `Page through ${tool} (50 per call) and keep those whose teams include ${teamId}.`;
}

const partialSchema = z.strictObject({ list: z.enum(['members', 'services', 'escalation_policies']), returned: z.number().int(), total: z.number().int().optional(), next_step: z.string() });

export default incidentOpsTool({
  name: 'IncidentOps.GetTeam',
  title: 'Get a team',
  description: `One team: services, escalation policies, up to ${TEAM_LIST_CAP} members (member_count has the total).`,
  toolset: 'teams',
  input: z.strictObject({ team_id: idParam('ID of the team.') }),
  output: checkedOutput(
    z.object({
      team: recordSchema,
      members: z.array(z.strictObject({ id: z.string(), name: z.string().optional(), email: z.string().optional(), team_role: z.string().optional() })),
      member_count: z.number().int().optional(),
      services: z.array(z.strictObject({ id: z.string(), name: z.string().optional(), status: z.string().optional(), escalation_policy: refSchema.optional() })),
      escalation_policies: z.array(refSchema),
      partial: z.array(partialSchema).optional(),
    }),
    z.object({ team: anyObject, members: anyArray, member_count: z.number().int().optional(), services: anyArray, escalation_policies: anyArray, partial: anyArray.optional() }),
  ),
  handler: async (args, { deps, signal }) => {
    const label = `team "${args.team_id}"`;
    // One page of each, with the platform's total, fetched concurrently.
    const first = { limit: TEAM_LIST_CAP, offset: 0, total: true };
    const [team, members, services, policies] = await Promise.allSettled([
      deps.api.getOne('/teams/{id}', { id: args.team_id }, 'team', signal, label),
      deps.api.listPage('/teams/{id}/members', 'members', { ...first, 'include[]': ['users'] }, signal, { id: args.team_id }, label),
      deps.api.listPage('/services', 'services', { ...first, 'team_ids[]': [args.team_id] }, signal),
      deps.api.listPage('/escalation_policies', 'escalation_policies', { ...first, 'team_ids[]': [args.team_id] }, signal),
    ]);
    // The team's own failure (say, 404) explains the others best.
    for (const outcome of [team, members, services, policies]) if (outcome.status === 'rejected') throw outcome.reason;
    const value = <T>(outcome: PromiseSettledResult<T>) => (outcome as PromiseFulfilledResult<T>).value;

    const partial: z.infer<typeof partialSchema>[] = [];
    /** How many there are (when the platform says), noting a list cut at the cap. */
    const countOf = (list: 'members' | 'services' | 'escalation_policies', page: { items: Json[]; more: boolean; total?: number }) => {
      const count = page.total ?? (page.more ? undefined : page.items.length);
      if (page.more) {
        partial.push({ list, returned: page.items.length, ...(count !== undefined ? { total: count } : {}), next_step: howToSeeTheRest(list, args.team_id) });
      }
      return count;
    };
    const memberCount = countOf('members', value(members));
    countOf('services', value(services));
    countOf('escalation_policies', value(policies));
    return {
      team: shapeTeam(value(team)),
      members: value(members).items.map(shapeMember),
      ...(memberCount !== undefined ? { member_count: memberCount } : {}),
      services: value(services).items.map(shapeServiceSummary),
      escalation_policies: value(policies).items.map(shapeEscalationPolicyRef),
      ...(partial.length ? { partial } : {}),
    };
  },
});
