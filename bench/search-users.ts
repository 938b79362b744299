/**
 * SearchUsers speed, standalone: `npm run build:test && node build/bench/search-users.js`.
 *
 * Against the sandbox (10,000 users, 50 ms artificial latency per request), interleaved in one run:
 * - cold SearchUsers (a fresh server each round: fetch the directory, index it, rank) against the
 *   "100-sequential-page baseline": the same 100 pages of /users fetched one after another through
 *   the same API client;
 * - cached SearchUsers through MCP (buildMcpServer + in-memory transport + SDK client), p50/p95
 *   over a mix of queries (names, typos, prefixes, whole and partial e-mails, folded letters);
 * - the matcher alone (rankUsers on the prepared index), p50 per query.
 * Prints numbers and the ratios to the targets (cold <= 0.1x baseline, cached p50 <= 25 ms).
 * With BENCH_REDIS_URL (a Redis to use, e.g. redis://127.0.0.1:6379/15; its keys under
 * `bench-<pid>:` are deleted at the end), also two replicas sharing it: the first search on one
 * replica (walk, then shared), the first on the other (read from Redis, decoded, indexed), and
 * cached searches on a replica with the store.
 * `--baseline <dir>` or BENCH_BASELINE=<dir> (bench/baseline.ts): that build's SearchUsers runs in
 * this process against the same sandbox, interleaved with this build's (the order alternating each
 * round): cold calls, cached calls through MCP (a fresh server per build, warmed up alike), and the
 * matcher alone; it prints `this / baseline` of wall time and of this process's CPU (steadier on a
 * loaded machine).
 * Nothing asserts; environment: BENCH_USERS, BENCH_LATENCY_MS, BENCH_COLD_ROUNDS, BENCH_CACHED_ROUNDS, BENCH_REDIS_URL.
 */
import { performance } from 'node:perf_hooks';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { buildMcpServer, executeTool, findTool, viewFor, type AnyToolServer } from '../src/core/tools/registry.js';
import type { IncidentOpsDeps } from '../src/incidentops/deps.js';
import { createIncidentOpsServer } from '../src/incidentops/index.js';
import { resolveIncidentOpsSettings } from '../src/incidentops/settings.js';
import { createUserIndex, rankUsers } from '../src/incidentops/user-matching.js';
import { directoryKey } from '../src/incidentops/user-directory.js';
import type { SharedStore } from '../src/core/store/store.js';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { baselineFile, baselineRoot, ratioText } from './baseline.js';

/** What the bench runs of one build: this one's modules, or the baseline's (imported from its build/). */
interface Build {
  label: string;
  serverFor(sandbox: PlatformProcess): AnyToolServer;
  executeTool: typeof executeTool;
  findTool: typeof findTool;
  buildMcpServer: typeof buildMcpServer;
  viewFor: typeof viewFor;
  createUserIndex: typeof createUserIndex;
  rankUsers: typeof rankUsers;
}

const THIS_BUILD: Build = { label: 'this build', serverFor: (sandbox) => serverFor(sandbox), executeTool, findTool, buildMcpServer, viewFor, createUserIndex, rankUsers };

async function loadBaseline(root: string): Promise<Build> {
  const load = (relative: string) => import(pathToFileURL(baselineFile(root, relative)).href);
  const [registry, index, settings, logger, matching] = await Promise.all([
    load('build/src/core/tools/registry.js'),
    load('build/src/incidentops/index.js'),
    load('build/src/incidentops/settings.js'),
    load('build/src/core/logger.js'),
    load('build/src/incidentops/user-matching.js'),
  ]);
  return {
    label: `baseline ${root}`,
    serverFor: (sandbox) =>
      index.createIncidentOpsServer({
        settings: settings.resolveIncidentOpsSettings({ baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token }, {}),
        logger: logger.silentLogger,
        version: 'bench-baseline',
      }),
    executeTool: registry.executeTool,
    findTool: registry.findTool,
    buildMcpServer: registry.buildMcpServer,
    viewFor: registry.viewFor,
    createUserIndex: matching.createUserIndex,
    rankUsers: matching.rankUsers,
  };
}

/** The platform runs in its own process, as a real one does: its CPU is not charged to the search. */
interface PlatformProcess {
  incidentops: { baseUrl: string; token: string };
  close(): Promise<void>;
}

