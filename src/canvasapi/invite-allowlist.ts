/**
 * The operator's invitation allowlist (parsed in settings.ts), applied to every request body a
 * sharing tool would send: an injected note that asks an agent to share a board with an outsider,
 * or to open it by link, is refused locally with the reason, and nothing is sent. Unset: no
 * restriction. What it stops and what it cannot: docs/operations.md, "Invitation allowlist".
 */
import { ToolError, type InputIssue } from '../core/errors.js';
import { isRecord } from '../core/json.js';
import { formatPath, limitIssues } from '../core/tools/schema.js';
import type { CanvasToolEntry } from './catalogue-types.js';
import { addressesInText, PLAIN_ADDRESS, readDomain, readPlainAddress, type FoundAddress, type PlainAddress } from './email-address.js';
import type { InviteAllowlist } from './settings.js';

type Json = Record<string, unknown>;
type PathSegment = string | number;

/** Whether the allowlist lets in a plain address (a domain alone, `local` empty, when the whole domain is listed). */
function allows(allowlist: InviteAllowlist, address: PlainAddress): boolean {
  return allowlist.domains.has(address.domain) || (address.local !== '' && allowlist.addresses.has(`${address.local}@${address.domain}`));
}

/** Whether one address, or a domain alone ("@example.com"), may be invited: it must be plain and listed. */
export function isInviteAllowed(address: string, allowlist: InviteAllowlist): boolean {
  const text = address.trim();
  const domainAlone = text.startsWith('@') ? readDomain(text.slice(1)) : undefined;
  if (domainAlone) return 'ascii' in domainAlone && allows(allowlist, { local: '', domain: domainAlone.ascii });
  const read = readPlainAddress(text);
  return !('problem' in read) && allows(allowlist, read);
}

/**
 * A request-body field that can let people reach a board, project or team who could not before.
 * Any value outside `closed` widens access (read from the platform's enums); `domains` fields list
 * e-mail domains the platform lets in, each of which must be a domain on the allowlist.
 */
export interface AccessField {
  /** Dotted path in the request body. */
  readonly path: string;
  readonly closed?: readonly string[];
  readonly domains?: true;
  /** Whom a wider value lets in, for the refusal ("opens the board to ..."). */
  readonly opensTo: string;
  /** Set to its closed value on a create that leaves it out, since a copy keeps the source's value. */
  readonly closedOnCreate?: true;
}

const BOARD_ACCESS: readonly AccessField[] = [
  { path: 'policy.sharingPolicy.access', closed: ['private'], opensTo: 'the board to anyone with its link', closedOnCreate: true },
  { path: 'policy.sharingPolicy.inviteToAccountAndBoardLinkAccess', closed: ['no_access'], opensTo: 'the board and its team to anyone with the invitation link', closedOnCreate: true },
  { path: 'policy.sharingPolicy.organizationAccess', closed: ['private'], opensTo: 'the board to everyone in the organization' },
  { path: 'policy.sharingPolicy.teamAccess', closed: ['private'], opensTo: 'the board to everyone in the team' },
];

/**
 * Every catalogue tool whose body can widen access, by field. Fields that only choose which
 * people with access may share or copy (sharingAccess, copyAccess, whoCanInvite, ...) are not
 * here: they let in no one new. A test derives the candidates from the platform's spec.
 */
