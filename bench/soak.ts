/**
 * `npm run bench:soak`: 64 HTTP clients x 500 tool calls against one server process, to see
 * whether memory levels off. The sandbox runs in a child process so that only the tool servers'
 * memory is measured here. Heap is measured after a forced GC at each quarter of the load.
 * SOAK_CLIENTS, SOAK_CALLS and SOAK_SNAPSHOTS=1 (writes heap snapshots at 25% and 100%) tune it.
 *
 * `--baseline <dir>` or BENCH_BASELINE=<dir> (bench/baseline.ts): the soak runs in child processes
 * instead, alternately this build's (build/bench/soak.js) and the baseline's own, each on its own
 * install, SOAK_ROUNDS times each (default 1), and prints the median heap and RSS levels this/baseline.
 */
import { spawn } from 'node:child_process';
import { writeHeapSnapshot } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp } from '../src/core/serving/serve.js';
import { SERVERS } from '../src/servers.js';
import { baselineFile, baselineRoot, ratioText } from './baseline.js';

const CLIENTS = Number(process.env.SOAK_CLIENTS ?? 64);
const CALLS = Number(process.env.SOAK_CALLS ?? 500);
const SNAPSHOTS = process.env.SOAK_SNAPSHOTS === '1';
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const KEY = 'soak-server-key-0123456789abcdef';

const gc = (globalThis as { gc?: () => void }).gc;

interface Sample {
  done: number;
  rss: number;
  heap: number;
}

interface SoakResult {
  output: string;
  callsPerSecond: number;
  samples: Sample[];
}

async function startSandboxProcess(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Sandbox running at (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { url, stop: () => child.kill() };
}

function memory(): { rss: number; heap: number } {
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss / 1048576, heap: usage.heapUsed / 1048576 };
}

async function soak(): Promise<void> {
  if (!gc) console.log('(run with --expose-gc for heap figures after a forced GC)');
  const sandbox = await startSandboxProcess();
  const servers = SERVERS.map((entry) =>
    entry.create({ baseUrl: `${sandbox.url}/${entry.id}`, accessToken: 'sandbox-token' }, { logger: silentLogger, env: {} }),
  );
  const http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: KEY, mounts: servers.map((server) => ({ path: `/${server.id}/mcp`, server })) });

  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const modern = i % 2 === 0;
      const client = new Client({ name: `soak-${i}`, version: '1' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      const path = i % 4 < 2 ? '/incidentops/mcp' : '/canvasapi/mcp';
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
      return { client, incident: path.startsWith('/incidentops') };
    }),
  );
  const boards = (await clients.find((c) => !c.incident)!.client.callTool({ name: 'CanvasApi.RetrieveUserBoards', arguments: {} })).structuredContent as { data: { id: string }[] };
  const board = boards.data[0]!.id;
  const teams = (await clients.find((c) => c.incident)!.client.callTool({ name: 'IncidentOps.ListTeams', arguments: { limit: 1 } })).structuredContent as { teams: { id: string }[] };
  const team = teams.teams[0]!.id;

  const samples: Sample[] = [{ done: 0, ...memory() }];
  const started = performance.now();
  for (let quarter = 1; quarter <= 4; quarter++) {
    const calls = CALLS / 4;
    await Promise.all(
      clients.map(async ({ client, incident }) => {
        for (let i = 0; i < calls; i++) {
          const result = incident
            ? await client.callTool({ name: i % 2 ? 'IncidentOps.ListIncidents' : 'IncidentOps.GetTeam', arguments: i % 2 ? { limit: 10 } : { team_id: team } })
            : await client.callTool({ name: i % 2 ? 'CanvasApi.RetrieveBoardItems' : 'CanvasApi.GetBoardTags', arguments: i % 2 ? { board_identifier: board } : { board_id: board } });
          if (result.isError) throw new Error(JSON.stringify(result.content));
        }
      }),
    );
    samples.push({ done: (CLIENTS * CALLS * quarter) / 4, ...memory() });
    if (SNAPSHOTS && (quarter === 1 || quarter === 4)) console.log(`heap snapshot: ${writeHeapSnapshot()}`);
  }
  const seconds = (performance.now() - started) / 1000;

  console.log(`soak: ${CLIENTS} HTTP clients x ${CALLS} calls = ${CLIENTS * CALLS} calls in ${seconds.toFixed(1)} s (${((CLIENTS * CALLS) / seconds).toFixed(0)} calls/s)`);
  console.log('calls done   rss MiB   heap used MiB (after GC)');
  for (const s of samples) console.log(`${String(s.done).padStart(10)}   ${s.rss.toFixed(0).padStart(7)}   ${s.heap.toFixed(1).padStart(13)}`);
  const [, first, , , last] = samples;
  if (first && last) console.log(`heap growth from 25% to 100% of the load: ${(last.heap - first.heap).toFixed(1)} MiB; rss: ${(last.rss - first.rss).toFixed(0)} MiB`);

  await Promise.all(clients.map(({ client }) => client.close()));
  await http.close();
  sandbox.stop();
}

