/**
 * CanvasApi.EditDiagram: the difference between a diagram read as Mermaid (ReadBoard `format:
 * "mermaid"`, board-mermaid.ts) and the caller's edit of that text, applied. The text's header
 * names the scope; it is read again now, and when anything in it changed since the read (its
 * digest of modification times differs) nothing is sent and the answer says what changed.
 * Otherwise: nodes whose text changed are renamed in place, nodes left out are deleted with their
 * connectors, new nodes (ids other than i<ID>) are created beside the nodes they connect to, and
 * edges are added or removed; everything else is left as it is, without a request. An i<ID> or
 * c<ID> that is not in the scope is refused with its line. `dry_run` answers the plan, sending
 * nothing but the reads. The writing and the report are in edit-diagram-apply.ts.
 */
import { ToolError } from '../../core/errors.js';
import { idText, quotedText } from '../../core/tools/line-text.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { DIAGRAM_LIMITS, EDIT_LIMITS } from '../task-vocabulary.js';
import { boardGet, decodeMermaidText, HEADER_PREFIX, readScope, writtenShape, type Header, type Scope, type ScopeConnector, type ScopeItem } from './board-mermaid.js';
import { applyEdit, placeNew, type EditDiagramArgs, type EditPlan } from './edit-diagram-apply.js';
import { MermaidError, parseMermaid, type MermaidEdge, type MermaidFlowchart, type MermaidNode } from './mermaid.js';

type Json = Record<string, unknown>;

export type { EditDiagramArgs, EditPlan, NewEdge, NewNode } from './edit-diagram-apply.js';

/** An existing item's node ID and a connector's edge ID (board-mermaid.ts). */
const ITEM_NODE = /^i([0-9]+)$/;
const CONNECTOR_EDGE = /^c([0-9]+)$/;

export async function editDiagram(args: EditDiagramArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const { header, chart } = readText(args);
  const get = boardGet(args.board_id, context);
  const scope = await readScope(get, context.signal, header.frame ? { frame: header.frame } : { seeds: header.seeds });
  const scopeLabel = header.frame ? `frame ${idText(header.frame)}` : `the shapes connected to ${header.seeds.map((id) => `i${idText(id)}`).join(', ')}`;
  if (scope.state !== header.state) {
    return {
      summary: `Nothing was changed: the diagram (${scopeLabel}) changed on the board since it was read at ${header.read}.`,
      board_id: args.board_id,
      applied: false,
      changed_since_read: changesSince(scope, header, chart),
      next_step: 'Read the diagram again (CanvasApi.ReadBoard, format "mermaid"), make the edit on that text, and apply it.',
    };
  }
  const plan = planEdit(scope, chart);
  const placed = placeNew(scope, chart, plan);
  return applyEdit(args, scopeLabel, plan, placed, context, args.dry_run === true);
}

const invalid = (problems: string[], afterReads = false) => ToolError.invalidInput(problems.slice(0, 10).map((problem) => ({ parameter: 'mermaid', problem })), afterReads);

/** The header and the flowchart; anything unreadable refused with its line, nothing sent. */
function readText(args: EditDiagramArgs): { header: Header; chart: MermaidFlowchart } {
  const lines = args.mermaid.split(/\r?\n/);
  const at = lines.findIndex((line) => line.trim().startsWith(HEADER_PREFIX));
  if (at < 0) throw invalid([`no "${HEADER_PREFIX} ..." line: start from the text CanvasApi.ReadBoard answers with format "mermaid" (its first line says which diagram it is and when it was read)`]);
  const header = parseHeader(lines[at]!.trim().slice(HEADER_PREFIX.length), at + 1);
  if (header.board !== args.board_id) throw ToolError.invalidParameter('board_id', `the text was read from board ${idText(header.board)} (line ${at + 1}); pass that board_id`);
  let chart: MermaidFlowchart;
  try {
    chart = parseMermaid(args.mermaid, { ids: true });
  } catch (error) {
    if (error instanceof MermaidError) throw invalid(error.problems);
    throw error;
  }
  const problems = chart.subgraphs.map((s) => `line ${s.line}: subgraphs are not applied (EditDiagram changes the diagram's nodes and edges, not frames); remove "subgraph ${s.key.slice(0, 30)}"`);
  for (const edge of chart.edges) for (const end of [edge.from, edge.to]) if (end.startsWith('item:')) problems.push(`line ${edge.line}: ${end.slice(0, 40)}: name a node of the diagram (i<ID> as read, or a new node's id)`);
  if (problems.length) throw invalid(problems);
  return { header, chart };
}

