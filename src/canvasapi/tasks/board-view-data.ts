/**
 * The board view's data (MCP Apps, views/board.js): what ReadBoard, CreateDiagram and ViewBoard
 * answered, as picture items the view draws with the same SVG builder as ViewBoard's PNG
 * (board-picture.ts). The core sends it in the result's `_meta`, only to clients that show views
 * (core/tools/result-view.ts). Bounded: the items the answer covers, in its order, each text cut
 * to BOARD_VIEW_TEXT_CHARS, until BOARD_VIEW_MAX_BYTES of JSON; the rest are counted in `omitted`.
 * The only URL in it is the item link built from our own template (params.ts).
 */
import { withViewData } from '../../core/tools/result-view.js';
import type { BoardItem } from './board-lines.js';
import { STICKY_COLORS, toPictureConnectors, type PictureConnector, type PictureItem } from './board-picture.js';
import { boundsOf } from './view-board.js';

/** Characters of an item's text or a caption sent to the view: the panel shows it, the box shows what fits. */
export const BOARD_VIEW_TEXT_CHARS = 300;
/** JSON bytes of the view's data at most (items and connectors; a 2,000-item ReadBoard page of short notes fits). */
export const BOARD_VIEW_MAX_BYTES = 384 * 1024;

type Area = { x0: number; y0: number; x1: number; y1: number };

export interface BoardViewData {
  /** The board area shown first, in board coordinates. */
  area: Area;
  items: PictureItem[];
  connectors: PictureConnector[];
  /** A link to the board focused on an item: `{item_id}` to fill in. */
  link_template: string;
  /** Items and connectors of the answer left out to keep the data within its bound. */
  omitted?: { items: number; connectors: number };
}

const cut = (text: string) => (text.length > BOARD_VIEW_TEXT_CHARS ? `${text.slice(0, BOARD_VIEW_TEXT_CHARS)}…` : text);
const r2 = (n: number) => Math.round(n * 100) / 100;

function compactItem(item: PictureItem): PictureItem {
  const kept: PictureItem = { ...item, x: r2(item.x), y: r2(item.y), width: r2(item.width), height: r2(item.height), text: cut(item.text) };
  return kept;
}

function compactConnector(connector: PictureConnector): PictureConnector {
  const point = <P extends { x: number; y: number }>(p: P): P => ({ ...p, x: r2(p.x), y: r2(p.y) });
  return { ...connector, start: point(connector.start), end: point(connector.end), ...(connector.caption ? { caption: cut(connector.caption) } : {}) };
}

/** The view's data: items first, in the answer's order, then the connectors between items kept, within the byte bound. */
export function boardViewData(items: readonly PictureItem[], connectors: readonly PictureConnector[], linkTemplate: string, area?: Area): BoardViewData {
  let bytes = 200 + linkTemplate.length;
  const keptItems: PictureItem[] = [];
  for (const item of items) {
    const kept = compactItem(item);
    const size = Buffer.byteLength(JSON.stringify(kept)) + 1;
    if (bytes + size > BOARD_VIEW_MAX_BYTES) break;
    bytes += size;
    keptItems.push(kept);
  }
  const keptConnectors: PictureConnector[] = [];
  for (const connector of connectors) {
    const kept = compactConnector(connector);
    const size = Buffer.byteLength(JSON.stringify(kept)) + 1;
    if (bytes + size > BOARD_VIEW_MAX_BYTES) break;
    bytes += size;
    keptConnectors.push(kept);
  }
  const omitted = { items: items.length - keptItems.length, connectors: connectors.length - keptConnectors.length };
  const shown = area ?? boundsOf(keptItems);
  return {
    area: { x0: r2(shown.x0), y0: r2(shown.y0), x1: r2(shown.x1), y1: r2(shown.y1) },
    items: keptItems,
    connectors: keptConnectors,
    link_template: linkTemplate,
    ...(omitted.items || omitted.connectors ? { omitted } : {}),
  };
}

/** The answer with the board view's data attached, made only for clients that show views. */
export function withBoardView<T extends object>(answer: T, build: () => BoardViewData): T {
  return withViewData(answer, () => build() as unknown as Record<string, unknown>);
}

/** A connector between two items, as the platform would give it: enough for toPictureConnectors. */
export interface ConnectorEnds {
  id: string;
  from: string;
  to: string;
  caption?: string;
}

/**
 * ReadBoard's items as picture items: it reads no styles, so they are drawn by type with the
 * builder's defaults. An item in a frame is placed from the frame's top-left corner when the
 * answer has the frame; an item with no position is left out (it cannot be drawn).
 */
export function readBoardPicture(items: readonly BoardItem[]): PictureItem[] {
  const frames = new Map(items.filter((item) => item.type === 'frame').map((frame) => [frame.id, frame]));
  const picture: PictureItem[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    if (item.x === undefined || item.y === undefined || seen.has(item.id)) continue;
    seen.add(item.id);
    const width = item.width ?? item.height ?? 100;
    const height = item.height ?? width;
    const frame = item.parent ? frames.get(item.parent) : undefined;
    const inFrame = frame && frame.x !== undefined && frame.y !== undefined;
    const x = inFrame ? frame.x! - (frame.width ?? 0) / 2 + item.x : item.x;
    const y = inFrame ? frame.y! - (frame.height ?? 0) / 2 + item.y : item.y;
    picture.push({ id: item.id, type: item.type, x, y, width, height, text: item.text, ...(item.type === 'sticky_note' ? { fill: STICKY_COLORS.light_yellow } : {}) });
  }
  return picture;
}

/** Connectors between drawn items, drawn with the builder's defaults (ReadBoard keeps only their ends and captions). */
export function connectorsBetween(connectors: readonly ConnectorEnds[], items: readonly PictureItem[]): PictureConnector[] {
  const drawn = new Set(items.map((item) => item.id));
  const records = connectors
    .filter((c) => drawn.has(c.from) && drawn.has(c.to))
    .map((c) => ({ id: c.id, startItem: { id: c.from }, endItem: { id: c.to }, ...(c.caption ? { captions: [{ content: c.caption }] } : {}) }));
  return toPictureConnectors(records, items);
}
