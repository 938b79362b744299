/** FindSimilarIncidents' logic, loaded on its first call (the definition is in ../tools/find-similar-incidents.ts). */
import { isRecord } from '../../core/json.js';
import { flatText, idText, labelText, quotedText } from '../../core/tools/line-text.js';
import { noteLine } from './note-line.js';
import type { ToolContext } from '../../core/tools/tool.js';
import { API_PAGE_SIZE } from '../api.js';
import type { IncidentOpsDeps } from '../deps.js';
import { named } from '../oncall-levels.js';
import { SIMILAR_INCIDENT_PAGES, SIMILAR_MAX_WINDOW_DAYS as MAX_WINDOW_DAYS, SIMILAR_NOTE_READS } from '../params.js';
import { resolveByIdOrName } from './by-name.js';
import { lackingNote, planLacks } from './plan-features.js';
import { queryShare, sharedShare, wordWeights, words } from './similarity.js';

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
/** What each field's words count for in a score (docs/tasks.md, "Past incidents"). */
const FIELD_WEIGHTS = { title: 0.6, notes: 0.3, alerts: 0.1 } as const;
/** Below this score (0 to 1), an incident is not shown as similar: a text's words all in one's notes score 0.3. */
const MIN_SCORE = 0.15;
const NOTES_SHOWN = 2;
const NOTE_CHARS = 300;
const TITLE_CHARS = 200;
/** The query incident's newest alerts whose summaries join its title in the comparison. */
const QUERY_ALERTS = 5;
/** A candidate's newest alerts whose summaries are compared (most incidents have a few). */
const CANDIDATE_ALERTS = 10;

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

export async function findSimilarIncidents(args: FindSimilarIncidentsArgs, { deps, signal, progress, budget }: ToolContext<IncidentOpsDeps>): Promise<FindSimilarIncidentsResult> {
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
  const local = await rankHere(args, deps, signal, { subject, service: service ?? (subject && isRecord(subject.service) ? subject.service : undefined), since, now, notesOf, progress, budget });
  const notes = [note, local.note].filter((text): text is string => text !== undefined);
  return { similar_to: similarTo, ...local, ...(notes.length > 0 ? { note: notes.join(' ') } : {}) };
}

interface RankOptions {
  subject: Json | undefined;
  service: Json | undefined;
  since: number;
  now: number;
  notesOf: (id: string) => Promise<Json[]>;
  progress: ToolContext<IncidentOpsDeps>['progress'];
  budget: ToolContext<IncidentOpsDeps>['budget'];
}

/** What one candidate's words score, field by field (0 to 1 each). */
interface Scored {
  incident: Json;
  title: number;
  notes: number;
  alerts: number;
  read?: { notes: Json[] };
}

const combined = (entry: Scored) => FIELD_WEIGHTS.title * entry.title + FIELD_WEIGHTS.notes * entry.notes + FIELD_WEIGHTS.alerts * entry.alerts;
const created = (incident: Json) => Date.parse(String(incident.created_at ?? ''));

/**
 * Which candidates' notes and alerts are read (SIMILAR_NOTE_READS at most): the `limit` best by
 * title and service (those that share a word), which are what an answer shows unless notes
 * change it, then the newest of the rest, whose titles may not say what their notes do.
 */
export function chooseReads(scored: readonly Scored[], limit: number, bound = SIMILAR_NOTE_READS): Scored[] {
  const byTitle = scored.filter((entry) => entry.title > 0).sort((a, b) => b.title - a.title || created(b.incident) - created(a.incident));
  const chosen = new Set(byTitle.slice(0, Math.min(limit, bound)));
  const newestFirst = scored.slice().sort((a, b) => created(b.incident) - created(a.incident));
  for (const entry of newestFirst) {
    if (chosen.size >= bound) break;
    chosen.add(entry);
  }
  return [...chosen];
}

/**
 * The service's resolved incidents in the window (all services' for a text without one), ranked by
 * the words they share with the query: titles and service names of all, notes and alert summaries
 * of those chooseReads picks.
 */
