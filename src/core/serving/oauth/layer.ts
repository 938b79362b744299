/**
 * MCP authorization on the HTTP transport (`--auth oauth`), loaded only in that mode: the pieces
 * put together.
 *
 *  - Resource server: Protected Resource Metadata (RFC 9728) per MCP endpoint (metadata.ts),
 *    the bearer check of every MCP request (bearer.ts: audience = the endpoint's URL, RFC 8707;
 *    scope `mcp:tools`; 401 challenges naming the metadata and the scope).
 *  - Authorization server for MCP clients: oidc-provider mounted under /oauth (provider.ts), its
 *    storage in the SharedStore (adapter.ts), its open endpoints rate-limited (admission.ts).
 *  - Sign-in: the interaction (interaction.ts) sends the person to the platform's own OAuth
 *    (platform-sign-in.ts), keeps their platform tokens encrypted in the vault, asks for consent
 *    on the server's own page (consent.ts), and ends with accountId = that user.
 *    MCP tokens carry only the user key; platform tokens never leave the server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../logger.js';
import type { RequestIdentity } from '../../platform/request-identity.js';
import type { SharedStore } from '../../store/store.js';
import { oauthRecords } from './adapter.js';
import { createAdmission, DEFAULT_ADMISSION_LIMITS, type AdmissionLimits } from './admission.js';
import { sendUncachedJson } from './answers.js';
import { checkBearer, tokenVerifier, type BearerCheck } from './bearer.js';
import { publicSite, type OAuthMount } from './endpoints.js';
import { recordKeysFor } from './keys.js';
import { startProvider } from './provider.js';
import { serveLayerRoute, type RouteState } from './routes.js';
import type { TokenVault } from './vault.js';

export { MCP_SCOPE, type OAuthMount } from './endpoints.js';
export { recordKeysFor } from './keys.js';

export interface OAuthLayerOptions {
  mounts: OAuthMount[];
  store: SharedStore;
  vault: TokenVault;
  stateKey: Uint8Array;
  logger: Logger;
  /** External base URL; default: the bound URL given to `start`. */
  publicUrl?: string;
  /** Accept Client ID Metadata Documents at http loopback URLs (tests and local development only). */
  allowHttpClientIds?: boolean;
  /** Rate limits and the unused-client expiry (default: DEFAULT_ADMISSION_LIMITS). */
  admission?: Partial<AdmissionLimits>;
  /** Proxies in front that append to X-Forwarded-For; 0 (default): count requests by the socket's peer. */
  trustedProxies?: number;
}

/** What serve.ts asks of the OAuth mode. */
export interface OAuthLayer {
  /** Called once the server listens: the issuer and resource URLs derive from the public URL. */
  start(boundUrl: string): Promise<void>;
  /** Serves the layer's own routes (metadata, /oauth/...); false when the request is not one of them. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Checks an MCP request's bearer token; answers the challenge itself and returns undefined when refused. */
  authenticate(req: IncomingMessage, res: ServerResponse): Promise<RequestIdentity | undefined>;
}

/** Until the server listens, the routes answer 503 and every token is refused. */
async function answerStarting(res: ServerResponse): Promise<boolean> {
  sendUncachedJson(res, 503, { error: 'temporarily_unavailable', error_description: 'The server is starting.' });
  return true;
}

export function createOAuthLayer(options: OAuthLayerOptions): OAuthLayer {
  const { store, vault, logger, mounts } = options;
  const recordKeys = recordKeysFor(options.stateKey);
  // Sign-ins in progress: sealed, under names that do not show the state or interaction they belong to.
  const records = oauthRecords(store, recordKeys, logger);
  const limits: AdmissionLimits = { ...DEFAULT_ADMISSION_LIMITS, ...options.admission };
  const admission = createAdmission(store, limits, options.trustedProxies ?? 0, logger);
  let routes: RouteState | undefined;
  let bearer: BearerCheck = { site: publicSite(''), verifier: undefined, logger };
  return {
    async start(boundUrl) {
      const site = publicSite((options.publicUrl ?? boundUrl).replace(/\/+$/, ''));
      const allowHttpClientIds = Boolean(options.allowHttpClientIds);
      const { provider, callback } = startProvider({ site, mounts, store, vault, logger, stateKey: options.stateKey, recordKeys, unusedClientTtlMs: limits.unusedClientTtlMs, allowHttpClientIds, behindProxy: Boolean(options.publicUrl) });
      routes = { provider, callback, site, mounts, records, store, vault, logger, admission };
      bearer = { site, verifier: tokenVerifier(provider, vault), logger };
    },
    handle: (req, res) => (routes ? serveLayerRoute(routes, req, res) : answerStarting(res)),
    authenticate: (req, res) => checkBearer(bearer, req, res),
  };
}
