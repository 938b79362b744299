/**
 * A reader of Mermaid `erDiagram` text, for CreateDiagram: entities as boxes with their
 * attributes, relationships as connectors with the platform's ERD caps (crow's feet). Hand-written
 * like the flowchart reader (mermaid.ts): a statement a line, read by a cursor with plain scans.
 *
 * Drawn: `ENTITY`, `ENTITY { type name PK, FK "comment" }`, an alias `p[Person]`, quoted names,
 * relationships `A ||--o{ B : label` (`|o || }o }|` and `o| || o{ |{`; `--` identifying, `..`
 * non-identifying, dashed) or in words (`A only one to zero or more B : label`), `direction`,
 * `style X fill:#hex`. Ignored with a note: classDef, class, `:::`, the rest of a style, title and
 * accessibility lines.
 */
import { DIAGRAM_LIMITS } from '../task-vocabulary.js';
import { MermaidError } from './mermaid.js';
import { checkCaption, checkCounts, MAX_PROBLEMS, checkField, Cursor, directionOf, fillStyle, LineProblem, readStatements, unquote, type Cap, type StructureBox, type StructureDiagram, type StructureRelation } from './mermaid-structure.js';

const IGNORED = new Set(['classDef', 'class', 'title', 'accTitle', 'accDescr']);
const LEFT: Record<string, Cap> = { '|o': 'erd_zero_or_one', '||': 'erd_only_one', '}o': 'erd_zero_or_many', '}|': 'erd_one_or_many' };
const RIGHT: Record<string, Cap> = { 'o|': 'erd_zero_or_one', '||': 'erd_only_one', 'o{': 'erd_zero_or_many', '|{': 'erd_one_or_many' };
const LINES: Record<string, boolean> = { '--': false, '..': true, '.-': true, '-.': true };
/** Cardinalities in words, longest first. */
const WORDS: readonly [string, Cap][] = [
  ['zero or more', 'erd_zero_or_many'], ['zero or many', 'erd_zero_or_many'], ['one or more', 'erd_one_or_many'], ['one or many', 'erd_one_or_many'],
  ['one or zero', 'erd_zero_or_one'], ['zero or one', 'erd_zero_or_one'], ['only one', 'erd_only_one'], ['many(0)', 'erd_zero_or_many'], ['many(1)', 'erd_one_or_many'],
  ['0+', 'erd_zero_or_many'], ['1+', 'erd_one_or_many'], ['1', 'erd_only_one'],
];
const KEYS = new Set(['PK', 'FK', 'UK']);

export function parseErDiagram(source: string): StructureDiagram {
  const reader = new ErReader();
  readStatements(source, ['erDiagram'], (text, line) => reader.statement(text, line), reader.ignored, reader.problems);
  return reader.finish();
}

class ErReader {
  direction: StructureDiagram['direction'] = 'TB';
  readonly boxes = new Map<string, StructureBox>();
  readonly relations: StructureRelation[] = [];
  readonly ignored: string[] = [];
  readonly problems: string[] = [];
  private open: StructureBox | undefined;
  private openLine = 0;

