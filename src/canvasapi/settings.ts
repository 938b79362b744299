/** Where CanvasApi credentials and the API host come from. Flags win over environment variables. */

export const CANVASAPI_DEFAULT_BASE_URL = 'https://api.miro.com';

export const CANVASAPI_ENV = {
  accessToken: 'CANVASAPI_ACCESS_TOKEN',
  baseUrl: 'CANVASAPI_BASE_URL',
  timeoutMs: 'CANVASAPI_TIMEOUT_MS',
} as const;

export interface CanvasApiSettings {
  /** OAuth access token, sent as `Authorization: Bearer <token>`. */
  accessToken?: string;
  /** Host root; catalogue paths carry their own `/v1`, `/v2` or `/v2-experimental` prefix. */
  baseUrl: string;
  timeoutMs: number;
}

export interface CanvasApiSettingsInput {
  accessToken?: string;
  baseUrl?: string;
  timeoutMs?: number;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export function resolveCanvasApiSettings(flags: CanvasApiSettingsInput = {}, env: NodeJS.ProcessEnv = process.env): CanvasApiSettings {
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env[CANVASAPI_ENV.baseUrl]) ?? CANVASAPI_DEFAULT_BASE_URL;
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`${CANVASAPI_ENV.baseUrl} / --base-url is not a valid URL: "${baseUrl}"`);
  }
  const timeoutMs = flags.timeoutMs ?? (env[CANVASAPI_ENV.timeoutMs] ? Number(env[CANVASAPI_ENV.timeoutMs]) : 30_000);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`${CANVASAPI_ENV.timeoutMs} must be a positive number of milliseconds`);
  const settings: CanvasApiSettings = { baseUrl, timeoutMs };
  const accessToken = nonEmpty(flags.accessToken) ?? nonEmpty(env[CANVASAPI_ENV.accessToken]);
  if (accessToken) settings.accessToken = accessToken;
  return settings;
}
