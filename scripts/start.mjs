// `npm start`: build when the sources are newer than dist/, then serve every tool server
// over HTTP on 127.0.0.1 against the built-in sandbox. Extra arguments go to `toolservers serve`.
import { spawnSync } from 'node:child_process';
import { buildDist, distIsStale, entry, root } from './dist-build.mjs';

if (distIsStale()) {
  console.error('Building toolservers...');
  const status = buildDist();
  if (status !== 0) process.exit(status);
}

const args = process.argv.slice(2);
const result = spawnSync(process.execPath, [entry, 'serve', '--sandbox', ...args], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 0);
