/**
 * "Hand over my shift" (IncidentOps.ShiftHandoff), against the sandbox with a pinned clock: the
 * shift, the handover, the shift's incidents with their times and last notes, who is next and the
 * next 24 hours' overrides, each computed again here from raw HTTP reads (other routes than the
 * tool's where there are: per-incident log entries, the whole incident list); every request
 * checked against the official spec; bad input refused before anything is sent; the cost against
 * the contract's best plan.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countTokens } from '../src/core/tools/context-size.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, jsonResponse, scriptedFetch, startTestSandbox, type ToolOutcome, incidentOpsGet } from './support/harness.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;
const SPEC = 'pagerduty-openapi.json';
const PINNED = new Date('2026-05-06T12:00:00Z');
const NOW = PINNED.getTime();
const HOUR = 3_600_000;

let sandbox: RunningSandbox;
let server: AnyToolServer;

const platform = (path: string): Promise<Json> => incidentOpsGet(sandbox, path) as Promise<Json>;

const call = (args: Json) => callRecorded(sandbox, server, 'IncidentOps.ShiftHandoff', args);
const iso = (t: number) => new Date(t).toISOString().replace(/\.000Z$/, 'Z');
const ms = (v: unknown) => Date.parse(String(v));
const idIn = (label: unknown) => /\((\w+)\)$/.exec(String(label))?.[1];

before(async () => {
  sandbox = await startTestSandbox({ incidentops: { now: () => PINNED } });
  server = incidentOpsServerFor(sandbox, { now: () => PINNED });
});
after(() => sandbox.close());

/** The caller's current shift with times, the one ending soonest, as /oncalls lists it. */
async function myShift(): Promise<{ me: Json; row: Json }> {
  const me = (await platform('/users/me')).user as Json;
  const rows = (await platform(`/oncalls?user_ids[]=${String(me.id)}&since=${iso(NOW - 8 * 24 * HOUR)}&until=${iso(NOW + 60_000)}&limit=100`)).oncalls as Json[];
  const current = rows.filter((r) => r.start !== null && ms(r.start) <= NOW && NOW < ms(r.end)).sort((a, b) => ms(a.end) - ms(b.end));
  assert.ok(current[0], 'the demo user is on call now');
  return { me, row: current[0] };
}

