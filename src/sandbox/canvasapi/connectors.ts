/**
 * Connectors: lines between two items of the same board. They are a collection of their own
 * (never part of /items) and disappear with either end item.
 */
import { arr, cursorEnvelope, cursorPage, invalid, json, noContent, notFound, numeric, obj, str, validate, type Rule } from './http.js';
import type { BoardRecord, ConnectorEnd, ConnectorRecord } from './model.js';
import { renderConnector } from './render.js';
import { liveBoard, touchBoard, type Ctx, type Router } from './router.js';

const CAPS = ['none', 'stealth', 'rounded_stealth', 'diamond', 'filled_diamond', 'oval', 'filled_oval', 'arrow', 'triangle', 'filled_triangle', 'erd_one', 'erd_many', 'erd_only_one', 'erd_zero_or_one', 'erd_one_or_many', 'erd_zero_or_many', 'unknown'] as const;
const SHAPES = ['straight', 'elbowed', 'curved'] as const;
const PERCENT = str({ pattern: /^(100|[1-9]?\d)(\.\d+)?%$/, patternText: 'a percentage between 0% and 100%, e.g. "50%"' });

const END = (required: boolean): Rule => obj({ id: str({ minLength: 1 }), position: obj({ x: PERCENT, y: PERCENT }), snapTo: str({ enum: ['auto', 'top', 'right', 'bottom', 'left'] }) }, required ? ['id'] : []);
const CAPTION = obj({ content: str({ maxLength: 200 }), position: PERCENT, textAlignVertical: str({ enum: ['top', 'middle', 'bottom'] }) }, ['content']);
const STYLE = obj({
  color: str(),
  endStrokeCap: str({ enum: CAPS }),
  fontSize: numeric(10, 288),
  startStrokeCap: str({ enum: CAPS }),
  strokeColor: str(),
  strokeStyle: str({ enum: ['normal', 'dotted', 'dashed'] }),
  strokeWidth: numeric(1, 24),
  textOrientation: str({ enum: ['horizontal', 'aligned'] }),
});

const CREATE = obj({ startItem: END(true), endItem: END(true), shape: str({ enum: SHAPES }), captions: arr(CAPTION, { maxItems: 20 }), style: STYLE }, ['startItem', 'endItem']);
const UPDATE = obj({ startItem: END(false), endItem: END(false), shape: str({ enum: SHAPES }), captions: arr(CAPTION, { maxItems: 20 }), style: STYLE });

export const DEFAULT_CONNECTOR_STYLE: Record<string, string> = {
  color: '#1a1a1a',
  endStrokeCap: 'stealth',
  fontSize: '14',
  startStrokeCap: 'none',
  strokeColor: '#000000',
  strokeStyle: 'normal',
  strokeWidth: '1.0',
  textOrientation: 'aligned',
};

function stringStyle(style: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(style ?? {})) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

function endFrom(board: BoardRecord, raw: Record<string, any>, field: string, prev?: ConnectorEnd): ConnectorEnd {
  if (raw.position !== undefined && raw.snapTo !== undefined) throw invalid([{ field, message: 'set either position or snapTo, not both' }]);
  const itemId: string = raw.id ?? prev?.itemId;
  if (!board.items.has(itemId)) throw notFound('Item', itemId);
  const end: ConnectorEnd = { itemId };
  if (raw.position) end.position = { x: raw.position.x ?? '50%', y: raw.position.y ?? '50%' };
  else if (raw.snapTo) end.snapTo = raw.snapTo;
  else if (prev && raw.id === undefined) Object.assign(end, prev.position ? { position: prev.position } : {}, prev.snapTo ? { snapTo: prev.snapTo } : {});
  return end;
}

function connectorOf(ctx: Ctx, board: BoardRecord): ConnectorRecord {
  const id = ctx.params.connector_id ?? '';
  const c = board.connectors.get(id);
  if (!c) throw notFound('Connector', id);
  return c;
}

export function registerConnectors(router: Router): void {
  router.add(
    'POST',
    '/v2/boards/:board_id/connectors',
    (ctx) => {
      const board = liveBoard(ctx);
      const body = validate(ctx.body, CREATE);
      const start = endFrom(board, body.startItem, 'startItem');
      const end = endFrom(board, body.endItem, 'endItem');
      const at = ctx.store.now();
      const c: ConnectorRecord = {
        id: ctx.store.ids.numeric(),
        seq: ctx.store.nextSeq(),
        boardId: board.id,
        start,
        end,
        shape: body.shape ?? 'curved',
        captions: (body.captions ?? []).map((cap: Record<string, string>) => ({ ...cap })),
        style: { ...DEFAULT_CONNECTOR_STYLE, ...stringStyle(body.style) },
        createdAt: at,
        createdBy: ctx.store.meId,
        modifiedAt: at,
        modifiedBy: ctx.store.meId,
      };
      board.connectors.set(c.id, c);
      touchBoard(ctx, board);
      return json(200, renderConnector(c, board, ctx.base));
    },
    { body: 'required' },
  );

  router.add('GET', '/v2/boards/:board_id/connectors', (ctx) => {
    const board = liveBoard(ctx);
    const limit = ctx.query.int('limit', { min: 10, max: 50, def: 10 });
    const page = cursorPage([...board.connectors.values()], (c) => c.seq, ctx.query.one('cursor'), limit);
    return json(200, cursorEnvelope(ctx.req, page, limit, page.page.map((c) => renderConnector(c, board, ctx.base))));
  });

  router.add('GET', '/v2/boards/:board_id/connectors/:connector_id', (ctx) => {
    const board = liveBoard(ctx);
    return json(200, renderConnector(connectorOf(ctx, board), board, ctx.base));
  });

  router.add(
    'PATCH',
    '/v2/boards/:board_id/connectors/:connector_id',
    (ctx) => {
      const board = liveBoard(ctx);
      const c = connectorOf(ctx, board);
      const body = validate(ctx.body, UPDATE);
      if (body.startItem) c.start = endFrom(board, body.startItem, 'startItem', c.start);
      if (body.endItem) c.end = endFrom(board, body.endItem, 'endItem', c.end);
      if (body.shape !== undefined) c.shape = body.shape;
      if (body.captions !== undefined) c.captions = body.captions.map((cap: Record<string, string>) => ({ ...cap }));
      if (body.style) c.style = { ...c.style, ...stringStyle(body.style) };
      c.modifiedAt = ctx.store.now();
      c.modifiedBy = ctx.store.meId;
      touchBoard(ctx, board);
      return json(200, renderConnector(c, board, ctx.base));
    },
    { body: 'required' },
  );

  router.add('DELETE', '/v2/boards/:board_id/connectors/:connector_id', (ctx) => {
    const board = liveBoard(ctx);
    board.connectors.delete(connectorOf(ctx, board).id);
    touchBoard(ctx, board);
    return noContent();
  });
}
