/** The CanvasApi entry: how its server and sign-in are built from flags and environment. */
import type { PlatformAuth } from '../core/signin/platform-auth.js';
import { canvasApiAuth } from '../canvasapi/auth.js';
import { createCanvasApiServer } from '../canvasapi/index.js';
import { CANVASAPI_ENV, resolveCanvasApiSettings, type CanvasApiSettings, type CanvasApiSettingsInput } from '../canvasapi/settings.js';
import type { RunningSandbox } from '../sandbox/server.js';
import { CANVASAPI_DESCRIPTION, PACKAGE_VERSION } from '../server-descriptions.js';
import type { BuildOptions, ServerEntry, ServerSettingsInput } from './server-entry.js';
import { credentialsFor, isSet, pickDefined, settingsEnv } from './shared.js';

function canvasApiInput(input: ServerSettingsInput, sandbox?: RunningSandbox): CanvasApiSettingsInput {
  if (sandbox) {
    const { clientId, clientSecret, authorizeUrl, tokenUrl } = sandbox.oauth.canvasapi;
    // The sandbox's OAuth client too: OAuth mode signs people in there. The operator's choices
    // still come from flags, then the environment (settingsEnv keeps them).
    return { baseUrl: sandbox.canvasapi.baseUrl, accessToken: sandbox.canvasapi.token, clientId, clientSecret, authorizeUrl, tokenUrl, ...pickDefined({ inviteAllowedDomains: input.inviteAllowedDomains, fullRecords: input.fullRecords }) };
  }
  const { apiToken: _apiToken, region: _region, ...rest } = input;
  return pickDefined(rest);
}

/** CanvasApi sign-in from flags and environment; a token URL set explicitly wins over the one stored with a sign-in. */
function canvasApiAuthFor(input: ServerSettingsInput, options: Pick<BuildOptions, 'sandbox' | 'env'>, settings?: CanvasApiSettings): PlatformAuth {
  const env = settingsEnv(options);
  settings ??= resolveCanvasApiSettings(canvasApiInput(input, options.sandbox), env);
  return canvasApiAuth(settings, { explicit: { tokenUrl: isSet(input.tokenUrl, env, CANVASAPI_ENV.tokenUrl) } });
}

export const canvasApiEntry: ServerEntry = {
  ...CANVASAPI_DESCRIPTION,
  load: async () => canvasApiEntry,
  auth: (input, options) => canvasApiAuthFor(input, options),
  create(input, options) {
    const settings = resolveCanvasApiSettings(canvasApiInput(input, options.sandbox), settingsEnv(options));
    return createCanvasApiServer({ settings, logger: options.logger, version: PACKAGE_VERSION, ...(options.shared ? { store: options.shared } : {}), credentials: credentialsFor(canvasApiAuthFor(input, options, settings), options) });
  },
};
