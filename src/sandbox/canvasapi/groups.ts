/**
 * Groups: sets of two or more items of a board that move together. An item belongs to at most
 * one group. DELETE /groups/{id} ungroups (items stay) unless delete_items=true, which deletes the
 * group's items as well.
 */
import type { SandboxResponse } from '../exchange.js';
import { arr, badRequest, cursorPage, json, noContent, notFound, obj, pageUrl, selfUrl, str, validate } from './http.js';
import type { BoardRecord, GroupRecord } from './model.js';
import { renderGenericItem } from './render.js';
import { removeItem } from './items.js';
import { liveBoard, touchBoard, type Ctx, type Router } from './router.js';

const GROUP_BODY = obj({ data: obj({ items: arr(str({ minLength: 1 }), { minItems: 2, maxItems: 500 }) }, ['items']) }, ['data']);

function groupUrl(base: string, g: GroupRecord): string {
  return `${base}/v2/boards/${g.boardId}/groups/${g.id}`;
}

function renderGroup(g: GroupRecord, base: string): Record<string, unknown> {
  return { id: g.id, type: 'group', data: { items: [...g.itemIds] }, links: { self: groupUrl(base, g) } };
}

function groupOf(ctx: Ctx, board: BoardRecord, id = ctx.params.group_id ?? ''): GroupRecord {
  const g = board.groups.get(id);
  if (!g) throw notFound('Group', id);
  return g;
}

function checkedItems(board: BoardRecord, ids: string[], except?: string): string[] {
  const unique = [...new Set(ids)];
  if (unique.length < 2) throw badRequest('Invalid parameters: a group needs at least two different items');
  for (const id of unique) {
    if (!board.items.has(id)) throw notFound('Item', id);
    for (const g of board.groups.values()) {
      if (g.id !== except && g.itemIds.includes(id)) throw badRequest(`Invalid parameters: item ${id} already belongs to group ${g.id}`);
    }
  }
  return unique;
}

function deleteGroup(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  const deleteItems = ctx.query.bool('delete_items', false);
  const group = groupOf(ctx, board);
  board.groups.delete(group.id);
  if (deleteItems) {
    for (const id of group.itemIds) {
      const item = board.items.get(id);
      if (item) removeItem(ctx.store, board, item);
    }
  }
  touchBoard(ctx, board);
  return noContent();
}

export function registerGroups(router: Router): void {
  router.add(
    'POST',
    '/v2/boards/:board_id/groups',
    (ctx) => {
      const board = liveBoard(ctx);
      const body = validate(ctx.body, GROUP_BODY);
      const g: GroupRecord = { id: ctx.store.ids.numeric(), seq: ctx.store.nextSeq(), boardId: board.id, itemIds: checkedItems(board, body.data.items) };
      board.groups.set(g.id, g);
      touchBoard(ctx, board);
      return json(201, renderGroup(g, ctx.base));
    },
    { body: 'required' },
  );

  router.add('GET', '/v2/boards/:board_id/groups', (ctx) => {
    const board = liveBoard(ctx);
    const limit = ctx.query.int('limit', { min: 10, max: 50, def: 10 });
    const page = cursorPage([...board.groups.values()], (g) => g.seq, ctx.query.one('cursor'), limit);
    return json(200, {
      limit,
      size: page.page.length,
      total: page.total,
      ...(page.next ? { cursor: page.next } : {}),
      data: page.page.map((g) => renderGroup(g, ctx.base)),
    });
  });

  router.add('GET', '/v2/boards/:board_id/groups/items', (ctx) => {
    const board = liveBoard(ctx);
    const group = groupOf(ctx, board, ctx.query.required('group_item_id'));
    const limit = ctx.query.int('limit', { min: 10, max: 50, def: 10 });
    const items = group.itemIds.map((id) => board.items.get(id)).filter((i) => i !== undefined);
    const page = cursorPage(items, (i) => i.seq, ctx.query.one('cursor'), limit);
    const offset = page.page[0] ? items.indexOf(page.page[0]) : items.length;
    return json(200, {
      limit,
      size: page.page.length,
      total: items.length,
      ...(page.next ? { cursor: page.next } : {}),
      data: {
        id: group.id,
        type: 'group',
        // The spec models the group's items as a list of item pages; this is the single page served.
        data: [
          {
            data: page.page.map((i) => renderGenericItem(i, ctx.base)),
            total: items.length,
            size: page.page.length,
            offset,
            limit,
            type: 'list',
            links: { self: selfUrl(ctx.req), ...(page.next ? { next: pageUrl(ctx.req, { cursor: page.next }) } : {}) },
          },
        ],
      },
    });
  });

  router.add('GET', '/v2/boards/:board_id/groups/:group_id', (ctx) => json(200, renderGroup(groupOf(ctx, liveBoard(ctx)), ctx.base)));

  router.add(
    'PUT',
    '/v2/boards/:board_id/groups/:group_id',
    (ctx) => {
      const board = liveBoard(ctx);
      const group = groupOf(ctx, board);
      const body = validate(ctx.body, GROUP_BODY);
      group.itemIds = checkedItems(board, body.data.items, group.id);
      touchBoard(ctx, board);
      return json(200, renderGroup(group, ctx.base));
    },
    { body: 'required' },
  );

  router.add('DELETE', '/v2/boards/:board_id/groups/:group_id', deleteGroup);
}
