/**
 * CanvasApi.CreateDiagram: nodes and edges drawn on a board. The graph is checked first (nothing
 * is sent for a bad one), laid out (flows by dagre in a worker thread, diagram-layout.ts), then
 * created: an optional frame, the nodes with the bulk endpoint (20 per transaction, all or nothing
 * each), then one connector per edge. Creates are never sent twice (the client's retries follow
 * the `create` effect); a failure part-way stops the node transactions and the answer says what
 * exists, what may exist and what was never sent. Edges are reported by their index in `edges`:
 * the same two nodes may be joined twice, and a node id may hold any character.
 */
import { ToolError, type InputIssue } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import { isRecord } from '../../core/json.js';
import { runOffThread, type OffThreadStep } from '../../core/tools/off-thread.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import type { CreateDiagramArgs } from './index.js';
import type { FlowLayout, FlowLayoutInput } from './diagram-layout.js';
import { DIAGRAM_BULK_SIZE, DIAGRAM_LIMITS, STICKY_COLORS } from '../task-vocabulary.js';

type Json = Record<string, unknown>;
type DiagramNode = CreateDiagramArgs['nodes'][number];
type DiagramEdge = NonNullable<CreateDiagramArgs['edges']>[number];
type Diagram = CreateDiagramArgs & { edges: DiagramEdge[] };

/** A connector caption's content at most, as sent (the platform's `Caption.content` maxLength). */
export const CAPTION_CHARS = 200;
/** Connectors created at once. */
const CONNECTOR_CONCURRENCY = 4;
const SHAPE_SIZE = { width: 220, height: 110 };
const STICKY_SIZE = { width: 200, height: 200 };
const GAP = { node: 60, rank: 90 };
/** Room between the frame's edge and the diagram. */
const FRAME_PADDING = 80;
const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/** The flow layout, off the event loop: dagre on 200 nodes takes seconds even within its work bound. */
const FLOW_LAYOUT: OffThreadStep = {
  module: new URL('./diagram-layout.js', import.meta.url),
  exportName: 'layOutFlow',
  what: 'the layout',
  overLimit: (limit) => [
    { parameter: 'edges', problem: `laying these nodes and edges out takes more than ${limit}: draw fewer nodes or edges (edges back up a long flow cost most), split the diagram in two, or use layout "grid"` },
  ],
};