function parseHeader(rest: string, line: number): Header {
  const fields = new Map<string, string>();
  for (const token of rest.trim().split(/\s+/)) {
    const eq = token.indexOf('=');
    if (eq > 0) fields.set(token.slice(0, eq), unquoteId(token.slice(eq + 1)));
  }
  const board = fields.get('board');
  const read = fields.get('read');
  const state = fields.get('state');
  const frame = fields.get('frame');
  const seeds = fields.get('seeds')?.split(',').map(unquoteId).filter(Boolean) ?? [];
  if (!board || !read || Number.isNaN(Date.parse(read)) || !state || (!frame && !seeds.length)) {
    throw invalid([`line ${line}: the "${HEADER_PREFIX}" line must keep board=, frame= (or seeds=), read= and state= as ReadBoard wrote them`]);
  }
  return { board, ...(frame ? { frame } : {}), seeds, read, state };
}

const unquoteId = (text: string) => (text.startsWith('"') ? String(JSON.parse(text)) : text);

/** What changed since the read: items and connectors modified or created after it, and those the text names that are gone. */
function changesSince(scope: Scope, header: Header, chart: MermaidFlowchart): string[] {
  const read = Date.parse(header.read);
  const after = (time: string) => Date.parse(time) > read;
  const changes: string[] = [];
  for (const item of scope.items.values()) {
    if (after(item.createdAt)) changes.push(`i${idText(item.id)} ${idText(item.type)} ${quotedText(item.text, 60)}: added since the read (${item.createdAt})`);
    else if (after(item.modifiedAt)) changes.push(`i${idText(item.id)} ${idText(item.type)} ${quotedText(item.text, 60)}: modified since the read (${item.modifiedAt})`);
  }
  for (const c of scope.connectors) {
    if (after(c.createdAt)) changes.push(`c${idText(c.id)}: connector i${idText(c.from)} -> i${idText(c.to)} added since the read (${c.createdAt})`);
    else if (after(c.modifiedAt)) changes.push(`c${idText(c.id)}: connector i${idText(c.from)} -> i${idText(c.to)} modified since the read (${c.modifiedAt})`);
  }
  for (const node of chart.nodes) {
    const id = ITEM_NODE.exec(node.id)?.[1];
    if (id !== undefined && !scope.items.has(id)) changes.push(`i${id}: no longer in the diagram (deleted or moved since the read, or never in it)`);
  }
  const connectorIds = new Set(scope.connectors.map((c) => c.id));
  for (const edge of chart.edges) {
    const id = edge.id ? CONNECTOR_EDGE.exec(edge.id)?.[1] : undefined;
    if (id !== undefined && !connectorIds.has(id)) changes.push(`c${id}: no longer in the diagram (deleted since the read, or never in it)`);
  }
  if (!changes.length) changes.push('an item or connector of the diagram was modified or deleted within the read (their modification times differ from those read)');
  return changes.slice(0, 50);
}

