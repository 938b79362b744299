/**
 * What the platform says around an incident, from the OpenAPI document: its past incidents
 * (`/incidents/{id}/past_incidents`: resolved incidents of the same service within six months
 * before it, scored by the words their titles share), its related incidents
 * (`/incidents/{id}/related_incidents`: the 20 newest other incidents of the service's teams
 * whose life overlaps its own) and its related change events (`/incidents/{id}/related_change_events`:
 * changes to its service or to its teams' services in the four hours before it).
 * Past and related incidents (and service dependencies, dependencies-api.ts) belong to some plans only: `plan.without` makes them answer as a plan
 * without them does (402 by default, or 403 or 404).
 */
import { DateTime } from 'luxon';
import type { ChangeEventRecord, Dataset, IncidentRecord } from './model.js';
import type { Renderer } from './render.js';

export type PlanFeature = 'past_incidents' | 'related_incidents' | 'related_change_events' | 'service_dependencies';

export interface PlanOptions {
  /** Endpoints this account's plan lacks. */
  without?: readonly PlanFeature[];
  /** How they answer (default 402). */
  status?: 402 | 403 | 404;
}

/** What a handler here needs of a request (api.ts's request context has it). */
export interface IntelligenceRequest {
  now: number;
  q: {
    int(name: string, fallback: number, min: number, max: number): number;
    bool(name: string, fallback: boolean): boolean;
    enumList(name: string, allowed: readonly string[]): string[];
  };
  renderer(zone: string | null): Renderer;
}

export interface IntelligenceErrors {
  notFound(): Error;
  status(status: number, code: number, message: string, errors: string[]): Error;
}

const RELATED_CHANGE_WINDOW = 4 * 3_600_000;
const RELATED_INCIDENTS = 20;

/** Words of a title that say what happened: lower case, no numbers (hosts and values vary). */
function words(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^a-z]+/).filter((word) => word.length > 2));
}

export function intelligenceRoutes(data: Dataset, plan: PlanOptions, errors: IntelligenceErrors) {
  const teamsShared = (a: IncidentRecord, b: IncidentRecord) => a.teamIds.some((team) => b.teamIds.includes(team));
  const incidentOf = (id: string | undefined, feature: PlanFeature): IncidentRecord => {
    if (plan.without?.includes(feature)) {
      const status = plan.status ?? 402;
      throw status === 404 ? errors.notFound() : errors.status(status, 2010, status === 402 ? 'Payment Required' : 'Access Denied', [`The account's plan does not include ${feature.replace(/_/g, ' ')}.`]);
    }
    const incident = id === undefined ? undefined : data.incidentsById.get(id);
    if (!incident) throw errors.notFound();
    return incident;
  };

  function pastIncidents(req: IntelligenceRequest, [id]: string[]): unknown {
    const incident = incidentOf(id, 'past_incidents');
    const limit = req.q.int('limit', 5, 1, 999);
    const total = req.q.bool('total', false);
    const since = DateTime.fromMillis(incident.createdAt, { zone: 'utc' }).minus({ months: 6 }).toMillis();
    const own = words(incident.title);
    const scored = data.incidents
      .filter((i) => i.id !== incident.id && i.serviceId === incident.serviceId && i.status === 'resolved' && i.createdAt < incident.createdAt && i.createdAt >= since)
      .map((i) => {
        const theirs = words(i.title);
        const shared = [...theirs].filter((word) => own.has(word)).length;
        const score = Math.round((10_000 * shared) / Math.max(1, new Set([...own, ...theirs]).size)) / 100;
        return { i, score };
      })
      .sort((a, b) => b.score - a.score || b.i.createdAt - a.i.createdAt);
    const r = req.renderer(null);
    return {
      past_incidents: scored.slice(0, limit).map(({ i, score }) => ({ incident: { id: i.id, created_at: r.time(i.createdAt), self: r.incidentRef(i.id).self, title: i.title }, score })),
      total: total ? scored.length : null,
      limit,
    };
  }

  function relatedIncidents(req: IntelligenceRequest, [id]: string[]): unknown {
    const incident = incidentOf(id, 'related_incidents');
    const full = req.q.enumList('additional_details[]', ['incident']).includes('incident');
    const end = incident.resolvedAt ?? req.now;
    const related = data.incidents
      .filter((i) => i.id !== incident.id && teamsShared(i, incident) && i.createdAt <= end && (i.resolvedAt ?? req.now) >= incident.createdAt - 3_600_000)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, RELATED_INCIDENTS);
    const r = req.renderer(null);
    return {
      related_incidents: related.map((i) => ({
        incident: full ? r.incident(i, new Set(), req.now) : { id: i.id, created_at: r.time(i.createdAt), self: r.incidentRef(i.id).self, title: i.title },
        relationships: [
          {
            type: 'machine_learning_inferred',
            metadata: { grouping_classification: i.serviceId === incident.serviceId ? 'similar_contents' : 'prior_feedback', user_feedback: { positive_feedback_count: 0, negative_feedback_count: 0 } },
          },
        ],
      })),
    };
  }

  function relatedChangeEvents(req: IntelligenceRequest, [id]: string[]): unknown {
    const incident = incidentOf(id, 'related_change_events');
    const limit = req.q.int('limit', 25, 1, 100);
    const teamServices = new Set(data.services.filter((s) => s.teamIds.some((team) => incident.teamIds.includes(team))).map((s) => s.id));
    const related = data.changeEvents
      .filter((e) => teamServices.has(e.serviceId) && e.timestamp <= incident.createdAt && e.timestamp >= incident.createdAt - RELATED_CHANGE_WINDOW)
      .sort((a, b) => b.timestamp - a.timestamp);
    const r = req.renderer(null);
    const render = (e: ChangeEventRecord) => ({
      id: e.id,
      type: 'change_event',
      summary: e.summary,
      timestamp: r.time(e.timestamp),
      source: e.source,
      ...(e.integrationId ? { integration: { id: e.integrationId, type: 'inbound_integration_reference' } } : {}),
      services: [{ id: e.serviceId, type: 'service_reference' }],
      custom_details: e.customDetails,
      links: [],
      correlation_reason: { reason: e.serviceId === incident.serviceId ? 'most_recent' : 'related_service' },
    });
    return { change_events: related.slice(0, limit).map(render), limit, offset: 0, total: null, more: related.length > limit };
  }

  return [
    { pattern: /^\/incidents\/([^/]+)\/past_incidents$/, handler: pastIncidents },
    { pattern: /^\/incidents\/([^/]+)\/related_incidents$/, handler: relatedIncidents },
    { pattern: /^\/incidents\/([^/]+)\/related_change_events$/, handler: relatedChangeEvents },
  ] as const;
}
