/** The HTTP layer's own answers: JSON bodies, and the one way a failed request is logged and answered 500. */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../logger.js';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * Logs a request that failed on the server's side and answers 500, or, when its answer has
 * begun, ends it. `fields`: the log line's (never the error's stack or a secret).
 */
export function answerInternalError(log: Logger, res: ServerResponse, fields: Record<string, unknown>, message: string): void {
  log.error(fields, message);
  if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
  else res.end();
}

/** An error as one line for the log: its message, never its stack. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
