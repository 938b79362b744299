/**
 * What every HTTP request goes through before it is routed (whatever its route, routes added later
 * included), once its request ID is set: the Host and Origin checks that stop DNS-rebinding
 * attacks, CORS, then the probes, which answer here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../logger.js';
import { answerInternalError, errorText, sendJson } from './answers.js';
import type { CorsPolicy } from './cors.js';
import { isAllowedOrigin, type AllowedOrigins } from './origins.js';
import type { Probes } from './probes.js';
import { requestLog } from './request-id.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];
/** Loopback host names as an Origin spells them (IPv6 in brackets). */
export const LOOPBACK_ORIGIN_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Host names a request may name: the loopback ones, the address served on (unless loopback or every address), and the operator's. */
export function allowedHostNames(servedOn: string, extra: readonly string[] = []): string[] {
  return [...LOOPBACK_NAMES, ...(isLoopbackHost(servedOn) || servedOn === '0.0.0.0' || servedOn === '::' ? [] : [servedOn]), ...extra];
}

/** What admission needs, made once at start. */
export interface AdmissionGate {
  logger: Logger;
  /** The Host check (the SDK's guard): false when it has answered the request itself (403). */
  validateHost: (req: IncomingMessage, res: ServerResponse) => boolean;
  origins: AllowedOrigins;
  cors: CorsPolicy;
  probes: Probes;
}

/**
 * True when the request may be routed; false when it has been answered: refused for its Host or
 * Origin, a CORS preflight, or a probe. Probes skip the Host check: orchestrators probe by address
 * (Host: 10.0.0.7:3000), and the probes reveal nothing a DNS-rebinding page could use.
 */
export function admitRequest(gate: AdmissionGate, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const probePath = path === '/health' || path === '/ready';
  if ((!probePath && !gate.validateHost(req, res)) || !checkOrigin(gate.origins, req, res)) {
    requestLog(gate.logger, req).warn({ path, host: req.headers.host, origin: req.headers.origin }, 'rejected request: Host or Origin not allowed');
    return false;
  }
  if (gate.cors.apply(req, res)) return false;
  if (path === '/health') {
    gate.probes.health(res);
    return false;
  }
  if (path === '/ready') {
    gate.probes.ready(res, requestLog(gate.logger, req)).catch((error: unknown) => answerInternalError(requestLog(gate.logger, req), res, { err: errorText(error) }, 'request failed'));
    return false;
  }
  return true;
}

/** A request without an Origin (not from a browser) or from an accepted one passes; any other is answered 403. */
export function checkOrigin(origins: AllowedOrigins, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || origin === '' || isAllowedOrigin(origin, origins)) return true;
  sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: 'Origin not allowed' }, id: null });
  return false;
}
