/**
 * Where a ReadBoard call stopped, as the `cursor` of its next_page: the platform's cursor of the
 * items page to read, how many of that page's records come before the next item, and how many
 * matching items came before it (its offset). The cursor names the board and the filters it was
 * made for, so it is never read with others. Checked before anything is sent.
 */
import { createHash } from 'node:crypto';
import { ToolError } from '../../core/errors.js';
import { isRecord } from '../../core/json.js';

export interface ItemPosition {
  /** The platform's cursor of the page; none for the first page. */
  cursor?: string;
  /** Records of that page before the position. */
  skip: number;
  /** Matching items before the position: the offset of the next one. */
  matched: number;
}

/** The longest cursor handed out: what an identifier parameter takes. */
const MAX_CURSOR_CHARS = 1_000;

interface Filters {
  board_id: string;
  frame_id?: string | undefined;
  item_types?: readonly string[] | undefined;
  query?: string | undefined;
}

function filtersOf(args: Filters): string {
  const key = JSON.stringify([args.board_id, args.frame_id ?? '', [...(args.item_types ?? [])].sort(), args.query?.toLowerCase() ?? '']);
  return createHash('sha256').update(key).digest('base64url').slice(0, 12);
}

/** The cursor for `position`; undefined when the platform's cursor is too long to carry. */
export function encodePosition(position: ItemPosition, args: Filters): string | undefined {
  const token = Buffer.from(JSON.stringify({ v: 1, f: filtersOf(args), c: position.cursor ?? '', s: position.skip, m: position.matched })).toString('base64url');
  return token.length <= MAX_CURSOR_CHARS ? token : undefined;
}

/** Where a call starts: its `cursor` (checked against its filters), then `offset` at or past it. */
export function startOf(args: Filters & { cursor?: string | undefined; offset?: number | undefined }): { from: ItemPosition; offset: number } {
  if (args.cursor === undefined) return { from: { skip: 0, matched: 0 }, offset: args.offset ?? 0 };
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(args.cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const token = isRecord(decoded) ? decoded : {};
  const valid =
    token.v === 1 &&
    typeof token.f === 'string' &&
    typeof token.c === 'string' &&
    Number.isSafeInteger(token.s) &&
    (token.s as number) >= 0 &&
    Number.isSafeInteger(token.m) &&
    (token.m as number) >= 0;
  if (!valid) throw ToolError.invalidParameter('cursor', 'is not a cursor ReadBoard gave: pass next_page.cursor exactly as it came, or leave cursor out to start from the first item');
  if (token.f !== filtersOf(args)) {
    throw ToolError.invalidParameter('cursor', 'was given for another board or other frame_id, item_types or query: pass those exactly as in the call that gave it, or leave cursor out to start over');
  }
  const from: ItemPosition = { ...(token.c ? { cursor: token.c as string } : {}), skip: token.s as number, matched: token.m as number };
  const offset = args.offset ?? from.matched;
  if (offset < from.matched) {
    throw ToolError.invalidParameter('offset', `is ${offset}, before where cursor continues (item ${from.matched}): pass cursor alone to continue, or offset alone to read from there`);
  }
  return { from, offset };
}
