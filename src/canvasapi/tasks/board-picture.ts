/**
 * ViewBoard's picture (issue 33): board items and connectors as the platform returns them →
 * a compact, board-coordinate description (`toPicture*`, main thread) → one SVG string
 * (`boardSvg`, pure and deterministic: same input, same bytes) that board-render.ts rasterises
 * in a worker. Nothing here fetches: images, documents and embeds are labelled placeholders.
 */
import { DEJAVU_ADVANCES, DEJAVU_ADVANCE_FIRST, DEJAVU_AVERAGE_ADVANCE, DEJAVU_COVERAGE } from './dejavu-metrics.js';
import { plainLines, plainText } from './text.js';

type Json = Record<string, unknown>;

// Pure (no node: imports, nothing from core/json.ts): the board view bundles this file for the browser.
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One item to draw, in board coordinates (absolute centre, size). */
export interface PictureItem {
  id: string;
  type: string;
  x: number;
  y: number;
  width: number;
  height: number;
  rotation?: number;
  /** Shape kind (shapes), sticky shape, or undefined. */
  shape?: string;
  /** Plain text; '\n' between the platform's lines. */
  text: string;
  fill?: string;
  border?: string;
  borderWidth?: number;
  textColor?: string;
  fontSize?: number;
  /** The style's text alignment when not the drawing's default (centre, middle). */
  textAlign?: 'left' | 'right';
  textAlignVertical?: 'top' | 'bottom';
  /** The small number drawn on it, when numbered. */
  number?: number;
  /** A mind-map node's parent node: a line joins them when both are drawn. */
  parentNode?: string;
}

export interface PicturePoint {
  x: number;
  y: number;
}

export interface PictureConnector {
  id: string;
  /** Ends in board coordinates, and the side each leaves its item from (for elbows and curves). */
  start: PicturePoint & { side?: Side };
  end: PicturePoint & { side?: Side };
  shape: 'straight' | 'elbowed' | 'curved';
  color: string;
  width: number;
  startCap: string;
  endCap: string;
  /** Drawn dashed (the platform's strokeStyle dashed or dotted). */
  dashed?: boolean;
  caption?: string;
}

type Side = 'left' | 'right' | 'top' | 'bottom';

/** What to draw: the board area shown and the picture's size in pixels. */
export interface PictureInput {
  area: { x0: number; y0: number; x1: number; y1: number };
  widthPx: number;
  heightPx: number;
  items: PictureItem[];
  connectors: PictureConnector[];
}

/** The platform's sticky note colour names (Miro's palette). */
export const STICKY_COLORS: Readonly<Record<string, string>> = {
  gray: '#f5f6f8',
  light_yellow: '#fff9b1',
  yellow: '#f5d128',
  orange: '#ff9d48',
  light_green: '#d5f692',
  green: '#c9df56',
  dark_green: '#93d275',
  cyan: '#67c6c0',
  light_pink: '#ffcee0',
  pink: '#ea94bb',
  violet: '#c6a2d2',
  red: '#f0939d',
  light_blue: '#a6ccf5',
  blue: '#6cd8fa',
  dark_blue: '#9ea9ff',
  black: '#000000',
};

const PLACEHOLDER_FILL = '#e6e6e6';
const PLACEHOLDER_INK = '#555555';
const FRAME_FILL = '#ffffff';
const FRAME_BORDER = '#b3b3b3';
const INK = '#1a1a1a';
const NUMBER_FILL = '#e0218a';

