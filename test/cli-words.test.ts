/**
 * The first ten minutes (issue 19): short tool names, a server key that survives restarts, a quiet
 * stdio start, and a command line that speaks of commands, with one exit-code rule and help texts
 * that agree with docs/cli.md. Processes are the real built CLI, each with its own credentials directory.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { silentLogger } from '../src/core/logger.js';
import { NAME_STYLES } from '../src/core/tools/names.js';
import { executeTool, listTools, viewFor } from '../src/core/tools/registry.js';
import { operatorChoices, requestViewOptions } from '../src/core/tools/request-choices.js';
import { keptServerKey, readServerKey, rotateServerKey, ServerKeyFileError } from '../src/core/signin/server-key.js';
import { SERVERS } from '../src/servers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));
const NAME_RULE = /^[A-Za-z0-9_-]{1,64}$/;
/** The longest server name docs/cli.md promises fits Claude Code's mcp__<server>__<tool>. */
const LONGEST_SERVER_NAME = 'a-twenty-char-server';

/** A fresh credentials directory: the kept key and sign-ins of one test, never the user's. */
const madeDirs: string[] = [];
after(() => {
  for (const dir of madeDirs) rmSync(dir, { recursive: true, force: true });
});

function freshEnv(extra: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cli-words-'));
  madeDirs.push(dir);
  return { PATH: process.env.PATH ?? '', HOME: dir, TOOLSERVERS_CREDENTIALS_FILE: path.join(dir, 'config', 'credentials.json'), ...extra };
}

function run(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env, timeout: 120_000 });
}

describe('short tool names', () => {
  it(`stay unique and within ${NAME_RULE} as mcp__<20-character server>__<name>, in every profile of both servers`, () => {
    assert.equal(LONGEST_SERVER_NAME.length, 20);
    assert.ok(NAME_STYLES.includes('short'));
    for (const entry of SERVERS) {
      const server = entry.create({}, { logger: silentLogger });
      for (const profile of ['all', 'everyday', 'readonly', 'meta']) {
        const listed = listTools(server, { nameStyle: 'short', selections: [{ profile }] });
        const names = listed.map((tool) => tool.name);
        assert.equal(new Set(names).size, names.length, `${entry.id} ${profile}: unique`);
        for (const name of names) {
          assert.ok(!name.startsWith(entry.name), `${name} has no server prefix`);
          assert.match(`mcp__${LONGEST_SERVER_NAME}__${name}`, NAME_RULE, `${entry.id} ${profile}`);
        }
        // Texts name tools the way the list does: no contract name is left in a description.
        for (const tool of listed) assert.doesNotMatch(tool.description ?? '', new RegExp(`\\b${entry.name}\\.[A-Z]`), tool.name);
      }
    }
    const canvas = SERVERS.find((entry) => entry.id === 'canvasapi')!.create({}, { logger: silentLogger });
    assert.ok(listTools(canvas, { nameStyle: 'short' }).some((tool) => tool.name === 'UpdateTeamBoardClassificationSettings'));
  });

  it('are chosen by flag, variable, path segment and header, and a call by any spelling reaches the tool in any style', () => {
    assert.equal(operatorChoices({ toolNames: 'short' }, {}).nameStyle, 'short');
    assert.equal(operatorChoices({}, { TOOLSERVERS_TOOL_NAMES: 'Short' }).nameStyle, 'short');
    assert.equal(requestViewOptions({}, ['short'], '/short/mcp', {}).nameStyle, 'short');
    assert.equal(requestViewOptions({}, [], '/mcp', { 'x-toolservers-tool-names': 'short' }).nameStyle, 'short');
    assert.equal(requestViewOptions({}, [], '/mcp?tool_names=short', {}).nameStyle, 'short');
    const server = SERVERS[0]!.create({}, { logger: silentLogger });
    for (const style of NAME_STYLES) {
      const view = viewFor(server, { nameStyle: style });
      for (const spelling of ['WhoAmI', 'IncidentOps.WhoAmI', 'IncidentOps_WhoAmI']) assert.equal(view.find(spelling)?.name, 'IncidentOps.WhoAmI', `${style}: ${spelling}`);
    }
    const unknown = viewFor(server, { nameStyle: 'short' }).unknownToolMessage('WhoAmi');
    assert.match(unknown, /Did you mean WhoAmI\?/);
  });

  it('select and exclude tools by short name, and meta mode finds, describes and names tools without the prefix', async () => {
    const server = SERVERS[0]!.create({}, { logger: silentLogger });
    const chosen = operatorChoices({ toolNames: 'short', tools: 'WhoAmI,IncidentOps_ListIncidents,GetIncident', excludeTools: 'GetIncident' }, {});
    assert.deepEqual(listTools(server, chosen).map((tool) => tool.name).sort(), ['ListIncidents', 'WhoAmI']);
    const meta = viewFor(server, { nameStyle: 'short', selections: [{ profile: 'meta' }] });
    assert.deepEqual(meta.listing.map((tool) => tool.name).slice(0, 2), ['FindTools', 'DescribeTool']);
    assert.doesNotMatch(meta.instructions, /IncidentOps[._][A-Z]/);
    const described = await executeTool(server, meta.find('DescribeTool')!, { name: 'ListOnCalls' }, new AbortController().signal);
    assert.equal(described.isError, undefined, JSON.stringify(described.structuredContent));
    assert.equal((described.structuredContent as { name: string }).name, 'ListOnCalls');
  });
});

