/**
 * Platform-neutral HTTP client for the upstream SaaS APIs.
 *
 * It knows neither platform: base URL, credentials, rate-limit headers and error bodies
 * come in as options. Every failure leaves as a ToolError. This file runs a call through its
 * attempts; each rule is its own small piece beside it:
 *
 * - which requests may be sent again, and after what: resend-rules.ts (by the operation's
 *   effect, not its HTTP method: nothing lost, nothing done twice);
 * - the rate-limit hold: rate-limit-hold.ts (a 429 holds back the requests made with the same
 *   credentials: the server's own, or in OAuth mode one user's), shared by replicas through
 *   rate-limits.ts;
 * - one attempt and reading its answer, capped at `maxResponseBytes`: attempt.ts (one timer and
 *   one AbortController per attempt; nothing outlives a call);
 * - describing a failure: failure-description.ts, with the credentials redacted (secrets.ts);
 * - the URL and the headers: request-url.ts, request-headers.ts; the options and bounds:
 *   upstream-options.ts; what observers (metrics) hear: upstream-observers.ts.
 *
 * Bounded: at most `maxConcurrentRequests` requests of one client are in flight (the rest
 * queue per caller, served round-robin across callers, ../concurrency.ts), and a request whose
 * tool call has used up its budget (the call's signal carries it, core/call-budget.ts) is refused
 * before anything is sent. The budget's deadline bounds every attempt (attempt.ts), backoff, retry,
 * wait for a request slot and rate-limit wait: none starts that the deadline would cut, and an
 * attempt it cuts is reported so, never sent again.
 */

import { setTimeout as sleepFor } from 'node:timers/promises';
import { budgetOf, WorkScope, type CallBudget } from '../call-budget.js';
import { currentCaller } from '../caller.js';
import { ToolError } from '../errors.js';
import { requestIdOf, silentLogger, type Logger } from '../logger.js';
import { attemptOnce, type AttemptOutcome, type AttemptSettings } from './attempt.js';
import { alreadyDeletedAnswer, notRetriedInTime, reasonToResendAfterFailure, reasonToResendAfterStatus } from './attempt-outcome.js';
import { ConcurrencyLimiter } from '../concurrency.js';
import { FailureDescriber, seconds } from './failure-description.js';
import { fetchSend, nodeSend, raceAbort, type SendInit } from './http-send.js';
import { RateLimitHolds } from './rate-limit-hold.js';
import { rateLimitHolder } from './rate-limits.js';
import { RequestHeaders } from './request-headers.js';
import { refuseUnsendable, requestBody, requestPath } from './request-preparation.js';
import { buildQueryString } from './request-url.js';
import { effectOf, mayResend } from './resend-rules.js';
import { secretsOf } from './secrets.js';
import {
  boundSetting,
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RATE_LIMIT_MAX_BACKOFF_MS,
  DEFAULT_RATE_LIMIT_MIN_BACKOFF_MS,
  positive,
  UPSTREAM_ENV,
  type SleepFn,
  type UpstreamClientOptions,
} from './upstream-options.js';
import { reportRateLimitWait } from './upstream-observers.js';

import type { AnswerHead, RequestContext, UpstreamRequest, UpstreamResponse } from './upstream-request.js';

/** Why a wait for a request slot ended: the call's deadline came first. */
const DEADLINE_PASSED = new DOMException('the call ran out of time waiting for a request slot', 'TimeoutError');

// The client's public surface, from the pieces it is made of.
export { raceAbort, type HeaderLookup } from './http-send.js';
export { effectOf, isIdempotent, mayResend, type HttpMethod, type OperationEffect } from './resend-rules.js';
export { buildPath, buildQueryString, type QueryScalar, type QueryValue } from './request-url.js';
export { defaultRetryAfterSeconds } from './rate-limit-hold.js';
export { defaultParseError, isJsonContentType } from './failure-description.js';
export {
  DEFAULT_MAX_CONCURRENT_REQUESTS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RATE_LIMIT_MAX_BACKOFF_MS,
  DEFAULT_RATE_LIMIT_MIN_BACKOFF_MS,
  UPSTREAM_ENV,
  type ErrorDescription,
  type ErrorDescriptionContext,
  type PlatformErrorInfo,
  type RateLimitOptions,
  type RetryOptions,
  type SleepFn,
  type UpstreamClientOptions,
} from './upstream-options.js';
export { observeUpstream, type RateLimitWaitEvent, type UpstreamAnswerEvent, type UpstreamObserver } from './upstream-observers.js';
export type { AnswerHead, UpstreamRequest, UpstreamResponse } from './upstream-request.js';

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleepFor(ms, undefined, signal ? { signal } : undefined);
}

