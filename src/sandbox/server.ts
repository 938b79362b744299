/**
 * The sandbox HTTP host: one node:http server that serves independent platform emulators under
 * path prefixes (`/incidentops/...`, later `/canvasapi/...`) and records every request.
 *
 * Adding a platform: implement `SandboxPlatform` (a prefix and a `handle` function that turns a
 * parsed request into a status, headers and a JSON body), then register it in `mountPlatforms`
 * (or pass it through `options.platforms`). The host does the HTTP plumbing (body reading,
 * latency, recording with redacted credentials, JSON encoding, 404 for unknown prefixes, 500 on
 * a crash); platforms never see node:http objects. What is recorded of a request, redacted, is
 * recording.ts's; the request and response types are exchange.ts's.
 *
 * Both platforms also have an OAuth 2.0 authorization server (see oauth.ts): the whiteboard's at
 * `/canvasapi/oauth/authorize` + `/canvasapi/v1/oauth/token` (revocation `/canvasapi/v2/oauth/revoke`),
 * the incident platform's on its own identity "host" `/incidentops-identity/oauth/{authorize,token,revoke}`.
 * The APIs accept the static token and live OAuth-issued tokens; `RunningSandbox.oauth` lists
 * the endpoints and the registered client.
 *
 * The emulators are written from the platforms' published specifications and deliberately share
 * no code with the tool servers, so that a bug in a tool server is not mirrored here.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createCanvasApiPlatform, type CanvasApiDemo } from './canvasapi/index.js';
import { createIncidentOpsPlatform } from './incidentops/api.js';
import type { PlanOptions } from './incidentops/intelligence.js';
import type { SandboxPlatform, SandboxResponse } from './exchange.js';
import { createIncidentOpsAuthority, createIncidentOpsIdentityPlatform, INCIDENTOPS_IDENTITY_PREFIX } from './incidentops/identity.js';
import { ALL_SCOPES, BASE_SCOPES } from './canvasapi/tokens.js';
import { DEFAULT_OAUTH_CLIENT_ID, DEFAULT_OAUTH_CLIENT_SECRET, endpointInfo, type OAuthAuthority, type OAuthEndpointInfo, type OAuthSettings } from './oauth.js';
import { collectHeaders, recordBody, recordRequest, type RecordedRequest } from './recording.js';

export type { OAuthEndpointInfo, OAuthSettings } from './oauth.js';
export { DEFAULT_OAUTH_CLIENT_ID, DEFAULT_OAUTH_CLIENT_SECRET } from './oauth.js';
export { MAX_RECORDED_REQUESTS, redactAuthorization, type RecordedRequest } from './recording.js';

/** ID of the generated user who owns the sandbox token (the answer of /users/me). */
export { DEMO_USER_ID } from './incidentops/data.js';

export type { SandboxPlatform, SandboxRequest, SandboxResponse } from './exchange.js';

export interface IncidentOpsSandboxOptions {
  /** Number of users to generate (default 60, minimum 12). */
  users?: number;
  /** PRNG seed (default 1337). */
  seed?: number;
  /** Clock; the data is generated relative to now() at start, request defaults use now() per request. */
  now?: () => Date;
  /** Endpoints the account's plan lacks (past and related incidents, related change events, service dependencies), and how they answer. */
  plan?: PlanOptions;
}

export interface CanvasApiSandboxOptions {
  /** Whether the demo organization is on the enterprise plan (default true); false answers enterprise endpoints with 403. */
  enterprise?: boolean;
  seed?: number;
  now?: () => Date;
}

export interface SandboxOptions {
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Access token every platform accepts (default 'sandbox-token'). */
  token?: string;
  /** Artificial delay before each response, in milliseconds (default 0). */
  latencyMs?: number;
  incidentops?: IncidentOpsSandboxOptions;
  canvasapi?: CanvasApiSandboxOptions;
  /** Extra platforms to serve next to the built-in ones; one with a built-in prefix replaces that built-in. */
  platforms?: SandboxPlatform[];
  /** The OAuth authorization servers of both platforms (one registered client, shared settings). */
  oauth?: OAuthSettings;
}

