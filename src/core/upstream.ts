/**
 * Platform-neutral HTTP client for the upstream SaaS APIs.
 *
 * It knows neither platform: base URL, credentials, rate-limit headers and error bodies
 * come in as options. Every failure leaves as a ToolError.
 *
 * Data safety first: a request that may have reached the server is never repeated unless
 * its method is idempotent. POST and PATCH are repeated only when the platform provably
 * did not process them (HTTP 429, or a connection that was never established).
 */

import { setTimeout as sleepFor } from 'node:timers/promises';
import { isRecord } from './json.js';
import { ToolError, type ToolErrorDetails, type ToolErrorKind } from './errors.js';
import { silentLogger, type Logger } from './logger.js';

export type HttpMethod = 'GET' | 'HEAD' | 'OPTIONS' | 'PUT' | 'DELETE' | 'POST' | 'PATCH';

const HTTP_METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'POST', 'PATCH'];
const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set<HttpMethod>(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
/** 5xx answers worth repeating (for idempotent methods only). 501 means "never will work". */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);
/** Connection-level failures where the request provably never reached the server. */
const NEVER_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

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
}

export interface UpstreamResponse<T> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for 204 / an empty body. */
  data: T;
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
  /** Longest rate-limit wait the client sits out by itself (default 10000 ms). */
  maxWaitMs?: number;
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
  /** Per attempt (default 30000). */
  timeoutMs?: number;
  /** When given, every other method is refused before anything is sent. */
  allowedMethods?: readonly HttpMethod[];
  retry?: RetryOptions;
  rateLimit?: RateLimitOptions;
  /** Seconds until a 429 may be retried; default reads `Retry-After`. */
  retryAfterSeconds?: (response: Response, now: Date) => number | undefined;
  /** Reads the platform's error body (JSON when it parsed, else the raw text). */
  parseError?: (status: number, body: unknown, headers: Headers) => PlatformErrorInfo;
  /** Overrides the message / next step of an error. */
  describeError?: (ctx: ErrorDescriptionContext) => ErrorDescription | undefined;
  logger?: Logger;
  fetch?: typeof fetch;
  sleep?: SleepFn;
  now?: () => Date;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
}

export function isIdempotent(method: HttpMethod): boolean {
  return IDEMPOTENT_METHODS.has(method);
}

const PLACEHOLDER = /\{([^{}]+)\}/g;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Substitutes `{name}` placeholders with percent-encoded values. Every character that could
 * change the path (`/`, `?`, `#`, `%`) is encoded, and a value forming a `.`/`..` segment is refused.
 */
