/**
 * `node build/bench/oncall-coverage.js [--baseline <dir>] [--rounds N] [--timeout-s S]`: WhoIsOnCall's
 * coverage over 14 days on a schedule of 20,000 entries per layer x 2 layers (5.4 MB rendered)
 * with 50 overrides, against the server's liveness.
 *
 * A stand-in platform (test/support/fake-oncall.ts) runs in a process of its own. Each round
 * starts, per build, a fresh `main.js incidentops --transport http` (toolset `tasks`) pointed at
 * it, interleaved this build / baseline; this process calls the tool over MCP while probing the
 * server's `/health` every 100 ms (one probe at a time; a probe still waiting when the call ends
 * counts for as long as it waited). Per call: its time (or the timeout, default 150 s), whether it
 * answered in full, in part (covered_until) or with an error, `/health`'s slowest answer, and the
 * server process's peak RSS (VmHWM from /proc: Linux only). `--baseline` (or BENCH_BASELINE) is
 * a built checkout of another commit (bench/baseline.ts). Prints medians and ratios. Nothing asserts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startFakeOnCall } from '../test/support/fake-oncall.js';
import { baselineFile, baselineRoot, ratioText } from './baseline.js';

const DAY = 86_400_000;
const PROBE_EVERY_MS = 100;
const SERVER_KEY = 'oncall-coverage-bench-key-0123456789';
const SCENARIO = { days: 14, layers: 2, entriesPerLayer: 20_000, overrides: 50, shiftMinutes: 6 * 60 } as const;

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

interface Build {
  label: string;
  main: string;
}

interface Sample {
  ms: number;
  outcome: string;
  healthMaxMs: number;
  peakMb: number;
}

/** The stand-in platform's process: prints its base URL, serves until stdin ends. */
async function platform(from: number): Promise<void> {
  const fake = await startFakeOnCall({ from, to: from + SCENARIO.days * DAY, schedules: 1, layers: SCENARIO.layers, entriesPerLayer: SCENARIO.entriesPerLayer, overrides: SCENARIO.overrides, shiftMinutes: SCENARIO.shiftMinutes });
  console.log(JSON.stringify({ baseUrl: fake.baseUrl, token: fake.token, policyId: fake.policyId }));
  for await (const _ of createInterface({ input: process.stdin }));
  await fake.close();
  process.exit(0);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function peakMegabytes(pid: number): number {
  const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

async function waitForHealth(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} never answered /health`);
}

/** Probes /health one at a time until `stop()`; the slowest answer, a probe still waiting counting as long as it has waited. */
function probe(url: string): { stop: () => Promise<number> } {
  let done = false;
  let slowest = 0;
  let pendingSince: number | undefined;
  const loop = (async () => {
    while (!done) {
      pendingSince = performance.now();
      try {
        await (await fetch(`${url}/health`)).text();
      } catch {
        // the server went away: counted by the time waited
      }
      slowest = Math.max(slowest, performance.now() - pendingSince);
      pendingSince = undefined;
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      done = true;
      const waiting = pendingSince !== undefined ? performance.now() - pendingSince : 0;
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, 50))]);
      return Math.max(slowest, waiting);
    },
  };
}

async function measure(build: Build, target: { baseUrl: string; token: string; policyId: string }, from: number, home: string, timeoutMs: number): Promise<Sample> {
  const port = await freePort();
  const server: ChildProcess = spawn(process.execPath, [build.main, 'incidentops', '--transport', 'http', '--port', String(port)], {
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, INCIDENTOPS_BASE_URL: target.baseUrl, INCIDENTOPS_ACCESS_TOKEN: target.token, TOOLSERVERS_TOOLSETS: 'tasks', TOOLSERVERS_SERVER_KEY: SERVER_KEY, TOOLSERVERS_LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url);
    const client = new Client({ name: 'oncall-coverage-bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
    const args = { escalation_policy_id: target.policyId, at: new Date(from).toISOString(), until: new Date(from + SCENARIO.days * DAY).toISOString() };
    const probing = probe(url);
    const started = performance.now();
    let outcome: string;
    try {
      const result = await client.callTool({ name: 'IncidentOps.WhoIsOnCall', arguments: args }, { timeout: timeoutMs });
      const data = (result.structuredContent ?? {}) as Record<string, unknown>;
      outcome = result.isError ? `error: ${JSON.stringify(result.content).slice(0, 120)}` : data.covered_until ? `in part, up to ${String(data.covered_until)}` : `in full: ${String(data.summary).slice(0, 80)}`;
    } catch (error) {
      outcome = `no answer: ${String(error).slice(0, 80)}`;
    }
    const ms = performance.now() - started;
    const healthMaxMs = await probing.stop();
    const peakMb = peakMegabytes(server.pid as number);
    await client.close().catch(() => undefined);
    return { ms, outcome, healthMaxMs, peakMb };
  } finally {
    server.kill('SIGKILL');
    await new Promise((resolve) => (server.exitCode !== null ? resolve(undefined) : server.once('exit', resolve)));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const rounds = Number(option('--rounds') ?? 2);
  const timeoutMs = Number(option('--timeout-s') ?? 150) * 1000;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const builds: Build[] = [{ label: 'this build', main: path.resolve(here, '../src/main.js') }];
  const baselineDir = baselineRoot();
  if (baselineDir) builds.push({ label: 'baseline', main: baselineFile(baselineDir, 'build/src/main.js') });
  // Whole hours from now: inside the platform's on-call window, the same for every call.
  const from = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const platformProcess = spawn(process.execPath, [fileURLToPath(import.meta.url), '--platform', String(from)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const target = JSON.parse(String((await createInterface({ input: platformProcess.stdout! })[Symbol.asyncIterator]().next()).value)) as { baseUrl: string; token: string; policyId: string };
  const home = mkdtempSync(path.join(tmpdir(), 'oncall-coverage-bench-'));
  const samples = new Map<string, Sample[]>(builds.map((build) => [build.label, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const sample = await measure(build, target, from, home, timeoutMs);
        samples.get(build.label)!.push(sample);
        console.error(`round ${round + 1} ${build.label}: ${Math.round(sample.ms)} ms, /health max ${Math.round(sample.healthMaxMs)} ms, peak ${sample.peakMb.toFixed(0)} MB; ${sample.outcome}`);
      }
    }
  } finally {
    platformProcess.stdin!.end();
    rmSync(home, { recursive: true, force: true });
  }
  console.log(`\nWhoIsOnCall coverage, ${SCENARIO.days} days, ${SCENARIO.entriesPerLayer.toLocaleString('en-US')} entries per layer x ${SCENARIO.layers}, ${SCENARIO.overrides} overrides; /health every ${PROBE_EVERY_MS} ms; Node ${process.version}; medians of ${rounds} interleaved rounds (timeout ${timeoutMs / 1000} s)`);
  console.log('build | call ms | /health max ms | peak RSS MB | outcome (last)');
  for (const [label, list] of samples) {
    console.log(`${label} | ${Math.round(median(list.map((s) => s.ms)))} | ${Math.round(median(list.map((s) => s.healthMaxMs)))} | ${median(list.map((s) => s.peakMb)).toFixed(0)} | ${list[list.length - 1]?.outcome ?? ''}`);
  }
  const [ours, theirs] = [samples.get('this build') ?? [], samples.get('baseline') ?? []];
  if (ours.length && theirs.length) {
    const ratio = (pick: (s: Sample) => number) => ratioText(median(ours.map(pick)), median(theirs.map(pick)));
    console.log(`ratio this/baseline | ${ratio((s) => s.ms)} | ${ratio((s) => s.healthMaxMs)} | ${ratio((s) => s.peakMb)} |`);
  }
}

const asPlatform = process.argv.indexOf('--platform');
if (asPlatform >= 0) await platform(Number(process.argv[asPlatform + 1]));
else await main();
