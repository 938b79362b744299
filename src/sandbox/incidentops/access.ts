/**
 * Who may ask, and how: the credential a request presents (the static token, or a live OAuth user
 * token the identity service vouches for) and the headers the spec requires on every call.
 */
import type { TokenVerification } from '../oauth.js';
import { ApiError, invalid } from './request.js';

export const ACCEPT_MEDIA_TYPE = 'application/vnd.pagerduty+json;version=2';

export function parseMediaType(value: string): { essence: string; params: Map<string, string> } {
  const [head, ...rest] = value.split(';');
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"|"$/g, ''));
  }
  return { essence: (head ?? '').trim().toLowerCase(), params };
}

/** The user the request acts as, or the 401 to answer. */
export function authenticate(header: string | undefined, token: string, verify: ((token: string) => TokenVerification) | undefined, demoUserId: string): string | ApiError {
  const failed = (reason?: string) => new ApiError(401, 2006, 'Authentication failed', reason === undefined ? undefined : [reason]);
  if (!header) return failed();
  const bearer = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) {
    const presented = bearer[1] as string;
    if (presented === token) return demoUserId;
    const v = verify?.(presented);
    if (v?.status === 'valid' && v.user !== undefined) return v.user;
    if (v?.status === 'expired') return failed('The OAuth access token has expired; refresh it.');
    if (v?.status === 'revoked') return failed('The OAuth access token has been revoked.');
    return failed();
  }
  const apiKey = /^\s*Token\s+token=(\S+)\s*$/i.exec(header);
  if (apiKey && apiKey[1] === token) return demoUserId;
  return failed();
}

/** Throws the 400 when Accept does not list the API's version 2 or Content-Type is not JSON. */
export function checkHeaders(headers: Record<string, string>): void {
  const accept = headers['accept'];
  const acceptOk =
    accept !== undefined &&
    accept.split(',').some((entry) => {
      const m = parseMediaType(entry);
      return m.essence === 'application/vnd.pagerduty+json' && m.params.get('version') === '2';
    });
  const contentType = headers['content-type'];
  const contentTypeOk = contentType !== undefined && parseMediaType(contentType).essence === 'application/json';
  const errors: string[] = [];
  if (!acceptOk) errors.push(`The Accept header must be "${ACCEPT_MEDIA_TYPE}" (got ${accept === undefined ? 'none' : JSON.stringify(accept)}).`);
  if (!contentTypeOk) errors.push(`The Content-Type header must be "application/json" (got ${contentType === undefined ? 'none' : JSON.stringify(contentType)}).`);
  if (errors.length > 0) throw invalid(...errors);
}
