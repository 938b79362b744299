/**
 * Where one platform's Authorization header comes from: an explicit token (environment or flag)
 * first, else the stored sign-in, renewed with its refresh token shortly before it expires or once
 * after a 401. Platform-neutral: the platform key, endpoints and store come in as options.
 *
 * Refreshes are single-flight inside a process and serialised across processes by the store's
 * lock: the stored entry is re-read under the lock, and when another process already renewed it,
 * its result is used instead of spending the (possibly rotating) refresh token a second time.
 */

import { ToolError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { OAuthError, refreshTokenSet, type ClientAuthMethod, type OAuthEndpoints } from './oauth.js';
import type { FileTokenStore, StoredCredential } from './token-store.js';

export interface CredentialSourceOptions {
  /** Platform key as used in the store and in `toolservers login <platform>`. */
  platform: string;
  /** Explicit token from the environment or a flag: highest precedence, never refreshed. */
  envToken?: string;
  store?: FileTokenStore;
  /** The configured OAuth client, for refresh. The stored entry's own tokenUrl/clientId win when present. */
  endpoints?: OAuthEndpoints;
  clientAuth?: ClientAuthMethod;
  /** The API base URL in use; a stored sign-in made for another base URL is not sent there. */
  baseUrl?: string;
  /** Refresh this long before expiry (default 60 s). */
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

export interface CredentialDescription {
  source: 'environment' | 'stored sign-in' | 'none';
  /** Epoch ms. */
  expiresAt?: number;
  obtainedAt?: number;
  scope?: string;
  account?: { id?: string; name?: string; email?: string };
  /** Whether the stored sign-in has a refresh token. */
  refreshable?: boolean;
  /** Why the stored sign-in is not (or soon not) usable, with what to do; never contains a secret. */
  problem?: string;
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

export class CredentialSource {
  readonly platform: string;
  private readonly envToken: string | undefined;
  private readonly store: FileTokenStore | undefined;
  private readonly endpoints: OAuthEndpoints | undefined;
  private readonly clientAuth: ClientAuthMethod | undefined;
  private readonly baseUrl: string | undefined;
  private readonly refreshSkewMs: number;
  private readonly now: () => number;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly logger: Logger;
  private readonly refreshTimeoutMs: number;
  private readonly loginCommand: string;

  /** The stored entry as last read (undefined when none or not usable here). */
  private current: StoredCredential | undefined;
  private problem: string | undefined;
  private problemKind: 'not_configured' | 'unauthorized' = 'not_configured';
  private lastSentToken: string | undefined;
  private inflight: Promise<StoredCredential | undefined> | undefined;
  /** Access tokens that already had their one forced refresh after a 401. */
  private readonly forcedFor: string[] = [];

  constructor(options: CredentialSourceOptions) {
    this.platform = options.platform;
    const envToken = options.envToken?.trim();
    this.envToken = envToken ? envToken : undefined;
    this.store = options.store;
    this.endpoints = options.endpoints;
    this.clientAuth = options.clientAuth;
    this.baseUrl = options.baseUrl;
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
   * Like `authorization()`, but throws a ToolError (`not_configured`, or `unauthorized` when the
   * stored sign-in expired and cannot be renewed) whose message says what to run.
   */
  async requireAuthorization(scheme = 'Bearer'): Promise<string> {
    const value = await this.authorization(scheme);
    if (value !== undefined) return value;
    const message = this.problem ?? `There are no ${this.platform} credentials: no token is configured and nobody has signed in.`;
    throw new ToolError({
      kind: this.problemKind,
      message: `${message} Nothing was sent.`,
      nextStep: `Run \`${this.loginCommand}\` (or configure a token), then call the tool again.`,
    });
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
    const current = this.current;
    const out: CredentialDescription = { source: current ? 'stored sign-in' : 'none' };
    if (current) {
      if (current.expiresAt !== undefined) out.expiresAt = current.expiresAt;
      out.obtainedAt = current.obtainedAt;
      if (current.scope !== undefined) out.scope = current.scope;
      if (current.account !== undefined) out.account = { ...current.account };
      out.refreshable = current.refreshToken !== undefined;
    }
    if (this.problem !== undefined) out.problem = this.problem;
    return out;
  }

  /** Reads the store, then `describe()`. Does not refresh. */
  async status(): Promise<CredentialDescription> {
    if (!this.envToken) await this.readStored();
    return this.describe();
  }

  // -------------------------------------------------------------------------------------------

  private expiresSoon(credential: StoredCredential): boolean {
    return credential.expiresAt !== undefined && credential.expiresAt - this.refreshSkewMs <= this.now();
  }

  private isExpired(credential: StoredCredential): boolean {
    return credential.expiresAt !== undefined && credential.expiresAt <= this.now();
  }

  private setProblem(kind: 'not_configured' | 'unauthorized', message: string | undefined): void {
    this.problem = message;
    this.problemKind = kind;
  }

  /** The stored entry if it may be used with this base URL; records why not otherwise. */
  private usableHere(credential: StoredCredential | undefined): StoredCredential | undefined {
    if (!credential) {
      this.setProblem('not_configured', `Nobody has signed in to ${this.platform} yet (and no token is configured).`);
      return undefined;
    }
    if (this.baseUrl && credential.baseUrl && normaliseBaseUrl(credential.baseUrl) !== normaliseBaseUrl(this.baseUrl)) {
      this.setProblem(
        'not_configured',
        `The stored ${this.platform} sign-in was made for ${credential.baseUrl}, but ${this.baseUrl} is configured; it is not sent there. Run \`${this.loginCommand}\` to sign in for the configured address.`,
      );
      return undefined;
    }
    return credential;
  }

  private async readStored(): Promise<StoredCredential | undefined> {
    if (!this.store) {
      this.current = undefined;
      this.setProblem('not_configured', `No ${this.platform} token is configured.`);
      return undefined;
    }
    let stored: StoredCredential | undefined;
    try {
      stored = await this.store.get(this.platform);
    } catch (error) {
      this.current = undefined;
      const message = error instanceof Error ? error.message : String(error);
      this.setProblem('not_configured', `The stored ${this.platform} sign-in cannot be read: ${message}`);
      this.logger.warn({ platform: this.platform, err: message }, 'cannot read the credentials store');
      return undefined;
    }
    const usable = this.usableHere(stored);
    this.current = usable;
    return usable;
  }

  private async usableCredential(): Promise<StoredCredential | undefined> {
    const stored = await this.readStored();
    if (!stored) return undefined;
    if (!this.expiresSoon(stored)) {
      this.setProblem('not_configured', undefined);
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

  /** The OAuth client to renew `credential` with: its own token URL and client id, the secret only when it is the same client. */
  private refreshEndpoints(credential: StoredCredential): { endpoints: OAuthEndpoints; clientAuth: ClientAuthMethod } | undefined {
    const configured = this.endpoints;
    const tokenUrl = credential.tokenUrl ?? configured?.tokenUrl;
    const clientId = credential.clientId ?? configured?.clientId;
    if (!tokenUrl || !clientId) return undefined;
    const sameClient =
      configured !== undefined &&
      configured.clientId === clientId &&
      (credential.tokenUrl === undefined || credential.tokenUrl === configured.tokenUrl);
    const endpoints: OAuthEndpoints = { authorizeUrl: configured?.authorizeUrl ?? tokenUrl, tokenUrl, clientId };
    if (configured?.allowInsecureHttp) endpoints.allowInsecureHttp = true;
    if (sameClient && configured.clientSecret) {
      endpoints.clientSecret = configured.clientSecret;
      return { endpoints, clientAuth: this.clientAuth ?? 'post' };
    }
    return { endpoints, clientAuth: 'none' };
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
        const usable = this.usableHere(current);
        if (!usable) return current;
        // Re-read under the lock: another process (or an earlier call) may already have renewed it.
        const needed = mode.forced ? usable.accessToken === mode.rejectedToken : this.expiresSoon(usable);
        if (!needed) {
          outcome = usable;
          return current;
        }
        if (!usable.refreshToken) {
          this.setProblem(
            'unauthorized',
            `The stored ${this.platform} sign-in ${mode.forced ? 'was rejected' : 'has expired'} and cannot be renewed (no refresh token). Run \`${this.loginCommand}\` to sign in again.`,
          );
          return current;
        }
        const client = this.refreshEndpoints(usable);
        if (!client) {
          this.setProblem(
            'unauthorized',
            `The stored ${this.platform} sign-in cannot be renewed: no token endpoint or client id is known. Run \`${this.loginCommand}\` to sign in again.`,
          );
          return current;
        }
        try {
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
          this.recordRefreshFailure(error);
          return current;
        }
      });
      if (outcome !== undefined && stored !== undefined) {
        outcome = stored;
        this.current = stored;
        this.setProblem('not_configured', undefined);
        if (renewedHere) this.logger.info({ platform: this.platform, expiresAt: stored.expiresAt }, 'stored sign-in renewed');
      }
    } catch (error) {
      // The store itself failed (lock timeout, unreadable file): keep going without a renewal.
      const message = error instanceof Error ? error.message : String(error);
      this.setProblem('unauthorized', `Renewing the stored ${this.platform} sign-in failed: ${message}`);
      this.logger.warn({ platform: this.platform, err: message }, 'could not renew the stored sign-in');
      return undefined;
    }
    return outcome;
  }

  private recordRefreshFailure(error: unknown): void {
    const oauthError = error instanceof OAuthError ? error : undefined;
    if (oauthError?.error === 'invalid_grant') {
      this.setProblem(
        'unauthorized',
        `The stored ${this.platform} sign-in has expired or was revoked (the token endpoint answered invalid_grant), so it cannot be renewed. Run \`${this.loginCommand}\` to sign in again.`,
      );
    } else {
      const message = error instanceof Error ? error.message : String(error);
      this.setProblem(
        'unauthorized',
        `Renewing the stored ${this.platform} sign-in failed: ${message} It is tried again on the next request; if it keeps failing, run \`${this.loginCommand}\`.`,
      );
    }
    this.logger.warn({ platform: this.platform, err: this.problem }, 'could not renew the stored sign-in');
  }
}
