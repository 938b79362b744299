/**
 * Experimental webhook subscriptions for board events. A subscription whose board goes to the
 * Trash switches to `lost_access` and cannot be re-enabled.
 */
import { badRequest, cursorPage, json, noContent, notFound, obj, str, validate } from './http.js';
import type { SubscriptionRecord } from './model.js';
import { iso } from './render.js';
import type { Ctx, Router } from './router.js';

const CALLBACK = str({ minLength: 8, maxLength: 256, pattern: /^https:\/\/(.*)/, patternText: 'an https:// URL' });
const STATUS = str({ enum: ['enabled', 'disabled'] });

function render(s: SubscriptionRecord): Record<string, unknown> {
  return {
    id: s.id,
    type: 'board_subscription',
    callbackUrl: s.callbackUrl,
    status: s.status,
    data: { boardId: s.boardId },
    createdAt: iso(s.createdAt),
    modifiedAt: iso(s.modifiedAt),
  };
}

function subscriptionOf(ctx: Ctx): SubscriptionRecord {
  const id = ctx.params.subscription_id ?? '';
  const s = ctx.store.subscriptions.get(id);
  if (!s) throw notFound('Subscription', id);
  return s;
}

export function registerWebhooks(router: Router): void {
  router.add(
    'POST',
    '/v2-experimental/webhooks/board_subscriptions',
    (ctx) => {
      const body = validate(ctx.body, obj({ boardId: str({ minLength: 1 }), callbackUrl: CALLBACK, status: STATUS }, ['boardId', 'callbackUrl']));
      if (!ctx.store.boards.has(body.boardId)) throw notFound('Board', body.boardId);
      const at = ctx.store.now();
      const s: SubscriptionRecord = { id: ctx.store.ids.uuid(), seq: ctx.store.nextSeq(), boardId: body.boardId, callbackUrl: body.callbackUrl, status: body.status ?? 'enabled', createdAt: at, modifiedAt: at };
      ctx.store.subscriptions.set(s.id, s);
      return json(201, render(s));
    },
    { body: 'required' },
  );

  router.add(
    'PATCH',
    '/v2-experimental/webhooks/board_subscriptions/:subscription_id',
    (ctx) => {
      const s = subscriptionOf(ctx);
      const body = validate(ctx.body, obj({ callbackUrl: CALLBACK, status: STATUS }));
      if (body.status !== undefined && s.status === 'lost_access' && !ctx.store.boards.has(s.boardId)) {
        throw badRequest(`Invalid parameters: board ${s.boardId} is no longer accessible, the subscription cannot be ${body.status}`);
      }
      if (body.callbackUrl !== undefined) s.callbackUrl = body.callbackUrl;
      if (body.status !== undefined) s.status = body.status;
      s.modifiedAt = ctx.store.now();
      return json(200, render(s));
    },
    { body: 'required' },
  );

  router.add('GET', '/v2-experimental/webhooks/subscriptions', (ctx) => {
    const limit = ctx.query.int('limit', { min: 1, max: 100, def: 10 });
    const page = cursorPage([...ctx.store.subscriptions.values()], (s) => s.seq, ctx.query.one('cursor'), limit);
    return json(200, { data: page.page.map(render), total: page.total, size: page.page.length, limit, ...(page.next ? { cursor: page.next } : {}) });
  });

  router.add('GET', '/v2-experimental/webhooks/subscriptions/:subscription_id', (ctx) => json(200, render(subscriptionOf(ctx))));

  router.add('DELETE', '/v2-experimental/webhooks/subscriptions/:subscription_id', (ctx) => {
    ctx.store.subscriptions.delete(subscriptionOf(ctx).id);
    return noContent();
  });
}
