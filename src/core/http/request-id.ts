import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId, withRequestId } from '../logger.js';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What an incoming ID may look like to be kept: short, and safe in headers and log lines. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The client's (or proxy's) X-Request-Id when it is short and safe; otherwise a fresh one. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : newRequestId();
}

/**
 * Handles one HTTP request under its request ID: the ID is sent back in `X-Request-Id` (whatever
 * the answer, errors included) and is on every log line written while the request is handled.
 */
export function handleWithRequestId(req: IncomingMessage, res: ServerResponse, handle: () => void): void {
  const id = requestIdFor(req);
  res.setHeader(REQUEST_ID_HEADER, id);
  withRequestId(id, handle);
}