interface Placed {
  node: DiagramNode;
  /** Centre, relative to the diagram's top-left corner. */
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

/** What exists after the calls: node id -> item ID, edge index -> connector ID. */
interface Drawn {
  frame?: { id: string; title: string };
  itemOf: Map<string, string>;
  connectorOf: (string | null)[];
  failed: Failure[];
  notSentNodes: string[];
  notSentEdges: number[];
  leftOut: number[];
}

type Create = (path: string, body: unknown) => Promise<unknown>;

export async function createDiagram(given: CreateDiagramArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const args = { ...given, edges: given.edges ?? [] };
  checkGraph(args);
  const { placed, leftOut } = await layOut(args, context.signal);
  const { client } = context.deps;
  const { signal } = context;
  const boardId = args.board_id;
  const label = `the board "${boardId}"`;
  const create: Create = async (path, body) =>
    (await client.request<unknown>({ method: 'POST', effect: 'create', path, pathParams: { board_id: boardId }, body, signal, resourceLabel: label })).data;
  const drawn: Drawn = { itemOf: new Map(), connectorOf: args.edges.map(() => null), failed: [], notSentNodes: [], notSentEdges: [], leftOut };
  const total = placed.length + args.edges.length + (args.frame_title ? 1 : 0);
  let done = 0;
  const step = (message: string) => context.progress(++done, total, message);

  // The frame first: its children are placed from its top-left corner.
  if (args.frame_title) {
    const width = Math.max(...placed.map((p) => p.x + p.width / 2)) + 2 * FRAME_PADDING;
    const height = Math.max(...placed.map((p) => p.y + p.height / 2)) + 2 * FRAME_PADDING;
    try {
      const answer = await create('/v2/boards/{board_id}/frames', {
        data: { title: args.frame_title, format: 'custom', type: 'freeform' },
        position: { x: (args.origin_x ?? 0) + width / 2, y: (args.origin_y ?? 0) + height / 2 },
        geometry: { width, height },
      });
      drawn.frame = { id: idOf(answer), title: args.frame_title };
      step('frame created');
    } catch (error) {
      drawn.failed.push({ frame: args.frame_title, ...failureOf(error) });
      refusedBeforeAnything(error, drawn.failed);
      drawn.notSentNodes = placed.map((p) => p.node.id);
      drawn.notSentEdges = args.edges.map((_, index) => index);
      return report(args, drawn);
    }
  }
  const offset = drawn.frame ? { x: FRAME_PADDING, y: FRAME_PADDING } : { x: args.origin_x ?? 0, y: args.origin_y ?? 0 };
  await createNodes(placed, offset, drawn, create, step);
  await createConnectors(args, drawn, create, signal, step);
  return report(args, drawn);
}

/** The nodes, 20 per transaction; the first failure stops the rest (listed as not sent). */
async function createNodes(placed: Placed[], offset: { x: number; y: number }, drawn: Drawn, create: Create, step: (message: string) => void): Promise<void> {
  for (let start = 0; start < placed.length; start += DIAGRAM_BULK_SIZE) {
    const chunk = placed.slice(start, start + DIAGRAM_BULK_SIZE);
    try {
      const answer = await create('/v2/boards/{board_id}/items/bulk', chunk.map((p) => bulkItem(p, offset, drawn.frame?.id)));
      const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data : [];
      if (data.length !== chunk.length) throw new ToolError({ kind: 'upstream_error', message: `The platform answered the bulk create with ${data.length} items for ${chunk.length}.` });
      const ids = data.map(idOf);
      chunk.forEach((p, index) => drawn.itemOf.set(p.node.id, ids[index]!));
      for (const _ of chunk) step(`${drawn.itemOf.size} of ${placed.length} nodes created`);
    } catch (error) {
      // Out of budget (time), this chunk was never sent: it is not sent like the rest.
      if (outOfBudget(error)) {
        drawn.notSentNodes = placed.slice(start).map((p) => p.node.id);
        return;
      }
      drawn.failed.push({ nodes: chunk.map((p) => p.node.id), ...failureOf(error) });
      if (!drawn.frame && start === 0) refusedBeforeAnything(error, drawn.failed);
      drawn.notSentNodes = placed.slice(start + DIAGRAM_BULK_SIZE).map((p) => p.node.id);
      return;
    }
  }
}

/** One connector per edge whose two nodes exist; the others, and those a cancellation stopped, are not sent. */
async function createConnectors(args: Diagram, drawn: Drawn, create: Create, signal: AbortSignal, step: (message: string) => void): Promise<void> {
  const { itemOf, connectorOf } = drawn;
  const ready: number[] = [];
  args.edges.forEach((edge, index) => (itemOf.has(edge.from) && itemOf.has(edge.to) ? ready : drawn.notSentEdges).push(index));
  const snaps = args.layout === 'flow-down' ? ['bottom', 'top'] : args.layout === 'flow-right' ? ['right', 'left'] : ['auto', 'auto'];
  let next = 0;
  let created = 0;
  let outOfTime = false;
  const sender = async () => {
    while (next < ready.length && !signal.aborted && !outOfTime) {
      const index = ready[next++]!;
      const edge = args.edges[index]!;
      try {
        const answer = await create('/v2/boards/{board_id}/connectors', {
          startItem: { id: itemOf.get(edge.from), snapTo: snaps[0] },
          endItem: { id: itemOf.get(edge.to), snapTo: snaps[1] },
          shape: args.layout === 'grid' ? 'curved' : 'elbowed',
          ...(edge.label ? { captions: [{ content: escapeHtml(edge.label) }] } : {}),
        });
        connectorOf[index] = idOf(answer);
        step(`${++created} of ${ready.length} connectors created`);
      } catch (error) {
        // Refused before sending (the call's time is up): it and the rest are not sent.
        if (outOfBudget(error)) {
          outOfTime = true;
          drawn.notSentEdges.push(index);
        } else {
          drawn.failed.push({ edge: `edges[${index}]`, from: edge.from, to: edge.to, ...failureOf(error) });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECTOR_CONCURRENCY, ready.length) }, sender));
  drawn.notSentEdges.push(...ready.slice(next));
  drawn.notSentEdges.sort((a, b) => a - b);
}

/** The call's budget refused the request: it was never sent. */
function outOfBudget(error: unknown): boolean {
  return error instanceof ToolError && error.details.kind === 'budget_exceeded';
}

/** The platform refused the very first request: nothing exists, so its own error says best what to fix. */
function refusedBeforeAnything(error: unknown, failed: Failure[]): void {
  if (error instanceof ToolError && failed.length === 1 && failed[0]?.outcome === 'not_created') throw error;
}

function report(args: Diagram, drawn: Drawn): Json {
  const { frame, itemOf, connectorOf, failed, notSentNodes, notSentEdges, leftOut } = drawn;
  const connectors = connectorOf.filter((id) => id !== null).length;
  const complete = itemOf.size === args.nodes.length && connectors === args.edges.length;
  const mayExist = failed.filter((f) => f.outcome === 'may_exist');
  const mayExistCount = mayExist.reduce((sum, f) => sum + (f.nodes?.length ?? 1), 0);
  const result: Json = {
    summary:
      `${itemOf.size} of ${args.nodes.length} nodes and ${connectors} of ${args.edges.length} connectors created${frame ? ` in frame ${frame.id}` : ''}` +
      (mayExistCount ? `; ${mayExistCount} more item${mayExistCount === 1 ? '' : 's'} may exist (failed, may_exist).` : '.'),
    board_id: args.board_id,
    ...(frame ? { frame } : {}),
    node_items: Object.fromEntries(itemOf),
    connector_items: connectorOf,
  };
  if (leftOut.length) {
    const named = leftOut.slice(0, 10).map((index) => `edges[${index}]`).join(', ') + (leftOut.length > 10 ? ', ...' : '');
    result.layout_note = `${leftOut.length} edge${leftOut.length === 1 ? '' : 's'} crossing many ranks (${named}) did not shape the layout, which keeps it fast; they are drawn all the same.`;
  }
  if (!complete) {
    result.failed = failed;
    if (notSentNodes.length || notSentEdges.length) {
      result.not_sent = {
        ...(notSentNodes.length ? { nodes: notSentNodes } : {}),
        ...(notSentEdges.length ? { edges: notSentEdges.map((index) => `edges[${index}]`) } : {}),
        retry_safe: true,
      };
    }
    result.next_step = mayExist.length
      ? 'Items marked may_exist may be on the board: read it (CanvasApi.ReadBoard with query) before drawing them again. Draw the rest with a diagram of only what is missing, connected with AddConnectorToBoard to the items above.'
      : 'Nothing listed as failed or not sent exists: draw those nodes and edges again (a diagram of only what is missing; connect to the items above with AddConnectorToBoard).';
  }
  return result;
}

/** What a failure means for what exists: a refusal created nothing; anything else may have. */
function failureOf(error: unknown): Pick<Failure, 'outcome' | 'retry_safe' | 'error'> {
  const toolError = error instanceof ToolError ? error : undefined;
  const status = toolError?.details.status;
  const refused = toolError !== undefined && ((status !== undefined && status >= 400 && status < 500) || ['invalid_input', 'not_configured', 'unauthorized', 'forbidden', 'not_found', 'bad_request', 'rate_limited', 'budget_exceeded'].includes(toolError.details.kind));
  const message = toolError ? `${toolError.details.kind}${status ? ` (HTTP ${status})` : ''}: ${toolError.details.platformMessage ?? toolError.details.message}` : 'internal error';
  return refused ? { outcome: 'not_created', retry_safe: true, error: message } : { outcome: 'may_exist', retry_safe: false, error: message };
}

function idOf(record: unknown): string {
  if (isRecord(record) && (typeof record.id === 'string' || typeof record.id === 'number')) return String(record.id);
  throw new ToolError({ kind: 'upstream_error', message: 'The platform answered a create without the new item\'s ID.' });
}

function bulkItem(p: Placed, offset: { x: number; y: number }, frameId: string | undefined): Json {
  const position = { x: Math.round(offset.x + p.x), y: Math.round(offset.y + p.y) };
  const parent = frameId ? { parent: { id: frameId } } : {};
  if (p.node.shape === 'sticky_note') {
    return { type: 'sticky_note', data: { content: escapeHtml(p.node.text), shape: 'square' }, ...(p.node.color ? { style: { fillColor: p.node.color } } : {}), position, geometry: { width: p.width }, ...parent };
  }
  return {
    type: 'shape',
    data: { content: escapeHtml(p.node.text), shape: p.node.shape ?? 'round_rectangle' },
    ...(p.node.color ? { style: { fillColor: p.node.color } } : {}),
    position,
    geometry: { width: p.width, height: p.height },
    ...parent,
  };
}

/**
 * The checks zod cannot make: node IDs unique, edges between known nodes, colours that fit the
 * kind of node, texts within their limits as sent (HTML-escaped: each of & < > " ' takes 5).
 */
function checkGraph(args: Diagram): void {
  const issues: InputIssue[] = [];
  const seen = new Map<string, number>();
  args.nodes.forEach((node, index) => {
    const first = seen.get(node.id);
    if (first !== undefined) issues.push({ parameter: `nodes[${index}].id`, problem: `"${node.id}" is already the id of nodes[${first}]; node ids must be unique` });
    else seen.set(node.id, index);
    const textIssue = escapedTooLong(node.text, DIAGRAM_LIMITS.textChars);
    if (textIssue) issues.push({ parameter: `nodes[${index}].text`, problem: textIssue });
    if (node.color === undefined) return;
    if (node.shape === 'sticky_note' && !(STICKY_COLORS as readonly string[]).includes(node.color)) {
      issues.push({ parameter: `nodes[${index}].color`, problem: `a sticky note's colour must be one of ${STICKY_COLORS.join(', ')} (got "${node.color.slice(0, 30)}")` });
    } else if (node.shape !== 'sticky_note' && !HEX_COLOR.test(node.color)) {
      issues.push({ parameter: `nodes[${index}].color`, problem: `a shape's colour must be #RRGGBB, e.g. "#a6ccf5" (got "${node.color.slice(0, 30)}")` });
    }
  });
  const known = [...seen.keys()];
  const sample = known.slice(0, 10).map((id) => `"${id}"`).join(', ') + (known.length > 10 ? ', ...' : '');
  args.edges.forEach((edge, index) => {
    for (const end of ['from', 'to'] as const) {
      if (!seen.has(edge[end])) issues.push({ parameter: `edges[${index}].${end}`, problem: `"${edge[end].slice(0, 100)}" is not the id of any node; the nodes are ${sample}` });
    }
    if (edge.from === edge.to) issues.push({ parameter: `edges[${index}].to`, problem: 'must differ from from: a connector joins two different items' });
    const labelIssue = edge.label === undefined ? undefined : escapedTooLong(edge.label, CAPTION_CHARS);
    if (labelIssue) issues.push({ parameter: `edges[${index}].label`, problem: labelIssue });
  });
  if (issues.length) throw ToolError.invalidInput(issues);
}

/** Why a text is too long once HTML-escaped, or undefined when it fits. */
function escapedTooLong(text: string, limit: number): string | undefined {
  const sent = escapeHtml(text).length;
  if (sent <= limit) return undefined;
  return `is ${sent} characters once HTML-escaped (each of & < > " ' counts 5), more than the ${limit} allowed; shorten it or use fewer of those characters`;
}

/** Centres and sizes relative to the diagram's top-left corner, and the edges the flow layout left out. */
async function layOut(args: Diagram, signal: AbortSignal): Promise<{ placed: Placed[]; leftOut: number[] }> {
  const sizeOf = (node: DiagramNode) => (node.shape === 'sticky_note' ? STICKY_SIZE : SHAPE_SIZE);
  if (args.layout === 'grid') {
    const columns = Math.ceil(Math.sqrt(args.nodes.length));
    const cell = { width: Math.max(...args.nodes.map((n) => sizeOf(n).width)) + GAP.node, height: Math.max(...args.nodes.map((n) => sizeOf(n).height)) + GAP.node };
    const placed = args.nodes.map((node, index) => ({ node, ...sizeOf(node), x: (index % columns) * cell.width + sizeOf(node).width / 2, y: Math.floor(index / columns) * cell.height + sizeOf(node).height / 2 }));
    return { placed, leftOut: [] };
  }
  const input: FlowLayoutInput = {
    nodes: args.nodes.map((node) => ({ id: node.id, ...sizeOf(node) })),
    edges: args.edges.map(({ from, to }) => ({ from, to })),
    direction: args.layout === 'flow-down' ? 'TB' : 'LR',
    nodeGap: GAP.node,
    rankGap: GAP.rank,
  };
  const { centres, leftOut } = await runOffThread<FlowLayoutInput, FlowLayout>(FLOW_LAYOUT, input, signal);
  return { placed: args.nodes.map((node, index) => ({ node, ...sizeOf(node), ...centres[index]! })), leftOut };
}
