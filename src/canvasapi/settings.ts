import { parseBoolean } from '../core/tools/selection.js';
import { nonEmpty, requireUrl, SettingsError, timeoutSetting } from '../core/settings.js';
import { readDomain, readPlainAddress } from './email-address.js';

/** Where CanvasApi credentials and the API host come from. Flags win over environment variables. */

export const CANVASAPI_DEFAULT_BASE_URL = 'https://api.miro.com';

export const CANVASAPI_ENV = {
  accessToken: 'CANVASAPI_ACCESS_TOKEN',
  baseUrl: 'CANVASAPI_BASE_URL',
  timeoutMs: 'CANVASAPI_TIMEOUT_MS',
  clientId: 'CANVASAPI_CLIENT_ID',
  clientSecret: 'CANVASAPI_CLIENT_SECRET',
  authorizeUrl: 'CANVASAPI_AUTHORIZE_URL',
  tokenUrl: 'CANVASAPI_TOKEN_URL',
} as const;

/** The platform's own sign-in endpoints (operators of a self-hosted install bring their own app credentials). */
export const CANVASAPI_DEFAULT_AUTHORIZE_URL = 'https://miro.com/oauth/authorize';
export const CANVASAPI_DEFAULT_TOKEN_URL = 'https://api.miro.com/v1/oauth/token';

export interface CanvasApiOAuthSettings {
  clientId?: string;
  clientSecret?: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** The platform's JSON revoke endpoint, on the API host. */
  revokeUrl: string;
}

export interface CanvasApiSettings {
  /** OAuth access token, sent as `Authorization: Bearer <token>`. */
  accessToken?: string;
  /** Host root; catalogue paths carry their own `/v1`, `/v2` or `/v2-experimental` prefix. */
  baseUrl: string;
  timeoutMs: number;
  /** For `toolservers login canvasapi` and for renewing a stored sign-in. */
  oauth: CanvasApiOAuthSettings;
  /** Whom tools may share with; set, no tool opens access wider either (invite-allowlist.ts). Unset: anyone. */
  inviteAllowlist?: InviteAllowlist;
  /** Lists and write echoes keep the bookkeeping fields and default styles (--full-records). */
  fullRecords?: boolean;
}

export interface CanvasApiSettingsInput {
  accessToken?: string;
  baseUrl?: string;
  timeoutMs?: number;
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** Comma-separated e-mail domains and addresses (--invite-allowed-domains). */
  inviteAllowedDomains?: string;
  /** --full-records: true, or text such as "true" / "false". */
  fullRecords?: boolean | string;
}

export function resolveCanvasApiSettings(flags: CanvasApiSettingsInput = {}, env: NodeJS.ProcessEnv = process.env): CanvasApiSettings {
  const baseUrl = nonEmpty(flags.baseUrl) ?? nonEmpty(env[CANVASAPI_ENV.baseUrl]) ?? CANVASAPI_DEFAULT_BASE_URL;
  requireUrl(baseUrl, `${CANVASAPI_ENV.baseUrl} / --base-url`);
  const timeoutMs = timeoutSetting(flags.timeoutMs, env[CANVASAPI_ENV.timeoutMs], CANVASAPI_ENV.timeoutMs);
  const pick = (key: 'clientId' | 'clientSecret' | 'authorizeUrl' | 'tokenUrl') => nonEmpty(flags[key]) ?? nonEmpty(env[CANVASAPI_ENV[key]]);
  const oauth: CanvasApiOAuthSettings = {
    authorizeUrl: requireUrl(pick('authorizeUrl') ?? CANVASAPI_DEFAULT_AUTHORIZE_URL, CANVASAPI_ENV.authorizeUrl),
    tokenUrl: requireUrl(pick('tokenUrl') ?? CANVASAPI_DEFAULT_TOKEN_URL, CANVASAPI_ENV.tokenUrl),
    revokeUrl: `${baseUrl.replace(/\/+$/, '')}/v2/oauth/revoke`,
  };
  const clientId = pick('clientId');
  const clientSecret = pick('clientSecret');
  if (clientId) oauth.clientId = clientId;
  if (clientSecret) oauth.clientSecret = clientSecret;
  const fullRecordsText = typeof flags.fullRecords === 'boolean' ? String(flags.fullRecords) : nonEmpty(flags.fullRecords) ?? nonEmpty(env[FULL_RECORDS_ENV]);
  const fullRecords = parseBoolean(fullRecordsText, `${FULL_RECORDS_ENV} / --full-records`) ?? false;
  const settings: CanvasApiSettings = { baseUrl, timeoutMs, oauth, fullRecords };
  const inviteAllowlist = parseInviteAllowlist(nonEmpty(flags.inviteAllowedDomains) ?? nonEmpty(env[INVITE_ALLOWLIST_ENV]));
  if (inviteAllowlist) settings.inviteAllowlist = inviteAllowlist;
  const accessToken = nonEmpty(flags.accessToken) ?? nonEmpty(env[CANVASAPI_ENV.accessToken]);
  if (accessToken) settings.accessToken = accessToken;
  return settings;
}

/** Lists and write echoes keep every field (the flag --full-records; per HTTP request the X-Toolservers-Full-Records header). */
export const FULL_RECORDS_ENV = 'TOOLSERVERS_FULL_RECORDS';

/**
 * The invitation allowlist (--invite-allowed-domains / TOOLSERVERS_INVITE_ALLOWED_DOMAINS): e-mail
 * domains and exact addresses that tools may share boards, teams and projects with.
 */
export const INVITE_ALLOWLIST_ENV = 'TOOLSERVERS_INVITE_ALLOWED_DOMAINS';

export interface InviteAllowlist {
  /** Domains whose every address is allowed, in their IDNA ASCII form (exactly that domain: a subdomain is listed on its own). */
  readonly domains: ReadonlySet<string>;
  /** Single addresses allowed: the name in lower case, "@", the domain's ASCII form. */
  readonly addresses: ReadonlySet<string>;
  /** As the operator wrote it, lower case, for messages. */
  readonly text: string;
}

/**
 * The allowlist from a comma-separated list of domains (`example.com`, `@example.com`, or in
 * Unicode: `bücher.example`) and plain addresses (`ana@partner.io`); undefined when unset or
 * blank. Throws on an entry that is neither, with the reason.
 */
export function parseInviteAllowlist(value: string | undefined): InviteAllowlist | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const domains = new Set<string>();
  const addresses = new Set<string>();
  const shown: string[][] = [[], []];
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const isAddress = entry.lastIndexOf('@') > 0;
    const read = isAddress ? readPlainAddress(entry) : readDomain(entry.replace(/^@/, ''));
    if ('problem' in read) {
      throw new SettingsError(`${INVITE_ALLOWLIST_ENV} / --invite-allowed-domains: ${JSON.stringify(raw.trim().slice(0, 100))} is neither an e-mail domain (example.com) nor a plain address (ana@partner.io): it ${read.problem}.`);
    }
    if ('ascii' in read) domains.add(read.ascii);
    else addresses.add(`${read.local}@${read.domain}`);
    shown[isAddress ? 1 : 0]!.push(entry.replace(/^@/, ''));
  }
  if (domains.size === 0 && addresses.size === 0) return undefined;
  return { domains, addresses, text: [...new Set(shown.flat())].join(', ') };
}
