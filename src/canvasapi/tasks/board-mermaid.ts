/**
 * A diagram on the board as Mermaid flowchart text that keeps each item's ID (ReadBoard with
 * `format: "mermaid"`), and the scope both ReadBoard and EditDiagram read: a frame's shapes,
 * sticky notes, texts and cards, or the items connected to those a query names (along
 * connectors), with the connectors among them. Node IDs are `i<item ID>`, edge IDs `c<connector
 * ID>@` (Mermaid 11). A header comment carries what the apply step needs: the board, the scope,
 * the read time and a digest of every item's and connector's modifiedAt (`state`), so a change
 * made since the read is found even within the read's millisecond.
 *
 * Platform text is written inside `"..."` with every character that could end it, break a
 * line's shape or read as a comment or entity (`"`, `\`, `#`, `|`, `%`, `<`, `>`, `` ` ``)
 * written as Mermaid's `#<code>;`, so no text can add a node, an edge or a line.
 */
import { createHash } from 'node:crypto';
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';
import { flatText, idText } from '../../core/tools/line-text.js';
import { walkNote, walkPages } from '../../core/tools/pager.js';
import type { QueryValue } from '../../core/platform/upstream.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { itemLinkTemplate } from '../params.js';
import { BOARD_READS, DIAGRAM_LIMITS, MERMAID_READS } from '../task-vocabulary.js';
import { cut, itemTextIncludes } from './board-lines.js';
import type { BoardGet } from './board-tags.js';
import { plainPieces, plainStart } from './text.js';

type Json = Record<string, unknown>;

/** The item types a diagram is made of. */
export const DIAGRAM_TYPES: ReadonlySet<string> = new Set(['shape', 'sticky_note', 'text', 'card']);
/** Characters of a node's text and an edge's caption written (longer ones end with `…`; unchanged, they are left as they are). */
export const NODE_TEXT_CHARS = 300;
export const CAPTION_TEXT_CHARS = 150;
/** Bytes of Mermaid text one answer holds: a larger scope is refused, naming a smaller one. */
const TEXT_BYTES = 48_000;

export interface ScopeItem {
  id: string;
  type: string;
  /** As the text shows it (flat, cut). */
  text: string;
  shape?: string;
  /** Centre (from the parent frame's top-left corner when in a frame) and size. */
  x: number;
  y: number;
  width: number;
  height: number;
  parent?: string;
  createdAt: string;
  modifiedAt: string;
}

export interface ScopeConnector {
  id: string;
  from: string;
  to: string;
  caption: string;
  arrow: string;
  createdAt: string;
  modifiedAt: string;
}

export interface Scope {
  frame?: { id: string; x: number; y: number; width: number; height: number };
  /** Connected scope: the items its query named, the roots of the component. */
  seeds: string[];
  items: Map<string, ScopeItem>;
  /** Connectors with both ends in the scope. */
  connectors: ScopeConnector[];
  /** Connectors with one end in the scope: the platform deletes them with that item. */
  touching: ScopeConnector[];
  /** Every other item read around (obstacles for new nodes), as boxes on the board or in the frame. */
  others: ScopeItem[];
  state: string;
}

export interface ScopeRequest {
  frame?: string;
  query?: string;
  seeds?: string[];
}

const stamp = (value: unknown) => (typeof value === 'string' ? value : '');

function scopeItem(record: Json): ScopeItem {
  const data = isRecord(record.data) ? record.data : {};
  const position = isRecord(record.position) ? record.position : {};
  const geometry = isRecord(record.geometry) ? record.geometry : {};
  const type = String(record.type ?? 'item');
  const width = typeof geometry.width === 'number' ? geometry.width : 0;
  return {
    id: String(record.id),
    type,
    text: shownText(type === 'card' ? data.title : data.content, NODE_TEXT_CHARS),
    ...(typeof data.shape === 'string' && type === 'shape' ? { shape: data.shape } : {}),
    x: typeof position.x === 'number' ? position.x : 0,
    y: typeof position.y === 'number' ? position.y : 0,
    width,
    height: typeof geometry.height === 'number' ? geometry.height : width,
    ...(isRecord(record.parent) && record.parent.id !== undefined ? { parent: String(record.parent.id) } : {}),
    createdAt: stamp(record.createdAt),
    modifiedAt: stamp(record.modifiedAt),
  };
}

