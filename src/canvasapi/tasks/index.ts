/**
 * CanvasApi's task tools: whole tasks in one call, beyond the contract (toolset `tasks`). Only
 * their names, descriptions and input schemas live here; the logic (and the layout library) is
 * imported on a tool's first call, so a start loads none of it.
 */
import { z } from 'zod';
import { isRecord } from '../../core/json.js';
import { cappedString, genericCap, pathId } from '../../core/tools/schema.js';
import type { ToolDefinition } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { hintsFor } from '../handler.js';
import { boardIdFromLink } from '../params.js';
import { BOARD_LAYOUTS, BULK_LIMITS, bulkEditBudget, createBoardLayoutBudget, createDiagramBudget, DIAGRAM_LIMITS, editDiagramBudget, LAYOUT_LIMITS, DIAGRAM_SHAPES, ITEM_TYPES, MERMAID_CHARS, READ_LIMITS, readBoardBudget, VIEW_LIMITS, viewBoardBudget } from '../task-vocabulary.js';

export const TASKS_TOOLSET = 'tasks';

/** A board ID, or a board link read as its ID (the rule every CanvasApi tool applies). */
const boardId = () => pathId(cappedString('identifier', z.string().trim().min(1)).transform(boardIdFromLink));
const itemId = () => pathId(cappedString('identifier', z.string().trim().min(1)));
/** Text bounded for safety only (the bound is checked, not listed). */
const text = (max: number) => genericCap(z.string().max(max, { abort: true }));

/** One of a list of names; checked on calls, listed as a plain string so the list costs no context. */
function oneOf(values: readonly string[], what: string) {
  return text(100).refine((value) => values.includes(value), { message: `must be ${what}: one of ${values.join(', ')}` });
}

const readBoardInput = () =>
  z.strictObject({
    board_id: boardId(),
    frame_id: itemId().optional(),
    item_types: genericCap(z.array(oneOf(ITEM_TYPES, 'an item type')).max(ITEM_TYPES.length).refine((types) => types.length > 0, { message: 'must name at least one item type' })).optional().describe('e.g. sticky_note'),
    query: cappedString('identifier', z.string().trim().min(1)).optional().describe('Text to find.'),
    max_items: z.number().int().refine((n) => n >= 1 && n <= READ_LIMITS.maxItems, { message: `must be from 1 to ${READ_LIMITS.maxItems}` }).optional().describe(`Default ${READ_LIMITS.defaultMaxItems}.`),
    offset: z.number().int().refine((n) => n >= 0 && n <= 1_000_000, { message: 'must be from 0 to 1000000 (next_page gives it)' }).optional(),
    cursor: cappedString('identifier', z.string().trim().min(1)).optional(),
    // Explained where it matters: a partial answer's note says what it does.
    counts: z.boolean().optional(),
    format: z.enum(['items', 'outline', 'mermaid']).optional().describe("outline: reading order, clusters, flows, what is unclear; mermaid: frame_id or query's linked shapes, editable"),
  });

const createDiagramInput = () =>
  z.strictObject({
    board_id: boardId(),
    mermaid: text(MERMAID_CHARS).optional().describe('Flowchart, sequence, class, ER or mindmap text instead of nodes/edges'),
    nodes: genericCap(
      z
        .array(
          z.strictObject({
            id: text(DIAGRAM_LIMITS.nodeIdChars).trim().min(1),
            text: text(DIAGRAM_LIMITS.textChars),
            shape: oneOf(DIAGRAM_SHAPES, 'a shape name or sticky_note').optional().describe('round_rectangle (default), circle, rhombus, sticky_note...'),
            color: text(30).trim().min(1).optional().describe('#RRGGBB; sticky notes: yellow, blue...'),
          }),
        )
        .max(DIAGRAM_LIMITS.nodes)
        .refine((nodes) => nodes.length > 0, { message: 'must have at least one node' }),
    ).optional(),
    edges: genericCap(z.array(z.strictObject({ from: text(DIAGRAM_LIMITS.nodeIdChars).trim().min(1).describe('node id, or an item ID (item:<ID>)'), to: text(DIAGRAM_LIMITS.nodeIdChars).trim().min(1), label: text(200).optional() })).max(DIAGRAM_LIMITS.edges))
      .optional(),
    layout: z.enum(['flow-down', 'flow-right', 'grid']).optional().describe('default: flow-down with edges, else grid'),
    origin_x: z.number().optional().describe('without: clear of items on the board'),
    origin_y: z.number().optional(),
    frame_title: text(200).trim().min(1).optional(),
  });

