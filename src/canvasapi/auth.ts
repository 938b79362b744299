/** How CanvasApi sign-in works: the platform's OAuth with the operator's own app credentials; JSON revoke on the API host. */
import { staticCredentials } from '../core/signin/credentials.js';
import type { PlatformAuth } from '../core/signin/platform-auth.js';
import { silentLogger } from '../core/logger.js';
import { createCanvasApiClient } from './index.js';
import { CANVASAPI_DEFAULT_TOKEN_URL, CANVASAPI_ENV, type CanvasApiSettings } from './settings.js';

type Json = Record<string, unknown>;

export interface CanvasApiAuthOptions {
  fetch?: typeof fetch;
  /**
   * Whether the token URL was set by a flag or CANVASAPI_TOKEN_URL (then it wins over the one
   * stored with a sign-in). Default: when it differs from the platform's default.
   */
  explicit?: { tokenUrl?: boolean };
}

export function canvasApiAuth(settings: CanvasApiSettings, options: CanvasApiAuthOptions = {}): PlatformAuth {
  const fetchImpl = options.fetch;
  const explicitTokenUrl = options.explicit?.tokenUrl ?? settings.oauth.tokenUrl !== CANVASAPI_DEFAULT_TOKEN_URL;
  return {
    platform: 'canvasapi',
    name: 'CanvasApi',
    baseUrl: settings.baseUrl,
    ...(settings.accessToken ? { explicit: { token: settings.accessToken, scheme: 'Bearer', setting: CANVASAPI_ENV.accessToken } } : {}),
    oauth: {
      authorizeUrl: settings.oauth.authorizeUrl,
      tokenUrl: settings.oauth.tokenUrl,
      // Derived from the base URL (no setting of its own): the URL stored with a sign-in wins.
      revokeUrl: settings.oauth.revokeUrl,
      ...(settings.oauth.clientId ? { clientId: settings.oauth.clientId } : {}),
      ...(settings.oauth.clientSecret ? { clientSecret: settings.oauth.clientSecret } : {}),
      explicit: { tokenUrl: explicitTokenUrl, revokeUrl: false },
    },
    settingNames: { clientId: CANVASAPI_ENV.clientId, clientSecret: CANVASAPI_ENV.clientSecret, tokenUrl: CANVASAPI_ENV.tokenUrl, baseUrl: CANVASAPI_ENV.baseUrl },
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
