/**
 * "Show every alert of incident N with its details" (IncidentOps.ListIncidentAlerts), against the
 * sandbox: each answer checked against the alerts read over raw HTTP here (details flattened and
 * cut by the stated rule, computed again in this file), paging that covers every alert once,
 * every request checked against the official spec, bad input refused before anything is sent,
 * and the cost against the contract's best plan.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countTokens } from '../src/core/tools/context-size.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, incidentOpsServerFor, startTestSandbox, type ToolOutcome, incidentOpsGet } from './support/harness.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;
const SPEC = 'pagerduty-openapi.json';
const PINNED = new Date('2026-05-06T12:00:00Z');
/** The rule docs/tasks.md states, written out again here. */
const RULE = { list: { chars: 200, lines: 30 }, oneAlert: { chars: 1_000, lines: 40 } };

let sandbox: RunningSandbox;
let server: AnyToolServer;

const platform = (path: string): Promise<Json> => incidentOpsGet(sandbox, path) as Promise<Json>;

const call = (args: Json) => callRecorded(sandbox, server, 'IncidentOps.ListIncidentAlerts', args);

/** A value as the rule shows it: whitespace runs one space, cut at `chars` with an ellipsis, quoted; numbers bare. */
function shown(value: unknown, chars: number): string {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  const flat = String(value).replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > chars ? `${flat.slice(0, chars - 1)}…` : flat);
}

/** Every leaf of the details as `a.b.0: value`, in order (the sandbox's keys are plain identifiers). */
function flattened(details: unknown, chars: number, path = ''): string[] {
  if (Array.isArray(details) || (details !== null && typeof details === 'object')) {
    return Object.entries(details as Json).flatMap(([key, value]) => flattened(value, chars, path ? `${path}.${key}` : key));
  }
  return [`${path}: ${shown(details, chars)}`];
}

function assertAlert(entry: Json, alert: Json, rule: { chars: number; lines: number }): void {
  const id = String(alert.id);
  assert.ok(String(entry.alert).endsWith(`(${id})`) && String(entry.alert).includes(String(alert.summary)), String(entry.alert));
  assert.equal(entry.severity, alert.severity);
  assert.equal(entry.status, alert.status);
  assert.equal(entry.created, alert.created_at);
  assert.equal(entry.dedup_key, alert.alert_key);
  assert.ok(String(entry.service).endsWith(`(${String((alert.service as Json).id)})`));
  assert.ok(String(entry.integration).endsWith(`(${String((alert.integration as Json).id)})`));
  const body = alert.body as Json;
  const lines = flattened(body.details, rule.chars);
  assert.deepEqual(entry.details, lines.slice(0, rule.lines), id);
  assert.equal(entry.details_left_out, lines.length > rule.lines ? lines.length - rule.lines : undefined);
  const contexts = body.contexts as Json[];
  assert.equal((entry.links as string[]).length, contexts.length);
  contexts.forEach((context, i) => assert.ok((entry.links as string[])[i]?.endsWith(`: ${JSON.stringify(context.href ?? context.src)}`), `${id} link ${i}`));
}

before(async () => {
  sandbox = await startTestSandbox({ incidentops: { now: () => PINNED } });
  server = incidentOpsServerFor(sandbox, { now: () => PINNED });
});
after(() => sandbox.close());