/** A colour the SVG can use: #rgb/#rrggbb, a sticky colour name, or the fallback. */
export function colourOf(value: unknown, fallback: string | undefined): string | undefined {
  if (typeof value !== 'string') return fallback;
  const v = value.trim().toLowerCase();
  if (/^#[0-9a-f]{6}$/.test(v)) return v;
  if (/^#[0-9a-f]{3}$/.test(v)) return `#${v[1]}${v[1]}${v[2]}${v[2]}${v[3]}${v[3]}`;
  if (v === 'transparent') return undefined;
  return STICKY_COLORS[v] ?? fallback;
}

/** The largest number taken from the platform (VIEW_LIMITS.coordinate): sums and differences of board places stay finite. */
export const PICTURE_NUMBER_LIMIT = 1e9;

const num = (value: unknown): number | undefined => {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? Math.max(-PICTURE_NUMBER_LIMIT, Math.min(PICTURE_NUMBER_LIMIT, n)) : undefined;
};

/** Characters of an item's text kept (lines joined by '\n'): more never fits in its box (ViewBoard draws 400, the view gets 300). */
const TEXT_CHARS = 1_000;

/** An HTML text's plain lines (the platform's line breaks kept) joined by '\n', TEXT_CHARS at most (and one to mark a cut). */
export const plainLinesText = (html: unknown): string => plainLines(html, TEXT_CHARS).join('\n');

/** The style's text alignment, kept only when valid and not the drawing's default; a sticky's `top` (the platform's default for every sticky) is drawn centred as before. */
export function alignmentOf(type: string, style: Json): Pick<PictureItem, 'textAlign' | 'textAlignVertical'> {
  const h = style.textAlign;
  const v = style.textAlignVertical;
  return {
    ...(h === 'left' || h === 'right' ? { textAlign: h } : {}),
    ...(v === 'bottom' || (v === 'top' && type !== 'sticky_note') ? { textAlignVertical: v } : {}),
  };
}

/** The text an item shows: its content, title (frames, cards, media) or nothing, as plain lines joined by '\n'. */
function textOf(type: string, data: Json): string {
  const lines = plainLinesText;
  const title = typeof data.title === 'string' ? data.title : '';
  const content = typeof data.content === 'string' ? data.content : '';
  switch (type) {
    case 'frame':
    case 'card':
    case 'app_card':
      return lines(title);
    case 'image':
    case 'document':
    case 'embed':
      return lines(title || (typeof data.providerName === 'string' ? data.providerName : ''));
    case 'mindmap_node': {
      // The node's text sits one level down: data.nodeView.data.content.
      const view = isRecord(data.nodeView) && isRecord(data.nodeView.data) ? data.nodeView.data : {};
      return lines(typeof view.content === 'string' ? view.content : '');
    }
    default:
      return lines(content || title);
  }
}

/**
 * Items as the platform returns them → picture items in board coordinates. A child's position is
 * relative to its parent frame's top-left corner; a parent missing from `records` leaves the
 * child where it says (the caller reads the frames it needs).
 */
export function toPictureItems(records: readonly Json[]): PictureItem[] {
  const byId = new Map<string, Json>();
  for (const record of records) if (typeof record.id === 'string' || typeof record.id === 'number') byId.set(String(record.id), record);
  const centres = new Map<string, PicturePoint>();
  const centreOf = (record: Json, depth: number): PicturePoint => {
    const id = String(record.id);
    const known = centres.get(id);
    if (known) return known;
    const position = isRecord(record.position) ? record.position : {};
    const x = num(position.x) ?? 0;
    const y = num(position.y) ?? 0;
    let centre = { x, y };
    const parentId = isRecord(record.parent) ? String(record.parent.id) : undefined;
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    if (parent && depth < 8 && position.relativeTo === 'parent_top_left') {
      const p = centreOf(parent, depth + 1);
      const g = isRecord(parent.geometry) ? parent.geometry : {};
      centre = { x: p.x - (num(g.width) ?? 0) / 2 + x, y: p.y - (num(g.height) ?? 0) / 2 + y };
    }
    centres.set(id, centre);
    return centre;
  };
  const items: PictureItem[] = [];
  for (const record of byId.values()) {
    const type = typeof record.type === 'string' ? record.type : 'unknown';
    const data = isRecord(record.data) ? record.data : {};
    const style = isRecord(record.style) ? record.style : {};
    const geometry = isRecord(record.geometry) ? record.geometry : {};
    const { x, y } = centreOf(record, 0);
    const width = num(geometry.width) ?? num(geometry.height) ?? 100;
    const height = num(geometry.height) ?? width;
    const item: PictureItem = { id: String(record.id), type, x, y, width, height, text: textOf(type, data) };
    const rotation = num(geometry.rotation);
    if (rotation) item.rotation = rotation;
    if (typeof data.shape === 'string') item.shape = data.shape;
    const fill = type === 'card' ? colourOf(style.cardTheme, undefined) : colourOf(style.fillColor, type === 'sticky_note' ? STICKY_COLORS.light_yellow : undefined);
    if (fill) item.fill = fill;
    const border = colourOf(style.borderColor ?? style.nodeColor, undefined);
    if (border) item.border = border;
    const borderWidth = num(style.borderWidth);
    if (borderWidth !== undefined) item.borderWidth = borderWidth;
    const textColor = colourOf(style.color ?? style.textColor, undefined);
    if (textColor) item.textColor = textColor;
    const fontSize = num(style.fontSize);
    if (fontSize) item.fontSize = fontSize;
    Object.assign(item, alignmentOf(type, style));
    const parentId = isRecord(record.parent) && record.parent.id !== undefined ? String(record.parent.id) : undefined;
    if (type === 'mindmap_node' && parentId !== undefined && byId.get(parentId)?.type === 'mindmap_node') item.parentNode = parentId;
    items.push(item);
  }
  return items;
}

const SIDES: Record<Side, PicturePoint> = { left: { x: 0, y: 0.5 }, right: { x: 1, y: 0.5 }, top: { x: 0.5, y: 0 }, bottom: { x: 0.5, y: 1 } };

/** Where a connector meets its item: `snapTo` side, relative `position` ("50%"), or the side facing the other item. */
function endOf(end: Json | undefined, item: PictureItem | undefined, other: PictureItem | undefined): (PicturePoint & { side?: Side }) | undefined {
  if (!item) {
    const position = end && isRecord(end.position) ? end.position : undefined;
    const x = num(position?.x);
    const y = num(position?.y);
    return x !== undefined && y !== undefined ? { x, y } : undefined;
  }
  const left = item.x - item.width / 2;
  const top = item.y - item.height / 2;
  let side = typeof end?.snapTo === 'string' && end.snapTo in SIDES ? (end.snapTo as Side) : undefined;
  const position = end && isRecord(end.position) ? end.position : undefined;
  const percent = (value: unknown) => (typeof value === 'string' && /^-?\d+(\.\d+)?%$/.test(value) ? Number(value.slice(0, -1)) / 100 : undefined);
  const px = percent(position?.x);
  const py = percent(position?.y);
  if (!side && px !== undefined && py !== undefined) {
    // The platform gives snap points as percentages: an edge's middle names its side; a point
    // inside other than the centre (a sequence diagram's message on its lifeline) is kept as given.
    const edge: Side | undefined = px <= 0 ? 'left' : px >= 1 ? 'right' : py <= 0 ? 'top' : py >= 1 ? 'bottom' : undefined;
    if (edge || !other || px !== 0.5 || py !== 0.5) return { x: left + px * item.width, y: top + py * item.height, ...(edge ? { side: edge } : {}) };
  }
  if (!side && other) {
    const dx = other.x - item.x;
    const dy = other.y - item.y;
    side = Math.abs(dx) >= Math.abs(dy) ? (dx >= 0 ? 'right' : 'left') : dy >= 0 ? 'bottom' : 'top';
  }
  const at = SIDES[side ?? 'right'];
  return { x: left + at.x * item.width, y: top + at.y * item.height, side: side ?? 'right' };
}

/** Connectors as the platform returns them, between the picture's items (or free points). */
export function toPictureConnectors(records: readonly Json[], items: readonly PictureItem[]): PictureConnector[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  const connectors: PictureConnector[] = [];
  for (const record of records) {
    const startEnd = isRecord(record.startItem) ? record.startItem : undefined;
    const endEnd = isRecord(record.endItem) ? record.endItem : undefined;
    const a = startEnd?.id !== undefined ? byId.get(String(startEnd.id)) : undefined;
    const b = endEnd?.id !== undefined ? byId.get(String(endEnd.id)) : undefined;
    const start = endOf(startEnd, a, b);
    const end = endOf(endEnd, b, a);
    if (!start || !end) continue;
    const style = isRecord(record.style) ? record.style : {};
    const shape = record.shape === 'straight' || record.shape === 'curved' ? record.shape : 'elbowed';
    const captions = Array.isArray(record.captions) ? record.captions.filter(isRecord) : [];
    const caption = captions.map((c) => plainText(typeof c.content === 'string' ? c.content : '')).filter(Boolean).join(' / ');
    connectors.push({
      id: String(record.id),
      start,
      end,
      shape,
      color: colourOf(style.strokeColor, '#000000') ?? '#000000',
      width: num(style.strokeWidth) ?? 2,
      startCap: typeof style.startStrokeCap === 'string' ? style.startStrokeCap : 'none',
      endCap: typeof style.endStrokeCap === 'string' ? style.endStrokeCap : 'stealth',
      ...(style.strokeStyle === 'dashed' || style.strokeStyle === 'dotted' ? { dashed: true } : {}),
      ...(caption ? { caption } : {}),
    });
  }
  return connectors;
}

// ---- SVG ----

const r2 = (n: number) => String(Math.round(n * 100) / 100);

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');
}

/** A shape's outline in a box (x, y: top-left; w, h), as an SVG path; rectangles for kinds not drawn yet. */
export function shapePath(kind: string, x: number, y: number, w: number, h: number): string {
  const P = (points: [number, number][]) => `M${points.map(([px, py]) => `${r2(x + px * w)},${r2(y + py * h)}`).join('L')}Z`;
  const polygon = (sides: number, turn: number) => P(Array.from({ length: sides }, (_, i) => {
    const a = turn + (i * 2 * Math.PI) / sides;
    return [0.5 + 0.5 * Math.cos(a), 0.5 + 0.5 * Math.sin(a)] as [number, number];
  }));
  const ellipse = (cx: number, cy: number, rx: number, ry: number) => `M${r2(cx - rx)},${r2(cy)}a${r2(rx)},${r2(ry)} 0 1,0 ${r2(2 * rx)},0a${r2(rx)},${r2(ry)} 0 1,0 ${r2(-2 * rx)},0Z`;
  switch (kind) {
    case 'circle':
    case 'ellipse':
    case 'flow_chart_connector':
      return ellipse(x + w / 2, y + h / 2, w / 2, h / 2);
    case 'round_rectangle':
    case 'flow_chart_terminator': {
      const r = kind === 'flow_chart_terminator' ? Math.min(w, h) / 2 : Math.min(w, h) * 0.15;
      return `M${r2(x + r)},${r2(y)}H${r2(x + w - r)}A${r2(r)},${r2(r)} 0 0,1 ${r2(x + w)},${r2(y + r)}V${r2(y + h - r)}A${r2(r)},${r2(r)} 0 0,1 ${r2(x + w - r)},${r2(y + h)}H${r2(x + r)}A${r2(r)},${r2(r)} 0 0,1 ${r2(x)},${r2(y + h - r)}V${r2(y + r)}A${r2(r)},${r2(r)} 0 0,1 ${r2(x + r)},${r2(y)}Z`;
    }
    case 'triangle':
    case 'flow_chart_merge':
      return kind === 'triangle' ? P([[0.5, 0], [1, 1], [0, 1]]) : P([[0, 0], [1, 0], [0.5, 1]]);
    case 'right_triangle':
      return P([[0, 0], [1, 1], [0, 1]]);
    case 'rhombus':
    case 'flow_chart_decision':
      return P([[0.5, 0], [1, 0.5], [0.5, 1], [0, 0.5]]);
    case 'parallelogram':
    case 'flow_chart_input_output':
      return P([[0.25, 0], [1, 0], [0.75, 1], [0, 1]]);
    case 'trapezoid':
    case 'flow_chart_manual_operation':
      return kind === 'trapezoid' ? P([[0.2, 0], [0.8, 0], [1, 1], [0, 1]]) : P([[0, 0], [1, 0], [0.8, 1], [0.2, 1]]);
    case 'pentagon':
      return polygon(5, -Math.PI / 2);
    case 'hexagon':
    case 'flow_chart_preparation':
      return P([[0.2, 0], [0.8, 0], [1, 0.5], [0.8, 1], [0.2, 1], [0, 0.5]]);
    case 'octagon':
      return P([[0.3, 0], [0.7, 0], [1, 0.3], [1, 0.7], [0.7, 1], [0.3, 1], [0, 0.7], [0, 0.3]]);
    case 'star':
      return P(Array.from({ length: 10 }, (_, i) => {
        const a = -Math.PI / 2 + (i * Math.PI) / 5;
        const r = i % 2 === 0 ? 0.5 : 0.2;
        return [0.5 + r * Math.cos(a), 0.5 + r * Math.sin(a)] as [number, number];
      }));
    case 'cross':
      return P([[0.35, 0], [0.65, 0], [0.65, 0.35], [1, 0.35], [1, 0.65], [0.65, 0.65], [0.65, 1], [0.35, 1], [0.35, 0.65], [0, 0.65], [0, 0.35], [0.35, 0.35]]);
    case 'right_arrow':
      return P([[0, 0.25], [0.6, 0.25], [0.6, 0], [1, 0.5], [0.6, 1], [0.6, 0.75], [0, 0.75]]);
    case 'left_arrow':
      return P([[1, 0.25], [0.4, 0.25], [0.4, 0], [0, 0.5], [0.4, 1], [0.4, 0.75], [1, 0.75]]);
    case 'left_right_arrow':
      return P([[0, 0.5], [0.25, 0], [0.25, 0.25], [0.75, 0.25], [0.75, 0], [1, 0.5], [0.75, 1], [0.75, 0.75], [0.25, 0.75], [0.25, 1]]);
    case 'pentagon_arrow':
      return P([[0, 0], [0.75, 0], [1, 0.5], [0.75, 1], [0, 1]]);
    case 'chevron':
      return P([[0, 0], [0.75, 0], [1, 0.5], [0.75, 1], [0, 1], [0.25, 0.5]]);
    case 'can':
    case 'flow_chart_magnetic_disk': {
      const ry = Math.min(h * 0.12, w * 0.25);
      return `M${r2(x)},${r2(y + ry)}A${r2(w / 2)},${r2(ry)} 0 0,1 ${r2(x + w)},${r2(y + ry)}V${r2(y + h - ry)}A${r2(w / 2)},${r2(ry)} 0 0,1 ${r2(x)},${r2(y + h - ry)}Z M${r2(x)},${r2(y + ry)}A${r2(w / 2)},${r2(ry)} 0 0,0 ${r2(x + w)},${r2(y + ry)}`;
    }
    case 'cloud': {
      const bumps: [number, number, number][] = [[0.25, 0.55, 0.22], [0.45, 0.35, 0.25], [0.7, 0.4, 0.22], [0.78, 0.62, 0.2], [0.5, 0.68, 0.25]];
      return bumps.map(([cx, cy, r]) => ellipse(x + cx * w, y + cy * h, r * w, r * h * 1.1)).join(' ');
    }
    case 'wedge_round_rectangle_callout':
      return `${shapePath('round_rectangle', x, y, w, h * 0.8)} ${P([[0.2, 0.79], [0.35, 0.79], [0.15, 1]])}`;
    case 'flow_chart_document':
      return `M${r2(x)},${r2(y)}H${r2(x + w)}V${r2(y + h * 0.85)}C${r2(x + w * 0.75)},${r2(y + h * 0.7)} ${r2(x + w * 0.25)},${r2(y + h * 1.05)} ${r2(x)},${r2(y + h * 0.88)}Z`;
    case 'flow_chart_predefined_process':
      return `M${r2(x)},${r2(y)}H${r2(x + w)}V${r2(y + h)}H${r2(x)}Z M${r2(x + w * 0.1)},${r2(y)}V${r2(y + h)} M${r2(x + w * 0.9)},${r2(y)}V${r2(y + h)}`;
    default:
      return P([[0, 0], [1, 0], [1, 1], [0, 1]]);
  }
}

/** Where a shape's text goes: a box inside its outline (a diamond holds half its width and height). */
export function shapeTextBox(kind: string, x: number, y: number, w: number, h: number): { x: number; y: number; w: number; h: number } {
  const centred = (fw: number, fh: number, dy = 0) => ({ x: x + (w * (1 - fw)) / 2, y: y + (h * (1 - fh)) / 2 + dy * h, w: w * fw, h: h * fh });
  switch (kind) {
    case 'rhombus':
    case 'flow_chart_decision':
      return centred(0.5, 0.5);
    case 'circle':
    case 'ellipse':
    case 'flow_chart_connector':
    case 'octagon':
    case 'pentagon':
      return centred(0.7, 0.7);
    case 'star':
      return centred(0.4, 0.4);
    case 'triangle':
      return centred(0.5, 0.45, 0.2);
    case 'parallelogram':
    case 'flow_chart_input_output':
    case 'trapezoid':
      return centred(0.65, 0.84);
    default:
      return centred(0.84, 0.84);
  }
}

/** Whether the picture's font (DejaVu Sans) has a glyph for this code point. */
export function fontDraws(code: number): boolean {
  let low = 0;
  let high = DEJAVU_COVERAGE.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (code < DEJAVU_COVERAGE[2 * middle]!) high = middle - 1;
    else if (code > DEJAVU_COVERAGE[2 * middle + 1]!) low = middle + 1;
    else return true;
  }
  return false;
}

