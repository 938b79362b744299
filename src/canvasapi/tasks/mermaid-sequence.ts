/**
 * A reader of Mermaid sequenceDiagram text, for CreateDiagram (draw-sequence.ts draws it). Line
 * by line, no backtracking pattern on caller text (indexOf scans and anchored tests), linear in
 * the text (MERMAID_CHARS caps it).
 *
 * Read and drawn: participants and actors (`participant A as Alice`, `actor B`, `create
 * participant`, and those a message names first), messages (->, -->, ->>, -->>, <<->>, <<-->>,
 * -x, --x, -), --)), self-messages, `autonumber` (start, step, off), notes (left of, right of,
 * over one or two), blocks (loop, alt/else, opt, par/and, critical/option, break, rect), `box`,
 * activations (activate, deactivate, +/- on a message). Read, not drawn (listed by line): destroy,
 * title and accessibility lines, links, colours of boxes given by name. Anything else is refused
 * by line.
 */
import { DIAGRAM_LIMITS } from '../task-vocabulary.js';
import { MermaidError } from './mermaid.js';
import { FrontMatter, LineProblem, MAX_PROBLEMS } from './mermaid-cursor.js';

export interface SeqParticipant {
  id: string;
  label: string;
  actor: boolean;
  /** The platform shape its `@{ "type": ... }` names (a database is a cylinder). */
  shape?: string;
  line: number;
  /** The `box` it was declared in, by index. */
  box?: number;
}

export interface SeqArrow {
  stroke: 'solid' | 'dotted';
  /** The end's mark: an arrowhead (->>), none (->), a cross (-x), an open async arrow (-)). */
  head: 'arrow' | 'none' | 'cross' | 'open';
  /** <<->>: arrowheads at both ends. */
  both: boolean;
}

export type SeqEvent =
  | { kind: 'message'; from: string; to: string; text: string; arrow: SeqArrow; line: number; index: number }
  | { kind: 'note'; side: 'left' | 'right' | 'over'; actors: string[]; text: string; line: number; index: number }
  /** A block's first section opens (loop, alt, ...), a next one (else, and, option) starts, or the block ends. */
  | { kind: 'open'; block: number; section: number }
  | { kind: 'next'; block: number; section: number }
  | { kind: 'end'; block: number }
  /** A participant's activation starts or ends (at the message before it, if on its line). */
  | { kind: 'activate'; who: string; line: number }
  | { kind: 'deactivate'; who: string; line: number };

export interface SeqSection {
  /** `loop: Every minute`, `else: is well`. */
  label: string;
  line: number;
  /** rect rgb(...): its fill. */
  color?: string;
}

export interface SeqBlock {
  keyword: string;
  sections: SeqSection[];
  depth: number;
}

export interface SeqBox {
  label: string;
  line: number;
  color?: string;
  members: string[];
}

export interface SequenceDiagram {
  participants: SeqParticipant[];
  events: SeqEvent[];
  messages: number;
  notes: number;
  blocks: SeqBlock[];
  boxes: SeqBox[];
  ignored: string[];
}

const BLOCK_OPENERS = new Set(['loop', 'alt', 'opt', 'par', 'critical', 'break', 'rect']);
/** The section keywords each block allows. */
const NEXT_SECTION: Record<string, string> = { alt: 'else', par: 'and', critical: 'option' };
/** Arrows, longest first (each is tried at the first "-" or "<<" of the statement). */
const ARROWS: readonly [string, SeqArrow][] = [
  ['<<-->>', { stroke: 'dotted', head: 'arrow', both: true }],
  ['<<->>', { stroke: 'solid', head: 'arrow', both: true }],
  ['-->>', { stroke: 'dotted', head: 'arrow', both: false }],
  ['->>', { stroke: 'solid', head: 'arrow', both: false }],
  ['--x', { stroke: 'dotted', head: 'cross', both: false }],
  ['-x', { stroke: 'solid', head: 'cross', both: false }],
  ['--)', { stroke: 'dotted', head: 'open', both: false }],
  ['-)', { stroke: 'solid', head: 'open', both: false }],
  ['-->', { stroke: 'dotted', head: 'none', both: false }],
  ['->', { stroke: 'solid', head: 'none', both: false }],
];
/** What is read but not drawn, grouped: each group's lines are listed once. */
const IGNORED_GROUPS = {
  destroy: 'destroy is not drawn (the participant keeps its lifeline)',
  create: 'create participant/actor is drawn with the others at the top',
  title: 'title and accessibility lines are not drawn',
  links: 'participant links and properties are not drawn',
  autonumberOff: '"autonumber off" stops the numbering',
} as const;


