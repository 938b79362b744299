/** Builds each CanvasApi tool's zod input schema from its catalogue parameters. */
import { z } from 'zod';
import { cappedArray, cappedString, genericCap, INPUT_LIMITS, int64Id, pathId, previewValue, withStringCap } from '../core/tools/schema.js';
import { checkJsonText, checkJsonValue } from './body-validation.js';
import type { CanvasFormat, CanvasParam } from './catalogue-types.js';

// Every format check is linear in its input and refuses an over-long value before any other work:
// the regular expressions below are anchored, with bounded repetition or a single character class,
// so they cannot backtrack; e-mail addresses are checked by hand (the regex they replaced,
// /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/, took time quadratic in the length of the domain part).
const UTC_DATETIME_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UTC_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?Z)?$/;

/**
 * Epoch ms of a date (UTC midnight) or UTC date-time in the shapes above; undefined when it names
 * no real instant (February 30, hour 25). UTC only, so plain Date arithmetic is exact (no zone library needed).
 */
export function utcMillis(value: string): number | undefined {
  const parts = DATE_PARTS.exec(value);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const ms = Number(((parts[7] ?? '') + '000').slice(0, 3));
  // ISO 8601's 24:00 is the end of the day: the next day's midnight (and nothing past it).
  const endOfDay = hour === 24 && minute === 0 && second === 0 && ms === 0;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(endOfDay ? 0 : hour, minute, second, ms);
  const same = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && date.getUTCHours() === (endOfDay ? 0 : hour) && date.getUTCMinutes() === minute && date.getUTCSeconds() === second;
  return same ? date.getTime() + (endOfDay ? 86_400_000 : 0) : undefined;
}
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGITS = /^\d+$/;
/** Characters an e-mail address (as the platform takes it) never contains: one class, one pass. */
const NOT_IN_EMAIL = /[\s@,;]/;

/** RFC 5321: the longest address mail can be delivered to. */
export const EMAIL_MAX_CHARS = 254;
/** "Up to 10 comma-separated e-mails" (the contract), each with a comma and a space. */
export const COMMA_EMAILS_MAX_CHARS = 10 * (EMAIL_MAX_CHARS + 2);

/** The longest value each format can have; anything longer is refused before it is looked at. */
export const FORMAT_MAX_CHARS: Readonly<Record<CanvasFormat, number>> = {
  uuid: 36,
  email: EMAIL_MAX_CHARS,
  'comma-emails': COMMA_EMAILS_MAX_CHARS,
  'utc-datetime-ms': 24,
  'utc-datetime': 30,
  date: 10,
  'https-url': INPUT_LIMITS.textChars,
  'http-url': INPUT_LIMITS.textChars,
  'integer-text': INPUT_LIMITS.identifierChars,
};

/**
 * The maximum length a format's parameter declares: a fixed-size format (UUID, dates) takes the
 * generic identifier cap, so a near miss is told what the format looks like; the others their longest value.
 */
function schemaCapOf(format: CanvasFormat): number {
  return format === 'uuid' || format === 'date' || format.startsWith('utc-') ? INPUT_LIMITS.identifierChars : FORMAT_MAX_CHARS[format];
}

/** `local@domain.tld`: one @, something before it, a dot inside the domain, no blanks, commas or semicolons. Linear. */
export function isEmail(value: string): boolean {
  if (value.length > EMAIL_MAX_CHARS) return false;
  const at = value.indexOf('@');
  if (at <= 0 || NOT_IN_EMAIL.test(value.slice(0, at))) return false;
  const domain = value.slice(at + 1);
  if (NOT_IN_EMAIL.test(domain)) return false;
  const dot = domain.indexOf('.', 1);
  return dot > 0 && dot < domain.length - 1;
}

