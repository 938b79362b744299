/**
 * What else breaks, for GetIncidentContext: the services the incident's service depends on and
 * those that depend on it (technical and business), each with what is open on it. Read with few
 * requests: the service's dependencies, then at once one list of the open incidents of all those
 * technical services and one page each of service and business-service names (the relationships
 * carry IDs only). A plan without service dependencies gets one line, never an error.
 */
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { idText, labelText } from '../../core/tools/line-text.js';
import { API_PAGE_SIZE, type IncidentOpsApi } from '../api.js';
import { TASK_PAGES } from '../params.js';
import { lackingNote, planLacks } from './plan-features.js';

type Json = Record<string, unknown>;

/** Services listed each way (those with open incidents first); the rest are counted in a last line. Kept small: each line costs about 12 to 24 tokens. */
export const DEPENDENCIES_SHOWN = 6;
/** Technical services whose open incidents one list asks for (each is a query value). */
export const MAX_CHECKED_SERVICES = 50;
const NAME_CHARS = 200;
const OPEN_STATUSES = ['triggered', 'acknowledged'];

export interface BlastRadius {
  dependsOn: string[];
  dependedOnBy: string[];
  /** What was read only in part, for the answer's `partial`. */
  partial: string[];
}

interface Neighbour {
  id: string;
  business: boolean;
  name?: string;
  open: Json[];
  checked: boolean;
}

const NONE: BlastRadius = { dependsOn: [], dependedOnBy: [], partial: [] };

/** The other end of each relationship, split by direction; each service once. */
function neighbours(relationships: Json[], serviceId: string): { dependsOn: Neighbour[]; dependedOnBy: Neighbour[] } {
  const dependsOn = new Map<string, Neighbour>();
  const dependedOnBy = new Map<string, Neighbour>();
  const end = (value: unknown): { id: string; business: boolean } | undefined =>
    isRecord(value) && typeof value.id === 'string' && value.id !== '' ? { id: value.id, business: String(value.type).startsWith('business_service') } : undefined;
  for (const relationship of relationships) {
    const supporting = end(relationship.supporting_service);
    const dependent = end(relationship.dependent_service);
    if (!supporting || !dependent) continue;
    // The incident's service is technical: it is an end only where the reference is technical.
    const [side, other] = dependent.id === serviceId && !dependent.business ? [dependsOn, supporting] : supporting.id === serviceId && !supporting.business ? [dependedOnBy, dependent] : [];
    if (!side || !other) continue;
    const key = `${other.business ? 'b' : 't'}:${other.id}`;
    if (!side.has(key)) side.set(key, { ...other, open: [], checked: false });
  }
  return { dependsOn: [...dependsOn.values()], dependedOnBy: [...dependedOnBy.values()] };
}

/** Most urgent first: high urgency, then triggered, then the newest. */
function urgencyOrder(a: Json, b: Json): number {
  const rank = (incident: Json) => (incident.urgency === 'high' ? 0 : 2) + (incident.status === 'triggered' ? 0 : 1);
  return rank(a) - rank(b) || String(b.created_at ?? '').localeCompare(String(a.created_at ?? ''));
}

/**
 * `Name (ID): 2 open, most urgent #1172, high, triggered`; `: nothing open`; `: business service`.
 * The incident by its number alone (GetIncidentContext takes it): its title and ID cost 20 tokens a line.
 */
function neighbourLine(service: Neighbour, cut: boolean): string {
  const label = labelText(service.name, service.id, NAME_CHARS) ?? idText(service.id);
  if (service.business) return `${label}: business service`;
  if (!service.checked) return `${label}: open incidents not checked`;
  if (service.open.length === 0) return `${label}: nothing open${cut ? ' among the open incidents read' : ''}`;
  const [first] = service.open.slice().sort(urgencyOrder);
  const incident = first as Json;
  const number = typeof incident.incident_number === 'number' ? `#${incident.incident_number}` : idText(String(incident.id));
  const traits = [incident.urgency, incident.status].filter((value): value is string => typeof value === 'string').map(idText);
  return `${label}: ${cut ? 'at least ' : ''}${service.open.length} open, most urgent ${number}${traits.length ? `, ${traits.join(', ')}` : ''}`;
}

/** Services with open incidents first (most first), then technical before business, then by name. */
function order(a: Neighbour, b: Neighbour): number {
  return b.open.length - a.open.length || Number(a.business) - Number(b.business) || (a.name ?? a.id).localeCompare(b.name ?? b.id) || a.id.localeCompare(b.id);
}

