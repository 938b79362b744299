/**
 * WhoIsOnCall's coverage arithmetic and its budget, by counting work, never timing it: whom an
 * override replaces (hand-overs, gaps, the first listed layer winning), the growth of the work
 * with the schedule (linear, or n log n for the sorts), the times read without luxon, overrides
 * counted from their records (a user's name cannot add any, a schedule shared by policies
 * counts once), and, against a stand-in platform (support/fake-oncall.ts), the part of the
 * window covered in full past each budget: requests, time (a clock that moves per request) and
 * kept bytes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DateTime } from 'luxon';
import fc from 'fast-check';
import { CallBudget, WorkScope, type BudgetLimits } from '../src/core/call-budget.js';
import { findTool } from '../src/core/tools/registry.js';
import { atOnce, coverageWork, instantMs, layeredSchedule, overridesMeeting, replacementsOver, type Held } from '../src/incidentops/tasks/coverage-sweep.js';
import { coverageLevels, coverageSummary, overrideSpans, renderedWithoutOverrides, withReplaced } from '../src/incidentops/tasks/oncall-coverage.js';
import { callTool, incidentOpsServerFor } from './support/harness.js';
import { startFakeOnCall, type FakeOnCall, type FakeOnCallOptions } from './support/fake-oncall.js';

type Json = Record<string, unknown>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-05-06T12:00:00Z');
const iso = (time: number) => new Date(time).toISOString().replace('.000Z', 'Z');
const ref = (type: string, id: string, name: string) => ({ id, type: `${type}_reference`, summary: name });
const entry = (start: number, end: number, id: string) => ({ start: iso(T0 + start * HOUR), end: iso(T0 + end * HOUR), user: ref('user', id, `User ${id}`) });
const layer = (...entries: Json[]) => ({ rendered_schedule_entries: entries });
const who = (parts: Held[]) => parts.map((part) => `${(part.start - T0) / HOUR}-${(part.end - T0) / HOUR} ${part.user ?? 'nobody'}`);

describe('whom an override replaces', () => {
  it('a hand-over inside the override: both people, from when', () => {
    const layers = [layer(entry(0, 4, 'PA'), entry(4, 8, 'PB'))];
    assert.deepEqual(who(renderedWithoutOverrides(layers, T0 + 2 * HOUR, T0 + 6 * HOUR)), ['2-4 User PA (PA)', '4-6 User PB (PB)']);
  });

  it('a gap inside the override: nobody over it', () => {
    const layers = [layer(entry(0, 2, 'PA'), entry(3, 8, 'PB'))];
    assert.deepEqual(who(renderedWithoutOverrides(layers, T0 + HOUR, T0 + 9 * HOUR)), ['1-2 User PA (PA)', '2-3 nobody', '3-8 User PB (PB)', '8-9 nobody']);
  });

  it('the first listed layer wins where several have someone; a lower one fills its gaps', () => {
    const layers = [layer(entry(0, 2, 'PA'), entry(4, 6, 'PA')), layer(entry(0, 8, 'PC'))];
    assert.deepEqual(who(renderedWithoutOverrides(layers, T0 + HOUR, T0 + 7 * HOUR)), ['1-2 User PA (PA)', '2-4 User PC (PC)', '4-6 User PA (PA)', '6-7 User PC (PC)']);
    // The order of the layers, not of their entries, decides.
    const swapped = [layer(entry(0, 8, 'PC')), layer(entry(4, 6, 'PA'), entry(0, 2, 'PA'))];
    assert.deepEqual(who(renderedWithoutOverrides(swapped, T0 + HOUR, T0 + 7 * HOUR)), ['1-7 User PC (PC)']);
  });

  it('agrees with a scan of every layer at every instant, on random layers', () => {
    const span = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 12 }), fc.constantFrom('PA', 'PB', 'PC'));
    fc.assert(
      fc.property(fc.array(fc.array(span, { maxLength: 8 }), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 45 }), fc.integer({ min: 1, max: 20 }), (raw, from, length) => {
        const layers = raw.map((entries) => layer(...entries.map(([start, hours, id]) => entry(start, start + hours, id))));
        const expected: string[] = [];
        for (let hour = from; hour < from + length; hour++) {
          // Who the scan finds at each hour: the first layer with an entry running then (its first such entry).
          const found = raw.map((entries) => entries.find(([start, hours]) => start <= hour && hour < start + hours)).find(Boolean);
          expected.push(found ? `User ${found[2]} (${found[2]})` : 'nobody');
        }
        const parts = renderedWithoutOverrides(layers, T0 + from * HOUR, T0 + (from + length) * HOUR);
        const hourly = parts.flatMap((part) => Array.from({ length: (part.end - part.start) / HOUR }, () => part.user ?? 'nobody'));
        // Overlapping entries of one layer may name either person; where each layer's entries are apart, it is exact.
        const apart = raw.every((entries) => entries.every(([s, h], i) => entries.every(([s2, h2], j) => i === j || s + h <= s2 || s2 + h2 <= s)));
        if (apart) assert.deepEqual(hourly, expected);
        else assert.equal(hourly.length, length);
      }),
      { numRuns: 300 },
    );
  });

  it('past the parts it names, counts the hand-overs that follow exactly', () => {
    const entries = Array.from({ length: 100 }, (_, i) => entry(i, i + 1, `P${i % 3}`));
    const layered = atOnce(layeredSchedule([entries.map((e) => ({ start: instantMs(e.start), end: instantMs(e.end), user: e.user.id }))]));
    for (const [from, to] of [[0.5, 99.5], [-3, 120], [10, 11], [10.5, 16]] as const) {
      const all = replacementsOver(layered, Number.POSITIVE_INFINITY)({ start: T0 + from * HOUR, end: T0 + to * HOUR });
      const some = replacementsOver(layered, 6)({ start: T0 + from * HOUR, end: T0 + to * HOUR });
      assert.equal(all.more, 0);
      assert.deepEqual(some.parts, all.parts.slice(0, 6));
      assert.equal(some.parts.length + some.more, all.parts.length, `${from}-${to}`);
    }
  });
});

describe('the work grows with the schedule, not with schedule x overrides', () => {
  /** A schedule of n one-hour entries per layer, 2 layers, and m one-hour overrides spread over it. */
  function schedule(n: number, m: number) {
    const layers = [0, 1].map((l) => layer(...Array.from({ length: n }, (_, i) => entry(i, i + 1, `PU${(i + l) % 7}`)).filter((_, i) => l === 1 || i % 5 !== 4)));
    const overrides = Array.from({ length: m }, (_, j) => ({ id: `PO${j}`, start: iso(T0 + Math.floor((j * n) / m) * HOUR), end: iso(T0 + (Math.floor((j * n) / m) + 3) * HOUR), user: ref('user', `PV${j % 3}`, 'Stand-in') }));
    return { layers, overrides };
  }
  const work = (n: number, m: number) => {
    const { layers, overrides } = schedule(n, m);
    coverageWork.steps = 0;
    coverageWork.luxonParses = 0;
    const pieces = withReplaced(overrideSpans('PS', overrides, { start: T0, end: T0 + n * HOUR }), layers);
    assert.equal(pieces.length, m);
    return { ...coverageWork };
  };

  it('twice the entries: about twice the steps (n log n at most), and no time read by luxon', () => {
    const [small, large] = [work(10_000, 50), work(20_000, 50)];
    assert.equal(small.luxonParses, 0);
    assert.equal(large.luxonParses, 0);
    const ratio = large.steps / small.steps;
    assert.ok(ratio > 1.8 && ratio < 2.3, `steps ${small.steps} -> ${large.steps} (x${ratio.toFixed(2)})`);
  });

  it('ten times the overrides on the same schedule: the steps barely move', () => {
    const [few, many] = [work(20_000, 50), work(20_000, 500)];
    assert.ok(many.steps < few.steps * 1.3, `steps ${few.steps} -> ${many.steps}`);
  });

  it('a shift finds its overrides by search: many overrides of one user cost steps per shift in log, not in count', () => {
    const overrides = Array.from({ length: 4_000 }, (_, j) => ({ start: j * 10, end: j * 10 + 5, key: `k${j}`, userId: 'PV' }));
    coverageWork.steps = 0;
    const find = overridesMeeting(overrides, 3);
    const built = coverageWork.steps;
    const result = find({ start: 20_000, end: 20_100 });
    assert.equal(result.count, 10);
    assert.deepEqual(result.found.map((o) => o.key), ['k2000', 'k2001', 'k2002']);
    assert.ok(coverageWork.steps - built < 60, `${coverageWork.steps - built} steps for one shift`);
    // One long override running under many: still found, and the count stays exact.
    const long = [{ start: 0, end: 1e9, key: 'long', userId: 'PV' }, ...overrides];
    assert.deepEqual(overridesMeeting(long, 3)({ start: 20_000, end: 20_100 }).count, 11);
  });
});

