/**
 * EditDiagram's writing step: where new nodes go (beside the node they connect to, clear of
 * everything read, inside the frame when the scope is one: diagram-placement.ts's freeSpot), then
 * the requests, each change once: renames and caption changes (PATCH with only the text), the
 * connectors and items removed (DELETE), the new nodes (one bulk transaction, never resent) and
 * the new connectors. The answer lists each change as done, failed (with whether it may have
 * happened) or not sent; the retry advice is to read again, which shows what exists, so nothing is
 * ever created twice.
 */
import { ToolError } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import { isRecord } from '../../core/json.js';
import { idText, quotedText } from '../../core/tools/line-text.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { itemLinkTemplate } from '../params.js';
import type { Scope, ScopeConnector, ScopeItem } from './board-mermaid.js';
import { freeSpot, type Box } from './diagram-placement.js';
import { neverSentForBudget, writeFailure } from './write-failure.js';
import type { MermaidEdge, MermaidFlowchart } from './mermaid.js';

type Json = Record<string, unknown>;

export interface EditDiagramArgs {
  board_id: string;
  mermaid: string;
  dry_run?: boolean | undefined;
}

export interface NewNode {
  key: string;
  text: string;
  shape: string;
  color?: string;
  line: number;
}

export interface NewEdge {
  /** Node keys: i<ID> for an existing item, else a new node's. */
  from: string;
  to: string;
  label?: string;
  stroke: MermaidEdge['stroke'];
  arrows: MermaidEdge['arrows'];
  line: number;
}

/** The difference between the scope and the text (edit-diagram.ts, planEdit). */
export interface EditPlan {
  renames: { item: ScopeItem; to: string }[];
  captions: { connector: ScopeConnector; to: string }[];
  removeConnectors: { connector: ScopeConnector; withItem?: string }[];
  removeItems: ScopeItem[];
  creates: NewNode[];
  addEdges: NewEdge[];
  ignored: string[];
  unchanged: number;
}


const SHAPE_SIZE = { width: 220, height: 110 };
const STICKY_SIZE = { width: 200, height: 200 };
/** Obstacles farther than this from the neighbour cannot meet a spot freeSpot tries (40 steps of 60, and a node's size). */
const REACH_PX = 2_800;
const CONCURRENCY = 4;
/** Characters of a text shown in a report line. */
const LINE_TEXT = 80;
/** The platform's own item endpoint per type, and the field that holds its text. */
const TEXT_FIELD: Readonly<Record<string, [string, string]>> = { shape: ['shapes', 'content'], sticky_note: ['sticky_notes', 'content'], text: ['texts', 'content'], card: ['cards', 'title'] };

/** Where a new node goes: its centre and size (from the frame's top-left corner when `parent`), or why it has no place. */
export type Spot = { x: number; y: number; width: number; height: number; parent?: string; beside: string } | { problem: string };

const ITEM_NODE = /^i([0-9]+)$/;
/** A request that went through. */
const DONE = Symbol('done');

/**
 * Each new node's place, in the text's order: beside the first node it comes from (else goes
 * to; else the diagram's last item), clear of every item read and of the new nodes placed before.
 */
export function placeNew(scope: Scope, chart: MermaidFlowchart, plan: EditPlan): Map<string, Spot> {
  const spots = new Map<string, Spot>();
  const everything = [...scope.items.values(), ...scope.others];
  const frames = new Map(scope.others.filter((item) => item.type === 'frame').map((frame) => [frame.id, frame]));
  /** New boxes by container: a frame's ID, or '' for the board. */
  const added = new Map<string, Box[]>();
  const flowOrder = [...scope.items.values()].sort((a, b) => (chart.direction === 'LR' || chart.direction === 'RL' ? a.x - b.x : a.y - b.y));
  const last = flowOrder.at(-1);
  for (const node of plan.creates) {
    const size = node.shape === 'sticky_note' ? STICKY_SIZE : SHAPE_SIZE;
    const partner = neighbourOf(node, plan, spots);
    const beside = partner ?? (last ? `i${last.id}` : '');
    const anchor = ITEM_NODE.test(beside) ? boxOfItem(scope.items.get(beside.slice(1))!) : spotBox(spots.get(beside));
    const inFrame = scope.frame ? scope.frame.id : ITEM_NODE.test(beside) ? scope.items.get(beside.slice(1))?.parent : (spots.get(beside) as { parent?: string } | undefined)?.parent;
    const from = anchor ?? (scope.frame ? { left: 40, top: 80, width: 0, height: 0 } : { left: 0, top: 0, width: 0, height: 0 });
    let spot: Spot | undefined;
    const frame = inFrame ? (scope.frame?.id === inFrame ? scope.frame : frames.get(inFrame)) : undefined;
    if (inFrame && frame) {
      const obstacles = near(from, [...everything.filter((item) => item.parent === inFrame).map(boxOfItem), ...(added.get(inFrame) ?? [])]);
      const box = freeSpot(from, size, chart.direction, obstacles, { left: 0, top: 0, width: frame.width, height: frame.height });
      if (box) spot = { x: box.left + box.width / 2, y: box.top + box.height / 2, ...size, parent: inFrame, beside };
      else if (scope.frame) spot = { problem: `no free room in the frame ${idText(inFrame)} beside ${beside || 'its items'}: make the frame larger, or move items apart, then read and edit again` };
    }
    if (!spot) {
      // On the board: beside the neighbour's frame, when it is in one.
      const onBoard = frame ? { left: frame.x - frame.width / 2, top: frame.y - frame.height / 2, width: frame.width, height: frame.height } : from;
      const obstacles = near(onBoard, [...everything.filter((item) => !item.parent).map(boxOfItem), ...(added.get('') ?? [])]);
      const box = freeSpot(onBoard, size, chart.direction, obstacles, undefined);
      spot = box ? { x: box.left + box.width / 2, y: box.top + box.height / 2, ...size, beside } : { problem: `no free room beside ${beside}` };
    }
    spots.set(node.key, spot);
    if (!('problem' in spot)) added.set(spot.parent ?? '', [...(added.get(spot.parent ?? '') ?? []), spotBox(spot)!]);
  }
  return spots;
}

