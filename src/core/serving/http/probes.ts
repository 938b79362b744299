import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../logger.js';
import type { SharedStore } from '../../store/store.js';

/**
 * Something the server needs in order to serve (the shared store, the OAuth keys, ...). `check`
 * resolves true when it is usable; false, a rejection or no answer within the timeout means not
 * ready. Only `name` is ever shown to callers; why a check failed goes to the log.
 */
export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean>;
  /** The server still serves every call without it (slower or per replica): reported as degraded, still ready. */
  optional?: boolean;
}

/** A check that takes longer than this counts as failed: a probe must answer quickly. */
export const READINESS_TIMEOUT_MS = 2000;

/**
 * The shared store. `needsWrites`: calls depend on writing to it (OAuth mode: codes, tokens,
 * renewals), so a store that answers PING but refuses or stalls writes is not ready; a write of one
 * small key per process proves it. `optional`: calls go on without it (key mode: caches and
 * shared holds fall back to this process).
 */
export function storeReadiness(store: SharedStore, options: { needsWrites?: boolean; optional?: boolean } = {}): ReadinessCheck {
  const probeKey = `ready:${randomUUID()}`;
  return {
    name: `store (${store.kind})`,
    ...(options.optional ? { optional: true } : {}),
    check: async () => {
      if (!(await store.ping())) return false;
      if (options.needsWrites) await store.set(probeKey, String(Date.now()), 2 * READINESS_TIMEOUT_MS);
      return true;
    },
  };
}

/** Answers `/health` (liveness: the process serves HTTP) and `/ready` (readiness: every check that is not optional passes; an optional one failing is `degraded`, still 200). */
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
      const blocking = failed.filter(({ check }) => !check.optional).map(({ reason }) => reason);
      const reasons = failed.map(({ reason }) => reason);
      if (blocking.length > 0) sendProbe(res, 503, { status: 'not ready', reasons });
      else if (reasons.length > 0) sendProbe(res, 200, { status: 'degraded', reasons });
      else sendProbe(res, 200, { status: 'ready' });
    },
  };
}

async function failedChecks(checks: readonly ReadinessCheck[], logger: Logger): Promise<{ check: ReadinessCheck; reason: string }[]> {
  const results = await Promise.all(
    checks.map(async (readiness) => {
      const { name, check } = readiness;
      const failure = (reason: string) => ({ check: readiness, reason });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), READINESS_TIMEOUT_MS);
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(check), timeout]);
        if (outcome === true) return undefined;
        const reason = outcome === 'timeout' ? `${name}: no answer within ${READINESS_TIMEOUT_MS} ms` : `${name}: not available`;
        logger.warn({ check: name, reason }, 'readiness check failed');
        return failure(reason);
      } catch (error) {
        // The error may name hosts or settings: logged for the operator, never answered.
        logger.warn({ check: name, err: error instanceof Error ? error.message : String(error) }, 'readiness check failed');
        return failure(`${name}: failed`);
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return results.filter((result) => result !== undefined);
}

function sendProbe(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}
