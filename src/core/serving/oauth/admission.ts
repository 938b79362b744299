/**
 * What the open endpoints of the authorization server let in, so that nobody without a
 * credential can grow the store or the process without bound:
 *
 *  - per-address rate limits on registration, authorization requests and failed token requests,
 *    counted in the SharedStore (fixed windows), so every replica applies the same count;
 *  - a cap on the registration body, checked on its declared length before anything is read;
 *  - caps and rules for client metadata (redirect URIs, names, other strings and lists), applied
 *    by oidc-provider's client schema to registered clients and metadata documents alike.
 *
 * A registered client that never completes an authorization expires (adapter.ts keeps it once a
 * grant is saved for it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { errors as providerErrors } from 'oidc-provider';
import type { Logger } from '../../logger.js';
import type { SharedStore } from '../../store/store.js';

export interface AdmissionLimits {
  /** Registrations (POST /oauth/reg) per client address and window. */
  registrations: number;
  /** Authorization requests (/oauth/auth) per client address and window; each may leave an unfinished sign-in for 10 minutes. */
  authorizations: number;
  /** Refused token requests (/oauth/token answered 4xx) per client address and window. */
  tokenFailures: number;
  windowMs: number;
  /** How long a registered client is kept when no authorization is ever completed with it. */
  unusedClientTtlMs: number;
}

export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  registrations: 30,
  authorizations: 60,
  tokenFailures: 30,
  windowMs: 10 * 60_000,
  unusedClientTtlMs: 24 * 3600_000,
};

export const CLIENT_METADATA_LIMITS = {
  /** The whole registration request, in bytes. */
  bodyBytes: 8 * 1024,
  redirectUris: 10,
  uriLength: 2000,
  clientNameLength: 100,
  /** Any other string field. */
  stringLength: 2000,
  /** Any other list (contacts, grant_types, …). */
  listItems: 10,
} as const;

/** Schemes a browser runs or reads locally instead of handing to an app: never a redirect target. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:', 'about:', 'filesystem:', 'view-source:']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function refuse(message: string): never {
  // oidc-provider answers invalid_redirect_uri for messages about redirect_uris, invalid_client_metadata otherwise.
  throw new providerErrors.InvalidClientMetadata(message);
}

/** Why a redirect URI is refused, or undefined when it is acceptable. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > CLIENT_METADATA_LIMITS.uriLength) return `is ${uri.length} characters long; at most ${CLIENT_METADATA_LIMITS.uriLength} are allowed`;
  const url = URL.parse(uri);
  if (!url) return 'is not an absolute URI';
  if (url.username || url.password) return 'must not carry a user name or password (user:password@)';
  if (uri.includes('#')) return 'must not contain a fragment (#)';
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol.slice(0, -1)} scheme`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return 'uses http, which is allowed only on loopback (127.0.0.1, [::1], localhost); use https';
  return undefined;
}

/**
 * Checks client metadata against the caps and redirect rules; throws oidc-provider's
 * invalid_client_metadata / invalid_redirect_uri naming the field and the limit. A client that
 * registers a private-use scheme redirect (cursor://…) is a native app, so it is made one
 * (oidc-provider's default type, web, refuses such schemes).
 */
export function checkClientMetadata(metadata: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(metadata)) {
    if (typeof value === 'string') {
      const limit = field === 'client_name' ? CLIENT_METADATA_LIMITS.clientNameLength : field.endsWith('_uri') ? CLIENT_METADATA_LIMITS.uriLength : CLIENT_METADATA_LIMITS.stringLength;
      if (value.length > limit) refuse(`${field} is ${value.length} characters long; at most ${limit} are allowed`);
    } else if (Array.isArray(value) && field !== 'redirect_uris') {
      if (value.length > CLIENT_METADATA_LIMITS.listItems) refuse(`${field} has ${value.length} entries; at most ${CLIENT_METADATA_LIMITS.listItems} are allowed`);
      for (const item of value) {
        if (typeof item === 'string' && item.length > CLIENT_METADATA_LIMITS.stringLength) refuse(`each entry of ${field} may have at most ${CLIENT_METADATA_LIMITS.stringLength} characters`);
      }
    }
  }
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris)) return;
  if (uris.length > CLIENT_METADATA_LIMITS.redirectUris) refuse(`redirect_uris has ${uris.length} entries; at most ${CLIENT_METADATA_LIMITS.redirectUris} are allowed`);
  uris.forEach((uri, index) => {
    if (typeof uri !== 'string') return; // oidc-provider's own type check names it
    const problem = redirectUriProblem(uri);
    if (problem) refuse(`redirect_uris[${index}] ${problem}`);
  });
  const privateUse = uris.filter((uri): uri is string => typeof uri === 'string' && !/^https?:/i.test(uri));
  if (privateUse.length > 0) metadata.application_type = 'native';
}

