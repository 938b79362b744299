import { staticCredentials, type Credentials } from '../core/auth/credentials.js';
import type { Logger } from '../core/logger.js';
import type { ToolServer } from '../core/registry.js';
import type { AnyToolDefinition } from '../core/tool.js';
import { UpstreamClient } from '../core/upstream.js';
import { compileRequestSchemas } from './body-validation.js';
import { canvasApiCatalogue } from './catalogue.js';
import { canvasTool, type CanvasApiDeps } from './handler.js';
import { canvasApiRequestSchemas } from './request-schemas.js';
import { CANVASAPI_ENV, type CanvasApiSettings } from './settings.js';

/** All 139 tools, built once from the catalogue. */
export const canvasApiTools: readonly AnyToolDefinition<CanvasApiDeps>[] = canvasApiCatalogue.map((entry) => canvasTool(entry) as AnyToolDefinition<CanvasApiDeps>);

export const CANVASAPI_INSTRUCTIONS =
  'Full access to an online whiteboard account: boards and their items, frames, connectors, tags, groups, mind maps, members, webhooks, and enterprise administration. ' +
  'Tools with a mode parameter take their body as a JSON string: call them with mode "get_request_schema" first, then "execute". ' +
  'Deletes are permanent except boards (they go to the Trash). List tools return next_page with the exact parameter to pass for the following page.';

export interface CanvasApiServerOptions {
  settings: CanvasApiSettings;
  logger: Logger;
  version: string;
  fetch?: typeof fetch;
  now?: () => Date;
  /** Where the Authorization header comes from; defaults to the explicit token in the settings. */
  credentials?: Credentials;
}

type Json = Record<string, unknown>;

export function createCanvasApiClient(
  settings: CanvasApiSettings,
  logger: Logger,
  fetchImpl?: typeof fetch,
  credentials: Credentials = staticCredentials(settings.accessToken ? `Bearer ${settings.accessToken}` : undefined),
): UpstreamClient {
  return new UpstreamClient({
    baseUrl: settings.baseUrl,
    platformName: 'CanvasApi',
    timeoutMs: settings.timeoutMs,
    authorization: () => credentials.authorization(),
    ...(credentials.refresh ? { refreshAuthorization: credentials.refresh } : {}),
    missingCredentialsMessage: 'No CanvasApi access token is configured and nobody has signed in, so nothing was sent.',
    missingCredentialsNextStep: `Run \`toolservers login canvasapi\` to sign in, or set ${CANVASAPI_ENV.accessToken} to an OAuth access token of the whiteboard platform; to try things out, start the server with --sandbox.`,
    defaultHeaders: { Accept: 'application/json' },
    // The platform sends X-RateLimit-Reset as a UNIX time in seconds.
    retryAfterSeconds: (response, now) => {
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      if (Number.isFinite(reset) && reset > 0) return Math.max(0, Math.ceil(reset - now.getTime() / 1000));
      const retryAfter = Number(response.headers.get('retry-after'));
      return Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
    },
    parseError: (_status, body) => {
      if (typeof body !== 'object' || body === null) return {};
      const error = body as Json;
      const details: Json = {};
      if (error.context !== undefined) details.context = error.context;
      if (error.type !== undefined && error.type !== 'error') details.type = error.type;
      return {
        ...(typeof error.code === 'string' || typeof error.code === 'number' ? { code: error.code } : {}),
        ...(typeof error.message === 'string' ? { message: error.message } : {}),
        ...(Object.keys(details).length ? { details } : {}),
      };
    },
    describeError: ({ status, resourceLabel }) => {
      if (status === 401) {
        return {
          message: 'CanvasApi rejected the access token: it is invalid, expired or revoked.',
          nextStep: `Run \`toolservers login canvasapi\` to sign in again, or set a valid ${CANVASAPI_ENV.accessToken} and restart the server.`,
        };
      }
      if (status === 403) {
        return {
          message: `The token may not do this${resourceLabel ? ` on ${resourceLabel}` : ''}.`,
          nextStep: 'Also check that the signed-in user has the needed role on the board, team or organization.',
        };
      }
      if (status === 404 && resourceLabel) return { message: `Not found: ${resourceLabel}.`, nextStep: 'Check the IDs; list the parent resource first to find the right ones.' };
      return undefined;
    },
    logger,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

export function createCanvasApiServer(options: CanvasApiServerOptions): ToolServer<CanvasApiDeps> {
  return {
    id: 'canvasapi',
    name: 'CanvasApi',
    version: options.version,
    instructions: CANVASAPI_INSTRUCTIONS,
    tools: canvasApiTools,
    deps: {
      client: createCanvasApiClient(options.settings, options.logger, options.fetch, options.credentials),
      requestSchemas: canvasApiRequestSchemas,
      bodies: compileRequestSchemas(canvasApiRequestSchemas),
      now: options.now ?? (() => new Date()),
    },
    logger: options.logger,
  };
}
