/**
 * What the invitation allowlist counts as an e-mail address. RFC 5322 lets an address carry
 * comments, quoted local parts, white space around its dots and a source route, which a platform or
 * the mail system behind it may read as another mailbox than a simple scan sees
 * ("eve.(x)ana@partner.io" is eve.ana@partner.io). So only a plain address is compared with the
 * allowlist, and every other form is refused with the reason (docs/operations.md, "Invitation
 * allowlist"). Domains are compared as the mail system resolves them: their IDNA ASCII form (UTS #46,
 * as URLs read host names), lower case.
 */
import { domainToASCII } from 'node:url';

/** What a plain address is, for refusals. */
export const PLAIN_ADDRESS = "plain addresses (name@domain.tld: letters, digits and !#$%&'*+-/=?^_`{|}~ in dot-separated runs, then a domain name; no comments, quotes, spaces, routes or IP addresses)";

const ATEXT_CLASS = "A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~";
/** RFC 5322 dot-atom-text, ASCII only; '.' is not in atext, so this cannot backtrack. */
const DOT_ATOM = new RegExp(`^[${ATEXT_CLASS}]+(?:\\.[${ATEXT_CLASS}]+)*$`);
/** The at signs: '@' and the two that Unicode normalization (NFKC) makes one. */
const AT_SIGNS = new Set(['@', '\uff20', '\ufe6b']);
/** The dots IDNA reads as label separators. */
const DOTS = new Set(['.', '\uff0e', '\u3002', '\uff61']);
/** What a domain may be written with before IDNA: letters, marks and digits of any script, hyphens, dots. */
const DOMAIN_CHARS = /^[\p{L}\p{M}\p{N}\-.\uff0e\u3002\uff61]+$/u;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A domain as compared (its ASCII form), or what keeps it from being a plain DNS name, worded to follow "it". */
export function readDomain(domain: string): { ascii: string } | { problem: string } {
  if (domain === '') return { problem: 'has no domain after the @' };
  if (domain.startsWith('[')) return { problem: 'has an IP-address literal ([...]) as its domain' };
  if (DOTS.has(domain[domain.length - 1]!)) return { problem: 'has a domain ending in a dot' };
  if (!DOMAIN_CHARS.test(domain)) return { problem: 'has a domain with characters other than letters, digits, hyphens and dots' };
  if ([...DOTS].every((dot) => !domain.includes(dot))) return { problem: 'has a domain of a single label (no dot)' };
  // Before IDNA, which would take long over a megabyte of empty labels.
  if ([...domain].some((char, i) => DOTS.has(char) && (i === 0 || DOTS.has(domain[i - 1]!)))) return { problem: 'has a domain with an empty label (a leading dot or two dots in a row)' };
  // URL host parsing reads a last label of digits, or "0x..." hexadecimal, as part of an IPv4 address.
  if (/(?:^|[.\uff0e\u3002\uff61])(?:\d+|0x[0-9a-f]*)$/i.test(domain)) return { problem: 'has an IP address as its domain' };
  const ascii = domainToASCII(domain);
  if (ascii === '') return { problem: 'has a domain that is not a valid internationalized domain name' };
  const labels = ascii.split('.');
  if (ascii.length > 253 || labels.some((label) => label.length > 63)) return { problem: 'has a domain longer than DNS allows (63 characters a label, 253 in all)' };
  if (!labels.every((label) => LABEL.test(label))) return { problem: 'has a domain label that begins or ends with a hyphen' };
  if (/^\d+$/.test(labels[labels.length - 1]!)) return { problem: 'has an IP address as its domain' };
  return { ascii };
}

/** What keeps a local part from being a plain dot-atom, worded to follow "it"; undefined when it is one. */
export function localPartProblem(local: string): string | undefined {
  if (local === '') return 'has nothing before the @';
  if (local.length > 64) return 'has a name (before the @) longer than 64 characters';
  if (DOT_ATOM.test(local)) return undefined;
  if (/[^\x21-\x7e]/.test(local)) return 'has a name (before the @) with characters outside ASCII letters, digits and !#$%&\'*+-/=?^_`{|}~';
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return 'has a name (before the @) that begins or ends with a dot or has two dots in a row';
  return 'has a name (before the @) with characters other than letters, digits, dots and !#$%&\'*+-/=?^_`{|}~';
}

/** A plain address: its name in lower case (mailboxes are matched case-insensitively) and its domain as compared. */
export interface PlainAddress {
  readonly local: string;
  readonly domain: string;
}

