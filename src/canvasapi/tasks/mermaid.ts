/**
 * A reader of Mermaid flowchart text (the subset a board can draw), for CreateDiagram. No
 * maintained parser runs on Node 20 without a DOM (mermaid needs one; @mermaid-js/parser has no
 * flowchart grammar and needs Node 22), so this is a small hand-written one: statements split on
 * lines and `;`, each read left to right by a cursor (indexOf scans only, no regular expression
 * that can backtrack), linear in the text, which the schema caps (MERMAID_CHARS).
 *
 * Drawn: the header's direction, nodes with their shapes and text, edges (--> --- -.-> ==> <-->,
 * any length) with labels (`-->|yes|`, `-- yes -->`), chains, `&` groups, one level of subgraphs,
 * `style X fill:#hex`. Ignored with a note: styling (classDef, class, linkStyle, `:::`, a style's
 * other properties), click, direction inside a subgraph. Refused with the line: anything else.
 */
import { DIAGRAM_LIMITS, EXISTING_ITEM_PREFIX } from '../task-vocabulary.js';
import { Cursor, FrontMatter, isIdChar, isSpace, LineProblem, MAX_PROBLEMS } from './mermaid-cursor.js';

export type MermaidDirection = 'TB' | 'BT' | 'LR' | 'RL';

export interface MermaidNode {
  id: string;
  text: string;
  shape: string;
  color?: string;
  /** The line that first named it. */
  line: number;
  /** The subgraph it is drawn in (its index in `subgraphs`). */
  subgraph?: number;
  /** Its `:::class`, read only with `ids` (EditDiagram's item types). */
  className?: string;
}

export interface MermaidEdge {
  from: string;
  to: string;
  label?: string;
  stroke: 'normal' | 'dotted' | 'thick';
  /** Arrowheads: at the end (-->), none (---), both (<-->). */
  arrows: 'end' | 'none' | 'both';
  line: number;
  /** Its Mermaid 11 edge ID (`a e1@--> b`), read only with `ids`. */
  id?: string;
}

export interface MermaidSubgraph {
  key: string;
  title: string;
  line: number;
}

export interface MermaidFlowchart {
  direction: MermaidDirection;
  nodes: MermaidNode[];
  edges: MermaidEdge[];
  subgraphs: MermaidSubgraph[];
  /** What was read but not drawn, one `line N: ...` each. */
  ignored: string[];
}

/** Thrown with every problem found, each `line N: what is wrong`. */
export class MermaidError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** Subgraphs (frames) one diagram may have. */
export const MERMAID_SUBGRAPHS = 20;

/** Opening bracket -> [closing, platform shape], longest first. */
const SHAPES: readonly [string, string, string][] = [
  ['(((', ')))', 'circle'],
  ['((', '))', 'circle'],
  ['([', '])', 'round_rectangle'],
  ['[[', ']]', 'flow_chart_predefined_process'],
  ['[(', ')]', 'can'],
  ['{{', '}}', 'hexagon'],
  ['[/', '/]', 'parallelogram'],
  ['[/', '\\]', 'trapezoid'],
  ['[\\', '\\]', 'parallelogram'],
  ['[\\', '/]', 'trapezoid'],
  ['[', ']', 'rectangle'],
  ['(', ')', 'round_rectangle'],
  ['{', '}', 'rhombus'],
  ['>', ']', 'right_arrow'],
];
const IGNORED_STATEMENTS = new Set(['classDef', 'class', 'linkStyle', 'click', 'style']);
const DIRECTIONS: Record<string, MermaidDirection> = { TD: 'TB', TB: 'TB', BT: 'BT', LR: 'LR', RL: 'RL' };


