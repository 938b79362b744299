/**
 * `node build/bench/fair-share.js [--baseline <dir>] [--rounds N]`: what one caller's burst costs
 * another caller on a shared HTTP server (CanvasApi on the sandbox, key mode; the two callers are
 * told apart by X-Toolservers-Caller, both from loopback, so they share one address group).
 * Scenarios, each in a fresh server process per build, interleaved this build / baseline:
 * - `diagrams`: caller A keeps 17 worst-case Mermaid flowcharts in flight (200 nodes in 20
 *   subgraphs, chains alternating across them, about 6.7 KB), resending as each ends; B draws a
 *   3-node diagram 3 times, one after the other: B's times (and whether each was drawn);
 * - `hang-up`: A sends 17 of them and hangs up after 1 s; B's 3-node diagram right after;
 * - `read-boards`: the platform answers in 100 ms; B's one-request RetrieveBoardInfo alone (5
 *   times), then while A keeps 40 ReadBoards in flight (5 times): its median against its own alone.
 * `--baseline` (or BENCH_BASELINE) is the root of another checkout built with `npm run build:test`
 * (bench/baseline.ts). Prints medians and ratios this build / baseline. Nothing asserts.
 */
import { spawn } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { baselineRoot, ratioText } from './baseline.js';

const SCENARIOS = ['diagrams', 'hang-up', 'read-boards'] as const;
type Scenario = (typeof SCENARIOS)[number];
const KEY = 'fair-share-bench-key-0123456789';
const here = path.dirname(fileURLToPath(import.meta.url));

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** 200 nodes in 20 subgraphs of 10, each a chain, and a chain alternating across the subgraphs. */
function worstMermaid(): string {
  const lines = ['flowchart TD'];
  for (let g = 0; g < 20; g++) {
    lines.push(`  subgraph s${g} [Stage ${g}]`);
    for (let i = 0; i < 10; i++) lines.push(`    n${g * 10 + i}[Step ${g * 10 + i}]`);
    for (let i = 1; i < 10; i++) lines.push(`    n${g * 10 + i - 1} --> n${g * 10 + i}`);
    lines.push('  end');
  }
  for (let i = 0; i < 10; i++) for (let g = 1; g < 20; g += 2) lines.push(`  n${(g - 1) * 10 + i} --> n${g * 10 + i}`);
  return lines.join('\n');
}

const SMALL_MERMAID = 'flowchart TD\n  a[Start] --> b[Check]\n  b --> c[Done]';

/** The server process: sandbox and HTTP server of the given build; prints its URL and the board. */
async function child(root: string, scenario: Scenario): Promise<void> {
  const harness = (await import(path.join(root, 'test/support/harness.js'))) as typeof import('../test/support/harness.js');
  const { serveOverHttp } = (await import(path.join(root, 'src/core/serving/serve.js'))) as typeof import('../src/core/serving/serve.js');
  const { silentLogger } = (await import(path.join(root, 'src/core/logger.js'))) as typeof import('../src/core/logger.js');
  const sandbox = await harness.startTestSandbox(scenario === 'read-boards' ? { latencyMs: 100 } : {});
  const server = harness.canvasApiServerFor(sandbox.canvasapi);
  const http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: KEY, mounts: [{ path: '/mcp', server }] });
  console.log(JSON.stringify({ url: `${http.url}/mcp`, board: sandbox.canvasapi.demo?.boardIds[0] }));
  process.stdin.resume();
  process.stdin.on('end', () => void http.close().then(() => sandbox.close()).then(() => process.exit(0)));
}

interface Call {
  req: ClientRequest;
  /** Settles with the answer's text ('' when the connection was closed). */
  done: Promise<string>;
}

/** One 2025-era tools/call over a connection of its own, as `caller`. */
function callTool(url: string, caller: string, name: string, args: Record<string, unknown>): Call {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
  let req!: ClientRequest;
  const done = new Promise<string>((resolve) => {
    req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-toolservers-caller': caller, 'x-toolservers-toolsets': 'all,tasks' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(text));
        res.on('error', () => resolve(''));
      },
    );
    req.on('error', () => resolve(''));
    req.end(body);
  });
  return { req, done };
}

const succeeded = (text: string) => text.includes('"result"') && !text.includes('"isError":true');

async function timed(work: () => Promise<string>): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now();
  const text = await work();
  return { ms: performance.now() - started, ok: succeeded(text) };
}

