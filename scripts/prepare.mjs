#!/usr/bin/env node
/**
 * The `prepare` script. npm runs it after `npm install` / `npm ci` in a checkout (and for a git
 * dependency), and before `npm pack` / `npm publish`. It:
 * 1. builds dist/ (the bundled CLI that `bin` points at), because dist/ is not in git: without it a
 *    fresh clone has no `toolservers` command and the tarball would ship no CLI. Before pack and
 *    publish it always builds; after an install only when dist/ is missing or older than src/.
 * 2. installs the conformance runner (scripts/install-conformance.mjs, which skips itself for
 *    pack, publish, production and global installs).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'cli.js');
const say = (message) => process.stderr.write(`toolservers prepare: ${message}\n`);

function newestMtime(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** The build tools are dev dependencies: absent after `npm ci --omit=dev`. */
function resolvable(name) {
  try {
    createRequire(path.join(root, 'package.json')).resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

const packing = ['pack', 'publish'].includes(process.env.npm_command ?? '');
const stale = !existsSync(entry) || newestMtime(path.join(root, 'src')) > statSync(entry).mtimeMs;

if (packing || stale) {
  if (!resolvable('typescript') || !resolvable('esbuild')) {
    if (packing || !existsSync(entry)) {
      say('dist/ is not built and the build tools (typescript, esbuild: dev dependencies) are not installed.');
      say('Install with dev dependencies (`npm ci`), then `npm run build`.');
      // Packing without a CLI would publish a broken package; an install can go on without it.
      if (packing) process.exit(1);
    }
  } else {
    say('building dist/ (npm run build) ...');
    const result = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    const bundled = result.status === 0 ? spawnSync(process.execPath, [path.join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' }) : result;
    if (bundled.status !== 0) {
      say('the build FAILED: `npx toolservers` will not work until `npm run build` succeeds.');
      process.exit(bundled.status ?? 1);
    }
  }
}

await import('./install-conformance.mjs');