describe('IncidentOps.ListIncidentAlerts', () => {
  it('answers every alert of an incident with its body, by ID or number, as the platform has it', async () => {
    const incidents = ((await platform('/incidents?date_range=all&limit=100&sort_by=created_at:desc')).incidents as Json[]).filter((i) => Number((i.alert_counts as Json).all) >= 2).slice(0, 8);
    assert.ok(incidents.length >= 5);
    for (const incident of incidents) {
      const raw = (await platform(`/incidents/${String(incident.id)}/alerts?limit=100&sort_by=created_at:asc`)).alerts as Json[];
      for (const incidentId of [String(incident.id), `#${String(incident.incident_number)}`]) {
        const result = await call({ incident_id: incidentId });
        assert.equal(result.isError, false, JSON.stringify(result.data));
        assert.equal(result.data.incident, incident.id);
        assert.equal(result.data.total, raw.length);
        assert.equal(result.data.next_offset, undefined);
        const alerts = result.data.alerts as Json[];
        assert.deepEqual(alerts.map((a) => /\((\w+)\)$/.exec(String(a.alert))?.[1]), raw.map((a) => a.id));
        alerts.forEach((entry, i) => assertAlert(entry, raw[i] as Json, RULE.list));
        // The cut is counted: the values shown cut, and the lines left out.
        const valuesCut = raw.flatMap((a) => flattened((a.body as Json).details, RULE.list.chars).slice(0, RULE.list.lines)).filter((line) => line.endsWith('…"')).length;
        if (valuesCut > 0) assert.match(String(result.data.cut), new RegExp(`^${valuesCut} detail values cut at 200 characters`));
        else assert.equal(result.data.cut, undefined);
        assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
        assert.equal(result.sent.length, incidentId.startsWith('#') ? 2 : 1);
      }
    }
  });

  it("alerts say what their incident's title says", async () => {
    const incidents = (await platform('/incidents?date_range=all&limit=100')).incidents as Json[];
    const expected: [RegExp, RegExp][] = [
      [/crash-looping/, /restart|exit_code|pod/],
      [/^TLS certificate/, /not_after|expir/],
      [/p99 latency/, /p99/],
    ];
    for (const [title, words] of expected) {
      const of = incidents.filter((i) => title.test(String(i.title)));
      for (const incident of of) {
        const result = await call({ incident_id: String(incident.id) });
        for (const alert of result.data.alerts as Json[]) assert.match((alert.details as string[]).join('\n'), words, `${String(incident.title)}: ${String(alert.alert)}`);
      }
    }
  });

  it('pages over every alert once with limit and offset, and shows one alert cut less by its dedup key', async () => {
    const incident = ((await platform('/incidents?date_range=all&limit=100')).incidents as Json[]).find((i) => Number((i.alert_counts as Json).all) >= 3) as Json;
    const raw = (await platform(`/incidents/${String(incident.id)}/alerts?limit=100&sort_by=created_at:asc`)).alerts as Json[];
    const seen: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const result: ToolOutcome = await call({ incident_id: String(incident.id), limit: 1, offset });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      const alerts = result.data.alerts as Json[];
      assert.equal(alerts.length, 1);
      seen.push(String(/\((\w+)\)$/.exec(String(alerts[0]?.alert))?.[1]));
      offset = result.data.next_offset as number | undefined;
      if (offset !== undefined) assert.match(String(result.data.note), /offset = next_offset/);
    }
    assert.deepEqual(seen, raw.map((a) => a.id));
    const last = raw[raw.length - 1] as Json;
    const one = await call({ incident_id: String(incident.id), alert_key: String(last.alert_key) });
    assert.equal((one.data.alerts as Json[]).length, 1);
    assertAlert((one.data.alerts as Json[])[0] as Json, last, RULE.oneAlert);
    assert.ok(one.sent.every((r) => r.query.some(([k, v]) => k === 'alert_key' && v === last.alert_key)));
    const resolved = await call({ incident_id: String(incident.id), status: 'resolved' });
    assert.equal((resolved.data.alerts as Json[]).length, raw.filter((a) => a.status === 'resolved').length);
  });

  it('refuses bad input naming the parameter, and sends nothing', async () => {
    for (const [args, parameter] of [
      [{ incident_id: 'P1/alerts' }, 'incident_id'],
      [{ incident_id: 'PABC123', limit: 0 }, 'limit'],
      [{ incident_id: 'PABC123', limit: 501 }, 'limit'],
      [{ incident_id: 'PABC123', status: 'acknowledged' }, 'status'],
      [{ incident_id: 'PABC123', offset: 9_950 }, 'offset'],
    ] as const) {
      const result = await call(args);
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.equal(result.data.kind, 'invalid_input');
      assert.match(JSON.stringify(result.data), new RegExp(parameter));
      assert.equal(result.sent.length, 0, JSON.stringify(args));
    }
    for (const incidentId of ['PNOSUCH', '999999']) {
      const unknown = await call({ incident_id: incidentId });
      assert.equal(unknown.isError, true);
      assert.equal(unknown.data.kind, 'not_found');
      assert.match(String(unknown.data.message), new RegExp(`incident "${incidentId}"`, 'i'));
    }
  });

  it('costs one call, against the contract tools that cannot read alerts at all', async () => {
    const incident = ((await platform('/incidents?date_range=all&limit=100&sort_by=created_at:desc')).incidents as Json[]).find((i) => Number((i.alert_counts as Json).all) >= 3) as Json;
    const tokensOf = (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);
    const task = await call({ incident_id: `#${String(incident.incident_number)}` });
    const getIncident = await callRecorded(sandbox, server, 'IncidentOps.GetIncident', { incident_id: String(incident.id) });
    assert.equal(getIncident.isError, false);
    // The contract's best plan reads the incident (its alert counts) and the first trigger in the log entries; no contract tool reads alerts.
    const [taskTokens, incidentTokens] = [await tokensOf(task), await tokensOf(getIncident)];
    console.error(`task cost (docs/tasks.md): ListIncidentAlerts ${taskTokens} tokens, ${(task.data.alerts as Json[]).length} alerts; GetIncident ${incidentTokens} tokens`);
    assert.equal(task.data.total, (task.data.alerts as Json[]).length);
  });
});

describe('the requests and the sandbox answers conform to the official spec', { skip: skipUnlessReference(SPEC) }, () => {
  it('validates every request of the tool and the alerts the sandbox serves', async () => {
    const validator = loadOpenApi(loadReferenceJson(SPEC));
    const [incident] = (await platform('/incidents?date_range=all&limit=1&sort_by=created_at:desc')).incidents as Json[];
    const id = String(incident?.id);
    sandbox.clearRequests();
    for (const args of [{ incident_id: id }, { incident_id: String(incident?.incident_number) }, { incident_id: id, status: 'triggered', limit: 1, offset: 1 }, { incident_id: id, alert_key: 'abc' }]) {
      const result = await call(args);
      assert.equal(result.isError, false, JSON.stringify(result.data));
      for (const request of result.sent) {
        const errors = validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers });
        assert.deepEqual(errors, [], `${request.method} ${request.path}?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}`);
      }
    }
    const body = await platform(`/incidents/${id}/alerts?limit=100&total=true`);
    assert.deepEqual(validator.validateResponse('GET', `/incidents/${id}/alerts`, 200, body), []);
  });
});
