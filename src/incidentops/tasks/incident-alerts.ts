/** ListIncidentAlerts' logic, loaded on its first call (the definition is in ../tools/list-incident-alerts.ts). */
import { budgetOf } from '../../core/call-budget.js';
import { isRecord } from '../../core/json.js';
import { walkNote, walkPages } from '../../core/tools/pager.js';
import { flatText, labelText, nameText, quote, quotedText, timeText } from '../../core/tools/line-text.js';
import type { ToolContext } from '../../core/tools/tool.js';
import { API_PAGE_SIZE } from '../api.js';
import type { IncidentOpsDeps } from '../deps.js';
import { named } from '../oncall-levels.js';
import { MAX_PAGE_WINDOW } from '../params.js';
import { oneLine } from '../shape.js';

type Json = Record<string, unknown>;

/** What the logic is called with: the definition's checked input. */
export interface ListIncidentAlertsArgs {
  incident_id: string;
  status?: 'triggered' | 'resolved' | undefined;
  alert_key?: string | undefined;
  limit: number;
  offset: number;
}

export interface AlertEntry {
  alert: string;
  severity?: string;
  status?: string;
  created?: string;
  service?: string;
  integration?: string;
  dedup_key?: string;
  links: string[];
  details: string[];
  details_left_out?: number;
}

/** What it answers, as the definition's output schema states it. */
export interface ListIncidentAlertsResult {
  incident: string;
  total?: number;
  alerts: AlertEntry[];
  next_offset?: number;
  cut?: string;
  note?: string;
}

/**
 * The cut rule (docs/tasks.md, ListIncidentAlerts): each detail value (and the string form of a
 * body that is text) flattened and cut at `valueChars`, at most `lines` detail lines per alert in
 * the body's order; one alert asked for by its dedup key is cut less.
 */
export const CUT_RULE = {
  list: { valueChars: 200, lines: 30 },
  oneAlert: { valueChars: 1_000, lines: 40 },
} as const;
/** A key path is cut here, a link here, and an alert shows this many links. */
export const KEY_CHARS = 100;
export const LINK_CHARS = 300;
export const LINKS_SHOWN = 5;
/** Summaries (the label's name) are cut here. */
const SUMMARY_CHARS = 300;
/** The answer stops taking alerts past this many bytes of JSON (the core's result budget is 60,000): the rest is for next_offset. */
export const ANSWER_BYTES = 45_000;
/** Nested details are walked this deep; deeper values are shown as their JSON. */
const DETAIL_DEPTH = 8;

/** A key path's segment: bare when a plain identifier, quoted otherwise, so that no key can hold a `: ` or a fake line. */
function keySegment(key: string): string {
  return /^[A-Za-z0-9_$@-]+$/.test(key) ? key : quote(oneLine(key, KEY_CHARS));
}

interface CutCounts {
  valuesCut: number;
  linesLeftOut: number;
  alertsWithLinesLeftOut: number;
}

/** A value in a line: a string quoted and cut at `max`, numbers, booleans and null as JSON. */
function valueText(value: unknown, max: number): { text: string; cut: boolean } {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return { text: String(value), cut: false };
  const flat = flatText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
  return { text: quotedText(flat, max), cut: flat.length > max };
}

/** One detail line, and whether its value was cut. */
export interface DetailLine {
  text: string;
  cut: boolean;
}

/**
 * A body's details as `key.path: value` lines, nested keys dotted (list items by index), in the
 * body's order; a body that is text is one quoted value; an empty object or list is `{}` / `[]`.
 */
export function detailLines(details: unknown, max: number, keep = Infinity): { lines: DetailLine[]; count: number } {
  const lines: DetailLine[] = [];
  let count = 0;
  const walk = (value: unknown, path: string, depth: number): void => {
    const container = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : isRecord(value) ? Object.entries(value) : undefined;
    if (container && depth < DETAIL_DEPTH && container.length > 0) {
      for (const [key, item] of container) walk(item, path ? `${path}.${keySegment(key)}` : keySegment(key), depth + 1);
      return;
    }
    // Past the lines kept, only counted: a huge body costs no strings.
    if (++count > keep) return;
    const shown = container && container.length === 0 ? { text: Array.isArray(value) ? '[]' : '{}', cut: false } : valueText(value, max);
    lines.push({ text: path ? `${cutPath(path)}: ${shown.text}` : shown.text, cut: shown.cut });
  };
  if (details !== undefined && details !== null) walk(details, '', 0);
  return { lines, count };
}