export const ACCESS_FIELDS: Readonly<Record<string, readonly AccessField[]>> = {
  'CanvasApi.CreateCanvasBoard': BOARD_ACCESS,
  'CanvasApi.CopyCanvasBoard': BOARD_ACCESS,
  'CanvasApi.UpdateCanvasBoard': BOARD_ACCESS,
  'CanvasApi.UpdateProjectSettings': [{ path: 'sharingPolicySettings.teamAccess', closed: ['private'], opensTo: 'the project to everyone in the team' }],
  'CanvasApi.UpdateTeamSettings': [
    { path: 'teamAccountDiscoverySettings.accountDiscovery', closed: ['hidden'], opensTo: 'the team to organization members who find it' },
    { path: 'teamInvitationSettings.inviteExternalUsers', closed: ['not_allowed'], opensTo: "the team's boards to collaborators from outside the team" },
    { path: 'teamSharingPolicySettings.allowListedDomains', domains: true, opensTo: 'the team to addresses at that domain' },
    { path: 'teamSharingPolicySettings.defaultBoardAccess', closed: ['private'], opensTo: 'every new board to everyone in the team' },
    { path: 'teamSharingPolicySettings.defaultOrganizationAccess', closed: ['private'], opensTo: 'every new board to everyone in the organization' },
    { path: 'teamSharingPolicySettings.defaultProjectAccess', closed: ['private'], opensTo: 'every new project to everyone in the team' },
    { path: 'teamSharingPolicySettings.restrictAllowedDomains', closed: ['enabled'], opensTo: 'the team to addresses outside its allowed domains' },
    { path: 'teamSharingPolicySettings.sharingOnAccount', closed: ['not_allowed'], opensTo: "the team's boards to team-wide sharing" },
    { path: 'teamSharingPolicySettings.sharingOnOrganization', closed: ['not_allowed'], opensTo: "the team's boards to organization-wide sharing" },
    { path: 'teamSharingPolicySettings.sharingViaPublicLink', closed: ['not_allowed'], opensTo: "the team's boards to sharing by public link" },
  ],
};

/** A tool that can share: it writes e-mail addresses into a body (invites, adds) or has access fields. */
export function canShare(entry: CanvasToolEntry): boolean {
  return Object.hasOwn(ACCESS_FIELDS, entry.name) || entry.params.some((param) => param.format === 'email' && param.to.startsWith('body:'));
}

/** What one call would break, gathered before anything is refused. */
interface Findings {
  issues: InputIssue[];
  refusedAddresses: string[];
  /** Addresses in a form this server does not read (comments, quotes, routes, IP literals, ...). */
  unplain: string[];
  widened: string[];
  unknown: string[];
}

/**
 * The body a sharing tool may send with the allowlist set, or a refusal naming every outside
 * address (anywhere in the body, any field), every widening value and, in a two-mode body, every
 * field this server cannot judge. A create gets closed link access when it leaves it out. Other
 * tools' bodies, and every body without an allowlist, pass unchanged.
 */
export function applyInviteAllowlist(entry: CanvasToolEntry, body: unknown, requestSchema: unknown, allowlist: InviteAllowlist | undefined): unknown {
  if (!allowlist || body === undefined || !canShare(entry)) return body;
  const name = parameterNamer(entry);
  const findings: Findings = { issues: [], refusedAddresses: [], unplain: [], widened: [], unknown: [] };
  findOutsideAddresses(body, [], { allowlist, name, addressFields: addressFieldsOf(entry) }, findings);
  const fields = ACCESS_FIELDS[entry.name] ?? [];
  findWidening(body, fields, allowlist, name, findings);
  if (requestSchema !== undefined) findUnknownFields(body, requestSchema, [], name, findings);
  if (findings.issues.length > 0) throw refusal(findings, allowlist);
  return entry.effect === 'create' ? withClosedDefaults(body, fields) : body;
}

/** What the body walk needs: the allowlist, how paths are named, and which body fields hold addresses. */
interface WalkContext {
  allowlist: InviteAllowlist;
  name: (path: readonly PathSegment[]) => string;
  /** Dotted body path (array indices left out) -> the e-mail format of the parameter that fills it. */
  addressFields: ReadonlyMap<string, 'email' | 'comma-emails'>;
}

/** The body fields an entry fills from e-mail parameters: the platform reads each as addresses. */
function addressFieldsOf(entry: CanvasToolEntry): Map<string, 'email' | 'comma-emails'> {
  const fields = new Map<string, 'email' | 'comma-emails'>();
  for (const param of entry.params) {
    if ((param.format === 'email' || param.format === 'comma-emails') && param.to.startsWith('body:')) fields.set(param.to.slice('body:'.length), param.format);
  }
  return fields;
}

