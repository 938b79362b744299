/**
 * Tags: per-board labels with a unique title, attachable to cards and sticky notes (at most 8 per
 * item). Deleting a tag detaches it from every item. Items-by-tag is offset-paged.
 */
import type { SandboxResponse } from '../exchange.js';
import { badRequest, json, noContent, notFound, obj, offsetEnvelope, offsetParam, str, validate } from './http.js';
import type { BoardRecord, TagRecord } from './model.js';
import { renderGenericItem, renderTag } from './render.js';
import { liveBoard, touchBoard, type Ctx, type Router } from './router.js';

const TAG_COLORS = ['red', 'light_green', 'cyan', 'yellow', 'magenta', 'green', 'blue', 'gray', 'violet', 'dark_green', 'dark_blue', 'black'] as const;
const TAGGABLE = new Set(['card', 'sticky_note']);
const MAX_TAGS_PER_ITEM = 8;

function tagOf(ctx: Ctx, board: BoardRecord, id = ctx.params.tag_id ?? ''): TagRecord {
  const tag = board.tags.get(id);
  if (!tag) throw notFound('Tag', id);
  return tag;
}

function ensureUniqueTitle(board: BoardRecord, title: string, except?: string): void {
  for (const t of board.tags.values()) {
    if (t.id !== except && t.title.toLowerCase() === title.toLowerCase()) throw badRequest(`Invalid parameters: a tag titled ${JSON.stringify(title)} already exists on this board (${t.id})`);
  }
}

function itemFor(ctx: Ctx, board: BoardRecord) {
  const id = ctx.params.item_id ?? '';
  const item = board.items.get(id);
  if (!item) throw notFound('Item', id);
  return item;
}

/** POST /v2/boards/{board_id}/items/{item_id}?tag_id=... */
export function attachTag(ctx: Ctx, board: BoardRecord): SandboxResponse {
  const tag = tagOf(ctx, board, ctx.query.required('tag_id'));
  const item = itemFor(ctx, board);
  if (!TAGGABLE.has(item.type)) throw badRequest(`Invalid parameters: tags can be attached to cards and sticky notes only, item ${item.id} is a ${item.type}`);
  if (!item.tagIds.includes(tag.id)) {
    if (item.tagIds.length >= MAX_TAGS_PER_ITEM) throw badRequest(`Invalid parameters: an item can carry at most ${MAX_TAGS_PER_ITEM} tags`);
    item.tagIds.push(tag.id);
    touchBoard(ctx, board);
  }
  return noContent();
}

/** DELETE /v2/boards/{board_id}/items/{item_id}?tag_id=... (without tag_id the item itself is deleted). */
export function detachTag(ctx: Ctx, board: BoardRecord): SandboxResponse {
  const tag = tagOf(ctx, board, ctx.query.required('tag_id'));
  const item = itemFor(ctx, board);
  if (item.tagIds.includes(tag.id)) {
    item.tagIds = item.tagIds.filter((t) => t !== tag.id);
    touchBoard(ctx, board);
  }
  return noContent();
}

/** GET /v2/boards/{board_id}/items?tag_id=... (offset-paged). */
export function itemsByTag(ctx: Ctx, board: BoardRecord): SandboxResponse {
  const tag = tagOf(ctx, board, ctx.query.required('tag_id'));
  const limit = ctx.query.int('limit', { min: 1, max: 50, def: 20 });
  const offset = offsetParam(ctx.query);
  const items = [...board.items.values()].filter((i) => i.tagIds.includes(tag.id));
  const data = items.slice(offset, offset + limit).map((i) => renderGenericItem(i, ctx.base));
  return json(200, offsetEnvelope(ctx.req, items.length, offset, limit, data));
}

export function registerTags(router: Router): void {
  router.add(
    'POST',
    '/v2/boards/:board_id/tags',
    (ctx) => {
      const board = liveBoard(ctx);
      const body = validate(ctx.body, obj({ title: str({ minLength: 1, maxLength: 120 }), fillColor: str({ enum: TAG_COLORS }) }, ['title']));
      ensureUniqueTitle(board, body.title);
      const tag: TagRecord = { id: ctx.store.ids.numeric(), seq: ctx.store.nextSeq(), boardId: board.id, title: body.title, fillColor: body.fillColor ?? 'red' };
      board.tags.set(tag.id, tag);
      touchBoard(ctx, board);
      return json(201, renderTag(tag, ctx.base));
    },
    { body: 'required' },
  );

  router.add('GET', '/v2/boards/:board_id/tags', (ctx) => {
    const board = liveBoard(ctx);
    const limit = ctx.query.int('limit', { min: 1, max: 50, def: 20 });
    const offset = offsetParam(ctx.query);
    const tags = [...board.tags.values()];
    const data = tags.slice(offset, offset + limit).map((t) => renderTag(t, ctx.base, false));
    return json(200, offsetEnvelope(ctx.req, tags.length, offset, limit, data));
  });

  router.add('GET', '/v2/boards/:board_id/tags/:tag_id', (ctx) => json(200, renderTag(tagOf(ctx, liveBoard(ctx)), ctx.base)));

  router.add(
    'PATCH',
    '/v2/boards/:board_id/tags/:tag_id',
    (ctx) => {
      const board = liveBoard(ctx);
      const tag = tagOf(ctx, board);
      const body = validate(ctx.body, obj({ title: str({ minLength: 1, maxLength: 120 }), fillColor: str({ enum: TAG_COLORS }) }));
      if (body.title !== undefined) {
        ensureUniqueTitle(board, body.title, tag.id);
        tag.title = body.title;
      }
      if (body.fillColor !== undefined) tag.fillColor = body.fillColor;
      touchBoard(ctx, board);
      return json(200, renderTag(tag, ctx.base));
    },
    { body: 'required' },
  );

  router.add('DELETE', '/v2/boards/:board_id/tags/:tag_id', (ctx) => {
    const board = liveBoard(ctx);
    const tag = tagOf(ctx, board);
    board.tags.delete(tag.id);
    for (const item of board.items.values()) item.tagIds = item.tagIds.filter((t) => t !== tag.id);
    touchBoard(ctx, board);
    return noContent();
  });

  router.add('GET', '/v2/boards/:board_id/items/:item_id/tags', (ctx) => {
    const board = liveBoard(ctx);
    const item = itemFor(ctx, board);
    const tags = item.tagIds.map((id) => board.tags.get(id)).filter((t): t is TagRecord => t !== undefined);
    return json(200, { tags: tags.map((t) => renderTag(t, ctx.base, false)) });
  });
}