describe('platform times read without luxon', () => {
  it('equal luxon on the forms the platform sends, and go to luxon for the others', () => {
    const zones = ['Z', '+01:00', '-05:30', '+14:00', '+0100'];
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) }), fc.constantFrom(...zones), fc.constantFrom('', ':ss', ':ss.SSS'), (time, zone, seconds) => {
        const offset = zone === 'Z' ? 'utc' : `UTC${zone.slice(0, 3)}:${zone.slice(-2)}`;
        const text = DateTime.fromMillis(time, { zone: offset }).toFormat(`yyyy-MM-dd'T'HH:mm${seconds}`) + zone;
        assert.equal(instantMs(text), DateTime.fromISO(text, { setZone: true }).toMillis(), text);
      }),
      { numRuns: 500 },
    );
    for (const odd of ['2026-02-30T10:00Z', '2026-05-06', '2026-05-06T24:00Z', '2026-05-06T12:00+01', 'tomorrow', '2026-13-01T00:00Z']) {
      coverageWork.luxonParses = 0;
      const luxonValue = DateTime.fromISO(odd, { setZone: true }).toMillis();
      assert.deepEqual(instantMs(odd), luxonValue, odd);
      assert.equal(coverageWork.luxonParses, 1, odd);
    }
    assert.ok(Number.isNaN(instantMs(null)));
  });
});

