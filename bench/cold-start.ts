/**
 * `node build/bench/cold-start.js [--rounds N] [--cli label=path]...`: how long a client waits
 * from launching a server to its first tools/list answer over stdio, and how much memory (RSS)
 * the server holds right after that answer.
 *
 * Each round spawns, in turn, `toolservers canvasapi`, `toolservers incidentops` and the peer
 * server `@k-jarzyna/mcp-miro` (interleaved, so a machine that slows down mid-run slows all of
 * them alike), writes `initialize`, `notifications/initialized` and `tools/list` at once, and
 * stops the clock when the tools/list answer has arrived. Then it closes stdin and waits for the
 * process to exit before the next spawn. One untimed warm-up round fills the file cache first.
 *
 * The SDK's floor is a bare McpServer with one tool on the same SDK packages over stdio, bundled
 * with the same esbuild options as dist/cli.js and run with the same young generation: no server on
 * this SDK holds less memory.
 *
 * No network is used: our servers get a dummy token and an empty credentials file, the peer a
 * dummy MIRO_ACCESS_TOKEN (none of them contacts its platform before a tool call).
 *
 * By default the shipped CLI (dist/cli.js, `npm run build`) is measured; `--cli label=path`
 * (repeatable) measures other builds of it instead, e.g. `--cli tsc=dist/cli.js --cli bundle=dist-bundle/cli.js`.
 * `--baseline <dir>` or BENCH_BASELINE=<dir> (bench/baseline.ts) also measures that build's
 * dist/cli.js, interleaved with the others, and prints the time and RSS ratios this/baseline.
 * Prints per-target medians (and quartiles) and the ratio ours/peer.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { baselineFile, baselineRoot, ratioText } from './baseline.js';

interface Target {
  label: string;
  /** Our servers' targets: which server, and from which build (`--cli` label, or "baseline"). */
  server?: string;
  build?: string;
  command: string[];
  env: NodeJS.ProcessEnv;
  peer?: boolean;
  floor?: boolean;
}

