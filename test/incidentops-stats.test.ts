/**
 * "How did the payments team do last month" (IncidentOps.IncidentStats), against the sandbox: each
 * figure computed again here from the incidents, the log feed and the users read over raw HTTP
 * (medians and p90 by nearest rank, out of hours and nights in each responder's own zone, with
 * luxon rather than the tool's Intl), every request checked against the official spec, bad input
 * refused before anything is sent, and the cost against the contract's best plan.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { countTokens } from '../src/core/tools/context-size.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, jsonResponse, scriptedFetch, startTestSandbox, type ToolOutcome, incidentOpsGet } from './support/harness.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;
const SPEC = 'pagerduty-openapi.json';
const PINNED = new Date('2026-05-06T12:00:00Z');
const DAY = 86_400_000;

let sandbox: RunningSandbox;
let server: AnyToolServer;

const platform = (path: string): Promise<Json> => incidentOpsGet(sandbox, path) as Promise<Json>;

async function every(path: string, key: string): Promise<Json[]> {
  const all: Json[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await platform(`${path}${path.includes('?') ? '&' : '?'}limit=100&offset=${offset}`);
    all.push(...(page[key] as Json[]));
    if (page.more !== true) return all;
  }
}

const call = (args: Json) => callRecorded(sandbox, server, 'IncidentOps.IncidentStats', args);

/** Nearest rank: the value at rank ceil(p n), in minutes to one decimal. */
function rank(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = values.slice().sort((a, b) => a - b);
  return Math.round((sorted[Math.ceil(p * sorted.length) - 1] as number) / 6_000) / 10;
}

interface Expected {
  total: number;
  byUrgency: Record<string, number>;
  byStatus: Record<string, number>;
  ack: { count: number; median?: number; p90?: number; never: number };
  resolve: { count: number; median?: number; p90?: number };
  pages: { total: number; outOfHours: number; night: number };
  perUser: Map<string, { pages: number; outOfHours: number; night: number; nightIncidents: Set<string>; zone: string }>;
}

/** The figures, from raw reads: incidents of the filter over the window, the log feed, each paged user's record. */
async function expected(filter: string, since: Date, until: Date, teamFilter: string): Promise<Expected> {
  const window = `since=${since.toISOString()}&until=${until.toISOString()}`;
  const incidents = await every(`/incidents?${window}&${filter}`, 'incidents');
  const created = new Map(incidents.map((i) => [String(i.id), Date.parse(String(i.created_at))]));
  const log = await every(`/log_entries?${window}${teamFilter}`, 'log_entries');
  const byUrgency: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const resolveMs: number[] = [];
  for (const i of incidents) {
    byUrgency[String(i.urgency)] = (byUrgency[String(i.urgency)] ?? 0) + 1;
    byStatus[String(i.status)] = (byStatus[String(i.status)] ?? 0) + 1;
    if (i.status === 'resolved') resolveMs.push(Date.parse(String(i.resolved_at ?? i.last_status_change_at)) - Date.parse(String(i.created_at)));
  }
  const ours = log.filter((e) => created.has(String((e.incident as Json).id)));
  const ackMs: number[] = [];
  let never = 0;
  for (const [id, start] of created) {
    const acks = ours.filter((e) => e.type === 'acknowledge_log_entry' && (e.incident as Json).id === id).map((e) => Date.parse(String(e.created_at)));
    if (acks.length === 0) never += 1;
    else ackMs.push(Math.min(...acks) - start);
  }
  const perUser: Expected['perUser'] = new Map();
  const pages = { total: 0, outOfHours: 0, night: 0 };
  for (const e of ours.filter((entry) => entry.type === 'notify_log_entry')) {
    const userId = String((e.user as Json).id);
    let user = perUser.get(userId);
    if (!user) {
      const zone = String(((await platform(`/users/${userId}`)).user as Json).time_zone);
      user = { pages: 0, outOfHours: 0, night: 0, nightIncidents: new Set(), zone };
      perUser.set(userId, user);
    }
    const local = DateTime.fromISO(String(e.created_at)).setZone(user.zone);
    const off = local.weekday >= 6 || local.hour < 8 || local.hour >= 20;
    const night = local.hour >= 22 || local.hour < 7;
    pages.total += 1;
    user.pages += 1;
    if (off) (pages.outOfHours += 1), (user.outOfHours += 1);
    if (night) (pages.night += 1), (user.night += 1), user.nightIncidents.add(String((e.incident as Json).id));
  }
  return {
    total: incidents.length,
    byUrgency,
    byStatus,
    ack: { count: ackMs.length, median: rank(ackMs, 0.5), p90: rank(ackMs, 0.9), never },
    resolve: { count: resolveMs.length, median: rank(resolveMs, 0.5), p90: rank(resolveMs, 0.9) },
    pages,
    perUser,
  };
}

