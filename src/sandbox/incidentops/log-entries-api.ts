/**
 * GET /log_entries (the account's activity feed), /incidents/{id}/log_entries and
 * /incidents/{id}/notes: newest first for the feeds, oldest first for the notes.
 */
import { intersectsAny, paginate } from './listing.js';
import type { LogEntryRecord } from './model.js';
import { invalid, notFound, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_LOG_ENTRIES = ['incidents', 'services', 'channels', 'teams'];
/** Log entry types shown when is_overview=true (the state changes and human actions, not notifications). */
const OVERVIEW_TYPES = new Set([
  'trigger_log_entry',
  'acknowledge_log_entry',
  'unacknowledge_log_entry',
  'resolve_log_entry',
  'escalate_log_entry',
  'assign_log_entry',
  'delegate_log_entry',
  'annotate_log_entry',
  'snooze_log_entry',
  'urgency_change_log_entry',
]);

/** The account's feed, or with `incidentId` one incident's entries (GET /incidents/{id}/log_entries). */
export function listLogEntries(state: IncidentOpsState, ctx: RequestContext, incidentId?: string): unknown {
  const { data } = state;
  const { q } = ctx;
  if (incidentId !== undefined && !data.incidentsById.has(incidentId)) throw notFound();
  const page = q.page();
  const zone = q.timeZone();
  q.enumList('include[]', INCLUDE_LOG_ENTRIES); // validated; references are kept
  // The per-incident endpoint has no team filter.
  const teams = incidentId === undefined ? q.ids('team_ids[]') : null;
  const overview = q.bool('is_overview', false);
  const readZone = zone ?? data.accountTimeZone;
  const since = q.date('since', readZone);
  const until = q.date('until', readZone);
  if (since !== null && until !== null && until < since) throw invalid('until must not be before since.');
  // Newest first, like the platform's activity feed.
  const items: LogEntryRecord[] = [];
  for (let i = data.logEntries.length - 1; i >= 0; i--) {
    const e = data.logEntries[i] as LogEntryRecord;
    if (incidentId !== undefined && e.incidentId !== incidentId) continue;
    if (since !== null && e.createdAt < since) continue;
    if (until !== null && e.createdAt >= until) continue;
    if (overview && !OVERVIEW_TYPES.has(e.type)) continue;
    if (!intersectsAny(e.teamIds, teams)) continue;
    items.push(e);
  }
  const r = ctx.renderer(zone);
  return paginate('log_entries', items, page, (e) => r.logEntry(e));
}

/** An incident's notes, oldest first; the endpoint has no paging. */
export function listIncidentNotes(state: IncidentOpsState, ctx: RequestContext, incidentId: string): unknown {
  const { data } = state;
  if (!data.incidentsById.has(incidentId)) throw notFound();
  const r = ctx.renderer(null);
  return { notes: data.logEntries.filter((e) => e.incidentId === incidentId && e.type === 'annotate_log_entry').map((e) => r.note(e)) };
}