/** `ids`: edge IDs (`a e1@--> b`) and node classes are read, for EditDiagram; without it, both are as before. */
export function parseMermaid(source: string, options: { ids?: boolean } = {}): MermaidFlowchart {
  const reader = new Reader(options.ids === true);
  const lines = source.split(/\r?\n/);
  let header = false;
  const frontMatter = new FrontMatter();
  lines.forEach((raw, index) => {
    const line = index + 1;
    const text = raw.trim();
    if (!text || text.startsWith('%%') || reader.problems.length >= MAX_PROBLEMS || reader.notFlowchart) return;
    if (frontMatter.skips(text, line, header, reader.ignored)) return;
    if (!header) {
      header = true;
      reader.header(text, line);
      return;
    }
    for (const statement of splitStatements(text)) {
      try {
        reader.statement(statement, line);
      } catch (error) {
        if (!(error instanceof LineProblem)) throw error;
        reader.problems.push(`line ${line}: ${error.message}`);
      }
    }
  });
  return reader.finish(header);
}

/** A line's statements, split on `;` outside quotes and brackets. */
function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (!quoted && '[({'.includes(c)) depth++;
    else if (!quoted && '])}'.includes(c)) depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && c === ';') {
      statements.push(text.slice(start, i));
      start = i + 1;
    }
  }
  statements.push(text.slice(start));
  return statements.map((s) => s.trim()).filter(Boolean);
}

class Reader {
  direction: MermaidDirection = 'TB';
  readonly nodes = new Map<string, MermaidNode>();
  readonly edges: MermaidEdge[] = [];
  readonly subgraphs: MermaidSubgraph[] = [];
  readonly ignored: string[] = [];
  readonly problems: string[] = [];
  private open: number | undefined;
  /** The first line names another kind of diagram: the rest is not read. */
  notFlowchart = false;
  constructor(private readonly ids = false) {}

  header(text: string, line: number): void {
    const [keyword, direction, ...more] = text.split(/[ \t]+/);
    if (keyword !== 'flowchart' && keyword !== 'graph') {
      this.notFlowchart = true;
      this.problems.push(`line ${line}: the first line must be "flowchart" or "graph" with a direction (TD, TB, BT, LR, RL); "${text.slice(0, 30)}" is not a diagram drawn here: flowchart (or graph), sequenceDiagram, classDiagram, erDiagram or mindmap`);
      return;
    }
    if (direction !== undefined && !Object.hasOwn(DIRECTIONS, direction.replace(/;$/, ''))) this.problems.push(`line ${line}: "${direction.slice(0, 10)}" is not a direction: one of TD, TB, BT, LR, RL`);
    else if (direction) this.direction = DIRECTIONS[direction.replace(/;$/, '')]!;
    if (more.length) this.problems.push(`line ${line}: write statements on the lines after "${keyword} ${direction}"`);
  }

  statement(text: string, line: number): void {
    const keyword = text.slice(0, text.search(/[ \t]|$/));
    if (keyword === 'subgraph') return this.startSubgraph(text.slice(8).trim(), line);
    if (keyword === 'end') {
      if (this.open === undefined) throw new LineProblem('"end" closes no subgraph');
      this.open = undefined;
      return;
    }
    if (keyword === 'direction') {
      this.ignored.push(`line ${line}: direction inside a subgraph is not drawn (the whole diagram follows the first line's)`);
      return;
    }
    if (IGNORED_STATEMENTS.has(keyword)) return this.ignore(keyword, text, line);
    if (text.startsWith('accTitle') || text.startsWith('accDescr') || text.startsWith('title')) {
      this.ignored.push(`line ${line}: ${keyword} is not drawn`);
      return;
    }
    this.chain(new Cursor(text), line);
  }

  private ignore(keyword: string, text: string, line: number): void {
    if (keyword === 'style') {
      // style A fill:#f9f,stroke:#333: the fill is the node's colour; the rest is not drawn.
      const [, id = '', props = ''] = text.split(/[ \t]+/);
      const fill = props.split(',').find((p) => p.startsWith('fill:'))?.slice(5);
      const color = fill ? hexColor(fill) : undefined;
      const node = this.nodes.get(id);
      if (color && node) {
        node.color = color;
        if (props.split(',').length === 1) return;
      }
      this.ignored.push(`line ${line}: style ${color && node ? 'other than fill ' : ''}is not drawn${!node ? ` (no node "${id.slice(0, 30)}" before it)` : ''}`);
      return;
    }
    this.ignored.push(`line ${line}: ${keyword} is not drawn (styling and interaction are left out)`);
  }

