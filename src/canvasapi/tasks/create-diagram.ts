/**
 * CanvasApi.CreateDiagram: nodes and edges drawn on a board. The graph is checked first (nothing
 * is sent for a bad one), laid out with dagre, then created: an optional frame, the nodes with
 * the bulk endpoint (20 per transaction, all or nothing each), then one connector per edge.
 * Creates are never sent twice (the client's retries follow the `create` effect); a failure
 * part-way stops the node transactions and the answer says what exists, what may exist and
 * what was never sent.
 */
import { ToolError, type InputIssue } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import { isRecord } from '../../core/json.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import type { CreateDiagramArgs } from './index.js';
import { STICKY_COLORS } from '../task-vocabulary.js';

type Json = Record<string, unknown>;
type DiagramNode = CreateDiagramArgs['nodes'][number];
type DiagramEdge = NonNullable<CreateDiagramArgs['edges']>[number];
type Diagram = CreateDiagramArgs & { edges: DiagramEdge[] };

/** The bulk endpoint's largest transaction. */
export const BULK_SIZE = 20;
/** Connectors created at once. */
const CONNECTOR_CONCURRENCY = 4;
const SHAPE_SIZE = { width: 220, height: 110 };
const STICKY_SIZE = { width: 200, height: 200 };
const GAP = { node: 60, rank: 90 };
/** Room between the frame's edge and the diagram. */
const FRAME_PADDING = 80;
const HEX_COLOR = /^#[0-9a-f]{6}$/i;

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
  edge?: string;
  frame?: string;
  /** not_created: the platform refused it; may_exist: it may have been created (check before retrying). */
  outcome: 'not_created' | 'may_exist';
  retry_safe: boolean;
  error: string;
}

export async function createDiagram(given: CreateDiagramArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const args = { ...given, edges: given.edges ?? [] };
  checkGraph(args);
  const placed = await layOut(args);
  const { client } = context.deps;
  const { signal } = context;
  const boardId = args.board_id;
  const label = `the board "${boardId}"`;
  const create = async (path: string, body: unknown) =>
    (await client.request<unknown>({ method: 'POST', effect: 'create', path, pathParams: { board_id: boardId }, body, signal, resourceLabel: label })).data;

  const width = Math.max(...placed.map((p) => p.x + p.width / 2));
  const height = Math.max(...placed.map((p) => p.y + p.height / 2));
  const originX = args.origin_x ?? 0;
  const originY = args.origin_y ?? 0;
  const failed: Failure[] = [];
  const total = placed.length + args.edges.length + (args.frame_title ? 1 : 0);
  let done = 0;
  const step = (message: string) => context.progress(++done, total, message);

  // The frame first: its children are placed from its top-left corner.
  let frame: { id: string; title: string } | undefined;
  if (args.frame_title) {
    const frameWidth = width + 2 * FRAME_PADDING;
    const frameHeight = height + 2 * FRAME_PADDING;
    try {
      const answer = await create('/v2/boards/{board_id}/frames', {
        data: { title: args.frame_title, format: 'custom', type: 'freeform' },
        position: { x: originX + frameWidth / 2, y: originY + frameHeight / 2 },
        geometry: { width: frameWidth, height: frameHeight },
      });
      frame = { id: idOf(answer), title: args.frame_title };
      step('frame created');
    } catch (error) {
      failed.push({ frame: args.frame_title, ...failureOf(error) });
      refusedBeforeAnything(error, failed);
      return report(args, frame, new Map(), new Map(), failed, placed.map((p) => p.node.id), args.edges.map(edgeName));
    }
  }
  const offset = frame ? { x: FRAME_PADDING, y: FRAME_PADDING } : { x: originX, y: originY };

  const itemOf = new Map<string, string>();
  let notSent: string[] = [];
  for (let start = 0; start < placed.length; start += BULK_SIZE) {
    const chunk = placed.slice(start, start + BULK_SIZE);
    const ids = chunk.map((p) => p.node.id);
    try {
      const answer = await create('/v2/boards/{board_id}/items/bulk', chunk.map((p) => bulkItem(p, offset, frame?.id)));
      const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data : [];
      if (data.length !== chunk.length) throw new ToolError({ kind: 'upstream_error', message: `The platform answered the bulk create with ${data.length} items for ${chunk.length}.` });
      chunk.forEach((p, index) => itemOf.set(p.node.id, idOf(data[index])));
      for (const _ of chunk) step(`${itemOf.size} of ${placed.length} nodes created`);
    } catch (error) {
      failed.push({ nodes: ids, ...failureOf(error) });
      if (!frame && start === 0) refusedBeforeAnything(error, failed);
      notSent = placed.slice(start + BULK_SIZE).map((p) => p.node.id);
      break;
    }
  }

  // Connectors between created nodes; an edge with a missing end is left for later.
  const connectorOf = new Map<string, string>();
  const skipped: string[] = [];
  const ready = args.edges.filter((edge) => {
    if (itemOf.has(edge.from) && itemOf.has(edge.to)) return true;
    skipped.push(edgeName(edge));
    return false;
  });
  const snaps = args.layout === 'flow-down' ? ['bottom', 'top'] : args.layout === 'flow-right' ? ['right', 'left'] : ['auto', 'auto'];
  let next = 0;
  const worker = async () => {
    while (next < ready.length) {
      const edge = ready[next++] as DiagramEdge;
      try {
        const answer = await create('/v2/boards/{board_id}/connectors', {
          startItem: { id: itemOf.get(edge.from), snapTo: snaps[0] },
          endItem: { id: itemOf.get(edge.to), snapTo: snaps[1] },
          shape: args.layout === 'grid' ? 'curved' : 'elbowed',
          ...(edge.label ? { captions: [{ content: escapeHtml(edge.label) }] } : {}),
        });
        connectorOf.set(edgeName(edge), idOf(answer));
        step(`${connectorOf.size} of ${ready.length} connectors created`);
      } catch (error) {
        failed.push({ edge: edgeName(edge), ...failureOf(error) });
        if (signal.aborted) return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONNECTOR_CONCURRENCY, ready.length) }, worker));
  return report(args, frame, itemOf, connectorOf, failed, notSent, skipped);
}

