import type { ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { SharedStore } from '../store/store.js';

/**
 * Something the server needs in order to serve (the shared store, the OAuth keys, ...). `check`
 * resolves true when it is usable; false, a rejection or no answer within the timeout means not
 * ready. Only `name` is ever shown to callers; why a check failed goes to the log.
 */
export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
}

/** A check that takes longer than this counts as failed: a probe must answer quickly. */
export const READINESS_TIMEOUT_MS = 2000;

export function storeReadiness(store: SharedStore): ReadinessCheck {
  return { name: `store (${store.kind})`, check: () => store.ping() };
}

/** Answers `/health` (liveness: the process serves HTTP) and `/ready` (readiness: every check passes). */
export interface Probes {
  health(res: ServerResponse): void;
  /** `log`: where failed checks are logged (the request's logger). */
  ready(res: ServerResponse, log: Logger): Promise<void>;
}

export function probes(checks: readonly ReadinessCheck[]): Probes {
  return {
    health(res) {
      sendProbe(res, 200, { status: 'ok' });
    },
    async ready(res, log) {
      const failed = await failedChecks(checks, log);
      if (failed.length === 0) sendProbe(res, 200, { status: 'ready' });
      else sendProbe(res, 503, { status: 'not ready', reasons: failed });
    },
  };
}

async function failedChecks(checks: readonly ReadinessCheck[], logger: Logger): Promise<string[]> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), READINESS_TIMEOUT_MS);
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(check), timeout]);
        if (outcome === true) return undefined;
        const reason = outcome === 'timeout' ? `${name}: no answer within ${READINESS_TIMEOUT_MS} ms` : `${name}: not available`;
        logger.warn({ check: name, reason }, 'readiness check failed');
        return reason;
      } catch (error) {
        // The error may name hosts or settings: logged for the operator, never answered.
        logger.warn({ check: name, err: error instanceof Error ? error.message : String(error) }, 'readiness check failed');
        return `${name}: failed`;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return results.filter((reason): reason is string => reason !== undefined);
}

function sendProbe(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