/** Platform text as a node shows it: plain, on one line, cut to `max`. */
export function shownText(value: unknown, max: number): string {
  return cut(flatText(plainStart((each) => plainPieces(value, each), max)), max);
}

function scopeConnector(record: Json): ScopeConnector {
  const end = (value: unknown) => (isRecord(value) && value.id !== undefined ? String(value.id) : '?');
  const captions = Array.isArray(record.captions) ? record.captions.filter(isRecord).map((c) => shownText(c.content, CAPTION_TEXT_CHARS)).filter(Boolean) : [];
  const style = isRecord(record.style) ? record.style : {};
  const dashed = style.strokeStyle === 'dashed' || style.strokeStyle === 'dotted';
  const thick = Number(style.strokeWidth) >= 4;
  const open = style.endStrokeCap === 'none';
  const arrow = thick ? (open ? '===' : '==>') : dashed ? (open ? '-.-' : '-.->') : open ? '---' : '-->';
  return { id: String(record.id), from: end(record.startItem), to: end(record.endItem), caption: cut(captions.join(' / '), CAPTION_TEXT_CHARS), arrow, createdAt: stamp(record.createdAt), modifiedAt: stamp(record.modifiedAt) };
}

/** Every record of a list, `maxPages` pages at most; refused when there are more (a part of the scope would be missed). */
async function readAll(get: BoardGet, signal: AbortSignal, path: string, query: Record<string, QueryValue>, maxPages: number, what: string): Promise<Json[]> {
  const records: Json[] = [];
  const walk = await walkPages<Json>({
    signal,
    maxPages,
    pageSize: BOARD_READS.pageSize,
    fetchPage: async (at, pageSignal) => {
      const answer = await get(path, { limit: BOARD_READS.pageSize, ...query, ...(at?.cursor ? { cursor: at.cursor } : {}) }, pageSignal);
      if (!isRecord(answer) || !Array.isArray(answer.data)) throw new ToolError({ kind: 'upstream_error', message: `The platform answered a list of ${what} without data.` });
      const cursor = typeof answer.cursor === 'string' && answer.cursor ? answer.cursor : undefined;
      return { records: answer.data.filter(isRecord), ...(cursor ? { next: { cursor } } : {}) };
    },
    idOf: (record) => (record.id === undefined ? undefined : String(record.id)),
    onPage: (page) => {
      records.push(...page.records);
    },
  });
  if (!walk.complete) {
    throw new ToolError({ kind: 'budget_exceeded', message: `Not all ${what} could be read (${walkNote(walk, what, signal)}), so the diagram would be incomplete; nothing was changed.`, nextStep: 'Read a smaller frame (frame_id), or try again later.' });
  }
  return records;
}

/**
 * The scope now: the frame's children, or the component of the seeds (the query's matches,
 * or the seeds a header names) along connectors between diagram items. Refused past
 * DIAGRAM_LIMITS.nodes items or DIAGRAM_LIMITS.edges connectors.
 */