/** The platform refused the very first request: nothing exists, so its own error says best what to fix. */
function refusedBeforeAnything(error: unknown, failed: Failure[]): void {
  if (error instanceof ToolError && failed.length === 1 && failed[0]?.outcome === 'not_created') throw error;
}

function edgeName(edge: DiagramEdge): string {
  return `${edge.from}->${edge.to}`;
}

function report(args: Diagram, frame: { id: string; title: string } | undefined, itemOf: Map<string, string>, connectorOf: Map<string, string>, failed: Failure[], notSentNodes: string[], notSentEdges: string[]): Json {
  const complete = itemOf.size === args.nodes.length && connectorOf.size === args.edges.length;
  const result: Json = {
    summary: `${itemOf.size} of ${args.nodes.length} nodes and ${connectorOf.size} of ${args.edges.length} connectors created${frame ? ` in frame ${frame.id}` : ''}.`,
    board_id: args.board_id,
    ...(frame ? { frame } : {}),
    node_items: Object.fromEntries(itemOf),
    connector_items: Object.fromEntries(connectorOf),
  };
  if (!complete) {
    result.failed = failed;
    if (notSentNodes.length || notSentEdges.length) {
      result.not_sent = { ...(notSentNodes.length ? { nodes: notSentNodes } : {}), ...(notSentEdges.length ? { edges: notSentEdges } : {}), retry_safe: true };
    }
    result.next_step = failed.some((f) => f.outcome === 'may_exist')
      ? 'Items marked may_exist may be on the board: read it (CanvasApi.ReadBoard with query) before drawing them again. Draw the rest with a diagram of only what is missing, connected with AddConnectorToBoard to the items above.'
      : 'Nothing listed as failed or not sent exists: draw those nodes and edges again (a diagram of only what is missing; connect to the items above with AddConnectorToBoard).';
  }
  return result;
}

/** What a failure means for what exists: a refusal created nothing; anything else may have. */
function failureOf(error: unknown): Pick<Failure, 'outcome' | 'retry_safe' | 'error'> {
  const toolError = error instanceof ToolError ? error : undefined;
  const status = toolError?.details.status;
  const refused = toolError !== undefined && ((status !== undefined && status >= 400 && status < 500) || ['invalid_input', 'not_configured', 'unauthorized', 'forbidden', 'not_found', 'bad_request', 'rate_limited'].includes(toolError.details.kind));
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

/** The checks zod cannot make: node IDs unique, edges between known nodes, colours that fit the kind of node. */
function checkGraph(args: Diagram): void {
  const issues: InputIssue[] = [];
  const seen = new Map<string, number>();
  args.nodes.forEach((node, index) => {
    const first = seen.get(node.id);
    if (first !== undefined) issues.push({ parameter: `nodes[${index}].id`, problem: `"${node.id}" is already the id of nodes[${first}]; node ids must be unique` });
    else seen.set(node.id, index);
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
  });
  if (issues.length) throw ToolError.invalidInput(issues);
}

/** Centres and sizes relative to the diagram's top-left corner. */
async function layOut(args: Diagram): Promise<Placed[]> {
  const sizeOf = (node: DiagramNode) => (node.shape === 'sticky_note' ? STICKY_SIZE : SHAPE_SIZE);
  if (args.layout === 'grid') {
    const columns = Math.ceil(Math.sqrt(args.nodes.length));
    const cell = { width: Math.max(...args.nodes.map((n) => sizeOf(n).width)) + GAP.node, height: Math.max(...args.nodes.map((n) => sizeOf(n).height)) + GAP.node };
    return args.nodes.map((node, index) => ({ node, ...sizeOf(node), x: (index % columns) * cell.width + sizeOf(node).width / 2, y: Math.floor(index / columns) * cell.height + sizeOf(node).height / 2 }));
  }
  const { Graph, layout } = await import('@dagrejs/dagre');
  const graph = new Graph({ multigraph: true });
  graph.setGraph({ rankdir: args.layout === 'flow-down' ? 'TB' : 'LR', nodesep: GAP.node, ranksep: GAP.rank, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of args.nodes) graph.setNode(node.id, { ...sizeOf(node) });
  args.edges.forEach((edge, index) => graph.setEdge(edge.from, edge.to, {}, String(index)));
  layout(graph);
  const placed = args.nodes.map((node) => {
    const at = graph.node(node.id) as { x: number; y: number };
    return { node, ...sizeOf(node), x: at.x, y: at.y };
  });
  const left = Math.min(...placed.map((p) => p.x - p.width / 2));
  const top = Math.min(...placed.map((p) => p.y - p.height / 2));
  return placed.map((p) => ({ ...p, x: p.x - left, y: p.y - top }));
}