/** How a body path is named to the caller: under request_body, or as the parameter that filled it. */
function parameterNamer(entry: CanvasToolEntry): (path: readonly PathSegment[]) => string {
  if (entry.requestSchema) return (path) => formatPath(['request_body', ...path]);
  const byTarget = new Map(entry.params.filter((p) => p.to.startsWith('body:')).map((p) => [p.to.slice('body:'.length), p.name]));
  return (path) => {
    for (let end = path.length; end > 0; end -= 1) {
      const prefix = path.slice(0, end);
      const parameter = prefix.every((s) => typeof s === 'string') ? byTarget.get(prefix.join('.')) : undefined;
      if (parameter) return formatPath([parameter, ...path.slice(end)]);
    }
    return formatPath(['request body', ...path]);
  };
}

/** Every address-shaped part of a text, as written (email-address.ts says how it is read). */
export function addressesIn(text: string): string[] {
  return addressesInText(text).map((found) => found.shown);
}

/**
 * Walks the whole body, property names included: an outside address, or one in a form this server
 * does not read, anywhere refuses the call. A field the platform reads as addresses (an e-mail
 * parameter) must hold exactly plain addresses; any other text is read as running text.
 */
function findOutsideAddresses(value: unknown, path: PathSegment[], context: WalkContext, findings: Findings): void {
  const { allowlist, name } = context;
  const report = (found: FoundAddress, at: readonly PathSegment[]) => {
    if ('problem' in found) {
      findings.unplain.push(found.shown);
      findings.issues.push({ parameter: name(at), problem: `${found.shown} is not a plain e-mail address: it ${found.problem}; with the invitation allowlist set, only ${PLAIN_ADDRESS} at ${allowlist.text} are sent` });
    } else if (!allows(allowlist, found)) {
      findings.refusedAddresses.push(found.shown);
      findings.issues.push({ parameter: name(at), problem: `${found.shown} is not allowed: this server may invite, add or name only addresses at ${allowlist.text} (the operator's invitation allowlist)` });
    }
  };
  const check = (text: string, at: readonly PathSegment[], isKey = false) => {
    const format = isKey ? undefined : context.addressFields.get(at.filter((segment) => typeof segment === 'string').join('.'));
    if (format === undefined) {
      for (const found of addressesInText(text)) report(found, at);
      return;
    }
    // A comma-separated list is split where the platform splits it.
    for (const part of format === 'comma-emails' ? text.split(',').map((piece) => piece.trim()) : [text]) {
      const read = readPlainAddress(part);
      report({ shown: part, ...read }, at);
    }
  };
  if (typeof value === 'string') check(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => findOutsideAddresses(item, [...path, i], context, findings));
  else if (isRecord(value)) {
    for (const [key, child] of Object.entries(value)) {
      check(key, [...path, key], true);
      findOutsideAddresses(child, [...path, key], context, findings);
    }
  }
}

/** Null means "not given" in a request body: such a field is dropped before sending. */
function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

function valueAt(body: unknown, dotted: string): unknown {
  let node = body;
  for (const key of dotted.split('.')) node = isRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  return node;
}

function findWidening(body: unknown, fields: readonly AccessField[], allowlist: InviteAllowlist, name: (path: readonly PathSegment[]) => string, findings: Findings): void {
  for (const field of fields) {
    const value = valueAt(body, field.path);
    const path = field.path.split('.');
    if (isAbsent(value)) continue;
    if (field.domains) {
      if (!Array.isArray(value)) continue;
      value.forEach((item, i) => {
        const domain = typeof item === 'string' ? readDomain(item.trim().replace(/^@/, '')) : undefined;
        if (domain && 'ascii' in domain && allowlist.domains.has(domain.ascii)) return;
        findings.widened.push(name([...path, i]));
        const allowed = allowlist.domains.size ? `only the domains ${[...allowlist.domains].join(', ')}` : 'no domain (it lists single addresses only)';
        findings.issues.push({ parameter: name([...path, i]), problem: `${JSON.stringify(item)} would open ${field.opensTo}; the invitation allowlist allows ${allowed}` });
      });
      continue;
    }
    if (typeof value === 'string' && field.closed?.includes(value)) continue;
    findings.widened.push(name(path));
    const closed = (field.closed ?? []).map((v) => JSON.stringify(v)).join(' or ');
    findings.issues.push({ parameter: name(path), problem: `${JSON.stringify(value)} would open ${field.opensTo}; with the invitation allowlist set (${allowlist.text}) only ${closed} is allowed here` });
  }
}

