/**
 * The first run as a newcomer makes it (issue 32):
 * - the configurations `serve` prints give the task tools (client-configs.test.ts lists them over HTTP);
 * - `serve --toolsets boards` starts, CanvasApi lists only the boards toolset, IncidentOps is not mounted;
 * - with short names, an error's next step, a skill and a task answer name tools as tools/list does;
 * - WhoIsOnCall names a person once per level; GetIncidentContext's other_open says how many more.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { silentLogger } from '../src/core/logger.js';
import { mcpServerFactory, viewFor, type AnyToolServer } from '../src/core/tools/registry.js';
import { restyleResult } from '../src/core/tools/listing.js';
import type { AnyToolDefinition } from '../src/core/tools/tool.js';
import { forServer } from '../src/core/tools/selection.js';
import { onCallLevels } from '../src/incidentops/oncall-levels.js';
import { otherOpenIncidents, OPEN_SHOWN } from '../src/incidentops/tasks/incident-surroundings.js';
import type { IncidentOpsApi, ListPage } from '../src/incidentops/api.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { incidentOpsServerFor, startTestSandbox } from './support/harness.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const servers = SERVERS.map((entry) => entry.create({}, { logger: silentLogger }) as AnyToolServer);
const [incidentOps, canvasApi] = ['incidentops', 'canvasapi'].map((id) => servers.find((server) => server.id === id)!) as [AnyToolServer, AnyToolServer];

/** A `toolservers serve --sandbox` with these flags, until its banner is out. */
async function startServe(flags: string[]): Promise<{ stop: () => void; printed: string; url: string; key: string }> {
  const credentials = path.join(mkdtempSync(path.join(tmpdir(), 'first-run-')), 'credentials.json');
  const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--port', '0', ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, TOOLSERVERS_LOG_LEVEL: 'error', TOOLSERVERS_CREDENTIALS_FILE: credentials },
  });
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no banner: ${printed}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      printed += chunk.toString('utf8');
      if (printed.includes('The servers use the built-in sandbox')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${printed}`)));
  });
  const url = /(http:\/\/127\.0\.0\.1:\d+)\/canvasapi\/mcp/.exec(printed)![1]!;
  const key = /The key \([^\n]*\):\n\s+(\S+)/.exec(printed)![1]!;
  return { stop: () => child.kill(), printed, url, key };
}

async function toolNames(url: string, key: string): Promise<string[]> {
  const client = new Client({ name: 'first-run', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe('`serve --toolsets` with names only some servers have', () => {
  it('each server keeps the toolsets it has; `all` and `tasks` apply to both; a name no server has is refused', () => {
    const boards = { toolsets: ['boards'] };
    assert.deepEqual(forServer(boards, canvasApi, servers), boards);
    assert.deepEqual(forServer(boards, incidentOps, servers).toolsets, []);
    assert.deepEqual(forServer({ toolsets: ['all', 'tasks', 'boards'] }, incidentOps, servers).toolsets, ['all', 'tasks']);
    assert.throws(() => forServer({ toolsets: ['bords'] }, canvasApi, servers), /Unknown toolset "bords" \(did you mean "boards"\?\)/);
    // Left with no toolset, a server keeps what --tools names of it, and nothing else.
    const both = { toolsets: ['boards'], tools: ['IncidentOps.WhoAmI'] };
    assert.deepEqual(viewFor(incidentOps, { selections: [forServer(both, incidentOps, servers)] }).listing.map((tool) => tool.name), ['IncidentOps.WhoAmI']);
    assert.equal(viewFor(incidentOps, { selections: [forServer(boards, incidentOps, servers)] }).listing.length, 0);
  });

  it('`serve --toolsets boards` starts: CanvasApi lists only the boards toolset, IncidentOps is not mounted', async () => {
    const serve = await startServe(['--toolsets', 'boards']);
    try {
      const expected = canvasApi.tools.filter((tool) => tool.toolset === 'boards').map((tool) => tool.name);
      assert.ok(expected.length > 0);
      assert.deepEqual((await toolNames(`${serve.url}/canvasapi/mcp`, serve.key)).sort(), expected.sort());
      assert.match(serve.printed, /IncidentOps is not served: the tool choice leaves it no tool/);
      assert.doesNotMatch(serve.printed, /incidentops\/mcp/, 'no configuration names the unmounted server');
      const missing = await fetch(`${serve.url}/incidentops/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${serve.key}`, 'Content-Type': 'application/json' }, body: '{}' });
      assert.equal(missing.status, 404);
      assert.match(((await missing.json()) as { error: string }).error, /Endpoints: \/canvasapi\/mcp/);
    } finally {
      serve.stop();
    }
  });

  it('`serve --toolsets bords` stops at start with the nearest toolset of either server', () => {
    const result = spawnSync(process.execPath, [CLI, 'serve', '--sandbox', '--port', '0', '--toolsets', 'bords'], { encoding: 'utf8', env: { ...process.env, TOOLSERVERS_LOG_LEVEL: 'error' } });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^Unknown toolset "bords" \(did you mean "boards"\?\)/);
  });
});

describe('texts name tools in the connection\'s style', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(() => sandbox?.close());

  async function connected(nameStyle: 'short' | 'contract', use: (client: Client) => Promise<void>): Promise<void> {
    const server = incidentOpsServerFor(sandbox);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = await mcpServerFactory(viewFor(server, { nameStyle, selections: [{ toolsets: ['all', 'tasks'] }] }))({} as never);
    await mcp.connect(serverSide);
    const client = new Client({ name: 'first-run', version: '1' });
    await client.connect(clientSide);
    try {
      await use(client);
    } finally {
      await client.close();
    }
  }

  it('an error\'s next step says ListServices with short names, IncidentOps.ListServices with contract names', async () => {
    for (const [style, named] of [['short', 'ListServices'], ['contract', 'IncidentOps.ListServices']] as const) {
      await connected(style, async (client) => {
        const result = await client.callTool({ name: 'WhoIsOnCall', arguments: { service_id: 'no such service anywhere' } });
        assert.equal(result.isError, true);
        const text = (result.content as { text: string }[])[0]!.text;
        if (style === 'short') assert.ok(!text.includes('IncidentOps.'), text);
        assert.match(text, new RegExp(`"next_step":"${named.replace('.', '\\.')} lists them`));
      });
    }
  });

  it('a skill\'s text names tools as tools/list does', async () => {
    await connected('short', async (client) => {
      const skills = new SkillsClient(client);
      const entry = (await skills.list()).skills.find((skill) => skill.frontmatter.name === 'incident-triage')!;
      const file = await skills.read(entry);
      assert.equal(file.verified, true);
      assert.match(file.text ?? '', /`ListIncidents`/);
      assert.doesNotMatch(file.text ?? '', /IncidentOps\.[A-Z]/);
    });
    await connected('contract', async (client) => {
      const entry = (await new SkillsClient(client).list()).skills.find((skill) => skill.frontmatter.name === 'incident-triage')!;
      assert.match((await new SkillsClient(client).read(entry)).text ?? '', /`IncidentOps\.ListIncidents`/);
    });
  });

  it('a structured answer is restyled with its text, and one that names no tool is returned as it is', () => {
    const data = { other_open: ['… and 3 more: IncidentOps.ListIncidents lists them.'], n: 1 };
    const result = { content: [{ type: 'text' as const, text: JSON.stringify(data) }], structuredContent: data };
    const tools = [{ name: 'IncidentOps.ListIncidents' }, { name: 'IncidentOps.ListIncidentNotes' }] as unknown as AnyToolDefinition[];
    const short = restyleResult(result, 'short', 'IncidentOps', tools);
    assert.deepEqual(short.structuredContent, { other_open: ['… and 3 more: ListIncidents lists them.'], n: 1 });
    assert.equal((short.content[0] as { text: string }).text, JSON.stringify(short.structuredContent));
    assert.match(JSON.stringify(restyleResult(result, 'underscore', 'IncidentOps', tools).structuredContent), /IncidentOps_ListIncidents lists them/);
    const plain = { content: [{ type: 'text' as const, text: '{"a":"CanvasApi is fine"}' }], structuredContent: { a: 'CanvasApi is fine' } };
    assert.equal(restyleResult(plain, 'short', 'IncidentOps', tools), plain);
    // Platform text that only looks like a tool name is left as it is; a real name in it changes.
    const lookalike = { content: [{ type: 'text' as const, text: '{"a":"IncidentOps.Whatever and IncidentOps.ListIncidentNotes"}' }], structuredContent: { a: 'IncidentOps.Whatever and IncidentOps.ListIncidentNotes' } };
    assert.deepEqual(restyleResult(lookalike, 'short', 'IncidentOps', tools).structuredContent, { a: 'IncidentOps.Whatever and ListIncidentNotes' });
  });
});

