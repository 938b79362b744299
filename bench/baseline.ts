/**
 * The baseline build the benches measure this build against, in the same run: `--baseline <dir>`
 * or BENCH_BASELINE=<dir> (the flag wins), the root of a checkout of another commit built with
 * `npm run build && npm run build:test` (so that <dir>/dist and <dir>/build/{src,bench} exist),
 * e.g. `git worktree add /tmp/base main && cp -a node_modules /tmp/base/ && (cd /tmp/base && npm
 * run build && npm run build:test)`. Without either, the benches measure this build only.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The baseline checkout's root (absolute), or undefined when no baseline was asked for. */
export function baselineRoot(argv: string[] = process.argv, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const index = argv.indexOf('--baseline');
  const given = index >= 0 ? argv[index + 1] : env.BENCH_BASELINE;
  if (index >= 0 && !given) throw new Error('--baseline needs a directory');
  return given ? path.resolve(given) : undefined;
}

/** A file of the baseline's build, by its path under the checkout root; says how to build it when absent. */
export function baselineFile(root: string, relative: string): string {
  const file = path.join(root, relative);
  if (!existsSync(file)) throw new Error(`baseline: ${file} does not exist (build the baseline: cd ${root} && npm run build && npm run build:test)`);
  return file;
}

/** this/baseline as a figure with two decimals ("1.03"), or "n/a" when the baseline's value is 0 or missing. */
export function ratioText(ours: number, theirs: number): string {
  return theirs && Number.isFinite(ours / theirs) ? (ours / theirs).toFixed(2) : 'n/a';
}