const boardLayoutInput = () =>
  z.strictObject({
    board_id: boardId(),
    layout: oneOf(BOARD_LAYOUTS, 'a layout').describe('retro, kanban, story_map, two_by_two, swot, brainstorm'),
    title: text(LAYOUT_LIMITS.titleChars).trim().min(1).optional(),
    sections: genericCap(
      z
        .array(z.strictObject({ title: text(LAYOUT_LIMITS.titleChars).trim().min(1), items: genericCap(z.array(text(LAYOUT_LIMITS.textChars)).max(LAYOUT_LIMITS.items)) }))
        .max(LAYOUT_LIMITS.sections)
        .refine((sections) => sections.length > 0, { message: 'must have at least one section' }),
    ).describe('columns, quadrants or clusters, in order; story_map: activities, items their steps'),
    releases: genericCap(
      z.array(z.strictObject({ title: text(LAYOUT_LIMITS.titleChars).trim().min(1), stories: genericCap(z.array(genericCap(z.array(text(LAYOUT_LIMITS.textChars)).max(LAYOUT_LIMITS.items))).max(LAYOUT_LIMITS.items)) })).max(LAYOUT_LIMITS.releases),
    )
      .optional()
      .describe('story_map: stories[k] go under the k-th step'),
    origin_x: z.number().optional().describe('without: clear of items on the board'),
    origin_y: z.number().optional(),
  });

const viewBoardInput = () =>
  z.strictObject({
    board_id: boardId(),
    frame_id: itemId().optional(),
    frame_title: text(200).trim().min(1).optional(),
    item_ids: genericCap(z.array(itemId()).max(VIEW_LIMITS.itemIds).refine((ids) => ids.length > 0, { message: 'must name at least one item' })).optional(),
    area: z.strictObject({ x0: z.number(), y0: z.number(), x1: z.number(), y1: z.number() }).refine((a) => a.x1 > a.x0 && a.y1 > a.y0, { message: 'must have x1 > x0 and y1 > y0' }).refine((a) => [a.x0, a.y0, a.x1, a.y1].every((v) => Math.abs(v) <= VIEW_LIMITS.coordinate), { message: `coordinates must be from -${VIEW_LIMITS.coordinate.toExponential()} to ${VIEW_LIMITS.coordinate.toExponential()}` }).optional().describe('board coordinates'),
    max_side: z.number().int().refine((n) => n >= VIEW_LIMITS.minLongSidePx && n <= VIEW_LIMITS.maxLongSidePx, { message: `must be from ${VIEW_LIMITS.minLongSidePx} to ${VIEW_LIMITS.maxLongSidePx}` }).optional().describe(`px, default ${VIEW_LIMITS.defaultLongSidePx}`),
    number_items: z.boolean().optional().describe('numbers drawn on items, listed with their IDs'),
  });

