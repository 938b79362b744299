/** Endpoints some plans lack (past and related incidents, related change events): their absence is a note, not an error. */
import { ToolError } from '../../core/errors.js';

/** The platform's answers for a feature the account's plan does not include. */
const LACKING_PLAN = new Set([402, 403, 404]);

/** Whether `error` says the account's plan lacks the endpoint (any other error is the call's). */
export function planLacks(error: unknown): error is ToolError {
  return error instanceof ToolError && typeof error.details.status === 'number' && LACKING_PLAN.has(error.details.status);
}

/** Short note for an answer read without the feature. */
export function lackingNote(error: ToolError, what: string): string {
  return `${what}: not available to this account (HTTP ${String(error.details.status)}).`;
}
