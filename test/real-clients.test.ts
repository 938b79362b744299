/**
 * Real agent clients against our servers: Claude Code and Gemini CLI, as published on npm (pinned in
 * test/real-clients/, installed into .cache/real-clients/ by scripts/install-real-clients.mjs), each
 * run headless with a throwaway HOME against a loopback stand-in for its model API
 * (test/support/model-stand-in.ts). Each client is configured with the commands and blocks of the
 * README and docs/clients.md, read from them here; only the sandbox form the README describes, the
 * HTTP address and the server key are filled in. `toolservers` runs from a shim on PATH, as
 * `npm install -g .` would put it there.
 *
 * Each run checks that the names the client sends to the model are exactly the server's tools under
 * the client's prefix, each valid for the model API, and that one tool call reaches our server and
 * its result, read from the sandbox's data, comes back to the model in the next request.
 * Without the clients (or where they cannot start) each test skips, naming the reason.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it, type TestContext } from 'node:test';
import { silentLogger } from '../src/core/logger.js';
import { listTools } from '../src/core/tools/registry.js';
import { SERVERS } from '../src/servers.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.js';
import { FINAL_TEXT, startModelStandIn, type ModelRequest, type ModelStandIn } from './support/model-stand-in.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT_CLI = path.join(ROOT, 'dist', 'cli.js');
const CLIENTS_BIN = path.join(ROOT, '.cache', 'real-clients', 'node_modules', '.bin');
/** Every model API these clients talk to accepts tool names of this form (Gemini also allows '.' and ':'). */
const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** A client run is killed past this; a healthy one takes a few seconds. */
const RUN_LIMIT_MS = 60_000;

interface Client {
  label: string;
  bin: string;
  /** Why the test cannot run this client, if it cannot. */
  problem?: string;
}

function probe(label: string, command: string): Client {
  const bin = path.join(CLIENTS_BIN, command);
  if (!existsSync(bin)) return { label, bin, problem: `${label} is not installed in .cache/real-clients/ (run \`node scripts/install-real-clients.mjs\`; .ci/run does)` };
  const home = mkdtempSync(path.join(tmpdir(), 'real-client-probe-'));
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', HOME: home } });
  rmSync(home, { recursive: true, force: true });
  if (version.status !== 0) {
    const why = version.error?.message ?? (version.stderr.trim().split('\n').at(-1) || `exit code ${version.status}`);
    return { label, bin, problem: `${label} in .cache/real-clients/ cannot start: ${why}` };
  }
  return { label, bin };
}

const CLAUDE = probe('Claude Code', 'claude');
const GEMINI = probe('Gemini CLI', 'gemini');

// ---------- the documented configurations ----------

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const clientsPage = readFileSync(path.join(ROOT, 'docs', 'clients.md'), 'utf8');

