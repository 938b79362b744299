/**
 * What every handler of the incident platform emulator shares: its errors (the platform's error
 * body and codes), the query as the spec declares its parameters, and a request's context.
 */
import { DateTime, IANAZone } from 'luxon';
import type { Dataset } from './model.js';
import type { Renderer } from './render.js';

/** The platform's cap on offset + limit. */
const MAX_WINDOW = 10_000;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: string[],
  ) {
    super(message);
  }

  toBody(): unknown {
    return { error: { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) } };
  }
}

export const notFound = () => new ApiError(404, 2100, 'Not Found');
export const invalid = (...errors: string[]) => new ApiError(400, 2001, 'Invalid Input Provided', errors);

/** Read access to the decoded query pairs. */
export class Query {
  constructor(private readonly pairs: [string, string][]) {}

  all(name: string): string[] {
    return this.pairs.filter(([k]) => k === name).map(([, v]) => v);
  }

  one(name: string): string | undefined {
    return this.pairs.find(([k]) => k === name)?.[1];
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.one(name);
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw.trim())) throw invalid(`${name} must be an integer, got ${JSON.stringify(raw)}.`);
    const n = Number(raw.trim());
    if (n < min || n > max) throw invalid(`${name} must be between ${min} and ${max}, got ${n}.`);
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.one(name);
    if (raw === undefined) return fallback;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw invalid(`${name} must be true or false, got ${JSON.stringify(raw)}.`);
  }

  /** Values of a repeated `name[]` parameter restricted to an enum; empty list when absent. */
  enumList(name: string, allowed: readonly string[]): string[] {
    const values = this.all(name);
    const bad = values.filter((v) => !allowed.includes(v));
    if (bad.length > 0) throw invalid(`${name} has invalid value(s) ${bad.map((b) => JSON.stringify(b)).join(', ')}; allowed: ${allowed.join(', ')}.`);
    return values;
  }

  /** A set of IDs from a repeated `name[]` parameter, or null when the filter is absent. */
  ids(name: string): Set<string> | null {
    const values = this.all(name);
    return values.length > 0 ? new Set(values) : null;
  }

  timeZone(name = 'time_zone'): string | null {
    const raw = this.one(name);
    if (raw === undefined) return null;
    if (!IANAZone.isValidZone(raw)) throw invalid(`${name} ${JSON.stringify(raw)} is not a valid time zone.`);
    return raw;
  }

  /** ISO 8601 date/time; values without an offset are read in `zone`. */
  date(name: string, zone: string): number | null {
    const raw = this.one(name);
    if (raw === undefined) return null;
    const dt = DateTime.fromISO(raw.trim(), { zone, setZone: true });
    if (!dt.isValid) throw invalid(`${name} ${JSON.stringify(raw)} is not a valid ISO 8601 date.`);
    return dt.toMillis();
  }

  page(): { limit: number; offset: number; total: boolean } {
    const limit = this.int('limit', 25, 1, 100);
    const offset = this.int('offset', 0, 0, Number.MAX_SAFE_INTEGER);
    if (offset + limit > MAX_WINDOW) {
      throw new ApiError(400, 2002, 'Arguments Caused Error', [
        `Offset+limit exceeds maximum allowed value of ${MAX_WINDOW}. Narrow the search (for example with a date range) instead of paging further.`,
      ]);
    }
    return { limit, offset, total: this.bool('total', false) };
  }
}

export interface RequestContext {
  data: Dataset;
  /** The user the credentials belong to (the answer of /users/me). */
  userId: string;
  q: Query;
  baseUrl: string;
  now: number;
  renderer(zone: string | null): Renderer;
}