function isUrl(value: string, schemes: readonly string[]): boolean {
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** What a format asks for, in words (used when a value is refused). */
const FORMAT_WANTED: Readonly<Record<Exclude<CanvasFormat, 'integer-text'>, string>> = {
  uuid: 'a UUID such as "9b2c5f1e-3d4a-4c8e-9f00-1a2b3c4d5e6f"',
  email: 'an e-mail address such as "ana@example.com"',
  'comma-emails': 'comma-separated e-mail addresses',
  'utc-datetime-ms': 'an ISO 8601 UTC date-time with milliseconds and a trailing Z, e.g. "2026-01-31T09:30:00.000Z"',
  'utc-datetime': 'an ISO 8601 UTC date-time ending in Z, e.g. "2026-01-31T09:30:00Z"',
  date: 'a calendar date as YYYY-MM-DD, e.g. "2026-01-31"',
  'https-url': 'an absolute https:// URL',
  'http-url': 'an absolute http:// or https:// URL',
};

/** Returns a problem description, or undefined when the value has the format. Never echoes more than a short preview. */
export function checkFormat(format: CanvasFormat, value: string, bounds: { min?: number; max?: number } = {}): string | undefined {
  const got = `(got ${previewValue(value)})`;
  const longest = FORMAT_MAX_CHARS[format];
  if (value.length > longest) {
    const wanted = format === 'integer-text' ? 'a whole number' : FORMAT_WANTED[format];
    return `must be ${wanted}, at most ${longest} characters long (got ${value.length} characters: ${previewValue(value)})`;
  }
  switch (format) {
    case 'uuid':
      return UUID.test(value) ? undefined : `must be ${FORMAT_WANTED.uuid} ${got}`;
    case 'email':
      return isEmail(value) ? undefined : `must be ${FORMAT_WANTED.email} ${got}`;
    case 'comma-emails': {
      const bad = value.split(',').map((part) => part.trim()).filter((part) => !isEmail(part));
      if (!bad.length) return undefined;
      const shown = bad.slice(0, 5).map((b) => previewValue(b)).join(', ');
      return `must be comma-separated e-mail addresses; not an e-mail: ${shown}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}`;
    }
    case 'utc-datetime-ms':
      return UTC_DATETIME_MS.test(value) && utcMillis(value) !== undefined ? undefined : `must be ${FORMAT_WANTED['utc-datetime-ms']} ${got}`;
    case 'utc-datetime':
      return UTC_DATETIME.test(value) && utcMillis(value) !== undefined ? undefined : `must be ${FORMAT_WANTED['utc-datetime']} ${got}`;
    case 'date':
      return DATE.test(value) && utcMillis(value) !== undefined ? undefined : `must be ${FORMAT_WANTED.date} ${got}`;
    case 'https-url':
      return isUrl(value, ['https:']) ? undefined : `must be ${FORMAT_WANTED['https-url']} ${got}`;
    case 'http-url':
      return isUrl(value, ['http:', 'https:']) ? undefined : `must be ${FORMAT_WANTED['http-url']} ${got}`;
    case 'integer-text': {
      const range = rangeText(bounds);
      if (!DIGITS.test(value.trim())) return `must be a whole number${range ? ` ${range}` : ''}, as text or a number, e.g. "${bounds.min ?? 10}" ${got}`;
      const n = Number(value);
      if ((bounds.min !== undefined && n < bounds.min) || (bounds.max !== undefined && n > bounds.max)) return `must be ${range} ${got}`;
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
    // An over-long value has been reported by the length check: the format is not looked at.
    if (value.length > (param.maxLength ?? schemaCapOf(format))) return;
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
  return previewValue(value);
}

/** Integer text that also takes a JSON number; the value passed on is always the text. */
function integerText(param: CanvasParam): z.ZodType {
  return withStringCap(z.unknown(), FORMAT_MAX_CHARS['integer-text'])
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

/**
 * A request body given as JSON text, or (forgiven) as the JSON object or array itself; either way
 * at most INPUT_LIMITS.jsonTextBytes of JSON nested at most INPUT_LIMITS.depth levels, measured
 * before anything parses or validates it.
 */
function jsonBody(): z.ZodType {
  const checked = z.unknown().superRefine((value, ctx) => {
    if (typeof value === 'string') {
      if (value.trim() === '') ctx.addIssue({ code: 'custom', message: 'must not be empty' });
      else {
        const problem = checkJsonText(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }
    } else if (typeof value !== 'object' || value === null) {
      ctx.addIssue({ code: 'custom', message: `must be a JSON string (an object or array is accepted too) (got ${describeValue(value)})` });
    } else {
      const problem = checkJsonValue(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
  });
  return withStringCap(checked, INPUT_LIMITS.jsonTextBytes);
}

function enumSchema(param: CanvasParam & { enum: readonly string[] }, purpose: SchemaPurpose): z.ZodType {
  let values: z.ZodType = z.enum(param.enum as [string, ...string[]]);
  const platformOnly = param.setByPlatform ?? [];
  if (platformOnly.length && purpose === 'validate') {
    const settable = param.enum.filter((value) => !platformOnly.includes(value));
    values = values.refine((value) => !platformOnly.includes(value as string), {
      message: `${platformOnly.map((v) => `"${v}"`).join(', ')} is set by the platform itself, which refuses it from callers; set one of ${settable.map((v) => `"${v}"`).join(', ')}`,
    });
  }
  // A blank filter means "no filter" where the contract says so; the listing keeps the plain enum.
  if (param.blankMeansAll && purpose === 'validate') return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), values.optional());
  return values;
}

/**
 * A non-empty string (an empty string is never meaningful to the platform) with its maximum length:
 * the platform's limit where the catalogue states one (advertised); else, for calls only, the
 * format's longest value, or the generic cap of INPUT_LIMITS (identifier for path and query
 * values, text for body fields).
 */
function boundedText(param: CanvasParam, purpose: SchemaPurpose): z.ZodString {
  const text = z.string().trim().min(1);
  if (param.maxLength !== undefined) return text.max(param.maxLength, { abort: true });
  if (purpose === 'advertise') return text;
  if (param.format) return genericCap(text.max(schemaCapOf(param.format), { abort: true }));
  return cappedString(param.to.startsWith('body') ? 'text' : 'identifier', text);
}

/** Where a board ID goes: there a link to the board is read as its ID. */
const BOARD_ID_TARGETS: readonly string[] = ['path:board_id', 'body:boardId', 'body:boardIds', 'query:board_ids', 'query:copy_from'];

/** The platform's own web domain: its board links are read on it and on every subdomain, whatever the base URL. */
export const PLATFORM_WEB_DOMAIN = 'miro.com';

/** Where board links are read: a host (with its port), any subdomain of it too or not, and the path the web app sits under. */
interface LinkHost {
  host: string;
  subdomains: boolean;
  pathPrefix: string;
}

/**
 * The web hosts of the platforms configured in this process (normally one), from their API base
 * URLs: the base URL's own host and path (the sandbox serves its boards' viewLink there), and for
 * an `api.` host the domain under it (api.miro.com -> miro.com). Read at call time, since the
 * tools' schemas are shared by every server of the process; a few at most, the newest kept.
 */
const configuredLinkHosts = new Map<string, LinkHost>();
const MAX_CONFIGURED_LINK_HOSTS = 16;

/** Reads board links on the web host of this API base URL too (called for each CanvasApi server made). */
export function readBoardLinksOn(baseUrl: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return; // settings have checked it; nothing to add
  }
  const hosts: LinkHost[] = [{ host: url.host.toLowerCase(), subdomains: false, pathPrefix: url.pathname.replace(/\/+$/, '') }];
  if (url.hostname.toLowerCase().startsWith('api.')) hosts.push({ host: url.host.toLowerCase().slice(4), subdomains: true, pathPrefix: '' });
  for (const linkHost of hosts) {
    const key = `${linkHost.host}${linkHost.pathPrefix}|${linkHost.subdomains}`;
    configuredLinkHosts.delete(key);
    configuredLinkHosts.set(key, linkHost);
    if (configuredLinkHosts.size > MAX_CONFIGURED_LINK_HOSTS) configuredLinkHosts.delete(configuredLinkHosts.keys().next().value as string);
  }
}

function linkHosts(): LinkHost[] {
  return [{ host: PLATFORM_WEB_DOMAIN, subdomains: true, pathPrefix: '' }, ...configuredLinkHosts.values()];
}

/** The hosts board links are read on, in words (for the refusal of any other link). */
export function boardLinkHostsText(): string {
  const named = linkHosts().map((h) => (h.subdomains ? `${h.host} (and its subdomains)` : `${h.host}${h.pathPrefix}`));
  return [...new Set(named)].join(', ');
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** Text without a scheme is taken for a link when its first segment is a host: a dot or a port in it (miro.com/..., 127.0.0.1:4000/...). Linear. */
function startsWithHost(text: string): boolean {
  const first = text.slice(0, text.indexOf('/'));
  return /[.:]/.test(first) && !/[\s?#@]/.test(first);
}
/** The board's part of a link's path, after the web app's own prefix. */
const BOARD_PATH = /^\/app\/(?:board|live-embed)\/([^/]{1,200})(?:\/|$)/i;

function hostMatches(linkHost: LinkHost, host: string): boolean {
  return host === linkHost.host || (linkHost.subdomains && host.endsWith(`.${linkHost.host}`));
}

/**
 * What a board-ID value means: the value itself (an ID, or text that is no link), or the board ID
 * of a board link on the platform's web host, or a problem for a link the server does not read.
 */
export function readBoardLink(text: string): { id: string } | { problem: string } {
  if (!text.includes('/')) return { id: text }; // an ID never contains "/": the common case costs one scan
  const hasScheme = SCHEME.test(text);
  if (!hasScheme && !startsWithHost(text)) return { id: text }; // not a link: left for the ID checks to refuse
  const hosts = `board links are read on ${boardLinkHostsText()}; otherwise pass the board ID itself (the code after /app/board/ in the link)`;
  let url: URL;
  try {
    url = new URL(hasScheme ? text : `https://${text}`);
  } catch {
    return { problem: `is not a link that can be read (got ${previewValue(text)}): ${hosts}` };
  }
  const host = url.host.toLowerCase();
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: `is a ${url.protocol} link, not a board link (got ${previewValue(text)}): ${hosts}` };
  const matching = linkHosts().filter((linkHost) => hostMatches(linkHost, host));
  if (!matching.length) return { problem: `is a link on ${host}, which is not the platform's web host: ${hosts}` };
  for (const linkHost of matching) {
    const path = url.pathname;
    if (linkHost.pathPrefix && !path.startsWith(`${linkHost.pathPrefix}/`)) continue;
    const board = BOARD_PATH.exec(path.slice(linkHost.pathPrefix.length));
    if (!board) continue;
    try {
      return { id: decodeURIComponent(board[1] as string) };
    } catch {
      return { problem: `has a board ID with a broken %-escape (got ${previewValue(text)})` };
    }
  }
  const example = `${host}${(matching[0] as LinkHost).pathPrefix}/app/board/<board ID>/`;
  return { problem: `is a link on ${host} but not to a board: a board link there looks like ${example} (got ${previewValue(text)}); otherwise pass the board ID itself` };
}

/** A transform for a board-ID field: a board link on the platform's web host is its board ID; a link elsewhere is refused, naming the hosts read. */
export function boardIdFromLink(text: string, ctx: z.core.$RefinementCtx<string>): string {
  const read = readBoardLink(text);
  if ('id' in read) return read.id;
  ctx.addIssue({ code: 'custom', message: read.problem });
  return z.NEVER;
}

/**
 * A string for a path, query or body field, with what the field means read in: a board link is
 * its board ID where a board ID goes; a path ID that cannot be one is refused before anything is sent.
 */
function idText(param: CanvasParam, text: z.ZodType<string>): z.ZodType<string> {
  const read = BOARD_ID_TARGETS.includes(param.to) ? text.transform(boardIdFromLink) : text;
  return param.to.startsWith('path:') ? pathId(read) : read;
}

function baseSchema(param: CanvasParam, purpose: SchemaPurpose): z.ZodType {
  switch (param.type) {
    case 'boolean':
      return z.boolean();
    case 'number':
    case 'integer': {
      if (param.int64 && purpose === 'validate') return int64Id();
      let schema = param.type === 'integer' ? z.number().int() : z.number();
      // Page sizes state their range in words, as the ones typed as text do; calls are checked either way.
      if (purpose === 'advertise' && param.to === 'query:limit') return schema;
      if (param.min !== undefined) schema = schema.min(param.min);
      if (param.max !== undefined) schema = schema.max(param.max);
      return schema;
    }
    case 'string[]': {
      const text = withFormat(boundedText(param, purpose), param);
      const item = purpose === 'validate' ? idText(param, text) : text;
      // The platform's own item limit is advertised; the generic cap only guards calls.
      let schema = param.maxItems === undefined && purpose === 'validate' ? cappedArray(item) : z.array(item);
      if (param.maxItems !== undefined) schema = schema.max(param.maxItems);
      return param.required ? schema.min(1) : schema;
    }
    case 'string': {
      if (param.enum) return enumSchema({ ...param, enum: param.enum }, purpose);
      if (purpose === 'validate' && param.format === 'integer-text') return integerText(param);
      if (purpose === 'validate' && param.to === 'body') return jsonBody();
      const text = withFormat(boundedText(param, purpose), param);
      return purpose === 'validate' ? idText(param, text) : text;
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

/**
 * Where the platform's web app opens boards, from its API base URL, as board links are read
 * (readBoardLinksOn): an `api.` host's domain (https://api.miro.com -> https://miro.com), else the
 * base URL itself (the sandbox serves its viewLink there).
 */
export function boardWebBase(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (url.hostname.toLowerCase().startsWith('api.')) return `${url.protocol}//${url.host.slice(4)}`;
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return `https://${PLATFORM_WEB_DOMAIN}`;
  }
}

/** A link to a board focused on one item, `{item_id}` to fill in: stated once per answer, the item IDs already listed. */
export function itemLinkTemplate(webBase: string | undefined, boardId: string): string {
  return `${webBase ?? `https://${PLATFORM_WEB_DOMAIN}`}/app/board/${encodeURIComponent(boardId).replace(/%3D/g, '=')}/?moveToWidget={item_id}`;
}
