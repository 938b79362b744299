/** Steps for test/off-thread.test.ts, run in worker threads by core/tools/off-thread.ts. */
import { isMainThread } from 'node:worker_threads';
import { ToolError } from '../../src/core/errors.js';

/** The input's numbers doubled, and whether it ran on the main thread. */
export function double(input: { values: number[] }): { doubled: number[]; onMainThread: boolean } {
  return { doubled: input.values.map((value) => value * 2), onMainThread: isMainThread };
}

/** Never ends on its own: a busy loop that never yields. */
export function spin(): never {
  for (;;) {
    // busy
  }
}

/** Keeps every array it makes, until the heap is full. */
export function hog(): number {
  const kept: number[][] = [];
  for (;;) kept.push(Array.from({ length: 100_000 }, (_, i) => i));
}

export function refuse(): never {
  throw ToolError.invalidParameter('size', 'must be small');
}

export function crash(): never {
  throw new Error('step broke');
}

export const notAFunction = 42;

/**
 * Blocks until the main thread lets job `job` go (test/fair-share.test.ts): counts itself started
 * in `cells[0]`, writes its start order in `cells[1 + job]`, then waits on `cells[64 + job]`.
 */
export function hold(input: { cells: SharedArrayBuffer; job: number }): number {
  const cells = new Int32Array(input.cells);
  Atomics.store(cells, 1 + input.job, Atomics.add(cells, 0, 1) + 1);
  while (Atomics.load(cells, 64 + input.job) === 0) Atomics.wait(cells, 64 + input.job, 0, 1000);
  return input.job;
}
