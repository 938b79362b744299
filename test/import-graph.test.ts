/**
 * The shape of src/ (docs/architecture.md draws it): no import cycles, the core's rooms import
 * each other in one direction only, the core knows neither platform, the platforms' code never
 * reaches into serving, and the sandbox imports nothing of the rest. Checked twice: on the
 * compiled modules (build/src), the imports that exist when the code runs, and on the sources
 * with type imports too, so that types point the same way as the code.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { directionViolations, findCycles, readImportGraph, readSourceImportGraph, type DirectionRule } from './support/import-graph.js';

const COMPILED_SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const SOURCE_SRC = path.resolve(COMPILED_SRC, '..', '..', 'src');

const CORE_BELOW_SERVING = ['core/tools', 'core/platform', 'core/signin', 'core/store', 'core/shared'];

/** The rooms and what each may import besides itself; modules outside these groups (entries, servers/) may import anything. */
const SRC_DIRECTION: DirectionRule = {
  groupOf(module) {
    const [top, second] = module.split('/');
    if (top === 'core') return second?.endsWith('.js') ? 'core/shared' : `core/${second}`;
    if (top === 'sandbox' || top === 'incidentops' || top === 'canvasapi') return top;
    return 'entry';
  },
  mayImport: {
    'core/serving': CORE_BELOW_SERVING,
    'core/tools': ['core/shared'],
    'core/platform': ['core/store', 'core/shared'],
    'core/signin': ['core/shared'],
    'core/store': ['core/shared'],
    'core/shared': [],
    incidentops: CORE_BELOW_SERVING,
    canvasapi: CORE_BELOW_SERVING,
    sandbox: [],
  },
};

const asSource = (module: string): string => `src/${module.replace(/\.js$/, '.ts')}`;

describe('import graph of src/', () => {
  const graph = readImportGraph(COMPILED_SRC, SOURCE_SRC);

  it('reads the real graph (static, re-exported and dynamic imports)', () => {
    assert.ok(graph.size > 100, `only ${graph.size} modules found under ${COMPILED_SRC}`);
    assert.ok(graph.get('core/tools/registry.js')?.includes('core/tools/names.js'), 'a static import');
    assert.ok(graph.get('server-info.js')?.includes('servers/incidentops.js'), 'a dynamic import');
  });

  it('has no import cycles', () => {
    const cycles = findCycles(graph).map((cycle) => cycle.map(asSource).join(' -> '));
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.join('\n')}`);
  });

  it("keeps the core's rooms, the platforms and the sandbox in their direction", () => {
    const wrong = directionViolations(graph, SRC_DIRECTION);
    assert.deepEqual(wrong, [], `imports against the direction in docs/architecture.md:\n${wrong.join('\n')}`);
  });

  it('puts every core module in a known room', () => {
    const rooms = new Set([...graph.keys()].map((module) => SRC_DIRECTION.groupOf(module)).filter((group) => group.startsWith('core/')));
    const unknown = [...rooms].filter((room) => !(room in SRC_DIRECTION.mayImport));
    assert.deepEqual(unknown, [], 'a new folder in src/core needs its place in SRC_DIRECTION and docs/architecture.md');
  });
});

describe('import graph of src/ with type imports', () => {
  const graph = readSourceImportGraph(SOURCE_SRC);

  it('reads the sources with their type imports', () => {
    assert.equal(graph.size, readImportGraph(COMPILED_SRC, SOURCE_SRC).size, 'one module per source file');
    assert.ok(graph.get('core/tools/run-tool.js')?.includes('core/tools/tool.js'), 'an `import type`');
  });

  it('has no import cycles, type imports included', () => {
    const cycles = findCycles(graph).map((cycle) => cycle.map(asSource).join(' -> '));
    assert.deepEqual(cycles, [], `import cycles (a type shared by two files lives in the lower one):\n${cycles.join('\n')}`);
  });

  it('keeps the direction with type imports too', () => {
    const wrong = directionViolations(graph, SRC_DIRECTION);
    assert.deepEqual(wrong, [], `type imports against the direction in docs/architecture.md:\n${wrong.join('\n')}`);
  });
});

describe('the checks catch what they are for', () => {
  it('finds a cycle through a dynamic import, each cycle once', () => {
    const graph = new Map([
      ['a.js', ['b.js']],
      ['b.js', ['c.js']],
      ['c.js', ['a.js', 'd.js']],
      ['d.js', []],
      ['e.js', ['e.js']],
    ]);
    assert.deepEqual(findCycles(graph), [
      ['a.js', 'b.js', 'c.js', 'a.js'],
      ['e.js', 'e.js'],
    ]);
    assert.deepEqual(findCycles(new Map([['a.js', ['b.js']], ['b.js', []]])), []);
  });

  it('reports an import that goes up, and not one that goes down', () => {
    const graph = new Map([
      ['core/tools/registry.js', ['core/serving/serve.js', 'core/errors.js']],
      ['core/serving/serve.js', ['core/tools/registry.js']],
      ['core/platform/upstream.js', ['core/tools/registry.js']],
      ['sandbox/server.js', ['core/logger.js']],
      ['cli.js', ['sandbox/server.js', 'core/serving/serve.js']],
    ]);
    assert.deepEqual(directionViolations(graph, SRC_DIRECTION), [
      'core/platform/upstream.js -> core/tools/registry.js (core/platform -> core/tools)',
      'core/tools/registry.js -> core/serving/serve.js (core/tools -> core/serving)',
      'sandbox/server.js -> core/logger.js (sandbox -> core/shared)',
    ]);
  });
});
