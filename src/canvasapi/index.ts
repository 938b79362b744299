import { staticCredentials, type Credentials } from '../core/signin/credentials.js';
import type { Logger } from '../core/logger.js';
import type { ToolServer } from '../core/tools/registry.js';
import type { ToolProfile } from '../core/tools/selection.js';
import type { AnyToolDefinition } from '../core/tools/tool.js';
import { UpstreamClient, type UpstreamClientOptions } from '../core/platform/upstream.js';
import { sharedRateLimit } from '../core/platform/rate-limits.js';
import type { SharedStore } from '../core/store/store.js';
import { compileRequestSchemas } from './body-validation.js';
import { canvasApiCatalogue } from './catalogue.js';
import { canvasTool, type CanvasApiDeps } from './handler.js';
import { boardWebBase, readBoardLinksOn } from './params.js';
import { CANVASAPI_ENV, type CanvasApiSettings } from './settings.js';
import { canvasApiTaskTools } from './tasks/index.js';

/** All 139 tools, built once from the catalogue. */
export const canvasApiTools: readonly AnyToolDefinition<CanvasApiDeps>[] = canvasApiCatalogue.map((entry) => canvasTool(entry) as AnyToolDefinition<CanvasApiDeps>);

/** Sent once at connection: what every tool relies on, so the tool descriptions need not repeat it. */
export const CANVASAPI_INSTRUCTIONS = [
  'An online whiteboard account (an API like Miro REST v2): boards and their items, frames, connectors, tags, groups, mind maps, members, webhooks, app metrics and enterprise administration.',
  'IDs: a board ID is the code in the board URL (e.g. uXjVOabc123=; the board link itself is accepted too) or comes from RetrieveUserBoards; item, frame, connector, tag, group and mind-map node IDs are numeric strings from the board\'s list tools or from the answer that created them; user IDs are numeric. GetAccessTokenInfo gives your user, team and organization: every organization_id comes from there. Team IDs also come from GetEnterpriseTeams, project IDs from GetTeamProjects.',
  'Two-mode tools (those with a mode parameter): call with mode "get_request_schema" to get the JSON Schema of the body (nothing is sent), then with mode "execute", the IDs and request_body (JSON text; the object or array itself is accepted too).',
  'Lists answer next_page: the exact arguments to add for the following page. Page sizes and offsets the schema types as strings may be given as numbers.',
  'Lists and the answers of creates and updates leave out creator, modifier and timestamps; the tool that reads one item, board or connector gives them.',
  'Positions are in board units; x 0, y 0 is the board centre (inside a frame, its top-left corner).',
  'Tools marked Enterprise need an organization on the enterprise plan (often company-admin rights); Enterprise Guard also needs eDiscovery.',
  'Deletes are permanent, except boards (they go to the Trash); a call with no answer body returns {"success": true}.',
].join(' ');

/** Enterprise administration: the tools a plan below enterprise cannot use. */
const ENTERPRISE_TOOLS = canvasApiCatalogue.filter((entry) => entry.plan.startsWith('enterprise')).map((entry) => entry.name);

/**
 * Daily board work: find and read boards and items, add and change the common item kinds, tag
 * them, read a whole board, see it (ViewBoard) and draw a diagram. ReadBoard answers a board's name and description
 * too, so RetrieveBoardInfo gave it its place in the token budget.
 */
export const EVERYDAY_TOOLS = [
  'RetrieveUserBoards',
  'RetrieveBoardItems',
  'GetBoardItemInfo',
  'AddStickyNoteToBoard',
  'UpdateStickyNote',
  'AddTextToCanvasBoard',
  'UpdateBoardText',
  'AddShapeToCanvasBoard',
  'UpdateBoardShape',
  'AddCardToCanvasBoard',
  'AddBoardFrame',
  'AddConnectorToBoard',
  'UpdateItemPositionParent',
  'DeleteBoardItem',
  'GetBoardTags',
  'CreateBoardTag',
  'AttachTagToItem',
  'ReadBoard',
  'CreateDiagram',
  'ViewBoard',
].map((short) => `CanvasApi.${short}`);

