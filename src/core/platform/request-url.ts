/** The request URL's path and query: every value encoded so that it cannot change where the request goes. */
import { ToolError } from '../errors.js';

export type QueryScalar = string | number | boolean;
export type QueryValue = QueryScalar | readonly QueryScalar[];

const PLACEHOLDER = /\{([^{}]+)\}/g;
/** Path templates split once (the catalogue has a few hundred). */
const TEMPLATE_SEGMENTS = new Map<string, readonly string[]>();
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Substitutes `{name}` placeholders with percent-encoded values. Every character that could
 * change the path (`/`, `?`, `#`, `%`) is encoded, and a value forming a `.`/`..` segment is refused.
 */
export function buildPath(template: string, params: Record<string, string | number> = {}): string {
  let split = TEMPLATE_SEGMENTS.get(template);
  if (!split) {
    split = template.split('/');
    if (TEMPLATE_SEGMENTS.size >= 1024) TEMPLATE_SEGMENTS.clear();
    TEMPLATE_SEGMENTS.set(template, split);
  }
  const segments = split.map((segment) => {
    if (!segment.includes('{')) return segment;
    const used: string[] = [];
    const built = segment.replace(PLACEHOLDER, (_match, name: string) => {
      used.push(name);
      const value: unknown = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
      if (value === undefined || value === null) {
        throw ToolError.invalidParameter(name, 'is required (it is part of the request path)');
      }
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw ToolError.invalidParameter(name, 'must be a finite number');
      }
      if (typeof value !== 'string' && typeof value !== 'number') {
        throw ToolError.invalidParameter(name, 'must be a string or a number');
      }
      const text = String(value);
      if (text.trim() === '') throw ToolError.invalidParameter(name, 'must not be empty');
      try {
        return encodeURIComponent(text);
      } catch {
        throw ToolError.invalidParameter(name, 'contains invalid Unicode (an unpaired surrogate)');
      }
    });
    const first = used[0];
    if (first !== undefined && DOT_SEGMENT.test(built) && !DOT_SEGMENT.test(segment)) {
      throw ToolError.invalidParameter(first, 'must not be "." or ".." (that would change the request path)');
    }
    return built;
  });
  return segments.join('/');
}

function encodeQueryPart(text: string, parameter: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    throw ToolError.invalidParameter(parameter, 'contains invalid Unicode (an unpaired surrogate)');
  }
}

function formatQueryScalar(value: QueryScalar, parameter: string): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw ToolError.invalidParameter(parameter, 'must be a finite number');
    return String(value);
  }
  return value;
}

/**
 * `a=1&b=x%20y` without a leading `?` ('' when nothing is left). Undefined values are skipped,
 * arrays repeat the key verbatim (`statuses[]=a&statuses[]=b`), booleans become true/false.
 */
export function buildQueryString(query: Record<string, QueryValue | undefined> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    // Brackets stay literal so `statuses[]` reaches the platform exactly as written.
    const encodedKey = encodeQueryPart(key, key).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
    const values: readonly QueryScalar[] = Array.isArray(value) ? (value as readonly QueryScalar[]) : [value as QueryScalar];
    for (const item of values) {
      if (item === undefined || item === null) continue;
      parts.push(`${encodedKey}=${encodeQueryPart(formatQueryScalar(item, key), key)}`);
    }
  }
  return parts.join('&');
}
