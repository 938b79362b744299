/**
 * Contract: every request the IncidentOps tools send, across a broad mix of arguments,
 * conforms to the official OpenAPI document (method, path, query names and values, required headers).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, incidentOpsServerFor, startTestSandbox } from './support/harness.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;
const SPEC = 'pagerduty-openapi.json';

describe('IncidentOps requests conform to the official spec', { skip: skipUnlessReference(SPEC) }, () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;

  before(async () => {
    sandbox = await startTestSandbox();
    server = incidentOpsServerFor(sandbox);
  });
  after(() => sandbox.close());

  it('validates method, path, query and headers of every request', async () => {
    const validator = loadOpenApi(loadReferenceJson(SPEC));
    const ok = async (name: string, args: Json) => {
      const result = await callTool(server, name, args);
      assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.data)}`);
      return result.data;
    };
    const now = Date.now();
    const iso = (offsetDays: number) => new Date(now + offsetDays * 86_400_000).toISOString();

    const me = await ok('IncidentOps.WhoAmI', {});
    const teams = (await ok('IncidentOps.ListTeams', { limit: 50 })).teams as Json[];
    const services = (await ok('IncidentOps.ListServices', { limit: 50, offset: 0 })).services as Json[];
    const policies = (await ok('IncidentOps.ListEscalationPolicies', { limit: 50 })).escalation_policies as Json[];
    const schedules = (await ok('IncidentOps.ListSchedules', { limit: 50, time_zone: 'America/Los_Angeles' })).schedules as Json[];
    const incidents = (await ok('IncidentOps.ListIncidents', { limit: 50 })).incidents as Json[];
    const teamIds = teams.slice(0, 2).map((t) => t.id);

    await ok('IncidentOps.ListIncidents', { status: 'acknowledged', urgency: 'low', service_ids: [services[0]!.id], team_ids: teamIds, since: iso(-20), until: iso(0), limit: 10, offset: 10 });
    await ok('IncidentOps.ListIncidents', { since: '2026-01-01', until: '2026-02-01T03:30-07:00' });
    await ok('IncidentOps.GetIncident', { incident_id: incidents[0]!.id });
    await ok('IncidentOps.ListLogEntries', { since: iso(-7), until: iso(0), team_ids: teamIds, time_zone: 'Etc/UTC', is_overview: false, limit: 50, offset: 5 });
    await ok('IncidentOps.ListLogEntries', {});
    await ok('IncidentOps.GetEscalationPolicy', { escalation_policy_id: policies[0]!.id });
    await ok('IncidentOps.ListServices', { query: String(services[0]!.name).slice(0, 3) });
    await ok('IncidentOps.GetService', { service_id: services[0]!.id });
    await ok('IncidentOps.ListOnCalls', { schedule_ids: [schedules[0]!.id], escalation_policy_ids: [policies[0]!.id], time_zone: 'Asia/Kolkata', since: iso(1), until: iso(30), limit: 25, offset: 0 });
    await ok('IncidentOps.ListOnCalls', { team_ids: teamIds });
    await ok('IncidentOps.ListUsers', { limit: 50, offset: 50 });
    await ok('IncidentOps.SearchUsers', { query: String((me.user as Json).email), auto_accept_matches: true });
    await ok('IncidentOps.GetTeam', { team_id: teamIds[0] });
    // The task tools beyond the contract read through the same spec.
    await ok('IncidentOps.GetIncidentContext', { incident_id: incidents[0]!.id });
    await ok('IncidentOps.GetIncidentContext', { incident_id: String(incidents[1]!.incident_number) });
    await ok('IncidentOps.WhoIsOnCall', { service_id: services[0]!.id, time_zone: 'Europe/Berlin' });
    await ok('IncidentOps.WhoIsOnCall', { team_id: teamIds[0], at: iso(3) });
    await ok('IncidentOps.WhoIsOnCall', { schedule_id: schedules[0]!.id, at: '2026-12-01T09:00', time_zone: 'Asia/Tokyo' });

    const requests = sandbox.requests;
    assert.ok(requests.length >= 20, `a broad sample of requests (${requests.length})`);
    const operations = new Set<string>();
    for (const request of requests) {
      assert.equal(request.method, 'GET', `${request.path}: only GET is sent`);
      const operation = validator.findOperation(request.method, request.path);
      assert.ok(operation, `${request.method} ${request.path} is an operation of the spec`);
      operations.add(`${operation.method} ${operation.pathTemplate}`);
      const errors = validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers });
      assert.deepEqual(errors, [], `${request.method} ${request.path}?${request.query.map(([k, v]) => `${k}=${v}`).join('&')}`);
      assert.match(request.headers.authorization ?? '', /^Bearer /);
    }
    // Every endpoint the digest lists for IncidentOps was exercised.
    for (const expected of ['/users/me', '/users', '/oncalls', '/incidents', '/incidents/{id}', '/incidents/{id}/alerts', '/incidents/{id}/notes', '/incidents/{id}/log_entries', '/log_entries', '/escalation_policies', '/escalation_policies/{id}', '/services', '/services/{id}', '/schedules', '/teams', '/teams/{id}', '/teams/{id}/members']) {
      assert.ok(operations.has(`get ${expected}`), `GET ${expected} was exercised`);
    }
  });
});
