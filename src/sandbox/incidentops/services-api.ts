/** GET /services and /services/{id}. */
import { intersectsAny, nameFilter, paginate, sortOrder } from './listing.js';
import { notFound, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_SERVICES = ['escalation_policies', 'teams', 'integrations', 'auto_pause_notifications_parameters'];

export function listServices(state: IncidentOpsState, ctx: RequestContext): unknown {
  const { q } = ctx;
  const page = q.page();
  const zone = q.timeZone();
  const include = q.enumList('include[]', INCLUDE_SERVICES);
  const order = sortOrder(q);
  const teams = q.ids('team_ids[]');
  const exact = q.one('name');
  let items = nameFilter(state.sorted.services, q.one('query')).filter((s) => intersectsAny(s.teamIds, teams) && (exact === undefined || s.name === exact));
  if (order < 0) items = items.slice().reverse();
  const r = ctx.renderer(zone);
  const autoPause = include.includes('auto_pause_notifications_parameters');
  return paginate('services', items, page, (s) => r.service(s, { autoPause }));
}

export function getService(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  const include = ctx.q.enumList('include[]', INCLUDE_SERVICES);
  const service = state.data.servicesById.get(id);
  if (!service) throw notFound();
  return { service: ctx.renderer(null).service(service, { autoPause: include.includes('auto_pause_notifications_parameters') }) };
}