async function startPlatform(users: number, latencyMs: number): Promise<PlatformProcess> {
  const cli = fileURLToPath(new URL('../src/cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--users', String(users), '--latency', String(latencyMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /IncidentOps base URL:\s+(\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  return { incidentops: { baseUrl, token: 'sandbox-token' }, close: async () => void child.kill() };
}

const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 50);
const COLD_ROUNDS = Number(process.env.BENCH_COLD_ROUNDS ?? 7);
const CACHED_ROUNDS = Number(process.env.BENCH_CACHED_ROUNDS ?? 10);

type Json = Record<string, unknown>;

function median(samples: number[]): number {
  return percentile(samples, 50);
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function serverFor(sandbox: PlatformProcess, store?: SharedStore): AnyToolServer {
  return createIncidentOpsServer({
    settings: resolveIncidentOpsSettings({ baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token }, {}),
    logger: silentLogger,
    version: 'bench',
    ...(store ? { store } : {}),
  });
}

/** Two replicas on one Redis: first search on each, then cached searches on one. */
async function replicas(sandbox: PlatformProcess, redisUrl: string, queries: string[]): Promise<void> {
  const { RedisStore } = await import('../src/core/store/redis-store.js');
  const keyPrefix = `bench-${process.pid}:`;
  const stores = [await RedisStore.connect({ url: redisUrl, keyPrefix }), await RedisStore.connect({ url: redisUrl, keyPrefix })];
  const [a, b] = stores.map((store) => serverFor(sandbox, store)) as [AnyToolServer, AnyToolServer];
  const search = async (server: AnyToolServer, query: string) => {
    const started = performance.now();
    const result = await executeTool(server, findTool(server, 'IncidentOps.SearchUsers')!, { query }, new AbortController().signal);
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return performance.now() - started;
  };
  const walked = await search(a, queries[0]!);
  // The first replica shares in the background: wait until the directory is in Redis.
  while ((await stores[0]!.get(directoryKey(sandbox.incidentops.baseUrl, undefined))) === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
  const fromStore = await search(b, queries[1]!);
  const cached: number[] = [];
  for (let round = 0; round < CACHED_ROUNDS; round++) for (const query of queries) cached.push(await search(b, query));
  console.log(`\ntwo replicas on Redis: first search on replica A (walk, then shared) ${walked.toFixed(0)} ms; first on replica B (read from Redis, decode, index) ${fromStore.toFixed(0)} ms`);
  console.log(`cached SearchUsers on replica B (executeTool, ${cached.length} calls): p50 ${percentile(cached, 50).toFixed(2)} ms, p95 ${percentile(cached, 95).toFixed(2)} ms`);
  await stores[0]!.delete(directoryKey(sandbox.incidentops.baseUrl, undefined));
  await Promise.all(stores.map((store) => store.close()));
}

/** Per cold call: this process's CPU too, steadier than wall time on a shared machine (the platform's CPU is in its own process). */
const coldCpu = new Map<Build, number[]>();

async function coldSearch(sandbox: PlatformProcess, query: string, build: Build = THIS_BUILD): Promise<number> {
  const server = build.serverFor(sandbox);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await build.executeTool(server, build.findTool(server, 'IncidentOps.SearchUsers')!, { query }, new AbortController().signal);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  coldCpu.set(build, [...(coldCpu.get(build) ?? []), (used.user + used.system) / 1000]);
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return ms;
}

async function sequentialPages(sandbox: PlatformProcess, pages: number): Promise<number> {
  const { api } = serverFor(sandbox).deps as IncidentOpsDeps;
  const signal = new AbortController().signal;
  const started = performance.now();
  for (let page = 0; page < pages; page++) await api.listPage('/users', 'users', { limit: 100, offset: page * 100 }, signal);
  return performance.now() - started;
}

/** The matcher alone on the prepared index, the builds alternating per sample; MCP p50s of this build beside it. */
function compareMatchers(builds: Build[], users: Json[], queries: [string, string][], mcpPerQuery: Map<string, number[]>, withBaseline: boolean): void {
  const root = withBaseline;
  const inOrder = (round: number) => (round % 2 === 0 ? builds : [...builds].reverse());
  const perQuery = [mcpPerQuery];
  const slim = users.map((u) => ({ id: String(u.id), name: String(u.name ?? ''), email: String(u.email ?? '') }));
  const indexes = builds.map((build) => build.createUserIndex(slim));
  console.log(`\n${'query'.padEnd(24)}${'MCP p50'.padStart(10)}${'matcher p50'.padStart(14)}${root ? 'baseline'.padStart(10) : ''}   top match`);
  const matcherTotals = builds.map(() => 0);
  for (const [label, query] of queries) {
    const samples = builds.map(() => [] as number[]);
    let top = '';
    for (let i = 0; i < 20; i++) {
      for (const build of inOrder(i)) {
        const b = builds.indexOf(build);
        const started = performance.now();
        const ranked = build.rankUsers(query, indexes[b] as ReturnType<typeof createUserIndex>);
        samples[b]!.push(performance.now() - started);
        if (b === 0) top = ranked[0] ? `${ranked[0].user.name} (${ranked[0].confidence})` : '-';
      }
    }
    samples.forEach((list, b) => (matcherTotals[b]! += percentile(list, 50)));
    const theirs = samples[1] ? percentile(samples[1], 50).toFixed(2).padStart(10) : '';
    console.log(`${label.padEnd(24)}${percentile(perQuery[0]!.get(label)!, 50).toFixed(2).padStart(10)}${percentile(samples[0]!, 50).toFixed(2).padStart(14)}${theirs}   ${JSON.stringify(query)} -> ${top}`);
  }
  if (root) console.log(`matcher this build / baseline (sum of per-query p50s): ${ratioText(matcherTotals[0]!, matcherTotals[1]!)}`);
  for (const build of builds) {
    const indexStarted = performance.now();
    build.createUserIndex(slim);
    console.log(`index build for ${users.length} users, ${build.label}: ${(performance.now() - indexStarted).toFixed(0)} ms`);
  }

}

async function main(): Promise<void> {
  const sandbox = await startPlatform(USERS, LATENCY_MS);
  const pages = Math.ceil(USERS / 100);
  console.log(`SearchUsers bench: ${USERS} sandbox users (${pages} pages), ${LATENCY_MS} ms latency per request, sandbox in its own process`);

  // The directory as the platform serves it (no latency matters here: one direct read for the queries).
  const server = serverFor(sandbox);
  const deps = server.deps as IncidentOpsDeps;
  const directory = await deps.directory.get(new AbortController().signal);
  const users = directory.users;
  const pick = (i: number) => users[Math.floor((i * users.length) / 7) % users.length]!;
  const a = pick(1);
  const b = pick(3);
  const c = pick(5);
  const first = (u: Json) => String(u.name).split(' ')[0]!;
  const last = (u: Json) => String(u.name).split(' ').slice(-1)[0]!;
  const typo = (s: string) => (s.length > 4 ? s.slice(0, 2) + s[3] + s[2] + s.slice(4) : s + 'x');
  const queries: [string, string][] = [
    ['full name', String(a.name)],
    ['full name, other case', String(b.name).toUpperCase()],
    ['whole e-mail', String(c.email)],
    ['e-mail local part', String(a.email).split('@')[0]!],
    ['e-mail prefix with @', `${String(b.email).split('@')[0]!}@`],
    ['first name', first(c)],
    ['last name', last(a)],
    ['name prefix', first(b).slice(0, 3)],
    ['typo in full name', `${typo(first(a))} ${last(a)}`],
    ['typo, one word', typo(last(b))],
    ['reversed', `${last(c)} ${first(c)}`],
    ['domain fragment', String(a.email).split('@')[1]!],
    ['folded letters', 'Jørgen Müller'],
    ['gibberish', 'zzqxv'],
  ];

  const root = baselineRoot();
  const builds = root ? [THIS_BUILD, await loadBaseline(root)] : [THIS_BUILD];
  /** Round r runs the builds in this order: alternating, so neither always goes first. */
  const inOrder = (round: number) => (round % 2 === 0 ? builds : [...builds].reverse());

  // Cold vs the 100-sequential-page baseline, interleaved (and against the baseline build's cold call).
  const cold = builds.map(() => [] as number[]);
  const baseline: number[] = [];
  for (let round = 0; round < COLD_ROUNDS; round++) {
    baseline.push(await sequentialPages(sandbox, pages));
    for (const build of inOrder(round)) cold[builds.indexOf(build)]!.push(await coldSearch(sandbox, queries[round % queries.length]![1], build));
  }
  const baseP50 = percentile(baseline, 50);
  for (const [b, build] of builds.entries()) {
    const p50 = percentile(cold[b]!, 50);
    console.log(`\ncold SearchUsers, ${build.label} (fresh server: fetch, index, rank): ${cold[b]!.map((x) => x.toFixed(0)).join(', ')} ms; p50 ${p50.toFixed(0)} ms`);
    console.log(`ratio cold / 100-sequential-page baseline: ${(p50 / baseP50).toFixed(3)}x (target <= 0.1x)`);
  }
  console.log(`100-sequential-page baseline (${pages} pages one after another):   ${baseline.map((x) => x.toFixed(0)).join(', ')} ms; p50 ${baseP50.toFixed(0)} ms`);
  for (const build of builds) console.log(`cold SearchUsers CPU in this process, ${build.label}: p50 ${percentile(coldCpu.get(build)!, 50).toFixed(0)} ms`);
  if (cold[1]) {
    const [ours, theirs] = builds.map((build) => coldCpu.get(build)!) as [number[], number[]];
    console.log(`cold this build / baseline: p50 ${ratioText(percentile(cold[0]!, 50), percentile(cold[1], 50))}; median of per-round ratios ${ratioText(median(cold[0]!.map((x, i) => x / cold[1]![i]!)), 1)}; CPU p50 ${ratioText(percentile(ours, 50), percentile(theirs, 50))}`);
  }

  // Cached, through MCP: each build's server keeps its directory; the calls alternate between builds.
  const clients = await Promise.all(
    builds.map(async (build) => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      // A fresh server for each build, warmed up alike below (this build's first server walked before the cold rounds).
      const mcp = build.buildMcpServer(build.viewFor(build.serverFor(sandbox)));
      await mcp.connect(serverSide);
      const client = new Client({ name: 'search-users-bench', version: '1' });
      await client.connect(clientSide);
      return client;
    }),
  );
  const call = async (client: Client, query: string, auto = false) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await client.callTool({ name: 'IncidentOps.SearchUsers', arguments: { query, auto_accept_matches: auto } });
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return { ms, cpuMs: (used.user + used.system) / 1000, data: result.structuredContent as Json };
  };
  for (const client of clients) for (const [, query] of queries) await call(client, query); // warm-up (JIT, index built)
  const all = builds.map(() => [] as number[]);
  /** CPU of each cached call in this process (client, transport and server: the same SDK for both builds), steadier than wall time under load. */
  const cachedCpu = builds.map(() => [] as number[]);
  const perQuery = builds.map(() => new Map<string, number[]>());
  for (let round = 0; round < CACHED_ROUNDS; round++) {
    for (const [label, query] of queries) {
      for (const build of inOrder(round)) {
        const b = builds.indexOf(build);
        const { ms, cpuMs } = await call(clients[b]!, query, round % 2 === 1);
        all[b]!.push(ms);
        cachedCpu[b]!.push(cpuMs);
        perQuery[b]!.set(label, [...(perQuery[b]!.get(label) ?? []), ms]);
      }
    }
  }
  for (const [b, build] of builds.entries()) {
    const cachedP50 = percentile(all[b]!, 50);
    console.log(`\ncached SearchUsers through MCP, ${build.label} (${all[b]!.length} calls): p50 ${cachedP50.toFixed(1)} ms, p95 ${percentile(all[b]!, 95).toFixed(1)} ms, max ${Math.max(...all[b]!).toFixed(1)} ms`);
    console.log(`ratio cached p50 / 25 ms target: ${(cachedP50 / 25).toFixed(2)}x (target <= 1)`);
  }
  if (all[1]) {
    const cpuSum = (b: number) => cachedCpu[b]!.reduce((sum, x) => sum + x, 0);
    console.log(`cached this build / baseline: p50 ${ratioText(percentile(all[0]!, 50), percentile(all[1], 50))}, p95 ${ratioText(percentile(all[0]!, 95), percentile(all[1], 95))}; CPU per call ${ratioText(cpuSum(0), cpuSum(1))}`);
  }

  compareMatchers(builds, users, queries, perQuery[0]!, Boolean(root));

  if (process.env.BENCH_REDIS_URL) await replicas(sandbox, process.env.BENCH_REDIS_URL, queries.map(([, query]) => query));

  await Promise.all(clients.map((client) => client.close()));
  await sandbox.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
