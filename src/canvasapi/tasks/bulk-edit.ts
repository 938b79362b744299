/**
 * CanvasApi.BulkEditItems: one change (move, recolour, retag, resize, new text) or a delete, on
 * every item a filter matches (bulk-select.ts reads them, at most BULK_LIMITS.maxItems). Without
 * `confirm` it is a preview: nothing is written; each item's change is listed and a token given
 * that binds the board, the arguments and every matched item's state (bulk-change.ts). With the
 * token the same reads run again: any difference (an item new in the set, gone from it, modified
 * since the preview, or other arguments) changes nothing and says which; else exactly those items
 * are changed (deletes by the previewed IDs only), a few at a time, and each one reported.
 */
import { ToolError } from '../../core/errors.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { changeOf, checkStatically, checkTypes, itemHead, readToken, tokenFor, type BulkUpdate, type ItemChange } from './bulk-change.js';
import { neverSentForBudget, writeFailure } from './write-failure.js';
import { eachAtMost, readBoardTags, selectTargets, tagNamed, type BulkFilter, type Get, type Target } from './bulk-select.js';

type Json = Record<string, unknown>;

export interface BulkEditArgs {
  board_id: string;
  filter: BulkFilter;
  update?: BulkUpdate | undefined;
  delete?: true | undefined;
  confirm?: string | undefined;
}

/** Writes in flight at once. */
const WRITE_CONCURRENCY = 4;

export async function bulkEditItems(args: BulkEditArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const isDelete = args.delete === true;
  checkStatically(args.filter, args.update, isDelete);
  const token = args.confirm === undefined ? undefined : readToken(args.confirm);
  if (args.confirm !== undefined && !token) throw ToolError.invalidParameter('confirm', 'is not a token this tool gave: preview first (the same arguments without confirm), then confirm with the token it answers');
  // The preview's time, from before its reads: an item modified during them counts as modified since.
  const previewMs = token?.previewMs ?? context.deps.now().getTime();
  const get = getter(args.board_id, context);
  const tagTitles = [...(args.update?.add_tags ?? []), ...(args.update?.remove_tags ?? [])];
  const tags = args.filter.tag !== undefined || tagTitles.length ? await readBoardTags(get, context.signal) : undefined;
  for (const title of args.update?.add_tags ?? []) tagNamed(tags!, title, 'update.add_tags');
  const { targets, notFound } = await selectTargets(get, context.signal, args.filter, { tags, readColor: args.update?.color !== undefined, readTags: tagTitles.length > 0 });
  checkTypes(args.update, isDelete, targets);
  const change = isDelete ? 'delete' : (args.update as BulkUpdate);
  const expected = tokenFor(args.board_id, args.filter, change, previewMs, targets);
  const movingFrames = new Set(args.update?.move_by ? targets.filter((t) => t.type === 'frame').map((t) => t.id) : []);
  const changes = isDelete ? [] : targets.flatMap((t) => changeOf(t, args.update!, tags, movingFrames) ?? []);
  if (!token) return preview(args, targets, changes, notFound, expected);
  if (args.confirm !== expected) throw differs(targets, token, previewMs);
  return isDelete ? applyDeletes(args, targets, context) : applyUpdates(args, targets, changes, context);
}

function getter(boardId: string, context: ToolContext<CanvasApiDeps>): Get {
  return async (path, query, pathParams = {}) =>
    (await context.deps.client.request<unknown>({ method: 'GET', effect: 'read', path, pathParams: { board_id: boardId, ...pathParams }, query, signal: context.signal, resourceLabel: `the board "${boardId}"` })).data;
}