/** The code block after a `<!-- client-config: NAME -->` marker. */
function configBlock(page: string, name: string): string {
  const match = new RegExp(`<!-- client-config: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``).exec(page);
  assert.ok(match, `a client-config: ${name} block`);
  return match[1]!;
}

/** Inline code spans of a page's prose that start with `prefix`. */
function inlineCommands(page: string, prefix: string): string[] {
  const prose = page.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!).filter((span) => span.startsWith(prefix));
}

/**
 * The README's Claude Code lines in their sandbox form, which its sandbox line shows: the token's
 * `--env` left out, `--sandbox` added. That the README's own sandbox line is one of them is checked.
 */
function claudeCodeSandboxCommands(): string[] {
  const lines = configBlock(readme, 'claude-code').split('\n').filter((line) => line.startsWith('claude mcp add '));
  const sandboxed = lines.map((line) => `${line.replace(/ --env [A-Z_]+=<token>/g, '')} --sandbox`);
  const shown = inlineCommands(readme, 'claude mcp add ').filter((command) => command.includes('--sandbox'));
  assert.ok(shown.length > 0, 'the README shows a Claude Code line with the sandbox');
  for (const command of shown) assert.ok(sandboxed.includes(command), `the README's sandbox line ${command} is a block line in sandbox form: ${sandboxed.join(' | ')}`);
  for (const command of sandboxed) assert.doesNotMatch(command, /<[^>]+>/, `${command} has no placeholder left`);
  return sandboxed;
}

/** The README's Gemini CLI settings with the sandbox, as it says: `--sandbox` added to `args`, `env` dropped. */
function geminiSandboxServers(): Record<string, { command: string; args: string[] }> {
  const settings = JSON.parse(configBlock(readme, 'gemini')) as { mcpServers: Record<string, { command: string; args: string[]; env?: unknown }> };
  return Object.fromEntries(Object.entries(settings.mcpServers).map(([name, { env: _token, ...server }]) => [name, { ...server, args: [...server.args, '--sandbox'] }]));
}

// ---------- a throwaway user ----------

interface Workspace {
  base: string;
  /** The directory the client runs in (its project). */
  project: string;
  env: Record<string, string>;
}

/** A fresh HOME, XDG directories and project, with `toolservers` and the clients first on PATH. */
function workspace(): Workspace {
  const base = mkdtempSync(path.join(tmpdir(), 'real-client-'));
  const home = path.join(base, 'home');
  const shims = path.join(base, 'bin');
  const project = path.join(base, 'project');
  for (const dir of [home, shims, project]) mkdirSync(dir);
  // What `npm install -g .` puts on PATH: a `toolservers` command running the built bundle.
  const shim = path.join(shims, 'toolservers');
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BUILT_CLI)} "$@"\n`);
  chmodSync(shim, 0o755);
  const env: Record<string, string> = {
    PATH: [shims, CLIENTS_BIN, path.dirname(process.execPath), process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    LANG: 'C.UTF-8',
  };
  return { base, project, env };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (killed with its children past RUN_LIMIT_MS), without blocking the stand-in in this process. */
function run(command: string, args: string[], where: Workspace, extraEnv: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: where.project, env: { ...where.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${RUN_LIMIT_MS} ms]`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, RUN_LIMIT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a serving command in the workspace; resolves with what it printed once `ready` matches, and a stop function. */
function serve(command: string, where: Workspace, ready: RegExp): Promise<{ printed: string; stop: () => void }> {
  const child = spawn('bash', ['-c', command], { cwd: where.project, env: where.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  let printed = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${command}: not ready within ${RUN_LIMIT_MS} ms:\n${printed}`));
    }, RUN_LIMIT_MS);
    const onData = (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      if (ready.test(printed)) {
        clearTimeout(timer);
        resolve({ printed, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command}: exited with ${code} before it was ready:\n${printed}`));
    });
  });
}

const shell = (command: string, where: Workspace, extraEnv: Record<string, string> = {}) => run('bash', ['-c', command], where, extraEnv);

function describeRun(label: string, result: Run, standIn: ModelStandIn): string {
  const requests = standIn.requests.map((request) => `${request.method} ${request.path}: ${request.toolNames.length} tools, ${request.toolResults.length} results, called ${request.calledTool ?? '-'}`);
  return `${label} exited with ${result.code}\nstdout: ${result.stdout.slice(-2000)}\nstderr: ${result.stderr.slice(-3000)}\nmodel requests:\n${requests.join('\n')}`;
}

// ---------- what the client must have sent ----------

/** Our short tool names per server, from the servers themselves, with the toolsets a configuration's words choose. */
function shortNames(serverId: string, configured: readonly string[] = []): string[] {
  const entry = SERVERS.find((server) => server.id === serverId);
  assert.ok(entry, serverId);
  const at = configured.indexOf('--toolsets');
  const selections = at >= 0 ? [{ toolsets: configured[at + 1]!.split(',') }] : [];
  return listTools(entry.create({}, { logger: silentLogger }), { nameStyle: 'short', selections }).map((tool) => tool.name);
}

/**
 * Every model request that offered tools offered each expected name once, and no other name under
 * the client's prefixes; every name fits the model API. Returns the requests that offered them.
 */
function assertToolNames(requests: ModelRequest[], expected: string[], ourPrefixes: string[]): ModelRequest[] {
  const offering = requests.filter((request) => request.toolNames.some((name) => ourPrefixes.some((prefix) => name.startsWith(prefix))));
  assert.ok(offering.length > 0, `a model request offered our tools (prefixes ${ourPrefixes.join(', ')})`);
  for (const request of offering) {
    const ours = request.toolNames.filter((name) => ourPrefixes.some((prefix) => name.startsWith(prefix)));
    assert.equal(new Set(request.toolNames).size, request.toolNames.length, `no tool name offered twice: ${request.toolNames.filter((name, index) => request.toolNames.indexOf(name) !== index).join(', ')}`);
    assert.deepEqual([...ours].sort(), [...expected].sort(), 'the client offers exactly our tools under its prefix');
    for (const name of request.toolNames) assert.match(name, MODEL_TOOL_NAME, `${name} as the client sends it to the model`);
  }
  return offering;
}