export async function readScope(get: BoardGet, signal: AbortSignal, request: ScopeRequest): Promise<Scope> {
  let frame: Scope['frame'];
  if (request.frame) {
    const record = await get('/v2/boards/{board_id}/frames/{item_id}', {}, signal, { item_id: request.frame });
    if (!isRecord(record)) throw new ToolError({ kind: 'upstream_error', message: 'The platform answered the frame\'s read with something other than a frame.' });
    const f = scopeItem(record);
    frame = { id: f.id, x: f.x, y: f.y, width: f.width, height: f.height };
  }
  const [records, connectorRecords] = await Promise.all([
    readAll(get, signal, '/v2/boards/{board_id}/items', frame ? { parent_item_id: frame.id } : {}, MERMAID_READS.itemPages, frame ? 'items of the frame' : 'items of the board'),
    readAll(get, signal, '/v2/boards/{board_id}/connectors', {}, MERMAID_READS.connectorPages, 'connectors of the board'),
  ]);
  const all = records.map(scopeItem);
  const byId = new Map(all.map((item) => [item.id, item]));
  const connectors = connectorRecords.map(scopeConnector);
  const members = new Set<string>();
  let seeds: string[] = [];
  if (frame) {
    for (const item of all) if (DIAGRAM_TYPES.has(item.type)) members.add(item.id);
  } else {
    const query = request.query?.toLowerCase();
    // The query matches an item's ID, or its whole text as ReadBoard's query does (not only the start a node shows).
    seeds = request.seeds ?? records.filter((record) => DIAGRAM_TYPES.has(String(record.type)) && (String(record.id) === request.query || (query !== undefined && itemTextIncludes(record, query)))).map((record) => String(record.id));
    growComponent(seeds.filter((id) => DIAGRAM_TYPES.has(byId.get(id)?.type ?? '')), connectors, byId, members);
  }
  if (members.size > DIAGRAM_LIMITS.nodes) throw tooBig(`${members.size} shapes, sticky notes, texts and cards`, request);
  const inside = connectors.filter((c) => members.has(c.from) && members.has(c.to));
  if (inside.length > DIAGRAM_LIMITS.edges) throw tooBig(`${inside.length} connectors`, request);
  const items = new Map([...members].sort().map((id) => [id, byId.get(id)!]));
  const touching = connectors.filter((c) => members.has(c.from) !== members.has(c.to));
  const others = all.filter((item) => !members.has(item.id));
  return { ...(frame ? { frame } : {}), seeds, items, connectors: inside, touching, others, state: stateOf(items.values(), inside) };
}

/** The items reached from the seeds along connectors between diagram items (breadth first, linear). */
function growComponent(seeds: string[], connectors: ScopeConnector[], byId: ReadonlyMap<string, ScopeItem>, members: Set<string>): void {
  const next = new Map<string, string[]>();
  for (const c of connectors) {
    if (!DIAGRAM_TYPES.has(byId.get(c.from)?.type ?? '') || !DIAGRAM_TYPES.has(byId.get(c.to)?.type ?? '')) continue;
    next.set(c.from, [...(next.get(c.from) ?? []), c.to]);
    next.set(c.to, [...(next.get(c.to) ?? []), c.from]);
  }
  const queue = [...seeds];
  for (const id of seeds) members.add(id);
  // One past the bound is enough to refuse.
  while (queue.length && members.size <= DIAGRAM_LIMITS.nodes) {
    for (const to of next.get(queue.shift()!) ?? []) {
      if (members.has(to)) continue;
      members.add(to);
      queue.push(to);
    }
  }
}

function tooBig(what: string, request: ScopeRequest): ToolError {
  const parameter = request.frame ? 'frame_id' : 'query';
  return ToolError.invalidParameter(parameter, `the diagram has ${what}; as Mermaid, at most ${DIAGRAM_LIMITS.nodes} items and ${DIAGRAM_LIMITS.edges} connectors: ${request.frame ? 'read a smaller frame' : 'name a smaller set of connected shapes'}`, true);
}

/** A digest of every item's and connector's ID and modifiedAt: any change, addition or removal changes it. */
export function stateOf(items: Iterable<ScopeItem>, connectors: readonly ScopeConnector[]): string {
  const lines = [...[...items].map((i) => `i${i.id} ${i.modifiedAt}`), ...connectors.map((c) => `c${c.id} ${c.modifiedAt}`)].sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16);
}

