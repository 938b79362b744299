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
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedAsPinned, npmCiInto } from './pinned-install.mjs';

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
  return installedAsPinned(path.join(runnerDir, 'package-lock.json'), runnerDir) && existsSync(path.join(runnerDir, 'node_modules', 'node', 'bin', 'node'));
}

if (upToDate()) process.exit(0);

say('installing the MCP conformance suite and Node.js 22 into test/conformance (EBADENGINE warnings are expected: npm runs on this Node, the suite on the Node 22 installed with it) ...');
const installed = npmCiInto(runnerDir);
if (!installed || !upToDate()) {
  say('installation FAILED; the conformance test will fail until `npm run conformance:install` succeeds.');
  // Not fatal for the root install: everything but the conformance test still works.
  process.exit(0);
}
say('installed.');