/** An IPv6 address reduced to its /64 network (one subscriber usually holds a whole /64). */
function ipv6Network(address: string): string {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

function normalizeAddress(raw: string): string {
  let address = raw.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4) address = address.slice(7);
  const kind = isIP(address);
  if (kind === 4) return address;
  if (kind === 6) return ipv6Network(address);
  return 'unknown';
}

/**
 * The address a request is counted against: the socket's peer, or with `trustedProxies` > 0 the
 * entry of X-Forwarded-For that the outermost trusted proxy appended (the ones left of it are
 * whatever the client sent, so they are never used).
 */
export function clientAddress(req: IncomingMessage, trustedProxies: number): string {
  const peer = req.socket.remoteAddress ?? '';
  if (trustedProxies <= 0) return normalizeAddress(peer);
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  const chain = [...forwarded, peer];
  return normalizeAddress(chain[Math.max(0, chain.length - 1 - trustedProxies)] ?? peer);
}

type Counted = 'registrations' | 'authorizations' | 'tokenFailures';

const WHAT: Record<Counted, string> = {
  registrations: 'client registrations',
  authorizations: 'authorization requests',
  tokenFailures: 'refused token requests',
};

export interface Admission {
  /** Answers the request itself (429, 400, 411) and returns false when it is not let in. */
  admit(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

export function createAdmission(store: SharedStore, limits: AdmissionLimits, trustedProxies: number, logger: Logger): Admission {
  const windowOf = (now: number) => Math.floor(now / limits.windowMs);
  const counterKey = (what: Counted, address: string, window: number) => `oauth:admission:${what}:${address}:${window}`;

  function tooMany(res: ServerResponse, what: Counted, now: number): false {
    const retryAfterS = Math.max(1, Math.ceil(((windowOf(now) + 1) * limits.windowMs - now) / 1000));
    const minutes = Math.round(limits.windowMs / 60_000);
    sendError(res, 429, 'temporarily_unavailable', `Too many ${WHAT[what]} from this address: at most ${limits[what]} every ${minutes} minutes. Try again in ${retryAfterS} s.`, { 'retry-after': String(retryAfterS) });
    return false;
  }

  /** Counts the request; false (answered 429) once the address is past its limit. */
  async function counted(res: ServerResponse, what: Counted, address: string): Promise<boolean> {
    const now = Date.now();
    const count = await store.increment(counterKey(what, address, windowOf(now)), limits.windowMs);
    return count <= limits[what] || tooMany(res, what, now);
  }

  async function admit(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const address = clientAddress(req, trustedProxies);
    // As oidc-provider's router sees it: no fragment, any case, trailing slashes ignored.
    const route = (URL.parse(req.url ?? '/', 'http://route')?.pathname ?? '').toLowerCase().replace(/\/+$/, '');
    try {
      if (route === '/oauth/reg' && req.method === 'POST') {
        if (!(await counted(res, 'registrations', address))) return false;
        return registrationBodyAllowed(req, res);
      }
      if (route === '/oauth/auth') return await counted(res, 'authorizations', address);
      if (route === '/oauth/token' && req.method === 'POST') {
        const now = Date.now();
        const key = counterKey('tokenFailures', address, windowOf(now));
        if (Number((await store.get(key)) ?? 0) >= limits.tokenFailures) return tooMany(res, 'tokenFailures', now);
        res.once('finish', () => {
          if (res.statusCode >= 400 && res.statusCode < 500) store.increment(key, limits.windowMs).catch(() => undefined);
        });
      }
      return true;
    } catch (error) {
      // The store is down: every OAuth step needs it anyway and fails on its own; the limits do not add an outage.
      logger.warn({ path: route, err: error instanceof Error ? error.message : String(error) }, 'OAuth rate limit not checked: the store did not answer');
      return true;
    }
  }

  return { admit };
}

/** Registration bodies are read by oidc-provider only after this: declared, and small. */
function registrationBodyAllowed(req: IncomingMessage, res: ServerResponse): boolean {
  const declared = req.headers['content-length'];
  if (declared === undefined) {
    sendError(res, 411, 'invalid_request', `A registration request must declare its Content-Length (at most ${CLIENT_METADATA_LIMITS.bodyBytes} bytes).`);
    return false;
  }
  const length = Number(declared);
  if (!Number.isSafeInteger(length) || length > CLIENT_METADATA_LIMITS.bodyBytes) {
    sendError(res, 400, 'invalid_client_metadata', `The client metadata is ${declared} bytes; at most ${CLIENT_METADATA_LIMITS.bodyBytes} bytes are allowed.`);
    return false;
  }
  return true;
}

function sendError(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  // The unread body is not worth reading: close the connection after this answer.
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', connection: 'close', ...headers });
  res.end(JSON.stringify({ error, error_description: description }));
}
