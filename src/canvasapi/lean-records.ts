/**
 * Lean answers: lists and write echoes leave out what repeats on every record and says nothing an
 * agent acts on (who and when created or modified it, style values equal to the platform's
 * defaults). Single-item reads keep everything, and the full-records setting keeps everything
 * everywhere. One rule for all tools, driven by the catalogue entry's effect, toolset and the
 * answer's shape.
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

/** The answer without bookkeeping: on the record itself, or on each record of its `data` list. */
export function leanAnswer(result: Json): Json {
  if (Array.isArray(result.data)) return { ...result, data: result.data.map((record) => (isRecord(record) ? leanRecord(record) : record)) };
  return leanRecord(result);
}

function leanRecord(record: Json): Json {
  const lean: Json = {};
  for (const [key, value] of Object.entries(record)) {
    if ((BOOKKEEPING_FIELDS as readonly string[]).includes(key)) continue;
    if (key === 'style' && isRecord(value)) {
      const style = withoutDefaults(value, typeof record.type === 'string' ? DEFAULT_STYLES[record.type] : undefined);
      if (Object.keys(style).length) lean.style = style;
      continue;
    }
    lean[key] = value;
  }
  return lean;
}

function withoutDefaults(style: Json, defaults: Readonly<Record<string, string>> | undefined): Json {
  if (!defaults) return style;
  return Object.fromEntries(Object.entries(style).filter(([key, value]) => defaults[key] === undefined || String(value) !== defaults[key]));
}
