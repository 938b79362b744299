/** GET /teams, /teams/{id} and /teams/{id}/members. */
import { nameFilter, paginate } from './listing.js';
import type { UserRecord } from './model.js';
import { notFound, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_TEAM = ['privileges'];
const INCLUDE_MEMBERS = ['users'];

export function listTeams(state: IncidentOpsState, ctx: RequestContext): unknown {
  const { q } = ctx;
  const page = q.page();
  const items = nameFilter(state.sorted.teams, q.one('query'));
  const r = ctx.renderer(null);
  return paginate('teams', items, page, (t) => r.team(t));
}

export function getTeam(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  ctx.q.enumList('include[]', INCLUDE_TEAM);
  const team = state.data.teamsById.get(id);
  if (!team) throw notFound();
  return { team: ctx.renderer(null).team(team) };
}

export function listMembers(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  const { data } = state;
  const { q } = ctx;
  const page = q.page();
  const include = new Set(q.enumList('include[]', INCLUDE_MEMBERS));
  const team = data.teamsById.get(id);
  if (!team) throw notFound();
  const r = ctx.renderer(null);
  return paginate('members', team.members, page, (m) => {
    const user = data.usersById.get(m.userId) as UserRecord;
    return { user: include.has('users') ? r.user(user) : r.userRef(user.id), role: m.role };
  });
}