async function rankHere(args: FindSimilarIncidentsArgs, deps: IncidentOpsDeps, signal: AbortSignal, options: RankOptions): Promise<Omit<FindSimilarIncidentsResult, 'similar_to'>> {
  const { subject, service } = options;
  const serviceId = idOf(service);
  const query = { since: new Date(options.since).toISOString(), until: new Date(options.now).toISOString(), 'statuses[]': ['resolved'], sort_by: 'created_at:desc', ...(serviceId ? { 'service_ids[]': [serviceId] } : {}) };
  const alertsOf = async (id: string, limit: number) => (await deps.api.listPage('/incidents/{id}/alerts', 'alerts', { sort_by: 'created_at:desc', limit }, signal, { id }, `incident "${id}"`)).items;
  const [walk, subjectAlerts] = await Promise.all([
    deps.api.listAll('/incidents', 'incidents', query, signal, { maxItems: SIMILAR_INCIDENT_PAGES * API_PAGE_SIZE }),
    subject ? alertsOf(String(subject.id), QUERY_ALERTS) : undefined,
  ]);
  options.progress(2, 3, 'Read the past incidents');
  const subjectCreated = subject ? created(subject) : Number.POSITIVE_INFINITY;
  const candidates = walk.items.filter((incident) => incident.id !== subject?.id && !(created(incident) >= subjectCreated));
  const queryText = subject ? [subject.title, named(subject.service), ...(subjectAlerts ?? []).map((alert) => alert.summary)].filter((part) => typeof part === 'string').join(' ') : (args.text ?? '');
  const queryWords = words(queryText);
  const titleWords = candidates.map((incident) => words(`${String(incident.title ?? '')} ${named(incident.service) ?? ''}`));
  const weight = wordWeights(titleWords);
  // An incident against an incident: two titles, alike both ways. A text: the share of its words found.
  const titleScore = subject ? sharedShare : queryShare;
  const scored: Scored[] = candidates.map((incident, index) => ({ incident, title: titleScore(queryWords, titleWords[index] as Set<string>, weight), notes: 0, alerts: 0 }));

  const chosen = chooseReads(scored, args.limit);
  let skipped = 0;
  await Promise.all(
    chosen.map(async (entry) => {
      // Sized for these reads; time can still run short.
      if (options.budget.shortfall(2) !== undefined) {
        skipped++;
        return;
      }
      const id = String(entry.incident.id);
      const [notes, alerts] = await Promise.all([options.notesOf(id), alertsOf(id, CANDIDATE_ALERTS)]);
      entry.notes = queryShare(queryWords, words(notes.map((note) => String(note.content ?? '')).join(' ')), weight);
      entry.alerts = queryShare(queryWords, words(alerts.map((alert) => String(alert.summary ?? '')).join(' ')), weight);
      entry.read = { notes };
    }),
  );
  options.progress(3, 3, 'Read notes and alerts');
  const ranked = scored
    .filter((entry) => entry.read !== undefined && combined(entry) >= MIN_SCORE)
    .sort((a, b) => combined(b) - combined(a) || created(b.incident) - created(a.incident))
    .slice(0, args.limit);
  const incidents = ranked.map((entry) => describe(entry.incident, entry.read?.notes ?? [], Math.round(combined(entry) * 100)));

  const read = chosen.length - skipped;
  const days = Math.round((options.now - options.since) / DAY);
  const scope = service ? `the resolved incidents of ${String(named(service))}` : 'all resolved incidents';
  const compared = `${candidates.length} of ${scope} created in the last ${days} days`;
  const fields = `title and service name ${percent(FIELD_WEIGHTS.title)}, notes ${percent(FIELD_WEIGHTS.notes)}, alert summaries ${percent(FIELD_WEIGHTS.alerts)}`;
  const notes: string[] = [];
  if (walk.truncated) notes.push(`Only the newest ${walk.items.length} were compared${walk.why ? ` (${walk.why})` : ''}: narrow window_days or give service_id.`);
  if (skipped > 0) notes.push(`The notes and alerts of ${skipped} were not read: the call ran short of its budget.`);
  if (incidents.length === 0) notes.push(emptyNote(args, { candidates: candidates.length, scope, days, read, subject: subject !== undefined, service: service !== undefined }));
  return {
    ranked_by: `words shared with the ${subject ? "incident's title, service and alert summaries" : 'text'}, word forms alike (score 0 to 100: ${fields}; shown from ${percent(MIN_SCORE, '')}), over ${compared}; notes and alerts read for ${read} (the best ${Math.min(args.limit, SIMILAR_NOTE_READS)} by title, then the newest)`,
    incidents,
    ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
  };
}

function percent(share: number, sign = '%'): string {
  return `${Math.round(share * 100)}${sign}`;
}

/** What an empty answer searched, and what to try instead. */
function emptyNote(args: FindSimilarIncidentsArgs, searched: { candidates: number; scope: string; days: number; read: number; subject: boolean; service: boolean }): string {
  const what =
    searched.candidates === 0
      ? `Nothing found: there are no ${searched.scope.replace(/^the |^all /, '')} created in the last ${searched.days} days.`
      : `Nothing scored ${percent(MIN_SCORE, '')} or more: searched the titles and service names of ${searched.candidates} of ${searched.scope} created in the last ${searched.days} days, and the notes and alert summaries of ${searched.read} of them.`;
  const tries = [
    args.window_days < MAX_WINDOW_DAYS ? `a wider window_days (up to ${MAX_WINDOW_DAYS})` : undefined,
    searched.subject ? 'a text in other words' : 'other words (what broke, the component, the symptom)',
    searched.service ? 'no service_id (every service)' : undefined,
  ].filter((text) => text !== undefined);
  return `${what} Try ${tries.join(', or ')}.`;
}
