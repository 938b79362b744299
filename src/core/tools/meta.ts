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
import { namesTool, styledName } from './names.js';
import type { ToolView } from './registry.js';
import { inputJsonSchema, listedTool } from './listing.js';
import { runTool } from './run-tool.js';
import type { AnyToolDefinition, ToolHints } from './tool.js';

const LOCAL_READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const WRITE: ToolHints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

const MAX_QUERY_CHARS = 500;

export function metaTools(view: ToolView): AnyToolDefinition[] {
  const prefix = view.server.name as string;
  const name = (short: string) => styledName(`${prefix}.${short}`, view.nameStyle);
  const show = (tool: AnyToolDefinition) => styledName(tool.name, view.nameStyle);
  let index: Fuse<AnyToolDefinition> | undefined;

  const target = (toolName: string, readOnlyOnly: boolean): AnyToolDefinition => {
    const tool = view.selected.tools.find((t) => namesTool(toolName, t.name));
    if (!tool) throw ToolError.invalidParameter('name', `${view.unknownToolMessage(toolName)} Use ${name('FindTools')} to search.`);
    if (readOnlyOnly && !tool.hints.readOnlyHint) {
      throw ToolError.invalidParameter('name', `${show(tool)} changes data; call it with ${name('CallTool')} instead`);
    }
    return tool;
  };

  const argumentsParam = z
    .union([z.record(z.string(), z.unknown()), z.string().max(1_000_000)])
    .optional()
    .describe("The tool's arguments as an object (see DescribeTool).");
  const callInput = z.strictObject({ name: z.string().min(1).max(200).describe('Tool name from FindTools.'), arguments: argumentsParam });
  const callSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Tool name from FindTools.' },
      arguments: { type: 'object', description: "The tool's arguments (see DescribeTool)." },
    },
    required: ['name'],
    additionalProperties: false,
  };
  const call = (readOnlyOnly: boolean): AnyToolDefinition['handler'] => async (args, context) => {
    const tool = target(args.name as string, readOnlyOnly);
    let toolArgs: unknown = args.arguments ?? {};
    if (typeof toolArgs === 'string') {
      try {
        toolArgs = JSON.parse(toolArgs);
      } catch {
        throw ToolError.invalidParameter('arguments', 'must be a JSON object (or a string holding one)');
      }
    }
    if (!isRecord(toolArgs)) throw ToolError.invalidParameter('arguments', 'must be a JSON object');
    return (await runTool(tool, toolArgs, context)).data;
  };

  const tools: AnyToolDefinition[] = [
    {
      name: `${prefix}.FindTools`,
      title: 'Find tools',
      description: `Searches the ${view.selected.tools.length} ${prefix} tools by words (e.g. "add sticky note"). Returns names, summaries and whether each changes data.`,
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
        const words = String(args.query).split(/\s+/).filter(Boolean);
        // Score every word separately and add up, so "sticky note board" finds CreateStickyNoteItem.
        const scores = new Map<AnyToolDefinition, number>();
        for (const word of [String(args.query), ...(words.length > 1 ? words : [])]) {
          for (const hit of index.search(word)) scores.set(hit.item, (scores.get(hit.item) ?? 0) + (1 - (hit.score ?? 1)));
        }
        const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, args.limit as number);
        return {
          tools: ranked.map(([tool]) => ({
            name: show(tool),
            title: tool.title,
            summary: firstSentence(tool.description),
            ...(tool.hints.readOnlyHint ? { read_only: true } : { changes_data: true, ...(tool.hints.destructiveHint ? { destructive: true } : {}) }),
          })),
          ...(ranked.length ? {} : { hint: 'No tool matched; try other words, or a toolset: ' + [...new Set(view.selected.tools.map((t) => t.toolset))].join(', ') }),
          next_step: `Read a tool's parameters with ${name('DescribeTool')}.`,
        };
      },
    },
    {
      name: `${prefix}.DescribeTool`,
      title: 'Describe a tool',
      description: "A tool's full description, input schema and behaviour hints.",
      toolset: 'meta',
      input: z.strictObject({ name: z.string().min(1).max(200).describe('Tool name from FindTools.') }),
      output: z.looseObject({}),
      hints: LOCAL_READ,
      handler: async (args) => {
        const tool = target(args.name as string, false);
        const listed = listedTool(tool, view.nameStyle, prefix);
        return {
          name: listed.name,
          title: listed.title,
          description: listed.description,
          input_schema: inputJsonSchema(tool),
          annotations: listed.annotations,
          call_with: tool.hints.readOnlyHint ? name('CallReadOnlyTool') : name('CallTool'),
        };
      },
    },
    {
      name: `${prefix}.CallReadOnlyTool`,
      title: 'Call a read-only tool',
      description: 'Runs a tool that only reads, with its arguments. Validated like a direct call.',
      toolset: 'meta',
      input: callInput,
      inputJsonSchema: callSchema,
      output: z.looseObject({}),
      hints: READ,
      handler: call(true),
    },
  ];
  if (view.selected.tools.some((tool) => !tool.hints.readOnlyHint)) {
    tools.push({
      name: `${prefix}.CallTool`,
      title: 'Call a tool that changes data',
      description: 'Runs any tool, including ones that create, change or delete data. Validated like a direct call.',
      toolset: 'meta',
      input: callInput,
      inputJsonSchema: callSchema,
      output: z.looseObject({}),
      hints: WRITE,
      handler: call(false),
    });
  }
  return tools;
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  const sentence = end > 0 ? text.slice(0, end + 1) : text;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}
