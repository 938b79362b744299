#!/usr/bin/env node
/**
 * Installs test/conformance: the official MCP conformance suite and the Node.js 22 it runs on
 * (the suite does not start on Node 20). Runs as the root package's `prepare` script, so
 * `npm install` and `npm ci` in a checkout set it up; `npm run conformance:install` does it by hand.
 *
 * Why a package of its own: the npm package `node` links `node_modules/.bin/node`, and npm puts
 * `node_modules/.bin` first on the PATH of every script, so as a root dependency it would silently
 * move `npm test`, `npm start` and everything else to Node 22. Installed here, only the conformance
 * test uses it, by path.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const runnerDir = fileURLToPath(new URL('../test/conformance/', import.meta.url));
const say = (message) => process.stderr.write(`conformance runner: ${message}\n`);

// `prepare` also runs before `npm pack` and `npm publish`, and a production install wants no test tools.
if (['pack', 'publish'].includes(process.env.npm_command ?? '')) process.exit(0);
// A global install (`npm install -g .`) is a user installing the CLI, not a developer running tests.
if ((process.env.npm_config_omit ?? '').split(/[\s,]+/).includes('dev') || process.env.NODE_ENV === 'production' || process.env.npm_config_global === 'true') {
  say('skipped (production or global install)');
  process.exit(0);
}
if (!existsSync(path.join(runnerDir, 'package-lock.json'))) process.exit(0);

/** Every package the lockfile pins for the runner is installed at that version, and the Node binary is there. */
function upToDate() {
  const lock = JSON.parse(readFileSync(path.join(runnerDir, 'package-lock.json'), 'utf8'));
  const direct = Object.keys(lock.packages?.['']?.dependencies ?? {});
  for (const name of direct) {
    const wanted = lock.packages[`node_modules/${name}`]?.version;
    const manifest = path.join(runnerDir, 'node_modules', name, 'package.json');
    if (!wanted || !existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== wanted) return false;
  }
  return existsSync(path.join(runnerDir, 'node_modules', 'node', 'bin', 'node'));
}

if (upToDate()) process.exit(0);

say('installing the MCP conformance suite and Node.js 22 into test/conformance (EBADENGINE warnings are expected: npm runs on this Node, the suite on the Node 22 installed with it) ...');
// The npm that runs this script, on the Node that runs it; plain `npm` from the PATH otherwise.
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const result = spawnSync(npm[0], [...npm.slice(1), 'ci', '--prefix', runnerDir, '--no-audit', '--no-fund'], {
  cwd: runnerDir,
  stdio: 'inherit',
  shell: npm.length === 1 && process.platform === 'win32',
});
if (result.status !== 0 || !upToDate()) {
  say('installation FAILED; the conformance test will fail until `npm run conformance:install` succeeds.');
  // Not fatal for the root install: everything but the conformance test still works.
  process.exit(0);
}
say('installed.');
