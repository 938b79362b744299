/**
 * A server's platform credentials in OAuth mode: the platform token of the user the current
 * request acts for (`currentIdentity()`), from the vault, renewed with the platform shortly
 * before expiry or after a 401 by one replica at a time, the rotated pair written back. With no
 * identity, or an identity of another platform, the call fails closed: no token of anyone else
 * is ever sent.
 *
 * A store that fails never signs anyone out: a token that is still valid is used when its renewal
 * cannot be claimed, and a renewed pair the store refused is kept in this process, used, and
 * written as soon as the store takes writes again (the platform has already rotated the old one).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials } from '../../signin/credentials.js';
import type { PlatformAuth } from '../../signin/platform-auth.js';
import { ToolError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { currentIdentity, type RequestIdentity } from '../../platform/request-identity.js';
import type { PlatformTokens, TokenVault } from './vault.js';

/** Renew this long before expiry (at most half the token's lifetime). */
const REFRESH_SKEW_MS = 60_000;
/**
 * A renewal claim lapses this long after its holder last extended it: a replica that dies while
 * renewing holds the others back by at most this much. The holder extends it while it works.
 */
export const RENEWAL_CLAIM_MS = 3_000;
/** The platform's answer to a refresh request must come within this. */
export const REFRESH_TIMEOUT_MS = 10_000;
/** How often a renewed pair the store refused is offered to it again. */
const UNSAVED_RETRY_MS = 1_000;

function signInAgain(name: string, why: string): ToolError {
  return new ToolError({ kind: 'unauthorized', message: `${why}`, nextStep: `Sign in to ${name} again: reconnect the MCP client so that it runs the authorization again.` });
}

/** The store's own error names its host: the caller learns only that it did not answer. */
function storeUnavailable(name: string): ToolError {
  return new ToolError({
    kind: 'unavailable',
    message: `The server's sign-in store is not answering, so your ${name} sign-in could not be read or renewed; nothing was sent.`,
    nextStep: 'Try the call again in a few seconds: you are still signed in.',
    retryAfterSeconds: 2,
  });
}

function expiresSoon(tokens: PlatformTokens, now: number): boolean {
  if (tokens.expiresAt === undefined) return false;
  const lifetime = tokens.expiresAt - tokens.obtainedAt;
  const skew = lifetime > 0 ? Math.min(REFRESH_SKEW_MS, lifetime / 2) : REFRESH_SKEW_MS;
  return tokens.expiresAt - skew <= now;
}

function expired(tokens: PlatformTokens, now: number): boolean {
  return tokens.expiresAt !== undefined && tokens.expiresAt <= now;
}

/** A pair renewed here that the store has not yet taken, and the access token it replaces there. */
interface Unsaved {
  tokens: PlatformTokens;
  replaces: string;
  owner: string;
}

/**
 * How often a renewal's holder extends its claim, and the longest a call with an expired token
 * waits for another replica's renewal: its refresh, a lapsed claim, then its own refresh.
 */
export function renewalTimings(renewalClaimMs = RENEWAL_CLAIM_MS): { heartbeatMs: number; renewalWaitMs: number } {
  return { heartbeatMs: Math.max(10, Math.floor(renewalClaimMs / 3)), renewalWaitMs: 2 * REFRESH_TIMEOUT_MS + renewalClaimMs };
}

/** What one server's user credentials keep between calls, and what they work with. */
interface UserTokensState {
  auth: PlatformAuth;
  vault: TokenVault;
  logger: Logger;
  now: () => number;
  renewalClaimMs: number;
  heartbeatMs: number;
  renewalWaitMs: number;
  /** One renewal per user at a time in this process. */
  renewing: Map<string, Promise<PlatformTokens | undefined>>;
  /** The access token last sent per user: a 401 for it is what a forced renewal replaces. */
  lastSent: Map<string, string>;
  /** Renewed pairs the store refused, by user, until it takes them. */
  unsaved: Map<string, Unsaved>;
  /** The next offer of the unsaved pairs to the store, while one is due. */
  retryTimer: NodeJS.Timeout | undefined;
}

export function userCredentials(auth: PlatformAuth, vault: TokenVault, logger: Logger, now: () => number = Date.now, renewalClaimMs = RENEWAL_CLAIM_MS): Credentials {
  const { heartbeatMs, renewalWaitMs } = renewalTimings(renewalClaimMs);
  const state: UserTokensState = { auth, vault, logger, now, renewalClaimMs, heartbeatMs, renewalWaitMs, renewing: new Map(), lastSent: new Map(), unsaved: new Map(), retryTimer: undefined };
  return {
    authorization: () => authorizationOfRequest(state),
    refresh: () => refreshAfterRefusal(state),
  };
}

