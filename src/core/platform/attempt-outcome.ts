/**
 * What an attempt that did not succeed leads to: the reason to send the request again (after a
 * backoff), an answer after all, or the failure thrown. The rules of resend-rules.ts applied to one
 * outcome; a failure that may have reached the platform is remembered on the call (`ambiguous`), so
 * that a later answer is read knowing it. Synchronous: the caller waits out the backoff.
 */
import { budgetOf, CallBudget } from '../call-budget.js';
import { ToolError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AttemptFailure } from './attempt.js';
import type { FailureDescriber } from './failure-description.js';
import { redact } from './secrets.js';
import { RETRYABLE_STATUSES } from './resend-rules.js';
import type { AnswerHead, RequestContext, UpstreamResponse } from './upstream-request.js';

/**
 * After an attempt that got no answer (timeout, broken connection, cancelled): the reason to send
 * again, or the failure. A cancelled call ends at once. One that provably never reached the
 * platform is sent again while retries are left; one that may have is sent again only when its
 * effect allows it, else it is reported as possibly carried out.
 */
export function reasonToResendAfterFailure(failures: FailureDescriber, outcome: AttemptFailure, ctx: RequestContext, attempt: number, retriesLeft: boolean): string {
  if (outcome.kind === 'cancelled') {
    throw failures.failure('cancelled', ctx, outcome.neverSent ? attempt - 1 : attempt, {
      mayHaveHappened: !outcome.neverSent || ctx.ambiguous !== undefined,
    });
  }
  if (outcome.deadline) throw deadlineFailure(failures, ctx, attempt, outcome.neverSent);
  if (outcome.neverSent) {
    if (retriesLeft) return `${outcome.code ?? outcome.kind}`;
    throw failures.failure(outcome.kind, ctx, attempt, {}, outcome);
  }
  // It may have reached the platform and been carried out.
  if (ctx.resendable && retriesLeft) {
    ctx.ambiguous = failures.failureText(outcome);
    return `${outcome.code ?? outcome.kind}`;
  }
  throw failures.failure(outcome.kind, ctx, attempt, { ...(outcome.status !== undefined ? { status: outcome.status } : {}), mayHaveHappened: true }, outcome);
}

/**
 * The call's time budget ran out before an attempt could be sent, or while it waited for the
 * answer: `budget_exceeded`, never sent again. A request that may have reached the platform and
 * changes something may have been carried out, and is said so (check before repeating it).
 */
export function deadlineFailure(failures: FailureDescriber, ctx: RequestContext, attempt: number, neverSent: boolean): ToolError {
  const budget = (budgetOf(ctx.req.signal) ?? new CallBudget()).describe('time');
  const op = `the ${ctx.req.method} request${ctx.effect ? ` (${ctx.effect})` : ''}${ctx.req.resourceLabel ? ` for ${ctx.req.resourceLabel}` : ''}`;
  const changes = ctx.effect !== 'read';
  const reached = !neverSent || ctx.ambiguous !== undefined;
  const again = attempt > 1 ? ' again' : '';
  const sentences = neverSent
    ? [`This call's time budget of ${budget} ran out before ${op} could be sent${again}; it was not sent${again}.`]
    : [`This call's time budget of ${budget} ran out while waiting for the answer to ${op}; the attempt was abandoned${reached && changes ? '' : ' and not sent again'}.`];
  if (reached && changes) sentences.push('It may have reached the platform and been carried out; it was not sent again, so that it cannot happen twice.');
  return failures.failure('budget_exceeded', ctx, neverSent ? attempt - 1 : attempt, {
    overrideMessage: sentences.join(' '),
    overrideNextStep:
      reached && changes
        ? 'Check the current state (for example with a get or list tool) before repeating it, to avoid doing it twice.'
        : 'The platform is slow: narrow the call (filters, a smaller limit or max_items), or try again later.',
    mayHaveHappened: reached && changes,
  });
}

/**
 * Runs a rule (given whether a retry may follow) that may throw the failure. When the rule would
 * have sent the request again but the call's deadline left no time for it, the failure says so.
 */
export function notRetriedInTime<T>(rule: (retriesLeft: boolean) => T, retryInTime: boolean, cutByDeadline: boolean, ctx: RequestContext): T {
  try {
    return rule(retryInTime);
  } catch (error) {
    if (!cutByDeadline || !(error instanceof ToolError)) throw error;
    // The request ends here either way: asking the rule again only tells whether it would have retried.
    try {
      rule(true);
    } catch {
      throw error;
    }
    const budget = (budgetOf(ctx.req.signal) ?? new CallBudget()).describe('time');
    throw new ToolError({ ...error.details, message: `${error.details.message} It was not tried again: too little of this call's time budget of ${budget} was left.` });
  }
}

/**
 * After an error status (not a 429, not a 401 that renewed the credentials): the reason to send
 * again, for a 5xx of a request that may be sent again while retries are left, or the failure in
 * the platform's words.
 */
export function reasonToResendAfterStatus(failures: FailureDescriber, response: AnswerHead, text: string, ctx: RequestContext, attempt: number, retriesLeft: boolean): string {
  const status = response.status;
  if (RETRYABLE_STATUSES.has(status) && ctx.resendable && retriesLeft) {
    ctx.ambiguous = `HTTP ${status}`;
    return ctx.ambiguous;
  }
  throw failures.httpFailure(response, text, ctx, attempt, undefined);
}

/**
 * A delete sent again after a failure that may have reached the platform, now answered 404: the
 * earlier attempt most likely deleted it, so the call succeeds with a note saying so. Undefined for
 * any other answer.
 */
export function alreadyDeletedAnswer<T>(response: AnswerHead, ctx: RequestContext, attempt: number, platformName: string, logger: Logger): UpstreamResponse<T> | undefined {
  const status = response.status;
  if (status !== 404 || ctx.effect !== 'delete' || ctx.ambiguous === undefined) return undefined;
  const target = ctx.req.resourceLabel ?? `the resource at ${ctx.path}`;
  const note =
    `An earlier attempt of this delete failed (${ctx.ambiguous}) after it may have reached ${platformName}; ` +
    `sent again, it was answered 404 (not found), so the earlier attempt most likely deleted ${target}. ` +
    'Nothing is left to delete. If the ID may have been wrong, a list tool shows what exists.';
  logger.info({ request_id: ctx.requestId, platform: platformName, method: ctx.req.method, path: ctx.path, attempt }, 'delete resent after an ambiguous failure found the resource gone; reporting success');
  return {
    status,
    headers: response.headers,
    data: redact({ success: true, already_deleted: true, note }, ctx.secrets) as T,
    alreadyApplied: true,
    note: redact(note, ctx.secrets) as string,
  };
}