/** The node a new one comes from (else goes to): an existing item, or a new node already placed. */
function neighbourOf(node: NewNode, plan: EditPlan, spots: ReadonlyMap<string, Spot>): string | undefined {
  const usable = (key: string) => ITEM_NODE.test(key) || (spots.has(key) && !('problem' in spots.get(key)!));
  return plan.addEdges.find((e) => e.to === node.key && usable(e.from))?.from ?? plan.addEdges.find((e) => e.from === node.key && usable(e.to))?.to;
}

function boxOfItem(item: ScopeItem): Box {
  return { left: item.x - item.width / 2, top: item.y - item.height / 2, width: item.width, height: item.height };
}

function spotBox(spot: Spot | undefined): Box | undefined {
  return spot && !('problem' in spot) ? { left: spot.x - spot.width / 2, top: spot.y - spot.height / 2, width: spot.width, height: spot.height } : undefined;
}

/** Only obstacles freeSpot's spots can meet: the search stays linear in what is near. */
function near(from: Box, boxes: Box[]): Box[] {
  return boxes.filter((b) => b.left < from.left + from.width + REACH_PX && b.left + b.width > from.left - REACH_PX && b.top < from.top + from.height + REACH_PX && b.top + b.height > from.top - REACH_PX);
}

// ----- the requests

interface Failure {
  change: string;
  /** not_done: the platform refused it; may_have_happened: it may have been carried out. */
  outcome: 'not_done' | 'may_have_happened';
  retry_safe: boolean;
  error: string;
}

interface Work {
  done: string[];
  failed: Failure[];
  notSent: string[];
  created: Map<string, string>;
}

type Send = (method: 'PATCH' | 'DELETE' | 'POST', effect: 'update' | 'delete' | 'create', path: string, pathParams: Record<string, string>, body?: unknown) => Promise<unknown>;

const short = (text: string) => quotedText(text, LINE_TEXT);
const itemWords = (item: ScopeItem) => `i${idText(item.id)} ${idText(item.type)} ${short(item.text)}`;

