#!/usr/bin/env node
// The `toolservers` command as shipped (the bundle's entry). A server started with no flags at
// all, `toolservers incidentops` or `toolservers canvasapi` (how desktop clients launch it, with
// its settings in the environment), starts without loading the command-line parser, 5-8 ms of
// its start (bench/cold-start.ts). Every other command line goes to cli.ts.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { SERVER_INFO } from './server-info.js';

const args = process.argv.slice(2);
// A stdio server serves one client, one request at a time: V8's young generation, which doubles
// up to 16 MB a half for throughput, stays at its first 1 MB a half (the growth factor is the one
// young-generation flag V8 still reads after start). The server stays about 5 MB smaller for its
// whole life (bench/cold-start.ts); a call over stdio costs the same within noise (150 ReadBoard
// calls on the sandbox: 2.8-3.5 ms either way).
const startsServer = SERVER_INFO.some((info) => info.id === args[0]);
const overHttp = args.some((arg, i) => arg === '--transport=http' || (arg === '--transport' && args[i + 1] === 'http'));
if (startsServer && !overHttp) setFlagsFromString('--semi-space-growth-factor=1');
// A server's memory follows what it holds, not what it has read: V8 lets the old generation grow
// to up to 4 times what was live at the last full collection, and a call that reads large platform
// answers (ReadBoard on 19 MB item pages) leaves most of them as garbage: one call peaked at 268 MB.
// Growing 30% at most kept it at 143 MB. A small heap does not need it, and paid for it: with the
// cap from the start, a fresh server's first ReadBoard on 300 KB pages spent twice the time in
// collections (1.3x the call). So the cap holds only while the heap is past 16 MB (checked after
// each collection; V8 reads the flag at the next one): bench/read-board.ts.
if (startsServer) capHeapGrowthWhenLarge(16 * 1024 * 1024);
const plainServer = args.length === 1 ? SERVER_INFO.find((info) => info.id === args[0]) : undefined;
if (plainServer) {
  const [{ SERVE_DEFAULTS, serveServerCommand }, { printable }, { exitCodeOf }] = await Promise.all([import('./serve-command.js'), import('./core/signin/printable.js'), import('./core/settings.js')]);
  await serveServerCommand(plainServer, { ...SERVE_DEFAULTS }).catch((error: unknown) => {
    // As cli.ts reports a failed command: one line, provider text without control characters.
    process.stderr.write(`${printable(error instanceof Error ? error.message : String(error))}\n`);
    process.exit(exitCodeOf(error));
  });
} else {
  await import('./cli.js');
}

function capHeapGrowthWhenLarge(largeBytes: number): void {
  let capped = false;
  new PerformanceObserver(() => {
    const large = getHeapStatistics().used_heap_size > largeBytes;
    if (large === capped) return;
    capped = large;
    // 0 is V8's own default: growth as V8 computes it.
    setFlagsFromString(`--heap-growing-percent=${large ? 30 : 0}`);
  }).observe({ entryTypes: ['gc'] });
}