export interface RunningSandbox {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  incidentops: { baseUrl: string; token: string };
  /** `demo` holds the IDs of the demo organization, team, project, boards and app (absent when replaced through `platforms`). */
  canvasapi: { baseUrl: string; token: string; demo?: CanvasApiDemo };
  /** OAuth endpoints and the registered client of each platform (the whiteboard's answer only while the built-in one is served). */
  oauth: { incidentops: OAuthEndpointInfo; canvasapi: OAuthEndpointInfo };
  /** Every request received, in arrival order. */
  requests: RecordedRequest[];
  clearRequests(): void;
  close(): Promise<void>;
}

export const DEFAULT_SANDBOX_TOKEN = 'sandbox-token';

/** What the host's request handling reads: the mounted platforms, the record and the host's own origin (known once listening). */
interface SandboxHost {
  platforms: Map<string, SandboxPlatform>;
  requests: RecordedRequest[];
  latencyMs: number;
  origin: string;
}

/** The built-in platforms (each unless `options.platforms` replaces its prefix), then the extra ones. */
function mountPlatforms(options: SandboxOptions, token: string) {
  const platforms = new Map<string, SandboxPlatform>();
  const register = (p: SandboxPlatform) => {
    if (platforms.has(p.prefix)) throw new Error(`sandbox platform prefix "${p.prefix}" registered twice`);
    platforms.set(p.prefix, p);
  };
  const replaced = new Set((options.platforms ?? []).map((p) => p.prefix));
  const incidentOps = replaced.has('incidentops') ? undefined : createIncidentOpsPlatform({ token, ...options.incidentops, verifyToken: (t) => identity.verify(t) });
  const identity = createIncidentOpsAuthority(options.oauth, incidentOps ? () => incidentOps.users() : undefined);
  if (incidentOps) register(incidentOps);
  if (!replaced.has(INCIDENTOPS_IDENTITY_PREFIX)) register(createIncidentOpsIdentityPlatform(identity));
  const canvas = replaced.has('canvasapi') ? undefined : createCanvasApiPlatform({ token, ...options.canvasapi, oauth: options.oauth });
  if (canvas) register(canvas);
  for (const p of options.platforms ?? []) register(p);
  return { platforms, identity, canvas };
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** One request: recorded on arrival, read, handed to the platform of its first path segment, answered after the latency. */
async function serveRequest(host: SandboxHost, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const rawUrl = req.url ?? '/';
  const q = rawUrl.indexOf('?');
  const fullPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const search = q < 0 ? '' : rawUrl.slice(q + 1);
  const match = /^\/([^/]*)(.*)$/.exec(fullPath);
  const prefix = match?.[1] ?? '';
  const rest = match?.[2] || '/';
  const headers = collectHeaders(req);
  const query = [...new URLSearchParams(search)] as [string, string][];
  const record = recordRequest(host.requests, prefix, req.method ?? 'GET', rest, query, headers);

  let response: SandboxResponse;
  try {
    const body = await readBody(req);
    recordBody(record, headers['content-type'], body);
    const platform = host.platforms.get(prefix);
    if (!platform) {
      response = noPlatformAt(prefix, host.platforms);
    } else {
      response = await platform.handle({ method: record.method, path: rest, query, headers, body, baseUrl: `${host.origin}/${prefix}` });
    }
  } catch (err) {
    response = { status: 500, body: { error: { message: `Sandbox internal error: ${err instanceof Error ? err.message : String(err)}` } } };
  }
  if (host.latencyMs > 0) await new Promise((r) => setTimeout(r, host.latencyMs));
  record.status = response.status;
  writeResponse(req, res, response);
}

function noPlatformAt(prefix: string, platforms: Map<string, SandboxPlatform>): SandboxResponse {
  return {
    status: 404,
    body: { error: { message: `Not Found: no sandbox platform at /${prefix}`, platforms: [...platforms.keys()].map((p) => `/${p}`) } },
  };
}

/** The response as JSON (or its text verbatim) with its length; no body for HEAD; nothing once the client is gone. */
function writeResponse(req: http.IncomingMessage, res: http.ServerResponse, response: SandboxResponse): void {
  const payload = response.text ?? (response.body === undefined ? '' : JSON.stringify(response.body));
  const outHeaders: Record<string, string> = { ...(response.headers ?? {}) };
  if (payload !== '' && !Object.keys(outHeaders).some((h) => h.toLowerCase() === 'content-type')) {
    outHeaders['content-type'] = response.text !== undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  }
  outHeaders['content-length'] = String(Buffer.byteLength(payload));
  if (res.destroyed) return;
  res.writeHead(response.status, outHeaders);
  res.end(req.method === 'HEAD' ? undefined : payload);
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Listens on `port` (0: a free one) and `host`; rejects when the port cannot be had. */
async function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server.address() as AddressInfo;
}

/** Open sockets, so that closing ends kept-alive connections too. */
function trackSockets(server: http.Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return sockets;
}

/** Stops accepting, ends idle and open connections; resolves once the server has closed. */
function closeServer(server: http.Server, sockets: Set<Socket>): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    for (const s of sockets) s.destroy();
  });
}

