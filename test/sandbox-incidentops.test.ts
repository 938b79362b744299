/**
 * The incident platform emulator against the published OpenAPI document (pagerduty-openapi.json):
 * every endpoint, many parameter combinations, every success and error body validated against
 * the response schema of the matching operation, plus the behaviours the tool servers rely on.
 *
 * Spec defects worked around here (test-local patches, see `patchedSpec`):
 *  - `Channel` is a `oneOf` whose branches have no distinguishing required fields, so any channel
 *    (including the spec's own example `{"type":"api"}`) matches several branches and fails.
 *    Treated as `anyOf`.
 *  - `AcknowledgeLogEntry` narrows `type` to `acknowledgement_log_entry` while its base `LogEntry`
 *    only allows `acknowledge_log_entry` (the real value): unsatisfiable. Narrowed to the real value.
 *  - Fields the real API sends as `null` but the schema types as non-nullable: incident
 *    `resolved_at` and `priority`, on-call `start`/`end`/`schedule` (permanent on-calls for direct
 *    user targets), schedule layer `end`. Marked nullable.
 *  - `include[]` swaps references for full objects, but on-call `user`/`escalation_policy`/`schedule`
 *    and team member `user` only allow references. Widened to "reference or full object".
 *  - GET /escalation_policies/{id} declares no 400 and GET /oncalls no 404: error bodies for
 *    undeclared statuses are checked against the generic error schema instead.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DateTime } from 'luxon';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../src/sandbox/server.js';
import { loadOpenApi, patchSpec, type OpenApiValidator } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

const SPEC_FILE = 'pagerduty-openapi.json';
const specSkip = skipUnlessReference(SPEC_FILE);
const ERROR_SCHEMA = '/components/responses/Conflict/content/application~1json/schema';
const ACCEPT = 'application/vnd.pagerduty+json;version=2';
const TOKEN = 'test-token-123';
const NOW = new Date('2026-03-11T15:30:00Z');
const DAY = 86_400_000;
const DEMO = 'PDEMO01';

type Pairs = [string, string][];
/** Parsed JSON bodies are navigated freely; their shape is checked by the spec validator. */
type Body = any;

function patchedSpec(raw: unknown): unknown {
  let s = raw;
  const nullable = (p: string) => (s = patchSpec(s, p, (n: object) => ({ ...n, nullable: true })));
  const refOrFull = (p: string, refs: string[], extra: object = {}) =>
    (s = patchSpec(s, p, () => ({ oneOf: refs.map((r) => ({ $ref: `#/components/schemas/${r}` })), ...extra })));
  s = patchSpec(s, '/components/schemas/Channel', (n: { oneOf: unknown[] }) => {
    const { oneOf, ...rest } = n;
    return { ...rest, anyOf: oneOf };
  });
  s = patchSpec(s, '/components/schemas/AcknowledgeLogEntry/allOf/1/properties/type', (n: object) => ({ ...n, enum: ['acknowledge_log_entry'] }));
  nullable('/components/schemas/Incident/allOf/1/properties/resolved_at');
  nullable('/components/schemas/Incident/allOf/1/properties/priority');
  nullable('/components/schemas/Oncall/properties/start');
  nullable('/components/schemas/Oncall/properties/end');
  nullable('/components/schemas/ScheduleLayer/properties/end');
  refOrFull('/components/schemas/Oncall/properties/user', ['UserReference', 'User']);
  refOrFull('/components/schemas/Oncall/properties/escalation_policy', ['EscalationPolicyReference', 'EscalationPolicy']);
  refOrFull('/components/schemas/Oncall/properties/schedule', ['ScheduleReference', 'V3ScheduleReference', 'Schedule'], { nullable: true });
  refOrFull('/paths/~1teams~1{id}~1members/get/responses/200/content/application~1json/schema/allOf/1/properties/members/items/properties/user', [
    'UserReference',
    'User',
  ]);
  // The spec documents listScheduleOverrides' answer under 201; the platform answers a GET with 200.
  s = patchSpec(s, '/paths/~1schedules~1{id}~1overrides/get/responses', (n: Record<string, unknown>) => ({ ...n, 200: n['201'] }));
  return s;
}

const rawSpec = loadReferenceJson(SPEC_FILE);
const validator: OpenApiValidator | undefined = rawSpec ? loadOpenApi(patchedSpec(rawSpec)) : undefined;

interface Reply {
  status: number;
  body: Body;
  headers: Headers;
}

interface CallInit {
  method?: string;
  /** Replaces default headers; a value of undefined removes that header. */
  headers?: Record<string, string | undefined>;
  /** Skip validating the request against the spec (for deliberately invalid requests). */
  invalidRequest?: boolean;
}

function goodHeaders(token = TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}`, accept: ACCEPT, 'content-type': 'application/json' };
}

function queryString(query: Pairs): string {
  return query.length === 0 ? '' : '?' + new URLSearchParams(query).toString();
}

async function call(sb: RunningSandbox, path: string, query: Pairs = [], init: CallInit = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...goodHeaders(sb.incidentops.token), ...(init.headers ?? {}) })) if (v !== undefined) headers[k] = v;
  const method = init.method ?? 'GET';
  const res = await fetch(sb.incidentops.baseUrl + path + queryString(query), { method, headers });
  const text = await res.text();
  const body = text === '' ? undefined : JSON.parse(text);
  if (validator && !init.invalidRequest) {
    assert.deepEqual(validator.validateRequest({ method, path, query, headers }), [], `request ${method} ${path}${queryString(query)} breaks the spec`);
  }
  if (validator && validator.findOperation(method, path)) {
    const op = validator.findOperation(method, path)!;
    const responses = (op.operation.responses ?? {}) as Record<string, unknown>;
    const errors =
      String(res.status) in responses || 'default' in responses
        ? validator.validateResponse(method, path, res.status, body)
        : res.status >= 400
          ? validator.validateSchemaAt(ERROR_SCHEMA, body)
          : [`status ${res.status} undeclared`];
    assert.deepEqual(errors, [], `response of ${method} ${path}${queryString(query)} (${res.status}) breaks the spec`);
  }
  return { status: res.status, body, headers: res.headers };
}

async function ok(sb: RunningSandbox, path: string, query: Pairs = []): Promise<Body> {
  const r = await call(sb, path, query);
  assert.equal(r.status, 200, `GET ${path}${queryString(query)} -> ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function fails(sb: RunningSandbox, path: string, query: Pairs, status: number, code?: number, init: CallInit = {}): Promise<Body> {
  const r = await call(sb, path, query, { invalidRequest: true, ...init });
  assert.equal(r.status, status, `GET ${path}${queryString(query)} -> ${r.status} ${JSON.stringify(r.body)}`);
  assert.equal(typeof r.body?.error?.message, 'string', 'error body has error.message');
  if (code !== undefined) assert.equal(r.body.error.code, code);
  return r.body;
}