/**
 * The text without what the font cannot draw (emoji, scripts it lacks), which would show as empty
 * boxes; blanks collapsed; its line breaks ('\n') kept, blanks around them dropped.
 */
export function drawableText(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += char === '\n' ? '\n' : /\s/.test(char) ? ' ' : fontDraws(code) ? char : '';
  }
  return out.replace(/ {2,}/g, ' ').replace(/ ?\n ?/g, '\n').trim();
}

/** The width of `text` in ems, as DejaVu Sans advances it (kerning aside). */
export function textWidthEm(text: string): number {
  let perMille = 0;
  for (const char of text) {
    const index = char.codePointAt(0)! - DEJAVU_ADVANCE_FIRST;
    perMille += (index >= 0 && index < DEJAVU_ADVANCES.length ? DEJAVU_ADVANCES[index] : undefined) || DEJAVU_AVERAGE_ADVANCE;
  }
  return perMille / 1000;
}

/** The longest start of `word` that fits `widthPx`: at least one character. */
function fittingStart(word: string, widthPx: number, sizePx: number): string {
  let start = '';
  let em = 0;
  for (const char of word) {
    em += textWidthEm(char);
    if (start && em * sizePx > widthPx) break;
    start += char;
  }
  return start;
}

/**
 * Lines of `text` that fit `widthPx` at `sizePx`, measured with DejaVu Sans's advances; each
 * '\n' starts a line (the platform's line breaks); lines break between words, inside a word only
 * when it alone is too wide; past `maxLines` the last line ends with "…".
 */
