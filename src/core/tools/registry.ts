import { CLIENT_CAPABILITIES_META_KEY, McpServer, ProtocolError, ProtocolErrorCode, type CallToolResult, type McpServerFactory, type ServerContext, type Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { attachCaller, cancelCall, cancellableCall, currentCaller, LOCAL_CALLER, type CallerScope } from '../caller.js';
import { newRequestId, requestIdOf, tagRequest, type Logger } from '../logger.js';
import { toToolError, ToolError, type ToolErrorKind } from '../errors.js';
import { fitResult } from './result-budget.js';
import { metaTools } from './meta.js';
import { NAME_STYLES, namesTool, nearestTool, styledName, type NameStyle } from './names.js';
import { SPELLING_INSTRUCTIONS } from './schema.js';
import { skillsExtensionFor, type SkillText } from './skills.js';
import { selectTools, type Selected, type ToolProfile, type ToolSelection } from './selection.js';
import { markUntrusted, UNTRUSTED_INSTRUCTIONS } from './untrusted.js';
import { listedTool, outputJsonSchema, restyle, restyleResult } from './listing.js';
import { runTool } from './run-tool.js';
import { registerViews } from './views.js';
import { auditCall, auditRecord } from './audit.js';
import { NO_PROGRESS, type AnyToolDefinition, type CallerContext, type ToolContext } from './tool.js';
import { imageOf, type ResultImage } from './result-image.js';
import { clientShowsViews, viewDataOf, withViewMeta } from './result-view.js';

export { inputJsonSchema, listedTool, outputJsonSchema } from './listing.js';
export { runTool } from './run-tool.js';

/** A tool server: a named set of tools plus the services its handlers share. */
export interface ToolServer<Deps = unknown> {
  /** Short id used in URLs, settings and the CLI (`incidentops`). */
  id: string;
  /** Display name and tool-name prefix (`IncidentOps`). */
  name: string;
  version: string;
  /** Guidance for the agent, sent at connection time. */
  instructions: string;
  tools: readonly AnyToolDefinition<Deps>[];
  /** Named tool sets besides the core ones (all, readonly, meta). */
  profiles?: Readonly<Record<string, ToolProfile>>;
  /** Its workflows as MCP skills, loaded on the first connection (see skills.ts). */
  skills?: () => Promise<readonly SkillText[]>;
  deps: Deps;
  logger: Logger;
}

/** A server with its handler services' type erased, as the CLI and transports hold it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolServer = ToolServer<any>;

/** How a server is presented: which tools, under which names. */
export interface ViewOptions {
  nameStyle?: NameStyle;
  /** Applied in order, each narrowing the previous (operator's choice, then a request's); tools beyond the contract stay only when one names them. */
  selections?: readonly ToolSelection[];
}

/**
 * A server as one client sees it: the selected tools (or the meta tools over them), named in one
 * style, with tools/list computed once, on first use. Built once per distinct choice and cached.
 */
export class ToolView {
  readonly nameStyle: NameStyle;
  readonly selected: Selected;
  /** What tools/list shows: the selected tools, or the meta tools in meta mode. */
  readonly exposed: readonly AnyToolDefinition[];
  /** Every tool an answer may name: the server's, and the meta tools in meta mode (listing.ts restyles them). */
  readonly nameable: readonly AnyToolDefinition[];
  readonly instructions: string;
  private readonly byName = new Map<string, AnyToolDefinition>();
  private listed: Tool[] | undefined;

  constructor(
    readonly server: AnyToolServer,
    options: ViewOptions = {},
  ) {
    this.nameStyle = options.nameStyle ?? 'contract';
    this.selected = selectTools(server, ...(options.selections ?? []));
    this.exposed = this.selected.meta ? metaTools(this) : this.selected.tools;
    this.nameable = this.selected.meta ? [...server.tools, ...this.exposed] : server.tools;
    // Selected tools stay callable by name in meta mode too: the meta tools reach them anyway.
    for (const tool of [...this.exposed, ...this.selected.tools]) {
      for (const style of NAME_STYLES) this.byName.set(styledName(tool.name, style), tool);
    }
    this.instructions = [restyle(server.instructions, this.nameStyle, server.name), SPELLING_INSTRUCTIONS, UNTRUSTED_INSTRUCTIONS, ...(this.selected.meta ? [metaInstructions(this)] : [])].join(' ');
  }

  /** What tools/list shows, computed on first use (the first tools/list), then kept. */
  get listing(): Tool[] {
    return (this.listed ??= this.exposed.map((tool) => listedTool(tool, this.nameStyle, this.server.name)));
  }

  /** The tool a call names, by any spelling; undefined when it is unknown or filtered out. */
  find(name: string): AnyToolDefinition | undefined {
    return this.byName.get(name);
  }

  /** Why a name cannot be called, with the nearest callable name. */
  unknownToolMessage(name: string): string {
    const filteredOut = this.server.tools.find((tool: AnyToolDefinition) => namesTool(name, tool.name));
    if (filteredOut) {
      return `Tool ${name} is not available on this connection: the server's tool selection leaves it out${this.selected.readOnly ? ' (read-only)' : ''}.`;
    }
    const names = this.listing.map((tool) => tool.name);
    // Suggested in this connection's style: the name its tools/list shows.
    const nearest = nearestTool(name, [...this.exposed, ...this.selected.tools].map((tool) => tool.name), this.server.name);
    const suggestion = nearest === undefined ? undefined : styledName(nearest, this.nameStyle);
    const shown = name.length > 100 ? `${name.slice(0, 97)}...` : name;
    return `Unknown tool ${shown}.${suggestion ? ` Did you mean ${suggestion}?` : ''} Call tools/list to see the ${names.length} tools.`;
  }
}

function metaInstructions(view: ToolView): string {
  const [find, describe, call] = view.listing.map((tool) => tool.name);
  return `This connection lists only meta tools: find tools with ${find}, read one's parameters with ${describe}, then run it with ${call}${view.listing.length > 3 ? ` (or ${view.listing[3]?.name})` : ''}.`;
}

/** Tool metadata exactly as advertised over MCP (also used by `toolservers tools`). */
export function listTools(server: AnyToolServer, options: ViewOptions = {}): Tool[] {
  return viewFor(server, options).listing;
}

export function findTool<Deps>(server: ToolServer<Deps>, name: string): AnyToolDefinition<Deps> | undefined {
  return server.tools.find((tool) => namesTool(name, tool.name));
}

/** One finished tool call, as observers (metrics) see it: no arguments, no IDs. */
export interface ToolCallEvent {
  /** The server's id (`incidentops`). */
  server: string;
  /** The tool's contract name (a fixed set per server). */
  tool: string;
  /** `ok`, or the ToolError kind (`invalid_input`, `not_found`, `rate_limited`, ...). */
  outcome: 'ok' | ToolErrorKind;
  seconds: number;
}

export interface ToolCallObserver {
  onToolCall(event: ToolCallEvent): void;
}

let toolCallObservers: readonly ToolCallObserver[] = [];

/** Reports every tool call of this process to the observer until the returned function is called. */
export function observeToolCalls(observer: ToolCallObserver): () => void {
  toolCallObservers = [...toolCallObservers, observer];
  return () => {
    toolCallObservers = toolCallObservers.filter((candidate) => candidate !== observer);
  };
}

function reportToolCall(event: ToolCallEvent): void {
  for (const observer of toolCallObservers) {
    try {
      observer.onToolCall(event);
    } catch {
      // An observer's failure never changes a call's result.
    }
  }
}

/** Whether a call's client shows views: its request's capabilities (2026-07-28) or its connection's; none known (stateless 2025-era HTTP) counts as yes. */
function showsViewsTo(envelope: Record<string, unknown> | undefined, connection: unknown): boolean {
  const capabilities: unknown = envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? connection;
  return capabilities === undefined || clientShowsViews(capabilities);
}

/**
 * Runs one tool call end to end: validate, execute, fit the result to the budget. Never throws:
 * every failure becomes an `isError` result carrying the ToolError JSON. The call's log lines (and
 * the platform requests it makes, through its signal) carry its request ID: the HTTP request's,
 * or one of its own (stdio, direct calls). When calls are audited, it writes the call's audit line.
 * `showsViews`: the client declared MCP Apps (or its capabilities are unknown), so a tool's view data goes in the result's `_meta` (result-view.ts).
 */
export async function executeTool<Deps>(
  server: ToolServer<Deps>,
  tool: AnyToolDefinition<Deps>,
  rawArgs: unknown,
  signal: AbortSignal,
  progress: ToolContext<Deps>['progress'] = NO_PROGRESS,
  requestId: string = requestIdOf(signal) ?? newRequestId(),
  showsViews = false,
): Promise<CallToolResult> {
  tagRequest(signal, requestId);
  let toolLogger: Logger | undefined;
  const record = auditRecord();
  const context: CallerContext<Deps> = {
    signal,
    // A child logger only when the tool logs something.
    get logger() {
      return (toolLogger ??= server.logger.child({ request_id: requestId }));
    },
    deps: server.deps,
    progress,
    ...(record ? { record } : {}),
  };
  const started = performance.now();
  try {
    const { data, fromPlatform } = await runTool(tool, rawArgs, context);
    if (server.logger.isLevelEnabled('debug')) server.logger.debug({ request_id: requestId, tool: tool.name, ms: Math.round(performance.now() - started) }, 'tool call succeeded');
    if (toolCallObservers.length > 0) reportToolCall({ server: server.id, tool: tool.name, outcome: 'ok', seconds: (performance.now() - started) / 1000 });
    if (record) auditCall({ server: server.id, called: tool, record, caller: currentCaller(signal), outcome: 'ok', requestId, ms: performance.now() - started });
    // Tools that reach the platform return its users' text: marked as data, in one way for every server.
    const result = successResult(fromPlatform ? markUntrusted(data) : data, tool.truncationHint, imageOf(data));
    if (!showsViews || !tool.view) return result;
    try {
      return withViewMeta(result, tool.view, viewDataOf(data));
    } catch (error) {
      // The view's data never costs the call its answer.
      server.logger.warn({ request_id: requestId, tool: tool.name, err: error }, 'view data left out');
      return result;
    }
  } catch (error) {
    const toolError = toToolError(error);
    const { kind } = toolError.details;
    const ms = performance.now() - started;
    const level = kind === 'internal' ? 'error' : 'info';
    server.logger[level]({ request_id: requestId, tool: tool.name, kind, status: toolError.details.status, ms: Math.round(ms) }, 'tool call failed');
    if (toolCallObservers.length > 0) reportToolCall({ server: server.id, tool: tool.name, outcome: kind, seconds: ms / 1000 });
    if (record) auditCall({ server: server.id, called: tool, record, caller: currentCaller(signal), outcome: kind, requestId, ms });
    return errorResult(toolError);
  }
}

/** The result: its JSON text fitted to the budget, then its picture, if it has one, as an image block (never cut: result-image.ts). */
export function successResult(data: Record<string, unknown>, howToGetMore?: string, image?: ResultImage): CallToolResult {
  const fitted = fitResult(data, howToGetMore);
  const text = { type: 'text' as const, text: fitted.text };
  return { content: image ? [text, { type: 'image', mimeType: image.mimeType, data: image.data }] : [text], structuredContent: fitted.data };
}

export function errorResult(error: ToolError): CallToolResult {
  const details = error.toJSON();
  // The platform's own error text is its users' text too.
  const fromPlatform = error.details.platformMessage !== undefined || error.details.platformDetails !== undefined;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: fromPlatform ? markUntrusted(details) : details }) }] };
}

