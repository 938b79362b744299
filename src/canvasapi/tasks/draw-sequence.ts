/**
 * A Mermaid sequence diagram drawn on a board (CreateDiagram with `sequenceDiagram` text): the
 * participants as shapes in a row, in order of appearance (actors as ellipses); under each a
 * lifeline (a thin tall rectangle); each message a straight connector between two lifelines,
 * attached at its height (the ends' relative `position`), top to bottom in order, its stroke and
 * arrowheads by its arrow; a self-message loops to a small box beside its lifeline; notes are
 * yellow rectangles beside or over their lifelines at their place in the order; each section of a
 * block (loop, alt/else, ...) a dashed labelled rectangle behind its messages, a `box` one behind
 * its participants. The layout is arithmetic (linear); the drawing is CreateDiagram's
 * (drawLaidOut): placed clear of the board's items, the shapes in bulk transactions of 20, then
 * the connectors, and the same per-item report.
 */
import { ToolError, type InputIssue } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { DIAGRAM_LIMITS } from '../task-vocabulary.js';
import { drawLaidOut, type FrameBox, type Placed, type ReportWording } from './create-diagram.js';
import { CAPTION_CHARS, type CreateDiagramArgs, type Plan, type PlanEdge, type PlanNode } from './diagram-plan.js';
import { MermaidError } from './mermaid.js';
import { parseSequence, type SeqArrow, type SequenceDiagram } from './mermaid-sequence.js';

type Json = Record<string, unknown>;

const HEAD = { width: 200, height: 70 };
const LIFELINE_WIDTH = 8;
const ACTIVATION_WIDTH = 14;
const ROW = 60;
const SELF = { width: 16, height: 36, row: 90 };
const NOTE_WIDTH = 180;
const SECTION_HEADER = 36;
const SECTION_END = 16;
/** Room between a block's contents and its edge. */
const BLOCK_PAD = 24;
const FRAME_PADDING = 80;

const STYLES = {
  participant: { fillColor: '#eceeff', borderColor: '#9370db' },
  lifeline: { fillColor: '#9e9e9e', borderColor: '#9e9e9e', borderWidth: '1' },
  note: { fillColor: '#fff9b1', borderColor: '#aaaa33' },
  self: { fillColor: '#f5f6f8', borderColor: '#666666', borderWidth: '1' },
  activation: { fillColor: '#f5f6f8', borderColor: '#666666', borderWidth: '1' },
  section: { fillColor: '#ffffff', fillOpacity: '0', borderStyle: 'dashed', borderColor: '#555555', textAlign: 'left', textAlignVertical: 'top' },
  box: { fillOpacity: '0.35', borderColor: '#bbbbbb', textAlignVertical: 'top' },
} as const;

/** A message's end mark on the platform: the board has no cross, so -x ends in a dot. */
const CAPS: Record<SeqArrow['head'], string> = { arrow: 'stealth', none: 'none', cross: 'filled_oval', open: 'arrow' };

const WORDING: ReportWording = {
  summary: (created, total, connectors, edges) => `${created} of ${total} shapes (participants, lifelines, notes, blocks) and ${connectors} of ${edges} messages created`,
  connectors: true,
  nextStep: {
    mayExist: 'Items marked may_exist may be on the board: read it (CanvasApi.ReadBoard with query) before drawing them again. Never draw this whole diagram again: add only what is missing (messages as connectors between the lifelines above, CanvasApi.AddConnectorToBoard).',
    safe: 'Nothing listed as failed or not sent exists: add only those (messages as connectors between the lifelines above, CanvasApi.AddConnectorToBoard), never this whole diagram again.',
  },
};

export async function drawSequence(args: CreateDiagramArgs, text: string, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  let diagram: SequenceDiagram;
  try {
    diagram = parseSequence(text);
  } catch (error) {
    if (error instanceof MermaidError) throw ToolError.invalidInput(error.problems.map((problem) => ({ parameter: 'mermaid', problem })));
    throw error;
  }
  const { plan, laidOut } = sequenceDrawing(diagram, args.frame_title);
  return drawLaidOut(args, plan, laidOut, context, { wording: WORDING });
}

interface Extent {
  left: number;
  right: number;
}

