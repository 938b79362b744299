/**
 * Platform-neutral HTTP client for the upstream SaaS APIs.
 *
 * It knows neither platform: base URL, credentials, rate-limit headers and error bodies
 * come in as options. Every failure leaves as a ToolError.
 *
 * Nothing lost, nothing done twice. Whether a request may be sent again is decided by what
 * the operation does (its `effect`), not by its HTTP method:
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
 *
 * Bounded: at most `maxConcurrentRequests` requests of one client are in flight (the rest
 * queue in arrival order), a 429 holds back the requests made with the same credentials (the
 * server's own, or in OAuth mode one user's) until the platform allows them again, and an answer
 * is read as a stream and abandoned past `maxResponseBytes`.
 */

import { setTimeout as sleepFor } from 'node:timers/promises';
import { ConcurrencyLimiter } from './concurrency.js';
import { isRecord, jsonText } from '../json.js';
import { ToolError, type ToolErrorDetails, type ToolErrorKind } from '../errors.js';
import { requestIdOf, silentLogger, type Logger } from '../logger.js';
import { fetchSend, nodeSend, raceAbort, type CappedBody, type HeaderLookup, type Send, type SendInit, type SentAnswer } from './http-send.js';
import { rateLimitHolder } from './rate-limits.js';

export { raceAbort, type HeaderLookup } from './http-send.js';

export type HttpMethod = 'GET' | 'HEAD' | 'OPTIONS' | 'PUT' | 'DELETE' | 'POST' | 'PATCH';

/**
 * What an operation does to data (the same words as the CanvasApi catalogue):
 * read, create, update (sets fields: same result when done twice), delete, action (anything
 * else that must not happen twice, e.g. revoking a token).
 */
export type OperationEffect = 'read' | 'create' | 'update' | 'delete' | 'action';

const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'POST', 'PATCH'];
const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set<HttpMethod>(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** 5xx answers worth repeating (for operations that are safe to repeat only). 501 means "never will work". */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);
/** Connection-level failures where the request provably never reached the server. */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

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
/** Holds kept before expired ones are swept (a sweep runs only when a new identity gets a 429). */
const HOLDS_SWEPT_AT = 64;
/** Most holds kept at once; past it the oldest go (a forgotten hold costs one more 429, nothing else). */
const MAX_HOLDS = 10_000;
/** Error answers are only read this far (a message and details fit many times over). */
const ERROR_BODY_LIMIT_BYTES = 1024 * 1024;

const NETWORK_CODE_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused',
  ENOTFOUND: 'the host name could not be resolved',
  EAI_AGAIN: 'the host name could not be resolved (temporary DNS failure)',
  UND_ERR_CONNECT_TIMEOUT: 'the connection could not be established in time',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  UND_ERR_SOCKET: 'the connection was closed unexpectedly',
  ETIMEDOUT: 'the connection timed out',
};

export type QueryScalar = string | number | boolean;
export type QueryValue = QueryScalar | readonly QueryScalar[];

export interface UpstreamRequest {
  method: HttpMethod;
  /** Path template relative to the base URL, e.g. `/incidents/{id}`. */
  path: string;
  pathParams?: Record<string, string | number>;
  /** Undefined values are skipped; arrays repeat the key exactly as given (e.g. `statuses[]`). */
  query?: Record<string, QueryValue | undefined>;
  /** Serialised as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The MCP request's abort signal. */
  signal?: AbortSignal;
  /** Human name of the target for messages, e.g. `Incident PABC123`. */
  resourceLabel?: string;
  /**
   * What the operation does; decides whether it may be sent again after a failure that may
   * have reached the platform (see the file comment). When absent: GET, HEAD and OPTIONS are
   * reads, DELETE is a delete, and POST, PUT and PATCH are treated as possibly creating.
   */
  effect?: OperationEffect;
  /**
   * Explicit override: true when sending the request twice has the same outcome as once
   * (resent after 5xx, reset, timeout); false when it must never be sent twice once it may
   * have reached the platform. Wins over `effect`.
   */
  idempotent?: boolean;
}

export interface UpstreamResponse<T> {
  status: number;
  headers: HeaderLookup;
  /** Parsed JSON, or undefined for 204 / an empty body. */
  data: T;
  /**
   * True when a delete that had to be sent again found the resource gone (HTTP 404): an
   * earlier attempt had most likely deleted it. `data` is then
   * `{ success: true, already_deleted: true, note }` and `status` is the 404.
   */
  alreadyApplied?: boolean;
  /** Says what happened when `alreadyApplied` is set. */
  note?: string;
}

/** Status and headers of an answer, as hooks see it. */
export interface AnswerHead {
  status: number;
  headers: HeaderLookup;
}

export interface PlatformErrorInfo {
  code?: string | number;
  message?: string;
  details?: unknown;
}

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
   * Rate-limit holds shared with other replicas (src/core/store/rate-limits.ts): a 429 here is
   * passed on, and their 429s hold requests back here too. Read synchronously on every request.
   */
  sharedRateLimit?: { notBefore(): number; raise(until: number): Promise<void> };
}

/** HTTP semantics only (RFC 9110). Retries do not use it: see `mayResend`. */
export function isIdempotent(method: HttpMethod): boolean {
  return IDEMPOTENT_METHODS.has(method);
}