export async function applyEdit(args: EditDiagramArgs, scopeLabel: string, plan: EditPlan, spots: Map<string, Spot>, context: ToolContext<CanvasApiDeps>, dryRun: boolean): Promise<Json> {
  const renameLine = (r: EditPlan['renames'][number]) => `rename ${itemWords(r.item)} -> ${short(r.to)}`;
  const captionLine = (c: EditPlan['captions'][number]) => `caption c${idText(c.connector.id)} i${idText(c.connector.from)} -> i${idText(c.connector.to)}: ${short(c.connector.caption)} -> ${short(c.to)}`;
  const removeConnectorLine = (r: EditPlan['removeConnectors'][number]) => `remove c${idText(r.connector.id)} i${idText(r.connector.from)} -> i${idText(r.connector.to)}${r.withItem ? ` (with i${idText(r.withItem)})` : ''}`;
  const removeItemLine = (item: ScopeItem) => `remove ${itemWords(item)}`;
  const createLine = (node: NewNode) => {
    const spot = spots.get(node.key)!;
    const where = 'problem' in spot ? `: not placed, ${spot.problem}` : ` beside ${spot.beside || 'the diagram'}${spot.parent ? ` in frame ${idText(spot.parent)}` : ''} at ${Math.round(spot.x)},${Math.round(spot.y)}`;
    return `add ${node.key} ${node.shape} ${short(node.text)}${where}`;
  };
  const edgeLine = (e: EditPlan['addEdges'][number]) => `add edge ${e.from} -> ${e.to}${e.label ? ` caption ${short(e.label)}` : ''}`;
  const changes = [...plan.renames.map(renameLine), ...plan.captions.map(captionLine), ...plan.removeConnectors.map(removeConnectorLine), ...plan.removeItems.map(removeItemLine), ...plan.creates.map(createLine), ...plan.addEdges.map(edgeLine)];
  const common = { board_id: args.board_id, scope: scopeLabel, ...(plan.ignored.length ? { ignored: plan.ignored.slice(0, 20) } : {}), unchanged: plan.unchanged };
  if (dryRun) {
    return {
      summary: changes.length ? `Dry run, nothing was sent: ${changes.length} change${changes.length === 1 ? '' : 's'} planned (${counts(plan)}).` : 'Dry run, nothing was sent: the text is the diagram as it is; nothing would change.',
      ...common,
      plan: changes,
      next_step: changes.length ? 'Apply it: call again with the same text, without dry_run.' : 'Nothing to do.',
    };
  }
  const work: Work = { done: [], failed: [], notSent: [], created: new Map() };
  const send = sender(args.board_id, context);
  let progress = 0;
  const step = (message: string) => context.progress(++progress, changes.length, message);
  // Sent 4 at a time; reported in the plan's order.
  const run = async <T>(list: T[], line: (t: T) => string, request: (t: T) => Promise<unknown>, create = false) => {
    const outcomes: (unknown | typeof DONE)[] = [];
    await pool(list.map((t, index) => ({ t, index })), async ({ t, index }) => {
      try {
        await request(t);
        outcomes[index] = DONE;
        step(line(t).slice(0, 80));
      } catch (error) {
        outcomes[index] = error;
      }
    });
    list.forEach((t, index) => {
      const outcome = outcomes[index];
      if (outcome === DONE) work.done.push(line(t));
      else if (neverSentForBudget(outcome)) work.notSent.push(line(t));
      else work.failed.push({ change: line(t), ...failureOf(outcome, create) });
    });
  };
  await run(plan.renames, renameLine, (r) => send('PATCH', 'update', `/v2/boards/{board_id}/${TEXT_FIELD[r.item.type]![0]}/{item_id}`, { item_id: r.item.id }, { data: { [TEXT_FIELD[r.item.type]![1]]: escapeHtml(r.to) } }));
  await run(plan.captions, captionLine, (c) => send('PATCH', 'update', '/v2/boards/{board_id}/connectors/{connector_id}', { connector_id: c.connector.id }, { captions: c.to ? [{ content: escapeHtml(c.to) }] : [] }));
  await run(plan.removeConnectors, removeConnectorLine, (r) => send('DELETE', 'delete', '/v2/boards/{board_id}/connectors/{connector_id}', { connector_id: r.connector.id }));
  await run(plan.removeItems, removeItemLine, (item) => send('DELETE', 'delete', '/v2/boards/{board_id}/items/{item_id}', { item_id: item.id }));
  await createNodes(plan, spots, send, work, createLine, step);
  const endId = (key: string) => ITEM_NODE.exec(key)?.[1] ?? work.created.get(key);
  const ready = plan.addEdges.filter((e) => endId(e.from) && endId(e.to));
  for (const e of plan.addEdges) if (!ready.includes(e)) work.notSent.push(`${edgeLine(e)} (an end was not created)`);
  await run(ready, edgeLine, (e) => send('POST', 'create', '/v2/boards/{board_id}/connectors', {}, connectorBody(e, endId(e.from)!, endId(e.to)!)), true);
  return report(args, common, changes.length, work, context);
}

