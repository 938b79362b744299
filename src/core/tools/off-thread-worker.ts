/**
 * The worker thread of off-thread.ts: imports the step's module, calls the named function on the
 * input and posts back its value, or its error described (a ToolError keeps its details).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ToolError } from '../errors.js';
import type { WorkerAnswer } from './off-thread.js';

const job = workerData as { module: string; exportName: string; input: unknown };

async function answer(): Promise<WorkerAnswer> {
  try {
    const exported = ((await import(job.module)) as Record<string, unknown>)[job.exportName];
    if (typeof exported !== 'function') return { ok: false, message: `${job.module} exports no function ${job.exportName}` };
    return { ok: true, value: await (exported as (input: unknown) => unknown)(job.input) };
  } catch (error) {
    if (error instanceof ToolError) return { ok: false, toolError: error.details, message: error.message };
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.postMessage(await answer());
