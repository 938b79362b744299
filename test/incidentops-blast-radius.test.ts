/**
 * "What depends on the broken service, and what is open there?" (GetIncidentContext's
 * depends_on / depended_on_by), against the sandbox: the lines checked against the dependency
 * graph and the open incidents read over raw HTTP here (names, counts, the most urgent incident,
 * the order and the bound computed independently); every request and the sandbox's dependency
 * answers checked against the official spec; a plan without the endpoints gets one line and the
 * rest of the answer; the cost against the contract's best plan. Forged names: test/line-forgery.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countTokens } from '../src/core/tools/context-size.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, startTestSandbox, type ToolOutcome, incidentOpsRaw } from './support/harness.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;
const SPEC = 'pagerduty-openapi.json';
const PINNED = new Date('2026-05-06T12:00:00Z');
const SHOWN = 6;

interface Account {
  sandbox: RunningSandbox;
  server: AnyToolServer;
}

async function account(plan?: { without: ['service_dependencies']; status: 403 | 404 }): Promise<Account> {
  const sandbox = await startTestSandbox({ incidentops: { now: () => PINNED, ...(plan ? { plan } : {}) } });
  return { sandbox, server: incidentOpsServerFor(sandbox, { now: () => PINNED }) };
}

const raw = ({ sandbox }: Account, path: string) => incidentOpsRaw(sandbox, path) as Promise<{ status: number; body: Json }>;

async function platform(at: Account, path: string): Promise<Json> {
  const { status, body } = await raw(at, path);
  assert.equal(status, 200, `${path}: HTTP ${status}`);
  return body;
}

async function openIncidents(at: Account): Promise<Json[]> {
  const all: Json[] = [];
  for (let offset = 0, more = true; more; offset += 100) {
    const page = await platform(at, `/incidents?date_range=all&limit=100&offset=${offset}&statuses[]=triggered&statuses[]=acknowledged`);
    all.push(...(page.incidents as Json[]));
    more = page.more === true;
  }
  return all;
}

interface Expected {
  id: string;
  name: string;
  business: boolean;
  open: Json[];
}

/** What each direction should show, from the graph and the open incidents, ordered as the answer promises. */
async function expectedAround(at: Account, serviceId: string): Promise<{ dependsOn: Expected[]; dependedOnBy: Expected[] }> {
  const relationships = (await platform(at, `/service_dependencies/technical_services/${serviceId}`)).relationships as Json[];
  const names = new Map<string, string>();
  for (const s of (await platform(at, '/services?limit=100')).services as Json[]) names.set(String(s.id), String(s.name));
  for (const b of (await platform(at, '/business_services?limit=100')).business_services as Json[]) names.set(String(b.id), String(b.name));
  const open = await openIncidents(at);
  const entry = (ref: Json): Expected => {
    const id = String(ref.id);
    const business = ref.type === 'business_service_reference';
    return { id, name: names.get(id) ?? id, business, open: business ? [] : open.filter((i) => (i.service as Json).id === id) };
  };
  const order = (a: Expected, b: Expected) => b.open.length - a.open.length || Number(a.business) - Number(b.business) || a.name.localeCompare(b.name);
  const side = (mine: 'dependent_service' | 'supporting_service', theirs: 'dependent_service' | 'supporting_service') =>
    relationships.filter((r) => (r[mine] as Json).id === serviceId).map((r) => entry(r[theirs] as Json)).sort(order);
  return { dependsOn: side('dependent_service', 'supporting_service'), dependedOnBy: side('supporting_service', 'dependent_service') };
}

/** The most urgent of a service's open incidents: high before low, triggered before acknowledged, the newest. */
function mostUrgent(open: Json[]): Json {
  const rank = (i: Json) => (i.urgency === 'high' ? 0 : 2) + (i.status === 'triggered' ? 0 : 1);
  return open.slice().sort((a, b) => rank(a) - rank(b) || Date.parse(String(b.created_at)) - Date.parse(String(a.created_at)))[0] as Json;
}

function assertSide(lines: string[], expected: Expected[], where: string): void {
  const shown = expected.slice(0, SHOWN);
  assert.equal(lines.length, shown.length + (expected.length > SHOWN ? 1 : 0), `${where}: ${JSON.stringify(lines)}`);
  shown.forEach((service, i) => {
    const line = String(lines[i]);
    assert.ok(line.startsWith(`${service.name} (${service.id}): `), `${where}[${i}]: ${line}`);
    if (service.business) assert.ok(line.endsWith(': business service'), line);
    else if (service.open.length === 0) assert.ok(line.endsWith(': nothing open'), line);
    else {
      const top = mostUrgent(service.open);
      assert.ok(line.endsWith(`: ${service.open.length} open, most urgent #${String(top.incident_number)}, ${String(top.urgency)}, ${String(top.status)}`), line);
    }
  });
  if (expected.length > SHOWN) {
    const rest = expected.slice(SHOWN);
    const withOpen = rest.filter((s) => s.open.length > 0).length;
    assert.equal(lines.at(-1), `… and ${rest.length} more${withOpen ? ` (${withOpen} with open incidents)` : ''}`);
  }
}

