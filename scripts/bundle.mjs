#!/usr/bin/env node
// `npm run build`, second step: bundles the CLI with esbuild into dist/cli.js (the `toolservers`
// command) plus dist/chunks/, replacing tsc's unbundled dist/cli.js. One file per part loads much
// faster than hundreds of modules (zod alone is ~100 files): see bench/cold-start.ts.
// Code splitting keeps the CLI's lazy imports lazy: each server, the sandbox, sign-in and the
// tokenizer are chunks loaded only by the commands that use them. Source maps sit beside each file
// (run with `node --enable-source-maps` for stack traces in the TypeScript sources).
// Tests import the unbundled build/ (tsconfig.test.json); test/bundle.test.ts checks this bundle.
import { chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { englishZodLocalesOnly } from './zod-english-only.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
rmSync(path.join(dist, 'chunks'), { recursive: true, force: true });

// The SDK's Node shim brings its own inlined copy of Ajv (290 KB compiled at every start) for a
// validator these servers never use; src/sdk-node-shims.ts is the same shim on the project's Ajv,
// loaded on first use (test/sdk-node-shims.test.ts compares the two).
const sdkShimsOnOwnAjv = {
  name: 'sdk-shims-on-own-ajv',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: path.join(root, 'src', 'sdk-node-shims.ts') }));
  },
};

// Code run in worker threads (src/core/tools/off-thread.ts): the worker and each step's module are
// entry points of their own in dist/chunks/, where the chunk that starts them (all lazily loaded
// code sits there) finds them by name, as `new URL('./<name>.js', import.meta.url)`.
const workerEntries = {
  'chunks/off-thread-worker': path.join(root, 'src', 'core', 'tools', 'off-thread-worker.ts'),
  'chunks/diagram-layout': path.join(root, 'src', 'canvasapi', 'tasks', 'diagram-layout.ts'),
  'chunks/board-render': path.join(root, 'src', 'canvasapi', 'tasks', 'board-render.ts'),
  'chunks/board-outline-lines': path.join(root, 'src', 'canvasapi', 'tasks', 'board-outline-lines.ts'),
};

await build({
  entryPoints: { cli: path.join(root, 'src', 'main.ts'), ...workerEntries },
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // Non-ASCII characters escaped: one in a comment makes V8 keep a whole chunk's source as
  // two-byte text, twice the memory (zod's and the SDK's chunks: 0.7 MB).
  charset: 'ascii',
  minifyWhitespace: true,
  // CommonJS dependencies inside an ES module bundle call require(): give them Node's.
  banner: { js: "import { createRequire as __toolserversCreateRequire } from 'node:module'; const require = __toolserversCreateRequire(import.meta.url);" },
  plugins: [englishZodLocalesOnly, sdkShimsOnOwnAjv],
  logLevel: 'warning',
});
chmodSync(path.join(dist, 'cli.js'), 0o755);

// The views (MCP Apps pages) the bundle serves from dist/views/, read on first use.
await import('./build-views.mjs');