describe('IncidentOps.ShiftHandoff', () => {
  it('hands over my shift in one call: the shift, to whom, its incidents with times and notes, who is next', async () => {
    const { me, row } = await myShift();
    const end = ms(row.end);
    // The sandbox puts the demo user's shift change within hours of the pinned clock.
    assert.ok(end - NOW <= 2 * HOUR && end > NOW, `shift ends at ${String(row.end)}`);
    const policy = (await platform(`/escalation_policies/${String((row.escalation_policy as Json).id)}`)).escalation_policy as Json;
    const result = await call({});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data;
    assert.equal(data.phase, 'ending');
    assert.equal(idIn(data.subject), me.id);
    assert.match(String(data.shift), new RegExp(`^${String(row.start).replace('Z', '')}.* to ${String(row.end).replace('Z', '')}.*\\(${String(me.id)}\\) via .*\\(${String((row.schedule as Json).id)}\\)$`));
    assert.deepEqual(data.levels, [`${String(policy.name)} (${String(policy.id)}) level ${String(row.escalation_level)}`]);

    // Who takes over: on call at the shift's end at the same level, through the same schedule.
    const next = ((await platform(`/oncalls?escalation_policy_ids[]=${String(policy.id)}&since=${iso(end)}&until=${iso(end + 1000)}&limit=100`)).oncalls as Json[]).find(
      (r) => r.escalation_level === row.escalation_level && (r.schedule as Json | null)?.id === (row.schedule as Json).id,
    ) as Json;
    assert.ok(next);
    assert.match(String(data.handover), new RegExp(`\\(${String(me.id)}\\) hands over to .*\\(${String((next.user as Json).id)}\\) \\(in 1\\.0 h\\)$`));
    assert.match(String((data.next_on_call as string[])[0]), new RegExp(`level ${String(row.escalation_level)}: .*\\(${String((next.user as Json).id)}\\) until ${String(next.end)}`));

    // The shift's incidents: created in [start, now) on the policy's services, from the whole list.
    const services = new Set((policy.services as Json[]).map((s) => s.id));
    const all = (await platform('/incidents?date_range=all&limit=100&sort_by=created_at:asc&offset=0')).incidents as Json[];
    const more = (await platform('/incidents?date_range=all&limit=100&sort_by=created_at:asc&offset=100')).incidents as Json[];
    const shiftIncidents = [...all, ...more].filter((i) => services.has((i.service as Json).id) && ms(i.created_at) >= ms(row.start) && ms(i.created_at) < NOW);
    assert.ok(shiftIncidents.length >= 4, 'several incidents in the shift');
    const open = shiftIncidents.filter((i) => i.status !== 'resolved');
    const resolved = shiftIncidents.filter((i) => i.status === 'resolved');
    assert.ok(open.length >= 2 && resolved.length >= 2 && open.some((i) => i.status === 'triggered'));
    const counts = data.incidents as Json;
    assert.deepEqual([counts.opened, counts.open, counts.resolved], [shiftIncidents.length, open.length, resolved.length]);

    // Time to acknowledge and resolve, from each incident's own log entries.
    const ack: number[] = [];
    const res: number[] = [];
    for (const incident of shiftIncidents) {
      const entries = (await platform(`/incidents/${String(incident.id)}/log_entries?limit=100`)).log_entries as Json[];
      const first = (type: string) => Math.min(...entries.filter((e) => e.type === type).map((e) => ms(e.created_at)));
      const created = ms(incident.created_at);
      if (Number.isFinite(first('acknowledge_log_entry'))) ack.push(first('acknowledge_log_entry') - created);
      if (incident.status === 'resolved') res.push(first('resolve_log_entry') - created);
    }
    const shown = (span: number) => (span < HOUR ? `${Math.round(span / 60_000)} min` : `${(span / HOUR).toFixed(1)} h`);
    const average = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.equal(counts.time_to_acknowledge, `average ${shown(average(ack))}, longest ${shown(Math.max(...ack))} (${ack.length} acknowledged)`);
    assert.equal(counts.time_to_resolve, `average ${shown(average(res))}, longest ${shown(Math.max(...res))} (${res.length} resolved)`);

    // Each open one with its newest note.
    const openLines = counts.open_incidents as string[];
    assert.deepEqual(openLines.map((line) => /^#\d+ ".*" \((\w+)\)/.exec(line)?.[1]), open.map((i) => i.id));
    for (const [index, incident] of open.entries()) {
      const notes = (await platform(`/incidents/${String(incident.id)}/notes`)).notes as Json[];
      const newest = notes.sort((a, b) => ms(b.created_at) - ms(a.created_at))[0];
      const line = openLines[index] as string;
      assert.ok(line.startsWith(`#${String(incident.incident_number)} ${JSON.stringify(incident.title)}`), line);
      if (newest) assert.ok(line.endsWith(`last note: ${String(newest.created_at)} ${String((newest.user as Json).summary)} (${String((newest.user as Json).id)}): ${JSON.stringify(newest.content)}`), line);
      else assert.ok(line.endsWith('last note: none'), line);
    }
    assert.deepEqual((counts.resolved_incidents as string[]).map((line) => /\((\w+)\): /.exec(line)?.[1]), resolved.map((i) => i.id));

    // The next 24 hours: every override of the shift's schedule in it is named.
    const overrides = (await platform(`/schedules/${String((row.schedule as Json).id)}/overrides?since=${iso(NOW)}&until=${iso(NOW + 24 * HOUR)}`)).overrides as Json[];
    assert.ok(overrides.length >= 1);
    for (const override of overrides) {
      assert.ok((data.coming_24h as string[]).some((line) => line.includes(`(${String((override.user as Json).id)}): override`)), JSON.stringify(data.coming_24h));
    }
    assert.equal(data.partial, undefined);
    assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
  });

  it('answers for a policy level and a schedule, and for a user not on call', async () => {
    const { row } = await myShift();
    const policyId = String((row.escalation_policy as Json).id);
    const byPolicy = await call({ escalation_policy_id: policyId, escalation_level: Number(row.escalation_level) });
    assert.equal(byPolicy.isError, false, JSON.stringify(byPolicy.data));
    // The level's current holder is the demo user (the override), so the same shift and handover.
    const mine = await call({});
    assert.equal(byPolicy.data.shift, mine.data.shift);
    assert.equal(byPolicy.data.handover, mine.data.handover);
    assert.deepEqual(byPolicy.data.incidents, mine.data.incidents);
    const bySchedule = await call({ schedule_id: String((row.schedule as Json).id) });
    assert.equal(bySchedule.isError, false);
    assert.equal(bySchedule.data.shift, mine.data.shift);
    // Someone with no shift in the lookback: phase none, said why, nothing else read.
    const users = (await platform('/users?limit=100')).users as Json[];
    let found = false;
    for (const user of users) {
      const shifts = (await platform(`/oncalls?user_ids[]=${String(user.id)}&since=${iso(NOW - 8 * 24 * HOUR)}&until=${iso(NOW + 60_000)}&limit=100`)).oncalls as Json[];
      if (shifts.length > 0) continue;
      const none = await call({ user_id: String(user.id) });
      assert.equal(none.isError, false);
      assert.equal(none.data.phase, 'none');
      assert.match(String(none.data.note), /No shift/);
      assert.equal(none.sent.length, 2);
      found = true;
      break;
    }
    assert.ok(found, 'a user with no shift in the lookback');
  });

  it('refuses bad input naming the parameter, and sends nothing', async () => {
    for (const [args, parameter] of [
      [{ user_id: 'PABC123', schedule_id: 'PDEF456' }, 'schedule_id'],
      [{ escalation_level: 2 }, 'escalation_level'],
      [{ escalation_policy_id: 'P1', escalation_level: 0 }, 'escalation_level'],
      [{ schedule_id: 'P1/overrides' }, 'schedule_id'],
      [{ team_id: 'PABC123' }, 'team_id'],
    ] as const) {
      const result = await call(args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.equal(result.data.kind, 'invalid_input');
      assert.match(JSON.stringify(result.data), new RegExp(parameter));
      assert.equal(result.sent.length, 0, JSON.stringify(args));
    }
  });

  it('costs one call, against the contract plan', async () => {
    const tokensOf = async (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);
    const task = await call({});
    const { row } = await myShift();
    const policyId = String((row.escalation_policy as Json).id);
    const policy = (await platform(`/escalation_policies/${policyId}`)).escalation_policy as Json;
    // The contract has no user filter on on-calls: every shift now, paged, to find mine; then the level's next; the policy's services; the incidents; the log for notes.
    const plan: [string, Json][] = [
      ['IncidentOps.WhoAmI', {}],
      ['IncidentOps.ListOnCalls', { since: iso(NOW), until: iso(NOW + 60_000), limit: 50 }],
      ['IncidentOps.ListOnCalls', { escalation_policy_ids: [policyId], since: String(row.end), until: iso(ms(row.end) + 7 * 24 * HOUR), limit: 50 }],
      ['IncidentOps.GetEscalationPolicy', { escalation_policy_id: policyId }],
      ['IncidentOps.ListIncidents', { service_ids: (policy.services as Json[]).map((s) => s.id), since: String(row.start), until: iso(NOW), limit: 50 }],
      ['IncidentOps.ListLogEntries', { since: String(row.start), until: iso(NOW), limit: 50 }],
    ];
    let contractTokens = 0;
    let calls = 0;
    for (const [name, args] of plan) {
      let offset = 0;
      for (;;) {
        const outcome = await callRecorded(sandbox, server, name, { ...args, ...(name.startsWith('IncidentOps.List') ? { offset } : {}) });
        assert.equal(outcome.isError, false, `${name} ${JSON.stringify(outcome.data)}`);
        contractTokens += await tokensOf(outcome);
        calls++;
        if (!outcome.data.more) break;
        offset = Number(outcome.data.next_offset);
      }
    }
    const taskTokens = await tokensOf(task);
    console.error(`task cost (docs/tasks.md): ShiftHandoff 1 call, ${taskTokens} tokens; contract plan ${calls} calls, ${contractTokens} tokens (no overrides, no times worked out)`);
    assert.ok(taskTokens < 0.45 * contractTokens, `${taskTokens} against ${contractTokens}`);
  });
});

describe('a shift that has just been handed over', () => {
  it("by schedule, 30 minutes after the change: the shift handed over, from whom to whom, and its incidents", async () => {
    // The data is made at the pinned clock; the clock then moves past the demo user's stand-in shift.
    let clock = PINNED;
    const later = await startTestSandbox({ incidentops: { now: () => clock } });
    try {
      const laterServer = incidentOpsServerFor(later, { now: () => clock });
      const before = await callTool(laterServer, 'IncidentOps.ShiftHandoff', {});
      const scheduleId = /via .*\((\w+)\)$/.exec(String(before.data.shift))?.[1] as string;
      const end = Date.parse(String(/ to (\S+) /.exec(String(before.data.shift))?.[1]));
      clock = new Date(end + 30 * 60_000);
      const after = await callTool(laterServer, 'IncidentOps.ShiftHandoff', { schedule_id: scheduleId });
      assert.equal(after.isError, false, JSON.stringify(after.data));
      assert.equal(after.data.phase, 'started');
      // The shift shown is the one handed over (the demo user's), with the same incidents as before the change.
      assert.equal(after.data.shift, before.data.shift);
      const incoming = /hands over to (.*) \(in /.exec(String(before.data.handover))?.[1];
      assert.match(String(after.data.handover), new RegExp(`\\(PDEMO01\\) hands over to ${String(incoming).replace(/[()]/g, '\\$&')} \\(30 min ago\\)$`));
      assert.deepEqual(after.data.incidents, before.data.incidents);
    } finally {
      await later.close();
    }
  });
});

describe('bounded reads on a busy platform', () => {
  it('says partial for what a bound cut, and keeps the rest of the answer', async () => {
    const ref = (id: string, summary: string) => ({ id, summary });
    const shift = { user: ref('PU1', 'Ana'), schedule: ref('PS1', 'Primary'), escalation_policy: ref('PEP1', 'Ops'), escalation_level: 1, start: iso(NOW - 6 * HOUR), end: iso(NOW + HOUR) };
    const nextShift = { ...shift, user: ref('PU2', 'Bo'), start: iso(NOW + HOUR), end: iso(NOW + 25 * HOUR) };
    let incidentPages = 0;
    const { fetch: fetchImpl, calls } = scriptedFetch((url) => {
      const path = url.pathname.replace(/^\/incidentops/, '');
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (path === '/users/me') return jsonResponse(200, { user: ref('PU1', 'Ana') });
      if (path === '/oncalls') return jsonResponse(200, { oncalls: [shift, nextShift], limit: 100, offset: 0, more: false });
      if (path === '/escalation_policies/PEP1') return jsonResponse(200, { escalation_policy: { id: 'PEP1', name: 'Ops', escalation_rules: [{}], services: [ref('PSV1', 'Api')] } });
      // Endless incidents: every page full, always more.
      if (path === '/incidents') {
        incidentPages++;
        const incidents = Array.from({ length: 100 }, (_, i) => ({ id: `PI${offset + i}`, incident_number: offset + i, title: 't', status: 'triggered', urgency: 'high', created_at: iso(NOW - HOUR), service: ref('PSV1', 'Api') }));
        return jsonResponse(200, { incidents, limit: 100, offset, more: true });
      }
      if (path === '/log_entries') return jsonResponse(200, { log_entries: [], limit: 100, offset: 0, more: false });
      if (path === '/schedules/PS1/overrides') return jsonResponse(200, { overrides: [] });
      // Notes cannot be read.
      if (/\/notes$/.test(path)) return jsonResponse(500, { error: { message: 'boom' } });
      return jsonResponse(404, { error: { message: 'Not Found', code: 2100 } });
    });
    const busy = incidentOpsServerFor(undefined, { baseUrl: 'http://platform.test/incidentops', accessToken: 't', fetch: fetchImpl, now: () => PINNED });
    const result = await callTool(busy, 'IncidentOps.ShiftHandoff', {});
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(incidentPages, 3, 'three pages of incidents at most');
    assert.equal((result.data.incidents as Json).opened, 300);
    const partial = (result.data.partial as string[]).join(' | ');
    assert.match(partial, /incidents: the first 300 of the shift only/);
    assert.match(partial, /notes: the last note of the first 10 of 300 open incidents only/);
    assert.match(partial, /notes: #0, #1, #2, #3, #4, #5, #6, #7, #8, #9's could not be read/);
    assert.equal((result.data.partial as string[]).length, 3);
    assert.match(String(result.data.handover), /Ana \(PU1\) hands over to Bo \(PU2\)/);
    assert.ok(calls.length <= 76, `${calls.length} requests, within the budget`);
  });
});

describe('the requests conform to the official spec', { skip: skipUnlessReference(SPEC) }, () => {
  it('validates every request of the tool', async () => {
    const validator = loadOpenApi(loadReferenceJson(SPEC));
    const { row } = await myShift();
    for (const args of [{}, { escalation_policy_id: String((row.escalation_policy as Json).id), escalation_level: 1 }, { schedule_id: String((row.schedule as Json).id) }]) {
      const result = await call(args);
      assert.equal(result.isError, false, JSON.stringify(result.data));
      for (const request of result.sent) {
        const errors = validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers });
        assert.deepEqual(errors, [], `${request.method} ${request.path}?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}`);
      }
    }
  });
});