function assertFigures(data: Json, want: Expected): void {
  const incidents = data.incidents as Json;
  assert.equal(incidents.total, want.total);
  assert.deepEqual(incidents.by_urgency, want.byUrgency);
  assert.deepEqual(incidents.by_status, want.byStatus);
  const ack = data.time_to_acknowledge as Json;
  assert.equal(ack.count, want.ack.count);
  assert.equal(ack.median_min, want.ack.median);
  assert.equal(ack.p90_min, want.ack.p90);
  assert.equal(ack.left_out, want.ack.never > 0 ? want.ack.never : undefined);
  const resolve = data.time_to_resolve as Json;
  assert.equal(resolve.count, want.resolve.count);
  assert.equal(resolve.median_min, want.resolve.median);
  assert.equal(resolve.p90_min, want.resolve.p90);
  assert.deepEqual(data.pages, { total: want.pages.total, out_of_hours: want.pages.outOfHours, at_night: want.pages.night });
  const lines = data.responders as string[];
  const ranked = [...want.perUser.entries()].sort((a, b) => b[1].pages - a[1].pages || (a[0] < b[0] ? -1 : 1));
  assert.equal(lines.length, Math.min(10, ranked.length) + (ranked.length > 10 ? 1 : 0));
  ranked.slice(0, 10).forEach(([id, user], i) => {
    assert.ok(
      lines[i]?.endsWith(`(${id}): ${user.pages} pages, ${user.outOfHours} out of hours, ${user.night} at night (${user.nightIncidents.size} incidents) in ${user.zone}`),
      `${lines[i]} vs ${id} ${JSON.stringify({ ...user, nightIncidents: user.nightIncidents.size })}`,
    );
  });
}

before(async () => {
  sandbox = await startTestSandbox({ incidentops: { now: () => PINNED } });
  server = incidentOpsServerFor(sandbox, { now: () => PINNED });
});
after(() => sandbox.close());

