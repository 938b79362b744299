/**
 * The core stays readable: no source file of it written by hand grows past 800 lines (past that
 * a file holds more than one concern and belongs split), and docs/architecture.md names every
 * room and file it has, so that the page matches the tree.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CORE_SOURCE = path.join(ROOT, 'src', 'core');
const MAX_LINES = 800;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const sources = sourcesUnder(CORE_SOURCE);

it(`keeps every source file of src/core within ${MAX_LINES} lines`, () => {
  assert.ok(sources.length > 40, `only ${sources.length} files found under ${CORE_SOURCE}`);
  const long = sources
    .map((file) => ({ file: path.relative(CORE_SOURCE, file), lines: readFileSync(file, 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `src/core/${file}: ${lines} lines`);
  assert.deepEqual(long, []);
});

it('names every room and file of src/core in docs/architecture.md', () => {
  const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const rooms = readdirSync(CORE_SOURCE, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `core/${entry.name}/`);
  const files = sources.map((file) => path.basename(file));
  const unnamed = [...rooms, ...files.map((file) => `\`${file}\``)].filter((name) => !page.includes(name));
  assert.deepEqual(unnamed, [], 'docs/architecture.md does not name these');
});
