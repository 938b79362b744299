#!/usr/bin/env node
/**
 * `npm run build:mcpb`: one Claude Desktop bundle (.mcpb) per server, from the built CLI in dist/.
 *
 * One bundle per server because a bundle runs exactly one stdio server and each server needs its
 * own platform token: a user installs only the platform they use, and sees only that token.
 * Each bundle holds manifest.json (from mcpb/<server>.manifest.json, with the package version and
 * the server's tool list), server/index.js (mcpb/launch.js), the bundled CLI (server/cli.js and
 * server/chunks/*.js, without source maps), the views (MCP Apps pages, server/views/*.html), a package.json that makes them ES modules, the LICENSE,
 * and in node_modules/ only the packages the bundled code still loads from disk at run time (it
 * loads Ajv through createRequire, which esbuild leaves alone) with their dependencies.
 * The manifest is checked with `mcpb validate`, the archive written with `mcpb pack`.
 *
 * Usage: node scripts/build-mcpb.mjs [--out DIR] [--server incidentops|canvasapi]
 * (default output: build-mcpb/toolservers-<server>-<version>.mcpb)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVERS = ['incidentops', 'canvasapi'];

const { values } = parseArgs({ options: { out: { type: 'string' }, server: { type: 'string', multiple: true } } });
const outDir = path.resolve(values.out ?? path.join(root, 'build-mcpb'));
const servers = values.server ?? SERVERS;
for (const server of servers) {
  if (!SERVERS.includes(server)) fail(`unknown server "${server}": use ${SERVERS.join(' or ')}`);
}

const cli = path.join(root, 'dist', 'cli.js');
if (!existsSync(cli)) fail('dist/cli.js is not built: run `npm run build` first (`npm run build:mcpb` does).');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// The mcpb CLI of the dev dependency @anthropic-ai/mcpb (its package exports no bin path).
const mcpbCli = path.join(path.dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');

function fail(message) {
  process.stderr.write(`build-mcpb: ${message}\n`);
  process.exit(1);
}

function run(args, what) {
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) fail(`${what} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The tools a client sees with the manifest's arguments (underscore names), for the install dialog. */
function toolsOf(server) {
  const listed = JSON.parse(run([cli, 'tools', server, '--json', '--tool-names', 'underscore'], `listing the ${server} tools`));
  return listed.map((tool) => ({ name: tool.name, description: tool.description }));
}

/** Package names the bundled code requires, imports or resolves by name (a bundled package is no longer named; ViewBoard resolves its wasm and font files). */
function packagesNamedIn(code) {
  const names = new Set();
  for (const [, spec] of code.matchAll(/(?:\brequire\d*(?:\.resolve)?\(\s*|\bimport\(\s*|\bfrom\s*)"((?:node:)?[@a-z0-9][\w./@-]*)"/g)) {
    if (isBuiltin(spec)) continue;
    names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
  }
  return names;
}

/** Those packages and everything they depend on, as directories relative to node_modules/ (npm's layout kept). */
function runtimeClosure(names) {
  const modules = realpathSync(path.join(root, 'node_modules'));
  const found = new Set();
  const visit = (name, fromDir) => {
    // Node's lookup: the dependent package's own node_modules, then each parent's.
    let dir = fromDir;
    let location;
    for (;;) {
      const candidate = path.join(dir, 'node_modules', name);
      if (existsSync(path.join(candidate, 'package.json'))) {
        location = candidate;
        break;
      }
      if (path.dirname(dir) === dir || !dir.startsWith(path.dirname(modules))) break;
      dir = path.dirname(dir);
    }
    if (!location) fail(`the bundle loads "${name}" at run time, but it is not installed (npm ci)`);
    const relative = path.relative(modules, location);
    if (found.has(relative)) return;
    found.add(relative);
    const manifest = JSON.parse(readFileSync(path.join(location, 'package.json'), 'utf8'));
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) visit(dependency, location);
  };
  for (const name of names) visit(name, path.dirname(modules));
  return { modules, packages: [...found].sort() };
}

const shippedCode = [cli, ...readdirSync(path.join(root, 'dist', 'chunks')).filter((name) => name.endsWith('.js')).map((name) => path.join(root, 'dist', 'chunks', name))]
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');
const runtime = runtimeClosure(packagesNamedIn(shippedCode));

mkdirSync(outDir, { recursive: true });
for (const server of servers) {
  const stage = path.join(outDir, `stage-${server}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(path.join(stage, 'server', 'chunks'), { recursive: true });

  const manifest = JSON.parse(readFileSync(path.join(root, 'mcpb', `${server}.manifest.json`), 'utf8'));
  manifest.version = pkg.version;
  manifest.tools = toolsOf(server);
  writeFileSync(path.join(stage, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');

  copyFileSync(path.join(root, 'mcpb', 'launch.js'), path.join(stage, 'server', 'index.js'));
  copyFileSync(cli, path.join(stage, 'server', 'cli.js'));
  for (const name of readdirSync(path.join(root, 'dist', 'chunks'))) {
    if (name.endsWith('.js')) copyFileSync(path.join(root, 'dist', 'chunks', name), path.join(stage, 'server', 'chunks', name));
  }
  // The views, where the bundled code looks for them (src/core/tools/views.ts: ../views/ from chunks/).
  const views = path.join(root, 'dist', 'views');
  if (!existsSync(views)) fail('dist/views/ is not built: run `npm run build` first.');
  mkdirSync(path.join(stage, 'server', 'views'));
  for (const name of readdirSync(views)) {
    if (name.endsWith('.html')) copyFileSync(path.join(views, name), path.join(stage, 'server', 'views', name));
  }
  // `type: module` makes Node load the bundle as ES modules; the CLI reads its version from here.
  writeFileSync(path.join(stage, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module', license: pkg.license }, null, 2) + '\n');
  copyFileSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
  for (const relative of runtime.packages) {
    // Code only: TypeScript sources, source maps and docs stay out.
    cpSync(path.join(runtime.modules, relative), path.join(stage, 'node_modules', relative), {
      recursive: true,
      dereference: true,
      filter: (source) => !/\.(ts|map|md)$/.test(source) && !source.includes(`${path.sep}node_modules${path.sep}`, path.join(runtime.modules, relative).length),
    });
  }

  run([mcpbCli, 'validate', path.join(stage, 'manifest.json')], `mcpb validate (${server})`);
  const archive = path.join(outDir, `toolservers-${server}-${pkg.version}.mcpb`);
  run([mcpbCli, 'pack', stage, archive], `mcpb pack (${server})`);
  rmSync(stage, { recursive: true, force: true });
  process.stdout.write(`${archive}\n`);
}
