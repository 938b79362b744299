/**
 * GET /business_services, /business_services/{id}, and the service dependencies of a technical or
 * business service (`/service_dependencies/{technical,business}_services/{id}`): every immediate
 * relationship the service is an end of, both ways, as the spec's response shows them. The
 * associate and disassociate POSTs are not served (the emulator serves GET only). A plan without
 * service dependencies (`plan.without`) answers as intelligence.ts's features do.
 */
import type { BusinessServiceRecord, DependencyRecord, ServiceEnd } from './model.js';
import type { PlanOptions } from './intelligence.js';
import { paginate } from './listing.js';
import { WEB_HOST } from './render.js';
import { ApiError, notFound, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

function businessService(b: BusinessServiceRecord, ctx: RequestContext): unknown {
  const team = b.teamId ? { id: b.teamId, type: 'team_reference', self: `${ctx.baseUrl}/teams/${b.teamId}` } : null;
  return {
    id: b.id,
    type: 'business_service',
    summary: b.name,
    self: `${ctx.baseUrl}/business_services/${b.id}`,
    html_url: `${WEB_HOST}/business-services/${b.id}`,
    name: b.name,
    description: b.description,
    point_of_contact: b.pointOfContact,
    team,
  };
}

export function listBusinessServices(state: IncidentOpsState, ctx: RequestContext): unknown {
  return paginate('business_services', state.data.businessServices, ctx.q.page(), (b) => businessService(b, ctx));
}

export function getBusinessService(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  const found = state.data.businessServicesById.get(id);
  if (!found) throw notFound();
  return { business_service: businessService(found, ctx) };
}

function planRefuses(plan: PlanOptions): void {
  if (!plan.without?.includes('service_dependencies')) return;
  const status = plan.status ?? 402;
  throw status === 404 ? notFound() : new ApiError(status, 2010, status === 402 ? 'Payment Required' : 'Access Denied', ["The account's plan does not include service dependencies."]);
}

const reference = (end: ServiceEnd) => ({ id: end.id, type: end.kind === 'technical' ? 'technical_service_reference' : 'business_service_reference' });

function relationship(d: DependencyRecord): unknown {
  return { id: d.id, type: 'service_dependency', supporting_service: reference(d.supporting), dependent_service: reference(d.dependent) };
}

/** The relationships with the service at either end; an ID not of that kind of service is a 404. */
export function serviceDependencies(state: IncidentOpsState, kind: ServiceEnd['kind'], id: string): unknown {
  planRefuses(state.plan);
  const known = kind === 'technical' ? state.data.servicesById.has(id) : state.data.businessServicesById.has(id);
  if (!known) throw notFound();
  const touches = (end: ServiceEnd) => end.kind === kind && end.id === id;
  return { relationships: state.data.dependencies.filter((d) => touches(d.supporting) || touches(d.dependent)).map(relationship) };
}