/** CanvasApi's own profiles, besides the core's all, readonly and meta. */
export const CANVASAPI_PROFILES: Readonly<Record<string, ToolProfile>> = {
  everyday: {
    description: 'about 20 tools for daily board work: find and read boards and items; add and edit sticky notes, text and shapes; add cards, frames and connectors; move, delete and tag items; read a whole board, see it as a picture, or draw a diagram in one call',
    tools: EVERYDAY_TOOLS,
  },
  'no-enterprise': {
    description: `every tool except enterprise administration (organization, teams, projects, compliance; ${ENTERPRISE_TOOLS.length} tools), for accounts without the enterprise plan and clients with a 128-tool limit`,
    excludeTools: ENTERPRISE_TOOLS,
  },
};

export interface CanvasApiServerOptions {
  settings: CanvasApiSettings;
  logger: Logger;
  version: string;
  fetch?: typeof fetch;
  now?: () => Date;
  /** Where the Authorization header comes from; defaults to the explicit token in the settings. */
  credentials?: Credentials;
  /** Shared with other replicas: rate-limit holds. */
  store?: SharedStore;
}

type Json = Record<string, unknown>;

export function createCanvasApiClient(
  settings: CanvasApiSettings,
  logger: Logger,
  fetchImpl?: typeof fetch,
  credentials: Credentials = staticCredentials(settings.accessToken ? `Bearer ${settings.accessToken}` : undefined),
  sharedHolds?: UpstreamClientOptions['sharedRateLimit'],
): UpstreamClient {
  return new UpstreamClient({
    baseUrl: settings.baseUrl,
    platformName: 'CanvasApi',
    timeoutMs: settings.timeoutMs,
    authorization: () => credentials.authorization(),
    ...(credentials.refresh ? { refreshAuthorization: credentials.refresh } : {}),
    ...(sharedHolds ? { sharedRateLimit: sharedHolds } : {}),
    missingCredentialsMessage: 'No CanvasApi access token is configured and nobody has signed in, so nothing was sent.',
    missingCredentialsNextStep: `Run \`toolservers login canvasapi\` to sign in, or set ${CANVASAPI_ENV.accessToken} to an OAuth access token of the whiteboard platform; to try things out without an account, add --sandbox (to \`toolservers call\` or to the server's command).`,
    defaultHeaders: { Accept: 'application/json' },
    // The platform sends X-RateLimit-Reset as a UNIX time in seconds.
    retryAfterSeconds: (response, now) => {
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      if (Number.isFinite(reset) && reset > 0) return Math.max(0, Math.ceil(reset - now.getTime() / 1000));
      // No header is no known wait (Number(null) would read as 0 seconds).
      const header = response.headers.get('retry-after');
      const retryAfter = header === null || header.trim() === '' ? NaN : Number(header);
      return Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
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

/** The two-mode tools' request-body schemas and validator, imported on first use and then kept. */
function lazyRequestBodies(): CanvasApiDeps['requestBodies'] {
  let loaded: ReturnType<CanvasApiDeps['requestBodies']> | undefined;
  return () =>
    (loaded ??= import('./request-schemas.js').then(({ canvasApiRequestSchemas }) => ({ schemas: canvasApiRequestSchemas, bodies: compileRequestSchemas(canvasApiRequestSchemas) })));
}

export function createCanvasApiServer(options: CanvasApiServerOptions): ToolServer<CanvasApiDeps> {
  // The platform's own board links (its viewLink) are read as board IDs on its web host too.
  readBoardLinksOn(options.settings.baseUrl);
  return {
    id: 'canvasapi',
    name: 'CanvasApi',
    version: options.version,
    instructions: CANVASAPI_INSTRUCTIONS,
    // The contract's tools, then the task tools (listed only when a choice names them: see ToolDefinition.beyondContract).
    tools: [...canvasApiTools, ...canvasApiTaskTools],
    profiles: CANVASAPI_PROFILES,
    skills: () => import('./skills.js').then((module) => module.CANVASAPI_SKILLS),
    deps: {
      client: createCanvasApiClient(
        options.settings,
        options.logger,
        options.fetch,
        options.credentials,
        options.store ? sharedRateLimit(options.store, options.settings.baseUrl, options.logger) : undefined,
      ),
      requestBodies: lazyRequestBodies(),
      now: options.now ?? (() => new Date()),
      webBase: boardWebBase(options.settings.baseUrl),
      ...(options.settings.inviteAllowlist ? { inviteAllowlist: options.settings.inviteAllowlist } : {}),
      fullRecords: options.settings.fullRecords,
    },
    logger: options.logger,
  };
}
