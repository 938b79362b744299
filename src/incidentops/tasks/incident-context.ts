/** GetIncidentContext's logic, loaded on its first call (the definition is in ../tools/get-incident-context.ts). */
import { WorkScope } from '../../core/call-budget.js';
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { idText, quotedText, timeText } from '../../core/tools/line-text.js';
import { oneLine } from '../shape.js';
import { noteLine } from './note-line.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { IncidentOpsDeps } from '../deps.js';
import { API_PAGE_SIZE, type ListPage } from '../api.js';
import { named, onCallLevels } from '../oncall-levels.js';
import { TASK_PAGES } from '../params.js';
import { otherOpenIncidents, relatedChanges, orUnreadLine } from './incident-surroundings.js';
import { blastRadius, orUnreadDependencies, type BlastRadius } from './blast-radius.js';

type Json = Record<string, unknown>;

/** What the logic is called with: the definition's checked input (../tools/get-incident-context.ts). */
export interface GetIncidentContextArgs {
  incident_id: string;
}

/** What it answers, as the definition's output schema states it. */
export interface GetIncidentContextResult {
  incident: Json & { id: string };
  alerts: Json & { count?: number | undefined; newest: (Json & { id: string })[] };
  notes: string[];
  timeline: string[];
  on_call_now: string[];
  changes: string[];
  other_open: string[];
  /** The services its service depends on, and those that depend on it, with what is open on each (blast-radius.ts). */
  depends_on: string[];
  depended_on_by: string[];
  /** One line per part not read, or read in part, and why (the call's time ran out first). */
  partial?: string[];
}

/** The newest alerts shown; the count covers all of them. */
const NEWEST_ALERTS = 5;
/** Lines of an alert's details shown, each at most DETAIL_LINE_CHARS. */
const DETAIL_LINES = 3;
const DETAIL_LINE_CHARS = 120;
/** Platform text that is one line (titles, summaries) is cut here. */
const LINE_CHARS = 300;
const NOTES_SHOWN = 10;
const NOTE_CHARS = 600;
/** Key events shown: the first few and the latest ones, with a count of those between. */
const TIMELINE_FIRST = 10;
const TIMELINE_LAST = 30;
/** Log entries read at most: key events of a very long incident beyond these are left out. */
const MAX_LOG_ENTRIES = TASK_PAGES.logEntries * API_PAGE_SIZE;

/** An alert's details (an object or text) as its first few lines, in one quoted text: `"key: value; key: value"`. */
function detailLines(body: unknown): string | undefined {
  const details = isRecord(body) ? body.details : undefined;
  const lines =
    typeof details === 'string'
      ? details.split('\n')
      : isRecord(details)
        ? Object.entries(details).map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
        : [];
  const shown = lines.map((line) => oneLine(line, DETAIL_LINE_CHARS)).filter(Boolean).slice(0, DETAIL_LINES);
  return shown.length ? quotedText(shown.join('; ')) : undefined;
}

function shapeAlert(alert: Json): { id: string } & Json {
  const details = detailLines(alert.body);
  return {
    id: String(alert.id),
    ...pickStrings(alert, ['created_at', 'severity', 'status']),
    ...(typeof alert.summary === 'string' ? { summary: oneLine(alert.summary, LINE_CHARS) } : {}),
    ...(details ? { details } : {}),
  };
}

function pickStrings(source: Json, keys: readonly string[]): Json {
  return Object.fromEntries(keys.filter((key) => typeof source[key] === 'string').map((key) => [key, source[key]]));
}

/** Each of `keys` that names something, as its `Name (ID)` label. */
function namedFields(source: Json, keys: readonly string[]): Json {
  return Object.fromEntries(keys.flatMap((key) => {
    const label = named(source[key]);
    return label === undefined ? [] : [[key, label]];
  }));
}

/** `time kind: "summary"`. */
function eventLine(entry: Json): string {
  const kind = typeof entry.type === 'string' ? idText(entry.type.replace(/_log_entry$/, '')) : 'event';
  return `${timeText(entry.created_at)} ${kind}: ${quotedText(entry.summary, LINE_CHARS)}`;
}