describe('GetIncidentContext: the services around the incident, and what is open there', () => {
  let at: Account;
  before(async () => {
    at = await account();
  });
  after(() => at.sandbox.close());

  it('names what its service depends on and what depends on it, with the open incidents of each, for every open incident', async () => {
    const open = await openIncidents(at);
    assert.ok(open.length >= 8, `open incidents: ${open.length}`);
    let withOpenNeighbours = 0;
    for (const incident of open) {
      const serviceId = String((incident.service as Json).id);
      const expected = await expectedAround(at, serviceId);
      const result = await callRecorded(at.sandbox, at.server, 'IncidentOps.GetIncidentContext', { incident_id: String(incident.id) });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      assertSide(result.data.depends_on as string[], expected.dependsOn, `#${String(incident.incident_number)} depends_on`);
      assertSide(result.data.depended_on_by as string[], expected.dependedOnBy, `#${String(incident.incident_number)} depended_on_by`);
      if ([...expected.dependsOn, ...expected.dependedOnBy].some((s) => s.open.length > 0)) withOpenNeighbours++;
      // Few requests: the dependencies once, one list of open incidents, a page of each kind of name.
      const around = result.sent.filter((r) => r.path.includes('/service_dependencies/') || r.path.endsWith('/services') || r.path.endsWith('/business_services'));
      assert.equal(result.sent.filter((r) => r.path.includes('/service_dependencies/')).length, 1);
      assert.ok(around.length <= 3, JSON.stringify(around.map((r) => r.path)));
      assert.ok(result.sent.length <= 31, `${result.sent.length} requests, within its budget`);
      assert.deepEqual(new Set(result.sent.map((r) => r.method)), new Set(['GET']));
      assert.equal(result.data.partial, undefined);
    }
    assert.ok(withOpenNeighbours >= 5, `incidents with open work next door: ${withOpenNeighbours}`);
  });

  it('bounds each side: a service with many dependents lists 6 and says how many more', async () => {
    const services = (await platform(at, '/services?limit=100')).services as Json[];
    const counts = await Promise.all(services.map(async (s) => ({ s, n: ((await platform(at, `/service_dependencies/technical_services/${String(s.id)}`)).relationships as Json[]).filter((r) => (r.supporting_service as Json).id === s.id).length })));
    const busiest = counts.sort((a, b) => b.n - a.n)[0];
    assert.ok(busiest && busiest.n > SHOWN, `the busiest service has ${busiest?.n} dependents`);
    const [incident] = (await platform(at, `/incidents?date_range=all&limit=1&service_ids[]=${String(busiest.s.id)}`)).incidents as Json[];
    assert.ok(incident);
    const result = await callTool(at.server, 'IncidentOps.GetIncidentContext', { incident_id: String(incident.id) });
    const lines = result.data.depended_on_by as string[];
    assert.equal(lines.length, SHOWN + 1);
    assert.match(String(lines.at(-1)), new RegExp(`^… and ${busiest.n - SHOWN} more`));
  });
});

describe('a plan without service dependencies', () => {
  for (const status of [403, 404] as const) {
    it(`answering ${status}: one line, and the rest of the answer`, async () => {
      const lacking = await account({ without: ['service_dependencies'], status });
      try {
        const [incident] = (await platform(lacking, '/incidents?limit=1&statuses[]=triggered')).incidents as Json[];
        assert.ok(incident);
        assert.equal((await raw(lacking, `/service_dependencies/technical_services/${String((incident.service as Json).id)}`)).status, status);
        const result = await callTool(lacking.server, 'IncidentOps.GetIncidentContext', { incident_id: String(incident.id) });
        assert.equal(result.isError, false, JSON.stringify(result.data));
        assert.deepEqual(result.data.depends_on, [`Service dependencies: not available to this account (HTTP ${status}).`]);
        assert.deepEqual(result.data.depended_on_by, []);
        assert.equal((result.data.incident as Json).id, incident.id);
        assert.ok((result.data.timeline as string[]).length > 0);
        assert.ok((result.data.on_call_now as string[]).length > 0);
        assert.equal(result.data.partial, undefined);
      } finally {
        await lacking.sandbox.close();
      }
    });
  }
});

