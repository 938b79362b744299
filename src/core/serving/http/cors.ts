import type { IncomingMessage, ServerResponse } from 'node:http';
import { FULL_RECORDS_HEADER } from '../../tools/record-detail.js';
import { CHOICE_SOURCES } from '../../tools/request-choices.js';
import { CALLER_HEADER } from './caller-key.js';
import { isAllowedOrigin, type AllowedOrigins } from './origins.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Methods of the MCP Streamable HTTP transport (and of the routes beside it). */
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS'] as const;

/**
 * Request headers a browser client may send: the MCP transport's of both eras (the SDK client
 * sends mcp-protocol-version, mcp-session-id, last-event-id, and on 2026-07-28 mcp-method and
 * mcp-name; mcp-param-* ones are allowed by prefix below), the tool choice headers, and ours.
 */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'authorization',
  'content-type',
  'accept',
  'mcp-protocol-version',
  'mcp-session-id',
  'mcp-method',
  'mcp-name',
  'last-event-id',
  ...Object.values(CHOICE_SOURCES).map((source) => source.header),
  FULL_RECORDS_HEADER,
  REQUEST_ID_HEADER,
  CALLER_HEADER,
];

/** Response headers a browser client may read besides the CORS-safelisted ones. */
export const CORS_EXPOSED_HEADERS: readonly string[] = ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate', REQUEST_ID_HEADER];

/** How long a browser may reuse a preflight answer (seconds; browsers cap it at 2 h or less). */
export const CORS_MAX_AGE_SECONDS = 600;

/** `Mcp-Param-<Name>` headers (SEP-2243) carry tool arguments; their names depend on the tool. */
const MCP_PARAM_HEADER = /^mcp-param-[a-z0-9-]{1,64}$/;

const ALLOWED_METHODS_TEXT = CORS_ALLOWED_METHODS.join(', ');
const EXPOSED_HEADERS_TEXT = CORS_EXPOSED_HEADERS.join(', ');
const ALLOWED_HEADERS_TEXT = CORS_ALLOWED_HEADERS.join(', ');

export interface CorsPolicy {
  /**
   * Adds the CORS headers a request from an allowed origin needs, and answers its preflight.
   * Returns true when the request was answered (a preflight): nothing else may handle it then.
   * A request from any other origin is left untouched (the Origin check refuses it).
   */
  apply(req: IncomingMessage, res: ServerResponse): boolean;
}

/**
 * CORS for browser clients from the origins the server accepts (the same rules as its
 * DNS-rebinding Origin check). The origin is echoed, never `*`. No Access-Control-Allow-Credentials:
 * clients authenticate with an Authorization header, which needs none, and a page must never ride
 * on cookies. Preflights are answered without the server key, since browsers never send one.
 */
export function corsPolicy(allowed: AllowedOrigins): CorsPolicy {
  return {
    apply(req, res) {
      // Caches must not hand an answer made for one origin to another (or to a request without one).
      res.setHeader('vary', 'Origin');
      const origin = req.headers.origin;
      if (origin === undefined || !isAllowedOrigin(origin, allowed)) return false;
      res.setHeader('access-control-allow-origin', origin);
      const requestedMethod = req.headers['access-control-request-method'];
      if (req.method !== 'OPTIONS' || requestedMethod === undefined) {
        res.setHeader('access-control-expose-headers', EXPOSED_HEADERS_TEXT);
        return false;
      }
      res.setHeader('vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
      res.setHeader('access-control-allow-methods', ALLOWED_METHODS_TEXT);
      res.setHeader('access-control-allow-headers', allowedHeadersFor(req.headers['access-control-request-headers']));
      res.setHeader('access-control-max-age', String(CORS_MAX_AGE_SECONDS));
      // Chrome's Private Network Access: a page of an allowed origin may reach this server on a private address.
      if (req.headers['access-control-request-private-network'] === 'true') res.setHeader('access-control-allow-private-network', 'true');
      res.writeHead(204);
      res.end();
      return true;
    },
  };
}

/** The fixed list, plus any Mcp-Param-* headers the preflight asks for. */
function allowedHeadersFor(requested: string | undefined): string {
  if (!requested) return ALLOWED_HEADERS_TEXT;
  const params = requested
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => MCP_PARAM_HEADER.test(name));
  return params.length === 0 ? ALLOWED_HEADERS_TEXT : [ALLOWED_HEADERS_TEXT, ...new Set(params)].join(', ');
}
