/**
 * FindSimilarIncidents' text search (issue 34, point 5), against the sandbox: what people type
 * finds the incidents that mean it, in other word forms and in notes only, each answer checked
 * against the incidents, notes and alerts read over raw HTTP here (matched by meaning with
 * patterns written here, not the tool's stemmer); an empty answer says what was searched and what
 * to try; the notes and alerts read stay within the stated bound; every request against the spec.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, startTestSandbox, incidentOpsGet, type ToolOutcome } from './support/harness.js';
import { countTokens } from '../src/core/tools/context-size.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;
const SPEC = 'pagerduty-openapi.json';
const PINNED = new Date('2026-05-06T12:00:00Z');
const DAY = 86_400_000;
/** The bound docs/tasks.md states: notes and alerts of at most 12 candidates per call. */
const READS = 12;
/** The call's budget docs/tasks.md states. */
const BUDGET = 5 + 10 + 2 * READS;

let sandbox: RunningSandbox;
let server: AnyToolServer;

const platform = (path: string): Promise<Json> => incidentOpsGet(sandbox, path) as Promise<Json>;

interface Past {
  incident: Json;
  notes: string;
  alerts: string;
}

/** Every resolved incident created in the last `days` days (of one service), with its notes and alert summaries, read here. */
async function resolved(days: number, serviceId?: string): Promise<Past[]> {
  const since = new Date(PINNED.getTime() - days * DAY).toISOString();
  const out: Past[] = [];
  for (let offset = 0, more = true; more; offset += 100) {
    const page = await platform(`/incidents?since=${since}&until=${PINNED.toISOString()}&statuses[]=resolved&limit=100&offset=${offset}${serviceId ? `&service_ids[]=${serviceId}` : ''}`);
    for (const incident of page.incidents as Json[]) {
      const notes = ((await platform(`/incidents/${String(incident.id)}/notes`)).notes as Json[]).map((n) => String(n.content)).join('\n');
      const alerts = ((await platform(`/incidents/${String(incident.id)}/alerts?limit=100`)).alerts as Json[]).map((a) => String(a.summary)).join('\n');
      out.push({ incident, notes, alerts });
    }
    more = page.more === true;
  }
  return out;
}

async function serviceNamed(name: string): Promise<Json> {
  const service = ((await platform('/services?limit=100')).services as Json[]).find((s) => s.name === name);
  assert.ok(service, name);
  return service;
}

const search = (args: Json) => callRecorded(sandbox, server, 'IncidentOps.FindSimilarIncidents', args);
const shownIds = (data: Json) => (data.incidents as Json[]).map((entry) => /\((P[A-Z0-9]+)\)(, \w+)?$/.exec(String(entry.incident))?.[1]);
const idOf = (past: Past) => String(past.incident.id);

/** Requests the call sent, by kind: the candidates' notes and alerts. */
function reads(sent: RunningSandbox['requests']): { notes: number; alerts: number; all: number } {
  return { notes: sent.filter((r) => /\/incidents\/[^/]+\/notes$/.test(r.path)).length, alerts: sent.filter((r) => /\/incidents\/[^/]+\/alerts$/.test(r.path)).length, all: sent.length };
}

before(async () => {
  sandbox = await startTestSandbox({ incidentops: { now: () => PINNED } });
  server = incidentOpsServerFor(sandbox, { now: () => PINNED });
});
after(() => sandbox.close());

