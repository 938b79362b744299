/**
 * BulkEditItems' change, item by item: what each matched item's PATCH body and tag requests would
 * be (only the fields the change touches, in the shape its type's endpoint takes), the line that
 * says it, and the checks that depend on the items' types. Also the confirmation token: a digest
 * of the board, the filter, the change and every matched item's state, with the preview's time
 * (stateless: docs/tasks.md, BulkEditItems).
 */
import { createHash } from 'node:crypto';
import { ToolError, type InputIssue } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import { idText, quotedText } from '../../core/tools/line-text.js';
import { STICKY_COLORS } from '../task-vocabulary.js';
import { COLOR_FIELD, OWN_PATH, TAGGABLE, type BoardTags, type BulkFilter, type Target } from './bulk-select.js';
import { plainPieces, plainStart, plainText } from './text.js';

type Json = Record<string, unknown>;

export interface BulkUpdate {
  move_by?: { dx: number; dy: number } | undefined;
  color?: string | undefined;
  add_tags?: string[] | undefined;
  remove_tags?: string[] | undefined;
  width?: number | undefined;
  height?: number | undefined;
  text?: string | undefined;
  replace_text?: { find: string; with: string } | undefined;
}

/** What one item's change sends: a PATCH (own endpoint, or the generic one for a move) and tag requests. */
export interface ItemChange {
  target: Target;
  patch?: { path: string; body: Json };
  attach: string[];
  detach: string[];
  /** `ID type "text": what changes`. */
  line: string;
}

/** Characters of an item's text in a line. */
const LINE_TEXT = 60;
const HEX = /^#[0-9a-f]{6}$/i;
const STICKY = new Set<string>(STICKY_COLORS);
/** The frame fills the spec allows (UpdateFrameStyle's list). */
const FRAME_COLORS = ['#f5f6f8', '#d5f692', '#d0e17a', '#93d275', '#67c6c0', '#23bfe7', '#a6ccf5', '#7b92ff', '#fff9b1', '#f5d128', '#ff9d48', '#f16c7f', '#ea94bb', '#ffcee0', '#b384bb', '#000000', '#ffffff'];
/** Which types take each change; the refusal lists them. */
const TAKES: Readonly<Record<string, ReadonlySet<string>>> = {
  color: new Set(Object.keys(COLOR_FIELD)),
  width: new Set(['sticky_note', 'shape', 'text', 'card', 'frame']),
  height: new Set(['sticky_note', 'shape', 'card', 'frame']),
  text: new Set(Object.keys(OWN_PATH)),
  replace_text: new Set(Object.keys(OWN_PATH)),
  add_tags: TAGGABLE,
  remove_tags: TAGGABLE,
};

/** A colour from the platform in a line: bare when it looks like one, quoted otherwise. */
export function colourText(colour: string | undefined): string {
  if (colour === undefined) return 'none';
  return /^#?[A-Za-z0-9_]{1,30}$/.test(colour) ? colour : quotedText(colour, 30);
}

export function itemHead(target: Target): string {
  // Only the start a line shows is made: a note may hold 380,000 characters.
  return `${idText(target.id)} ${idText(target.type)} ${quotedText(plainStart((each) => plainPieces(target.text, each), LINE_TEXT), LINE_TEXT)}`;
}

/** Checks that need no read: the colour's form, and each change against filter.type when given. Nothing is sent when one fails. */
export function checkStatically(filter: BulkFilter, update: BulkUpdate | undefined, isDelete: boolean): void {
  const issues: InputIssue[] = [];
  const colourProblem = (value: string, type: string | undefined) => {
    if (type === 'sticky_note') return STICKY.has(value) ? undefined : `sticky notes take a colour name: ${STICKY_COLORS.join(', ')}`;
    if (type === 'frame') return FRAME_COLORS.includes(value.toLowerCase()) ? undefined : `frames take one of ${FRAME_COLORS.join(', ')}`;
    if (type !== undefined) return HEX.test(value) ? undefined : `${type} items take a #RRGGBB colour`;
    return STICKY.has(value) || HEX.test(value) ? undefined : `must be #RRGGBB, or for sticky notes a name: ${STICKY_COLORS.join(', ')}`;
  };
  if (filter.color !== undefined) {
    const problem = colourProblem(filter.color, filter.type);
    if (problem) issues.push({ parameter: 'filter.color', problem });
  }
  if (update) {
    if (update.color !== undefined) {
      const problem = colourProblem(update.color, filter.type);
      if (problem) issues.push({ parameter: 'update.color', problem });
    }
    if (update.text !== undefined && update.replace_text !== undefined) issues.push({ parameter: 'update.replace_text', problem: 'give text (the whole new text) or replace_text, not both' });
    const both = (update.add_tags ?? []).filter((t) => (update.remove_tags ?? []).some((r) => r.trim().toLowerCase() === t.trim().toLowerCase()));
    if (both.length) issues.push({ parameter: 'update.remove_tags', problem: `names tags add_tags adds too: ${both.map((t) => JSON.stringify(t)).join(', ')}` });
    if (filter.type !== undefined) issues.push(...typeIssues(update, [filter.type]));
  }
  if (isDelete && filter.type === 'frame') issues.push({ parameter: 'delete', problem: 'frames are not deleted by this tool (what becomes of their items differs): CanvasApi.DeleteFrameItem deletes one' });
  if (issues.length) throw ToolError.invalidInput(issues);
}

