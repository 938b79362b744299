/**
 * One request through the incident platform emulator, in the order api.ts documents:
 * authentication, routing (404, 405), the required headers, then the route's handler; the
 * platform's errors become their status and error body.
 */
import type { SandboxRequest, SandboxResponse } from '../exchange.js';
import { authenticate, checkHeaders } from './access.js';
import { RawJson } from './listing.js';
import { Renderer } from './render.js';
import { ApiError, invalid, notFound, Query, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

export type Handler = (ctx: RequestContext, params: string[]) => unknown;

export type Route = { pattern: RegExp; handler: Handler };

export function dispatch(state: IncidentOpsState, routes: readonly Route[], request: SandboxRequest): SandboxResponse {
  try {
    const userId = authenticate(request.headers['authorization'], state.token, state.verifyToken, state.data.demoUserId);
    if (userId instanceof ApiError) throw userId;
    for (const route of routes) {
      const m = route.pattern.exec(request.path);
      if (!m) continue;
      const params = pathParams(m);
      if (request.method !== 'GET') {
        return {
          status: 405,
          headers: { allow: 'GET' },
          body: { error: { message: 'Method Not Allowed', code: 2001, errors: [`The sandbox serves only GET on ${request.path}.`] } },
        };
      }
      checkHeaders(request.headers);
      const body = route.handler(requestContext(state, request, userId), params);
      if (body instanceof RawJson) return { status: 200, text: body.text, headers: { 'content-type': 'application/json; charset=utf-8' } };
      return { status: 200, body };
    }
    throw notFound();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, body: err.toBody() };
    if (err instanceof RangeError) return { status: 400, body: invalid(err.message).toBody() };
    throw err;
  }
}

/** The route's captured path segments, decoded; a malformed escape is a 404. */
function pathParams(match: RegExpExecArray): string[] {
  try {
    return match.slice(1).map((p) => decodeURIComponent(p));
  } catch {
    throw notFound();
  }
}

/** What a handler reads of its request: the user, the query, the clock's now and one renderer per time zone. */
function requestContext(state: IncidentOpsState, request: SandboxRequest, userId: string): RequestContext {
  const { data } = state;
  const now = state.clock().getTime();
  const renderers = new Map<string | null, Renderer>();
  return {
    data,
    userId,
    q: new Query(request.query),
    baseUrl: request.baseUrl,
    now,
    renderer(zone) {
      let r = renderers.get(zone);
      if (!r) {
        r = new Renderer({ data, baseUrl: request.baseUrl, zone });
        renderers.set(zone, r);
      }
      return r;
    },
  };
}
