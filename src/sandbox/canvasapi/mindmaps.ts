/**
 * Mind-map nodes (experimental endpoints). A node without a mind-map parent is a root; deleting a
 * node deletes its whole subtree. Nodes are a collection of their own, not part of /items.
 */
import { badRequest, cursorEnvelope, cursorPage, json, noContent, notFound, num, obj, str, validate } from './http.js';
import type { BoardRecord, MindmapNodeRecord } from './model.js';
import { renderMindmapNode } from './render.js';
import { liveBoard, touchBoard, type Ctx, type Router } from './router.js';

const CREATE = obj(
  {
    data: obj({ nodeView: obj({ data: obj({ type: str(), content: str({ maxLength: 6000 }) }, ['type']) }, ['data']) }, ['nodeView']),
    position: obj({ x: num(), y: num() }),
    geometry: obj({ width: num({ positive: true }) }),
    parent: obj({ id: str({ minLength: 1 }) }, ['id']),
  },
  ['data'],
);

function nodeOf(ctx: Ctx, board: BoardRecord): MindmapNodeRecord {
  const id = ctx.params.item_id ?? '';
  const n = board.mindmap.get(id);
  if (!n) throw notFound('Mind map node', id);
  return n;
}

function descendants(board: BoardRecord, rootId: string): string[] {
  const out: string[] = [];
  const queue = [rootId];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    out.push(id);
    for (const n of board.mindmap.values()) if (n.parentNodeId === id) queue.push(n.id);
  }
  return out;
}

export function registerMindmaps(router: Router): void {
  router.add(
    'POST',
    '/v2-experimental/boards/:board_id/mindmap_nodes',
    (ctx) => {
      const board = liveBoard(ctx);
      const body = validate(ctx.body, CREATE);
      const view = body.data.nodeView.data as { type: string; content?: string };
      if (view.type !== 'text') throw badRequest(`Invalid parameters: data.nodeView.data.type must be "text", got ${JSON.stringify(view.type)}`);
      const at = ctx.store.now();
      const node: MindmapNodeRecord = {
        id: ctx.store.ids.numeric(),
        seq: ctx.store.nextSeq(),
        boardId: board.id,
        content: view.content ?? '',
        x: body.position?.x ?? 0,
        y: body.position?.y ?? 0,
        width: body.geometry?.width ?? 180,
        createdAt: at,
        createdBy: ctx.store.meId,
        modifiedAt: at,
        modifiedBy: ctx.store.meId,
      };
      const parentId: string | undefined = body.parent?.id;
      if (parentId !== undefined) {
        const parentNode = board.mindmap.get(parentId);
        if (parentNode) {
          node.parentNodeId = parentNode.id;
          // Children of the root branch out to the side they are placed on; deeper nodes follow their parent.
          node.direction = parentNode.parentNodeId === undefined ? (body.position?.x !== undefined && body.position.x < parentNode.x ? 'start' : 'end') : (parentNode.direction ?? 'end');
        } else {
          const frame = board.items.get(parentId);
          if (!frame) throw notFound('Parent item', parentId);
          if (frame.type !== 'frame') throw badRequest(`Invalid parameters: parent ${parentId} is a ${frame.type}; use a mind map node or a frame`);
          node.frameId = frame.id;
        }
      }
      board.mindmap.set(node.id, node);
      touchBoard(ctx, board);
      return json(201, renderMindmapNode(node, ctx.base));
    },
    { body: 'required' },
  );

  router.add('GET', '/v2-experimental/boards/:board_id/mindmap_nodes', (ctx) => {
    const board = liveBoard(ctx);
    // The spec declares no bounds for this limit: any positive integer, pages capped at 100.
    const limit = ctx.query.int('limit', { min: 1, def: 10 });
    const size = Math.min(limit, 100);
    const page = cursorPage([...board.mindmap.values()], (n) => n.seq, ctx.query.one('cursor'), size);
    return json(200, cursorEnvelope(ctx.req, page, size, page.page.map((n) => renderMindmapNode(n, ctx.base))));
  });

  router.add('GET', '/v2-experimental/boards/:board_id/mindmap_nodes/:item_id', (ctx) => {
    const board = liveBoard(ctx);
    return json(200, renderMindmapNode(nodeOf(ctx, board), ctx.base));
  });

  router.add('DELETE', '/v2-experimental/boards/:board_id/mindmap_nodes/:item_id', (ctx) => {
    const board = liveBoard(ctx);
    const node = nodeOf(ctx, board);
    for (const id of descendants(board, node.id)) board.mindmap.delete(id);
    touchBoard(ctx, board);
    return noContent();
  });
}