/** The plan and its layout: every shape's box from the drawing's top-left corner, every message's ends. */
export function sequenceDrawing(diagram: SequenceDiagram, frameTitle?: string): { plan: Plan; laidOut: { placed: Placed[]; frameBoxes: FrameBox[]; leftOut: number[] } } {
  const { participants, events } = diagram;
  const column = new Map(participants.map((p, index) => [p.id, index]));
  const gap = columnGap(diagram);
  const xOf = (id: string) => HEAD.width / 2 + column.get(id)! * gap;
  const lifelineTop = HEAD.height;
  const placed: Placed[] = [];
  const edges: PlanEdge[] = [];
  const issues: InputIssue[] = [];
  const put = (node: PlanNode, x: number, y: number, width: number, height: number) => placed.push({ node, x, y, width, height });
  // Rows, top to bottom: each message, note and block header takes its height.
  let y = lifelineTop + 30;
  const messageRows: { index: number; y: number; from: string; to: string; text: string; arrow: SeqArrow; line: number }[] = [];
  const notes: Placed[] = [];
  const sections: { block: number; section: number; top: number; bottom: number }[] = [];
  const extents = new Map<number, Extent>();
  const open: number[] = [];
  const activations = new Activations(xOf);
  const widen = (left: number, right: number) => {
    for (const block of open) {
      const extent = extents.get(block);
      extents.set(block, { left: Math.min(extent?.left ?? left, left), right: Math.max(extent?.right ?? right, right) });
    }
  };
  for (const event of events) {
    if (event.kind === 'message') {
      const self = event.from === event.to;
      messageRows.push({ ...event, y: y + 30 });
      // A self-message's caption sits beside its lifeline: its block holds it.
      const beside = self ? 40 + Math.min(event.text.length, 30) * 4 : 0;
      widen(Math.min(xOf(event.from), xOf(event.to)), Math.max(xOf(event.from), xOf(event.to)) + beside);
      y += self ? SELF.row : ROW;
    } else if (event.kind === 'note') {
      const xs = event.actors.map(xOf);
      const width = event.side === 'over' && xs.length === 2 ? Math.abs(xs[1]! - xs[0]!) + NOTE_WIDTH : NOTE_WIDTH;
      const height = noteHeight(event.text, width);
      const x = event.side === 'right' ? xs[0]! + 20 + width / 2 : event.side === 'left' ? xs[0]! - 20 - width / 2 : (Math.min(...xs) + Math.max(...xs)) / 2;
      const note: Placed = { node: { id: `notes[${event.index}]`, text: event.text, shape: 'rectangle', style: { ...STYLES.note } }, x, y: y + 10 + height / 2, width, height };
      notes.push(note);
      widen(x - width / 2, x + width / 2);
      y += height + 20;
      const issue = tooLong(event.text, DIAGRAM_LIMITS.textChars);
      if (issue) issues.push({ parameter: 'mermaid', problem: `line ${event.line}: the note ${issue}` });
    } else if (event.kind === 'open' || event.kind === 'next') {
      if (event.kind === 'next') sections[sections.length - 1 - [...sections].reverse().findIndex((s) => s.block === event.block)]!.bottom = y;
      else open.push(event.block);
      sections.push({ block: event.block, section: event.section, top: y, bottom: y });
      y += SECTION_HEADER;
    } else if (event.kind === 'activate' || event.kind === 'deactivate') {
      // On a message's line, at that message's height; alone, where the next row starts.
      const last = messageRows[messageRows.length - 1];
      activations.change(event.kind, event.who, event.line, last?.line === event.line ? last.y : y);
    } else {
      [...sections].reverse().find((s) => s.block === event.block)!.bottom = y + 6;
      y += SECTION_END;
      open.pop();
      // The block's edges hold its contents; its parent's hold the block.
      const extent = extents.get(event.block) ?? { left: xOf(participants[0]!.id) - HEAD.width / 2 + BLOCK_PAD, right: xOf(participants[participants.length - 1]!.id) + HEAD.width / 2 - BLOCK_PAD };
      const framed = { left: extent.left - BLOCK_PAD, right: Math.max(extent.right + BLOCK_PAD, extent.left - BLOCK_PAD + 160) };
      extents.set(event.block, framed);
      widen(framed.left, framed.right);
    }
  }
  const bottom = y + 20;
  // Behind everything: the boxes, then the block sections (outer first), then lifelines, heads, notes.
  for (const box of diagram.boxes) {
    const xs = box.members.map(xOf);
    const left = Math.min(...xs) - HEAD.width / 2 - 20;
    const right = Math.max(...xs) + HEAD.width / 2 + 20;
    put({ id: `line ${box.line}`, text: box.label, shape: 'rectangle', style: { ...STYLES.box, fillColor: box.color ?? '#f5f6f8' } }, (left + right) / 2, (bottom - 50) / 2, right - left, bottom + 50);
  }
  const byDepth = [...sections].sort((a, b) => diagram.blocks[a.block]!.depth - diagram.blocks[b.block]!.depth);
  for (const s of byDepth) {
    const block = diagram.blocks[s.block]!;
    const section = block.sections[s.section]!;
    const extent = extents.get(s.block)!;
    const style: Record<string, string> = section.color ? { fillColor: section.color, fillOpacity: '0.35', borderOpacity: '0', textAlign: 'left', textAlignVertical: 'top' } : { ...STYLES.section };
    put({ id: `line ${section.line}`, text: section.label, shape: 'rectangle', style }, (extent.left + extent.right) / 2, (s.top + s.bottom) / 2, extent.right - extent.left, Math.max(s.bottom - s.top, SECTION_HEADER));
    const issue = tooLong(section.label, DIAGRAM_LIMITS.textChars);
    if (issue) issues.push({ parameter: 'mermaid', problem: `line ${section.line}: the block's label ${issue}` });
  }
  const lifelineHeight = bottom - lifelineTop;
  for (const p of participants) {
    put({ id: `lifelines.${p.id}`, text: '', shape: 'rectangle', style: { ...STYLES.lifeline } }, xOf(p.id), lifelineTop + lifelineHeight / 2, LIFELINE_WIDTH, lifelineHeight);
  }
  placed.push(...activations.finish(bottom - 10));
  for (const p of participants) {
    put({ id: `participants.${p.id}`, text: p.label, shape: p.shape ?? (p.actor ? 'circle' : 'rectangle'), style: { ...STYLES.participant } }, xOf(p.id), HEAD.height / 2, HEAD.width, HEAD.height);
    const issue = tooLong(p.label, DIAGRAM_LIMITS.textChars);
    if (issue) issues.push({ parameter: 'mermaid', problem: `line ${p.line}: the participant's label ${issue}` });
  }
  placed.push(...notes);
  const at = (rowY: number) => ({ x: '50%', y: `${(((rowY - lifelineTop) / lifelineHeight) * 100).toFixed(2)}%` });
  for (const m of messageRows) {
    const style = { strokeStyle: m.arrow.stroke === 'dotted' ? 'dashed' : 'normal', endStrokeCap: CAPS[m.arrow.head], startStrokeCap: m.arrow.both ? 'stealth' : 'none' };
    const edge: PlanEdge = { from: `lifelines.${m.from}`, to: `lifelines.${m.to}`, ...(m.text ? { label: m.text } : {}), draw: { start: { position: at(m.y) }, end: { position: at(m.y) }, shape: 'straight', style } };
    if (m.from === m.to) {
      // The platform joins two different items: a self-message loops to a small box beside its lifeline.
      const id = `messages[${m.index}].self`;
      put({ id, text: '', shape: 'rectangle', style: { ...STYLES.self } }, xOf(m.from) + LIFELINE_WIDTH / 2 + 4 + SELF.width / 2, m.y + 8 + SELF.height / 2, SELF.width, SELF.height);
      Object.assign(edge, { to: id, draw: { ...edge.draw, end: { snapTo: 'right' }, shape: 'elbowed' } });
    }
    edges.push(edge);
    const issue = m.text ? tooLong(m.text, CAPTION_CHARS) : undefined;
    if (issue) issues.push({ parameter: 'mermaid', problem: `line ${m.line}: the message's text ${issue}` });
  }
  if (placed.length > DIAGRAM_LIMITS.nodes) {
    issues.push({ parameter: 'mermaid', problem: `draws ${placed.length} shapes (each participant and its lifeline, each note, block section, box, activation and self-message); at most ${DIAGRAM_LIMITS.nodes}` });
  }
  if (issues.length) throw ToolError.invalidInput(issues.slice(0, 10));
  return framedDrawing(placed, edges, diagram.ignored, frameTitle);
}