// ----- the text

/** Characters written as `#<code>;` inside a node's or caption's quotes. */
const ESCAPED = /["\\#|%<>`]/g;
export const mermaidText = (text: string) => `"${text.replace(ESCAPED, (c) => `#${c.codePointAt(0)};`)}"`;
const NAMED: Readonly<Record<string, string>> = { quot: '"', amp: '&', lt: '<', gt: '>', nbsp: ' ' };
/** Mermaid's entity codes (`#34;`, `#quot;`) back to their characters. */
export function decodeMermaidText(text: string): string {
  return text.replace(/#(\d{1,7}|[a-z]{2,6});/gi, (whole, code: string) => {
    if (/^\d/.test(code)) {
      const point = Number(code);
      return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : whole;
    }
    return NAMED[code.toLowerCase()] ?? whole;
  });
}

/** A platform shape -> its Mermaid brackets (the rest are drawn as rectangles). */
const BRACKETS: Readonly<Record<string, [string, string]>> = {
  rectangle: ['[', ']'], round_rectangle: ['(', ')'], circle: ['((', '))'], rhombus: ['{', '}'], hexagon: ['{{', '}}'], parallelogram: ['[/', '/]'],
  trapezoid: ['[/', '\\]'], can: ['[(', ')]'], flow_chart_predefined_process: ['[[', ']]'], right_arrow: ['>', ']'],
};
/** The platform shape the reader (mermaid.ts) makes of the brackets an item is written with. */
export const writtenShape = (item: ScopeItem) => (item.shape !== undefined && item.shape in BRACKETS ? item.shape : 'rectangle');
/** An ID Mermaid can carry in a node or edge ID. */
const SAFE_ID = /^[A-Za-z0-9_]+$/;

export interface Header {
  board: string;
  frame?: string;
  seeds: string[];
  read: string;
  state: string;
}

export const HEADER_PREFIX = '%% toolservers';

export function headerLine(header: Header): string {
  const where = header.frame ? `frame=${idText(header.frame)}` : `seeds=${header.seeds.map(idText).join(',')}`;
  return `${HEADER_PREFIX} board=${idText(header.board)} ${where} read=${header.read} state=${header.state}`;
}

/** Flows across when the connectors run more across than down (or, without connectors, the items lie wider than tall). */
function directionOf(scope: Scope): 'TB' | 'LR' {
  let across = 0;
  let down = 0;
  for (const c of scope.connectors) {
    const [a, b] = [scope.items.get(c.from)!, scope.items.get(c.to)!];
    across += Math.abs(a.x - b.x);
    down += Math.abs(a.y - b.y);
  }
  if (!scope.connectors.length) {
    const xs = [...scope.items.values()].map((i) => i.x);
    const ys = [...scope.items.values()].map((i) => i.y);
    across = Math.max(0, ...xs) - Math.min(0, ...xs);
    down = Math.max(0, ...ys) - Math.min(0, ...ys);
  }
  return across > down ? 'LR' : 'TB';
}

/** The Mermaid lines: the header, `flowchart`, a node per item in reading order, an edge per connector. */
export function mermaidLines(scope: Scope, header: Header): string[] {
  const direction = directionOf(scope);
  const order = [...scope.items.values()].sort((a, b) => (direction === 'LR' ? a.x - b.x || a.y - b.y : a.y - b.y || a.x - b.x));
  const lines = [headerLine(header), `flowchart ${direction}`];
  for (const item of order) {
    const [open, close] = BRACKETS[item.shape ?? ''] ?? ['[', ']'];
    lines.push(`  i${item.id}${open}${mermaidText(item.text)}${close}${item.type === 'shape' ? '' : `:::${item.type}`}`);
  }
  for (const c of scope.connectors) lines.push(`  i${c.from} c${c.id}@${c.arrow}${c.caption ? `|${mermaidText(c.caption)}|` : ''} i${c.to}`);
  return lines;
}

