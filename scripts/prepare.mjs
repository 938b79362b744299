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
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildDist, distIsStale, entry, root } from './dist-build.mjs';

const say = (message) => process.stderr.write(`toolservers prepare: ${message}\n`);

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
const stale = distIsStale();

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
    const status = buildDist();
    if (status !== 0) {
      say('the build FAILED: `npx toolservers` will not work until `npm run build` succeeds.');
      process.exit(status);
    }
  }
}

await import('./install-conformance.mjs');
