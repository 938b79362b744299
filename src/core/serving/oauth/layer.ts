/**
 * MCP authorization on the HTTP transport (`--auth oauth`), loaded only in that mode.
 *
 *  - Resource server: Protected Resource Metadata (RFC 9728) per MCP endpoint, bearer checks with
 *    the SDK's `verifyBearerToken` (audience = the endpoint's URL, RFC 8707; scope `mcp:tools`),
 *    401 challenges naming the metadata and the scope.
 *  - Authorization server for MCP clients: oidc-provider mounted under /oauth (RFC 8414 metadata,
 *    code + PKCE S256, open Dynamic Client Registration, Client ID Metadata Documents, rotating
 *    refresh tokens, revocation, resource indicators), its storage in the SharedStore.
 *  - Sign-in: the interaction sends the person to the platform's own OAuth (oauth4webapi, PKCE,
 *    state), learns who they are from the platform, keeps their platform tokens encrypted in the
 *    vault, asks for consent on the server's own page, and ends with accountId = that user.
 *    MCP tokens carry only the user key; platform tokens never leave the server.
 */
import { createHash, createPrivateKey, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerAuthChallengeResponse, OAuthError, OAuthErrorCode, verifyBearerToken, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import Provider, { errors as providerErrors } from 'oidc-provider';
import type { PlatformAuth } from '../../signin/platform-auth.js';
import type { Logger } from '../../logger.js';
import { requestLog } from '../http/request-id.js';
import type { RequestIdentity } from '../../platform/request-identity.js';
import { StoreUnavailableError, type SharedStore } from '../../store/store.js';
import { stateKeyFrom } from '../../store/sealed.js';
import { oauthRecords, sharedStoreAdapter, type RecordKeys } from './adapter.js';
import { checkClientMetadata, createAdmission, DEFAULT_ADMISSION_LIMITS, type AdmissionLimits } from './admission.js';
import { errorBody, PAGE_HEADERS, renderPage, sendConsentPage, sendErrorPage } from './pages.js';
import type { PlatformTokens, TokenVault } from './vault.js';

/** The one scope an MCP token carries for its endpoint. */
export const MCP_SCOPE = 'mcp:tools';
const ISSUER_PATH = '/oauth';
const SIGN_IN_TTL_MS = 10 * 60_000;
const MAX_FORM_BYTES = 8 * 1024;
const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
/** Metadata changes only with a deployment; five minutes of caching spares clients a round trip per connection. */
const METADATA_CACHE_CONTROL = 'public, max-age=300';

export interface OAuthMount {
  /** The MCP endpoint path, e.g. `/incidentops/mcp`. */
  path: string;
  /** Display name, e.g. `IncidentOps`. */
  name: string;
  /** How its platform signs people in (client, endpoints, who signed in). */
  auth: PlatformAuth;
}

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

/** A mount plus the choice segments a URL may insert before `/mcp`. */
function mountFor(mounts: readonly OAuthMount[], path: string): OAuthMount | undefined {
  for (const mount of mounts) {
    if (path === mount.path) return mount;
    const base = mount.path.slice(0, -'/mcp'.length);
    if (mount.path.endsWith('/mcp') && path.startsWith(`${base}/`) && path.endsWith('/mcp')) {
      const segments = path.slice(base.length + 1, -'/mcp'.length).split('/');
      if (segments.length <= 3 && segments.every((segment) => /^[a-z][a-z0-9-]{0,30}$/.test(segment))) return mount;
    }
  }
  return undefined;
}

function derive(key: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `toolservers ${purpose}`, 32));
}

/** The keys oidc-provider's records are named and sealed with (exported for tests that read the store as the server does). */
export function recordKeysFor(stateKey: Uint8Array): RecordKeys {
  return { naming: derive(stateKey, 'oauth record names'), sealing: stateKeyFrom(derive(stateKey, 'oauth records').toString('base64url'), 'the OAuth record key') };
}

