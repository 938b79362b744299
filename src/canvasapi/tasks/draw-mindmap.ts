/**
 * A Mermaid mind map drawn on a board (CreateDiagram with `mindmap` text) as the platform's own
 * mind-map nodes (the experimental mindmap_nodes endpoint): the root first, then each node with
 * its parent's ID, parents always before their children, a few at a time. The platform places a
 * node where its position says (it does not lay mind maps out), so the tree is laid out here:
 * the root's branches split to its right and left by their leaves, each level a column further
 * out, leaves a row apart, a parent level with the middle of its children. Without an origin the
 * map goes clear of the board's items (mind-map nodes are listed without their place, so other
 * mind maps are not seen). Creates are never resent; a failure stops that branch, and the answer
 * says what exists, what may exist and what was never sent (the failed node's descendants).
 */
import { ToolError, type InputIssue } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { itemLinkTemplate } from '../params.js';
import { DIAGRAM_LIMITS } from '../task-vocabulary.js';
import { failureOf, idOf, outOfBudget, requesters } from './create-diagram.js';
import type { CreateDiagramArgs } from './diagram-plan.js';
import { placeClear } from './diagram-placement.js';
import { boardViewData, withBoardView } from './board-view-data.js';
import { MermaidError } from './mermaid.js';
import { parseMindmap, type MindmapDiagram } from './mermaid-mindmap.js';

type Json = Record<string, unknown>;

export const MINDMAP_PATH = '/v2-experimental/boards/{board_id}/mindmap_nodes';
/** Nodes created at once. */
const CONCURRENCY = 4;
/** A column per level, a row per leaf; a node's box for the placement. */
const LEVEL = 280;
const SLOT = 70;
const NODE = { width: 220, height: 50 };

interface Failure {
  node: string;
  outcome: 'not_created' | 'may_exist';
  retry_safe: boolean;
  error: string;
}

export async function drawMindmap(args: CreateDiagramArgs, text: string, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  if (args.frame_title !== undefined) throw ToolError.invalidInput([{ parameter: 'frame_title', problem: 'leave it out with a mind map: its nodes go on the board, not in a frame' }]);
  let diagram: MindmapDiagram;
  try {
    diagram = parseMindmap(text);
  } catch (error) {
    if (error instanceof MermaidError) throw ToolError.invalidInput(error.problems.map((problem) => ({ parameter: 'mermaid', problem })));
    throw error;
  }
  const issues: InputIssue[] = diagram.nodes.flatMap((node) => {
    const sent = escapeHtml(node.text).length;
    return sent <= DIAGRAM_LIMITS.textChars ? [] : [{ parameter: 'mermaid', problem: `line ${node.line}: the node's text is ${sent} characters once HTML-escaped (each of & < > " ' counts 5), more than the ${DIAGRAM_LIMITS.textChars} allowed` }];
  });
  if (issues.length) throw ToolError.invalidInput(issues.slice(0, 10));
  const layout = layOutMindmap(diagram);
  const { create, get } = requesters(args.board_id, context);
  const givenAny = args.origin_x !== undefined || args.origin_y !== undefined;
  const clear = givenAny ? undefined : await placeClear(get, context.signal, layout.size);
  const corner = clear?.origin ?? { x: args.origin_x ?? 0, y: args.origin_y ?? 0 };
  const positionOf = (index: number) => ({ x: Math.round(corner.x + layout.centres[index]!.x), y: Math.round(corner.y + layout.centres[index]!.y) });
  const sent = await createNodes(diagram, positionOf, create, context);
  const placement = clear ? { placed: `${diagram.nodes.length} mind-map node${diagram.nodes.length === 1 ? '' : 's'} ${clear.note}`, bounds: { left: corner.x, top: corner.y, right: corner.x + layout.size.width, bottom: corner.y + layout.size.height } } : {};
  const answer = mindmapReport(args.board_id, context.deps.webBase, diagram, sent, placement);
  // The board view: the nodes created where they were put, each joined to its parent.
  return withBoardView(answer, () => {
    const items = diagram.nodes.flatMap((node, index) => {
      const id = sent.itemOf.get(index);
      const parent = node.parent === undefined ? undefined : sent.itemOf.get(node.parent);
      return id === undefined ? [] : [{ id, type: 'mindmap_node', ...positionOf(index), ...NODE, text: node.text, ...(parent ? { parentNode: parent } : {}) }];
    });
    return boardViewData(items, [], itemLinkTemplate(context.deps.webBase, args.board_id));
  });
}

