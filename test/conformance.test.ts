/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * test/conformance/package.json) against both servers over Streamable HTTP.
 *
 * The built CLI serves both servers against the in-process sandbox; the suite runs every server
 * scenario it has for each protocol era, at that era's wire: 2025-11-25 (stateful `initialize`
 * handshake) and 2026-07-28 (stateless, per-request `_meta`). The suite cannot send custom headers,
 * so it talks to a loopback proxy that adds the server key and forwards everything else as sent,
 * Host and Origin included: the DNS-rebinding verdicts are the server's own.
 *
 * Every failing check must be listed in EXPECTED_FAILURES with its reason, and every listed check
 * must still fail: a stale entry fails the test too. The suite needs Node.js 22; it runs on the
 * Node from test/conformance/node_modules (installed by `npm install` / `npm ci`, see
 * scripts/install-conformance.mjs), while the servers run on the Node running this test.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it, type TestContext } from 'node:test';
import { startAuthProxy, type AuthProxy } from './support/auth-proxy.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const RUNNER_DIR = fileURLToPath(new URL('../../test/conformance/', import.meta.url));
const RUNNER_NODE = path.join(RUNNER_DIR, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
const SUITE = path.join(RUNNER_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The protocol eras both servers speak; each is a different wire, so every scenario runs at each. */
const WIRES = ['2025-11-25', '2026-07-28'] as const;
type Wire = (typeof WIRES)[number];

const SERVERS = [
  { id: 'incidentops', name: 'IncidentOps' },
  { id: 'canvasapi', name: 'CanvasApi' },
] as const;

/**
 * What a tools-only Streamable HTTP server is judged by: each of these must run at its wire and
 * pass with at least one successful check (the rest of the suite only has to match the table).
 */
/** The skills extension's scenarios (SEP-2640): run one by one at each wire (the suite runs extensions only when named), each must pass. */
const SKILLS_SCENARIOS = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];

const CORE: Record<Wire, string[]> = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '2026-07-28': ['server-stateless', 'tools-list', 'dns-rebinding-protection', 'caching', 'http-header-validation', 'server-sse-multiple-streams'],
};

const NO_PROMPTS = 'no prompts: the servers offer tools only, so prompts/* answers Method not found';
const FIXTURE_RESOURCE = (uri: string) => `reads the suite's own fixture resource ${uri}; the servers' only resources are their skills' files (skill://...)`;
const NO_SUBSCRIPTIONS = 'no resource subscriptions: the only resources are the skills\' files, which never change while a server runs, so resources/subscribe answers Method not found';
const NO_LOGGING = 'no logging capability: the servers log to stderr, never to the client, so logging/setLevel answers Method not found';
const NO_INPUT_REQUESTS = "no tool asks the client for input mid-call (SEP-2322 input-required results); the scenario needs the suite's test_input_required_result_* fixtures";
const NO_HEADER_PARAMS = 'no tool maps a parameter to an HTTP header (SEP-2243 x-mcp-header), so there is nothing to validate';
const fixture = (tool: string) => `calls the suite's own fixture tool ${tool}, which a platform tool server does not have`;

