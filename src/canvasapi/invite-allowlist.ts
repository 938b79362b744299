/**
 * The operator's invitation allowlist (--invite-allowed-domains / TOOLSERVERS_INVITE_ALLOWED_DOMAINS):
 * e-mail domains and exact addresses that tools may invite or add to boards, teams and projects.
 * An injected note that asks an agent to share a board with an outside address is refused
 * locally, naming the address and the allowlist; nothing is sent. Unset: no restriction.
 */
import { ToolError, type InputIssue } from '../core/errors.js';
import type { CanvasToolEntry } from './catalogue-types.js';

export const INVITE_ALLOWLIST_ENV = 'TOOLSERVERS_INVITE_ALLOWED_DOMAINS';

export interface InviteAllowlist {
  /** Domains whose every address is allowed (exactly that domain: a subdomain is listed on its own). */
  readonly domains: ReadonlySet<string>;
  /** Single addresses allowed, lower-case. */
  readonly addresses: ReadonlySet<string>;
  /** As the operator wrote it, normalized, for messages. */
  readonly text: string;
}

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const LOCAL_PART = /^[^\s@,;]{1,64}$/;

/**
 * The allowlist from a comma-separated list of domains (`example.com`, `@example.com`) and
 * addresses (`ana@partner.io`); undefined when unset or blank. Throws on an entry that is neither.
 */
export function parseInviteAllowlist(value: string | undefined): InviteAllowlist | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const domains = new Set<string>();
  const addresses = new Set<string>();
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const at = entry.lastIndexOf('@');
    const local = at > 0 ? entry.slice(0, at) : '';
    const domain = entry.slice(at + 1);
    if (!DOMAIN.test(domain) || (at > 0 && !LOCAL_PART.test(local))) {
      throw new Error(`${INVITE_ALLOWLIST_ENV} / --invite-allowed-domains: ${JSON.stringify(raw.trim().slice(0, 100))} is neither an e-mail domain (example.com) nor an address (ana@partner.io).`);
    }
    if (at > 0) addresses.add(entry);
    else domains.add(domain);
  }
  if (domains.size === 0 && addresses.size === 0) return undefined;
  return { domains, addresses, text: [...domains, ...addresses].join(', ') };
}

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
