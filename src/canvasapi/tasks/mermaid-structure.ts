/**
 * What Mermaid's class and ER diagrams have in common, for their readers (mermaid-class.ts,
 * mermaid-er.ts): boxes with lines of fields, relations with a cap at each end, the statements of
 * the text (front matter, comments and the header skipped), and a cursor that reads ids and quoted
 * text with plain scans (linear in the text, which the schema caps), like the flowchart reader's.
 */
import { escapeHtml } from '../../core/html.js';
import type { MermaidDirection } from './mermaid.js';
import { Cursor as BaseCursor, FrontMatter, isIdChar, LineProblem, MAX_PROBLEMS } from './mermaid-cursor.js';

/** Fields drawn in one box at most; the rest are counted in its last line and named in not_drawn. */
export const BOX_FIELDS = 30;
/** A field's or a caption's characters at most, as written. */
export const FIELD_CHARS = 200;
/** Problems reported at most (the flowchart reader's number). */
export { LineProblem, MAX_PROBLEMS } from './mermaid-cursor.js';

/** One line of a box: its text, and how it is set (static underlined, abstract italic, as UML). */
export interface BoxLine {
  text: string;
  style?: 'static' | 'abstract';
  /** An ER attribute's comment, set apart. */
  comment?: string;
}

export interface StructureBox {
  id: string;
  /** The name shown (a label, or the id with generics as <T>). */
  title: string;
  /** «interface» and the like, shown above the name. */
  annotations: string[];
  fields: BoxLine[];
  /** Class methods, after the attributes. */
  methods: BoxLine[];
  /** The line that first named it. */
  line: number;
  /** The namespace it is drawn in (its index in `groups`). */
  group?: number;
  color?: string;
}

/** Connector caps, as the platform names them (ConnectorStyle.startStrokeCap / endStrokeCap). */
export type Cap = 'none' | 'arrow' | 'triangle' | 'diamond' | 'filled_diamond' | 'oval' | 'erd_only_one' | 'erd_zero_or_one' | 'erd_one_or_many' | 'erd_zero_or_many';

export interface StructureRelation {
  from: string;
  to: string;
  startCap: Cap;
  endCap: Cap;
  dashed: boolean;
  label?: string;
  /** Cardinalities written at each end (`"1" --> "*"`). */
  startLabel?: string;
  endLabel?: string;
  line: number;
}

export interface StructureDiagram {
  kind: 'class' | 'er';
  direction: MermaidDirection;
  boxes: StructureBox[];
  relations: StructureRelation[];
  /** Namespaces, drawn as frames. */
  groups: { key: string; line: number }[];
  ignored: string[];
}

/** Thrown for one statement: its line is added by the reader. */

const DIRECTIONS: Record<string, MermaidDirection> = { TD: 'TB', TB: 'TB', BT: 'BT', LR: 'LR', RL: 'RL' };

/** `direction LR`: the layout's direction for the whole diagram. */
export function directionOf(statement: string): MermaidDirection {
  const word = statement.split(/[ \t]+/)[1] ?? '';
  if (!Object.hasOwn(DIRECTIONS, word)) throw new LineProblem(`"${word.slice(0, 10)}" is not a direction: one of TB, TD, BT, LR, RL`);
  return DIRECTIONS[word]!;
}

export function unquote(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** The shared cursor, with the ids and quoted texts class and ER diagrams read. */
export class Cursor extends BaseCursor {
  /** An id: letters, digits, `_`, and `-` between them (`LINE-ITEM`; `A--B` is a relation); or `` `any text` ``. */
  id(): string {
    const { text } = this;
    if (text[this.at] === '`') {
      const close = text.indexOf('`', this.at + 1);
      if (close < 0) throw new LineProblem('the name after "`" has no closing "`"');
      const id = text.slice(this.at + 1, close);
      this.at = close + 1;
      return id;
    }
    return this.plainId();
  }
  /** A "quoted" text, if one starts here. */
  quoted(): string | undefined {
    this.skipSpace();
    if (this.text[this.at] !== '"') return undefined;
    const close = this.text.indexOf('"', this.at + 1);
    if (close < 0) throw new LineProblem(`the text at "${this.rest()}" has no closing quote`);
    const value = this.text.slice(this.at + 1, close);
    this.at = close + 1;
    return value;
  }
}

/** `List~int~` as `List<int>`: a `~` before a name opens, any other closes (plain alternation when that does not pair up). */
export function generics(text: string): string {
  if (!text.includes('~')) return text;
  let depth = 0;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '~') out += text[i];
    else if (isIdChar(text[i + 1]) && i > 0) {
      out += '<';
      depth++;
    } else {
      out += '>';
      depth--;
    }
    if (depth < 0) break;
  }
  if (depth === 0) return out;
  let open = true;
  return text.replace(/~/g, () => ((open = !open) ? '>' : '<'));
}

