/**
 * A reader of Mermaid `classDiagram` text, for CreateDiagram: classes as boxes with their members,
 * relations as connectors with UML end caps. Hand-written like the flowchart reader (mermaid.ts):
 * a statement a line, each read by a cursor with plain scans, linear in the text.
 *
 * Drawn: `class X`, `class X~T~`, `class X["label"]`, `class X { members }`, `X : member`,
 * `<<annotation>> X` (or inside the block), relations `<|-- *-- o-- --> -- ..> ..|> .. ()--` in
 * either direction or both, with `"1"` cardinalities at their ends and `: label`, `namespace N { }`
 * (one level: a frame), `direction`, `style X fill:#hex`. Ignored with a note: notes, classDef,
 * cssClass, `:::`, the rest of a style, click/link/callback, title and accessibility lines.
 */
import { DIAGRAM_LIMITS } from '../task-vocabulary.js';
import { MermaidError } from './mermaid.js';
import { checkCaption, checkCounts, MAX_PROBLEMS, checkField, Cursor, directionOf, generics, fillStyle, LineProblem, readStatements, unquote, type BoxLine, type Cap, type StructureBox, type StructureDiagram, type StructureRelation } from './mermaid-structure.js';

/** Namespaces (frames) one diagram may have. */
const NAMESPACES = 20;
const IGNORED = new Set(['classDef', 'cssClass', 'click', 'link', 'callback', 'title', 'accTitle', 'accDescr']);

const LEFT_CAPS: readonly [string, Cap][] = [['<|', 'triangle'], ['()', 'oval'], ['*', 'filled_diamond'], ['o', 'diamond'], ['<', 'arrow']];
const RIGHT_CAPS: readonly [string, Cap][] = [['|>', 'triangle'], ['()', 'oval'], ['*', 'filled_diamond'], ['o', 'diamond'], ['>', 'arrow']];

export function parseClassDiagram(source: string): StructureDiagram {
  const reader = new ClassReader();
  readStatements(source, ['classDiagram', 'classDiagram-v2'], (text, line) => reader.statement(text, line), reader.ignored, reader.problems);
  return reader.finish();
}

class ClassReader {
  direction: StructureDiagram['direction'] = 'TB';
  readonly boxes = new Map<string, StructureBox>();
  readonly relations: StructureRelation[] = [];
  readonly groups: StructureDiagram['groups'] = [];
  readonly ignored: string[] = [];
  readonly problems: string[] = [];
  /** The class whose `{ ... }` block is open. */
  private openClass: StructureBox | undefined;
  private openClassLine = 0;
  private openGroup: number | undefined;