describe('overrides counted from their records, not from lines', () => {
  const window = { start: T0, end: T0 + 24 * HOUR, zone: 'utc' };
  const row = (policy: string, schedule: string, user: Json, start: number, end: number) => ({
    escalation_policy: ref('escalation_policy', policy, `Policy ${policy}`),
    escalation_level: 1,
    schedule: ref('schedule', schedule, 'Primary'),
    user,
    start: iso(T0 + start * HOUR),
    end: iso(T0 + end * HOUR),
  });

  it('a user named like an override line adds none', () => {
    const eve = ref('user', 'PEVE', 'Eve: override, replaces Alice (PALICE1)');
    const rows = [row('PP1', 'PS1', eve, 0, 8), row('PP1', 'PS1', eve, 8, 16), row('PP1', 'PS1', eve, 16, 24)];
    const coverage = coverageLevels(rows, window, new Map(), new Map());
    assert.equal(coverage.overrides, 0);
    assert.match(coverageSummary(coverage), / 0 overrides\.$/);
  });

  it('a schedule shared by several policies counts each override once', () => {
    const layers = [layer(entry(0, 24, 'PA'))];
    const overrides = withReplaced(overrideSpans('PS1', [{ id: 'PO1', start: iso(T0 + 2 * HOUR), end: iso(T0 + 4 * HOUR), user: ref('user', 'PV', 'Vic') }, { id: 'PO2', start: iso(T0 + 10 * HOUR), end: iso(T0 + 12 * HOUR), user: ref('user', 'PV', 'Vic') }], window), layers);
    const vic = ref('user', 'PV', 'Vic');
    const alex = ref('user', 'PA', 'Alex');
    for (const policies of [2, 3]) {
      const rows = Array.from({ length: policies }, (_, p) => [row(`PP${p}`, 'PS1', alex, 0, 2), row(`PP${p}`, 'PS1', vic, 2, 4), row(`PP${p}`, 'PS1', alex, 4, 10), row(`PP${p}`, 'PS1', vic, 10, 12), row(`PP${p}`, 'PS1', alex, 12, 24)]).flat();
      const coverage = coverageLevels(rows, window, new Map([['PS1', overrides]]), new Map());
      const flagged = coverage.policies.flatMap((p) => p.levels.flatMap((l) => Object.values(l.shifts).flat())).filter((line) => line.includes(': override, replaces User PA (PA)'));
      assert.equal(flagged.length, 2 * policies, 'every policy shows both');
      assert.equal(coverage.overrides, 2);
      assert.match(coverageSummary(coverage), / 2 overrides\.$/);
    }
  });
});