/** The stand-in asked for `tool` once, and the next request carried its result with every `expected` value. */
function assertCallRoundTrip(requests: ModelRequest[], tool: string, expected: string[]): void {
  const calls = requests.flatMap((request, index) => (request.calledTool ? [index] : []));
  assert.equal(calls.length, 1, 'the stand-in asked for one tool call');
  assert.equal(requests[calls[0]!]!.calledTool, tool);
  const answer = requests.slice(calls[0]! + 1).find((request) => request.toolResults.length > 0);
  assert.ok(answer, 'a later model request carries the tool result');
  const text = answer.toolResults.join('\n');
  for (const value of expected) assert.ok(text.includes(value), `the result of ${tool} carries ${value} from the sandbox: ${text.slice(0, 500)}`);
  assert.doesNotMatch(text, /"error"\s*:/, 'the tool did not answer an error');
}

// ---------- the tests ----------

/** Claude Code headless: the model API at the stand-in, no auto-update, telemetry or other traffic. */
function claudeEnv(standIn: ModelStandIn): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: standIn.url,
    ANTHROPIC_API_KEY: 'sk-ant-stand-in',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // With tool search (its default past a share of the context) Claude Code sends MCP tools only
    // by name, deferred; off, it sends every tool's full definition, which the model API checks.
    ENABLE_TOOL_SEARCH: 'false',
    // Headless, Claude Code otherwise starts the first turn without a server still starting (one
    // that took 6 s was left out); this makes it wait, as a slow CI machine needs.
    MCP_CONNECTION_NONBLOCKING: 'false',
  };
}

async function runClaude(where: Workspace, standIn: ModelStandIn, prompt: string, allowedTool: string): Promise<void> {
  const result = await run(CLAUDE.bin, ['-p', prompt, '--allowedTools', allowedTool, '--output-format', 'json'], where, claudeEnv(standIn));
  const report = describeRun('claude -p', result, standIn);
  assert.equal(result.code, 0, report);
  const outcome = JSON.parse(result.stdout) as { is_error?: boolean; result?: string; permission_denials?: unknown[] };
  assert.equal(outcome.is_error, false, report);
  assert.equal(outcome.result, FINAL_TEXT, report);
  assert.deepEqual(outcome.permission_denials ?? [], [], report);
}

