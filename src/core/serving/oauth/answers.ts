/**
 * The layer's own answers that are not pages: JSON, a Web Response handed over from the SDK, and
 * the answer to a store that does not answer (an outage to wait out: 503 with Retry-After).
 */
import type { ServerResponse } from 'node:http';
import { StoreUnavailableError } from '../../store/store.js';
import { sendErrorPage } from './pages.js';

/** Seconds a client is asked to wait when the store does not answer (its commands time out after 2 s). */
export const STORE_RETRY_AFTER_S = 2;
export const STORE_DOWN = 'The sign-in store of this server is not answering; nothing was changed. Try again in a few seconds.';

/** JSON that no cache keeps (`cache-control: no-store`): every answer of the OAuth layer. */
export function sendUncachedJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** A store that is down or too slow: an outage to wait out, not a fault of the request or of this server. */
export function isStoreFailure(error: unknown): boolean {
  return error instanceof StoreUnavailableError || (error as { name?: unknown } | undefined)?.name === 'StoreUnavailableError';
}

export function sendStoreUnavailable(res: ServerResponse, page: boolean): void {
  if (res.headersSent) return void res.end();
  if (page) sendErrorPage(res, 503, 'Try again in a moment', STORE_DOWN, { 'retry-after': String(STORE_RETRY_AFTER_S) });
  else sendUncachedJson(res, 503, { error: 'temporarily_unavailable', error_description: STORE_DOWN }, { 'retry-after': String(STORE_RETRY_AFTER_S) });
}
