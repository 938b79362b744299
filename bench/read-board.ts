/**
 * `node build/bench/read-board.js [--baseline <dir>] [--rounds N] [--only <part of a scenario name>]`: what one ReadBoard call costs
 * the server on a board far too big to read at once: 25,000 items of 6,000 characters (and 25,000
 * connectors), served by a loopback stand-in for the platform (test/support/fake-board.ts) in this
 * process. For each call: the platform requests it made, the bytes it read, its time, and the
 * server process's peak resident memory (VmHWM from /proc: Linux only).
 *
 * Each round spawns a fresh stdio server (`main.js canvasapi`, toolset `tasks`) per build and
 * scenario, interleaved this build / baseline so that a machine that slows down mid-run slows
 * both alike, makes the call over MCP (the SDK client), reads the peak and stops the server.
 * `--baseline` (or BENCH_BASELINE) is another build's compiled `src` directory holding `main.js`
 * (e.g. the previous commit built with `tsc` into /tmp/rb-baseline/dist), or the root of a built
 * checkout of it (bench/baseline.ts: its build/src/main.js); without it only this build is measured.
 * Scenarios: `max_items: 1`; the default arguments; 16 calls with `max_items: 1` at once on one
 * connection (this build only, unless BENCH_BASELINE_CONCURRENT=1: the baseline held 3.3 GB).
 * Then on a second stand-in whose item pages are 19 MB (items of 380,000 characters, issue 31):
 * the default arguments, a `query`, and 10 such calls at once (the bounds: under 200 MB of peak
 * RSS for one call, under 500 MB for ten).
 * Prints medians and the ratios this build / baseline. Nothing asserts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startFakeBoard, type FakeBoard } from '../test/support/fake-board.js';
import { baselineFile, baselineRoot } from './baseline.js';

interface Build {
  label: string;
  main: string;
}

interface Scenario {
  name: string;
  /** The board it reads: 6,000-character items, or items of 380,000 characters (19 MB pages). */
  board: 'large' | 'huge';
  args: Record<string, unknown>;
  calls: number;
  baseline: boolean;
}

interface Sample {
  requests: number;
  megabytesRead: number;
  ms: number;
  peakMb: number;
  error?: string;
}

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const ROUNDS = Number(option('--rounds') ?? 3);
const here = path.dirname(fileURLToPath(import.meta.url));
const builds: Build[] = [{ label: 'this build', main: path.resolve(here, '../src/main.js') }];
const baselineDir = baselineRoot();
if (baselineDir) builds.push({ label: 'baseline', main: existsSync(path.join(baselineDir, 'main.js')) ? path.join(baselineDir, 'main.js') : baselineFile(baselineDir, 'build/src/main.js') });

const only = option('--only');
const scenarios: Scenario[] = [
  { name: 'max_items 1', board: 'large', args: { max_items: 1 }, calls: 1, baseline: true },
  { name: 'default arguments', board: 'large', args: {}, calls: 1, baseline: true },
  { name: '16 calls at once, max_items 1', board: 'large', args: { max_items: 1 }, calls: 16, baseline: process.env.BENCH_BASELINE_CONCURRENT === '1' },
  { name: '19 MB pages, default arguments', board: 'huge', args: {}, calls: 1, baseline: true },
  { name: '19 MB pages, query', board: 'huge', args: { query: 'no such text' }, calls: 1, baseline: true },
  { name: '19 MB pages, 10 calls at once', board: 'huge', args: {}, calls: 10, baseline: true },
];

function peakMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+)\s+kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

async function measure(build: Build, scenario: Scenario, board: FakeBoard, home: string): Promise<Sample> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [build.main, 'canvasapi'],
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, CANVASAPI_BASE_URL: board.baseUrl, CANVASAPI_ACCESS_TOKEN: board.token, TOOLSERVERS_TOOLSETS: 'tasks' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'read-board-bench', version: '1' });
  await client.connect(transport);
  const requestsBefore = board.requests.length;
  const bytesBefore = board.bytesSent;
  const started = performance.now();
  let error: string | undefined;
  try {
    const results = await Promise.all(
      Array.from({ length: scenario.calls }, () => client.callTool({ name: 'CanvasApi.ReadBoard', arguments: { board_id: board.boardId, ...scenario.args } }, { timeout: 600_000 })),
    );
    const failed = results.find((result) => result.isError);
    if (failed) error = JSON.stringify(failed.content).slice(0, 200);
  } catch (caught) {
    error = String(caught).slice(0, 200);
  }
  const ms = performance.now() - started;
  const peakMb = peakMegabytes(transport.pid as number);
  await client.close();
  return { requests: (board.requests.length - requestsBefore) / scenario.calls, megabytesRead: (board.bytesSent - bytesBefore) / 1e6 / scenario.calls, ms, peakMb, ...(error ? { error } : {}) };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const boards = {
    large: await startFakeBoard({ items: 25_000, textChars: 6_000, frameEvery: 1_000, connectors: 25_000, tags: 3, itemsPerTag: 10 }),
    huge: await startFakeBoard({ items: 25_000, textChars: 380_000, frameEvery: 1_000, connectors: 25_000, tags: 3, itemsPerTag: 10 }),
  };
  const home = mkdtempSync(path.join(tmpdir(), 'read-board-bench-'));
  const samples = new Map<string, Sample[]>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of scenarios) {
        for (const build of builds) {
          if (build.label === 'baseline' && !scenario.baseline) continue;
          if (only && !scenario.name.includes(only)) continue;
          const sample = await measure(build, scenario, boards[scenario.board], home);
          const key = `${scenario.name}|${build.label}`;
          samples.set(key, [...(samples.get(key) ?? []), sample]);
          console.error(`round ${round + 1} ${scenario.name} ${build.label}: ${sample.requests} requests, ${sample.megabytesRead.toFixed(1)} MB read, ${Math.round(sample.ms)} ms, peak ${sample.peakMb.toFixed(0)} MB${sample.error ? ` ERROR ${sample.error}` : ''}`);
        }
      }
    }
  } finally {
    await Promise.all(Object.values(boards).map((board) => board.close()));
    rmSync(home, { recursive: true, force: true });
  }
  console.log('scenario | build | requests per call | MB read per call | ms (median) | peak RSS MB (median)');
  for (const scenario of scenarios) {
    const ours = samples.get(`${scenario.name}|this build`) ?? [];
    const theirs = samples.get(`${scenario.name}|baseline`) ?? [];
    for (const [label, list] of [['this build', ours], ['baseline', theirs]] as const) {
      if (list.length === 0) continue;
      console.log(`${scenario.name} | ${label} | ${median(list.map((s) => s.requests))} | ${median(list.map((s) => s.megabytesRead)).toFixed(1)} | ${Math.round(median(list.map((s) => s.ms)))} | ${median(list.map((s) => s.peakMb)).toFixed(0)}`);
    }
    if (ours.length && theirs.length) {
      const ratio = (pick: (s: Sample) => number) => (median(ours.map(pick)) / median(theirs.map(pick))).toFixed(3);
      console.log(`${scenario.name} | ratio this/baseline | ${ratio((s) => s.requests)} | ${ratio((s) => s.megabytesRead)} | ${ratio((s) => s.ms)} | ${ratio((s) => s.peakMb)}`);
    }
  }
}

await main();