// BulkEditItems: one change or a delete on what a filter matches; a preview unless confirm is given.
const bulkEditInput = () =>
  z
    .strictObject({
      board_id: boardId(),
      filter: z
        .strictObject({
          item_ids: genericCap(z.array(itemId()).max(BULK_LIMITS.maxItems).refine((ids) => ids.length > 0, { message: 'must name at least one item' })).optional(),
          type: oneOf(ITEM_TYPES, 'an item type').optional(),
          frame_id: itemId().optional(),
          tag: text(120).trim().min(1).optional().describe('title'),
          text: text(BULK_LIMITS.findChars).trim().min(1).optional().describe('contained, any case'),
          color: text(30).trim().min(1).optional(),
        })
        .refine((f) => Object.values(f).some((v) => v !== undefined), { message: 'must give at least one of item_ids, type, frame_id, tag, text, color' }),
      update: z
        .strictObject({
          move_by: z.strictObject({ dx: z.number().refine((n) => Math.abs(n) <= 1e6, { message: 'must be within 1e6' }), dy: z.number().refine((n) => Math.abs(n) <= 1e6, { message: 'must be within 1e6' }) }).optional(),
          color: text(30).trim().min(1).optional().describe('#RRGGBB; sticky notes: yellow, blue...'),
          add_tags: genericCap(z.array(text(120).trim().min(1)).max(BULK_LIMITS.tagsPerChange)).optional().describe('titles'),
          remove_tags: genericCap(z.array(text(120).trim().min(1)).max(BULK_LIMITS.tagsPerChange)).optional(),
          width: z.number().refine((n) => n > 0 && n <= 1e6, { message: 'must be from 0 to 1e6' }).optional(),
          height: z.number().refine((n) => n > 0 && n <= 1e6, { message: 'must be from 0 to 1e6' }).optional(),
          text: text(BULK_LIMITS.textChars).optional(),
          replace_text: z.strictObject({ find: text(BULK_LIMITS.findChars).min(1), with: text(BULK_LIMITS.findChars) }).optional(),
        })
        .refine((u) => Object.values(u).some((v) => v !== undefined), { message: 'must give at least one change' })
        .optional(),
      delete: z.literal(true).optional(),
      confirm: text(100).trim().min(1).optional().describe("the preview's token"),
    })
    .superRefine((args, ctx) => {
      if ((args.update === undefined) === (args.delete === undefined)) ctx.addIssue({ code: 'custom', path: [args.update ? 'delete' : 'update'], message: 'give update (the change) or delete: true, exactly one of them' });
    });

const editDiagramInput = () =>
  z.strictObject({
    board_id: boardId(),
    mermaid: text(MERMAID_CHARS).describe('ReadBoard format mermaid text, edited'),
    dry_run: z.boolean().optional().describe('plan only'),
  });

const taskOutput = z.looseObject({});

type TaskTool<I extends z.ZodObject> = ToolDefinition<I, typeof taskOutput, CanvasApiDeps>;

/** A task tool: in the tasks toolset, beyond the contract, its zod schema built on first use like the catalogue tools'. */
function taskTool<I extends z.ZodObject>(buildInput: () => I, definition: Omit<TaskTool<I>, 'input' | 'output' | 'toolset' | 'beyondContract'>): TaskTool<I> {
  let input: I | undefined;
  return {
    ...definition,
    toolset: TASKS_TOOLSET,
    beyondContract: true,
    output: taskOutput,
    get input() {
      return (input ??= buildInput());
    },
  };
}

const readBoard = taskTool(readBoardInput, {
  name: 'CanvasApi.ReadBoard',
  title: 'Read a board',
  description: 'A board as text: frames, items (text, position, frame, tags), connectors; next_page continues.',
  hints: hintsFor('read'),
  truncationHint: 'Call again with next_page (cursor and offset), or narrow with query, frame_id or item_types.',
  budget: readBoardBudget,
  view: 'board',
  auditTargets: (args) => ({ board_id: args.board_id, frame_id: args.frame_id }),
  handler: async (args, context) => (await import('./read-board.js')).readBoard(args, context),
});

const createDiagram = taskTool(createDiagramInput, {
  name: 'CanvasApi.CreateDiagram',
  title: 'Draw a diagram',
  description: 'Draws Mermaid (flowchart, sequence, class, ER, mind map) or nodes and edges, laid out, in frames; edges to item:<ID> extend a drawing beside it. Answers node id -> item ID; failures say if a retry is safe.',
  hints: hintsFor('create'),
  budget: createDiagramBudget,
  view: 'board',
  auditTargets: (args, answer) => ({ board_id: args.board_id, ...diagramItems(answer) }),
  handler: async (args, context) => (await import('./mermaid-kinds.js')).createAnyDiagram(args, context),
});

/** What a diagram's answer says it created, for its audit line: its frames, then its items and connectors. */
function diagramItems(answer: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!answer) return {};
  const ids = (value: unknown): unknown[] => (isRecord(value) ? Object.values(value) : Array.isArray(value) ? value : []).filter((id) => typeof id === 'string' || typeof id === 'number');
  const frames = isRecord(answer.frame) ? [answer.frame.id] : ids(answer.frames);
  const items = [...ids(answer.node_items), ...ids(answer.connector_items)];
  return { ...(frames.length ? { frame_ids: frames } : {}), ...(items.length ? { created_ids: items } : {}) };
}