export const isSequenceHeader = (keyword: string) => keyword === 'sequenceDiagram';

export function parseSequence(source: string): SequenceDiagram {
  const reader = new SequenceReader();
  const lines = source.split(/\r?\n/);
  let header = false;
  const frontMatter = new FrontMatter();
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const text = raw.trim();
    if (!text || text.startsWith('%%') || reader.problems.length >= MAX_PROBLEMS) continue;
    if (frontMatter.skips(text, line, header, reader.ignored)) continue;
    if (!header) {
      header = true;
      if (text !== 'sequenceDiagram') reader.problems.push(`line ${line}: the first line must be "sequenceDiagram" alone`);
      continue;
    }
    try {
      reader.statement(text.replace(/;$/, '').trim(), line);
    } catch (error) {
      if (!(error instanceof LineProblem)) throw error;
      reader.problems.push(`line ${line}: ${error.message}`);
    }
  }
  return reader.finish();
}

class SequenceReader {
  readonly participants = new Map<string, SeqParticipant>();
  readonly events: SeqEvent[] = [];
  readonly blocks: SeqBlock[] = [];
  readonly boxes: SeqBox[] = [];
  readonly ignored: string[] = [];
  readonly problems: string[] = [];
  private readonly grouped = new Map<keyof typeof IGNORED_GROUPS, number[]>();
  private readonly open: number[] = [];
  private openBox: number | undefined;
  private messages = 0;
  private notes = 0;
  private number: { next: number; step: number } | undefined;
  /** Shapes the drawing will need (draw-sequence.ts): refused as soon as there are too many. */
  private shapes = 0;

  private shape(count: number): void {
    this.shapes += count;
    if (this.shapes > DIAGRAM_LIMITS.nodes) throw new LineProblem(`more than ${DIAGRAM_LIMITS.nodes} shapes (each participant and its lifeline, each note, block section, box, activation and self-message)`);
  }

  statement(text: string, line: number): void {
    const keyword = text.slice(0, text.search(/[ \t:]|$/));
    switch (keyword) {
      case 'participant':
      case 'actor':
        return this.declare(keyword, text.slice(keyword.length).trim(), line);
      case 'create': {
        const rest = text.slice(6).trim();
        const kind = rest.startsWith('actor') ? 'actor' : rest.startsWith('participant') ? 'participant' : undefined;
        if (!kind) throw new LineProblem('"create" is followed by participant or actor');
        this.group('create', line);
        return this.declare(kind, rest.slice(kind.length).trim(), line);
      }
      case 'destroy':
        return this.group('destroy', line);
      case 'activate':
      case 'deactivate': {
        const who = text.slice(keyword.length).trim();
        if (!who) throw new LineProblem(`${keyword} names a participant`);
        this.add(who, who, false, line, false);
        return this.activation(keyword, who, line);
      }
      case 'autonumber':
        return this.autonumber(text.slice(10).trim(), line);
      case 'title':
      case 'accTitle':
      case 'accDescr':
        return this.group('title', line);
      case 'link':
      case 'links':
      case 'properties':
      case 'details':
        return this.group('links', line);
      case 'box':
        return this.startBox(text.slice(3).trim(), line);
      case 'end':
        return this.end();
      case 'Note':
      case 'note':
        return this.note(text.slice(4).trim(), line);
    }
    if (BLOCK_OPENERS.has(keyword)) return this.openBlock(keyword, text.slice(keyword.length).trim(), line);
    if (['else', 'and', 'option'].includes(keyword)) return this.nextSection(keyword, text.slice(keyword.length).trim(), line);
    this.message(text, line);
  }

  private group(key: keyof typeof IGNORED_GROUPS, line: number): void {
    const lines = this.grouped.get(key) ?? [];
    lines.push(line);
    this.grouped.set(key, lines);
  }