export function wrapText(text: string, widthPx: number, sizePx: number, maxLines: number): string[] {
  const fits = (line: string) => textWidthEm(line) * sizePx <= widthPx;
  const limit = Number.isFinite(maxLines) ? Math.max(1, Math.floor(maxLines)) : 1;
  const lines: string[] = [];
  const paragraphs = text.split('\n');
  for (const paragraph of paragraphs) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && fits(`${line} ${word}`)) {
        line += ` ${word}`;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      while (!fits(line) && [...line].length > 1) {
        const start = fittingStart(line, widthPx, sizePx);
        lines.push(start);
        line = line.slice(start.length);
      }
      if (lines.length > limit) break;
    }
    // An empty paragraph between others is an empty line, as the platform shows it.
    if (line || paragraphs.length > 1) lines.push(line);
    if (lines.length > limit) break;
  }
  if (lines.length <= limit) return lines;
  const kept = lines.slice(0, limit);
  let last = kept[limit - 1] ?? '';
  while (last && !fits(`${last}…`)) last = [...last].slice(0, -1).join('');
  kept[limit - 1] = `${last.trimEnd()}…`;
  return kept;
}

/** Smallest text drawn, in pixels: smaller is noise to a vision model. */
const MIN_TEXT_PX = 6;
/** An item's own font size below this on the picture gives way to the size that fills its box. */
const MIN_READABLE_PX = 10;
const LINE_HEIGHT = 1.2;

