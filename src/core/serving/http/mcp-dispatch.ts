/**
 * The MCP endpoints: which mount an URL path names (with the choice segments before `/mcp`), the
 * view a request chooses (profile, names, tools: path, query, headers), and one SDK handler per
 * view, made on its first request. Stateless: each request gets a bare protocol server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { currentIdentity } from '../../platform/request-identity.js';
import { SelectionError } from '../../tools/names.js';
import { fullRecordsFromHeaders, withRequestedFullRecords } from '../../tools/record-detail.js';
import { CALLER_SCOPE_KEY, mcpServerFactory, viewFor, type AnyToolServer, type ToolView, type ViewOptions } from '../../tools/registry.js';
import { CHOICE_SOURCES, requestViewOptions } from '../../tools/request-choices.js';
import { answerInternalError, errorText, sendJson } from './answers.js';
import { callerOf, callerScope } from './caller-key.js';
import { requestLog } from './request-id.js';
import type { MountMatch } from './mount-paths.js';

/** A mount's match: the mount and the choice segments of the request's path. */
export type HttpMountMatch = MountMatch<HttpMount>;

export interface HttpMount {
  /**
   * URL path of the MCP endpoint, e.g. `/mcp` or `/incidentops/mcp`. Segments inserted before the
   * final `/mcp` choose a profile or name style per URL (`/canvasapi/readonly/mcp`).
   */
  path: string;
  server: AnyToolServer;
  /** The operator's choice of names and tools; a request never gets a tool it leaves out (request-choices.ts). */
  view?: ViewOptions;
}

/** A path's mount, with the choice segments between its base and `/mcp`. */
type NodeHandler = ReturnType<typeof toNodeHandler>;

/** The endpoints' state, made once at start. */
export interface McpDispatch {
  logger: Logger;
  mounts: readonly HttpMount[];
  /**
   * The view of a request that chooses nothing (no segments, query or choice headers), per mount:
   * the same view requestViewOptions would lead to, looked up once instead of per request.
   */
  plainViews: ReadonlyMap<HttpMount, ToolView>;
  /** One handler per view, made on the view's first request. */
  handlers: WeakMap<ToolView, NodeHandler>;
  /** The SDK's Node adapter, loaded only when serving HTTP. */
  toNodeHandler: typeof toNodeHandler;
}

const CHOICE_HEADERS = Object.values(CHOICE_SOURCES).map((source) => source.header);

/** The endpoints of these mounts. Throws at start, not at the first request, when the operator's own choice names unknown tools. */
export function createMcpDispatch(mounts: readonly HttpMount[], logger: Logger, adapter: typeof toNodeHandler): McpDispatch {
  for (const mount of mounts) viewFor(mount.server, mount.view);
  const plainViews = new Map<HttpMount, ToolView>(mounts.map((mount) => [mount, viewFor(mount.server, requestViewOptions(mount.view ?? {}, [], '', {}))]));
  return { logger, mounts, plainViews, handlers: new WeakMap(), toNodeHandler: adapter };
}

export function answerNoEndpoint(mounts: readonly HttpMount[], res: ServerResponse, path: string): void {
  sendJson(res, 404, { error: `No MCP endpoint at ${path}. Endpoints: ${mounts.map((mount) => mount.path).join(', ')} (a profile may be inserted before /mcp, e.g. /readonly/mcp)` });
}

/** Whether a request chooses nothing beyond its mount: no segments, no query, no choice headers. */
export function choosesNothing(req: IncomingMessage, segments: readonly string[]): boolean {
  return segments.length === 0 && !(req.url ?? '').includes('?') && CHOICE_HEADERS.every((name) => req.headers[name] === undefined);
}

/**
 * One MCP request, authenticated, to the SDK handler of the view it chooses (answered 400 when it
 * chooses unknown names), as its caller (caller-key.ts; 400 for a malformed X-Toolservers-Caller).
 * The client's key or token is for this server only: it is removed first, so that it never reaches
 * a platform.
 */
export function dispatchMcp(dispatch: McpDispatch, req: IncomingMessage, res: ServerResponse, path: string, match: HttpMountMatch): void {
  delete req.headers.authorization;
  let view: ToolView;
  let fullRecords: boolean | undefined;
  try {
    fullRecords = fullRecordsFromHeaders(req.headers);
    const plain = choosesNothing(req, match.segments) ? dispatch.plainViews.get(match.mount) : undefined;
    view = plain ?? viewFor(match.mount.server, requestViewOptions(match.mount.view ?? {}, match.segments, req.url ?? '', req.headers));
  } catch (error) {
    if (!(error instanceof SelectionError)) throw error;
    sendJson(res, 400, { error: error.message });
    return;
  }
  // Who the call is for (its share of every shared pool), and its hang-up: a call ends with its connection.
  const caller = callerOf(req, currentIdentity()?.userKey);
  if ('refused' in caller) {
    sendJson(res, 400, { error: caller.refused });
    return;
  }
  // The SDK hands a request's auth info to the server factory untouched: the call's caller rides there (registry.ts).
  (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: '', clientId: '', scopes: [], extra: { [CALLER_SCOPE_KEY]: callerScope(caller, res) } };
  withRequestedFullRecords(fullRecords, () => handlerFor(dispatch, view, path)(req, res)).catch((error: unknown) => {
    answerInternalError(requestLog(dispatch.logger, req), res, { path, err: errorText(error) }, 'MCP request failed');
  });
}

/** The SDK handler of a view, made on its first request (its errors logged at debug with the path that made it). */
function handlerFor(dispatch: McpDispatch, view: ToolView, path: string): NodeHandler {
  let handler = dispatch.handlers.get(view);
  if (!handler) {
    handler = dispatch.toNodeHandler(
      createMcpHandler(mcpServerFactory(view), {
        onerror: (error) => dispatch.logger.debug({ path, err: error.message }, 'MCP request rejected'),
      }),
    );
    dispatch.handlers.set(view, handler);
  }
  return handler;
}
