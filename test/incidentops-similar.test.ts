/**
 * "Has this happened before?" (IncidentOps.FindSimilarIncidents) and what GetIncidentContext reads
 * around an incident (related changes, other open incidents), against the sandbox: answers checked
 * against the sandbox's own records read over raw HTTP, the platform's endpoints used where the plan
 * has them and a quiet fallback where it answers 402/403/404, every request and the sandbox's
 * answers checked against the official spec, and the cost against the contract's best plan.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { countTokens } from '../src/core/tools/context-size.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { PlanFeature } from '../src/sandbox/incidentops/intelligence.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, startTestSandbox, type ToolOutcome } from './support/harness.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPEC = 'pagerduty-openapi.json';
const PINNED = new Date('2026-05-06T12:00:00Z');
const ALL_FEATURES: PlanFeature[] = ['past_incidents', 'related_incidents', 'related_change_events'];

interface Account {
  sandbox: RunningSandbox;
  server: AnyToolServer;
}

async function account(plan?: { without: PlanFeature[]; status?: 402 | 403 | 404 }): Promise<Account> {
  const sandbox = await startTestSandbox({ incidentops: { now: () => PINNED, ...(plan ? { plan } : {}) } });
  return { sandbox, server: incidentOpsServerFor(sandbox, { now: () => PINNED }) };
}

/** GET on the sandbox's platform API directly, as a client of the platform (not through the server). */
async function platform({ sandbox }: Account, path: string): Promise<Json> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${sandbox.incidentops.token}`, Accept: 'application/vnd.pagerduty+json;version=2', 'Content-Type': 'application/json' },
  });
  assert.equal(response.status, 200, `${path}: HTTP ${response.status}`);
  return (await response.json()) as Json;
}

/** A title without its host numbers: recurrences happen on other hosts. */
const titleKey = (title: unknown) => String(title).replace(/\d+/g, '#');

/**
 * The incidents that happened before `incident`, from the platform's own records: resolved ones on
 * its service with the same title, whose notes say what fixed them.
 */
async function recurrencesOf(at: Account, incident: Json): Promise<{ id: string; fix: string; resolvedBy: string }[]> {
  const serviceId = String((incident.service as Json).id);
  const listed = (await platform(at, `/incidents?date_range=all&limit=100&statuses[]=resolved&service_ids[]=${serviceId}`)).incidents as Json[];
  const found = [];
  for (const past of listed.filter((p) => titleKey(p.title) === titleKey(incident.title) && Date.parse(String(p.created_at)) < Date.parse(String(incident.created_at)))) {
    const notes = (await platform(at, `/incidents/${String(past.id)}/notes`)).notes as Json[];
    const fix = notes.map((n) => String(n.content)).find((content) => content.startsWith('Fixed:'));
    if (fix) found.push({ id: String(past.id), fix, resolvedBy: String((past.last_status_change_by as Json).id) });
  }
  return found;
}

/** The seeded incidents that recur: those with earlier incidents of the same title fixed in a note. */
async function recurringIncidents(at: Account): Promise<Json[]> {
  const newest = ((await platform(at, '/incidents?date_range=all&limit=100&sort_by=created_at:desc')).incidents as Json[]).slice(0, 40);
  const recurring = [];
  for (const incident of newest) if ((await recurrencesOf(at, incident)).length >= 3) recurring.push(incident);
  return recurring;
}

function assertFound(data: Json, expected: { id: string; fix: string; resolvedBy: string }[]): void {
  const shown = data.incidents as Json[];
  for (const past of expected) {
    const entry = shown.find((s) => String(s.incident).includes(`(${past.id})`));
    assert.ok(entry, `${past.id} is among ${JSON.stringify(shown.map((s) => s.incident))}`);
    assert.ok((entry.last_notes as string[]).some((line) => line.includes(past.fix)), `${past.id}'s fix: ${JSON.stringify(entry.last_notes)}`);
    assert.match(String(entry.resolved_by), new RegExp(`\\(${past.resolvedBy}\\)$`));
    assert.match(String(entry.resolved_in), /^\d+(m|h \d+m|d \d+h)$/);
  }
}

