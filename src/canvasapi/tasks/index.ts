/**
 * CanvasApi's task tools: whole tasks in one call, beyond the contract (toolset `tasks`). Only
 * their names, descriptions and input schemas live here; the logic (and the layout library) is
 * imported on a tool's first call, so a start loads none of it.
 */
import { z } from 'zod';
import { cappedString, pathId } from '../../core/schema.js';
import type { ToolDefinition } from '../../core/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { hintsFor } from '../handler.js';
import { boardIdFromLink } from '../params.js';

export const TASKS_TOOLSET = 'tasks';

/** Shape names the bulk endpoint draws, plus sticky notes. */
export const DIAGRAM_SHAPES = [
  'sticky_note',
  'rectangle', 'round_rectangle', 'circle', 'triangle', 'rhombus', 'parallelogram', 'trapezoid', 'pentagon', 'hexagon', 'octagon',
  'wedge_round_rectangle_callout', 'star', 'flow_chart_predefined_process', 'cloud', 'cross', 'can', 'right_arrow', 'left_arrow',
  'left_right_arrow', 'left_brace', 'right_brace',
] as const;

/** Sticky-note colours the platform knows by name. */
export const STICKY_COLORS = ['gray', 'light_yellow', 'yellow', 'orange', 'light_green', 'green', 'dark_green', 'cyan', 'light_pink', 'pink', 'violet', 'red', 'light_blue', 'blue', 'dark_blue', 'black'] as const;

export const ITEM_TYPES = ['sticky_note', 'shape', 'text', 'card', 'app_card', 'image', 'document', 'embed', 'frame', 'preview'] as const;

/** Nodes and edges one diagram may have: enough for a real flow, bounded for the platform's rate limit. */
export const DIAGRAM_LIMITS = { nodes: 200, edges: 400, textChars: 6_000, nodeIdChars: 100 } as const;
export const READ_LIMITS = { maxItems: 2_000, defaultMaxItems: 500 } as const;

/** A board ID, or a board link read as its ID (the rule every CanvasApi tool applies). */
const boardId = () => pathId(cappedString('identifier', z.string().trim().min(1)).transform(boardIdFromLink)).describe('The board: its ID (e.g. uXjVOabc123=) or its link.');
const itemId = () => pathId(cappedString('identifier', z.string().trim().min(1)));

const readBoardInput = () =>
  z.strictObject({
    board_id: boardId(),
    frame_id: itemId().optional().describe('Only the items inside this frame.'),
    item_types: z.array(z.enum(ITEM_TYPES)).min(1).max(ITEM_TYPES.length).optional().describe('Only items of these types (frames are always listed).'),
    query: cappedString('identifier', z.string().trim().min(1)).optional().describe('Only items whose text contains this (any case).'),
    max_items: z.number().int().min(1).max(READ_LIMITS.maxItems).optional().describe(`Most items to return (default ${READ_LIMITS.defaultMaxItems}); fewer when the result budget is reached.`),
    offset: z.number().int().min(0).max(1_000_000).optional().describe('Skip this many matching items: the value next_page gives.'),
  });

