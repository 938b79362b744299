/**
 * Platform text as an agent reads it: HTML tags dropped, entities decoded, blanks collapsed.
 * Made piece by piece (`plainPieces`), so that a 380,000-character note costs strings of a
 * piece's size, never a few copies of the whole text: callers take the start they keep
 * (`plainStart`) or look for a query in it (`piecesInclude`).
 */

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
/** Tags that end a line of text. */
const BREAKS = /<\s*(?:br|\/p|\/div|\/li|\/h[1-6])\s*\/?>/gi;
/** Linear: a tag is `<`, then anything but `<` and `>`, then `>`. */
const TAG = /<[^<>]*>/g;
const ENTITY = /&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi;
/** The start of an entity that the next piece may end (at most 9 characters before its `;`). */
const ENTITY_START = /&(?:#x?[0-9a-f]{0,7}|[a-z]{0,6})$/i;
/** Source characters made into plain text at a time. */
export const PIECE_CHARS = 16_384;

function decode(text: string): string {
  return text.replace(ENTITY, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

export function plainText(value: unknown): string {
  let text = '';
  plainPieces(value, (piece) => {
    text += piece;
    return true;
  });
  return text;
}

/**
 * plainText(value) in consecutive non-empty parts, until `each` returns false. A piece ends
 * neither inside a tag nor inside an entity, so each is made as the whole text would be.
 */
export function plainPieces(value: unknown, each: (piece: string) => boolean, pieceChars = PIECE_CHARS): void {
  if (typeof value !== 'string' || value === '') return;
  let at = 0;
  // The tail of the last piece that may start an entity (never left after the last piece), and a
  // blank run not yet written (dropped at the end: trimmed).
  let carry = '';
  let blank = false;
  let started = false;
  while (at < value.length) {
    let end = Math.min(value.length, at + pieceChars);
    const open = end < value.length ? value.lastIndexOf('<', end - 1) : -1;
    if (open >= at) {
      const close = value.indexOf('>', open);
      if (close === -1 || close >= end) {
        if (open > at) end = open;
        else {
          // A `<` that starts the piece: a tag (closed before any other `<`) is taken whole, else it is text.
          const nextOpen = value.indexOf('<', at + 1);
          if (close !== -1 && (nextOpen === -1 || close < nextOpen)) end = close + 1;
        }
      }
    }
    let text = carry + value.slice(at, end).replace(BREAKS, ' ').replace(TAG, '');
    at = end;
    carry = '';
    const entity = at < value.length ? ENTITY_START.exec(text.slice(-10)) : null;
    if (entity) {
      carry = entity[0];
      text = text.slice(0, text.length - carry.length);
    }
    text = decode(text).replace(/\s+/g, ' ');
    if (text.startsWith(' ')) {
      blank = true;
      text = text.slice(1);
    }
    if (text === '') continue;
    const trailing = text.endsWith(' ');
    if (trailing) text = text.slice(0, -1);
    if (text === '') {
      blank = true;
      continue;
    }
    const piece = blank && started ? ` ${text}` : text;
    blank = trailing;
    started = true;
    if (!each(piece)) return;
  }
}

/** Pieces of several texts: the plain text of each non-empty one, joined by `separator`. */
export function joinedPieces(values: readonly unknown[], separator: string, each: (piece: string) => boolean): void {
  let any = false;
  let going = true;
  for (const value of values) {
    let first = true;
    plainPieces(value, (piece) => {
      if (first && any) going = each(separator);
      first = false;
      any = true;
      going = going && each(piece);
      return going;
    });
    if (!going) return;
  }
}

/** The first `max` characters of what `pieces` makes, and one more when there is more (so that a cut marks it). */
export function plainStart(pieces: (each: (piece: string) => boolean) => void, max: number): string {
  let text = '';
  pieces((piece) => {
    text += piece;
    return text.length <= max;
  });
  return text.length > max + 1 ? text.slice(0, max + 1) : text;
}

/** Whether the lower-case text that `pieces` makes holds `lowered` (a lower-case query), read piece by piece. */
export function piecesInclude(pieces: (each: (piece: string) => boolean) => void, lowered: string): boolean {
  if (lowered === '') return true;
  let tail = '';
  let found = false;
  pieces((piece) => {
    const window = tail + piece.toLowerCase();
    found = window.includes(lowered);
    tail = lowered.length > 1 ? window.slice(-(lowered.length - 1)) : '';
    return !found;
  });
  return found;
}