/** The user the current request acts for, on this platform; fails closed otherwise. */
function identityOfRequest(auth: PlatformAuth): RequestIdentity {
  const identity = currentIdentity();
  if (!identity) throw new ToolError({ kind: 'unauthorized', message: `No signed-in user for this request: in OAuth mode every ${auth.name} call acts for the user of its MCP token.` });
  if (!identity.userKey.startsWith(`${auth.platform}:`)) throw new ToolError({ kind: 'forbidden', message: `This MCP token was issued for another platform's sign-in, not ${auth.name}.` });
  return identity;
}

/** The sign-in the bearer check already read, once per request (see RequestIdentity.platformTokens). */
function takeVerified(identity: RequestIdentity): PlatformTokens | undefined {
  const tokens = identity.platformTokens;
  delete identity.platformTokens;
  return tokens;
}

/** The Authorization header for the request's user: their current token, renewed first when it expires soon. */
async function authorizationOfRequest(state: UserTokensState): Promise<string> {
  const { auth, unsaved, now } = state;
  const identity = identityOfRequest(auth);
  const key = identity.userKey;
  const verified = takeVerified(identity);
  let tokens = verified && !unsaved.has(key) ? verified : await read(state, key);
  if (!tokens) throw signInAgain(auth.name, `No ${auth.name} sign-in is stored for this user (it was removed or the server's state key changed).`);
  if (expiresSoon(tokens, now())) {
    const renewed = await renew(state, key, undefined);
    if (renewed) tokens = renewed;
  }
  state.lastSent.set(key, tokens.accessToken);
  return `Bearer ${tokens.accessToken}`;
}

/** The platform refused the token last sent: renewed; true when another one is now available. */
async function refreshAfterRefusal(state: UserTokensState): Promise<boolean> {
  const key = identityOfRequest(state.auth).userKey;
  const stale = state.lastSent.get(key);
  const renewed = await renew(state, key, stale);
  return renewed !== undefined && renewed.accessToken !== stale;
}

/** The user's current pair: one renewed here that the store has not taken yet is the only one the platform still honours. */
async function read({ unsaved, vault, auth }: UserTokensState, key: string): Promise<PlatformTokens | undefined> {
  const kept = unsaved.get(key);
  if (kept) return kept.tokens;
  try {
    return await vault.get(key);
  } catch {
    throw storeUnavailable(auth.name);
  }
}

/** Writes a pair the store refused, unless the stored sign-in moved on (the user signed in again). True when settled. */
async function saveUnsaved({ vault, unsaved, logger, auth }: UserTokensState, key: string, entry: Unsaved): Promise<boolean> {
  try {
    const stored = await vault.get(key);
    if (stored?.accessToken === entry.replaces) await vault.put(key, entry.tokens);
    unsaved.delete(key);
    await vault.releaseRenewal(key, entry.owner).catch(() => undefined);
    logger.info({ platform: auth.platform }, stored?.accessToken === entry.replaces ? 'renewed user platform token written after a store failure' : 'a newer sign-in replaced a renewed platform token the store had refused');
    return true;
  } catch {
    return false;
  }
}

function retryUnsaved(state: UserTokensState): void {
  if (state.retryTimer) return;
  state.retryTimer = setTimeout(() => {
    state.retryTimer = undefined;
    void Promise.all([...state.unsaved].map(([key, entry]) => saveUnsaved(state, key, entry))).then(() => {
      if (state.unsaved.size > 0) retryUnsaved(state);
    });
  }, UNSAVED_RETRY_MS);
  state.retryTimer.unref();
}

/** Sends the refresh grant and stores the rotated pair; called only while holding the user's renewal. */
async function refreshWith(state: UserTokensState, key: string, current: PlatformTokens, owner: string): Promise<PlatformTokens> {
  const { auth, now } = state;
  if (!current.refreshToken || !auth.oauth.clientId) throw signInAgain(auth.name, `The ${auth.name} sign-in has expired and cannot be renewed.`);
  const { refreshTokenSet } = await import('../../signin/oauth.js');
  let next: PlatformTokens;
  try {
    const set = await refreshTokenSet(
      { authorizeUrl: auth.oauth.authorizeUrl, tokenUrl: auth.oauth.tokenUrl, clientId: auth.oauth.clientId, ...(auth.oauth.clientSecret ? { clientSecret: auth.oauth.clientSecret } : {}), ...(auth.oauth.allowInsecureHttp ? { allowInsecureHttp: true } : {}) },
      current.refreshToken,
      { now, timeoutMs: REFRESH_TIMEOUT_MS },
    );
    next = {
      ...current,
      accessToken: set.accessToken,
      tokenType: set.tokenType,
      obtainedAt: now(),
      refreshToken: set.refreshToken ?? current.refreshToken,
      ...(set.scope !== undefined ? { scope: set.scope } : {}),
    };
    if (set.expiresAt !== undefined) next.expiresAt = set.expiresAt;
    else delete next.expiresAt;
  } catch (error) {
    return afterFailedRefresh(state, key, current, error);
  }
  await keepRenewed(state, key, current, next, owner);
  return next;
}