/** Every page of a list endpoint. */
async function all(sb: RunningSandbox, path: string, key: string, query: Pairs = []): Promise<Body[]> {
  const out: Body[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await ok(sb, path, [...query, ['limit', '100'], ['offset', String(offset)]]);
    out.push(...page[key]);
    if (!page.more) return out;
  }
}

const ms = (iso: string) => DateTime.fromISO(iso, { setZone: true }).toMillis();

let sb: RunningSandbox;
/** Real IDs are looked up in `before`; the placeholders only serve to name the test cases. */
let ids = {
  userId: '{userId}',
  teamId: '{teamId}',
  serviceId: '{serviceId}',
  policyId: '{policyId}',
  scheduleId: '{scheduleId}',
  incidentId: '{incidentId}',
};

async function start(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, token: TOKEN, ...options, incidentops: { now: () => NOW, ...options.incidentops } });
}

before(async () => {
  sb = await start();
  const teams = (await ok(sb, '/teams')).teams;
  const services = (await ok(sb, '/services')).services;
  const policies = (await ok(sb, '/escalation_policies')).escalation_policies;
  const schedules = (await ok(sb, '/schedules')).schedules;
  const incidents = (await ok(sb, '/incidents', [['date_range', 'all']])).incidents;
  ids = {
    userId: (await ok(sb, '/users', [['query', 'alex moran']])).users[0].id,
    teamId: teams.find((t: Body) => t.name === 'Platform Engineering').id,
    serviceId: services.find((s: Body) => s.name === 'Checkout API').id,
    policyId: policies.find((p: Body) => p.name === 'Platform Engineering Escalation').id,
    scheduleId: schedules.find((s: Body) => s.name === 'Payments - Primary').id,
    // The oldest incident that came from an alert (some are opened by hand, with none).
    incidentId: incidents.find((i: Body) => i.alert_counts.all > 0).id,
  };
});

after(async () => {
  await sb?.close();
});