/** The effect a request declares, or the one its method implies when that is unambiguous. */
export function effectOf(req: Pick<UpstreamRequest, 'method' | 'effect'>): OperationEffect | undefined {
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
export function mayResend(req: Pick<UpstreamRequest, 'method' | 'effect' | 'idempotent'>): boolean {
  if (req.idempotent !== undefined) return req.idempotent;
  const effect = effectOf(req);
  return effect === 'read' || effect === 'update' || effect === 'delete';
}

const PLACEHOLDER = /\{([^{}]+)\}/g;
/** Path templates split once (the catalogue has a few hundred). */
const TEMPLATE_SEGMENTS = new Map<string, readonly string[]>();
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Substitutes `{name}` placeholders with percent-encoded values. Every character that could
 * change the path (`/`, `?`, `#`, `%`) is encoded, and a value forming a `.`/`..` segment is refused.
 */
export function buildPath(template: string, params: Record<string, string | number> = {}): string {
  let split = TEMPLATE_SEGMENTS.get(template);
  if (!split) {
    split = template.split('/');
    if (TEMPLATE_SEGMENTS.size >= 1024) TEMPLATE_SEGMENTS.clear();
    TEMPLATE_SEGMENTS.set(template, split);
  }
  const segments = split.map((segment) => {
    if (!segment.includes('{')) return segment;
    const used: string[] = [];
    const built = segment.replace(PLACEHOLDER, (_match, name: string) => {
      used.push(name);
      const value: unknown = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
      if (value === undefined || value === null) {
        throw ToolError.invalidParameter(name, 'is required (it is part of the request path)');
      }
      if (typeof value === 'number' && !Number.isFinite(value)) {
        throw ToolError.invalidParameter(name, 'must be a finite number');
      }
      if (typeof value !== 'string' && typeof value !== 'number') {
        throw ToolError.invalidParameter(name, 'must be a string or a number');
      }
      const text = String(value);
      if (text.trim() === '') throw ToolError.invalidParameter(name, 'must not be empty');
      try {
        return encodeURIComponent(text);
      } catch {
        throw ToolError.invalidParameter(name, 'contains invalid Unicode (an unpaired surrogate)');
      }
    });
    const first = used[0];
    if (first !== undefined && DOT_SEGMENT.test(built) && !DOT_SEGMENT.test(segment)) {
      throw ToolError.invalidParameter(first, 'must not be "." or ".." (that would change the request path)');
    }
    return built;
  });
  return segments.join('/');
}

function encodeQueryPart(text: string, parameter: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    throw ToolError.invalidParameter(parameter, 'contains invalid Unicode (an unpaired surrogate)');
  }
}

function formatQueryScalar(value: QueryScalar, parameter: string): string {
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw ToolError.invalidParameter(parameter, 'must be a finite number');
    return String(value);
  }
  return value;
}

/**
 * `a=1&b=x%20y` without a leading `?` ('' when nothing is left). Undefined values are skipped,
 * arrays repeat the key verbatim (`statuses[]=a&statuses[]=b`), booleans become true/false.
 */
export function buildQueryString(query: Record<string, QueryValue | undefined> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    // Brackets stay literal so `statuses[]` reaches the platform exactly as written.
    const encodedKey = encodeQueryPart(key, key).replace(/%5B/gi, '[').replace(/%5D/gi, ']');
    const values: readonly QueryScalar[] = Array.isArray(value) ? (value as readonly QueryScalar[]) : [value as QueryScalar];
    for (const item of values) {
      if (item === undefined || item === null) continue;
      parts.push(`${encodedKey}=${encodeQueryPart(formatQueryScalar(item, key), key)}`);
    }
  }
  return parts.join('&');
}

/** Reads the standard `Retry-After` header: delta seconds or an HTTP date. */
export function defaultRetryAfterSeconds(response: AnswerHead, now: Date): number | undefined {
  const raw = response.headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(?:\.\d+)?$/.test(raw)) return Math.ceil(Number(raw));
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** Generic error-body reader: `{error: {code, message, errors}}`, `{code, message}` or plain text. */
export function defaultParseError(_status: number, body: unknown): PlatformErrorInfo {
  if (typeof body === 'string') {
    const text = body.trim();
    return text ? { message: text.slice(0, 300) } : {};
  }
  if (!isRecord(body)) return {};
  const inner = isRecord(body.error) ? body.error : body;
  const out: PlatformErrorInfo = {};
  if (typeof inner.code === 'string' || typeof inner.code === 'number') out.code = inner.code;
  if (typeof inner.message === 'string') out.message = inner.message;
  else if (typeof body.error === 'string') out.message = body.error;
  const details = inner.errors ?? inner.details ?? body.errors;
  if (details !== undefined) out.details = details;
  return out;
}

export function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[^/\s]+\+json$/.test(mediaType);
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleepFor(ms, undefined, signal ? { signal } : undefined);
}