/** Where a text sits in its box: the item's style, else centred both ways. */
type TextAlignment = Pick<PictureItem, 'textAlign' | 'textAlignVertical'>;
const CENTRED: TextAlignment = {};

/** Below the last line's baseline: DejaVu Sans's descent (0.236 em) and a little air. */
const DESCENT = 0.3;

function textBlock(text: string, box: { x: number; y: number; w: number; h: number }, sizePx: number, colour: string, align: TextAlignment): string {
  const drawn = drawableText(text);
  // `!(>=)`: a size that is not a number (a box with no room) draws nothing either.
  if (!drawn || !(sizePx >= MIN_TEXT_PX) || !(box.w >= sizePx)) return '';
  const lineHeight = sizePx * LINE_HEIGHT;
  const lines = wrapText(drawn, box.w, sizePx, Math.max(1, Math.floor(box.h / lineHeight)));
  const block = (lines.length - 1) * lineHeight;
  const v = align.textAlignVertical;
  const top = v === 'top' ? box.y + sizePx : v === 'bottom' ? box.y + box.h - sizePx * DESCENT - block : box.y + box.h / 2 - block / 2 + sizePx * 0.35;
  const h = align.textAlign;
  const [x, anchor] = h === 'left' ? [box.x, 'start'] : h === 'right' ? [box.x + box.w, 'end'] : [box.x + box.w / 2, 'middle'];
  const spans = lines.map((l, i) => `<tspan x="${r2(x)}" y="${r2(top + i * lineHeight)}">${escapeXml(l)}</tspan>`).join('');
  return `<text font-size="${r2(sizePx)}" fill="${colour}" text-anchor="${anchor}">${spans}</text>`;
}

/**
 * Text size for a box: the item's own (scaled) when readable, else the largest size at which the
 * whole text wraps into the box (measured), never below what the own size gives.
 */
export function fittedSize(text: string, w: number, h: number, scaled: number | undefined): number {
  if (!(w > 0 && h > 0)) return 0;
  const drawn = drawableText(text);
  const longestWord = Math.max(0, ...drawn.split(/[ \n]/).map((word) => textWidthEm(word)));
  // The item's own size while it is readable and holds every word whole (as the platform shrinks a sticky's text).
  const ownReadable = scaled !== undefined && scaled >= MIN_READABLE_PX;
  if (ownReadable && scaled * longestWord <= w) return scaled;
  const em = Math.max(0.5, textWidthEm(drawn));
  // Start from the size whose lines would fill 60% of the box, then shrink until the text wraps into it.
  let size = Math.max(0, Math.min(h / 3, Math.sqrt((w * h * 0.6) / (em * LINE_HEIGHT))));
  // No word is cut while a smaller size would hold it whole.
  if (longestWord > 0) size = Math.min(size, Math.max(w / longestWord, MIN_READABLE_PX));
  for (let step = 0; step < 12 && size >= MIN_TEXT_PX; step++) {
    const lines = wrapText(drawn, w, size, Number.MAX_SAFE_INTEGER);
    if (lines.length * size * LINE_HEIGHT <= h) break;
    size *= 0.9;
  }
  return ownReadable ? Math.min(size, scaled) : Math.max(size, scaled ?? 0);
}

