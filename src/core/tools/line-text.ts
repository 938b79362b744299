/**
 * Platform text placed in a one-line format (`Name (ID)`, `ID: "text"`), one convention for both
 * servers: each free text is one JSON string literal, so that whatever it holds (quotes, newlines,
 * arrows, a fake `(ID)`, `: override`) a line always splits into the same fields. A name before
 * its `(ID)` stays bare when it is plain words (letters, digits, single spaces, `.'’&-`), which
 * can form no field of a line, and is quoted like a text otherwise (`"Bob (PBOB002)" (PREAL01)`):
 * most names cost nothing. Text that fills a field on its own is flattened instead. Loaded with
 * the task tools' logic only.
 */

/**
 * What could break a line or hide what it says: controls (C0, DEL, C1 with NEL), line and
 * paragraph separators, format characters (bidi overrides and isolates, invisible tag
 * characters, zero-width spaces), lone surrogates. Zero-width joiner and non-joiner stay: emoji
 * sequences and several scripts need them, and they cannot reorder or break a line.
 */
const HIDDEN = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
/** Whitespace runs, and anything hidden, become one space. */
const BREAKS = /(?:\s|(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}])+/gu;
/** Names shown bare: plain words, which hold nothing a line format uses (no quote, bracket, colon, comma, arrow, `#`). */
const BARE_NAME = /^[\p{L}\p{N}][\p{L}\p{M}\p{N}.'’&-]*(?: [\p{L}\p{M}\p{N}.'’&-]+)*$/u;
/** IDs shown bare: the platforms' IDs are letters, digits and a few signs; anything else is quoted. */
const BARE_ID = /^[A-Za-z0-9_.=+\-/@]+$/;

/** Cut to `max` UTF-16 units, marked with an ellipsis, never between the halves of a surrogate pair. */
function cutText(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** Text on one line: whitespace, separators, controls and format characters become single spaces; trimmed; cut to `maxChars`. */
export function flatText(text: unknown, maxChars?: number): string {
  if (typeof text !== 'string' || text === '') return '';
  return cutText(text.replace(BREAKS, ' ').trim(), maxChars);
}

/** A JSON string literal whose every hidden character is escaped as well (`\u202e`), so nothing in it is invisible. */
export function quote(text: string): string {
  return JSON.stringify(text).replace(HIDDEN, (hidden) => [...Array(hidden.length).keys()].map((i) => `\\u${hidden.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}

/** Platform text as one field of a line: flattened, cut to `maxChars`, quoted (`"text"`). */
export function quotedText(text: unknown, maxChars?: number): string {
  return quote(flatText(text, maxChars));
}

/** A time from the platform in a line: bare when it is an ISO 8601 time, quoted otherwise (empty stays empty). */
export function timeText(time: unknown): string {
  const text = time === undefined || time === null ? '' : String(time);
  return text === '' || /^[0-9T:.+\-Z]+$/.test(text) ? text : quote(text);
}

/** An ID in a line: bare when it looks like one, quoted otherwise (an ID is the platform's, but is never trusted to keep a line's shape). */
export function idText(id: string): string {
  return BARE_ID.test(id) ? id : quote(id);
}

/** A name flattened and cut: bare when plain words, else quoted (so `Bob (PBOB002)` stays inside its quotes). */
export function nameText(name: string, maxChars?: number): string {
  const flat = flatText(name, maxChars);
  return BARE_NAME.test(flat) ? flat : quote(flat);
}

/** `Name (ID)` (the name bare or quoted: nameText). A name alone is the name, an ID alone bare; neither is undefined. */
export function labelText(name: string | undefined, id: string | undefined, maxChars?: number): string | undefined {
  if (name === undefined) return id === undefined ? undefined : idText(id);
  const shown = nameText(name, maxChars);
  return id === undefined ? shown : `${shown} (${idText(id)})`;
}