interface Sample {
  ms: number;
  /** Resident memory (MB) right after the tools/list answer. */
  rssMb: number;
  tools: number;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TIMEOUT_MS = 20_000;

function parseArgs(argv: string[]): { rounds: number; clis: { label: string; file: string }[]; baseline?: { root: string; file: string } } {
  let rounds = Number(process.env.COLD_START_ROUNDS ?? 15);
  const clis: { label: string; file: string }[] = [];
  const root = baselineRoot(argv);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--rounds') rounds = Number(argv[++i]);
    else if (arg === '--baseline') i++;
    else if (arg === '--cli') {
      const value = argv[++i] ?? '';
      const eq = value.indexOf('=');
      clis.push(eq > 0 ? { label: value.slice(0, eq), file: path.resolve(ROOT, value.slice(eq + 1)) } : { label: value, file: path.resolve(ROOT, value) });
    } else throw new Error(`unknown argument ${arg}; usage: cold-start.js [--rounds N] [--cli label=path]... [--baseline dir]`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a positive integer');
  if (clis.length === 0) clis.push({ label: root ? 'this build' : '', file: path.join(ROOT, 'dist', 'cli.js') });
  for (const cli of clis) if (!existsSync(cli.file)) throw new Error(`${cli.file} does not exist (run npm run build first)`);
  return { rounds, clis, ...(root ? { baseline: { root, file: baselineFile(root, 'dist/cli.js') } } : {}) };
}

/** The peer's entry point, or undefined when the package is not installed. */
function peerEntry(): string | undefined {
  try {
    return createRequire(path.join(ROOT, 'package.json')).resolve('@k-jarzyna/mcp-miro');
  } catch {
    return undefined;
  }
}

const REQUESTS = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cold-start-bench', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
]
  .map((message) => JSON.stringify(message))
  .join('\n') + '\n';

/** The SDK's floor over stdio, bundled as dist/cli.js is (scripts/bundle.mjs): its entry file. */
async function bundleSdkFloor(scratch: string): Promise<string | undefined> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    return undefined;
  }
  const source = path.join(ROOT, 'build', 'bench', 'floor-stdio-entry.mjs');
  writeFileSync(
    source,
    [
      "import { McpServer } from '@modelcontextprotocol/server';",
      "import { serveStdio } from '@modelcontextprotocol/server/stdio';",
      "import { z } from 'zod';",
      "serveStdio(() => {",
      "  const server = new McpServer({ name: 'floor', version: '1.0.0' });",
      "  server.registerTool('get', { description: 'One GET.', inputSchema: z.object({ path: z.string() }) }, async ({ path }) => ({ content: [{ type: 'text', text: path }] }));",
      '  return server;',
      '});',
    ].join('\n'),
  );
  const outfile = path.join(scratch, 'floor-stdio.mjs');
  await esbuild.build({
    entryPoints: [source],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    charset: 'ascii',
    minifyWhitespace: true,
    banner: { js: "import { createRequire as __floorCreateRequire } from 'node:module'; const require = __floorCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  rmSync(source, { force: true });
  return outfile;
}

/** Resident memory of a running process in MB (Linux), or NaN where /proc is absent. */
function rssMbOf(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Milliseconds from spawn to the tools/list answer, memory right after it, and how many tools it listed. */
function measure(target: Target): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(target.command[0] as string, target.command.slice(1), { env: target.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    let stderr = '';
    let result: Sample | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${target.label}: no tools/list answer within ${TIMEOUT_MS} ms; stderr: ${stderr.slice(-2000)}`));
    }, TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (result) return;
      buffer += chunk.toString();
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let message: { id?: unknown; result?: { tools?: unknown[] }; error?: unknown };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          continue;
        }
        if (message.id !== 2) continue;
        const ms = performance.now() - started;
        if (!message.result?.tools) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          reject(new Error(`${target.label}: tools/list failed: ${line.slice(0, 500)}`));
          return;
        }
        result = { ms, rssMb: rssMbOf(child.pid), tools: message.result.tools.length };
        // Done: end the session and wait for the process to go, so runs never overlap.
        child.stdin.end();
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', () => {
      clearTimeout(timer);
      if (result) resolve(result);
      else reject(new Error(`${target.label}: exited before answering tools/list; stderr: ${stderr.slice(-2000)}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.write(REQUESTS);
  });
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

async function main(): Promise<void> {
  const { rounds, clis, baseline } = parseArgs(process.argv.slice(2));
  const scratch = mkdtempSync(path.join(tmpdir(), 'toolservers-cold-start-'));
  // A clean environment: no stored sign-in, dummy tokens, servers' own logging quiet.
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: scratch, TOOLSERVERS_CREDENTIALS_FILE: path.join(scratch, 'credentials.json'), TOOLSERVERS_LOG_LEVEL: 'warn' };
  const targets: Target[] = [];
  for (const cli of [...clis, ...(baseline ? [{ label: 'baseline', file: baseline.file }] : [])]) {
    const suffix = cli.label ? ` (${cli.label})` : '';
    targets.push({ label: `toolservers canvasapi${suffix}`, server: 'canvasapi', build: cli.label, command: [process.execPath, cli.file, 'canvasapi'], env: { ...base, CANVASAPI_ACCESS_TOKEN: 'dummy' } });
    targets.push({ label: `toolservers incidentops${suffix}`, server: 'incidentops', build: cli.label, command: [process.execPath, cli.file, 'incidentops'], env: { ...base, INCIDENTOPS_ACCESS_TOKEN: 'dummy' } });
  }
  const floor = await bundleSdkFloor(scratch);
  // Its young generation held small from the start (main.ts holds a stdio server's once it runs).
  if (floor) targets.push({ label: "the SDK's floor (bare McpServer)", command: [process.execPath, '--max-semi-space-size=1', floor], env: base, floor: true });
  const peer = peerEntry();
  if (peer) targets.push({ label: 'peer @k-jarzyna/mcp-miro', command: [process.execPath, peer], env: { PATH: process.env.PATH, HOME: scratch, MIRO_ACCESS_TOKEN: 'dummy' }, peer: true });
  else console.log('The peer @k-jarzyna/mcp-miro is not installed (npm install): measuring ours only.');

  const samples = new Map<Target, number[]>(targets.map((t) => [t, []]));
  const memory = new Map<Target, number[]>(targets.map((t) => [t, []]));
  const tools = new Map<Target, number>();
  try {
    for (const target of targets) tools.set(target, (await measure(target)).tools); // warm-up, untimed
    for (let round = 0; round < rounds; round++) {
      // Interleaved, in a rotating order, so no target always runs right after the same one.
      for (let k = 0; k < targets.length; k++) {
        const target = targets[(k + round) % targets.length] as Target;
        const sample = await measure(target);
        samples.get(target)?.push(sample.ms);
        memory.get(target)?.push(sample.rssMb);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const peerTarget = targets.find((t) => t.peer);
  const median = (values: number[] | undefined) => quantile([...(values ?? [])].sort((a, b) => a - b), 0.5);
  const peerMs = peerTarget ? median(samples.get(peerTarget)) : undefined;
  const peerRss = peerTarget ? median(memory.get(peerTarget)) : undefined;
  console.log(`Cold start: spawn to the first tools/list answer over stdio, and RSS right after it; Node ${process.version}, ${rounds} interleaved rounds (after one warm-up)\n`);
  console.log(`${'server'.padEnd(40)}${'tools'.padStart(6)}${'median ms'.padStart(11)}${'p25'.padStart(8)}${'p75'.padStart(8)}${'min'.padStart(8)}${'÷ peer'.padStart(9)}${'RSS MB'.padStart(9)}${'÷ peer'.padStart(9)}`);
  for (const target of targets) {
    const sorted = [...(samples.get(target) ?? [])].sort((a, b) => a - b);
    const ms = quantile(sorted, 0.5);
    const rss = median(memory.get(target));
    const msRatio = peerMs && !target.peer ? (ms / peerMs).toFixed(2) : '';
    const rssRatio = peerRss && !target.peer ? (rss / peerRss).toFixed(2) : '';
    console.log(
      `${target.label.padEnd(40)}${String(tools.get(target) ?? '').padStart(6)}${ms.toFixed(0).padStart(11)}${quantile(sorted, 0.25).toFixed(0).padStart(8)}${quantile(sorted, 0.75).toFixed(0).padStart(8)}${(sorted[0] ?? NaN).toFixed(0).padStart(8)}${msRatio.padStart(9)}${rss.toFixed(1).padStart(9)}${rssRatio.padStart(9)}`,
    );
  }
  if (baseline) {
    console.log(`\nthis build / baseline (${baseline.root}):`);
    console.log(`${''.padEnd(40)}${'median ms'.padStart(11)}${'RSS MB'.padStart(9)}`);
    for (const ours of targets.filter((t) => t.server && t.build !== 'baseline')) {
      const theirs = targets.find((t) => t.server === ours.server && t.build === 'baseline');
      if (!theirs) continue;
      const msRatio = ratioText(median(samples.get(ours)), median(samples.get(theirs)));
      const rssRatio = ratioText(median(memory.get(ours)), median(memory.get(theirs)));
      console.log(`${ours.label.padEnd(40)}${`${msRatio}x`.padStart(11)}${`${rssRatio}x`.padStart(9)}`);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
