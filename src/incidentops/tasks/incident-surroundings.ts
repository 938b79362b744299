/**
 * Around an incident, for GetIncidentContext: the changes the platform relates to it, and the other
 * incidents still open on its service or related ones. Plans without these endpoints get a short
 * line saying so, never an error.
 */
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { flatText, idText, labelText, quotedText, timeText } from '../../core/tools/line-text.js';
import type { IncidentOpsApi } from '../api.js';
import { named } from '../oncall-levels.js';
import { lackingNote, planLacks } from './plan-features.js';

type Json = Record<string, unknown>;

export const CHANGES_SHOWN = 5;
export const OPEN_SHOWN = 5;
const LINE_CHARS = 200;
const OPEN = new Set(['triggered', 'acknowledged']);

/** The related change events, newest first: `time "summary" from "source"`, and the service when it is another one, with why. */
export async function relatedChanges(api: IncidentOpsApi, incident: Json, signal: AbortSignal): Promise<string[]> {
  const id = String(incident.id);
  const own = isRecord(incident.service) ? incident.service.id : undefined;
  try {
    const page = await api.listPage('/incidents/{id}/related_change_events', 'change_events', { limit: CHANGES_SHOWN }, signal, { id }, `incident "${id}"`);
    const lines = page.items.slice(0, CHANGES_SHOWN).map((change) => {
      const services = Array.isArray(change.services) ? change.services.filter((s) => isRecord(s) && s.id !== own).map((s) => named(s)) : [];
      const why = isRecord(change.correlation_reason) ? change.correlation_reason.reason : undefined;
      // The platform's reasons are words joined by underscores; anything else is shown quoted.
      const reason = typeof why === 'string' ? `, ${/^[a-z_]+$/.test(why) ? why.replace(/_/g, ' ') : quotedText(why, 80)}` : '';
      return `${timeText(change.timestamp)} ${quotedText(change.summary, LINE_CHARS)}${typeof change.source === 'string' ? ` from ${quotedText(change.source, 80)}` : ''}${services.length ? ` on ${services.join(', ')}` : ''}${reason}`;
    });
    if (page.more) lines.push(`… more: the ${CHANGES_SHOWN} newest are shown.`);
    return lines;
  } catch (error) {
    if (planLacks(error)) return [lackingNote(error, 'Related change events')];
    throw error;
  }
}

/** `#1234 Title (ID), status, Service (ID)`, names quoted unless plain words. */
function openLine(incident: Json): string {
  const number = typeof incident.incident_number === 'number' ? `#${incident.incident_number} ` : '';
  const status = typeof incident.status === 'string' ? `, ${idText(incident.status)}` : '';
  const service = named(incident.service);
  return `${number}${labelText(flatText(incident.title ?? incident.summary), String(incident.id), LINE_CHARS)}${status}${service ? `, ${service}` : ''}`;
}

/** Other open incidents: the platform's related incidents, else the service's open incidents. */
export async function otherOpenIncidents(api: IncidentOpsApi, incident: Json, signal: AbortSignal): Promise<string[]> {
  const id = String(incident.id);
  let open: Json[];
  let more = false;
  /** How many others there are, when the platform says (its `total`); else those read. */
  let count: number | undefined;
  const lines: string[] = [];
  try {
    const page = await api.listPage('/incidents/{id}/related_incidents', 'related_incidents', { 'additional_details[]': ['incident'] }, signal, { id }, `incident "${id}"`);
    open = page.items.map((related) => related.incident).filter((related): related is Json => isRecord(related) && OPEN.has(String(related.status)));
    more = page.more;
  } catch (error) {
    const serviceId = isRecord(incident.service) ? incident.service.id : undefined;
    if (!planLacks(error)) throw error;
    if (typeof serviceId !== 'string') return [lackingNote(error, 'Related incidents')];
    lines.push(`${lackingNote(error, 'Related incidents')} Open incidents of its service instead.`);
    // `total` counts them in the same request: the answer says how many more there are.
    const page = await api.listPage('/incidents', 'incidents', { 'service_ids[]': [serviceId], 'statuses[]': [...OPEN], date_range: 'all', limit: OPEN_SHOWN + 1, total: true }, signal);
    open = page.items.filter((other) => other.id !== id);
    more = page.more;
    // The service's open incidents count this one too, when it is open.
    if (page.total !== undefined) count = Math.max(0, page.total - (OPEN.has(String(incident.status)) ? 1 : 0));
  }
  lines.push(...open.slice(0, OPEN_SHOWN).map(openLine));
  const others = count ?? (more ? undefined : open.length);
  const shown = Math.min(open.length, OPEN_SHOWN);
  if (others === undefined) lines.push('… and more: IncidentOps.ListIncidents lists them.');
  else if (others > shown) lines.push(`… and ${others - shown} more: IncidentOps.ListIncidents lists them.`);
  return lines;
}

/**
 * These reads add to an answer about the incident, so their failure (a 5xx after retries, a
 * timeout, the call's budget) is one line in it, never the call's failure; a cancelled call stays cancelled.
 */
export async function orUnreadLine(lines: Promise<string[]>, what: string, signal: AbortSignal): Promise<string[]> {
  try {
    return await lines;
  } catch (error) {
    if (signal.aborted) throw error;
    const kind = error instanceof ToolError ? error.details.kind : 'internal';
    return [`${what} could not be read this time (${kind}); the rest of the answer stands.`];
  }
}
