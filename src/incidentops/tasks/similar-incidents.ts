/** FindSimilarIncidents' logic, loaded on its first call (the definition is in ../tools/find-similar-incidents.ts). */
import { isRecord } from '../../core/json.js';
import { flatText, idText, labelText, quotedText } from '../../core/tools/line-text.js';
import { noteLine } from './note-line.js';
import type { ToolContext } from '../../core/tools/tool.js';
import { API_PAGE_SIZE } from '../api.js';
import type { IncidentOpsDeps } from '../deps.js';
import { named } from '../oncall-levels.js';
import { SIMILAR_INCIDENT_PAGES } from '../params.js';
import { resolveByIdOrName } from './by-name.js';
import { lackingNote, planLacks } from './plan-features.js';
import { rankBySharedWords, words } from './similarity.js';

type Json = Record<string, unknown>;

/** What the logic is called with: the definition's checked input (../tools/find-similar-incidents.ts). */
export interface FindSimilarIncidentsArgs {
  incident_id?: string | undefined;
  text?: string | undefined;
  service_id?: string | undefined;
  window_days: number;
  limit: number;
}

interface Similar {
  incident: string;
  when?: string | undefined;
  resolved_in?: string | undefined;
  resolved_by?: string | undefined;
  score?: number | undefined;
  last_notes: string[];
}

/** What it answers, as the definition's output schema states it. */
export interface FindSimilarIncidentsResult {
  similar_to: string;
  ranked_by: string;
  incidents: Similar[];
  note?: string | undefined;
}

const DAY = 86_400_000;
/** Below this share of weighted words in common, an incident is not shown as similar. */
const MIN_SCORE = 0.2;
const NOTES_SHOWN = 2;
const NOTE_CHARS = 300;
const TITLE_CHARS = 200;
/** The query incident's newest alerts whose summaries join its title in the comparison. */
const QUERY_ALERTS = 5;

function idOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.id === 'string' ? value.id : undefined;
}

/** `#1234 Title (PID)`, the title quoted unless plain words. */
function incidentLabel(incident: Json): string {
  const title = flatText(typeof incident.title === 'string' ? incident.title : incident.summary);
  return `${typeof incident.incident_number === 'number' ? `#${incident.incident_number} ` : ''}${labelText(title, String(incident.id), TITLE_CHARS)}`;
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours}h ${minutes % 60}m` : `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** The last notes, newest first, with their authors. */
function noteLines(notes: Json[]): string[] {
  const time = (note: Json) => Date.parse(String(note.created_at ?? ''));
  return notes
    .slice()
    .sort((a, b) => time(b) - time(a))
    .slice(0, NOTES_SHOWN)
    .map((note) => noteLine(note, NOTE_CHARS));
}

function describe(incident: Json, notes: Json[], score: number | undefined): Similar {
  const created = Date.parse(String(incident.created_at ?? ''));
  const resolved = typeof incident.resolved_at === 'string' ? Date.parse(incident.resolved_at) : Number.NaN;
  const resolvedBy = incident.status === 'resolved' ? named(incident.last_status_change_by) : undefined;
  return {
    incident: `${incidentLabel(incident)}${incident.status !== 'resolved' && typeof incident.status === 'string' ? `, ${idText(incident.status)}` : ''}`,
    ...(typeof incident.created_at === 'string' ? { when: incident.created_at } : {}),
    ...(Number.isFinite(created) && Number.isFinite(resolved) ? { resolved_in: duration(resolved - created) } : {}),
    ...(resolvedBy ? { resolved_by: resolvedBy } : {}),
    ...(score !== undefined ? { score } : {}),
    last_notes: noteLines(notes),
  };
}

