/**
 * Names every client accepts, and every client configuration we publish works when pasted:
 * the configurations of the README and docs/clients.md and the ones `toolservers serve` prints are started as written
 * (against the sandbox) and their tool lists are checked against each client's rules.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { silentLogger } from '../src/core/logger.js';
import { listTools } from '../src/core/tools/registry.js';
import { NAME_STYLES } from '../src/core/tools/names.js';
import { SERVERS } from '../src/servers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const MCP_REMOTE = path.join(ROOT, 'node_modules', '.bin', 'mcp-remote');

/** Tool-name rules of the clients and model APIs agents run on. */
const NAME_RULES: { who: string; pattern: RegExp }[] = [
  { who: 'Claude Desktop and claude.ai (withhold the whole server otherwise)', pattern: /^[a-zA-Z0-9_-]{1,64}$/ },
  { who: 'Anthropic Messages API tool names', pattern: /^[a-zA-Z0-9_-]{1,64}$/ },
  { who: 'OpenAI API function names (Codex, Cursor)', pattern: /^[a-zA-Z0-9_-]{1,64}$/ },
  { who: 'Amazon Bedrock Converse tool names', pattern: /^[a-zA-Z0-9_-]{1,64}$/ },
  { who: 'Gemini function declarations', pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/ },
];
/** Claude Code exposes a tool as mcp__<server key>__<tool name>, at most 64 characters. */
const CLAUDE_CODE_LIMIT = 64;
/** VS Code sends at most this many tools per model request, across all servers. */
const VSCODE_TOOL_LIMIT = 128;

function assertPortable(names: string[], context: string): void {
  for (const name of names) for (const rule of NAME_RULES) assert.match(name, rule.pattern, `${context}: ${name} breaks the rule of ${rule.who}`);
}

