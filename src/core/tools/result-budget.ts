/**
 * One budget for every tool result, so no single answer floods the agent's context.
 * Past the budget the longest list in the result is cut at a record boundary, and the result
 * says where, how many records were left out and how to get them.
 */
import { isRecord, type JsonObject } from '../json.js';

/** Bytes of JSON text a result may have: about 15-20k tokens of typical JSON. */
export const RESULT_BUDGET_BYTES = 60_000;
/** Strings longer than this are shortened when cutting lists was not enough. */
const LONG_TEXT_CHARS = 2_000;
/** How deep the search for the list to cut goes (`data`, `team.members`, `incident.log_entries`). */
const MAX_LIST_DEPTH = 3;

export const TRUNCATION_KEY = 'result_truncated';

export interface Truncation {
  /** Path of the list that was cut, e.g. `members` or `data`. */
  list?: string;
  returned?: number;
  omitted?: number;
  /** Long texts shortened (when cutting lists was not enough). */
  shortened_texts?: number;
  budget_bytes: number;
  next_step: string;
}

/** Returns the data unchanged when it fits, else a cut copy carrying a `result_truncated` note. */
export function fitResult(data: JsonObject, howToGetMore: string | undefined, budget = RESULT_BUDGET_BYTES): { data: JsonObject; text: string } {
  const text = JSON.stringify(data);
  if (byteLength(text) <= budget) return { data, text };

  const note: Truncation = { budget_bytes: budget, next_step: howToGetMore ?? 'Ask for less: a smaller page size (limit), narrower filters, or one record by its ID.' };
  let cut: JsonObject = data;
  const list = longestList(data);
  if (list) {
    const records = list.value;
    const fits = (count: number) => {
      const candidate = replaceAt(data, list.path, records.slice(0, count));
      const attempt = { ...candidate, [TRUNCATION_KEY]: { ...note, list: list.path.join('.'), returned: count, omitted: records.length - count } };
      return byteLength(JSON.stringify(attempt)) <= budget ? attempt : undefined;
    };
    // Binary search for the largest prefix of whole records that fits.
    let low = 0;
    let high = records.length - 1;
    let best = fits(0);
    while (low <= high) {
      const mid = (low + high) >> 1;
      const attempt = fits(mid);
      if (attempt) {
        best = attempt;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    if (best) return { data: best, text: JSON.stringify(best) };
    cut = { ...replaceAt(data, list.path, []), [TRUNCATION_KEY]: { ...note, list: list.path.join('.'), returned: 0, omitted: records.length } };
  }

  // One record alone is too big: shorten its long texts.
  let shortened = 0;
  const shorten = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string' && value.length > LONG_TEXT_CHARS) {
      shortened++;
      return `${value.slice(0, LONG_TEXT_CHARS)}… [${value.length - LONG_TEXT_CHARS} more characters cut]`;
    }
    if (depth > 64) return '[nested too deep]';
    if (Array.isArray(value)) return value.map((item) => shorten(item, depth + 1));
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, key === TRUNCATION_KEY ? item : shorten(item, depth + 1)]));
    return value;
  };
  const withShortTexts = shorten(cut, 0) as JsonObject;
  const previous = isRecord(withShortTexts[TRUNCATION_KEY]) ? withShortTexts[TRUNCATION_KEY] : note;
  const result = { ...withShortTexts, [TRUNCATION_KEY]: { ...previous, shortened_texts: shortened } };
  const resultText = JSON.stringify(result);
  if (byteLength(resultText) <= budget) return { data: result, text: resultText };

  // Still too big (a huge structure without lists): keep only the note and the start of the text.
  const preview = { [TRUNCATION_KEY]: { ...note, shortened_texts: shortened }, preview: text.slice(0, Math.floor(budget / 2)) };
  return { data: preview, text: JSON.stringify(preview) };
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

interface FoundList {
  path: string[];
  value: unknown[];
  bytes: number;
}

/** The list with the most JSON bytes within the first few levels of the result. */
function longestList(data: JsonObject): FoundList | undefined {
  let best: FoundList | undefined;
  const visit = (node: JsonObject, path: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      if (Array.isArray(value) && value.length > 0) {
        const bytes = byteLength(JSON.stringify(value));
        if (!best || bytes > best.bytes) best = { path: [...path, key], value, bytes };
      } else if (isRecord(value) && path.length + 1 < MAX_LIST_DEPTH) {
        visit(value, [...path, key]);
      }
    }
  };
  visit(data, []);
  return best;
}

function replaceAt(data: JsonObject, path: string[], value: unknown): JsonObject {
  const [head, ...rest] = path;
  if (head === undefined) return data;
  return { ...data, [head]: rest.length ? replaceAt(data[head] as JsonObject, rest, value) : value };
}
