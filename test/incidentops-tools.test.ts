/**
 * Every IncidentOps tool against the sandbox: what it sends, what it refuses to send,
 * how it shapes results, and how upstream failures reach the agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { IncidentOpsDeps } from '../src/incidentops/deps.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, jsonResponse, scriptedFetch, startTestSandbox } from './support/harness.js';

type Json = Record<string, unknown>;

let sandbox: RunningSandbox;
let server: AnyToolServer;

before(async () => {
  sandbox = await startTestSandbox();
  server = incidentOpsServerFor(sandbox);
});
after(async () => {
  await sandbox.close();
});

/** Calls a tool with a clean request log and returns the outcome plus what was sent. */
function run(name: string, args: unknown, target: AnyToolServer = server) {
  return callRecorded(sandbox, target, name, args);
}

function query(sent: { query: [string, string][] }, key: string): string[] {
  return sent.query.filter(([k]) => k === key).map(([, v]) => v);
}

/** Nothing in a shaped result is null or an API self-link. */
function assertCompact(value: unknown, where = 'result'): void {
  if (Array.isArray(value)) return value.forEach((item, i) => assertCompact(item, `${where}[${i}]`));
  if (value === null) assert.fail(`${where} is null`);
  if (typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value as Json)) {
    assert.notEqual(key, 'self', `${where}.self should be dropped`);
    assertCompact(child, `${where}.${key}`);
  }
}

describe('input validation (nothing is sent)', () => {
  const cases: [string, Json, string, RegExp][] = [
    ['IncidentOps.ListIncidents', { limit: 0 }, 'limit', /at least 1/],
    ['IncidentOps.ListIncidents', { limit: 51 }, 'limit', /at most 50/],
    ['IncidentOps.ListIncidents', { limit: 2.5 }, 'limit', /integer/],
    ['IncidentOps.ListIncidents', { offset: -1 }, 'offset', /at least 0/],
    ['IncidentOps.ListIncidents', { offset: 9_995, limit: 10 }, 'offset', /10000/],
    ['IncidentOps.ListIncidents', { status: 'open' }, 'status', /"triggered", "acknowledged", "resolved"/],
    ['IncidentOps.ListIncidents', { urgency: 'urgent' }, 'urgency', /"high", "low"/],
    ['IncidentOps.ListIncidents', { since: 'yesterday' }, 'since', /ISO 8601/],
    ['IncidentOps.ListIncidents', { since: '2026-05-02T00:00:00Z', until: '2026-05-01T00:00:00Z' }, 'until', /later than since/],
    ['IncidentOps.ListIncidents', { since: '2025-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' }, 'since', /180 days/],
    ['IncidentOps.ListIncidents', { service_ids: [''] }, 'service_ids[0]', /must not be empty/],
    ['IncidentOps.ListIncidents', { service_ids: 'PABC' }, 'service_ids', /array/],
    ['IncidentOps.ListIncidents', { statuses: ['triggered'] }, 'statuses', /did you mean "status"/],
    ['IncidentOps.ListLogEntries', { time_zone: 'Mars/Olympus' }, 'time_zone', /IANA/],
    ['IncidentOps.ListOnCalls', { until: '2099-01-01T00:00:00Z' }, 'until', /90 days/],
    ['IncidentOps.ListSchedules', { time_zone: 'EST5' }, 'time_zone', /IANA/],
    ['IncidentOps.GetIncident', {}, 'incident_id', /required/],
    ['IncidentOps.GetIncident', { incident_id: '   ' }, 'incident_id', /must not be empty/],
    ['IncidentOps.GetTeam', { team_id: 42 }, 'team_id', /string/],
    ['IncidentOps.SearchUsers', { query: '' }, 'query', /must not be empty/],
    ['IncidentOps.SearchUsers', { query: 'ann', limit: 5 }, 'limit', /unknown parameter/],
    ['IncidentOps.WhoAmI', { verbose: true }, 'verbose', /allowed parameters: none/],
  ];
  for (const [tool, args, parameter, problem] of cases) {
    it(`${tool} rejects ${JSON.stringify(args)}`, async () => {
      const result = await run(tool, args);
      assert.equal(result.isError, true);
      assert.equal(result.data.kind, 'invalid_input');
      const issues = result.data.issues as { parameter: string; problem: string }[];
      const issue = issues.find((i) => i.parameter === parameter);
      assert.ok(issue, `an issue names ${parameter}: ${JSON.stringify(issues)}`);
      assert.match(issue.problem, problem);
      assert.equal(result.sent.length, 0, 'no request reached the platform');
    });
  }
});

