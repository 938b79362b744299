/**
 * Which browser origins the server accepts (the DNS-rebinding Origin check and CORS share it).
 * An operator names an origin in either of two spellings:
 * - a full origin, `https://app.example.com` or `http://app.example.com:8080`: exactly that
 *   scheme, host and port (a default port may be written or left out);
 * - a bare host name, `app.example.com`: that host over http or https on any port.
 * Anything else (a path, a query, a wildcard, credentials, another scheme) is refused at start.
 */

export interface AllowedOrigins {
  /** Host names accepted with any scheme and port (as the URL parser spells them: lowercase, IPv6 in brackets). */
  readonly hostnames: ReadonlySet<string>;
  /** Serialized origins accepted exactly (`URL.origin`: scheme, host, port). */
  readonly origins: ReadonlySet<string>;
}

const WEB_SCHEMES = new Set(['http:', 'https:']);
/** A DNS name or IPv4 address (letters, digits, hyphens, dots), or an IPv6 address in brackets. */
const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]{2,45}\])$/i;
const EXAMPLES = 'a full origin such as https://app.example.com or http://app.example.com:8080, or a bare host name such as app.example.com';

/**
 * The accepted origins from the operator's values, checked. Throws one line naming the first value
 * that is neither spelling and what is allowed.
 */
export function allowedOriginsFrom(values: readonly string[]): AllowedOrigins {
  const hostnames = new Set<string>();
  const origins = new Set<string>();
  for (const value of values) {
    const rule = allowedOriginRule(value);
    if ('origin' in rule) origins.add(rule.origin);
    else hostnames.add(rule.hostname);
  }
  return { hostnames, origins };
}

/** One value as a rule, or an Error whose message names the value and the allowed spellings. */
export function allowedOriginRule(value: string): { origin: string } | { hostname: string } {
  const trimmed = value.trim();
  const refuse = (why: string): never => {
    throw new Error(`--allowed-origin ${JSON.stringify(value.slice(0, 200))}: ${why}; give ${EXAMPLES}.`);
  };
  if (trimmed === '') refuse('empty');
  if (!trimmed.includes('://')) {
    if (!HOST_NAME.test(trimmed)) refuse(/[:/]/.test(trimmed) ? 'a host with a port or path needs its scheme, as a full origin' : 'not a host name');
    return { hostname: new URL(`http://${trimmed}`).hostname };
  }
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return refuse('not a valid origin');
  }
  if (!WEB_SCHEMES.has(url.protocol)) refuse(`the scheme ${url.protocol.slice(0, -1)} is not http or https`);
  if (url.username || url.password) refuse('an origin has no user name or password');
  // An origin is scheme, host and port: a trailing slash is tolerated, any path, query or fragment is not.
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(trimmed) || !/^[a-z]+:\/\/[^/]+\/?$/i.test(trimmed)) refuse('an origin has no path, query or fragment');
  if (!HOST_NAME.test(url.hostname) || url.hostname.includes('*')) refuse('not a host name');
  return { origin: url.origin };
}

/** Whether a request's Origin header names an accepted origin. */
export function isAllowedOrigin(originHeader: string, allowed: AllowedOrigins): boolean {
  let url: URL;
  try {
    url = new URL(originHeader);
  } catch {
    return false;
  }
  if (url.hostname === '') return false;
  return allowed.origins.has(url.origin) || (WEB_SCHEMES.has(url.protocol) && allowed.hostnames.has(url.hostname));
}
