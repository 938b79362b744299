/**
 * CanvasApi.CreateDiagram: a diagram drawn on a board, given as Mermaid flowchart text or as
 * nodes and edges (diagram-plan.ts reads and checks either; nothing is sent for a bad one). It is
 * laid out (flows by dagre in a worker thread, diagram-layout.ts; subgraphs as boxes of their
 * own), placed (at the origin given; else beside the existing items its edges name, or clear of
 * the board's items: diagram-placement.ts), then created: its frames, the nodes with the bulk
 * endpoint (20 per transaction, all or nothing each), then one connector per edge. Creates are never sent twice (the client's retries
 * follow the `create` effect); a failure part-way stops the node transactions and the answer says
 * what exists, what may exist and what was never sent. Edges are reported by their index. An edge
 * end that names no node but an item of the board (its bare ID) is read as `item:<ID>`, looked up
 * before the layout, and the answer says so.
 */
import { ToolError } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import { isRecord } from '../../core/json.js';
import { runOffThread, type OffThreadStep } from '../../core/tools/off-thread.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { itemLinkTemplate } from '../params.js';
import type { FlowLayout, FlowLayoutInput } from './diagram-layout.js';
import { isSmallLayout, LayoutTooBig, overBoundIssue, planLayout } from './diagram-work.js';
import { isExisting, planOf, resolveBare, type CreateDiagramArgs, type Plan, type PlanEdge, type PlanNode } from './diagram-plan.js';
import { placeBeside, placeClear } from './diagram-placement.js';
import type { BoardGet } from './board-tags.js';
import { alignmentOf, colourOf, plainLinesText, STICKY_COLORS, toPictureConnectors, type PictureItem } from './board-picture.js';
import { boardViewData, withBoardView, type BoardViewData } from './board-view-data.js';
import { DIAGRAM_BULK_SIZE, EXISTING_ITEM_PREFIX } from '../task-vocabulary.js';
import { neverSentForBudget, writeFailure } from './write-failure.js';
import { BOX_FONT, NEAR_END, NEAR_START, spreadEnds } from './mermaid-boxes.js';

type Json = Record<string, unknown>;

export { CAPTION_CHARS } from './diagram-plan.js';
/** Connectors created at once. */
const CONNECTOR_CONCURRENCY = 4;
const SHAPE_SIZE = { width: 220, height: 110 };
const STICKY_SIZE = { width: 200, height: 200 };
const GAP = { node: 60, rank: 90 };
/** Room between the frame_title frame's edge and the diagram. */
const FRAME_PADDING = 80;

/** The flow layout, off the event loop: dagre on 200 nodes takes seconds even within its work bound. */
const FLOW_LAYOUT: OffThreadStep = {
  module: new URL('./diagram-layout.js', import.meta.url),
  exportName: 'layOutFlow',
  what: 'the layout',
  overLimit: (limit) => [
    { parameter: 'edges', problem: `laying these nodes and edges out takes more than ${limit}: draw fewer nodes or edges (edges back up a long flow cost most), split the diagram in two, or use layout "grid"` },
  ],
};