/** The difference between the scope and the text; IDs outside the scope are refused with their line. */
function planEdit(scope: Scope, chart: MermaidFlowchart): EditPlan {
  const problems: string[] = [];
  const plan: EditPlan = { renames: [], captions: [], removeConnectors: [], removeItems: [], creates: [], addEdges: [], ignored: [...chart.ignored], unchanged: 0 };
  /** Kept nodes' item IDs. */
  const keptIds = new Set<string>();
  for (const node of chart.nodes) {
    const id = ITEM_NODE.exec(node.id)?.[1];
    if (id === undefined) {
      planCreate(node, plan, problems);
      continue;
    }
    const item = scope.items.get(id);
    if (!item) {
      problems.push(`line ${node.line}: ${node.id} is not an item of this diagram: only its own items (i<ID> as read) can be kept or changed; give a new node another id (n1, ...)`);
      continue;
    }
    keptIds.add(id);
    planKept(node, item, plan, problems);
  }
  const claimed = new Set<string>();
  const byId = new Map(scope.connectors.map((c) => [c.id, c]));
  const loose: MermaidEdge[] = [];
  for (const edge of chart.edges) {
    const id = edge.id ? CONNECTOR_EDGE.exec(edge.id)?.[1] : undefined;
    if (id === undefined) {
      loose.push(edge);
      continue;
    }
    const connector = byId.get(id);
    if (!connector) problems.push(`line ${edge.line}: ${edge.id} is not a connector of this diagram; drop "${edge.id}@" to draw a new connector`);
    else if (claimed.has(id)) problems.push(`line ${edge.line}: ${edge.id} is written twice; a connector joins one pair of nodes`);
    else if (`i${connector.from}` !== edge.from || `i${connector.to}` !== edge.to) problems.push(`line ${edge.line}: ${edge.id} joins i${connector.from} -> i${connector.to} on the board; keep its ends, or drop "${edge.id}@" (and its line) to draw a new connector`);
    else keepEdge(edge, connector, plan, claimed);
  }
  // An edge written without its ID between kept nodes is the unclaimed connector between them, when there is one.
  for (const edge of loose) {
    const same = scope.connectors.find((c) => !claimed.has(c.id) && `i${c.from}` === edge.from && `i${c.to}` === edge.to);
    if (same) keepEdge(edge, same, plan, claimed);
    else plan.addEdges.push({ from: edge.from, to: edge.to, ...(edge.label !== undefined ? { label: decodeMermaidText(edge.label) } : {}), stroke: edge.stroke, arrows: edge.arrows, line: edge.line });
  }
  for (const item of scope.items.values()) if (!keptIds.has(item.id)) plan.removeItems.push(item);
  for (const c of scope.connectors) {
    if (claimed.has(c.id)) continue;
    const gone = [c.from, c.to].find((end) => !keptIds.has(end));
    plan.removeConnectors.push({ connector: c, ...(gone ? { withItem: gone } : {}) });
  }
  for (const c of scope.touching) {
    const end = [c.from, c.to].find((id) => scope.items.has(id) && !keptIds.has(id));
    if (end) plan.removeConnectors.push({ connector: c, withItem: end });
  }
  checkBounds(plan, problems);
  if (problems.length) throw invalid(problems, true);
  return plan;
}

function planCreate(node: MermaidNode, plan: EditPlan, problems: string[]): void {
  const text = decodeMermaidText(node.text);
  if (text.length > DIAGRAM_LIMITS.textChars) problems.push(`line ${node.line}: the text of ${node.id} is longer than ${DIAGRAM_LIMITS.textChars} characters`);
  const sticky = node.className === 'sticky_note';
  if (node.className && !sticky) plan.ignored.push(`line ${node.line}: a new ${node.className} is drawn as a shape (new nodes are shapes, or sticky notes with :::sticky_note)`);
  plan.creates.push({ key: node.id, text, shape: sticky ? 'sticky_note' : node.shape, ...(node.color ? { color: node.color } : {}), line: node.line });
}

function planKept(node: MermaidNode, item: ScopeItem, plan: EditPlan, problems: string[]): void {
  // A node named without brackets keeps its text.
  const text = node.text === node.id ? item.text : decodeMermaidText(node.text);
  if (text.length > DIAGRAM_LIMITS.textChars) problems.push(`line ${node.line}: the text of ${node.id} is longer than ${DIAGRAM_LIMITS.textChars} characters`);
  if (text !== item.text) plan.renames.push({ item, to: text });
  else plan.unchanged += 1;
  const shapeChanged = node.text !== node.id && node.shape !== writtenShape(item);
  if (shapeChanged || (node.className !== undefined && node.className !== item.type) || node.color) plan.ignored.push(`line ${node.line}: ${node.id} keeps its type, shape and colour (EditDiagram changes an item's text only)`);
}

function keepEdge(edge: MermaidEdge, connector: ScopeConnector, plan: EditPlan, claimed: Set<string>): void {
  claimed.add(connector.id);
  const label = edge.label === undefined ? '' : decodeMermaidText(edge.label);
  if (label !== connector.caption) plan.captions.push({ connector, to: label });
}

function checkBounds(plan: EditPlan, problems: string[]): void {
  if (plan.creates.length > EDIT_LIMITS.newNodes) problems.push(`${plan.creates.length} new nodes; at most ${EDIT_LIMITS.newNodes} per edit (add more in another edit, or draw them with CanvasApi.CreateDiagram and edges to item:<ID>)`);
  const changes = plan.renames.length + plan.captions.length + plan.removeConnectors.length + plan.removeItems.length + plan.addEdges.length;
  if (changes > EDIT_LIMITS.changes) problems.push(`${changes} changes (renames, removals, edges); at most ${EDIT_LIMITS.changes} per edit: make the edit in parts, reading again between them`);
}
