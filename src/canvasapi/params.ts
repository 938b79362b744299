/** Builds each CanvasApi tool's zod input schema from its catalogue parameters. */
import { DateTime } from 'luxon';
import { z } from 'zod';
import type { CanvasFormat, CanvasParam } from './catalogue-types.js';

const EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;
const UTC_DATETIME_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UTC_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isUrl(value: string, schemes: readonly string[]): boolean {
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Returns a problem description, or undefined when the value has the format. */
export function checkFormat(format: CanvasFormat, value: string, bounds: { min?: number; max?: number } = {}): string | undefined {
  switch (format) {
    case 'uuid':
      return UUID.test(value) ? undefined : `must be a UUID such as "9b2c5f1e-3d4a-4c8e-9f00-1a2b3c4d5e6f" (got ${JSON.stringify(value)})`;
    case 'email':
      return EMAIL.test(value) ? undefined : `must be an e-mail address such as "ana@example.com" (got ${JSON.stringify(value)})`;
    case 'comma-emails': {
      const bad = value.split(',').map((part) => part.trim()).filter((part) => !EMAIL.test(part));
      return bad.length ? `must be comma-separated e-mail addresses; not an e-mail: ${bad.map((b) => JSON.stringify(b)).join(', ')}` : undefined;
    }
    case 'utc-datetime-ms':
      return UTC_DATETIME_MS.test(value) && DateTime.fromISO(value).isValid
        ? undefined
        : `must be an ISO 8601 UTC date-time with milliseconds and a trailing Z, e.g. "2026-01-31T09:30:00.000Z" (got ${JSON.stringify(value)})`;
    case 'utc-datetime':
      return UTC_DATETIME.test(value) && DateTime.fromISO(value).isValid
        ? undefined
        : `must be an ISO 8601 UTC date-time ending in Z, e.g. "2026-01-31T09:30:00Z" (got ${JSON.stringify(value)})`;
    case 'date':
      return DATE.test(value) && DateTime.fromISO(value).isValid ? undefined : `must be a calendar date as YYYY-MM-DD, e.g. "2026-01-31" (got ${JSON.stringify(value)})`;
    case 'https-url':
      return isUrl(value, ['https:']) ? undefined : `must be an absolute https:// URL (got ${JSON.stringify(value)})`;
    case 'http-url':
      return isUrl(value, ['http:', 'https:']) ? undefined : `must be an absolute http:// or https:// URL (got ${JSON.stringify(value)})`;
    case 'integer-text': {
      const range = rangeText(bounds);
      if (!/^\d+$/.test(value.trim())) return `must be a whole number${range ? ` ${range}` : ''}, as text or a number, e.g. "${bounds.min ?? 10}" (got ${JSON.stringify(value)})`;
      const n = Number(value);
      if ((bounds.min !== undefined && n < bounds.min) || (bounds.max !== undefined && n > bounds.max)) return `must be ${range} (got ${JSON.stringify(value)})`;
      return undefined;
    }
  }
}

function rangeText(bounds: { min?: number; max?: number }): string {
  if (bounds.min !== undefined && bounds.max !== undefined) return `from ${bounds.min} to ${bounds.max}`;
  if (bounds.min !== undefined) return `at least ${bounds.min}`;
  if (bounds.max !== undefined) return `at most ${bounds.max}`;
  return '';
}

function withFormat(schema: z.ZodString, param: CanvasParam): z.ZodType<string> {
  const format = param.format;
  if (!format) return schema;
  return schema.superRefine((value, ctx) => {
    const problem = checkFormat(format, value, param);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
}

/**
 * What a schema is for: `validate` checks calls and forgives harmless variations (a number where
 * the contract has integer text, an object where it has JSON text); `advertise` is what tools/list
 * shows, with the contract's own types.
 */
export type SchemaPurpose = 'validate' | 'advertise';

function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Integer text that also takes a JSON number; the value passed on is always the text. */
function integerText(param: CanvasParam): z.ZodType {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: 'is required' });
        return;
      }
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value : undefined;
      const problem = text === undefined ? `must be a whole number, as text or a number (got ${describeValue(value)})` : checkFormat('integer-text', text, param);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((value) => String(value).trim());
}

/** A request body given as JSON text, or (forgiven) as the JSON object or array itself. */
function jsonBody(): z.ZodType {
  return z.unknown().superRefine((value, ctx) => {
    if (typeof value === 'string') {
      if (value.trim() === '') ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    } else if (typeof value !== 'object' || value === null) {
      ctx.addIssue({ code: 'custom', message: `must be a JSON string (an object or array is accepted too) (got ${describeValue(value)})` });
    }
  });
}

function enumSchema(param: CanvasParam & { enum: readonly string[] }, purpose: SchemaPurpose): z.ZodType {
  const values = z.enum(param.enum as [string, ...string[]]);
  // A blank filter means "no filter" where the contract says so; the listing keeps the plain enum.
  if (param.blankMeansAll && purpose === 'validate') return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), values.optional());
  return values;
}

function baseSchema(param: CanvasParam, purpose: SchemaPurpose): z.ZodType {
  switch (param.type) {
    case 'boolean':
      return z.boolean();
    case 'number':
    case 'integer': {
      let schema = param.type === 'integer' ? z.number().int() : z.number();
      // Page sizes state their range in words, as the ones typed as text do; calls are checked either way.
      if (purpose === 'advertise' && param.to === 'query:limit') return schema;
      if (param.min !== undefined) schema = schema.min(param.min);
      if (param.max !== undefined) schema = schema.max(param.max);
      return schema;
    }
    case 'string[]': {
      const item = param.format ? withFormat(z.string().trim().min(1), param) : z.string().trim().min(1);
      let schema = z.array(item);
      if (param.maxItems !== undefined) schema = schema.max(param.maxItems);
      return param.required ? schema.min(1) : schema;
    }
    case 'string': {
      if (param.enum) return enumSchema({ ...param, enum: param.enum }, purpose);
      if (purpose === 'validate' && param.format === 'integer-text') return integerText(param);
      if (purpose === 'validate' && param.to === 'body') return jsonBody();
      // Identifiers and free text alike: an empty string is never meaningful to the platform.
      const text = z.string().trim().min(1);
      return withFormat(param.maxLength !== undefined ? text.max(param.maxLength) : text, param);
    }
  }
}

/**
 * The tool's input schema: strict (unknown parameters are errors), defaults only from the contract.
 * `advertise` gives the schema tools/list shows (the contract's types); `validate`, the one calls go through.
 */
export function inputSchemaFor(params: readonly CanvasParam[], purpose: SchemaPurpose = 'validate'): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const param of params) {
    let schema = baseSchema(param, purpose);
    if (param.default !== undefined) schema = schema.default(param.default as never);
    else if (!param.required) schema = schema.optional();
    shape[param.name] = schema.describe(param.description);
  }
  return z.strictObject(shape);
}
