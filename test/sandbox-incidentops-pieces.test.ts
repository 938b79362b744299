/**
 * The incident platform emulator's pieces with rules of their own, called directly: the credential
 * and header checks (access.ts), pages and name sorting (listing.ts), the sort_by and date-window
 * readers of the handlers, the dispatch's order (dispatch.ts), and what the host records of a
 * request (recording.ts). The HTTP suites (sandbox-incidentops, sandbox-oauth) cover them end to end.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TokenVerification } from '../src/sandbox/oauth.js';
import { authenticate, checkHeaders, ACCEPT_MEDIA_TYPE } from '../src/sandbox/incidentops/access.js';
import { parseAlertSort } from '../src/sandbox/incidentops/alerts-api.js';
import { dispatch, type Route } from '../src/sandbox/incidentops/dispatch.js';
import { compareIncidents, incidentWindow, parseIncidentSort } from '../src/sandbox/incidentops/incidents-api.js';
import { paginate, sortOrder } from '../src/sandbox/incidentops/listing.js';
import type { IncidentRecord } from '../src/sandbox/incidentops/model.js';
import { ApiError, Query } from '../src/sandbox/incidentops/request.js';
import { scheduleWindow } from '../src/sandbox/incidentops/schedules-api.js';
import { createIncidentOpsState } from '../src/sandbox/incidentops/state.js';
import { MAX_RECORDED_REQUESTS, recordBody, recordRequest, type RecordedRequest } from '../src/sandbox/recording.js';

const DAY = 86_400_000;

/** The error a call throws, as the platform's body. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `expected an ApiError, got ${String(err)}`);
    return err.toBody();
  }
  assert.fail('expected an error');
}

describe('access: the credential', () => {
  const verify = (token: string): TokenVerification => {
    if (token === 'live') return { status: 'valid', user: 'PUSER01', scopes: ['read'] };
    if (token === 'old') return { status: 'expired', user: 'PUSER01', scopes: [] };
    if (token === 'gone') return { status: 'revoked', user: 'PUSER01', scopes: [] };
    return { status: 'unknown', scopes: [] };
  };

  it('accepts the static token as Bearer or Token token=, for the demo user', () => {
    assert.equal(authenticate('Bearer static', 'static', verify, 'PDEMO'), 'PDEMO');
    assert.equal(authenticate('  bearer   static  ', 'static', verify, 'PDEMO'), 'PDEMO');
    assert.equal(authenticate('Token token=static', 'static', verify, 'PDEMO'), 'PDEMO');
  });

  it('accepts a live OAuth token as Bearer only, for its own user', () => {
    assert.equal(authenticate('Bearer live', 'static', verify, 'PDEMO'), 'PUSER01');
    assert.ok(authenticate('Token token=live', 'static', verify, 'PDEMO') instanceof ApiError);
    assert.ok(authenticate('Bearer live', 'static', undefined, 'PDEMO') instanceof ApiError);
  });

  it('answers 401 code 2006, saying why for an expired or revoked OAuth token only', () => {
    const body = (header: string | undefined) => {
      const result = authenticate(header, 'static', verify, 'PDEMO');
      assert.ok(result instanceof ApiError);
      assert.equal(result.status, 401);
      return result.toBody();
    };
    assert.deepEqual(body(undefined), { error: { message: 'Authentication failed', code: 2006 } });
    assert.deepEqual(body('Bearer wrong'), { error: { message: 'Authentication failed', code: 2006 } });
    assert.deepEqual(body('Basic c3RhdGlj'), { error: { message: 'Authentication failed', code: 2006 } });
    assert.deepEqual(body('Bearer old'), { error: { message: 'Authentication failed', code: 2006, errors: ['The OAuth access token has expired; refresh it.'] } });
    assert.deepEqual(body('Bearer gone'), { error: { message: 'Authentication failed', code: 2006, errors: ['The OAuth access token has been revoked.'] } });
  });
});

describe('access: the required headers', () => {
  it('accepts the versioned media type among others and JSON with a charset', () => {
    checkHeaders({ accept: ACCEPT_MEDIA_TYPE, 'content-type': 'application/json' });
    checkHeaders({ accept: 'text/html, application/vnd.pagerduty+json ; version="2"; q=0.9', 'content-type': 'Application/JSON; charset=utf-8' });
  });

  it('names every header that is wrong, in one 400', () => {
    assert.deepEqual(thrown(() => checkHeaders({ accept: 'application/vnd.pagerduty+json;version=1', 'content-type': 'application/json' })), {
      error: { message: 'Invalid Input Provided', code: 2001, errors: [`The Accept header must be "${ACCEPT_MEDIA_TYPE}" (got "application/vnd.pagerduty+json;version=1").`] },
    });
    const both = thrown(() => checkHeaders({})) as { error: { errors: string[] } };
    assert.deepEqual(both.error.errors, [`The Accept header must be "${ACCEPT_MEDIA_TYPE}" (got none).`, 'The Content-Type header must be "application/json" (got none).']);
  });
});

describe('listing', () => {
  it('pages: more while items follow the page, total only when asked', () => {
    const items = ['a', 'b', 'c', 'd', 'e'];
    assert.deepEqual(paginate('xs', items, { limit: 2, offset: 2, total: false }, (x) => x.toUpperCase()), { xs: ['C', 'D'], limit: 2, offset: 2, more: true, total: null });
    assert.deepEqual(paginate('xs', items, { limit: 2, offset: 4, total: true }, (x) => x), { xs: ['e'], limit: 2, offset: 4, more: false, total: 5 });
    assert.deepEqual(paginate('xs', items, { limit: 25, offset: 9, total: true }, (x) => x), { xs: [], limit: 25, offset: 9, more: false, total: 5 });
  });

  it('sort_by by name: ascending by default, name:desc descending, anything else a 400', () => {
    assert.equal(sortOrder(new Query([])), 1);
    assert.equal(sortOrder(new Query([['sort_by', 'name:asc']])), 1);
    assert.equal(sortOrder(new Query([['sort_by', 'name:desc']])), -1);
    assert.match(JSON.stringify(thrown(() => sortOrder(new Query([['sort_by', 'created_at']])))), /sort_by must be one of name, name:asc, name:desc; got \\"created_at\\"/);
  });
});

describe('sort_by of the handlers', () => {
  it("alerts: created_at ascending by default, up to two fields, each with a direction", () => {
    assert.deepEqual(parseAlertSort(undefined), [{ field: 'created_at', direction: 1 }]);
    assert.deepEqual(parseAlertSort('resolved_at:desc, created_at'), [{ field: 'resolved_at', direction: -1 }, { field: 'created_at', direction: 1 }]);
    assert.match(JSON.stringify(thrown(() => parseAlertSort('created_at,resolved_at,created_at'))), /at most two fields/);
    assert.match(JSON.stringify(thrown(() => parseAlertSort('created_at:up'))), /optionally followed by :asc or :desc/);
    assert.match(JSON.stringify(thrown(() => parseAlertSort('created_at:asc:x'))), /optionally followed by :asc or :desc/);
  });

  it('incidents: the keys in turn, open incidents last by resolved_at, then creation and number', () => {
    const incident = (number: number, createdAt: number, resolvedAt: number | null, urgency: 'high' | 'low') => ({ number, createdAt, resolvedAt, urgency }) as IncidentRecord;
    const a = incident(1, 300, null, 'high');
    const b = incident(2, 100, 500, 'low');
    const c = incident(3, 200, 400, 'high');
    const order = (raw: string) => [a, b, c].sort((x, y) => compareIncidents(x, y, parseIncidentSort(raw))).map((i) => i.number);
    assert.deepEqual(order('resolved_at'), [3, 2, 1]);
    assert.deepEqual(order('urgency:desc,incident_number:desc'), [3, 1, 2]);
    assert.deepEqual(order('created_at:desc'), [1, 3, 2]);
    assert.deepEqual(parseIncidentSort(''), []);
    assert.match(JSON.stringify(thrown(() => parseIncidentSort('title'))), /sort_by \\"title\\" is invalid/);
  });
});

describe('date windows of the handlers', () => {
  const now = Date.UTC(2026, 5, 15, 12);

  it('incidents: until defaults to now and since to a calendar month before it; six months at most', () => {
    assert.deepEqual(incidentWindow(new Query([]), 'Etc/UTC', now), { since: Date.UTC(2026, 4, 15, 12), until: now });
    assert.deepEqual(incidentWindow(new Query([['until', '2026-03-31T00:00:00Z']]), 'Etc/UTC', now), { since: Date.UTC(2026, 1, 28), until: Date.UTC(2026, 2, 31) });
    assert.match(JSON.stringify(thrown(() => incidentWindow(new Query([['since', '2025-12-01T00:00:00Z']]), 'Etc/UTC', now))), /must not exceed 6 months/);
    assert.match(JSON.stringify(thrown(() => incidentWindow(new Query([['since', '2026-06-16T00:00:00Z']]), 'Etc/UTC', now))), /until must not be before since/);
  });

  it('schedules: either bound defaults to two weeks from the other, now when neither; a year at most', () => {
    assert.deepEqual(scheduleWindow(new Query([]), 'Etc/UTC', now), { from: now, to: now + 14 * DAY, explicit: false });
    assert.deepEqual(scheduleWindow(new Query([['until', '2026-07-01T00:00:00Z']]), 'Etc/UTC', now), { from: Date.UTC(2026, 6, 1) - 14 * DAY, to: Date.UTC(2026, 6, 1), explicit: true });
    assert.deepEqual(scheduleWindow(new Query([['since', '2026-01-01T00:00:00']]), 'Europe/Paris', now), { from: Date.UTC(2025, 11, 31, 23), to: Date.UTC(2025, 11, 31, 23) + 14 * DAY, explicit: true });
    assert.match(JSON.stringify(thrown(() => scheduleWindow(new Query([['since', '2025-01-01T00:00:00Z'], ['until', '2026-01-03T00:00:00Z']]), 'Etc/UTC', now))), /must not exceed one year/);
  });
});

describe('dispatch', () => {
  const state = createIncidentOpsState({ token: 'static', users: 12, now: () => new Date(Date.UTC(2026, 5, 15, 12)) });
  const seen: string[][] = [];
  const routes: Route[] = [{ pattern: /^\/things\/([^/]+)$/, handler: (ctx, params) => (seen.push(params), { user: ctx.userId, now: ctx.now }) }];
  const headers = { authorization: 'Bearer static', accept: ACCEPT_MEDIA_TYPE, 'content-type': 'application/json' };
  const request = (method: string, path: string, h: Record<string, string> = headers) => dispatch(state, routes, { method, path, query: [], headers: h, body: Buffer.alloc(0), baseUrl: 'http://sandbox/incidentops' });

  it('checks the credential first, then the route, then the method, then the headers', () => {
    assert.equal(request('POST', '/nowhere', {}).status, 401);
    assert.deepEqual(request('GET', '/nowhere').body, { error: { message: 'Not Found', code: 2100 } });
    const post = request('POST', '/things/x', { authorization: 'Bearer static' });
    assert.equal(post.status, 405);
    assert.deepEqual(post.headers, { allow: 'GET' });
    assert.equal(request('GET', '/things/x', { authorization: 'Bearer static' }).status, 400);
    assert.equal(seen.length, 0, 'no handler ran');
  });

  it('decodes path parameters (a malformed escape is a 404) and gives the handler the user and the clock', () => {
    assert.deepEqual(request('GET', '/things/a%20b'), { status: 200, body: { user: state.data.demoUserId, now: Date.UTC(2026, 5, 15, 12) } });
    assert.deepEqual(seen, [['a b']]);
    assert.equal(request('GET', '/things/%E0%A4%A').status, 404);
  });
});

describe('recording', () => {
  it('records the request redacted, keeping the scheme of the credential', () => {
    const requests: RecordedRequest[] = [];
    const headers = { authorization: 'Token token=abc', accept: 'application/json' };
    const record = recordRequest(requests, 'incidentops', 'GET', '/users', [['code', 'xyz'], ['limit', '5']], headers);
    assert.deepEqual(requests, [{ platform: 'incidentops', method: 'GET', path: '/users', query: [['code', '[redacted]'], ['limit', '5']], headers: { authorization: 'Token token=[redacted]', accept: 'application/json' }, status: 0 }]);
    assert.equal(record, requests[0]);
    assert.equal(headers.authorization, 'Token token=abc', "the platform's headers are not redacted");
  });

  it('forgets the oldest tenth once past the bound', () => {
    const requests = Array.from({ length: MAX_RECORDED_REQUESTS }, (_, i) => ({ path: String(i) }) as RecordedRequest);
    recordRequest(requests, 'p', 'GET', '/last', [], {});
    assert.equal(requests.length, MAX_RECORDED_REQUESTS * 0.9);
    assert.equal(requests.at(-1)?.path, '/last');
    assert.equal(requests[0]?.path, String(MAX_RECORDED_REQUESTS * 0.1 + 1));
  });

  it('keeps a JSON body as sent only when nothing in it was redacted; forms are parsed; other bodies are not', () => {
    const record = (contentType: string | undefined, text: string) => {
      const r = { status: 0 } as RecordedRequest;
      recordBody(r, contentType, Buffer.from(text));
      return { body: r.body, bodyText: r.bodyText };
    };
    assert.deepEqual(record('application/json', '{"id":12345678901234567890}'), { body: { id: 12345678901234567890 }, bodyText: '{"id":12345678901234567890}' });
    assert.deepEqual(record('application/json', '{"a":{"refresh_token":"s"}}'), { body: { a: { refresh_token: '[redacted]' } }, bodyText: undefined });
    assert.deepEqual(record('application/x-www-form-urlencoded', 'grant_type=x&code=s&code=t'), { body: { grant_type: 'x', code: '[redacted]' }, bodyText: undefined });
    assert.deepEqual(record('application/json', '{not json'), { body: undefined, bodyText: undefined });
    assert.deepEqual(record('text/plain', '{"a":1}'), { body: undefined, bodyText: undefined });
    assert.deepEqual(record(undefined, '{"a":1}'), { body: undefined, bodyText: undefined });
  });
});
