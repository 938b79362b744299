/**
 * The core stays readable: no source file of it written by hand grows past 800 lines (past that
 * a file holds more than one concern and belongs split); every room of src/ has a README.md that
 * docs/architecture.md links, and each core room's README names every file it holds, so that the
 * page and the READMEs match the tree.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

const SRC = path.join(ROOT, 'src');
/** The rooms: src/ itself (the entries), each platform, the sandbox, the core's shared helpers and each core room. */
const ROOMS = ['', 'incidentops', 'canvasapi', 'sandbox', 'core', ...readdirSync(CORE_SOURCE, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `core/${entry.name}`)];

it('gives every room a README.md that docs/architecture.md links', () => {
  const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const missing = ROOMS.filter((room) => !existsSync(path.join(SRC, room, 'README.md'))).map((room) => `src/${room}/README.md is missing`);
  const unlinked = ROOMS.filter((room) => !page.includes(`../src/${room ? `${room}/` : ''}README.md`)).map((room) => `src/${room}`);
  assert.deepEqual([...missing, ...unlinked], [], 'docs/architecture.md links each room README from its table');
});

/** The README that describes a core file: the nearest one up from its folder. */
function readmeOf(file: string): string {
  for (let dir = path.dirname(file); dir.startsWith(CORE_SOURCE); dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'README.md'))) return path.join(dir, 'README.md');
  }
  throw new Error(`no README.md above ${file}`);
}

it("names every file of src/core in its room's README.md", () => {
  const unnamed = sources.filter((file) => {
    const readme = readmeOf(file);
    const text = readFileSync(readme, 'utf8');
    const relative = path.relative(path.dirname(readme), file).split(path.sep).join('/');
    return !text.includes(`\`${relative}\``);
  });
  assert.deepEqual(unnamed.map((file) => path.relative(ROOT, file)), [], 'name each file (as `file.ts`, or `sub/file.ts` from the README) in its room README.md');
});