/** A fresh protocol server for one connection or request, answering from the view's precomputed listing (tools only). */
export function buildMcpServer(view: ToolView, scope: CallerScope = LOCAL_SCOPE): McpServer {
  const { server } = view;
  // The high-level server only as the skills extension's host: tools are answered by the low-level handlers below.
  const mcp = new McpServer({ name: `toolservers-${server.id}`, title: server.name, version: server.version }, { instructions: view.instructions });
  const protocol = mcp.server;
  // No listChanged: the tool list of a connection never changes.
  protocol.registerCapabilities({ tools: {} });
  protocol.setRequestHandler('tools/list', () => ({ tools: view.listing }));
  // The MCP Apps views the listed tools link to (core/tools/views.ts); their HTML loads on first read.
  if (view.exposed.some((tool) => tool.view)) {
    protocol.registerCapabilities({ resources: { listChanged: false } });
    registerViews(mcp, view.exposed);
  }
  // Params as sent: the spec schema's record would drop an `__proto__` argument without a word.
  protocol.setRequestHandler('tools/call', { params: CALL_PARAMS }, async (params, ctx) => {
    const tool = view.find(params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, view.unknownToolMessage(params.name));
    // Over HTTP serve.ts has put the request's ID on the request; on stdio each call gets one.
    const requestId = ctx.http?.req?.headers.get('x-request-id') ?? newRequestId();
    // One signal for the call, carrying its caller: it aborts with the protocol's, when the client
    // hangs up (its queued work leaves every queue, whatever the protocol layer does), and when the
    // client cancels it, even by a notification on another HTTP request (caller.ts).
    const cancellation = cancellableCall(scope.caller, ctx.mcpReq.id);
    const { signal } = cancellation;
    attachCaller(signal, scope);
    const stop = (source: AbortSignal) => () => cancellation.abort(source.reason);
    const sources = scope.hangUp ? [ctx.mcpReq.signal, scope.hangUp] : [ctx.mcpReq.signal];
    const stoppers = sources.map((source) => {
      const stopper = stop(source);
      if (source.aborted) stopper();
      else source.addEventListener('abort', stopper, { once: true });
      return stopper;
    });
    try {
      // 2025 era: the capabilities of the connection's initialize; 2026-07-28: the request's own.
      // None at all: a 2025-era client over stateless HTTP, whose initialize this server never saw.
      // It may show views (MCP Apps hosts use this transport), so it gets the data: only `_meta` grows.
      const showsViews = tool.view !== undefined && showsViewsTo(ctx.mcpReq.envelope as Record<string, unknown> | undefined, protocol.getClientCapabilities());
      const result = await executeTool(server, tool, (params.arguments as Record<string, unknown> | undefined) ?? {}, signal, progressReporter(ctx), requestId, showsViews);
      return protocol.projectCallToolResult(restyleResult(result, view.nameStyle, server.name, view.nameable), outputJsonSchema(tool));
    } finally {
      cancellation.done();
      sources.forEach((source, i) => source.removeEventListener('abort', stoppers[i]!));
    }
  });
  // The SDK's own handling first (its request of this connection, answered no more), then ours.
  const sdkCancel = (protocol as unknown as { _oncancel?: (notification: unknown) => void })._oncancel?.bind(protocol);
  protocol.setNotificationHandler('notifications/cancelled', (notification) => {
    sdkCancel?.(notification);
    const { requestId, reason } = notification.params;
    if (requestId !== undefined) cancelCall(scope.caller, requestId, reason);
  });
  return mcp;
}