/** Why a whole value with these characters is no plain address, before its parts are read. */
function formProblem(value: string): string | undefined {
  if (/\s/u.test(value)) return 'has white space';
  if (/[()]/.test(value)) return 'has a comment in parentheses';
  if (/["\\]/.test(value)) return 'has a quoted part or a backslash escape';
  if (/[<>]/.test(value)) return 'has angle brackets (a name-and-address form)';
  const ats = [...value].filter((char) => AT_SIGNS.has(char));
  if (ats.length === 0) return 'has no @';
  if (ats.length > 1) return /^[@\uff20\ufe6b][^:]*:/.test(value) ? 'has a source route (@host:) before it' : 'has more than one @';
  if (ats[0] !== '@') return 'has a full-width @';
  if (/[:;,]/.test(value)) return 'has a colon, semicolon or comma (a group or a list)';
  return undefined;
}

/** A whole value read as one address (a field the platform reads as one), or why it is not a plain one. */
export function readPlainAddress(value: string): PlainAddress | { problem: string } {
  const problem = formProblem(value);
  if (problem) return { problem };
  const at = value.indexOf('@');
  const localProblem = localPartProblem(value.slice(0, at));
  if (localProblem) return { problem: localProblem };
  const domain = readDomain(value.slice(at + 1));
  return 'problem' in domain ? domain : { local: value.slice(0, at).toLowerCase(), domain: domain.ascii };
}

/**
 * One address-shaped part of a text, as written (`shown`): a plain address, a domain alone ("@x.io",
 * with `local` empty), or a form this server does not read (`problem`).
 */
export type FoundAddress = { readonly shown: string } & (PlainAddress | { readonly problem: string });

/** RFC 5322 specials and white space: what ends an unquoted name. Everything else ASCII is atext or a dot. */
const LOCAL_STOP = /[\s()<>[\]:;@\\,"\uff20\ufe6b]/u;
/** What ends a domain in running text: white space, URL and sentence punctuation. A domain literal's '[' is kept, to be refused. */
const DOMAIN_STOP = /[\s<>(){},;:"'`@\\/?#!|\]\uff20\ufe6b]/u;
/** Characters that open a quotation: a '"' after one of them starts a quote rather than ending one. */
const OPENS = /[\s(<[,;:]/u;
/** How far a refusal quotes the text around a construct. */
const SHOWN_AROUND = 200;

/**
 * Every address-shaped part of a running text: each at sign with a domain after it. The name is
 * what precedes the at sign up to a special character or white space; a comment, a quote, an escape,
 * a second at sign or a route touching it makes the whole a form that is refused, as does a name or
 * domain that is not plain. White space ends an address here (a sentence, not a field; fields read
 * as one address go through readPlainAddress), and a domain's trailing dots are the sentence's.
 * Linear: each scan stops at the neighbouring at sign.
 */
export function addressesInText(text: string): FoundAddress[] {
  const found: FoundAddress[] = [];
  for (let at = 0; at < text.length; at += 1) {
    if (!AT_SIGNS.has(text[at]!)) continue;
    const read = addressAt(text, at);
    if (read) found.push(read);
  }
  return found;
}

function addressAt(text: string, at: number): FoundAddress | undefined {
  let end = at + 1;
  while (end < text.length && !DOMAIN_STOP.test(text[end]!)) end += 1;
  let domainEnd = end;
  // A loop, since /\.+$/ is quadratic on "@....x".
  while (domainEnd > at + 1 && DOTS.has(text[domainEnd - 1]!)) domainEnd -= 1;
  const after = text[end];
  if (domainEnd === at + 1 && after !== '(') return undefined;
  let start = at;
  while (start > 0 && !LOCAL_STOP.test(text[start - 1]!)) start -= 1;
  const local = text.slice(start, at);
  const domain = text.slice(at + 1, domainEnd);
  const shown = `${local}${text[at]}${domain}`;
  const touching = touchingProblem(text, start, local) ?? (after === '(' ? 'has a comment in parentheses' : undefined);
  if (touching || domain.startsWith('[')) return { shown: around(text, start, domainEnd), problem: touching ?? 'has an IP-address literal ([...]) as its domain' };
  if (text[at] !== '@') return { shown, problem: 'has a full-width @' };
  const read = readDomain(domain);
  if ('problem' in read) return { shown, problem: read.problem };
  if (local === '') return { shown, local: '', domain: read.ascii };
  const localProblem = localPartProblem(local);
  return localProblem ? { shown, problem: localProblem } : { shown, local: local.toLowerCase(), domain: read.ascii };
}

/** What touches a name on its left and makes it part of a longer RFC 5322 form. */
function touchingProblem(text: string, start: number, local: string): string | undefined {
  const before = text[start - 1];
  if (before === ')') return 'has a comment in parentheses';
  if (before === '\\') return 'has a backslash escape';
  if (before !== undefined && AT_SIGNS.has(before)) return 'has more than one @';
  if (before === '"' && (local === '' || !(start < 2 || OPENS.test(text[start - 2]!)))) return 'has a quoted name (before the @)';
  if (before === ':') {
    for (let i = start - 2; i >= 0 && !/\s/u.test(text[i]!); i -= 1) if (AT_SIGNS.has(text[i]!)) return 'has a source route (@host:) before it';
  }
  return undefined;
}

/** The text around a refused form, up to white space on either side (bounded), without a closing full stop or comma. */
function around(text: string, from: number, to: number): string {
  let start = from;
  while (start > 0 && from - start < SHOWN_AROUND && !/\s/u.test(text[start - 1]!)) start -= 1;
  let end = to;
  while (end < text.length && end - to < SHOWN_AROUND && !/\s/u.test(text[end]!)) end += 1;
  return text.slice(start, end).replace(/[.,;:!?]+$/, '');
}
