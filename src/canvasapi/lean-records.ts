/**
 * Lean answers: lists and write echoes leave out what repeats on every record and says nothing an
 * agent acts on (who and when created or modified it, style values equal to the platform's
 * defaults). Single-item reads keep everything, and the full-records setting keeps everything
 * everywhere. One rule for all tools, driven by the catalogue entry's effect, toolset and the
 * answer's shape; and whatever the call's own request body set stays in its echo, default or not,
 * so the caller sees that its setting took.
 */
import { isRecord } from '../core/json.js';
import type { CanvasToolEntry } from './catalogue-types.js';

type Json = Record<string, unknown>;

/** Bookkeeping present on every board, item, connector, tag and team record. */
export const BOOKKEEPING_FIELDS = ['createdAt', 'createdBy', 'modifiedAt', 'modifiedBy'] as const;

/**
 * The platform's default style values per record type (its API reference): an item created
 * without a style answers exactly these. Colours are left out on purpose: they carry meaning.
 * Compared as text, since the platform answers numbers as strings ("14", "1.0").
 */
export const DEFAULT_STYLES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  sticky_note: { textAlign: 'center', textAlignVertical: 'top' },
  shape: { fillOpacity: '1.0', fontFamily: 'arial', fontSize: '14', borderWidth: '2.0', borderOpacity: '1.0', borderStyle: 'normal', textAlign: 'center', textAlignVertical: 'middle' },
  text: { fillOpacity: '1.0', fontFamily: 'arial', textAlign: 'left' },
  connector: { endStrokeCap: 'stealth', fontSize: '14', startStrokeCap: 'none', strokeStyle: 'normal', strokeWidth: '1.0', textOrientation: 'aligned' },
};

/** In compliance answers (audit and content logs, legal holds) who did what and when is the content itself. */
const KEEPS_BOOKKEEPING = new Set<string>(['compliance']);

/** Which answers are made lean: lists (a `data` array) and the echoes of creates and updates. */
export function answersLean(entry: CanvasToolEntry, result: Json): boolean {
  if (KEEPS_BOOKKEEPING.has(entry.toolset)) return false;
  if (entry.effect === 'create' || entry.effect === 'update') return true;
  return entry.effect === 'read' && Array.isArray(result.data);
}

/**
 * The answer without bookkeeping: on the record itself, or on each record of its `data` list.
 * `sent` is the request body of the call (a write's): a field it set is never left out. A bulk
 * create's body (an array) pairs with the answer's `data` list item by item, in order.
 */
export function leanAnswer(result: Json, sent?: unknown): Json {
  if (Array.isArray(result.data)) {
    const sentItems = Array.isArray(sent) ? sent : undefined;
    return { ...result, data: result.data.map((record, i) => (isRecord(record) ? leanRecord(record, sentItems?.[i]) : record)) };
  }
  return leanRecord(result, sent);
}

/** Whether the request body set this field path (to anything, a default included). */
function callerSet(sent: unknown, path: readonly string[]): boolean {
  let node = sent;
  for (const key of path) {
    if (!isRecord(node) || node[key] === undefined || node[key] === null) return false;
    node = node[key];
  }
  return true;
}

/** Whether lean answers leave out this field of a record: bookkeeping, or a style value at its default. */
function leftOut(record: Json, path: readonly [string] | readonly ['style', string], value: unknown): boolean {
  if (path.length === 1) return (BOOKKEEPING_FIELDS as readonly string[]).includes(path[0]);
  const defaults = typeof record.type === 'string' ? DEFAULT_STYLES[record.type] : undefined;
  const fallback = defaults?.[path[1]];
  return fallback !== undefined && String(value) === fallback;
}

/** The one rule: a field is left out when lean answers leave it out and the caller did not set it in this call. */
function dropped(record: Json, sent: unknown, path: readonly [string] | readonly ['style', string], value: unknown): boolean {
  return leftOut(record, path, value) && !callerSet(sent, path);
}

function leanRecord(record: Json, sent: unknown): Json {
  const lean: Json = {};
  for (const [key, value] of Object.entries(record)) {
    if (dropped(record, sent, [key], value)) continue;
    if (key === 'style' && isRecord(value)) {
      const style = Object.fromEntries(Object.entries(value).filter(([styleKey, styleValue]) => !dropped(record, sent, ['style', styleKey], styleValue)));
      if (Object.keys(style).length) lean.style = style;
      continue;
    }
    lean[key] = value;
  }
  return lean;
}