  private startSubgraph(rest: string, line: number): void {
    if (this.open !== undefined) throw new LineProblem('a subgraph inside a subgraph is not drawn: frames do not nest on the board');
    if (this.subgraphs.length >= MERMAID_SUBGRAPHS) throw new LineProblem(`more than ${MERMAID_SUBGRAPHS} subgraphs`);
    const cursor = new Cursor(rest);
    let key = '';
    let title = '';
    if (rest.startsWith('"')) title = key = unquote(rest);
    else {
      key = cursor.plainId();
      cursor.skipSpace();
      if (key && cursor.startsWith('[')) {
        const close = rest.lastIndexOf(']');
        if (close <= cursor.at) throw new LineProblem('the subgraph\'s title has no closing "]"');
        title = unquote(rest.slice(cursor.at + 1, close).trim());
      } else title = key = rest;
    }
    if (!key) throw new LineProblem('a subgraph needs an id or a title');
    if (this.subgraphs.some((s) => s.key === key)) throw new LineProblem(`subgraph "${key.slice(0, 50)}" is already defined`);
    this.subgraphs.push({ key, title, line });
    this.open = this.subgraphs.length - 1;
  }

  /** `group (link group)*`, a group being `node (& node)*`. */
  private chain(cursor: Cursor, line: number): void {
    let group = this.group(cursor, line);
    while (!cursor.done) {
      const id = this.ids ? readEdgeId(cursor) : undefined;
      const link = { ...readLink(cursor), ...(id ? { id } : {}) };
      const next = this.group(cursor, line);
      // Checked before the pairs are made: `a & a & ... --> a & a & ...` would otherwise make millions.
      if (this.edges.length + group.length * next.length > DIAGRAM_LIMITS.edges) {
        throw new LineProblem(`more than ${DIAGRAM_LIMITS.edges} edges: each node of a "&" group links to each of the next group's (${group.length} x ${next.length} here)`);
      }
      for (const from of group) for (const to of next) this.edges.push({ from, to, ...link, line });
      group = next;
    }
  }

  private group(cursor: Cursor, line: number): string[] {
    const ids = [this.node(cursor, line)];
    for (cursor.skipSpace(); cursor.startsWith('&'); cursor.skipSpace()) {
      cursor.at++;
      ids.push(this.node(cursor, line));
    }
    return ids;
  }

  private node(cursor: Cursor, line: number): string {
    cursor.skipSpace();
    const existing = cursor.startsWith(EXISTING_ITEM_PREFIX);
    if (existing) cursor.at += EXISTING_ITEM_PREFIX.length;
    const bare = cursor.plainId();
    if (!bare) throw new LineProblem(cursor.done ? 'a node is missing at the end' : `expected a node id at "${cursor.rest()}"`);
    const id = existing ? `${EXISTING_ITEM_PREFIX}${bare}` : bare;
    if (cursor.startsWith('@{')) throw new LineProblem(`the ${id}@{ ... } shape syntax is not drawn; write ${id}[text], ${id}(text), ${id}{text}, ${id}((text)), ...`);
    const shaped = readShape(cursor);
    let className: string | undefined;
    if (cursor.startsWith(':::')) {
      cursor.at += 3;
      className = cursor.plainId();
      if (!this.ids) this.ignored.push(`line ${line}: the class of ${id} (:::) is not drawn`);
    }
    if (existing) {
      if (shaped) throw new LineProblem(`${id} is an existing board item: it takes no text or shape`);
      if (this.open !== undefined) throw new LineProblem(`${id} is an existing board item: it cannot be put in a subgraph`);
      return id;
    }
    let node = this.nodes.get(id);
    if (!node) {
      if (this.nodes.size >= DIAGRAM_LIMITS.nodes) throw new LineProblem(`more than ${DIAGRAM_LIMITS.nodes} nodes`);
      if (id.length > DIAGRAM_LIMITS.nodeIdChars) throw new LineProblem(`the node id "${id.slice(0, 30)}..." is longer than ${DIAGRAM_LIMITS.nodeIdChars} characters`);
      node = { id, text: id, shape: 'round_rectangle', line };
      this.nodes.set(id, node);
    }
    if (shaped) Object.assign(node, shaped);
    if (this.ids && className) node.className = className;
    if (this.open !== undefined && node.subgraph === undefined) node.subgraph = this.open;
    return id;
  }