/** Where each platform's OAuth endpoints are, and its registered client. */
function oauthEndpoints(origin: string, options: SandboxOptions, identity: OAuthAuthority, canvas: ReturnType<typeof createCanvasApiPlatform> | undefined): RunningSandbox['oauth'] {
  return {
    incidentops: endpointInfo(identity, {
      authorizeUrl: `${origin}/${INCIDENTOPS_IDENTITY_PREFIX}/oauth/authorize`,
      tokenUrl: `${origin}/${INCIDENTOPS_IDENTITY_PREFIX}/oauth/token`,
      revokeUrl: `${origin}/${INCIDENTOPS_IDENTITY_PREFIX}/oauth/revoke`,
    }),
    canvasapi: {
      authorizeUrl: `${origin}/canvasapi/oauth/authorize`,
      tokenUrl: `${origin}/canvasapi/v1/oauth/token`,
      revokeUrl: `${origin}/canvasapi/v2/oauth/revoke`,
      clientId: options.oauth?.clientId ?? DEFAULT_OAUTH_CLIENT_ID,
      clientSecret: options.oauth?.clientSecret ?? DEFAULT_OAUTH_CLIENT_SECRET,
      scope: canvas ? canvas.oauth.scope : (options.canvasapi?.enterprise === false ? BASE_SCOPES : ALL_SCOPES).join(' '),
    },
  };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? DEFAULT_SANDBOX_TOKEN;
  const { platforms, identity, canvas } = mountPlatforms(options, token);
  const sandboxHost: SandboxHost = { platforms, requests: [], latencyMs: Math.max(0, options.latencyMs ?? 0), origin: '' };

  const server = http.createServer((req, res) => void serveRequest(sandboxHost, req, res));
  const sockets = trackSockets(server);
  const address = await listen(server, options.port ?? 0, host);
  const origin = `http://${hostForUrl(host)}:${address.port}`;
  sandboxHost.origin = origin;

  let closed: Promise<void> | undefined;
  return {
    url: origin,
    incidentops: { baseUrl: `${origin}/incidentops`, token },
    canvasapi: { baseUrl: `${origin}/canvasapi`, token, ...(canvas ? { demo: canvas.demo } : {}) },
    oauth: oauthEndpoints(origin, options, identity, canvas),
    requests: sandboxHost.requests,
    clearRequests() {
      sandboxHost.requests.length = 0;
    },
    close() {
      closed ??= closeServer(server, sockets);
      return closed;
    },
  };
}
