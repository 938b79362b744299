/**
 * The whiteboard platform emulator (wire-compatible with the Miro REST API v2 subset the CanvasApi
 * tools call), written from the platform's OpenAPI document. Stateful and deterministic: a seeded
 * demo organization that every create/update/delete changes for the lifetime of the platform.
 *
 * Every request goes through, in this order:
 *  1. Authentication: `Authorization: Bearer <token>` with the configured, not revoked token or a
 *     live token issued by the platform's OAuth server (`/oauth/authorize`, `/v1/oauth/token`), else
 *     401 with code tokenNotProvided / tokenInvalid / tokenExpired / tokenRevoked
 *     (`GET /v1/oauth-token` answers 400, as the spec declares). The OAuth endpoints and token
 *     revocation authenticate by their parameters instead.
 *  2. Routing: unknown path -> 404, known path with another method -> 405 (with `Allow`).
 *  3. Plan: enterprise endpoints -> 403 when the sandbox is not on the enterprise plan.
 *  4. Body: JSON only (other content types and malformed JSON -> 400), required where the spec
 *     says so.
 *  5. The endpoint's own validation (400), lookups (404), conflicts (409) and the change itself.
 *
 * Errors always use the platform's error body `{ status, code, message, type: 'error' }`.
 */
import { OAuthAuthority, type OAuthSettings, type TokenVerification } from '../oauth.js';
import type { SandboxPlatform, SandboxRequest, SandboxResponse } from '../exchange.js';
import { registerBoards } from './boards.js';
import { registerCompliance } from './compliance.js';
import { registerConnectors } from './connectors.js';
import { seedDemo } from './demo.js';
import { registerGroups } from './groups.js';
import { ApiError, Query, parseJsonBody } from './http.js';
import { registerItems } from './items.js';
import { registerMindmaps } from './mindmaps.js';
import { Store } from './model.js';
import { registerOrg } from './org.js';
import { registerProjects } from './projects.js';
import { Router, type Ctx } from './router.js';
import { registerTags } from './tags.js';
import { ALL_SCOPES, BASE_SCOPES, registerOAuth, registerTokens } from './tokens.js';
import { registerWebhooks } from './webhooks.js';

export interface CanvasApiPlatformOptions {
  token: string;
  now?: () => Date;
  /** Enterprise plan (default true): false makes every enterprise endpoint answer 403. */
  enterprise?: boolean;
  /** PRNG seed of the demo data (default 4242). */
  seed?: number;
  /** The OAuth authorization server's settings (client, token lifetime, consent, clock). */
  oauth?: OAuthSettings;
}

export interface CanvasApiDemo {
  organizationId: string;
  teamId: string;
  projectId: string;
  boardIds: string[];
  appId: string;
}

export const CANVASAPI_PREFIX = 'canvasapi';
export const DEFAULT_CANVASAPI_SEED = 4242;

function buildRouter(): Router {
  const router = new Router();
  registerTokens(router);
  registerOAuth(router);
  registerBoards(router);
  registerItems(router);
  registerConnectors(router);
  registerTags(router);
  registerGroups(router);
  registerMindmaps(router);
  registerWebhooks(router);
  registerOrg(router);
  registerProjects(router);
  registerCompliance(router);
  return router;
}

/** The OAuth token's verification (undefined for the static token), or the 401 to answer. */
function authenticate(store: Store, oauth: OAuthAuthority, req: SandboxRequest): ApiError | { token?: TokenVerification } {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return new ApiError(401, 'tokenNotProvided', 'No access token was provided: send Authorization: Bearer <token>');
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return new ApiError(401, 'tokenInvalid', 'Unsupported authorization scheme: send Authorization: Bearer <token>');
  const presented = m[1] as string;
  if (presented === store.token) {
    if (store.tokenRevoked) return new ApiError(401, 'tokenRevoked', 'The access token has been revoked');
    return {};
  }
  const token = oauth.verify(presented);
  if (token.status === 'valid') return { token };
  if (token.status === 'expired') return new ApiError(401, 'tokenExpired', 'The access token has expired: refresh it with the refresh token');
  if (token.status === 'revoked') return new ApiError(401, 'tokenRevoked', 'The access token has been revoked');
  return new ApiError(401, 'tokenInvalid', 'The access token is invalid');
}

export function createCanvasApiPlatform(options: CanvasApiPlatformOptions): SandboxPlatform & { readonly demo: CanvasApiDemo; readonly oauth: OAuthAuthority } {
  const store = new Store({ token: options.token, now: options.now ?? (() => new Date()), enterprise: options.enterprise ?? true, seed: options.seed ?? DEFAULT_CANVASAPI_SEED });
  const demo = seedDemo(store);
  const router = buildRouter();
  const me = store.me();
  const oauth = new OAuthAuthority({
    ...options.oauth,
    flavour: 'canvasapi',
    displayName: 'CanvasApi sandbox',
    userId: store.meId,
    userName: `${me.firstName} ${me.lastName}`,
    teamId: store.defaultTeamId,
    // Members of the organization can sign in (picker and login_hint); each token acts as its user.
    users: () => store.orgUsers().map((user) => ({ id: user.id, name: `${user.firstName} ${user.lastName}`, email: user.email })),
    supportedScopes: store.enterprise ? ALL_SCOPES : BASE_SCOPES,
  });

  const handle = (req: SandboxRequest): SandboxResponse => {
    try {
      const match = router.match(req.method.toUpperCase(), req.path);
      const route = match.kind === 'ok' ? match.route : undefined;
      let token: TokenVerification | undefined;
      if (!route?.noAuth) {
        const auth = authenticate(store, oauth, req);
        if (auth instanceof ApiError) {
          if (req.path.replace(/\/+$/, '') === '/v1/oauth-token') throw new ApiError(400, 'invalidToken', auth.message);
          throw auth;
        }
        token = auth.token;
      }
      if (match.kind === 'none') throw new ApiError(404, 'notFound', `No endpoint ${req.method.toUpperCase()} ${req.path}`);
      if (match.kind === 'method') {
        const err = new ApiError(405, 'methodNotAllowed', `${req.method.toUpperCase()} is not supported on ${req.path}; allowed: ${match.allowed.join(', ')}`).toResponse();
        return { ...err, headers: { allow: match.allowed.join(', ') } };
      }
      if (match.route.enterprise && !store.enterprise) {
        throw new ApiError(403, 'forbidden', 'Forbidden: this API is available only for organizations on the Enterprise plan');
      }
      const ctx: Ctx = {
        store,
        req,
        params: match.params,
        query: new Query(req.query),
        body: parseJsonBody(req, match.route.body ?? 'none'),
        base: req.baseUrl,
        oauth,
        ...(token ? { token } : {}),
      };
      return match.route.handler(ctx);
    } catch (err) {
      if (err instanceof ApiError) return err.toResponse();
      throw err;
    }
  };

  return { prefix: CANVASAPI_PREFIX, handle, demo, oauth };
}
