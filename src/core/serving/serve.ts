import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { Logger } from '../logger.js';
import { corsPolicy } from './http/cors.js';
import { allowedOriginsFrom, isAllowedOrigin } from './http/origins.js';
import { probes, storeReadiness, type ReadinessCheck } from './http/probes.js';
import { handleWithRequestId, requestLog } from './http/request-id.js';
import type { SharedStore } from '../store/store.js';
import { fullRecordsFromHeaders, withRequestedFullRecords } from '../tools/record-detail.js';
import { runAs } from '../platform/request-identity.js';
import { MIN_SERVER_KEY_LENGTH } from '../signin/server-key.js';
import type { OAuthLayer } from './oauth/layer.js';
import { mcpServerFactory, viewFor, type AnyToolServer, type ToolView, type ViewOptions } from '../tools/registry.js';
import { CHOICE_SOURCES, requestViewOptions } from '../tools/request-choices.js';
import { SelectionError } from '../tools/names.js';

export interface HttpMount {
  /**
   * URL path of the MCP endpoint, e.g. `/mcp` or `/incidentops/mcp`. Segments inserted before the
   * final `/mcp` choose a profile or name style per URL (`/canvasapi/readonly/mcp`).
   */
  path: string;
  server: AnyToolServer;
  /** The operator's choice of names and tools; a request can only narrow the tools further. */
  view?: ViewOptions;
}

export interface HttpServeOptions {
  host: string;
  port: number;
  mounts: HttpMount[];
  logger: Logger;
  /** Server-key mode: every MCP request must carry `Authorization: Bearer <serverKey>` (same as `auth: { kind: 'key' }`). */
  serverKey?: string;
  /** How MCP requests authenticate: the one server key, or OAuth (per-user MCP tokens; the key is not used). */
  auth?: HttpAuth;
  /** Extra hostnames accepted in the Host header (loopback names are always accepted). */
  allowedHosts?: string[];
  /**
   * Extra origins accepted in the Origin header (loopback origins are always accepted): full
   * origins (`https://app.example.com:8443`, matched exactly) or bare host names (any scheme and port).
   * A value that is neither throws at start.
   */
  allowedOrigins?: string[];
  /** The shared store, when one is configured: `/ready` fails while it does not answer `ping()`. */
  store?: SharedStore;
  /** More conditions `/ready` requires (e.g. the OAuth keys loaded). */
  readinessChecks?: ReadinessCheck[];
  /**
   * Prometheus metrics at `/metrics` (prom-client is loaded only then). `key`: a bearer key
   * /metrics requires (TOOLSERVERS_METRICS_KEY); without one /metrics is open like /health.
   */
  metrics?: { key?: string };
  /** Timeouts and the connection cap (defaults: `DEFAULT_HTTP_LIMITS`, the cap from TOOLSERVERS_MAX_CONNECTIONS). */
  limits?: Partial<HttpLimits>;
  /** Where TOOLSERVERS_MAX_CONNECTIONS is read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * What a slow or greedy client may hold (docs/operations.md, "Connections and slow clients"). The
 * timeouts cover receiving a request only: the answer, however long a tool call takes, is not cut.
 */
export interface HttpLimits {
  /** Time to receive a request's headers, from the connection or the end of the previous answer's idle wait. */
  headersTimeoutMs: number;
  /** Time to receive the whole request, headers and body. */
  requestTimeoutMs: number;
  /** Idle time after an answer before a keep-alive connection is closed. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; a connection beyond it is closed as soon as it is accepted. */
  maxConnections: number;
}

export const MAX_CONNECTIONS_ENV = 'TOOLSERVERS_MAX_CONNECTIONS';

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  // A real client sends its headers in one packet; 10 s leaves room for a slow link, not for slowloris.
  headersTimeoutMs: 10_000,
  // MCP requests are small (arguments are capped at a few hundred KB); 30 s is a very slow upload.
  requestTimeoutMs: 30_000,
  // Above the idle timeout of load balancers (nginx, cloud LBs: 60 s), so that one never sends a
  // request onto a connection this server is closing.
  keepAliveTimeoutMs: 65_000,
  maxConnections: 1000,
};