/** `<scenario>:<check id>` -> why that check fails on these servers. Applies to both servers, at every wire where the scenario runs. */
const EXPECTED_FAILURES = new Map<string, string>([
  ['completion-complete:completion-complete', 'no completions: the servers have no prompts or resource templates to complete'],
  ['logging-set-level:logging-set-level', NO_LOGGING],
  ['tools-call-with-logging:tools-call-with-logging', NO_LOGGING],
  ['tools-call-simple-text:tools-call-simple-text', fixture('test_simple_text')],
  ['tools-call-image:tools-call-image', fixture('test_image_content')],
  ['tools-call-audio:tools-call-audio', fixture('test_audio_content')],
  ['tools-call-embedded-resource:tools-call-embedded-resource', fixture('test_embedded_resource')],
  ['tools-call-mixed-content:tools-call-mixed-content', fixture('test_multiple_content_types')],
  ['tools-call-error:tools-call-error', fixture('test_error_handling')],
  ['tools-call-with-progress:tools-call-with-progress', fixture('test_tool_with_progress')],
  ['tools-call-sampling:tools-call-sampling', `${fixture('test_sampling')}; the servers never request sampling`],
  ['tools-call-elicitation:tools-call-elicitation', `${fixture('test_elicitation')}; the servers never elicit`],
  ['elicitation-sep1034-defaults:elicitation-sep1034-general', `${fixture('test_elicitation_sep1034_defaults')}; the servers never elicit`],
  ['elicitation-sep1330-enums:elicitation-sep1330-general', `${fixture('test_elicitation_sep1330_enums')}; the servers never elicit`],
  ['json-schema-2020-12:json-schema-2020-12-tool-found', fixture('json_schema_2020_12_tool')],
  ['prompts-list:prompts-list', NO_PROMPTS],
  ['prompts-get-simple:prompts-get-simple', NO_PROMPTS],
  ['prompts-get-with-args:prompts-get-with-args', NO_PROMPTS],
  ['prompts-get-embedded-resource:prompts-get-embedded-resource', NO_PROMPTS],
  ['prompts-get-with-image:prompts-get-with-image', NO_PROMPTS],
  ['resources-read-text:resources-read-text', FIXTURE_RESOURCE('test://static-text')],
  ['resources-read-binary:resources-read-binary', FIXTURE_RESOURCE('test://static-binary')],
  ['resources-templates-read:resources-templates-read', FIXTURE_RESOURCE('test://template/{id}/data')],
  ['resources-subscribe:resources-subscribe', NO_SUBSCRIPTIONS],
  ['resources-unsubscribe:resources-unsubscribe', NO_SUBSCRIPTIONS],
  ['caching:sep-2549-prompts-list-caching-hints', NO_PROMPTS],
  [
    'sep-2640-skills-directory:sep-2640-directory-read-subdir-mimetype',
    'every skill is one SKILL.md, so no skill directory has a subdirectory to list (the suite reports the check as not testable)',
  ],
  ['server-stateless:sep-2575-server-rejects-undeclared-capability', fixture('test_missing_capability')],
  ['server-stateless:sep-2575-missing-capability-http-400', fixture('test_missing_capability')],
  ['server-stateless:sep-2575-http-server-no-independent-requests-on-stream', `${fixture('test_streaming_elicitation')}; the servers never elicit`],
  ['server-stateless:sep-2575-server-no-log-without-loglevel', `${fixture('test_logging_tool')}; the servers never log to the client`],
  ['http-custom-header-server-validation:sep-2243-server-no-xmcp-tool', NO_HEADER_PARAMS],
  ['http-custom-header-server-validation:sep-2243-server-decode-base64', NO_HEADER_PARAMS],
  ['http-custom-header-server-validation:sep-2243-server-validate-param-match', NO_HEADER_PARAMS],
  ['http-custom-header-server-validation:sep-2243-server-reject-invalid-param-chars', NO_HEADER_PARAMS],
  ['http-custom-header-server-validation:sep-2243-server-reject-param-mismatch', NO_HEADER_PARAMS],
  ['input-required-result-basic-elicitation:sep-2322-elicitation-incomplete', NO_INPUT_REQUESTS],
  ['input-required-result-basic-sampling:sep-2322-sampling-incomplete', NO_INPUT_REQUESTS],
  ['input-required-result-basic-list-roots:sep-2322-list-roots-incomplete', NO_INPUT_REQUESTS],
  ['input-required-result-request-state:sep-2322-request-state-incomplete', NO_INPUT_REQUESTS],
  ['input-required-result-multiple-input-requests:sep-2322-multiple-inputs-incomplete', NO_INPUT_REQUESTS],
  ['input-required-result-multi-round:sep-2322-multi-round-r1', NO_INPUT_REQUESTS],
  ['input-required-result-result-type:sep-2322-result-type-included', NO_INPUT_REQUESTS],
  ['input-required-result-tampered-state:sep-2322-reject-tampered-state', NO_INPUT_REQUESTS],
  ['input-required-result-capability-check:sep-2322-respect-client-capabilities', NO_INPUT_REQUESTS],
  ['input-required-result-non-tool-request:sep-2322-non-tool-incomplete', `${NO_PROMPTS} (it asks for the fixture prompt test_input_required_result_prompt)`],
]);

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  errorMessage?: string;
}

interface ScenarioResult {
  scenario: string;
  /** undefined when the suite started the scenario but wrote no results (it crashed). */
  checks: Check[] | undefined;
}

interface SuiteRun {
  wire: Wire;
  scenarios: ScenarioResult[];
  output: string;
  /** The scenarios of this run that must run and pass with at least one successful check. */
  core: string[];
}

const SUITE_TIMEOUT_MS = 60_000;
/** Every process this file starts, so that none outlives it whatever happens. */
const children = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/**
 * Runs every server scenario of the suite for one wire against `url`, or only `scenario` (forced:
 * extension scenarios belong to no spec version); results come from its per-scenario checks.json.
 */