describe('the kept server key', () => {
  it('is made once with mode 0600, agreed on by concurrent starts, reused, and replaced by rotation', async () => {
    const file = path.join(freshEnv().HOME!, 'nested', 'server-key');
    const first = await Promise.all(Array.from({ length: 8 }, () => keptServerKey(file)));
    assert.equal(new Set(first.map((kept) => kept.key)).size, 1, 'one key for concurrent starts');
    assert.equal(first.filter((kept) => kept.created).length, 1, 'made once');
    assert.ok(first[0]!.key.length >= 40);
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(await keptServerKey(file), { key: first[0]!.key, created: false });
    const rotated = await rotateServerKey(file);
    assert.notEqual(rotated, first[0]!.key);
    assert.equal(await readServerKey(file), rotated);
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it('refuses a symbolic link or a file without a key, tightens a loose mode', async () => {
    const dir = freshEnv().HOME!;
    const target = path.join(dir, 'elsewhere');
    writeFileSync(target, 'a-key-that-is-long-enough-to-use\n');
    const link = path.join(dir, 'server-key');
    symlinkSync(target, link);
    await assert.rejects(readServerKey(link), ServerKeyFileError);
    assert.ok(lstatSync(link).isSymbolicLink(), 'left as it was');
    const empty = path.join(dir, 'empty-key');
    writeFileSync(empty, '\n', { mode: 0o600 });
    await assert.rejects(keptServerKey(empty), /does not hold a key[\s\S]*toolservers key rotate/);
    const loose = path.join(dir, 'loose-key');
    writeFileSync(loose, 'another-key-long-enough-to-use\n');
    chmodSync(loose, 0o644);
    assert.equal(await readServerKey(loose), 'another-key-long-enough-to-use');
    if (process.platform !== 'win32') assert.equal(statSync(loose).mode & 0o777, 0o600);
  });

  /** `toolservers serve --sandbox` on a free port: its URL, banner and the key the banner shows. */
  async function startServe(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; banner: string; key: string | undefined }> {
    const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'], env });
    let banner = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${banner}`)), 60_000);
      child.stderr!.on('data', (chunk: Buffer) => {
        banner += chunk.toString('utf8');
        if (banner.includes('The servers use the built-in sandbox')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${banner}`)));
    });
    const url = /(http:\/\/127\.0\.0\.1:\d+)\/incidentops\/mcp/.exec(banner)![1]!;
    const key = /\):\n {2}(\S+)\n/.exec(banner)?.[1];
    return { child, url, banner, key };
  }

  async function stop(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
  }

  async function post(url: string, authorization?: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`${url}/incidentops/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    return { status: response.status, body: await response.text() };
  }

  it('survives restarts, is rotated by `toolservers key rotate`, and a wrong key gets a 401 naming the file, never the key', async () => {
    const env = freshEnv();
    const file = path.join(path.dirname(env.TOOLSERVERS_CREDENTIALS_FILE!), 'server-key');
    const first = await startServe(env);
    try {
      assert.ok(first.key, first.banner);
      assert.match(first.banner, /made now and kept in/);
      assert.equal(readFileSync(file, 'utf8').trim(), first.key);
      if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.notEqual((await post(first.url, `Bearer ${first.key}`)).status, 401);
      for (const authorization of [undefined, 'Bearer not-the-key-at-all-0123456789']) {
        const refused = await post(first.url, authorization);
        assert.equal(refused.status, 401);
        assert.ok(refused.body.includes('~/config/server-key'), `the file, relative to the home directory: ${refused.body}`);
        assert.ok(!refused.body.includes(env.HOME!), 'not whose home it is');
        assert.ok(!refused.body.includes(first.key!), 'the key is never told');
      }
    } finally {
      await stop(first.child);
    }
    const second = await startServe(env);
    try {
      assert.equal(second.key, first.key, 'the same key after a restart');
      assert.doesNotMatch(second.banner, /made now/);
    } finally {
      await stop(second.child);
    }
    const rotate = run(['key', 'rotate'], env);
    assert.equal(rotate.status, 0, rotate.stderr);
    const rotated = rotate.stdout.trim();
    assert.notEqual(rotated, first.key);
    assert.equal(run(['key', 'show'], env).stdout.trim(), rotated);
    const third = await startServe(env);
    try {
      assert.equal(third.key, rotated);
      assert.equal((await post(third.url, `Bearer ${first.key}`)).status, 401, 'the old key no longer works');
    } finally {
      await stop(third.child);
    }
  });

  it('a set key wins over the kept one and is never printed; its 401 names the variable', async () => {
    const setKey = 'set-by-the-operator-0123456789abcdef';
    const env = freshEnv({ TOOLSERVERS_SERVER_KEY: setKey });
    const kept = await keptServerKey(path.join(path.dirname(env.TOOLSERVERS_CREDENTIALS_FILE!), 'server-key'));
    const serve = await startServe(env);
    try {
      assert.ok(!serve.banner.includes(setKey) && !serve.banner.includes(kept.key), 'neither key is printed');
      assert.notEqual((await post(serve.url, `Bearer ${setKey}`)).status, 401);
      const refused = await post(serve.url, `Bearer ${kept.key}`);
      assert.equal(refused.status, 401);
      assert.match(refused.body, /TOOLSERVERS_SERVER_KEY/);
      assert.ok(!refused.body.includes(setKey));
    } finally {
      await stop(serve.child);
    }
  });
});

describe('a quiet start', () => {
  for (const [label, command] of [
    ['toolservers incidentops --sandbox', [CLI, 'incidentops', '--sandbox']],
    ['toolservers canvasapi (no flags, as desktop clients start it)', [MAIN, 'canvasapi']],
  ] as const) {
    it(`${label}: nothing on stderr through a listing and a call`, async () => {
      const env = freshEnv();
      const transport = new StdioClientTransport({ command: process.execPath, args: [...command], env, stderr: 'pipe' });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const client = new Client({ name: 'quiet-check', version: '1' });
      await client.connect(transport);
      try {
        const tools = await client.listTools();
        assert.ok(tools.tools.length > 0);
        // Without --sandbox the call is refused for want of a token: a result, not a log line.
        await client.callTool({ name: tools.tools[0]!.name, arguments: {} });
      } finally {
        await client.close();
      }
      assert.equal(stderr, '', `stderr: ${stderr}`);
    });
  }

  it('`npm start` prints its banner with no raw log line', async () => {
    const env = freshEnv();
    // Its own process group: the wrapper runs the server as a child, and both must stop.
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs'), '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });
    let printed = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${printed}`)), 300_000);
        child.stderr!.on('data', (chunk: Buffer) => {
          printed += chunk.toString('utf8');
          if (printed.includes('The servers use the built-in sandbox')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${printed}`)));
      });
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
    assert.match(printed, /toolservers is serving MCP/);
    for (const line of printed.split('\n')) assert.doesNotMatch(line, /^\s*\{"level":/, 'a raw JSON log line in the banner');
  });
});

describe('words for a shell', () => {
  it('call: a misspelt name gets the nearest name and the command that lists tools, exit code 2', () => {
    const env = freshEnv();
    const misspelt = run(['call', 'IncidentOps.WhoAmi'], env);
    assert.equal(misspelt.status, 2);
    assert.match(misspelt.stderr, /Did you mean IncidentOps\.WhoAmI\?/);
    assert.match(misspelt.stderr, /`toolservers tools incidentops` lists its 14 tools/);
    assert.doesNotMatch(misspelt.stderr, /tools\/list/);
    const unprefixed = run(['call', 'AddStickyNote'], env);
    assert.equal(unprefixed.status, 2);
    assert.match(unprefixed.stderr, /Did you mean AddStickyNoteToBoard\?/);
  });

  it('call: takes a name without the prefix, and runs it', () => {
    const result = run(['call', 'WhoAmI', '{}', '--sandbox'], freshEnv());
    assert.equal(result.status, 0, result.stderr);
    assert.ok((JSON.parse(result.stdout) as { user?: unknown }).user);
  });

  it('call: a picture is written with --image-out, else one line on stderr says it came and its size; stdout stays the JSON', () => {
    const env = freshEnv();
    const boards = JSON.parse(run(['call', 'CanvasApi.RetrieveUserBoards', '{}', '--sandbox'], env).stdout) as { data: { id: string; name: string }[] };
    const board = boards.data.find((b) => b.name === 'Payments Architecture')!.id;
    const args = JSON.stringify({ board_id: board, max_side: 300 });
    const said = run(['call', 'CanvasApi.ViewBoard', args, '--sandbox'], env);
    assert.equal(said.status, 0, said.stderr);
    const data = JSON.parse(said.stdout) as { size_px: string };
    const lines = said.stderr.trim().split('\n').filter((line) => line.includes('image'));
    assert.equal(lines.length, 1, said.stderr);
    assert.match(lines[0]!, new RegExp(`^The result holds an image \\(image/png, ${data.size_px} px, [\\d,]+ bytes\\), not printed: --image-out <file> writes it to a file\\.$`));
    const file = path.join(env.HOME!, 'board.png');
    const written = run(['call', 'CanvasApi.ViewBoard', args, '--sandbox', '--image-out', file], env);
    assert.equal(written.status, 0, written.stderr);
    assert.equal((JSON.parse(written.stdout) as { size_px: string }).size_px, data.size_px);
    const png = readFileSync(file);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`, data.size_px);
    assert.match(written.stderr, new RegExp(`image/png, ${data.size_px} px, ${png.length.toLocaleString('en-US')} bytes\\): written to `));
  });

  it('call without a token: exit code 1, says how to sign in or add --sandbox to the command; auth status asks no one to call a tool again', () => {
    const env = freshEnv();
    const result = run(['call', 'WhoAmI'], env);
    assert.equal(result.status, 1, result.stderr);
    const error = (JSON.parse(result.stdout) as { error: { next_step: string } }).error;
    assert.match(error.next_step, /toolservers login incidentops/);
    assert.match(error.next_step, /--sandbox \(to `toolservers call`/);
    assert.doesNotMatch(error.next_step, /start the server/);
    const status = run(['auth', 'status'], env);
    assert.equal(status.status, 0, status.stderr);
    assert.match(status.stdout, /toolservers login incidentops/);
    assert.doesNotMatch(status.stdout, /call the tool again/);
  });

  it('--tools and --exclude-tools suggest the nearest name, spelt as typed', () => {
    const env = freshEnv();
    const short = run(['tools', 'canvasapi', '--tools', 'AddStickyNote'], env);
    assert.equal(short.status, 2);
    assert.match(short.stderr, /did you mean "AddStickyNoteToBoard"\?/);
    const underscore = run(['tools', 'canvasapi', '--exclude-tools', 'CanvasApi_AddStickyNote'], env);
    assert.equal(underscore.status, 2);
    assert.match(underscore.stderr, /did you mean "CanvasApi_AddStickyNoteToBoard"\?/);
    const listed = run(['tools', 'canvasapi', '--tool-names', 'short', '--tools', 'AddStickyNoteToBoard,CanvasApi.GetStickyNoteInfo'], env);
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(listed.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]).sort(), ['AddStickyNoteToBoard', 'GetStickyNoteInfo']);
    // Over every server, each keeps the named tools it has; a name none has gets the nearest of all.
    const both = run(['tools', '--tool-names', 'short', '--tools', 'WhoAmI,AddStickyNoteToBoard'], env);
    assert.equal(both.status, 0, both.stderr);
    assert.deepEqual(both.stdout.trim().split('\n').map((line) => line.split(/\s+/)[0]), ['WhoAmI', 'AddStickyNoteToBoard']);
    const nowhere = run(['tools', '--tools', 'AddStickyNote'], env);
    assert.equal(nowhere.status, 2);
    assert.match(nowhere.stderr, /did you mean "AddStickyNoteToBoard"\?/);
  });

  describe('a busy port', () => {
    let holder: Server;
    let port: number;
    before(async () => {
      holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      port = (holder.address() as { port: number }).port;
    });
    after(() => holder.close());

    for (const args of [['incidentops', '--transport', 'http', '--sandbox'], ['sandbox']]) {
      it(`toolservers ${args[0]}: names the port and --port, exit code 2`, () => {
        const result = run([...args, '--port', String(port)], freshEnv());
        assert.equal(result.status, 2, result.stderr);
        assert.match(result.stderr, new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use`));
        assert.match(result.stderr, /--port <port>/);
        assert.doesNotMatch(result.stderr, /EADDRINUSE/);
      });
    }
  });

  it('one exit-code rule: 0 for help, 2 for bad usage of every kind', () => {
    const env = freshEnv();
    assert.equal(run(['--help'], env).status, 0);
    assert.match(run(['--help'], env).stdout, /Exit codes: 0 done; 1 the tool or the platform said no/);
    assert.equal(run(['--version'], env).status, 0);
    for (const args of [['no-such-command'], ['tools', '--no-such-flag'], ['call'], ['call', 'WhoAmI', '{not json'], ['call', 'WhoAmI', '--region', 'mars'], ['tools', 'nowhere'], ['tools', '--profile', 'nope'], ['incidentops', '--tool-names', 'dotted'], ['serve', '--sandbox', '--port', '0', '--server-key', 'too-short']]) {
      const result = run(args, env);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
    }
  });

  it("each server's help shows its own examples", () => {
    const env = freshEnv();
    const canvas = run(['canvasapi', '--help'], env).stdout;
    assert.match(canvas, /CanvasApi\.GetAccessTokenInfo/);
    assert.doesNotMatch(canvas, /IncidentOps/);
    assert.doesNotMatch(run(['incidentops', '--help'], env).stdout, /CanvasApi/);
  });

  it('the flags each --help lists are the flags docs/cli.md documents for that command', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
    const sections = new Map<string, Set<string>>();
    for (const part of doc.split(/^### /m).slice(1)) {
      const heading = part.slice(0, part.indexOf('\n'));
      sections.set(heading, new Set([...part.matchAll(/^\| `(--[a-z-]+)/gm)].map((match) => match[1]!)));
    }
    const section = (start: string) => {
      const found = [...sections.entries()].find(([heading]) => heading.startsWith(start));
      assert.ok(found, `docs/cli.md has a section "${start}"`);
      return found[1];
    };
    const serverFlags = section('`toolservers incidentops` and');
    const serving = section('Serving flags');
    const choices = section('Tool choices');
    const commands: [string[], Set<string>[]][] = [
      [['incidentops'], [serverFlags, serving, choices]],
      [['canvasapi'], [serverFlags, serving, choices]],
      [['serve'], [section('`toolservers serve'), serving, choices]],
      [['tools'], [section('`toolservers tools'), choices]],
      [['call'], [section('`toolservers call'), serverFlags]],
      [['sandbox'], [section('`toolservers sandbox')]],
      [['login', 'incidentops'], [section('`toolservers login')]],
      [['login', 'canvasapi'], [section('`toolservers login')]],
      [['auth', 'status'], [section('`toolservers logout')]],
    ];
    const usedByHelp = new Set<Set<string>>();
    const listedSomewhere = new Map<Set<string>, Set<string>>();
    for (const [command, documented] of commands) {
      const help = run([...command, '--help'], freshEnv()).stdout;
      const listed = new Set([...help.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((match) => match[1]!).filter((flag) => flag !== '--help'));
      const allowed = new Set(documented.flatMap((table) => [...table]));
      for (const flag of listed) assert.ok(allowed.has(flag), `toolservers ${command.join(' ')} --help lists ${flag}, which docs/cli.md does not document for it`);
      for (const table of documented) {
        usedByHelp.add(table);
        const seen = listedSomewhere.get(table) ?? new Set<string>();
        for (const flag of listed) seen.add(flag);
        listedSomewhere.set(table, seen);
      }
    }
    // Every documented flag exists on some command its table is for.
    for (const table of usedByHelp) for (const flag of table) assert.ok(listedSomewhere.get(table)!.has(flag), `docs/cli.md documents ${flag}, which no --help lists`);
    // serve takes no server flags: credentials come from the environment.
    assert.ok(!run(['serve', '--help'], freshEnv()).stdout.includes('--access-token'));
    assert.ok(existsSync(path.join(ROOT, 'docs', 'cli.md')));
  });
});
