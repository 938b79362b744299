/** The IncidentOps entry: how its server and sign-in are built from flags and environment. */
import type { PlatformAuth } from '../core/signin/platform-auth.js';
import { incidentOpsAuth } from '../incidentops/auth.js';
import { createIncidentOpsServer } from '../incidentops/index.js';
import { INCIDENTOPS_ENV, resolveIncidentOpsSettings, type IncidentOpsSettings, type IncidentOpsSettingsInput } from '../incidentops/settings.js';
import type { RunningSandbox } from '../sandbox/server.js';
import { INCIDENTOPS_DESCRIPTION, PACKAGE_VERSION } from '../server-descriptions.js';
import type { BuildOptions, ServerEntry, ServerSettingsInput } from './server-entry.js';
import { credentialsFor, isSet, pickDefined, settingsEnv } from './shared.js';

function incidentOpsInput(input: ServerSettingsInput, sandbox?: RunningSandbox): IncidentOpsSettingsInput {
  if (sandbox) {
    const { clientId, clientSecret, authorizeUrl, tokenUrl } = sandbox.oauth.incidentops;
    // The sandbox's OAuth client too: OAuth mode signs people in there.
    return { baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token, clientId, clientSecret, authorizeUrl, tokenUrl };
  }
  return pickDefined({ ...input });
}

/** IncidentOps sign-in from flags and environment; endpoints set explicitly win over those stored with a sign-in. */
function incidentOpsAuthFor(input: ServerSettingsInput, options: Pick<BuildOptions, 'sandbox' | 'env'>, settings?: IncidentOpsSettings): PlatformAuth {
  const env = settingsEnv(options);
  settings ??= resolveIncidentOpsSettings(incidentOpsInput(input, options.sandbox), env);
  const tokenUrl = isSet(input.tokenUrl, env, INCIDENTOPS_ENV.tokenUrl);
  // A token URL that is set implies its sibling revoke URL (see resolveIncidentOpsSettings).
  return incidentOpsAuth(settings, { explicit: { tokenUrl, revokeUrl: tokenUrl || isSet(undefined, env, INCIDENTOPS_ENV.revokeUrl) } });
}

export const incidentOpsEntry: ServerEntry = {
  ...INCIDENTOPS_DESCRIPTION,
  load: async () => incidentOpsEntry,
  auth: (input, options) => incidentOpsAuthFor(input, options),
  create(input, options) {
    const settings = resolveIncidentOpsSettings(incidentOpsInput(input, options.sandbox), settingsEnv(options));
    return createIncidentOpsServer({ settings, logger: options.logger, version: PACKAGE_VERSION, ...(options.shared ? { store: options.shared } : {}), credentials: credentialsFor(incidentOpsAuthFor(input, options, settings), options) });
  },
};