/** Keeps `count` calls of A in flight until stopped. */
function keepInFlight(count: number, start: () => Call): { stop: () => void } {
  let running = true;
  const calls = new Set<Call>();
  const loop = async () => {
    while (running) {
      const call = start();
      calls.add(call);
      await call.done;
      calls.delete(call);
    }
  };
  for (let i = 0; i < count; i++) void loop();
  return {
    stop() {
      running = false;
      for (const call of calls) call.req.destroy();
    },
  };
}

interface Sample {
  /** B's times, ms. */
  times: number[];
  /** B's calls that were not answered with a result. */
  failed: number;
  /** read-boards: B's times alone. */
  alone?: number[];
}

async function measure(url: string, board: string, scenario: Scenario): Promise<Sample> {
  const small = () => callTool(url, 'B', 'CanvasApi.CreateDiagram', { board_id: board, mermaid: SMALL_MERMAID });
  const worst = () => callTool(url, 'A', 'CanvasApi.CreateDiagram', { board_id: board, mermaid: worstMermaid() });
  const results: { ms: number; ok: boolean }[] = [];
  let alone: number[] | undefined;
  if (scenario === 'diagrams') {
    const burst = keepInFlight(17, worst);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let i = 0; i < 3; i++) results.push(await timed(() => small().done));
    burst.stop();
  } else if (scenario === 'hang-up') {
    const burst = Array.from({ length: 17 }, worst);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const call of burst) call.req.destroy();
    results.push(await timed(() => small().done));
  } else {
    const info = () => callTool(url, 'B', 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: board }).done;
    await info();
    alone = [];
    for (let i = 0; i < 5; i++) alone.push((await timed(info)).ms);
    const burst = keepInFlight(40, () => callTool(url, 'A', 'CanvasApi.ReadBoard', { board_id: board }));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (let i = 0; i < 5; i++) results.push(await timed(info));
    burst.stop();
  }
  return { times: results.map((r) => r.ms), failed: results.filter((r) => !r.ok).length, ...(alone ? { alone } : {}) };
}

async function round(root: string, scenario: Scenario): Promise<Sample> {
  const server = spawn(process.execPath, [fileURLToPath(import.meta.url), '--child', root, scenario], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  const { url, board } = JSON.parse((await lines.next()).value as string) as { url: string; board: string };
  try {
    return await measure(url, board, scenario);
  } finally {
    server.stdin.end();
    await new Promise((resolve) => server.once('exit', resolve));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const max = (values: number[]) => Math.max(...values);

async function main(): Promise<void> {
  const rounds = Number(option('--rounds') ?? 2);
  const builds = [{ label: 'this build', root: path.resolve(here, '..') }];
  const baseline = baselineRoot();
  if (baseline) builds.push({ label: 'baseline', root: path.join(baseline, 'build') });
  const samples = new Map<string, Sample[]>();
  for (let r = 0; r < rounds; r++) {
    for (const scenario of SCENARIOS) {
      for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
        const sample = await round(build.root, scenario);
        const key = `${scenario}|${build.label}`;
        samples.set(key, [...(samples.get(key) ?? []), sample]);
        console.error(`round ${r + 1} ${scenario} ${build.label}: B ${sample.times.map((ms) => Math.round(ms)).join(', ')} ms, ${sample.failed} not drawn/answered${sample.alone ? `; alone ${sample.alone.map((ms) => Math.round(ms)).join(', ')} ms` : ''}`);
      }
    }
  }
  console.log('scenario | build | B median ms | B slowest ms | B not answered | B alone median ms | B median / alone');
  for (const scenario of SCENARIOS) {
    const figures = builds.map((build) => {
      const list = samples.get(`${scenario}|${build.label}`) ?? [];
      const times = list.flatMap((s) => s.times);
      const alone = list.flatMap((s) => s.alone ?? []);
      return { label: build.label, median: median(times), slowest: max(times), failed: list.reduce((n, s) => n + s.failed, 0), of: times.length, alone: alone.length ? median(alone) : undefined };
    });
    for (const f of figures) {
      console.log(`${scenario} | ${f.label} | ${Math.round(f.median)} | ${Math.round(f.slowest)} | ${f.failed} of ${f.of} | ${f.alone === undefined ? '-' : Math.round(f.alone)} | ${f.alone === undefined ? '-' : (f.median / f.alone).toFixed(2)}`);
    }
    if (figures.length === 2) console.log(`${scenario} | ratio this/baseline | ${ratioText(figures[0]!.median, figures[1]!.median)} | ${ratioText(figures[0]!.slowest, figures[1]!.slowest)} | | |`);
  }
}

const asChild = process.argv.indexOf('--child');
if (asChild >= 0) await child(process.argv[asChild + 1] as string, process.argv[asChild + 2] as Scenario);
else await main();