export interface Placed {
  node: PlanNode;
  /** Centre, relative to the diagram's top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A frame's box: centre and size, relative to the diagram's top-left corner. */
export interface FrameBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Failure {
  nodes?: string[];
  /** `edges[3]`, with its ends. */
  edge?: string;
  from?: string;
  to?: string;
  frame?: string;
  /** not_created: the platform refused it; may_exist: it may have been created (check before retrying). */
  outcome: 'not_created' | 'may_exist';
  retry_safe: boolean;
  error: string;
}

/** What exists after the calls: frame index -> frame ID, node id -> item ID, edge index -> connector ID. */
interface Drawn {
  frames: (string | undefined)[];
  itemOf: Map<string, string>;
  connectorOf: (string | null)[];
  failed: Failure[];
  notSentNodes: string[];
  notSentEdges: number[];
  leftOut: number[];
  /** How the layout fell back, when it did. */
  layoutFallback?: string;
}

type Create = (path: string, body: unknown) => Promise<unknown>;

/** Where the diagram's top-left corner is, and in what: the board, or an existing frame. */
interface Anchoring {
  origin: { x: number; y: number };
  parent?: string;
  note?: string;
  /** The drawing's box on the board, when the tool chose where it goes. */
  bounds?: { left: number; top: number; right: number; bottom: number };
}

export async function createDiagram(args: CreateDiagramArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const plan = planOf(args);
  const { get } = requesters(args.board_id, context);
  // Bare item IDs first: they decide which edges shape the layout.
  const { known, notes: readAsItems } = await lookUpBare(plan, get, context.signal);
  const laidOut = await layOut(plan, context.signal);
  // Class and ER relations meet their boxes spread along the sides (mermaid-boxes.ts).
  if (plan.edges.some((edge) => edge.caps) && plan.layout !== 'grid') {
    const ends = spreadEnds(plan.edges, new Map(laidOut.placed.map((p) => [p.node.id, p])), plan.layout);
    plan.edges.forEach((edge, index) => (edge.ends = ends[index]));
  }
  return drawLaidOut(args, plan, laidOut, context, { known, readAsItems });
}

/** The board's create and read requests, through the client (creates are never sent twice). */
export function requesters(boardId: string, context: ToolContext<CanvasApiDeps>): { create: Create; get: BoardGet } {
  const { client } = context.deps;
  const label = `the board "${boardId}"`;
  return {
    create: async (path, body) => (await client.request<unknown>({ method: 'POST', effect: 'create', path, pathParams: { board_id: boardId }, body, signal: context.signal, resourceLabel: label })).data,
    get: async (path, query, pageSignal, pathParams = {}) =>
      (await client.request<unknown>({ method: 'GET', effect: 'read', path, pathParams: { board_id: boardId, ...pathParams }, query, signal: pageSignal, resourceLabel: label })).data,
  };
}

/** A drawing already laid out (relative to its top-left corner), as CreateDiagram or CreateBoardLayout made it. */
export interface LaidOut {
  placed: Placed[];
  frameBoxes: FrameBox[];
  leftOut: number[];
  layoutFallback?: string;
}

/**
 * The shared drawing step: placed (given origin, beside the items its edges name, or clear of the
 * board), then its frames, its nodes in bulk transactions of 20, its connectors; the answer is the
 * per-item report. `noun` words the report for the caller (CreateBoardLayout's items are not nodes).
 */
export async function drawLaidOut(
  args: { board_id: string; origin_x?: number | undefined; origin_y?: number | undefined },
  plan: Plan,
  laidOut: LaidOut,
  context: ToolContext<CanvasApiDeps>,
  options: { known?: ReadonlyMap<string, Json>; readAsItems?: string[]; wording?: ReportWording } = {},
): Promise<Json> {
  const { placed, frameBoxes, leftOut, layoutFallback } = laidOut;
  const { signal } = context;
  const boardId = args.board_id;
  const { create, get } = requesters(boardId, context);
  const readAsItems = options.readAsItems ?? [];
  const anchoring = await anchor(args, plan, placed, frameBoxes, get, signal, options.known ?? new Map());
  const drawn: Drawn = { frames: plan.frames.map(() => undefined), itemOf: new Map(), connectorOf: plan.edges.map(() => null), failed: [], notSentNodes: [], notSentEdges: [], leftOut, ...(layoutFallback ? { layoutFallback } : {}) };
  const total = placed.length + plan.edges.length + plan.frames.length;
  let done = 0;
  const step = (message: string) => context.progress(++done, total, message);
  const answer = (): Json => withBoardView(report(args, plan, drawn, anchoring, context.deps.webBase, readAsItems, options.wording ?? DIAGRAM_WORDING), () => diagramView(plan, placed, frameBoxes, anchoring, drawn, itemLinkTemplate(context.deps.webBase, boardId)));

  // The frames first: their nodes are placed from their top-left corners.
  for (const [index, frame] of plan.frames.entries()) {
    const box = frameBoxes[index]!;
    try {
      const created = await create('/v2/boards/{board_id}/frames', {
        data: { title: frame.title, format: 'custom', type: 'freeform' },
        position: { x: anchoring.origin.x + box.x, y: anchoring.origin.y + box.y },
        geometry: { width: box.width, height: box.height },
      });
      drawn.frames[index] = idOf(created);
      step('frame created');
    } catch (error) {
      drawn.failed.push({ frame: frame.title, ...failureOf(error) });
      if (index === 0) refusedBeforeAnything(error, drawn.failed);
      drawn.notSentNodes = placed.map((p) => p.node.id);
      drawn.notSentEdges = plan.edges.map((_, edge) => edge);
      return answer();
    }
  }
  // A node's position: from its frame's top-left corner, or the diagram's origin (on the board or in the existing frame).
  const positionOf = (p: Placed) => {
    if (p.node.frame === undefined) return { position: { x: Math.round(anchoring.origin.x + p.x), y: Math.round(anchoring.origin.y + p.y) }, parent: anchoring.parent };
    const box = frameBoxes[p.node.frame]!;
    return { position: { x: Math.round(p.x - (box.x - box.width / 2)), y: Math.round(p.y - (box.y - box.height / 2)) }, parent: drawn.frames[p.node.frame] };
  };
  await createNodes(placed, positionOf, drawn, create, step);
  await createConnectors(plan, drawn, create, signal, step);
  return answer();
}

/**
 * Each distinct bare item ID among the edge ends, read once (`/items/{id}`): those the board has
 * become `item:<ID>` ends; any it has not is refused, nothing created. The records read are kept
 * for the placement.
 */
async function lookUpBare(plan: Plan, get: BoardGet, signal: AbortSignal): Promise<{ known: Map<string, Json>; notes: string[] }> {
  const known = new Map<string, Json>();
  if (!plan.bare.size) return { known, notes: [] };
  await Promise.all(
    [...plan.bare.keys()].map(async (id) => {
      try {
        const record = await get('/v2/boards/{board_id}/items/{item_id}', {}, signal, { item_id: id });
        if (isRecord(record)) known.set(id, record);
      } catch (error) {
        // Not an item of this board: refused below, with the others.
        if (!(error instanceof ToolError && error.details.kind === 'not_found')) throw error;
      }
    }),
  );
  return { known, notes: resolveBare(plan, new Set(known.keys())) };
}

/**
 * The diagram's corner: given (origin_x, origin_y); else beside the existing items its edges
 * name; else clear of the board's items (diagram-placement.ts).
 */
async function anchor(args: { origin_x?: number | undefined; origin_y?: number | undefined }, plan: Plan, placed: Placed[], frameBoxes: FrameBox[], get: BoardGet, signal: AbortSignal, known: ReadonlyMap<string, Json>): Promise<Anchoring> {
  const givenAny = args.origin_x !== undefined || args.origin_y !== undefined;
  const given = { x: args.origin_x ?? 0, y: args.origin_y ?? 0 };
  // The layout's box, from the diagram's top-left corner (the layout starts it at 0,0).
  const size = {
    width: Math.max(...placed.map((p) => p.x + p.width / 2), ...frameBoxes.map((b) => b.x + b.width / 2)),
    height: Math.max(...placed.map((p) => p.y + p.height / 2), ...frameBoxes.map((b) => b.y + b.height / 2)),
  };
  const boundsAt = (origin: { x: number; y: number }) => ({ left: Math.round(origin.x), top: Math.round(origin.y), right: Math.round(origin.x + size.width), bottom: Math.round(origin.y + size.height) });
  if (!plan.existing.length) {
    if (givenAny) return { origin: given };
    const clear = await placeClear(get, signal, size);
    return { origin: clear.origin, note: `${placed.length} new node${placed.length === 1 ? '' : 's'} ${clear.note}`, bounds: boundsAt(clear.origin) };
  }
  const flow = plan.layout === 'grid' ? 'TB' : plan.layout;
  // Frames do not nest: a diagram with frames of its own goes on the board.
  const placement = await placeBeside(get, signal, plan.existing, size, flow, plan.frames.length === 0, known);
  if (givenAny) return { origin: given };
  const corner = placement.parent?.corner ?? { x: 0, y: 0 };
  return {
    origin: placement.origin,
    ...(placement.parent ? { parent: placement.parent.id } : {}),
    note: `${placed.length} new node${placed.length === 1 ? '' : 's'} ${placement.note}`,
    bounds: boundsAt({ x: corner.x + placement.origin.x, y: corner.y + placement.origin.y }),
  };
}

/** The nodes, 20 per transaction; the first failure stops the rest (listed as not sent). */
async function createNodes(placed: Placed[], positionOf: (p: Placed) => { position: { x: number; y: number }; parent: string | undefined }, drawn: Drawn, create: Create, step: (message: string) => void): Promise<void> {
  for (let start = 0; start < placed.length; start += DIAGRAM_BULK_SIZE) {
    const chunk = placed.slice(start, start + DIAGRAM_BULK_SIZE);
    try {
      const answer = await create('/v2/boards/{board_id}/items/bulk', chunk.map((p) => bulkItem(p, positionOf(p))));
      const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data : [];
      if (data.length !== chunk.length) throw new ToolError({ kind: 'upstream_error', message: `The platform answered the bulk create with ${data.length} items for ${chunk.length}.` });
      const ids = data.map(idOf);
      chunk.forEach((p, index) => drawn.itemOf.set(p.node.id, ids[index]!));
      for (const _ of chunk) step(`${drawn.itemOf.size} of ${placed.length} nodes created`);
    } catch (error) {
      // The call's time ran out before this chunk was sent: it is not sent like the rest (one whose answer was awaited may exist: failed below).
      if (outOfBudget(error)) {
        drawn.notSentNodes = placed.slice(start).map((p) => p.node.id);
        return;
      }
      drawn.failed.push({ nodes: chunk.map((p) => p.node.id), ...failureOf(error) });
      if (!drawn.frames.length && start === 0) refusedBeforeAnything(error, drawn.failed);
      drawn.notSentNodes = placed.slice(start + DIAGRAM_BULK_SIZE).map((p) => p.node.id);
      return;
    }
  }
}

/** Snap points by the flow's direction: out of the side it goes to, into the side it comes from. */
const SNAPS = { TB: ['bottom', 'top'], BT: ['top', 'bottom'], LR: ['right', 'left'], RL: ['left', 'right'], grid: ['auto', 'auto'] } as const;

/** A connector's body: its ends (an existing item by its ID), its caption, its stroke and arrowheads. */
function connectorBody(plan: Plan, edge: PlanEdge, itemOf: Map<string, string>): Json {
  const itemId = (end: string) => (isExisting(end) ? end.slice(EXISTING_ITEM_PREFIX.length) : itemOf.get(end));
  // An existing item may be on any side of the new nodes.
  const snaps = isExisting(edge.from) || isExisting(edge.to) ? SNAPS.grid : SNAPS[plan.layout];
  const style: Json = {
    ...(edge.stroke === 'dotted' ? { strokeStyle: 'dashed' } : {}),
    ...(edge.stroke === 'thick' ? { strokeWidth: '4' } : {}),
    ...(edge.arrows === 'none' ? { endStrokeCap: 'none' } : {}),
    ...(edge.arrows === 'both' ? { startStrokeCap: 'stealth' } : {}),
    ...(edge.caps ? { startStrokeCap: edge.caps.start, endStrokeCap: edge.caps.end } : {}),
  };
  // A drawing that decides its connectors' ends (a sequence diagram's messages) gives them whole.
  const { draw } = edge;
  if (draw?.style) Object.assign(style, draw.style);
  // The label in the middle; cardinalities near their ends (class relations).
  const captions = [
    ...(edge.label ? [{ content: escapeHtml(edge.label) }] : []),
    ...(edge.endLabels?.start ? [{ content: escapeHtml(edge.endLabels.start), position: NEAR_START }] : []),
    ...(edge.endLabels?.end ? [{ content: escapeHtml(edge.endLabels.end), position: NEAR_END }] : []),
  ];
  return {
    startItem: { id: itemId(edge.from), ...(draw ? draw.start : edge.ends ? { position: edge.ends.start } : { snapTo: snaps[0] }) },
    endItem: { id: itemId(edge.to), ...(draw ? draw.end : edge.ends ? { position: edge.ends.end } : { snapTo: snaps[1] }) },
    shape: draw?.shape ?? (plan.layout === 'grid' ? 'curved' : 'elbowed'),
    ...(captions.length ? { captions } : {}),
    ...(Object.keys(style).length ? { style } : {}),
  };
}

/** One connector per edge whose two ends exist; the others, and those a cancellation stopped, are not sent. */
async function createConnectors(plan: Plan, drawn: Drawn, create: Create, signal: AbortSignal, step: (message: string) => void): Promise<void> {
  const { itemOf, connectorOf } = drawn;
  const exists = (end: string) => isExisting(end) || itemOf.has(end);
  const ready: number[] = [];
  plan.edges.forEach((edge, index) => (exists(edge.from) && exists(edge.to) ? ready : drawn.notSentEdges).push(index));
  let next = 0;
  let created = 0;
  let outOfTime = false;
  const sender = async () => {
    while (next < ready.length && !signal.aborted && !outOfTime) {
      const index = ready[next++]!;
      const edge = plan.edges[index]!;
      try {
        connectorOf[index] = idOf(await create('/v2/boards/{board_id}/connectors', connectorBody(plan, edge, itemOf)));
        step(`${++created} of ${ready.length} connectors created`);
      } catch (error) {
        // Refused before sending (the call's time is up): it and the rest are not sent.
        if (outOfBudget(error)) {
          outOfTime = true;
          drawn.notSentEdges.push(index);
        } else {
          drawn.failed.push({ edge: `${plan.edgeNoun ?? 'edges'}[${index}]`, from: edge.from, to: edge.to, ...failureOf(error) });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECTOR_CONCURRENCY, ready.length) }, sender));
  drawn.notSentEdges.push(...ready.slice(next));
  drawn.notSentEdges.sort((a, b) => a - b);
}

/** The call's budget refused the request before sending it (write-failure.ts). */
export const outOfBudget = neverSentForBudget;

/** The platform refused the very first request: nothing exists, so its own error says best what to fix. */
function refusedBeforeAnything(error: unknown, failed: Failure[]): void {
  if (error instanceof ToolError && failed.length === 1 && failed[0]?.outcome === 'not_created') throw error;
}

/** How the report words what was drawn: a diagram's nodes and connectors, or a layout's items. */
export interface ReportWording {
  summary: (created: number, total: number, connectors: number, edges: number) => string;
  /** Without edges, the answer has no connector_items. */
  connectors: boolean;
  nextStep: { mayExist: string; safe: string };
}

const DIAGRAM_WORDING: ReportWording = {
  summary: (created, total, connectors, edges) => `${created} of ${total} nodes and ${connectors} of ${edges} connectors created`,
  connectors: true,
  nextStep: {
    mayExist: 'Items marked may_exist may be on the board: read it (CanvasApi.ReadBoard with query) before drawing them again. Draw the rest with a diagram of only what is missing, its edges naming the items above as item:<ID>.',
    safe: 'Nothing listed as failed or not sent exists: draw those nodes and edges again (a diagram of only what is missing, its edges naming the items above as item:<ID>).',
  },
};

function report(args: { board_id: string }, plan: Plan, drawn: Drawn, anchoring: Anchoring, webBase: string | undefined, readAsItems: string[], wording: ReportWording): Json {
  const { frames, itemOf, connectorOf, failed, notSentNodes, notSentEdges, leftOut } = drawn;
  const connectors = connectorOf.filter((id) => id !== null).length;
  const complete = itemOf.size === plan.nodes.length && connectors === plan.edges.length;
  const mayExist = failed.filter((f) => f.outcome === 'may_exist');
  const mayExistCount = mayExist.reduce((sum, f) => sum + (f.nodes?.length ?? 1), 0);
  const madeFrames = frames.filter((id): id is string => id !== undefined);
  const where = madeFrames.length === 1 && !plan.framesAreGroups ? ` in frame ${madeFrames[0]}` : madeFrames.length ? ` in ${madeFrames.length} frame${madeFrames.length === 1 ? '' : 's'}` : anchoring.parent ? ` in frame ${anchoring.parent}` : '';
  const result: Json = {
    summary:
      `${wording.summary(itemOf.size, plan.nodes.length, connectors, plan.edges.length)}${where}` +
      (mayExistCount ? `; ${mayExistCount} more item${mayExistCount === 1 ? '' : 's'} may exist (failed, may_exist).` : '.'),
    board_id: args.board_id,
    item_link: itemLinkTemplate(webBase, args.board_id),
    ...(plan.framesAreGroups
      ? madeFrames.length ? { frames: Object.fromEntries(plan.frames.flatMap((frame, index) => (frames[index] ? [[frame.key ?? frame.title, frames[index]]] : []))) } : {}
      : frames[0] ? { frame: { id: frames[0], title: plan.frames[0]!.title } } : {}),
    node_items: Object.fromEntries(itemOf),
    ...(wording.connectors ? { connector_items: connectorOf } : {}),
    ...(anchoring.note ? { placed: anchoring.note } : {}),
    ...(anchoring.bounds ? { bounds: anchoring.bounds } : {}),
    ...(readAsItems.length ? { read_as_items: readAsItems } : {}),
    ...(plan.notes.length ? { not_drawn: plan.notes.length > 10 ? [...plan.notes.slice(0, 10), `and ${plan.notes.length - 10} more`] : plan.notes } : {}),
  };
  const notes: string[] = [];
  if (leftOut.length) {
    const named = leftOut.slice(0, 10).map((index) => `edges[${index}]`).join(', ') + (leftOut.length > 10 ? ', ...' : '');
    notes.push(`${leftOut.length} edge${leftOut.length === 1 ? '' : 's'} crossing many ranks (${named}) did not shape the layout, which keeps it fast; they are drawn all the same.`);
  }
  if (drawn.layoutFallback) notes.push(drawn.layoutFallback);
  if (notes.length) result.layout_note = notes.join(' ');
  if (!complete) {
    result.failed = failed;
    if (notSentNodes.length || notSentEdges.length) {
      result.not_sent = {
        ...(notSentNodes.length ? { nodes: notSentNodes } : {}),
        ...(notSentEdges.length ? { edges: notSentEdges.map((index) => `${plan.edgeNoun ?? 'edges'}[${index}]`) } : {}),
        retry_safe: true,
      };
    }
    result.next_step = mayExist.length ? wording.nextStep.mayExist : wording.nextStep.safe;
  }
  return result;
}

/** What a failure means for what exists (write-failure.ts): a refusal created nothing; anything else may have. */
export function failureOf(error: unknown): Pick<Failure, 'outcome' | 'retry_safe' | 'error'> {
  const { mayHaveHappened, message } = writeFailure(error);
  return mayHaveHappened ? { outcome: 'may_exist', retry_safe: false, error: message } : { outcome: 'not_created', retry_safe: true, error: message };
}

export function idOf(record: unknown): string {
  if (isRecord(record) && (typeof record.id === 'string' || typeof record.id === 'number')) return String(record.id);
  throw new ToolError({ kind: 'upstream_error', message: 'The platform answered a create without the new item\'s ID.' });
}

function bulkItem(p: Placed, where: { position: { x: number; y: number }; parent: string | undefined }): Json {
  const parent = where.parent ? { parent: { id: where.parent } } : {};
  // A card's text is its title, its colour the theme (its border); CreateBoardLayout's kanban makes them.
  if (p.node.shape === 'card') {
    return { type: 'card', data: { title: escapeHtml(p.node.text) }, ...(p.node.color ? { style: { cardTheme: p.node.color } } : {}), position: where.position, geometry: { width: p.width, height: p.height }, ...parent };
  }
  if (p.node.shape === 'sticky_note') {
    return { type: 'sticky_note', data: { content: escapeHtml(p.node.text), shape: 'square' }, ...(p.node.color ? { style: { fillColor: p.node.color } } : {}), position: where.position, geometry: { width: p.width }, ...parent };
  }
  const style = shapeStyle(p);
  return {
    type: 'shape',
    data: { content: p.node.html ?? escapeHtml(p.node.text), shape: p.node.shape ?? 'round_rectangle' },
    ...(Object.keys(style).length ? { style } : {}),
    position: where.position,
    geometry: { width: p.width, height: p.height },
    ...parent,
  };
}

/** A shape's style as sent: its colour; class and ER boxes set top left at the font size they were sized for; the drawing's own. */
function shapeStyle(p: Placed): Record<string, string> {
  const boxStyle: Record<string, string> = p.node.html !== undefined ? { textAlign: 'left', textAlignVertical: 'top', fontSize: String(BOX_FONT) } : {};
  return { ...(p.node.color ? { fillColor: p.node.color } : {}), ...boxStyle, ...p.node.style };
}

/**
 * The board view's data (MCP Apps): the frames, nodes and connectors this call created, where it
 * put them on the board (its own positions and sizes: nothing is read back).
 */
function diagramView(plan: Plan, placed: Placed[], frameBoxes: FrameBox[], anchoring: Anchoring, drawn: Drawn, linkTemplate: string): BoardViewData {
  // The diagram's top-left corner on the board (bounds hold it when it went into an existing frame).
  const corner = anchoring.bounds ? { x: anchoring.bounds.left, y: anchoring.bounds.top } : anchoring.origin;
  const items: PictureItem[] = [];
  plan.frames.forEach((frame, index) => {
    const id = drawn.frames[index];
    const box = frameBoxes[index]!;
    if (id !== undefined) items.push({ id, type: 'frame', x: corner.x + box.x, y: corner.y + box.y, width: box.width, height: box.height, text: frame.title });
  });
  for (const p of placed) {
    const id = drawn.itemOf.get(p.node.id);
    if (id === undefined) continue;
    const sticky = p.node.shape === 'sticky_note';
    const card = p.node.shape === 'card';
    const fill = colourOf(p.node.color, sticky ? STICKY_COLORS.light_yellow : undefined);
    const type = sticky ? 'sticky_note' : card ? 'card' : 'shape';
    // The lines of the text sent, placed as its style says (class and ER boxes, sequence blocks: top left).
    const text = plainLinesText(type === 'shape' ? (p.node.html ?? escapeHtml(p.node.text)) : escapeHtml(p.node.text));
    const shape = type === 'shape' ? { shape: p.node.shape ?? 'round_rectangle', ...alignmentOf(type, shapeStyle(p)) } : {};
    items.push({ id, type, x: corner.x + p.x, y: corner.y + p.y, width: p.width, height: p.height, text, ...shape, ...(fill ? { fill } : {}) });
  }
  const records = plan.edges.flatMap((edge, index) => {
    const id = drawn.connectorOf[index];
    return id === null || id === undefined ? [] : [{ ...connectorBody(plan, edge, drawn.itemOf), id }];
  });
  // Connectors to items already on the board are left out: those items are not drawn.
  return boardViewData(items, toPictureConnectors(records, items), linkTemplate);
}

const sizeOf = (node: PlanNode) => node.size ?? (node.shape === 'sticky_note' ? STICKY_SIZE : SHAPE_SIZE);

/**
 * Centres and sizes relative to the diagram's top-left corner, its frames' boxes, and the edges
 * the flow layout left out. Subgraphs are laid out as boxes of their own (dagre's clusters, or
 * each on its own: diagram-work.ts); a frame_title frame wraps the whole diagram with FRAME_PADDING.
 */
async function layOut(plan: Plan, signal: AbortSignal): Promise<{ placed: Placed[]; frameBoxes: FrameBox[]; leftOut: number[]; layoutFallback?: string }> {
  let placed: Placed[];
  let groupBoxes: FrameBox[] = [];
  let leftOut: number[] = [];
  let layoutFallback: string | undefined;
  if (plan.layout === 'grid') {
    const columns = Math.ceil(Math.sqrt(plan.nodes.length));
    const cell = { width: Math.max(...plan.nodes.map((n) => sizeOf(n).width)) + GAP.node, height: Math.max(...plan.nodes.map((n) => sizeOf(n).height)) + GAP.node };
    placed = plan.nodes.map((node, index) => ({ node, ...sizeOf(node), x: (index % columns) * cell.width + sizeOf(node).width / 2, y: Math.floor(index / columns) * cell.height + sizeOf(node).height / 2 }));
  } else {
    // Edges to existing items are drawn, but do not shape the layout of the new nodes.
    const inner = plan.edges.filter((edge) => !isExisting(edge.from) && !isExisting(edge.to));
    const input: FlowLayoutInput = {
      nodes: plan.nodes.map((node) => ({ id: node.id, ...sizeOf(node) })),
      edges: inner.map(({ from, to }) => ({ from, to })),
      direction: plan.layout,
      nodeGap: GAP.node,
      rankGap: GAP.rank,
      ...(plan.framesAreGroups ? { groups: plan.nodes.map((node) => node.frame), groupCount: plan.frames.length } : {}),
    };
    refuseOverBound(plan, input);
    // A layout of a few nodes runs in the small lane, never behind another caller's big ones.
    const layout = await runOffThread<FlowLayoutInput, FlowLayout>(FLOW_LAYOUT, input, signal, { small: isSmallLayout(input) });
    layoutFallback = layout.fallback;
    const indexOf = new Map(inner.map((edge, index) => [index, plan.edges.indexOf(edge)]));
    leftOut = layout.leftOut.map((index) => indexOf.get(index)!);
    placed = plan.nodes.map((node, index) => ({ node, ...sizeOf(node), ...layout.centres[index]! }));
    groupBoxes = layout.groupBoxes;
  }
  const fallback = layoutFallback ? { layoutFallback } : {};
  if (plan.framesAreGroups || !plan.frames.length) return { placed, frameBoxes: groupBoxes, leftOut, ...fallback };
  // The frame_title frame: the diagram inside it, FRAME_PADDING from each side.
  const width = Math.max(...placed.map((p) => p.x + p.width / 2)) + 2 * FRAME_PADDING;
  const height = Math.max(...placed.map((p) => p.y + p.height / 2)) + 2 * FRAME_PADDING;
  return { placed: placed.map((p) => ({ ...p, x: p.x + FRAME_PADDING, y: p.y + FRAME_PADDING })), frameBoxes: [{ x: width / 2, y: height / 2, width, height }], leftOut, ...fallback };
}

/** The layout's work counted before any worker runs (diagram-work.ts): past its bound, refused, nothing sent. */
function refuseOverBound(plan: Plan, input: FlowLayoutInput): void {
  try {
    planLayout(input);
  } catch (error) {
    if (!(error instanceof LayoutTooBig)) throw error;
    throw ToolError.invalidInput([overBoundIssue(error, plan.source, plan.framesAreGroups && plan.frames.length > 0)]);
  }
}
