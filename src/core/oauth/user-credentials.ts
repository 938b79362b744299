/**
 * A server's platform credentials in OAuth mode: the platform token of the user the current
 * request acts for (`currentIdentity()`), from the vault, renewed with the platform shortly
 * before expiry or after a 401 by one replica at a time, the rotated pair written back. With no
 * identity, or an identity of another platform, the call fails closed: no token of anyone else
 * is ever sent.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials } from '../auth/credentials.js';
import type { PlatformAuth } from '../auth/platform-auth.js';
import { ToolError } from '../errors.js';
import type { Logger } from '../logger.js';
import { currentIdentity, type RequestIdentity } from '../request-identity.js';
import type { PlatformTokens, TokenVault } from './vault.js';

/** Renew this long before expiry (at most half the token's lifetime). */
const REFRESH_SKEW_MS = 60_000;
/** How long one replica holds a user's renewal; a holder that died frees it after this. */
export const RENEWAL_LOCK_MS = 10_000;

function signInAgain(name: string, why: string): ToolError {
  return new ToolError({ kind: 'unauthorized', message: `${why}`, nextStep: `Sign in to ${name} again: reconnect the MCP client so that it runs the authorization again.` });
}

function expiresSoon(tokens: PlatformTokens, now: number): boolean {
  if (tokens.expiresAt === undefined) return false;
  const lifetime = tokens.expiresAt - tokens.obtainedAt;
  const skew = lifetime > 0 ? Math.min(REFRESH_SKEW_MS, lifetime / 2) : REFRESH_SKEW_MS;
  return tokens.expiresAt - skew <= now;
}

export function userCredentials(auth: PlatformAuth, vault: TokenVault, logger: Logger, now: () => number = Date.now, renewalLockMs = RENEWAL_LOCK_MS): Credentials {
  // The refresh request ends well inside the claim, so no other replica can start one meanwhile.
  const refreshTimeoutMs = Math.round(renewalLockMs * 0.7);
  /** Longest a call waits for another replica's renewal: a lapsed claim, then its own refresh. */
  const renewalWaitMs = renewalLockMs + refreshTimeoutMs + 1_000;
  /** One renewal per user at a time in this process. */
  const renewing = new Map<string, Promise<PlatformTokens | undefined>>();
  /** The access token last sent per user: a 401 for it is what a forced renewal replaces. */
  const lastSent = new Map<string, string>();

  const identityOfRequest = (): RequestIdentity => {
    const identity = currentIdentity();
    if (!identity) throw new ToolError({ kind: 'unauthorized', message: `No signed-in user for this request: in OAuth mode every ${auth.name} call acts for the user of its MCP token.` });
    if (!identity.userKey.startsWith(`${auth.platform}:`)) throw new ToolError({ kind: 'forbidden', message: `This MCP token was issued for another platform's sign-in, not ${auth.name}.` });
    return identity;
  };
  const userKey = (): string => identityOfRequest().userKey;
  /** The sign-in the bearer check already read, once per request (see RequestIdentity.platformTokens). */
  const takeVerified = (identity: RequestIdentity): PlatformTokens | undefined => {
    const tokens = identity.platformTokens;
    delete identity.platformTokens;
    return tokens;
  };

  /** Sends the refresh grant and stores the rotated pair; called only while holding the user's renewal. */
  const refreshWith = async (key: string, current: PlatformTokens): Promise<PlatformTokens> => {
    if (!current.refreshToken || !auth.oauth.clientId) throw signInAgain(auth.name, `The ${auth.name} sign-in has expired and cannot be renewed.`);
    const { refreshTokenSet } = await import('../auth/oauth.js');
    try {
      const set = await refreshTokenSet(
        { authorizeUrl: auth.oauth.authorizeUrl, tokenUrl: auth.oauth.tokenUrl, clientId: auth.oauth.clientId, ...(auth.oauth.clientSecret ? { clientSecret: auth.oauth.clientSecret } : {}), ...(auth.oauth.allowInsecureHttp ? { allowInsecureHttp: true } : {}) },
        current.refreshToken,
        { now, timeoutMs: refreshTimeoutMs },
      );
      const next: PlatformTokens = {
        ...current,
        accessToken: set.accessToken,
        tokenType: set.tokenType,
        obtainedAt: now(),
        refreshToken: set.refreshToken ?? current.refreshToken,
        ...(set.scope !== undefined ? { scope: set.scope } : {}),
      };
      if (set.expiresAt !== undefined) next.expiresAt = set.expiresAt;
      else delete next.expiresAt;
      await vault.put(key, next);
      logger.info({ platform: auth.platform, expiresAt: next.expiresAt }, 'user platform token renewed');
      return next;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ platform: auth.platform, err: message }, 'could not renew a user platform token');
      throw signInAgain(auth.name, `The ${auth.name} sign-in could not be renewed: ${message}`);
    }
  };

  /**
   * One renewal per user across every replica: the platform's refresh token rotates, so a second
   * concurrent use would fail (and may end the sign-in). Whoever claims the renewal in the store
   * refreshes; the others watch the vault for its result, and take over if the claim lapses.
   */
  const renewAcrossReplicas = async (key: string, stale: string | undefined): Promise<PlatformTokens | undefined> => {
    // Read again first: a call on another replica may have renewed it already.
    const first = await vault.get(key);
    if (!first) return undefined;
    if (stale === undefined && !expiresSoon(first, now())) return first;
    const replacing = stale ?? first.accessToken;
    if (first.accessToken !== replacing) return first;
    const owner = `${process.pid}-${randomUUID()}`;
    const giveUpAt = Date.now() + renewalWaitMs;
    for (let pause = 25; ; pause = Math.min(pause * 2, 200)) {
      if (await vault.claimRenewal(key, owner, renewalLockMs)) {
        try {
          const latest = await vault.get(key);
          if (!latest || latest.accessToken !== replacing) return latest;
          return await refreshWith(key, latest);
        } finally {
          await vault.releaseRenewal(key, owner).catch(() => undefined);
        }
      }
      if (Date.now() >= giveUpAt) {
        throw new ToolError({
          kind: 'timeout',
          message: `Another replica of this server is renewing the ${auth.name} sign-in of this user and did not finish within ${Math.round(renewalWaitMs / 1000)} s.`,
          nextStep: 'Try the call again in a moment.',
        });
      }
      await sleep(pause);
      const current = await vault.get(key);
      if (!current || current.accessToken !== replacing) return current;
    }
  };

  const renew = (key: string, stale: string | undefined): Promise<PlatformTokens | undefined> => {
    let running = renewing.get(key);
    if (!running) {
      running = renewAcrossReplicas(key, stale).finally(() => renewing.delete(key));
      renewing.set(key, running);
    }
    return running;
  };

  return {
    async authorization() {
      const identity = identityOfRequest();
      const key = identity.userKey;
      let tokens = takeVerified(identity) ?? (await vault.get(key));
      if (!tokens) throw signInAgain(auth.name, `No ${auth.name} sign-in is stored for this user (it was removed or the server's state key changed).`);
      if (expiresSoon(tokens, now())) {
        const renewed = await renew(key, undefined);
        if (renewed) tokens = renewed;
      }
      lastSent.set(key, tokens.accessToken);
      return `Bearer ${tokens.accessToken}`;
    },
    async refresh() {
      const key = userKey();
      const stale = lastSent.get(key);
      const renewed = await renew(key, stale);
      return renewed !== undefined && renewed.accessToken !== stale;
    },
  };
}
