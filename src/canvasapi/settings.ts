import { nonEmpty, requireUrl, timeoutSetting } from '../core/settings.js';
import { INVITE_ALLOWLIST_ENV, parseInviteAllowlist, type InviteAllowlist } from './invite-allowlist.js';

/** Where CanvasApi credentials and the API host come from. Flags win over environment variables. */

export const CANVASAPI_DEFAULT_BASE_URL = 'https://api.miro.com';

export const CANVASAPI_ENV = {
  accessToken: 'CANVASAPI_ACCESS_TOKEN',
  baseUrl: 'CANVASAPI_BASE_URL',
  timeoutMs: 'CANVASAPI_TIMEOUT_MS',
  clientId: 'CANVASAPI_CLIENT_ID',
  clientSecret: 'CANVASAPI_CLIENT_SECRET',
  authorizeUrl: 'CANVASAPI_AUTHORIZE_URL',
  tokenUrl: 'CANVASAPI_TOKEN_URL',
} as const;

/** The platform's own sign-in endpoints (operators of a self-hosted install bring their own app credentials). */
export const CANVASAPI_DEFAULT_AUTHORIZE_URL = 'https://miro.com/oauth/authorize';
export const CANVASAPI_DEFAULT_TOKEN_URL = 'https://api.miro.com/v1/oauth/token';

export interface CanvasApiOAuthSettings {
  clientId?: string;
  clientSecret?: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** The platform's JSON revoke endpoint, on the API host. */
  revokeUrl: string;
}

export interface CanvasApiSettings {
  /** OAuth access token, sent as `Authorization: Bearer <token>`. */
  accessToken?: string;
  /** Host root; catalogue paths carry their own `/v1`, `/v2` or `/v2-experimental` prefix. */
  baseUrl: string;
  timeoutMs: number;
  /** For `toolservers login canvasapi` and for renewing a stored sign-in. */
  oauth: CanvasApiOAuthSettings;
  /** Whom tools may invite or add by e-mail; unset: anyone. */
  inviteAllowlist?: InviteAllowlist;
}

export interface CanvasApiSettingsInput {
  accessToken?: string;
  baseUrl?: string;
  timeoutMs?: number;
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** Comma-separated e-mail domains and addresses (--invite-allowed-domains). */
  inviteAllowedDomains?: string;
}

export function resolveCanvasApiSettings(flags: CanvasApiSettingsInput = {}, env: NodeJS.ProcessEnv = process.env): CanvasApiSettings {
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env[CANVASAPI_ENV.baseUrl]) ?? CANVASAPI_DEFAULT_BASE_URL;
  requireUrl(baseUrl, `${CANVASAPI_ENV.baseUrl} / --base-url`);
  const timeoutMs = timeoutSetting(flags.timeoutMs, env[CANVASAPI_ENV.timeoutMs], CANVASAPI_ENV.timeoutMs);
  const pick = (key: 'clientId' | 'clientSecret' | 'authorizeUrl' | 'tokenUrl') => nonEmpty(flags[key]) ?? nonEmpty(env[CANVASAPI_ENV[key]]);
  const oauth: CanvasApiOAuthSettings = {
    authorizeUrl: requireUrl(pick('authorizeUrl') ?? CANVASAPI_DEFAULT_AUTHORIZE_URL, CANVASAPI_ENV.authorizeUrl),
    tokenUrl: requireUrl(pick('tokenUrl') ?? CANVASAPI_DEFAULT_TOKEN_URL, CANVASAPI_ENV.tokenUrl),
    revokeUrl: `${baseUrl.replace(/\/+$/, '')}/v2/oauth/revoke`,
  };
  const clientId = pick('clientId');
  const clientSecret = pick('clientSecret');
  if (clientId) oauth.clientId = clientId;
  if (clientSecret) oauth.clientSecret = clientSecret;
  const settings: CanvasApiSettings = { baseUrl, timeoutMs, oauth };
  const inviteAllowlist = parseInviteAllowlist(nonEmpty(flags.inviteAllowedDomains) ?? nonEmpty(env[INVITE_ALLOWLIST_ENV]));
  if (inviteAllowlist) settings.inviteAllowlist = inviteAllowlist;
  const accessToken = nonEmpty(flags.accessToken) ?? nonEmpty(env[CANVASAPI_ENV.accessToken]);
  if (accessToken) settings.accessToken = accessToken;
  return settings;
}