export class UpstreamClient {
  private readonly baseUrl: string;
  private readonly platformName: string;
  private readonly options: UpstreamClientOptions;
  private readonly sleepImpl: SleepFn;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRateLimitWaitMs: number;
  /** Largest answer read, in bytes. */
  readonly maxResponseBytes: number;
  private readonly limiter: ConcurrencyLimiter;
  /** 429 state per credential identity (`rateLimitHolder()`), keyed like the shared holds. */
  private readonly holds: RateLimitHolds;
  private readonly headers: RequestHeaders;
  private readonly failures: FailureDescriber;
  private readonly attemptSettings: AttemptSettings;

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
    this.sleepImpl = options.sleep ?? defaultSleep;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.logger = options.logger ?? silentLogger;
    this.timeoutMs = positive(options.timeoutMs, 30_000) || 30_000;
    this.maxRetries = Math.floor(positive(options.retry?.maxRetries, 2));
    this.baseDelayMs = positive(options.retry?.baseDelayMs, 250);
    this.maxDelayMs = positive(options.retry?.maxDelayMs, 2000);
    this.maxRateLimitWaitMs = positive(options.rateLimit?.maxWaitMs, 10_000);
    const minBackoffMs = Math.max(DEFAULT_RATE_LIMIT_MIN_BACKOFF_MS, positive(options.rateLimit?.minBackoffMs, DEFAULT_RATE_LIMIT_MIN_BACKOFF_MS));
    const maxBackoffMs = Math.max(minBackoffMs, positive(options.rateLimit?.maxBackoffMs, DEFAULT_RATE_LIMIT_MAX_BACKOFF_MS));
    this.holds = new RateLimitHolds({ now: this.now, minBackoffMs, maxBackoffMs, retryAfterSeconds: options.retryAfterSeconds });
    const env = options.env ?? process.env;
    this.maxResponseBytes = boundSetting(options.maxResponseBytes, env, UPSTREAM_ENV.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, this.platformName);
    const slots = boundSetting(options.maxConcurrentRequests, env, UPSTREAM_ENV.maxConcurrentRequests, DEFAULT_MAX_CONCURRENT_REQUESTS, this.platformName);
    // Shared fairly by callers; a request queue is cheap, so only a runaway caller is refused.
    this.limiter = new ConcurrencyLimiter(slots, { name: `${this.platformName} requests`, maxWaitingPerCaller: 64 * slots, maxWaitingPerGroup: 128 * slots, maxWaiting: 512 * slots });
    this.headers = new RequestHeaders(options);
    this.failures = new FailureDescriber(options, this.timeoutMs, this.logger);
    const send = options.fetch ? fetchSend(options.fetch) : nodeSend;
    this.attemptSettings = { platformName: this.platformName, send, timeoutMs: this.timeoutMs, maxResponseBytes: this.maxResponseBytes, logger: this.logger, now: this.now };
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
      notBefore: this.holds.notBefore(rateLimitHolder()),
      holds: this.holds.size,
    };
  }

  /**
   * One call through its attempts: checked and prepared before anything is sent, counted once
   * against its call's budget, then sent until it succeeds or a rule says to stop (attempt-outcome.ts:
   * no answer or an error status; a 401 renews the credentials once, a 429 holds the identity back).
   * A request that changes data notes on its call's budget whether it was carried out (the audit
   * line's `changed`, tools/audit.ts).
   */
  request<T = unknown>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
    const budget = budgetOf(req.signal);
    return budget && effectOf(req) !== 'read' ? this.sendNoted<T>(req, budget) : this.send<T>(req);
  }

  private async sendNoted<T>(req: UpstreamRequest, budget: CallBudget): Promise<UpstreamResponse<T>> {
    try {
      const answer = await this.send<T>(req);
      budget.noteChange('made');
      return answer;
    } catch (error) {
      // A refusal, or a failure before anything was sent, changed nothing; a bug may have.
      if (!(error instanceof ToolError) || error.details.mayHaveHappened === true) budget.noteChange('unsure');
      throw error;
    }
  }

  private async send<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
    refuseUnsendable(req, this.platformName, this.options.allowedMethods);
    const path = requestPath(req);
    const query = buildQueryString(req.query);
    const url = `${this.baseUrl}${path}${query ? `?${query}` : ''}`;
    const body = requestBody(req);

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
    if (req.signal?.aborted) throw this.failures.failure('cancelled', ctx, 0, { mayHaveHappened: false });
    // The call's budget (core/call-budget.ts) counts every request once; past it nothing is sent.
    budgetOf(req.signal)?.spendRequest();

    const authorization = await this.readAuthorization();
    ctx.secrets = secretsOf(authorization);
    if (req.signal?.aborted) throw this.failures.failure('cancelled', ctx, 0, { mayHaveHappened: false });
    let headers = this.headers.build(req.headers, authorization, body !== undefined);
    let refreshed = false;
    /** The rate-limit deadline this request has just waited out itself (the gate does not wait for it again). */
    let waitedUntil: number | undefined;

    for (let attempt = 1; ; attempt += 1) {
      const retriesLeft = attempt <= this.maxRetries;
      const outcome = await this.attemptInTurn(url, { method: req.method, headers, body }, ctx, attempt, waitedUntil);
      waitedUntil = undefined;
      // No backoff pause, nor the attempt after it, may start that the call's deadline would cut.
      const retryInTime = retriesLeft && this.timeLeftExceeds(ctx, this.backoffCeilingMs(attempt));
      const cutByDeadline = retriesLeft && !retryInTime;

      if (outcome.type === 'failure') {
        const reason = notRetriedInTime((retry) => reasonToResendAfterFailure(this.failures, outcome, ctx, attempt, retry), retryInTime, cutByDeadline, ctx);
        await this.pause(this.backoffMs(attempt), ctx, attempt, reason);
        continue;
      }
      if (outcome.type === 'too_large') throw this.failures.tooLarge(outcome, ctx, attempt);

      // Not `text`: a 2xx answer is parsed from its bytes (attempt.ts decodes on first read).
      const { response } = outcome;
      const status = response.status;
      if (status !== 429 && this.holds.size > 0) this.holds.settle(ctx.holder);
      if (status >= 200 && status < 300) {
        try {
          return { status, headers: response.headers, data: this.failures.parseSuccess(response, outcome, ctx, attempt) as T, bytes: outcome.bytes };
        } finally {
          outcome.release?.(); // a large answer's slot (large-answers.ts), once parsed
        }
      }
      outcome.release?.();
      if (status === 401 && !refreshed && this.options.refreshAuthorization) {
        refreshed = true;
        const renewed = await this.renewedHeaders(ctx, body !== undefined);
        if (renewed) {
          headers = renewed;
          attempt -= 1; // the refresh does not consume the retry budget
          continue;
        }
      }
      if (status === 429) {
        waitedUntil = await this.sitOutRateLimit(response, outcome.text, outcome.sentAt, ctx, attempt, retriesLeft);
        continue;
      }
      const alreadyDeleted = alreadyDeletedAnswer<T>(response, ctx, attempt, this.platformName, this.logger);
      if (alreadyDeleted) return alreadyDeleted;
      const reason = notRetriedInTime((retry) => reasonToResendAfterStatus(this.failures, response, outcome.text, ctx, attempt, retry), retryInTime, cutByDeadline, ctx);
      await this.pause(this.backoffMs(attempt), ctx, attempt, reason);
    }
  }

  /**
   * After a 401: asks for fresh credentials once. The headers to send again with, or undefined
   * when none came (the 401 is then reported).
   */
  private async renewedHeaders(ctx: RequestContext, hasBody: boolean): Promise<Record<string, string> | undefined> {
    let renewed: boolean | undefined = false;
    try {
      renewed = await this.options.refreshAuthorization?.();
    } catch (error) {
      this.logger.warn({ request_id: ctx.requestId, platform: this.platformName, err: error instanceof Error ? error.message : String(error) }, 'credential refresh failed');
    }
    if (!renewed) return undefined;
    const authorization = await this.readAuthorization();
    ctx.secrets = [...ctx.secrets, ...secretsOf(authorization)];
    const headers = this.headers.build(ctx.req.headers, authorization, hasBody);
    this.logger.info({ request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path }, 'credentials refreshed after a 401; sending once more');
    return headers;
  }

  /**
   * After a 429: holds the identity back (here and, through the store, on other replicas), then
   * waits it out and returns the deadline waited for, or reports the 429 when the wait is too long
   * or no retry is left. The platform refused the request: safe to send again for every effect.
   */
  private async sitOutRateLimit(response: AnswerHead, text: string, sentAt: number, ctx: RequestContext, attempt: number, retriesLeft: boolean): Promise<number> {
    const { waitMs, deadline } = this.holds.holdAfter429(ctx.holder, response, sentAt);
    await this.options.sharedRateLimit?.raise(deadline);
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
    if (waitMs <= this.maxRateLimitWaitMs && retriesLeft && this.timeLeftExceeds(ctx, waitMs)) {
      this.logger.warn(
        { request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, waitMs },
        `${this.platformName} rate limit reached; waiting before retrying`,
      );
      reportRateLimitWait(this.platformName, waitMs);
      await this.pause(waitMs, ctx, attempt, undefined);
      return deadline;
    }
    throw this.failures.httpFailure(response, text, ctx, attempt, retryAfterSeconds);
  }

  /**
   * One attempt in its turn: waits for a slot (its caller's turn), then for the end of any rate-limit wait of
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
    const borrowWhenAlone = ctx.req.borrowIdleSlots === true;
    const caller = currentCaller(signal);
    let release = this.limiter.tryAcquire(caller, borrowWhenAlone);
    if (!release) {
      // Waiting for a turn ends at the call's deadline, like every other wait of the request.
      const budget = budgetOf(signal);
      const waiting = new WorkScope(signal ?? new AbortController().signal);
      const timer = budget ? setTimeout(() => waiting.abort(DEADLINE_PASSED), Math.max(0, budget.timeLeftMs())) : undefined;
      try {
        // A second attempt is work under way: it waits its turn but is never refused.
        release = await this.limiter.acquire(waiting.signal, { caller, neverRefuse: attempt > 1, borrowWhenAlone });
      } catch (error) {
        if (signal?.aborted) return { type: 'failure', kind: 'cancelled', neverSent: true };
        if (waiting.signal.reason === DEADLINE_PASSED) return { type: 'failure', kind: 'timeout', neverSent: true, deadline: true };
        throw error;
      } finally {
        clearTimeout(timer);
        waiting.dispose();
      }
    }
    try {
      await this.waitForRateLimit(ctx, attempt, waitedUntil);
      return await attemptOnce(this.attemptSettings, url, init, ctx, attempt);
    } finally {
      release();
    }
  }

  /** Holds a request back while a 429 for its identity says to; past `maxWaitMs` it fails without sending. */
  private async waitForRateLimit(ctx: RequestContext, attempt: number, waitedUntil: number | undefined): Promise<void> {
    let seen = waitedUntil ?? Number.NEGATIVE_INFINITY;
    for (;;) {
      const until = Math.max(this.holds.notBefore(ctx.holder), this.options.sharedRateLimit?.notBefore() ?? 0);
      if (until <= seen) return;
      const waitMs = until - this.now().getTime();
      if (waitMs <= 0) return;
      const pastDeadline = !this.timeLeftExceeds(ctx, waitMs);
      if (waitMs > this.maxRateLimitWaitMs || pastDeadline) {
        const wait = Math.max(1, Math.ceil(waitMs / 1000));
        const after = pastDeadline ? `, after this call's time budget of ${budgetOf(ctx.req.signal)?.describe('time')} runs out` : '';
        throw this.failures.failure('rate_limited', ctx, attempt - 1, {
          retryAfterSeconds: wait,
          overrideMessage: `${this.platformName} is rate limiting this server (an earlier request was answered HTTP 429); requests are allowed again in ${seconds(wait)}${after}. This request was not sent.`,
        });
      }
      seen = until;
      this.logger.debug(
        { request_id: ctx.requestId, platform: this.platformName, method: ctx.req.method, path: ctx.path, attempt, delayMs: waitMs },
        'holding the request back: the platform asked to slow down',
      );
      reportRateLimitWait(this.platformName, waitMs);
      await this.pause(waitMs, ctx, attempt - 1, undefined);
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

  /** True when the call's time budget (if any) has more than `ms` left: a wait of `ms` and an attempt after it fit. */
  private timeLeftExceeds(ctx: RequestContext, ms: number): boolean {
    const left = budgetOf(ctx.req.signal)?.timeLeftMs();
    return left === undefined || left > ms;
  }

  private backoffCeilingMs(attempt: number): number {
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
  }

  private backoffMs(attempt: number): number {
    const ceiling = this.backoffCeilingMs(attempt);
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
    if (signal?.aborted) throw this.failures.failure('cancelled', ctx, attempt, {});
    try {
      await raceAbort(this.sleepImpl(ms, signal), signal);
    } catch (error) {
      if (signal?.aborted) throw this.failures.failure('cancelled', ctx, attempt, {});
      throw error;
    }
  }
}
