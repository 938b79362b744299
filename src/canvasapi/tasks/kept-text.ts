/**
 * What ReadBoard keeps of platform text: flat copies, counted against the call's budget. In V8
 * a slice or concatenation of a string of 13 characters or more is a view that keeps its whole
 * source alive: 300 cuts of 40 characters kept 124 MB of item text, where flat copies take 4 MB.
 */
import { budgetOf } from '../../core/call-budget.js';

/** Code units per String.fromCharCode call (well within the engine's argument limit). */
const COPY_CHUNK = 4096;

/** A flat copy of `text`: built from its code units, it shares nothing with its source (lone surrogates kept as they are). */
export function flat(text: string): string {
  if (text.length === 0) return '';
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += COPY_CHUNK) {
    const end = Math.min(text.length, start + COPY_CHUNK);
    const codes = new Array<number>(end - start);
    for (let index = start; index < end; index++) codes[index - start] = text.charCodeAt(index);
    parts.push(String.fromCharCode(...codes));
  }
  return parts.length === 1 ? (parts[0] as string) : parts.join('');
}

/** Counts strings a call keeps for its answer against its budget (UTF-8 bytes); past the budget, its walks stop. */
export function countKept(signal: AbortSignal, ...texts: readonly string[]): void {
  const budget = budgetOf(signal);
  if (!budget) return;
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text);
  budget.keep(bytes);
}