const LOCAL_SCOPE: CallerScope = Object.freeze({ caller: LOCAL_CALLER });

/** Where serving puts a request's caller scope: the request's auth info, which the SDK hands to the factory untouched. */
export const CALLER_SCOPE_KEY = 'toolservers.callerScope';

/** An HTTP request's caller scope (serving set it, mcp-dispatch.ts); stdio's is the local one. */
function requestScope(ctx: Parameters<McpServerFactory>[0] | undefined): CallerScope {
  const scope = ctx?.authInfo?.extra?.[CALLER_SCOPE_KEY] as CallerScope | undefined;
  return scope ?? LOCAL_SCOPE;
}

/** The one way both transports (stdio, stateless HTTP) build a server: the tools, plus the server's skills when it has any. */
export function mcpServerFactory(view: ToolView): McpServerFactory {
  const { server } = view;
  if (!server.skills) return (ctx) => buildMcpServer(view, requestScope(ctx));
  return async (ctx) => {
    const mcp = buildMcpServer(view, requestScope(ctx));
    const skills = await skillsExtensionFor(server, view.nameStyle);
    // Set before the extension registers its resources, which would otherwise advertise listChanged: the skills of a process never change.
    if (skills) mcp.server.registerCapabilities({ resources: { listChanged: false } });
    skills?.attach(mcp);
    return mcp;
  };
}