/** The platform refused or did not answer: another replica's result, the current token while valid, or sign in again. */
async function afterFailedRefresh({ auth, vault, logger, now }: UserTokensState, key: string, current: PlatformTokens, error: unknown): Promise<PlatformTokens> {
  const message = error instanceof Error ? error.message : String(error);
  logger.warn({ platform: auth.platform, err: message }, 'could not renew a user platform token');
  // A replica whose renewed pair the store refused writes it once the store is back: look once more before giving up.
  await sleep(2 * UNSAVED_RETRY_MS);
  const latest = await vault.get(key).catch(() => undefined);
  if (latest && latest.accessToken !== current.accessToken) return latest;
  if (!expired(current, now())) return current;
  throw signInAgain(auth.name, `The ${auth.name} sign-in could not be renewed: ${message}`);
}

/** Stores a renewed pair; one the store refuses is kept in memory and offered again (the platform rotated the old one already). */
async function keepRenewed(state: UserTokensState, key: string, current: PlatformTokens, next: PlatformTokens, owner: string): Promise<void> {
  const { vault, logger, auth, unsaved } = state;
  try {
    await vault.put(key, next);
    logger.info({ platform: auth.platform, expiresAt: next.expiresAt }, 'user platform token renewed');
  } catch {
    // The platform rotated the refresh token already: losing this pair would sign the user out.
    unsaved.set(key, { tokens: next, replaces: unsaved.get(key)?.replaces ?? current.accessToken, owner });
    retryUnsaved(state);
    logger.warn({ platform: auth.platform }, 'renewed user platform token kept in memory: the store refused it; written when it accepts writes');
  }
}

/** Renews while holding the claim, extending it as it goes; the claim stays while the store has not taken the result. */
async function renewHolding(state: UserTokensState, key: string, owner: string, replacing: string): Promise<PlatformTokens | undefined> {
  const { vault, renewalClaimMs } = state;
  const heartbeat = setInterval(() => void vault.extendRenewal(key, owner, renewalClaimMs).catch(() => undefined), state.heartbeatMs);
  heartbeat.unref();
  try {
    const latest = await read(state, key);
    if (!latest || latest.accessToken !== replacing) return latest;
    return await refreshWith(state, key, latest, owner);
  } finally {
    clearInterval(heartbeat);
    if (!state.unsaved.has(key)) await vault.releaseRenewal(key, owner).catch(() => undefined);
  }
}

/**
 * One renewal per user across every replica: the platform's refresh token rotates, so a second
 * concurrent use would fail (and may end the sign-in). Whoever claims the renewal in the store
 * refreshes; the others use the current token while it is valid, or watch the vault for the
 * result and take over if the claim lapses.
 */
async function renewAcrossReplicas(state: UserTokensState, key: string, stale: string | undefined): Promise<PlatformTokens | undefined> {
  const { auth, vault, now, renewalClaimMs, renewalWaitMs } = state;
  // Read again first: a call on another replica may have renewed it already.
  const first = await read(state, key);
  if (!first) return undefined;
  if (stale === undefined && !expiresSoon(first, now())) return first;
  const replacing = stale ?? first.accessToken;
  if (first.accessToken !== replacing) return first;
  // Not refused by the platform and not expired: good for this call while the renewal waits.
  const usable = stale === undefined && !expired(first, now()) ? first : undefined;
  const owner = `${process.pid}-${randomUUID()}`;
  const giveUpAt = Date.now() + renewalWaitMs;
  for (let pause = 25; ; pause = Math.min(pause * 2, 200)) {
    let claimed: boolean;
    try {
      claimed = await vault.claimRenewal(key, owner, renewalClaimMs);
    } catch {
      if (usable) return usable;
      throw storeUnavailable(auth.name);
    }
    if (claimed) return renewHolding(state, key, owner, replacing);
    if (usable) return usable;
    if (Date.now() >= giveUpAt) {
      throw new ToolError({
        kind: 'timeout',
        message: `Another replica of this server is renewing the ${auth.name} sign-in of this user and did not finish within ${Math.round(renewalWaitMs / 1000)} s.`,
        nextStep: 'Try the call again in a moment.',
      });
    }
    await sleep(pause);
    const current = await read(state, key);
    if (!current || current.accessToken !== replacing) return current;
  }
}

function renew(state: UserTokensState, key: string, stale: string | undefined): Promise<PlatformTokens | undefined> {
  let running = state.renewing.get(key);
  if (!running) {
    running = renewAcrossReplicas(state, key, stale).finally(() => state.renewing.delete(key));
    state.renewing.set(key, running);
  }
  return running;
}