/** Activation bars: a narrow box on the lifeline from where it starts to where it ends (nested ones a little to the right). */
class Activations {
  private readonly placed: Placed[] = [];
  private readonly open = new Map<string, { y: number; line: number }[]>();
  constructor(private readonly xOf: (id: string) => number) {}

  change(kind: 'activate' | 'deactivate', who: string, line: number, y: number): void {
    const stack = this.open.get(who) ?? [];
    this.open.set(who, stack);
    if (kind === 'activate') stack.push({ y, line });
    else this.close(who, stack.length - 1, stack.pop()!, y);
  }

  /** The bars, those never deactivated down to `bottom`. */
  finish(bottom: number): Placed[] {
    for (const [who, stack] of this.open) stack.forEach((start, depth) => this.close(who, depth, start, bottom));
    return this.placed;
  }

  private close(who: string, depth: number, start: { y: number; line: number }, end: number): void {
    const height = Math.max(end - start.y, 20);
    this.placed.push({ node: { id: `line ${start.line}`, text: '', shape: 'rectangle', style: { ...STYLES.activation } }, x: this.xOf(who) + depth * 5, y: start.y + height / 2, width: ACTIVATION_WIDTH, height });
  }
}

/** Everything moved so the drawing's top-left corner is 0,0, in a frame_title frame when given. */
function framedDrawing(placed: Placed[], edges: PlanEdge[], ignored: string[], frameTitle: string | undefined): { plan: Plan; laidOut: { placed: Placed[]; frameBoxes: FrameBox[]; leftOut: number[] } } {
  const padding = frameTitle ? FRAME_PADDING : 0;
  const left = Math.min(...placed.map((p) => p.x - p.width / 2));
  const top = Math.min(...placed.map((p) => p.y - p.height / 2));
  const moved = placed.map((p) => ({ ...p, x: p.x - left + padding, y: p.y - top + padding, node: frameTitle ? { ...p.node, frame: 0 } : p.node }));
  const width = Math.max(...moved.map((p) => p.x + p.width / 2)) + padding;
  const height = Math.max(...moved.map((p) => p.y + p.height / 2)) + padding;
  const plan: Plan = {
    nodes: moved.map((p) => p.node),
    edges,
    layout: 'TB',
    frames: frameTitle ? [{ title: frameTitle }] : [],
    framesAreGroups: false,
    existing: [],
    bare: new Map(),
    notes: ignored,
    source: 'mermaid',
    edgeNoun: 'messages',
  };
  return { plan, laidOut: { placed: moved, frameBoxes: frameTitle ? [{ x: width / 2, y: height / 2, width, height }] : [], leftOut: [] } };
}

