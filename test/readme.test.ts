/**
 * The README works as written:
 * - it stays at most 12 KB (details live in docs/);
 * - every relative link and anchor in README.md and docs/*.md resolves;
 * - every shell command of its quick start, "Try a tool", client and troubleshooting sections
 *   runs from a fresh clone, with a throwaway HOME and npm prefix, against the sandbox.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { NAME_STYLES } from '../src/core/tools/names.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = path.join(ROOT, 'README.md');
/** A newcomer's path: 12,000 bytes at most (details live in docs/). */
const README_MAX_BYTES = 12_000;
/** The sections a newcomer follows step by step; their commands are run. */
const RUN_SECTIONS = ['Quick start', 'Try a tool', 'Connect a client', 'Troubleshooting'];

// ---------- links ----------

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every broken relative link or anchor of a Markdown file, as "file: target (why)". */
export function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const problems: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), pathPart);
    const where = `${path.relative(ROOT, file)}: ${target}`;
    if (!existsSync(resolved)) {
      problems.push(`${where} (no such file)`);
      continue;
    }
    if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) problems.push(`${where} (no heading with that anchor)`);
  }
  return problems;
}

function markdownFiles(): string[] {
  const docs = path.join(ROOT, 'docs');
  return [README, ...readdirSync(docs).filter((name) => name.endsWith('.md')).map((name) => path.join(docs, name))];
}

