/**
 * Class and ER diagrams as CreateDiagram draws them: each class or entity one rectangle whose
 * text is its name (bold) then its fields, one a line, sized to its lines; each relation a
 * connector with the caps of its kind, dashed where Mermaid dashes, its label as the middle
 * caption and its cardinalities as captions near their ends; namespaces as frames. The readers
 * are mermaid-class.ts and mermaid-er.ts; the plan is made in diagram-plan.ts.
 */
import { escapeHtml } from '../../core/html.js';
import { DIAGRAM_LIMITS } from '../task-vocabulary.js';
import { textWidthEm } from './board-picture.js';
import type { MermaidDirection } from './mermaid.js';
import { parseClassDiagram } from './mermaid-class.js';
import { parseErDiagram } from './mermaid-er.js';
import { mermaidKeyword } from './mermaid-cursor.js';
import { BOX_FIELDS, type BoxLine, type StructureBox, type StructureDiagram } from './mermaid-structure.js';

/** The box's font size (sent, so the sizes below hold), the room around its text, its size bounds. */
const FONT = 14;
const LINE_HEIGHT = 1.5;
const PAD = { x: 24, y: 16 };
const WIDTH = { min: 160, max: 560 };
const MIN_HEIGHT = 60;
/** Bold text is wider than the regular advances measure. */
const BOLD = 1.1;
/** Where a cardinality sits along its connector, from its start. */
const NEAR_START = '12%';
const NEAR_END = '88%';

export interface BoxNode {
  id: string;
  /** Its lines as plain text, one a line (the view's text, and what the checks count). */
  text: string;
  /** The content as sent: HTML, the name bold. */
  html: string;
  shape: 'rectangle';
  size: { width: number; height: number };
  color?: string;
  frame?: number;
  line: number;
}

export interface BoxEdge {
  from: string;
  to: string;
  label?: string;
  stroke: 'normal' | 'dotted';
  caps: { start: string; end: string };
  endLabels?: { start?: string; end?: string };
  line: number;
}

export interface BoxesPlanParts {
  kind: 'class' | 'er';
  nodes: BoxNode[];
  edges: BoxEdge[];
  layout: MermaidDirection;
  frames: { title: string; key: string }[];
  notes: string[];
}

/** The diagram's kind from its first line (front matter and comments skipped): a class or ER diagram, or undefined (read as a flowchart). */
export function boxesKind(text: string): 'class' | 'er' | undefined {
  const keyword = mermaidKeyword(text);
  return keyword === 'classDiagram' || keyword === 'classDiagram-v2' ? 'class' : keyword === 'erDiagram' ? 'er' : undefined;
}

/** The diagram read (MermaidError with each `line N: ...` problem) and made into boxes and connectors. */
export function boxesPlanParts(text: string, kind: 'class' | 'er'): BoxesPlanParts {
  const diagram = kind === 'class' ? parseClassDiagram(text) : parseErDiagram(text);
  const notes = [...diagram.ignored];
  const nodes = diagram.boxes.map((box) => boxNode(box, diagram, notes));
  const edges: BoxEdge[] = diagram.relations.map((r) => ({
    from: r.from,
    to: r.to,
    ...(r.label ? { label: r.label } : {}),
    stroke: r.dashed ? 'dotted' : 'normal',
    caps: { start: r.startCap, end: r.endCap },
    ...(r.startLabel || r.endLabel ? { endLabels: { ...(r.startLabel ? { start: r.startLabel } : {}), ...(r.endLabel ? { end: r.endLabel } : {}) } } : {}),
    line: r.line,
  }));
  return { kind, nodes, edges, layout: diagram.direction, frames: diagram.groups.map((g) => ({ title: g.key, key: g.key })), notes };
}

/** One box: its lines (annotations, the name, fields, methods), the first BOX_FIELDS fields within the text bound, sized to fit. */
function boxNode(box: StructureBox, diagram: StructureDiagram, notes: string[]): BoxNode {
  const head: { plain: string; html: string; bold?: boolean }[] = [
    ...box.annotations.map((a) => ({ plain: `«${a}»`, html: `<p>${escapeHtml(`«${a}»`)}</p>` })),
    { plain: box.title, html: `<p><strong>${escapeHtml(box.title)}</strong></p>`, bold: true },
  ];
  const all = [...box.fields, ...box.methods];
  const lines = [...head];
  let sent = head.reduce((sum, l) => sum + l.html.length, 0);
  let kept = 0;
  // A last line counts the fields left out: room is kept for it.
  const room = DIAGRAM_LIMITS.textChars - 40;
  for (const field of all) {
    const line = fieldLine(field);
    if (kept >= BOX_FIELDS || sent + line.html.length > room) break;
    lines.push(line);
    sent += line.html.length;
    kept++;
  }
  if (kept < all.length) {
    const more = `… ${all.length - kept} more`;
    lines.push({ plain: more, html: `<p>${escapeHtml(more)}</p>` });
    notes.push(`line ${box.line}: ${diagram.kind === 'class' ? 'class' : 'entity'} ${box.id.slice(0, 50)} shows its first ${kept} of ${all.length} ${diagram.kind === 'class' ? 'members' : 'attributes'} (at most ${BOX_FIELDS} a box)`);
  }
  return {
    id: box.id,
    text: lines.map((l) => l.plain).join('\n'),
    html: lines.map((l) => l.html).join(''),
    shape: 'rectangle',
    size: boxSize(lines),
    ...(box.color ? { color: box.color } : {}),
    ...(box.group !== undefined ? { frame: box.group } : {}),
    line: box.line,
  };
}