describe('spec conformance of every endpoint', { skip: specSkip }, () => {
  test('the validator itself rejects bad payloads and requests', () => {
    const v = validator!;
    assert.equal(v.findOperation('GET', '/users/me')?.pathTemplate, '/users/me');
    assert.equal(v.findOperation('GET', '/users/PABC123')?.pathTemplate, '/users/{id}');
    assert.ok(v.validateResponse('GET', '/users/me', 200, { user: { id: 'P1', type: 'user_reference' } }).length > 0);
    assert.ok(v.validateResponse('GET', '/incidents', 200, { incidents: [{ status: 'open' }] }).length > 0);
    assert.ok(v.validateRequest({ method: 'GET', path: '/oncalls', query: [['team_ids[]', 'P1']], headers: goodHeaders() }).length > 0);
    assert.ok(v.validateRequest({ method: 'GET', path: '/incidents', query: [['statuses[]', 'open']], headers: goodHeaders() }).length > 0);
    assert.ok(v.validateRequest({ method: 'GET', path: '/incidents', query: [], headers: { accept: 'application/json' } }).length > 0);
  });

  const cases: [string, () => Pairs, (body: Body) => void][] = [];
  const c = (path: string, query: () => Pairs = () => [], check: (body: Body) => void = () => {}) => cases.push([path, query, check]);
  // users
  c('/users/me');
  c('/users/me', () => [['include[]', 'calendar_urls'], ['include[]', 'teams']], (b) => assert.match(b.user.http_cal_url, /^https:/));
  c('/users');
  c('/users', () => [['limit', '100'], ['total', 'true']]);
  c('/users', () => [['query', 'alex'], ['include[]', 'contact_methods'], ['include[]', 'notification_rules']]);
  c('/users', () => [['team_ids[]', ids.teamId], ['offset', '5'], ['limit', '5']]);
  c('/users/{id}', () => [['include[]', 'subdomains']]);
  // on-calls
  c('/oncalls');
  c('/oncalls', () => [['include[]', 'users'], ['include[]', 'escalation_policies'], ['include[]', 'schedules']]);
  c('/oncalls', () => [['since', iso(NOW.getTime() - 3 * DAY)], ['until', iso(NOW.getTime() + 30 * DAY)], ['limit', '100']]);
  c('/oncalls', () => [['user_ids[]', DEMO], ['until', iso(NOW.getTime() + 60 * DAY)], ['earliest', 'true'], ['time_zone', 'America/New_York']]);
  c('/oncalls', () => [['escalation_policy_ids[]', ids.policyId], ['schedule_ids[]', ids.scheduleId], ['schedule_ids[]', 'null'], ['total', 'true']]);
  // incidents
  c('/incidents');
  c('/incidents', () => [['statuses[]', 'triggered'], ['statuses[]', 'acknowledged'], ['urgencies[]', 'high']]);
  c('/incidents', () => [['date_range', 'all'], ['total', 'true'], ['limit', '100'], ['sort_by', 'created_at:desc,urgency']]);
  c('/incidents', () => [['since', '2026-02-01'], ['until', '2026-03-11T12:00Z'], ['time_zone', 'Asia/Tokyo']]);
  c('/incidents', () => [['service_ids[]', ids.serviceId], ['team_ids[]', ids.teamId], ['user_ids[]', DEMO], ['date_range', 'all']]);
  c('/incidents', () => [
    ['date_range', 'all'],
    ...(['acknowledgers', 'agents', 'assignees', 'conference_bridge', 'escalation_policies', 'first_trigger_log_entries', 'priorities', 'services', 'teams', 'users'].map((v) => ['include[]', v]) as Pairs),
  ]);
  c('/incidents/{id}');
  c('/incidents/{id}', () => [['include[]', 'custom_fields'], ['include[]', 'users'], ['include[]', 'services'], ['include[]', 'first_trigger_log_entries']]);
  // log entries
  c('/log_entries');
  c('/log_entries', () => [['is_overview', 'true'], ['limit', '100'], ['total', 'true']]);
  c('/log_entries', () => [['since', iso(NOW.getTime() - 7 * DAY)], ['until', iso(NOW.getTime())], ['time_zone', 'Europe/Berlin'], ['team_ids[]', ids.teamId]]);
  c('/log_entries', () => [['include[]', 'incidents'], ['include[]', 'services'], ['include[]', 'channels'], ['include[]', 'teams'], ['offset', '100']]);
  // an incident's alerts, notes and log entries
  c('/incidents/{id}/alerts', () => [], (b) => assert.ok(b.alerts.length >= 1 && b.alerts.every((a: Body) => a.incident.id === ids.incidentId && typeof a.body.details === 'object')));
  c('/incidents/{id}/alerts', () => [['statuses[]', 'resolved'], ['sort_by', 'created_at:desc'], ['include[]', 'services'], ['include[]', 'first_trigger_log_entries'], ['include[]', 'incidents'], ['total', 'true'], ['limit', '2']]);
  c('/incidents/{id}/notes', () => [], (b) => assert.ok(b.notes.every((n: Body) => typeof n.content === 'string' && n.user.type === 'user_reference')));
  c('/incidents/{id}/log_entries', () => [], (b) => assert.ok(b.log_entries.length >= 2 && b.log_entries.every((e: Body) => e.incident.id === ids.incidentId)));
  c('/incidents/{id}/log_entries', () => [['is_overview', 'true'], ['time_zone', 'Europe/Berlin'], ['since', iso(NOW.getTime() - 60 * DAY)], ['until', iso(NOW.getTime())], ['include[]', 'channels'], ['total', 'true'], ['limit', '100']]);
  // escalation policies
  c('/escalation_policies');
  c('/escalation_policies', () => [['query', 'esc'], ['sort_by', 'name:desc'], ['include[]', 'services'], ['include[]', 'targets']]);
  c('/escalation_policies', () => [['user_ids[]', DEMO], ['team_ids[]', ids.teamId], ['total', 'true']]);
  c('/escalation_policies/{id}', () => [['include[]', 'teams']]);
  // services
  c('/services');
  c('/services', () => [['query', 'API'], ['sort_by', 'name:asc'], ['time_zone', 'Europe/London'], ['include[]', 'auto_pause_notifications_parameters']]);
  c('/services', () => [['team_ids[]', ids.teamId], ['include[]', 'integrations'], ['include[]', 'escalation_policies'], ['include[]', 'teams']]);
  c('/services', () => [['name', 'Checkout API']]);
  c('/services/{id}', () => [['include[]', 'integrations']]);
  // schedules
  c('/schedules');
  c('/schedules', () => [['include[]', 'schedule_layers'], ['include[]', 'final_schedule'], ['include[]', 'overrides_subschedule'], ['include_next_oncall_for_user', DEMO]]);
  c('/schedules', () => [['query', 'platform'], ['team_ids[]', ids.teamId], ['since', iso(NOW.getTime())], ['until', iso(NOW.getTime() + 7 * DAY)], ['time_zone', 'Asia/Kolkata'], ['include[]', 'final_schedule']]);
  c('/schedules/{id}');
  c('/schedules/{id}/overrides', () => [['since', iso(NOW.getTime())], ['until', iso(NOW.getTime() + 2 * DAY)]], (b) => assert.equal(b.overrides.length, 1));
  c('/schedules/{id}/overrides', () => [['since', iso(NOW.getTime())], ['until', iso(NOW.getTime() + 2 * DAY)], ['overflow', 'true'], ['editable', 'true']]);
  c('/schedules/{id}', () => [['since', '2026-03-09T00:00:00-05:00'], ['until', '2026-03-16T00:00:00-05:00'], ['overflow', 'true'], ['time_zone', 'America/Chicago'], ['include_next_oncall_for_user', DEMO]]);
  // teams
  c('/teams');
  c('/teams', () => [['query', 'pay'], ['total', 'true'], ['limit', '2'], ['offset', '1']]);
  c('/teams/{id}', () => [['include[]', 'privileges']]);
  c('/teams/{id}/members');
  c('/teams/{id}/members', () => [['include[]', 'users'], ['limit', '3'], ['total', 'true']]);

  const resolve = (path: string) =>
    path.replace('{id}', () => {
      if (path.startsWith('/users')) return ids.userId;
      if (path.startsWith('/incidents')) return ids.incidentId;
      if (path.startsWith('/escalation_policies')) return ids.policyId;
      if (path.startsWith('/services')) return ids.serviceId;
      if (path.startsWith('/schedules')) return ids.scheduleId;
      return ids.teamId;
    });

  test('all 20 endpoints are covered', () => {
    const covered = new Set(cases.map(([p]) => p));
    for (const p of ['/users/me', '/users', '/users/{id}', '/oncalls', '/incidents', '/incidents/{id}', '/incidents/{id}/alerts', '/incidents/{id}/notes', '/incidents/{id}/log_entries', '/log_entries', '/escalation_policies', '/escalation_policies/{id}', '/services', '/services/{id}', '/schedules', '/schedules/{id}', '/schedules/{id}/overrides', '/teams', '/teams/{id}', '/teams/{id}/members']) {
      assert.ok(covered.has(p), p);
    }
  });

  for (const [path, query, check] of cases) {
    test(`GET ${path}${queryString(query())}`, async () => {
      const q = query();
      const body = await ok(sb, resolve(path), q);
      check(body);
      // List responses echo the pagination fields.
      if ('limit' in body) {
        const limit = q.find(([k]) => k === 'limit')?.[1];
        const offset = q.find(([k]) => k === 'offset')?.[1];
        assert.equal(body.limit, limit === undefined ? 25 : Number(limit));
        assert.equal(body.offset, offset === undefined ? 0 : Number(offset));
        assert.equal(typeof body.more, 'boolean');
        if (q.some(([k, v]) => k === 'total' && v === 'true')) assert.equal(typeof body.total, 'number');
        else assert.equal(body.total, null);
      }
    });
  }
});