/** The figures a soak printed: its calls/s and its table (rss rounded to 1 MiB, heap to 0.1 MiB). */
function readSoakOutput(output: string): SoakResult {
  const rate = /\((\d+) calls\/s\)/.exec(output);
  const samples = [...output.matchAll(/^\s*(\d+)\s+(\d+)\s+(\d+\.\d)\s*$/gm)].map((row) => ({ done: Number(row[1]), rss: Number(row[2]), heap: Number(row[3]) }));
  if (!rate || samples.length !== 5) throw new Error(`no soak figures in: ${output.slice(-600)}`);
  return { output, callsPerSecond: Number(rate[1]), samples };
}

/** One soak in a fresh process: `script` is this build's soak.js or the baseline's, each loading its own install. */
function soakInChild(script: string): Promise<SoakResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', script], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_BASELINE: '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${code}: ${output.slice(-600)}`));
      else {
        try {
          resolve(readSoakOutput(output));
        } catch (error) {
          reject(error);
        }
      }
    });
  });
}

/** This build's soak and the baseline's, alternately, each in its own process; their levels this/baseline. */
async function soakAgainstBaseline(root: string): Promise<void> {
  const builds = [
    { label: 'this build', script: fileURLToPath(import.meta.url), results: [] as SoakResult[] },
    { label: 'baseline', script: baselineFile(root, 'build/bench/soak.js'), results: [] as SoakResult[] },
  ];
  const rounds = Number(process.env.SOAK_ROUNDS ?? 1);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < builds.length; k++) {
      const build = builds[(k + round) % builds.length]!;
      const result = await soakInChild(build.script);
      build.results.push(result);
      console.log(`${build.label}, round ${round + 1}:\n${result.output.trimEnd()}`);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const level = (results: SoakResult[], at: number, pick: (s: Sample) => number) => median(results.map((r) => pick(r.samples[at]!)));
  const [ours, theirs] = builds.map((build) => build.results) as [SoakResult[], SoakResult[]];
  console.log(`\nthis build / baseline (${root}), medians of ${rounds} round(s):`);
  for (const [name, at] of [['before the load', 0], ['at 25% of the load', 1], ['at 100% of the load', 4]] as const) {
    console.log(`  heap used after GC ${name}: ${ratioText(level(ours, at, (s) => s.heap), level(theirs, at, (s) => s.heap))}x; rss: ${ratioText(level(ours, at, (s) => s.rss), level(theirs, at, (s) => s.rss))}x`);
  }
  const growth = (results: SoakResult[]) => median(results.map((r) => r.samples[4]!.heap - r.samples[1]!.heap));
  console.log(`  heap growth from 25% to 100%: ${growth(ours).toFixed(1)} MiB against ${growth(theirs).toFixed(1)} MiB; calls/s: ${ratioText(median(ours.map((r) => r.callsPerSecond)), median(theirs.map((r) => r.callsPerSecond)))}x`);
}

async function main(): Promise<void> {
  const root = baselineRoot();
  await (root ? soakAgainstBaseline(root) : soak());
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