describe('WhoIsOnCall names each person once per level', () => {
  const policy = { id: 'PPOL', summary: 'Payments' };
  const alex = { id: 'PALEX', summary: 'Alex' };
  const row = (user: object, schedule?: { id: string; summary: string }, start?: string, end?: string) => ({
    escalation_policy: policy,
    escalation_level: 2,
    user,
    ...(schedule ? { schedule } : {}),
    start: start ?? null,
    end: end ?? null,
  });

  it('on call directly ("always") and through a schedule: one entry with always and via', () => {
    const at = Date.parse('2026-05-06T12:00:00Z');
    const rows = [
      row(alex),
      row(alex, { id: 'PSEC', summary: 'Secondary' }, '2026-05-04T09:00:00Z', '2026-05-11T09:00:00Z'),
      row({ id: 'PLUC', summary: 'Lucia' }, { id: 'PSEC', summary: 'Secondary' }, '2026-05-11T09:00:00Z', '2026-05-18T09:00:00Z'),
    ];
    const [level] = onCallLevels(rows, at, true)[0]!.levels;
    assert.equal(level!.on_call.length, 1);
    assert.deepEqual(level!.on_call[0], {
      user: 'Alex (PALEX)',
      via: 'Secondary (PSEC)',
      since: '2026-05-04T09:00:00Z',
      until: '2026-05-11T09:00:00Z',
      always: true,
      next: { user: 'Lucia (PLUC)', from: '2026-05-11T09:00:00Z' },
    });
  });

  it('through two schedules: one entry naming both, from the earlier start to the later end', () => {
    const at = Date.parse('2026-05-06T12:00:00Z');
    const rows = [
      row(alex, { id: 'PA', summary: 'A' }, '2026-05-06T09:00:00Z', '2026-05-06T17:00:00Z'),
      row(alex, { id: 'PB', summary: 'B' }, '2026-05-06T08:00:00Z', '2026-05-06T14:00:00Z'),
    ];
    const entries = onCallLevels(rows, at, false)[0]!.levels[0]!.on_call;
    assert.deepEqual(entries, [{ user: 'Alex (PALEX)', via: 'A (PA), B (PB)', since: '2026-05-06T08:00:00Z', until: '2026-05-06T17:00:00Z' }]);
  });

  it('on the sandbox, no level of any service names a person twice', async () => {
    const sandbox = await startTestSandbox();
    try {
      const server = incidentOpsServerFor(sandbox);
      const tool = server.tools.find((candidate) => candidate.name === 'IncidentOps.WhoIsOnCall')!;
      const { executeTool } = await import('../src/core/tools/registry.js');
      const result = await executeTool(server, tool, { service_id: 'payments' }, new AbortController().signal);
      const answer = result.structuredContent as { escalation_policies: { levels: { on_call: { user?: string; always?: boolean; via?: string }[] }[] }[] };
      const levels = answer.escalation_policies.flatMap((p) => p.levels);
      assert.ok(levels.length > 0);
      for (const level of levels) {
        const users = level.on_call.flatMap((entry) => (entry.user ? [entry.user] : []));
        assert.equal(new Set(users).size, users.length, `a person twice at one level: ${users.join(', ')}`);
      }
      assert.ok(levels.some((level) => level.on_call.some((entry) => entry.always && entry.via)), 'the sandbox has a person on call both ways, shown once');
    } finally {
      await sandbox.close();
    }
  });
});

