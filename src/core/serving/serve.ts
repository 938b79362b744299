import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { runAs } from '../platform/request-identity.js';
import type { SharedStore } from '../store/store.js';
import type { AnyToolServer } from '../tools/registry.js';
import { admitRequest, allowedHostNames, LOOPBACK_ORIGIN_HOSTS, type AdmissionGate } from './http/admission.js';
import { answerInternalError, errorText } from './http/answers.js';
import { corsPolicy } from './http/cors.js';
import { admitServerKey, serverKeyCheck, type ServerKeyCheck } from './http/key-check.js';
import { answerNoEndpoint, createMcpDispatch, dispatchMcp, type HttpMount, type McpDispatch } from './http/mcp-dispatch.js';
import { matchMount } from './http/mount-paths.js';
import { allowedOriginsFrom } from './http/origins.js';
import { probes, storeReadiness, type ReadinessCheck } from './http/probes.js';
import { handleWithRequestId, requestLog } from './http/request-id.js';
import type { OAuthLayer } from './oauth/layer.js';

export { isLoopbackHost } from './http/admission.js';
export type { HttpMount } from './http/mcp-dispatch.js';

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

/** Prometheus metrics when asked for: the module (prom-client loaded with it), its running registry, the key /metrics requires. */
interface MetricsRoute {
  module: typeof import('./metrics.js');
  running: ReturnType<typeof import('./metrics.js')['startMetrics']>;
  key: string | undefined;
}

/** Everything a request meets on its way, made once at start: the request pipeline's state. */
interface HttpPipeline {
  logger: Logger;
  gate: AdmissionGate;
  metrics: MetricsRoute | undefined;
  /** Key mode: the key every MCP request carries. */
  serverKey: ServerKeyCheck | undefined;
  /** OAuth mode: the layer's routes and bearer check. */
  oauth: OAuthLayer | undefined;
  mcp: McpDispatch;
}

/**
 * Stateless Streamable HTTP: a fresh server instance per request from the same factory, so
 * 2026-07-28 clients and 2025-era clients (through the SDK's stateless legacy leg) share one endpoint.
 * Host and Origin headers are checked before anything but the probes to stop DNS-rebinding attacks.
 * Every answer carries X-Request-Id, and answers to allowed browser origins carry CORS headers.
 */
export async function serveOverHttp(options: HttpServeOptions): Promise<RunningHttpServer> {
  const { logger } = options;
  const hosts = allowedHostNames(options.host, options.allowedHosts);
  const origins = allowedOriginsFrom([...LOOPBACK_ORIGIN_HOSTS, ...(options.allowedOrigins ?? [])]);
  const limits = httpLimits(options.limits, options.env);
  const auth: HttpAuth = options.auth ?? { kind: 'key', serverKey: options.serverKey ?? '' };
  const serverKey = auth.kind === 'key' ? serverKeyCheck(auth.serverKey, auth.keyLocation) : undefined;
  const oauth = auth.kind === 'oauth' ? auth.layer : undefined;
  // The Node HTTP adapter (and the web framework under it) loads only when serving HTTP: stdio starts without it.
  const { hostHeaderValidation, toNodeHandler } = await import('@modelcontextprotocol/node');
  const validateHost = hostHeaderValidation(hosts);
  const mcp = createMcpDispatch(options.mounts, logger, toNodeHandler);
  const cors = corsPolicy(origins);
  // OAuth mode cannot sign anyone in or refresh a token without writing to the store; key mode serves every call without it.
  const storeCheck = options.store ? [storeReadiness(options.store, oauth ? { needsWrites: true } : { optional: true })] : [];
  const probe = probes([...storeCheck, ...(options.readinessChecks ?? [])]);
  const metrics = options.metrics ? await import('./metrics.js').then((module) => ({ module, running: module.startMetrics(), key: options.metrics?.key })) : undefined;
  const pipeline: HttpPipeline = { logger, gate: { logger, validateHost, origins, cors, probes: probe }, metrics, serverKey, oauth, mcp };

  const http = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    (req: IncomingMessage, res: ServerResponse) => handleWithRequestId(req, res, () => routeRequest(pipeline, req, res)),
  );
  http.maxConnections = limits.maxConnections;
  reportDroppedConnections(http, logger, limits.maxConnections);
  await listen(http, options.port, options.host);
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

/** One request's way, once its request ID is set: admission (Host, Origin, CORS, probes), the routes beside MCP, then MCP. */
function routeRequest(pipeline: HttpPipeline, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (!admitRequest(pipeline.gate, req, res, path)) return;
  if (routeOperations(pipeline, req, res, path)) return;
  if (pipeline.oauth) void serveWithOAuth(pipeline, pipeline.oauth, req, res, path);
  else serveWithServerKey(pipeline, req, res, path);
}

/** Routes beside the MCP endpoints (`/metrics`); true when it answered. */
function routeOperations(pipeline: HttpPipeline, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const { metrics } = pipeline;
  if (path === '/metrics' && metrics) {
    metrics.module.serveMetrics(metrics.running, req, res, metrics.key).catch((error: unknown) => answerInternalError(requestLog(pipeline.logger, req), res, { err: errorText(error) }, 'request failed'));
    return true;
  }
  return false;
}

/** Key mode: an MCP endpoint, then the server key, then the MCP request. */
function serveWithServerKey(pipeline: HttpPipeline, req: IncomingMessage, res: ServerResponse, path: string): void {
  const match = matchMount(pipeline.mcp.mounts, path);
  if (!match) return answerNoEndpoint(pipeline.mcp.mounts, res, path);
  if (!admitServerKey(pipeline.serverKey as ServerKeyCheck, pipeline.logger, req, res, path)) return;
  dispatchMcp(pipeline.mcp, req, res, path, match);
}

/** OAuth mode: the layer's own routes, else an MCP endpoint and the bearer check, then the MCP request as that user. */
async function serveWithOAuth(pipeline: HttpPipeline, layer: OAuthLayer, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  try {
    if (await layer.handle(req, res)) return;
    const match = matchMount(pipeline.mcp.mounts, path);
    if (!match) return answerNoEndpoint(pipeline.mcp.mounts, res, path);
    const identity = await layer.authenticate(req, res);
    if (!identity) return;
    runAs(identity, () => dispatchMcp(pipeline.mcp, req, res, path, match));
  } catch (error) {
    answerInternalError(requestLog(pipeline.logger, req), res, { path, err: errorText(error) }, 'request failed');
  }
}

function listen(http: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
}

/** Node closes a connection past the cap without a word; the operator should hear of it (at most every DROP_LOG_INTERVAL_MS). */
function reportDroppedConnections(http: Server, logger: Logger, maxConnections: number): void {
  let dropped = 0;
  let droppedLoggedAt = Number.NEGATIVE_INFINITY;
  http.on('drop', () => {
    dropped += 1;
    const now = Date.now();
    if (now - droppedLoggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn({ dropped, maxConnections }, `refused connections: ${maxConnections} are open (${MAX_CONNECTIONS_ENV})`);
    dropped = 0;
    droppedLoggedAt = now;
  });
}
