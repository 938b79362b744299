/** Small JSON helpers shared by the servers and the core. */
import { randomUUID } from 'node:crypto';

export type JsonObject = Record<string, unknown>;

/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Drops nulls and undefined (in objects and arrays) and objects left empty, recursively. */
export function pruneEmpty<T>(value: T): T {
  if (Array.isArray(value)) return value.filter((v) => v !== null && v !== undefined).map((v) => pruneEmpty(v)) as T;
  if (!isRecord(value)) return value;
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null || child === undefined) continue;
    const pruned = pruneEmpty(child);
    if (isRecord(pruned) && Object.keys(pruned).length === 0) continue;
    out[key] = pruned;
  }
  return out as T;
}

/**
 * JSON text of a value whose bigints (int64 IDs past 2^53) are written as exact JSON numbers:
 * JSON.stringify throws on a bigint, and a number would lose their last digits. Each bigint is
 * first written as a string carrying a random marker no caller's text can contain, then unquoted.
 */
export function jsonText(value: unknown): string {
  let marker: string | undefined;
  const text = JSON.stringify(value, (_key, child: unknown) => {
    if (typeof child !== 'bigint') return child;
    marker ??= `int64:${randomUUID()}:`;
    return `${marker}${child.toString()}`;
  });
  return marker === undefined ? text : text.replace(new RegExp(`"${marker}(-?\\d+)"`, 'g'), '$1');
}

/**
 * Deepest nesting of arrays and objects read in a platform's answer (token endpoints' included).
 * Real answers nest a dozen levels (custom alert details a few more); deeper JSON is refused
 * before it is parsed, since the walks after parsing (pruning, schemas, JSON.stringify) recurse
 * per level and would overflow the stack (200,000 levels did).
 */
export const MAX_ANSWER_DEPTH = 128;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one linear scan with
 * no recursion (strings skipped with indexOf): checked before JSON.parse, so that a tree too deep
 * for the recursive walks after it (pruning, schemas, JSON.stringify) is never built. Text that
 * is not valid JSON is left to JSON.parse to refuse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x22) {
      at = stringEnd(text, at);
      if (at < 0) return false;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `limit` (the value itself is
 * level 1). It recurses at most `limit` + 1 frames, so a tree too deep for unbounded recursive
 * walks is found without overflowing the stack. It visits only containers, which makes it an
 * order of magnitude cheaper than nestsDeeperThan on the text (a page of 100 platform users:
 * 0.03 ms against 0.4 ms): V8's JSON.parse does not recurse, so a 2xx answer is parsed first
 * and checked after (core/platform/failure-description.ts).
 */
export function valueNestsDeeperThan(value: unknown, limit: number): boolean {
  return typeof value === 'object' && value !== null && containerDeeperThan(value, limit, 1);
}

function containerDeeperThan(value: object, limit: number, depth: number): boolean {
  if (depth > limit) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'object' && child !== null && containerDeeperThan(child, limit, depth + 1)) return true;
    }
    return false;
  }
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child === 'object' && child !== null && containerDeeperThan(child, limit, depth + 1)) return true;
  }
  return false;
}

/** The closing quote of the string opening at `open` (a quote after an even run of backslashes), or -1. */
function stringEnd(text: string, open: number): number {
  let end = open;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes += 1;
    if (backslashes % 2 === 0) return end;
  }
}
