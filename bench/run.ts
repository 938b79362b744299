/**
 * `npm run bench`: speed, memory and context size, measured against the sandbox.
 * Prints a table; nothing here asserts, numbers are for people to compare between changes.
 */
import { performance } from 'node:perf_hooks';
import { executeTool, findTool, listTools, type AnyToolServer } from '../src/core/tools/registry.js';
import { silentLogger } from '../src/core/logger.js';
import { contextSize } from '../src/core/tools/context-size.js';
import { profilesOf } from '../src/core/tools/selection.js';
import { createCanvasApiServer } from '../src/canvasapi/index.js';
import { resolveCanvasApiSettings } from '../src/canvasapi/settings.js';
import { createIncidentOpsServer } from '../src/incidentops/index.js';
import { resolveIncidentOpsSettings } from '../src/incidentops/settings.js';
import { startSandbox } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { runHttpBench } from './http.js';

const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 0);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function time(server: AnyToolServer, name: string, args: unknown, rounds: number): Promise<{ p50: number; p95: number; max: number }> {
  const tool = findTool(server, name);
  if (!tool) throw new Error(`no tool ${name}`);
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const result = await executeTool(server, tool, args, new AbortController().signal);
    samples.push(performance.now() - started);
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), max: samples[samples.length - 1] ?? 0 };
}

function row(cells: (string | number)[]): string {
  return cells.map((c, i) => (typeof c === 'number' ? c.toFixed(1) : c).padEnd(i === 0 ? 56 : 12)).join('');
}

async function main(): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const sandboxStarted = performance.now();
  const sandbox = await startSandbox({ port: 0, latencyMs: LATENCY_MS, incidentops: { users: USERS } });
  const sandboxMs = performance.now() - sandboxStarted;
  const server = createIncidentOpsServer({
    settings: resolveIncidentOpsSettings({ baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token }, {}),
    logger: silentLogger,
    version: 'bench',
  });

  console.log(`toolservers benchmark: ${USERS} sandbox users, ${ROUNDS} rounds, ${LATENCY_MS} ms artificial latency`);
  console.log(`sandbox start (data generation): ${sandboxMs.toFixed(0)} ms\n`);

  console.log('Context size of tools/list (what an agent pays up front):');
  for (const entry of SERVERS) {
    const server = entry.create({}, { logger: silentLogger });
    for (const profile of Object.keys(profilesOf(server))) {
      const size = await contextSize(listTools(server, { selections: [{ profile }] }));
      console.log(`  ${entry.name.padEnd(12)} ${profile.padEnd(14)} ${String(size.tools).padStart(4)} tools, ${size.listBytes} bytes (${size.modelVisibleBytes} model-visible), ${size.listTokens} tokens`);
    }
  }

  console.log('\nSearchUsers over the whole directory:');
  const coldStarted = performance.now();
  const cold = await executeTool(server, findTool(server, 'IncidentOps.SearchUsers')!, { query: 'demo' }, new AbortController().signal);
  const coldMs = performance.now() - coldStarted;
  if (cold.isError) throw new Error(JSON.stringify(cold.content));
  const requests = sandbox.requests.filter((r) => r.path === '/users').length;
  console.log(`  cold (fetch ${USERS} users in ${requests} requests, index, rank): ${coldMs.toFixed(0)} ms`);

  console.log('\n' + row(['tool call (ms)', 'p50', 'p95', 'max']));
  const cases: [string, unknown][] = [
    ['IncidentOps.SearchUsers', { query: 'jonh smth' }],
    ['IncidentOps.WhoAmI', {}],
    ['IncidentOps.ListIncidents', { limit: 50 }],
    ['IncidentOps.ListOnCalls', { limit: 50 }],
    ['IncidentOps.ListSchedules', { limit: 50 }],
    ['IncidentOps.ListUsers', { limit: 50, offset: 5000 }],
    ['IncidentOps.ListLogEntries', { limit: 50 }],
    ['IncidentOps.ListServices', { limit: 50 }],
  ];
  for (const [name, args] of cases) {
    const t = await time(server, name, args, ROUNDS);
    console.log(row([name, t.p50, t.p95, t.max]));
  }
  const teams = await executeTool(server, findTool(server, 'IncidentOps.ListTeams')!, { limit: 1 }, new AbortController().signal);
  const teamId = ((teams.structuredContent as { teams: { id: string }[] }).teams[0] as { id: string }).id;
  const t = await time(server, 'IncidentOps.GetTeam', { team_id: teamId }, ROUNDS);
  console.log(row(['IncidentOps.GetTeam', t.p50, t.p95, t.max]));

  const canvas = createCanvasApiServer({
    settings: resolveCanvasApiSettings({ baseUrl: sandbox.canvasapi.baseUrl, accessToken: sandbox.canvasapi.token }, {}),
    logger: silentLogger,
    version: 'bench',
  });
  const board = sandbox.canvasapi.demo?.boardIds[0] ?? '';
  const stickyBody = JSON.stringify({ data: { content: 'bench' }, position: { x: 0, y: 0 } });
  const canvasCases: [string, unknown][] = [
    ['CanvasApi.RetrieveUserBoards', { maximum_number_of_boards: '50' }],
    ['CanvasApi.RetrieveBoardItems', { board_identifier: board, items_limit: '50' }],
    ['CanvasApi.AddStickyNoteToBoard', { mode: 'get_request_schema' }],
    ['CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: stickyBody }],
  ];
  for (const [name, args] of canvasCases) {
    const c = await time(canvas, name, args, ROUNDS);
    const label = (args as { mode?: string }).mode ? `${name} (${String((args as { mode: string }).mode)})` : name;
    console.log(row([label, c.p50, c.p95, c.max]));
  }

  const invalidTool = findTool(server, 'IncidentOps.ListIncidents')!;
  const started = performance.now();
  for (let i = 0; i < 1000; i++) await executeTool(server, invalidTool, { limit: 500, status: 'nope' }, new AbortController().signal);
  console.log(`rejecting invalid input: ${((performance.now() - started) * 1000 / 1000).toFixed(0)} µs per call`);

  const rss = process.memoryUsage().rss;
  console.log(`\nmemory: rss ${(rss / 1048576).toFixed(0)} MiB (was ${(rssBefore / 1048576).toFixed(0)} MiB at start; includes the sandbox)`);
  await sandbox.close();

  console.log('\nHTTP against the bare SDK floor (interleaved, servers in child processes):');
  await runHttpBench();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
