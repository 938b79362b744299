/** How an UpstreamClient is configured, and the bounds it reads from its options or the environment. */
import { ToolError, type ToolErrorKind } from '../errors.js';
import type { Logger } from '../logger.js';
import type { HeaderLookup } from './http-send.js';
import type { HttpMethod, OperationEffect } from './resend-rules.js';
import type { AnswerHead } from './upstream-request.js';

/** Defaults of the bounds; each can be set per client (options) or for the process (environment). */
export const DEFAULT_MAX_RESPONSE_BYTES = 20 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 16;
export const DEFAULT_RATE_LIMIT_MIN_BACKOFF_MS = 1000;
export const DEFAULT_RATE_LIMIT_MAX_BACKOFF_MS = 30_000;
/** Environment variables read when the options leave a bound unset. */
export const UPSTREAM_ENV = {
  maxResponseBytes: 'TOOLSERVERS_MAX_RESPONSE_BYTES',
  maxConcurrentRequests: 'TOOLSERVERS_MAX_CONCURRENT_REQUESTS',
} as const;

/** What a platform's error body says (its `parseError` reads it). */
export interface PlatformErrorInfo {
  code?: string | number;
  message?: string;
  details?: unknown;
}

/** What `describeError` is told of a failure, with what the client would say itself. */
export interface ErrorDescriptionContext {
  kind: ToolErrorKind;
  platformName: string;
  method: HttpMethod;
  /** The operation's effect as the request gave it (or as its method implies). */
  effect?: OperationEffect;
  /** The path template as the caller gave it. */
  pathTemplate: string;
  /** The concrete path (IDs substituted and encoded, no query). */
  path: string;
  pathParams?: Record<string, string | number>;
  resourceLabel?: string;
  /** HTTP status, when the platform answered. */
  status?: number;
  platformCode?: string | number;
  platformMessage?: string;
  platformDetails?: unknown;
  retryAfterSeconds?: number;
  /** How many attempts were made. */
  attempts: number;
  /** True when an attempt may have reached the platform and been carried out although it failed. */
  mayHaveHappened: boolean;
  /** What the client would say without the hook. */
  defaultMessage: string;
  defaultNextStep: string;
}

/** What `describeError` says instead (a part left out keeps the default). */
export interface ErrorDescription {
  message?: string;
  nextStep?: string;
}

export interface RetryOptions {
  /** Repeats after the first attempt (default 2). */
  maxRetries?: number;
  /** First backoff ceiling in ms (default 250); doubles per retry. */
  baseDelayMs?: number;
  /** Backoff ceiling cap in ms (default 2000). */
  maxDelayMs?: number;
}

export interface RateLimitOptions {
  /** Longest rate-limit wait the client sits out by itself (default 10000 ms); longer ones are reported. */
  maxWaitMs?: number;
  /**
   * Wait after a 429 that says nothing usable about when to come back (no header, or 0):
   * starts here (default 1000 ms, never less than 1000) and doubles while 429s keep coming.
   */
  minBackoffMs?: number;
  /** Cap of that doubling wait (default 30000 ms). */
  maxBackoffMs?: number;
}

export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface UpstreamClientOptions {
  /** May include a path prefix, e.g. `http://127.0.0.1:4000/incidentops`. */
  baseUrl: string;
  /** Platform name for messages, e.g. `IncidentOps`. */
  platformName: string;
  /** Full Authorization header value; undefined means "not configured". Called once per request (again after a refresh). */
  authorization: () => Promise<string | undefined> | string | undefined;
  /**
   * Called once after a 401: true means fresh credentials are available, and the request is
   * sent once more (a 401 was not processed, so this is safe for every method).
   */
  refreshAuthorization?: () => Promise<boolean>;
  missingCredentialsMessage?: string;
  missingCredentialsNextStep?: string;
  defaultHeaders?: Record<string, string>;
  /** Per attempt (default 30000), counted from when the attempt is sent (not while it queues). */
  timeoutMs?: number;
  /** When given, every other method is refused before anything is sent. */
  allowedMethods?: readonly HttpMethod[];
  retry?: RetryOptions;
  rateLimit?: RateLimitOptions;
  /**
   * Largest answer read, in bytes (default: TOOLSERVERS_MAX_RESPONSE_BYTES, else 20 MiB). A
   * larger answer is abandoned mid-stream and reported as an upstream_error.
   */
  maxResponseBytes?: number;
  /**
   * Requests of this client in flight at once (default: TOOLSERVERS_MAX_CONCURRENT_REQUESTS,
   * else 16); more wait in a FIFO queue, and leave it when cancelled.
   */
  maxConcurrentRequests?: number;
  /** Where the TOOLSERVERS_* bounds are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Seconds until a 429 may be retried; default reads `Retry-After`. */
  retryAfterSeconds?: (response: AnswerHead, now: Date) => number | undefined;
  /** Reads the platform's error body (JSON when it parsed, else the raw text). */
  parseError?: (status: number, body: unknown, headers: HeaderLookup) => PlatformErrorInfo;
  /** Overrides the message / next step of an error. */
  describeError?: (ctx: ErrorDescriptionContext) => ErrorDescription | undefined;
  logger?: Logger;
  /** Sends with this fetch instead of node:http(s) (tests, other runtimes). */
  fetch?: typeof fetch;
  sleep?: SleepFn;
  now?: () => Date;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  /**
   * Rate-limit holds shared with other replicas (rate-limits.ts): a 429 here is passed on, and
   * their 429s hold requests back here too. Read synchronously on every request.
   */
  sharedRateLimit?: { notBefore(): number; raise(until: number): Promise<void> };
}

/** A number ≥ 0 from an option, else the fallback. */
export function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** A whole number ≥ 1 from the option, else the environment, else the default; anything else stops the server at start. */
export function boundSetting(option: number | undefined, env: NodeJS.ProcessEnv, name: string, fallback: number, platformName: string): number {
  if (option !== undefined) {
    if (!Number.isSafeInteger(option) || option < 1) {
      throw new ToolError({
        kind: 'not_configured',
        message: `The ${platformName} client was given an invalid bound (${String(option)}) where ${name} would apply; it must be a whole number of at least 1.`,
        nextStep: 'This is a bug in the tool server configuration; report it.',
      });
    }
    return option;
  }
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ToolError({
      kind: 'not_configured',
      message: `${name} must be a whole number of at least 1 (got "${raw.slice(0, 40)}").`,
      nextStep: `Set ${name} to a whole number, or unset it for the default (${fallback}).`,
    });
  }
  return value;
}
