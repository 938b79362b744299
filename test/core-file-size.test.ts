/**
 * No source file of the core written by hand grows past 800 lines: past that, a file holds more
 * than one concern and belongs split (docs/architecture.md says where each piece goes).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const CORE_SOURCE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'core');
const MAX_LINES = 800;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

it(`keeps every source file of src/core within ${MAX_LINES} lines`, () => {
  const files = sourcesUnder(CORE_SOURCE);
  assert.ok(files.length > 40, `only ${files.length} files found under ${CORE_SOURCE}`);
  const long = files
    .map((file) => ({ file: path.relative(CORE_SOURCE, file), lines: readFileSync(file, 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `src/core/${file}: ${lines} lines`);
  assert.deepEqual(long, []);
});