/** The SVG of the picture: deterministic, fonts named "DejaVu Sans", no external reference. */
export function boardSvg(input: PictureInput): string {
  const { area, widthPx, heightPx } = input;
  const scale = widthPx / Math.max(1e-9, area.x1 - area.x0);
  const X = (bx: number) => (bx - area.x0) * scale;
  const Y = (by: number) => (by - area.y0) * scale;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${widthPx}" height="${heightPx}" viewBox="0 0 ${widthPx} ${heightPx}" font-family="DejaVu Sans">`,
    `<rect width="${widthPx}" height="${heightPx}" fill="#ffffff"/>`,
  ];
  // Frames below everything, then the other items in their order, connectors, then numbers on top.
  const frames = input.items.filter((item) => item.type === 'frame');
  const others = input.items.filter((item) => item.type !== 'frame');
  const box = (item: PictureItem) => itemSvg(item, X(item.x - item.width / 2), Y(item.y - item.height / 2), item.width * scale, item.height * scale, scale);
  for (const item of frames) out.push(box(item));
  // Mind-map branches under the nodes, so each line ends at its node's edge.
  const byId = new Map(input.items.map((item) => [item.id, item]));
  for (const item of others) {
    const parent = item.parentNode === undefined ? undefined : byId.get(item.parentNode);
    if (parent) out.push(`<path d="${mindmapBranch(parent, item, X, Y).d}" fill="none" stroke="${BRANCH_INK}" stroke-width="${r2(Math.max(1.5, 2 * scale))}"/>`);
  }
  for (const item of others) out.push(box(item));
  for (const connector of input.connectors) out.push(connectorSvg(connector, X, Y, scale));
  for (const item of input.items) {
    if (item.number === undefined) continue;
    const cx = X(item.x - item.width / 2);
    const cy = Y(item.y - item.height / 2);
    const label = String(item.number);
    const r = 9 + 3 * (label.length - 1);
    out.push(`<rect x="${r2(cx)}" y="${r2(cy)}" width="${r2(2 * r)}" height="18" rx="9" fill="${NUMBER_FILL}"/><text x="${r2(cx + r)}" y="${r2(cy + 13)}" font-size="12" fill="#ffffff" text-anchor="middle" font-weight="bold">${label}</text>`);
  }
  out.push('</svg>');
  return out.join('\n');
}

function itemSvg(item: PictureItem, x: number, y: number, w: number, h: number, scale: number): string {
  const rotate = item.rotation ? ` transform="rotate(${r2(item.rotation)} ${r2(x + w / 2)} ${r2(y + h / 2)})"` : '';
  const fontPx = item.fontSize !== undefined ? item.fontSize * scale : undefined;
  const inner = { x: x + w * 0.08, y: y + h * 0.08, w: w * 0.84, h: h * 0.84 };
  let body: string;
  switch (item.type) {
    case 'frame': {
      const titleSize = Math.max(11, Math.min(18, 24 * scale));
      const titleText = drawableText(item.text);
      const title = titleText ? `<text x="${r2(x)}" y="${r2(y - 4)}" font-size="${r2(titleSize)}" fill="${INK}">${escapeXml(wrapText(titleText, Math.max(w, 60), titleSize, 1)[0] ?? '')}</text>` : '';
      body = `<rect x="${r2(x)}" y="${r2(y)}" width="${r2(w)}" height="${r2(h)}" fill="${item.fill ?? FRAME_FILL}" stroke="${FRAME_BORDER}" stroke-width="1"/>${title}`;
      break;
    }
    case 'sticky_note': {
      const size = fittedSize(item.text, inner.w, inner.h, undefined);
      const ink = item.fill === '#000000' ? '#ffffff' : INK;
      body = `<rect x="${r2(x)}" y="${r2(y)}" width="${r2(w)}" height="${r2(h)}" fill="${item.fill ?? STICKY_COLORS.light_yellow}"/>${textBlock(item.text, inner, size, ink, item)}`;
      break;
    }
    case 'shape': {
      const fill = item.fill ?? 'none';
      const stroke = item.border ?? INK;
      const sw = Math.max(1, (item.borderWidth ?? 2) * scale);
      const room = shapeTextBox(item.shape ?? 'rectangle', x, y, w, h);
      const size = fittedSize(item.text, room.w, room.h, fontPx);
      body = `<path d="${shapePath(item.shape ?? 'rectangle', x, y, w, h)}" fill="${fill}" stroke="${stroke}" stroke-width="${r2(sw)}" stroke-linejoin="round"/>${textBlock(item.text, room, size, item.textColor ?? INK, item)}`;
      break;
    }
    case 'card':
    case 'app_card': {
      const theme = item.fill ?? '#2d9bf0';
      const bar = Math.max(2, 6 * scale);
      const text = { x: x + bar + w * 0.04, y, w: w - bar - w * 0.08, h };
      body = `<rect x="${r2(x)}" y="${r2(y)}" width="${r2(w)}" height="${r2(h)}" fill="#ffffff" stroke="${theme}" stroke-width="1"/><rect x="${r2(x)}" y="${r2(y)}" width="${r2(bar)}" height="${r2(h)}" fill="${theme}"/>${textBlock(item.text, text, fittedSize(item.text, text.w, text.h, undefined), INK, CENTRED)}`;
      break;
    }
    case 'text': {
      body = textBlock(item.text, { x, y, w, h }, fittedSize(item.text, w, h, fontPx), item.textColor ?? INK, item);
      if (item.fill) body = `<rect x="${r2(x)}" y="${r2(y)}" width="${r2(w)}" height="${r2(h)}" fill="${item.fill}"/>${body}`;
      break;
    }
    case 'image':
    case 'document':
    case 'embed': {
      const label = `[${item.type}]${item.text ? ` ${item.text}` : ''}`;
      body = `<rect x="${r2(x)}" y="${r2(y)}" width="${r2(w)}" height="${r2(h)}" fill="${PLACEHOLDER_FILL}" stroke="${PLACEHOLDER_INK}" stroke-width="1" stroke-dasharray="6 4"/>${textBlock(label, inner, Math.min(16, fittedSize(label, inner.w, inner.h, undefined)), PLACEHOLDER_INK, CENTRED)}`;
      break;
    }
    case 'mindmap_node': {
      const size = fittedSize(item.text, inner.w, inner.h, fontPx);
      body = `<rect x="${r2(x)}" y="${r2(y)}" width="${r2(w)}" height="${r2(h)}" rx="${r2(Math.min(h / 2, 8))}" fill="${item.fill ?? '#ffffff'}" stroke="${item.border ?? INK}" stroke-width="1.5"/>${textBlock(item.text, inner, size, INK, CENTRED)}`;
      break;
    }
    default:
      body = `<rect x="${r2(x)}" y="${r2(y)}" width="${r2(w)}" height="${r2(h)}" fill="none" stroke="${PLACEHOLDER_INK}" stroke-width="1"/>${textBlock(item.text, inner, fittedSize(item.text, inner.w, inner.h, undefined), INK, CENTRED)}`;
  }
  // data-id: the board view finds the item clicked by it.
  return `<g data-id="${escapeXml(item.id)}"${rotate}>${body}</g>`;
}

