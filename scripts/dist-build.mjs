// dist/ (the bundled CLI `bin` points at) for the scripts that need it: whether it is missing or
// older than src/, and how to build it (as `npm run build`: tsc, then the esbuild bundle).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const entry = path.join(root, 'dist', 'cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** True when dist/cli.js is missing or a source file is newer. */
export function distIsStale() {
  return !existsSync(entry) || newestMtime(path.join(root, 'src')) > statSync(entry).mtimeMs;
}

/** Builds dist/; the exit status of the step that failed, else 0. */
export function buildDist() {
  const compiled = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  if (compiled.status !== 0) return compiled.status ?? 1;
  const bundled = spawnSync(process.execPath, [path.join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' });
  return bundled.status ?? 1;
}
