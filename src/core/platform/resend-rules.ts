/**
 * Which requests may be sent again, decided by what the operation does (its effect), not by its
 * HTTP method: nothing lost, nothing done twice.
 *
 * - Every request is sent again when it provably never reached the platform (connection
 *   refused, DNS failure, connect timeout), after a 429 (the platform refused it) and once
 *   after a 401 with renewed credentials.
 * - Reads, updates (setting fields) and deletes are also sent again after a 5xx, a reset
 *   connection or a timeout, within the small retry budget: doing them twice does no harm.
 *   A delete sent again that then gets 404 is reported as done, with a note that an earlier
 *   attempt had most likely done it.
 * - Creates and other actions (and any POST, PUT or PATCH whose effect is not given) are
 *   never sent again once they may have reached the platform: after a reset, a timeout or
 *   any HTTP answer (5xx and proxy pages included) the error says that the operation may
 *   have happened and what to check before calling again.
 */

export type HttpMethod = 'GET' | 'HEAD' | 'OPTIONS' | 'PUT' | 'DELETE' | 'POST' | 'PATCH';

/**
 * What an operation does to data (the same words as the CanvasApi catalogue):
 * read, create, update (sets fields: same result when done twice), delete, action (anything
 * else that must not happen twice, e.g. revoking a token).
 */
export type OperationEffect = 'read' | 'create' | 'update' | 'delete' | 'action';

export const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'POST', 'PATCH'];
const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set<HttpMethod>(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** 5xx answers worth repeating (for operations that are safe to repeat only). 501 means "never will work". */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);
/** Connection-level failures where the request provably never reached the server. */
export const NEVER_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** What decides whether a request may be resent: its method, its declared effect, or an explicit override. */
export interface ResendFacts {
  method: HttpMethod;
  /** When absent: GET, HEAD and OPTIONS are reads, DELETE is a delete, and POST, PUT and PATCH may create. */
  effect?: OperationEffect;
  /** Explicit override: true when sending twice has the same outcome as once; wins over `effect`. */
  idempotent?: boolean;
}

/** HTTP semantics only (RFC 9110). Retries do not use it: see `mayResend`. */
export function isIdempotent(method: HttpMethod): boolean {
  return IDEMPOTENT_METHODS.has(method);
}

/** The effect a request declares, or the one its method implies when that is unambiguous. */
export function effectOf(req: Pick<ResendFacts, 'method' | 'effect'>): OperationEffect | undefined {
  if (req.effect) return req.effect;
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return 'read';
  if (req.method === 'DELETE') return 'delete';
  return undefined; // POST, PUT, PATCH: may create; never guessed
}

/**
 * Whether the request may be sent again after a failure that may have reached the platform
 * (5xx, reset connection, timeout): reads, updates and deletes yes; creates, actions and
 * requests of unknown effect no.
 */
export function mayResend(req: ResendFacts): boolean {
  if (req.idempotent !== undefined) return req.idempotent;
  const effect = effectOf(req);
  return effect === 'read' || effect === 'update' || effect === 'delete';
}

/** The `code` of a fetch failure: `error.cause.code`, searching nested causes / AggregateErrors. */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && isObject(current); depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
    const nested = (current as { errors?: unknown }).errors;
    if (Array.isArray(nested)) {
      const codes = nested.map(networkErrorCode);
      const firstCode = codes[0];
      if (firstCode !== undefined && codes.every((c) => c === firstCode)) return firstCode;
      // Mixed codes: only "never sent" when every attempt was never sent.
      if (codes.length > 0 && codes.every((c) => c !== undefined && NEVER_SENT_CODES.has(c))) return firstCode;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