describe('request mapping and output shaping', () => {
  it('WhoAmI reads the profile and the on-call shifts of that user with earliest=true', async () => {
    const result = await run('IncidentOps.WhoAmI', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(result.sent.map((r) => r.path), ['/users/me', '/oncalls']);
    const user = result.data.user as Json;
    const oncalls = result.sent[1]!;
    assert.deepEqual(query(oncalls, 'user_ids[]'), [user.id]);
    assert.deepEqual(query(oncalls, 'earliest'), ['true']);
    const since = Date.parse(query(oncalls, 'since')[0]!);
    const until = Date.parse(query(oncalls, 'until')[0]!);
    assert.ok(until > since && until - since <= 90 * 86_400_000, 'bounded window within 90 days');
    assert.equal(typeof result.data.on_call_now, 'boolean');
    for (const shift of result.data.current_shifts as Json[]) {
      assert.ok(shift.permanent === true || Date.parse(String(shift.start)) <= Date.now());
    }
    const next = result.data.next_shift as Json | undefined;
    if (next) assert.ok(Date.parse(String(next.start)) > Date.now(), 'next shift starts in the future');
    assert.equal(result.data.on_call_now, (result.data.current_shifts as Json[]).length > 0);
    assertCompact(result.data);
  });

  it('WhoAmI says how the user is paged: contact methods and notification rules, compact, without device tokens', async () => {
    const result = await run('IncidentOps.WhoAmI', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(query(result.sent[0]!, 'include[]').sort(), ['contact_methods', 'notification_rules']);
    const user = result.data.user as Json;
    const methods = result.data.contact_methods as Json[];
    const rules = result.data.notification_rules as Json[];
    assert.ok(methods.length > 0 && rules.length > 0, JSON.stringify(result.data));
    const email = methods.find((method) => method.type === 'email');
    assert.equal(email?.address, user.email, 'the e-mail contact method carries its address');
    for (const method of methods) {
      assert.deepEqual(Object.keys(method).filter((key) => !['id', 'type', 'label', 'address', 'blacklisted'].includes(key)), [], 'only the compact fields');
      assert.doesNotMatch(String(method.type), /contact_method|reference/, 'the kind without the platform suffixes');
    }
    const phone = methods.find((method) => method.type === 'sms');
    assert.match(String(phone?.address), /^\+\d{1,3} \d+$/, 'a phone number with its country code');
    const push = methods.find((method) => method.type === 'push_notification');
    assert.ok(push, 'the push device is listed');
    assert.equal(push.address, undefined, 'a push address is a device token: never passed on');
    assert.doesNotMatch(JSON.stringify(result.data), /device-token/);
    const ids = new Set(methods.map((method) => method.id));
    for (const rule of rules) {
      assert.ok(rule.urgency === 'high' || rule.urgency === 'low', JSON.stringify(rule));
      assert.equal(typeof rule.start_delay_in_minutes, 'number');
      assert.ok(ids.has(rule.contact_method_id), 'each rule names one of the listed contact methods');
      assert.equal(rule.contact_type, methods.find((method) => method.id === rule.contact_method_id)?.type);
    }
    const order = rules.map((rule) => `${rule.urgency === 'high' ? 0 : 1}:${String(rule.start_delay_in_minutes).padStart(4, '0')}`);
    assert.deepEqual(order, [...order].sort(), 'high urgency first, soonest first');
    assert.ok(JSON.stringify({ contact_methods: methods, notification_rules: rules }).length < 1_000, 'compact');
  });

  it('ListIncidents asks for newest first (sort_by=created_at:desc) and its first page holds the newest incidents', async () => {
    const first = await run('IncidentOps.ListIncidents', { limit: 5 });
    assert.equal(first.isError, false, JSON.stringify(first.data));
    assert.deepEqual(query(first.sent[0]!, 'sort_by'), ['created_at:desc']);
    const pageOne = (first.data.incidents as Json[]).map((incident) => Date.parse(String(incident.created_at)));
    assert.deepEqual(pageOne, [...pageOne].sort((a, b) => b - a), 'newest first within the page');
    // Every later incident of the same window is older than the first page's oldest.
    let offset = pageOne.length;
    let more = first.data.more === true;
    while (more && offset < 500) {
      const next = await run('IncidentOps.ListIncidents', { limit: 50, offset });
      for (const incident of next.data.incidents as Json[]) assert.ok(Date.parse(String(incident.created_at)) <= Math.min(...pageOne), 'no newer incident on a later page');
      offset += (next.data.incidents as Json[]).length;
      more = next.data.more === true;
    }
    assert.match(server.tools.find((tool) => tool.name === 'IncidentOps.ListIncidents')?.description ?? '', /newest first/);
  });

  it('ListIncidents sends array filters as repeated [] keys and pages with next_offset', async () => {
    const all = await run('IncidentOps.ListIncidents', { limit: 5 });
    assert.equal(all.isError, false, JSON.stringify(all.data));
    const sent = all.sent[0]!;
    assert.equal(sent.path, '/incidents');
    assert.deepEqual(query(sent, 'limit'), ['5']);
    assert.deepEqual(query(sent, 'offset'), ['0']);
    assert.equal(all.data.limit, 5);
    assert.equal(all.data.offset, 0);
    const incidents = all.data.incidents as Json[];
    assert.ok(incidents.length > 0 && incidents.length <= 5);
    if (all.data.more) assert.equal(all.data.next_offset, incidents.length);
    for (const incident of incidents) {
      assert.equal(typeof incident.incident_number, 'number');
      assert.ok(Array.isArray(incident.teams), 'teams always listed');
      assert.ok(Array.isArray(incident.assignees));
      const service = incident.service as Json;
      assert.deepEqual(Object.keys(service).sort(), ['id', 'name'], 'nested references reduced to id and name');
      assert.match(String(incident.html_url), /^https:\/\//, 'the incident itself keeps its web link');
      assert.equal(incident.incident_key, undefined, 'detail-only fields are left to GetIncident');
    }
    assertCompact(all.data);

    const firstService = (incidents[0]!.service as Json).id as string;
    const filtered = await run('IncidentOps.ListIncidents', { status: 'resolved', urgency: 'high', service_ids: [firstService, 'PNOPE00'], limit: 50 });
    const fsent = filtered.sent[0]!;
    assert.deepEqual(query(fsent, 'statuses[]'), ['resolved']);
    assert.deepEqual(query(fsent, 'urgencies[]'), ['high']);
    assert.deepEqual(query(fsent, 'service_ids[]'), [firstService, 'PNOPE00']);
    for (const incident of filtered.data.incidents as Json[]) {
      assert.equal(incident.status, 'resolved');
      assert.equal(incident.urgency, 'high');
      assert.equal((incident.service as Json).id, firstService);
    }
  });

  it('ListIncidents passes the time window and team filter through', async () => {
    const since = new Date(Date.now() - 14 * 86_400_000).toISOString();
    const until = new Date().toISOString();
    const teams = await run('IncidentOps.ListTeams', { limit: 1 });
    const teamId = ((teams.data.teams as Json[])[0] as Json).id as string;
    const result = await run('IncidentOps.ListIncidents', { since, until, team_ids: [teamId], limit: 50 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const sent = result.sent[0]!;
    assert.deepEqual(query(sent, 'since'), [since]);
    assert.deepEqual(query(sent, 'until'), [until]);
    assert.deepEqual(query(sent, 'team_ids[]'), [teamId]);
    for (const incident of result.data.incidents as Json[]) {
      assert.ok((incident.teams as Json[]).some((t) => t.id === teamId));
      assert.ok(Date.parse(String(incident.created_at)) >= Date.parse(since) - 1000);
    }
  });

  it('GetIncident returns one shaped incident and names a missing ID', async () => {
    const list = await run('IncidentOps.ListIncidents', { limit: 1 });
    const id = ((list.data.incidents as Json[])[0] as Json).id as string;
    const one = await run('IncidentOps.GetIncident', { incident_id: id });
    assert.equal(one.isError, false);
    assert.equal(one.sent[0]!.path, `/incidents/${id}`);
    assert.equal((one.data.incident as Json).id, id);
    assertCompact(one.data);

    const missing = await run('IncidentOps.GetIncident', { incident_id: 'PMISSING' });
    assert.equal(missing.isError, true);
    assert.equal(missing.data.kind, 'not_found');
    assert.equal(missing.data.status, 404);
    assert.match(String(missing.data.message), /incident "PMISSING"/i);
  });

  it('refuses an ID that could change the path, and encodes the ones it sends', async () => {
    const result = await run('IncidentOps.GetService', { service_id: '../incidents' });
    assert.equal(result.isError, true);
    assert.equal(result.sent.length, 0);
    assert.equal(result.data.kind, 'invalid_input');
    assert.match(JSON.stringify(result.data.issues), /service_id.*never contains \\"\/\\"/);
    const odd = await run('IncidentOps.GetService', { service_id: 'P 1+2' });
    assert.equal(odd.sent[0]!.path, '/services/P%201%2B2');
    assert.equal(odd.data.kind, 'not_found');
  });

  it('ListLogEntries asks for the overview by default and passes time zone and teams', async () => {
    const result = await run('IncidentOps.ListLogEntries', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(query(result.sent[0]!, 'is_overview'), ['true']);
    const full = await run('IncidentOps.ListLogEntries', { is_overview: false, time_zone: 'Europe/Berlin', limit: 3 });
    assert.deepEqual(query(full.sent[0]!, 'is_overview'), ['false']);
    assert.deepEqual(query(full.sent[0]!, 'time_zone'), ['Europe/Berlin']);
    for (const entry of full.data.log_entries as Json[]) assert.equal(typeof entry.type, 'string');
    assertCompact(full.data);
  });

  it('escalation policies list and detail keep levels and typed targets', async () => {
    const list = await run('IncidentOps.ListEscalationPolicies', { limit: 3, offset: 1 });
    assert.equal(list.isError, false);
    assert.deepEqual([query(list.sent[0]!, 'limit'), query(list.sent[0]!, 'offset')], [['3'], ['1']]);
    const policy = (list.data.escalation_policies as Json[])[0] as Json;
    const detail = await run('IncidentOps.GetEscalationPolicy', { escalation_policy_id: policy.id });
    assert.equal(detail.sent[0]!.path, `/escalation_policies/${String(policy.id)}`);
    const rules = (detail.data.escalation_policy as Json).escalation_rules as Json[];
    assert.ok(rules.length > 0);
    rules.forEach((rule, index) => {
      assert.equal(rule.level, index + 1);
      for (const target of rule.targets as Json[]) assert.match(String(target.type), /^(user|schedule)/);
    });
    const missing = await run('IncidentOps.GetEscalationPolicy', { escalation_policy_id: 'PNOPE' });
    assert.match(String(missing.data.message), /escalation policy "PNOPE"/i);
  });

  it('ListServices forwards the name query; GetService reads one', async () => {
    const all = await run('IncidentOps.ListServices', { limit: 50 });
    const first = (all.data.services as Json[])[0] as Json;
    const word = String(first.name).split(/\s+/)[0]!.toLowerCase();
    const found = await run('IncidentOps.ListServices', { query: word });
    assert.deepEqual(query(found.sent[0]!, 'query'), [word]);
    for (const service of found.data.services as Json[]) assert.ok(String(service.name).toLowerCase().includes(word));
    const one = await run('IncidentOps.GetService', { service_id: first.id });
    assert.equal((one.data.service as Json).name, first.name);
    assertCompact(one.data);
  });

  it('ListSchedules adds who is on call now with one /oncalls request for the page', async () => {
    const result = await run('IncidentOps.ListSchedules', { limit: 5, time_zone: 'Asia/Tokyo' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(result.sent.map((r) => r.path), ['/schedules', '/oncalls']);
    const schedules = result.data.schedules as Json[];
    assert.deepEqual(query(result.sent[1]!, 'schedule_ids[]'), schedules.map((s) => s.id));
    assert.deepEqual(query(result.sent[1]!, 'time_zone'), ['Asia/Tokyo']);
    let someoneOnCall = false;
    for (const schedule of schedules) {
      // Cross-check against the platform's own answer for that schedule alone.
      const direct = await run('IncidentOps.ListOnCalls', { schedule_ids: [schedule.id], limit: 50 });
      const expected = new Set((direct.data.oncalls as Json[]).map((o) => (o.user as Json).id));
      const got = new Set((schedule.on_call_now as Json[]).map((o) => (o.user as Json).id));
      assert.deepEqual(got, expected, `on-call users of ${String(schedule.id)}`);
      if (got.size > 0) someoneOnCall = true;
      assert.equal(schedule.users, undefined, 'the member list is not passed off as on-call data');
    }
    assert.ok(someoneOnCall, 'the sandbox has someone on call on the first schedules');
  });

  it('ListOnCalls resolves team_ids to the teams escalation policies', async () => {
    const team = await run('IncidentOps.GetTeam', { team_id: await firstTeamWithPolicies() });
    const teamId = (team.data.team as Json).id as string;
    const policyIds = (team.data.escalation_policies as Json[]).map((p) => p.id);
    const result = await run('IncidentOps.ListOnCalls', { team_ids: [teamId], limit: 50 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(result.sent.map((r) => r.path), ['/escalation_policies', '/oncalls']);
    assert.deepEqual(query(result.sent[0]!, 'team_ids[]'), [teamId]);
    assert.deepEqual(new Set(query(result.sent[1]!, 'escalation_policy_ids[]')), new Set(policyIds));
    assert.equal(query(result.sent[1]!, 'team_ids[]').length, 0, '/oncalls has no team filter');
    const oncalls = result.data.oncalls as Json[];
    assert.ok(oncalls.length > 0);
    for (const oncall of oncalls) {
      assert.ok(policyIds.includes((oncall.escalation_policy as Json).id));
      assert.equal(typeof oncall.escalation_level, 'number');
    }
  });

  it('ListOnCalls with a team and a policy outside it returns nothing and skips /oncalls', async () => {
    const teamId = await firstTeamWithPolicies();
    const team = await run('IncidentOps.GetTeam', { team_id: teamId });
    const inside = new Set((team.data.escalation_policies as Json[]).map((p) => p.id));
    const policies = await run('IncidentOps.ListEscalationPolicies', { limit: 50 });
    const outside = (policies.data.escalation_policies as Json[]).find((p) => !inside.has(p.id));
    assert.ok(outside, 'the sandbox has a policy of another team');
    const result = await run('IncidentOps.ListOnCalls', { team_ids: [teamId], escalation_policy_ids: [outside.id] });
    assert.equal(result.isError, false);
    assert.deepEqual(result.data.oncalls, []);
    assert.deepEqual(result.sent.map((r) => r.path), ['/escalation_policies']);
  });

  it('ListOnCalls forwards schedules, policies, window and time zone', async () => {
    const since = new Date(Date.now() + 86_400_000).toISOString();
    const until = new Date(Date.now() + 8 * 86_400_000).toISOString();
    const result = await run('IncidentOps.ListOnCalls', { since, until, time_zone: 'America/New_York', limit: 20 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const sent = result.sent[0]!;
    assert.deepEqual([query(sent, 'since'), query(sent, 'until'), query(sent, 'time_zone')], [[since], [until], ['America/New_York']]);
    for (const oncall of result.data.oncalls as Json[]) {
      if (oncall.permanent) continue;
      assert.ok(Date.parse(String(oncall.end)) >= Date.parse(since) && Date.parse(String(oncall.start)) <= Date.parse(until), 'shift overlaps the window');
    }
  });

  it('ListUsers and ListTeams page through the platform', async () => {
    const users = await run('IncidentOps.ListUsers', { limit: 7, offset: 7 });
    assert.equal((users.data.users as Json[]).length, 7);
    assert.equal(users.data.next_offset, 14);
    for (const user of users.data.users as Json[]) assert.match(String(user.email), /@/);
    const teams = await run('IncidentOps.ListTeams', {});
    assert.deepEqual(query(teams.sent[0]!, 'limit'), ['10']);
    assertCompact(teams.data);
  });

  it('GetTeam fetches the team, its members, services and policies concurrently', async () => {
    const teamId = await firstTeamWithPolicies();
    const result = await run('IncidentOps.GetTeam', { team_id: teamId });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const paths = result.sent.map((r) => `${r.path}?${r.query.map(([k, v]) => `${k}=${v}`).join('&')}`).sort();
    assert.equal(paths.length, 4, 'one page of each list, with its total');
    for (const p of paths.filter((p) => !p.startsWith(`/teams/${teamId}?`))) assert.ok(p.includes('limit=100') && p.includes('total=true'), p);
    assert.ok(paths.some((p) => p.startsWith(`/teams/${teamId}?`)));
    assert.ok(paths.some((p) => p.startsWith(`/teams/${teamId}/members?`) && p.includes('include[]=users')));
    assert.ok(paths.some((p) => p.startsWith('/services?') && p.includes(`team_ids[]=${teamId}`)));
    assert.ok(paths.some((p) => p.startsWith('/escalation_policies?') && p.includes(`team_ids[]=${teamId}`)));
    const members = result.data.members as Json[];
    assert.ok(members.length > 0);
    for (const member of members) {
      assert.match(String(member.email), /@/);
      assert.equal(typeof member.team_role, 'string');
    }
    assert.equal(result.data.member_count, members.length, 'a small team is listed whole and counted');
    assert.equal(result.data.partial, undefined);
    const services = result.data.services as Json[];
    assert.ok(services.length > 0);
    for (const service of services) assert.deepEqual(Object.keys(service).filter((k) => !['id', 'name', 'status', 'escalation_policy'].includes(k)), [], 'services summarised');
    for (const policy of result.data.escalation_policies as Json[]) assert.deepEqual(Object.keys(policy).sort(), ['id', 'name']);
    const missing = await run('IncidentOps.GetTeam', { team_id: 'PNOTEAM' });
    assert.equal(missing.data.kind, 'not_found');
    assert.match(String(missing.data.message), /team "PNOTEAM"/i);
  });

  it('SearchUsers fetches the whole directory once, 100 per page, and ranks locally', async () => {
    const fresh = incidentOpsServerFor(sandbox);
    const users = await run('IncidentOps.ListUsers', { limit: 50, offset: 3 });
    const target = (users.data.users as Json[])[0] as Json;
    const exact = await run('IncidentOps.SearchUsers', { query: String(target.name) }, fresh);
    assert.equal(exact.isError, false, JSON.stringify(exact.data));
    assert.ok(exact.sent.length >= 1 && exact.sent.every((r) => r.path === '/users'));
    assert.ok(exact.sent.every((r) => query(r, 'limit')[0] === '100'));
    assert.equal(query(exact.sent[0]!, 'query').length, 0, 'matching is local, not the API name filter');
    const top = (exact.data.matches as Json[])[0] as Json;
    assert.equal(top.id, target.id);
    assert.equal(top.confidence, 1);
    assert.equal(exact.data.accepted, undefined, 'no auto-accept unless asked');

    const again = await run('IncidentOps.SearchUsers', { query: String(target.email), auto_accept_matches: true }, fresh);
    assert.equal(again.sent.length, 0, 'the directory is cached');
    assert.equal((again.data.accepted as Json).id, target.id);
    assert.equal(typeof again.data.auto_accept_reason, 'string');

    const none = await run('IncidentOps.SearchUsers', { query: 'qqqzzzxxv', auto_accept_matches: true }, fresh);
    assert.deepEqual(none.data.matches, []);
    assert.equal(none.data.accepted, undefined);
  });
});

/** A team that owns escalation policies (looked up once; the sandbox data does not change). */
let teamWithPolicies: Promise<string> | undefined;
function firstTeamWithPolicies(): Promise<string> {
  teamWithPolicies ??= (async () => {
    const teams = await callTool(server, 'IncidentOps.ListTeams', { limit: 50 });
    for (const team of teams.data.teams as Json[]) {
      const detail = await callTool(server, 'IncidentOps.GetTeam', { team_id: team.id });
      if ((detail.data.escalation_policies as Json[]).length > 0) return team.id as string;
    }
    throw new Error('no team with escalation policies in the sandbox');
  })();
  return teamWithPolicies;
}

describe('upstream failures reach the agent as one error shape', () => {
  const token = 'secret-token-value-123';

  it('without credentials every tool names the settings to provide and sends nothing', async () => {
    const { fetch, calls } = scriptedFetch(() => jsonResponse(200, {}));
    const unconfigured = incidentOpsServerFor(undefined, { baseUrl: 'https://incidentops.invalid', fetch });
    for (const tool of unconfigured.tools) {
      const args = tool.name.endsWith('SearchUsers') ? { query: 'x' } : tool.name.endsWith('WhoIsOnCall') ? { service_id: 'P1' } : tool.name.endsWith('FindSimilarIncidents') ? { text: 'x' } : tool.name.endsWith('ListIncidentAlerts') ? { incident_id: 'P1' } : tool.name.endsWith('IncidentStats') ? { service_id: 'P1' } : tool.name.endsWith('ShiftHandoff') ? { schedule_id: 'P1' } : /\.Get/.test(tool.name) ? { [Object.keys(tool.input.shape)[0]!]: 'P1' } : {};
      const result = await callTool(unconfigured, tool.name, args);
      assert.equal(result.isError, true, tool.name);
      assert.equal(result.data.kind, 'not_configured', tool.name);
      assert.match(String(result.data.next_step), /INCIDENTOPS_ACCESS_TOKEN/);
      assert.match(String(result.data.next_step), /INCIDENTOPS_API_TOKEN/);
    }
    assert.equal(calls.length, 0);
  });

  it('401 says the token is invalid or expired and how to replace it', async () => {
    const { fetch } = scriptedFetch(() => jsonResponse(401, { error: { message: 'Unauthorized', code: 2006 } }));
    const result = await callTool(incidentOpsServerFor(undefined, { baseUrl: 'https://x.invalid', accessToken: token, fetch }), 'IncidentOps.ListTeams', {});
    assert.equal(result.data.kind, 'unauthorized');
    assert.equal(result.data.status, 401);
    assert.equal(result.data.platform_code, 2006);
    assert.match(String(result.data.message), /invalid, expired or revoked/);
    assert.match(String(result.data.next_step), /INCIDENTOPS_ACCESS_TOKEN/);
    assert.doesNotMatch(JSON.stringify(result.raw), new RegExp(token));
  });

  it('a wrong token against the sandbox is a 401', async () => {
    const wrong = incidentOpsServerFor(sandbox, { accessToken: 'not-the-sandbox-token' });
    const result = await callTool(wrong, 'IncidentOps.ListServices', {});
    assert.equal(result.data.kind, 'unauthorized');
    assert.doesNotMatch(JSON.stringify(result.raw), /not-the-sandbox-token/);
  });

  it('403 names what could not be read', async () => {
    const { fetch } = scriptedFetch(() => jsonResponse(403, { error: { message: 'Access Denied', code: 2010 } }));
    const result = await callTool(incidentOpsServerFor(undefined, { baseUrl: 'https://x.invalid', apiToken: token, fetch }), 'IncidentOps.GetTeam', { team_id: 'PT1' });
    assert.equal(result.data.kind, 'forbidden');
    assert.match(String(result.data.message), /team "PT1"/);
    assert.equal(result.data.platform_message, 'Access Denied');
  });

  it('429 beyond the wait cap tells when to retry, from ratelimit-reset', async () => {
    const { fetch, calls } = scriptedFetch(() => jsonResponse(429, { error: { message: 'Rate Limit Exceeded', code: 2020 } }, { 'ratelimit-reset': '42' }));
    const result = await callTool(incidentOpsServerFor(undefined, { baseUrl: 'https://x.invalid', accessToken: token, fetch }), 'IncidentOps.ListUsers', {});
    assert.equal(result.data.kind, 'rate_limited');
    assert.equal(result.data.retry_after_seconds, 42);
    assert.match(String(result.data.next_step), /42/);
    assert.equal(calls.length, 1, 'no waiting beyond the cap');
  });

  it('429 within the cap is waited out and retried', async () => {
    const { fetch, calls } = scriptedFetch((_url, _init, attempt) =>
      attempt === 1 ? jsonResponse(429, { error: { code: 2020, message: 'Rate Limit Exceeded' } }, { 'ratelimit-reset': '0' }) : jsonResponse(200, { teams: [], limit: 10, offset: 0, more: false, total: null }),
    );
    const result = await callTool(incidentOpsServerFor(undefined, { baseUrl: 'https://x.invalid', accessToken: token, fetch }), 'IncidentOps.ListTeams', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(calls.length, 2);
  });

  it('5xx is retried within a small budget, then reported', async () => {
    const { fetch, calls } = scriptedFetch(() => jsonResponse(503, { error: { message: 'unavailable' } }));
    const result = await callTool(incidentOpsServerFor(undefined, { baseUrl: 'https://x.invalid', accessToken: token, fetch }), 'IncidentOps.ListTeams', {});
    assert.equal(result.data.kind, 'upstream_error');
    assert.equal(result.data.status, 503);
    assert.equal(calls.length, 3, 'one attempt and two retries');
  });

  it('sends the version-pinned Accept, JSON Content-Type and the right Authorization form', async () => {
    for (const [settings, expected] of [
      [{ accessToken: token }, `Bearer ${token}`],
      [{ apiToken: token }, `Token token=${token}`],
      [{ accessToken: token, apiToken: 'other' }, `Bearer ${token}`],
    ] as const) {
      const { fetch, calls } = scriptedFetch(() => jsonResponse(200, { teams: [], limit: 10, offset: 0, more: false, total: null }));
      await callTool(incidentOpsServerFor(undefined, { baseUrl: 'https://api.eu.pagerduty.example/base', ...settings, fetch }), 'IncidentOps.ListTeams', {});
      const headers = new Headers(calls[0]!.init.headers);
      assert.equal(headers.get('accept'), 'application/vnd.pagerduty+json;version=2');
      assert.equal(headers.get('content-type'), 'application/json');
      assert.equal(headers.get('authorization'), expected);
      assert.equal(calls[0]!.url.pathname, '/base/teams');
      assert.equal(calls[0]!.init.method ?? 'GET', 'GET');
    }
  });

  it('the client refuses anything but GET before sending', async () => {
    const { fetch, calls } = scriptedFetch(() => jsonResponse(200, {}));
    const readOnly = incidentOpsServerFor(undefined, { baseUrl: 'https://x.invalid', accessToken: token, fetch });
    const { api } = readOnly.deps as IncidentOpsDeps;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      await assert.rejects(api.client.request({ method, path: '/incidents' }), /GET/);
    }
    assert.equal(calls.length, 0);
  });

  it('a cancelled call stops and says so', async () => {
    const { fetch } = scriptedFetch(async (_url, init) => {
      await new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
      return jsonResponse(200, {});
    });
    const controller = new AbortController();
    const pending = callTool(incidentOpsServerFor(undefined, { baseUrl: 'https://x.invalid', accessToken: token, fetch }), 'IncidentOps.ListTeams', {}, controller.signal);
    setTimeout(() => controller.abort(), 20);
    const result = await pending;
    assert.equal(result.data.kind, 'cancelled');
  });
});
