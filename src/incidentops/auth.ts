/** How IncidentOps sign-in works: classic OAuth app, read-only access (scope `read`), identity service per region. */
import { staticCredentials } from '../core/signin/credentials.js';
import type { PlatformAuth } from '../core/signin/platform-auth.js';
import { silentLogger } from '../core/logger.js';
import { IncidentOpsApi } from './api.js';
import { INCIDENTOPS_ENV, INCIDENTOPS_IDENTITY_HOSTS, incidentOpsExplicitToken, type IncidentOpsSettings } from './settings.js';

export interface IncidentOpsAuthOptions {
  fetch?: typeof fetch;
  /**
   * Whether the token and revoke URLs were set by a flag or INCIDENTOPS_TOKEN_URL /
   * INCIDENTOPS_REVOKE_URL (then they win over the ones stored with a sign-in). Default: when they
   * differ from the identity service's defaults.
   */
  explicit?: { tokenUrl?: boolean; revokeUrl?: boolean };
}

function isDefaultIdentityUrl(url: string, path: string): boolean {
  return Object.values(INCIDENTOPS_IDENTITY_HOSTS).some((host) => url === `${host}${path}`);
}

export function incidentOpsAuth(settings: IncidentOpsSettings, options: IncidentOpsAuthOptions = {}): PlatformAuth {
  const fetchImpl = options.fetch;
  const explicit = incidentOpsExplicitToken(settings);
  return {
    platform: 'incidentops',
    name: 'IncidentOps',
    baseUrl: settings.baseUrl,
    ...(explicit ? { explicit: { ...explicit, setting: settings.accessToken ? INCIDENTOPS_ENV.accessToken : INCIDENTOPS_ENV.apiToken } } : {}),
    oauth: {
      authorizeUrl: settings.oauth.authorizeUrl,
      tokenUrl: settings.oauth.tokenUrl,
      revokeUrl: settings.oauth.revokeUrl,
      scope: settings.oauth.scope,
      ...(settings.oauth.clientId ? { clientId: settings.oauth.clientId } : {}),
      ...(settings.oauth.clientSecret ? { clientSecret: settings.oauth.clientSecret } : {}),
      explicit: {
        tokenUrl: options.explicit?.tokenUrl ?? !isDefaultIdentityUrl(settings.oauth.tokenUrl, '/oauth/token'),
        revokeUrl: options.explicit?.revokeUrl ?? !isDefaultIdentityUrl(settings.oauth.revokeUrl, '/oauth/revoke'),
      },
    },
    settingNames: { clientId: INCIDENTOPS_ENV.clientId, clientSecret: INCIDENTOPS_ENV.clientSecret, tokenUrl: INCIDENTOPS_ENV.tokenUrl, baseUrl: INCIDENTOPS_ENV.baseUrl },
    revokeStyle: 'rfc7009',
    lookupAccount: async (accessToken) => {
      try {
        const api = new IncidentOpsApi(settings, silentLogger, fetchImpl, staticCredentials(`Bearer ${accessToken}`));
        const user = await api.getOne('/users/me', {}, 'user', AbortSignal.timeout(15_000), 'the signed-in user');
        return { id: String(user.id), ...(typeof user.name === 'string' ? { name: user.name } : {}), ...(typeof user.email === 'string' ? { email: user.email } : {}) };
      } catch {
        return undefined;
      }
    },
  };
}
