/**
 * The sandbox HTTP host: one node:http server that serves independent platform emulators under
 * path prefixes (`/incidentops/...`, later `/canvasapi/...`) and records every request.
 *
 * Adding a platform: implement `SandboxPlatform` (a prefix and a `handle` function that turns a
 * parsed request into a status, headers and a JSON body), then register it in `startSandbox`
 * (or pass it through `options.platforms`). The host does the HTTP plumbing (body reading,
 * latency, recording with redacted credentials, JSON encoding, 404 for unknown prefixes, 500 on
 * a crash); platforms never see node:http objects.
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
import type { AddressInfo } from 'node:net';
import { createCanvasApiPlatform, type CanvasApiDemo } from './canvasapi/index.js';
import { createIncidentOpsPlatform } from './incidentops/api.js';
import type { PlanOptions } from './incidentops/intelligence.js';
import type { SandboxPlatform, SandboxResponse } from './exchange.js';
import { createIncidentOpsAuthority, createIncidentOpsIdentityPlatform, INCIDENTOPS_IDENTITY_PREFIX } from './incidentops/identity.js';
import { ALL_SCOPES, BASE_SCOPES } from './canvasapi/tokens.js';
import { DEFAULT_OAUTH_CLIENT_ID, DEFAULT_OAUTH_CLIENT_SECRET, endpointInfo, redactPairs, redactSecrets, type OAuthEndpointInfo, type OAuthSettings } from './oauth.js';

export type { OAuthEndpointInfo, OAuthSettings } from './oauth.js';
export { DEFAULT_OAUTH_CLIENT_ID, DEFAULT_OAUTH_CLIENT_SECRET } from './oauth.js';

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
  /** Endpoints the account's plan lacks (past and related incidents, related change events), and how they answer. */
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

export interface RecordedRequest {
  platform: 'incidentops' | string;
  method: string;
  /** Path after the platform prefix, raw (percent-encoded). */
  path: string;
  /** Decoded query pairs in order, keys verbatim; values of secret parameters (`code`, `access_token`, ...) are '[redacted]'. */
  query: [string, string][];
  /** Lower-cased names; the credential in `authorization` is replaced by '[redacted]' (the scheme is kept). */
  headers: Record<string, string>;
  /** Response status; 0 while the request is still being handled. */
  status: number;
  /**
   * The request body parsed as JSON (JSON content type) or as a form (`application/x-www-form-urlencoded`,
   * as an object; a repeated field keeps its last value); absent otherwise. Values of secret
   * properties (`clientSecret`, `accessToken`, `client_secret`, `code`, `code_verifier`,
   * `access_token`, `refresh_token`, `token`, ...) are '[redacted]' at any depth.
   */
  body?: unknown;
  /** A JSON body exactly as received (every digit of an int64), when it carries no secret property (else only the redacted `body`). */
  bodyText?: string;
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

/** Replace the credential but keep its scheme, e.g. 'Bearer [redacted]', 'Token token=[redacted]'. */
export function redactAuthorization(value: string): string {
  const token = /^(\s*token\s+token=)/i.exec(value);
  if (token) return `${token[1]}[redacted]`;
  const scheme = /^(\s*[A-Za-z][A-Za-z0-9_-]*\s+)\S/.exec(value);
  if (scheme) return `${scheme[1]}[redacted]`;
  return '[redacted]';
}

function collectHeaders(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The body as JSON or form fields when the content type says so and it parses, secrets redacted; undefined otherwise (never throws). */
function parseBodyForRecord(contentType: string | undefined, body: Buffer): unknown {
  if (body.length === 0 || !contentType) return undefined;
  if (/^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType)) {
    return redactSecrets(Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  }
  if (!/^\s*application\/([\w.+-]*\+)?json\s*(;|$)/i.test(contentType)) return undefined;
  try {
    return redactSecrets(JSON.parse(body.toString('utf8')) as unknown);
  } catch {
    return undefined;
  }
}

function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Requests the sandbox remembers for tests and inspection (the oldest are forgotten past this). */
export const MAX_RECORDED_REQUESTS = 100_000;

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? DEFAULT_SANDBOX_TOKEN;
  const latencyMs = Math.max(0, options.latencyMs ?? 0);
  const requests: RecordedRequest[] = [];

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

  let origin = '';
  const sockets = new Set<import('node:net').Socket>();

  const server = http.createServer((req, res) => {
    void (async () => {
      const rawUrl = req.url ?? '/';
      const q = rawUrl.indexOf('?');
      const fullPath = q < 0 ? rawUrl : rawUrl.slice(0, q);
      const search = q < 0 ? '' : rawUrl.slice(q + 1);
      const match = /^\/([^/]*)(.*)$/.exec(fullPath);
      const prefix = match?.[1] ?? '';
      const rest = match?.[2] || '/';
      const headers = collectHeaders(req);
      const recordedHeaders = { ...headers };
      if (recordedHeaders.authorization !== undefined) recordedHeaders.authorization = redactAuthorization(recordedHeaders.authorization);
      const query = [...new URLSearchParams(search)] as [string, string][];
      const record: RecordedRequest = { platform: prefix, method: req.method ?? 'GET', path: rest, query: redactPairs(query), headers: recordedHeaders, status: 0 };
      requests.push(record);
      // A long-running sandbox keeps the newest records only, so its memory stays bounded.
      if (requests.length > MAX_RECORDED_REQUESTS) requests.splice(0, requests.length - MAX_RECORDED_REQUESTS * 0.9);

      let response: SandboxResponse;
      try {
        const body = await readBody(req);
        const parsed = parseBodyForRecord(headers['content-type'], body);
        if (parsed !== undefined) {
          record.body = parsed;
          // Nothing redacted (so no secret in it) and JSON: kept as sent.
          if (/json/i.test(headers['content-type'] ?? '') && !JSON.stringify(parsed).includes('"[redacted]"')) record.bodyText = body.toString('utf8');
        }
        const platform = platforms.get(prefix);
        if (!platform) {
          response = {
            status: 404,
            body: { error: { message: `Not Found: no sandbox platform at /${prefix}`, platforms: [...platforms.keys()].map((p) => `/${p}`) } },
          };
        } else {
          response = await platform.handle({ method: record.method, path: rest, query, headers, body, baseUrl: `${origin}/${prefix}` });
        }
      } catch (err) {
        response = { status: 500, body: { error: { message: `Sandbox internal error: ${err instanceof Error ? err.message : String(err)}` } } };
      }
      if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
      record.status = response.status;
      const payload = response.text ?? (response.body === undefined ? '' : JSON.stringify(response.body));
      const outHeaders: Record<string, string> = { ...(response.headers ?? {}) };
      if (payload !== '' && !Object.keys(outHeaders).some((h) => h.toLowerCase() === 'content-type')) {
        outHeaders['content-type'] = response.text !== undefined ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
      }
      outHeaders['content-length'] = String(Buffer.byteLength(payload));
      if (res.destroyed) return;
      res.writeHead(response.status, outHeaders);
      res.end(req.method === 'HEAD' ? undefined : payload);
    })();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  origin = `http://${hostForUrl(host)}:${address.port}`;

  let closed: Promise<void> | undefined;
  return {
    url: origin,
    incidentops: { baseUrl: `${origin}/incidentops`, token },
    canvasapi: { baseUrl: `${origin}/canvasapi`, token, ...(canvas ? { demo: canvas.demo } : {}) },
    oauth: {
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
    },
    requests,
    clearRequests() {
      requests.length = 0;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        for (const s of sockets) s.destroy();
      });
      return closed;
    },
  };
}
