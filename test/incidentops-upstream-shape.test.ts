/**
 * IncidentOps against a platform that misbehaves in ways a real one (or a proxy in front of it)
 * can: paging that says `more` while its pages come back empty, and success answers of the wrong
 * shape. Walks stop at the first empty page; a wrong shape is an upstream error naming the
 * endpoint, never "a bug in the tool server".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { incidentOpsTools } from '../src/incidentops/index.js';
import { callTool, incidentOpsServerFor, jsonResponse, scriptedFetch } from './support/harness.js';

type Json = Record<string, unknown>;
const BASE = 'https://incidents.example.test';

function server(answer: Parameters<typeof scriptedFetch>[0]) {
  const scripted = scriptedFetch(answer);
  return { ...scripted, server: incidentOpsServerFor(undefined, { baseUrl: BASE, accessToken: 'incident-token-0123456789', fetch: scripted.fetch }) };
}

const policies = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: `PEP${from + i}`, type: 'escalation_policy', name: `Policy ${from + i}` }));
const offsetOf = (url: URL) => Number(url.searchParams.get('offset') ?? 0);

describe('IncidentOps walks stop at an empty page', () => {
  it('ListOnCalls team resolution: more=true with empty pages stops after the first empty one', async () => {
    const { server: s, calls } = server((url) => {
      if (url.pathname === '/escalation_policies') {
        const offset = offsetOf(url);
        return jsonResponse(200, { escalation_policies: offset === 0 ? policies(0, 100) : [], limit: 100, offset, more: true });
      }
      if (url.pathname === '/oncalls') return jsonResponse(200, { oncalls: [], limit: 10, offset: 0, more: false });
      return jsonResponse(404, { error: { code: 2100, message: 'Not Found' } });
    });
    const result = await callTool(s, 'IncidentOps.ListOnCalls', { team_ids: ['PT1'] });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const policyCalls = calls.filter((c) => c.url.pathname === '/escalation_policies');
    assert.deepEqual(policyCalls.map((c) => offsetOf(c.url)), [0, 100], 'one full page, one empty page, then stop');
    const oncalls = calls.filter((c) => c.url.pathname === '/oncalls');
    assert.equal(oncalls.length, 1);
    assert.equal(oncalls[0]!.url.searchParams.getAll('escalation_policy_ids[]').length, 100, 'the policies found are used');
    assert.equal((result.data.escalation_policy_ids as string[]).length, 100);
  });

  it('ListOnCalls team resolution: an empty first page that says more=true is one request and no shifts', async () => {
    const { server: s, calls } = server((url) => jsonResponse(200, url.pathname === '/escalation_policies' ? { escalation_policies: [], limit: 100, offset: offsetOf(url), more: true } : { oncalls: [], more: false }));
    const result = await callTool(s, 'IncidentOps.ListOnCalls', { team_ids: ['PT1'] });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(result.data.oncalls, []);
    assert.equal(calls.length, 1, 'no further pages and no /oncalls without policies');
  });

  it('WhoAmI: the walk over the current shifts stops at an empty page', async () => {
    const { server: s, calls } = server((url) => {
      if (url.pathname === '/users/me') return jsonResponse(200, { user: { id: 'PU1', name: 'Ana', email: 'ana@example.com', type: 'user' } });
      return jsonResponse(200, { oncalls: [], limit: 100, offset: offsetOf(url), more: true });
    });
    const result = await callTool(s, 'IncidentOps.WhoAmI', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.ok(calls.filter((c) => c.url.pathname === '/oncalls').length <= 2, `stopped early (${calls.length} requests)`);
  });

  it('SearchUsers: the parallel directory walk stops asking once a page comes back empty', async () => {
    const users = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: `PU${from + i}`, name: `User ${from + i}`, email: `user${from + i}@example.com`, type: 'user' }));
    const { server: s, calls } = server((url) => {
      const offset = offsetOf(url);
      // The platform claims 9,000 users but has only the first 200.
      return jsonResponse(200, { users: offset < 200 ? users(offset, 100) : [], limit: 100, offset, more: true, total: 9000 });
    });
    const result = await callTool(s, 'IncidentOps.SearchUsers', { query: 'User 150' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(result.data.users_searched, 200, 'every user the platform has, and nothing twice');
    assert.equal(result.data.directory_truncated, undefined, 'not reported as cut at the cap');
    assert.ok(calls.length < 12, `the walk stopped early: ${calls.length} requests, not 90`);
  });

  it('a list tool does not offer a next_offset after an empty page (it would loop)', async () => {
    const { server: s } = server(() => jsonResponse(200, { incidents: [], limit: 10, offset: 20, more: true }));
    const result = await callTool(s, 'IncidentOps.ListIncidents', { offset: 20 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(result.data.more, false);
    assert.equal(result.data.next_offset, undefined);
  });
});

describe('IncidentOps: a success answer of the wrong shape is an upstream error', () => {
  /** Minimal valid arguments of each tool. */
  const ARGS: Record<string, Json> = {
    'IncidentOps.GetIncident': { incident_id: 'PI1' },
    'IncidentOps.GetService': { service_id: 'PS1' },
    'IncidentOps.GetEscalationPolicy': { escalation_policy_id: 'PEP1' },
    'IncidentOps.GetTeam': { team_id: 'PT1' },
    'IncidentOps.SearchUsers': { query: 'ana' },
    'IncidentOps.ListOnCalls': { team_ids: ['PT1'] },
    'IncidentOps.GetIncidentContext': { incident_id: 'PI1' },
    'IncidentOps.WhoIsOnCall': { team_id: 'PT1' },
    'IncidentOps.FindSimilarIncidents': { incident_id: 'PI1' },
    'IncidentOps.ListIncidentAlerts': { incident_id: 'PI1' },
    'IncidentOps.IncidentStats': { service_id: 'PS1' },
    'IncidentOps.ShiftHandoff': {},
  };
  const WRONG: [string, () => Response][] = [
    ['an array', () => jsonResponse(200, [{ id: 'P1' }])],
    ['an object without the expected key', () => jsonResponse(200, { something: 'else' })],
    ['the key holding the wrong type', () => jsonResponse(200, { incident: 'P1', incidents: { id: 'P1' }, user: [], users: 'many', oncalls: 3, escalation_policies: null, service: [], services: {}, team: 1, teams: true, escalation_policy: 'x', log_entries: {}, schedules: 'no', members: {} })],
    ['a list of non-objects', () => jsonResponse(200, { incidents: [1], users: [1], oncalls: ['x'], escalation_policies: [null], services: [2], teams: [3], log_entries: [4], schedules: [5] })],
    ['records without an id', () => jsonResponse(200, { incident: { title: 'x' }, user: {}, service: {}, team: {}, escalation_policy: {}, incidents: [{}], users: [{}], services: [{}], teams: [{}], escalation_policies: [{}], log_entries: [{}], schedules: [{}], members: [{ user: {} }], oncalls: [], more: false })],
    ['not JSON', () => new Response('<html>Sign in</html>', { status: 200, headers: { 'content-type': 'text/html' } })],
    ['no content', () => new Response('', { status: 200 })],
    ['JSON null', () => jsonResponse(200, null)],
  ];

  for (const [what, answer] of WRONG) {
    it(`every tool reports ${what} as upstream_error naming the endpoint`, async () => {
      const problems: string[] = [];
      for (const tool of incidentOpsTools) {
        const { server: s } = server(answer);
        const result = await callTool(s, tool.name, ARGS[tool.name] ?? {});
        const error = result.data;
        if (!result.isError) {
          problems.push(`${tool.name}: answered ${JSON.stringify(result.data).slice(0, 120)}`);
          continue;
        }
        if (error.kind !== 'upstream_error') problems.push(`${tool.name}: kind ${String(error.kind)}: ${String(error.message)}`);
        if (!/GET \//.test(String(error.message))) problems.push(`${tool.name}: the message names no endpoint: ${String(error.message)}`);
        if (!/shape/.test(String(error.message))) problems.push(`${tool.name}: the message does not say the answer was of the wrong shape: ${String(error.message)}`);
        if (/bug/i.test(`${String(error.message)} ${String(error.next_step)}`)) problems.push(`${tool.name}: blamed on a bug: ${String(error.next_step)}`);
      }
      assert.deepEqual(problems, []);
    });
  }

  it('a nested reference without an id keeps its name; an on-call shift needs no id; a level given as text is read as a number', async () => {
    const incident = { id: 'PI1', title: 'Down', service: { summary: 'Checkout' }, priority: { id: 7, name: 'P1' } };
    const { server: s } = server((url) => jsonResponse(200, url.pathname === '/oncalls' ? { oncalls: [{ user: {}, escalation_policy: { summary: 'Ops' }, escalation_level: '2', start: '2026-05-06T00:00:00Z', end: '2026-05-07T00:00:00Z' }], more: false } : { incident }));
    const got = await callTool(s, 'IncidentOps.GetIncident', { incident_id: 'PI1' });
    assert.equal(got.isError, false, JSON.stringify(got.data));
    const shaped = got.data.incident as Json;
    assert.deepEqual([shaped.service, shaped.priority], [{ name: 'Checkout' }, { id: '7', name: 'P1' }]);
    const oncalls = await callTool(s, 'IncidentOps.ListOnCalls', {});
    assert.equal(oncalls.isError, false, JSON.stringify(oncalls.data));
    assert.deepEqual(oncalls.data.oncalls, [{ escalation_policy: { name: 'Ops' }, escalation_level: 2, start: '2026-05-06T00:00:00Z', end: '2026-05-07T00:00:00Z' }]);
  });

  it('the error says what was expected and is not retried', async () => {
    const { server: s, calls } = server(() => jsonResponse(200, { incidents: [] }));
    const result = await callTool(s, 'IncidentOps.GetIncident', { incident_id: 'PI1' });
    assert.equal(result.data.kind, 'upstream_error');
    assert.equal(result.data.status, 200);
    assert.match(String(result.data.message), /GET \/incidents\/\{id\}.*"incident" object is missing/);
    assert.match(String(result.data.next_step), /base URL/);
    assert.equal(calls.length, 1);
  });
});
