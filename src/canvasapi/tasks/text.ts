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

const BREAK_AT = new RegExp(BREAKS.source, 'iy');
const ANGLE = /[<>]/g;

/**
 * Where the tag that starts at `open` (a `<`) ends, or -1 when that `<` is text; as the whole
 * text is read: a break tag (BREAKS) first, else up to the next `>` that comes before any other
 * `<` (break tags, made blanks first, do not count).
 */
function tagEndAt(value: string, open: number): number {
  BREAK_AT.lastIndex = open;
  if (BREAK_AT.test(value)) return BREAK_AT.lastIndex;
  ANGLE.lastIndex = open + 1;
  for (let angle = ANGLE.exec(value); angle; angle = ANGLE.exec(value)) {
    if (angle[0] === '>') return angle.index + 1;
    BREAK_AT.lastIndex = angle.index;
    if (!BREAK_AT.test(value)) return -1;
    ANGLE.lastIndex = BREAK_AT.lastIndex;
  }
  return -1;
}

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
 * neither inside a tag nor inside an entity, so each is made as the whole text would be (the
 * test compares them on random texts, in pieces down to one character). A break tag becomes
 * `lineBreak` (a blank; plainLines passes a mark of its own, taken out of the source first).
 */
export function plainPieces(value: unknown, each: (piece: string) => boolean, pieceChars = PIECE_CHARS, lineBreak = ' '): void {
  if (typeof value !== 'string' || value === '') return;
  let at = 0;
  // The tail of the last piece that may start an entity (never left after the last piece), and a
  // blank run not yet written (dropped at the end: trimmed).
  let carry = '';
  let blank = false;
  let started = false;
  while (at < value.length) {
    // A piece never ends inside a tag: one that would is extended to the tag's end.
    let end = Math.min(value.length, at + pieceChars);
    for (let open = value.indexOf('<', at); open !== -1 && open < end; ) {
      const tagEnd = tagEndAt(value, open);
      if (tagEnd === -1) {
        open = value.indexOf('<', open + 1);
        continue;
      }
      end = Math.max(end, tagEnd);
      open = value.indexOf('<', tagEnd);
    }
    const source = lineBreak === ' ' ? value.slice(at, end) : value.slice(at, end).replaceAll(lineBreak, '');
    let text = carry + source.replace(BREAKS, lineBreak).replace(TAG, '');
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

/** Marks a break tag in plainLines' pieces: not a blank, so it survives the collapsing (taken out of the source first). */
const LINE_MARK = '\0';

/**
 * The plain lines of an HTML text as the platform shows them: each break tag (BREAKS) starts a
 * line; within a line, as plainText (tags dropped, entities decoded, blanks collapsed). Empty
 * lines before the first and after the last text are dropped. Read piece by piece, and only
 * until the lines joined by '\n' pass `maxChars`: then one more character, so that a cut marks it.
 */
export function plainLines(value: unknown, maxChars: number): string[] {
  const lines: string[] = [];
  let line = '';
  // Empty lines kept only once a line with text follows; chars: what lines.join('\n') holds.
  let empties = 0;
  let chars = 0;
  const close = () => {
    const text = line.trim();
    line = '';
    if (text === '') {
      if (lines.length) empties++;
      return;
    }
    for (; empties > 0 && chars <= maxChars; empties--) {
      lines.push('');
      chars++;
    }
    empties = 0;
    chars += text.length + (lines.length ? 1 : 0);
    lines.push(text);
  };
  plainPieces(
    value,
    (piece) => {
      for (const [index, part] of piece.split(LINE_MARK).entries()) {
        if (index > 0) close();
        if (chars > maxChars) return false;
        line += part;
      }
      return chars + line.length <= maxChars;
    },
    PIECE_CHARS,
    LINE_MARK,
  );
  close();
  // The cut: the lines joined at most maxChars + 1 characters.
  const joined = lines.join('\n');
  if (joined.length <= maxChars + 1) return lines;
  const kept = joined.slice(0, maxChars + 1).split('\n');
  while (kept.length && kept[kept.length - 1]!.trim() === '') kept.pop();
  return kept;
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
