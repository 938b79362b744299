/**
 * The authorization server for MCP clients: oidc-provider mounted under /oauth (RFC 8414
 * metadata, code + PKCE S256, open Dynamic Client Registration, Client ID Metadata Documents,
 * rotating refresh tokens, revocation, resource indicators), its storage in the SharedStore, its
 * interactions on this layer's pages. Its pages are never framed, and a store that does not
 * answer gets 503 with Retry-After instead of its bare 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { errors as providerErrors } from 'oidc-provider';
import type { Logger } from '../../logger.js';
import type { SharedStore } from '../../store/store.js';
import { requestLog } from '../http/request-id.js';
import { sharedStoreAdapter, type RecordKeys } from './adapter.js';
import { checkClientMetadata } from './admission.js';
import { isStoreFailure, STORE_DOWN, STORE_RETRY_AFTER_S } from './answers.js';
import { ISSUER_PATH, MCP_SCOPE, mountOfResource, type OAuthMount, type PublicSite } from './endpoints.js';
import { cookieKeyFor, signingJwk } from './keys.js';
import { createOutboundFetch } from './outbound-fetch.js';
import { errorBody, PAGE_HEADERS, renderPage } from './pages.js';
import type { TokenVault } from './vault.js';

const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

/** What the authorization server is built from. */
export interface ProviderSetup {
  site: PublicSite;
  mounts: readonly OAuthMount[];
  store: SharedStore;
  /** An account exists while its platform sign-in opens. */
  vault: TokenVault;
  logger: Logger;
  stateKey: Uint8Array;
  recordKeys: RecordKeys;
  unusedClientTtlMs: number;
  allowHttpClientIds: boolean;
  /** A public URL is configured: the protocol comes from X-Forwarded-Proto, which pinToPublicOrigin() sets. */
  behindProxy: boolean;
}

/** The provider (typed where its parts are used) and its request handler. */
export interface StartedProvider {
  provider: any;
  callback: (req: IncomingMessage, res: ServerResponse) => void;
}

export function startProvider(setup: ProviderSetup): StartedProvider {
  const provider = new Provider(setup.site.issuer, providerConfiguration(setup));
  provider.use(pagesAndOutages(setup.site.https));
  if (setup.behindProxy) provider.proxy = true;
  provider.on('server_error', (ctx: { req?: IncomingMessage; state?: Record<string, unknown> } | undefined, error: Error) => {
    const log = ctx?.req ? requestLog(setup.logger, ctx.req) : setup.logger;
    if (isStoreFailure(error) && ctx?.state) {
      ctx.state.storeUnavailable = true;
      log.warn({ err: error.message }, 'OAuth request waits for the store');
    } else log.error({ err: error.message }, 'OAuth server error');
  });
  return { provider, callback: provider.callback() };
}

/** Hands a request to oidc-provider with /oauth as its mount path. */
export function toProvider(callback: StartedProvider['callback'], req: IncomingMessage, res: ServerResponse, path: string): void {
  const url = req.url ?? '/';
  (req as IncomingMessage & { originalUrl?: string }).originalUrl = url.startsWith(ISSUER_PATH) ? url : `${ISSUER_PATH}${path}`;
  req.url = url.startsWith(ISSUER_PATH) ? url.slice(ISSUER_PATH.length) || '/' : path;
  callback(req, res);
}