/** Each change the matched items' types do not take. */
function typeIssues(update: BulkUpdate, types: readonly string[]): InputIssue[] {
  const issues: InputIssue[] = [];
  const distinct = [...new Set(types)].sort();
  for (const [change, takers] of Object.entries(TAKES)) {
    if (update[change as keyof BulkUpdate] === undefined) continue;
    const refused = distinct.filter((type) => !takers.has(type));
    if (refused.length) issues.push({ parameter: `update.${change}`, problem: `does not apply to ${refused.join(', ')} items (it applies to ${[...takers].join(', ')}): narrow the filter with type` });
  }
  if (update.width !== undefined && update.height !== undefined && distinct.includes('sticky_note')) issues.push({ parameter: 'update.height', problem: 'sticky notes keep their shape: give width or height, not both (filter.type narrows to other items)' });
  if (update.color !== undefined) {
    if (distinct.includes('sticky_note') && !STICKY.has(update.color)) issues.push({ parameter: 'update.color', problem: `sticky notes take a colour name: ${STICKY_COLORS.join(', ')}; narrow with filter.type to recolour other items in #RRGGBB` });
    const hexTypes = distinct.filter((type) => type !== 'sticky_note' && type in COLOR_FIELD);
    if (hexTypes.length && !HEX.test(update.color)) issues.push({ parameter: 'update.color', problem: `${hexTypes.join(', ')} items take a #RRGGBB colour; narrow with filter.type to recolour sticky notes by name` });
    else if (distinct.includes('frame') && !FRAME_COLORS.includes(update.color.toLowerCase())) issues.push({ parameter: 'update.color', problem: `frames take one of ${FRAME_COLORS.join(', ')}; narrow with filter.type to recolour other items` });
  }
  return issues;
}

/** The checks that need the matched items' types: refused before anything is written. */
export function checkTypes(update: BulkUpdate | undefined, isDelete: boolean, targets: readonly Target[]): void {
  const issues = update ? typeIssues(update, targets.map((t) => t.type)) : [];
  const frames = targets.filter((t) => t.type === 'frame');
  if (isDelete && frames.length) issues.push({ parameter: 'delete', problem: `${frames.length} of the matched items are frames, which this tool does not delete (their items' fate differs): add filter.type, or delete a frame with CanvasApi.DeleteFrameItem` });
  if (issues.length) throw ToolError.invalidInput(issues, true);
}

