/**
 * An OAuth 2.0 authorization server for the sandbox platforms: authorization code grant with
 * mandatory PKCE (S256), refresh with rotation, revocation, and token verification for the API
 * emulators. One `OAuthAuthority` per platform; the platform mounts its endpoints where the real
 * one has them and asks `verify()` about every bearer token that is not the static sandbox token.
 *
 * Behaviour (RFC 6749, RFC 7636, RFC 7009, RFC 8252 loopback redirects):
 *  - authorize (GET): `client_id` must be registered and `redirect_uri` must be a loopback
 *    `http://127.0.0.1|localhost|[::1][:port]/...` URI; otherwise 400 HTML and no redirect. Other
 *    problems redirect back with `error` (`invalid_request`, `unsupported_response_type`,
 *    `invalid_scope`, `access_denied`), `error_description` and the unchanged `state`. Consent
 *    `auto` redirects with a code at once; `click` shows a page whose "Allow" button POSTs to the
 *    approve endpoint, which redirects. Codes are single-use and live 60 s.
 *  - token (POST form; client_secret_post or HTTP Basic): `authorization_code` (code, client,
 *    redirect_uri equality, S256(code_verifier) == code_challenge) and `refresh_token` (rotation:
 *    the presented refresh token dies, a new pair is issued). A reused code also revokes what the
 *    code produced (RFC 6749 4.1.2). Errors `{error, error_description}`: 400, 401 for client auth.
 *  - revoke: RFC 7009 form (`revokeRequest`, always 200 for a valid client) or by access token
 *    (`revokeAccessToken`, the whiteboard style). Revoking any token of a grant kills the grant:
 *    its refresh token and every access token issued from it.
 *  - Access tokens expire after `tokenLifetimeSeconds`; refresh tokens only die by rotation or
 *    revocation. All times come from the injected clock.
 *
 * No error message, page or recorded value contains a secret, code, verifier or token.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SandboxRequest, SandboxResponse } from './exchange.js';

export type OAuthFlavour = 'incidentops' | 'canvasapi';
export type ConsentMode = 'auto' | 'click';

/** The user-facing OAuth settings of a sandbox (`SandboxOptions.oauth`). */
export interface OAuthSettings {
  /** Access-token lifetime in seconds (default 3600; fractions allowed, e.g. for tests). */
  tokenLifetimeSeconds?: number;
  /** `auto` (default): authorize redirects at once; `click`: an HTML consent page with an "Allow" button. */
  consent?: ConsentMode;
  /** The registered client (default 'toolservers-sandbox' / 'sandbox-client-secret'). */
  clientId?: string;
  clientSecret?: string;
  /** Clock of the authority (codes, token expiry). Default: the real clock. */
  now?: () => Date;
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export interface OAuthAuthorityOptions extends OAuthSettings {
  flavour: OAuthFlavour;
  /** Shown on the consent page, e.g. 'IncidentOps sandbox'. */
  displayName: string;
  /** Registered clients; default: the one client of `clientId`/`clientSecret`. */
  clients?: OAuthClient[];
  /** The user who signs in when nobody is picked (no `login_hint`, auto consent). */
  userId: string;
  userName?: string;
  /**
   * Everyone who can sign in (default: only `userId`). The consent page offers a picker of them;
   * `login_hint` (a user ID or e-mail address) pre-selects one, and with auto consent signs in as it.
   */
  users?: () => readonly SandboxUser[];
  /** Whiteboard flavour: the team the tokens are bound to (`team_id` of the token response). */
  teamId?: string;
  /** Scopes this authority knows. */
  supportedScopes: readonly string[];
  /** Scopes granted when the request names none (default: all supported). */
  defaultScopes?: readonly string[];
  /** Path of the approve endpoint below the platform base URL (default '/oauth/approve'). */
  approvePath?: string;
}

/** Someone who can sign in to a sandbox platform. */
export interface SandboxUser {
  id: string;
  name: string;
  email?: string;
}

/** How many users the consent page's picker lists (the hinted user is always among them). */
const PICKER_SIZE = 25;

export type TokenStatus = 'valid' | 'expired' | 'revoked' | 'unknown';

export interface TokenVerification {
  status: TokenStatus;
  /** Owner of the token (absent when unknown). */
  user?: string;
  /** Whiteboard flavour: the team of the token. */
  team?: string;
  clientId?: string;
  /** Granted scopes (empty when unknown). */
  scopes: string[];
  /** Expiry, epoch milliseconds (absent when unknown). */
  expiresAt?: number;
  issuedAt?: number;
}

export const DEFAULT_OAUTH_CLIENT_ID = 'toolservers-sandbox';
export const DEFAULT_OAUTH_CLIENT_SECRET = 'sandbox-client-secret';
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;
export const CODE_LIFETIME_MS = 60_000;
/** How long a consent page may wait for its click. */
const PENDING_LIFETIME_MS = 10 * 60_000;
/** base64url of '{"canvasapi.origin":"sandbox"}': whiteboard tokens carry an origin prefix like the real ones. */
const CANVAS_TOKEN_PREFIX = `${Buffer.from('{"canvasapi.origin":"sandbox"}', 'utf8').toString('base64url')}_`;
const VERIFIER_RE = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

interface Grant {
  clientId: string;
  user: string;
  scopes: string[];
  revoked: boolean;
  /** The one live refresh token of the grant. */
  refreshToken?: string;
}

interface CodeRecord {
  user: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
  /** The grant the code was exchanged for (revoked when the code is replayed). */
  grant?: Grant;
}

interface PendingAuthorization {
  /** The user the code is for (the picked one). */
  user: string;
  clientId: string;
  redirectUri: string;
  state: string | undefined;
  challenge: string;
  scopes: string[];
  expiresAt: number;
}

interface AccessRecord {
  grant: Grant;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
}

class OAuthFailure extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function htmlPage(status: number, title: string, content: string): SandboxResponse {
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' },
    text: `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>\n<body>\n<h1>${escapeHtml(title)}</h1>\n${content}\n</body></html>\n`,
  };
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Constant-time string equality. */
function same(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Loopback redirect URI per RFC 8252 7.3: http, a loopback host, any port, no fragment or credentials. */
export function isLoopbackRedirectUri(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' || url.username !== '' || url.password !== '' || url.hash !== '' || value.includes('#')) return false;
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

/** Decoded parameters with their repeat count (OAuth parameters must not be repeated). */
class Params {
  private readonly map = new Map<string, string[]>();

  constructor(pairs: Iterable<[string, string]>) {
    for (const [k, v] of pairs) {
      const list = this.map.get(k);
      if (list) list.push(v);
      else this.map.set(k, [v]);
    }
  }

  /** The value, undefined when absent or empty; a repeated parameter is an invalid_request. */
  get(name: string): string | undefined {
    const list = this.map.get(name);
    if (!list) return undefined;
    if (list.length > 1) throw new OAuthFailure('invalid_request', `The ${name} parameter must not be repeated.`);
    const v = list[0];
    return v === '' ? undefined : v;
  }

  repeated(name: string): boolean {
    return (this.map.get(name)?.length ?? 0) > 1;
  }

  /** Fill in names this one lacks from another source. */
  withFallback(other: [string, string][]): Params {
    const out = new Params([]);
    for (const [k, v] of this.map) out.map.set(k, v.slice());
    for (const [k, v] of other) if (!this.map.has(k)) out.map.set(k, [...(out.map.get(k) ?? []), v]);
    return out;
  }
}

function contentEssence(req: SandboxRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** The form body; an empty body is an empty form, any other content type is an invalid_request. */
function formParams(req: SandboxRequest): Params {
  if (req.body.length === 0) return new Params([]);
  if (contentEssence(req) !== 'application/x-www-form-urlencoded') {
    throw new OAuthFailure('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  return new Params(new URLSearchParams(req.body.toString('utf8')));
}

function oauthError(failure: OAuthFailure, realm: string): SandboxResponse {
  return {
    status: failure.status,
    headers: {
      'cache-control': 'no-store',
      pragma: 'no-cache',
      ...(failure.status === 401 ? { 'www-authenticate': `Basic realm="${realm}", error="${failure.error}"` } : {}),
    },
    body: { error: failure.error, error_description: failure.description },
  };
}

export class OAuthAuthority {
  readonly flavour: OAuthFlavour;
  readonly displayName: string;
  readonly clients: readonly OAuthClient[];
  readonly userId: string;
  readonly teamId: string | undefined;
  readonly supportedScopes: readonly string[];
  readonly defaultScopes: readonly string[];
  readonly consent: ConsentMode;
  readonly tokenLifetimeMs: number;
  private readonly users: () => readonly SandboxUser[];
  private readonly approvePath: string;
  private readonly clock: () => Date;
  private readonly codes = new Map<string, CodeRecord>();
  private readonly pending = new Map<string, PendingAuthorization>();
  private readonly accessTokens = new Map<string, AccessRecord>();
  /** Every refresh token ever issued; a rotated one still maps to its grant (so reuse is recognised). */
  private readonly refreshTokens = new Map<string, Grant>();

  constructor(options: OAuthAuthorityOptions) {
    const lifetime = options.tokenLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIME_SECONDS;
    if (!Number.isFinite(lifetime) || lifetime <= 0) throw new Error(`oauth.tokenLifetimeSeconds must be a positive number, got ${String(lifetime)}`);
    this.flavour = options.flavour;
    this.displayName = options.displayName;
    this.clients = options.clients ?? [{ clientId: options.clientId ?? DEFAULT_OAUTH_CLIENT_ID, clientSecret: options.clientSecret ?? DEFAULT_OAUTH_CLIENT_SECRET }];
    if (this.clients.length === 0) throw new Error('an OAuth authority needs at least one client');
    this.userId = options.userId;

    const self: SandboxUser = { id: options.userId, name: options.userName ?? options.userId };
    this.users = options.users ?? (() => [self]);
    this.teamId = options.teamId;
    this.supportedScopes = options.supportedScopes;
    this.defaultScopes = options.defaultScopes ?? options.supportedScopes;
    this.consent = options.consent ?? 'auto';
    this.tokenLifetimeMs = lifetime * 1000;
    this.approvePath = options.approvePath ?? '/oauth/approve';
    this.clock = options.now ?? (() => new Date());
  }

  /** The scope string a client should request to get everything (space-separated). */
  get scope(): string {
    return this.defaultScopes.join(' ');
  }

  private now(): number {
    return this.clock().getTime();
  }

  private client(id: string | undefined): OAuthClient | undefined {
    return id === undefined ? undefined : this.clients.find((c) => same(c.clientId, id));
  }

  // ------------------------------------------------------------------------------ authorize

  /** GET authorize: 302 back to the client (auto consent), a consent page (click), or 400 HTML. */
  authorize(req: SandboxRequest): SandboxResponse {
    const params = new Params(req.query);
    if (params.repeated('client_id') || params.repeated('redirect_uri')) {
      return htmlPage(400, 'Invalid authorization request', '<p>The client_id and redirect_uri parameters must appear once.</p>');
    }
    const clientId = params.get('client_id');
    if (!this.client(clientId)) {
      return htmlPage(400, 'Unknown client', `<p>${clientId === undefined ? 'The request has no client_id.' : `No application with client_id <code>${escapeHtml(clientId)}</code> is registered here.`}</p>`);
    }
    const redirectUri = params.get('redirect_uri');
    if (redirectUri === undefined || !isLoopbackRedirectUri(redirectUri)) {
      return htmlPage(
        400,
        'Invalid redirect URI',
        '<p>The redirect_uri must be a loopback address such as <code>http://127.0.0.1:PORT/callback</code> or <code>http://localhost:PORT/callback</code>. The browser is not sent anywhere.</p>',
      );
    }
    const state = params.repeated('state') ? undefined : params.get('state');
    try {
      if (params.repeated('state')) throw new OAuthFailure('invalid_request', 'The state parameter must not be repeated.');
      const responseType = params.get('response_type');
      if (responseType === undefined) throw new OAuthFailure('invalid_request', 'response_type is required (use response_type=code).');
      if (responseType !== 'code') throw new OAuthFailure('unsupported_response_type', `Only response_type=code is supported, got ${JSON.stringify(responseType)}.`);
      const challenge = params.get('code_challenge');
      const method = params.get('code_challenge_method');
      if (challenge === undefined) throw new OAuthFailure('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256.');
      if (method !== 'S256') throw new OAuthFailure('invalid_request', `code_challenge_method must be S256, got ${method === undefined ? 'none (plain)' : JSON.stringify(method)}.`);
      if (!CHALLENGE_RE.test(challenge)) throw new OAuthFailure('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
      const scopes = this.requestedScopes(params.get('scope'), this.defaultScopes);
      const hint = params.get('login_hint');
      const hinted = hint === undefined ? undefined : this.findUser(hint);
      if (hint !== undefined && !hinted) throw new OAuthFailure('invalid_request', 'login_hint names no user of this sandbox (give a user ID or e-mail address).');
      const user = hinted?.id ?? this.userId;
      const request: PendingAuthorization = { user, clientId: clientId as string, redirectUri, state, challenge, scopes, expiresAt: this.now() + PENDING_LIFETIME_MS };
      if (this.consent === 'auto') return this.redirectWithCode(request);
      return this.consentPage(req.baseUrl, request);
    } catch (err) {
      if (err instanceof OAuthFailure) return this.redirect(redirectUri, { error: err.error, error_description: err.description, state });
      throw err;
    }
  }

  /** POST approve (the consent page's form): `request` = the pending authorization, `decision` = allow | deny. */
  approve(req: SandboxRequest): SandboxResponse {
    let params: Params;
    try {
      params = formParams(req);
      params.get('request');
      params.get('decision');
      params.get('user');
    } catch {
      return htmlPage(400, 'Invalid approval', '<p>The approval must be the consent page\'s form (application/x-www-form-urlencoded, fields sent once).</p>');
    }
    const id = params.get('request');
    const request = id === undefined ? undefined : this.pending.get(id);
    if (id !== undefined) this.pending.delete(id);
    if (!request || request.expiresAt <= this.now()) {
      return htmlPage(400, 'Authorization request expired', '<p>This authorization request is unknown, already answered or expired. Start the sign-in again.</p>');
    }
    const decision = params.get('decision');
    if (decision !== 'allow') return this.redirect(request.redirectUri, { error: 'access_denied', error_description: 'The user denied access.', state: request.state });
    // No pick sent: the pre-selected user (the hinted one, else the default).
    const picked = params.get('user') ?? request.user;
    const user = this.users().find((candidate) => candidate.id === picked);
    if (!user) return htmlPage(400, 'Choose who signs in', '<p>The approval named no user of this sandbox. Start the sign-in again and pick a user.</p>');
    return this.redirectWithCode({ ...request, user: user.id });
  }

  /** A user by ID or e-mail address (case-insensitive). */
  private findUser(hint: string): SandboxUser | undefined {
    const wanted = hint.trim().toLowerCase();
    return this.users().find((user) => user.id.toLowerCase() === wanted || user.email?.toLowerCase() === wanted);
  }

  /**
   * The consent page: who signs in (a radio group of users, the hinted or default one checked),
   * the client and its scopes, Allow and Deny. The form carries the pending request's random,
   * single-use ID, which no other site can know: it is the page's CSRF token.
   */
  private consentPage(baseUrl: string, request: PendingAuthorization): SandboxResponse {
    const id = randomToken(18);
    this.pending.set(id, request);
    const all = this.users();
    const chosen = all.find((user) => user.id === request.user);
    const shown = all.slice(0, PICKER_SIZE);
    if (chosen && !shown.includes(chosen)) shown.unshift(chosen);
    const options = shown
      .map((user, index) => {
        const inputId = `user-${index}`;
        const label = `${escapeHtml(user.name)}${user.email ? ` &lt;${escapeHtml(user.email)}&gt;` : ''} (${escapeHtml(user.id)})`;
        return `<div><input type="radio" id="${inputId}" name="user" value="${escapeHtml(user.id)}"${user.id === request.user ? ' checked' : ''} required> <label for="${inputId}">${label}</label></div>`;
      })
      .join('\n');
    const scopes = request.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('');
    return htmlPage(
      200,
      `Allow access to ${this.displayName}?`,
      [
        `<p>The application <strong>${escapeHtml(request.clientId)}</strong> asks for these permissions:</p>`,
        `<ul>${scopes}</ul>`,
        `<form method="post" action="${escapeHtml(baseUrl + this.approvePath)}">`,
        `<input type="hidden" name="request" value="${escapeHtml(id)}">`,
        '<fieldset>',
        `<legend>Sign in as</legend>`,
        options,
        all.length > shown.length ? `<p>${all.length - shown.length} more users are not listed; pass login_hint=&lt;user ID or e-mail&gt; to choose one of them.</p>` : '',
        '</fieldset>',
        '<button type="submit" name="decision" value="allow">Allow</button>',
        '<button type="submit" name="decision" value="deny">Deny</button>',
        '</form>',
      ].join('\n'),
    );
  }

  private redirectWithCode(request: PendingAuthorization): SandboxResponse {
    const code = randomToken(24);
    this.codes.set(code, {
      user: request.user,
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      challenge: request.challenge,
      scopes: request.scopes,
      expiresAt: this.now() + CODE_LIFETIME_MS,
      used: false,
    });
    return this.redirect(request.redirectUri, { code, state: request.state });
  }

  private redirect(uri: string, values: Record<string, string | undefined>): SandboxResponse {
    const url = new URL(uri);
    for (const [k, v] of Object.entries(values)) if (v !== undefined) url.searchParams.set(k, v);
    return { status: 302, headers: { location: url.href, 'cache-control': 'no-store' } };
  }

  /** Requested scopes, checked against the supported (or, on refresh, the granted) ones. */
  private requestedScopes(raw: string | undefined, fallback: readonly string[], allowed: readonly string[] = this.supportedScopes): string[] {
    if (raw === undefined || raw.trim() === '') return [...fallback];
    const wanted = [...new Set(raw.split(/[\s,]+/).filter((s) => s !== ''))];
    const unknown = wanted.filter((s) => !allowed.includes(s));
    if (unknown.length > 0) throw new OAuthFailure('invalid_scope', `Unknown or not granted scope(s): ${unknown.join(', ')}; available: ${allowed.join(' ')}.`);
    return wanted;
  }

  // ------------------------------------------------------------------------------ token

  /** POST token: authorization_code and refresh_token grants. */
  token(req: SandboxRequest): SandboxResponse {
    try {
      let params = formParams(req);
      // The whiteboard platform documents its token parameters in the query string; accept both.
      if (this.flavour === 'canvasapi') params = params.withFallback(req.query);
      const client = this.authenticateClient(req, params);
      const grantType = params.get('grant_type');
      if (grantType === undefined) throw new OAuthFailure('invalid_request', 'grant_type is required.');
      if (grantType === 'authorization_code') return this.exchangeCode(client, params);
      if (grantType === 'refresh_token') return this.refresh(client, params);
      throw new OAuthFailure('unsupported_grant_type', `Unsupported grant_type ${JSON.stringify(grantType)}; use authorization_code or refresh_token.`);
    } catch (err) {
      if (err instanceof OAuthFailure) return oauthError(err, this.displayName);
      throw err;
    }
  }

  /** client_secret_basic or client_secret_post (exactly one); failures are 401 invalid_client. */
  private authenticateClient(req: SandboxRequest, params: Params): OAuthClient {
    const header = req.headers.authorization;
    const basic = header === undefined ? null : /^\s*Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    let id: string | undefined;
    let secret: string | undefined;
    if (basic) {
      if (params.get('client_secret') !== undefined) throw new OAuthFailure('invalid_request', 'Use one client authentication method: HTTP Basic or client_secret in the body, not both.');
      const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new OAuthFailure('invalid_client', 'Malformed HTTP Basic client credentials.', 401);
      const form = (s: string) => {
        try {
          return decodeURIComponent(s.replace(/\+/g, ' '));
        } catch {
          return s;
        }
      };
      id = form(decoded.slice(0, colon));
      secret = form(decoded.slice(colon + 1));
      const bodyId = params.get('client_id');
      if (bodyId !== undefined && bodyId !== id) throw new OAuthFailure('invalid_request', 'client_id in the body does not match the HTTP Basic credentials.');
    } else {
      id = params.get('client_id');
      secret = params.get('client_secret');
    }
    if (id === undefined) throw new OAuthFailure('invalid_client', 'Client authentication is required (HTTP Basic or client_id + client_secret).', 401);
    const client = this.client(id);
    if (!client || secret === undefined || !same(client.clientSecret, secret)) throw new OAuthFailure('invalid_client', 'Client authentication failed.', 401);
    return client;
  }

  private exchangeCode(client: OAuthClient, params: Params): SandboxResponse {
    const code = params.get('code');
    const redirectUri = params.get('redirect_uri');
    const verifier = params.get('code_verifier');
    if (code === undefined) throw new OAuthFailure('invalid_request', 'code is required.');
    if (verifier === undefined) throw new OAuthFailure('invalid_request', 'code_verifier is required (PKCE).');
    const record = this.codes.get(code);
    if (!record || record.clientId !== client.clientId) throw new OAuthFailure('invalid_grant', 'The authorization code is invalid.');
    if (record.used) {
      // A replayed code: whatever it produced is revoked too (RFC 6749 4.1.2).
      if (record.grant) record.grant.revoked = true;
      throw new OAuthFailure('invalid_grant', 'The authorization code has already been used.');
    }
    record.used = true; // any attempt consumes the code, so a verifier cannot be guessed
    if (record.expiresAt <= this.now()) throw new OAuthFailure('invalid_grant', 'The authorization code has expired.');
    if (redirectUri === undefined || redirectUri !== record.redirectUri) throw new OAuthFailure('invalid_grant', 'redirect_uri does not match the one of the authorization request.');
    if (!VERIFIER_RE.test(verifier) || !same(sha256(verifier).toString('base64url'), record.challenge)) {
      throw new OAuthFailure('invalid_grant', 'PKCE verification failed: the code_verifier does not match the code_challenge.');
    }
    const grant: Grant = { clientId: client.clientId, user: record.user, scopes: record.scopes, revoked: false };
    record.grant = grant;
    return this.issue(grant, grant.scopes);
  }

  private refresh(client: OAuthClient, params: Params): SandboxResponse {
    const token = params.get('refresh_token');
    if (token === undefined) throw new OAuthFailure('invalid_request', 'refresh_token is required.');
    const grant = this.refreshTokens.get(token);
    if (!grant || grant.clientId !== client.clientId) throw new OAuthFailure('invalid_grant', 'The refresh token is invalid.');
    if (grant.revoked) throw new OAuthFailure('invalid_grant', 'The refresh token has been revoked.');
    if (grant.refreshToken === undefined || !same(grant.refreshToken, token)) throw new OAuthFailure('invalid_grant', 'The refresh token has already been used (tokens rotate on every refresh).');
    const scopes = this.requestedScopes(params.get('scope'), grant.scopes, grant.scopes);
    return this.issue(grant, scopes);
  }

  /** A new access token and a new refresh token for the grant (the previous refresh token dies). */
  private issue(grant: Grant, scopes: string[]): SandboxResponse {
    const now = this.now();
    const accessToken = this.newToken('access');
    const refreshToken = this.newToken('refresh');
    this.accessTokens.set(accessToken, { grant, scopes, issuedAt: now, expiresAt: now + this.tokenLifetimeMs });
    grant.refreshToken = refreshToken;
    this.refreshTokens.set(refreshToken, grant);
    const body: Record<string, unknown> = {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: Math.max(1, Math.round(this.tokenLifetimeMs / 1000)),
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
    if (this.flavour === 'canvasapi') {
      body.user_id = grant.user;
      if (this.teamId !== undefined) body.team_id = this.teamId;
    }
    return { status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body };
  }

  private newToken(kind: 'access' | 'refresh'): string {
    if (this.flavour === 'incidentops') return `${kind === 'access' ? 'pdus' : 'pdur'}+_0${randomToken(30)}`;
    return `${CANVAS_TOKEN_PREFIX}${randomToken(kind === 'access' ? 27 : 33)}`;
  }

  // ------------------------------------------------------------------------------ revoke / verify

  /** RFC 7009 POST revoke (form `token`, optional `token_type_hint`, client authentication): 200 for any token. */
  revokeRequest(req: SandboxRequest): SandboxResponse {
    try {
      const params = formParams(req);
      const client = this.authenticateClient(req, params);
      const token = params.get('token');
      if (token === undefined) throw new OAuthFailure('invalid_request', 'token is required.');
      params.get('token_type_hint');
      const grant = this.accessTokens.get(token)?.grant ?? this.refreshTokens.get(token);
      // Tokens of other clients and unknown tokens are ignored, as RFC 7009 2.2 allows.
      if (grant && grant.clientId === client.clientId) grant.revoked = true;
      return { status: 200, headers: { 'cache-control': 'no-store' } };
    } catch (err) {
      if (err instanceof OAuthFailure) return oauthError(err, this.displayName);
      throw err;
    }
  }

  /**
   * Revoke by access token (the whiteboard style). With client credentials they must be those of
   * the token's client. 'revoked' when a live (possibly expired) token was revoked with its refresh
   * token; 'unknown' for an unknown or already revoked token or a client mismatch.
   */
  revokeAccessToken(token: string, client?: { clientId: string; clientSecret: string }): 'revoked' | 'unknown' {
    const record = this.accessTokens.get(token);
    if (!record || record.grant.revoked) return 'unknown';
    if (client) {
      const known = this.client(client.clientId);
      if (!known || known.clientId !== record.grant.clientId || !same(known.clientSecret, client.clientSecret)) return 'unknown';
    }
    record.grant.revoked = true;
    return 'revoked';
  }

  /** What an API emulator needs to know about a bearer token this authority may have issued. */
  verify(token: string): TokenVerification {
    const record = this.accessTokens.get(token);
    if (!record) return { status: 'unknown', scopes: [] };
    const status: TokenStatus = record.grant.revoked ? 'revoked' : record.expiresAt <= this.now() ? 'expired' : 'valid';
    return {
      status,
      user: record.grant.user,
      ...(this.teamId !== undefined ? { team: this.teamId } : {}),
      clientId: record.grant.clientId,
      scopes: [...record.scopes],
      expiresAt: record.expiresAt,
      issuedAt: record.issuedAt,
    };
  }
}

/** What a client needs to sign in against one sandbox platform. */
export interface OAuthEndpointInfo {
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes to request. */
  scope: string;
}

export function endpointInfo(authority: OAuthAuthority, urls: { authorizeUrl: string; tokenUrl: string; revokeUrl: string }): OAuthEndpointInfo {
  const client = authority.clients[0] as OAuthClient;
  return { ...urls, clientId: client.clientId, clientSecret: client.clientSecret, scope: authority.scope };
}

/** Keys whose values the request recorder never keeps (form fields, JSON properties, query parameters). */
export const SECRET_PARAMETER_NAMES: ReadonlySet<string> = new Set([
  'clientSecret',
  'client_secret',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'code',
  'code_verifier',
  'token',
]);

/** A copy of a parsed body with the values of secret-named properties replaced by '[redacted]', at any depth. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = SECRET_PARAMETER_NAMES.has(k) && v !== undefined && v !== null ? '[redacted]' : redactSecrets(v);
  return out;
}

export function redactPairs(pairs: readonly [string, string][]): [string, string][] {
  return pairs.map(([k, v]) => [k, SECRET_PARAMETER_NAMES.has(k) ? '[redacted]' : v]);
}
