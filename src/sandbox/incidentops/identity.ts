/**
 * The incident platform's identity service (a separate host in reality), mounted as its own
 * sandbox platform: OAuth 2.0 authorize / approve / token / RFC 7009 revoke for user tokens that
 * the incident API emulator then accepts as `Authorization: Bearer <token>`.
 *
 *   GET  /oauth/authorize   authorization request (PKCE S256 required)
 *   POST /oauth/approve     the consent page's "Allow" form (consent mode 'click')
 *   POST /oauth/token       authorization_code and refresh_token grants
 *   POST /oauth/revoke      RFC 7009 revocation
 */
import { DEMO_USER_ID, DEMO_USER_NAME } from './data.js';
import { OAuthAuthority, type OAuthSettings, type SandboxUser } from '../oauth.js';
import type { SandboxPlatform, SandboxRequest, SandboxResponse } from '../exchange.js';

export const INCIDENTOPS_IDENTITY_PREFIX = 'incidentops-identity';
/** Classic user-token scopes of the incident platform. */
export const INCIDENTOPS_SCOPES = ['read', 'write'] as const;

export function createIncidentOpsAuthority(settings: OAuthSettings = {}, users?: () => readonly SandboxUser[]): OAuthAuthority {
  return new OAuthAuthority({
    ...settings,
    flavour: 'incidentops',
    displayName: 'IncidentOps sandbox',
    userId: DEMO_USER_ID,
    userName: DEMO_USER_NAME,
    supportedScopes: INCIDENTOPS_SCOPES,
    defaultScopes: ['read'],
    ...(users ? { users } : {}),
  });
}

export function createIncidentOpsIdentityPlatform(authority: OAuthAuthority): SandboxPlatform {
  const routes: Record<string, { method: string; run: (req: SandboxRequest) => SandboxResponse }> = {
    '/oauth/authorize': { method: 'GET', run: (req) => authority.authorize(req) },
    '/oauth/approve': { method: 'POST', run: (req) => authority.approve(req) },
    '/oauth/token': { method: 'POST', run: (req) => authority.token(req) },
    '/oauth/revoke': { method: 'POST', run: (req) => authority.revokeRequest(req) },
  };
  return {
    prefix: INCIDENTOPS_IDENTITY_PREFIX,
    handle(req) {
      const route = routes[req.path.replace(/\/+$/, '')];
      if (!route) return { status: 404, body: { error: 'not_found', error_description: `No identity endpoint at ${req.path}.` } };
      const method = req.method.toUpperCase();
      if (method !== route.method && !(route.method === 'GET' && method === 'HEAD')) {
        return { status: 405, headers: { allow: route.method }, body: { error: 'invalid_request', error_description: `Use ${route.method} on ${req.path}.` } };
      }
      return route.run(req);
    },
  };
}
