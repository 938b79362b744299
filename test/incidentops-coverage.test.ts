/**
 * WhoIsOnCall over a window (`until`): its gaps and overrides are checked against gaps and
 * overrides computed here from the sandbox's own data over raw HTTP (/oncalls, the policy's
 * levels, /schedules/{id}/overrides and the schedule's layers), never from the tool's code; every
 * request it sends is checked against the official spec; the window is bounded; and the cost of
 * "any gap in the next 48 hours for payments?" is measured against the contract's best plan.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import { countTokens } from '../src/core/tools/context-size.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, incidentOpsServerFor, startTestSandbox, type ToolOutcome } from './support/harness.js';
import { loadOpenApi } from './support/openapi.js';
import { loadReferenceJson } from './support/reference.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPEC = loadReferenceJson('pagerduty-openapi.json');
type Json = Record<string, unknown>;

/** A pinned clock: the data, the rotations and so every figure are the same on every run. */
const PINNED = new Date('2026-05-06T12:00:00Z');
const HOUR = 3_600_000;
const WINDOW = { since: PINNED.getTime(), until: PINNED.getTime() + 48 * HOUR };
const iso = (t: number) => new Date(t).toISOString();
const ms = (text: string) => DateTime.fromISO(text, { setZone: true }).toMillis();

let sandbox: RunningSandbox;
let server: AnyToolServer;

before(async () => {
  sandbox = await startTestSandbox({ incidentops: { now: () => PINNED } });
  server = incidentOpsServerFor(sandbox, { now: () => PINNED });
});
after(async () => {
  await sandbox.close();
});

