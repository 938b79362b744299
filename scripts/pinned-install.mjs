/**
 * The two test-tool packages kept out of the root install (test/conformance/, test/real-clients/)
 * are installed the same way: `npm ci` of their own lockfile into a folder of their own, skipped
 * when every package the lockfile pins directly is already there at its version.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every package `lockFile` pins directly is installed under `installDir` at that version. */
export function installedAsPinned(lockFile, installDir) {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  for (const name of Object.keys(lock.packages?.['']?.dependencies ?? {})) {
    const wanted = lock.packages[`node_modules/${name}`]?.version;
    const manifest = path.join(installDir, 'node_modules', name, 'package.json');
    if (!wanted || !existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== wanted) return false;
  }
  return true;
}

/** `npm ci` into `dir` (its package.json and lockfile already there); true when npm succeeded. */
export function npmCiInto(dir, extraArgs = []) {
  // The npm that runs this script, on the Node that runs it; plain `npm` from the PATH otherwise.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const result = spawnSync(npm[0], [...npm.slice(1), 'ci', '--prefix', dir, '--no-audit', '--no-fund', ...extraArgs], {
    cwd: dir,
    stdio: 'inherit',
    shell: npm.length === 1 && process.platform === 'win32',
  });
  return result.status === 0;
}