describe('coverage past the call\'s budget: the first part of the window in full, and up to when', () => {
  const fakes: FakeOnCall[] = [];
  const now = () => new Date(T0);
  const start = async (options: Omit<FakeOnCallOptions, 'from' | 'to'>) => {
    const fake = await startFakeOnCall({ from: T0, to: T0 + 14 * DAY, ...options });
    fakes.push(fake);
    return fake;
  };
  after(async () => {
    for (const fake of fakes) await fake.close();
  });

  /** The call as run-tool runs it, with the given budget (and clock), its output checked against the tool's schema. */
  async function call(fake: FakeOnCall, args: Json, limits: Partial<BudgetLimits>, clock?: () => number): Promise<Json> {
    const server = incidentOpsServerFor(undefined, { baseUrl: fake.baseUrl, accessToken: fake.token, now });
    const budget = new CallBudget(limits, clock);
    const scope = new WorkScope(new AbortController().signal, { budget });
    try {
      const { whoIsOnCall } = await import('../src/incidentops/tasks/who-is-on-call.js');
      const data = (await whoIsOnCall(args as never, { signal: scope.signal, budget, deps: server.deps, progress: () => undefined, logger: server.logger })) as unknown as Json;
      const checked = findTool(server, 'IncidentOps.WhoIsOnCall')!.output.safeParse(data);
      assert.ok(checked.success, JSON.stringify(checked.error?.issues));
      assert.ok(budget.requestsSent <= budget.limits.requests);
      return data;
    } finally {
      scope.dispose();
    }
  }

  /** The answer's shift lines, gaps and covered part, read back. */
  function check(data: Json, fake: FakeOnCall, shiftMinutes: number) {
    const covered = data.covered_until === undefined ? T0 + 14 * DAY : instantMs(data.covered_until);
    const levels = (data.escalation_policies as { levels: { shifts: Record<string, string[]>; gaps: string[] }[] }[])[0]!.levels;
    const lines = Object.values(levels[0]!.shifts).flat();
    const starts = lines.map((line) => instantMs(line.split(' ')[0]));
    // Every shift of the part covered, of every schedule, and none after it.
    assert.equal(lines.length, fake.scheduleIds.length * Math.ceil((covered - T0) / (shiftMinutes * 60_000)));
    assert.ok(starts.every((time) => time >= T0 && time < covered));
    assert.deepEqual(levels[0]!.gaps, []);
    return { covered, lines };
  }

  it('past its requests (10 schedules, 10+ pages of shifts): answers for the part read, not budget_exceeded', async () => {
    const fake = await start({ schedules: 10, shiftMinutes: 60, overrides: 20 });
    const server = incidentOpsServerFor(undefined, { baseUrl: fake.baseUrl, accessToken: fake.token, now });
    const result = await callTool(server, 'IncidentOps.WhoIsOnCall', { escalation_policy_id: fake.policyId, until: iso(T0 + 14 * DAY) });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data;
    assert.ok(typeof data.covered_until === 'string', JSON.stringify(data).slice(0, 400));
    const { covered, lines } = check(data, fake, 60);
    assert.ok(covered > T0 && covered < T0 + 14 * DAY);
    assert.match(String(data.note), /^Covered from at to covered_until only, in full: reading the whole window would pass this call's budget of \d+ platform requests \(3,360 shifts in it\)\. For the rest, call again with at set to covered_until/);
    assert.match(String(data.summary), new RegExp(`^Up to ${String(data.covered_until).replace('+', '\\+')} only: No gaps`));
    // The overrides of the part covered are all read and flagged, each counted once.
    const flagged = lines.filter((line) => line.includes(': override, replaces'));
    const expected = Array.from({ length: 20 }, (_, j) => T0 + j * Math.floor((14 * 24) / 20) * HOUR).filter((time) => time < covered).length;
    assert.equal(flagged.length, expected * 10);
    assert.match(String(data.summary), new RegExp(` ${expected * 10} overrides?\\.$`));
    // Asked again from covered_until, the next part follows on.
    const next = await callTool(server, 'IncidentOps.WhoIsOnCall', { escalation_policy_id: fake.policyId, at: String(data.covered_until), until: iso(T0 + 14 * DAY) });
    assert.equal(next.isError, false);
    assert.ok(instantMs(next.data.covered_until ?? iso(T0 + 14 * DAY)) > covered);
  });

  it('past its time: the clock moves 1 s per platform answer, the budget is 20 s', async () => {
    let clock = 0;
    const fake = await start({ schedules: 1, shiftMinutes: 5, overrides: 5, onRequest: () => (clock += 1000) });
    const data = await call(fake, { escalation_policy_id: fake.policyId, until: iso(T0 + 14 * DAY) }, { requests: 1000, wallMs: 20_000 }, () => clock);
    const { covered } = check(data, fake, 5);
    assert.ok(covered > T0 && covered < T0 + 14 * DAY, String(data.covered_until));
    assert.match(String(data.note), /budget of 20 s/);
    assert.ok(clock <= 20_000, `${clock / 1000} answers`);
  });

  it('past its kept bytes', async () => {
    const fake = await start({ schedules: 2, shiftMinutes: 15, overrides: 5 });
    const data = await call(fake, { escalation_policy_id: fake.policyId, until: iso(T0 + 14 * DAY) }, { requests: 1000, keptBytes: 400_000 });
    const { covered } = check(data, fake, 15);
    assert.ok(covered > T0 && covered < T0 + 14 * DAY, String(data.covered_until));
    assert.match(String(data.note), /400 KB of kept data/);
  });

  it('past its time while the overrides are read: the schedule is named, its shifts shown without them', async () => {
    const fake = await start({ schedules: 2, shiftMinutes: 240, overrides: 4, delayMs: 4_000, slowPaths: /^\/schedules\/PSCHED1/ });
    const data = await call(fake, { escalation_policy_id: fake.policyId, until: iso(T0 + 14 * DAY) }, { wallMs: 2_000 });
    assert.equal(data.covered_until, undefined);
    check(data, fake, 240);
    assert.match(String(data.note), /budget ran out before the overrides of schedule PSCHED1 were read/);
    const shifts = (data.escalation_policies as { levels: { shifts: Record<string, string[]> }[] }[])[0]!.levels[0]!.shifts;
    const flagged = (schedule: string) => shifts[`Schedule ${schedule} (${schedule})`]!.filter((line) => line.includes(': override')).length;
    assert.deepEqual([flagged('PSCHED0'), flagged('PSCHED1')], [4, 0]);
    assert.match(String(data.summary), / 4 overrides\.$/, 'the other schedule\'s, read');
  });

  it('a platform that sends no first page within the time: budget_exceeded, naming the time', async () => {
    const fake = await start({ schedules: 1, delayMs: 4_000, slowPaths: /^\/oncalls/ });
    await assert.rejects(call(fake, { escalation_policy_id: fake.policyId, until: iso(T0 + DAY) }, { wallMs: 2_000 }), (error: Error & { details?: { kind: string } }) => {
      assert.equal(error.details?.kind, 'budget_exceeded');
      assert.match(error.message, /first page of on-call shifts within this call's budget of 2 s/);
      return true;
    });
  });

  it('a budget too small for the overrides\' share: a first part of the window all the same, the overrides it could not read named', async () => {
    const fake = await start({ schedules: 10, shiftMinutes: 60, overrides: 20 });
    const data = await call(fake, { escalation_policy_id: fake.policyId, until: iso(T0 + 14 * DAY) }, { requests: 8 });
    const { covered } = check(data, fake, 60);
    assert.ok(covered > T0 && covered < T0 + 14 * DAY, String(data.covered_until));
    assert.match(String(data.note), /budget ran out before the overrides of schedules PSCHED/);
  });

  it('a window that fits is read whole in one walk, with no covered_until', async () => {
    const fake = await start({ schedules: 2, shiftMinutes: 240, overrides: 4 });
    const before = fake.requests.length;
    const data = await call(fake, { escalation_policy_id: fake.policyId, until: iso(T0 + 14 * DAY) }, { requests: 100 });
    assert.equal(data.covered_until, undefined);
    check(data, fake, 240);
    const oncalls = fake.requests.slice(before).filter((r) => r.path === '/oncalls');
    assert.equal(oncalls.length, Math.ceil((2 * 84) / 100), 'each page once');
  });

  it('20,000 entries per layer and 50 overrides: answers, the luxon parses independent of the entries', async () => {
    const fake = await start({ schedules: 1, shiftMinutes: 24 * 60, overrides: 14, layers: 2, entriesPerLayer: 20_000 });
    coverageWork.luxonParses = 0;
    const data = await call(fake, { escalation_policy_id: fake.policyId, until: iso(T0 + 14 * DAY) }, {});
    assert.equal(data.covered_until, undefined);
    const lines = Object.values((data.escalation_policies as { levels: { shifts: Record<string, string[]> }[] }[])[0]!.levels[0]!.shifts).flat();
    assert.equal(lines.filter((line) => /: override, replaces .*, then \d+ more hand-overs$/.test(line)).length, 14);
    assert.equal(coverageWork.luxonParses, 0);
  });
});

before(() => {
  coverageWork.steps = 0;
});