/** A field's line: static underlined, abstract italic (as UML and Mermaid show them); an ER comment after a dash, in italics. */
function fieldLine(field: BoxLine): { plain: string; html: string } {
  const text = escapeHtml(field.text);
  const styled = field.style === 'static' ? `<u>${text}</u>` : field.style === 'abstract' ? `<em>${text}</em>` : text;
  if (field.comment === undefined) return { plain: field.text, html: `<p>${styled}</p>` };
  return { plain: `${field.text} — ${field.comment}`, html: `<p>${styled} — <em>${escapeHtml(field.comment)}</em></p>` };
}

/**
 * Wide enough for its longest line (measured with DejaVu Sans's advances, wider than the board's
 * Arial), within WIDTH; a line wider than the most wraps and counts as the lines it takes; tall
 * enough for all its lines.
 */
function boxSize(lines: { plain: string; bold?: boolean }[]): { width: number; height: number } {
  const widths = lines.map((l) => textWidthEm(l.plain) * FONT * (l.bold ? BOLD : 1));
  const width = Math.min(WIDTH.max, Math.max(WIDTH.min, Math.ceil(Math.max(...widths) + 2 * PAD.x)));
  const inner = width - 2 * PAD.x;
  const rows = widths.reduce((sum, w) => sum + Math.max(1, Math.ceil(w / inner)), 0);
  const height = Math.max(MIN_HEIGHT, Math.ceil(rows * FONT * LINE_HEIGHT + 2 * PAD.y));
  return { width: roundUp(width), height: roundUp(height) };
}

const roundUp = (n: number) => Math.ceil(n / 10) * 10;

type Side = 'top' | 'bottom' | 'left' | 'right';
interface Laid { x: number; y: number; width: number; height: number }
/** Where a connector meets its box, in the platform's relative terms (0% top or left, 100% bottom or right). */
export interface EndPoint { x: string; y: string }

/**
 * Where each relation meets its two boxes, once they are laid out: on the side facing the other
 * box (across the flow when both share a rank), the ends on one side spread evenly along it in the
 * order of the boxes they lead to, so that caps and cardinalities never sit on top of each other
 * (snapping to a side would join them all at its middle). Each end's position, by edge index.
 */
export function spreadEnds(edges: readonly { from: string; to: string }[], at: ReadonlyMap<string, Laid>, direction: MermaidDirection): { start: EndPoint; end: EndPoint }[] {
  const vertical = direction === 'TB' || direction === 'BT';
  const sideOf = (self: Laid, other: Laid): Side => {
    const apart = vertical ? Math.abs(other.y - self.y) * 2 >= self.height + other.height : Math.abs(other.x - self.x) * 2 >= self.width + other.width;
    const byY = vertical === apart;
    return byY ? (other.y >= self.y ? 'bottom' : 'top') : other.x >= self.x ? 'right' : 'left';
  };
  // Each side's ends: [edge index, which end, where along the side the other box is].
  const sides = new Map<string, [number, 'start' | 'end', number][]>();
  edges.forEach((edge, index) => {
    const from = at.get(edge.from);
    const to = at.get(edge.to);
    if (!from || !to) return;
    for (const [which, self, other, id] of [['start', from, to, edge.from], ['end', to, from, edge.to]] as const) {
      const side = sideOf(self, other);
      const key = `${id}\u0000${side}`;
      const list = sides.get(key) ?? [];
      list.push([index, which, side === 'top' || side === 'bottom' ? other.x : other.y]);
      sides.set(key, list);
    }
  });
  const ends: { start: EndPoint; end: EndPoint }[] = edges.map(() => ({ start: { x: '50%', y: '50%' }, end: { x: '50%', y: '50%' } }));
  for (const [key, list] of sides) {
    const side = key.slice(key.indexOf('\u0000') + 1) as Side;
    list.sort((a, b) => a[2] - b[2] || a[0] - b[0]);
    list.forEach(([index, which], k) => {
      const along = `${Math.round((1000 * (k + 1)) / (list.length + 1)) / 10}%`;
      ends[index]![which] = side === 'top' ? { x: along, y: '0%' } : side === 'bottom' ? { x: along, y: '100%' } : side === 'left' ? { x: '0%', y: along } : { x: '100%', y: along };
    });
  }
  return ends;
}

export { NEAR_START, NEAR_END, FONT as BOX_FONT };