const BRANCH_INK = '#4d4d4d';

/** The line from a mind-map node to its child: from the parent's side facing the child to the child's facing side, a gentle S. */
export function mindmapBranch(parent: PictureItem, child: PictureItem, X: (x: number) => number, Y: (y: number) => number): { d: string; start: PicturePoint; end: PicturePoint } {
  const horizontal = Math.abs(child.x - parent.x) * parent.height >= Math.abs(child.y - parent.y) * parent.width;
  const toward = horizontal ? Math.sign(child.x - parent.x) || 1 : Math.sign(child.y - parent.y) || 1;
  const start = horizontal ? { x: X(parent.x + (toward * parent.width) / 2), y: Y(parent.y) } : { x: X(parent.x), y: Y(parent.y + (toward * parent.height) / 2) };
  const end = horizontal ? { x: X(child.x - (toward * child.width) / 2), y: Y(child.y) } : { x: X(child.x), y: Y(child.y - (toward * child.height) / 2) };
  const c1 = horizontal ? { x: (start.x + end.x) / 2, y: start.y } : { x: start.x, y: (start.y + end.y) / 2 };
  const c2 = horizontal ? { x: (start.x + end.x) / 2, y: end.y } : { x: end.x, y: (start.y + end.y) / 2 };
  return { d: `M${r2(start.x)},${r2(start.y)}C${r2(c1.x)},${r2(c1.y)} ${r2(c2.x)},${r2(c2.y)} ${r2(end.x)},${r2(end.y)}`, start, end };
}

const OUTWARD: Record<Side, PicturePoint> = { left: { x: -1, y: 0 }, right: { x: 1, y: 0 }, top: { x: 0, y: -1 }, bottom: { x: 0, y: 1 } };

/** The connector's path in pixels and the point its caption sits on (the path's middle). */
export function connectorGeometry(c: PictureConnector, X: (x: number) => number, Y: (y: number) => number): { d: string; mid: PicturePoint; points: PicturePoint[] } {
  const a = { x: X(c.start.x), y: Y(c.start.y) };
  const b = { x: X(c.end.x), y: Y(c.end.y) };
  if (c.shape === 'straight') return { d: `M${r2(a.x)},${r2(a.y)}L${r2(b.x)},${r2(b.y)}`, mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, points: [a, b] };
  if (c.shape === 'curved') {
    const reach = Math.max(20, Math.hypot(b.x - a.x, b.y - a.y) / 3);
    const oa = OUTWARD[c.start.side ?? 'right'];
    const ob = OUTWARD[c.end.side ?? 'left'];
    const c1 = { x: a.x + oa.x * reach, y: a.y + oa.y * reach };
    const c2 = { x: b.x + ob.x * reach, y: b.y + ob.y * reach };
    const mid = { x: (a.x + 3 * c1.x + 3 * c2.x + b.x) / 8, y: (a.y + 3 * c1.y + 3 * c2.y + b.y) / 8 };
    return { d: `M${r2(a.x)},${r2(a.y)}C${r2(c1.x)},${r2(c1.y)} ${r2(c2.x)},${r2(c2.y)} ${r2(b.x)},${r2(b.y)}`, mid, points: [a, c1, c2, b] };
  }
  // Elbowed: leave along the start side's axis, turn once halfway, arrive along the end's.
  const vertical = c.start.side === 'top' || c.start.side === 'bottom';
  const points = vertical
    ? [a, { x: a.x, y: (a.y + b.y) / 2 }, { x: b.x, y: (a.y + b.y) / 2 }, b]
    : [a, { x: (a.x + b.x) / 2, y: a.y }, { x: (a.x + b.x) / 2, y: b.y }, b];
  const mid = { x: (points[1]!.x + points[2]!.x) / 2, y: (points[1]!.y + points[2]!.y) / 2 };
  return { d: `M${points.map((p) => `${r2(p.x)},${r2(p.y)}`).join('L')}`, mid, points };
}