const createDiagramInput = () =>
  z.strictObject({
    board_id: boardId(),
    nodes: z
      .array(
        z.strictObject({
          id: z.string().trim().min(1).max(DIAGRAM_LIMITS.nodeIdChars).describe('Your name for the node, used in edges.'),
          text: z.string().max(DIAGRAM_LIMITS.textChars).describe('Text shown in the node.'),
          shape: z.enum(DIAGRAM_SHAPES).optional().describe('A platform shape name, or sticky_note (default round_rectangle).'),
          color: z.string().trim().min(1).max(30).optional().describe('Fill: #RRGGBB for shapes; a sticky-note colour name (yellow, light_blue, ...) for sticky notes.'),
        }),
      )
      .min(1)
      .max(DIAGRAM_LIMITS.nodes)
      .describe(`The nodes, 1 to ${DIAGRAM_LIMITS.nodes}.`),
    edges: z
      .array(z.strictObject({ from: z.string().trim().min(1).max(DIAGRAM_LIMITS.nodeIdChars), to: z.string().trim().min(1).max(DIAGRAM_LIMITS.nodeIdChars), label: z.string().max(200).optional() }))
      .max(DIAGRAM_LIMITS.edges)
      .default([])
      .describe('Arrows between node ids, with an optional label. A grid has none.'),
    layout: z.enum(['flow-down', 'flow-right', 'grid']).describe('flow-down / flow-right: layered by the edges; grid: rows of equal cells.'),
    origin_x: z.number().min(-1e7).max(1e7).optional().describe('Board x of the diagram\'s top-left corner (default 0).'),
    origin_y: z.number().min(-1e7).max(1e7).optional().describe('Board y of the diagram\'s top-left corner (default 0).'),
    frame_title: z.string().trim().min(1).max(200).optional().describe('Put the diagram in a new frame with this title.'),
  });

type ReadBoardArgs = z.output<ReturnType<typeof readBoardInput>>;
type CreateDiagramArgs = z.output<ReturnType<typeof createDiagramInput>>;
const taskOutput = z.looseObject({});

/** A definition whose zod schema is built on first use, like the catalogue tools'. */
function lazyInput<T extends z.ZodObject>(build: () => T): { readonly input: T } {
  let input: T | undefined;
  return {
    get input() {
      return (input ??= build());
    },
  };
}

const readBoard: ToolDefinition<ReturnType<typeof readBoardInput>, typeof taskOutput, CanvasApiDeps> = Object.defineProperties(
  {
    name: 'CanvasApi.ReadBoard',
    title: 'Read a whole board',
    description:
      'Everything on a board in one call, as plain text: name, frames with bounds, items (type, text without HTML, position, size, frame, tags), connectors as from -> to, counts per type. Walks all pages itself; filter by text, frame or type.',
    toolset: TASKS_TOOLSET,
    beyondContract: true,
    output: taskOutput,
    hints: hintsFor('read'),
    truncationHint: 'Call again with offset set to the number of items already read, or narrow with query, frame_id or item_types.',
    handler: async (args: ReadBoardArgs, context) => (await import('./read-board.js')).readBoard(args, context),
  } as Omit<ToolDefinition<ReturnType<typeof readBoardInput>, typeof taskOutput, CanvasApiDeps>, 'input'>,
  Object.getOwnPropertyDescriptors(lazyInput(readBoardInput)),
) as ToolDefinition<ReturnType<typeof readBoardInput>, typeof taskOutput, CanvasApiDeps>;

const createDiagram: ToolDefinition<ReturnType<typeof createDiagramInput>, typeof taskOutput, CanvasApiDeps> = Object.defineProperties(
  {
    name: 'CanvasApi.CreateDiagram',
    title: 'Draw a diagram',
    description:
      'Draws nodes and arrows on a board in one call: lays them out (flow-down, flow-right or grid), optionally in a new frame, creates them 20 per request, then the connectors. Answers node id -> item ID and what failed, and whether retrying it is safe.',
    toolset: TASKS_TOOLSET,
    beyondContract: true,
    output: taskOutput,
    hints: hintsFor('create'),
    handler: async (args: CreateDiagramArgs, context) => (await import('./create-diagram.js')).createDiagram(args, context),
  } as Omit<ToolDefinition<ReturnType<typeof createDiagramInput>, typeof taskOutput, CanvasApiDeps>, 'input'>,
  Object.getOwnPropertyDescriptors(lazyInput(createDiagramInput)),
) as ToolDefinition<ReturnType<typeof createDiagramInput>, typeof taskOutput, CanvasApiDeps>;

export type { ReadBoardArgs, CreateDiagramArgs };
export const canvasApiTaskTools = [readBoard, createDiagram];
