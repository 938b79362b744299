import { nonEmpty, requireUrl, timeoutSetting } from '../core/settings.js';

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

export function resolveCanvasApiSettings(flags: CanvasApiSettingsInput = {}, env: NodeJS.ProcessEnv = process.env): CanvasApiSettings {
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env[CANVASAPI_ENV.baseUrl]) ?? CANVASAPI_DEFAULT_BASE_URL;
  requireUrl(baseUrl, `${CANVASAPI_ENV.baseUrl} / --base-url`);
  const timeoutMs = timeoutSetting(flags.timeoutMs, env[CANVASAPI_ENV.timeoutMs], CANVASAPI_ENV.timeoutMs);
  const settings: CanvasApiSettings = { baseUrl, timeoutMs };
  const accessToken = nonEmpty(flags.accessToken) ?? nonEmpty(env[CANVASAPI_ENV.accessToken]);
  if (accessToken) settings.accessToken = accessToken;
  return settings;
}