/** A dotted path past KEY_CHARS keeps its start, marked. */
function cutPath(path: string): string {
  return path.length <= KEY_CHARS ? path : quote(`${oneLine(path, KEY_CHARS)}`);
}

/**
 * The body's links and images as `link Text: "url"` / `image Text: "url"`, from its contexts, else
 * cef_details' (which repeat them where both are sent). One line per context, never merged by
 * their text: platform text never changes how many lines there are.
 */
function linkLines(body: Json): string[] {
  const cef = isRecord(body.cef_details) ? body.cef_details : {};
  const contexts = (Array.isArray(body.contexts) ? body.contexts : Array.isArray(cef.contexts) ? cef.contexts : []).filter(isRecord);
  const lines: string[] = [];
  for (const context of contexts) {
    const url = typeof context.href === 'string' ? context.href : typeof context.src === 'string' ? context.src : undefined;
    if (url === undefined) continue;
    const kind = context.type === 'image' ? 'image' : 'link';
    const text = typeof context.text === 'string' && flatText(context.text) !== '' ? nameText(context.text, 100) : '(no text)';
    lines.push(`${kind} ${text}: ${quotedText(url, LINK_CHARS)}`);
  }
  return lines;
}

function shapeAlert(alert: Json, rule: { valueChars: number; lines: number }, counts: CutCounts): AlertEntry {
  const body = isRecord(alert.body) ? alert.body : {};
  const cef = isRecord(body.cef_details) ? body.cef_details : {};
  const { lines: shown, count } = detailLines(body.details !== undefined ? body.details : cef.details, rule.valueChars, rule.lines);
  const leftOut = count - shown.length;
  counts.valuesCut += shown.filter((line) => line.cut).length;
  if (leftOut > 0) {
    counts.linesLeftOut += leftOut;
    counts.alertsWithLinesLeftOut++;
  }
  const links = linkLines(body);
  const summary = typeof alert.summary === 'string' ? alert.summary : undefined;
  const service = named(alert.service);
  const integration = named(alert.integration);
  return {
    alert: labelText(summary === undefined ? undefined : oneLine(summary, SUMMARY_CHARS) || '(no summary)', String(alert.id)) as string,
    ...(typeof alert.severity === 'string' ? { severity: oneLine(alert.severity, 40) } : {}),
    ...(typeof alert.status === 'string' ? { status: oneLine(alert.status, 40) } : {}),
    ...(typeof alert.created_at === 'string' ? { created: timeText(alert.created_at) } : {}),
    ...(service ? { service } : {}),
    ...(integration ? { integration } : {}),
    ...(typeof alert.alert_key === 'string' ? { dedup_key: oneLine(alert.alert_key, 200) } : {}),
    links: links.slice(0, LINKS_SHOWN),
    details: shown.map((line) => line.text),
    ...(leftOut > 0 ? { details_left_out: leftOut } : {}),
  };
}

/** The incident's ID: given, or read by its number (the platform's GET /incidents/{id} takes either). */
async function incidentIdOf(args: ListIncidentAlertsArgs, { deps, signal }: ToolContext<IncidentOpsDeps>): Promise<string> {
  if (!/^\d+$/.test(args.incident_id)) return args.incident_id;
  const incident = await deps.api.getOne('/incidents/{id}', { id: args.incident_id }, 'incident', signal, `incident "${args.incident_id}"`);
  return String(incident.id);
}

function cutSentence(counts: CutCounts, rule: { valueChars: number; lines: number }, oneAlert: boolean): string | undefined {
  const parts = [
    counts.valuesCut > 0 && `${counts.valuesCut} detail values cut at ${rule.valueChars} characters (marked …)`,
    counts.linesLeftOut > 0 && `${counts.linesLeftOut} detail lines left out past the first ${rule.lines} of ${counts.alertsWithLinesLeftOut} alerts (details_left_out)`,
  ].filter((part): part is string => typeof part === 'string');
  if (parts.length === 0) return undefined;
  const more = oneAlert
    ? 'This is the most one call shows; the rest is in the alert on the platform (its html_url).'
    : `For one alert cut less (values to ${CUT_RULE.oneAlert.valueChars} characters, ${CUT_RULE.oneAlert.lines} lines), call again with its dedup_key as alert_key.`;
  return `${parts.join('; ')}. ${more}`;
}

