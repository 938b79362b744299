/**
 * The package is shippable: the npm tarball carries the bundled CLI and nothing of the sources,
 * `npx` runs it from the tarball, the container and compose files pass only flags and variables
 * the CLI accepts, nginx balances without stickiness and accepts its configuration, and server.json
 * describes the package as the MCP registry requires. Docker cannot run here: the Dockerfile and
 * compose.yaml are parsed and checked, not built.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseYamlSubset, type YamlValue } from './support/yaml-subset.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST_CLI = path.join(ROOT, 'dist', 'cli.js');
const built = existsSync(DIST_CLI) ? false : 'dist/cli.js is not built (npm run build)';
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  mcpName?: string;
  bin: Record<string, string>;
  files: string[];
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const scratch = mkdtempSync(path.join(tmpdir(), 'toolservers-ship-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// Names other helpers of the same change add to the CLI (HELPERS.md); everything else must exist today.
const AGREED_FLAGS = ['--auth', '--public-url', '--store', '--redis-url'];
const AGREED_ENV = ['TOOLSERVERS_AUTH', 'TOOLSERVERS_PUBLIC_URL', 'TOOLSERVERS_STORE', 'TOOLSERVERS_REDIS_URL', 'TOOLSERVERS_STATE_KEY'];

/** The flags `toolservers serve` takes, from its own help. */
function serveFlags(): Set<string> {
  const help = spawnSync(process.execPath, [DIST_CLI, 'serve', '--help'], { encoding: 'utf8' }).stdout;
  return new Set([...help.matchAll(/(?:^|[\s,])(--[a-z][a-z-]*)/g)].map((match) => match[1]!));
}

/** Every environment variable name the shipped CLI code mentions (it reads no name it does not spell out). */
function shippedCode(): string {
  const chunks = path.join(ROOT, 'dist', 'chunks');
  return [DIST_CLI, ...readdirSync(chunks).filter((name) => name.endsWith('.js')).map((name) => path.join(chunks, name))].map((file) => readFileSync(file, 'utf8')).join('\n');
}

function assertCliAccepts(flags: string[], envNames: string[], where: string): void {
  const known = serveFlags();
  assert.ok(known.has('--host') && known.has('--port'), 'serve --help lists --host and --port');
  for (const flag of flags) assert.ok(known.has(flag) || AGREED_FLAGS.includes(flag), `${where} passes ${flag}, which toolservers serve does not take`);
  const code = shippedCode();
  for (const name of envNames) assert.ok(code.includes(`"${name}"`) || AGREED_ENV.includes(name), `${where} sets ${name}, which the CLI never reads`);
}

/** Relative imports of the shipped JavaScript: every one must be a file in `files`. Bare ones: builtins or runtime dependencies. */
function importsOf(code: string): { relative: string[]; bare: string[] } {
  // `require2(...)`: esbuild's name for a createRequire() function, which loads from node_modules at run time.
  const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\d*\(\s*)"((?:node:)?[@.a-z0-9][\w./@-]*)"/g)].map((match) => match[1]!);
  return { relative: specifiers.filter((s) => s.startsWith('.')), bare: specifiers.filter((s) => !s.startsWith('.')) };
}

