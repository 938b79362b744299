/**
 * Real processes on loopback for replica tests: redis-server, nginx (a generated config: round
 * robin, no sticky sessions, `proxy_next_upstream` for idempotent failures only) and server
 * replicas (`node build/src/cli.js serve --store redis`), each on a free port, with a temporary
 * directory each, stopped by `close()`.
 *
 * `startReplicaSet` knows the public URL (nginx) before the replicas start, and takes extra
 * arguments and environment per replica, so the OAuth mode runs the same set with
 * `--auth oauth --public-url <nginx url>` and a shared TOOLSERVERS_STATE_KEY.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI } from './cli.js';

/** An executable on PATH or in the sbin directories Debian puts daemons in; undefined when absent. */
export function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin', '/usr/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Why replica tests cannot run here (a missing program), or undefined when they can. */
export function missingPrograms(...names: string[]): string | undefined {
  const missing = names.filter((name) => !findExecutable(name));
  if (missing.length === 0) return undefined;
  return `${missing.join(' and ')} not found (install the Debian package${missing.length > 1 ? 's' : ''} of the same name; .ci/run does this)`;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `probe` succeeds, or fails with `what` (and the process's output) after `limitMs`. */
async function waitFor(what: string, probe: () => Promise<boolean>, child: ChildProcess, output: () => string, limitMs = 10_000): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    if (await probe()) return;
    if (Date.now() - started > limitMs) throw new Error(`${what} did not start within ${limitMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Sends `text` on a fresh TCP connection and resolves with the first answer (or '' on any failure). */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (answer: string) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(''));
    socket.once('error', () => done(''));
    socket.once('connect', () => socket.write(text));
    socket.once('data', (chunk: Buffer) => done(chunk.toString()));
  });
}

async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

function collect(child: ChildProcess): () => string {
  let text = '';
  const add = (chunk: Buffer) => {
    text += chunk.toString();
    if (text.length > 200_000) text = text.slice(-100_000);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return () => text;
}

export interface RunningRedis {
  url: string;
  port: number;
  /** Ends it at once (SIGKILL), as a crash does: clients see connections reset, then refused. */
  kill(): Promise<void>;
  /** Starts it again on the same port, with what it had persisted (`keepData`, AOF) or empty. */
  restart(options: { keepData: boolean }): Promise<void>;
  /** Stops it (SIGSTOP): connections stay open and nothing answers, as with a stalled host. */
  pause(): void;
  /** Continues after `pause()` (SIGCONT). */
  resume(): void;
  /** One command on a fresh connection (e.g. `CLIENT PAUSE 3000 WRITE`); resolves with Redis's answer in RESP. */
  command(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/** RESP, the wire form of a command. */
function respCommand(args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/**
 * A throwaway redis-server on a free loopback port, no config file. No persistence unless
 * `appendOnly`: then every write is in the AOF (fsync always) before it is answered, so a kill
 * loses nothing that was acknowledged.
 */
export async function startRedis(options: { appendOnly?: boolean } = {}): Promise<RunningRedis> {
  const binary = findExecutable('redis-server');
  if (!binary) throw new Error(missingPrograms('redis-server'));
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-redis-'));
  const port = await freePort();
  const persistence = options.appendOnly ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, '--loglevel', 'warning'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(child);
    await waitFor('redis-server', async () => (await exchange(port, 'PING\r\n')).startsWith('+PONG'), child, output);
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: () => stopProcess(child, 'SIGKILL'),
    restart: async ({ keepData }) => {
      await stopProcess(child, 'SIGKILL');
      if (!keepData) for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
      await launch();
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    command: (...args) => exchange(port, respCommand(args)),
    close: async () => {
      child.kill('SIGCONT');
      await stopProcess(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface AccessLogEntry {
  /** Replica address(es) nginx tried, e.g. `127.0.0.1:4001` or `127.0.0.1:4001, 127.0.0.1:4002`. */
  upstream: string;
  status: number;
  method: string;
  uri: string;
}

export interface RunningNginx {
  url: string;
  port: number;
  /** What nginx has logged so far, one entry per request. */
  accessLog(): AccessLogEntry[];
  close(): Promise<void>;
}

/** The nginx configuration for replicas behind one port: what docs/replicas.md shows, with test paths. */
export function nginxConfig(options: { dir: string; port: number; upstreams: string[]; runningAsRoot: boolean }): string {
  const { dir } = options;
  return `# Generated for a test: replicas behind one port, round robin, no sticky sessions.
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
${options.runningAsRoot ? 'user root;\n' : ''}events { worker_connections 512; }
http {
  log_format replicas '$upstream_addr $status $request_method $request_uri';
  access_log ${dir}/access.log replicas;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream toolservers {
${options.upstreams.map((address) => `    server ${address} max_fails=1 fail_timeout=10s;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${options.port};
    location / {
      proxy_pass http://toolservers;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      # MCP answers may be event streams: pass them on as they come.
      proxy_buffering off;
      proxy_read_timeout 120s;
      # Another replica only where that cannot do anything twice: nginx never resends a POST
      # (every MCP message) once it reached a replica, only when the connection failed first.
      proxy_next_upstream error timeout http_502 http_504;
      proxy_next_upstream_tries 2;
    }
  }
}
`;
}

export async function startNginx(options: { port?: number; upstreams: string[] }): Promise<RunningNginx> {
  const binary = findExecutable('nginx');
  if (!binary) throw new Error(missingPrograms('nginx'));
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-nginx-'));
  // Workers may run as another user: they need to reach the temporary paths.
  chmodSync(dir, 0o755);
  const port = options.port ?? (await freePort());
  const config = path.join(dir, 'nginx.conf');
  writeFileSync(config, nginxConfig({ dir, port, upstreams: options.upstreams, runningAsRoot: process.getuid?.() === 0 }));
  const child = spawn(binary, ['-p', dir, '-e', 'stderr', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collect(child);
  await waitFor('nginx', async () => (await exchange(port, 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n')).startsWith('HTTP/'), child, output);
  const logFile = path.join(dir, 'access.log');
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    accessLog: () => {
      let text = '';
      try {
        text = readFileSync(logFile, 'utf8');
      } catch {
        return [];
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const match = /^(.*) (\d{3}) (\S+) (\S+)$/.exec(line);
          return match ? { upstream: match[1]!, status: Number(match[2]), method: match[3]!, uri: match[4]! } : { upstream: '', status: 0, method: '', uri: line };
        });
    },
    close: async () => {
      await stopProcess(child, 'SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RunningReplica {
  /** Base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  /** host:port, as nginx names it. */
  address: string;
  pid: number;
  output(): string;
  /** Ends it at once (SIGKILL): no goodbye to clients, Redis or nginx. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

/** `toolservers serve` as its own process, with exactly `env` (plus PATH). Resolves once it serves. */
export async function startReplica(options: { args: string[]; env: Record<string, string> }): Promise<RunningReplica> {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), ...options.args], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collect(child);
  await waitFor('replica', async () => (await exchange(port, 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n')).startsWith('HTTP/1.1 200'), child, output);
  return {
    url: `http://127.0.0.1:${port}`,
    address: `127.0.0.1:${port}`,
    pid: child.pid!,
    output,
    kill: () => stopProcess(child, 'SIGKILL'),
    close: () => stopProcess(child),
  };
}

export interface ReplicaSetOptions {
  replicas?: number;
  /** Environment of every replica (credentials, base URLs); HOME and the credentials file are set to a temporary directory. */
  env: Record<string, string>;
  /** Extra arguments per replica, knowing the public URL (nginx) and Redis. */
  args?: (context: { index: number; publicUrl: string; redisUrl: string }) => string[];
  /** How Redis runs (see `startRedis`). */
  redis?: { appendOnly?: boolean };
}

export interface ReplicaSet {
  redis: RunningRedis;
  nginx: RunningNginx;
  replicas: RunningReplica[];
  /** nginx: what clients use. */
  publicUrl: string;
  /** One more replica with the same settings, not behind nginx (e.g. one started after another died); closed with the set. */
  startAnother(): Promise<RunningReplica>;
  close(): Promise<void>;
}

/** Redis, then the replicas (`serve --store redis`), then nginx in front of them. */
export async function startReplicaSet(options: ReplicaSetOptions): Promise<ReplicaSet> {
  const home = mkdtempSync(path.join(tmpdir(), 'toolservers-replicas-'));
  const started: { close(): Promise<void> }[] = [];
  const closeAll = async () => {
    for (const item of started.reverse()) await item.close().catch(() => undefined);
    rmSync(home, { recursive: true, force: true });
  };
  try {
    const redis = await startRedis(options.redis);
    started.push(redis);
    const nginxPort = await freePort();
    const publicUrl = `http://127.0.0.1:${nginxPort}`;
    const env = { HOME: home, TOOLSERVERS_CREDENTIALS_FILE: path.join(home, 'credentials.json'), TOOLSERVERS_LOG_LEVEL: 'warn', ...options.env };
    const start = (index: number) => startReplica({ args: ['--store', 'redis', '--redis-url', redis.url, ...(options.args?.({ index, publicUrl, redisUrl: redis.url }) ?? [])], env });
    const count = options.replicas ?? 2;
    const replicas = await Promise.all(Array.from({ length: count }, (_, index) => start(index)));
    started.push(...replicas);
    const nginx = await startNginx({ port: nginxPort, upstreams: replicas.map((replica) => replica.address) });
    started.push(nginx);
    let extra = count;
    const startAnother = async () => {
      const replica = await start(extra++);
      started.push(replica);
      return replica;
    };
    return { redis, nginx, replicas, publicUrl, startAnother, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * One read as a client behind a load balancer makes it: sent once more when it fails. Counts the
 * retries and keeps the error of every read that failed twice.
 */
export async function retriedOnce(tally: { retried: number; failures: string[] }, read: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await read();
      return;
    } catch (error) {
      if (attempt === 2) {
        tally.failures.push(error instanceof Error ? error.message : String(error));
        return;
      }
      tally.retried++;
    }
  }
}