/** The names a schema object allows at one level, and the schema of each. */
function propertiesOf(schema: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isRecord(schema)) return out;
  if (isRecord(schema.properties)) for (const [key, child] of Object.entries(schema.properties)) out.set(key, child);
  for (const branch of ['allOf', 'anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[branch])) for (const part of schema[branch] as unknown[]) for (const [key, child] of propertiesOf(part)) out.set(key, child);
  }
  return out;
}

/**
 * Fields a two-mode body has beyond its schema: the platform might read one as a way to share
 * (a field added after our copy of its spec), and this server cannot judge it, so it is refused.
 */
function findUnknownFields(value: unknown, schema: unknown, path: PathSegment[], name: (path: readonly PathSegment[]) => string, findings: Findings): void {
  if (Array.isArray(value)) {
    const items = isRecord(schema) ? schema.items : undefined;
    value.forEach((item, i) => findUnknownFields(item, items, [...path, i], name, findings));
    return;
  }
  if (!isRecord(value)) return;
  const known = propertiesOf(schema);
  for (const [key, child] of Object.entries(value)) {
    if (known.has(key)) {
      findUnknownFields(child, known.get(key), [...path, key], name, findings);
      continue;
    }
    findings.unknown.push(name([...path, key]));
    const allowed = known.size ? ` (known here: ${[...known.keys()].join(', ')})` : '';
    findings.issues.push({ parameter: name([...path, key]), problem: `unknown property "${key}": with the invitation allowlist set, this tool sends only fields whose effect on sharing is known${allowed}` });
  }
}

function refusal(findings: Findings, allowlist: InviteAllowlist): ToolError {
  const addresses = [...new Set(findings.refusedAddresses)];
  const parts: string[] = [];
  if (addresses.length) {
    const shown = `${addresses.slice(0, 5).join(', ')}${addresses.length > 5 ? ` and ${addresses.length - 5} more` : ''}`;
    parts.push(`${shown} ${addresses.length === 1 ? 'is' : 'are'} outside the invitation allowlist (${allowlist.text})`);
  }
  const unplain = [...new Set(findings.unplain)];
  if (unplain.length) parts.push(`${unplain.slice(0, 5).join(', ')} ${unplain.length === 1 ? 'is not a plain e-mail address' : 'are not plain e-mail addresses'}; with the invitation allowlist (${allowlist.text}) only ${PLAIN_ADDRESS} are sent`);
  if (findings.widened.length) parts.push(`${findings.widened.slice(0, 5).join(', ')} would open access wider than the invitation allowlist (${allowlist.text}) allows`);
  if (findings.unknown.length) parts.push(`${findings.unknown.slice(0, 5).join(', ')} ${findings.unknown.length === 1 ? 'is a field' : 'are fields'} whose effect on sharing this server cannot check`);
  const steps = [
    addresses.length ? 'name only addresses on the allowlist' : '',
    unplain.length ? 'write each address plainly, as name@domain' : '',
    findings.widened.length ? 'leave out the settings that widen access (or set them closed)' : '',
    findings.unknown.length ? 'send only the fields of the request schema' : '',
  ].filter(Boolean);
  return new ToolError({
    ...ToolError.invalidInput(limitIssues(findings.issues)).details,
    message: `Nothing was sent: ${parts.join('; ')}.`,
    nextStep: `Call again and ${steps.join(', ')}. If more sharing is needed, ask the user to do it in the platform themselves or the operator to extend the allowlist.`,
  });
}

/** A create's body with every `closedOnCreate` field it leaves out set closed (a copy, not the caller's object). */
function withClosedDefaults(body: unknown, fields: readonly AccessField[]): unknown {
  const missing = fields.filter((field) => field.closedOnCreate && isAbsent(valueAt(body, field.path)));
  if (!missing.length || !isRecord(body)) return body;
  const copy = structuredClone(body);
  for (const field of missing) {
    const keys = field.path.split('.');
    let node: Json = copy;
    for (const key of keys.slice(0, -1)) {
      if (!isRecord(node[key])) node[key] = {};
      node = node[key] as Json;
    }
    node[keys[keys.length - 1] as string] = field.closed?.[0];
  }
  return copy;
}
