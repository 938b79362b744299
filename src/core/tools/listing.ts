/**
 * What tools/list shows of a tool: its name in the view's style and its JSON Schemas, converted
 * once per process (stateless HTTP builds a server per request). Shared by views and meta mode.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import { styledName, type NameStyle } from './names.js';
import { outputSchemaSaysSomething, toInputJsonSchema, toOutputJsonSchema, type JsonSchema } from './schema.js';
import type { AnyToolDefinition } from './tool.js';
import { viewMeta } from './views.js';

/** One tool's definition exactly as tools/list shows it. */
export function listedTool(tool: AnyToolDefinition, style: NameStyle, serverName: string): Tool {
  const listed: Tool = {
    name: styledName(tool.name, style),
    title: tool.title,
    description: restyle(tool.description, style, serverName),
    inputSchema: inputJsonSchema(tool) as Tool['inputSchema'],
  };
  const output = outputJsonSchema(tool);
  if (output) listed.outputSchema = output as Tool['outputSchema'];
  listed.annotations = { ...tool.hints };
  const meta = viewMeta(tool);
  if (meta) listed._meta = meta;
  return listed;
}

/** Tool names inside texts follow the view's style, so an agent never sees a name it cannot call. */
export function restyle(text: string, style: NameStyle, serverName: string): string {
  if (style === 'contract') return text;
  return text.replace(new RegExp(`\\b${serverName}\\.(?=[A-Z])`, 'g'), style === 'underscore' ? `${serverName}_` : '');
}

/**
 * A call's answer in the view's style: the tool names its next steps, notes and task answers give
 * are the ones this connection can call. Only the server's own tool names change (platform text
 * that merely looks like one, `CanvasApi.Whatever`, is left as it is). The text is the structured
 * content's JSON, so only an answer whose text names a tool is walked.
 */
export function restyleResult(result: CallToolResult, style: NameStyle, serverName: string, tools: readonly AnyToolDefinition[]): CallToolResult {
  if (style === 'contract') return result;
  const marker = `${serverName}.`;
  if (!result.content.some((part) => part.type === 'text' && part.text.includes(marker))) return result;
  const names = toolNamePattern(tools);
  const text = (item: string): string => (item.includes(marker) ? item.replace(names, (name) => styledName(name, style)) : item);
  const value = (item: unknown): unknown => {
    if (typeof item === 'string') return text(item);
    if (Array.isArray(item)) return item.map(value);
    if (item !== null && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, value(entry)]));
    return item;
  };
  return {
    ...result,
    content: result.content.map((part) => (part.type === 'text' ? { ...part, text: text(part.text) } : part)),
    ...(result.structuredContent ? { structuredContent: value(result.structuredContent) as Record<string, unknown> } : {}),
  };
}

const toolNamePatterns = new WeakMap<readonly AnyToolDefinition[], RegExp>();

/** The server's tool names as whole words, longest first (so that no name stops inside a longer one). */
function toolNamePattern(tools: readonly AnyToolDefinition[]): RegExp {
  let pattern = toolNamePatterns.get(tools);
  if (!pattern) {
    const names = tools.map((tool) => tool.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).sort((a, b) => b.length - a.length);
    pattern = new RegExp(`\\b(?:${names.join('|')})\\b`, 'g');
    toolNamePatterns.set(tools, pattern);
  }
  return pattern;
}

const inputSchemaCache = new WeakMap<object, JsonSchema>();
const outputSchemaCache = new WeakMap<object, JsonSchema | null>();

export function inputJsonSchema(tool: AnyToolDefinition): JsonSchema {
  let json = inputSchemaCache.get(tool);
  if (!json) {
    json = tool.inputJsonSchema ?? toInputJsonSchema(tool.input);
    inputSchemaCache.set(tool, json);
  }
  return json;
}

/** The advertised output schema, or undefined when it would say nothing. */
export function outputJsonSchema(tool: AnyToolDefinition): JsonSchema | undefined {
  // Keyed by the schema, not the tool: tools that share one output schema (all of CanvasApi's) convert it once.
  let json = outputSchemaCache.get(tool.output);
  if (json === undefined) {
    const converted = toOutputJsonSchema(tool.output);
    json = outputSchemaSaysSomething(converted) ? converted : null;
    outputSchemaCache.set(tool.output, json);
  }
  return json ?? undefined;
}