/** Room between lifelines: the widest label of a message between neighbours, within bounds. */
function columnGap(diagram: SequenceDiagram): number {
  const column = new Map(diagram.participants.map((p, index) => [p.id, index]));
  let widest = 0;
  for (const event of diagram.events) {
    if (event.kind !== 'message' || event.from === event.to) continue;
    const span = Math.abs(column.get(event.from)! - column.get(event.to)!);
    const longest = Math.max(0, ...event.text.split('\n').map((part) => part.length));
    widest = Math.max(widest, (Math.min(longest, 70) * 7 + 40) / span);
  }
  return Math.round(Math.min(560, Math.max(HEAD.width + 60, widest)));
}

/** A note's height for its text at about 7 px a character, 20 px a line. */
function noteHeight(text: string, width: number): number {
  const perLine = Math.max(1, Math.floor((width - 20) / 7));
  const lines = text.split('\n').reduce((sum, part) => sum + Math.max(1, Math.ceil(part.length / perLine)), 0);
  return Math.max(50, 20 + 20 * Math.min(lines, 60));
}

function tooLong(text: string, limit: number): string | undefined {
  const sent = escapeHtml(text).length;
  return sent <= limit ? undefined : `is ${sent} characters once HTML-escaped (each of & < > " ' counts 5), more than the ${limit} allowed`;
}