/** The `code` of a fetch failure: `error.cause.code`, searching nested causes / AggregateErrors. */
function networkErrorCode(error: unknown): string | undefined {
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

function snippet(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed ? trimmed.slice(0, 300) : undefined;
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}


/** A whole number ≥ 1 from the option, else the environment, else the default; anything else stops the server at start. */
function boundSetting(option: number | undefined, env: NodeJS.ProcessEnv, name: string, fallback: number, platformName: string): number {
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

/** `1 second`, `60 seconds`. */
function seconds(count: number): string {
  return `${count} second${count === 1 ? '' : 's'}`;
}

function formatBytes(bytes: number): string {
  return bytes.toLocaleString('en-US');
}

const utf8 = new TextDecoder('utf-8');

/** A header name as fetch accepts it (an RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** NUL, CR, LF or a character outside Latin-1: refused by fetch's Headers. */
const INVALID_HEADER_VALUE = /[\0\r\n]|[^\u0000-\u00ff]/;

function validHeaderValue(value: string): boolean {
  return !INVALID_HEADER_VALUE.test(value);
}

/** Debug logs build objects: only when they go somewhere. */
function debugEnabled(logger: Logger): boolean {
  return typeof logger.isLevelEnabled === 'function' ? logger.isLevelEnabled('debug') : true;
}

type FailureKind = 'cancelled' | 'timeout' | 'network_error';

type AttemptOutcome =
  | { type: 'response'; response: AnswerHead; text: string; sentAt: number }
  | { type: 'too_large'; response: AnswerHead; limit: number; declared?: number }
  | {
      type: 'failure';
      kind: FailureKind;
      code?: string;
      /** Provably never reached the platform (refused, DNS, still queued). */
      neverSent: boolean;
      /** The status line, when the answer's head arrived before the failure. */
      status?: number;
    };

interface RequestContext {
  req: UpstreamRequest;
  path: string;
  secrets: string[];
  effect: OperationEffect | undefined;
  /** May be sent again after a failure that may have reached the platform. */
  resendable: boolean;
  /** How an earlier attempt failed after it may have reached the platform (`HTTP 503`, `no answer within 300 ms`, ...). */
  ambiguous: string | undefined;
  /** The request (HTTP request or tool call) this one is made for, for log lines (from its signal). */
  requestId: string | undefined;
  /** Whose credentials it uses: the key of its rate-limit hold. */
  holder: string;
}

/** One credential identity's 429 state. */
interface RateLimitHold {
  /** Epoch ms before which no request of this identity is sent. */
  notBefore: number;
  /** Doubling level of the wait after 429s without a usable reset time; -1 when the last answer was no 429. */
  level: number;
  /** End of the latest such wait: a 429 for a request sent before it belongs to the same burst. */
  windowEnd: number;
}

interface FailureExtra {
  status?: number;
  platformCode?: string | number;
  platformMessage?: string;
  platformDetails?: unknown;
  retryAfterSeconds?: number;
  overrideMessage?: string;
  overrideNextStep?: string;
  /** Whether the operation may have been carried out; default: an earlier attempt may have been. */
  mayHaveHappened?: boolean;
}

/** One answered (or failed) attempt, as observers (metrics) see it: no paths, no IDs. */
export interface UpstreamAnswerEvent {
  platform: string;
  method: HttpMethod;
  /** The HTTP status, when an answer's head arrived. */
  status?: number;
  /** Why no (complete) answer came: `timeout`, `cancelled`, or the network error code (`ECONNRESET`). */
  failure?: string;
  seconds: number;
}

/** A wait a 429 imposed: before a retry of the refused request, or holding back a later one. */
export interface RateLimitWaitEvent {
  platform: string;
  seconds: number;
}

export interface UpstreamObserver {
  onUpstreamAnswer?(event: UpstreamAnswerEvent): void;
  onRateLimitWait?(event: RateLimitWaitEvent): void;
}

let upstreamObservers: readonly UpstreamObserver[] = [];

/** Reports every upstream attempt and rate-limit wait of this process until the returned function is called. */
export function observeUpstream(observer: UpstreamObserver): () => void {
  upstreamObservers = [...upstreamObservers, observer];
  return () => {
    upstreamObservers = upstreamObservers.filter((candidate) => candidate !== observer);
  };
}

function report(notify: (observer: UpstreamObserver) => void): void {
  for (const observer of upstreamObservers) {
    try {
      notify(observer);
    } catch {
      // An observer's failure never changes a request's outcome.
    }
  }
}

export class UpstreamClient {
  private readonly baseUrl: string;
  private readonly platformName: string;
  private readonly options: UpstreamClientOptions;
  private readonly send: Send;
  private readonly sleepImpl: SleepFn;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly rateLimitMinBackoffMs: number;
  private readonly rateLimitMaxBackoffMs: number;
  /** Largest answer read, in bytes. */
  readonly maxResponseBytes: number;
  private readonly limiter: ConcurrencyLimiter;
  /**
   * 429 state per credential identity (`rateLimitHolder()`: one user in OAuth mode, else the
   * server), keyed like the shared holds, so one user's 429 never holds back another. Only
   * identities that got a 429 have an entry; it goes with the identity's next answer after its
   * hold, or when a sweep finds its hold passed, so the map stays about as small as the set of
   * users being held (and never above MAX_HOLDS).
   */
  private readonly holds = new Map<string, RateLimitHold>();
  /** The default headers with lower-case names, once checked. */
  private defaultHeaders: Record<string, string> | undefined;

  constructor(options: UpstreamClientOptions) {
    this.options = options;
    this.platformName = options.platformName;
    let parsed: URL;
    try {
      parsed = new URL(options.baseUrl);
    } catch {
      throw new ToolError({
        kind: 'not_configured',
        message: `The ${options.platformName} base URL is not a valid URL.`,
        nextStep: `Set the ${options.platformName} base URL to an absolute http(s) URL.`,
      });
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.search || parsed.hash) {
      throw new ToolError({
        kind: 'not_configured',
        message: `The ${options.platformName} base URL must be an http(s) URL without query or fragment.`,
        nextStep: `Set the ${options.platformName} base URL to something like https://api.example.com or http://127.0.0.1:4000/prefix.`,
      });
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.send = options.fetch ? fetchSend(options.fetch) : nodeSend;
    this.sleepImpl = options.sleep ?? defaultSleep;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? silentLogger;
    this.timeoutMs = positive(options.timeoutMs, 30_000) || 30_000;
    this.maxRetries = Math.floor(positive(options.retry?.maxRetries, 2));
    this.baseDelayMs = positive(options.retry?.baseDelayMs, 250);
    this.maxDelayMs = positive(options.retry?.maxDelayMs, 2000);
    this.maxRateLimitWaitMs = positive(options.rateLimit?.maxWaitMs, 10_000);
    this.rateLimitMinBackoffMs = Math.max(DEFAULT_RATE_LIMIT_MIN_BACKOFF_MS, positive(options.rateLimit?.minBackoffMs, DEFAULT_RATE_LIMIT_MIN_BACKOFF_MS));
    this.rateLimitMaxBackoffMs = Math.max(this.rateLimitMinBackoffMs, positive(options.rateLimit?.maxBackoffMs, DEFAULT_RATE_LIMIT_MAX_BACKOFF_MS));
    const env = options.env ?? process.env;
    this.maxResponseBytes = boundSetting(options.maxResponseBytes, env, UPSTREAM_ENV.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, this.platformName);
    this.limiter = new ConcurrencyLimiter(
      boundSetting(options.maxConcurrentRequests, env, UPSTREAM_ENV.maxConcurrentRequests, DEFAULT_MAX_CONCURRENT_REQUESTS, this.platformName),
    );
  }

  /**
   * Requests in flight and waiting for a slot; until when a 429 holds back the current identity's
   * requests (epoch ms, 0 when not); how many identities have 429 state.
   */
  stats(): { inFlight: number; queued: number; maxConcurrentRequests: number; notBefore: number; holds: number } {
    return {
      inFlight: this.limiter.inFlight,
      queued: this.limiter.queued,
      maxConcurrentRequests: this.limiter.limit,
      notBefore: this.holds.get(rateLimitHolder())?.notBefore ?? 0,
      holds: this.holds.size,
    };
  }

  async request<T = unknown>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
    const { method } = req;
    if (!HTTP_METHODS.includes(method)) {
      throw new ToolError({
        kind: 'internal',
        message: `Unsupported HTTP method ${String(method)}; nothing was sent.`,
        nextStep: 'This is a bug in the tool server; report it.',
      });
    }
    const allowed = this.options.allowedMethods;
    if (allowed && !allowed.includes(method)) {
      throw new ToolError({
        kind: 'internal',
        message: `This ${this.platformName} server only sends ${allowed.join(', ')} requests; refused to send ${method} ${req.path} (nothing was sent).`,
        nextStep: 'This server is restricted (read-only); use a server configured for changes if changing data is intended.',
      });
    }

    let path = buildPath(req.path, req.pathParams);
    if (path !== '' && !path.startsWith('/')) path = `/${path}`;
    const query = buildQueryString(req.query);
    const url = `${this.baseUrl}${path}${query ? `?${query}` : ''}`;

    let body: string | undefined;
    if (req.body !== undefined) {
      try {
        body = jsonText(req.body); // bigints (int64 IDs) go out digit-exact
      } catch {
        throw ToolError.invalidParameter('body', 'cannot be serialised as JSON');
      }
    }

    const ctx: RequestContext = {
      req,
      path,
      secrets: [],
      effect: effectOf(req),
      resendable: mayResend(req),
      ambiguous: undefined,
      requestId: requestIdOf(req.signal),
      holder: rateLimitHolder(),
    };
    if (req.signal?.aborted) throw this.failure('cancelled', ctx, 0, { mayHaveHappened: false });

    let authorization = await this.readAuthorization();
    ctx.secrets = secretsOf(authorization);
    if (req.signal?.aborted) throw this.failure('cancelled', ctx, 0, { mayHaveHappened: false });
    let headers = this.buildHeaders(req, authorization, body !== undefined);
    let refreshed = false;
    /** The rate-limit deadline this request has just waited out itself (the gate does not wait for it again). */
    let waitedUntil: number | undefined;

    for (let attempt = 1; ; attempt += 1) {
      const retriesLeft = attempt <= this.maxRetries;
      const outcome = await this.attemptInTurn(url, { method, headers, body }, ctx, attempt, waitedUntil);
      waitedUntil = undefined;

      if (outcome.type === 'failure') {
        if (outcome.kind === 'cancelled') {
          throw this.failure('cancelled', ctx, outcome.neverSent ? attempt - 1 : attempt, {
            mayHaveHappened: !outcome.neverSent || ctx.ambiguous !== undefined,
          });
        }
        if (outcome.neverSent) {
          if (retriesLeft) {
            await this.pause(this.backoffMs(attempt), ctx, attempt, `${outcome.code ?? outcome.kind}`);
            continue;
          }
          throw this.failure(outcome.kind, ctx, attempt, {}, outcome);
        }
        // It may have reached the platform and been carried out.
        if (ctx.resendable && retriesLeft) {
          ctx.ambiguous = this.failureText(outcome);
          await this.pause(this.backoffMs(attempt), ctx, attempt, `${outcome.code ?? outcome.kind}`);
          continue;
        }
        throw this.failure(outcome.kind, ctx, attempt, { ...(outcome.status !== undefined ? { status: outcome.status } : {}), mayHaveHappened: true }, outcome);
      }

      if (outcome.type === 'too_large') throw this.tooLarge(outcome, ctx, attempt);

      const { response, text } = outcome;
      const status = response.status;
      if (status !== 429 && this.holds.size > 0) this.settleHold(ctx.holder);
      if (status >= 200 && status < 300) {
        return { status, headers: response.headers, data: this.parseSuccess(response, text, ctx, attempt) as T };
      }

      if (status === 401 && !refreshed && this.options.refreshAuthorization) {
        refreshed = true;
        let renewed = false;
        try {
          renewed = await this.options.refreshAuthorization();
        } catch (error) {
          this.logger.warn({ request_id: ctx.requestId, platform: this.platformName, err: error instanceof Error ? error.message : String(error) }, 'credential refresh failed');
        }
        if (renewed) {
          authorization = await this.readAuthorization();
          ctx.secrets = [...ctx.secrets, ...secretsOf(authorization)];
          headers = this.buildHeaders(req, authorization, body !== undefined);
          this.logger.info({ request_id: ctx.requestId, platform: this.platformName, method, path }, 'credentials refreshed after a 401; sending once more');
          attempt -= 1; // the refresh does not consume the retry budget
          continue;
        }
      }

      if (status === 429) {
        // The platform refused the request: safe to send again for every effect.
        const hold = this.holdOf(ctx.holder);
        const waitMs = this.rateLimitWait(response, outcome.sentAt, hold);
        const deadline = this.now().getTime() + waitMs;
        hold.notBefore = Math.max(hold.notBefore, deadline);
        await this.options.sharedRateLimit?.raise(deadline);
        const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
        if (waitMs <= this.maxRateLimitWaitMs && retriesLeft) {
          this.logger.warn(
            { request_id: ctx.requestId, platform: this.platformName, method, path, attempt, waitMs },
            `${this.platformName} rate limit reached; waiting before retrying`,
          );
          this.reportRateLimitWait(waitMs);
          await this.pause(waitMs, ctx, attempt, undefined);
          waitedUntil = deadline;
          continue;
        }
        throw this.httpFailure(response, text, ctx, attempt, retryAfterSeconds);
      }

      if (status === 404 && ctx.effect === 'delete' && ctx.ambiguous !== undefined) {
        const target = req.resourceLabel ?? `the resource at ${path}`;
        const note =
          `An earlier attempt of this delete failed (${ctx.ambiguous}) after it may have reached ${this.platformName}; ` +
          `sent again, it was answered 404 (not found), so the earlier attempt most likely deleted ${target}. ` +
          'Nothing is left to delete. If the ID may have been wrong, a list tool shows what exists.';
        this.logger.info({ request_id: ctx.requestId, platform: this.platformName, method, path, attempt }, 'delete resent after an ambiguous failure found the resource gone; reporting success');
        return {
          status,
          headers: response.headers,
          data: redact({ success: true, already_deleted: true, note }, ctx.secrets) as T,
          alreadyApplied: true,
          note: redact(note, ctx.secrets) as string,
        };
      }

      if (RETRYABLE_STATUSES.has(status) && ctx.resendable && retriesLeft) {
        ctx.ambiguous = `HTTP ${status}`;
        await this.pause(this.backoffMs(attempt), ctx, attempt, `HTTP ${status}`);
        continue;
      }
      throw this.httpFailure(response, text, ctx, attempt, undefined);
    }
  }

  /** How a failed attempt ended, for notes: `no answer within 300 ms`, `ECONNRESET`. */
  private failureText(outcome: Extract<AttemptOutcome, { type: 'failure' }>): string {
    if (outcome.kind === 'timeout') return `no answer within ${this.timeoutMs} ms`;
    const reason = outcome.code ? `${NETWORK_CODE_TEXT[outcome.code] ?? 'the connection failed'} (${outcome.code})` : 'the connection failed';
    return outcome.status !== undefined ? `HTTP ${outcome.status}, then ${reason} while reading the answer` : reason;
  }

  /**
   * The wait a 429 asks for, in ms: the platform's reset time when it gives one of at least a
   * second; otherwise a backoff that starts at `minBackoffMs` (≥ 1 s) and doubles while 429s
   * keep coming for requests sent after the previous wait ended (one burst counts once).
   */
  private rateLimitWait(response: AnswerHead, sentAt: number, hold: RateLimitHold): number {
    const seconds = this.readRetryAfter(response);
    if (seconds !== undefined && seconds >= 1) return seconds * 1000;
    if (hold.level < 0) hold.level = 0;
    else if (sentAt >= hold.windowEnd) hold.level = Math.min(hold.level + 1, 30);
    const waitMs = Math.min(this.rateLimitMaxBackoffMs, this.rateLimitMinBackoffMs * 2 ** hold.level);
    hold.windowEnd = Math.max(hold.windowEnd, this.now().getTime() + waitMs);
    return waitMs;
  }

  /** The identity's 429 state, created on its first 429 (sweeping passed holds first when there are many). */
  private holdOf(holder: string): RateLimitHold {
    let hold = this.holds.get(holder);
    if (hold) return hold;
    if (this.holds.size >= HOLDS_SWEPT_AT) {
      const now = this.now().getTime();
      for (const [key, entry] of this.holds) if (entry.notBefore <= now && entry.windowEnd <= now) this.holds.delete(key);
      // Still full of live holds: the oldest go.
      for (const key of this.holds.keys()) {
        if (this.holds.size < MAX_HOLDS) break;
        this.holds.delete(key);
      }
    }
    hold = { notBefore: 0, level: -1, windowEnd: Number.NEGATIVE_INFINITY };
    this.holds.set(holder, hold);
    return hold;
  }

  /** An answer that is no 429: the doubling starts over, and a hold that has passed is forgotten. */
  private settleHold(holder: string): void {
    const hold = this.holds.get(holder);
    if (!hold) return;
    if (hold.notBefore <= this.now().getTime()) this.holds.delete(holder);
    else hold.level = -1;
  }

  /**
   * One attempt in its turn: waits for a slot (FIFO), then for the end of any rate-limit wait of
   * this client, then sends. The slot is held from sending until the answer is read.
   */
  private async attemptInTurn(
    url: string,
    init: SendInit,
    ctx: RequestContext,
    attempt: number,
    waitedUntil: number | undefined,
  ): Promise<AttemptOutcome> {
    const signal = ctx.req.signal;
    let release: () => void;
    try {
      release = await this.limiter.acquire(signal);
    } catch (error) {
      if (signal?.aborted) return { type: 'failure', kind: 'cancelled', neverSent: true };
      throw error;
    }
    try {
      await this.waitForRateLimit(ctx, attempt, waitedUntil);
      return await this.attempt(url, init, ctx, attempt);
    } finally {
      release();
    }
  }

  /** Holds a request back while a 429 for its identity says to; past `maxWaitMs` it fails without sending. */
  private async waitForRateLimit(ctx: RequestContext, attempt: number, waitedUntil: number | undefined): Promise<void> {
    let seen = waitedUntil ?? Number.NEGATIVE_INFINITY;
    for (;;) {
      const until = Math.max(this.holds.get(ctx.holder)?.notBefore ?? 0, this.options.sharedRateLimit?.notBefore() ?? 0);
      if (until <= seen) return;
      const waitMs = until - this.now().getTime();
      if (waitMs <= 0) return;
      if (waitMs > this.maxRateLimitWaitMs) {
        const wait = Math.max(1, Math.ceil(waitMs / 1000));
        throw this.failure('rate_limited', ctx, attempt - 1, {
          retryAfterSeconds: wait,
          overrideMessage: `${this.platformName} is rate limiting this server (an earlier request was answered HTTP 429); requests are allowed again in ${seconds(wait)}. This request was not sent.`,
        });
      }
      seen = until;
      this.logger.debug(
        { request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, delayMs: waitMs },
        'holding the request back: the platform asked to slow down',
      );
      this.reportRateLimitWait(waitMs);
      await this.pause(waitMs, ctx, attempt - 1, undefined);
    }
  }

  private reportRateLimitWait(waitMs: number): void {
    if (upstreamObservers.length > 0) report((observer) => observer.onRateLimitWait?.({ platform: this.platformName, seconds: waitMs / 1000 }));
  }

  private reportAnswer(method: HttpMethod, started: number, status: number | undefined, failure: string | undefined): void {
    const event: UpstreamAnswerEvent = { platform: this.platformName, method, seconds: (performance.now() - started) / 1000 };
    if (status !== undefined) event.status = status;
    if (failure !== undefined) event.failure = failure;
    report((observer) => observer.onUpstreamAnswer?.(event));
  }

  private async readAuthorization(): Promise<string> {
    let value: string | undefined;
    try {
      value = await this.options.authorization();
    } catch (error) {
      if (error instanceof ToolError) throw error;
      value = undefined;
    }
    if (typeof value !== 'string' || value.trim() === '') {
      throw new ToolError({
        kind: 'not_configured',
        message:
          this.options.missingCredentialsMessage ??
          `No ${this.platformName} credentials are configured; nothing was sent.`,
        nextStep:
          this.options.missingCredentialsNextStep ?? `Configure a ${this.platformName} API token and restart the server.`,
      });
    }
    return value;
  }

  /**
   * The headers of one request as a plain object with lower-case names (the default headers were
   * checked once at construction); a name or value the runtime would refuse is reported without
   * quoting it, and nothing is sent.
   */
  private buildHeaders(req: UpstreamRequest, authorization: string, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { ...this.checkedDefaultHeaders() };
    if (hasBody && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    if (req.headers) for (const [name, value] of Object.entries(req.headers)) headers[this.checkedHeaderName(name, value, 'request')] = value;
    if (!validHeaderValue(authorization)) throw this.invalidHeader('authorization', 'authorization');
    headers.authorization = authorization;
    return headers;
  }

  /** The client's default headers, checked on first use (as before: a bad one fails the request, not the start). */
  private checkedDefaultHeaders(): Record<string, string> {
    if (this.defaultHeaders) return this.defaultHeaders;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.options.defaultHeaders ?? {})) headers[this.checkedHeaderName(name, value, 'default')] = value;
    this.defaultHeaders = headers;
    return headers;
  }

  private checkedHeaderName(name: string, value: string, what: 'default' | 'request'): string {
    if (!HEADER_NAME.test(name) || typeof value !== 'string' || !validHeaderValue(value)) throw this.invalidHeader(name, what);
    return name.toLowerCase();
  }

  private invalidHeader(name: string, what: 'default' | 'request' | 'authorization'): ToolError {
    // Never quote the value: it may be a credential.
    return new ToolError({
      kind: what === 'authorization' ? 'not_configured' : 'invalid_input',
      message:
        what === 'authorization'
          ? `The configured ${this.platformName} credentials are not a valid HTTP header value; nothing was sent.`
          : `Header ${name} has an invalid name or value; nothing was sent.`,
      nextStep:
        what === 'authorization'
          ? this.options.missingCredentialsNextStep ?? `Configure a valid ${this.platformName} API token.`
          : 'Remove control characters from the header and retry.',
    });
  }

  /**
   * One attempt: one AbortController and one timer (cleared when the attempt ends, whatever the
   * outcome), the caller's signal forwarded into it; nothing outlives the attempt.
   */
  private async attempt(url: string, init: SendInit, ctx: RequestContext, attempt: number): Promise<AttemptOutcome> {
    const callerSignal = ctx.req.signal;
    const controller = new AbortController();
    const signal = controller.signal;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException(`no answer within ${this.timeoutMs} ms`, 'TimeoutError'));
    }, this.timeoutMs);
    const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
    if (callerSignal) {
      if (callerSignal.aborted) onCallerAbort();
      else callerSignal.addEventListener('abort', onCallerAbort, { once: true });
    }
    const debug = debugEnabled(this.logger);
    const observed = upstreamObservers.length > 0;
    const started = debug || observed ? performance.now() : 0;
    const sentAt = this.now().getTime();

    const fail = (error: unknown, phase: 'connect' | 'body', status?: number): AttemptOutcome => {
      let outcome: Extract<AttemptOutcome, { type: 'failure' }>;
      if (callerSignal?.aborted) outcome = { type: 'failure', kind: 'cancelled', neverSent: false };
      else if (timedOut) outcome = { type: 'failure', kind: 'timeout', neverSent: false };
      else {
        const code = networkErrorCode(error);
        outcome = {
          type: 'failure',
          kind: 'network_error',
          code,
          neverSent: phase === 'connect' && code !== undefined && NEVER_SENT_CODES.has(code),
        };
      }
      if (status !== undefined) outcome.status = status;
      if (observed) this.reportAnswer(ctx.req.method, started, status, outcome.kind === 'network_error' ? outcome.code ?? 'network_error' : outcome.kind);
      if (debug) {
        const durationMs = Math.round(performance.now() - started);
        this.logger.debug({ request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, durationMs, status, error: outcome.code ?? outcome.kind }, 'upstream request failed');
      }
      return outcome;
    };

    try {
      let response: SentAnswer;
      try {
        response = await this.send(url, init, signal);
      } catch (error) {
        return fail(error, 'connect');
      }
      const ok = response.status >= 200 && response.status < 300;
      const limit = ok ? this.maxResponseBytes : Math.min(this.maxResponseBytes, ERROR_BODY_LIMIT_BYTES);
      const lengthHeader = response.headers.get('content-length');
      const declared = lengthHeader !== null && /^\s*\d+\s*$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
      if (ok && declared !== undefined && declared > limit) {
        response.discard();
        if (observed) this.reportAnswer(ctx.req.method, started, response.status, undefined);
        if (debug) this.logger.debug({ request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, status: response.status, declared, limit }, 'upstream answer larger than the limit; not read');
        return { type: 'too_large', response, limit, declared };
      }
      let read: CappedBody;
      try {
        read = await response.read(limit, !ok);
        if (signal.aborted) throw signal.reason;
      } catch (error) {
        return fail(error, 'body', response.status);
      }
      if (read.overflow && ok) {
        if (observed) this.reportAnswer(ctx.req.method, started, response.status, undefined);
        if (debug) this.logger.debug({ request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, status: response.status, limit }, 'upstream answer larger than the limit; abandoned');
        return { type: 'too_large', response, limit };
      }
      const text = utf8.decode(read.bytes);
      if (observed) this.reportAnswer(ctx.req.method, started, response.status, undefined);
      if (debug) {
        this.logger.debug(
          { request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, status: response.status, durationMs: Math.round(performance.now() - started) },
          'upstream request',
        );
      }
      return { type: 'response', response, text, sentAt };
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private backoffMs(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
    const jitter = Math.min(Math.max(this.random(), 0), 1);
    return Math.floor(jitter * ceiling);
  }

  /** Sleeps, but ends at once (as `cancelled`) when the caller aborts. */
  private async pause(ms: number, ctx: RequestContext, attempt: number, reason: string | undefined): Promise<void> {
    const signal = ctx.req.signal;
    if (reason !== undefined) {
      this.logger.debug(
        { request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, delayMs: ms, reason },
        'retrying upstream request after backoff',
      );
    }
    if (signal?.aborted) throw this.failure('cancelled', ctx, attempt, {});
    try {
      await raceAbort(this.sleepImpl(ms, signal), signal);
    } catch (error) {
      if (signal?.aborted) throw this.failure('cancelled', ctx, attempt, {});
      throw error;
    }
  }

  private readRetryAfter(response: AnswerHead): number | undefined {
    let seconds: number | undefined;
    try {
      seconds = (this.options.retryAfterSeconds ?? defaultRetryAfterSeconds)(response, this.now());
    } catch {
      seconds = undefined;
    }
    if (seconds === undefined || !Number.isFinite(seconds)) return undefined;
    return Math.max(0, Math.ceil(seconds));
  }

  /** `the POST request (create)`: how messages name the operation. */
  private operation(ctx: RequestContext): string {
    return ctx.effect ? `${ctx.req.method} request (${ctx.effect})` : `${ctx.req.method} request`;
  }

  private parseSuccess(response: AnswerHead, text: string, ctx: RequestContext, attempt: number): unknown {
    if (response.status === 204 || response.status === 205 || text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      const contentType = response.headers.get('content-type');
      const declared = isJsonContentType(contentType) ? 'declared as JSON but is invalid' : 'not JSON';
      const changed = ctx.effect !== 'read';
      throw this.failure('upstream_error', ctx, attempt, {
        status: response.status,
        platformMessage: snippet(text),
        overrideMessage:
          `${this.platformName} answered HTTP ${response.status} but the body is ${declared}.` +
          (changed ? ` The ${this.operation(ctx)} was carried out (the status says so); only its answer is unreadable.` : ''),
        ...(changed ? { overrideNextStep: 'Do not repeat it; check the result with a get or list tool.' } : {}),
        mayHaveHappened: changed,
      });
    }
  }

  private tooLarge(outcome: Extract<AttemptOutcome, { type: 'too_large' }>, ctx: RequestContext, attempt: number): ToolError {
    const status = outcome.response.status;
    const changed = ctx.effect !== 'read';
    const size = outcome.declared !== undefined ? `it announced ${formatBytes(outcome.declared)} bytes` : 'it went on past that';
    // No `status` on purpose: nothing is wrong with the answer's shape, only its size, and
    // handlers treat a 2xx upstream_error as "the platform answered something unreadable".
    return this.failure('upstream_error', ctx, attempt, {
      overrideMessage:
        `${this.platformName} answered HTTP ${status} with a body larger than ${formatBytes(outcome.limit)} bytes, the most this server reads (${size}); the answer was abandoned.` +
        (changed ? ` The ${this.operation(ctx)} itself was carried out (HTTP ${status}); only its answer was too large.` : ''),
      overrideNextStep: changed
        ? 'Do not repeat it; check the result with a get or list tool that returns less.'
        : `Narrow the request: a smaller page size or limit, tighter filters or a shorter time range, or one item at a time. (Operators can change the limit with ${UPSTREAM_ENV.maxResponseBytes}.)`,
      mayHaveHappened: changed,
    });
  }

  private httpFailure(
    response: AnswerHead,
    text: string,
    ctx: RequestContext,
    attempt: number,
    retryAfterSeconds: number | undefined,
  ): ToolError {
    const status = response.status;
    let body: unknown;
    let isJson = false;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text) as unknown;
        isJson = true;
      } catch {
        body = text;
      }
    }
    let info: PlatformErrorInfo = {};
    try {
      info = (this.options.parseError ?? defaultParseError)(status, body, response.headers) ?? {};
    } catch (error) {
      this.logger.warn({ request_id: ctx.requestId, platform: this.platformName, status, error: String(error) }, 'parseError hook failed');
    }
    const platformMessage = info.message ?? (isJson ? undefined : snippet(text));

    let kind: ToolErrorKind;
    if (status === 401) kind = 'unauthorized';
    else if (status === 403) kind = 'forbidden';
    else if (status === 404) kind = 'not_found';
    else if (status === 429) kind = 'rate_limited';
    else if (status >= 400 && status < 500) kind = 'bad_request';
    else kind = 'upstream_error';

    // A 5xx (or any unexpected answer) may come after the platform carried the request out.
    const mayHaveHappened = ctx.ambiguous !== undefined || kind === 'upstream_error';
    return this.failure(kind, ctx, attempt, {
      status,
      platformCode: info.code,
      platformMessage,
      platformDetails: info.details,
      retryAfterSeconds,
      mayHaveHappened,
    });
  }

  private defaultDescription(
    kind: ToolErrorKind,
    ctx: RequestContext,
    attempts: number,
    extra: FailureExtra,
    mayHaveHappened: boolean,
    outcome?: { code?: string; neverSent: boolean },
  ): { message: string; nextStep: string } {
    const P = this.platformName;
    const { resourceLabel } = ctx.req;
    const said = extra.platformMessage ? ` ${P} said: ${extra.platformMessage}` : '';
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    const op = this.operation(ctx);
    const changes = ctx.effect !== 'read';
    const status = extra.status;
    // What the agent needs to know when it may have happened, and what to do about it.
    let happened = '';
    let whatNext: string | undefined;
    if (mayHaveHappened && changes) {
      if (ctx.resendable) {
        happened = ` The ${op} may have been carried out.`;
        whatNext =
          `It is safe to call again (doing it twice has the same result as once)${ctx.effect === 'delete' ? '; if it then reports "not found", the earlier attempt deleted it' : ''}; wait a little first.`;
      } else {
        happened =
          status !== undefined && kind === 'upstream_error'
            ? ` ${P} received the ${op}, so it may have been carried out despite the error; it was not sent again, so that it cannot happen twice.`
            : ` The ${op} may have reached ${P} and been carried out; it was not sent again, so that it cannot happen twice.`;
        whatNext = `The ${op} may or may not have been applied; check the current state (for example with a get or list tool) before repeating it, to avoid ${ctx.effect === 'create' || ctx.effect === undefined ? 'duplicating data' : 'doing it twice'}.`;
      }
    }
    switch (kind) {
      case 'unauthorized':
        return {
          message: `${P} rejected the credentials (HTTP 401): the API token is invalid, expired or revoked.${said}`,
          nextStep: `Re-authenticate or set a new, valid ${P} API token, then call the tool again.`,
        };
      case 'forbidden':
        return {
          message: extra.platformMessage
            ? `${P} refused access (HTTP 403): ${extra.platformMessage}`
            : `${P} refused access (HTTP 403): the token lacks permission for this operation.`,
          nextStep: `Use a token (or account role/scope) with the access this operation needs, or ask a ${P} administrator to grant it. Repeating with the same token will fail again.`,
        };
      case 'not_found':
        return {
          message: `${resourceLabel ?? `The resource at ${ctx.path}`} was not found on ${P} (HTTP 404).${said}`,
          nextStep: 'Check the ID: it may be mistyped, deleted, or not visible to this token. Use a list or search tool to find valid IDs.',
        };
      case 'rate_limited':
        return {
          message: `${P} rate limit reached (HTTP 429)${extra.retryAfterSeconds !== undefined ? `; requests are allowed again in ${seconds(extra.retryAfterSeconds)}` : ''}. The request was not carried out.${said}`,
          nextStep:
            extra.retryAfterSeconds !== undefined
              ? `Wait ${seconds(extra.retryAfterSeconds)} and retry.`
              : 'Wait about a minute and retry, and make fewer calls in the meantime.',
        };
      case 'bad_request':
        return {
          message: `${P} rejected the request (HTTP ${status ?? '4xx'}).${said}`,
          nextStep: 'Fix the request according to the platform message and details, then retry; repeating it unchanged will fail again.',
        };
      case 'upstream_error':
        return {
          message:
            (status !== undefined && (status < 200 || status >= 300) && status < 500 && status !== 429
              ? `${P} answered with unexpected HTTP ${status}.${said}`
              : `${P} failed with HTTP ${status ?? '5xx'}${tries}.${said}`) + happened,
          nextStep: whatNext ?? `This is a problem on the ${P} side; wait a little and retry.`,
        };
      case 'timeout':
        return {
          message: `${P} did not answer within ${this.timeoutMs} ms${tries}.${happened}`,
          nextStep: whatNext ?? `${P} is slow or unreachable; retry later.`,
        };
      case 'network_error': {
        const code = outcome?.code;
        const reason = code ? `${NETWORK_CODE_TEXT[code] ?? 'the connection failed'} (${code})` : 'the connection failed';
        const answered = status !== undefined ? ` after ${P} answered HTTP ${status}` : '';
        const nothing = outcome?.neverSent && !mayHaveHappened ? ` Nothing reached ${P}, so nothing was changed.` : '';
        return {
          message: `Could not complete the request to ${P}: ${reason}${answered}${tries}.${nothing}${happened}`,
          nextStep:
            whatNext ??
            (outcome?.neverSent
              ? `Check that the ${P} base URL is correct and the service is reachable, then retry.`
              : `${P} could not be reached reliably; retry later.`),
        };
      }
      case 'cancelled':
        return {
          message: `The request to ${P} was cancelled by the client${attempts > 0 ? '' : ' before anything was sent'}.${happened}`,
          nextStep: whatNext ?? 'Nothing to do; call the tool again if the result is still needed.',
        };
      default:
        return { message: `The request to ${P} failed.`, nextStep: 'Retry later.' };
    }
  }

  private failure(
    kind: ToolErrorKind,
    ctx: RequestContext,
    attempts: number,
    extra: FailureExtra,
    outcome?: { code?: string; neverSent: boolean },
  ): ToolError {
    const mayHaveHappened = extra.mayHaveHappened ?? ctx.ambiguous !== undefined;
    const defaults = this.defaultDescription(kind, ctx, attempts, extra, mayHaveHappened, outcome);
    let message = extra.overrideMessage ?? defaults.message;
    let nextStep = extra.overrideNextStep ?? defaults.nextStep;
    const { req } = ctx;
    if (this.options.describeError) {
      try {
        const custom = this.options.describeError({
          kind,
          platformName: this.platformName,
          method: req.method,
          ...(ctx.effect ? { effect: ctx.effect } : {}),
          pathTemplate: req.path,
          path: ctx.path,
          pathParams: req.pathParams,
          resourceLabel: req.resourceLabel,
          status: extra.status,
          platformCode: extra.platformCode,
          platformMessage: extra.platformMessage,
          platformDetails: extra.platformDetails,
          retryAfterSeconds: extra.retryAfterSeconds,
          attempts,
          mayHaveHappened,
          defaultMessage: message,
          defaultNextStep: nextStep,
        });
        if (custom?.message) message = custom.message;
        if (custom?.nextStep) nextStep = custom.nextStep;
      } catch (error) {
        this.logger.warn({ request_id: ctx.requestId, platform: this.platformName, kind, error: String(error) }, 'describeError hook failed');
      }
    }
    const details: ToolErrorDetails = { kind, message, nextStep };
    if (extra.status !== undefined) details.status = extra.status;
    if (extra.platformCode !== undefined) details.platformCode = extra.platformCode;
    if (extra.platformMessage !== undefined) details.platformMessage = extra.platformMessage;
    if (extra.platformDetails !== undefined) details.platformDetails = extra.platformDetails;
    if (extra.retryAfterSeconds !== undefined) details.retryAfterSeconds = extra.retryAfterSeconds;
    return new ToolError(redact(details, ctx.secrets) as ToolErrorDetails);
  }
}

let lastSecrets: { authorization: string; secrets: readonly string[] } | undefined;

/** The Authorization value and its token-looking parts (e.g. after `Bearer ` or `token=`). */
function secretsOf(authorization: string): string[] {
  if (lastSecrets?.authorization === authorization) return [...lastSecrets.secrets];
  const secrets = splitSecrets(authorization);
  lastSecrets = { authorization, secrets };
  return [...secrets];
}

function splitSecrets(authorization: string): string[] {
  const parts = authorization.split(/[\s=,"]+/).filter((part) => part.length >= 8);
  return [authorization, ...parts].sort((a, b) => b.length - a.length);
}

/** Defence in depth: a platform that echoes the token in its error body must not leak it. */
function redact(value: unknown, secrets: readonly string[], depth = 0): unknown {
  if (secrets.length === 0 || depth > 20) return value;
  if (typeof value === 'string') {
    let out = value;
    for (const secret of secrets) if (secret && out.includes(secret)) out = out.split(secret).join('[redacted]');
    return out;
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, secrets, depth + 1));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = redact(item, secrets, depth + 1);
    return out;
  }
  return value;
}