function preview(args: BulkEditArgs, targets: readonly Target[], changes: readonly ItemChange[], notFound: readonly string[], token: string): Json {
  const isDelete = args.delete === true;
  const changed = new Set(changes.map((c) => c.target.id));
  const unchanged = targets.filter((t) => !changed.has(t.id)).map((t) => t.id);
  const count = isDelete ? targets.length : changes.length;
  const verb = isDelete ? 'deleted' : 'changed';
  return {
    summary: `Preview, nothing written: ${targets.length} item${targets.length === 1 ? '' : 's'} match; ${count} would be ${verb}${unchanged.length ? `, ${unchanged.length} already as asked` : ''}.`,
    board_id: args.board_id,
    matched: targets.length,
    changes: isDelete ? targets.map((t) => `${itemHead(t)}: delete`) : changes.map((c) => c.line),
    ...(unchanged.length ? { unchanged } : {}),
    ...(notFound.length ? { not_found: notFound } : {}),
    ...(count ? { confirm: token } : {}),
    next_step: count
      ? 'Check the changes with the user; to apply exactly these, call again with the same arguments and confirm set to this token. If anything changes on the board meanwhile, nothing is applied and the call says what differs.'
      : 'Nothing to change: no item matches, or every match is already as asked.',
  };
}

/** The token does not match: which items differ, as far as the stamps and the count tell. Nothing was written. */
function differs(targets: readonly Target[], token: { count: number }, previewMs: number): ToolError {
  const since = (stamp: string) => {
    const at = Date.parse(stamp);
    return Number.isFinite(at) && at >= previewMs;
  };
  const created = targets.filter((t) => since(t.createdAt)).map((t) => t.id);
  const modified = targets.filter((t) => !since(t.createdAt) && since(t.modifiedAt)).map((t) => t.id);
  const list = (ids: string[]) => ids.slice(0, 20).join(', ') + (ids.length > 20 ? `, and ${ids.length - 20} more` : '');
  const facts = [
    ...(modified.length ? [`modified since the preview: ${list(modified)}`] : []),
    ...(created.length ? [`new since the preview: ${list(created)}`] : []),
    ...(token.count !== targets.length ? [`the preview matched ${token.count} items, now ${targets.length} match (${token.count > targets.length ? 'some were deleted, or no longer match' : 'some were added, or now match'})`] : []),
  ];
  const what = facts.length
    ? facts.join('; ')
    : 'the arguments differ from the preview\'s, or items of the set were retagged, recoloured or replaced without a stamp that says when';
  return new ToolError({
    kind: 'invalid_input',
    message: `Nothing was changed: confirm does not match these arguments and the board as it is now (${what}).`,
    issues: [{ parameter: 'confirm', problem: `does not match the board now or these arguments: ${what}. Nothing was changed` }],
    nextStep: 'Preview again (the same arguments without confirm), check the new list with the user, then confirm with its token.',
  });
}

interface Failure {
  id: string;
  /** The request may have been carried out all the same (an answer lost, a 5xx). */
  may_have_happened: boolean;
  error: string;
}

interface Outcome {
  done: string[];
  gone: string[];
  failed: Failure[];
  notSent: string[];
}

/** Each change: its PATCH, then its tags; the first failure of an item stops the item's other requests (not sent). */
async function applyUpdates(args: BulkEditArgs, targets: readonly Target[], changes: readonly ItemChange[], context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const outcome: Outcome = { done: [], gone: [], failed: [], notSent: [] };
  const send = sender(args.board_id, context);
  let stopped = false;
  await eachAtMost(changes, WRITE_CONCURRENCY, async (change) => {
    const id = change.target.id;
    if (stopped || context.signal.aborted) return void outcome.notSent.push(id);
    const steps: (() => Promise<unknown>)[] = [
      ...(change.patch ? [() => send('PATCH', 'update', change.patch!.path, id, { body: change.patch!.body })] : []),
      ...change.attach.map((tagId) => () => send('POST', 'update', '/v2/boards/{board_id}/items/{item_id}', id, { query: { tag_id: tagId } })),
      ...change.detach.map((tagId) => () => send('DELETE', 'update', '/v2/boards/{board_id}/items/{item_id}', id, { query: { tag_id: tagId } })),
    ];
    for (const [index, step] of steps.entries()) {
      try {
        await step();
      } catch (error) {
        if (index === 0 && neverSentForBudget(error)) {
          stopped = true;
          return void outcome.notSent.push(id);
        }
        return void outcome.failed.push({ id, ...failureOf(error, index > 0) });
      }
    }
    outcome.done.push(id);
    context.progress(outcome.done.length, changes.length, `${outcome.done.length} of ${changes.length} items updated`);
  });
  const changed = new Set(changes.map((c) => c.target.id));
  const unchanged = targets.filter((t) => !changed.has(t.id)).map((t) => t.id);
  return report(args, outcome, changes.length, unchanged);
}