/** An Ed25519 signing key derived from the state key, so every replica signs with the same one. */
function signingJwk(stateKey: Uint8Array): Record<string, unknown> {
  const seed = derive(stateKey, 'oidc signing key');
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
  const jwk = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' }) as Record<string, unknown>;
  return { ...jwk, alg: 'EdDSA', use: 'sig', kid: createHash('sha256').update(String(jwk.x)).digest('base64url').slice(0, 16) };
}

function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '')) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** Seconds a client is asked to wait when the store does not answer (its commands time out after 2 s). */
const STORE_RETRY_AFTER_S = 2;
const STORE_DOWN = 'The sign-in store of this server is not answering; nothing was changed. Try again in a few seconds.';

/** A store that is down or too slow: an outage to wait out, not a fault of the request or of this server. */
function isStoreFailure(error: unknown): boolean {
  return error instanceof StoreUnavailableError || (error as { name?: unknown } | undefined)?.name === 'StoreUnavailableError';
}

function sendStoreUnavailable(res: ServerResponse, page: boolean): void {
  if (res.headersSent) return void res.end();
  if (page) sendErrorPage(res, 503, 'Try again in a moment', STORE_DOWN, { 'retry-after': String(STORE_RETRY_AFTER_S) });
  else sendJson(res, 503, { error: 'temporarily_unavailable', error_description: STORE_DOWN }, { 'retry-after': String(STORE_RETRY_AFTER_S) });
}

async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** A sign-in in progress: kept in the store between the platform redirect and the consent. */
interface PendingSignIn {
  uid: string;
  platform: string;
  redirectUri: string;
  state: string;
  codeVerifier: string;
  /** SHA-256 of the nonce in the cookie of the browser that was sent to the platform. */
  browserHash: string;
}

/**
 * Cookie names. Over https: `__Host-` (Secure, Path=/, no Domain: no sibling host can set them) where
 * the path is /, `__Secure-` for oidc-provider's interaction cookies, which it scopes to one
 * authorization's path so that two sign-ins in one browser do not overwrite each other. Over plain
 * http (loopback development), browsers refuse both prefixes, so the names go without them.
 */
