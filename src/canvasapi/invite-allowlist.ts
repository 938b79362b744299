/**
 * The operator's invitation allowlist (parsed in settings.ts): an injected note that asks an agent
 * to share a board with an outside address is refused locally, naming the address and the
 * allowlist; nothing is sent. Unset: no restriction.
 */
import { ToolError, type InputIssue } from '../core/errors.js';
import type { CanvasToolEntry } from './catalogue-types.js';
import type { InviteAllowlist } from './settings.js';

export function isInviteAllowed(address: string, allowlist: InviteAllowlist): boolean {
  const lower = address.trim().toLowerCase();
  return allowlist.addresses.has(lower) || allowlist.domains.has(lower.slice(lower.lastIndexOf('@') + 1));
}

/**
 * Refuses a call that would invite or add anyone outside the allowlist. The e-mail parameters
 * written into a request body are the ones that invite or add people (sharing a board, inviting
 * to a team, adding to a project); an e-mail in a query only filters or names a user.
 */
export function checkInvitees(entry: CanvasToolEntry, args: Record<string, unknown>, allowlist: InviteAllowlist | undefined): void {
  if (!allowlist) return;
  const issues: InputIssue[] = [];
  const refused: string[] = [];
  for (const param of entry.params) {
    if (param.format !== 'email' || !param.to.startsWith('body:')) continue;
    const value = args[param.name];
    const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
    values.forEach((address, i) => {
      if (typeof address !== 'string' || isInviteAllowed(address, allowlist)) return;
      refused.push(address);
      issues.push({
        parameter: Array.isArray(value) ? `${param.name}[${i}]` : param.name,
        problem: `${address} is not allowed: this server may invite or add only addresses at ${allowlist.text} (the operator's invitation allowlist)`,
      });
    });
  }
  if (issues.length > 0) {
    throw new ToolError({
      ...ToolError.invalidInput(issues).details,
      message: `Nothing was sent: ${refused.slice(0, 5).join(', ')}${refused.length > 5 ? ` and ${refused.length - 5} more` : ''} ${refused.length === 1 ? 'is' : 'are'} outside the invitation allowlist (${allowlist.text}).`,
      nextStep: 'Invite only addresses on the allowlist; if someone else must be invited, ask the user to do it themselves or the operator to extend the allowlist.',
    });
  }
}