function lines(services: Neighbour[], cut: boolean): string[] {
  const sorted = services.slice().sort(order);
  const shown = sorted.slice(0, DEPENDENCIES_SHOWN).map((service) => neighbourLine(service, cut));
  const rest = sorted.slice(DEPENDENCIES_SHOWN);
  if (rest.length) {
    const withOpen = rest.filter((service) => service.open.length > 0).length;
    shown.push(`… and ${rest.length} more${withOpen ? ` (${withOpen} with open incidents)` : ''}`);
  }
  return shown;
}

/** One page of a name list (ID -> name); a plan without it leaves the names out. */
async function namesOf(read: Promise<{ items: Json[] }>): Promise<Map<string, string>> {
  try {
    const page = await read;
    return new Map(page.items.filter((item) => typeof item.name === 'string').map((item) => [String(item.id), String(item.name)]));
  } catch (error) {
    if (planLacks(error)) return new Map();
    throw error;
  }
}

export async function blastRadius(api: IncidentOpsApi, incident: Json, signal: AbortSignal): Promise<BlastRadius> {
  const serviceId = isRecord(incident.service) && typeof incident.service.id === 'string' ? incident.service.id : undefined;
  if (!serviceId) return NONE;
  let relationships: Json[];
  try {
    relationships = (await api.listPage('/service_dependencies/technical_services/{id}', 'relationships', {}, signal, { id: serviceId }, `service "${serviceId}"`)).items;
  } catch (error) {
    if (planLacks(error)) return { ...NONE, dependsOn: [lackingNote(error, 'Service dependencies')] };
    throw error;
  }
  const { dependsOn, dependedOnBy } = neighbours(relationships, serviceId);
  const all = [...dependsOn, ...dependedOnBy];
  const technical = [...new Set(all.filter((s) => !s.business).map((s) => s.id))];
  const checked = technical.slice(0, MAX_CHECKED_SERVICES);
  const [open, serviceNames, businessNames] = await Promise.all([
    checked.length
      ? api.listAll('/incidents', 'incidents', { 'service_ids[]': checked, 'statuses[]': OPEN_STATUSES, date_range: 'all' }, signal, { maxItems: TASK_PAGES.dependentsOpen * API_PAGE_SIZE })
      : Promise.resolve({ items: [] as Json[], truncated: false, why: undefined }),
    technical.length ? namesOf(api.listPage('/services', 'services', { limit: API_PAGE_SIZE }, signal)) : Promise.resolve(new Map<string, string>()),
    all.some((s) => s.business) ? namesOf(api.listPage('/business_services', 'business_services', { limit: API_PAGE_SIZE }, signal)) : Promise.resolve(new Map<string, string>()),
  ]);
  const checkedSet = new Set(checked);
  const byService = new Map<string, Json[]>();
  const namesFromIncidents = new Map<string, string>();
  for (const item of open.items) {
    if (!isRecord(item.service) || typeof item.service.id !== 'string') continue;
    const list = byService.get(item.service.id);
    if (list) list.push(item);
    else byService.set(item.service.id, [item]);
    if (typeof item.service.summary === 'string') namesFromIncidents.set(item.service.id, item.service.summary);
  }
  for (const service of all) {
    const name = service.business ? businessNames.get(service.id) : (serviceNames.get(service.id) ?? namesFromIncidents.get(service.id));
    if (name !== undefined) service.name = name;
    if (!service.business && checkedSet.has(service.id)) {
      service.checked = true;
      service.open = byService.get(service.id) ?? [];
    }
  }
  const partial: string[] = [];
  if (open.truncated) partial.push(`depends_on, depended_on_by: the open incidents of those services read in part (${open.items.length})${open.why ? `: ${open.why}` : ''}`);
  if (technical.length > checked.length) partial.push(`depends_on, depended_on_by: open incidents checked on ${checked.length} of the ${technical.length} services`);
  return { dependsOn: lines(dependsOn, open.truncated), dependedOnBy: lines(dependedOnBy, open.truncated), partial };
}

/**
 * The dependencies add to an answer about the incident: their failure (a 5xx after retries, a
 * timeout) is one line, never the call's failure; a cancelled call stays cancelled.
 */
export async function orUnreadDependencies(read: Promise<BlastRadius>, signal: AbortSignal): Promise<BlastRadius> {
  try {
    return await read;
  } catch (error) {
    if (signal.aborted) throw error;
    const kind = error instanceof ToolError ? error.details.kind : 'internal';
    return { ...NONE, dependsOn: [`Service dependencies could not be read this time (${kind}); the rest of the answer stands.`] };
  }
}
