/** Small JSON helpers shared by the servers and the core. */

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
