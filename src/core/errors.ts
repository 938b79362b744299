/**
 * One error shape for every failure a tool can report: bad input, missing
 * configuration, and anything the upstream platform answered or failed to answer.
 */

export type ToolErrorKind =
  | 'invalid_input' // the agent's arguments break the tool's contract; nothing was sent (a task tool's check on the platform's data: only reads)
  | 'not_configured' // credentials or settings are missing; nothing was sent
  | 'unauthorized' // 401: token missing, invalid or expired
  | 'forbidden' // 403: token lacks access
  | 'not_found' // 404: an ID does not exist (or is not visible)
  | 'rate_limited' // 429 beyond what the client waits for
  | 'bad_request' // other 4xx: the platform rejected the request
  | 'upstream_error' // 5xx after retries
  | 'network_error' // no HTTP answer (DNS, refused, reset) after retries
  | 'timeout' // no answer within the per-request timeout
  | 'cancelled' // the MCP request was cancelled by the client
  | 'budget_exceeded' // the call used up its budget of platform requests or time (core/call-budget.ts); the request was not sent
  | 'unavailable' // a service this server relies on (its sign-in store) did not answer; nothing was sent
  | 'internal'; // a bug in this server

export interface ToolErrorDetails {
  kind: ToolErrorKind;
  /** What went wrong, in one or two sentences. */
  message: string;
  /** What the agent or the user should do next. */
  nextStep?: string;
  /** HTTP status of the upstream answer, when there was one. */
  status?: number;
  /** The platform's own error code (number or string), when it sent one. */
  platformCode?: string | number;
  /** The platform's own error message, when it sent one. */
  platformMessage?: string;
  /** Extra facts from the platform (field errors, context), already free of secrets. */
  platformDetails?: unknown;
  /** Seconds to wait before retrying, when known. */
  retryAfterSeconds?: number;
  /** For invalid_input: one entry per offending parameter. */
  issues?: InputIssue[];
  /**
   * Set by the platform client on a failed request: whether it may have been carried out all the
   * same (the audit line's `changed`). Not part of the agent's error (toJSON).
   */
  mayHaveHappened?: boolean;
}

export interface InputIssue {
  /** Parameter path, e.g. `limit` or `request_body.data.content`. */
  parameter: string;
  /** What was wrong and what is allowed. */
  problem: string;
}

export class ToolError extends Error {
  readonly details: ToolErrorDetails;

  constructor(details: ToolErrorDetails) {
    super(details.message);
    this.name = 'ToolError';
    this.details = details;
  }

  /** `afterReads`: a check that needed the platform's data (a task tool's); only reads were sent, nothing was changed. */
  static invalidInput(issues: InputIssue[], afterReads = false): ToolError {
    const summary = issues.map((i) => `${i.parameter}: ${i.problem}`).join('; ');
    return new ToolError({
      kind: 'invalid_input',
      message: `Invalid arguments (${afterReads ? 'only reads were sent, nothing was changed' : 'nothing was sent'}): ${summary}`,
      nextStep: 'Fix the listed parameters and call the tool again.',
      issues,
    });
  }

  static invalidParameter(parameter: string, problem: string, afterReads = false): ToolError {
    return ToolError.invalidInput([{ parameter, problem }], afterReads);
  }

  /** The JSON object placed in an error result (snake_case, undefined fields dropped). */
  toJSON(): Record<string, unknown> {
    const d = this.details;
    const out: Record<string, unknown> = { kind: d.kind, message: d.message };
    if (d.status !== undefined) out.status = d.status;
    if (d.platformCode !== undefined) out.platform_code = d.platformCode;
    if (d.platformMessage !== undefined) out.platform_message = d.platformMessage;
    if (d.platformDetails !== undefined) out.platform_details = d.platformDetails;
    if (d.retryAfterSeconds !== undefined) out.retry_after_seconds = d.retryAfterSeconds;
    if (d.issues !== undefined) out.issues = d.issues;
    if (d.nextStep !== undefined) out.next_step = d.nextStep;
    return out;
  }
}

/** Wraps anything thrown by a handler into a ToolError without leaking internals. */
export function toToolError(error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError({
    kind: 'internal',
    message: `Unexpected failure inside the tool server: ${message}`,
    nextStep: 'This is a bug in the tool server; retrying will probably not help. Report it with the arguments used.',
  });
}
