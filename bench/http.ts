/**
 * HTTP bench: toolservers against the floor (bench/floor-server.ts, a bare server on the same SDK
 * packages doing the same upstream GET with plain fetch), each server in its own child process,
 * the sandbox in another, the load from this one. Rounds are interleaved (floor, IncidentOps,
 * CanvasApi in rotating order) so that machine noise hits all of them alike.
 *
 * Per target and round: sequential calls from one client (latency), then 32 concurrent clients
 * (calls/s), with the server process's CPU time (process.cpuUsage over IPC) around both.
 * Calls are the same upstream GET: IncidentOps.GetService and CanvasApi.RetrieveBoardInfo, and
 * the floor's fetch of the very same URLs. The HTTP requests are the ones the official client
 * sends (captured once, then replayed over keep-alive connections, so the client costs little).
 *
 * BENCH_HTTP_ROUNDS (default 6), BENCH_HTTP_SEQ (calls per latency round, default 200),
 * BENCH_HTTP_CLIENTS (default 32), BENCH_HTTP_CALLS (calls per client per round, default 40).
 * BENCH_HTTP_PROFILE=<dir> writes a CPU profile of each server process there (node --cpu-prof).
 *
 * `--baseline <dir>` or BENCH_BASELINE=<dir> (bench/baseline.ts: another commit's checkout, built)
 * also starts that build's two servers (its build/bench/http-child.js, on the same sandbox),
 * interleaved with this build's, and prints p50, calls/s and server CPU per call this/baseline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { baselineFile, baselineRoot, ratioText } from './baseline.js';

const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 6);
const SEQ = Number(process.env.BENCH_HTTP_SEQ ?? 200);
const CLIENTS = Number(process.env.BENCH_HTTP_CLIENTS ?? 32);
const CALLS = Number(process.env.BENCH_HTTP_CALLS ?? 40);
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const CHILD = fileURLToPath(new URL('./http-child.js', import.meta.url));
const SERVER_KEY = 'bench-server-key-0123456789abcdef';
const TOKEN = 'sandbox-token';
const PROFILE_DIR = process.env.BENCH_HTTP_PROFILE;

export interface Captured {
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export interface Target {
  name: string;
  /** On the floor's targets: the platform whose GET it does. */
  floorOf?: string;
  /** What a server's target measures (its platform, or an auth mode): this build's and the baseline's targets of one series are compared. */
  series?: string;
  /** Whether it is the baseline build's server. */
  baseline?: boolean;
  child: ChildProcess;
  call: Captured;
  latency: number[];
  seconds: number[];
  calls: number;
  cpuMicros: number;
  errors: number;
}

