/**
 * Edge cases of the task tools found by reading the change as an attacker and an odd platform
 * would try it: input whose cost grows faster than its size, a platform that answers part of a
 * question badly, and data with holes. Each fails on the code before its fix.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressesIn } from '../src/canvasapi/invite-allowlist.js';
import { MermaidError, parseMermaid } from '../src/canvasapi/tasks/mermaid.js';
import { uncovered } from '../src/incidentops/tasks/oncall-coverage.js';
import { callTool, incidentOpsServerFor, jsonResponse, scriptedFetch } from './support/harness.js';

type Json = Record<string, unknown>;
const BASE = 'https://incidents.example.test';

function incidentOps(answer: Parameters<typeof scriptedFetch>[0]) {
  const scripted = scriptedFetch(answer);
  return { ...scripted, server: incidentOpsServerFor(undefined, { baseUrl: BASE, accessToken: 'incident-token-0123456789', fetch: scripted.fetch, now: () => new Date('2026-05-06T12:00:00Z') }) };
}

const incident = (id: string, title: string, extra: Json = {}): Json => ({
  id,
  incident_number: Number(id.replace(/\D/g, '') || 1),
  title,
  status: 'resolved',
  created_at: '2026-04-01T10:00:00Z',
  resolved_at: '2026-04-01T11:00:00Z',
  service: { id: 'PS1', summary: 'Checkout', type: 'service_reference' },
  escalation_policy: { id: 'PEP1', summary: 'Ops', type: 'escalation_policy_reference' },
  ...extra,
});

/** Throws the parse's own error, or returns its problems' text. */
function mermaidProblems(source: string): string {
  try {
    parseMermaid(source);
    return '';
  } catch (error) {
    if (error instanceof MermaidError) return error.message;
    throw error;
  }
}

describe('task tools: edge cases', () => {
  it('Mermaid "&" groups are refused before their pairs are made, with the line', () => {
    const side = Array.from({ length: 3000 }, () => 'a').join(' & ');
    const problems = mermaidProblems(`flowchart TD\n${side} --> ${side}\n`);
    assert.match(problems, /line 2: more than 400 edges/);
    // The pairs a group of 20 by 20 makes are exactly the limit's business: 400 are fine.
    const twenty = Array.from({ length: 20 }, (_, i) => `n${i}`).join(' & ');
    const twentyOther = Array.from({ length: 20 }, (_, i) => `m${i}`).join(' & ');
    assert.equal(mermaidProblems(`flowchart TD\n${twenty} --> ${twentyOther}\n`), '');
  });

  it('a Mermaid direction is one of the five, never a name every object has', () => {
    for (const direction of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      assert.match(mermaidProblems(`flowchart ${direction}\nA --> B\n`), /line 1: "[^"]+" is not a direction/, direction);
    }
  });

  it('reads an address whose domain is a megabyte of dots in linear time', { timeout: 20_000 }, () => {
    const domain = `${'.'.repeat(1_000_000)}x`;
    assert.deepEqual(addressesIn(`eve@${domain}`), [`eve@${domain}`]);
    assert.deepEqual(addressesIn('write to eve@evil.example.'), ['eve@evil.example'], 'a sentence\'s full stop is not the domain\'s');
  });

  it('coverage: a shift with an end it cannot read hides no later gap', () => {
    const hour = 3_600_000;
    const gaps = uncovered([{ start: 0, end: Number.NaN }, { start: 0, end: 2 * hour }, { start: 4 * hour, end: 6 * hour }], 0, 8 * hour);
    assert.deepEqual(gaps, [{ start: 2 * hour, end: 4 * hour }, { start: 6 * hour, end: 8 * hour }]);
  });

  it('FindSimilarIncidents: a past incident this account may not read is left out, not taken for a plan without the feature', async () => {
    const { server, calls } = incidentOps((url) => {
      const path = url.pathname;
      if (path === '/incidents/PI9') return jsonResponse(200, { incident: incident('PI9', 'Checkout latency high', { status: 'triggered', created_at: '2026-05-06T11:00:00Z', resolved_at: null }) });
      if (path === '/incidents/PI9/past_incidents') {
        return jsonResponse(200, { past_incidents: [{ incident: { id: 'PI1', created_at: '2026-04-01T10:00:00Z', self: '', title: 'Checkout latency high' }, score: 91 }, { incident: { id: 'PI2', created_at: '2026-04-02T10:00:00Z', self: '', title: 'Checkout latency high' }, score: 80 }], limit: 5, total: 2 });
      }
      if (path === '/incidents/PI2') return jsonResponse(403, { error: { code: 2010, message: 'Access Denied' } });
      if (path === '/incidents/PI1') return jsonResponse(200, { incident: incident('PI1', 'Checkout latency high') });
      if (path.endsWith('/notes')) return jsonResponse(200, { notes: [{ id: 'N1', content: 'Fixed: restarted the pool', created_at: '2026-04-01T11:00:00Z', user: { id: 'PU1', summary: 'Ana' } }] });
      return jsonResponse(404, { error: { code: 2100, message: 'Not Found' } });
    });
    const result = await callTool(server, 'IncidentOps.FindSimilarIncidents', { incident_id: 'PI9' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.match(String(result.data.ranked_by), /past_incidents/, 'still the platform\'s answer');
    assert.equal((result.data.incidents as Json[]).length, 1);
    assert.match(JSON.stringify(result.data.incidents), /PI1/);
    assert.match(String(result.data.note), /1 this account cannot read/);
    assert.ok(!calls.some((call) => call.url.pathname === '/incidents' && call.url.searchParams.get('statuses[]') === 'resolved'), 'no local ranking walk');
  });

  it('GetIncidentContext: related changes that fail to read are one line, and the rest of the answer stands', async () => {
    const { server } = incidentOps((url) => {
      const path = url.pathname;
      if (path === '/incidents/PI9') return jsonResponse(200, { incident: incident('PI9', 'Checkout latency high', { status: 'triggered', resolved_at: null }) });
      if (path === '/incidents/PI9/related_change_events') return jsonResponse(400, { error: { code: 2001, message: 'Invalid Input Provided' } });
      if (path === '/incidents/PI9/related_incidents') return jsonResponse(200, { related_incidents: [] });
      if (path === '/incidents/PI9/alerts') return jsonResponse(200, { alerts: [], limit: 5, offset: 0, more: false, total: 0 });
      if (path === '/incidents/PI9/notes') return jsonResponse(200, { notes: [] });
      if (path === '/incidents/PI9/log_entries') return jsonResponse(200, { log_entries: [], limit: 100, offset: 0, more: false });
      if (path === '/oncalls') return jsonResponse(200, { oncalls: [], limit: 100, offset: 0, more: false });
      return jsonResponse(404, { error: { code: 2100, message: 'Not Found' } });
    });
    const result = await callTool(server, 'IncidentOps.GetIncidentContext', { incident_id: 'PI9' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.match(JSON.stringify(result.data.changes), /could not be read this time \(bad_request\)/);
    assert.match(JSON.stringify(result.data), /Checkout latency high/);
  });
});