describe('IncidentOps.FindSimilarIncidents: a text finds what people mean', () => {
  it('"TLS certificate expiring on checkout" finds the incident of that title first', async () => {
    const all = await resolved(180);
    const meant = all.filter((p) => /TLS certificate expir\w* on checkout/i.test(String(p.incident.title)));
    assert.equal(meant.length, 1, 'the sandbox holds one');
    const result = await search({ text: 'TLS certificate expiring on checkout' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(shownIds(result.data)[0], idOf(meant[0] as Past), JSON.stringify(result.data.incidents));
    // Its notes say what fixed it.
    const first = (result.data.incidents as Json[])[0] as Json;
    assert.ok((first.last_notes as string[]).some((line) => line.includes('renewed the certificate')), JSON.stringify(first.last_notes));
    assert.match(String(result.data.ranked_by), /all resolved incidents/);
    assert.match(String(result.data.ranked_by), new RegExp(`over ${all.length} of all resolved incidents created in the last 180 days`));
  });

  it('"certificate expired" finds incidents whose titles say it in another form', async () => {
    const all = await resolved(180);
    const certificateExpiry = (text: string) => /certificate/i.test(text) && /\bexpir(e|es|ed|ing|y)\b/i.test(text);
    const titled = all.filter((p) => certificateExpiry(String(p.incident.title)));
    assert.ok(titled.length >= 2, `titles about an expiring certificate: ${titled.length}`);
    const result = await search({ text: 'certificate expired', limit: 10 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const shown = shownIds(result.data);
    assert.ok(shown.length > 0, JSON.stringify(result.data));
    // The best ones are those titles, and nothing shown is unrelated.
    for (const id of shown.slice(0, Math.min(titled.length, 10))) assert.ok(titled.some((p) => idOf(p) === id), `${String(id)} is one of the titled ones`);
    for (const id of shown) {
      const past = all.find((p) => idOf(p) === id) as Past;
      assert.ok(/certificate|expir/i.test(`${String(past.incident.title)} ${past.notes} ${past.alerts}`), `${String(id)} speaks of certificates or expiry`);
    }
  });

  it('"connection pool leak" finds the exhausted pool that was leaking connections, first', async () => {
    const all = await resolved(180);
    const meant = all.filter((p) => /connection pool/i.test(String(p.incident.title)) && /leak\w* connections/i.test(p.notes));
    assert.equal(meant.length, 1);
    const result = await search({ text: 'connection pool leak' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(shownIds(result.data)[0], idOf(meant[0] as Past), JSON.stringify(result.data.incidents));
  });

  it('word forms: "expiring", "expired" and "expiry" find the same incidents', async () => {
    const mobile = await serviceNamed('Mobile Backend');
    const ofMobile = await resolved(180, String(mobile.id));
    assert.ok(ofMobile.length <= READS, `all ${ofMobile.length} of the service's incidents are read`);
    // Only its notes say it: "expiry of the ... signing certificate".
    const meant = ofMobile.filter((p) => /expiry of .*certificate/i.test(p.notes) && !/certificate|expir/i.test(String(p.incident.title)));
    assert.equal(meant.length, 1);
    for (const text of ['certificate expiring', 'certificate expired', 'certificate expiry', 'expired certificates']) {
      const result = await search({ text, service_id: 'Mobile Backend' });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      assert.ok(shownIds(result.data).includes(idOf(meant[0] as Past)), `${text}: ${JSON.stringify(result.data.incidents)}`);
    }
  });

  it('a match in the notes only: "connection pool leak" on Push Notifications', async () => {
    const push = await serviceNamed('Push Notifications');
    const ofPush = await resolved(180, String(push.id));
    assert.ok(ofPush.length <= READS, `all ${ofPush.length} of the service's incidents are read`);
    const meant = ofPush.filter((p) => /pool .*leak\w* connections/i.test(p.notes) && !/connection|pool|leak/i.test(`${String(p.incident.title)} ${p.alerts}`));
    assert.equal(meant.length, 1);
    const result = await search({ text: 'connection pool leak', service_id: 'Push Notifications' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(shownIds(result.data), [idOf(meant[0] as Past)], JSON.stringify(result.data));
    // The service is named in ranked_by, not only its ID.
    assert.ok(String(result.data.ranked_by).includes(`the resolved incidents of Push Notifications (${String(push.id)})`), String(result.data.ranked_by));
    assert.equal(reads(result.sent).notes, ofPush.length);
  });

  it('an empty answer says what was searched and what to try', async () => {
    const support = await serviceNamed('Support Portal');
    const searched = await resolved(30, String(support.id));
    assert.ok(searched.length > 0);
    const result = await search({ text: 'quasar flux capacitor', service_id: 'Support Portal', window_days: 30 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(result.data.incidents, []);
    const note = String(result.data.note);
    assert.ok(
      note.includes(`searched the titles and service names of ${searched.length} of the resolved incidents of Support Portal (${String(support.id)}) created in the last 30 days, and the notes and alert summaries of ${Math.min(READS, searched.length)} of them.`),
      note,
    );
    assert.ok(note.includes('Try a wider window_days (up to 180), or other words'), note);
    assert.ok(note.includes('or no service_id'), note);
    // At the widest window and over every service, those two are not suggested.
    const wide = await search({ text: 'quasar flux capacitor' });
    assert.deepEqual(wide.data.incidents, []);
    assert.ok(!/window_days|service_id/.test(String(wide.data.note)) && /Try other words/.test(String(wide.data.note)), String(wide.data.note));
  });

  it('reads notes and alerts of at most 12 candidates, within the call budget', async () => {
    const all = await resolved(180);
    assert.ok(all.length > READS, `${all.length} candidates, more than the bound`);
    for (const args of [{ text: 'connection pool leak' }, { text: 'certificate expired', limit: 10 }, { text: 'disk usage', limit: 1 }]) {
      const result = await search(args);
      assert.equal(result.isError, false);
      const sent = reads(result.sent);
      assert.equal(sent.notes, READS, JSON.stringify(sent));
      assert.equal(sent.alerts, READS, JSON.stringify(sent));
      assert.ok(sent.all <= BUDGET, JSON.stringify(sent));
      assert.match(String(result.data.ranked_by), new RegExp(`notes and alerts read for ${READS} \\(the best ${String(args.limit ?? 5)} by title, then the newest\\)`));
      assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
    }
  });
});

describe('cost: "Have we had a connection pool leak before?" with the contract tools vs FindSimilarIncidents (tokens of the results, o200k_base)', () => {
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  const tokensOf = (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);

  it('costs well under half, and docs/tasks.md gives the measured figures', async () => {
    // Contract plan: every resolved incident of six months (the largest pages), then the agent picks
    // those whose titles share a word with the question and reads their notes, which only the log
    // feed holds: ListLogEntries over each one's lifetime (at most 5). Notes of the others stay unread.
    const since = new Date(PINNED.getTime() - 180 * DAY).toISOString();
    const contract: ToolOutcome[] = [];
    const listed: Json[] = [];
    for (let offset = 0, more = true; more; offset += 50) {
      const page = await callTool(server, 'IncidentOps.ListIncidents', { status: 'resolved', since, until: PINNED.toISOString(), limit: 50, offset });
      contract.push(page);
      listed.push(...(page.data.incidents as Json[]));
      more = page.data.more === true;
    }
    const words = ['connection', 'pool', 'leak'];
    for (const past of listed.filter((p) => words.some((word) => String(p.title).toLowerCase().includes(word))).slice(0, 5)) {
      const until = new Date(Date.parse(String(past.resolved_at)) + 1000).toISOString();
      contract.push(await callTool(server, 'IncidentOps.ListLogEntries', { since: String(past.created_at), until, is_overview: true, limit: 50 }));
    }
    const task = await callTool(server, 'IncidentOps.FindSimilarIncidents', { text: 'connection pool leak' });
    for (const outcome of [...contract, task]) assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
    const perCall = await Promise.all(contract.map(tokensOf));
    const figure = { contractCalls: contract.length, contractTokens: perCall.reduce((a, b) => a + b, 0), taskTokens: await tokensOf(task) };
    console.error(`task cost (docs/tasks.md): ${JSON.stringify(figure)} per call: ${JSON.stringify(perCall)}`);
    assert.ok(figure.taskTokens < 0.45 * figure.contractTokens, JSON.stringify(figure));
    const n = (value: number) => value.toLocaleString('en-US');
    const row = new RegExp(`\\| "Have we had a connection pool leak before\\?"[^|]*\\| ${figure.contractCalls} calls, ${n(figure.contractTokens)} tokens:[^|]*\\| 1 call, ${n(figure.taskTokens)} tokens: \`FindSimilarIncidents\``);
    assert.ok(row.test(readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8')), `docs/tasks.md: the row gives ${figure.contractCalls} calls, ${n(figure.contractTokens)} tokens and 1 call, ${n(figure.taskTokens)} tokens`);
  });
});

describe('the requests conform to the official spec', { skip: skipUnlessReference(SPEC) }, () => {
  it('validates every request of a text search, with and without a service', async () => {
    const validator = loadOpenApi(loadReferenceJson(SPEC));
    for (const args of [{ text: 'TLS certificate expiring on checkout' }, { text: 'connection pool leak', service_id: 'Push Notifications', window_days: 180 }]) {
      const result = await search(args);
      assert.equal(result.isError, false);
      for (const request of result.sent) {
        const errors = validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers });
        assert.deepEqual(errors, [], `${request.method} ${request.path}?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}`);
      }
    }
  });
});