const createBoardLayout = taskTool(boardLayoutInput, {
  name: 'CanvasApi.CreateBoardLayout',
  title: 'Lay out a workshop board',
  description: 'A retro, kanban, story map, 2x2, SWOT or brainstorm board from lists of text: a frame per section, coloured header, sticky notes (kanban: cards). Answers item IDs per input; failures say if a retry is safe.',
  hints: hintsFor('create'),
  budget: createBoardLayoutBudget,
  view: 'board',
  auditTargets: (args, answer) => ({ board_id: args.board_id, ...diagramItems(answer) }),
  handler: async (args, context) => (await import('./board-layout.js')).createBoardLayout(args, context),
});

const viewBoard = taskTool(viewBoardInput, {
  name: 'CanvasApi.ViewBoard',
  title: 'See a board',
  description: 'A board as a PNG picture (whole board, a frame, items or an area), with the area and scale shown.',
  hints: hintsFor('read'),
  budget: viewBoardBudget,
  view: 'board',
  auditTargets: (args) => ({ board_id: args.board_id, frame_id: args.frame_id }),
  handler: async (args, context) => (await import('./view-board-call.js')).viewBoard(args, context),
});

const bulkEditItems = taskTool(bulkEditInput, {
  name: 'CanvasApi.BulkEditItems',
  title: 'Edit or delete matching items',
  description: 'Moves, recolours, retags, resizes, re-texts or deletes the items a filter matches (at most 100). Without confirm: a preview and a token; the same arguments with confirm apply exactly that, unless the board changed.',
  hints: hintsFor('delete'),
  budget: bulkEditBudget,
  auditTargets: (args, answer) => ({ board_id: args.board_id, ...(args.filter.frame_id ? { frame_id: args.filter.frame_id } : {}), ...(Array.isArray(answer?.updated) ? { updated_ids: answer.updated } : {}), ...(Array.isArray(answer?.deleted) ? { deleted_ids: answer.deleted } : {}) }),
  handler: async (args, context) => (await import('./bulk-edit.js')).bulkEditItems(args, context),
});

const editDiagram = taskTool(editDiagramInput, {
  name: 'CanvasApi.EditDiagram',
  title: 'Edit a diagram as text',
  description: 'Applies an edited ReadBoard format "mermaid" text: renames, adds, removes nodes and edges; the rest is untouched. Refuses if the diagram changed since the read.',
  hints: hintsFor('action'),
  budget: editDiagramBudget,
  auditTargets: (args, answer) => ({ board_id: args.board_id, ...editedItems(answer) }),
  handler: async (args, context) => (await import('./edit-diagram.js')).editDiagram(args, context),
});

/** What an edit's answer says it did, for its audit line: the IDs its `done` lines start with (our format: platform text comes after), and those it created. */
function editedItems(answer: Record<string, unknown> | undefined): Record<string, unknown> {
  const created = answer && isRecord(answer.created) ? Object.values(answer.created).filter((id) => typeof id === 'string') : [];
  const done = answer && Array.isArray(answer.done) ? answer.done.filter((line): line is string => typeof line === 'string') : [];
  const idsOf = (verbs: RegExp) => done.flatMap((line) => verbs.exec(line)?.[1] ?? []);
  const updated = idsOf(/^(?:rename|caption) [ic]([0-9]+) /);
  const deleted = idsOf(/^remove [ic]([0-9]+) /);
  return { ...(created.length ? { created_ids: created } : {}), ...(updated.length ? { updated_ids: updated } : {}), ...(deleted.length ? { deleted_ids: deleted } : {}) };
}

export const canvasApiTaskTools = [readBoard, createDiagram, viewBoard, createBoardLayout, bulkEditItems, editDiagram];
/** Each definition by name, for the check that its logic states the same arguments (test/task-tool-contracts.test.ts). */
export { readBoard as readBoardDefinition, createDiagram as createDiagramDefinition, viewBoard as viewBoardDefinition, createBoardLayout as createBoardLayoutDefinition, bulkEditItems as bulkEditItemsDefinition, editDiagram as editDiagramDefinition };