  statement(text: string, line: number): void {
    if (this.open) return this.blockLine(text);
    const keyword = text.slice(0, text.search(/[ \t{]|$/));
    if (keyword === 'direction') return void (this.direction = directionOf(text));
    if (keyword === 'style') return this.style(text, line);
    if (IGNORED.has(keyword)) return void this.ignored.push(`line ${line}: ${keyword} is not drawn (styling and titles are left out)`);
    const cursor = new Cursor(text);
    const from = this.entity(cursor, line);
    cursor.skipSpace();
    if (cursor.startsWith(':::')) return void this.ignored.push(`line ${line}: the class of ${from.id} (:::) is not drawn`);
    if (cursor.startsWith('{')) {
      const inside = text.slice(cursor.at + 1).trim();
      this.open = from;
      this.openLine = line;
      if (inside) this.blockLine(inside);
      return;
    }
    if (cursor.done) return;
    this.relationship(cursor, from, line);
  }

  private style(text: string, line: number): void {
    fillStyle(text, line, this.boxes, this.ignored, 'entity');
  }

  /** `A ||--o{ B : label`, or `A only one to zero or more B : label`. */
  private relationship(cursor: Cursor, from: StructureBox, line: number): void {
    const { text } = cursor;
    const token = text.slice(cursor.at, cursor.at + 6);
    let link: Pick<StructureRelation, 'startCap' | 'endCap' | 'dashed'>;
    if (LEFT[token.slice(0, 2)] && LINES[token.slice(2, 4)] !== undefined && RIGHT[token.slice(4, 6)]) {
      link = { startCap: LEFT[token.slice(0, 2)]!, dashed: LINES[token.slice(2, 4)]!, endCap: RIGHT[token.slice(4, 6)]! };
      cursor.at += 6;
    } else {
      const startCap = readWords(cursor);
      cursor.skipSpace();
      const optional = cursor.startsWith('optionally to ');
      if (!startCap || (!optional && !cursor.startsWith('to '))) {
        throw new LineProblem(`expected a relationship (||--o{, }|..|{, |o--||, ..., or "only one to zero or more") or "{" at "${cursor.rest()}"`);
      }
      cursor.at += optional ? 14 : 3;
      const endCap = readWords(cursor);
      if (!endCap) throw new LineProblem(`expected a cardinality (only one, zero or one, one or more, zero or more) at "${cursor.rest()}"`);
      link = { startCap, endCap, dashed: optional };
    }
    cursor.skipSpace();
    const to = this.entity(cursor, line);
    cursor.skipSpace();
    let label: string | undefined;
    if (cursor.startsWith(':')) label = unquote(text.slice(cursor.at + 1).trim());
    else if (!cursor.done) throw new LineProblem(`expected ": label" or the end of the line at "${cursor.rest()}"`);
    if (from.id === to.id) return void this.ignored.push(`line ${line}: the relationship of ${from.id} with itself is not drawn (a connector joins two different items)`);
    if (this.relations.length >= DIAGRAM_LIMITS.edges) throw new LineProblem(`more than ${DIAGRAM_LIMITS.edges} relationships`);
    this.relations.push({ from: from.id, to: to.id, ...link, ...(label ? { label: checkCaption(label) } : {}), line });
  }

  /** An entity's name (a word with `-`, or quoted), with an optional `[alias]` shown instead. */
  private entity(cursor: Cursor, line: number): StructureBox {
    cursor.skipSpace();
    const id = cursor.quoted() ?? cursor.id();
    if (!id) throw new LineProblem(cursor.done ? 'an entity is missing at the end' : `expected an entity name at "${cursor.rest()}"`);
    let box = this.boxes.get(id);
    if (!box) {
      if (this.boxes.size >= DIAGRAM_LIMITS.nodes) throw new LineProblem(`more than ${DIAGRAM_LIMITS.nodes} entities`);
      if (id.length > DIAGRAM_LIMITS.nodeIdChars) throw new LineProblem(`the entity name "${id.slice(0, 30)}..." is longer than ${DIAGRAM_LIMITS.nodeIdChars} characters`);
      box = { id, title: id, annotations: [], fields: [], methods: [], line };
      this.boxes.set(id, box);
    }
    if (cursor.startsWith('[')) {
      const close = cursor.text.indexOf(']', cursor.at);
      if (close < 0) throw new LineProblem('the entity\'s alias has no closing "]"');
      box.title = checkField(unquote(cursor.text.slice(cursor.at + 1, close).trim()));
      cursor.at = close + 1;
    }
    return box;
  }

  /** An attribute line of the open `{ ... }` block, or its closing `}`. */
  private blockLine(text: string): void {
    const box = this.open!;
    const closes = text.endsWith('}');
    const attribute = (closes ? text.slice(0, -1) : text).trim();
    if (closes) this.open = undefined;
    if (attribute) box.fields.push(readAttribute(attribute));
  }

  finish(): StructureDiagram {
    if (this.open) this.problems.push(`line ${this.openLine}: the entity ${this.open.id.slice(0, 50)}'s "{" has no closing "}"`);
    this.problems.push(...checkCounts(this.boxes.size, this.relations.length, DIAGRAM_LIMITS, 'entities'));
    if (!this.problems.length && !this.boxes.size) this.problems.push('the ER diagram has no entities');
    if (this.problems.length) throw new MermaidError(this.problems.slice(0, MAX_PROBLEMS));
    return { kind: 'er', direction: this.direction, boxes: [...this.boxes.values()], relations: this.relations, groups: [], ignored: this.ignored };
  }
}

/** A cardinality in words, if one starts here. */
function readWords(cursor: Cursor): Cap | undefined {
  cursor.skipSpace();
  for (const [words, cap] of WORDS) {
    if (cursor.startsWith(words) && /[ \t]/.test(cursor.text[cursor.at + words.length] ?? '')) {
      cursor.at += words.length;
      return cap;
    }
  }
  return undefined;
}

/** `type name [PK, FK] ["comment"]`. */
function readAttribute(written: string): StructureBox['fields'][number] {
  checkField(written);
  const quote = written.indexOf('"');
  let comment: string | undefined;
  let head = written;
  if (quote >= 0) {
    if (!written.endsWith('"') || written.length - 1 === quote) throw new LineProblem(`the attribute's comment at "${written.slice(quote, quote + 30)}" has no closing quote`);
    comment = written.slice(quote + 1, -1);
    head = written.slice(0, quote).trim();
  }
  const [type, name, ...rest] = head.split(/[ \t]+/);
  if (!type || !name) throw new LineProblem(`"${written.slice(0, 30)}" is not an attribute: write type name, then PK, FK or UK and a "comment" if any`);
  const keys = rest.join(' ').split(/[ \t]*,[ \t]*|[ \t]+/).filter(Boolean);
  const unknown = keys.find((key) => !KEYS.has(key));
  if (unknown) throw new LineProblem(`"${unknown.slice(0, 20)}" after the attribute ${name} is not a key: PK, FK or UK (a comment goes in quotes)`);
  return { text: `${type} ${name}${keys.length ? ` ${keys.join(', ')}` : ''}`, ...(comment ? { comment } : {}) };
}
