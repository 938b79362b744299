/**
 * What the sandbox host remembers of each request, for tests and inspection: its platform, method,
 * path, query, headers and body, with every credential and secret replaced by '[redacted]'.
 */
import type { IncomingMessage } from 'node:http';
import { redactPairs, redactSecrets } from './oauth.js';

export interface RecordedRequest {
  platform: 'incidentops' | string;
  method: string;
  /** Path after the platform prefix, raw (percent-encoded). */
  path: string;
  /** Decoded query pairs in order, keys verbatim; values of secret parameters (`code`, `access_token`, ...) are '[redacted]'. */
  query: [string, string][];
  /** Lower-cased names; the credential in `authorization` is replaced by '[redacted]' (the scheme is kept). */
  headers: Record<string, string>;
  /** Response status; 0 while the request is still being handled. */
  status: number;
  /**
   * The request body parsed as JSON (JSON content type) or as a form (`application/x-www-form-urlencoded`,
   * as an object; a repeated field keeps its last value); absent otherwise. Values of secret
   * properties (`clientSecret`, `accessToken`, `client_secret`, `code`, `code_verifier`,
   * `access_token`, `refresh_token`, `token`, ...) are '[redacted]' at any depth.
   */
  body?: unknown;
  /** A JSON body exactly as received (every digit of an int64), when it carries no secret property (else only the redacted `body`). */
  bodyText?: string;
}

/** Requests the sandbox remembers for tests and inspection (the oldest are forgotten past this). */
export const MAX_RECORDED_REQUESTS = 100_000;

/** Replace the credential but keep its scheme, e.g. 'Bearer [redacted]', 'Token token=[redacted]'. */
export function redactAuthorization(value: string): string {
  const token = /^(\s*token\s+token=)/i.exec(value);
  if (token) return `${token[1]}[redacted]`;
  const scheme = /^(\s*[A-Za-z][A-Za-z0-9_-]*\s+)\S/.exec(value);
  if (scheme) return `${scheme[1]}[redacted]`;
  return '[redacted]';
}

/** Lower-cased header names; a repeated header's values joined with ', '. */
export function collectHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The request as it arrived, redacted, appended to `requests` (status 0 until answered); the newest MAX_RECORDED_REQUESTS are kept. */
export function recordRequest(requests: RecordedRequest[], platform: string, method: string, path: string, query: [string, string][], headers: Record<string, string>): RecordedRequest {
  const recordedHeaders = { ...headers };
  if (recordedHeaders.authorization !== undefined) recordedHeaders.authorization = redactAuthorization(recordedHeaders.authorization);
  const record: RecordedRequest = { platform, method, path, query: redactPairs(query), headers: recordedHeaders, status: 0 };
  requests.push(record);
  // A long-running sandbox keeps the newest records only, so its memory stays bounded.
  if (requests.length > MAX_RECORDED_REQUESTS) requests.splice(0, requests.length - MAX_RECORDED_REQUESTS * 0.9);
  return record;
}

/** The body as JSON or form fields when the content type says so and it parses, secrets redacted; undefined otherwise (never throws). */
function parseBodyForRecord(contentType: string | undefined, body: Buffer): unknown {
  if (body.length === 0 || !contentType) return undefined;
  if (/^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
    return redactSecrets(Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  }
  if (!/^\s*application\/([\w.+-]*\+)?json\s*(;|$)/i.test(contentType)) return undefined;
  try {
    return redactSecrets(JSON.parse(body.toString('utf8')) as unknown);
  } catch {
    return undefined;
  }
}

/** Adds the parsed, redacted body to the record, and the text as sent when it is JSON with no secret in it. */
export function recordBody(record: RecordedRequest, contentType: string | undefined, body: Buffer): void {
  const parsed = parseBodyForRecord(contentType, body);
  if (parsed === undefined) return;
  record.body = parsed;
  // Nothing redacted (so no secret in it) and JSON: kept as sent.
  if (/json/i.test(contentType ?? '') && !JSON.stringify(parsed).includes('"[redacted]"')) record.bodyText = body.toString('utf8');
}