export async function findSimilarIncidents(args: FindSimilarIncidentsArgs, { deps, signal, progress }: ToolContext<IncidentOpsDeps>): Promise<FindSimilarIncidentsResult> {
  const { api } = deps;
  const now = deps.now().getTime();
  const since = now - args.window_days * DAY;
  const label = `incident "${args.incident_id ?? ''}"`;
  const [subject, service] = await Promise.all([
    args.incident_id !== undefined ? api.getOne('/incidents/{id}', { id: args.incident_id }, 'incident', signal, label) : undefined,
    args.service_id !== undefined ? resolveByIdOrName(api, 'service', 'service_id', args.service_id, signal) : undefined,
  ]);
  progress(1, 3, 'Read the incident');
  const notesOf = async (id: string) => (await api.listPage('/incidents/{id}/notes', 'notes', {}, signal, { id }, `incident "${id}"`)).items;
  let note: string | undefined;
  const subjectService = idOf(subject?.service);
  const similarTo = subject ? `${incidentLabel(subject)} on ${named(subject.service) ?? 'its service'}` : `text ${quotedText(args.text ?? '', TITLE_CHARS)}${service ? ` on ${String(named(service))}` : ''}`;

  // The platform's own answer, for an incident on its own service.
  if (subject && (service === undefined || service.id === subjectService)) {
    let page: Awaited<ReturnType<typeof api.listPage>> | undefined;
    try {
      page = await api.listPage('/incidents/{id}/past_incidents', 'past_incidents', { limit: args.limit, total: true }, signal, { id: String(subject.id) }, label);
    } catch (error) {
      // Only the feature's own answer says whether the plan has it; a past incident we may not read says nothing of that.
      if (!planLacks(error)) throw error;
      note = `${lackingNote(error, 'Past incidents')} Ranked here instead.`;
    }
    if (page) {
      progress(2, 3, 'Read its past incidents');
      const past = page.items.filter((item) => isRecord(item.incident) && Date.parse(String(item.incident.created_at ?? '')) >= since).slice(0, args.limit);
      const read = await Promise.all(
        past.map(async (item) => {
          const id = String((item.incident as Json).id);
          try {
            const [record, notes] = await Promise.all([api.getOne('/incidents/{id}', { id }, 'incident', signal, `incident "${id}"`), notesOf(id)]);
            return describe(record, notes, typeof item.score === 'number' ? item.score : undefined);
          } catch (error) {
            // One past incident this account may not read (restricted, or deleted since) is left out, not the answer.
            if (planLacks(error)) return undefined;
            throw error;
          }
        }),
      );
      const incidents = read.filter((incident) => incident !== undefined);
      progress(3, 3, 'Read their notes');
      const outside = page.items.length - past.length;
      const unreadable = past.length - incidents.length;
      const notes = [outside > 0 ? `${outside} older than ${args.window_days} days, or past the limit, left out.` : undefined, unreadable > 0 ? `${unreadable} this account cannot read left out.` : undefined].filter((text) => text !== undefined);
      return {
        similar_to: similarTo,
        ranked_by: `the platform's past incidents of the service (/incidents/{id}/past_incidents, its score)${typeof page.total === 'number' ? `: ${page.total} in all` : ''}`,
        incidents,
        ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
      };
    }
  }
  const local = await rankHere(args, deps, signal, { subject, serviceId: service ? String(service.id) : subjectService, since, now, notesOf, progress });
  const notes = [note, local.note].filter((text): text is string => text !== undefined);
  return { similar_to: similarTo, ...local, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) };
}

interface RankOptions {
  subject: Json | undefined;
  serviceId: string | undefined;
  since: number;
  now: number;
  notesOf: (id: string) => Promise<Json[]>;
  progress: ToolContext<IncidentOpsDeps>['progress'];
}

/** The service's resolved incidents in the window (all services' for a text without one), ranked by the words they share with the query. */
async function rankHere(args: FindSimilarIncidentsArgs, deps: IncidentOpsDeps, signal: AbortSignal, options: RankOptions): Promise<Omit<FindSimilarIncidentsResult, 'similar_to'>> {
  const { subject, serviceId } = options;
  const query = { since: new Date(options.since).toISOString(), until: new Date(options.now).toISOString(), 'statuses[]': ['resolved'], sort_by: 'created_at:desc', ...(serviceId ? { 'service_ids[]': [serviceId] } : {}) };
  const [walk, alerts] = await Promise.all([
    deps.api.listAll('/incidents', 'incidents', query, signal, { maxItems: SIMILAR_INCIDENT_PAGES * API_PAGE_SIZE }),
    subject ? deps.api.listPage('/incidents/{id}/alerts', 'alerts', { sort_by: 'created_at:desc', limit: QUERY_ALERTS }, signal, { id: String(subject.id) }) : undefined,
  ]);
  options.progress(2, 3, 'Read the past incidents');
  const subjectCreated = subject ? Date.parse(String(subject.created_at ?? '')) : Number.POSITIVE_INFINITY;
  const candidates = walk.items.filter((incident) => incident.id !== subject?.id && !(Date.parse(String(incident.created_at ?? '')) >= subjectCreated));
  const queryText = subject
    ? [subject.title, named(subject.service), ...(alerts?.items ?? []).map((alert) => alert.summary)].filter((part) => typeof part === 'string').join(' ')
    : (args.text ?? '');
  const scores = rankBySharedWords(words(queryText), candidates.map((incident) => words(`${String(incident.title ?? '')} ${named(incident.service) ?? ''}`)));
  const ranked = candidates
    .map((incident, index) => ({ incident, score: scores[index] as number }))
    .filter((entry) => entry.score >= MIN_SCORE)
    .sort((a, b) => b.score - a.score || Date.parse(String(b.incident.created_at)) - Date.parse(String(a.incident.created_at)))
    .slice(0, args.limit);
  const incidents = await Promise.all(ranked.map(async ({ incident, score }) => describe(incident, await options.notesOf(String(incident.id)), Math.round(score * 100))));
  options.progress(3, 3, 'Read their notes');
  const scope = serviceId ? `the resolved incidents of ${serviceId === idOf(subject?.service) ? String(named(subject?.service)) : `service ${idText(serviceId)}`}` : 'all resolved incidents';
  const days = Math.round((options.now - options.since) / DAY);
  return {
    ranked_by: `words shared with the ${subject ? "incident's title, service and alert summaries" : 'text'} (score 0 to 100), over ${candidates.length} of ${scope} in the last ${days} days`,
    incidents,
    ...(walk.truncated ? { note: `Only the newest ${walk.items.length} were compared${walk.why ? ` (${walk.why})` : ''}: narrow window_days or give service_id.` } : {}),
  };
}
