/**
 * Request/response plumbing shared by every area of the whiteboard emulator: the platform's error
 * body, query-string access with the platform's validation rules, JSON body parsing, a tiny
 * rule-based body checker and the two pagination styles (cursor and offset).
 */
import { randomUUID } from 'node:crypto';
import type { SandboxRequest, SandboxResponse } from '../exchange.js';

/** One problem found in a request, reported as `field` + `message`. */
export interface Issue {
  field: string;
  message: string;
}

/** An error that becomes the platform's error body `{ status, code, message, type: 'error', context? }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly context?: Record<string, unknown>,
  ) {
    super(message);
  }

  toResponse(): SandboxResponse {
    return {
      status: this.status,
      body: { status: this.status, code: this.code, message: this.message, type: 'error', ...(this.context ? { context: this.context } : {}) },
    };
  }
}

export const badRequest = (message: string, context?: Record<string, unknown>) => new ApiError(400, 'invalidParameters', message, context);
export const notFound = (what: string, id?: string) => new ApiError(404, 'notFound', id === undefined ? `${what} not found` : `${what} ${id} not found`);
export const conflict = (message: string) => new ApiError(409, 'conflict', message);

export function invalid(issues: Issue[]): ApiError {
  const first = issues[0];
  const text = first ? `${first.field ? `${first.field}: ` : ''}${first.message}` : 'invalid request';
  return badRequest(`Invalid parameters: ${text}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// Query strings

const INT_RE = /^-?\d+$/;

export class Query {
  constructor(private readonly pairs: [string, string][]) {}

  has(name: string): boolean {
    return this.pairs.some(([k]) => k === name);
  }

  one(name: string): string | undefined {
    return this.pairs.find(([k]) => k === name)?.[1];
  }

  /** Values of a repeated parameter (`name` or `name[]`), comma-separated values split too. */
  list(name: string): string[] {
    return this.pairs
      .filter(([k]) => k === name || k === `${name}[]`)
      .flatMap(([, v]) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }

  required(name: string): string {
    const v = this.one(name);
    if (v === undefined || v === '') throw badRequest(`Invalid parameters: query parameter ${name} is required`);
    return v;
  }

  int(name: string, opts: { min?: number; max?: number; def: number; required?: boolean }): number {
    const raw = this.one(name);
    if (raw === undefined || raw === '') {
      if (opts.required) throw badRequest(`Invalid parameters: query parameter ${name} is required`);
      return opts.def;
    }
    if (!INT_RE.test(raw.trim())) throw badRequest(`Invalid parameters: ${name} must be an integer, got ${JSON.stringify(raw)}`);
    const n = Number(raw.trim());
    if ((opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
      const range = opts.max === undefined ? `at least ${opts.min}` : `between ${opts.min ?? 0} and ${opts.max}`;
      throw badRequest(`Invalid parameters: ${name} must be ${range}, got ${n}`);
    }
    return n;
  }

  bool(name: string, def: boolean | undefined): boolean | undefined {
    const raw = this.one(name);
    if (raw === undefined || raw === '') return def;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw badRequest(`Invalid parameters: ${name} must be true or false, got ${JSON.stringify(raw)}`);
  }

  enumValue<T extends string>(name: string, allowed: readonly T[], def?: T): T | undefined {
    const raw = this.one(name);
    if (raw === undefined || raw === '') return def;
    if (!(allowed as readonly string[]).includes(raw)) throw badRequest(`Invalid parameters: ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    return raw as T;
  }
}

// ---------------------------------------------------------------------------------------------
// JSON bodies

export type BodyMode = 'required' | 'optional' | 'none';

/** Parse the request body as JSON. Returns undefined for an empty body. */
export function parseJsonBody(req: SandboxRequest, mode: BodyMode): unknown {
  if (mode === 'none') return undefined;
  const text = req.body.toString('utf8');
  if (text.trim() === '') {
    if (mode === 'required') throw badRequest('Invalid parameters: a JSON request body is required');
    return undefined;
  }
  const type = req.headers['content-type'];
  if (type !== undefined && type.trim() !== '') {
    const essence = (type.split(';')[0] ?? '').trim().toLowerCase();
    if (essence !== 'application/json' && !essence.endsWith('+json')) {
      throw new ApiError(400, 'invalidContentType', `Content-Type ${JSON.stringify(type)} is not supported: send application/json`);
    }
  }
  try {
    return parseJsonExact(text);
  } catch (err) {
    throw new ApiError(400, 'malformedJson', `Request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** A JSON string or a number, as tokens of JSON text (linear: the alternatives start differently). */
const JSON_STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * JSON.parse, except that an integer past 2^53 (an int64 ID) becomes a bigint with every digit,
 * as the platform's own parser keeps it. Such integers are first quoted with a marker no request
 * can contain, then turned into bigints by the reviver.
 */
export function parseJsonExact(text: string): unknown {
  const marker = `\\u0000int64:${randomUUID()}:`; // as JSON text: the escape of a NUL character
  let found = false;
  const quoted = text.replace(JSON_STRING_OR_NUMBER, (token) => {
    if (!/^-?\d{16,}$/.test(token) || Number.isSafeInteger(Number(token))) return token;
    found = true;
    return `"${marker}${token}"`;
  });
  if (!found) return JSON.parse(text) as unknown;
  const mark = JSON.parse(`"${marker}"`) as string;
  return JSON.parse(quoted, (_key, value: unknown) => (typeof value === 'string' && value.startsWith(mark) ? BigInt(value.slice(mark.length)) : value)) as unknown;
}

// ---------------------------------------------------------------------------------------------
// A small rule checker for request bodies (written for this emulator from the spec's schemas).

export type Rule =
  | { kind: 'string'; enum?: readonly string[]; minLength?: number; maxLength?: number; pattern?: RegExp; patternText?: string; format?: 'date-time' | 'email' | 'int64' | 'uuid' | 'http-url' }
  | { kind: 'number'; min?: number; max?: number; integer?: boolean; positive?: boolean }
  | { kind: 'numeric'; min?: number; max?: number }
  | { kind: 'boolean' }
  | { kind: 'array'; items: Rule; minItems?: number; maxItems?: number }
  | { kind: 'object'; props: Record<string, Rule>; required?: readonly string[] }
  | { kind: 'any' };

export const str = (o: Omit<Extract<Rule, { kind: 'string' }>, 'kind'> = {}): Rule => ({ kind: 'string', ...o });
export const num = (o: Omit<Extract<Rule, { kind: 'number' }>, 'kind'> = {}): Rule => ({ kind: 'number', ...o });
/** A style value the platform carries as a string holding a number (e.g. fontSize "14"); numbers are accepted too. */
export const numeric = (min?: number, max?: number): Rule => ({ kind: 'numeric', ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) });
export const bool = (): Rule => ({ kind: 'boolean' });
export const arr = (items: Rule, o: { minItems?: number; maxItems?: number } = {}): Rule => ({ kind: 'array', items, ...o });
export const obj = (props: Record<string, Rule>, required: readonly string[] = []): Rule => ({ kind: 'object', props, required });
export const anyValue = (): Rule => ({ kind: 'any' });

const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isDateTime(s: string): boolean {
  return DATE_TIME_RE.test(s) && !Number.isNaN(Date.parse(s));
}
export function isEmail(s: string): boolean {
  return EMAIL_RE.test(s);
}
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

export function check(value: unknown, rule: Rule, field: string, out: Issue[]): void {
  const at = field || '(body)';
  switch (rule.kind) {
    case 'any':
      return;
    case 'string': {
      if (typeof value !== 'string') return void out.push({ field: at, message: `must be a string, got ${typeName(value)}` });
      if (rule.enum && !rule.enum.includes(value)) return void out.push({ field: at, message: `must be one of ${rule.enum.join(', ')}, got ${JSON.stringify(value)}` });
      if (rule.minLength !== undefined && value.length < rule.minLength) out.push({ field: at, message: `must be at least ${rule.minLength} characters long` });
      if (rule.maxLength !== undefined && value.length > rule.maxLength) out.push({ field: at, message: `must be at most ${rule.maxLength} characters long` });
      if (rule.pattern && !rule.pattern.test(value)) out.push({ field: at, message: `must match ${rule.patternText ?? String(rule.pattern)}` });
      if (rule.format === 'date-time' && !isDateTime(value)) out.push({ field: at, message: 'must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z' });
      if (rule.format === 'email' && !isEmail(value)) out.push({ field: at, message: 'must be an e-mail address' });
      if (rule.format === 'int64' && !/^\d{1,19}$/.test(value)) out.push({ field: at, message: 'must be a numeric ID' });
      if (rule.format === 'uuid' && !isUuid(value)) out.push({ field: at, message: 'must be a UUID' });
      if (rule.format === 'http-url' && !isHttpUrl(value)) out.push({ field: at, message: 'must be an http(s) URL' });
      return;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return void out.push({ field: at, message: `must be a number, got ${typeName(value)}` });
      if (rule.integer && !Number.isInteger(value)) out.push({ field: at, message: 'must be an integer' });
      if (rule.positive && value <= 0) out.push({ field: at, message: 'must be greater than 0' });
      if (rule.min !== undefined && value < rule.min) out.push({ field: at, message: `must be at least ${rule.min}` });
      if (rule.max !== undefined && value > rule.max) out.push({ field: at, message: `must be at most ${rule.max}` });
      return;
    }
    case 'numeric': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
      if (!Number.isFinite(n)) return void out.push({ field: at, message: `must be a number (as a string), got ${JSON.stringify(value)}` });
      if (rule.min !== undefined && n < rule.min) out.push({ field: at, message: `must be at least ${rule.min}` });
      if (rule.max !== undefined && n > rule.max) out.push({ field: at, message: `must be at most ${rule.max}` });
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') out.push({ field: at, message: `must be true or false, got ${typeName(value)}` });
      return;
    case 'array': {
      if (!Array.isArray(value)) return void out.push({ field: at, message: `must be an array, got ${typeName(value)}` });
      if (rule.minItems !== undefined && value.length < rule.minItems) out.push({ field: at, message: `must contain at least ${rule.minItems} entries` });
      if (rule.maxItems !== undefined && value.length > rule.maxItems) out.push({ field: at, message: `must contain at most ${rule.maxItems} entries` });
      value.forEach((v, i) => check(v, rule.items, `${field}[${i}]`, out));
      return;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return void out.push({ field: at, message: `must be an object, got ${typeName(value)}` });
      const o = value as Record<string, unknown>;
      for (const name of rule.required ?? []) {
        if (o[name] === undefined || o[name] === null) out.push({ field: field ? `${field}.${name}` : name, message: 'is required' });
      }
      for (const [name, sub] of Object.entries(rule.props)) {
        const v = o[name];
        if (v === undefined) continue;
        if (v === null && !(rule.required ?? []).includes(name)) continue; // explicit null = not given
        check(v, sub, field ? `${field}.${name}` : name, out);
      }
      return;
    }
  }
}

/** Check a value and throw 400 with the first problem; returns the value typed as an object. */
export function validate(value: unknown, rule: Rule, field = ''): Record<string, any> {
  const issues: Issue[] = [];
  check(value, rule, field, issues);
  if (issues.length > 0) throw invalid(issues);
  return (value ?? {}) as Record<string, any>;
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Pagination

/** Build an absolute URL for this request with some query parameters replaced. */
export function pageUrl(req: SandboxRequest, changes: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  const replaced = new Set(Object.keys(changes));
  for (const [k, v] of req.query) if (!replaced.has(k)) params.append(k, v);
  for (const [k, v] of Object.entries(changes)) if (v !== undefined) params.set(k, v);
  const qs = params.toString();
  return `${req.baseUrl}${req.path}${qs ? `?${qs}` : ''}`;
}

export function selfUrl(req: SandboxRequest): string {
  return pageUrl(req, {});
}

export function encodeCursor(key: string): string {
  return Buffer.from(`cv1:${key}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith('cv1:') || Buffer.from(text, 'utf8').toString('base64url') !== cursor) {
    throw badRequest(`Invalid parameters: cursor ${JSON.stringify(cursor)} is not a cursor returned by this API`);
  }
  return text.slice(4);
}

export interface CursorPage<T> {
  page: T[];
  total: number;
  /** Cursor for the next page, undefined at the end. */
  next?: string;
}

/**
 * Cursor paging over a list ordered by a unique numeric key (increasing, or decreasing when
 * `descending`). The cursor names the key of the first element of the next page, so deletions
 * between calls do not skip anything.
 */
export function cursorPage<T>(list: readonly T[], keyOf: (t: T) => number, cursor: string | undefined, limit: number, descending = false): CursorPage<T> {
  let start = 0;
  if (cursor !== undefined && cursor !== '') {
    const key = Number(decodeCursor(cursor));
    if (!Number.isFinite(key)) throw badRequest('Invalid parameters: malformed cursor');
    start = list.findIndex((t) => (descending ? keyOf(t) <= key : keyOf(t) >= key));
    if (start < 0) start = list.length;
  }
  const page = list.slice(start, start + limit);
  const following = list[start + limit];
  return { page, total: list.length, ...(following !== undefined ? { next: encodeCursor(String(keyOf(following))) } : {}) };
}

/** Cursor-page response envelope `{ data, total, size, cursor?, limit, links }` for item-like lists. */
export function cursorEnvelope<T>(req: SandboxRequest, p: CursorPage<T>, limit: number, data: unknown[]): Record<string, unknown> {
  return {
    data,
    total: p.total,
    size: data.length,
    ...(p.next ? { cursor: p.next } : {}),
    limit,
    links: { self: selfUrl(req), ...(p.next ? { next: pageUrl(req, { cursor: p.next }) } : {}) },
  };
}

/** Offset-page response envelope `{ data, total, size, offset, limit, links, type }`. */
export function offsetEnvelope(req: SandboxRequest, total: number, offset: number, limit: number, data: unknown[]): Record<string, unknown> {
  const links: Record<string, string> = {
    self: selfUrl(req),
    first: pageUrl(req, { offset: '0', limit: String(limit) }),
    last: pageUrl(req, { offset: String(total === 0 ? 0 : Math.floor((total - 1) / limit) * limit), limit: String(limit) }),
  };
  if (offset + limit < total) links.next = pageUrl(req, { offset: String(offset + limit), limit: String(limit) });
  if (offset > 0) links.prev = pageUrl(req, { offset: String(Math.max(0, offset - limit)), limit: String(limit) });
  return { data, total, size: data.length, offset, limit, links, type: 'list' };
}

export function offsetParam(q: Query): number {
  return q.int('offset', { min: 0, def: 0 });
}

export const json = (status: number, body: unknown): SandboxResponse => ({ status, body });
export const noContent = (): SandboxResponse => ({ status: 204 });
