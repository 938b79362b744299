/**
 * Describing a failure: every way a request can fail becomes one ToolError that says what
 * happened, whether the operation may have been carried out, and what to check or do next,
 * in the platform's words where it gave some (its error body, read by `parseError`) and never
 * with a credential in it (`redact`). A platform may reword any of it (`describeError`).
 */
import { ToolError, type ToolErrorDetails, type ToolErrorKind } from '../errors.js';
import { isRecord, MAX_ANSWER_DEPTH, nestsDeeperThan, valueNestsDeeperThan } from '../json.js';
import type { Logger } from '../logger.js';
import type { AttemptFailure, TooLargeAnswer } from './attempt.js';
import { redact } from './secrets.js';
import { UPSTREAM_ENV, type PlatformErrorInfo, type UpstreamClientOptions } from './upstream-options.js';
import type { AnswerHead, RequestContext } from './upstream-request.js';

export { MAX_ANSWER_DEPTH };

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

function snippet(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed ? trimmed.slice(0, 300) : undefined;
}

/** `1 second`, `60 seconds`. */
export function seconds(count: number): string {
  return `${count} second${count === 1 ? '' : 's'}`;
}

function formatBytes(bytes: number): string {
  return bytes.toLocaleString('en-US');
}

export interface FailureExtra {
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

/** The platform's hooks a client was given (its options, read when a failure is described). */
export type FailureHooks = Pick<UpstreamClientOptions, 'platformName' | 'parseError' | 'describeError'>;

export class FailureDescriber {
  private readonly platformName: string;

  constructor(
    private readonly options: FailureHooks,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.platformName = options.platformName;
  }

  /** How a failed attempt ended, for notes: `no answer within 300 ms`, `ECONNRESET`. */
  failureText(outcome: AttemptFailure): string {
    if (outcome.kind === 'timeout') return `no answer within ${this.timeoutMs} ms`;
    const reason = outcome.code ? `${NETWORK_CODE_TEXT[outcome.code] ?? 'the connection failed'} (${outcome.code})` : 'the connection failed';
    return outcome.status !== undefined ? `HTTP ${outcome.status}, then ${reason} while reading the answer` : reason;
  }

  /** `the POST request (create)`: how messages name the operation. */
  private operation(ctx: RequestContext): string {
    return ctx.effect ? `${ctx.req.method} request (${ctx.effect})` : `${ctx.req.method} request`;
  }

  /**
   * The JSON of a 2xx answer (undefined when empty); a body that is not JSON fails, saying whether
   * the operation was carried out.
   */
  parseSuccess(response: AnswerHead, answer: { readonly text: string }, ctx: RequestContext, attempt: number): unknown {
    if (response.status === 204 || response.status === 205) return undefined;
    const text = answer.text;
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
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
    // Checked on the parsed value, which costs a tenth of scanning the text (json.ts).
    if (valueNestsDeeperThan(value, MAX_ANSWER_DEPTH)) throw this.tooDeep(response, ctx, attempt);
    return value;
  }

  /** A 2xx answer nested past MAX_ANSWER_DEPTH: not parsed, said like a too large one. */
  private tooDeep(response: AnswerHead, ctx: RequestContext, attempt: number): ToolError {
    const changed = ctx.effect !== 'read';
    return this.failure('upstream_error', ctx, attempt, {
      overrideMessage:
        `${this.platformName} answered HTTP ${response.status} with JSON nested more than ${MAX_ANSWER_DEPTH} levels deep, the most this server reads; the answer was not read.` +
        (changed ? ` The ${this.operation(ctx)} itself was carried out (HTTP ${response.status}); only its answer was too deep.` : ''),
      overrideNextStep: changed
        ? 'Do not repeat it; check the result with a get or list tool.'
        : 'Nothing is wrong with the arguments; the platform sent an answer no real record has. Try another request (a narrower one, or one item at a time), or report it to the platform.',
      mayHaveHappened: changed,
    });
  }

  tooLarge(outcome: TooLargeAnswer, ctx: RequestContext, attempt: number): ToolError {
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

  httpFailure(
    response: AnswerHead,
    text: string,
    ctx: RequestContext,
    attempt: number,
    retryAfterSeconds: number | undefined,
  ): ToolError {
    const status = response.status;
    let body: unknown;
    let isJson = false;
    // An error body nested too deep is quoted as text, never parsed.
    if (text.trim() !== '' && !nestsDeeperThan(text, MAX_ANSWER_DEPTH)) {
      try {
        body = JSON.parse(text) as unknown;
        isJson = true;
      } catch {
        body = text;
      }
    } else body = text.trim() === '' ? undefined : text;
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

  failure(
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
    const details: ToolErrorDetails = { kind, message, nextStep, mayHaveHappened };
    if (extra.status !== undefined) details.status = extra.status;
    if (extra.platformCode !== undefined) details.platformCode = extra.platformCode;
    if (extra.platformMessage !== undefined) details.platformMessage = extra.platformMessage;
    if (extra.platformDetails !== undefined) details.platformDetails = extra.platformDetails;
    if (extra.retryAfterSeconds !== undefined) details.retryAfterSeconds = extra.retryAfterSeconds;
    return new ToolError(redact(details, ctx.secrets) as ToolErrorDetails);
  }
}