async function runSuite(url: string, wire: Wire, workDir: string, scenario?: string): Promise<SuiteRun> {
  const outDir = mkdtempSync(path.join(workDir, `${wire}-`));
  const which = scenario ? ['--scenario', scenario, '--force'] : ['--suite', 'all'];
  const child = track(
    spawn(RUNNER_NODE, [SUITE, 'server', '--url', url, ...which, '--spec-version', wire, '--timeout', '15000', '--output-dir', outDir], {
      cwd: outDir,
      env: { PATH: process.env.PATH ?? '', HOME: workDir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  // A single scenario's output has no heading of its own: give it the one a whole-suite run prints.
  let output = scenario ? `=== Running scenario: ${scenario} ===\n` : '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), SUITE_TIMEOUT_MS);
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  }).finally(() => clearTimeout(timer));
  assert.equal(exit.signal, null, `the ${wire} suite run was killed after ${SUITE_TIMEOUT_MS} ms:\n${output}`);

  const written = new Map<string, Check[]>();
  for (const entry of readdirSync(outDir)) {
    const match = RESULT_DIR.exec(entry);
    if (match && existsSync(path.join(outDir, entry, 'checks.json'))) written.set(match[1]!, JSON.parse(readFileSync(path.join(outDir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  const started = [...output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]!);
  assert.ok(started.length > 0, `the ${wire} suite ran no scenario (exit ${exit.code}):\n${output}`);
  return { wire, output, scenarios: started.map((name) => ({ scenario: name, checks: written.get(name) })), core: scenario ? [scenario] : CORE[wire] };
}

interface Verdict {
  problems: string[];
  /** A few lines for the test log: what passed, what failed as expected, which SHOULD-level warnings came up. */
  summary: string[];
}

function judge(run: SuiteRun): Verdict {
  const problems: string[] = [];
  const passed: string[] = [];
  const expectedToFail: string[] = [];
  const warnings: string[] = [];
  for (const { scenario, checks } of run.scenarios) {
    if (!checks) {
      problems.push(`${run.wire} ${scenario}: the suite wrote no results (the scenario crashed)`);
      continue;
    }
    const failing = checks.filter((c) => c.status === 'FAILURE');
    for (const check of failing) {
      if (!EXPECTED_FAILURES.has(`${scenario}:${check.id}`)) problems.push(`${run.wire} ${scenario}: check ${check.id} FAILED: ${check.errorMessage ?? '(no message)'}`);
    }
    for (const key of EXPECTED_FAILURES.keys()) {
      if (!key.startsWith(`${scenario}:`) || failing.some((c) => `${scenario}:${c.id}` === key)) continue;
      const status = checks.find((c) => `${scenario}:${c.id}` === key)?.status ?? 'absent';
      problems.push(`${run.wire} ${scenario}: ${key} is listed as an expected failure but is ${status}: update EXPECTED_FAILURES (and docs/development.md)`);
    }
    const successes = checks.filter((c) => c.status === 'SUCCESS').length;
    if (failing.length === 0) passed.push(`${scenario} (${successes})`);
    else expectedToFail.push(`${scenario} (${successes} passed, ${failing.length} failed)`);
    warnings.push(...checks.filter((c) => c.status === 'WARNING').map((c) => `${scenario}:${c.id}`));
  }
  for (const scenario of run.core) {
    const result = run.scenarios.find((s) => s.scenario === scenario);
    if (!result) problems.push(`${run.wire} ${scenario}: the suite did not run it`);
    else if (result.checks && !result.checks.some((c) => c.status === 'SUCCESS')) problems.push(`${run.wire} ${scenario}: no check passed`);
  }
  const summary = [
    `${run.wire} passed, with the number of passing checks (${passed.length}): ${passed.join(', ')}`,
    `${run.wire} failing only expected checks (${expectedToFail.length}): ${expectedToFail.join(', ')}`,
    `${run.wire} warnings (SHOULD-level, not failures): ${warnings.join(', ') || 'none'}`,
  ];
  return { problems, summary };
}

/** The suite's own output for the scenarios a problem names (each starts at its `=== Running scenario` line). */
function outputFor(run: SuiteRun, problems: string[]): string {
  const sections = run.output.split(/^(?==== Running scenario: )/m);
  return sections.filter((section) => problems.some((p) => p.startsWith(`${run.wire} ${/^=== Running scenario: (\S+)/.exec(section)?.[1]}:`))).join('');
}

interface RunningCli {
  child: ChildProcess;
  /** Origin of the HTTP server, e.g. `http://127.0.0.1:40123`. */
  origin: string;
  output: () => string;
}

/** `toolservers serve --sandbox` on an ephemeral loopback port, with the given server key. */
async function startServers(serverKey: string, home: string): Promise<RunningCli> {
  const child = track(
    spawn(process.execPath, [CLI, 'serve', '--sandbox', '--host', '127.0.0.1', '--port', '0'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        TOOLSERVERS_SERVER_KEY: serverKey,
        TOOLSERVERS_CREDENTIALS_FILE: path.join(home, 'credentials.json'),
        TOOLSERVERS_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the servers did not report their endpoints within 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const endpoints = new Map([...output.matchAll(/(http:\/\/127\.0\.0\.1:\d+)\/(\w+)\/mcp\b/g)].map((m) => [m[2]!, m[1]!]));
      if (SERVERS.every((s) => endpoints.has(s.id))) {
        clearTimeout(timer);
        resolve(endpoints.get(SERVERS[0].id)!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the servers exited (${code}) before serving:\n${output}`));
    });
  });
  return { child, origin, output: () => output };
}

describe('official MCP conformance suite, both servers over HTTP', { timeout: 85_000 }, () => {
  const serverKey = randomBytes(24).toString('base64url');
  let workDir: string;
  let cli: RunningCli | undefined;
  let proxy: AuthProxy | undefined;

  before(async () => {
    assert.ok(
      existsSync(RUNNER_NODE) && existsSync(SUITE),
      `The conformance runner is not installed in ${RUNNER_DIR}: run \`npm run conformance:install\` (\`npm install\` and \`npm ci\` do it too).`,
    );
    workDir = mkdtempSync(path.join(tmpdir(), 'toolservers-conformance-'));
    cli = await startServers(serverKey, workDir);
    proxy = await startAuthProxy(cli.origin, serverKey);
  });

  after(async () => {
    await proxy?.close();
    // The servers stop on SIGTERM; anything else still running (a suite run cut short) is killed.
    await Promise.all(
      [...children].map(async (child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill(child === cli?.child ? 'SIGTERM' : 'SIGKILL');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }),
    );
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  for (const server of SERVERS) {
    it(`${server.name}: every failing check is an expected one, every expected failure still fails, the core scenarios pass`, async (t: TestContext) => {
      const url = `${proxy!.url}/${server.id}/mcp`;
      const runs = await Promise.all(WIRES.flatMap((wire) => [runSuite(url, wire, workDir), ...SKILLS_SCENARIOS.map((scenario) => runSuite(url, wire, workDir, scenario))]));
      const verdicts = runs.map(judge);
      for (const line of verdicts.flatMap((v) => v.summary)) t.diagnostic(line);

      const problems = verdicts.flatMap((v) => v.problems);
      const ran = new Set(runs.flatMap((run) => run.scenarios.map((s) => s.scenario)));
      for (const key of EXPECTED_FAILURES.keys()) {
        if (!ran.has(key.slice(0, key.indexOf(':')))) problems.push(`${key} is listed as an expected failure, but the suite has no such scenario at any wire`);
      }
      if (problems.length > 0) {
        const outputs = runs.map((run) => outputFor(run, problems)).filter(Boolean);
        assert.fail(
          `${server.name}: ${problems.length} conformance problem(s):\n  - ${problems.join('\n  - ')}\n\n` +
            `The suite's output for those scenarios:\n${outputs.join('\n')}\n\nThe servers' log (last 4000 characters):\n${cli!.output().slice(-4000)}`,
        );
      }

      // The DNS-rebinding verdicts are the server's: the attacker's Host and Origin reached it through
      // the proxy unchanged (with a valid server key, so no 401 can stand in for a Host check) and it
      // answered 403, while the proxy's own loopback Host was let through.
      const mine = proxy!.exchanges.filter((e) => e.path.startsWith(`/${server.id}/mcp`));
      const attacks = mine.filter((e) => e.host === 'evil.example.com');
      assert.ok(attacks.length >= WIRES.length, `a rebinding probe per wire reached the server: ${JSON.stringify(mine)}`);
      for (const attack of attacks) {
        assert.equal(attack.origin, 'http://evil.example.com');
        assert.equal(attack.status, 403, 'the server itself rejected the foreign Host/Origin');
      }
      const proxyHost = new URL(proxy!.url).host;
      assert.ok(
        mine.some((e) => e.host === proxyHost && e.origin === `http://${proxyHost}` && e.status >= 200 && e.status < 300),
        'the loopback Host and Origin reached the server unchanged and were accepted',
      );
    });
  }
});
