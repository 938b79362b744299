// `npm start`: build when the sources are newer than dist/, then serve every tool server
// over HTTP on 127.0.0.1 against the built-in sandbox. Extra arguments go to `toolservers serve`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

if (!existsSync(entry) || newestMtime(path.join(root, 'src')) > statSync(entry).mtimeMs) {
  console.error('Building toolservers...');
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  // As `npm run build`: dist/cli.js becomes the bundled CLI.
  const bundle = spawnSync(process.execPath, [path.join(root, 'scripts', 'bundle.mjs')], { cwd: root, stdio: 'inherit' });
  if (bundle.status !== 0) process.exit(bundle.status ?? 1);
}

const args = process.argv.slice(2);
const result = spawnSync(process.execPath, [entry, 'serve', '--sandbox', ...args], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 0);