function arrowHead(tip: PicturePoint, from: PicturePoint, size: number, colour: string): string {
  const angle = Math.atan2(tip.y - from.y, tip.x - from.x);
  const wing = (turn: number) => ({ x: tip.x - size * Math.cos(angle + turn), y: tip.y - size * Math.sin(angle + turn) });
  const l = wing(0.45);
  const r = wing(-0.45);
  return `<path d="M${r2(tip.x)},${r2(tip.y)}L${r2(l.x)},${r2(l.y)}L${r2(r.x)},${r2(r.y)}Z" fill="${colour}"/>`;
}

/**
 * A cap other than an arrowhead, as the platform draws it: a hollow triangle (UML inheritance),
 * diamonds (aggregation, composition), circles, and the ERD marks (bars, circle, crow's foot);
 * undefined for the arrowheads (stealth, arrow, ...), drawn by arrowHead.
 */
function capSvg(kind: string, tip: PicturePoint, from: PicturePoint, size: number, colour: string, width: number): string | undefined {
  const angle = Math.atan2(tip.y - from.y, tip.x - from.x);
  // A point `back` along the line from the tip, `side` across it.
  const at = (back: number, side = 0) => `${r2(tip.x - back * Math.cos(angle) - side * Math.sin(angle))},${r2(tip.y - back * Math.sin(angle) + side * Math.cos(angle))}`;
  const stroke = `stroke="${colour}" stroke-width="${r2(width)}"`;
  const bar = (back: number) => `<path d="M${at(back, size / 2)}L${at(back, -size / 2)}" ${stroke}/>`;
  const ring = (back: number, r: number) => { const [cx, cy] = at(back).split(','); return `<circle cx="${cx}" cy="${cy}" r="${r2(r)}" fill="#ffffff" ${stroke}/>`; };
  const foot = `<path d="M${at(0, size / 2)}L${at(size)}L${at(0, -size / 2)}M${at(0)}L${at(size)}" fill="none" ${stroke}/>`;
  switch (kind) {
    case 'triangle':
      return `<path d="M${at(0)}L${at(size, size / 2)}L${at(size, -size / 2)}Z" fill="#ffffff" ${stroke}/>`;
    case 'diamond':
    case 'filled_diamond':
      return `<path d="M${at(0)}L${at(size / 2, size / 3)}L${at(size)}L${at(size / 2, -size / 3)}Z" fill="${kind === 'diamond' ? '#ffffff' : colour}" ${stroke}/>`;
    case 'oval':
    case 'filled_oval':
      return ring(size / 3, size / 3).replace('fill="#ffffff"', `fill="${kind === 'oval' ? '#ffffff' : colour}"`);
    case 'erd_one':
      return bar(size / 2);
    case 'erd_only_one':
      return bar(size / 2) + bar(size * 0.8);
    case 'erd_zero_or_one':
      return bar(size / 2) + ring(size * 1.1, size / 4);
    case 'erd_many':
      return foot;
    case 'erd_one_or_many':
      return foot + bar(size * 1.2);
    case 'erd_zero_or_many':
      return foot + ring(size * 1.35, size / 4);
    default:
      return undefined;
  }
}

function connectorSvg(c: PictureConnector, X: (x: number) => number, Y: (y: number) => number, scale: number): string {
  const { d, mid, points } = connectorGeometry(c, X, Y);
  const width = Math.max(1.5, c.width * scale);
  const head = Math.max(10, 14 * scale);
  const parts = [`<path d="${d}" fill="none" stroke="${c.color}" stroke-width="${r2(width)}"${c.dashed ? ` stroke-dasharray="${r2(width * 4)} ${r2(width * 3)}"` : ''}/>`];
  const cap = (kind: string, tip: PicturePoint, from: PicturePoint) => capSvg(kind, tip, from, head, c.color, width) ?? arrowHead(tip, from, head, c.color);
  if (c.endCap !== 'none') parts.push(cap(c.endCap, points[points.length - 1]!, points[points.length - 2]!));
  if (c.startCap !== 'none') parts.push(cap(c.startCap, points[0]!, points[1]!));
  if (c.caption && drawableText(c.caption)) {
    const size = Math.max(10, Math.min(14, 14 * scale));
    const label = wrapText(drawableText(c.caption), 200, size, 1)[0] ?? '';
    const w = textWidthEm(label) * size + 6;
    parts.push(`<rect x="${r2(mid.x - w / 2)}" y="${r2(mid.y - size * 0.7)}" width="${r2(w)}" height="${r2(size * 1.4)}" fill="#ffffff" fill-opacity="0.85"/><text x="${r2(mid.x)}" y="${r2(mid.y + size * 0.35)}" font-size="${r2(size)}" fill="${INK}" text-anchor="middle">${escapeXml(label)}</text>`);
  }
  return parts.join('');
}