  private declare(kind: 'participant' | 'actor', rest: string, line: number): void {
    if (!rest) throw new LineProblem(`${kind} needs a name`);
    if (rest.includes('@{')) return this.declareTyped(kind, rest, line);
    const as = rest.search(/[ \t]as[ \t]/);
    const id = (as < 0 ? rest : rest.slice(0, as)).trim();
    const label = as < 0 ? id : rest.slice(as + 4).trim();
    this.add(id, label, kind === 'actor', line, true);
  }

  /** `participant D@{ "type": "database", "alias": "Orders DB" }`: its shape and label. */
  private declareTyped(kind: 'participant' | 'actor', rest: string, line: number): void {
    const at = rest.indexOf('@{');
    const id = rest.slice(0, at).trim();
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(rest.slice(at + 1)) as Record<string, unknown>;
    } catch {
      throw new LineProblem(`the ${kind}'s "@{ ... }" is not read: write it as JSON, e.g. ${kind} ${id.slice(0, 30)}@{ "type": "database" }`);
    }
    const type = typeof fields?.type === 'string' ? fields.type : undefined;
    this.add(id, typeof fields?.alias === 'string' ? fields.alias : id, kind === 'actor', line, true);
    const shape = type === undefined ? undefined : TYPED_SHAPES[type];
    if (shape) this.participants.get(id)!.shape = shape;
    const others = Object.keys(fields ?? {}).filter((key) => key !== 'type' && key !== 'alias');
    if ((type !== undefined && !shape) || others.length) this.ignored.push(`line ${line}: ${type !== undefined && !shape ? `the type "${type.slice(0, 30)}" is drawn as a ${kind === 'actor' ? 'ellipse' : 'rectangle'}` : ''}${type !== undefined && !shape && others.length ? '; ' : ''}${others.length ? `${others.slice(0, 5).join(', ')} not drawn` : ''}`);
  }

  /** A participant, declared or first named by a message or note. */
  private add(id: string, label: string, actor: boolean, line: number, declared: boolean): void {
    if (!id || /[:,;]/.test(id)) throw new LineProblem(`"${id.slice(0, 30)}" is not a participant name`);
    if (id.length > DIAGRAM_LIMITS.nodeIdChars) throw new LineProblem(`the participant name "${id.slice(0, 30)}..." is longer than ${DIAGRAM_LIMITS.nodeIdChars} characters`);
    const known = this.participants.get(id);
    if (known) {
      if (declared && label !== id) known.label = textOf(label);
      return;
    }
    this.shape(2);
    this.participants.set(id, { id, label: textOf(label), actor, line, ...(this.openBox !== undefined && declared ? { box: this.openBox } : {}) });
    if (this.openBox !== undefined && declared) this.boxes[this.openBox]!.members.push(id);
  }

  private autonumber(rest: string, line: number): void {
    if (rest === 'off') {
      this.number = undefined;
      return this.group('autonumberOff', line);
    }
    const [start = '1', step = '1', ...more] = rest ? rest.split(/[ \t]+/) : [];
    if (more.length || !/^\d{1,6}$/.test(start) || !/^\d{1,6}$/.test(step)) throw new LineProblem('autonumber takes at most a start and a step, whole numbers: "autonumber", "autonumber 10 5" or "autonumber off"');
    this.number = { next: Number(start), step: Number(step) };
  }

  private startBox(rest: string, line: number): void {
    if (this.openBox !== undefined || this.open.length) throw new LineProblem('a box cannot be inside a box or a block');
    // `box Aqua Group name`, `box rgb(33,66,99) name`, `box transparent name`, `box name`.
    const colour = readColour(rest);
    const label = colour ? rest.slice(colour.length).trim() : rest;
    const color = colour ? hexOf(colour) : undefined;
    if (colour && !color) this.ignored.push(`line ${line}: the box colour "${colour.slice(0, 30)}" is not drawn (write rgb(r, g, b) for one that is)`);
    this.shape(1);
    this.boxes.push({ label: textOf(label), line, ...(color ? { color } : {}), members: [] });
    this.openBox = this.boxes.length - 1;
  }

  private openBlock(keyword: string, rest: string, line: number): void {
    if (this.openBox !== undefined) throw new LineProblem(`a ${keyword} block cannot be inside a box (a box only groups participants)`);
    const section: SeqSection = { label: rest ? `${keyword}: ${textOf(rest)}` : keyword, line };
    if (keyword === 'rect') {
      const color = hexOf(rest);
      if (!color) throw new LineProblem('rect takes a colour: rect rgb(200, 150, 255) or rect rgba(0, 0, 255, .1)');
      section.label = '';
      section.color = color;
    }
    this.shape(1);
    this.blocks.push({ keyword, sections: [section], depth: this.open.length });
    this.open.push(this.blocks.length - 1);
    this.events.push({ kind: 'open', block: this.blocks.length - 1, section: 0 });
  }

  private nextSection(keyword: string, rest: string, line: number): void {
    const block = this.open[this.open.length - 1];
    const opener = block === undefined ? undefined : this.blocks[block]!.keyword;
    if (block === undefined || NEXT_SECTION[opener!] !== keyword) {
      const allowed = Object.entries(NEXT_SECTION).map(([open, next]) => `${next} inside ${open}`).join(', ');
      throw new LineProblem(`"${keyword}" is not inside a block it belongs to (${allowed})`);
    }
    this.shape(1);
    const sections = this.blocks[block]!.sections;
    sections.push({ label: rest ? `${keyword}: ${textOf(rest)}` : keyword, line });
    this.events.push({ kind: 'next', block, section: sections.length - 1 });
  }

  private end(): void {
    const block = this.open.pop();
    if (block !== undefined) {
      this.events.push({ kind: 'end', block });
      return;
    }
    if (this.openBox === undefined) throw new LineProblem('"end" closes no block or box');
    this.openBox = undefined;
  }

  private note(rest: string, line: number): void {
    const colon = rest.indexOf(':');
    if (colon < 0) throw new LineProblem('a note is "Note right of A: text", "Note left of A: text" or "Note over A,B: text"');
    const where = rest.slice(0, colon).trim();
    const side = where.startsWith('right of') ? 'right' : where.startsWith('left of') ? 'left' : where.startsWith('over') ? 'over' : undefined;
    if (!side) throw new LineProblem(`a note is placed "right of", "left of" or "over" a participant, not "${where.slice(0, 30)}"`);
    const actors = where.slice(side === 'over' ? 4 : side.length + 3).split(',').map((name) => name.trim());
    if (actors.length > (side === 'over' ? 2 : 1) || actors.some((name) => !name)) throw new LineProblem(side === 'over' ? 'a note is over one or two participants: "Note over A,B: text"' : `a note ${side} of one participant: "Note ${side} of A: text"`);
    for (const name of actors) this.add(name, name, false, line, false);
    this.shape(1);
    this.events.push({ kind: 'note', side, actors, text: textOf(rest.slice(colon + 1).trim()), line, index: this.notes++ });
  }

  private message(text: string, line: number): void {
    let at = -1;
    let arrow: [string, SeqArrow] | undefined;
    for (let i = text.indexOf('-'); i >= 0 && !arrow; i = text.indexOf('-', i + 1)) {
      const start = i >= 2 && text.startsWith('<<', i - 2) ? i - 2 : i;
      arrow = ARROWS.find(([token]) => text.startsWith(token, start));
      at = start;
    }
    if (!arrow || at <= 0) throw new LineProblem(`"${text.slice(0, 40)}" is not a statement of a sequence diagram: a message is "A->>B: text" (arrows ->, -->, ->>, -->>, -x, --x, -), --), <<->>)`);
    const from = text.slice(0, at).trim();
    let rest = text.slice(at + arrow[0].length).trim();
    const change = rest.startsWith('+') ? 'activate' : rest.startsWith('-') ? 'deactivate' : undefined;
    if (change) rest = rest.slice(1).trim();
    const colon = rest.indexOf(':');
    const to = (colon < 0 ? rest : rest.slice(0, colon)).trim();
    if (!to) throw new LineProblem('the message names no participant after its arrow');
    this.add(from, from, false, line, false);
    this.add(to, to, false, line, false);
    let label = colon < 0 ? '' : textOf(rest.slice(colon + 1).trim());
    if (this.number) {
      label = label ? `${this.number.next}. ${label}` : String(this.number.next);
      this.number.next += this.number.step;
    }
    if (this.messages >= DIAGRAM_LIMITS.edges) throw new LineProblem(`more than ${DIAGRAM_LIMITS.edges} messages`);
    if (from === to) this.shape(1);
    this.events.push({ kind: 'message', from, to, text: label, arrow: arrow[1], line, index: this.messages++ });
    // `A->>+B` activates the receiver; `B-->>-A` ends the sender's activation.
    if (change) this.activation(change, change === 'activate' ? to : from, line);
  }

  private readonly active = new Map<string, number>();

  private activation(kind: 'activate' | 'deactivate', who: string, line: number): void {
    const depth = this.active.get(who) ?? 0;
    if (kind === 'deactivate' && depth === 0) throw new LineProblem(`${who.slice(0, 50)} is not active: nothing to deactivate`);
    if (kind === 'activate') this.shape(1);
    this.active.set(who, depth + (kind === 'activate' ? 1 : -1));
    this.events.push(kind === 'activate' ? { kind, who, line } : { kind, who, line });
  }

  finish(): SequenceDiagram {
    if (!this.problems.length) {
      if (this.openBox !== undefined) this.problems.push(`line ${this.boxes[this.openBox]!.line}: the box has no "end"`);
      for (const block of this.open) this.problems.push(`line ${this.blocks[block]!.sections[0]!.line}: the ${this.blocks[block]!.keyword} block has no "end"`);
      if (!this.participants.size) this.problems.push('the sequence diagram has no participants or messages');
    }
    if (this.problems.length) throw new MermaidError(this.problems.slice(0, MAX_PROBLEMS));
    for (const [key, lines] of this.grouped) {
      this.ignored.push(`line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 10).join(', ')}${lines.length > 10 ? ` and ${lines.length - 10} more` : ''}: ${IGNORED_GROUPS[key]}`);
    }
    for (const box of this.boxes) if (!box.members.length) this.ignored.push(`line ${box.line}: the box declares no participants and is not drawn`);
    return { participants: [...this.participants.values()], events: this.events, messages: this.messages, notes: this.notes, blocks: this.blocks, boxes: this.boxes.filter((box) => box.members.length), ignored: this.ignored };
  }
}