async function platform(pathAndQuery: string): Promise<Json> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}${pathAndQuery}`, {
    headers: { Authorization: `Bearer ${sandbox.incidentops.token}`, Accept: 'application/vnd.pagerduty+json;version=2', 'Content-Type': 'application/json' },
  });
  assert.equal(response.status, 200, pathAndQuery);
  return (await response.json()) as Json;
}

const idOf = (value: unknown) => String((value as Json).id);

/** The answer computed from raw HTTP: per level its gaps, and each override with whom it replaces. */
async function expectedCoverage(policyId: string) {
  const range = `since=${iso(WINDOW.since)}&until=${iso(WINDOW.until)}`;
  const levels = ((await platform(`/escalation_policies/${policyId}`)).escalation_policy as Json).escalation_rules as Json[];
  const rows: Json[] = [];
  for (let offset = 0, more = true; more; offset += 100) {
    const page = await platform(`/oncalls?escalation_policy_ids[]=${policyId}&${range}&limit=100&offset=${offset}`);
    rows.push(...(page.oncalls as Json[]));
    more = page.more === true;
  }
  const gaps = levels.map((_, index) => {
    // Someone on call at this level over [since, until): a direct user (no start) covers it all.
    const covered = rows
      .filter((row) => row.escalation_level === index + 1)
      .map((row) => (row.start === null ? [WINDOW.since, WINDOW.until] : [ms(String(row.start)), ms(String(row.end))]))
      .sort((a, b) => (a[0] as number) - (b[0] as number));
    const found: [number, number][] = [];
    let reached = WINDOW.since;
    for (const [start, end] of covered as [number, number][]) {
      if (start > reached) found.push([reached, start]);
      reached = Math.max(reached, end);
    }
    if (reached < WINDOW.until) found.push([reached, WINDOW.until]);
    return found.filter(([a, b]) => a < WINDOW.until && a < b);
  });
  const overrides: string[] = [];
  for (const scheduleId of new Set(rows.filter((row) => row.schedule).map((row) => idOf(row.schedule)))) {
    for (const override of (await platform(`/schedules/${scheduleId}/overrides?${range}`)).overrides as Json[]) {
      const schedule = (await platform(`/schedules/${scheduleId}?${range}`)).schedule as Json;
      const start = ms(String(override.start));
      // Without overrides the first listed layer with someone on call decides.
      const replaced = (schedule.schedule_layers as Json[])
        .map((layer) => (layer.rendered_schedule_entries as Json[]).find((entry) => ms(String(entry.start)) <= start && start < ms(String(entry.end))))
        .find(Boolean);
      overrides.push(`${scheduleId} ${idOf(override.user)} ${start} ${ms(String(override.end))} replaces ${replaced ? idOf(replaced.user) : 'nobody'}`);
    }
  }
  return { levels: levels.length, gaps, overrides: overrides.sort() };
}

/** The tool's answer read back: gap lines as instants, flagged shift lines as override tuples. */
function answered(data: Json) {
  const policy = (data.escalation_policies as Json[])[0] as Json;
  const levels = policy.levels as { level: number; shifts: Record<string, string[]>; gaps: string[] }[];
  const gaps = levels.map((level) =>
    level.gaps.map((line) => {
      const match = /^(\S+) to (\S+) \((?:\d+ h)?(?: ?\d+ min)?\)$/.exec(line);
      assert.ok(match, line);
      return [ms(match[1] as string), ms(match[2] as string)];
    }),
  );
  const overrides = levels
    .flatMap((level) => Object.entries(level.shifts).flatMap(([schedule, lines]) => lines.map((line) => ({ schedule, line }))))
    .filter(({ line }) => line.includes(': override'))
    .map(({ schedule, line }) => {
      const match = /^(\S+) to (\S+) .+ \((\w+)\): override, replaces .+ \((\w+)\)$/.exec(line);
      assert.ok(match, line);
      return `${/\((\w+)\)$/.exec(schedule)?.[1]} ${match[3]} ${ms(match[1] as string)} ${ms(match[2] as string)} replaces ${match[4]}`;
    });
  return { levels: levels.length, gaps, overrides: [...new Set(overrides)].sort() };
}

describe('IncidentOps.WhoIsOnCall over a window (until)', () => {
  it('"any gap in the next 48 hours for payments?": the gaps and overrides the platform\'s own data gives, GET only, every request as the spec says', async () => {
    const services = (await platform('/services?query=payments')).services as Json[];
    const policyId = idOf((services[0] as Json).escalation_policy);
    const expected = await expectedCoverage(policyId);
    assert.ok(expected.gaps.flat().length >= 1, 'the sandbox has a real gap in the window');
    assert.ok(expected.overrides.length >= 1, 'and an override');

    const result = await callRecorded(sandbox, server, 'IncidentOps.WhoIsOnCall', { service_id: 'payments', until: iso(WINDOW.until) });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(answered(result.data), expected);
    assert.equal(result.data.until, iso(WINDOW.until).replace('.000Z', 'Z'));
    assert.match(String(result.data.summary), new RegExp(`^${expected.gaps.flat().length} gaps?: .+ level 1 `));

    assert.deepEqual(new Set(result.sent.map((request) => request.method)), new Set(['GET']));
    assert.equal(result.sent.filter((request) => request.path.endsWith('/oncalls')).length, 1, 'the shifts are asked for once');
    if (SPEC) {
      const validator = loadOpenApi(SPEC);
      for (const request of result.sent) {
        assert.deepEqual(validator.validateRequest({ method: request.method, path: request.path, query: request.query, headers: request.headers }), [], `${request.path}`);
      }
    }
  });

  it('a team over 14 days, in a time zone: bounded requests, every level of every policy, times shown in the zone', async () => {
    const teams = (await platform('/teams?query=payments')).teams as Json[];
    const at = '2026-05-06T08:00';
    const result = await callRecorded(sandbox, server, 'IncidentOps.WhoIsOnCall', { team_id: idOf(teams[0]), at, until: '2026-05-20T08:00', time_zone: 'Europe/London' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.ok(result.sent.length <= 2 + 2 + 1 + 50 + 50, `requests: ${result.sent.length}`);
    const policies = result.data.escalation_policies as { levels: { shifts: Record<string, string[]>; gaps: string[] }[] }[];
    assert.ok(policies.length >= 2);
    for (const level of policies.flatMap((policy) => policy.levels)) {
      for (const [schedule, lines] of Object.entries(level.shifts)) {
        for (const line of [...(schedule === 'always' ? [] : lines), ...level.gaps]) assert.match(line, /^2026-05-\d\dT\d\d:\d\d\+01:00 to 2026-05-\d\dT\d\d:\d\d\+01:00 /, line);
      }
    }
  });

  const refused: [Json, RegExp][] = [
    [{ service_id: 'payments', until: iso(WINDOW.since + 14 * 24 * HOUR + HOUR) }, /at most 14 days after at \(it is 15 days\)/],
    [{ service_id: 'payments', at: iso(WINDOW.since), until: iso(WINDOW.since - HOUR) }, /must be after at/],
    [{ service_id: 'payments', until: 'the day after tomorrow' }, /ISO 8601/],
  ];
  for (const [args, problem] of refused) {
    it(`refuses ${JSON.stringify(args)}, naming until, and sends nothing`, async () => {
      const result = await callRecorded(sandbox, server, 'IncidentOps.WhoIsOnCall', args);
      assert.equal(result.isError, true);
      assert.equal(result.data.kind, 'invalid_input');
      const issue = (result.data.issues as { parameter: string; problem: string }[]).find((i) => i.parameter === 'until');
      assert.ok(issue, JSON.stringify(result.data.issues));
      assert.match(issue.problem, problem);
      assert.deepEqual(result.sent, []);
    });
  }
});

describe('cost of "any gap in the next 48 hours for payments?" (tokens of the results, o200k_base)', () => {
  const tokensOf = (outcome: ToolOutcome) => countTokens((outcome.raw.content[0] as { text: string }).text);

  it('the task tool costs well under half of the contract plan, which cannot see overrides at all; docs/tasks.md gives these figures', async () => {
    // Contract plan: the service and its policy, then every shift of the window to find the gaps by hand.
    const services = await callTool(server, 'IncidentOps.ListServices', { query: 'payments' });
    const policyId = idOf(((services.data.services as Json[])[0] as Json).escalation_policy);
    const contract = [services];
    for (let offset = 0, more = true; more; offset += 50) {
      const page = await callTool(server, 'IncidentOps.ListOnCalls', { escalation_policy_ids: [policyId], since: iso(WINDOW.since), until: iso(WINDOW.until), limit: 50, offset });
      contract.push(page);
      more = page.data.more === true;
    }
    const task = [await callTool(server, 'IncidentOps.WhoIsOnCall', { service_id: 'payments', until: iso(WINDOW.until) })];
    for (const outcome of [...contract, ...task]) assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
    const sum = async (outcomes: ToolOutcome[]) => (await Promise.all(outcomes.map(tokensOf))).reduce((a, b) => a + b, 0);
    const figure = { contractCalls: contract.length, contractTokens: await sum(contract), perCall: await Promise.all(contract.map(tokensOf)), taskCalls: task.length, taskTokens: await sum(task) };
    console.error(`coverage task cost (docs/tasks.md): ${JSON.stringify(figure)}`);
    assert.ok(figure.taskTokens < 0.5 * figure.contractTokens, JSON.stringify(figure));
    assert.equal(figure.taskCalls, 1);
    const n = (value: number) => value.toLocaleString('en-US');
    const tasksPage = readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8');
    const contractPart = `${figure.contractCalls} calls, ${n(figure.contractTokens)} tokens`;
    const taskPart = `1 call, ${n(figure.taskTokens)} tokens`;
    assert.ok(new RegExp(`\\| "Any gap in the next 48 hours for payments\\?" \\| ${contractPart}:[^|]*\\| ${taskPart}: \`WhoIsOnCall\``).test(tasksPage), `docs/tasks.md: the coverage row gives ${contractPart} and ${taskPart}`);
  });
});