describe('IncidentOps.IncidentStats', () => {
  it('answers "how did the payments team do last month" in one call, every figure as computed here', async () => {
    const teams = (await platform('/teams?query=payments')).teams as Json[];
    const team = teams.find((t) => String(t.name).toLowerCase() === 'payments') as Json;
    assert.ok(team, 'the sandbox has a Payments team');
    const result = await call({ team_id: 'payments' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(result.data.partial, undefined);
    assert.ok(String(result.data.of).endsWith(`(${String(team.id)})`));
    const since = new Date(PINNED.getTime() - 30 * DAY);
    const want = await expected(`team_ids[]=${String(team.id)}`, since, PINNED, `&team_ids[]=${String(team.id)}`);
    assert.ok(want.total >= 5 && want.pages.outOfHours > 0 && want.pages.night > 0, `a month with nights in it: ${JSON.stringify(want.pages)}`);
    assert.ok(new Set([...want.perUser.values()].map((u) => u.zone)).size >= 2, 'responders in several time zones');
    assertFigures(result.data, want);
    assert.match(String(result.data.window), /^2026-04-06T12:00Z to 2026-05-06T12:00Z \(30 days\)$/);
  });

  it('covers a service over six months, and a policy by name, each figure as computed here', async () => {
    const services = (await platform('/services?query=Payments%20Gateway')).services as Json[];
    const service = services[0] as Json;
    const since = new Date(PINNED.getTime() - 180 * DAY);
    const result = await call({ service_id: 'Payments Gateway', days: 180 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const teamIds = (service.teams as Json[]).map((t) => `&team_ids[]=${String(t.id)}`).join('');
    const want = await expected(`service_ids[]=${String(service.id)}`, since, PINNED, teamIds);
    assert.ok(want.total >= 30, `six months of history: ${want.total}`);
    assertFigures(result.data, want);

    const policy = (await platform(`/escalation_policies/${String((service.escalation_policy as Json).id)}`)).escalation_policy as Json;
    const bySince = await call({ escalation_policy_id: String(policy.name), since: '2026-01-01T00:00:00Z', until: '2026-03-01T00:00:00Z', time_zone: 'Asia/Tokyo' });
    assert.equal(bySince.isError, false, JSON.stringify(bySince.data));
    const policyServices = (policy.services as Json[]).map((s) => `service_ids[]=${String(s.id)}`).join('&');
    const policyTeams = (policy.teams as Json[]).map((t) => `&team_ids[]=${String(t.id)}`).join('');
    assertFigures(bySince.data, await expected(policyServices, new Date('2026-01-01T00:00:00Z'), new Date('2026-03-01T00:00:00Z'), policyTeams));
  });

  it('refuses bad input before anything is sent, naming the parameter', async () => {
    const cases: [Json, string][] = [
      [{}, 'service_id'],
      [{ service_id: 'payments', team_id: 'payments' }, 'team_id'],
      [{ team_id: 'payments', days: 181 }, 'days'],
      [{ team_id: 'payments', days: 0 }, 'days'],
      [{ team_id: 'payments', since: '2025-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 'since'],
      [{ team_id: 'payments', since: '2026-05-01', until: '2026-04-01' }, 'until'],
      [{ team_id: 'payments', since: '2026-04-01', days: 10 }, 'days'],
      [{ team_id: 'payments', time_zone: 'Mars/Olympus' }, 'time_zone'],
      [{ team_id: 'payments', since: 'last week' }, 'since'],
    ];
    for (const [args, parameter] of cases) {
      const result = await call(args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.equal(result.data.kind, 'invalid_input');
      assert.match(JSON.stringify(result.data), new RegExp(parameter));
      assert.equal(result.sent.length, 0, JSON.stringify(args));
    }
    const unknown = await call({ team_id: 'no such team anywhere' });
    assert.equal(unknown.isError, true);
    assert.equal(unknown.data.kind, 'not_found');
  });

  it('says which part of the window it covers when the log feed is cut', async () => {
    // A window whose log feed is longer than one call reads (the whole account over six months): the answer says from when.
    const result = await call({ service_id: 'Kubernetes Platform', days: 180 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const feed = await platform(`/log_entries?since=${new Date(PINNED.getTime() - 180 * DAY).toISOString()}&until=${PINNED.toISOString()}&limit=1&total=true`);
    if (Number(feed.total) > 3_000) {
      assert.ok((result.data.partial as string[]).some((line) => /^acknowledgements and pages: for incidents created from \d{4}-/.test(line)), JSON.stringify(result.data.partial));
    } else {
      assert.equal(result.data.partial, undefined);
    }
  });

  it('costs one call, against the contract plan', async () => {
    const tokensOf = (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);
    const task = await call({ team_id: 'payments' });
    const team = ((await platform('/teams?query=payments')).teams as Json[]).find((t) => String(t.name).toLowerCase() === 'payments') as Json;
    const since = new Date(PINNED.getTime() - 30 * DAY).toISOString();
    // The contract's best plan: the team, its incidents of the month and the log feed over it, then the users (their zones), largest pages.
    const plan: [string, Json][] = [['IncidentOps.ListTeams', { limit: 50 }]];
    for (let offset = 0; ; offset += 50) {
      plan.push(['IncidentOps.ListIncidents', { team_ids: [String(team.id)], since, until: PINNED.toISOString(), limit: 50, offset }]);
      const page = await callRecorded(sandbox, server, 'IncidentOps.ListIncidents', { team_ids: [String(team.id)], since, until: PINNED.toISOString(), limit: 50, offset });
      if (page.data.more !== true) break;
    }
    for (let offset = 0; ; offset += 50) {
      plan.push(['IncidentOps.ListLogEntries', { team_ids: [String(team.id)], since, until: PINNED.toISOString(), limit: 50, offset }]);
      const page = await callRecorded(sandbox, server, 'IncidentOps.ListLogEntries', { team_ids: [String(team.id)], since, until: PINNED.toISOString(), limit: 50, offset });
      assert.equal(page.isError, false, JSON.stringify(page.data));
      if (page.data.more !== true) break;
    }
    for (let offset = 0; ; offset += 50) {
      plan.push(['IncidentOps.ListUsers', { limit: 50, offset }]);
      const page = await callRecorded(sandbox, server, 'IncidentOps.ListUsers', { limit: 50, offset });
      if (page.data.more !== true) break;
    }
    let contractTokens = 0;
    for (const [tool, args] of plan) {
      const outcome = await callRecorded(sandbox, server, tool, args);
      assert.equal(outcome.isError, false, `${tool} ${JSON.stringify(outcome.data)}`);
      contractTokens += await tokensOf(outcome);
    }
    const taskTokens = await tokensOf(task);
    console.error(`task cost (docs/tasks.md): IncidentStats ${taskTokens} tokens; contract plan ${plan.length} calls, ${contractTokens} tokens`);
    assert.ok(taskTokens < 0.45 * contractTokens, `${taskTokens} vs ${contractTokens}`);
  });
});

describe('the requests conform to the official spec', { skip: skipUnlessReference(SPEC) }, () => {
  it('validates every request of the tool', async () => {
    const validator = loadOpenApi(loadReferenceJson(SPEC));
    for (const args of [{ team_id: 'payments' }, { service_id: 'Payments Gateway', days: 90 }, { escalation_policy_id: 'Payments', since: '2026-02-01', until: '2026-03-01' }]) {
      const result = await call(args);
      assert.ok(result.sent.length > 0);
      for (const request of result.sent) {
        const errors = validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers });
        assert.deepEqual(errors, [], `${request.method} ${request.path}?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}`);
      }
    }
  });
});

describe('IncidentOps.IncidentStats on a platform with values the spec does not list', () => {
  it('counts an urgency or status it does not know as `other`: platform text never becomes a key', async () => {
    const odd = [
      { id: 'PI1', incident_number: 1, status: 'triggered', urgency: 'high', created_at: '2026-05-01T10:00:00Z' },
      { id: 'PI2', incident_number: 2, status: 'snoozed\nlevel 1: forged', urgency: '__proto__', created_at: '2026-05-02T10:00:00Z' },
      { id: 'PI3', incident_number: 3, status: 'resolved', urgency: 'medium', created_at: '2026-05-03T10:00:00Z', resolved_at: '2026-05-03T11:00:00Z' },
    ];
    const scripted = scriptedFetch((url) => {
      const path = url.pathname.replace(/^\/incidentops/, '');
      if (path === '/services/PSVC1') return jsonResponse(200, { service: { id: 'PSVC1', name: 'Checkout', teams: [] } });
      if (path === '/incidents') return jsonResponse(200, { incidents: odd, limit: 100, offset: 0, more: false });
      if (path === '/log_entries') return jsonResponse(200, { log_entries: [], limit: 100, offset: 0, more: false });
      return jsonResponse(404, { error: { message: 'Not Found', code: 2100 } });
    });
    const oddServer = incidentOpsServerFor(undefined, { baseUrl: 'http://platform.test/incidentops', accessToken: 't', fetch: scripted.fetch, now: () => PINNED });
    const result = await callTool(oddServer, 'IncidentOps.IncidentStats', { service_id: 'PSVC1', days: 30 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const incidents = result.data.incidents as { by_urgency: Record<string, number>; by_status: Record<string, number> };
    assert.deepEqual(incidents.by_urgency, { high: 1, other: 2 });
    assert.deepEqual(incidents.by_status, { triggered: 1, other: 1, resolved: 1 });
  });
});
