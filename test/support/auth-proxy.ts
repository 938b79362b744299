/**
 * A loopback reverse proxy that adds `Authorization: Bearer <server key>` to every request.
 *
 * For clients that cannot send custom headers (the official MCP conformance suite). Everything else
 * passes through as sent: method, path and query, body (streamed), and every request header in its
 * original spelling and order, Host and Origin included, so the real server's Host/Origin checks
 * (DNS-rebinding protection) judge exactly what the client sent. The proxy checks nothing itself.
 * Responses come back with their status and headers, streamed chunk by chunk (SSE included).
 */
import { createServer, request, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedExchange {
  method: string;
  /** Path and query as the client sent them (and as they were forwarded). */
  path: string;
  /** The Host and Origin headers as sent by the client and forwarded unchanged. */
  host: string | undefined;
  origin: string | undefined;
  /** The upstream's status; 502 when the upstream could not be reached. */
  status: number;
}

export interface AuthProxy {
  /** Base URL, e.g. `http://127.0.0.1:41234`; request paths are forwarded unchanged. */
  url: string;
  /** Every request forwarded so far, in the order its response headers arrived. */
  exchanges: ProxiedExchange[];
  close(): Promise<void>;
}

/** Headers that describe one connection, not the message (RFC 9110 section 7.6.1); Node sets its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** `rawHeaders` less the hop-by-hop ones (and, for requests, any Authorization), names spelled as received. */
function forwardable(rawHeaders: string[], dropAuthorization: boolean): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || (dropAuthorization && lower === 'authorization')) continue;
    kept.push(name, rawHeaders[i + 1]!);
  }
  return kept;
}

/**
 * Starts the proxy on an ephemeral loopback port. `upstream` is the origin of the real server
 * (`http://127.0.0.1:3000`); request paths are kept, so one proxy serves every endpoint of it.
 */
export async function startAuthProxy(upstream: string, serverKey: string): Promise<AuthProxy> {
  const target = new URL(upstream);
  if (target.protocol !== 'http:') throw new Error(`the proxy forwards to http:// only, not ${upstream}`);
  const exchanges: ProxiedExchange[] = [];

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const record = (status: number) =>
      exchanges.push({ method: req.method ?? 'GET', path: req.url ?? '/', host: req.headers.host, origin: req.headers.origin, status });
    const headers = [...forwardable(req.rawHeaders, true), 'Authorization', `Bearer ${serverKey}`];
    const upstreamRequest = request({
      host: target.hostname,
      port: target.port || 80,
      method: req.method,
      path: req.url,
      // An array keeps names as spelled and repeated headers as repeated; Host comes from the client.
      headers: headers as unknown as OutgoingHttpHeaders,
      setHost: false,
    });
    upstreamRequest.on('response', (upstreamResponse) => {
      record(upstreamResponse.statusCode ?? 502);
      res.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.statusMessage, forwardable(upstreamResponse.rawHeaders, false));
      // Headers go out at once, so a client waiting on an event stream sees it open before the first event.
      res.flushHeaders();
      upstreamResponse.pipe(res);
      upstreamResponse.on('error', () => res.destroy());
    });
    upstreamRequest.on('error', (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      record(502);
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `proxy: upstream unreachable: ${error.message}` }));
    });
    // A client that goes away (closing an event stream, say) closes the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstreamRequest.destroy();
    });
    req.pipe(upstreamRequest);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