function storageFor(setup: ProviderSetup): unknown {
  return sharedStoreAdapter(setup.store, {
    keys: setup.recordKeys,
    logger: setup.logger,
    ...(setup.allowHttpClientIds ? { allowHttpClientIds: true } : {}),
    unusedClientTtlMs: setup.unusedClientTtlMs,
    alreadyUsed: (model) => new providerErrors.InvalidGrant(model === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed'),
    requestedResources: () => {
      const requested = (Provider as unknown as { ctx?: { oidc?: { params?: { resource?: unknown } } } }).ctx?.oidc?.params?.resource;
      return (Array.isArray(requested) ? requested : [requested]).filter((resource): resource is string => typeof resource === 'string');
    },
  });
}

function providerConfiguration(setup: ProviderSetup): Record<string, unknown> {
  const { cookies } = setup.site;
  return {
    adapter: storageFor(setup),
    jwks: { keys: [signingJwk(setup.stateKey)] },
    cookies: {
      keys: [cookieKeyFor(setup.stateKey)],
      names: { session: cookies.session, interaction: cookies.interaction, resume: cookies.resume },
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    // An account is a platform sign-in the vault can open: without one, a refresh fails (invalid_grant) and the client authorizes again.
    findAccount: async (_ctx: unknown, id: string) => ((await setup.vault.get(id)) ? { accountId: id, claims: async () => ({ sub: id }) } : undefined),
    // mcp:tools is also listed here: clients register it in their metadata (the token carries it for the resource).
    scopes: ['openid', 'offline_access', MCP_SCOPE],
    claims: { openid: ['sub'] },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'EdDSA' },
    pkce: { required: () => true },
    // The validator runs once per listed property; client_name is listed only to have it run once per client.
    extraClientMetadata: {
      properties: ['client_name'],
      validator: (_ctx: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) => {
        if (key === 'client_name') checkClientMetadata(metadata);
      },
    },
    responseTypes: ['code'],
    // Its requests on a client's say-so (metadata documents, jwks_uri) reach public addresses only, pinned, every failure alike.
    fetch: createOutboundFetch({ logger: setup.logger, requestScope: () => (Provider as unknown as { ctx?: object }).ctx }),
    // A client's jwks_uri is bounded like its metadata document (oidc-provider's default: no limit).
    fetchResponseBodyLimits: { jwks_uri: 64 * 1024, sector_identifier_uri: 64 * 1024 },
    features: providerFeatures(setup.site, setup.mounts),
    // Refresh tokens for every client allowed the grant, rotated on each use.
    issueRefreshToken: async (_ctx: unknown, client: any) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    ttl: { AccessToken: ACCESS_TOKEN_TTL_S, AuthorizationCode: 60, RefreshToken: REFRESH_TOKEN_TTL_S, Interaction: 600, Session: 24 * 3600, Grant: REFRESH_TOKEN_TTL_S, IdToken: 3600 },
    interactions: { url: async (_ctx: unknown, interaction: { uid: string }) => `${ISSUER_PATH}/interaction/${interaction.uid}` },
    // Nothing is remembered between authorizations: each one goes through the platform and the
    // consent page (docs/oauth.md). Only the grant made by this authorization's consent counts.
    loadExistingGrant: async (ctx: any) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    renderError: async (ctx: any, out: { error?: string; error_description?: string }) => {
      ctx.set(PAGE_HEADERS);
      ctx.body = renderPage('Authorization failed', errorBody(`${String(out.error ?? 'error')}: ${String(out.error_description ?? '')}`));
    },
  };
}

function providerFeatures(site: PublicSite, mounts: readonly OAuthMount[]): Record<string, unknown> {
  return {
    devInteractions: { enabled: false },
    // Not offered: the MCP endpoints check bearer tokens only, so a DPoP-bound token would be bound in name only.
    dPoP: { enabled: false },
    // No registration access token: client management is not offered, so it would only be stored.
    registration: { enabled: true, issueRegistrationAccessToken: false },
    revocation: { enabled: true },
    clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
    // Its own pages, not oidc-provider's defaults (which load web fonts and echo the Host header).
    rpInitiatedLogout: {
      enabled: true,
      logoutSource: async (ctx: any, form: string) => {
        ctx.set(PAGE_HEADERS);
        ctx.body = renderPage('Sign out?', `<p>End your session with this authorization server? MCP clients keep the tokens they hold; revoke those in each client.</p>${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button><button type="submit" form="op.logoutForm">Stay signed in</button>`);
      },
      postLogoutSuccessSource: async (ctx: any) => {
        ctx.set(PAGE_HEADERS);
        ctx.body = renderPage('Signed out', '<p>You are signed out of this authorization server.</p>');
      },
    },
    resourceIndicators: {
      enabled: true,
      // A client that names no resource gets none (its token is then refused by every endpoint).
      defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx: unknown, resource: string) => {
        if (!mountOfResource(site, mounts, resource)) throw new providerErrors.InvalidTarget(`${resource} is not an MCP endpoint of this server`);
        return { scope: MCP_SCOPE, audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_S };
      },
    },
  };
}

/** oidc-provider's answers: Secure cookies over https, 503 for a store outage, never framed. */
function pagesAndOutages(https: boolean): (ctx: any, next: () => Promise<void>) => Promise<void> {
  return async (ctx, next) => {
    // Browsers reach a https public URL over https whatever the proxy forwards: cookies are Secure.
    if (https) Object.defineProperty(ctx.request, 'secure', { value: true });
    await next();
    // oidc-provider answers a store failure with a bare 500 ("server_error"): it is an outage to wait out.
    if (ctx.state.storeUnavailable) {
      ctx.status = 503;
      ctx.set('retry-after', String(STORE_RETRY_AFTER_S));
      ctx.set('cache-control', 'no-store');
      if (/html/.test(String(ctx.type))) {
        ctx.set(PAGE_HEADERS);
        ctx.body = renderPage('Try again in a moment', errorBody(STORE_DOWN));
      } else ctx.body = { error: 'temporarily_unavailable', error_description: STORE_DOWN };
    }
    // oidc-provider's own pages (errors, logout, form_post) are never framed either.
    ctx.set('x-frame-options', 'DENY');
    const policy = ctx.response.get('content-security-policy');
    if (!/frame-ancestors/.test(policy)) ctx.set('content-security-policy', policy ? `${policy}; frame-ancestors 'none'` : "frame-ancestors 'none'");
  };
}