export function readLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${out}`)));
  });
}

export function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: unknown): void => {
      const cpu = (message as { cpu?: { user: number; system: number } }).cpu;
      if (!cpu) return;
      child.off('message', onMessage);
      resolve(cpu.user + cpu.system);
    };
    child.on('message', onMessage);
    child.send('cpu');
  });
}

/** The HTTP request the official client sends for this tool call (modern protocol revision). */
export async function capture(endpoint: string, headers: Record<string, string>, name: string, args: Record<string, unknown>): Promise<Captured> {
  let captured: Captured | undefined;
  const recording = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const body = typeof init?.body === 'string' ? init.body : undefined;
    if (body?.includes('"tools/call"')) {
      const sent: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => (sent[key] = value));
      captured = { url: new URL(String(input)), headers: sent, body };
    }
    return fetch(input, init);
  };
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { fetch: recording, requestInit: { headers } }));
  const result = await client.callTool({ name, arguments: args });
  await client.close();
  if (result.isError || !captured) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return captured;
}

// Idle sockets are dropped after 4 s, before servers close them (Node's default: 5 s), so no
// call is written onto a socket the server is closing (that race is the client's, not the server's).
const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4000 });

export let firstError: string | undefined;

/** One replayed call; true when it answered a tool result that is no error. */
export function callOnce(call: Captured): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(call.url, { method: 'POST', agent, headers: { ...call.headers, 'content-length': Buffer.byteLength(call.body).toString() } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const ok = res.statusCode === 200 && text.includes('"result"') && !text.includes('"isError":true');
        if (!ok) firstError ??= `HTTP ${res.statusCode}: ${text.slice(0, 600)}`;
        resolve(ok);
      });
      res.on('error', () => resolve(false));
    });
    req.on('error', (error) => {
      firstError ??= String(error);
      resolve(false);
    });
    req.end(call.body);
  });
}

export async function round(target: Target, record: boolean): Promise<void> {
  const cpuBefore = await cpuOf(target.child);
  let errors = 0;
  for (let i = 0; i < SEQ; i++) {
    const started = performance.now();
    if (!(await callOnce(target.call))) errors += 1;
    if (record) target.latency.push(performance.now() - started);
  }
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = 0; i < CALLS; i++) if (!(await callOnce(target.call))) errors += 1;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await cpuOf(target.child);
  if (!record) return;
  target.seconds.push(seconds);
  target.calls += SEQ + CLIENTS * CALLS;
  target.cpuMicros += cpuAfter - cpuBefore;
  target.errors += errors;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export interface Figures {
  t: Target;
  p50: number;
  rate: number;
  cpu: number;
}

/** A target's p50 latency (ms), median calls/s under CLIENTS concurrent clients, and server CPU ms per call. */
export function figuresOf(t: Target): Figures {
  return { t, p50: median(t.latency), rate: (CLIENTS * CALLS) / median(t.seconds), cpu: t.cpuMicros / 1000 / t.calls };
}

/** One line per pair: this build's figures over the baseline's (below 1 is better for p50 and CPU, above 1 for calls/s). */
export function printAgainstBaseline(pairs: { name: string; ours: Figures; theirs: Figures }[], root: string): void {
  const width = Math.max(30, ...pairs.map((pair) => pair.name.length + 2));
  console.log(`\nthis build / baseline (${root}):`);
  console.log(''.padEnd(width) + 'p50 ms'.padEnd(12) + `calls/s @${CLIENTS}`.padEnd(16) + 'server CPU ms/call');
  for (const { name, ours, theirs } of pairs) {
    console.log(name.padEnd(width) + `${ratioText(ours.p50, theirs.p50)}x`.padEnd(12) + `${ratioText(ours.rate, theirs.rate)}x`.padEnd(16) + `${ratioText(ours.cpu, theirs.cpu)}x`);
  }
}

/** Server processes leave when their IPC channel closes (so that a CPU profile gets written). */
export async function stopChildren(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (child.connected) child.disconnect();
      else child.kill();
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 3000).unref())]);
      if (child.exitCode === null) child.kill();
    }),
  );
}

export async function runHttpBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-bench-'));
  const children: ChildProcess[] = [];
  try {
    const sandbox = spawn(process.execPath, [CLI, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(sandbox);
    const sandboxUrl = await readLine(sandbox, /Sandbox running at (\S+)/);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const services = (await (await fetch(`${sandboxUrl}/incidentops/services?limit=1`, { headers: { ...auth, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' } })).json()) as { services: { id: string }[] };
    const boards = (await (await fetch(`${sandboxUrl}/canvasapi/v2/boards?limit=1`, { headers: auth })).json()) as { data: { id: string }[] };
    const serviceId = services.services[0]!.id;
    const boardId = boards.data[0]!.id;

    // A stored sign-in per platform, as `toolservers login` leaves it.
    const credentialsFile = path.join(dir, 'credentials.json');
    const entry = (platform: string) => ({ platform, accessToken: TOKEN, tokenType: 'bearer', obtainedAt: Date.now(), baseUrl: `${sandboxUrl}/${platform}` });
    writeFileSync(credentialsFile, JSON.stringify({ version: 1, credentials: { incidentops: entry('incidentops'), canvasapi: entry('canvasapi') } }), { mode: 0o600 });

    const baseline = baselineRoot();
    const baselineChild = baseline ? baselineFile(baseline, 'build/bench/http-child.js') : undefined;
    const start = async (kind: string, script = CHILD, profileName = kind): Promise<{ child: ChildProcess; url: string }> => {
      const flags = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${profileName}.cpuprofile`] : [];
      const child = spawn(process.execPath, [...flags, script, kind, sandboxUrl, credentialsFile], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
      children.push(child);
      return { child, url: await readLine(child, /READY (\S+)/) };
    };
    const floor = await start('floor');
    const keyed = { authorization: `Bearer ${SERVER_KEY}` };
    const target = (name: string, child: ChildProcess, call: Captured, more: Partial<Target>): Target => ({ name, child, call, latency: [], seconds: [], calls: 0, cpuMicros: 0, errors: 0, ...more });
    const platforms = [
      { platform: 'IncidentOps', kind: 'incidentops', floorPath: `/incidentops/services/${serviceId}`, tool: 'IncidentOps.GetService', args: { service_id: serviceId } },
      { platform: 'CanvasApi', kind: 'canvasapi', floorPath: `/canvasapi/v2/boards/${boardId}`, tool: 'CanvasApi.RetrieveBoardInfo', args: { board_unique_identifier: boardId } },
    ];
    const targets: Target[] = [];
    for (const { platform, kind, floorPath, tool, args } of platforms) {
      const ours = await start(kind);
      targets.push(target(`floor (${platform} GET)`, floor.child, await capture(floor.url, {}, 'get', { path: floorPath }), { floorOf: platform }));
      targets.push(target(tool, ours.child, await capture(ours.url, keyed, tool, args), { series: platform }));
      if (baselineChild) {
        const theirs = await start(kind, baselineChild, `${kind}-baseline`);
        targets.push(target(`${tool} (baseline)`, theirs.child, await capture(theirs.url, keyed, tool, args), { series: platform, baseline: true }));
      }
    }

    console.log(`\nHTTP against the floor (bare SDK server, same upstream GET): ${ROUNDS} interleaved rounds of ${SEQ} sequential calls + ${CLIENTS} clients x ${CALLS} calls`);
    for (const t of targets) await round(t, false); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < targets.length; i++) await round(targets[(i + r) % targets.length]!, true);
    }

    const figures = targets.map(figuresOf);
    const pad = (text: string, width: number) => text.padEnd(width);
    const nameWidth = Math.max(30, ...targets.map((t) => t.name.length + 2));
    console.log(pad('', nameWidth) + pad('p50 ms (x floor)', 20) + pad(`calls/s @${CLIENTS} (x floor)`, 24) + pad('server CPU ms/call (x floor)', 30) + 'errors');
    for (const f of figures) {
      const base = f.t.floorOf ? undefined : figures.find((candidate) => candidate.t.floorOf === f.t.series);
      const ratio = (value: number, floorValue: number | undefined) => (floorValue ? ` (${(value / floorValue).toFixed(2)}x)` : '');
      console.log(
        pad(f.t.name, nameWidth) +
          pad(`${f.p50.toFixed(2)}${ratio(f.p50, base?.p50)}`, 20) +
          pad(`${f.rate.toFixed(0)}${ratio(f.rate, base?.rate)}`, 24) +
          pad(`${f.cpu.toFixed(2)}${ratio(f.cpu, base?.cpu)}`, 30) +
          String(f.t.errors),
      );
    }
    if (baseline) {
      const pairs = figures.flatMap((ours) => {
        const theirs = ours.t.series && !ours.t.baseline ? figures.find((f) => f.t.baseline && f.t.series === ours.t.series) : undefined;
        return theirs ? [{ name: ours.t.name, ours, theirs }] : [];
      });
      printAgainstBaseline(pairs, baseline);
    }
    const failed = figures.filter((f) => f.t.errors > 0);
    if (failed.length > 0) throw new Error(`HTTP bench: errors in ${failed.map((f) => f.t.name).join(', ')}; the first: ${firstError}`);
  } finally {
    agent.destroy();
    await stopChildren(children);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runHttpBench().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
