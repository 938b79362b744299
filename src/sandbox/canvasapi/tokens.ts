/**
 * Access-token information, token revocation (v2 JSON body; the deprecated v1 query form too),
 * the OAuth authorization server's endpoints (authorize + approve on the web host, token on the
 * API host: `/oauth/authorize`, `/oauth/approve`, `/v1/oauth/token`) and the experimental app
 * usage metrics. Revocation and token info cover both the static sandbox token and OAuth tokens.
 */
import { DateTime } from 'luxon';
import { badRequest, json, noContent, notFound, obj, str, validate } from './http.js';
import type { Store } from './model.js';
import type { Ctx, Router } from './router.js';

export const BASE_SCOPES = ['boards:read', 'boards:write', 'identity:read', 'identity:write', 'team:read', 'team:write'];
const ENTERPRISE_SCOPES = [
  'organizations:read',
  'organizations:teams:read',
  'organizations:teams:write',
  'projects:read',
  'projects:write',
  'auditlogs:read',
  'sessions:delete',
  'boards:export',
  'contentlogs:export',
];
export const ALL_SCOPES = [...BASE_SCOPES, ...ENTERPRISE_SCOPES];
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_PERIODS = 1000;

/** Revoke the static token or an OAuth access token (with its refresh token); false when there was nothing live to revoke. */
function revoke(ctx: Ctx, token: string, client?: { clientId: string; clientSecret: string }): boolean {
  if (token === ctx.store.token) {
    if (ctx.store.tokenRevoked) return false;
    ctx.store.tokenRevoked = true;
    return true;
  }
  return ctx.oauth?.revokeAccessToken(token, client) === 'revoked';
}

/** Stable pseudo-random integer in [0, max) for a key: metrics must not change between calls. */
function hashInt(seed: number, key: string, max: number): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d) >>> 0;
  h ^= h >>> 12;
  return h % max;
}

function metricsFor(store: Store, key: string, days: number): Record<string, number> {
  const users = 40 * days + hashInt(store.seed, `u:${key}`, 25 * days + 1);
  return {
    uniqueUsers: users,
    uniqueRecurringUsers: Math.floor(users * (0.45 + hashInt(store.seed, `r:${key}`, 20) / 100)),
    uniqueOrganizations: Math.max(1, Math.floor(users / (9 + hashInt(store.seed, `o:${key}`, 5)))),
    installations: 2 * days + hashInt(store.seed, `i:${key}`, 3 * days + 1),
    uninstallations: hashInt(store.seed, `x:${key}`, days + 1),
  };
}

function parseDate(value: string, name: string): DateTime {
  const d = DATE_RE.test(value) ? DateTime.fromISO(value, { zone: 'utc' }) : undefined;
  if (!d || !d.isValid) throw badRequest(`Invalid parameters: ${name} must be a date in the form YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return d;
}

function appOf(ctx: Ctx): void {
  const id = ctx.params.app_id ?? '';
  if (id !== ctx.store.app.id) throw notFound('App', id);
}

export function registerTokens(router: Router): void {
  router.add('GET', '/v1/oauth-token', (ctx) => {
    const { store } = ctx;
    // The spec's token information has no expiry field, so an OAuth token's expiry is not reported.
    const owner = store.users.get(ctx.token?.user ?? store.meId) ?? store.me();
    const teamId = ctx.token?.team ?? store.defaultTeamId;
    const team = store.teams.get(teamId);
    const user = { type: 'user', name: `${owner.firstName} ${owner.lastName}`, id: owner.id };
    return json(200, {
      type: 'oauth',
      scopes: ctx.token ? ctx.token.scopes : store.enterprise ? ALL_SCOPES : BASE_SCOPES,
      team: { type: 'team', name: team?.name ?? 'Unknown team', id: teamId },
      organization: { type: 'organization', name: store.org.name, id: store.org.id },
      createdBy: user,
      user,
    });
  });

  router.add(
    'POST',
    '/v2/oauth/revoke',
    (ctx) => {
      const body = validate(ctx.body, obj({ accessToken: str({ minLength: 1 }), clientId: str({ minLength: 1 }), clientSecret: str({ minLength: 1 }) }, ['accessToken', 'clientId', 'clientSecret']));
      if (!revoke(ctx, body.accessToken, { clientId: body.clientId, clientSecret: body.clientSecret })) throw notFound('Active access token');
      return noContent();
    },
    { body: 'required', noAuth: true },
  );

  router.add(
    'POST',
    '/v1/oauth/revoke',
    (ctx) => {
      const token = ctx.query.required('access_token');
      if (!revoke(ctx, token)) throw badRequest('Invalid parameters: the access token is not active');
      return noContent();
    },
    { noAuth: true },
  );

  router.add('GET', '/v2-experimental/apps/:app_id/metrics', (ctx) => {
    appOf(ctx);
    const q = ctx.query;
    const start = parseDate(q.required('startDate'), 'startDate');
    const end = parseDate(q.required('endDate'), 'endDate');
    if (start > end) throw badRequest('Invalid parameters: startDate must not be after endDate');
    const period = q.enumValue('period', ['DAY', 'WEEK', 'MONTH'] as const, 'WEEK') as 'DAY' | 'WEEK' | 'MONTH';
    const unit = period === 'DAY' ? 'day' : period === 'WEEK' ? 'week' : 'month';
    const out: Record<string, unknown>[] = [];
    for (let cursor = start.startOf(unit); cursor <= end; cursor = cursor.plus({ [`${unit}s`]: 1 })) {
      if (out.length >= MAX_PERIODS) throw badRequest(`Invalid parameters: the date range covers more than ${MAX_PERIODS} periods; use a longer period`);
      const days = period === 'DAY' ? 1 : period === 'WEEK' ? 7 : cursor.daysInMonth ?? 30;
      const periodStart = cursor.toISODate() as string;
      out.push({ periodStart, ...metricsFor(ctx.store, `${period}:${periodStart}`, days) });
    }
    return json(200, out);
  });

  router.add('GET', '/v2-experimental/apps/:app_id/metrics-total', (ctx) => {
    appOf(ctx);
    const days = Math.max(1, Math.round((ctx.store.now() - ctx.store.app.installedAt) / 86_400_000));
    return json(200, metricsFor(ctx.store, 'total', days));
  });
}

/** The authorization server: the sign-in page of the web host and the token endpoint of the API host. */
export function registerOAuth(router: Router): void {
  const authority = (ctx: Ctx) => {
    if (!ctx.oauth) throw notFound('OAuth authorization server');
    return ctx.oauth;
  };
  router.add('GET', '/oauth/authorize', (ctx) => authority(ctx).authorize(ctx.req), { noAuth: true });
  router.add('POST', '/oauth/approve', (ctx) => authority(ctx).approve(ctx.req), { noAuth: true });
  router.add('POST', '/v1/oauth/token', (ctx) => authority(ctx).token(ctx.req), { noAuth: true });
}