export async function listIncidentAlerts(args: ListIncidentAlertsArgs, context: ToolContext<IncidentOpsDeps>): Promise<ListIncidentAlertsResult> {
  const { deps, signal } = context;
  const incidentId = await incidentIdOf(args, context);
  const oneAlert = args.alert_key !== undefined;
  const rule = oneAlert ? CUT_RULE.oneAlert : CUT_RULE.list;
  const counts: CutCounts = { valuesCut: 0, linesLeftOut: 0, alertsWithLinesLeftOut: 0 };
  const alerts: AlertEntry[] = [];
  const budget = budgetOf(signal);
  let bytes = 0;
  let total: number | undefined;
  /** Alerts read past the offset, whether shown or not: where the next call starts. */
  let taken = 0;
  let full = false;
  const label = `incident "${args.incident_id}"`;
  const query = {
    sort_by: 'created_at:asc',
    total: true,
    ...(args.status ? { 'statuses[]': [args.status] } : {}),
    ...(args.alert_key !== undefined ? { alert_key: args.alert_key } : {}),
  };
  const pageSize = Math.min(API_PAGE_SIZE, args.limit);
  const walk = await walkPages<Json>({
    signal,
    start: { offset: args.offset },
    maxPages: Math.min(Math.ceil(args.limit / pageSize), Math.floor((MAX_PAGE_WINDOW - args.offset) / pageSize)),
    pageSize,
    fetchPage: async (at, pageSignal) => {
      const offset = at?.offset ?? args.offset;
      const page = await deps.api.listPage('/incidents/{id}/alerts', 'alerts', { ...query, limit: pageSize, offset }, pageSignal, { id: incidentId }, label);
      budget?.keep(page.bytes);
      return { records: page.items, ...(page.more ? { next: { offset: offset + page.items.length } } : {}), ...(page.total !== undefined ? { total: page.total } : {}) };
    },
    onPage: (page) => {
      total ??= page.total;
      for (const record of page.records) {
        if (alerts.length >= args.limit) return (full = true);
        const entry = shapeAlert(record, rule, counts);
        const size = JSON.stringify(entry).length + 1;
        // The first alert is always shown (the rule keeps one under the core's result budget).
        if (alerts.length > 0 && bytes + size > ANSWER_BYTES) return (full = true);
        alerts.push(entry);
        bytes += size;
        taken++;
      }
      return alerts.length >= args.limit ? (full = true) : false;
    },
    idOf: (record) => (typeof record.id === 'string' ? record.id : undefined),
    onProgress: (pages, pagesTotal) => context.progress(pages, pagesTotal, `Reading the alerts: page ${pages}${pagesTotal !== undefined ? ` of ${pagesTotal}` : ''}`),
  });
  const nextOffset = args.offset + taken;
  // More to read: the answer filled up before the list's end, or the walk stopped short (not on a platform paging wrongly).
  const more = full ? total === undefined || nextOffset < total : !walk.complete && walk.stop !== 'repeated' && walk.stop !== 'overrun';
  const stopped = full ? undefined : walkNote(walk, 'alerts', signal);
  const note = stopped
    ? `${stopped}.${more ? ' Call again with offset = next_offset for the rest.' : ''}`
    : more
      ? `${alerts.length} alerts shown${alerts.length < args.limit ? `, as many as fit one answer (${ANSWER_BYTES} bytes)` : ''}: call again with offset = next_offset for the rest.`
      : undefined;
  const cut = cutSentence(counts, rule, oneAlert);
  return {
    incident: incidentId,
    ...(total !== undefined ? { total } : {}),
    alerts,
    ...(more ? { next_offset: nextOffset } : {}),
    ...(cut ? { cut } : {}),
    ...(note ? { note } : {}),
  };
}
