/**
 * A user's clone has no ../shared beside it (the reference specs and the tool contracts live only
 * in this workplace and in CI). Every test file that reads them, directly or through a support
 * module, is run here with both directories pointed at an empty folder: each must pass, skipping
 * what needs the files with a message that says which file is missing and where it was looked for.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readImportGraph, type ImportGraph } from './support/import-graph.js';

const COMPILED_TEST = path.dirname(fileURLToPath(import.meta.url));
const READER = 'support/reference.js';
const SELF = path.basename(fileURLToPath(import.meta.url));

/** Whether `module` imports `target`, at any depth. */
function reaches(graph: ImportGraph, module: string, target: string, seen = new Set<string>()): boolean {
  if (module === target) return true;
  if (seen.has(module)) return false;
  seen.add(module);
  return (graph.get(module) ?? []).some((next) => reaches(graph, next, target, seen));
}

describe('a clone without ../shared', () => {
  const empty = mkdtempSync(path.join(os.tmpdir(), 'toolservers-no-shared-'));
  after(() => rmSync(empty, { recursive: true, force: true }));

  const graph = readImportGraph(COMPILED_TEST);
  const testFiles = readdirSync(COMPILED_TEST).filter((file) => file.endsWith('.test.js') && file !== SELF);
  const readers = testFiles.filter((file) => reaches(graph, file, READER));

  it('reads ../shared only through support/reference (so the files found below are all that need it)', () => {
    const compiled = [...testFiles, ...readdirSync(path.join(COMPILED_TEST, 'support')).filter((f) => f.endsWith('.js')).map((f) => `support/${f}`)];
    const elsewhere = compiled.filter((file) => file !== READER && /['"`]\.\.\/shared\b/.test(readFileSync(path.join(COMPILED_TEST, file), 'utf8')));
    assert.deepEqual(elsewhere, []);
    assert.ok(readers.length >= 5, `expected the contract and spec tests among the readers, found ${readers.join(', ')}`);
  });

  it('passes every test file that reads the references, skipping what needs them and saying why', () => {
    const run = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=tap', ...readers.map((file) => path.join(COMPILED_TEST, file))], {
      cwd: path.resolve(COMPILED_TEST, '..', '..'),
      env: { ...process.env, TOOLSERVERS_REFERENCE_DIR: empty, TOOLSERVERS_SEEDS_DIR: empty, NODE_TEST_CONTEXT: undefined },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 240_000,
    });
    const failures = run.stdout.split('\n').filter((line) => /^\s*not ok /.test(line) && !/# SKIP/.test(line));
    assert.deepEqual(failures, [], `failed without the reference files:\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-2000)}`);
    assert.equal(run.status, 0, run.stderr.slice(-2000));
    const skips = run.stdout.split('\n').filter((line) => /# SKIP/.test(line));
    assert.ok(skips.length > 0, 'something was skipped');
    for (const skip of skips) assert.match(skip, /# SKIP (reference file|seed) \S+ not found in .+ \(set TOOLSERVERS_(REFERENCE|SEEDS)_DIR\)/, `a skip that does not say why: ${skip}`);
  });
});