describe('IncidentOps.FindSimilarIncidents: has this happened before?', () => {
  let full: Account;
  before(async () => {
    full = await account();
  });
  after(() => full.sandbox.close());

  it("answers with the seeded recurrences and what fixed them, from the platform's past incidents", async () => {
    const recurring = await recurringIncidents(full);
    assert.ok(recurring.length >= 2, `incidents that recur: ${recurring.length}`);
    for (const incident of recurring) {
      const expected = await recurrencesOf(full, incident);
      const result = await callRecorded(full.sandbox, full.server, 'IncidentOps.FindSimilarIncidents', { incident_id: `#${String(incident.incident_number)}`, limit: 10 });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      assertFound(result.data, expected);
      assert.match(String(result.data.ranked_by), /past_incidents/);
      assert.ok(result.sent.some((r) => r.path.endsWith(`/incidents/${String(incident.id)}/past_incidents`)));
      assert.ok(!result.sent.some((r) => r.path.endsWith('/incidents')), 'no walk of the list when the platform answers');
      assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
    }
  });

  it('finds them from a text too, ranked here over every service', async () => {
    const [incident] = await recurringIncidents(full);
    assert.ok(incident);
    const expected = await recurrencesOf(full, incident);
    const result = await callRecorded(full.sandbox, full.server, 'IncidentOps.FindSimilarIncidents', { text: String(incident.title), limit: 10 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assertFound(result.data, expected);
    assert.match(String(result.data.ranked_by), /all resolved incidents/);
    assert.ok(!result.sent.some((r) => r.path.endsWith('/past_incidents')));
  });

  it('refuses bad input naming the parameter, and sends nothing', async () => {
    for (const [args, parameter, problem] of [
      [{}, 'incident_id', /exactly one of incident_id, text/],
      [{ incident_id: '1', text: 'disk' }, 'text', /both/],
      [{ text: 'disk', window_days: 400 }, 'window_days', /180/],
      [{ text: 'disk', limit: 0 }, 'limit', /1/],
    ] as const) {
      const result = await callRecorded(full.sandbox, full.server, 'IncidentOps.FindSimilarIncidents', args);
      assert.equal(result.isError, true);
      const issue = (result.data.issues as { parameter: string; problem: string }[]).find((i) => i.parameter === parameter);
      assert.ok(issue, JSON.stringify(result.data));
      assert.match(issue.problem, problem);
      assert.deepEqual(result.sent, []);
    }
  });
});

describe('plans without past and related incidents or change events (402, 403, 404)', () => {
  for (const status of [402, 403, 404] as const) {
    it(`HTTP ${status}: similar incidents are ranked here, and GetIncidentContext notes what it could not read`, async () => {
      const lacking = await account({ without: ALL_FEATURES, status });
      const full = await account();
      try {
        for (const incident of await recurringIncidents(full)) {
          const expected = await recurrencesOf(full, incident);
          const result = await callRecorded(lacking.sandbox, lacking.server, 'IncidentOps.FindSimilarIncidents', { incident_id: String(incident.id), limit: 10 });
          assert.equal(result.isError, false, JSON.stringify(result.data));
          assertFound(result.data, expected);
          assert.match(String(result.data.note), new RegExp(`not available to this account \\(HTTP ${status}\\)`));
          assert.match(String(result.data.ranked_by), /words shared/);
          assert.ok(result.sent.some((r) => r.path.endsWith('/incidents')), 'the service list was walked');
          assert.ok(result.sent.length <= 5 + 10 + 2 * 12, `${result.sent.length} requests, within the budget (notes and alerts of 12 candidates)`);
        }
        const [incident] = (await platform(lacking, '/incidents?limit=1&statuses[]=triggered')).incidents as Json[];
        assert.ok(incident);
        const context = await callRecorded(lacking.sandbox, lacking.server, 'IncidentOps.GetIncidentContext', { incident_id: String(incident.id) });
        assert.equal(context.isError, false, JSON.stringify(context.data));
        assert.deepEqual(context.data.changes, [`Related change events: not available to this account (HTTP ${status}).`]);
        const open = context.data.other_open as string[];
        assert.match(String(open[0]), /Related incidents: not available .* Open incidents of its service instead\./);
        // Independently: the service's other open incidents.
        const serviceId = String((incident.service as Json).id);
        const others = ((await platform(lacking, `/incidents?date_range=all&limit=100&service_ids[]=${serviceId}&statuses[]=triggered&statuses[]=acknowledged`)).incidents as Json[]).filter((o) => o.id !== incident.id);
        for (const other of others.slice(0, 5)) assert.ok(open.some((line) => line.includes(`(${String(other.id)})`)), `${String(other.id)} in ${JSON.stringify(open)}`);
      } finally {
        await lacking.sandbox.close();
        await full.sandbox.close();
      }
    });
  }
});

describe('GetIncidentContext: what changed and what else is open', () => {
  it("lists the platform's related change events and the related incidents still open", async () => {
    const at = await account();
    try {
      const incidents = ((await platform(at, '/incidents?date_range=all&limit=100&sort_by=created_at:desc')).incidents as Json[]).slice(0, 10);
      let withChanges = 0;
      for (const incident of incidents) {
        const id = String(incident.id);
        const changes = (await platform(at, `/incidents/${id}/related_change_events?limit=5`)).change_events as Json[];
        const related = ((await platform(at, `/incidents/${id}/related_incidents?additional_details[]=incident`)).related_incidents as Json[]).map((r) => r.incident as Json);
        const result = await callRecorded(at.sandbox, at.server, 'IncidentOps.GetIncidentContext', { incident_id: id });
        assert.equal(result.isError, false, JSON.stringify(result.data));
        const lines = result.data.changes as string[];
        changes.forEach((change, i) => assert.ok(String(lines[i]).startsWith(`${String(change.timestamp)} ${JSON.stringify(change.summary)}`), `${String(lines[i])}`));
        if (changes.length > 0) withChanges++;
        const open = related.filter((r) => r.status === 'triggered' || r.status === 'acknowledged');
        const shown = result.data.other_open as string[];
        assert.equal(shown.filter((line) => !line.startsWith('…')).length, Math.min(5, open.length));
        open.slice(0, 5).forEach((r, i) => assert.ok(String(shown[i]).includes(`(${String(r.id)}), ${String(r.status)}`), String(shown[i])));
        assert.ok(result.sent.length <= 31, `${result.sent.length} requests, within its budget`);
      }
      assert.ok(withChanges >= 3, `incidents with related changes: ${withChanges}`);
    } finally {
      await at.sandbox.close();
    }
  });
});

describe('the requests and the sandbox answers conform to the official spec', { skip: skipUnlessReference(SPEC) }, () => {
  it('validates every request of both tools, on both plans, and the answers of the new endpoints', async () => {
    const validator = loadOpenApi(loadReferenceJson(SPEC));
    for (const plan of [undefined, { without: ALL_FEATURES }]) {
      const at = await account(plan);
      try {
        at.sandbox.clearRequests();
        const [incident] = (await platform(at, '/incidents?limit=1&statuses[]=triggered')).incidents as Json[];
        const id = String(incident?.id);
        for (const args of [{ incident_id: id }, { text: 'disk usage', service_id: 'Kubernetes Platform', window_days: 30 }]) {
          assert.equal((await callTool(at.server, 'IncidentOps.FindSimilarIncidents', args)).isError, false);
        }
        assert.equal((await callTool(at.server, 'IncidentOps.GetIncidentContext', { incident_id: id })).isError, false);
        for (const request of at.sandbox.requests) {
          const errors = validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers });
          assert.deepEqual(errors, [], `${request.method} ${request.path}?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}`);
        }
        if (plan) continue;
        for (const endpoint of [`/incidents/${id}/past_incidents?limit=10&total=true`, `/incidents/${id}/related_incidents`, `/incidents/${id}/related_incidents?additional_details[]=incident`, `/incidents/${id}/related_change_events?limit=3`]) {
          const body = await platform(at, endpoint);
          assert.deepEqual(validator.validateResponse('GET', endpoint.split('?')[0] as string, 200, body), [], endpoint);
        }
      } finally {
        await at.sandbox.close();
      }
    }
  });
});

