/**
 * The bearer check of every MCP request in OAuth mode, with the SDK's `verifyBearerToken`: the
 * token must be known, unexpired, of a grant that still exists, for this endpoint (audience = the
 * endpoint's URL, RFC 8707) with scope `mcp:tools`, and its platform sign-in must open. A refusal
 * is answered here: 401 with a challenge naming the resource metadata and the scope; a store that
 * does not answer gets 503. On the path of every call: the token and its grant are read together,
 * then the sealed platform sign-in (memory first: record-cache.ts and the vault), nothing more.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerAuthChallengeResponse, OAuthError, OAuthErrorCode, verifyBearerToken, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import type { RequestIdentity } from '../../platform/request-identity.js';
import { requestLog } from '../http/request-id.js';
import { isStoreFailure, sendStoreUnavailable, sendWebResponse } from './answers.js';
import { MCP_SCOPE, metadataUrlFor, resourceFor, type PublicSite } from './endpoints.js';
import type { PlatformTokens, TokenVault } from './vault.js';

/** An access token as oidc-provider finds it (only the fields read here are named). */
export interface FoundAccessToken {
  isExpired: boolean;
  accountId: unknown;
  clientId: unknown;
  grantId?: unknown;
  scope?: unknown;
  exp?: unknown;
  aud?: unknown;
}

/** What the bearer check reads of oidc-provider: access tokens and their grants. */
export interface TokenRecords {
  AccessToken: { find(token: string): Promise<FoundAccessToken | undefined> };
  Grant: { find(grantId: unknown): Promise<unknown> };
}

/** The state the bearer check reads: fixed once the server starts. */
export interface BearerCheck {
  site: PublicSite;
  /** Undefined while the server is starting: every token is refused. */
  verifier: OAuthTokenVerifier | undefined;
  logger: Logger;
}

const UNKNOWN_TOKEN = 'The access token is unknown, expired or revoked.';

/** Finds the token, its grant and its user's platform sign-in; throws invalid_token when any is missing. */
export function tokenVerifier(tokens: TokenRecords, vault: Pick<TokenVault, 'get'>): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const found = await tokens.AccessToken.find(token);
      if (!found || found.isExpired) throw new OAuthError(OAuthErrorCode.InvalidToken, UNKNOWN_TOKEN);
      // A grant revoked while another replica was still issuing this token (a code or refresh token used twice at once) ends it too.
      const userKey = String(found.accountId);
      const [grant, platformTokens] = await Promise.all([found.grantId ? tokens.Grant.find(found.grantId) : undefined, vault.get(userKey)]);
      if (!grant) throw new OAuthError(OAuthErrorCode.InvalidToken, UNKNOWN_TOKEN);
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
}

/** Checks an MCP request's bearer token; answers the refusal itself and returns undefined then. */
export async function checkBearer(check: BearerCheck, req: IncomingMessage, res: ServerResponse): Promise<RequestIdentity | undefined> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const resourceMetadataUrl = metadataUrlFor(check.site, path);
  try {
    if (!check.verifier) throw new OAuthError(OAuthErrorCode.ServerError, 'The server is starting.');
    const info = await verifyBearerToken(req.headers.authorization, { verifier: check.verifier, requiredScopes: [MCP_SCOPE], expectedResource: new URL(resourceFor(check.site, path)), resourceMetadataUrl });
    const platformTokens = info.extra?.platformTokens as PlatformTokens | undefined;
    return { userKey: String(info.extra?.userKey), ...(platformTokens ? { platformTokens } : {}) };
  } catch (error) {
    if (isStoreFailure(error)) {
      requestLog(check.logger, req).warn({ path, err: (error as Error).message }, 'bearer check waits for the store');
      sendStoreUnavailable(res, false);
      return undefined;
    }
    if (!(error instanceof OAuthError)) requestLog(check.logger, req).error({ path, err: error instanceof Error ? error.message : String(error) }, 'bearer check failed');
    else requestLog(check.logger, req).info({ path, reason: error.message }, 'rejected MCP request: bearer token refused');
    await sendWebResponse(res, bearerAuthChallengeResponse(error, { requiredScopes: [MCP_SCOPE], resourceMetadataUrl }));
    return undefined;
  }
}
