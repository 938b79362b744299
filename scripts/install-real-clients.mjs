#!/usr/bin/env node
/**
 * Installs the agent clients that test/real-clients.test.ts drives, Claude Code and Gemini CLI, at
 * the versions pinned in test/real-clients/ (package.json and its lockfile), into
 * .cache/real-clients/ (gitignored). `.ci/run` calls it before `npm test`; by hand:
 * `node scripts/install-real-clients.mjs`. Without them the test skips, saying so.
 *
 * Why not dev dependencies: together they are about 500 MB (Claude Code is a native binary per
 * platform), which every `npm ci` would fetch, and `node_modules/.bin/claude` would shadow a
 * developer's own. Claude Code 2.1.x declares `engines: node >= 22`, but only its installer runs on
 * Node (a copy of the native binary, which works under Node 20): npm prints EBADENGINE and goes on.
 *
 * Idempotent: when every pinned package is installed at its version it does nothing. A failure is
 * reported and leaves exit code 0, so that the rest of the suite still runs (the test then skips).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedAsPinned, npmCiInto } from './pinned-install.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const manifestDir = path.join(root, 'test', 'real-clients');
const installDir = path.join(root, '.cache', 'real-clients');
const say = (message) => process.stderr.write(`real clients: ${message}\n`);

/** Every package the lockfile pins directly is installed at that version, from this very lockfile. */
function upToDate() {
  const lockText = readFileSync(path.join(manifestDir, 'package-lock.json'), 'utf8');
  const installedLock = path.join(installDir, 'package-lock.json');
  if (!existsSync(installedLock) || readFileSync(installedLock, 'utf8') !== lockText) return false;
  return installedAsPinned(installedLock, installDir);
}

if (upToDate()) {
  say(`up to date in ${path.relative(root, installDir)}/`);
  process.exit(0);
}

say(`installing Claude Code and Gemini CLI into ${path.relative(root, installDir)}/ (about 500 MB) ...`);
mkdirSync(installDir, { recursive: true });
for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(manifestDir, file), path.join(installDir, file));
const installed = npmCiInto(installDir, ['--loglevel=error']);
if (!installed || !upToDate()) {
  say('installation FAILED; test/real-clients.test.ts will skip until this script succeeds.');
  process.exit(0);
}
say('installed.');