describe('tool names', () => {
  for (const entry of SERVERS) {
    const server = entry.create({}, { logger: silentLogger });
    it(`${entry.name}: underscore names, in every profile, pass every client's rule; contract names keep the dot`, () => {
      for (const profile of ['all', 'meta']) {
        const underscore = listTools(server, { nameStyle: 'underscore', selections: [{ profile }] }).map((tool) => tool.name);
        assertPortable(underscore, `${entry.id} ${profile}`);
        const contract = listTools(server, { nameStyle: 'contract', selections: [{ profile }] }).map((tool) => tool.name);
        assert.deepEqual(contract.map((name) => name.replace('.', '_')), underscore, 'the styles differ only in the separator');
        for (const name of contract) assert.ok(name.startsWith(`${entry.name}.`), name);
      }
      assert.deepEqual([...NAME_STYLES], ['contract', 'underscore', 'short']);
    });
  }

  it('mcp__<server key>__<name> fits in 64 characters for the server keys the README uses', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const keys = [...readme.matchAll(/claude mcp add (?:--\S+ \S+ )*([a-z0-9-]+)/g)].map((match) => match[1]!);
    assert.deepEqual([...new Set(keys)].sort(), ['canvasapi', 'incidentops']);
    for (const entry of SERVERS) {
      const server = entry.create({}, { logger: silentLogger });
      for (const style of NAME_STYLES) {
        for (const profile of ['all', 'meta']) {
          for (const tool of listTools(server, { nameStyle: style, selections: [{ profile }] })) {
            const exposed = `mcp__${entry.id}__${tool.name.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
            assert.ok(exposed.length <= CLAUDE_CODE_LIMIT, `${exposed} is ${exposed.length} characters`);
          }
        }
      }
    }
  });
});

interface LaunchSpec {
  server: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** The configuration blocks of the README and docs/clients.md, by the client-config marker before each. */
function readmeConfigs(): Map<string, string> {
  const pages = ['README.md', 'docs/clients.md'].map((page) => readFileSync(path.join(ROOT, page), 'utf8')).join('\n');
  const blocks = new Map<string, string>();
  for (const match of pages.matchAll(/<!-- client-config: ([a-z-]+) -->\n```[a-z]*\n([\s\S]*?)\n```/g)) blocks.set(match[1]!, match[2]!);
  return blocks;
}

function fromJsonConfig(text: string, key: 'mcpServers' | 'servers'): LaunchSpec[] {
  const config = JSON.parse(text) as Record<string, Record<string, { command: string; args: string[]; env?: Record<string, string> }>>;
  return Object.entries(config[key] ?? {}).map(([server, spec]) => ({ server, command: spec.command, args: spec.args, ...(spec.env ? { env: spec.env } : {}) }));
}

/** The few TOML forms the Codex block uses: tables, strings and JSON-style string arrays. */
function fromCodexToml(text: string): LaunchSpec[] {
  const specs: LaunchSpec[] = [];
  let current: LaunchSpec | undefined;
  for (const line of text.split('\n')) {
    const table = /^\[mcp_servers\.([a-z0-9_-]+)\]$/.exec(line.trim());
    if (table) specs.push((current = { server: table[1]!, command: '', args: [] }));
    const pair = /^(\w+)\s*=\s*(.+)$/.exec(line.trim());
    if (!pair || !current) continue;
    if (pair[1] === 'command') current.command = JSON.parse(pair[2]!) as string;
    if (pair[1] === 'args') current.args = JSON.parse(pair[2]!) as string[];
  }
  return specs;
}

function fromClaudeCode(text: string): LaunchSpec[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('claude mcp add '))
    .map((line) => {
      const [before, after] = line.split(' -- ');
      const server = (before ?? '').replace(/--env \S+/g, '').trim().split(/\s+/).at(-1)!;
      const [command, ...args] = (after ?? '').trim().split(/\s+/);
      return { server, command: command!, args };
    });
}

/** Starts `toolservers ...` as the client would, against the sandbox, and lists its tools. */
async function listViaStdio(spec: LaunchSpec, extraEnv: Record<string, string> = {}): Promise<string[]> {
  let command = spec.command;
  let args = spec.args;
  if (command === 'toolservers') {
    command = process.execPath;
    args = [CLI, ...args, '--sandbox'];
  } else if (command === 'npx' && args[0] === '-y' && args[1] === 'mcp-remote') {
    command = MCP_REMOTE; // the installed bridge, so the test needs no network
    args = args.slice(2);
  }
  const transport = new StdioClientTransport({ command, args, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(spec.env ?? {}), ...extraEnv }, stderr: 'pipe' });
  const client = new Client({ name: 'config-check', version: '1' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

async function listViaHttp(url: string, authorization: string): Promise<string[]> {
  const client = new Client({ name: 'config-check', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: authorization } } }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

function checkClient(client: string, listed: Map<string, string[]>): void {
  for (const [server, names] of listed) {
    assert.ok(names.length > 0, `${client} ${server}: lists tools`);
    assertPortable(names, `${client} ${server}`);
    if (client === 'claude-code') for (const name of names) assert.ok(`mcp__${server}__${name}`.length <= CLAUDE_CODE_LIMIT, name);
    // Gemini CLI prefixes <server>__ when names collide and shortens past 64 characters.
    if (client === 'gemini') for (const name of names) assert.ok(`${server}__${name}`.length <= 64, name);
  }
  if (client === 'vscode') {
    // A block may show one server; the README says to repeat it for the other, so count both.
    const incidentOps = listed.get('incidentops') ?? listTools(SERVERS.find((entry) => entry.id === 'incidentops')!.create({}, { logger: silentLogger }), { selections: [{ toolsets: ['all', 'tasks'] }] }).map((tool) => tool.name);
    const total = [...listed.entries()].filter(([server]) => server !== 'incidentops').reduce((sum, [, names]) => sum + names.length, incidentOps.length);
    assert.ok(total <= VSCODE_TOOL_LIMIT, `VS Code gets ${total} tools per request, more than ${VSCODE_TOOL_LIMIT}`);
  }
}

/** The clients docs/clients.md's name-style table lists for one style. */
function clientsOfStyle(style: string): string[] {
  const row = readFileSync(path.join(ROOT, 'docs', 'clients.md'), 'utf8').split('\n').find((line) => line.startsWith(`| \`${style}\` |`));
  assert.ok(row, `docs/clients.md has a row for the ${style} style`);
  // "Clients that ...: Claude Code, Gemini CLI, ...": the names after the colon.
  const clients = /: ([^|]+?)\.?\s*$/.exec(row.split('|')[3] ?? '')?.[1] ?? '';
  return clients.split(',').map((name) => name.trim()).filter(Boolean);
}

/**
 * The documentation is written for the short name style (issue 19); a build without it skips the
 * configurations that use it, saying why, rather than testing something else than what is written.
 */
function needsMissingNameStyle(text: string): string | false {
  const styles = [...text.matchAll(/--tool-names"?,?\s*"?([a-z]+)|\/([a-z]+)\/mcp/g)].map((match) => match[1] ?? match[2]!);
  const missing = styles.filter((style) => ['contract', 'underscore', 'short'].includes(style) && !(NAME_STYLES as readonly string[]).includes(style));
  return missing.length > 0 ? `this build has no --tool-names ${missing[0]} (the name style the configuration uses)` : false;
}

/** A running `toolservers serve --sandbox` with the text it printed for people. */
async function startServe(): Promise<{ child: ChildProcess; printed: string; url: string }> {
  // Its own credentials directory: the key it keeps is this test's, not the user's.
  const credentials = path.join(mkdtempSync(path.join(tmpdir(), 'client-configs-')), 'credentials.json');
  const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--port', '0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TOOLSERVERS_LOG_LEVEL: 'error', TOOLSERVERS_CREDENTIALS_FILE: credentials },
  });
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print its configurations: ${printed}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      if (/The servers use the built-in sandbox/.test(printed)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${printed}`)));
  });
  const url = /incidentops\/mcp/.test(printed) ? /(http:\/\/127\.0\.0\.1:\d+)\/incidentops\/mcp/.exec(printed)![1]! : '';
  return { child, printed, url };
}

describe('client configurations', () => {
  const configs = readmeConfigs();
  let serve: Awaited<ReturnType<typeof startServe>>;
  before(async () => {
    serve = await startServe();
  });
  after(() => {
    serve.child.kill();
  });

  it('the README has a tested configuration for every client', () => {
    assert.deepEqual([...configs.keys()].sort(), ['claude-code', 'claude-desktop', 'claude-desktop-remote', 'codex', 'gemini', 'vscode']);
  });

  // Cursor reads the same mcpServers block as Claude Desktop (the README gives them one block).
  const stdioClients: [client: string, block: string, parse: (text: string) => LaunchSpec[]][] = [
    ['claude-desktop', 'claude-desktop', (text) => fromJsonConfig(text, 'mcpServers')],
    ['cursor', 'claude-desktop', (text) => fromJsonConfig(text, 'mcpServers')],
    ['gemini', 'gemini', (text) => fromJsonConfig(text, 'mcpServers')],
    ['vscode', 'vscode', (text) => fromJsonConfig(text, 'servers')],
    ['codex', 'codex', fromCodexToml],
    ['claude-code', 'claude-code', fromClaudeCode],
  ];
  for (const [client, block, parse] of stdioClients) {
    const text = configs.get(block) ?? '';
    it(`README ${client}: every server starts as configured and lists tools the client accepts`, { skip: needsMissingNameStyle(text) }, async () => {
      const specs = parse(text);
      assert.ok(specs.some((spec) => spec.server === 'canvasapi'), `${client} configures canvasapi`);
      for (const spec of specs) assert.ok(['canvasapi', 'incidentops'].includes(spec.server), `${client}: unknown server ${spec.server}`);
      const listed = new Map<string, string[]>();
      for (const spec of specs) listed.set(spec.server, await listViaStdio(spec));
      checkClient(client, listed);
    });
  }

  it('README claude-desktop-remote: the mcp-remote bridge reaches a running server with the key and lists accepted names', async () => {
    const key = /The key \([^\n]*\):\n\s+(\S+)/.exec(serve.printed)?.[1];
    assert.ok(key, 'serve printed its kept key');
    const specs = fromJsonConfig(configs.get('claude-desktop-remote') ?? '', 'mcpServers').map((spec) => ({
      ...spec,
      args: spec.args.map((arg) => arg.replace('http://127.0.0.1:3000', serve.url)),
    }));
    const listed = new Map<string, string[]>();
    for (const spec of specs) {
      listed.set(spec.server, await listViaStdio(spec, { TOOLSERVERS_AUTH_HEADER: `Bearer ${key}`, MCP_REMOTE_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'mcp-remote-')) }));
    }
    checkClient('claude-desktop', listed);
  });

  it('the configurations `serve` prints work when pasted, each under its client rules', async () => {
    const key = /The key \([^\n]*\):\n\s+(\S+)/.exec(serve.printed)![1]!;
    const section = (heading: string) => {
      const start = serve.printed.indexOf(heading);
      assert.ok(start >= 0, `serve prints a ${heading} configuration`);
      const rest = serve.printed.slice(serve.printed.indexOf('\n', start) + 1);
      return rest.slice(0, rest.search(/\n\n|$/));
    };
    const urls = (text: string) => [...text.matchAll(/http:\/\/127\.0\.0\.1:\d+\/([a-z]+)\/[a-z/-]*mcp(?:\?[a-z_]+=[a-z,]+)?/g)].map((match) => ({ server: match[1]!, url: match[0] }));
    const shortFor = clientsOfStyle('short');
    for (const [client, heading] of [
      ['claude-desktop', 'Claude Desktop'],
      ['claude-code', 'Claude Code'],
      ['cursor', 'Cursor'],
      ['vscode', 'VS Code'],
      ['gemini', 'Gemini CLI'],
      ['codex', 'Codex'],
    ] as const) {
      const found = urls(section(heading));
      assert.deepEqual(found.map((entry) => entry.server).sort(), ['canvasapi', 'incidentops'], `${heading} config names both servers`);
      // The name style docs/clients.md gives this client is the one its printed endpoints pick.
      assert.ok(shortFor.includes(heading), `docs/clients.md's table gives ${heading} a name style (short for: ${shortFor.join(', ')})`);
      for (const { url } of found) assert.match(url, /\/short\/mcp\?toolsets=all,tasks$/, `${heading} is given short names and the task tools, as docs/clients.md says`);
      const listed = new Map<string, string[]>();
      for (const { server, url } of found) listed.set(server, await listViaHttp(url, `Bearer ${key}`));
      checkClient(client, listed);
      // The task tools, as the README's stdio configurations give them (--toolsets all,tasks).
      assert.ok(listed.get('incidentops')!.includes('WhoIsOnCall') && listed.get('canvasapi')!.includes('ReadBoard'), `${heading}: the printed configuration lists the task tools`);
      assert.ok(listed.get('incidentops')!.includes('ListIncidents'), `${heading}: and the contract's`);
    }
  });
});