/** Largest request head (request line and headers); a larger one is answered 431. Node's default, set so no runtime flag changes it. */
const MAX_HEADER_BYTES = 16 * 1024;
/** How often Node looks for requests past their timeouts: a cut comes at most this late. */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;
/** Refused connections are logged at most this often (a flood must not flood the log). */
const DROP_LOG_INTERVAL_MS = 10_000;

/** The limits in force: options, else the environment (the cap), else the defaults; refused with the reason when invalid. */
export function httpLimits(given: Partial<HttpLimits> = {}, env: NodeJS.ProcessEnv = process.env): HttpLimits {
  const fromEnv = env[MAX_CONNECTIONS_ENV]?.trim();
  let maxConnections = given.maxConnections ?? DEFAULT_HTTP_LIMITS.maxConnections;
  if (given.maxConnections === undefined && fromEnv) {
    maxConnections = Number(fromEnv.replace(/_/g, ''));
    if (!Number.isSafeInteger(maxConnections) || maxConnections < 1) {
      throw new Error(`${MAX_CONNECTIONS_ENV} must be a whole number of at least 1 (got "${fromEnv.slice(0, 40)}"); unset it for the default (${DEFAULT_HTTP_LIMITS.maxConnections}).`);
    }
  }
  const limits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...given, maxConnections };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`HTTP limit ${name} must be a whole number of at least 1, got ${String(value)}.`);
  }
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) {
    throw new Error(`HTTP limit requestTimeoutMs (${limits.requestTimeoutMs}) must not be shorter than headersTimeoutMs (${limits.headersTimeoutMs}): the headers are part of the request.`);
  }
  return limits;
}

/** `keyLocation`: where the server's user finds the key (a file, a variable), told to clients that send a wrong one; never the key. */
export type HttpAuth = { kind: 'key'; serverKey: string; keyLocation?: string } | { kind: 'oauth'; layer: OAuthLayer };

export interface RunningHttpServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** Full MCP endpoint URL per mount path. */
  endpoints: { path: string; url: string; server: AnyToolServer }[];
  http: Server;
  close(): Promise<void>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];