function iso(t: number): string {
  return new Date(t).toISOString();
}

describe('authentication and headers', () => {
  test('401 for a missing, wrong or malformed credential', async () => {
    await fails(sb, '/users/me', [], 401, 2006, { headers: { authorization: undefined } });
    await fails(sb, '/users/me', [], 401, 2006, { headers: { authorization: 'Bearer nope' } });
    await fails(sb, '/incidents', [], 401, 2006, { headers: { authorization: 'Token token=nope' } });
    await fails(sb, '/incidents', [], 401, 2006, { headers: { authorization: `Basic ${TOKEN}` } });
    await fails(sb, '/incidents', [], 401, 2006, { headers: { authorization: TOKEN } });
  });

  test('both Bearer and Token token= work, and /users/me is the demo user', async () => {
    const bearer = await call(sb, '/users/me');
    const apiKey = await call(sb, '/users/me', [], { headers: { authorization: `Token token=${TOKEN}` } });
    assert.equal(bearer.status, 200);
    assert.equal(apiKey.status, 200);
    assert.equal(bearer.body.user.id, DEMO);
    assert.deepEqual(apiKey.body, bearer.body);
  });

  test('400 when Accept or Content-Type is missing or wrong', async () => {
    await fails(sb, '/incidents', [], 400, 2001, { headers: { accept: undefined } });
    await fails(sb, '/incidents', [], 400, 2001, { headers: { accept: 'application/json' } });
    await fails(sb, '/incidents', [], 400, 2001, { headers: { accept: 'application/vnd.pagerduty+json;version=1' } });
    await fails(sb, '/incidents', [], 400, 2001, { headers: { 'content-type': undefined } });
    await fails(sb, '/incidents', [], 400, 2001, { headers: { 'content-type': 'text/plain' } });
    // Harmless variations are accepted.
    const r = await call(sb, '/incidents', [], { headers: { accept: 'application/vnd.pagerduty+json; version=2', 'content-type': 'application/json; charset=utf-8' } });
    assert.equal(r.status, 200);
  });
});

describe('parameter validation', () => {
  test('limit, offset and the 10000 window', async () => {
    await fails(sb, '/users', [['limit', '0']], 400, 2001);
    await fails(sb, '/users', [['limit', '101']], 400, 2001);
    await fails(sb, '/incidents', [['limit', 'ten']], 400, 2001);
    await fails(sb, '/incidents', [['limit', '2.5']], 400, 2001);
    await fails(sb, '/teams', [['offset', '-1']], 400, 2001);
    const body = await fails(sb, '/users', [['offset', '9901'], ['limit', '100']], 400, 2002);
    assert.match(body.error.errors[0], /Offset\+limit exceeds maximum allowed value of 10000/);
    await fails(sb, '/oncalls', [['offset', '10000']], 400, 2002);
    // Exactly 10000 is allowed.
    const edge = await ok(sb, '/users', [['offset', '9900'], ['limit', '100']]);
    assert.deepEqual(edge.users, []);
    assert.equal(edge.more, false);
    await fails(sb, '/users', [['total', 'yes']], 400, 2001);
  });

  test('enum values outside the spec are rejected', async () => {
    await fails(sb, '/incidents', [['statuses[]', 'open']], 400, 2001);
    await fails(sb, '/incidents', [['urgencies[]', 'urgent']], 400, 2001);
    await fails(sb, '/incidents', [['include[]', 'custom_fields']], 400, 2001); // only on /incidents/{id}
    await fails(sb, '/incidents', [['date_range', 'some']], 400, 2001);
    await fails(sb, '/incidents', [['sort_by', 'title:asc']], 400, 2001);
    await fails(sb, '/incidents', [['sort_by', 'created_at,urgency,incident_number']], 400, 2001);
    await fails(sb, '/oncalls', [['include[]', 'teams']], 400, 2001);
    await fails(sb, '/teams/' + ids.teamId + '/members', [['include[]', 'teams']], 400, 2001);
    await fails(sb, '/services', [['sort_by', 'created_at']], 400, 2001);
    await fails(sb, '/escalation_policies/' + ids.policyId, [['include[]', 'users']], 400, 2001);
    await fails(sb, '/oncalls', [['earliest', '1']], 400, 2001);
  });

  test('time zones and dates', async () => {
    await fails(sb, '/incidents', [['time_zone', 'Mars/Olympus_Mons']], 400, 2001);
    await fails(sb, '/oncalls', [['time_zone', 'EST5EDT-ish']], 400, 2001);
    await fails(sb, '/incidents', [['since', 'last tuesday']], 400, 2001);
    await fails(sb, '/log_entries', [['until', '2026-13-01']], 400, 2001);
    await fails(sb, '/incidents', [['since', '2026-03-10'], ['until', '2026-03-01']], 400, 2001);
    await fails(sb, '/oncalls', [['since', iso(NOW.getTime() + DAY)], ['until', iso(NOW.getTime())]], 400, 2001);
    await fails(sb, '/log_entries', [['since', '2026-03-10'], ['until', '2026-03-09']], 400, 2001);
    await fails(sb, '/incidents', [['since', '2025-01-01'], ['until', '2026-01-01']], 400, 2001); // > 6 months
    await fails(sb, '/oncalls', [['until', iso(NOW.getTime() + 91 * DAY)]], 400, 2001);
    await ok(sb, '/oncalls', [['until', iso(NOW.getTime() + 89 * DAY)]]);
    // The digest's date forms are all accepted.
    for (const since of ['2026-03-01T17:00Z', '2026-03-01T03:30-07', '2026-03-01']) {
      await ok(sb, '/incidents', [['since', since], ['until', '2026-03-11']]);
    }
  });

  test('404 for unknown IDs and paths, 405 for other methods, 404 for unknown platforms', async () => {
    for (const p of ['/users/PNOPE00', '/incidents/PNOPE00', '/escalation_policies/PNOPE00', '/services/PNOPE00', '/schedules/PNOPE00', '/teams/PNOPE00', '/teams/PNOPE00/members']) {
      const body = await fails(sb, p, [], 404, 2100);
      assert.equal(body.error.message, 'Not Found');
    }
    const unknown = await call(sb, '/nothing/here', [], { invalidRequest: true });
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { error: { message: 'Not Found', code: 2100 } });
    const post = await call(sb, '/incidents', [], { method: 'POST', invalidRequest: true });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET');
    const res = await fetch(`${sb.url}/nope/users`);
    assert.equal(res.status, 404);
    assert.match(((await res.json()) as Body).error.message, /no sandbox platform/);
  });
});

