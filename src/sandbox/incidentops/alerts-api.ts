/** GET /incidents/{id}/alerts: an incident's alerts, filtered by status and alert_key, in sort_by's order. */
import { paginate } from './listing.js';
import { invalid, notFound, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_ALERTS = ['services', 'first_trigger_log_entries', 'incidents'];

export type AlertSortKey = { field: 'created_at' | 'resolved_at'; direction: 1 | -1 };

/** sort_by of an incident's alerts: up to two of created_at / resolved_at, each optionally :asc or :desc. */
export function parseAlertSort(raw: string | undefined): AlertSortKey[] {
  if (raw === undefined || raw === '') return [{ field: 'created_at', direction: 1 }];
  const parts = raw.split(',');
  if (parts.length > 2) throw invalid('sort_by takes at most two fields.');
  return parts.map((part) => {
    const [field, direction = 'asc', extra] = part.trim().split(':');
    if ((field !== 'created_at' && field !== 'resolved_at') || (direction !== 'asc' && direction !== 'desc') || extra !== undefined) {
      throw invalid(`sort_by must be created_at or resolved_at, each optionally followed by :asc or :desc; got ${JSON.stringify(raw)}.`);
    }
    return { field, direction: direction === 'desc' ? -1 : 1 };
  });
}

export function listIncidentAlerts(state: IncidentOpsState, ctx: RequestContext, incidentId: string): unknown {
  const { q } = ctx;
  const alerts = state.data.alertsByIncident.get(incidentId);
  if (!alerts) throw notFound();
  const page = q.page();
  q.enumList('include[]', INCLUDE_ALERTS); // validated; references are kept
  const statuses = q.enumList('statuses[]', ['triggered', 'resolved']);
  const alertKey = q.one('alert_key');
  const sort = parseAlertSort(q.one('sort_by'));
  const items = alerts
    .filter((a) => (statuses.length === 0 || statuses.includes(a.resolvedAt === null ? 'triggered' : 'resolved')) && (alertKey === undefined || a.alertKey === alertKey))
    .sort((a, b) => {
      for (const { field, direction } of sort) {
        const x = field === 'created_at' ? a.createdAt : (a.resolvedAt ?? Infinity);
        const y = field === 'created_at' ? b.createdAt : (b.resolvedAt ?? Infinity);
        if (x !== y) return x < y ? -direction : direction;
      }
      return a.id < b.id ? -1 : 1;
    });
  const r = ctx.renderer(null);
  return paginate('alerts', items, page, (a) => r.alert(a));
}
