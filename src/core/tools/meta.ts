/**
 * Meta mode (`--profile meta`): a handful of tools that find, describe and call every selected
 * tool, so an agent pays a few hundred tokens up front instead of the whole catalogue.
 * Calls go through the same validation as direct calls; reads and writes have separate call
 * tools so a client's annotation-based approval still tells them apart.
 */
import type Fuse from 'fuse.js';
import { z } from 'zod';
import { ToolError } from '../errors.js';
import { isRecord } from '../json.js';
import { namesTool, styledName, type NameStyle } from './names.js';
import { inputJsonSchema, listedTool } from './listing.js';
import { runTool } from './run-tool.js';
import type { AnyToolDefinition, ToolHints } from './tool.js';

const LOCAL_READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const WRITE: ToolHints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

const MAX_QUERY_CHARS = 500;

/**
 * What the meta tools need of a view (registry.ts's ToolView is one). Declared here so that the
 * registry, which builds views with these tools, is the only one of the two that imports the other.
 */
export interface MetaToolsView {
  readonly server: { readonly name: string };
  readonly nameStyle: NameStyle;
  readonly selected: { readonly tools: readonly AnyToolDefinition[] };
  /** Why a name cannot be called, with the nearest callable name. */
  unknownToolMessage(name: string): string;
}

/** How the meta tools name things in the view's style: their own tools by short name, and any tool. */
export interface MetaNames {
  /** The server's name, the prefix of every contract name (`CanvasApi`). */
  readonly prefix: string;
  /** A meta tool's name in the view's style (`FindTools` -> `CanvasApi.FindTools`). */
  meta(short: string): string;
  /** A tool's name in the view's style. */
  show(tool: AnyToolDefinition): string;
}

export function metaNames(view: MetaToolsView): MetaNames {
  const prefix = view.server.name;
  return {
    prefix,
    meta: (short) => styledName(`${prefix}.${short}`, view.nameStyle),
    show: (tool) => styledName(tool.name, view.nameStyle),
  };
}

/** The meta tools over a view's selection: CallTool only when the selection has a tool that changes data. */
export function metaTools(view: MetaToolsView): AnyToolDefinition[] {
  const names = metaNames(view);
  const callParameters = callToolParameters();
  const tools = [findToolsTool(view, names), describeToolTool(view, names), callToolTool(view, names, callParameters, true)];
  if (view.selected.tools.some((tool) => !tool.hints.readOnlyHint)) tools.push(callToolTool(view, names, callParameters, false));
  return tools;
}

/** The selected tool a meta call names; a read-only call tool refuses a tool that changes data. */
export function metaTarget(view: MetaToolsView, names: MetaNames, toolName: string, readOnlyOnly: boolean): AnyToolDefinition {
  const tool = view.selected.tools.find((t) => namesTool(toolName, t.name));
  if (!tool) throw ToolError.invalidParameter('name', `${view.unknownToolMessage(toolName)} Use ${names.meta('FindTools')} to search.`);
  if (readOnlyOnly && !tool.hints.readOnlyHint) {
    throw ToolError.invalidParameter('name', `${names.show(tool)} changes data; call it with ${names.meta('CallTool')} instead`);
  }
  return tool;
}

/** FindTools: a word search over the selected tools' names, titles, toolsets and descriptions. */
export function findToolsTool(view: MetaToolsView, names: MetaNames): AnyToolDefinition {
  let index: Fuse<AnyToolDefinition> | undefined;
  return {
    name: `${names.prefix}.FindTools`,
    title: 'Find tools',
    description: `Searches the ${view.selected.tools.length} ${names.prefix} tools by words (e.g. "add sticky note"). Returns names, summaries and whether each changes data.`,
    toolset: 'meta',
    input: z.strictObject({
      query: z.string().trim().min(1).max(MAX_QUERY_CHARS).describe('What you want to do, in a few words.'),
      limit: z.number().int().min(1).max(25).default(8).describe('Most tools to return (1-25).'),
    }),
    output: z.looseObject({}),
    hints: LOCAL_READ,
    handler: async (args) => {
      // fuse.js loads with the first search: servers that never search start without it.
      const { default: FuseIndex } = await import('fuse.js');
      index ??= new FuseIndex(view.selected.tools as AnyToolDefinition[], {
        keys: [
          { name: 'name', weight: 3 },
          { name: 'title', weight: 3 },
          { name: 'toolset', weight: 1 },
          { name: 'description', weight: 1 },
        ],
        ignoreLocation: true,
        threshold: 0.45,
        useExtendedSearch: false,
      });
      const ranked = rankTools(index, String(args.query), args.limit as number);
      return {
        tools: ranked.map((tool) => ({
          name: names.show(tool),
          title: tool.title,
          summary: firstSentence(tool.description),
          ...(tool.hints.readOnlyHint ? { read_only: true } : { changes_data: true, ...(tool.hints.destructiveHint ? { destructive: true } : {}) }),
        })),
        ...(ranked.length ? {} : { hint: 'No tool matched; try other words, or a toolset: ' + [...new Set(view.selected.tools.map((t) => t.toolset))].join(', ') }),
        next_step: `Read a tool's parameters with ${names.meta('DescribeTool')}.`,
      };
    },
  };
}

