/**
 * oidc-provider's `fetch`: every request the authorization server sends on a client's say-so
 * (its Client ID Metadata Document, a jwks_uri) goes out here, and nothing connects before the
 * address is known to be public. The host name is resolved once (every address it has, each
 * checked: special-use.ts), then the connection goes to the checked address itself, with TLS
 * SNI and the certificate check for the URL's host name: no second resolution that DNS
 * rebinding could change. https only, no redirect followed, 2.5 s for the whole exchange.
 *
 * Every failure (a special-use address, a name that does not resolve, a refused connection, a
 * bad certificate, a timeout) rejects with the same error, no sooner than 2.5 s after the
 * request began (the timeout, the longest a failure can take), so that neither the answer nor
 * its timing tells what lies at an address (docs/oauth.md).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../logger.js';
import { isSpecialUseAddress } from './special-use.js';

/** oidc-provider's own timeout for these requests; also the floor of every failure. */
export const OUTBOUND_TIMEOUT_MS = 2500;

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface OutboundFetchOptions {
  /** Every address of a host name (default: node:dns lookup, all of them). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Tests only: which addresses count as special-use (default: special-use.ts). */
  isSpecialUse?: (address: string) => boolean;
  /** Tests only: the certificate authorities to trust instead of Node's. */
  ca?: string;
  /** A failure answers no sooner than this after the request began (default OUTBOUND_TIMEOUT_MS). */
  failureFloorMs?: number;
  logger?: Logger;
  /** The incoming request being served (oidc-provider's ctx), within which a failed URL is not tried again. */
  requestScope?: () => object | undefined;
}

export type OutboundFetch = (url: string, init?: RequestInit) => Promise<Response>;

/** The one error every failure becomes (oidc-provider answers it "client_id metadata document fetch failed"). */
export class OutboundRequestFailed extends Error {
  constructor() {
    super('outbound request failed');
    this.name = 'OutboundRequestFailed';
  }
}

/** Why a request was not sent (logged, never answered). */
class Refused extends Error {}

interface Target {
  url: URL;
  /** The URL's host: an IP literal, or the name TLS checks the certificate against. */
  host: string;
  address: ResolvedAddress;
}

const resolveAll = (hostname: string): Promise<ResolvedAddress[]> => dnsLookup(hostname, { all: true });

export function createOutboundFetch(options: OutboundFetchOptions = {}): OutboundFetch {
  const resolve = options.resolve ?? resolveAll;
  const isSpecialUse = options.isSpecialUse ?? isSpecialUseAddress;
  const floorMs = options.failureFloorMs ?? OUTBOUND_TIMEOUT_MS;
  // Per incoming request, the URLs that failed in it: oidc-provider's authorization error path
  // loads the client a second time, which would otherwise wait the floor again (5 s in all).
  const failed = new WeakMap<object, Set<string>>();
  return async (input, init = {}) => {
    const started = performance.now();
    const scope = options.requestScope?.();
    const key = init.body === undefined || init.body === null ? `${(init.method ?? 'GET').toUpperCase()} ${input}` : undefined;
    if (scope && key !== undefined && failed.get(scope)?.has(key)) throw new OutboundRequestFailed();
    const signal = init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(OUTBOUND_TIMEOUT_MS)]) : AbortSignal.timeout(OUTBOUND_TIMEOUT_MS);
    let host = '';
    try {
      const url = new URL(input);
      host = url.host;
      const target = await checkedTarget(url, resolve, isSpecialUse, signal);
      return await requestPinned(target, init, signal, options.ca);
    } catch (error) {
      options.logger?.info({ host, reason: error instanceof Error ? error.message : String(error) }, 'Outbound OAuth request not completed');
      await delay(Math.max(0, started + floorMs - performance.now()));
      if (scope && key !== undefined) failed.set(scope, (failed.get(scope) ?? new Set()).add(key));
      throw new OutboundRequestFailed();
    }
  };
}

/** The address to connect to: the URL's own IP literal, or the first of the name's addresses, once every one is known to be public. */
async function checkedTarget(url: URL, resolve: (hostname: string) => Promise<ResolvedAddress[]>, isSpecialUse: (address: string) => boolean, signal: AbortSignal): Promise<Target> {
  if (url.protocol !== 'https:') throw new Refused('not an https URL');
  if (url.username || url.password) throw new Refused('the URL holds credentials');
  // The WHATWG URL already reads 127.1, 0x7f.1, 2130706433 and 0177.0.0.1 as 127.0.0.1.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await untilAborted(resolve(host), signal);
  if (addresses.length === 0) throw new Refused('the name has no address');
  if (addresses.some(({ address }) => isSpecialUse(address))) throw new Refused('the name has a special-use address');
  return { url, host, address: addresses[0] as ResolvedAddress };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/** Statuses whose answer has no body (the Response constructor refuses one). */
const NO_BODY = new Set([204, 205, 304]);

/** One request over a connection to the checked address only; TLS checks the certificate against the URL's host. */
function requestPinned(target: Target, init: RequestInit, signal: AbortSignal, ca: string | undefined): Promise<Response> {
  const { url, host, address } = target;
  // Net asks this for the name's address: it gets the checked one, never a fresh resolution.
  const pinned = ((_name: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (lookupOptions.all) callback(null, [address]);
    else callback(null, address.address, address.family);
  }) as unknown as LookupFunction;
  const method = (init.method ?? 'GET').toUpperCase();
  return new Promise<Response>((resolve, reject) => {
    const req = httpsRequest({
      host,
      port: url.port || 443,
      path: `${url.pathname}${url.search}`,
      method,
      headers: headersOf(init.headers),
      lookup: pinned,
      ...(isIP(host) ? {} : { servername: host }),
      agent: false,
      signal,
      ...(ca ? { ca } : {}),
    });
    req.once('error', reject);
    req.once('response', (res) => {
      try {
        resolve(responseOf(res, method, signal));
      } catch (error) {
        res.destroy();
        reject(error);
      }
    });
    req.end(bodyOf(init.body));
  });
}

function responseOf(res: IncomingMessage, method: string, signal: AbortSignal): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) throw new Refused(`status ${status}`);
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
  // The timeout covers the body too.
  signal.addEventListener('abort', () => res.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted')), { once: true });
  if (NO_BODY.has(status) || method === 'HEAD') {
    res.resume();
    return new Response(null, { status, headers });
  }
  return new Response(Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>, { status, headers });
}

function headersOf(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  // oidc-provider sends an empty user-agent to send none.
  for (const [name, value] of new Headers(headers)) if (value !== '') out[name] = value;
  return out;
}

function bodyOf(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new Refused('unsupported request body');
}