/** Loopback host names as an Origin spells them (IPv6 in brackets). */
const LOOPBACK_ORIGIN_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Stateless Streamable HTTP: a fresh server instance per request from the same factory, so
 * 2026-07-28 clients and 2025-era clients (through the SDK's stateless legacy leg) share one endpoint.
 * Host and Origin headers are checked before anything but the probes to stop DNS-rebinding attacks.
 * Every answer carries X-Request-Id, and answers to allowed browser origins carry CORS headers.
 */
export async function serveOverHttp(options: HttpServeOptions): Promise<RunningHttpServer> {
  const { logger } = options;
  const hosts = [...LOOPBACK_NAMES, ...(isLoopbackHost(options.host) || options.host === '0.0.0.0' || options.host === '::' ? [] : [options.host]), ...(options.allowedHosts ?? [])];
  const origins = allowedOriginsFrom([...LOOPBACK_ORIGIN_HOSTS, ...(options.allowedOrigins ?? [])]);
  const limits = httpLimits(options.limits, options.env);
  const auth: HttpAuth = options.auth ?? { kind: 'key', serverKey: options.serverKey ?? '' };
  if (auth.kind === 'key' && auth.serverKey.length < MIN_SERVER_KEY_LENGTH) throw new Error(`The server key must be at least ${MIN_SERVER_KEY_LENGTH} characters long.`);
  const keyDigest = auth.kind === 'key' ? digest(auth.serverKey) : undefined;
  const keyLocation = auth.kind === 'key' && auth.keyLocation ? `It expects ${auth.keyLocation}.` : 'It expects the key its operator configured.';
  const oauth = auth.kind === 'oauth' ? auth.layer : undefined;
  // The Node HTTP adapter (and the web framework under it) loads only when serving HTTP: stdio starts without it.
  const { hostHeaderValidation, toNodeHandler } = await import('@modelcontextprotocol/node');
  const validateHost = hostHeaderValidation(hosts);
  const validateOrigin = (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    if (origin === undefined || origin === '' || isAllowedOrigin(origin, origins)) return true;
    sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: 'Origin not allowed' }, id: null });
    return false;
  };

  // Fail at start, not at the first request, when the operator's own choice names unknown tools.
  for (const mount of options.mounts) viewFor(mount.server, mount.view);
  // The view of a request that chooses nothing (no segments, query or choice headers): the same
  // view requestViewOptions would lead to, looked up once instead of per request.
  const plainViews = new Map<HttpMount, ToolView>(options.mounts.map((mount) => [mount, viewFor(mount.server, requestViewOptions(mount.view ?? {}, [], '', {}))]));
  const choiceHeaders = Object.values(CHOICE_SOURCES).map((source) => source.header);
  const choosesNothing = (req: IncomingMessage, segments: readonly string[]): boolean =>
    segments.length === 0 && !(req.url ?? '').includes('?') && choiceHeaders.every((name) => req.headers[name] === undefined);
  const handlers = new WeakMap<ToolView, ReturnType<typeof toNodeHandler>>();
  const handlerFor = (view: ToolView, path: string) => {
    let handler = handlers.get(view);
    if (!handler) {
      handler = toNodeHandler(
        createMcpHandler(mcpServerFactory(view), {
          onerror: (error) => logger.debug({ path, err: error.message }, 'MCP request rejected'),
        }),
      );
      handlers.set(view, handler);
    }
    return handler;
  };

  const cors = corsPolicy(origins);
  // OAuth mode cannot sign anyone in or refresh a token without writing to the store; key mode serves every call without it.
  const storeCheck = options.store ? [storeReadiness(options.store, oauth ? { needsWrites: true } : { optional: true })] : [];
  const probe = probes([...storeCheck, ...(options.readinessChecks ?? [])]);
  const metrics = options.metrics ? await import('./metrics.js').then((module) => ({ module, running: module.startMetrics(), key: options.metrics?.key })) : undefined;

  /**
   * What every request goes through, whatever its route (routes added later included), once its
   * request ID is set: the Host and Origin checks, CORS, then the probes. True when it may be routed.
   */
  const admit = (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    // Probes skip the Host check: orchestrators probe by address (Host: 10.0.0.7:3000), and the
    // probes reveal nothing a DNS-rebinding page could use.
    const probePath = path === '/health' || path === '/ready';
    if ((!probePath && !validateHost(req, res)) || !validateOrigin(req, res)) {
      requestLog(logger, req).warn({ path, host: req.headers.host, origin: req.headers.origin }, 'rejected request: Host or Origin not allowed');
      return false;
    }
    if (cors.apply(req, res)) return false;
    if (path === '/health') {
      probe.health(res);
      return false;
    }
    if (path === '/ready') {
      probe.ready(res, requestLog(logger, req)).catch((error: unknown) => failed(req, res, error));
      return false;
    }
    return true;
  };

  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    requestLog(logger, req).error({ err: error instanceof Error ? error.message : String(error) }, 'request failed');
    if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
    else res.end();
  };

  /** Routes beside the MCP endpoints; true when it answered. */
  const routeOperations = (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (path === '/metrics' && metrics) {
      metrics.module.serveMetrics(metrics.running, req, res, metrics.key).catch((error: unknown) => failed(req, res, error));
      return true;
    }
    return false;
  };

  /** The MCP endpoints: the server key, or in OAuth mode the layer's routes and bearer check. */
  const routeMcp = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    if (oauth) {
      void serveWithOAuth(oauth, req, res, path);
      return;
    }
    const match = matchMount(options.mounts, path);
    if (!match) return notFound(res, path);
    const authProblem = checkServerKey(req.headers.authorization, keyDigest as Buffer);
    if (authProblem) {
      requestLog(logger, req).warn({ path, reason: authProblem }, 'rejected request: missing or wrong server key');
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': authProblem === 'missing' ? 'Bearer realm="toolservers"' : 'Bearer realm="toolservers", error="invalid_token"',
      });
      const problem = authProblem === 'missing' ? 'This server needs "Authorization: Bearer <server key>".' : 'The server key sent is not this server\'s.';
      res.end(JSON.stringify({ error: `${problem} ${keyLocation}` }));
      return;
    }
    serveMcp(req, res, path, match);
  };

  /** OAuth mode: the layer's own routes, else the bearer check, then the MCP request as that user. */
  const serveWithOAuth = async (layer: OAuthLayer, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    try {
      if (await layer.handle(req, res)) return;
      const match = matchMount(options.mounts, path);
      if (!match) return notFound(res, path);
      const identity = await layer.authenticate(req, res);
      if (!identity) return;
      runAs(identity, () => serveMcp(req, res, path, match));
    } catch (error) {
      requestLog(logger, req).error({ path, err: error instanceof Error ? error.message : String(error) }, 'request failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.end();
    }
  };

  const notFound = (res: ServerResponse, path: string): void =>
    sendJson(res, 404, { error: `No MCP endpoint at ${path}. Endpoints: ${options.mounts.map((mount) => mount.path).join(', ')} (a profile may be inserted before /mcp, e.g. /readonly/mcp)` });

  const serveMcp = (req: IncomingMessage, res: ServerResponse, path: string, match: { mount: HttpMount; segments: string[] }): void => {
    // The client's key or token is for this server only: it must never reach a platform.
    delete req.headers.authorization;
    let view: ToolView;
    let fullRecords: boolean | undefined;
    try {
      fullRecords = fullRecordsFromHeaders(req.headers);
      const plain = choosesNothing(req, match.segments) ? plainViews.get(match.mount) : undefined;
      view = plain ?? viewFor(match.mount.server, requestViewOptions(match.mount.view ?? {}, match.segments, req.url ?? '', req.headers));
    } catch (error) {
      if (!(error instanceof SelectionError)) throw error;
      sendJson(res, 400, { error: error.message });
      return;
    }
    withRequestedFullRecords(fullRecords, () => handlerFor(view, path)(req, res)).catch((error: unknown) => {
      requestLog(logger, req).error({ path, err: error instanceof Error ? error.message : String(error) }, 'MCP request failed');
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.end();
    });
  };

  const http = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    (req: IncomingMessage, res: ServerResponse) =>
      handleWithRequestId(req, res, () => {
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        if (!admit(req, res, path)) return;
        if (routeOperations(req, res, path)) return;
        routeMcp(req, res, path);
      }),
  );
  http.maxConnections = limits.maxConnections;
  // Node closes a connection past the cap without a word; the operator should hear of it.
  let dropped = 0;
  let droppedLoggedAt = Number.NEGATIVE_INFINITY;
  http.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - droppedLoggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn({ dropped, maxConnections: limits.maxConnections }, `refused connections: ${limits.maxConnections} are open (${MAX_CONNECTIONS_ENV})`);
    dropped = 0;
    droppedLoggedAt = now;
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const displayHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${displayHost}:${address.port}`;
  await oauth?.start(url);
  return {
    url,
    endpoints: options.mounts.map((mount) => ({ path: mount.path, url: `${url}${mount.path}`, server: mount.server })),
    http,
    close: () =>
      new Promise<void>((resolve) => {
        metrics?.running.stop();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** The mount an URL path belongs to, with the choice segments between its base and `/mcp`. */
function matchMount(mounts: readonly HttpMount[], path: string): { mount: HttpMount; segments: string[] } | undefined {
  for (const mount of mounts) {
    if (path === mount.path) return { mount, segments: [] };
    const base = mount.path.slice(0, -'/mcp'.length);
    if (mount.path.endsWith('/mcp') && path.startsWith(`${base}/`) && path.endsWith('/mcp')) {
      const segments = path.slice(base.length + 1, -'/mcp'.length).split('/');
      if (segments.length <= 3 && segments.every((segment) => /^[a-z][a-z0-9-]{0,30}$/.test(segment))) return { mount, segments };
    }
  }
  return undefined;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of the presented bearer key with the expected one. */
function checkServerKey(header: string | undefined, expected: Buffer): 'missing' | 'wrong' | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return 'missing';
  return timingSafeEqual(digest(match[1]), expected) ? undefined : 'wrong';
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