describe('cost: "Has this happened before?" with the contract tools vs FindSimilarIncidents (tokens of the results, o200k_base)', () => {
  const tokensOf = (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);

  it('costs well under half, and docs/tasks.md and the README give the measured figures', async () => {
    const at = await account();
    try {
      const [incident] = await recurringIncidents(at);
      assert.ok(incident);
      // Contract plan: the incident, its service's resolved incidents over six months (the largest
      // pages), then each same-titled one (the agent compares titles itself) and its log entries,
      // the only place its notes are: ListLogEntries over its lifetime.
      const contract: ToolOutcome[] = [await callTool(at.server, 'IncidentOps.GetIncident', { incident_id: String(incident.incident_number) })];
      const since = new Date(PINNED.getTime() - 180 * 86_400_000).toISOString();
      const listed: Json[] = [];
      for (let offset = 0, more = true; more; offset += 50) {
        const page = await callTool(at.server, 'IncidentOps.ListIncidents', { service_ids: [String((incident.service as Json).id)], status: 'resolved', since, until: PINNED.toISOString(), limit: 50, offset });
        contract.push(page);
        listed.push(...(page.data.incidents as Json[]));
        more = page.data.more === true;
      }
      for (const past of listed.filter((p) => titleKey(p.title) === titleKey(incident.title)).slice(0, 5)) {
        const until = new Date(Date.parse(String(past.resolved_at)) + 1000).toISOString();
        contract.push(await callTool(at.server, 'IncidentOps.ListLogEntries', { since: String(past.created_at), until, is_overview: true, limit: 50 }));
      }
      const task = await callTool(at.server, 'IncidentOps.FindSimilarIncidents', { incident_id: String(incident.incident_number) });
      for (const outcome of [...contract, task]) assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
      const perCall = await Promise.all(contract.map(tokensOf));
      const figure = { number: incident.incident_number, contractCalls: contract.length, contractTokens: perCall.reduce((a, b) => a + b, 0), taskTokens: await tokensOf(task) };
      console.error(`task cost (docs/tasks.md): ${JSON.stringify(figure)} per call: ${JSON.stringify(perCall)}`);
      assert.ok(figure.taskTokens < 0.45 * figure.contractTokens, JSON.stringify(figure));
      const n = (value: number) => value.toLocaleString('en-US');
      const contractPart = `${figure.contractCalls} calls, ${n(figure.contractTokens)} tokens`;
      const taskPart = `1 call, ${n(figure.taskTokens)} tokens`;
      const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const tasksPage = readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8');
      assert.ok(new RegExp(`\\| ${contractPart}[^|]*\\| \`FindSimilarIncidents\`: ${taskPart} \\|`).test(readme), `README: the row gives ${contractPart} and ${taskPart}`);
      assert.ok(new RegExp(`\\| ${contractPart}:[^|]*\\| ${taskPart}: \`FindSimilarIncidents\``).test(tasksPage), `docs/tasks.md: the row gives ${contractPart} and ${taskPart}`);
      assert.ok(readme.includes(`incident ${String(figure.number)} happened before?`) && tasksPage.includes(`incident ${String(figure.number)} happened before?`), 'both name the measured incident');
    } finally {
      await at.sandbox.close();
    }
  });
});