/**
 * The best `limit` tools for a query, best first. The whole query and, when it has several words,
 * each word are scored separately and added up, so "sticky note board" finds CreateStickyNoteItem.
 */
export function rankTools(index: Pick<Fuse<AnyToolDefinition>, 'search'>, query: string, limit: number): AnyToolDefinition[] {
  const words = query.split(/\s+/).filter(Boolean);
  const scores = new Map<AnyToolDefinition, number>();
  for (const word of [query, ...(words.length > 1 ? words : [])]) {
    for (const hit of index.search(word)) scores.set(hit.item, (scores.get(hit.item) ?? 0) + (1 - (hit.score ?? 1)));
  }
  return [...scores.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([tool]) => tool);
}

/** DescribeTool: one tool as tools/list would show it, its input schema, and which call tool runs it. */
export function describeToolTool(view: MetaToolsView, names: MetaNames): AnyToolDefinition {
  return {
    name: `${names.prefix}.DescribeTool`,
    title: 'Describe a tool',
    description: "A tool's full description, input schema and behaviour hints.",
    toolset: 'meta',
    input: z.strictObject({ name: z.string().min(1).max(200).describe('Tool name from FindTools.') }),
    output: z.looseObject({}),
    hints: LOCAL_READ,
    handler: async (args) => {
      const tool = metaTarget(view, names, args.name as string, false);
      const listed = listedTool(tool, view.nameStyle, names.prefix);
      return {
        name: listed.name,
        title: listed.title,
        description: listed.description,
        input_schema: inputJsonSchema(tool),
        annotations: listed.annotations,
        call_with: tool.hints.readOnlyHint ? names.meta('CallReadOnlyTool') : names.meta('CallTool'),
      };
    },
  };
}

/** The input of both call tools, as zod reads it and as tools/list shows it (made once per view, shared by the two). */
export interface CallToolParameters {
  input: AnyToolDefinition['input'];
  inputJsonSchema: NonNullable<AnyToolDefinition['inputJsonSchema']>;
}

export function callToolParameters(): CallToolParameters {
  const argumentsParam = z
    .union([z.record(z.string(), z.unknown()), z.string().max(1_000_000)])
    .optional()
    .describe("The tool's arguments as an object (see DescribeTool).");
  return {
    input: z.strictObject({ name: z.string().min(1).max(200).describe('Tool name from FindTools.'), arguments: argumentsParam }),
    inputJsonSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Tool name from FindTools.' },
        arguments: { type: 'object', description: "The tool's arguments (see DescribeTool)." },
      },
      required: ['name'],
      additionalProperties: false,
    },
  };
}

/** CallReadOnlyTool (`readOnlyOnly`) or CallTool: runs a selected tool with the same validation as a direct call. */
export function callToolTool(view: MetaToolsView, names: MetaNames, parameters: CallToolParameters, readOnlyOnly: boolean): AnyToolDefinition {
  return {
    name: `${names.prefix}.${readOnlyOnly ? 'CallReadOnlyTool' : 'CallTool'}`,
    title: readOnlyOnly ? 'Call a read-only tool' : 'Call a tool that changes data',
    description: readOnlyOnly
      ? 'Runs a tool that only reads, with its arguments. Validated like a direct call.'
      : 'Runs any tool, including ones that create, change or delete data. Validated like a direct call.',
    toolset: 'meta',
    input: parameters.input,
    inputJsonSchema: parameters.inputJsonSchema,
    output: z.looseObject({}),
    hints: readOnlyOnly ? READ : WRITE,
    handler: async (args, context) => {
      const tool = metaTarget(view, names, args.name as string, readOnlyOnly);
      // The called tool's data object itself, not a copy: a picture attached to it (result-image.ts) comes along as its image block.
      return (await runTool(tool, metaCallArguments(args.arguments), context)).data;
    },
  };
}

/** A meta call's `arguments`: an object, or a string holding one's JSON; absent means none. */
export function metaCallArguments(given: unknown): Record<string, unknown> {
  let toolArgs: unknown = given ?? {};
  if (typeof toolArgs === 'string') {
    try {
      toolArgs = JSON.parse(toolArgs);
    } catch {
      throw ToolError.invalidParameter('arguments', 'must be a JSON object (or a string holding one)');
    }
  }
  if (!isRecord(toolArgs)) throw ToolError.invalidParameter('arguments', 'must be a JSON object');
  return toolArgs;
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  const sentence = end > 0 ? text.slice(0, end + 1) : text;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}
