/**
 * What a signed-in user's call costs in each way of serving HTTP: key mode and OAuth mode, each
 * with the memory store and with Redis, against key mode with the memory store as the baseline.
 * One server process per mode, the sandbox in another, Redis beside them (skipped without
 * redis-server), the load from this one; rounds interleaved in rotating order (bench/http.ts).
 * The OAuth modes' calls carry an MCP token from a real sign-in (registration, the platform's
 * sign-in, consent) and act with that user's platform token. BENCH_HTTP_PROFILE=<dir> writes a CPU
 * profile of each server process there.
 *
 * `--baseline <dir>` or BENCH_BASELINE=<dir> (bench/baseline.ts) also starts, for every mode, that
 * build's server (its build/bench/http-child.js, signed in alike), interleaved with this build's,
 * and prints p50, calls/s and server CPU per call this/baseline per mode.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateStateKey, STATE_KEY_ENV } from '../src/core/store/sealed.js';
import type { OAuthEndpointInfo } from '../src/sandbox/server.js';
import { connectWithOAuth, MemoryOAuthProvider } from '../test/support/oauth-client.js';
import { missingPrograms, startRedis, type RunningRedis } from '../test/support/replicas.js';
import { baselineFile, baselineRoot } from './baseline.js';
import { capture, figuresOf, firstError, printAgainstBaseline, readLine, round, stopChildren, type Target } from './http.js';

const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 6);
const CLIENTS = Number(process.env.BENCH_HTTP_CLIENTS ?? 32);
const CHILD = fileURLToPath(new URL('./http-child.js', import.meta.url));
const SANDBOX_CHILD = fileURLToPath(new URL('./sandbox-child.js', import.meta.url));
const SERVER_KEY = 'bench-server-key-0123456789abcdef';
const TOKEN = 'sandbox-token';
const PROFILE_DIR = process.env.BENCH_HTTP_PROFILE;

interface SandboxInfo {
  url: string;
  oauth: { incidentops: OAuthEndpointInfo };
}

export async function runAuthModesBench(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-bench-modes-'));
  const children: ChildProcess[] = [];
  const noRedis = missingPrograms('redis-server');
  let redis: RunningRedis | undefined;
  try {
    const sandboxChild = spawn(process.execPath, [SANDBOX_CHILD], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    children.push(sandboxChild);
    const sandbox = JSON.parse(await readLine(sandboxChild, /SANDBOX (\{.*\})\n/)) as SandboxInfo;
    const services = (await (await fetch(`${sandbox.url}/incidentops/services?limit=1`, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' } })).json()) as { services: { id: string }[] };
    const serviceId = services.services[0]!.id;
    redis = noRedis ? undefined : await startRedis();

    const credentialsFile = path.join(dir, 'credentials.json');
    writeFileSync(credentialsFile, JSON.stringify({ version: 1, credentials: { incidentops: { platform: 'incidentops', accessToken: TOKEN, tokenType: 'bearer', obtainedAt: Date.now(), baseUrl: `${sandbox.url}/incidentops` } } }), { mode: 0o600 });
    const app = sandbox.oauth.incidentops;
    const oauthEnv = {
      [STATE_KEY_ENV]: generateStateKey(),
      INCIDENTOPS_CLIENT_ID: app.clientId,
      INCIDENTOPS_CLIENT_SECRET: app.clientSecret,
      INCIDENTOPS_AUTHORIZE_URL: app.authorizeUrl,
      INCIDENTOPS_TOKEN_URL: app.tokenUrl,
    };

    const modes = [
      { name: 'key, memory store', env: {} },
      ...(redis ? [{ name: 'key, Redis', env: { BENCH_REDIS_URL: redis.url } }] : []),
      { name: 'OAuth, memory store', env: { BENCH_AUTH: 'oauth', ...oauthEnv } },
      ...(redis ? [{ name: 'OAuth, Redis', env: { BENCH_AUTH: 'oauth', BENCH_REDIS_URL: redis.url, ...oauthEnv } }] : []),
    ];
    const baseline = baselineRoot();
    const builds = [{ label: '', child: CHILD, baseline: false }, ...(baseline ? [{ label: ' (baseline)', child: baselineFile(baseline, 'build/bench/http-child.js'), baseline: true }] : [])];
    const targets: Target[] = [];
    for (const mode of modes) {
      for (const build of builds) {
        const name = `${mode.name}${build.label}`;
        const profile = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name.replace(/\W+/g, '-')}.cpuprofile`] : [];
        const child = spawn(process.execPath, [...profile, build.child, 'incidentops', sandbox.url, credentialsFile], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, ...mode.env } });
        children.push(child);
        const endpoint = await readLine(child, /READY (\S+)/);
        let authorization = `Bearer ${SERVER_KEY}`;
        if ('BENCH_AUTH' in mode.env) {
          const provider = new MemoryOAuthProvider('demo.user@example.com');
          await (await connectWithOAuth(endpoint, provider)).close();
          authorization = `Bearer ${String(provider.savedTokens.access_token)}`;
        }
        const call = await capture(endpoint, { authorization }, 'IncidentOps.GetService', { service_id: serviceId });
        targets.push({ name, series: mode.name, baseline: build.baseline, child, call, latency: [], seconds: [], calls: 0, cpuMicros: 0, errors: 0 });
      }
    }

    console.log(`\nAuth modes (IncidentOps.GetService as a signed-in user), against key mode with the memory store: ${ROUNDS} interleaved rounds${noRedis ? ` (Redis modes skipped: ${noRedis})` : ''}`);
    for (const target of targets) await round(target, false);
    for (let r = 0; r < ROUNDS; r++) for (let i = 0; i < targets.length; i++) await round(targets[(i + r) % targets.length]!, true);

    const figures = targets.map(figuresOf);
    const base = figures[0]!;
    const pad = (text: string, width: number) => text.padEnd(width);
    const nameWidth = Math.max(24, ...targets.map((t) => t.name.length + 2));
    const ratio = (value: number, baseline: number) => ` (${(value / baseline).toFixed(2)}x)`;
    console.log(pad('', nameWidth) + pad('p50 ms (x key)', 20) + pad(`calls/s @${CLIENTS} (x key)`, 24) + pad('server CPU ms/call (x key)', 30) + 'errors');
    for (const f of figures) {
      console.log(pad(f.t.name, nameWidth) + pad(`${f.p50.toFixed(2)}${ratio(f.p50, base.p50)}`, 20) + pad(`${f.rate.toFixed(0)}${ratio(f.rate, base.rate)}`, 24) + pad(`${f.cpu.toFixed(2)}${ratio(f.cpu, base.cpu)}`, 30) + String(f.t.errors));
    }
    if (baseline) {
      const pairs = figures.flatMap((ours) => {
        const theirs = ours.t.baseline ? undefined : figures.find((f) => f.t.baseline && f.t.series === ours.t.series);
        return theirs ? [{ name: ours.t.name, ours, theirs }] : [];
      });
      printAgainstBaseline(pairs, baseline);
    }
    const failed = figures.filter((f) => f.t.errors > 0);
    if (failed.length > 0) throw new Error(`auth modes bench: errors in ${failed.map((f) => f.t.name).join(', ')}; the first: ${firstError}`);
  } finally {
    await stopChildren(children);
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runAuthModesBench().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