/** Sends notifications/progress when the request carried a progress token; values only increase. */
function progressReporter(ctx: ServerContext): ToolContext<unknown>['progress'] {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return NO_PROGRESS;
  let last = -Infinity;
  return (progress, total, message) => {
    if (!(progress > last)) return;
    last = progress;
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } })
      .catch(() => undefined);
  };
}

/** tools/call params as sent (checked by executeTool), so that no argument is dropped on the way. */
const CALL_PARAMS = z.looseObject({ name: z.string(), arguments: z.unknown().optional() });

// Views are computed once per process: stateless HTTP builds a server per request.
const MAX_VIEWS_PER_SERVER = 64;
const views = new WeakMap<object, Map<string, ToolView>>();

/** The cached view of a server for one choice of names and tools (throws SelectionError on unknown names). */
export function viewFor(server: AnyToolServer, options: ViewOptions = {}): ToolView {
  let cache = views.get(server);
  if (!cache) views.set(server, (cache = new Map()));
  const key = JSON.stringify([options.nameStyle ?? 'contract', options.selections ?? []]);
  let view = cache.get(key);
  if (!view) {
    view = new ToolView(server, options);
    if (cache.size >= MAX_VIEWS_PER_SERVER) cache.delete(cache.keys().next().value as string);
    cache.set(key, view);
  }
  return view;
}
