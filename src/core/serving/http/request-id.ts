import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId, type Logger } from '../../logger.js';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What an incoming ID may look like to be kept: short, and safe in headers and log lines. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The client's (or proxy's) X-Request-Id when it is short and safe; otherwise a fresh one. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : newRequestId();
}

/**
 * Gives one HTTP request its ID: sent back in `X-Request-Id` (whatever the answer, errors
 * included), and set on the request itself, where the MCP handler reads it for the tool call's log
 * lines (registry.ts) and `requestLog` for the HTTP layer's.
 */
export function handleWithRequestId(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  const id = requestIdFor(req);
  res.setHeader(REQUEST_ID_HEADER, id);
  req.headers[REQUEST_ID_HEADER] = id;
  handle();
}

/** The logger for lines about this HTTP request: they carry its `request_id`. */
export function requestLog(logger: Logger, req: IncomingMessage): Logger {
  const id = req.headers[REQUEST_ID_HEADER];
  return typeof id === 'string' ? logger.child({ request_id: id }) : logger;
}