/** A label as drawn: `<br>` as a line break, `#59;` and the like as their character. */
export function textOf(text: string): string {
  // Each pattern starts at a fixed character ("<", "#"): linear on any text.
  return text
    .replace(/<br[ \t]*\/?>/gi, '\n')
    .split('\n')
    .map((part) => part.trim())
    .join('\n')
    .replace(/#(\d{1,7});/g, (whole, code: string) => (Number(code) <= 0x10ffff ? String.fromCodePoint(Number(code)) : whole));
}

/** The colour word that starts a box's text, if any: rgb(...), rgba(...), or a single word followed by more text. */
function readColour(rest: string): string | undefined {
  if (rest.startsWith('rgb(') || rest.startsWith('rgba(')) {
    const close = rest.indexOf(')');
    return close < 0 ? undefined : rest.slice(0, close + 1);
  }
  const word = rest.slice(0, rest.search(/[ \t]|$/));
  return rest.length > word.length && NAMED_COLOURS.has(word.toLowerCase()) ? word : undefined;
}

/** Participant types (`@{ "type": ... }`) the platform has a shape for. */
const TYPED_SHAPES: Record<string, string> = { database: 'can', queue: 'can', entity: 'circle', boundary: 'round_rectangle', control: 'circle', collections: 'rectangle' };

const NAMED_COLOURS = new Set(['transparent', 'aqua', 'purple', 'red', 'green', 'blue', 'yellow', 'orange', 'grey', 'gray', 'pink', 'white', 'black', 'lightblue', 'lightgreen', 'lightyellow', 'lightgrey', 'lightgray']);

/** rgb(r, g, b) or rgba(r, g, b, a) as #rrggbb; anything else undefined. */
export function hexOf(colour: string): string | undefined {
  const inner = /^rgba?\(([^()]*)\)$/.exec(colour.trim())?.[1];
  if (inner === undefined) return undefined;
  const parts = inner.split(',').map((part) => part.trim());
  if (parts.length < 3 || parts.length > 4) return undefined;
  const rgb = parts.slice(0, 3).map(Number);
  if (rgb.some((value) => !Number.isInteger(value) || value < 0 || value > 255)) return undefined;
  return `#${rgb.map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}