describe("GetIncidentContext's other_open says how many more", () => {
  const incident = (n: number) => ({ incident: { id: `PI${n}`, incident_number: n, title: `Incident ${n}`, status: 'triggered' } });
  const apiAnswering = (page: Partial<ListPage>) => ({ listPage: async () => ({ items: [], bytes: 0, limit: 25, offset: 0, more: false, ...page }) }) as unknown as IncidentOpsApi;

  it('with more related incidents than shown: "… and N more"', async () => {
    const related = Array.from({ length: OPEN_SHOWN + 3 }, (_, i) => incident(i + 1));
    const lines = await otherOpenIncidents(apiAnswering({ items: related }), { id: 'PSELF' }, new AbortController().signal);
    assert.equal(lines.length, OPEN_SHOWN + 1);
    assert.equal(lines.at(-1), '… and 3 more: IncidentOps.ListIncidents lists them.');
  });

  it('no count line when all are shown; "… and more" when the platform does not say how many', async () => {
    assert.equal((await otherOpenIncidents(apiAnswering({ items: [incident(1)] }), { id: 'PSELF' }, new AbortController().signal)).length, 1);
    const lines = await otherOpenIncidents(apiAnswering({ items: [incident(1)], more: true }), { id: 'PSELF' }, new AbortController().signal);
    assert.equal(lines.at(-1), '… and more: IncidentOps.ListIncidents lists them.');
  });
});