/** One item's change, or undefined when it is already as asked (or moves with its matched frame). */
export function changeOf(target: Target, update: BulkUpdate, tags: BoardTags | undefined, movingFrames: ReadonlySet<string>): ItemChange | undefined {
  const body: Json = {};
  const said: string[] = [];
  if (update.color !== undefined && update.color.toLowerCase() !== target.color?.toLowerCase()) {
    body.style = { [COLOR_FIELD[target.type]!]: update.color };
    said.push(`color ${colourText(target.color)} -> ${colourText(update.color)}`);
  }
  const text = newText(target, update);
  if (text !== undefined) {
    body.data = target.type === 'card' || target.type === 'frame' ? { title: text } : { content: escapeHtml(text) };
    said.push(`text ${quotedText(plainText(target.text), LINE_TEXT)} -> ${quotedText(text, LINE_TEXT)}`);
  }
  const geometry: Json = {};
  if (update.width !== undefined && update.width !== target.width) {
    geometry.width = update.width;
    said.push(`width ${target.width ?? '?'} -> ${update.width}`);
  }
  if (update.height !== undefined && update.height !== target.height) {
    geometry.height = update.height;
    said.push(`height ${target.height ?? '?'} -> ${update.height}`);
  }
  if (Object.keys(geometry).length) body.geometry = geometry;
  // A child of a frame that moves too moves with it: moving it as well would move it twice.
  const moves = update.move_by !== undefined && (update.move_by.dx !== 0 || update.move_by.dy !== 0) && !(target.parent !== undefined && movingFrames.has(target.parent));
  if (moves) {
    const to = { x: target.x + update.move_by!.dx, y: target.y + update.move_by!.dy };
    body.position = to;
    said.push(`at ${target.x},${target.y} -> ${to.x},${to.y}${target.parent !== undefined ? ` (in frame ${idText(target.parent)})` : ''}`);
  }
  const has = new Set(target.tags ?? []);
  const attach = (update.add_tags ?? []).map((title) => tags!.byTitle.get(title.trim().toLowerCase())!.id).filter((id) => !has.has(id));
  const detach = (update.remove_tags ?? []).flatMap((title) => tags?.byTitle.get(title.trim().toLowerCase())?.id ?? []).filter((id) => has.has(id));
  const tagTitle = (id: string) => quotedText(tags?.byId.get(id) ?? id, LINE_TEXT);
  if (attach.length || detach.length) said.push(`tags ${[...attach.map((id) => `+${tagTitle(id)}`), ...detach.map((id) => `-${tagTitle(id)}`)].join(' ')}`);
  if (!said.length) return undefined;
  const keys = Object.keys(body);
  const patch = !keys.length ? undefined : keys.length === 1 && keys[0] === 'position' && !(target.type in OWN_PATH) ? { path: '/v2/boards/{board_id}/items/{item_id}', body } : { path: `/v2/boards/{board_id}/${OWN_PATH[target.type]}/{item_id}`, body };
  return { target, ...(patch ? { patch } : {}), attach, detach, line: `${itemHead(target)}: ${said.join('; ')}` };
}

/** The item's new plain text, or undefined when the change leaves it as it is. */
function newText(target: Target, update: BulkUpdate): string | undefined {
  if (update.text === undefined && update.replace_text === undefined) return undefined;
  const current = plainText(target.text);
  const next = update.text ?? current.split(update.replace_text!.find).join(update.replace_text!.with);
  return next === current ? undefined : next;
}

/** Stable JSON: object keys sorted, undefined left out. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Json).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** An item's state as far as a change can touch it, with its modifiedAt. */
function stateDigest(target: Target): string {
  return createHash('sha256').update(stable(target)).digest('base64url').slice(0, 16);
}

/** The filter as compared: IDs sorted and once each, titles and text in lower case. */
function normalFilter(filter: BulkFilter): Json {
  return {
    item_ids: filter.item_ids ? [...new Set(filter.item_ids)].sort() : undefined,
    type: filter.type,
    frame_id: filter.frame_id,
    tag: filter.tag?.trim().toLowerCase(),
    text: filter.text?.toLowerCase(),
    color: filter.color?.toLowerCase(),
  };
}

/**
 * The confirmation token: `<preview time, base 36>.<matched count, base 36>.<digest>`, the digest
 * the first 128 bits of SHA-256 over the board, filter, change, time and each matched item's ID
 * and state. Nothing is stored: the confirming call recomputes it from its own reads.
 */
export function tokenFor(boardId: string, filter: BulkFilter, change: BulkUpdate | 'delete', previewMs: number, targets: readonly Target[]): string {
  const items = [...targets].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => [t.id, stateDigest(t)]);
  const digest = createHash('sha256').update(stable(['BulkEditItems/1', boardId, normalFilter(filter), change, previewMs, items])).digest().subarray(0, 16).toString('base64url');
  return `${previewMs.toString(36)}.${targets.length.toString(36)}.${digest}`;
}

/** A token's preview time and count, or undefined when it is not one this tool gives. */
export function readToken(token: string): { previewMs: number; count: number } | undefined {
  const match = /^([0-9a-z]{1,12})\.([0-9a-z]{1,4})\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!match) return undefined;
  const previewMs = parseInt(match[1]!, 36);
  const count = parseInt(match[2]!, 36);
  return Number.isSafeInteger(previewMs) && Number.isSafeInteger(count) ? { previewMs, count } : undefined;
}
