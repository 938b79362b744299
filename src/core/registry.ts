import { McpServer, type CallToolResult, type McpServerFactory } from '@modelcontextprotocol/server';
import type { Logger } from './logger.js';
import { toToolError, ToolError } from './errors.js';
import { advertisedSchema, parseArguments, toInputJsonSchema, toOutputJsonSchema, validatedOutputSchema, type JsonSchema } from './schema.js';
import type { AnyToolDefinition } from './tool.js';

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
  deps: Deps;
  logger: Logger;
}

/** A server with its handler services' type erased, as the CLI and transports hold it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolServer = ToolServer<any>;

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  toolset: string;
  inputSchema: JsonSchema;
  annotations: { title: string } & AnyToolDefinition['hints'];
}

/** Tool metadata exactly as advertised over MCP (also used by `toolservers tools`). */
export function listTools(server: Pick<ToolServer, 'tools'>): ListedTool[] {
  return server.tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    toolset: tool.toolset,
    inputSchema: toInputJsonSchemaCached(tool),
    annotations: { title: tool.title, ...tool.hints },
  }));
}

export function findTool<Deps>(server: ToolServer<Deps>, name: string): AnyToolDefinition<Deps> | undefined {
  return server.tools.find((tool) => tool.name === name);
}

/**
 * Runs one tool call end to end: validate, execute, shape the result. Never throws:
 * every failure becomes an `isError` result carrying the ToolError JSON.
 */
export async function executeTool<Deps>(
  server: ToolServer<Deps>,
  tool: AnyToolDefinition<Deps>,
  rawArgs: unknown,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const started = Date.now();
  try {
    const args = parseArguments(tool.input, rawArgs);
    const data = (await tool.handler(args, { signal, logger: server.logger, deps: server.deps })) as Record<string, unknown>;
    server.logger.debug({ tool: tool.name, ms: Date.now() - started }, 'tool call succeeded');
    return successResult(data);
  } catch (error) {
    const toolError = toToolError(error);
    const level = toolError.details.kind === 'internal' ? 'error' : 'info';
    server.logger[level]({ tool: tool.name, kind: toolError.details.kind, status: toolError.details.status, ms: Date.now() - started }, 'tool call failed');
    return errorResult(toolError);
  }
}

export function successResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

export function errorResult(error: ToolError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: error.toJSON() }) }] };
}

/** A fresh McpServer with every tool registered; the SDK calls this once per connection or request. */
export function buildMcpServer<Deps>(server: ToolServer<Deps>): McpServer {
  const mcp = new McpServer(
    { name: `toolservers-${server.id}`, title: server.name, version: server.version },
    { capabilities: { tools: {} }, instructions: server.instructions },
  );
  for (const tool of server.tools) {
    mcp.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: advertisedSchema(toInputJsonSchemaCached(tool)),
        outputSchema: outputSchemaCached(tool),
        annotations: { title: tool.title, ...tool.hints },
      },
      (args: Record<string, unknown>, ctx) => executeTool(server, tool, args, ctx.mcpReq.signal),
    );
  }
  return mcp;
}

export function mcpServerFactory<Deps>(server: ToolServer<Deps>): McpServerFactory {
  return () => buildMcpServer(server);
}

// Stateless HTTP builds a server per request: convert each tool's schemas once per process.
const inputSchemaCache = new WeakMap<object, JsonSchema>();
const outputSchemaCache = new WeakMap<object, ReturnType<typeof validatedOutputSchema>>();

function outputSchemaCached(tool: AnyToolDefinition): ReturnType<typeof validatedOutputSchema> {
  let schema = outputSchemaCache.get(tool);
  if (!schema) {
    schema = validatedOutputSchema(tool.output, toOutputJsonSchema(tool.output));
    outputSchemaCache.set(tool, schema);
  }
  return schema;
}

function toInputJsonSchemaCached(tool: AnyToolDefinition): JsonSchema {
  let json = inputSchemaCache.get(tool);
  if (!json) {
    json = toInputJsonSchema(tool.input);
    inputSchemaCache.set(tool, json);
  }
  return json;
}