function counts(plan: EditPlan): string {
  const parts: [number, string][] = [
    [plan.renames.length, 'renamed'], [plan.creates.length, 'added'], [plan.removeItems.length, 'removed'],
    [plan.addEdges.length, 'connector# added'], [plan.removeConnectors.length, 'connector# removed'], [plan.captions.length, 'caption# changed'],
  ];
  return parts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what.replace('#', n === 1 ? '' : 's')}`).join(', ');
}

/** The new nodes in one bulk transaction (at most 20: EDIT_LIMITS), sent once. */
async function createNodes(plan: EditPlan, spots: Map<string, Spot>, send: Send, work: Work, line: (node: NewNode) => string, step: (message: string) => void): Promise<void> {
  const placed = plan.creates.filter((node) => !('problem' in spots.get(node.key)!));
  for (const node of plan.creates) if (!placed.includes(node)) work.notSent.push(line(node));
  if (!placed.length) return;
  try {
    const answer = await send('POST', 'create', '/v2/boards/{board_id}/items/bulk', {}, placed.map((node) => bulkItem(node, spots.get(node.key) as Exclude<Spot, { problem: string }>)));
    const data = isRecord(answer) && Array.isArray(answer.data) ? answer.data : [];
    if (data.length !== placed.length) throw new ToolError({ kind: 'upstream_error', message: `The platform answered the bulk create with ${data.length} items for ${placed.length}.` });
    placed.forEach((node, index) => {
      const record = data[index];
      const id = isRecord(record) && record.id !== undefined ? String(record.id) : undefined;
      if (id === undefined) throw new ToolError({ kind: 'upstream_error', message: 'The platform answered a create without the new item\'s ID.' });
      work.created.set(node.key, id);
      work.done.push(`${line(node)} as i${idText(id)}`);
      step(`${node.key} created`);
    });
  } catch (error) {
    if (neverSentForBudget(error)) work.notSent.push(...placed.map(line));
    else work.failed.push(...placed.map((node) => ({ change: line(node), ...failureOf(error, true) })));
  }
}

function bulkItem(node: NewNode, spot: { x: number; y: number; width: number; parent?: string; height: number }): Json {
  const where = { position: { x: Math.round(spot.x), y: Math.round(spot.y) }, ...(spot.parent ? { parent: { id: spot.parent } } : {}) };
  if (node.shape === 'sticky_note') return { type: 'sticky_note', data: { content: escapeHtml(node.text), shape: 'square' }, ...where, geometry: { width: spot.width } };
  return { type: 'shape', data: { content: escapeHtml(node.text), shape: node.shape }, ...(node.color ? { style: { fillColor: node.color } } : {}), ...where, geometry: { width: spot.width, height: spot.height } };
}

function connectorBody(edge: EditPlan['addEdges'][number], from: string, to: string): Json {
  const style: Json = {
    ...(edge.stroke === 'dotted' ? { strokeStyle: 'dashed' } : {}),
    ...(edge.stroke === 'thick' ? { strokeWidth: '4' } : {}),
    ...(edge.arrows === 'none' ? { endStrokeCap: 'none' } : {}),
    ...(edge.arrows === 'both' ? { startStrokeCap: 'stealth' } : {}),
  };
  return {
    startItem: { id: from, snapTo: 'auto' },
    endItem: { id: to, snapTo: 'auto' },
    shape: 'elbowed',
    ...(edge.label ? { captions: [{ content: escapeHtml(edge.label) }] } : {}),
    ...(Object.keys(style).length ? { style } : {}),
  };
}

/** Each item of `list` through `each`, CONCURRENCY at a time. */
async function pool<T>(list: T[], each: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < list.length) await each(list[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, list.length) }, worker));
}

function sender(boardId: string, context: ToolContext<CanvasApiDeps>): Send {
  const label = `the board "${boardId}"`;
  return async (method, effect, path, pathParams, body) =>
    (await context.deps.client.request<unknown>({ method, effect, path, pathParams: { board_id: boardId, ...pathParams }, ...(body === undefined ? {} : { body }), signal: context.signal, resourceLabel: label })).data;
}


/** A refusal (4xx, or refused before sending) did nothing; anything else may have happened. A create that may have happened is not safe to send again. */
function failureOf(error: unknown, create: boolean): Omit<Failure, 'change'> {
  const { mayHaveHappened, message } = writeFailure(error);
  return mayHaveHappened ? { outcome: 'may_have_happened', retry_safe: !create, error: message } : { outcome: 'not_done', retry_safe: true, error: message };
}

function report(args: EditDiagramArgs, common: Json, total: number, work: Work, context: ToolContext<CanvasApiDeps>): Json {
  const complete = work.done.length === total;
  const mayExist = work.failed.some((f) => !f.retry_safe);
  return {
    summary: total === 0 ? 'Nothing to change: the text is the diagram as it is.' : `${work.done.length} of ${total} change${total === 1 ? '' : 's'} made${work.failed.length ? `, ${work.failed.length} failed` : ''}${work.notSent.length ? `, ${work.notSent.length} not sent` : ''}.`,
    ...common,
    item_link: itemLinkTemplate(context.deps.webBase, args.board_id),
    done: work.done,
    ...(work.created.size ? { created: Object.fromEntries(work.created) } : {}),
    ...(work.failed.length ? { failed: work.failed } : {}),
    ...(work.notSent.length ? { not_sent: work.notSent } : {}),
    next_step: complete
      ? 'Done. This text is now out of date: read the diagram again (CanvasApi.ReadBoard, format "mermaid") before another edit.'
      : `Do not send this text again. Read the diagram again (CanvasApi.ReadBoard, format "mermaid"): it shows what exists now${mayExist ? ', including any new node marked may_have_happened' : ''}; edit that text for what is still missing and apply it.`,
  };
}
