#!/usr/bin/env node
/**
 * `npm run build:mcpb`: one Claude Desktop bundle (.mcpb) per server, from the built CLI in dist/.
 *
 * One bundle per server because a bundle runs exactly one stdio server and each server needs its
 * own platform token: a user installs only the platform they use, and sees only that token.
 * Each bundle holds manifest.json (from mcpb/<server>.manifest.json, with the package version and
 * the server's tool list), server/index.js (mcpb/launch.js), the bundled CLI (server/cli.js and
 * server/chunks/*.js, without source maps), the views (MCP Apps pages, server/views/*.html), a package.json that makes them ES modules, the LICENSE,
 * and in node_modules/ only what the bundled code still loads from disk at run time for that server:
 * the packages it requires by name (Ajv through createRequire, which esbuild leaves alone) with their
 * dependencies, and of a package it only resolves files in (ViewBoard's wasm and font), those files.
 * Code that lies wholly in one server's room (src/<server>/, told by each chunk's source map) adds
 * its needs to that server's archive only: the IncidentOps archive carries no renderer or font.
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

/** The package a specifier names: `@scope/name` or `name`. */
function packageOf(spec) {
  return spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
}

/**
 * What some bundled code loads from node_modules at run time: `packages` it requires or imports by
 * name (a bundled package is no longer named), and `files` it only resolves, as
 * `require.resolve("<package>/<file>")` (ViewBoard's wasm and font: data, not code).
 */
function runtimeNeedsOf(code) {
  const packages = new Set();
  const files = new Set();
  for (const [, resolve, spec] of code.matchAll(/(?:\brequire\d*(\.resolve)?\(\s*|\bimport\(\s*|\bfrom\s*)"((?:node:)?[@a-z0-9][\w./@-]*)"/g)) {
    if (isBuiltin(spec)) continue;
    const name = packageOf(spec);
    if (resolve && spec.length > name.length) files.add(spec);
    else packages.add(name);
  }
  return { packages, files };
}

/**
 * The server a chunk belongs to, from its source map: 'incidentops' or 'canvasapi' when every
 * project source in it lies in that server's room (src/<server>/), else null (shared code).
 * What such a chunk loads from disk goes only into that server's archive.
 */
function serverOfChunk(file) {
  const map = `${file}.map`;
  if (!existsSync(map)) return null;
  const sources = JSON.parse(readFileSync(map, 'utf8')).sources.filter((source) => !source.includes('node_modules/'));
  const rooms = new Set(sources.map((source) => /^src\/([^/]+)\//.exec(path.relative(root, path.resolve(path.dirname(file), source)).split(path.sep).join('/'))?.[1]));
  const [room] = rooms;
  return rooms.size === 1 && SERVERS.includes(room) ? room : null;
}

/** Where Node finds a package from a directory: the dependent package's own node_modules, then each parent's. */
function packageDirectory(name, fromDir, modules) {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir || !dir.startsWith(path.dirname(modules))) fail(`the bundle loads "${name}" at run time, but it is not installed (npm ci)`);
  }
}

/**
 * What one server's archive needs in node_modules/ (npm's layout kept, paths relative to it):
 * `packages`, whole, with everything they depend on; `files` of packages the code only resolves
 * files in: those files, the package.json (Node reads its `exports`) and the licence files.
 */
function runtimeClosure({ packages: names, files: resolved }) {
  const modules = realpathSync(path.join(root, 'node_modules'));
  const found = new Set();
  const visit = (name, fromDir) => {
    const location = packageDirectory(name, fromDir, modules);
    const relative = path.relative(modules, location);
    if (found.has(relative)) return;
    found.add(relative);
    const manifest = JSON.parse(readFileSync(path.join(location, 'package.json'), 'utf8'));
    for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) visit(dependency, location);
  };
  for (const name of names) visit(name, path.dirname(modules));
  const files = new Set();
  const resolveFrom = createRequire(path.join(root, 'package.json'));
  for (const spec of resolved) {
    const name = packageOf(spec);
    const location = packageDirectory(name, path.dirname(modules), modules);
    if (found.has(path.relative(modules, location))) continue;
    const packageRelative = path.relative(modules, location);
    // Resolved as the bundle resolves it (the package's `exports` apply), then made relative to the package.
    const file = path.relative(realpathSync(location), realpathSync(resolveFrom.resolve(spec)));
    files.add(path.join(packageRelative, file));
    files.add(path.join(packageRelative, 'package.json'));
    for (const entry of readdirSync(location)) if (/^(licen[cs]e|copying|notice)/i.test(entry)) files.add(path.join(packageRelative, entry));
  }
  return { modules, packages: [...found].sort(), files: [...files].sort() };
}

const shippedFiles = [cli, ...readdirSync(path.join(root, 'dist', 'chunks')).filter((name) => name.endsWith('.js')).map((name) => path.join(root, 'dist', 'chunks', name))];
/** Per server: what its archive must carry in node_modules/ (the shared code's needs and its own chunks'). */
function runtimeOf(server) {
  const needs = { packages: new Set(), files: new Set() };
  for (const file of shippedFiles) {
    const owner = file === cli ? null : serverOfChunk(file);
    if (owner !== null && owner !== server) continue;
    const { packages, files } = runtimeNeedsOf(readFileSync(file, 'utf8'));
    for (const name of packages) needs.packages.add(name);
    for (const spec of files) needs.files.add(spec);
  }
  return runtimeClosure(needs);
}

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
  const runtime = runtimeOf(server);
  for (const relative of runtime.packages) {
    // Code only: TypeScript sources, source maps and docs stay out.
    cpSync(path.join(runtime.modules, relative), path.join(stage, 'node_modules', relative), {
      recursive: true,
      dereference: true,
      filter: (source) => !/\.(ts|map|md)$/.test(source) && !source.includes(`${path.sep}node_modules${path.sep}`, path.join(runtime.modules, relative).length),
    });
  }
  for (const relative of runtime.files) {
    mkdirSync(path.dirname(path.join(stage, 'node_modules', relative)), { recursive: true });
    copyFileSync(path.join(runtime.modules, relative), path.join(stage, 'node_modules', relative));
  }

  run([mcpbCli, 'validate', path.join(stage, 'manifest.json')], `mcpb validate (${server})`);
  const archive = path.join(outDir, `toolservers-${server}-${pkg.version}.mcpb`);
  run([mcpbCli, 'pack', stage, archive], `mcpb pack (${server})`);
  rmSync(stage, { recursive: true, force: true });
  process.stdout.write(`${archive}\n`);
}