function time(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/**
 * The parts of the answer, each read within the time for the call's reads (a WorkScope ending a
 * margin before its deadline): a part the time cut off is left out and named in `missing`, so
 * that the answer stands on the parts that arrived. Other failures stay the call's failure.
 */
class PartsInTime {
  readonly missing: string[] = [];
  constructor(
    private readonly scope: WorkScope,
    private readonly budget: string,
  ) {}

  async part<T>(what: string, read: Promise<T>): Promise<T | undefined> {
    try {
      return await read;
    } catch (error) {
      if (!this.scope.timedOut) throw error;
      this.missing.push(`${what}: not read, the platform did not answer within this call's time budget of ${this.budget}`);
      return undefined;
    }
  }

  /** A part of lines, empty when the time cut it off. */
  async lines(what: string, read: Promise<string[]>): Promise<string[]> {
    return (await this.part(what, read)) ?? [];
  }
}

type ListAllOf = Awaited<ReturnType<IncidentOpsDeps['api']['listAll']>>;

/** What was read of the incident and around it; undefined: not read in time. */
interface ContextReads {
  incident: Json | undefined;
  alerts: ListPage | undefined;
  notes: ListPage | undefined;
  log: ListAllOf | undefined;
  oncalls: ListAllOf | undefined;
  changes: string[];
  otherOpen: string[];
  dependencies: BlastRadius;
}

const NO_DEPENDENCIES: BlastRadius = { dependsOn: [], dependedOnBy: [], partial: [] };

/** Every part, at once where the IDs allow; the parts that need the incident wait for it. */
async function readContext(args: GetIncidentContextArgs, { deps, signal, progress }: ToolContext<IncidentOpsDeps>, parts: PartsInTime, reads: AbortSignal): Promise<ContextReads> {
  const label = `incident "${args.incident_id}"`;
  let steps = 0;
  const step = (what: string) => progress(++steps, 8, what);
  const getIncident = parts.part('incident', deps.api.getOne('/incidents/{id}', { id: args.incident_id }, 'incident', reads, label)).finally(() => step('Read the incident'));
  // An incident number works only for the incident itself: its parts are asked for by ID.
  const byNumber = /^\d+$/.test(args.incident_id);
  const partsOf = (id: string) => {
    const pathParams = { id };
    return Promise.all([
      parts.part('alerts', deps.api.listPage('/incidents/{id}/alerts', 'alerts', { sort_by: 'created_at:desc', limit: NEWEST_ALERTS, total: true }, reads, pathParams, label)).finally(() => step('Read the alerts')),
      parts.part('notes', deps.api.listPage('/incidents/{id}/notes', 'notes', {}, reads, pathParams, label)).finally(() => step('Read the notes')),
      parts
        .part('timeline', deps.api.listAll('/incidents/{id}/log_entries', 'log_entries', { is_overview: true }, reads, { pathParams, resourceLabel: label, maxItems: MAX_LOG_ENTRIES }))
        .finally(() => step('Read the timeline')),
    ]);
  };
  const early = byNumber ? undefined : partsOf(args.incident_id);
  // If the incident itself fails, that is the error reported; its parts' failure must not go unhandled.
  early?.catch(() => undefined);
  const incident = await getIncident;
  if (!incident) return withoutIncident(args, parts, early);
  const policyId = isRecord(incident.escalation_policy) && typeof incident.escalation_policy.id === 'string' ? incident.escalation_policy.id : undefined;
  const onCalls = policyId
    ? parts.part('on_call_now', deps.api.listAll('/oncalls', 'oncalls', { 'escalation_policy_ids[]': [policyId] }, reads, { maxItems: TASK_PAGES.incidentOnCalls * API_PAGE_SIZE })).finally(() => step('Read who is on call'))
    : Promise.resolve({ items: [], truncated: false });
  const dependencies = parts.part('depends_on, depended_on_by', blastRadius(deps.api, incident, reads)).then((read) => read ?? NO_DEPENDENCIES);
  const [[alerts, notes, log], oncalls, changes, otherOpen, aroundService] = await Promise.all([
    early ?? partsOf(String(incident.id)),
    onCalls,
    orUnreadLine(parts.lines('changes', relatedChanges(deps.api, incident, reads)), 'Related change events', signal).finally(() => step('Read the related changes')),
    orUnreadLine(parts.lines('other_open', otherOpenIncidents(deps.api, incident, reads)), 'Other open incidents', signal).finally(() => step('Read the other open incidents')),
    orUnreadDependencies(dependencies, signal).finally(() => step('Read the services around it')),
  ]);
  return { incident, alerts, notes, log, oncalls, changes, otherOpen, dependencies: aroundService };
}

/**
 * The incident itself did not arrive in time: the parts read by its ID stand, those that need it
 * (who is on call, related changes, other open incidents) are named as not read. With nothing at
 * all in time, the call fails saying so.
 */
async function withoutIncident(args: GetIncidentContextArgs, parts: PartsInTime, early: Promise<[ListPage | undefined, ListPage | undefined, ListAllOf | undefined]> | undefined): Promise<ContextReads> {
  const [alerts, notes, log] = early ? await early : [undefined, undefined, undefined];
  if (!alerts && !notes && !log) {
    throw new ToolError({
      kind: 'budget_exceeded',
      message: `IncidentOps did not answer with incident "${args.incident_id}" within this call's time budget (${parts.missing.join('; ')}); nothing of it arrived in time.`,
      nextStep: 'IncidentOps is slow: try again in a little while, or read the incident alone with IncidentOps.GetIncident.',
    });
  }
  parts.missing.push('on_call_now, changes, other_open, depends_on, depended_on_by: not read, they need the incident, which did not arrive in time');
  return { incident: undefined, alerts, notes, log, oncalls: undefined, changes: [], otherOpen: [], dependencies: NO_DEPENDENCIES };
}

export async function getIncidentContext(args: GetIncidentContextArgs, context: ToolContext<IncidentOpsDeps>): Promise<GetIncidentContextResult> {
  const { deps } = context;
  // Reads end a margin before the call's deadline: the answer is made of what arrived by then.
  const scope = new WorkScope(context.signal, { until: 'deadline' });
  const parts = new PartsInTime(scope, context.budget.describe('time'));
  let read: ContextReads;
  try {
    read = await readContext(args, context, parts, scope.signal);
  } finally {
    scope.dispose();
  }
  const { alerts, notes, log, oncalls, changes, otherOpen, dependencies } = read;
  const incident = read.incident ?? { id: args.incident_id };

  const counts = isRecord(incident.alert_counts) ? incident.alert_counts : {};
  const events = (log?.items ?? []).slice().sort((a, b) => time(a.created_at) - time(b.created_at)).map(eventLine);
  const timeline =
    events.length > TIMELINE_FIRST + TIMELINE_LAST
      ? [...events.slice(0, TIMELINE_FIRST), `… ${events.length - TIMELINE_FIRST - TIMELINE_LAST} more key events …`, ...events.slice(-TIMELINE_LAST)]
      : events;
  if (log?.truncated) timeline.push(`… key events after the first ${log.items.length} are not shown${log.why ? ` (${log.why})` : ''}: see IncidentOps.ListLogEntries.`);
  const sortedNotes = (notes?.items ?? []).slice().sort((a, b) => time(b.created_at) - time(a.created_at));
  const noteLines = sortedNotes.slice(0, NOTES_SHOWN).map((note) => noteLine(note, NOTE_CHARS));
  if (sortedNotes.length > NOTES_SHOWN) noteLines.push(`… ${sortedNotes.length - NOTES_SHOWN} older notes`);
  const onCallNow = onCallLevels(oncalls?.items ?? [], deps.now().getTime(), false).flatMap((policy) =>
    policy.levels.map(
      (level) =>
        `level ${level.level}: ${level.on_call.map((who) => (who.always ? `${who.user} (always${who.via ? `; also on ${who.via}` : ''})` : who.nobody ? `nobody${who.via ? ` on ${who.via}` : ''}` : `${who.user}${who.until ? ` until ${timeText(who.until)}` : ''}`)).join(', ')}`,
    ),
  );
  const assignees = Array.isArray(incident.assignments) ? incident.assignments.filter(isRecord).map((a) => named(a.assignee)).filter((who): who is string => who !== undefined) : [];
  const partial = [
    ...parts.missing,
    log?.truncated && log.why && `timeline: ${log.why}`,
    oncalls?.truncated && oncalls.why && `on_call_now: ${oncalls.why}`,
    ...dependencies.partial,
  ].filter((line): line is string => typeof line === 'string' && line.length > 0);
  return {
    incident: {
      id: String(incident.id),
      ...(typeof incident.incident_number === 'number' ? { number: incident.incident_number } : {}),
      ...(typeof incident.title === 'string' ? { title: oneLine(incident.title, 2 * LINE_CHARS) } : {}),
      ...pickStrings(incident, ['status', 'urgency', 'created_at', 'resolved_at']),
      ...namedFields(incident, ['priority', 'service', 'escalation_policy']),
      ...(assignees.length ? { assigned_to: assignees } : {}),
      ...pickStrings(incident, ['html_url']),
    },
    alerts: {
      ...(typeof alerts?.total === 'number' ? { count: alerts.total } : typeof counts.all === 'number' ? { count: counts.all } : {}),
      ...(typeof counts.triggered === 'number' ? { triggered: counts.triggered } : {}),
      newest: (alerts?.items ?? []).map(shapeAlert),
    },
    notes: noteLines,
    timeline,
    on_call_now: onCallNow,
    changes,
    other_open: otherOpen,
    depends_on: dependencies.dependsOn,
    depended_on_by: dependencies.dependedOnBy,
    ...(partial.length ? { partial } : {}),
  };
}
