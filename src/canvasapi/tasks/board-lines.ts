/**
 * ReadBoard's records as it keeps them (only what its lines need) and the lines it answers:
 * `ID type x,y wxh [frame "title"] [#"tag" ...]: "text"` for items, `ID: from "text" -> to "text"
 * [caption "caption"]` for connectors, `ID "title" x,y wxh` for frames. Platform text is quoted
 * (core/tools/line-text.ts), so no text can add a field, an arrow or a line.
 */
import { isRecord } from '../../core/json.js';
import { idText, quotedText } from '../../core/tools/line-text.js';
import { joinedPieces, plainStart, piecesInclude } from './text.js';

type Json = Record<string, unknown>;

/** Characters of an item's text shown at a connector's end (and all that is kept of items not listed). */
export const END_TEXT_CHARS = 40;
/** Characters of a connector's captions kept. */
const CAPTION_CHARS = 200;

export interface BoardItem {
  id: string;
  type: string;
  text: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  parent?: string;
}

/** A connector as kept: its ends and its captions, nothing else. */
export interface BoardConnector {
  id: string;
  from: string;
  to: string;
  caption: string;
}

/**
 * Characters of an item's text kept at most: more than any answer's lines can show (ReadBoard's
 * lines take 48,000 bytes). The text is made only that far (text.ts), whatever its size.
 */
export const ITEM_TEXT_CHARS = 50_000;

/** The pieces of an item's text: its title, content and description as plain text, joined by ` — `. */
function itemPieces(record: Json) {
  const data = isRecord(record.data) ? record.data : {};
  return (each: (piece: string) => boolean) => joinedPieces([data.title, data.content, data.description], ' — ', each);
}

/** An item's text, cut to `maxChars` (marked `…` when cut). */
export function itemText(record: Json, maxChars: number = ITEM_TEXT_CHARS): string {
  return cut(plainStart(itemPieces(record), maxChars), maxChars);
}

/** Whether an item's whole text, in lower case, holds `lowered`: read piece by piece, never copied whole. */
export function itemTextIncludes(record: Json, lowered: string): boolean {
  return piecesInclude(itemPieces(record), lowered);
}

/** What is kept of an item: its text cut to `maxChars`. */
export function toItem(record: Json, maxChars: number = ITEM_TEXT_CHARS): BoardItem {
  const position = isRecord(record.position) ? record.position : {};
  const geometry = isRecord(record.geometry) ? record.geometry : {};
  const parent = isRecord(record.parent) ? record.parent : undefined;
  return {
    id: String(record.id),
    type: String(record.type ?? 'item'),
    text: itemText(record, maxChars),
    ...(typeof position.x === 'number' ? { x: position.x } : {}),
    ...(typeof position.y === 'number' ? { y: position.y } : {}),
    ...(typeof geometry.width === 'number' ? { width: geometry.width } : {}),
    ...(typeof geometry.height === 'number' ? { height: geometry.height } : {}),
    ...(parent && parent.id !== undefined ? { parent: String(parent.id) } : {}),
  };
}

export function toConnector(record: Json): BoardConnector {
  const captions = Array.isArray(record.captions) ? record.captions.filter(isRecord).map((c) => c.content) : [];
  const caption = plainStart((each) => joinedPieces(captions, ' / ', each), CAPTION_CHARS);
  return { id: String(record.id), from: endId(record.startItem), to: endId(record.endItem), caption: cut(caption, CAPTION_CHARS) };
}

function endId(end: unknown): string {
  return isRecord(end) && end.id !== undefined ? String(end.id) : '?';
}

/** Text cut to `max` characters, marked with an ellipsis when cut. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A line's bytes in the JSON answer (quotes and comma). */
export const lineBytes = (line: string) => Buffer.byteLength(line) + 4;

const round = (n: number | undefined) => (n === undefined ? '?' : String(Math.round(n)));

export function placement(item: BoardItem): string {
  return `${round(item.x)},${round(item.y)} ${round(item.width)}x${round(item.height)}`;
}

/** A frame's title as lines show it. */
const FRAME_TITLE_CHARS = 200;
/** A tag's title as item lines show it. */
const TAG_CHARS = 100;

export function itemLine(item: BoardItem, tags: readonly string[] | undefined, frameTitle: ReadonlyMap<string, string>): string {
  const title = item.parent ? frameTitle.get(item.parent) : undefined;
  // A frame whose title this call did not read is named by its ID.
  const frame = item.parent ? ` frame ${title === undefined ? idText(item.parent) : quotedText(title, FRAME_TITLE_CHARS)}` : '';
  const tagText = tags?.length ? ` ${tags.map((t) => `#${quotedText(t, TAG_CHARS)}`).join(' ')}` : '';
  return `${idText(item.id)} ${idText(item.type)} ${placement(item)}${frame}${tagText}: ${quotedText(item.text)}`;
}

/** `ID "title" x,y wxh`. */
export function frameLine(frame: BoardItem): string {
  return `${idText(frame.id)} ${quotedText(frame.text, FRAME_TITLE_CHARS)} ${placement(frame)}`;
}

/** `endText`: the start of each item's text this call read (an end it did not read shows as its ID). */
export function connectorLine(connector: BoardConnector, endText: ReadonlyMap<string, string>): string {
  const named = (id: string) => {
    const text = endText.get(id);
    return text === undefined ? idText(id) : `${idText(id)} ${quotedText(text)}`;
  };
  return `${idText(connector.id)}: ${named(connector.from)} -> ${named(connector.to)}${connector.caption ? ` caption ${quotedText(connector.caption)}` : ''}`;
}
