/**
 * The IncidentOps task tools against the sandbox: GetIncidentContext and WhoIsOnCall. On-call
 * answers are checked against the schedule's rotation computed here from its layer, not taken
 * from the platform's on-call endpoint; bad input is refused before anything is sent; huge
 * answers stay within the result budget; and each task costs well under half the tokens of the
 * best plan with the contract's tools.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { countTokens } from '../src/core/tools/context-size.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import { RESULT_BUDGET_BYTES } from '../src/core/tools/result-budget.js';
import { executeTool, listTools, viewFor } from '../src/core/tools/registry.js';
import type { AnyToolDefinition } from '../src/core/tools/tool.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, jsonResponse, outcomeOf, scriptedFetch, startTestSandbox, type ToolOutcome } from './support/harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

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

function run(name: string, args: unknown, target: AnyToolServer = server) {
  return callRecorded(sandbox, target, name, args);
}

/** GET on the sandbox's platform API directly, as a client of the platform (not through the server). */
async function platform(path: string): Promise<Json> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${sandbox.incidentops.token}`, Accept: 'application/vnd.pagerduty+json;version=2', 'Content-Type': 'application/json' },
  });
  assert.equal(response.status, 200, `${path}: HTTP ${response.status}`);
  return (await response.json()) as Json;
}

/** The ID at the end of a "Name (ID)" label (the name quoted when it is more than plain words). */
function idOf(label: unknown): string | undefined {
  return typeof label === 'string' ? /\(([A-Z0-9]+)\)$/.exec(label)?.[1] : undefined;
}

const ms = (iso: unknown) => DateTime.fromISO(String(iso), { setZone: true }).toMillis();

interface Rotation {
  scheduleId: string;
  users: string[];
  virtualStart: number;
  turnMs: number;
  start: number;
}

/** Schedules with one layer, no restrictions and no overrides: their rotation is plain arithmetic. */
async function simpleRotations(): Promise<Rotation[]> {
  const list = (await platform('/schedules?limit=100')).schedules as Json[];
  const rotations: Rotation[] = [];
  for (const summary of list) {
    const schedule = (await platform(`/schedules/${String(summary.id)}`)).schedule as Json;
    const layers = schedule.schedule_layers as Json[];
    const layer = layers[0] as Json;
    if (layers.length !== 1 || (layer.restrictions as unknown[]).length > 0 || layer.end != null) continue;
    // Overrides over the days the test asks about break the arithmetic: such schedules are not simple.
    const overrides = (await platform(`/schedules/${String(schedule.id)}/overrides?since=${new Date(Date.now() - 86_400_000).toISOString()}&until=${new Date(Date.now() + 60 * 86_400_000).toISOString()}`)).overrides as unknown[];
    if (overrides.length > 0) continue;
    rotations.push({
      scheduleId: String(schedule.id),
      users: (layer.users as { user: { id: string } }[]).map((u) => u.user.id),
      virtualStart: ms(layer.rotation_virtual_start),
      turnMs: Number(layer.rotation_turn_length_seconds) * 1000,
      start: ms(layer.start),
    });
  }
  return rotations;
}

/** Who the rotation puts on call at `at`, the turn's bounds, and who takes over at its end. */
function expectedAt(rotation: Rotation, at: number) {
  const turn = Math.floor((at - rotation.virtualStart) / rotation.turnMs);
  const n = rotation.users.length;
  const user = rotation.users[((turn % n) + n) % n] as string;
  // The next turn of someone else (consecutive turns of one person count as one shift).
  let next = turn + 1;
  while (rotation.users[((next % n) + n) % n] === user) next++;
  return {
    user,
    since: Math.max(rotation.virtualStart + turn * rotation.turnMs, rotation.start),
    until: rotation.virtualStart + (turn + 1) * rotation.turnMs,
    nextUser: rotation.users[((next % n) + n) % n] as string,
    nextFrom: rotation.virtualStart + next * rotation.turnMs,
  };
}

function onCallEntries(data: Json): { policy: string; level: number; entry: Json }[] {
  return (data.escalation_policies as Json[]).flatMap((policy) =>
    (policy.levels as Json[]).flatMap((level) => (level.on_call as Json[]).map((entry) => ({ policy: String(policy.escalation_policy), level: Number(level.level), entry }))),
  );
}

describe('IncidentOps.WhoIsOnCall', () => {
  it('names who the rotation puts on call at a given time, since and until when, and who is next, for every simple schedule', async () => {
    const rotations = await simpleRotations();
    assert.ok(rotations.length >= 4, `simple schedules: ${rotations.length}`);
    const now = Date.now();
    let checked = 0;
    for (const rotation of rotations) {
      // Instants inside turns and right at a handoff.
      const handoff = expectedAt(rotation, now + 3 * 86_400_000).until;
      for (const at of [now + 3_600_000, now + 3 * 86_400_000 + 5 * 3_600_000, handoff, now + 40 * 86_400_000]) {
        const iso = new Date(Math.floor(at / 1000) * 1000).toISOString();
        const result = await run('IncidentOps.WhoIsOnCall', { schedule_id: rotation.scheduleId, at: iso });
        assert.equal(result.isError, false, JSON.stringify(result.data));
        const expected = expectedAt(rotation, ms(iso));
        const entries = onCallEntries(result.data).filter(({ entry }) => idOf(entry.via) === rotation.scheduleId);
        assert.ok(entries.length >= 1, `${rotation.scheduleId} at ${iso}: ${JSON.stringify(result.data)}`);
        for (const { entry } of entries) {
          assert.equal(idOf(entry.user), expected.user, `${rotation.scheduleId} at ${iso}: user`);
          assert.equal(ms(entry.since), expected.since, `${rotation.scheduleId} at ${iso}: since`);
          assert.equal(ms(entry.until), expected.until, `${rotation.scheduleId} at ${iso}: until`);
          const next = entry.next as Json;
          assert.equal(idOf(next.user), expected.nextUser, `${rotation.scheduleId} at ${iso}: next`);
          assert.equal(ms(next.from), expected.nextFrom, `${rotation.scheduleId} at ${iso}: next from`);
          checked++;
        }
        // GET only, and the on-call question asked once.
        assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
        assert.equal(result.sent.filter((r) => r.path.endsWith('/oncalls')).length, 1);
      }
    }
    assert.ok(checked >= 16, `answers checked: ${checked}`);
  });

  it('resolves a service to its escalation policy and answers every level, including users named directly', async () => {
    const services = (await platform('/services?query=Payments')).services as Json[];
    const service = services[0] as Json;
    const policyId = String((service.escalation_policy as Json).id);
    const policy = (await platform(`/escalation_policies/${policyId}`)).escalation_policy as Json;
    const rules = policy.escalation_rules as Json[];
    const result = await run('IncidentOps.WhoIsOnCall', { service_id: String(service.id) });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(idOf(result.data.service), service.id);
    const entries = onCallEntries(result.data);
    assert.deepEqual(new Set(entries.map((e) => idOf(e.policy))), new Set([policyId]));
    assert.deepEqual([...new Set(entries.map((e) => e.level))], rules.map((_, i) => i + 1));
    // A user the policy names directly is on call at all times.
    rules.forEach((rule, index) => {
      for (const target of rule.targets as Json[]) {
        if (target.type !== 'user_reference') continue;
        assert.ok(entries.some((e) => e.level === index + 1 && idOf(e.entry.user) === target.id && e.entry.always === true), `level ${index + 1}: ${String(target.id)}`);
      }
    });
  });

  it('resolves a team to its escalation policies', async () => {
    const teams = (await platform('/teams?query=Payments')).teams as Json[];
    const team = teams[0] as Json;
    const policies = ((await platform(`/escalation_policies?team_ids[]=${String(team.id)}`)).escalation_policies as Json[]).map((p) => p.id);
    const result = await run('IncidentOps.WhoIsOnCall', { team_id: String(team.id) });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(result.data.team_policies, policies.length);
    assert.deepEqual(new Set((result.data.escalation_policies as Json[]).map((p) => idOf(p.escalation_policy))), new Set(policies));
  });

  it("reports progress over both walks (a team's policies, then the shifts), always increasing", async () => {
    const teams = (await platform('/teams?query=Payments')).teams as Json[];
    const tool = server.tools.find((t) => t.name === 'IncidentOps.WhoIsOnCall') as AnyToolDefinition;
    const seen: { progress: number; message?: string }[] = [];
    const raw = await executeTool(server, tool, { team_id: String((teams[0] as Json).id) }, new AbortController().signal, (progress, _total, message) => seen.push({ progress, ...(message ? { message } : {}) }));
    assert.equal(raw.isError, undefined);
    assert.ok(seen.length >= 2, JSON.stringify(seen));
    assert.ok(seen.every((s, i) => i === 0 || s.progress > (seen[i - 1] as { progress: number }).progress), JSON.stringify(seen));
    assert.ok(seen.some((s) => /escalation policies/.test(s.message ?? '')) && seen.some((s) => /on-call shifts/.test(s.message ?? '')), JSON.stringify(seen));
  });

  it('reads a local `at` in time_zone and answers in that zone: the same instants as the UTC question', async () => {
    const [rotation] = await simpleRotations();
    assert.ok(rotation);
    const day = DateTime.now().plus({ days: 5 }).toFormat('yyyy-MM-dd');
    const local = await run('IncidentOps.WhoIsOnCall', { schedule_id: rotation.scheduleId, at: `${day}T09:30`, time_zone: 'Asia/Tokyo' });
    const utcInstant = DateTime.fromISO(`${day}T09:30`, { zone: 'Asia/Tokyo' }).toUTC().toISO() as string;
    const utc = await run('IncidentOps.WhoIsOnCall', { schedule_id: rotation.scheduleId, at: utcInstant });
    assert.equal(local.isError, false, JSON.stringify(local.data));
    assert.equal(local.data.at, `${day}T09:30:00+09:00`);
    const [a] = onCallEntries(local.data);
    const [b] = onCallEntries(utc.data);
    assert.ok(a && b);
    assert.match(String(a.entry.since), /\+09:00$/);
    assert.match(String((a.entry.next as Json).from), /\+09:00$/);
    assert.equal(a.entry.user, b.entry.user);
    assert.equal(ms(a.entry.until), ms(b.entry.until));
    assert.equal(ms((a.entry.next as Json).from), ms((b.entry.next as Json).from));
    assert.equal(expectedAt(rotation, ms(utcInstant)).user, idOf(a.entry.user));
  });

  describe('a service or team by name (one call for "who is on call for payments?")', () => {
    /** The requests a call sent, as `METHOD path?query` lines. */
    const lines = (sent: { method: string; path: string; query: [string, string][] }[]) =>
      sent.map((r) => `${r.method} ${r.path}${r.query.length ? `?${new URLSearchParams(r.query).toString()}` : ''}`);

    it('a name (any case, or a part of it) is looked up with the list\'s query, once, and answers as the service\'s ID does', async () => {
      const matches = (await platform('/services?query=payments')).services as Json[];
      assert.equal(matches.length, 1, 'the sandbox has one service named like "payments"');
      const service = matches[0] as Json;
      const byName = await run('IncidentOps.WhoIsOnCall', { service_id: 'payments' });
      assert.equal(byName.isError, false, JSON.stringify(byName.data));
      assert.equal(byName.data.service, `${String(service.name)} (${String(service.id)})`);
      const byId = await run('IncidentOps.WhoIsOnCall', { service_id: String(service.id) });
      assert.deepEqual(byName.data.escalation_policies, byId.data.escalation_policies);
      // Not ID-shaped: no GET /services/payments; one page of search results, then the on-call question.
      assert.deepEqual(new Set(byName.sent.map((r) => r.method)), new Set(['GET']));
      assert.deepEqual(lines(byName.sent).filter((line) => !line.startsWith('GET /oncalls')), ['GET /services?query=payments&limit=100']);
      assert.equal(byName.sent.filter((r) => r.path === '/oncalls').length, 1);
      // An ID is asked for by ID: no search.
      assert.deepEqual(lines(byId.sent).filter((line) => !line.startsWith('GET /oncalls')), [`GET /services/${String(service.id)}`]);
    });

    it('a team by name; a name shaped like an ID that no team has falls back to the name search', async () => {
      const team = ((await platform('/teams?query=Mobile')).teams as Json[]).find((t) => t.name === 'Mobile') as Json;
      assert.ok(team);
      const byId = await run('IncidentOps.WhoIsOnCall', { team_id: String(team.id) });
      for (const value of ['mobile', 'MOBILE']) {
        const result = await run('IncidentOps.WhoIsOnCall', { team_id: value });
        assert.equal(result.isError, false, JSON.stringify(result.data));
        assert.equal(result.data.team, `Mobile (${String(team.id)})`);
        assert.equal(result.data.team_policies, byId.data.team_policies);
        assert.deepEqual(result.data.escalation_policies, byId.data.escalation_policies);
        assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
        const lookups = lines(result.sent).filter((line) => line.startsWith('GET /teams'));
        assert.deepEqual(lookups, value === 'MOBILE' ? ['GET /teams/MOBILE', 'GET /teams?query=MOBILE&limit=100'] : ['GET /teams?query=mobile&limit=100']);
      }
    });

    it('a name matching several is an error naming the parameter and listing each as "Name (ID)"; nothing more is asked', async () => {
      for (const [parameter, value, list] of [
        ['service_id', 'pipeline', 'services'],
        ['team_id', 'in', 'teams'],
      ] as const) {
        const expected = ((await platform(`/${list}?query=${value}&limit=100`))[list] as Json[]).map((r) => `${String(r.name)} (${String(r.id)})`);
        assert.ok(expected.length >= 2, `${value}: ${JSON.stringify(expected)}`);
        const result = await run('IncidentOps.WhoIsOnCall', { [parameter]: value });
        assert.equal(result.isError, true);
        assert.equal(result.data.kind, 'invalid_input');
        assert.match(String(result.data.message), new RegExp(`^${parameter} "${value}" matches ${expected.length} ${list}`));
        assert.deepEqual((result.data.issues as { parameter: string }[]).map((i) => i.parameter), [parameter]);
        assert.deepEqual((result.data.platform_details as Json).candidates, expected);
        // The names are platform text: the error is marked as data.
        assert.equal(typeof JSON.parse((result.raw.content[0] as { text: string }).text).error.untrusted_text_notice, 'string');
        assert.deepEqual(lines(result.sent), [`GET /${list}?${new URLSearchParams({ query: value, limit: '100' }).toString()}`]);
      }
    });

    it('a name matching nothing says so and how to list them; a name with a slash is only ever a query value', async () => {
      for (const [parameter, value, tool] of [
        ['service_id', 'no such service', 'IncidentOps.ListServices'],
        ['team_id', 'Checkout / ../users', 'IncidentOps.ListTeams'],
        ['service_id', 'PNOPE00', 'IncidentOps.ListServices'],
      ] as const) {
        const result = await run('IncidentOps.WhoIsOnCall', { [parameter]: value });
        assert.equal(result.isError, true);
        assert.equal(result.data.kind, 'not_found');
        assert.ok(String(result.data.message).includes(`"${value}" (${parameter})`), String(result.data.message));
        assert.ok(String(result.data.next_step).includes(tool), String(result.data.next_step));
        assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
        assert.ok(result.sent.every((r) => !r.path.includes('users') && r.path !== '/oncalls'), JSON.stringify(lines(result.sent)));
        assert.ok(result.sent.length <= 2, JSON.stringify(lines(result.sent)));
      }
    });

    it('one exact name (any case) wins over partial matches; the search reads one page only', async () => {
      const scripted = scriptedFetch((url) => {
        const path = url.pathname.replace(/^\/incidentops/, '');
        if (path === '/services') {
          const services = ['Payments API', 'payments', `Payments Legacy ${'x'.repeat(5000)}`].map((name, i) => ({ id: `PSVC${i}`, name, escalation_policy: { id: 'PEP1', summary: 'EP' } }));
          return jsonResponse(200, { services, limit: 100, offset: 0, more: true });
        }
        if (path === '/oncalls') return jsonResponse(200, { oncalls: [], limit: 100, offset: 0, more: false });
        return jsonResponse(404, { error: { message: 'Not Found', code: 2100 } });
      });
      const scriptedServer = incidentOpsServerFor(undefined, { baseUrl: 'http://platform.test/incidentops', accessToken: 't', fetch: scripted.fetch });
      const result = await callTool(scriptedServer, 'IncidentOps.WhoIsOnCall', { service_id: 'Payments' });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      assert.equal(result.data.service, 'payments (PSVC1)');
      assert.deepEqual(scripted.calls.map((c) => c.url.pathname.replace(/^\/incidentops/, '')), ['/services', '/oncalls']);
      assert.equal(scripted.calls[1]?.url.searchParams.get('escalation_policy_ids[]'), 'PEP1');
      // Without an exact name, the three are candidates, and more exist beyond the page.
      const ambiguous = await callTool(scriptedServer, 'IncidentOps.WhoIsOnCall', { service_id: 'pay' });
      assert.equal(ambiguous.isError, true);
      assert.match(String(ambiguous.data.message), /matches 3 or more services/);
      const candidates = (ambiguous.data.platform_details as { candidates: string[] }).candidates;
      assert.deepEqual(candidates.slice(0, 2), ['Payments API (PSVC0)', 'payments (PSVC1)']);
      assert.match(candidates[2] as string, /^"Payments Legacy x+…" \(PSVC2\)$/);
      assert.ok((candidates[2] as string).length <= 100 + '"" (PSVC2)'.length, 'a long platform name is cut');
      assert.match(String(ambiguous.data.next_step), /IncidentOps\.ListServices with query/);
      assert.equal(scripted.calls.filter((c) => c.url.pathname.endsWith('/services')).length, 2, 'one page per call');
    });
  });

  const refused: [Json, string, RegExp][] = [
    [{}, 'service_id', /exactly one of service_id, team_id, schedule_id, escalation_policy_id \(got none\)/],
    [{ service_id: 'PABC', team_id: 'PDEF' }, 'team_id', /exactly one .*got service_id and team_id/],
    [{ service_id: 'PABC', at: 'tomorrow' }, 'at', /ISO 8601/],
    [{ service_id: 'PABC', at: '2099-01-01T00:00:00Z' }, 'at', /at most 75 days in the future/],
    [{ service_id: 'PABC', time_zone: 'Mars/Olympus' }, 'time_zone', /IANA/],
    [{ schedule_id: '../users' }, 'schedule_id', /ID/],
    [{ schedule_id: 'PABC', when: 'now' }, 'when', /unknown parameter/],
  ];
  for (const [args, parameter, problem] of refused) {
    it(`refuses ${JSON.stringify(args)}, naming ${parameter}, and sends nothing`, async () => {
      const result = await run('IncidentOps.WhoIsOnCall', args);
      assert.equal(result.isError, true);
      assert.equal(result.data.kind, 'invalid_input');
      const issue = (result.data.issues as { parameter: string; problem: string }[]).find((i) => i.parameter === parameter);
      assert.ok(issue, JSON.stringify(result.data.issues));
      assert.match(issue.problem, problem);
      assert.deepEqual(result.sent, []);
    });
  }
});

describe('IncidentOps.GetIncidentContext', () => {
  it('answers with the incident, its alerts, notes, timeline and who is on call, by ID or number, GET only', async () => {
    const incidents = (await platform('/incidents?date_range=all&limit=100&statuses[]=acknowledged')).incidents as Json[];
    for (const incident of incidents.slice(0, 4)) {
      const id = String(incident.id);
      const [alerts, notes, log] = await Promise.all([
        platform(`/incidents/${id}/alerts?limit=100`),
        platform(`/incidents/${id}/notes`),
        platform(`/incidents/${id}/log_entries?is_overview=true&limit=100`),
      ]);
      for (const incidentId of [id, String(incident.incident_number)]) {
        const result = await run('IncidentOps.GetIncidentContext', { incident_id: incidentId });
        assert.equal(result.isError, false, JSON.stringify(result.data));
        const data = result.data;
        assert.equal((data.incident as Json).id, id);
        assert.equal((data.incident as Json).number, incident.incident_number);
        // Alerts: the count of all, the newest first.
        const allAlerts = alerts.alerts as Json[];
        assert.equal((data.alerts as Json).count, allAlerts.length);
        const newest = (data.alerts as Json).newest as Json[];
        assert.deepEqual(newest.map((a) => a.id), allAlerts.slice().sort((a, b) => ms(b.created_at) - ms(a.created_at) || (String(b.id) < String(a.id) ? -1 : 1)).slice(0, 5).map((a) => a.id));
        assert.ok(newest.every((a) => typeof a.details === 'string' && /check: /.test(String(a.details))));
        // Notes: newest first, with their authors.
        const expectedNotes = (notes.notes as Json[]).slice().sort((a, b) => ms(b.created_at) - ms(a.created_at));
        assert.equal((data.notes as string[]).length, expectedNotes.length);
        (data.notes as string[]).forEach((line, i) => {
          const note = expectedNotes[i] as Json;
          assert.ok(line.includes(`(${String((note.user as Json).id)})`) && line.includes(String(note.content)), line);
        });
        // Timeline: the incident's own key events, oldest first.
        const events = (log.log_entries as Json[]).slice().reverse();
        assert.deepEqual(
          (data.timeline as string[]).map((line) => line.split(' ')[0]),
          events.map((e) => e.created_at),
        );
        assert.match((data.timeline as string[])[0] as string, /trigger: /);
        // On call now: every level of the incident's policy.
        const policy = (await platform(`/escalation_policies/${String((incident.escalation_policy as Json).id)}`)).escalation_policy as Json;
        assert.deepEqual((data.on_call_now as string[]).map((line) => Number(/^level (\d+):/.exec(line)?.[1])), (policy.escalation_rules as Json[]).map((_, i) => i + 1));
        // GET only; the incident's parts are asked for by its ID.
        assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
        for (const part of ['alerts', 'notes', 'log_entries']) assert.ok(result.sent.some((r) => r.path.endsWith(`/incidents/${id}/${part}`)), part);
        assert.equal(result.sent.filter((r) => r.path.endsWith('/log_entries') && !r.path.includes('/incidents/')).length, 0, 'never the account feed');
      }
    }
  });

  it('reports progress step by step', async () => {
    const incidents = (await platform('/incidents?date_range=all&limit=1')).incidents as Json[];
    const tool = server.tools.find((t) => t.name === 'IncidentOps.GetIncidentContext') as AnyToolDefinition;
    const seen: [number, number | undefined][] = [];
    const raw = await executeTool(server, tool, { incident_id: String((incidents[0] as Json).id) }, new AbortController().signal, (progress, total) => seen.push([progress, total]));
    assert.equal(raw.isError, undefined);
    assert.deepEqual(seen.map(([progress]) => progress), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.ok(seen.every(([, total]) => total === 8));
  });

  it('demo data: notes by different people and several alerts with details', async () => {
    const incidents = (await platform('/incidents?date_range=all&limit=100')).incidents as Json[];
    let withTwoAuthors = 0;
    let withSeveralAlerts = 0;
    for (const incident of incidents) {
      const id = String(incident.id);
      const notes = (await platform(`/incidents/${id}/notes`)).notes as Json[];
      if (new Set(notes.map((n) => (n.user as Json).id)).size >= 2) withTwoAuthors++;
      const alerts = await platform(`/incidents/${id}/alerts?total=true`);
      if (Number(alerts.total) >= 2) withSeveralAlerts++;
    }
    assert.ok(withTwoAuthors >= 3, `incidents with notes by two people: ${withTwoAuthors}`);
    assert.ok(withSeveralAlerts >= 5, `incidents with several alerts: ${withSeveralAlerts}`);
  });

  it('an unknown incident is a not-found error; bad input is refused naming incident_id and nothing is sent', async () => {
    const missing = await run('IncidentOps.GetIncidentContext', { incident_id: 'PNOPE00' });
    assert.equal(missing.isError, true);
    assert.equal(missing.data.kind, 'not_found');
    assert.match(String(missing.data.message), /incident "PNOPE00"/i);
    for (const [args, problem] of [
      [{}, /required/],
      [{ incident_id: '   ' }, /must not be empty/],
      [{ incident_id: 'P1/alerts' }, /single ID/],
      [{ incident_id: 1121 }, /string/],
    ] as const) {
      const result = await run('IncidentOps.GetIncidentContext', args);
      assert.equal(result.isError, true);
      const issue = (result.data.issues as { parameter: string; problem: string }[]).find((i) => i.parameter === 'incident_id');
      assert.ok(issue, JSON.stringify(result.data));
      assert.match(issue.problem, problem);
      assert.deepEqual(result.sent, []);
    }
  });

  it('an incident with thousands of key events, hundreds of long notes and huge alerts stays within the budget in a bounded number of requests', async () => {
    const longText = 'x'.repeat(5000);
    const scripted = scriptedFetch((url) => {
      const path = url.pathname.replace(/^\/incidentops/, '');
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (path === '/incidents/PBIG') {
        return jsonResponse(200, { incident: { id: 'PBIG', incident_number: 7, title: longText, status: 'triggered', escalation_policy: { id: 'PEP', summary: 'EP' }, alert_counts: { all: 900, triggered: 900 } } });
      }
      if (path === '/incidents/PBIG/alerts') {
        const alerts = Array.from({ length: 5 }, (_, i) => ({ id: `QA${i}`, summary: longText, severity: 'critical', status: 'triggered', created_at: '2026-05-06T10:00:00Z', body: { details: Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`k${k}`, longText])) } }));
        return jsonResponse(200, { alerts, limit: 5, offset: 0, more: true, total: 900 });
      }
      if (path === '/incidents/PBIG/notes') {
        return jsonResponse(200, { notes: Array.from({ length: 300 }, (_, i) => ({ id: `N${i}`, user: { id: 'PU', summary: 'U' }, content: longText, created_at: new Date(Date.UTC(2026, 4, 6, 10, 0, i)).toISOString() })) });
      }
      if (path === '/incidents/PBIG/log_entries') {
        const total = 5000;
        const count = Math.max(0, Math.min(100, total - offset));
        const entries = Array.from({ length: count }, (_, i) => ({ id: `R${offset + i}`, type: 'annotate_log_entry', summary: longText, created_at: new Date(Date.UTC(2026, 4, 6) + (total - offset - i) * 1000).toISOString() }));
        return jsonResponse(200, { log_entries: entries, limit: 100, offset, more: offset + count < total });
      }
      if (path === '/oncalls') return jsonResponse(200, { oncalls: [], limit: 100, offset, more: false });
      return jsonResponse(404, { error: { message: 'Not Found', code: 2100 } });
    });
    const big = incidentOpsServerFor(undefined, { baseUrl: 'http://platform.test/incidentops', accessToken: 't', fetch: scripted.fetch });
    const result: ToolOutcome = await callTool(big, 'IncidentOps.GetIncidentContext', { incident_id: 'PBIG' });
    assert.equal(result.isError, false, JSON.stringify(result.data).slice(0, 500));
    const text = JSON.stringify(result.raw.structuredContent);
    assert.ok(Buffer.byteLength(text) < RESULT_BUDGET_BYTES / 2, `${Buffer.byteLength(text)} bytes: the tool bounds itself, well before the generic cut`);
    assert.equal((result.data.alerts as Json).count, 900);
    assert.equal((result.data.notes as string[]).length, 11, 'ten notes and how many more');
    assert.match((result.data.notes as string[])[10] as string, /290 older notes/);
    const timeline = result.data.timeline as string[];
    assert.ok(timeline.length <= 42, `${timeline.length} timeline lines`);
    assert.ok(timeline.some((line) => /more key events/.test(line)));
    assert.ok(timeline.some((line) => /after the first 1000/.test(line)));
    // 1 incident + 1 alerts + 1 notes + 10 pages of log entries + 1 on-calls + related changes and incidents (404: a plan without them).
    assert.ok(scripted.calls.length <= 16, `${scripted.calls.length} requests`);
    assert.match((result.data.changes as string[])[0] as string, /not available to this account \(HTTP 404\)/);
  });
});

describe('where the task tools are listed', () => {
  it('the all profile and the default list only the contract; everyday, meta, a toolset or a tool name add them', () => {
    const names = (selections: Json[]) => listTools(server, { selections }).map((tool) => tool.name);
    for (const listed of [names([]), names([{ profile: 'all' }]), names([{ profile: 'no-enterprise' }])]) {
      assert.equal(listed.length, 14);
      assert.ok(!listed.includes('IncidentOps.WhoIsOnCall') && !listed.includes('IncidentOps.GetIncidentContext') && !listed.includes('IncidentOps.FindSimilarIncidents'));
    }
    assert.ok(names([{ profile: 'everyday' }]).includes('IncidentOps.WhoIsOnCall'));
    assert.equal(names([{ profile: 'everyday' }]).length, 19);
    assert.deepEqual(names([{ toolsets: ['tasks'] }]), ['IncidentOps.GetIncidentContext', 'IncidentOps.WhoIsOnCall', 'IncidentOps.FindSimilarIncidents', 'IncidentOps.ListIncidentAlerts', 'IncidentOps.IncidentStats', 'IncidentOps.ShiftHandoff']);
    assert.deepEqual(names([{ toolsets: ['incidents'], tools: ['WhoIsOnCall'] }]).slice(-1), ['IncidentOps.WhoIsOnCall']);
    // A later choice still narrows: a toolset choice after everyday keeps only that toolset.
    assert.deepEqual(names([{ profile: 'everyday' }, { toolsets: ['oncalls'] }]), names([{ toolsets: ['oncalls'] }]));
    assert.ok(!names([{ profile: 'everyday' }, { toolsets: ['oncalls'] }]).includes('IncidentOps.WhoIsOnCall'));
  });

  it('meta mode finds and calls them', async () => {
    const view = viewFor(server, { selections: [{ profile: 'meta' }] });
    const meta = (name: string) => view.find(`IncidentOps.${name}`) as AnyToolDefinition;
    const call = async (name: string, args: Json) => outcomeOf(await executeTool(server, meta(name), args, new AbortController().signal));
    const found = await call('FindTools', { query: 'who is on call now and next' });
    assert.ok(((found.data.tools as Json[]).map((t) => t.name)).includes('IncidentOps.WhoIsOnCall'), JSON.stringify(found.data));
    const [rotation] = await simpleRotations();
    assert.ok(rotation);
    const called = await call('CallReadOnlyTool', { name: 'IncidentOps.WhoIsOnCall', arguments: { schedule_id: rotation.scheduleId } });
    assert.equal(called.isError, false, JSON.stringify(called.data));
    assert.equal(JSON.stringify(called.data).includes(`(${expectedAt(rotation, Date.now()).user})`), true);
  });
});

describe('cost of the tasks: the contract tools vs one task tool (tokens of the results, o200k_base)', () => {
  /** Tokens of what the agent reads: the result's text content. */
  const tokensOf = async (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);

  it('"Who is on call for payments right now, and who is next?" and "What happened in incident N?" cost well under half', async () => {
    // A pinned clock: the sandbox's data, rotations and answers, and so the counts, are the same on every run.
    const pinned = new Date('2026-05-06T12:00:00Z');
    const fixed = await startTestSandbox({ incidentops: { now: () => pinned } });
    try {
      const at = incidentOpsServerFor(fixed, { now: () => pinned });
      const direct = async (path: string) =>
        (await (await fetch(`${fixed.incidentops.baseUrl}${path}`, { headers: { Authorization: `Bearer ${fixed.incidentops.token}`, Accept: 'application/vnd.pagerduty+json;version=2', 'Content-Type': 'application/json' } })).json()) as Json;

      // On call. Contract plan: find the service, then one on-call query over a window long enough
      // to show every level's next shift (now .. a week ahead). Task tool: the service by name.
      const services = await callTool(at, 'IncidentOps.ListServices', { query: 'payments' });
      const service = (services.data.services as Json[])[0] as Json;
      const policyId = String((service.escalation_policy as Json).id);
      const contractOnCall = [services];
      for (let offset = 0, more = true; more; offset += 50) {
        const page = await callTool(at, 'IncidentOps.ListOnCalls', { escalation_policy_ids: [policyId], since: pinned.toISOString(), until: new Date(pinned.getTime() + 7 * 86_400_000).toISOString(), limit: 50, offset });
        contractOnCall.push(page);
        more = page.data.more === true;
      }
      const taskOnCall = [await callTool(at, 'IncidentOps.WhoIsOnCall', { service_id: 'payments' })];

      // Incident: the newest resolved one (a whole story). Contract plan: GetIncident, the account
      // feed (no incident filter) over the incident's lifetime, who is on call for its policy.
      // Its alerts are unreachable; its notes only as log entries.
      const target = ((await direct('/incidents?date_range=all&limit=1&statuses[]=resolved&sort_by=created_at:desc')).incidents as Json[])[0] as Json;
      const incident = await callTool(at, 'IncidentOps.GetIncident', { incident_id: String(target.incident_number) });
      const contractIncident = [incident];
      const record = incident.data.incident as Json;
      const until = new Date(Date.parse(String(record.resolved_at)) + 1000).toISOString();
      for (let offset = 0, more = true; more; offset += 50) {
        const page = await callTool(at, 'IncidentOps.ListLogEntries', { since: String(record.created_at), until, limit: 50, offset });
        contractIncident.push(page);
        more = page.data.more === true;
      }
      contractIncident.push(await callTool(at, 'IncidentOps.ListOnCalls', { escalation_policy_ids: [String((target.escalation_policy as Json).id)], limit: 50 }));
      // What else is open on its service (its related changes cannot be read at all).
      for (const status of ['triggered', 'acknowledged']) contractIncident.push(await callTool(at, 'IncidentOps.ListIncidents', { service_ids: [String((target.service as Json).id)], status, limit: 50 }));
      const taskIncident = [await callTool(at, 'IncidentOps.GetIncidentContext', { incident_id: String(target.incident_number) })];

      for (const outcome of [...contractOnCall, ...taskOnCall, ...contractIncident, ...taskIncident]) assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
      const sum = async (outcomes: ToolOutcome[]) => (await Promise.all(outcomes.map(tokensOf))).reduce((a, b) => a + b, 0);
      const figures = {
        onCall: { contractCalls: contractOnCall.length, contractTokens: await sum(contractOnCall), taskCalls: taskOnCall.length, taskTokens: await sum(taskOnCall) },
        incident: { number: target.incident_number, contractCalls: contractIncident.length, contractTokens: await sum(contractIncident), taskCalls: taskIncident.length, taskTokens: await sum(taskIncident) },
      };
      const perCall = async (outcomes: ToolOutcome[]) => Promise.all(outcomes.map(tokensOf));
      console.error(`task cost (docs/tasks.md): ${JSON.stringify(figures)} per call: ${JSON.stringify({ contractOnCall: await perCall(contractOnCall), taskOnCall: await perCall(taskOnCall), contractIncident: await perCall(contractIncident), taskIncident: await perCall(taskIncident) })}`);
      for (const figure of Object.values(figures)) {
        assert.ok(figure.taskTokens < 0.45 * figure.contractTokens, JSON.stringify(figure));
        assert.ok(figure.taskCalls <= figure.contractCalls, JSON.stringify(figure));
      }
      // The figures the README and docs/tasks.md publish are these (token counts are deterministic).
      const n = (value: number) => value.toLocaleString('en-US');
      const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const tasksPage = readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8');
      for (const [figure, tool] of [[figures.onCall, 'WhoIsOnCall'], [figures.incident, 'GetIncidentContext']] as const) {
        const contractPart = `${figure.contractCalls} calls, ${n(figure.contractTokens)} tokens`;
        const taskPart = `1 call, ${n(figure.taskTokens)} tokens`;
        assert.ok(new RegExp(`\\| ${contractPart}[^|]*\\| \`${tool}\`: ${taskPart} \\|`).test(readme), `README: ${tool}'s row gives ${contractPart} and ${taskPart}`);
        assert.ok(new RegExp(`\\| ${contractPart}:[^|]*\\| ${taskPart}: \`${tool}\``).test(tasksPage), `docs/tasks.md: ${tool}'s row gives ${contractPart} and ${taskPart}`);
      }
      assert.ok(readme.includes(`incident ${figures.incident.number}?`) && tasksPage.includes(`incident ${figures.incident.number}?`), 'both name the measured incident');
      assert.equal(figures.onCall.taskCalls, 1);
      assert.equal(figures.incident.taskCalls, 1);
      assert.equal(idOf(taskOnCall[0]?.data.service), service.id, 'the name found the service the contract plan found');
    } finally {
      await fixed.close();
    }
  });
});
