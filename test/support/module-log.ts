/**
 * Preloaded with `node --import <this file>`: appends every module the process loads to the file
 * named by MODULE_LOG, one per line: ES modules by URL (through a load hook, which runs on the
 * hooks thread) and CommonJS modules as `cjs:<resolved path>`.
 */
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const log = process.env.MODULE_LOG;
if (log) {
  register(new URL('./module-log-hooks.js', import.meta.url));
  const internals = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown; _resolveFilename(request: string, parent: unknown): string };
  const load = internals._load;
  internals._load = function (this: unknown, request: string, parent: unknown, isMain: boolean) {
    let resolved = request;
    try {
      resolved = internals._resolveFilename(request, parent);
    } catch {
      // left to the real loader to report
    }
    appendFileSync(log, `cjs:${resolved}\n`);
    return load.call(this, request, parent, isMain);
  };
}
