/**
 * How fast hostile input is refused: `npm run build:test && node build/bench/hostile-input.js`.
 *
 * The test suite only bounds these generously (a linear check takes milliseconds, a quadratic one
 * over 1 MB minutes), so that a busy machine cannot fail it; the figures are measured here.
 * For every 1 MB attack string: each CanvasApi format check, the IncidentOps time, zone and ID
 * checks, and a whole tool call that refuses it (nothing is sent); also JSON body parsing and
 * SearchUsers ranking at their longest inputs. Prints the median and worst of BENCH_ROUNDS runs
 * (default 5) per group. Nothing asserts.
 */
import { performance } from 'node:perf_hooks';
import { parseRequestBody } from '../src/canvasapi/body-validation.js';
import type { CanvasFormat } from '../src/canvasapi/catalogue-types.js';
import { checkFormat, FORMAT_MAX_CHARS } from '../src/canvasapi/params.js';
import { idParam, isoTimeParam, parseIsoTime, timeZoneParam } from '../src/incidentops/params.js';
import { rankUsers } from '../src/incidentops/user-matching.js';
import { callTool, canvasApiServerFor, incidentOpsServerFor, startTestSandbox } from '../test/support/harness.js';
import { ATTACKS } from '../test/support/hostile-inputs.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MB = 1 << 20;

async function timings(run: () => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const started = performance.now();
    await run();
    out.push(performance.now() - started);
  }
  return out.sort((a, b) => a - b);
}

const rows: [string, number, number][] = [];
async function measure(group: string, runs: (() => unknown)[]): Promise<void> {
  const medians: number[] = [];
  let worst = 0;
  for (const run of runs) {
    const times = await timings(run);
    medians.push(times[Math.floor(times.length / 2)]!);
    worst = Math.max(worst, times[times.length - 1]!);
  }
  rows.push([group, Math.max(...medians), worst]);
}

const attacks = Object.values(ATTACKS);
for (const format of Object.keys(FORMAT_MAX_CHARS) as CanvasFormat[]) {
  await measure(`checkFormat ${format} (1 MB)`, attacks.map((attack) => () => checkFormat(format, attack, { min: 1, max: 100 })));
  await measure(`checkFormat ${format} (at its cap)`, attacks.map((attack) => () => checkFormat(format, attack.slice(0, FORMAT_MAX_CHARS[format]))));
}
await measure('IncidentOps parseIsoTime', attacks.map((attack) => () => parseIsoTime(attack)));
await measure('IncidentOps isoTimeParam', attacks.map((attack) => () => isoTimeParam('t').safeParse(attack)));
await measure('IncidentOps timeZoneParam', attacks.map((attack) => () => timeZoneParam.safeParse(attack)));
await measure('IncidentOps idParam', attacks.map((attack) => () => idParam('t').safeParse(attack)));
await measure('parseRequestBody (1 MB of brackets, of numbers with an error at the end)', [() => parseRequestBody('['.repeat(MB)), () => parseRequestBody(`[${'1,'.repeat(499_000)}x]`)]);
const users = Array.from({ length: 200 }, (_, i) => ({ id: `U${i}`, name: `Person Number${i} O'Brien-López`, email: `person.${i}@example.com` }));
await measure('rankUsers at its longest queries (200 users)', ['a\u0301'.repeat(100), 'é'.repeat(200), 'a'.repeat(200)].map((query) => () => rankUsers(query, users)));

const sandbox = await startTestSandbox();
try {
  const canvas = canvasApiServerFor(sandbox.canvasapi);
  const incidentOps = incidentOpsServerFor(sandbox);
  await measure('tool call refusing a 1 MB e-mail (ShareCanvasBoard)', attacks.map((attack) => () => callTool(canvas, 'CanvasApi.ShareCanvasBoard', { board_unique_identifier: 'b', invitee_email_addresses: [attack] })));
  await measure('tool call refusing a 1 MB time (ListIncidents)', attacks.map((attack) => () => callTool(incidentOps, 'IncidentOps.ListIncidents', { since: attack })));
} finally {
  await sandbox.close();
}

const width = Math.max(...rows.map(([group]) => group.length));
process.stdout.write(`Hostile input, ${ROUNDS} runs per value (ms): median of the slowest value, worst run\n`);
for (const [group, median, worst] of rows) process.stdout.write(`  ${group.padEnd(width)}  ${median.toFixed(2).padStart(8)}  ${worst.toFixed(2).padStart(8)}\n`);