describe('real clients against the servers', { timeout: 180_000 }, () => {
  let sandbox: RunningSandbox;
  const cleanup: (() => Promise<void> | void)[] = [];

  before(async () => {
    // The sandbox our servers start with --sandbox has the same deterministic data: expected values come from here.
    sandbox = await startSandbox();
  });
  after(async () => {
    for (const step of cleanup.reverse()) await step();
    await sandbox?.close();
  });

  async function sandboxGet(url: string, headers: Record<string, string>): Promise<Record<string, any>> {
    const response = await fetch(url, { headers });
    assert.equal(response.status, 200, url);
    return (await response.json()) as Record<string, any>;
  }
  const incidentOpsMe = () =>
    sandboxGet(`${sandbox.incidentops.baseUrl}/users/me`, { Authorization: `Token token=${sandbox.incidentops.token}`, Accept: 'application/vnd.pagerduty+json;version=2', 'Content-Type': 'application/json' });
  const canvasTokenInfo = () => sandboxGet(`${sandbox.canvasapi.baseUrl}/v1/oauth-token`, { Authorization: `Bearer ${sandbox.canvasapi.token}` });

  function start(t: TestContext, client: Client): Workspace | undefined {
    if (client.problem) {
      t.skip(client.problem);
      return undefined;
    }
    const where = workspace();
    cleanup.push(() => rmSync(where.base, { recursive: true, force: true }));
    return where;
  }

  it('Claude Code, both servers over stdio as the README adds them: lists every tool it configures, calls WhoAmI', async (t) => {
    const where = start(t, CLAUDE);
    if (!where) return;
    const commands = claudeCodeSandboxCommands();
    for (const command of commands) {
      const added = await shell(command, where);
      assert.equal(added.code, 0, `${command}: ${added.stdout}${added.stderr}`);
    }
    const tool = 'mcp__incidentops__WhoAmI';
    const standIn = await startModelStandIn((names) => names.find((name) => name === tool));
    cleanup.push(() => standIn.close());

    await runClaude(where, standIn, 'Who am I on IncidentOps?', tool);

    const wordsFor = (server: string) => commands.find((command) => command.startsWith(`claude mcp add ${server} `))?.split(/\s+/) ?? [];
    const expected = [...shortNames('incidentops', wordsFor('incidentops')).map((name) => `mcp__incidentops__${name}`), ...shortNames('canvasapi', wordsFor('canvasapi')).map((name) => `mcp__canvasapi__${name}`)];
    // The README gives Claude Code the whole contract and the task tools.
    assert.ok(expected.length >= 14 + 139 && expected.includes('mcp__canvasapi__ReadBoard') && expected.includes('mcp__incidentops__WhoIsOnCall'), `${expected.length} tools`);
    assertToolNames(standIn.requests, expected, ['mcp__incidentops__', 'mcp__canvasapi__']);
    const me = (await incidentOpsMe()).user as { id: string; email: string; name: string };
    assertCallRoundTrip(standIn.requests, tool, [me.id, me.email, me.name]);
  });

  it('Gemini CLI, CanvasApi over stdio with the README settings: lists every tool, calls GetAccessTokenInfo', async (t) => {
    const where = start(t, GEMINI);
    if (!where) return;
    const settingsDir = path.join(where.env.HOME!, '.gemini');
    mkdirSync(settingsDir);
    const settings = {
      // The user's own choices, not the README's: an API key, and nothing sent or fetched besides the model's requests.
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      mcpServers: geminiSandboxServers(),
    };
    writeFileSync(path.join(settingsDir, 'settings.json'), JSON.stringify(settings, null, 2));
    const tool = 'mcp_canvasapi_GetAccessTokenInfo';
    const standIn = await startModelStandIn((names) => names.find((name) => name === tool));
    cleanup.push(() => standIn.close());

    // -m: a fixed model, so no routing classifier asks the stand-in first. --approval-mode yolo:
    // headless, Gemini CLI offers the model only tools that need no confirmation.
    const result = await run(GEMINI.bin, ['-p', 'Which CanvasApi token am I using?', '-m', 'gemini-2.5-flash', '--approval-mode', 'yolo', '--output-format', 'json'], where, {
      GEMINI_API_KEY: 'stand-in-key',
      GOOGLE_GEMINI_BASE_URL: standIn.url,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    });
    const report = describeRun('gemini -p', result, standIn);
    assert.equal(result.code, 0, report);
    const outcome = JSON.parse(result.stdout) as { response?: string; error?: unknown; stats?: { tools?: { totalSuccess?: number; totalFail?: number } } };
    assert.equal(outcome.error, undefined, report);
    assert.equal(outcome.response, FINAL_TEXT, report);
    assert.equal(outcome.stats?.tools?.totalSuccess, 1, report);

    assert.deepEqual(Object.keys(settings.mcpServers), ['canvasapi']);
    assertToolNames(standIn.requests, shortNames('canvasapi', settings.mcpServers.canvasapi!.args).map((name) => `mcp_canvasapi_${name}`), ['mcp_canvasapi_']);
    const info = await canvasTokenInfo();
    assertCallRoundTrip(standIn.requests, tool, [info.organization.name, info.organization.id, info.user.id]);
  });

  it('Claude Code, CanvasApi over HTTP as docs/clients.md adds it (serve --sandbox, server key): lists every tool, calls GetAccessTokenInfo', async (t) => {
    const where = start(t, CLAUDE);
    if (!where) return;
    const key = await shell('toolservers key show', where);
    assert.equal(key.code, 0, key.stderr);
    const server = await serve('toolservers serve --sandbox --port 0', where, /http:\/\/127\.0\.0\.1:(\d+)\/canvasapi\/mcp/);
    cleanup.push(server.stop);
    const origin = /(http:\/\/127\.0\.0\.1:\d+)\/canvasapi\/mcp/.exec(server.printed)![1]!;
    const documented = inlineCommands(clientsPage, 'claude mcp add --transport http ');
    assert.equal(documented.length, 1, 'docs/clients.md shows one Claude Code line for HTTP');
    const command = documented[0]!.replace('http://127.0.0.1:3000', origin).replace('<server key>', key.stdout.trim());
    assert.doesNotMatch(command, /<[^>]+>|:3000\b/, 'only the address and the key are filled in');
    const added = await shell(command, where);
    assert.equal(added.code, 0, `claude mcp add --transport http: ${added.stdout}${added.stderr}`.replaceAll(key.stdout.trim(), '<server key>'));
    const tool = 'mcp__canvasapi__GetAccessTokenInfo';
    const standIn = await startModelStandIn((names) => names.find((name) => name === tool));
    cleanup.push(() => standIn.close());

    await runClaude(where, standIn, 'Which CanvasApi token am I using?', tool);

    // The toolsets the documented URL chooses (`?toolsets=all,tasks`: the task tools too).
    const toolsets = /[?&]toolsets=([a-z,]+)/.exec(command)?.[1];
    assertToolNames(standIn.requests, shortNames('canvasapi', toolsets ? ['--toolsets', toolsets] : []).map((name) => `mcp__canvasapi__${name}`), ['mcp__canvasapi__', 'mcp__incidentops__']);
    const info = await canvasTokenInfo();
    assertCallRoundTrip(standIn.requests, tool, [info.organization.name, info.organization.id, info.user.id]);
  });
});