describe('behaviour', () => {
  test('pagination walks every user exactly once, sorted by name', async () => {
    const first = await ok(sb, '/users', [['total', 'true']]);
    assert.equal(first.users.length, 25);
    assert.equal(first.more, true);
    const users = await all(sb, '/users', 'users');
    assert.equal(users.length, first.total);
    assert.equal(new Set(users.map((u: Body) => u.id)).size, users.length);
    const names = users.map((u: Body) => u.name.toLowerCase());
    assert.deepEqual(names, [...names].sort());
  });

  test('user search is a case-insensitive name substring and finds the look-alikes', async () => {
    const found = (await ok(sb, '/users', [['query', 'ALEX']])).users.map((u: Body) => u.name);
    for (const n of ['Alex Morgan', 'Alex Moran', 'Alexandra Morgan']) assert.ok(found.includes(n), n);
    assert.ok(found.every((n: string) => n.toLowerCase().includes('alex')));
    const team = await ok(sb, '/users', [['team_ids[]', ids.teamId], ['limit', '100']]);
    assert.ok(team.users.length > 0);
    assert.ok(team.users.every((u: Body) => u.teams.some((t: Body) => t.id === ids.teamId)));
  });

  test('incident filters and the default one-month window', async () => {
    const everything = await all(sb, '/incidents', 'incidents', [['date_range', 'all']]);
    assert.ok(everything.length >= 60, `only ${everything.length} incidents`);
    const created = everything.map((i: Body) => ms(i.created_at));
    assert.deepEqual(created, [...created].sort((a, b) => a - b), 'ordered by created_at');
    assert.ok(Math.min(...created) < NOW.getTime() - 35 * DAY, 'history reaches back ~6 weeks');
    for (const s of ['triggered', 'acknowledged', 'resolved']) assert.ok(everything.some((i: Body) => i.status === s), s);
    assert.ok(everything.some((i: Body) => i.priority === null) && everything.some((i: Body) => i.priority !== null));

    const recent = await all(sb, '/incidents', 'incidents');
    const monthAgo = DateTime.fromJSDate(NOW, { zone: 'utc' }).minus({ months: 1 }).toMillis();
    assert.ok(recent.length > 0 && recent.length < everything.length);
    assert.ok(recent.every((i: Body) => ms(i.created_at) >= monthAgo));
    assert.equal(recent.length, everything.filter((i: Body) => ms(i.created_at) >= monthAgo).length);

    const open = await all(sb, '/incidents', 'incidents', [['date_range', 'all'], ['statuses[]', 'triggered'], ['statuses[]', 'acknowledged']]);
    assert.equal(open.length, everything.filter((i: Body) => i.status !== 'resolved').length);
    const high = await all(sb, '/incidents', 'incidents', [['date_range', 'all'], ['urgencies[]', 'high']]);
    assert.ok(high.length > 0 && high.every((i: Body) => i.urgency === 'high'));
    const svc = await all(sb, '/incidents', 'incidents', [['date_range', 'all'], ['service_ids[]', ids.serviceId]]);
    assert.ok(svc.every((i: Body) => i.service.id === ids.serviceId));
    const team = await all(sb, '/incidents', 'incidents', [['date_range', 'all'], ['team_ids[]', ids.teamId]]);
    assert.ok(team.length > 0 && team.every((i: Body) => i.teams.some((t: Body) => t.id === ids.teamId)));
    const mine = await all(sb, '/incidents', 'incidents', [['date_range', 'all'], ['user_ids[]', DEMO]]);
    assert.ok(mine.length > 0, 'the demo user has open incidents');
    assert.ok(mine.every((i: Body) => i.status !== 'resolved' && i.assignments.some((a: Body) => a.assignee.id === DEMO)));
    const key = everything[3].incident_key;
    assert.deepEqual((await ok(sb, '/incidents', [['date_range', 'all'], ['incident_key', key]])).incidents.map((i: Body) => i.id), [everything[3].id]);
    const desc = (await ok(sb, '/incidents', [['date_range', 'all'], ['sort_by', 'incident_number:desc']])).incidents;
    assert.equal(desc[0].incident_number, Math.max(...everything.map((i: Body) => i.incident_number)));
  });

  test('time_zone renders the same instants in the requested zone', async () => {
    const utc = (await ok(sb, '/incidents', [['date_range', 'all'], ['limit', '5']])).incidents;
    const tokyo = (await ok(sb, '/incidents', [['date_range', 'all'], ['limit', '5'], ['time_zone', 'Asia/Tokyo']])).incidents;
    assert.ok(utc.every((i: Body) => i.created_at.endsWith('Z')));
    assert.ok(tokyo.every((i: Body) => i.created_at.endsWith('+09:00')));
    assert.deepEqual(tokyo.map((i: Body) => ms(i.created_at)), utc.map((i: Body) => ms(i.created_at)));
    const oncalls = (await ok(sb, '/oncalls', [['time_zone', 'America/New_York'], ['schedule_ids[]', ids.scheduleId]])).oncalls;
    assert.ok(oncalls.length > 0 && oncalls.every((o: Body) => /-0[45]:00$/.test(o.start)));
  });

  test('include[] swaps references for full objects', async () => {
    const members = (await ok(sb, `/teams/${ids.teamId}/members`, [['include[]', 'users']])).members;
    assert.ok(members.every((m: Body) => m.user.type === 'user' && typeof m.user.email === 'string' && ['manager', 'responder', 'observer'].includes(m.role)));
    const plain = (await ok(sb, `/teams/${ids.teamId}/members`)).members;
    assert.ok(plain.every((m: Body) => m.user.type === 'user_reference' && m.user.email === undefined));
    const oncalls = (await ok(sb, '/oncalls', [['include[]', 'users'], ['include[]', 'schedules'], ['include[]', 'escalation_policies']])).oncalls;
    assert.ok(oncalls.every((o: Body) => o.user.type === 'user' && o.escalation_policy.type === 'escalation_policy' && (o.schedule === null || o.schedule.type === 'schedule')));
    const incident = (await ok(sb, `/incidents/${ids.incidentId}`, [['include[]', 'services'], ['include[]', 'teams']])).incident;
    assert.equal(incident.service.type, 'service');
    assert.ok(incident.teams.every((t: Body) => t.type === 'team'));
  });

  test('log entries: newest first, is_overview drops notifications', async () => {
    const everything = await all(sb, '/log_entries', 'log_entries');
    const times = everything.map((e: Body) => ms(e.created_at));
    assert.deepEqual(times, [...times].sort((a, b) => b - a));
    const types = new Set(everything.map((e: Body) => e.type));
    for (const t of ['trigger_log_entry', 'acknowledge_log_entry', 'resolve_log_entry', 'notify_log_entry', 'annotate_log_entry', 'escalate_log_entry']) assert.ok(types.has(t), t);
    const overview = await all(sb, '/log_entries', 'log_entries', [['is_overview', 'true']]);
    assert.ok(overview.length > 0 && overview.length < everything.length);
    assert.ok(overview.every((e: Body) => e.type !== 'notify_log_entry'));
    assert.equal(overview.length, everything.filter((e: Body) => e.type !== 'notify_log_entry').length);
    const since = NOW.getTime() - 2 * DAY;
    const window = await all(sb, '/log_entries', 'log_entries', [['since', iso(since)]]);
    assert.equal(window.length, everything.filter((e: Body) => ms(e.created_at) >= since).length);
  });

  test('the demo user is on call now and has a next shift', async () => {
    const now = (await ok(sb, '/oncalls', [['user_ids[]', DEMO]])).oncalls;
    const scheduled = now.filter((o: Body) => o.schedule !== null);
    assert.ok(scheduled.length > 0, 'on call now on a schedule');
    for (const o of scheduled) assert.ok(ms(o.start) <= NOW.getTime() && NOW.getTime() < ms(o.end));
    assert.ok(now.some((o: Body) => o.schedule === null && o.start === null && o.end === null), 'a permanent on-call from a direct target');
    const ahead = (await ok(sb, '/oncalls', [['user_ids[]', DEMO], ['until', iso(NOW.getTime() + 60 * DAY)], ['limit', '100']])).oncalls;
    assert.ok(ahead.some((o: Body) => o.start !== null && ms(o.start) > NOW.getTime()), 'an upcoming shift');
  });

  test('on-call rotation follows the layer boundaries and changes over time', async () => {
    const schedules = (await ok(sb, '/schedules', [['query', 'Mobile On-Call']])).schedules;
    const mobile = (await ok(sb, `/schedules/${schedules[0].id}`)).schedule;
    const layer = mobile.schedule_layers[0];
    const turn = layer.rotation_turn_length_seconds * 1000;
    const vs = ms(layer.rotation_virtual_start);
    const at = async (box: RunningSandbox, t: number | null) => {
      const q: Pairs = [['schedule_ids[]', mobile.id], ['escalation_policy_ids[]', mobile.escalation_policies[0].id]];
      if (t !== null) q.push(['since', iso(t)], ['until', iso(t)]);
      const list = (await ok(box, '/oncalls', q)).oncalls;
      assert.equal(list.length, 1, JSON.stringify(list));
      return list[0];
    };
    const a = await at(sb, NOW.getTime());
    const b = await at(sb, NOW.getTime() + turn);
    assert.notEqual(a.user.id, b.user.id, 'next turn, next person');
    assert.equal(ms(b.start), ms(a.end), 'consecutive shifts touch');
    assert.equal(ms(a.end) - ms(a.start), turn);
    assert.equal((ms(a.start) - vs) % turn, 0, 'shift starts on a rotation boundary');
    const n = layer.users.length;
    assert.equal((await at(sb, NOW.getTime() + n * turn)).user.id, a.user.id, 'the rotation wraps around');

    // Another sandbox whose clock is one turn later: its "now" has the next person on call, and
    // the same instant still resolves to the same person.
    const later = await start({ incidentops: { now: () => new Date(NOW.getTime() + turn) } });
    try {
      const laterNow = await at(later, null);
      assert.equal(laterNow.user.id, b.user.id);
      assert.notEqual(laterNow.user.id, a.user.id);
      assert.equal((await at(later, NOW.getTime())).user.id, a.user.id);
    } finally {
      await later.close();
    }
  });

  test('earliest=true keeps only the earliest on-call per policy, level and user', async () => {
    const q: Pairs = [['since', iso(NOW.getTime())], ['until', iso(NOW.getTime() + 45 * DAY)]];
    const full = await all(sb, '/oncalls', 'oncalls', q);
    const earliest = await all(sb, '/oncalls', 'oncalls', [...q, ['earliest', 'true']]);
    const key = (o: Body) => `${o.escalation_policy.id}|${o.escalation_level}|${o.user.id}`;
    const groups = new Map<string, Body[]>();
    for (const o of full) groups.set(key(o), [...(groups.get(key(o)) ?? []), o]);
    assert.ok([...groups.values()].some((g) => g.length > 1), 'the window holds repeated shifts');
    assert.equal(earliest.length, groups.size);
    for (const o of earliest) {
      const starts = (groups.get(key(o)) ?? []).map((x: Body) => (x.start === null ? -Infinity : ms(x.start)));
      assert.equal(o.start === null ? -Infinity : ms(o.start), Math.min(...starts));
    }
  });

  test('on-call filters', async () => {
    const q: Pairs = [['until', iso(NOW.getTime() + 14 * DAY)]];
    const everything = await all(sb, '/oncalls', 'oncalls', q);
    const bySchedule = await all(sb, '/oncalls', 'oncalls', [...q, ['schedule_ids[]', ids.scheduleId]]);
    assert.ok(bySchedule.length > 0 && bySchedule.every((o: Body) => o.schedule?.id === ids.scheduleId));
    const withNull = await all(sb, '/oncalls', 'oncalls', [...q, ['schedule_ids[]', ids.scheduleId], ['schedule_ids[]', 'null']]);
    assert.equal(withNull.length, bySchedule.length + everything.filter((o: Body) => o.schedule === null).length);
    const byPolicy = await all(sb, '/oncalls', 'oncalls', [...q, ['escalation_policy_ids[]', ids.policyId]]);
    assert.ok(byPolicy.length > 0 && byPolicy.every((o: Body) => o.escalation_policy.id === ids.policyId));
    assert.deepEqual(new Set(byPolicy.map((o: Body) => o.escalation_level)), new Set([1, 2, 3]));
    const byUser = await all(sb, '/oncalls', 'oncalls', [...q, ['user_ids[]', DEMO]]);
    assert.equal(byUser.length, everything.filter((o: Body) => o.user.id === DEMO).length);
  });

  test('schedules render final entries from the layers (with restrictions)', async () => {
    const from = Date.parse('2026-03-09T00:00:00Z');
    const to = from + 7 * DAY;
    const s = (await ok(sb, `/schedules/${ids.scheduleId}`, [['since', iso(from)], ['until', iso(to)], ['time_zone', 'Europe/London']])).schedule;
    // Business hours over round the clock (and, from a day after now, its new rotation).
    assert.equal(s.schedule_layers.length, 3);
    const [business] = s.schedule_layers;
    assert.ok(business.restrictions.length > 0);
    for (const e of business.rendered_schedule_entries) {
      const start = DateTime.fromISO(e.start, { zone: 'Europe/London' });
      const end = DateTime.fromISO(e.end, { zone: 'Europe/London' });
      assert.ok(start.weekday <= 5 && start.hour >= 9 && end.diff(start).as('hours') <= 8, `${e.start}..${e.end}`);
    }
    const final = s.final_schedule.rendered_schedule_entries;
    assert.equal(ms(final[0].start), from);
    assert.equal(ms(final[final.length - 1].end), to);
    // The one gap is the hand-over between the round-the-clock layer and its new rotation (weeknight hours).
    const [, old, renewed] = s.schedule_layers;
    const gaps = final.slice(1).flatMap((e: Body, i: number) => (ms(e.start) === ms(final[i].end) ? [] : [[ms(final[i].end), ms(e.start)]]));
    assert.deepEqual(gaps, [[ms(old.end), ms(renewed.start)]]);
    assert.equal(s.final_schedule.rendered_coverage_percentage, Math.round((1 - (ms(renewed.start) - ms(old.end)) / (to - from)) * 10_000) / 100);
    // Business-hours responders take over from the round-the-clock layer on weekdays.
    const businessUsers = new Set(business.users.map((u: Body) => u.user.id));
    assert.ok(final.some((e: Body) => businessUsers.has(e.user.id)));
    // The current on-call from /oncalls agrees with the final schedule.
    const current = final.find((e: Body) => ms(e.start) <= NOW.getTime() && NOW.getTime() < ms(e.end));
    const oncall = (await ok(sb, '/oncalls', [['schedule_ids[]', ids.scheduleId]])).oncalls[0];
    assert.equal(oncall.user.id, current.user.id);
    const next = (await ok(sb, '/schedules', [['include_next_oncall_for_user', DEMO], ['query', 'Platform']])).schedules;
    assert.ok(next.every((x: Body) => x.next_oncall_for_user && ms(x.next_oncall_for_user.end) > NOW.getTime()));
  });

  test('overrides: listed for a window, above every layer in the final schedule and /oncalls, with a coverage gap ahead', async () => {
    await fails(sb, '/schedules/{id}/overrides'.replace('{id}', ids.scheduleId), [['since', iso(NOW.getTime())]], 400, 2001);
    await fails(sb, '/schedules/PNOPE00/overrides', [['since', iso(NOW.getTime())], ['until', iso(NOW.getTime() + DAY)]], 404, 2100);
    const window: Pairs = [['since', iso(NOW.getTime())], ['until', iso(NOW.getTime() + 2 * DAY)]];
    let seen = 0;
    for (const { id } of await all(sb, '/schedules', 'schedules')) {
      const { overrides } = await ok(sb, `/schedules/${id}/overrides`, window);
      const schedule = (await ok(sb, `/schedules/${id}`, window)).schedule;
      const rendered = schedule.overrides_subschedule.rendered_schedule_entries;
      assert.deepEqual(rendered.map((e: Body) => [ms(e.start), ms(e.end), e.user.id]), overrides.map((o: Body) => [ms(o.start), ms(o.end), o.user.id]));
      for (const o of overrides) {
        seen++;
        const middle = (ms(o.start) + ms(o.end)) / 2;
        const at = (entries: Body[]) => entries.find((e) => ms(e.start) <= middle && middle < ms(e.end))?.user.id;
        assert.equal(at(schedule.final_schedule.rendered_schedule_entries), o.user.id, 'the override is on call in the final schedule');
        assert.ok(schedule.schedule_layers.every((l: Body) => at(l.rendered_schedule_entries) !== o.user.id), 'no layer has the override');
        const oncall = (await ok(sb, '/oncalls', [['schedule_ids[]', id], ['since', iso(middle)], ['until', iso(middle)]])).oncalls;
        assert.ok(oncall.length > 0 && oncall.every((r: Body) => r.user.id === o.user.id), 'the override is on call in /oncalls');
        // Ahead (the demo user's stand-in running now, data/handoff.ts, is listed from since).
        assert.ok(ms(o.start) >= NOW.getTime(), 'overrides lie ahead');
      }
      const future = (await ok(sb, `/schedules/${id}/overrides`, [...window, ['editable', 'true']])).overrides;
      // Listed cut at since; uncut, the running one began before now and is no longer editable.
      const running = new Set((await ok(sb, `/schedules/${id}/overrides`, [...window, ['overflow', 'true']])).overrides.filter((o: Body) => ms(o.start) < NOW.getTime()).map((o: Body) => o.id));
      assert.deepEqual(future, overrides.filter((o: Body) => !running.has(o.id)), 'every override ahead is editable, the running one not');
      const coverage = schedule.final_schedule.rendered_coverage_percentage;
      assert.equal(coverage < 100, id === ids.scheduleId, `${schedule.name}: coverage ${coverage}%`);
    }
    assert.equal(seen, 3);
  });

  test('services, policies and teams', async () => {
    const services = await all(sb, '/services', 'services');
    const incidents = await all(sb, '/incidents', 'incidents', [['date_range', 'all']]);
    for (const s of services) {
      if (s.status === 'maintenance' || s.status === 'disabled') continue;
      const mine = incidents.filter((i: Body) => i.service.id === s.id);
      const expected = mine.some((i: Body) => i.status === 'triggered') ? 'critical' : mine.some((i: Body) => i.status === 'acknowledged') ? 'warning' : 'active';
      assert.equal(s.status, expected, s.name);
    }
    const desc = (await ok(sb, '/services', [['sort_by', 'name:desc']])).services.map((s: Body) => s.name);
    assert.deepEqual(desc, services.map((s: Body) => s.name).reverse().slice(0, desc.length));
    const policies = (await ok(sb, '/escalation_policies', [['user_ids[]', DEMO]])).escalation_policies;
    assert.ok(policies.length > 0);
    assert.ok(policies.every((p: Body) => p.escalation_rules.some((r: Body) => r.targets.some((t: Body) => t.id === DEMO))));
    const teams = (await ok(sb, '/teams', [['query', 'PAY']])).teams;
    assert.deepEqual(teams.map((t: Body) => t.name), ['Payments']);
    assert.equal((await ok(sb, `/teams/${ids.teamId}`)).team.name, 'Platform Engineering');
  });

  test('data is deterministic for a seed and changes with another seed', async () => {
    const twin = await start();
    const other = await start({ incidentops: { seed: 99 } });
    try {
      const strip = (b: Body) => JSON.parse(JSON.stringify(b).replace(/http:\/\/127\.0\.0\.1:\d+/g, ''));
      const a = strip(await ok(sb, '/incidents', [['date_range', 'all'], ['limit', '100']]));
      assert.deepEqual(strip(await ok(twin, '/incidents', [['date_range', 'all'], ['limit', '100']])), a);
      assert.notDeepEqual(strip(await ok(other, '/incidents', [['date_range', 'all'], ['limit', '100']])), a);
    } finally {
      await twin.close();
      await other.close();
    }
  });

  test('10,000 users are generated and paged', async () => {
    const big = await start({ incidentops: { users: 10_000 } });
    try {
      const first = await ok(big, '/users', [['total', 'true'], ['limit', '100']]);
      assert.equal(first.total, 10_000);
      const last = await ok(big, '/users', [['offset', '9900'], ['limit', '100']]);
      assert.equal(last.users.length, 100);
      assert.equal(last.more, false);
      await fails(big, '/users', [['offset', '9901'], ['limit', '100']], 400, 2002);
      const emails = new Set(first.users.concat(last.users).map((u: Body) => u.email));
      assert.equal(emails.size, 200, 'e-mails are unique');
      assert.equal((await ok(big, '/users/me')).user.id, DEMO);
    } finally {
      await big.close();
    }
  });
});

