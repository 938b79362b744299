/** How CanvasApi sign-in works: the platform's OAuth with the operator's own app credentials; JSON revoke on the API host. */
import { staticCredentials } from '../core/auth/credentials.js';
import type { PlatformAuth } from '../core/auth/platform-auth.js';
import { silentLogger } from '../core/logger.js';
import { createCanvasApiClient } from './index.js';
import { CANVASAPI_ENV, type CanvasApiSettings } from './settings.js';

type Json = Record<string, unknown>;

export function canvasApiAuth(settings: CanvasApiSettings, fetchImpl?: typeof fetch): PlatformAuth {
  return {
    platform: 'canvasapi',
    name: 'CanvasApi',
    baseUrl: settings.baseUrl,
    ...(settings.accessToken ? { explicit: { token: settings.accessToken, scheme: 'Bearer', setting: CANVASAPI_ENV.accessToken } } : {}),
    oauth: {
      authorizeUrl: settings.oauth.authorizeUrl,
      tokenUrl: settings.oauth.tokenUrl,
      revokeUrl: settings.oauth.revokeUrl,
      ...(settings.oauth.clientId ? { clientId: settings.oauth.clientId } : {}),
      ...(settings.oauth.clientSecret ? { clientSecret: settings.oauth.clientSecret } : {}),
    },
    clientIdSetting: CANVASAPI_ENV.clientId,
    revokeStyle: 'canvas-json',
    lookupAccount: async (accessToken) => {
      try {
        const client = createCanvasApiClient(settings, silentLogger, fetchImpl, staticCredentials(`Bearer ${accessToken}`));
        const { data } = await client.request<Json>({ method: 'GET', path: '/v1/oauth-token', signal: AbortSignal.timeout(15_000) });
        const user = (data?.user ?? {}) as Json;
        return { ...(user.id !== undefined ? { id: String(user.id) } : {}), ...(typeof user.name === 'string' ? { name: user.name } : {}) };
      } catch {
        return undefined;
      }
    },
  };
}
