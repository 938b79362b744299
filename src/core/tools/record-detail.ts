import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingHttpHeaders } from 'node:http';
import { parseBoolean } from './selection.js';

/** The request header that asks for full records (or, with false, lean ones) for this request only. */
export const FULL_RECORDS_HEADER = 'x-toolservers-full-records';

/**
 * Whether one HTTP request asked for full records (X-Toolservers-Full-Records), carried through
 * everything it awaits. Undefined: the request did not say, and the server's own setting holds.
 */
const requested = new AsyncLocalStorage<boolean>();

export function withRequestedFullRecords<T>(fullRecords: boolean | undefined, work: () => T): T {
  return fullRecords === undefined ? work() : requested.run(fullRecords, work);
}

export function requestedFullRecords(): boolean | undefined {
  return requested.getStore();
}

/** The header's answer; a value other than true or false is refused (SelectionError, HTTP 400). */
export function fullRecordsFromHeaders(headers: IncomingHttpHeaders): boolean | undefined {
  const value = headers[FULL_RECORDS_HEADER];
  return parseBoolean(Array.isArray(value) ? value.join(',') : value, 'The X-Toolservers-Full-Records header');
}
