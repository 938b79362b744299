/**
 * Where one platform's Authorization header comes from: an explicit token (environment or flag)
 * first, else the stored sign-in, renewed with its refresh token shortly before it expires or once
 * after a 401. Platform-neutral: the platform key, client settings and store come in as options.
 *
 * Renewal uses the client stored with the sign-in (client ID, secret, token URL), so a server
 * started with none of those settings keeps working; a setting that is set wins (see client.ts).
 *
 * Refreshes are single-flight inside a process and serialised across processes by the store's
 * lock: the stored entry is re-read under the lock, and when another process already renewed it,
 * its result is used instead of spending the (possibly rotating) refresh token a second time.
 *
 * When no token can be sent, the reason is specific: nobody signed in, the credentials file cannot
 * be used (which file, what is wrong, how to repair it), the sign-in was made for another base URL
 * (both named), or it expired and cannot be renewed (and why).
 */

import { ToolError, type ToolErrorKind } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { resolveClient, type OAuthClientSettings, type ResolvedClient, type ValueSource } from './client.js';
import type { ClientAuthMethod, OAuthEndpoints } from './oauth.js';
import { OAuthError } from './oauth-error.js';
import { printable } from './printable.js';
import { CredentialStoreError, type FileTokenStore, type StoredCredential } from './token-store.js';

export interface CredentialSourceOptions {
  /** Platform key as used in the store and in `toolservers login <platform>`. */
  platform: string;
  /** Explicit token from the environment or a flag: highest precedence, never refreshed. */
  envToken?: string;
  store?: FileTokenStore;
  /** The OAuth client from the server's settings; values set there win over the stored ones. */
  client?: OAuthClientSettings;
  /** How the client authenticates when it has a secret (default `post`). */
  clientAuth?: ClientAuthMethod;
  /** The API base URL in use; a stored sign-in made for another base URL is not sent there. */
  baseUrl?: string;
  /** The setting that chooses the base URL, for messages (e.g. `CANVASAPI_BASE_URL`). */
  baseUrlSetting?: string;
  /** Refresh this long before expiry (default 60 s; at most half the token's lifetime). */
  refreshSkewMs?: number;
  /** Epoch ms (default Date.now). */
  now?: () => number;
  fetch?: typeof fetch;
  logger?: Logger;
  /** Per refresh request (default 20 s). */
  refreshTimeoutMs?: number;
  /** The command that signs in again (default `toolservers login <platform>`). */
  loginCommand?: string;
}

/** Why no (or no fresh) stored token is available. */
export type CredentialProblemCode =
  | 'not_signed_in' // nothing stored for this platform
  | 'no_store' // this source has no store at all
  | 'store_unusable' // the credentials file cannot be read or rewritten
  | 'entry_malformed' // this platform's entry in the file is malformed
  | 'other_base_url' // the sign-in was made for another API base URL
  | 'not_renewable' // expired (or rejected) and nothing to renew it with
  | 'renewal_rejected' // the token endpoint refused the refresh token or the client
  | 'renewal_failed'; // renewal did not get an answer (network, timeout, ...)

export interface CredentialDescription {
  source: 'environment' | 'stored sign-in' | 'none';
  /** Epoch ms. */
  expiresAt?: number;
  obtainedAt?: number;
  scope?: string;
  account?: { id?: string; name?: string; email?: string };
  /** The API base URL the stored sign-in was made for. */
  signedInFor?: string;
  /** Whether the stored sign-in has a refresh token. */
  refreshable?: boolean;
  /** What renewal would use, and where each value comes from; never the secret itself. */
  renewal?: {
    clientId?: string;
    clientIdFrom?: ValueSource;
    clientSecret: ValueSource | 'none';
    tokenUrl?: string;
    tokenUrlFrom?: ValueSource;
  };
  /** Why the stored sign-in is not (or soon not) usable, with what to do; never contains a secret. */
  problem?: string;
  problemCode?: CredentialProblemCode;
}

interface Problem {
  code: CredentialProblemCode;
  kind: ToolErrorKind;
  message: string;
  nextStep: string;
}

type RefreshMode = { forced: false } | { forced: true; rejectedToken: string };

const REMEMBERED_FORCED = 8;

function normaliseBaseUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`.toLowerCase();
  } catch {
    return value.replace(/\/+$/, '').toLowerCase();
  }
}

/** `Bearer abc`, or `Token token=abc` when the scheme ends with `=`. */
export function formatAuthorization(scheme: string, token: string): string {
  if (scheme === '') return token;
  return scheme.endsWith('=') ? `${scheme}${token}` : `${scheme} ${token}`;
}

/** The bare token of an Authorization value (or the value itself). */
function tokenOf(authorization: string): string {
  const trimmed = authorization.trim();
  const afterEquals = /^[A-Za-z][\w-]*\s+[\w-]+=(.+)$/.exec(trimmed);
  if (afterEquals?.[1]) return afterEquals[1];
  const afterScheme = /^[A-Za-z][\w-]*\s+(\S+)$/.exec(trimmed);
  return afterScheme?.[1] ?? trimmed;
}

function isoTime(epochMs: number): string {
  try {
    return new Date(epochMs).toISOString();
  } catch {
    return String(epochMs);
  }
}

export class CredentialSource {
  readonly platform: string;
  private readonly envToken: string | undefined;
  private readonly store: FileTokenStore | undefined;
  private readonly client: OAuthClientSettings | undefined;
  private readonly clientAuth: ClientAuthMethod | undefined;
  private readonly baseUrl: string | undefined;
  private readonly baseUrlSetting: string | undefined;
  private readonly refreshSkewMs: number;
  private readonly now: () => number;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly logger: Logger;
  private readonly refreshTimeoutMs: number;
  private readonly loginCommand: string;

  /** The stored entry as last read, usable here or not (for describe()). */
  private found: StoredCredential | undefined;
  private problem: Problem | undefined;
  private lastSentToken: string | undefined;
  private inflight: Promise<StoredCredential | undefined> | undefined;
  /** Access tokens that already had their one forced refresh after a 401. */
  private readonly forcedFor: string[] = [];
  /**
   * The stored entry as read from the file with the given stamp: while the file's stamp stays the
   * same, calls use it without reading (another process's login or renewal changes the stamp).
   */
  private cached: { stamp: string; stored: StoredCredential | undefined } | undefined;
  /** The base URL as compared (normalised once), and the last stored one normalised. */
  private readonly normalisedBaseUrl: string | undefined;
  private lastStoredBaseUrl: { raw: string; normalised: string } | undefined;

  constructor(options: CredentialSourceOptions) {
    this.platform = options.platform;
    const envToken = options.envToken?.trim();
    this.envToken = envToken ? envToken : undefined;
    this.store = options.store;
    this.client = options.client;
    this.clientAuth = options.clientAuth;
    this.baseUrl = options.baseUrl;
    this.normalisedBaseUrl = options.baseUrl ? normaliseBaseUrl(options.baseUrl) : undefined;
    this.baseUrlSetting = options.baseUrlSetting;
    this.refreshSkewMs = Math.max(0, options.refreshSkewMs ?? 60_000);
    this.now = options.now ?? Date.now;
    this.fetchImpl = options.fetch;
    this.logger = options.logger ?? silentLogger;
    this.refreshTimeoutMs = options.refreshTimeoutMs ?? 20_000;
    this.loginCommand = options.loginCommand ?? `toolservers login ${options.platform}`;
  }

  /**
   * The Authorization header value, or undefined when there is no usable credential (see
   * `describe().problem` for why). A stored sign-in that expires within the skew is renewed first.
   * A scheme ending with `=` is joined without a space (`Token token=` + token).
   */
  async authorization(scheme = 'Bearer'): Promise<string | undefined> {
    if (this.envToken) return formatAuthorization(scheme, this.envToken);
    const credential = await this.usableCredential();
    if (!credential) return undefined;
    this.lastSentToken = credential.accessToken;
    return formatAuthorization(scheme, credential.accessToken);
  }

  /**
   * Like `authorization()`, but throws a ToolError whose kind, message and next step say why no
   * token is available (`not_configured` for a missing, unusable or misdirected sign-in,
   * `unauthorized` when it expired and cannot be renewed, ...).
   */
  async requireAuthorization(scheme = 'Bearer'): Promise<string> {
    const value = await this.authorization(scheme);
    if (value !== undefined) return value;
    throw this.unavailableError();
  }

  /** The ToolError for "no token is available", from the last known problem. */
  unavailableError(): ToolError {
    const problem = this.problem ?? this.notSignedIn();
    return new ToolError({ kind: problem.kind, message: `${problem.message} Nothing was sent.`, nextStep: problem.nextStep });
  }

  /**
   * True when the last attempt found a reason more specific than "nobody signed in" (an unusable
   * file, another base URL, an expired sign-in): servers report it instead of their generic message.
   */
  hasSpecificProblem(): boolean {
    return this.problem !== undefined && this.problem.code !== 'not_signed_in' && this.problem.code !== 'no_store';
  }

  /**
   * Call after the platform answered 401. Renews the stored sign-in at most once per access token and
   * resolves true when a different token is now available (send the request once more), else false.
   * `rejected` (the Authorization value or token that got the 401) defaults to the last one handed out.
   */
  async onUnauthorized(rejected?: string): Promise<boolean> {
    if (this.envToken || !this.store) return false;
    const rejectedToken = rejected !== undefined ? tokenOf(rejected) : this.lastSentToken;
    if (!rejectedToken) return false;
    // A 401 means what is in memory may be stale: the next read goes to the file.
    this.cached = undefined;
    if (this.forcedFor.includes(rejectedToken)) {
      // This token already had its forced refresh (maybe still running): only report its outcome.
      const result = this.inflight ? await this.inflight : await this.readStored();
      return result !== undefined && result.accessToken !== rejectedToken && !this.isExpired(result);
    }
    this.forcedFor.push(rejectedToken);
    if (this.forcedFor.length > REMEMBERED_FORCED) this.forcedFor.shift();
    const result = await this.refresh({ forced: true, rejectedToken });
    return result !== undefined && result.accessToken !== rejectedToken;
  }

  /** What is in use, from what was last read (call `status()` to read the store first). Never a secret. */
  describe(): CredentialDescription {
    if (this.envToken) return { source: 'environment' };
    const found = this.found;
    const out: CredentialDescription = { source: found ? 'stored sign-in' : 'none' };
    if (found) {
      if (found.expiresAt !== undefined) out.expiresAt = found.expiresAt;
      out.obtainedAt = found.obtainedAt;
      if (found.scope !== undefined) out.scope = found.scope;
      if (found.account !== undefined) out.account = { ...found.account };
      if (found.baseUrl !== undefined) out.signedInFor = found.baseUrl;
      out.refreshable = found.refreshToken !== undefined;
      if (found.refreshToken !== undefined) {
        const client = resolveClient(found, this.client);
        out.renewal = {
          ...(client.clientId !== undefined ? { clientId: client.clientId, clientIdFrom: client.from.clientId } : {}),
          clientSecret: client.from.clientSecret ?? 'none',
          ...(client.tokenUrl !== undefined ? { tokenUrl: client.tokenUrl, tokenUrlFrom: client.from.tokenUrl } : {}),
        };
      }
    }
    if (this.problem !== undefined) {
      out.problem = `${this.problem.message} ${this.problem.nextStep}`;
      out.problemCode = this.problem.code;
    }
    return out;
  }

  /** Reads the store, then `describe()`. Does not refresh. */
  async status(): Promise<CredentialDescription> {
    if (!this.envToken) {
      const stored = await this.readStored(true);
      // An expired sign-in without a refresh token is reported as such (nothing is renewed here).
      if (stored && this.isExpired(stored) && !stored.refreshToken) {
        this.problem = {
          code: 'not_renewable',
          kind: 'unauthorized',
          message: `The stored ${this.platform} access token expired at ${isoTime(stored.expiresAt ?? 0)} and cannot be renewed (the platform issued no refresh token).`,
          nextStep: `Run \`${this.loginCommand}\` to sign in again.`,
        };
      }
    }
    return this.describe();
  }

  // -------------------------------------------------------------------------------------------

  private notSignedIn(): Problem {
    if (!this.store) {
      return { code: 'no_store', kind: 'not_configured', message: `No ${this.platform} token is configured.`, nextStep: 'Configure a token (see the server\'s --help).' };
    }
    return {
      code: 'not_signed_in',
      kind: 'not_configured',
      message: `Nobody has signed in to ${this.platform} yet, and no token is configured.`,
      nextStep: `Run \`${this.loginCommand}\` to sign in, or configure a token.`,
    };
  }

  /** Refresh ahead of expiry: the skew, but at most half the token's lifetime (short-lived tokens are not renewed on every call). */
  private skewFor(credential: StoredCredential): number {
    const expiresAt = credential.expiresAt;
    if (expiresAt === undefined) return this.refreshSkewMs;
    const lifetime = credential.obtainedAt > 0 ? expiresAt - credential.obtainedAt : Number.POSITIVE_INFINITY;
    return lifetime > 0 ? Math.min(this.refreshSkewMs, lifetime / 2) : this.refreshSkewMs;
  }

  private expiresSoon(credential: StoredCredential): boolean {
    return credential.expiresAt !== undefined && credential.expiresAt - this.skewFor(credential) <= this.now();
  }

  private isExpired(credential: StoredCredential): boolean {
    return credential.expiresAt !== undefined && credential.expiresAt <= this.now();
  }

  /** The problem a CredentialStoreError (or any store failure) means for this platform. */
  private storeProblem(error: unknown, doing: 'read' | 'renew'): Problem {
    const login = this.loginCommand;
    if (error instanceof CredentialStoreError) {
      const own = error.problem === 'malformed_entry' && error.platform === this.platform && doing === 'read';
      return {
        code: own ? 'entry_malformed' : 'store_unusable',
        kind: 'not_configured',
        message: `The stored ${this.platform} sign-in cannot be ${doing === 'read' ? 'used' : 'renewed'}: ${error.reason}`,
        nextStep: error.forPlatform(this.platform).repair,
      };
    }
    const message = error instanceof Error ? printable(error.message) : String(error);
    return {
      code: 'store_unusable',
      kind: 'not_configured',
      message: `The stored ${this.platform} sign-in cannot be ${doing === 'read' ? 'read' : 'renewed'}: ${message}`,
      nextStep: `Check the credentials file; \`${login}\` signs in anew.`,
    };
  }

  /** The stored entry if it may be used with this base URL; records why not otherwise. */
  private usableHere(credential: StoredCredential | undefined): StoredCredential | undefined {
    if (!credential) {
      this.problem = this.notSignedIn();
      return undefined;
    }
    if (this.baseUrl && credential.baseUrl && this.normalisedStoredBaseUrl(credential.baseUrl) !== this.normalisedBaseUrl) {
      const setting = this.baseUrlSetting ? `${this.baseUrlSetting}=${credential.baseUrl}` : `the base URL ${credential.baseUrl}`;
      this.problem = {
        code: 'other_base_url',
        kind: 'not_configured',
        message: `The stored ${this.platform} sign-in was made for ${credential.baseUrl}, but this server uses ${this.baseUrl}; its token is not sent to another address.`,
        nextStep: `Start the server with ${setting} to use that sign-in, or run \`${this.loginCommand} --base-url ${this.baseUrl}\` to sign in for ${this.baseUrl}.`,
      };
      return undefined;
    }
    return credential;
  }

  private normalisedStoredBaseUrl(raw: string): string {
    if (this.lastStoredBaseUrl?.raw !== raw) this.lastStoredBaseUrl = { raw, normalised: normaliseBaseUrl(raw) };
    return this.lastStoredBaseUrl.normalised;
  }

  /**
   * The stored entry: from memory while the file is unchanged (same stamp), else read from the
   * file (`fresh` always reads). A file that cannot be used is read again on every call, so that
   * its problem is reported as it is now.
   */
  private async readStored(fresh = false): Promise<StoredCredential | undefined> {
    if (!this.store) {
      this.found = undefined;
      this.problem = this.notSignedIn();
      return undefined;
    }
    const stamp = typeof this.store.stamp === 'function' ? this.store.stamp() : undefined;
    const cached = this.cached;
    if (!fresh && stamp !== undefined && cached !== undefined && cached.stamp === stamp) {
      this.found = cached.stored;
      return this.usableHere(cached.stored);
    }
    this.cached = undefined;
    let stored: StoredCredential | undefined;
    try {
      stored = await this.store.get(this.platform);
      // Taken before the read: a write during the read changes the stamp, and the next call reads again.
      if (stamp !== undefined) this.cached = { stamp, stored };
    } catch (error) {
      this.found = undefined;
      this.problem = this.storeProblem(error, 'read');
      this.logger.warn({ platform: this.platform, err: this.problem.message }, 'cannot use the credentials store');
      return undefined;
    }
    this.found = stored;
    const usable = this.usableHere(stored);
    return usable;
  }

  private async usableCredential(): Promise<StoredCredential | undefined> {
    const stored = await this.readStored();
    if (!stored) return undefined;
    if (!this.expiresSoon(stored)) {
      this.problem = undefined;
      return stored;
    }
    const renewed = await this.refresh({ forced: false });
    if (renewed && !this.isExpired(renewed)) return renewed;
    // Renewal failed: a token that has not actually expired yet is still worth sending.
    if (!this.isExpired(stored)) return stored;
    return undefined;
  }

  /** Single-flight: concurrent callers share one refresh. */
  private refresh(mode: RefreshMode): Promise<StoredCredential | undefined> {
    if (this.inflight) return this.inflight;
    const running = this.runRefresh(mode).finally(() => {
      if (this.inflight === running) this.inflight = undefined;
    });
    this.inflight = running;
    return running;
  }

  /** The OAuth client to renew `credential` with, or why there is none. */
  private refreshClient(credential: StoredCredential): { endpoints: OAuthEndpoints; clientAuth: ClientAuthMethod; resolved: ResolvedClient } | { missing: string } {
    const resolved = resolveClient(credential, this.client);
    const names = this.client?.names ?? {};
    if (!resolved.clientId) return { missing: `no client ID is known (the sign-in stored none${names.clientId ? ` and ${names.clientId} is not set` : ''})` };
    if (!resolved.tokenUrl) return { missing: `no token URL is known (the sign-in stored none${names.tokenUrl ? ` and ${names.tokenUrl} is not set` : ''})` };
    const endpoints: OAuthEndpoints = { authorizeUrl: resolved.tokenUrl, tokenUrl: resolved.tokenUrl, clientId: resolved.clientId };
    if (this.client?.allowInsecureHttp) endpoints.allowInsecureHttp = true;
    if (resolved.clientSecret) {
      endpoints.clientSecret = resolved.clientSecret;
      return { endpoints, clientAuth: this.clientAuth ?? 'post', resolved };
    }
    return { endpoints, clientAuth: 'none', resolved };
  }

  private async runRefresh(mode: RefreshMode): Promise<StoredCredential | undefined> {
    const store = this.store;
    if (!store) return undefined;
    let outcome: StoredCredential | undefined;
    let renewedHere = false;
    try {
      const stored = await store.update(this.platform, async (current) => {
        outcome = undefined;
        renewedHere = false;
        this.found = current;
        const usable = this.usableHere(current);
        if (!usable) return current;
        // Re-read under the lock: another process (or an earlier call) may already have renewed it.
        const needed = mode.forced ? usable.accessToken === mode.rejectedToken : this.expiresSoon(usable);
        if (!needed) {
          outcome = usable;
          return current;
        }
        const what = mode.forced ? 'was rejected by the platform' : usable.expiresAt !== undefined && this.isExpired(usable) ? `expired at ${isoTime(usable.expiresAt)}` : 'is about to expire';
        if (!usable.refreshToken) {
          this.problem = {
            code: 'not_renewable',
            kind: 'unauthorized',
            message: `The stored ${this.platform} sign-in ${what} and cannot be renewed: the platform issued no refresh token.`,
            nextStep: `Run \`${this.loginCommand}\` to sign in again.`,
          };
          return current;
        }
        const client = this.refreshClient(usable);
        if ('missing' in client) {
          this.problem = {
            code: 'not_renewable',
            kind: 'unauthorized',
            message: `The stored ${this.platform} sign-in ${what} and cannot be renewed: ${client.missing}.`,
            nextStep: `Run \`${this.loginCommand}\` to sign in again (the client is stored with the sign-in).`,
          };
          return current;
        }
        try {
          // The OAuth client loads only when a renewal is due: a server start does not pay for it.
          const { refreshTokenSet } = await import('./oauth.js');
          const set = await refreshTokenSet(client.endpoints, usable.refreshToken, {
            clientAuth: client.clientAuth,
            now: this.now,
            timeoutMs: this.refreshTimeoutMs,
            ...(this.fetchImpl ? { fetch: this.fetchImpl } : {}),
          });
          const next: StoredCredential = {
            ...usable,
            accessToken: set.accessToken,
            tokenType: set.tokenType,
            obtainedAt: this.now(),
            // A rotated refresh token is stored in the same write as its access token.
            refreshToken: set.refreshToken ?? usable.refreshToken,
          };
          if (set.expiresAt !== undefined) next.expiresAt = set.expiresAt;
          else delete next.expiresAt;
          if (set.scope !== undefined) next.scope = set.scope;
          outcome = next;
          renewedHere = true;
          return next;
        } catch (error) {
          this.recordRefreshFailure(error, what, client.resolved);
          return current;
        }
      });
      if (outcome !== undefined && stored !== undefined) {
        outcome = stored;
        this.found = stored;
        this.problem = undefined;
        if (renewedHere) this.logger.info({ platform: this.platform, expiresAt: stored.expiresAt }, 'stored sign-in renewed');
      }
    } catch (error) {
      // The store itself failed (malformed file, lock timeout): nothing was spent, nothing changed.
      this.problem = this.storeProblem(error, 'renew');
      this.logger.warn({ platform: this.platform, err: this.problem.message }, 'could not renew the stored sign-in');
      return undefined;
    }
    return outcome;
  }

  private recordRefreshFailure(error: unknown, what: string, client: ResolvedClient): void {
    const oauthError = error instanceof OAuthError ? error : undefined;
    const names = this.client?.names ?? {};
    const login = this.loginCommand;
    const otherClient = client.otherClient
      ? ` The sign-in was made with client ID ${client.otherClient.stored}, but ${names.clientId ?? 'the settings'} ${names.clientId ? 'sets' : 'name'} ${client.otherClient.configured}: a refresh token only works with the app that issued it.`
      : '';
    const otherClientStep = client.otherClient ? ` Or unset ${names.clientId ?? 'the client ID setting'} so that the stored client is used.` : '';
    const providerCode = oauthError?.error;
    if (providerCode === 'invalid_grant') {
      this.problem = {
        code: 'renewal_rejected',
        kind: 'unauthorized',
        message: `The stored ${this.platform} sign-in ${what}, and the token endpoint refused its refresh token (invalid_grant): the sign-in has expired or was revoked.${otherClient}`,
        nextStep: `Run \`${login}\` to sign in again.${otherClientStep}`,
      };
    } else if (providerCode === 'invalid_client' || providerCode === 'unauthorized_client') {
      const secretNote =
        client.from.clientSecret === undefined
          ? ` No client secret was sent: none is stored with the sign-in (it was made by an older toolservers, or without --client-secret)${names.clientSecret ? ` and ${names.clientSecret} is not set` : ''}.`
          : client.from.clientSecret === 'setting'
            ? ` The client secret came from ${names.clientSecret ?? 'the settings'}; check it, or unset it to use the one stored with the sign-in.`
            : ' The client secret stored with the sign-in was sent; the app\'s secret may have been changed.';
      this.problem = {
        code: 'renewal_rejected',
        kind: 'unauthorized',
        message: `The stored ${this.platform} sign-in ${what}, and the token endpoint refused the client while renewing it (${providerCode}).${secretNote}${otherClient}`,
        nextStep: `Run \`${login}\` with the app's client ID and secret (both are stored with the sign-in)${names.clientSecret ? `, or set ${names.clientSecret} for the server` : ''}.${otherClientStep}`,
      };
    } else {
      const message = error instanceof Error ? printable(error.message) : String(error);
      const kind: ToolErrorKind = oauthError?.kind === 'network_error' ? 'network_error' : oauthError?.kind === 'timeout' ? 'timeout' : 'unauthorized';
      this.problem = {
        code: 'renewal_failed',
        kind,
        message: `The stored ${this.platform} sign-in ${what}, and renewing it failed: ${message}${otherClient}`,
        nextStep: `It is tried again on the next call; if it keeps failing, run \`${login}\`.${otherClientStep}`,
      };
    }
    this.logger.warn({ platform: this.platform, err: this.problem.message }, 'could not renew the stored sign-in');
  }
}