  finish(header: boolean): MermaidFlowchart {
    if (!header) this.problems.push('line 1: the text is empty; start with "flowchart TD" (or LR, BT, RL) and a statement per line');
    if (this.open !== undefined) this.problems.push(`line ${this.subgraphs[this.open]!.line}: the subgraph "${this.subgraphs[this.open]!.key.slice(0, 50)}" has no "end"`);
    const keys = new Map(this.subgraphs.map((s) => [s.key, s]));
    for (const edge of this.edges) {
      for (const end of [edge.from, edge.to]) {
        if (keys.has(end) && this.nodes.get(end)?.subgraph === undefined) this.problems.push(`line ${edge.line}: ${end.slice(0, 50)} is a subgraph; an edge is drawn between nodes: connect to a node inside it`);
      }
    }
    if (this.edges.length > DIAGRAM_LIMITS.edges) this.problems.push(`${this.edges.length} edges (an & group joins each of its nodes); at most ${DIAGRAM_LIMITS.edges}`);
    if (!this.problems.length && this.nodes.size === 0 && this.edges.length === 0) this.problems.push('the flowchart has no nodes');
    if (this.problems.length) throw new MermaidError(this.problems.slice(0, MAX_PROBLEMS));
    // A subgraph without nodes has nothing to frame.
    const used = new Set([...this.nodes.values()].map((n) => n.subgraph));
    this.subgraphs.forEach((s, index) => {
      if (!used.has(index)) this.ignored.push(`line ${s.line}: the subgraph "${s.key.slice(0, 50)}" has no nodes of its own and is not drawn`);
    });
    const kept = this.subgraphs.filter((_, index) => used.has(index));
    const renumber = new Map(this.subgraphs.map((s, index) => [index, kept.indexOf(s)]));
    const nodes = [...this.nodes.values()].map((n) => (n.subgraph === undefined ? n : { ...n, subgraph: renumber.get(n.subgraph)! }));
    return { direction: this.direction, nodes, edges: this.edges, subgraphs: kept, ignored: this.ignored };
  }
}


/** `e1@` before a link: its ID; else nothing read. */
function readEdgeId(cursor: Cursor): string | undefined {
  cursor.skipSpace();
  const start = cursor.at;
  const id = cursor.plainId();
  if (id && cursor.startsWith('@') && /[-=<.]/.test(cursor.text[cursor.at + 1] ?? '')) {
    cursor.at++;
    return id;
  }
  cursor.at = start;
  return undefined;
}

/** A node's bracketed text, if any: its text and platform shape. */
function readShape(cursor: Cursor): { text: string; shape: string } | undefined {
  const { text } = cursor;
  const options = SHAPES.filter(([open]) => cursor.startsWith(open));
  if (!options.length) return undefined;
  const open = options[0]![0];
  const start = cursor.at + open.length;
  let end = -1;
  let chosen = options[0]!;
  if (text[start] === '"') {
    // A quoted text may hold any closing bracket.
    const quoteEnd = text.indexOf('"', start + 1);
    if (quoteEnd < 0) throw new LineProblem(`the text after "${open}" has no closing quote`);
    for (const option of options) {
      if (text.startsWith(option[1], quoteEnd + 1)) {
        chosen = option;
        end = quoteEnd + 1;
        break;
      }
    }
  } else {
    for (const option of options) {
      const at = text.indexOf(option[1], start);
      if (at >= 0 && (end < 0 || at < end)) {
        end = at;
        chosen = option;
      }
    }
  }
  if (end < 0) throw new LineProblem(`the text after "${open}" has no closing "${options[0]![1]}"`);
  cursor.at = end + chosen[1].length;
  return { text: unquote(text.slice(start, end).trim()), shape: chosen[2] };
}