describe('the npm package', { skip: built }, () => {
  it('packs the bundled CLI with its chunks and source maps, and no sources, tests or reference files', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    const files = (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((file) => file.path);
    for (const required of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', pkg.bin.toolservers!]) assert.ok(files.includes(required.replace(/^\.\//, '')), `${required} is in the tarball`);
    assert.ok(files.some((file) => /^dist\/chunks\/.+\.js$/.test(file)), 'chunks are in the tarball');
    assert.ok(files.includes('dist/cli.js.map'), 'source maps are in the tarball');
    const forbidden = files.filter((file) => /^(src|test|build|bench|scripts|mcpb|deploy|node_modules|shared|reference)\//.test(file) || file.endsWith('.ts') || /openapi|\.env/.test(file));
    assert.deepEqual(forbidden, []);

    // What the CLI loads at run time is either in the tarball or installed with it.
    const shipped = new Set(files);
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      const { relative, bare } = importsOf(readFileSync(path.join(ROOT, file), 'utf8'));
      for (const spec of relative) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
        assert.ok(shipped.has(target), `${file} imports ${spec}, which the tarball lacks`);
      }
      for (const spec of bare) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        assert.ok(builtinModules.includes(spec.replace(/^node:/, '')) || spec.startsWith('node:') || name in pkg.dependencies, `${file} loads ${spec}: neither bundled, built in, nor a runtime dependency`);
      }
    }
  });

  it('runs from the tarball with npx', { timeout: 120_000 }, async () => {
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch], { cwd: ROOT });
    const tarball = path.join(scratch, `${pkg.name}-${pkg.version}.tgz`);
    assert.ok(existsSync(tarball));
    // Away from the checkout, so npx cannot fall back on the project's own bin.
    const cwd = mkdtempSync(path.join(scratch, 'elsewhere-'));
    const npx = (args: string[]) => run('npm', ['exec', '--yes', '--prefer-offline', '--no-audit', '--no-fund', `--package=${tarball}`, '--', 'toolservers', ...args], { cwd, env: { ...process.env, TOOLSERVERS_LOG_LEVEL: 'warn', HOME: process.env.HOME ?? homedir() } });
    try {
      // A tool call loads the server, the protocol code and the in-process sandbox chunks.
      const whoAmI = JSON.parse((await npx(['call', 'IncidentOps.WhoAmI', '--sandbox'])).stdout) as { user?: { id?: string } };
      assert.ok(whoAmI.user?.id, 'WhoAmI answered with the sandbox user');
      const installed = npxInstalls(tarball).map((dir) => JSON.parse(readFileSync(path.join(dir, 'node_modules', pkg.name, 'package.json'), 'utf8')) as { version: string });
      assert.deepEqual(installed.map((manifest) => manifest.version), [pkg.version], 'npx ran this version, from the tarball');
    } finally {
      for (const dir of npxInstalls(tarball)) rmSync(dir, { recursive: true, force: true });
    }
  });

  it('builds dist/ in `prepare` and still installs the conformance runner, which skips global installs', () => {
    assert.equal(pkg.scripts.prepare, 'node scripts/prepare.mjs');
    assert.match(read('scripts/prepare.mjs'), /install-conformance\.mjs/);
    // dist/ is fresh (npm test built it): nothing to build, and a global install gets no test tools.
    const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'prepare.mjs')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, npm_config_global: 'true', npm_command: 'install' } });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /conformance runner: skipped \(production or global install\)/);
  });

  it('has an MIT LICENSE and a changelog for this version', () => {
    assert.equal(pkg.license, 'MIT');
    const license = read('LICENSE');
    assert.match(license, /^MIT License/);
    assert.match(license, /Copyright \(c\) 2026 toolservers contributors/);
    const changelog = read('CHANGELOG.md');
    assert.match(changelog, /^## \[Unreleased\]$/m);
    assert.match(changelog, new RegExp(`^## \\[${pkg.version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
  });
});

/** npx installs each package spec under <npm cache>/_npx/<hash>: the installs of this tarball (to check, then remove). */
function npxInstalls(tarball: string): string[] {
  const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim().split('\n').pop() ?? '';
  const npxDir = path.join(cache, '_npx');
  if (!cache || !existsSync(npxDir)) return [];
  return readdirSync(npxDir)
    .map((entry) => path.join(npxDir, entry))
    .filter((dir) => {
      const manifest = path.join(dir, 'package.json');
      return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { _npx?: { packages?: string[] } })._npx?.packages?.includes(tarball) === true;
    });
}

interface DockerInstruction {
  instruction: string;
  args: string;
  stage: string;
}

/** The Dockerfile as instructions (continuation lines joined, comments dropped), each with its stage. */
function dockerInstructions(source: string): DockerInstruction[] {
  const joined = source.replace(/\\\n\s*/g, ' ');
  const out: DockerInstruction[] = [];
  let stage = '(before FROM)';
  for (const line of joined.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const [, instruction = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (instruction.toUpperCase() === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${out.length}`;
    out.push({ instruction: instruction.toUpperCase(), args, stage });
  }
  return out;
}

/** Docker's .dockerignore rules for the forms used here (`*`, `name`, `dir/`, `!…`): is this path sent to the build? */
function inBuildContext(rules: string[], file: string): boolean {
  let included = true;
  for (const rule of rules) {
    const negated = rule.startsWith('!');
    const pattern = (negated ? rule.slice(1) : rule).replace(/\/$/, '');
    if (/[?[\]]|\*\*/.test(pattern) || (pattern.includes('*') && pattern !== '*')) throw new Error(`.dockerignore pattern not understood by this test: ${rule}`);
    const matches = pattern === '*' || file === pattern || file.startsWith(`${pattern}/`);
    if (matches) included = negated;
  }
  return included;
}

describe('the container image', () => {
  const instructions = dockerInstructions(read('Dockerfile'));
  const stages = instructions.filter((i) => i.instruction === 'FROM').map((i) => i.stage);
  const final = stages.at(-1)!;
  const inFinal = instructions.filter((i) => i.stage === final);
  const jsonArray = (args: string) => JSON.parse(args) as string[];

  it('builds in one stage and runs production dependencies and the bundle in another', () => {
    assert.ok(stages.length >= 2, `multi-stage: ${stages.join(', ')}`);
    const runs = (stage: string) => instructions.filter((i) => i.stage === stage && i.instruction === 'RUN').map((i) => i.args).join('\n');
    assert.match(runs(stages[0]!), /npm ci\b/);
    assert.match(runs(stages[0]!), /npm run build\b/);
    assert.match(runs(final), /npm ci\b[^\n]*--omit=dev/);
    assert.doesNotMatch(runs(final), /npm run build/);
    const copiedFromBuild = inFinal.filter((i) => i.instruction === 'COPY' && i.args.includes(`--from=${stages[0]}`)).map((i) => i.args).join(' ');
    for (const needed of ['dist/cli.js', 'dist/chunks']) assert.ok(copiedFromBuild.includes(needed), `the runtime stage copies ${needed} from the build stage`);
  });

  it('runs as a non-root user, checks /health with node, and serves HTTP on all interfaces', () => {
    const user = inFinal.filter((i) => i.instruction === 'USER').at(-1);
    assert.ok(user, 'the runtime stage sets USER');
    assert.ok(!['root', '0', '0:0'].includes(user.args.trim()), `USER ${user.args} is not root`);
    const entrypointAt = inFinal.findIndex((i) => i.instruction === 'ENTRYPOINT');
    assert.ok(inFinal.indexOf(user) < entrypointAt, 'USER comes before the entrypoint');

    const health = inFinal.find((i) => i.instruction === 'HEALTHCHECK');
    assert.ok(health, 'a HEALTHCHECK');
    const check = jsonArray(health.args.slice(health.args.indexOf('CMD') + 3).trim());
    assert.equal(check[0], 'node', 'the health check runs node (slim images have no curl)');
    assert.match(check.join(' '), /http:\/\/127\.0\.0\.1:3000\/health/);
    assert.doesNotMatch(health.args, /curl|wget/);

    const entrypoint = jsonArray(inFinal[entrypointAt]!.args);
    assert.deepEqual(entrypoint, ['node', '/app/dist/cli.js']);
    const cmd = jsonArray(inFinal.find((i) => i.instruction === 'CMD')!.args);
    assert.equal(cmd[0], 'serve');
    assert.equal(cmd[cmd.indexOf('--host') + 1], '0.0.0.0');
    const port = cmd[cmd.indexOf('--port') + 1];
    assert.ok(inFinal.some((i) => i.instruction === 'EXPOSE' && i.args.split(/\s+/).includes(port!)), `EXPOSE ${port}`);
    assert.ok(!built, 'dist/cli.js is built');
    assertCliAccepts(cmd.filter((arg) => arg.startsWith('--')), [], 'the Dockerfile CMD');
  });

  it('gets every file it copies from the build context, and nothing else', () => {
    const rules = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    const sources = instructions
      .filter((i) => i.instruction === 'COPY' && !i.args.includes('--from='))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    assert.ok(sources.length > 0);
    for (const source of sources) {
      assert.ok(existsSync(path.join(ROOT, source)), `${source} exists`);
      assert.ok(inBuildContext(rules, source), `${source} is in the build context`);
    }
    for (const kept of ['node_modules', 'dist/cli.js', 'build', '.git', 'test/shippable.test.ts', 'bench', '.env', 'credentials.json', 'shared/reference']) {
      assert.equal(inBuildContext(rules, kept), false, `${kept} stays out of the build context`);
    }
  });
});

describe('compose.yaml', () => {
  const compose = parseYamlSubset(read('compose.yaml')) as { services: Record<string, Record<string, YamlValue>> };
  const services = compose.services;
  const replicas = Object.keys(services).filter((name) => /^toolservers-\d+$/.test(name));
  const variablesIn = (text: string) => [...text.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!);

  it('runs two identical replicas with the Redis store, and Redis', () => {
    assert.equal(replicas.length, 2);
    const [first, second] = replicas.map((name) => services[name]!);
    assert.deepEqual(first, second, 'the replicas differ only in name');
    const command = first!.command as string[];
    assert.equal(command[0], 'serve');
    assert.equal(command[command.indexOf('--store') + 1], 'redis');
    assert.equal(command[command.indexOf('--host') + 1], '0.0.0.0');
    assert.equal(command[command.indexOf('--port') + 1], '3000', 'the port nginx and the image health check use');
    const env = first!.environment as Record<string, string>;
    for (const name of ['TOOLSERVERS_AUTH', 'TOOLSERVERS_PUBLIC_URL', 'TOOLSERVERS_STATE_KEY']) assert.match(env[name]!, new RegExp(`^\\$\\{${name}[:}]`), `${name} comes from the environment`);
    assert.equal(env.TOOLSERVERS_REDIS_URL, 'redis://redis:6379');
    assert.ok(services.redis, 'a redis service');
    assert.deepEqual(first!.depends_on, { redis: { condition: 'service_healthy' } });
    assert.equal(first!.build, '.');
  });

  it('passes only flags and variables the CLI takes', { skip: built }, () => {
    const replica = services[replicas[0]!]!;
    assertCliAccepts((replica.command as string[]).filter((arg) => arg.startsWith('--')), Object.keys(replica.environment as object), 'compose.yaml');
  });

  it('documents every variable it reads in deploy/env.example', () => {
    const example = read('deploy/env.example');
    const documented = new Set([...example.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]!));
    for (const name of new Set(variablesIn(read('compose.yaml')))) assert.ok(documented.has(name), `${name} is in deploy/env.example`);
  });

  it('puts nginx in front with the configuration from deploy/', () => {
    const nginx = services.nginx!;
    assert.deepEqual(nginx.volumes, ['./deploy/nginx.conf:/etc/nginx/nginx.conf:ro']);
    assert.deepEqual([...(nginx.depends_on as string[])].sort(), [...replicas].sort());
    assert.match((nginx.ports as string[])[0]!, /:8080$/);
  });
});

describe('deploy/nginx.conf', () => {
  const conf = read('deploy/nginx.conf').replace(/#.*$/gm, '');
  const directives = (name: string) => [...conf.matchAll(new RegExp(`^\\s*${name}\\s+([^;]*);`, 'gm'))].map((m) => m[1]!.trim());
  const replicas = Object.keys((parseYamlSubset(read('compose.yaml')) as { services: object }).services).filter((name) => /^toolservers-\d+$/.test(name));

  it('balances round-robin over both replicas with passive health checks and no stickiness', () => {
    const upstream = /upstream\s+toolservers\s*\{([^}]*)\}/.exec(conf)?.[1] ?? '';
    const servers = [...upstream.matchAll(/^\s*server\s+([^\s;]+)([^;]*);/gm)];
    assert.deepEqual(servers.map((m) => m[1]).sort(), replicas.map((name) => `${name}:3000`).sort());
    for (const server of servers) assert.match(server[2]!, /max_fails=\d+/, `${server[1]} has a passive health check`);
    assert.doesNotMatch(upstream, /^\s*(ip_hash|hash|sticky|least_conn|random)\b/m);
    assert.deepEqual(directives('proxy_pass'), ['http://toolservers']);
  });

  it('streams answers unbuffered, passes Host and X-Forwarded-*, and retries only requests that were never sent', () => {
    assert.deepEqual(directives('proxy_buffering'), ['off']);
    const headers = new Map(directives('proxy_set_header').map((value) => [value.split(/\s+/)[0]!.toLowerCase(), value.split(/\s+/).slice(1).join(' ')]));
    assert.equal(headers.get('host'), '$http_host');
    assert.equal(headers.get('x-forwarded-for'), '$proxy_add_x_forwarded_for');
    assert.equal(headers.get('x-forwarded-proto'), '$scheme');
    assert.ok(headers.has('x-forwarded-host'));
    const nextUpstream = directives('proxy_next_upstream');
    assert.equal(nextUpstream.length, 1);
    assert.doesNotMatch(nextUpstream[0]!, /non_idempotent/, 'a POST that reached a replica is never sent to another');
    assert.doesNotMatch(nextUpstream[0]!, /http_503/, "a replica's 503 (shared store down, with Retry-After) reaches the client and does not take the replica out of rotation");
    assert.match(directives('proxy_next_upstream_tries')[0] ?? '', /^[12]$/, 'at most one retry');
  });

  const nginxBinary = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((candidate) => existsSync(candidate));
  it('passes `nginx -t`', { skip: nginxBinary ? false : 'nginx is not installed: `nginx -t` skipped (the other checks above still ran)' }, () => {
    // The replicas' names resolve only inside compose's network, and /dev/stdout is a terminal or pipe
    // only in a container: test with loopback addresses and log files instead.
    const dir = mkdtempSync(path.join(scratch, 'nginx-'));
    const file = path.join(dir, 'nginx.conf');
    const local = read('deploy/nginx.conf')
      .replace(/toolservers-(\d+):3000/g, (_match, n: string) => `127.0.0.1:${3000 + Number(n)}`)
      .replace(/\/dev\/(stdout|stderr)/g, (_match, name: string) => path.join(dir, `${name}.log`));
    writeFileSync(file, local);
    const result = spawnSync(nginxBinary!, ['-t', '-c', file, '-p', dir, '-e', path.join(dir, 'error.log')], { encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /test is successful/);
  });
});

describe('server.json (MCP registry)', () => {
  const server = JSON.parse(read('server.json')) as Record<string, unknown> & {
    name: string;
    description: string;
    version: string;
    title?: string;
    packages: Array<Record<string, unknown> & { transport: { type: string }; packageArguments?: Array<Record<string, unknown>>; environmentVariables?: Array<Record<string, unknown>> }>;
  };
  const isRange = (version: string) => version === 'latest' || /[\^~<>=*x|]|\s/.test(version.replace(/-[0-9A-Za-z.-]+$/, ''));

  it('has the version of package.json, everywhere', () => {
    assert.equal(server.version, pkg.version);
    for (const entry of server.packages) assert.equal(entry.version, pkg.version);
  });

  it('has the fields and forms the registry schema (2025-12-11) requires', () => {
    assert.equal(server.$schema, 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    assert.match(server.name, /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    assert.ok(server.name.length >= 3 && server.name.length <= 200);
    assert.ok(server.description.length >= 1 && server.description.length <= 100, `description is ${server.description.length} characters (at most 100)`);
    if (server.title !== undefined) assert.ok(server.title.length >= 1 && server.title.length <= 100);
    assert.ok(!isRange(server.version), 'a concrete version');
    const allowedTop = ['$schema', '_meta', 'description', 'icons', 'name', 'packages', 'remotes', 'repository', 'title', 'version', 'websiteUrl'];
    for (const key of Object.keys(server)) assert.ok(allowedTop.includes(key), `unknown top-level field ${key}`);
    assert.ok(server.packages.length >= 1);
    for (const entry of server.packages) {
      for (const key of ['registryType', 'identifier', 'transport']) assert.ok(key in entry, `package has ${key}`);
      assert.ok(!isRange(String(entry.version)), 'a concrete package version');
      assert.ok(['stdio', 'streamable-http', 'sse'].includes(entry.transport.type));
      for (const variable of entry.environmentVariables ?? []) {
        assert.equal(typeof variable.name, 'string');
        for (const flag of ['isRequired', 'isSecret']) if (flag in variable) assert.equal(typeof variable[flag], 'boolean');
        if (variable.choices) assert.ok((variable.choices as unknown[]).every((choice) => typeof choice === 'string'));
      }
      for (const argument of entry.packageArguments ?? []) {
        assert.ok(argument.type === 'positional' || argument.type === 'named');
        if (argument.type === 'positional') assert.ok('value' in argument || 'valueHint' in argument, 'a positional argument has a value or a valueHint');
        else assert.match(String(argument.name), /^--?[a-z]/);
      }
    }
  });

  it('describes the npm package, its two servers and their settings as the CLI knows them', { skip: built }, () => {
    const npm = server.packages.find((entry) => entry.registryType === 'npm')!;
    assert.equal(npm.identifier, pkg.name);
    assert.equal(npm.registryBaseUrl, 'https://registry.npmjs.org', 'the official registry accepts only this npm registry');
    assert.equal(npm.transport.type, 'stdio');
    // The registry checks package ownership through package.json's mcpName.
    assert.equal(pkg.mcpName, server.name);
    const [which, ...flags] = npm.packageArguments!;
    assert.equal(which!.type, 'positional');
    assert.equal(which!.isRequired, true);
    const servers = spawnSync(process.execPath, [DIST_CLI, '--help'], { encoding: 'utf8' }).stdout;
    for (const choice of which!.choices as string[]) assert.match(servers, new RegExp(`^\\s+${choice}\\b`, 'm'), `${choice} is a command of the CLI`);
    assert.deepEqual([...(which!.choices as string[])].sort(), ['canvasapi', 'incidentops']);
    assertCliAccepts(
      flags.map((flag) => String(flag.name)),
      npm.environmentVariables!.map((variable) => String(variable.name)),
      'server.json',
    );
    for (const variable of npm.environmentVariables!) if (/TOKEN/.test(String(variable.name))) assert.equal(variable.isSecret, true, `${String(variable.name)} is secret`);
  });
});