async function applyDeletes(args: BulkEditArgs, targets: readonly Target[], context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const outcome: Outcome = { done: [], gone: [], failed: [], notSent: [] };
  const send = sender(args.board_id, context);
  let stopped = false;
  await eachAtMost(targets, WRITE_CONCURRENCY, async (target) => {
    if (stopped || context.signal.aborted) return void outcome.notSent.push(target.id);
    try {
      // The generic delete, by the ID the preview listed: nothing outside the preview is reached.
      await send('DELETE', 'delete', '/v2/boards/{board_id}/items/{item_id}', target.id, {});
      outcome.done.push(target.id);
      context.progress(outcome.done.length, targets.length, `${outcome.done.length} of ${targets.length} items deleted`);
    } catch (error) {
      if (error instanceof ToolError && error.details.kind === 'not_found') return void outcome.gone.push(target.id);
      if (neverSentForBudget(error)) {
        stopped = true;
        return void outcome.notSent.push(target.id);
      }
      outcome.failed.push({ id: target.id, ...failureOf(error, false) });
    }
  });
  return report(args, outcome, targets.length, []);
}

type Send = (method: 'PATCH' | 'POST' | 'DELETE', effect: 'update' | 'delete', path: string, itemId: string, extra: { body?: Json; query?: Record<string, string> }) => Promise<unknown>;

function sender(boardId: string, context: ToolContext<CanvasApiDeps>): Send {
  return async (method, effect, path, itemId, extra) =>
    (await context.deps.client.request<unknown>({ method, effect, path, pathParams: { board_id: boardId, item_id: itemId }, ...extra, signal: context.signal, resourceLabel: `the item "${itemId}"` })).data;
}

/** What a failure means: refused by the platform (nothing happened), or it may have happened. `partly`: an earlier request of the item was done. */
function failureOf(error: unknown, partly: boolean): Omit<Failure, 'id'> {
  const { mayHaveHappened, message } = writeFailure(error);
  return { may_have_happened: mayHaveHappened || partly, error: partly ? `${message} (after part of its change was made)` : message };
}

function report(args: BulkEditArgs, outcome: Outcome, total: number, unchanged: string[]): Json {
  const isDelete = args.delete === true;
  const verb = isDelete ? 'deleted' : 'updated';
  const { done, gone, failed, notSent } = outcome;
  const sorted = (ids: string[]) => [...ids].sort();
  const complete = done.length + gone.length === total;
  const result: Json = {
    summary:
      `${done.length} of ${total} item${total === 1 ? '' : 's'} ${verb}` +
      (gone.length ? `; ${gone.length} already gone` : '') +
      (failed.length ? `; ${failed.length} failed` : '') +
      (notSent.length ? `; ${notSent.length} not sent` : '') +
      '.',
    board_id: args.board_id,
    [verb]: sorted(done),
    ...(gone.length ? { already_gone: sorted(gone) } : {}),
    ...(unchanged.length ? { unchanged } : {}),
  };
  if (complete) return result;
  result.failed = [...failed].sort((a, b) => (a.id < b.id ? -1 : 1));
  if (notSent.length) result.not_sent = sorted(notSent);
  result.next_step = nextStep(args, failed.some((f) => f.may_have_happened));
  return result;
}

/**
 * What to do about the rest. The token no longer matches the changed items, so repeating this
 * call changes nothing; a new preview lists what is still to do, except for a move (it would move
 * the moved ones again): that one names the items left.
 */
function nextStep(args: BulkEditArgs, mayHave: boolean): string {
  const check = mayHave ? 'Items whose failure may_have_happened may be changed already: read them (CanvasApi.ReadBoard) first. ' : '';
  if (args.delete) return `${check}Preview again with the same filter: the deleted items are gone from it, the rest are listed; a delete repeated on an item already deleted is reported as already gone.`;
  if (args.update?.move_by) return `${check}A move is relative: preview again with filter.item_ids set to the failed and not-sent items only (never the same filter, which would move the moved items again), then confirm.`;
  return `${check}Preview again with the same arguments: items already changed show as already as asked, the rest are listed; then confirm with the new token.`;
}
