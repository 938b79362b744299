/** Module hooks of module-log.ts: records each ES module URL the process loads. */
import { appendFileSync } from 'node:fs';

export async function load(url: string, context: unknown, next: (url: string, context: unknown) => Promise<unknown>): Promise<unknown> {
  if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${url}\n`);
  return next(url, context);
}
