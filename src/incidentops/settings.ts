import { nonEmpty, requireUrl, timeoutSetting } from '../core/settings.js';

/** Where IncidentOps credentials and the API host come from. Flags win over environment variables. */

export const INCIDENTOPS_HOSTS = {
  us: 'https://api.pagerduty.com',
  eu: 'https://api.eu.pagerduty.com',
} as const;

export type IncidentOpsRegion = keyof typeof INCIDENTOPS_HOSTS;

export interface IncidentOpsSettings {
  /** OAuth user token, sent as `Authorization: Bearer <token>`. */
  accessToken?: string;
  /** REST API key, sent as `Authorization: Token token=<key>`. */
  apiToken?: string;
  baseUrl: string;
  timeoutMs: number;
}

export interface IncidentOpsSettingsInput {
  accessToken?: string;
  apiToken?: string;
  baseUrl?: string;
  region?: string;
  timeoutMs?: number;
}

export const INCIDENTOPS_ENV = {
  accessToken: 'INCIDENTOPS_ACCESS_TOKEN',
  apiToken: 'INCIDENTOPS_API_TOKEN',
  baseUrl: 'INCIDENTOPS_BASE_URL',
  region: 'INCIDENTOPS_REGION',
  timeoutMs: 'INCIDENTOPS_TIMEOUT_MS',
} as const;

export function resolveIncidentOpsSettings(flags: IncidentOpsSettingsInput = {}, env: NodeJS.ProcessEnv = process.env): IncidentOpsSettings {
  const region = (nonEmpty(flags.region) ?? nonEmpty(env[INCIDENTOPS_ENV.region]) ?? 'us').toLowerCase();
  if (!(region in INCIDENTOPS_HOSTS)) {
    throw new Error(`Unknown IncidentOps region "${region}": use "us" or "eu", or set ${INCIDENTOPS_ENV.baseUrl} for any other host.`);
  }
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env[INCIDENTOPS_ENV.baseUrl]) ?? INCIDENTOPS_HOSTS[region as IncidentOpsRegion];
  requireUrl(baseUrl, `${INCIDENTOPS_ENV.baseUrl} / --base-url`);
  const timeoutMs = timeoutSetting(flags.timeoutMs, env[INCIDENTOPS_ENV.timeoutMs], INCIDENTOPS_ENV.timeoutMs);
  const settings: IncidentOpsSettings = { baseUrl, timeoutMs };
  const accessToken = nonEmpty(flags.accessToken) ?? nonEmpty(env[INCIDENTOPS_ENV.accessToken]);
  const apiToken = nonEmpty(flags.apiToken) ?? nonEmpty(env[INCIDENTOPS_ENV.apiToken]);
  if (accessToken) settings.accessToken = accessToken;
  if (apiToken) settings.apiToken = apiToken;
  return settings;
}

/** The Authorization header value; the OAuth token is preferred when both are set. */
export function incidentOpsAuthorization(settings: IncidentOpsSettings): string | undefined {
  if (settings.accessToken) return `Bearer ${settings.accessToken}`;
  if (settings.apiToken) return `Token token=${settings.apiToken}`;
  return undefined;
}