/** What ReadBoard's `format: "mermaid"` takes: the scope (frame_id or query) and nothing of the item list's paging. */
export interface MermaidReadArgs {
  board_id: string;
  frame_id?: string | undefined;
  query?: string | undefined;
  item_types?: unknown;
  max_items?: unknown;
  offset?: unknown;
  cursor?: unknown;
  counts?: unknown;
}

/** Arguments of the item list that mean nothing for a diagram: refused before anything is sent. */
export function checkMermaidArgs(args: MermaidReadArgs): void {
  const stray = (['item_types', 'max_items', 'offset', 'cursor', 'counts'] as const).filter((name) => args[name] !== undefined);
  const issues: { parameter: string; problem: string }[] = stray.map((parameter) => ({ parameter, problem: 'not with format "mermaid", which reads a whole frame (frame_id) or the shapes connected to those a query names' }));
  if (!args.frame_id && !args.query) issues.push({ parameter: 'format', problem: '"mermaid" needs frame_id (a frame\'s diagram) or query (the shapes connected to those whose text or ID it matches)' });
  if (args.frame_id && args.query) issues.push({ parameter: 'query', problem: 'not with frame_id and format "mermaid": the frame is the diagram' });
  if (issues.length) throw ToolError.invalidInput(issues);
}

export async function readBoardMermaid(args: MermaidReadArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  checkMermaidArgs(args);
  const get = boardGet(args.board_id, context);
  const read = context.deps.now().toISOString();
  const scope = await readScope(get, context.signal, { ...(args.frame_id ? { frame: args.frame_id } : {}), ...(args.query ? { query: args.query } : {}) });
  if (!scope.frame && !scope.seeds.length) throw ToolError.invalidParameter('query', 'no shape, sticky note, text or card has this text or ID', true);
  const unsafe = [...scope.items.keys(), ...scope.connectors.map((c) => c.id)].filter((id) => !SAFE_ID.test(id));
  if (unsafe.length) throw new ToolError({ kind: 'upstream_error', message: `The platform gave IDs Mermaid cannot carry (${unsafe.slice(0, 3).map(idText).join(', ')}); read the board as items instead.` });
  const lines = mermaidLines(scope, { board: args.board_id, ...(scope.frame ? { frame: scope.frame.id } : {}), seeds: scope.seeds, read, state: scope.state });
  if (lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 4, 0) > TEXT_BYTES) throw tooBig('more text than one answer holds', args.frame_id ? { frame: args.frame_id } : {});
  const leftOut = scope.touching.length ? [`${scope.touching.length} connector${scope.touching.length === 1 ? '' : 's'} to items outside the diagram not shown (deleted with their item if it is removed)`] : [];
  const otherTypes = scope.frame ? scope.others.filter((item) => item.type !== 'frame').length : 0;
  if (otherTypes) leftOut.push(`${otherTypes} item${otherTypes === 1 ? '' : 's'} of the frame that are not shapes, sticky notes, texts or cards not shown`);
  return {
    board_id: args.board_id,
    item_link: itemLinkTemplate(context.deps.webBase, args.board_id),
    nodes: scope.items.size,
    edges: scope.connectors.length,
    mermaid: lines,
    next_step: 'To change the diagram, edit these lines (keep i<ID> and c<ID>@; new nodes get other ids; write " as #34;) and pass them, joined by newlines, to CanvasApi.EditDiagram.',
    ...(leftOut.length ? { not_shown: leftOut } : {}),
  };
}

/** Reads of the board, through the client. */
export function boardGet(boardId: string, context: ToolContext<CanvasApiDeps>): BoardGet {
  const label = `the board "${boardId}"`;
  return async (path, query, signal, pathParams = {}) => (await context.deps.client.request<unknown>({ method: 'GET', effect: 'read', path, pathParams: { board_id: boardId, ...pathParams }, query, signal, resourceLabel: label })).data;
}