describe("the README's several calls on one sandbox", () => {
  it('run as written against one `toolservers sandbox`: the diagram drawn in one call is read by the next, its link on the sandbox', async () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const section = readme.slice(readme.indexOf('\n## Several calls on one sandbox\n'));
    const lines = /```sh\n([\s\S]*?)\n```/.exec(section)![1]!.split('\n');
    assert.match(lines[0]!, /^toolservers sandbox --port (\d+)$/);
    const written = /--port (\d+)/.exec(lines[0]!)![1]!;
    const child = spawn(process.execPath, [CLI, 'sandbox', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TOOLSERVERS_LOG_LEVEL: 'error' } });
    try {
      const port = await new Promise<string>((resolve, reject) => {
        let printed = '';
        const timer = setTimeout(() => reject(new Error(`no sandbox: ${printed}`)), 20_000);
        const onData = (chunk: Buffer) => {
          printed += chunk.toString('utf8');
          const match = /Sandbox running at http:\/\/127\.0\.0\.1:(\d+)/.exec(printed);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        };
        child.stdout!.on('data', onData);
        child.stderr!.on('data', onData);
      });
      // The rest in one shell, as a reader types it in a second terminal; each call's output after a marker.
      const script = lines
        .slice(1)
        .map((line) => line.replaceAll(`:${written}/`, `:${port}/`).replace(/^toolservers /, `"${process.execPath}" "${CLI}" `))
        .flatMap((line) => [line, 'echo "@@"'])
        .join('\n');
      const { PATH, HOME } = process.env;
      const run = spawnSync('bash', ['-e', '-c', script], { encoding: 'utf8', env: { PATH, HOME, TOOLSERVERS_LOG_LEVEL: 'error' } });
      assert.equal(run.status, 0, run.stderr);
      const answers = run.stdout.split('@@\n').filter((part) => part.trim().startsWith('{')).map((part) => JSON.parse(part) as Record<string, unknown>);
      assert.equal(answers.length, 2, run.stdout);
      const [drawn, read] = answers as [{ item_link: string; node_items: Record<string, string> }, Record<string, unknown>];
      assert.ok(drawn.item_link.startsWith(`http://127.0.0.1:${port}/`), drawn.item_link);
      const shipId = Object.values(drawn.node_items).at(-1)!;
      assert.ok(JSON.stringify(read).includes(shipId), `ReadBoard finds the node drawn by the call before: ${JSON.stringify(read).slice(0, 400)}`);
    } finally {
      child.kill();
    }
  });
});