/** A link: its stroke, arrows and label (`-->|label|` or `-- label -->`). */
function readLink(cursor: Cursor): Pick<MermaidEdge, 'stroke' | 'arrows' | 'label'> {
  cursor.skipSpace();
  const { text } = cursor;
  const both = cursor.startsWith('<');
  if (both) cursor.at++;
  const c = text[cursor.at];
  if (cursor.startsWith('~~~')) throw new LineProblem('invisible links (~~~) are not drawn');
  if (c !== '-' && c !== '=') throw new LineProblem(`expected a link (-->, ---, -.->, ==>) or the end of the statement at "${cursor.rest()}"`);
  const stroke = c === '=' ? 'thick' : text[cursor.at + 1] === '.' ? 'dotted' : 'normal';
  const start = cursor.at;
  // The opening run: --, ==, -. then dots.
  while (text[cursor.at] === c || (stroke === 'dotted' && text[cursor.at] === '.')) cursor.at++;
  let label: string | undefined;
  let arrow = cursor.startsWith('>');
  const run = cursor.at - start;
  if (!arrow && (text[cursor.at] === 'o' || text[cursor.at] === 'x') && !isIdChar(text[cursor.at + 1])) {
    throw new LineProblem('circle and cross link ends (--o, --x) are not drawn: write --> or ---');
  }
  if (!arrow && isSpace(text[cursor.at]) && run === 2 && !both) {
    // `-- label -->`: the label runs to the closing part of the link.
    const closers = stroke === 'thick' ? ['==>', '==='] : stroke === 'dotted' ? ['.->', '.-'] : ['-->', '---'];
    let end = -1;
    for (const closer of closers) {
      const at = text.indexOf(closer, cursor.at);
      if (at >= 0 && (end < 0 || at < end)) end = at;
    }
    if (end < 0) throw new LineProblem(`the link's label after "${text.slice(start, cursor.at)}" is not closed by ${closers.join(' or ')}`);
    label = unquote(text.slice(cursor.at, end).trim());
    cursor.at = end;
    while (text[cursor.at] === c || text[cursor.at] === '.' || (stroke === 'dotted' && text[cursor.at] === '-')) cursor.at++;
    arrow = cursor.startsWith('>');
  } else if (run < (stroke === 'dotted' ? 2 : arrow ? 2 : 3) || (stroke === 'dotted' && text[cursor.at - 1] !== '-')) {
    throw new LineProblem(`"${text.slice(start - (both ? 1 : 0), cursor.at + 1)}" is not a link: write -->, ---, -.->, ==> or <-->`);
  }
  if (arrow) cursor.at++;
  if (both && !arrow) throw new LineProblem('a link that starts with < ends with >: <-->');
  cursor.skipSpace();
  if (cursor.startsWith('|')) {
    const close = text.indexOf('|', cursor.at + 1);
    if (close < 0) throw new LineProblem('the link\'s label has no closing "|"');
    label = unquote(text.slice(cursor.at + 1, close).trim());
    cursor.at = close + 1;
  }
  return { stroke, arrows: both ? 'both' : arrow ? 'end' : 'none', ...(label ? { label } : {}) };
}

function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** `#rgb` or `#rrggbb` as `#rrggbb`; anything else undefined. */
function hexColor(value: string): string | undefined {
  const hex = value.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(hex)) return hex;
  if (/^#[0-9a-f]{3}$/.test(hex)) return `#${hex[1]}${hex[1]}${hex[2]}${hex[2]}${hex[3]}${hex[3]}`;
  return undefined;
}