/** Each node's centre from the map's top-left corner, and the map's size. */
export function layOutMindmap(diagram: MindmapDiagram): { centres: { x: number; y: number }[]; size: { width: number; height: number } } {
  const { nodes } = diagram;
  const children: number[][] = nodes.map(() => []);
  nodes.forEach((node, index) => node.parent !== undefined && children[node.parent]!.push(index));
  // Leaves under each node, children after parents in `nodes`: counted from the end.
  const leaves = new Array<number>(nodes.length).fill(0);
  for (let index = nodes.length - 1; index >= 0; index--) {
    leaves[index] = children[index]!.length ? children[index]!.reduce((sum, child) => sum + leaves[child]!, 0) : 1;
  }
  // The root's branches: to the right until they hold half its leaves, the rest to the left.
  const side = new Array<number>(nodes.length).fill(1);
  let right = 0;
  for (const branch of children[0]!) {
    const goesRight = right === 0 || right + leaves[branch]! / 2 <= leaves[0]! / 2;
    side[branch] = goesRight ? 1 : -1;
    if (goesRight) right += leaves[branch]!;
  }
  for (let index = 1; index < nodes.length; index++) if (nodes[index]!.parent !== 0) side[index] = side[nodes[index]!.parent!]!;
  const slots = { [1]: 0, [-1]: 0 } as Record<number, number>;
  const y = new Array<number>(nodes.length).fill(0);
  nodes.forEach((_, index) => {
    if (index > 0 && !children[index]!.length) y[index] = slots[side[index]!]!++ * SLOT;
  });
  for (let index = nodes.length - 1; index > 0; index--) {
    const kids = children[index]!;
    if (kids.length) y[index] = (y[kids[0]!]! + y[kids[kids.length - 1]!]!) / 2;
  }
  // Each side centred on the root.
  const shift = { [1]: ((slots[1]! - 1) * SLOT) / 2, [-1]: ((slots[-1]! - 1) * SLOT) / 2 } as Record<number, number>;
  const raw = nodes.map((node, index) => ({ x: index === 0 ? 0 : side[index]! * node.depth * LEVEL, y: index === 0 ? 0 : y[index]! - shift[side[index]!]! }));
  const left = Math.min(...raw.map((p) => p.x)) - NODE.width / 2;
  const top = Math.min(...raw.map((p) => p.y)) - NODE.height / 2;
  const centres = raw.map((p) => ({ x: p.x - left, y: p.y - top }));
  return { centres, size: { width: Math.max(...centres.map((p) => p.x)) + NODE.width / 2, height: Math.max(...centres.map((p) => p.y)) + NODE.height / 2 } };
}

interface Sent {
  itemOf: Map<number, string>;
  failed: Failure[];
  notSent: number[];
}

/**
 * The nodes, CONCURRENCY at a time, each as soon as its parent exists. A node that fails stops
 * its branch (its descendants are not sent); a refusal for time stops all that is left.
 */
async function createNodes(diagram: MindmapDiagram, positionOf: (index: number) => { x: number; y: number }, create: (path: string, body: unknown) => Promise<unknown>, context: ToolContext<CanvasApiDeps>): Promise<Sent> {
  const { nodes } = diagram;
  const children: number[][] = nodes.map(() => []);
  nodes.forEach((node, index) => node.parent !== undefined && children[node.parent]!.push(index));
  const sent: Sent = { itemOf: new Map(), failed: [], notSent: [] };
  const ready = [0];
  let inFlight = 0;
  let stopped = false;
  let rootRefused: unknown;
  const send = async (index: number) => {
    const node = nodes[index]!;
    const parent = node.parent === undefined ? undefined : sent.itemOf.get(node.parent);
    try {
      const created = await create(MINDMAP_PATH, { data: { nodeView: { data: { type: 'text', content: escapeHtml(node.text) } } }, position: positionOf(index), ...(parent ? { parent: { id: parent } } : {}) });
      sent.itemOf.set(index, idOf(created));
      ready.push(...children[index]!);
      context.progress(sent.itemOf.size, nodes.length, `${sent.itemOf.size} of ${nodes.length} mind-map nodes created`);
    } catch (error) {
      if (outOfBudget(error)) {
        stopped = true;
        sent.notSent.push(index);
      } else {
        const failure = failureOf(error);
        sent.failed.push({ node: node.key, ...failure });
        if (index === 0 && failure.outcome === 'not_created') rootRefused = error;
      }
    }
  };
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (inFlight < CONCURRENCY && ready.length && !stopped && !context.signal.aborted) {
        inFlight++;
        void send(ready.shift()!).finally(() => {
          inFlight--;
          pump();
        });
      }
      if (inFlight === 0) resolve();
    };
    pump();
  });
  // Whatever was neither created nor failed was never sent.
  const failed = new Set(sent.failed.map((f) => f.node));
  sent.notSent = nodes.flatMap((node, index) => (sent.itemOf.has(index) || failed.has(node.key) ? [] : [index]));
  // The root was refused: nothing exists, and the platform's own error says best what to fix.
  if (rootRefused instanceof ToolError) throw rootRefused;
  return sent;
}

function mindmapReport(boardId: string, webBase: string | undefined, diagram: MindmapDiagram, sent: Sent, placement: Json): Json {
  const { nodes } = diagram;
  const mayExist = sent.failed.filter((f) => f.outcome === 'may_exist').length;
  const result: Json = {
    summary: `${sent.itemOf.size} of ${nodes.length} mind-map nodes created${mayExist ? `; ${mayExist} more may exist (failed, may_exist).` : '.'}`,
    board_id: boardId,
    item_link: itemLinkTemplate(webBase, boardId),
    node_items: Object.fromEntries(nodes.flatMap((node, index) => (sent.itemOf.has(index) ? [[node.key, sent.itemOf.get(index)!]] : []))),
    ...placement,
    ...(diagram.ignored.length ? { not_drawn: diagram.ignored } : {}),
  };
  if (sent.itemOf.size === nodes.length) return result;
  result.failed = sent.failed;
  if (sent.notSent.length) result.not_sent = { nodes: sent.notSent.map((index) => nodes[index]!.key), retry_safe: true };
  const how = 'add only those, parents first, with CanvasApi.AddMindmapNode (parent_frame_id: the parent\'s ID from node_items), never this whole mind map again';
  result.next_step = mayExist ? `Nodes marked may_exist may be on the board: list them (CanvasApi.GetMindmapNodes) before adding them again; then ${how}.` : `Nothing listed as failed or not sent exists: ${how}.`;
  return result;
}