export function buildPath(template: string, params: Record<string, string | number> = {}): string {
  const segments = template.split('/').map((segment) => {
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
export function defaultRetryAfterSeconds(response: Response, now: Date): number | undefined {
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

/** Settles with the promise, or rejects as soon as the signal aborts (even if the promise ignores it). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) {
      promise.catch(() => undefined);
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
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

type AttemptOutcome =
  | { type: 'response'; response: Response; text: string }
  | { type: 'failure'; kind: 'cancelled' | 'timeout' | 'network_error'; code?: string; neverSent: boolean };

interface RequestContext {
  req: UpstreamRequest;
  path: string;
  secrets: string[];
}

export class UpstreamClient {
  private readonly baseUrl: string;
  private readonly platformName: string;
  private readonly options: UpstreamClientOptions;
  private readonly fetchImpl: typeof fetch;
  private readonly sleepImpl: SleepFn;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRateLimitWaitMs: number;

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
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.sleepImpl = options.sleep ?? defaultSleep;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? silentLogger;
    this.timeoutMs = positive(options.timeoutMs, 30_000) || 30_000;
    this.maxRetries = Math.floor(positive(options.retry?.maxRetries, 2));
    this.baseDelayMs = positive(options.retry?.baseDelayMs, 250);
    this.maxDelayMs = positive(options.retry?.maxDelayMs, 2000);
    this.maxRateLimitWaitMs = positive(options.rateLimit?.maxWaitMs, 10_000);
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
        body = JSON.stringify(req.body);
      } catch {
        throw ToolError.invalidParameter('body', 'cannot be serialised as JSON');
      }
    }

    const ctx: RequestContext = { req, path, secrets: [] };
    if (req.signal?.aborted) throw this.failure('cancelled', ctx, 0, {});

    let authorization = await this.readAuthorization();
    ctx.secrets = secretsOf(authorization);
    if (req.signal?.aborted) throw this.failure('cancelled', ctx, 0, {});
    let headers = this.buildHeaders(req, authorization, body !== undefined);
    let refreshed = false;

    const idempotent = isIdempotent(method);
    for (let attempt = 1; ; attempt += 1) {
      const retriesLeft = attempt <= this.maxRetries;
      const outcome = await this.attempt(url, { method, headers, body, redirect: 'manual' }, ctx, attempt);

      if (outcome.type === 'failure') {
        if (outcome.kind === 'cancelled') throw this.failure('cancelled', ctx, attempt, {});
        if ((idempotent || outcome.neverSent) && retriesLeft) {
          await this.pause(this.backoffMs(attempt), ctx, attempt, `${outcome.code ?? outcome.kind}`);
          continue;
        }
        throw this.failure(outcome.kind, ctx, attempt, {}, outcome);
      }

      const { response, text } = outcome;
      const status = response.status;
      if (status >= 200 && status < 300) {
        return { status, headers: response.headers, data: this.parseSuccess(response, text, ctx, attempt) as T };
      }

      if (status === 401 && !refreshed && this.options.refreshAuthorization) {
        refreshed = true;
        let renewed = false;
        try {
          renewed = await this.options.refreshAuthorization();
        } catch (error) {
          this.logger.warn({ platform: this.platformName, err: error instanceof Error ? error.message : String(error) }, 'credential refresh failed');
        }
        if (renewed) {
          authorization = await this.readAuthorization();
          ctx.secrets = [...ctx.secrets, ...secretsOf(authorization)];
          headers = this.buildHeaders(req, authorization, body !== undefined);
          this.logger.info({ platform: this.platformName, method, path }, 'credentials refreshed after a 401; sending once more');
          attempt -= 1; // the refresh does not consume the retry budget
          continue;
        }
      }

      if (status === 429) {
        const retryAfter = this.readRetryAfter(response);
        const waitMs = retryAfter === undefined ? undefined : retryAfter * 1000;
        if (waitMs !== undefined && waitMs <= this.maxRateLimitWaitMs && retriesLeft) {
          this.logger.warn(
            { platform: this.platformName, method, path, attempt, waitMs },
            `${this.platformName} rate limit reached; waiting before retrying`,
          );
          await this.pause(waitMs, ctx, attempt, undefined);
          continue;
        }
        throw this.httpFailure(response, text, ctx, attempt, retryAfter);
      }

      if (RETRYABLE_STATUSES.has(status) && idempotent && retriesLeft) {
        await this.pause(this.backoffMs(attempt), ctx, attempt, `HTTP ${status}`);
        continue;
      }
      throw this.httpFailure(response, text, ctx, attempt, undefined);
    }
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

  private buildHeaders(req: UpstreamRequest, authorization: string, hasBody: boolean): Headers {
    const headers = new Headers();
    const apply = (name: string, value: string, what: string): void => {
      try {
        headers.set(name, value);
      } catch {
        // The runtime's message may quote the value; never pass it on.
        throw new ToolError({
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
    };
    for (const [name, value] of Object.entries(this.options.defaultHeaders ?? {})) apply(name, value, 'default');
    if (hasBody && !headers.has('content-type')) headers.set('content-type', 'application/json');
    for (const [name, value] of Object.entries(req.headers ?? {})) apply(name, value, 'request');
    apply('authorization', authorization, 'authorization');
    return headers;
  }

  private async attempt(url: string, init: RequestInit, ctx: RequestContext, attempt: number): Promise<AttemptOutcome> {
    const callerSignal = ctx.req.signal;
    const timeoutSignal = AbortSignal.timeout(this.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeoutSignal]) : timeoutSignal;
    const started = performance.now();
    const logBase = { platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt };

    const fail = (error: unknown, phase: 'connect' | 'body'): AttemptOutcome => {
      const durationMs = Math.round(performance.now() - started);
      let outcome: AttemptOutcome;
      if (callerSignal?.aborted) outcome = { type: 'failure', kind: 'cancelled', neverSent: false };
      else if (timeoutSignal.aborted) outcome = { type: 'failure', kind: 'timeout', neverSent: false };
      else {
        const code = networkErrorCode(error);
        outcome = {
          type: 'failure',
          kind: 'network_error',
          code,
          neverSent: phase === 'connect' && code !== undefined && NEVER_SENT_CODES.has(code),
        };
      }
      this.logger.debug(
        { ...logBase, durationMs, error: outcome.type === 'failure' ? (outcome.code ?? outcome.kind) : undefined },
        'upstream request failed',
      );
      return outcome;
    };

    let response: Response;
    try {
      response = await raceAbort(this.fetchImpl(url, { ...init, signal }), signal);
    } catch (error) {
      return fail(error, 'connect');
    }
    let text: string;
    try {
      text = await raceAbort(response.text(), signal);
    } catch (error) {
      return fail(error, 'body');
    }
    this.logger.debug(
      { ...logBase, status: response.status, durationMs: Math.round(performance.now() - started) },
      'upstream request',
    );
    return { type: 'response', response, text };
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
        { platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, delayMs: ms, reason },
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

  private readRetryAfter(response: Response): number | undefined {
    let seconds: number | undefined;
    try {
      seconds = (this.options.retryAfterSeconds ?? defaultRetryAfterSeconds)(response, this.now());
    } catch {
      seconds = undefined;
    }
    if (seconds === undefined || !Number.isFinite(seconds)) return undefined;
    return Math.max(0, Math.ceil(seconds));
  }

  private parseSuccess(response: Response, text: string, ctx: RequestContext, attempt: number): unknown {
    if (response.status === 204 || response.status === 205 || text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      const contentType = response.headers.get('content-type');
      const declared = isJsonContentType(contentType) ? 'declared as JSON but is invalid' : 'not JSON';
      throw this.failure('upstream_error', ctx, attempt, {
        status: response.status,
        platformMessage: snippet(text),
        overrideMessage: `${this.platformName} answered HTTP ${response.status} but the body is ${declared}.`,
      });
    }
  }

  private httpFailure(
    response: Response,
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
      this.logger.warn({ platform: this.platformName, status, error: String(error) }, 'parseError hook failed');
    }
    const platformMessage = info.message ?? (isJson ? undefined : snippet(text));

    let kind: ToolErrorKind;
    if (status === 401) kind = 'unauthorized';
    else if (status === 403) kind = 'forbidden';
    else if (status === 404) kind = 'not_found';
    else if (status === 429) kind = 'rate_limited';
    else if (status >= 400 && status < 500) kind = 'bad_request';
    else kind = 'upstream_error';

    return this.failure(kind, ctx, attempt, {
      status,
      platformCode: info.code,
      platformMessage,
      platformDetails: info.details,
      retryAfterSeconds,
    });
  }

  private defaultDescription(
    kind: ToolErrorKind,
    ctx: RequestContext,
    attempts: number,
    extra: { status?: number; platformMessage?: string; retryAfterSeconds?: number },
    outcome?: { code?: string; neverSent: boolean },
  ): { message: string; nextStep: string } {
    const P = this.platformName;
    const { method, resourceLabel } = ctx.req;
    const said = extra.platformMessage ? ` ${P} said: ${extra.platformMessage}` : '';
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    const mayHaveApplied = `The ${method} request may or may not have been applied; check the current state (for example with a get or list tool) before repeating it, to avoid duplicating data.`;
    const status = extra.status;
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
          message: `${P} rate limit reached (HTTP 429)${extra.retryAfterSeconds !== undefined ? `; requests are allowed again in ${extra.retryAfterSeconds} seconds` : ''}.${said}`,
          nextStep:
            extra.retryAfterSeconds !== undefined
              ? `Wait ${extra.retryAfterSeconds} seconds and retry.`
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
            status !== undefined && (status < 200 || status >= 300) && status < 500 && status !== 429
              ? `${P} answered with unexpected HTTP ${status}.${said}`
              : `${P} failed with HTTP ${status ?? '5xx'}${tries}.${said}`,
          nextStep: isIdempotent(method)
            ? `This is a problem on the ${P} side; wait a little and retry.`
            : mayHaveApplied,
        };
      case 'timeout':
        return {
          message: `${P} did not answer within ${this.timeoutMs} ms${tries}.`,
          nextStep: isIdempotent(method) ? `${P} is slow or unreachable; retry later.` : mayHaveApplied,
        };
      case 'network_error': {
        const code = outcome?.code;
        const reason = code ? `${NETWORK_CODE_TEXT[code] ?? 'the connection failed'} (${code})` : 'the connection failed';
        return {
          message: `Could not complete the request to ${P}: ${reason}${tries}.`,
          nextStep: outcome?.neverSent
            ? `Check that the ${P} base URL is correct and the service is reachable, then retry.`
            : isIdempotent(method)
              ? `${P} could not be reached reliably; retry later.`
              : mayHaveApplied,
        };
      }
      case 'cancelled':
        return {
          message: `The request to ${P} was cancelled by the client${attempts > 0 ? '' : ' before anything was sent'}.`,
          nextStep:
            isIdempotent(method) || attempts === 0
              ? 'Nothing to do; call the tool again if the result is still needed.'
              : mayHaveApplied,
        };
      default:
        return { message: `The request to ${P} failed.`, nextStep: 'Retry later.' };
    }
  }

  private failure(
    kind: ToolErrorKind,
    ctx: RequestContext,
    attempts: number,
    extra: {
      status?: number;
      platformCode?: string | number;
      platformMessage?: string;
      platformDetails?: unknown;
      retryAfterSeconds?: number;
      overrideMessage?: string;
    },
    outcome?: { code?: string; neverSent: boolean },
  ): ToolError {
    const defaults = this.defaultDescription(kind, ctx, attempts, extra, outcome);
    let message = extra.overrideMessage ?? defaults.message;
    let nextStep = defaults.nextStep;
    const { req } = ctx;
    if (this.options.describeError) {
      try {
        const custom = this.options.describeError({
          kind,
          platformName: this.platformName,
          method: req.method,
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
          defaultMessage: message,
          defaultNextStep: nextStep,
        });
        if (custom?.message) message = custom.message;
        if (custom?.nextStep) nextStep = custom.nextStep;
      } catch (error) {
        this.logger.warn({ platform: this.platformName, kind, error: String(error) }, 'describeError hook failed');
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

/** The Authorization value and its token-looking parts (e.g. after `Bearer ` or `token=`). */
function secretsOf(authorization: string): string[] {
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
