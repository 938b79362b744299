import { nonEmpty, requireUrl, SettingsError, timeoutSetting } from '../core/settings.js';

/** Where IncidentOps credentials and the API host come from. Flags win over environment variables. */

export const INCIDENTOPS_HOSTS = {
  us: 'https://api.pagerduty.com',
  eu: 'https://api.eu.pagerduty.com',
} as const;

export type IncidentOpsRegion = keyof typeof INCIDENTOPS_HOSTS;

/** The identity service that signs users in (classic OAuth app, read-only access level: scope `read`). */
export const INCIDENTOPS_IDENTITY_HOSTS: Record<IncidentOpsRegion, string> = {
  us: 'https://identity.pagerduty.com',
  eu: 'https://identity.eu.pagerduty.com',
};

export interface IncidentOpsOAuthSettings {
  clientId?: string;
  clientSecret?: string;
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  scope: string;
}

export interface IncidentOpsSettings {
  /** OAuth user token, sent as `Authorization: Bearer <token>`. */
  accessToken?: string;
  /** REST API key, sent as `Authorization: Token token=<key>`. */
  apiToken?: string;
  baseUrl: string;
  timeoutMs: number;
  /** For `toolservers login incidentops` and for renewing a stored sign-in. */
  oauth: IncidentOpsOAuthSettings;
}

export interface IncidentOpsSettingsInput {
  accessToken?: string;
  apiToken?: string;
  baseUrl?: string;
  region?: string;
  timeoutMs?: number;
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  revokeUrl?: string;
}

export const INCIDENTOPS_ENV = {
  accessToken: 'INCIDENTOPS_ACCESS_TOKEN',
  apiToken: 'INCIDENTOPS_API_TOKEN',
  baseUrl: 'INCIDENTOPS_BASE_URL',
  region: 'INCIDENTOPS_REGION',
  timeoutMs: 'INCIDENTOPS_TIMEOUT_MS',
  clientId: 'INCIDENTOPS_CLIENT_ID',
  clientSecret: 'INCIDENTOPS_CLIENT_SECRET',
  authorizeUrl: 'INCIDENTOPS_AUTHORIZE_URL',
  tokenUrl: 'INCIDENTOPS_TOKEN_URL',
  revokeUrl: 'INCIDENTOPS_REVOKE_URL',
} as const;

export function resolveIncidentOpsSettings(flags: IncidentOpsSettingsInput = {}, env: NodeJS.ProcessEnv = process.env): IncidentOpsSettings {
  const region = (nonEmpty(flags.region) ?? nonEmpty(env[INCIDENTOPS_ENV.region]) ?? 'us').toLowerCase();
  if (!(region in INCIDENTOPS_HOSTS)) {
    throw new SettingsError(`Unknown IncidentOps region "${region}": use "us" or "eu", or set ${INCIDENTOPS_ENV.baseUrl} for any other host.`);
  }
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env[INCIDENTOPS_ENV.baseUrl]) ?? INCIDENTOPS_HOSTS[region as IncidentOpsRegion];
  requireUrl(baseUrl, `${INCIDENTOPS_ENV.baseUrl} / --base-url`);
  const timeoutMs = timeoutSetting(flags.timeoutMs, env[INCIDENTOPS_ENV.timeoutMs], INCIDENTOPS_ENV.timeoutMs);
  const identity = INCIDENTOPS_IDENTITY_HOSTS[region as IncidentOpsRegion];
  const pick = (key: 'clientId' | 'clientSecret' | 'authorizeUrl' | 'tokenUrl' | 'revokeUrl') => nonEmpty(flags[key]) ?? nonEmpty(env[INCIDENTOPS_ENV[key]]);
  const oauth: IncidentOpsOAuthSettings = {
    authorizeUrl: requireUrl(pick('authorizeUrl') ?? `${identity}/oauth/authorize`, INCIDENTOPS_ENV.authorizeUrl),
    tokenUrl: requireUrl(pick('tokenUrl') ?? `${identity}/oauth/token`, INCIDENTOPS_ENV.tokenUrl),
    // A custom token endpoint implies its sibling revoke endpoint unless one is given.
    revokeUrl: requireUrl(pick('revokeUrl') ?? pick('tokenUrl')?.replace(/\/token\/?$/, '/revoke') ?? `${identity}/oauth/revoke`, INCIDENTOPS_ENV.revokeUrl),
    scope: 'read',
  };
  const clientId = pick('clientId');
  const clientSecret = pick('clientSecret');
  if (clientId) oauth.clientId = clientId;
  if (clientSecret) oauth.clientSecret = clientSecret;
  const settings: IncidentOpsSettings = { baseUrl, timeoutMs, oauth };
  const accessToken = nonEmpty(flags.accessToken) ?? nonEmpty(env[INCIDENTOPS_ENV.accessToken]);
  const apiToken = nonEmpty(flags.apiToken) ?? nonEmpty(env[INCIDENTOPS_ENV.apiToken]);
  if (accessToken) settings.accessToken = accessToken;
  if (apiToken) settings.apiToken = apiToken;
  return settings;
}

/** The explicit token, if any, and how it is sent: the OAuth token is preferred when both are set. */
export function incidentOpsExplicitToken(settings: IncidentOpsSettings): { token: string; scheme: string } | undefined {
  if (settings.accessToken) return { token: settings.accessToken, scheme: 'Bearer' };
  if (settings.apiToken) return { token: settings.apiToken, scheme: 'Token token=' };
  return undefined;
}