describe('the requests and the sandbox answers conform to the official spec', { skip: skipUnlessReference(SPEC) }, () => {
  it('validates every request, and the dependency endpoints answer as the spec says (404 for an unknown service)', async () => {
    const validator = loadOpenApi(loadReferenceJson(SPEC));
    const at = await account();
    try {
      for (const incident of (await openIncidents(at)).slice(0, 4)) {
        at.sandbox.clearRequests();
        assert.equal((await callTool(at.server, 'IncidentOps.GetIncidentContext', { incident_id: String(incident.id) })).isError, false);
        for (const request of at.sandbox.requests) {
          const errors = validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers });
          assert.deepEqual(errors, [], `${request.method} ${request.path}?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}`);
        }
      }
      const services = (await platform(at, '/services?limit=100')).services as Json[];
      const business = (await platform(at, '/business_services?limit=100')).business_services as Json[];
      assert.ok(business.length >= 3);
      assert.deepEqual(validator.validateResponse('GET', '/business_services', 200, await platform(at, '/business_services?limit=100')), []);
      let relationships = 0;
      for (const [kind, list] of [['technical_services', services], ['business_services', business]] as const) {
        for (const service of list) {
          const endpoint = `/service_dependencies/${kind}/${String(service.id)}`;
          const body = await platform(at, endpoint);
          assert.deepEqual(validator.validateResponse('GET', endpoint, 200, body), [], endpoint);
          for (const r of body.relationships as Json[]) {
            assert.equal(r.type, 'service_dependency');
            const ends = [r.supporting_service, r.dependent_service] as Json[];
            assert.ok(ends.some((end) => end.id === service.id), `${endpoint}: ${JSON.stringify(r)}`);
            for (const end of ends) assert.match(String(end.type), /^(technical|business)_service_reference$/);
          }
          relationships += (body.relationships as Json[]).length;
        }
      }
      assert.ok(relationships > 20);
      // Unknown services, and a service asked for as the other kind, are not found.
      for (const endpoint of ['/service_dependencies/technical_services/PNOPE00', `/service_dependencies/business_services/${String(services[0]?.id)}`, `/service_dependencies/technical_services/${String(business[0]?.id)}`]) {
        const { status, body } = await raw(at, endpoint);
        assert.equal(status, 404, endpoint);
        assert.deepEqual(validator.validateResponse('GET', endpoint, 404, body), [], endpoint);
      }
    } finally {
      await at.sandbox.close();
    }
  });
});

describe('cost: "what depends on the broken service and what is open there?" (tokens of the results, o200k_base)', () => {
  const tokensOf = (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);

  it('is one call; the contract tools cannot read the dependencies at all', async () => {
    const at = await account();
    try {
      const [incident] = (await platform(at, '/incidents?date_range=all&limit=100&statuses[]=triggered&statuses[]=acknowledged')).incidents as Json[];
      const busiest = (await openIncidents(at)).find((i) => (i.service as Json).summary === 'Kubernetes Platform') ?? incident;
      assert.ok(busiest);
      // Contract plan: the incident, its service, and every open incident (the agent cannot tell which services are around it).
      const contract = [
        await callTool(at.server, 'IncidentOps.GetIncident', { incident_id: String(busiest.id) }),
        await callTool(at.server, 'IncidentOps.GetService', { service_id: String((busiest.service as Json).id) }),
        await callTool(at.server, 'IncidentOps.ListIncidents', { status: 'triggered', limit: 50 }),
        await callTool(at.server, 'IncidentOps.ListIncidents', { status: 'acknowledged', limit: 50 }),
      ];
      const task = await callTool(at.server, 'IncidentOps.GetIncidentContext', { incident_id: String(busiest.id) });
      for (const outcome of [...contract, task]) assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
      const perCall = await Promise.all(contract.map(tokensOf));
      const around = [...(task.data.depends_on as string[]), ...(task.data.depended_on_by as string[])];
      const figure = {
        number: busiest.incident_number,
        contractCalls: contract.length,
        contractTokens: perCall.reduce((a, b) => a + b, 0),
        taskTokens: await tokensOf(task),
        dependencyLines: around.length,
        dependencyTokens: await countTokens(JSON.stringify({ depends_on: task.data.depends_on, depended_on_by: task.data.depended_on_by })),
      };
      console.error(`task cost (docs/tasks.md): ${JSON.stringify(figure)} per call: ${JSON.stringify(perCall)}`);
      assert.ok(figure.taskTokens < figure.contractTokens, JSON.stringify(figure));
    } finally {
      await at.sandbox.close();
    }
  });
});
