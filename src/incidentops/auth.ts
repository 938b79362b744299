/** How IncidentOps sign-in works: classic OAuth app, read-only access (scope `read`), identity service per region. */
import { staticCredentials } from '../core/auth/credentials.js';
import type { PlatformAuth } from '../core/auth/platform-auth.js';
import { silentLogger } from '../core/logger.js';
import { IncidentOpsApi } from './api.js';
import { INCIDENTOPS_ENV, incidentOpsExplicitToken, type IncidentOpsSettings } from './settings.js';

export function incidentOpsAuth(settings: IncidentOpsSettings, fetchImpl?: typeof fetch): PlatformAuth {
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
    },
    clientIdSetting: INCIDENTOPS_ENV.clientId,
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