describe('README and docs', () => {
  it(`README.md is at most ${README_MAX_BYTES} bytes`, () => {
    const size = statSync(README).size;
    assert.ok(size <= README_MAX_BYTES, `README.md is ${size} bytes; move details to docs/`);
  });

  it('every relative link and anchor in README.md and docs/*.md resolves', () => {
    const files = markdownFiles();
    assert.ok(files.length >= 5, 'README and the docs pages are found');
    assert.deepEqual(files.flatMap(brokenLinks), []);
  });

  it('the link check finds a missing page and a missing anchor', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'readme-links-'));
    try {
      const file = path.join(dir, 'page.md');
      writeFileSync(file, '# Here\n[a](#here) [b](#gone) [c](nowhere.md) [d](https://example.com)\n');
      assert.deepEqual(
        brokenLinks(file).map((problem) => problem.replace(/^.*: /, '')),
        ['#gone (no heading with that anchor)', 'nowhere.md (no such file)'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------- commands ----------

/** The body of one `## ` section of the README. */
function section(readme: string, heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has a "${heading}" section`);
  const rest = readme.slice(start + heading.length + 5);
  const end = rest.search(/\n## /);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Shell commands of a section: each line of its sh blocks, and inline code that is a whole command. */
export function commandsIn(text: string): string[] {
  const commands: string[] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)\n```/g)) {
    for (const line of block[1]!.split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command) commands.push(command);
    }
  }
  const prose = text.replace(/```[\s\S]*?```/g, '');
  for (const span of prose.matchAll(/`((?:toolservers|npm|claude) [^`]+)`/g)) commands.push(span[1]!);
  return commands;
}

/**
 * The launch fragments the client sections give in prose (`"args": [...]` with the sandbox, or
 * `"command": "node", "args": ["/path/to/clone/dist/cli.js", ...]` without the global install),
 * as the command line a client would start.
 */
export function launchFragments(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  const launches: string[] = [];
  for (const span of prose.matchAll(/`((?:"command": "(\w+)", )?"?args"?\s*[:=]\s*(\[[^\]]*\]))`/g)) {
    const args = JSON.parse(span[3]!) as string[];
    launches.push([span[2] ?? 'toolservers', ...args].join(' '));
  }
  return launches;
}

interface Clone {
  dir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A fresh clone of this checkout (committed files plus uncommitted changes to tracked files),
 * with a throwaway HOME and npm prefix first on PATH. `npm ci` is not run: it needs the network
 * and a minute; the clone links this checkout's node_modules and gets its built dist/ instead,
 * which is what `npm ci` (its `prepare` script) leaves behind.
 */
function freshClone(): Clone {
  const base = mkdtempSync(path.join(tmpdir(), 'readme-clone-'));
  const dir = path.join(base, 'toolservers');
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', ROOT, dir]);
  const diff = execFileSync('git', ['-C', ROOT, 'diff', 'HEAD', '--binary'], { maxBuffer: 64 * 1024 * 1024 });
  if (diff.length > 0) execFileSync('git', ['-C', dir, 'apply', '--whitespace=nowarn'], { input: diff });
  symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'));
  cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
  const home = path.join(base, 'home');
  const prefix = path.join(base, 'npm-prefix');
  mkdirSync(home);
  mkdirSync(prefix);
  const env: NodeJS.ProcessEnv = {
    PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter),
    HOME: home,
    NPM_CONFIG_PREFIX: prefix,
    NPM_CONFIG_OFFLINE: 'true',
    NPM_CONFIG_UPDATE_NOTIFIER: 'false',
    NPM_CONFIG_FUND: 'false',
    NPM_CONFIG_AUDIT: 'false',
  };
  return { dir, env };
}

/** Runs a command that finishes, as written, in the clone; its output on failure. */
function runToEnd(clone: Clone, command: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('bash', ['-c', command], { cwd: clone.dir, env: clone.env, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts a command that serves until stopped; resolves with what it printed once `ready` matches. */
async function runUntil(clone: Clone, command: string, ready: RegExp): Promise<string> {
  const child: ChildProcess = spawn('bash', ['-c', command], { cwd: clone.dir, env: clone.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${command}: not ready within 60 s:\n${printed}`)), 60_000);
      const onData = (chunk: Buffer) => {
        printed += chunk.toString('utf8');
        if (ready.test(printed)) {
          clearTimeout(timer);
          resolve(printed);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${command}: exited with ${code} before it was ready:\n${printed}`));
      });
    });
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM'); // the whole group: npm, its script and the server
    } catch {
      // already gone
    }
  }
}

/** Starts a stdio server command as a client would and lists its tool names. */
async function listTools(clone: Clone, command: string): Promise<string[]> {
  const [program, ...args] = command.replaceAll('/path/to/clone', clone.dir).split(/\s+/);
  const transport = new StdioClientTransport({ command: program!, args, cwd: clone.dir, env: clone.env as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'readme-check', version: '1' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

/** Any port in a command becomes an ephemeral one: 3000 and 8080 may be taken on a shared machine. */
function onFreePort(command: string): string {
  if (/--port \d+/.test(command)) return command.replace(/--port \d+/, '--port 0');
  return command.startsWith('npm start') ? `${command} -- --port 0` : `${command} --port 0`;
}

const missingStyle = (command: string): string | undefined => {
  const style = /--tool-names (\w+)/.exec(command)?.[1];
  return style && !(NAME_STYLES as readonly string[]).includes(style) ? style : undefined;
};

/** Whether the built CLI has a sub-command (the README is written for the product of issue 19). */
function cliHas(command: string): boolean {
  return spawnSync(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'help', command], { encoding: 'utf8' }).status === 0;
}

/** What the test does with one command, or why it does not run it. */
type Plan = { kind: 'skip'; reason: string } | { kind: 'run' } | { kind: 'serve'; ready: RegExp } | { kind: 'stdio'; server: string };

function planFor(command: string): Plan {
  if (command === 'npm ci') return { kind: 'skip', reason: 'needs the network; the clone links node_modules and gets dist/ as npm ci leaves them' };
  if (/npx -y toolservers|npm install -g toolservers/.test(command)) return { kind: 'skip', reason: 'works once the package is published on npm, as the README says' };
  if (command === 'npm test') return { kind: 'skip', reason: 'the suite this test belongs to' };
  if (/^node \/path\/to\/clone\/dist\/cli\.js (incidentops|canvasapi)\b/.test(command)) {
    const style = missingStyle(command);
    if (style) return { kind: 'skip', reason: `this build has no --tool-names ${style}` };
    // A client configuration without the global install; it is given a token, so try it with the sandbox.
    return { kind: 'stdio', server: /--sandbox\b/.test(command) ? command : `${command} --sandbox` };
  }
  if (/<[^>]+>|…|\/path\/to\//.test(command) && !command.startsWith('claude mcp add')) return { kind: 'skip', reason: 'has a placeholder for the reader to fill in' };
  if (/^toolservers login\b/.test(command)) return { kind: 'skip', reason: 'signs in to a real account in a browser (docs/sandbox.md has the offline sign-in)' };
  if (command.startsWith('claude mcp add')) {
    // Claude Code itself is exercised by the real-client tests; here the server it is given must start.
    const server = command.split(' -- ')[1]?.trim() ?? '';
    const style = missingStyle(server);
    if (style) return { kind: 'skip', reason: `this build has no --tool-names ${style}` };
    return { kind: 'stdio', server: /--sandbox\b/.test(server) ? server : `${server} --sandbox` };
  }
  const style = missingStyle(command);
  if (style) return { kind: 'skip', reason: `this build has no --tool-names ${style}` };
  if (/^toolservers key\b/.test(command) && !cliHas('key')) return { kind: 'skip', reason: 'this build has no `toolservers key` command' };
  if (/^npm start\b|^toolservers serve\b/.test(command)) return { kind: 'serve', ready: /http:\/\/127\.0\.0\.1:\d+\/canvasapi\/mcp/ };
  if (/^toolservers sandbox\b/.test(command)) return { kind: 'serve', ready: /toolservers login canvasapi/ };
  if (/^toolservers (incidentops|canvasapi)\b/.test(command) && !/--transport http/.test(command)) return { kind: 'stdio', server: command };
  return { kind: 'run' };
}

const notAClone = spawnSync('git', ['-C', ROOT, 'rev-parse', '--git-dir']).status === 0 ? false : 'the checkout is not a git repository, so it cannot be cloned';

describe('the README as written, from a fresh clone', { concurrency: false, skip: notAClone }, () => {
  const readme = readFileSync(README, 'utf8');
  const commands = [
    ...RUN_SECTIONS.flatMap((heading) => commandsIn(section(readme, heading)).flatMap((line) => line.split(' && '))),
    ...launchFragments(section(readme, 'Connect a client')),
  ];
  let clone: Clone;

  before(() => {
    clone = freshClone();
  });
  after(() => {
    if (clone) rmSync(path.dirname(clone.dir), { recursive: true, force: true });
  });

  it('the sections name the commands a newcomer needs', () => {
    for (const needed of ['npm ci', 'npm install -g .', 'npm start', 'npm test']) assert.ok(commands.includes(needed), `README runs ${needed}`);
    assert.ok(commands.some((command) => command.startsWith('toolservers call ') && command.includes('--sandbox')), 'a tool call against the sandbox');
    assert.ok(commands.some((command) => command.startsWith('claude mcp add') && command.includes('--sandbox')), 'a Claude Code line with the sandbox');
    assert.ok(commands.some((command) => command.startsWith('node /path/to/clone/dist/cli.js ')), 'a configuration without the global install');
  });

  it('`npm install -g .` puts toolservers on the PATH of a throwaway prefix', () => {
    const install = runToEnd(clone, 'npm install -g .');
    assert.equal(install.status, 0, install.stderr);
    const which = runToEnd(clone, 'command -v toolservers');
    assert.equal(which.stdout.trim(), path.join(clone.env.NPM_CONFIG_PREFIX!, 'bin', 'toolservers'));
    assert.equal(runToEnd(clone, 'toolservers --version').status, 0);
  });

  // Each command in README order; `npm install -g .` is run again as written (it is idempotent).
  for (const command of [...new Set(commands)]) {
    const plan = planFor(command);
    it(`runs: ${command}`, plan.kind === 'skip' ? { skip: plan.reason } : {}, async () => {
      if (plan.kind === 'run') {
        const result = runToEnd(clone, command);
        assert.equal(result.status, 0, `${command} exited with ${result.status}:\n${result.stdout}\n${result.stderr}`);
        if (command.startsWith('toolservers call ')) {
          const parsed = JSON.parse(result.stdout) as Record<string, unknown>;
          assert.ok(!('error' in parsed), `${command} answered an error: ${result.stdout}`);
        }
      } else if (plan.kind === 'serve') {
        const printed = await runUntil(clone, onFreePort(command), plan.ready);
        assert.doesNotMatch(printed, /EADDRINUSE|Error:/);
      } else if (plan.kind === 'stdio') {
        const names = await listTools(clone, plan.server);
        assert.ok(names.length > 0, `${plan.server} lists tools`);
        for (const name of names) assert.match(name, /^[A-Za-z0-9_-]{1,64}$/, `${plan.server}: ${name}`);
      }
    });
  }
});
