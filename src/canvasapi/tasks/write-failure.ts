/**
 * What a failed write means, one rule for every task tool's per-item report: refused (nothing
 * happened, safe to send again) or it may have happened (check before sending it again). The
 * platform client says so where it knows (an answer lost, a deadline while waiting, a 2xx with an
 * unreadable body: `mayHaveHappened`); otherwise a 4xx or a refusal before sending created nothing.
 */
import { ToolError } from '../../core/errors.js';
import { quotedText } from '../../core/tools/line-text.js';

/** A platform's error message in a report is cut here. */
const PLATFORM_MESSAGE_CHARS = 300;
const REFUSED_KINDS: ReadonlySet<string> = new Set(['invalid_input', 'not_configured', 'unauthorized', 'forbidden', 'not_found', 'bad_request', 'rate_limited', 'budget_exceeded']);

export function writeFailure(error: unknown): { mayHaveHappened: boolean; message: string } {
  const toolError = error instanceof ToolError ? error : undefined;
  const status = toolError?.details.status;
  const refused = toolError !== undefined && ((status !== undefined && status >= 400 && status < 500) || REFUSED_KINDS.has(toolError.details.kind));
  // The platform's own words are quoted (core/tools/line-text.ts); ours are not.
  const said = toolError?.details.platformMessage !== undefined ? quotedText(toolError.details.platformMessage, PLATFORM_MESSAGE_CHARS) : toolError?.details.message;
  const message = toolError ? `${toolError.details.kind}${status ? ` (HTTP ${status})` : ''}: ${said}` : 'internal error';
  return { mayHaveHappened: toolError?.details.mayHaveHappened ?? !refused, message };
}

/** The call's budget stopped the request before it was sent (not one abandoned while its answer was awaited, which may have happened). */
export function neverSentForBudget(error: unknown): boolean {
  return error instanceof ToolError && error.details.kind === 'budget_exceeded' && error.details.mayHaveHappened !== true;
}
