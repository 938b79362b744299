/** GET /escalation_policies and /escalation_policies/{id}. */
import { intersectsAny, nameFilter, paginate, sortOrder } from './listing.js';
import { notFound, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_POLICIES = ['services', 'teams', 'targets', 'escalation_rule_assignment_strategies'];

export function listPolicies(state: IncidentOpsState, ctx: RequestContext): unknown {
  const { q } = ctx;
  const page = q.page();
  q.enumList('include[]', INCLUDE_POLICIES); // validated; references are kept
  const order = sortOrder(q);
  const users = q.ids('user_ids[]');
  const teams = q.ids('team_ids[]');
  let items = nameFilter(state.sorted.policies, q.one('query')).filter(
    (p) => intersectsAny(p.teamIds, teams) && (!users || p.rules.some((r) => r.targets.some((t) => t.kind === 'user' && users.has(t.id)))),
  );
  if (order < 0) items = items.slice().reverse();
  const r = ctx.renderer(null);
  return paginate('escalation_policies', items, page, (p) => r.policy(p));
}

export function getPolicy(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  ctx.q.enumList('include[]', INCLUDE_POLICIES);
  const policy = state.data.policiesById.get(id);
  if (!policy) throw notFound();
  return { escalation_policy: ctx.renderer(null).policy(policy) };
}
