/**
 * The operator's choice of names and tools through the real CLI over stdio: flags and
 * TOOLSERVERS_* variables, filtered tools unreachable, bad choices refused at start.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { silentLogger } from '../src/core/logger.js';
import { SERVERS } from '../src/servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

async function withStdio<T>(args: string[], env: Record<string, string>, use: (client: Client) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args, '--sandbox'], env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'error', ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'cli-choices', version: '1' });
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe('tool choices over stdio', () => {
  it('--read-only lists only read-only tools, and a write tool cannot be called', async () => {
    await withStdio(['canvasapi', '--read-only'], {}, async (client) => {
      const { tools } = await client.listTools();
      assert.ok(tools.length > 40 && tools.length < 139, `${tools.length} tools`);
      for (const tool of tools) assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      await assert.rejects(client.callTool({ name: 'CanvasApi.DeleteCanvasBoard', arguments: { board_identifier: 'x' } }), /not available on this connection.*read-only/);
    });
  });

  it('TOOLSERVERS_* variables choose the profile and the name style', async () => {
    await withStdio(['canvasapi'], { TOOLSERVERS_PROFILE: 'meta', TOOLSERVERS_TOOL_NAMES: 'underscore' }, async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ['CanvasApi_FindTools', 'CanvasApi_DescribeTool', 'CanvasApi_CallReadOnlyTool', 'CanvasApi_CallTool']);
      const boards = await client.callTool({ name: 'CanvasApi_CallReadOnlyTool', arguments: { name: 'RetrieveUserBoards', arguments: { maximum_number_of_boards: 2 } } });
      assert.ok(!boards.isError, JSON.stringify(boards.content));
      assert.ok(((boards.structuredContent as { data: unknown[] }).data).length > 0);
    });
  });

  it('--toolsets with --tools and --exclude-tools', async () => {
    await withStdio(['incidentops', '--toolsets', 'teams', '--tools', 'IncidentOps_WhoAmI', '--exclude-tools', 'ListTeams'], {}, async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), ['IncidentOps.GetTeam', 'IncidentOps.WhoAmI']);
    });
  });

  it('an unknown toolset or profile stops the server at start with the nearest name', () => {
    const toolset = spawnSync(process.execPath, [CLI, 'canvasapi', '--toolsets', 'board', '--sandbox'], { encoding: 'utf8', input: '' });
    assert.equal(toolset.status, 2);
    assert.match(toolset.stderr, /Unknown toolset "board" \(did you mean "boards"\?\)/);
    const profile = spawnSync(process.execPath, [CLI, 'incidentops'], { encoding: 'utf8', input: '', env: { ...process.env, TOOLSERVERS_PROFILE: 'everydya' } });
    assert.equal(profile.status, 2);
    assert.match(profile.stderr, /Unknown profile "everydya" \(did you mean "everyday"\?\)/);
    const style = spawnSync(process.execPath, [CLI, 'incidentops', '--tool-names', 'snake'], { encoding: 'utf8', input: '' });
    assert.equal(style.status, 2);
    assert.match(style.stderr, /--tool-names must be one of contract, underscore/);
  });

  it('`toolservers tools --toolsets` shows each toolset and profile with its size in bytes and tokens', () => {
    const result = spawnSync(process.execPath, [CLI, 'tools', 'canvasapi', '--toolsets'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    const rows = result.stdout.trim().split('\n');
    assert.match(rows[0]!, /tools\s+bytes\s+tokens/);
    const boards = rows.find((row) => /toolset boards\b/.test(row));
    assert.match(boards ?? '', /toolset boards\s+6\s+\d+\s+\d+/);
    assert.ok(rows.some((row) => /profile everyday\s+\d+/.test(row)));
    const listed = spawnSync(process.execPath, [CLI, 'tools', 'canvasapi', '--toolsets', 'boards', '--tool-names', 'underscore'], { encoding: 'utf8' });
    assert.equal(listed.stdout.trim().split('\n').length, 6);
    assert.match(listed.stdout, /^CanvasApi_/);
  });

  it('`toolservers tools --toolsets` lists every toolset of both servers, those beyond the contract too, in aligned columns', () => {
    const result = spawnSync(process.execPath, [CLI, 'tools', '--toolsets'], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    const rows = result.stdout.trimEnd().split('\n');
    for (const entry of SERVERS) {
      const server = entry.create({}, { logger: silentLogger });
      for (const toolset of new Set(server.tools.map((tool) => tool.toolset))) {
        assert.ok(rows.some((row) => row.startsWith(`${server.id} `) && row.includes(` toolset ${toolset} `)), `${server.id}: toolset ${toolset} is listed`);
      }
    }
    assert.ok(rows.some((row) => / toolset tasks /.test(row)), 'the task tools\' toolset is listed');
    // Each number column ends at the same place in every row, the header's included.
    const ends = (row: string) => [...row.matchAll(/\S+/g)].slice(-3).map((match) => match.index! + match[0].length);
    for (const row of rows) assert.deepEqual(ends(row), ends(rows[0]!), `misaligned: ${row}`);
  });

  it('a stdio server exits when the client closes stdin, with or without the sandbox', async () => {
    for (const args of [['incidentops', '--sandbox'], ['canvasapi'], ['canvasapi', '--profile', 'meta', '--sandbox']]) {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'ignore', 'ignore'], env: { PATH: process.env.PATH ?? '', CANVASAPI_ACCESS_TOKEN: 'unused' } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      assert.equal(code, 0, `${args.join(' ')} exits cleanly on stdin EOF`);
    }
  });
});
