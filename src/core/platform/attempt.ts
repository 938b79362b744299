/**
 * One attempt on the wire and the reading of its answer, capped: one AbortController and one
 * timer per attempt, covering its whole answer and ending at the call's deadline if that comes
 * first (cleared when it ends, whatever the outcome), the caller's signal forwarded
 * into it, and an answer read as a stream and abandoned past its byte cap (error answers past
 * 1 MiB). Nothing outlives the attempt; what happened comes back as an outcome, never thrown.
 */
import { budgetOf } from '../call-budget.js';
import type { Logger } from '../logger.js';
import type { CappedBody, Send, SendInit, SentAnswer } from './http-send.js';
import { currentCaller } from '../caller.js';
import { LARGE_ANSWER_BYTES, takeLargeAnswerSlot } from './large-answers.js';
import { NEVER_SENT_CODES, networkErrorCode } from './resend-rules.js';
import { reportAnswer, upstreamObserved } from './upstream-observers.js';
import type { AnswerHead, RequestContext } from './upstream-request.js';

/** Error answers are only read this far (a message and details fit many times over). */
const ERROR_BODY_LIMIT_BYTES = 1024 * 1024;

const utf8 = new TextDecoder('utf-8');

export type FailureKind = 'cancelled' | 'timeout' | 'network_error';

export type AttemptFailure = {
  type: 'failure';
  kind: FailureKind;
  code?: string;
  /** Provably never reached the platform (refused, DNS, still queued). */
  neverSent: boolean;
  /** The status line, when the answer's head arrived before the failure. */
  status?: number;
  /** A timeout set by the call's time budget (its deadline came before the client's attempt timeout). */
  deadline?: true;
};

export type TooLargeAnswer = { type: 'too_large'; response: AnswerHead; limit: number; declared?: number };

/**
 * `body`: the answer's bytes; `text`: the same decoded, on first read. `release`: the large-answer slot the answer holds
 * (large-answers.ts), for whoever parses it to give back.
 */
export type AttemptOutcome = { type: 'response'; response: AnswerHead; body: Uint8Array; readonly text: string; bytes: number; sentAt: number; release?: () => void } | TooLargeAnswer | AttemptFailure;

/** What an attempt needs of its client. */
export interface AttemptSettings {
  platformName: string;
  send: Send;
  timeoutMs: number;
  /** Largest successful answer read, in bytes. */
  maxResponseBytes: number;
  logger: Logger;
  now: () => Date;
}

/** Debug logs build objects: only when they go somewhere. */
function debugEnabled(logger: Logger): boolean {
  return typeof logger.isLevelEnabled === 'function' ? logger.isLevelEnabled('debug') : true;
}

/**
 * How long an attempt may take, sending and reading its whole answer: the client's timeout, or
 * less when the call's time budget ends sooner (`deadline`). At or past the deadline: nothing.
 */
export function attemptTimeLimit(timeoutMs: number, signal: AbortSignal | undefined): { ms: number; deadline: boolean } {
  const left = budgetOf(signal)?.timeLeftMs();
  if (left === undefined || left >= timeoutMs) return { ms: timeoutMs, deadline: false };
  return { ms: Math.max(0, Math.floor(left)), deadline: true };
}