  statement(text: string, line: number): void {
    if (this.openClass) return this.blockLine(text);
    const keyword = text.slice(0, text.search(/[ \t{]|$/));
    if (keyword === 'class') return this.classStatement(text.slice(5).trim(), line);
    if (keyword === 'namespace') return this.namespace(text.slice(9).trim(), line);
    if (text === '}') {
      if (this.openGroup === undefined) throw new LineProblem('"}" closes no class or namespace');
      this.openGroup = undefined;
      return;
    }
    if (keyword === 'note') return void this.ignored.push(`line ${line}: notes are not drawn`);
    if (keyword === 'direction') return this.setDirection(text);
    if (keyword === 'style') return this.style(text, line);
    if (IGNORED.has(keyword)) return void this.ignored.push(`line ${line}: ${keyword} is not drawn (styling, interaction and titles are left out)`);
    if (text.startsWith('<<')) return this.annotationFor(text, line);
    this.relationOrMember(new Cursor(text), line);
  }

  private setDirection(text: string): void {
    this.direction = directionOf(text);
  }

  private style(text: string, line: number): void {
    fillStyle(text, line, this.boxes, this.ignored, 'class');
  }

  private namespace(rest: string, line: number): void {
    if (this.openGroup !== undefined) throw new LineProblem('a namespace inside a namespace is not drawn: frames do not nest on the board');
    if (this.groups.length >= NAMESPACES) throw new LineProblem(`more than ${NAMESPACES} namespaces`);
    const cursor = new Cursor(rest);
    const key = cursor.id();
    cursor.skipSpace();
    if (!key) throw new LineProblem('a namespace needs a name: namespace Name {');
    if (!cursor.startsWith('{') || cursor.text.slice(cursor.at + 1).trim()) throw new LineProblem(`write "namespace ${key} {" and its classes on the lines after`);
    if (this.groups.some((g) => g.key === key)) throw new LineProblem(`namespace "${key.slice(0, 50)}" is already defined`);
    this.groups.push({ key, line });
    this.openGroup = this.groups.length - 1;
  }

  /** `class Name~T~["label"]:::css <<annotation>> {` with each part optional but the name. */
  private classStatement(rest: string, line: number): void {
    const cursor = new Cursor(rest);
    const id = cursor.id();
    if (!id) throw new LineProblem(`expected a class name after "class" at "${cursor.rest()}"`);
    const box = this.box(id, line);
    if (cursor.startsWith('~')) box.title = id + generics(readGeneric(cursor));
    if (cursor.startsWith('[')) {
      const close = rest.indexOf(']', cursor.at);
      if (close < 0) throw new LineProblem('the class label has no closing "]"');
      box.title = checkField(unquote(rest.slice(cursor.at + 1, close).trim()));
      cursor.at = close + 1;
    }
    if (cursor.startsWith(':::')) {
      cursor.at += 3;
      cursor.id();
      this.ignored.push(`line ${line}: the class of ${id} (:::) is not drawn`);
    }
    cursor.skipSpace();
    if (cursor.startsWith('<<')) {
      const close = rest.indexOf('>>', cursor.at);
      if (close < 0) throw new LineProblem('the annotation has no closing ">>"');
      box.annotations.push(checkField(rest.slice(cursor.at + 2, close).trim()));
      cursor.at = close + 2;
    }
    if (cursor.done) return;
    if (!cursor.startsWith('{')) throw new LineProblem(`expected "{" or the end of the line at "${cursor.rest()}"`);
    const inside = rest.slice(cursor.at + 1).trim();
    this.openClass = box;
    this.openClassLine = line;
    if (inside) this.blockLine(inside);
  }

  /** A line of a class's `{ ... }` block: a member, an annotation, or the closing `}`. */
  private blockLine(text: string): void {
    const box = this.openClass!;
    const closes = text.endsWith('}');
    const member = (closes ? text.slice(0, -1) : text).trim();
    if (closes) this.openClass = undefined;
    if (!member) return;
    if (member.startsWith('<<') && member.endsWith('>>')) box.annotations.push(checkField(member.slice(2, -2).trim()));
    else addMember(box, member);
  }

  /** `<<interface>> Name` */
  private annotationFor(text: string, line: number): void {
    const close = text.indexOf('>>');
    if (close < 0) throw new LineProblem('the annotation has no closing ">>"');
    const cursor = new Cursor(text.slice(close + 2).trim());
    const id = cursor.id();
    if (!id || !cursor.done) throw new LineProblem('write an annotation as <<interface>> ClassName, or inside the class\'s { } block');
    this.box(id, line).annotations.push(checkField(text.slice(2, close).trim()));
  }

  /** `A : member`, or `A ["1"] <|-- ["*"] B [: label]`. */
  private relationOrMember(cursor: Cursor, line: number): void {
    const from = cursor.id();
    if (!from) throw new LineProblem(`expected a class name, a relation or a statement at "${cursor.rest()}"`);
    if (cursor.startsWith('~')) readGeneric(cursor);
    if (cursor.startsWith(':::')) return void this.ignored.push(`line ${line}: the class of ${from} (:::) is not drawn`);
    if (from === 'item' && /^:\d/.test(cursor.text.slice(cursor.at))) throw new LineProblem('item:<ID> (an item already on the board) is read in flowcharts only; a class diagram draws its own classes');
    cursor.skipSpace();
    if (cursor.startsWith(':')) {
      const member = cursor.text.slice(cursor.at + 1).trim();
      if (!member) throw new LineProblem(`nothing after "${from} :": write a member, e.g. ${from} : +int id`);
      addMember(this.box(from, line), member);
      return;
    }
    const startLabel = cursor.quoted();
    const link = readRelation(cursor);
    const endLabel = cursor.quoted();
    cursor.skipSpace();
    const to = cursor.id();
    if (!to) throw new LineProblem(cursor.done ? 'the relation has no class at its end' : `expected a class name at "${cursor.rest()}"`);
    if (cursor.startsWith('~')) readGeneric(cursor);
    cursor.skipSpace();
    let label: string | undefined;
    if (cursor.startsWith(':')) label = unquote(cursor.text.slice(cursor.at + 1).trim());
    else if (!cursor.done) throw new LineProblem(`expected ": label" or the end of the line at "${cursor.rest()}"`);
    this.box(from, line);
    this.box(to, line);
    if (from === to) return void this.ignored.push(`line ${line}: the relation of ${from} with itself is not drawn (a connector joins two different items)`);
    if (this.relations.length >= DIAGRAM_LIMITS.edges) throw new LineProblem(`more than ${DIAGRAM_LIMITS.edges} relations`);
    this.relations.push({
      from,
      to,
      ...link,
      ...(label ? { label: checkCaption(label) } : {}),
      ...(startLabel ? { startLabel: checkCaption(startLabel) } : {}),
      ...(endLabel ? { endLabel: checkCaption(endLabel) } : {}),
      line,
    });
  }

  private box(id: string, line: number): StructureBox {
    let box = this.boxes.get(id);
    if (!box) {
      if (this.boxes.size >= DIAGRAM_LIMITS.nodes) throw new LineProblem(`more than ${DIAGRAM_LIMITS.nodes} classes`);
      if (id.length > DIAGRAM_LIMITS.nodeIdChars) throw new LineProblem(`the class name "${id.slice(0, 30)}..." is longer than ${DIAGRAM_LIMITS.nodeIdChars} characters`);
      box = { id, title: id, annotations: [], fields: [], methods: [], line };
      this.boxes.set(id, box);
    }
    if (this.openGroup !== undefined && box.group === undefined) box.group = this.openGroup;
    return box;
  }

  finish(): StructureDiagram {
    if (this.openClass) this.problems.push(`line ${this.openClassLine}: the class ${this.openClass.id.slice(0, 50)}'s "{" has no closing "}"`);
    if (this.openGroup !== undefined) this.problems.push(`line ${this.groups[this.openGroup]!.line}: the namespace "${this.groups[this.openGroup]!.key.slice(0, 50)}" has no closing "}"`);
    this.problems.push(...checkCounts(this.boxes.size, this.relations.length, DIAGRAM_LIMITS, 'classes'));
    if (!this.problems.length && !this.boxes.size) this.problems.push('the class diagram has no classes');
    if (this.problems.length) throw new MermaidError(this.problems.slice(0, MAX_PROBLEMS));
    // A namespace without classes has nothing to frame.
    const used = new Set([...this.boxes.values()].map((b) => b.group));
    const kept = this.groups.filter((group, index) => used.has(index) || void this.ignored.push(`line ${group.line}: the namespace "${group.key.slice(0, 50)}" has no classes and is not drawn`));
    const renumber = new Map(this.groups.map((g, index) => [index, kept.indexOf(g)]));
    const boxes = [...this.boxes.values()].map((b) => (b.group === undefined ? b : { ...b, group: renumber.get(b.group)! }));
    return { kind: 'class', direction: this.direction, boxes, relations: this.relations, groups: kept, ignored: this.ignored };
  }
}

/** A member line: a method when it has `(`; `$` at its end makes it static, `*` abstract; `~T~` generics as <T>. */
function addMember(box: StructureBox, written: string): void {
  let text = checkField(written.trim());
  let style: BoxLine['style'];
  if (text.endsWith('$')) style = 'static';
  else if (text.endsWith('*')) style = 'abstract';
  if (style) text = text.slice(0, -1).trimEnd();
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const method = open >= 0 && close > open;
  if (method) {
    // The classifier may also follow the parentheses: `someStaticMethod()$ String`.
    let returns = text.slice(close + 1).trim();
    if (!style && (returns.startsWith('$') || returns.startsWith('*'))) {
      style = returns.startsWith('$') ? 'static' : 'abstract';
      returns = returns.slice(1).trim();
    }
    // `+getPoints() List~int~`: the return type after " : ", as Mermaid shows it.
    text = text.slice(0, close + 1) + (returns ? ` : ${returns}` : '');
  }
  const line: BoxLine = { text: generics(text), ...(style ? { style } : {}) };
  (method ? box.methods : box.fields).push(line);
}

/** The `~...~` after a name, as written (up to a space, `[`, `{` or `:`). */
function readGeneric(cursor: Cursor): string {
  const start = cursor.at;
  while (cursor.at < cursor.text.length && !/[ \t[{:"]/.test(cursor.text[cursor.at]!)) cursor.at++;
  return cursor.text.slice(start, cursor.at);
}

/** A relation: a cap at each end (or none), `--` solid or `..` dashed. */
function readRelation(cursor: Cursor): Pick<StructureRelation, 'startCap' | 'endCap' | 'dashed'> {
  cursor.skipSpace();
  const { text } = cursor;
  const start = cursor.at;
  let startCap: Cap = 'none';
  for (const [token, cap] of LEFT_CAPS) {
    // `o` is a cap only right before the line: `o--`, `o..`.
    if (cursor.startsWith(token) && (token !== 'o' || /^(--|\.\.)/.test(text.slice(cursor.at + 1)))) {
      startCap = cap;
      cursor.at += token.length;
      break;
    }
  }
  const line = text.slice(cursor.at, cursor.at + 2);
  if (line !== '--' && line !== '..') {
    throw new LineProblem(`expected a relation (<|--, *--, o--, -->, --, ..>, ..|>, .., or ": member") at "${text.slice(start, start + 30)}"`);
  }
  cursor.at += 2;
  let endCap: Cap = 'none';
  for (const [token, cap] of RIGHT_CAPS) {
    if (cursor.startsWith(token) && (token !== 'o' || !/[\p{L}\p{N}_]/u.test(text[cursor.at + 1] ?? ''))) {
      endCap = cap;
      cursor.at += token.length;
      break;
    }
  }
  if (text[cursor.at] === '-' || text[cursor.at] === '.') throw new LineProblem(`"${text.slice(start, cursor.at + 1)}" is not a relation: write <|--, *--, o--, -->, --, ..>, ..|> or ..`);
  return { startCap, endCap, dashed: line === '..' };
}

