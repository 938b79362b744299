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