describe('sandbox host', () => {
  test('records every request with redacted credentials', async () => {
    sb.clearRequests();
    await call(sb, '/incidents', [['statuses[]', 'triggered'], ['limit', '5']]);
    await call(sb, '/users/me', [], { headers: { authorization: `Token token=${TOKEN}` } });
    await call(sb, '/users/me', [], { headers: { authorization: 'Bearer wrong' }, invalidRequest: true });
    await fetch(`${sb.incidentops.baseUrl}/teams/P%20X?include%5B%5D=privileges`, { headers: goodHeaders() });
    assert.equal(sb.requests.length, 4);
    const [a, b, c, d] = sb.requests;
    assert.deepEqual(
      { platform: a!.platform, method: a!.method, path: a!.path, query: a!.query, status: a!.status },
      { platform: 'incidentops', method: 'GET', path: '/incidents', query: [['statuses[]', 'triggered'], ['limit', '5']], status: 200 },
    );
    assert.equal(a!.headers.authorization, 'Bearer [redacted]');
    assert.equal(a!.headers.accept, ACCEPT);
    assert.equal(b!.headers.authorization, 'Token token=[redacted]');
    assert.equal(c!.status, 401);
    assert.equal(d!.path, '/teams/P%20X');
    assert.deepEqual(d!.query, [['include[]', 'privileges']]);
    assert.equal(d!.status, 404);
    assert.ok(!JSON.stringify(sb.requests).includes(TOKEN), 'the token never appears');
    sb.clearRequests();
    assert.equal(sb.requests.length, 0);
  });

  test('defaults: token, ephemeral port, latency', async () => {
    const box = await startSandbox({ latencyMs: 30 });
    try {
      assert.equal(box.incidentops.token, 'sandbox-token');
      assert.match(box.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(box.incidentops.baseUrl, `${box.url}/incidentops`);
      const t0 = Date.now();
      const res = await fetch(`${box.incidentops.baseUrl}/users/me`, { headers: goodHeaders('sandbox-token') });
      assert.equal(res.status, 200);
      assert.ok(Date.now() - t0 >= 25);
    } finally {
      await box.close();
    }
  });

  test('extra platforms plug in under their own prefix', async () => {
    const box = await startSandbox({
      platforms: [{ prefix: 'echo', handle: (req) => ({ status: 201, body: { path: req.path, query: req.query, base: req.baseUrl } }) }],
    });
    try {
      const res = await fetch(`${box.url}/echo/a/b?x=1&x=2`);
      assert.equal(res.status, 201);
      assert.deepEqual(await res.json(), { path: '/a/b', query: [['x', '1'], ['x', '2']], base: `${box.url}/echo` });
      assert.equal(box.requests[0]?.platform, 'echo');
    } finally {
      await box.close();
    }
  });
});