export function checkField(text: string): string {
  if (text.length > FIELD_CHARS) throw new LineProblem(`"${text.slice(0, 30)}..." is ${text.length} characters; a field is at most ${FIELD_CHARS}`);
  return text;
}

/** A label or cardinality, within a connector caption as sent (HTML-escaped: each of & < > " ' counts 5). */
export function checkCaption(text: string): string {
  const sent = escapeHtml(text).length;
  if (sent > FIELD_CHARS) throw new LineProblem(`the label "${text.slice(0, 30)}..." is ${sent} characters once HTML-escaped; a connector caption is at most ${FIELD_CHARS}`);
  return text;
}

/**
 * The statements of a diagram after its header (one of `keywords`), each with its line: front matter
 * (`---` ... `---`) and `%%` comments skipped. Problems are collected by `each` throwing
 * LineProblem; at most 10, then reading stops.
 */
export function readStatements(source: string, keywords: readonly string[], each: (text: string, line: number) => void, ignored: string[], problems: string[]): void {
  let header = false;
  const frontMatter = new FrontMatter();
  const lines = source.split(/\r?\n/);
  for (let index = 0; index < lines.length && problems.length < MAX_PROBLEMS; index++) {
    const line = index + 1;
    const text = lines[index]!.trim();
    if (!text || text.startsWith('%%')) continue;
    if (frontMatter.skips(text, line, header, ignored)) continue;
    if (!header) {
      header = true;
      const [first, ...more] = text.split(/[ \t]+/);
      if (!keywords.includes(first!)) problems.push(`line ${line}: the first line must be "${keywords[0]}"`);
      else if (more.length) problems.push(`line ${line}: write statements on the lines after "${first}"`);
      continue;
    }
    try {
      each(text, line);
    } catch (error) {
      if (!(error instanceof LineProblem)) throw error;
      problems.push(`line ${line}: ${error.message}`);
    }
  }
}

export function checkCounts(boxes: number, relations: number, limits: { nodes: number; edges: number }, kind: string): string[] {
  const problems: string[] = [];
  if (boxes > limits.nodes) problems.push(`${boxes} ${kind}; at most ${limits.nodes}`);
  if (relations > limits.edges) problems.push(`${relations} relations; at most ${limits.edges}`);
  return problems;
}

/** `style X fill:#hex` colours box X; anything else of it (or an unknown X) is listed as not drawn. */
export function fillStyle(text: string, line: number, boxes: ReadonlyMap<string, { color?: string }>, ignored: string[], noun: string): void {
  const [, id = '', props = ''] = text.split(/[ \t]+/);
  const fill = props.split(',').find((p) => p.startsWith('fill:'))?.slice(5);
  const color = fill ? hexColor(fill) : undefined;
  const box = boxes.get(id);
  if (color && box) box.color = color;
  if (!color || !box || props.split(',').length > 1) ignored.push(`line ${line}: style ${color && box ? 'other than fill ' : ''}is not drawn${!box ? ` (no ${noun} "${id.slice(0, 30)}" before it)` : ''}`);
}

/** `#rgb` or `#rrggbb` as `#rrggbb`; anything else undefined. */
export function hexColor(value: string): string | undefined {
  const hex = value.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(hex)) return hex;
  if (/^#[0-9a-f]{3}$/.test(hex)) return `#${hex[1]}${hex[1]}${hex[2]}${hex[2]}${hex[3]}${hex[3]}`;
  return undefined;
}