export async function attemptOnce(settings: AttemptSettings, url: string, init: SendInit, ctx: RequestContext, attempt: number): Promise<AttemptOutcome> {
  const { platformName, logger, maxResponseBytes } = settings;
  const callerSignal = ctx.req.signal;
  const timeLimit = attemptTimeLimit(settings.timeoutMs, callerSignal);
  if (timeLimit.ms <= 0) return { type: 'failure', kind: 'timeout', neverSent: true, deadline: true };
  const timeoutMs = timeLimit.ms;
  const controller = new AbortController();
  const signal = controller.signal;
  let timedOut = false;
  // One timer for the whole attempt, the answer's last byte included: an answer that trickles ends here.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
  }, timeoutMs);
  const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
  if (callerSignal) {
    if (callerSignal.aborted) onCallerAbort();
    else callerSignal.addEventListener('abort', onCallerAbort, { once: true });
  }
  const debug = debugEnabled(logger);
  const observed = upstreamObserved();
  const started = debug || observed ? performance.now() : 0;
  const sentAt = settings.now().getTime();

  const fail = (error: unknown, phase: 'connect' | 'body', status?: number): AttemptOutcome => {
    let outcome: AttemptFailure;
    if (callerSignal?.aborted) outcome = { type: 'failure', kind: 'cancelled', neverSent: false };
    else if (timedOut) outcome = { type: 'failure', kind: 'timeout', neverSent: false, ...(timeLimit.deadline ? { deadline: true as const } : {}) };
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
    if (observed) reportAnswer(platformName, ctx.req.method, started, status, outcome.kind === 'network_error' ? outcome.code ?? 'network_error' : outcome.kind);
    if (debug) {
      const durationMs = Math.round(performance.now() - started);
      logger.debug({ request_id: ctx.requestId, platform: platformName, method: ctx.req.method, path: ctx.path, attempt, durationMs, status, error: outcome.code ?? outcome.kind }, 'upstream request failed');
    }
    return outcome;
  };

  // A large answer's slot: taken before reading past LARGE_ANSWER_BYTES, handed over with the text (else given back here).
  let largeSlot: (() => void) | undefined;
  const takeSlot = async (): Promise<void> => {
    largeSlot ??= await takeLargeAnswerSlot(signal, currentCaller(callerSignal));
  };
  try {
    let response: SentAnswer;
    try {
      response = await settings.send(url, init, signal);
    } catch (error) {
      return fail(error, 'connect');
    }
    const ok = response.status >= 200 && response.status < 300;
    const limit = ok ? maxResponseBytes : Math.min(maxResponseBytes, ERROR_BODY_LIMIT_BYTES);
    const lengthHeader = response.headers.get('content-length');
    const declared = lengthHeader !== null && /^\s*\d+\s*$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
    if (ok && declared !== undefined && declared > limit) {
      response.discard();
      if (observed) reportAnswer(platformName, ctx.req.method, started, response.status, undefined);
      if (debug) logger.debug({ request_id: ctx.requestId, platform: platformName, method: ctx.req.method, path: ctx.path, attempt, status: response.status, declared, limit }, 'upstream answer larger than the limit; not read');
      return { type: 'too_large', response, limit, declared };
    }
    let read: CappedBody;
    try {
      if (ok && declared !== undefined && declared > LARGE_ANSWER_BYTES) await takeSlot();
      read = await response.read(limit, !ok, ok ? { bytes: LARGE_ANSWER_BYTES, wait: takeSlot } : undefined);
      if (signal.aborted) throw signal.reason;
    } catch (error) {
      return fail(error, 'body', response.status);
    }
    if (read.overflow && ok) {
      if (observed) reportAnswer(platformName, ctx.req.method, started, response.status, undefined);
      if (debug) logger.debug({ request_id: ctx.requestId, platform: platformName, method: ctx.req.method, path: ctx.path, attempt, status: response.status, limit }, 'upstream answer larger than the limit; abandoned');
      return { type: 'too_large', response, limit };
    }
    const body = read.bytes;
    let text: string | undefined;
    if (observed) reportAnswer(platformName, ctx.req.method, started, response.status, undefined);
    if (debug) {
      logger.debug(
        { request_id: ctx.requestId, platform: platformName, method: ctx.req.method, path: ctx.path, attempt, status: response.status, durationMs: Math.round(performance.now() - started) },
        'upstream request',
      );
    }
    const release = largeSlot;
    largeSlot = undefined;
    return {
      type: 'response',
      response,
      body,
      get text(): string {
        return (text ??= utf8.decode(body));
      },
      bytes: body.length,
      sentAt,
      ...(release ? { release } : {}),
    };
  } finally {
    largeSlot?.();
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
  }
}