function cookieNames(https: boolean): { session: string; interaction: string; resume: string; signIn: (uid: string) => string } {
  const host = https ? '__Host-' : '';
  const secure = https ? '__Secure-' : '';
  return { session: `${host}session`, interaction: `${secure}interaction`, resume: `${secure}interaction_resume`, signIn: (uid) => `${host}sign-in-${uid}` };
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

interface SignedIn {
  userKey: string;
  account: string;
  csrf: string;
  /** The platform tokens, sealed for the user key until the person allows. */
  sealed: string;
}

export function createOAuthLayer(options: OAuthLayerOptions): OAuthLayer {
  const { store, vault, logger, mounts } = options;
  const recordKeys = recordKeysFor(options.stateKey);
  // Sign-ins in progress: sealed, under names that do not show the state or interaction they belong to.
  const records = oauthRecords(store, recordKeys, logger);
  const pendingKey = (state: string) => records.key('pending-sign-in', state);
  const pendingStateKey = (uid: string) => records.key('pending-state', uid);
  const signedInKey = (uid: string) => records.key('signed-in', uid);
  let provider: any;
  let publicUrl = '';
  let issuer = '';
  let callback: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let httpsOnly = false;
  let cookies = cookieNames(false);
  const limits: AdmissionLimits = { ...DEFAULT_ADMISSION_LIMITS, ...options.admission };
  const admission = createAdmission(store, limits, options.trustedProxies ?? 0, logger);

  const resourceFor = (path: string): string => `${publicUrl}${path}`;
  const metadataUrlFor = (path: string): string => `${publicUrl}/.well-known/oauth-protected-resource${path}`;
  const mountOfResource = (resource: string): OAuthMount | undefined => (resource.startsWith(`${publicUrl}/`) ? mountFor(mounts, resource.slice(publicUrl.length)) : undefined);

  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const found = await provider.AccessToken.find(token);
      if (!found || found.isExpired) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is unknown, expired or revoked.');
      // A grant revoked while another replica was still issuing this token (a code or refresh token used twice at once) ends it too.
      const userKey = String(found.accountId);
      const [grant, platformTokens] = await Promise.all([found.grantId ? provider.Grant.find(found.grantId) : undefined, vault.get(userKey)]);
      if (!grant) throw new OAuthError(OAuthErrorCode.InvalidToken, 'The access token is unknown, expired or revoked.');
      // A token whose platform sign-in cannot be opened would only fail every call: refused, so the client authorizes again.
      if (!platformTokens) throw new OAuthError(OAuthErrorCode.InvalidToken, "The platform sign-in behind this token is gone (removed, or the server's state key changed); authorize again.");
      const audience = Array.isArray(found.aud) ? found.aud[0] : found.aud;
      return {
        token,
        clientId: String(found.clientId),
        scopes: String(found.scope ?? '').split(' ').filter(Boolean),
        expiresAt: Number(found.exp),
        ...(typeof audience === 'string' ? { resource: new URL(audience) } : {}),
        extra: { userKey, platformTokens },
      };
    },
  };

  async function start(boundUrl: string): Promise<void> {
    publicUrl = (options.publicUrl ?? boundUrl).replace(/\/+$/, '');
    issuer = `${publicUrl}${ISSUER_PATH}`;
    const cookieKey = derive(options.stateKey, 'oidc cookies').toString('base64url');
    httpsOnly = publicUrl.startsWith('https:');
    cookies = cookieNames(httpsOnly);
    provider = new Provider(issuer, {
      adapter: sharedStoreAdapter(store, {
        keys: recordKeys,
        logger,
        ...(options.allowHttpClientIds ? { allowHttpClientIds: true } : {}),
        unusedClientTtlMs: limits.unusedClientTtlMs,
        alreadyUsed: (model) => new providerErrors.InvalidGrant(model === 'RefreshToken' ? 'refresh token already used' : 'authorization code already consumed'),
        requestedResources: () => {
          const requested = (Provider as unknown as { ctx?: { oidc?: { params?: { resource?: unknown } } } }).ctx?.oidc?.params?.resource;
          return (Array.isArray(requested) ? requested : [requested]).filter((resource): resource is string => typeof resource === 'string');
        },
      }),
      jwks: { keys: [signingJwk(options.stateKey)] },
      cookies: {
        keys: [cookieKey],
        names: { session: cookies.session, interaction: cookies.interaction, resume: cookies.resume },
        long: { httpOnly: true, sameSite: 'lax' },
        short: { httpOnly: true, sameSite: 'lax' },
      },
      // An account is a platform sign-in the vault can open: without one, a refresh fails (invalid_grant) and the client authorizes again.
      findAccount: async (_ctx: unknown, id: string) => ((await vault.get(id)) ? { accountId: id, claims: async () => ({ sub: id }) } : undefined),
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
      features: {
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
            if (!mountOfResource(resource)) throw new providerErrors.InvalidTarget(`${resource} is not an MCP endpoint of this server`);
            return { scope: MCP_SCOPE, audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_TTL_S };
          },
        },
      },
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
    });
    provider.use(async (ctx: any, next: () => Promise<void>) => {
      // Browsers reach a https public URL over https whatever the proxy forwards: cookies are Secure.
      if (httpsOnly) Object.defineProperty(ctx.request, 'secure', { value: true });
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
    });
    // Behind a proxy the protocol comes from X-Forwarded-Proto, which pinToPublicOrigin() sets.
    if (options.publicUrl) provider.proxy = true;
    provider.on('server_error', (ctx: { req?: IncomingMessage; state?: Record<string, unknown> } | undefined, error: Error) => {
      const log = ctx?.req ? requestLog(logger, ctx.req) : logger;
      if (isStoreFailure(error) && ctx?.state) {
        ctx.state.storeUnavailable = true;
        log.warn({ err: error.message }, 'OAuth request waits for the store');
      } else log.error({ err: error.message }, 'OAuth server error');
    });
    callback = provider.callback();
  }

  /**
   * oidc-provider builds its URLs (metadata endpoints, redirects) and cookie flags from the
   * request's host and protocol: both are set from the public URL, so a forged Host or
   * X-Forwarded-* header changes none of them.
   */
  function pinToPublicOrigin(req: IncomingMessage): void {
    const origin = new URL(publicUrl);
    req.headers.host = origin.host;
    req.headers['x-forwarded-proto'] = origin.protocol.slice(0, -1);
    for (const forwarded of ['x-forwarded-host', 'x-forwarded-port', 'forwarded']) delete req.headers[forwarded];
  }

  /** Hands a request to oidc-provider with /oauth as its mount path. */
  function toProvider(req: IncomingMessage, res: ServerResponse, path: string): void {
    const url = req.url ?? '/';
    (req as IncomingMessage & { originalUrl?: string }).originalUrl = url.startsWith(ISSUER_PATH) ? url : `${ISSUER_PATH}${path}`;
    req.url = url.startsWith(ISSUER_PATH) ? url.slice(ISSUER_PATH.length) || '/' : path;
    (callback as NonNullable<typeof callback>)(req, res);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    if (!provider) {
      sendJson(res, 503, { error: 'temporarily_unavailable', error_description: 'The server is starting.' });
      return true;
    }
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const protectedPrefix = '/.well-known/oauth-protected-resource';
    if (path.startsWith(protectedPrefix)) {
      const mount = mountFor(mounts, path.slice(protectedPrefix.length));
      if (!mount) return false;
      sendJson(
        res,
        200,
        {
          resource: resourceFor(path.slice(protectedPrefix.length)),
          authorization_servers: [issuer],
          scopes_supported: [MCP_SCOPE],
          bearer_methods_supported: ['header'],
          resource_name: `${mount.name} tools (toolservers)`,
        },
        { 'cache-control': METADATA_CACHE_CONTROL },
      );
      return true;
    }
    // RFC 8414 path insertion, the OpenID variant, and the bare path legacy clients probe on the resource origin.
    if (path === `/.well-known/oauth-authorization-server${ISSUER_PATH}` || path === `/.well-known/openid-configuration${ISSUER_PATH}` || path === '/.well-known/oauth-authorization-server' || path === `${ISSUER_PATH}/.well-known/openid-configuration`) {
      res.setHeader('cache-control', METADATA_CACHE_CONTROL);
      pinToPublicOrigin(req);
      toProvider(req, res, '/.well-known/openid-configuration');
      return true;
    }
    if (path !== ISSUER_PATH && !path.startsWith(`${ISSUER_PATH}/`)) return false;
    pinToPublicOrigin(req);
    const interaction = /^\/oauth\/interaction\/([A-Za-z0-9_-]{1,64})(\/confirm|\/callback)?$/.exec(path);
    try {
      if (!(await admission.admit(req, res))) return true;
      if (path === `${ISSUER_PATH}/callback`) await platformCallback(req, res);
      else if (interaction && !interaction[2] && req.method === 'GET') await showInteraction(req, res, interaction[1] as string);
      else if (interaction && interaction[2] === '/callback' && req.method === 'GET') await finishPlatformSignIn(req, res, interaction[1] as string);
      else if (interaction && interaction[2] === '/confirm' && req.method === 'POST') await confirm(req, res, interaction[1] as string);
      else toProvider(req, res, path.slice(ISSUER_PATH.length));
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (isStoreFailure(error)) {
        requestLog(logger, req).warn({ path, err: error instanceof Error ? error.message : String(error) }, 'OAuth interaction waits for the store');
        sendStoreUnavailable(res, true);
      } else if (name === 'SessionNotFound') {
        sendErrorPage(res, 400, 'Sign-in expired', 'This authorization is unknown to this browser or has expired.');
      } else {
        requestLog(logger, req).error({ path, err: error instanceof Error ? error.message : String(error) }, 'OAuth interaction failed');
        sendErrorPage(res, 500, 'Sign-in failed', 'The server could not complete the sign-in.');
      }
    }
    return true;
  }

  /** The one MCP endpoint an authorization request names, or why it cannot be served. */
  function requestedMount(params: Record<string, unknown>): { mount: OAuthMount; resource: string } | string {
    const raw = params.resource;
    const resources = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
    if (resources.length !== 1) return `The authorization request must name exactly one MCP endpoint as its resource (RFC 8707), e.g. ${resourceFor(mounts[0]?.path ?? '/mcp')}.`;
    const resource = String(resources[0]);
    const mount = mountOfResource(resource);
    return mount ? { mount, resource } : `${resource} is not an MCP endpoint of this server.`;
  }

  async function showInteraction(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return sendErrorPage(res, 400, 'Sign-in expired', 'This page belongs to another authorization.');
    const target = requestedMount(details.params);
    if (typeof target === 'string') {
      await provider.interactionFinished(req, res, { error: 'invalid_target', error_description: target }, { mergeWithLastSubmission: false });
      return;
    }
    const signedInRecord = await records.get(signedInKey(uid));
    if (signedInRecord === undefined) {
      // First visit: off to the platform's own sign-in and consent.
      const { auth } = target.mount;
      if (!auth.oauth.clientId) return sendErrorPage(res, 500, 'Sign-in not configured', `The server has no ${auth.name} OAuth client configured.`);
      const { startWebSignIn } = await import('../../signin/oauth.js');
      const redirectUri = `${publicUrl}${ISSUER_PATH}/callback`;
      const loginHint = typeof details.params.login_hint === 'string' ? details.params.login_hint : undefined;
      const started = await startWebSignIn({ ...auth.oauth, clientId: auth.oauth.clientId }, redirectUri, loginHint ? { login_hint: loginHint } : {});
      // The platform's answer counts only in the browser that holds this nonce (RFC 9700 4.7).
      const nonce = randomBytes(32).toString('base64url');
      const pending: PendingSignIn = { uid, platform: auth.platform, redirectUri, state: started.state, codeVerifier: started.codeVerifier, browserHash: sha256(nonce) };
      // One pending sign-in per interaction: reloading this page replaces it rather than adding more.
      const replaced = (await records.get(pendingStateKey(uid)))?.state;
      if (typeof replaced === 'string') await store.delete(pendingKey(replaced));
      await records.set(pendingKey(started.state), pending, SIGN_IN_TTL_MS);
      await records.set(pendingStateKey(uid), { state: started.state }, SIGN_IN_TTL_MS);
      res.writeHead(303, { location: started.url, 'cache-control': 'no-store', 'set-cookie': signInCookie(uid, nonce, SIGN_IN_TTL_MS / 1000) });
      res.end();
      return;
    }
    const signedIn = signedInRecord as unknown as SignedIn | { error: string; description: string };
    if ('error' in signedIn) {
      await store.delete(signedInKey(uid));
      await provider.interactionFinished(req, res, { error: signedIn.error, error_description: signedIn.description }, { mergeWithLastSubmission: false });
      return;
    }
    const client = await provider.Client.find(details.params.client_id);
    const clientId = String(details.params.client_id);
    sendConsentPage(res, {
      action: `${ISSUER_PATH}/interaction/${uid}/confirm`,
      csrf: signedIn.csrf,
      clientName: String(client?.clientName ?? clientId),
      clientId,
      // A client with one redirect URI may leave it out of the request.
      redirectUri: String(details.params.redirect_uri ?? client?.redirectUris?.[0] ?? ''),
      ...(/^https?:\/\//.test(clientId) ? { documentHost: new URL(clientId).host } : {}),
      serverName: target.mount.name,
      resource: target.resource,
      scopes: [MCP_SCOPE],
      account: signedIn.account,
    });
  }

  function signInCookie(uid: string, nonce: string, maxAgeSeconds: number): string {
    return `${cookies.signIn(uid)}=${nonce}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${httpsOnly ? '; Secure' : ''}`;
  }

  /**
   * The platform sends the browser back here (the one redirect URI registered with it). The answer
   * moves on to its interaction's path, where the browser's interaction cookie is sent.
   */
  async function platformCallback(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const query = new URL(req.url ?? '/', 'http://callback').search;
    const state = new URLSearchParams(query).get('state');
    const pending = state ? ((await records.get(pendingKey(state))) as PendingSignIn | undefined) : undefined;
    if (pending === undefined) return sendErrorPage(res, 400, 'Sign-in expired', 'This sign-in answer is unknown, was already used or has expired.');
    const { uid } = pending;
    res.writeHead(303, { location: `${ISSUER_PATH}/interaction/${uid}/callback${query}`, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    res.end();
  }

  /**
   * The platform's answer, accepted only from the browser that was sent to the platform: it holds
   * the interaction and the sign-in cookie. Otherwise nothing is exchanged or recorded (a victim's
   * browser brought here by someone else's link must not sign that someone in as the victim).
   */
  async function finishPlatformSignIn(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const received = new URL(req.url ?? '/', 'http://callback').searchParams;
    const state = received.get('state');
    const key = pendingKey(state ?? '');
    const pending = state ? ((await records.get(key)) as PendingSignIn | undefined) : undefined;
    if (pending === undefined) return sendErrorPage(res, 400, 'Sign-in expired', 'This sign-in answer is unknown, was already used or has expired.');
    const details = await provider.interactionDetails(req, res).catch((error: { name?: string }) => {
      if (error?.name === 'SessionNotFound') return undefined;
      throw error;
    });
    const nonce = cookieValue(req, cookies.signIn(uid));
    if (pending.uid !== uid || details?.uid !== uid || !nonce || !sameSecret(sha256(nonce), pending.browserHash)) {
      requestLog(logger, req).warn({ platform: pending.platform }, 'refused a platform sign-in answer in a browser that did not start it');
      return sendErrorPage(res, 403, 'Sign-in not accepted', 'This sign-in did not start in this browser, so it was not used. If you did not just start connecting an application, you can ignore this page.');
    }
    // One use, even when the answer reaches two replicas at once.
    if ((await store.take(key)) === undefined) return sendErrorPage(res, 400, 'Sign-in expired', 'This sign-in answer was already used.');
    await store.delete(pendingStateKey(uid));
    const mount = mounts.find((candidate) => candidate.auth.platform === pending.platform) as OAuthMount;
    const { auth } = mount;
    const next = (value: SignedIn | { error: string; description: string }) => records.set(signedInKey(pending.uid), value, SIGN_IN_TTL_MS);
    try {
      const { finishWebSignIn } = await import('../../signin/oauth.js');
      const tokens = await finishWebSignIn({ ...auth.oauth, clientId: auth.oauth.clientId as string }, received, pending, { timeoutMs: 20_000 });
      const account = await auth.lookupAccount(tokens.accessToken);
      if (!account?.id) {
        await next({ error: 'access_denied', description: `${auth.name} did not say who signed in.` });
      } else {
        const userKey = `${auth.platform}:${account.id}`;
        const platformTokens: PlatformTokens = {
          accessToken: tokens.accessToken,
          tokenType: tokens.tokenType,
          obtainedAt: Date.now(),
          ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
          ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
          ...(tokens.scope ? { scope: tokens.scope } : {}),
          account,
        };
        const who = account.name ? `${account.name}${account.email ? ` <${account.email}>` : ''}` : account.email ?? account.id;
        await next({ userKey, account: who, csrf: randomBytes(24).toString('base64url'), sealed: await vault.seal(userKey, platformTokens) });
        requestLog(logger, req).info({ platform: auth.platform, account: account.id }, 'platform sign-in for an MCP client');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      requestLog(logger, req).warn({ platform: auth.platform, err: message }, 'platform sign-in failed');
      await next({ error: 'access_denied', description: `Signing in to ${auth.name} failed: ${message}` });
    }
    res.writeHead(303, { location: `${ISSUER_PATH}/interaction/${pending.uid}`, 'cache-control': 'no-store', 'set-cookie': signInCookie(uid, '', 0) });
    res.end();
  }

  /** The consent form's answer. */
  async function confirm(req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) return sendErrorPage(res, 400, 'Sign-in expired', 'This form belongs to another authorization.');
    const form = await readForm(req);
    const signedIn = (await records.get(signedInKey(uid))) as Partial<SignedIn> | undefined;
    const csrf = form?.get('csrf');
    if (!signedIn?.csrf || !signedIn.userKey || !signedIn.sealed || !csrf || !sameSecret(csrf, signedIn.csrf)) {
      return sendErrorPage(res, 403, 'Form not accepted', 'The consent form was not sent from the page this server showed.');
    }
    // One answer per sign-in, even when the form is sent twice to two replicas at once.
    if ((await records.take(signedInKey(uid))) === undefined) return sendErrorPage(res, 400, 'Sign-in expired', 'This consent was already answered.');
    if (form?.get('decision') !== 'allow') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user denied access.' }, { mergeWithLastSubmission: false });
      return;
    }
    const target = requestedMount(details.params);
    if (typeof target === 'string') return sendErrorPage(res, 400, 'Invalid request', target);
    const tokens = await vault.open(signedIn.userKey, signedIn.sealed);
    if (!tokens) return sendErrorPage(res, 400, 'Sign-in expired', 'The platform sign-in could not be read back.');
    await vault.put(signedIn.userKey, tokens);
    const grant = new provider.Grant({ accountId: signedIn.userKey, clientId: details.params.client_id });
    grant.addOIDCScope(`openid offline_access ${MCP_SCOPE}`);
    grant.addResourceScope(target.resource, MCP_SCOPE);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { login: { accountId: signedIn.userKey }, consent: { grantId } }, { mergeWithLastSubmission: false });
  }

  async function authenticate(req: IncomingMessage, res: ServerResponse): Promise<RequestIdentity | undefined> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const resourceMetadataUrl = metadataUrlFor(path);
    try {
      if (!provider) throw new OAuthError(OAuthErrorCode.ServerError, 'The server is starting.');
      const info = await verifyBearerToken(req.headers.authorization, { verifier, requiredScopes: [MCP_SCOPE], expectedResource: new URL(resourceFor(path)), resourceMetadataUrl });
      const platformTokens = info.extra?.platformTokens as PlatformTokens | undefined;
      return { userKey: String(info.extra?.userKey), ...(platformTokens ? { platformTokens } : {}) };
    } catch (error) {
      if (isStoreFailure(error)) {
        requestLog(logger, req).warn({ path, err: (error as Error).message }, 'bearer check waits for the store');
        sendStoreUnavailable(res, false);
        return undefined;
      }
      if (!(error instanceof OAuthError)) requestLog(logger, req).error({ path, err: error instanceof Error ? error.message : String(error) }, 'bearer check failed');
      else requestLog(logger, req).info({ path, reason: error.message }, 'rejected MCP request: bearer token refused');
      await sendWebResponse(res, bearerAuthChallengeResponse(error, { requiredScopes: [MCP_SCOPE], resourceMetadataUrl }));
      return undefined;
    }
  }

  return { start, handle, authenticate };
}
