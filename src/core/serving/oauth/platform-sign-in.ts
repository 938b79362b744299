/**
 * The platform leg of an authorization: the person is sent to the platform's own OAuth
 * (oauth4webapi, PKCE, state), comes back through the one redirect URI registered with the
 * platform, and counts only in the browser that was sent there (RFC 9700 4.7): a nonce in a
 * cookie of that browser, its hash in the pending sign-in. The platform's answer is used once;
 * who signed in is learnt from the platform and their tokens are sealed until the consent.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../logger.js';
import type { SharedStore } from '../../store/store.js';
import { requestLog } from '../http/request-id.js';
import type { OAuthRecords } from './adapter.js';
import { ISSUER_PATH, type OAuthMount, type PublicSite } from './endpoints.js';
import { sendErrorPage } from './pages.js';
import { pendingSignInKey, pendingStateKey, SIGN_IN_TTL_MS, signedInKey, type InteractionProvider, type PendingSignIn, type SignedIn, type SignInRefused } from './sign-in-state.js';
import type { PlatformTokens, TokenVault } from './vault.js';
import { sameSecret } from '../../same-secret.js';

/** The state the platform sign-in reads and writes. */
export interface PlatformSignInState {
  /** oidc-provider: the interaction the answer must belong to. */
  provider: Pick<InteractionProvider, 'interactionDetails'>;
  site: PublicSite;
  mounts: readonly OAuthMount[];
  /** The pending sign-ins and signed-in results. */
  records: OAuthRecords;
  /** One-use takes of pending sign-ins. */
  store: SharedStore;
  /** Seals the platform tokens for the user until the consent. */
  vault: TokenVault;
  logger: Logger;
}

const EXPIRED_ANSWER = 'This sign-in answer is unknown, was already used or has expired.';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function signInCookie(site: PublicSite, uid: string, nonce: string, maxAgeSeconds: number): string {
  return `${site.cookies.signIn(uid)}=${nonce}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${site.https ? '; Secure' : ''}`;
}

/** First visit of an interaction: off to the platform's own sign-in and consent, the browser marked with a nonce. */
export async function sendToPlatform(state: Pick<PlatformSignInState, 'site' | 'records' | 'store'>, res: ServerResponse, uid: string, mount: OAuthMount, params: Record<string, unknown>): Promise<void> {
  const { auth } = mount;
  if (!auth.oauth.clientId) return sendErrorPage(res, 500, 'Sign-in not configured', `The server has no ${auth.name} OAuth client configured.`);
  const { startWebSignIn } = await import('../../signin/oauth.js');
  const redirectUri = `${state.site.url}${ISSUER_PATH}/callback`;
  const loginHint = typeof params.login_hint === 'string' ? params.login_hint : undefined;
  const started = await startWebSignIn({ ...auth.oauth, clientId: auth.oauth.clientId }, redirectUri, loginHint ? { login_hint: loginHint } : {});
  // The platform's answer counts only in the browser that holds this nonce (RFC 9700 4.7).
  const nonce = randomBytes(32).toString('base64url');
  const pending: PendingSignIn = { uid, platform: auth.platform, redirectUri, state: started.state, codeVerifier: started.codeVerifier, browserHash: sha256(nonce) };
  // One pending sign-in per interaction: reloading this page replaces it rather than adding more.
  const replaced = (await state.records.get(pendingStateKey(state.records, uid)))?.state;
  if (typeof replaced === 'string') await state.store.delete(pendingSignInKey(state.records, replaced));
  await state.records.set(pendingSignInKey(state.records, started.state), pending, SIGN_IN_TTL_MS);
  await state.records.set(pendingStateKey(state.records, uid), { state: started.state }, SIGN_IN_TTL_MS);
  res.writeHead(303, { location: started.url, 'cache-control': 'no-store', 'set-cookie': signInCookie(state.site, uid, nonce, SIGN_IN_TTL_MS / 1000) });
  res.end();
}

/**
 * The platform sends the browser back here (the one redirect URI registered with it). The answer
 * moves on to its interaction's path, where the browser's interaction cookie is sent.
 */
export async function platformCallback(state: Pick<PlatformSignInState, 'records'>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = new URL(req.url ?? '/', 'http://callback').search;
  const platformState = new URLSearchParams(query).get('state');
  const pending = platformState ? ((await state.records.get(pendingSignInKey(state.records, platformState))) as PendingSignIn | undefined) : undefined;
  if (pending === undefined) return sendErrorPage(res, 400, 'Sign-in expired', EXPIRED_ANSWER);
  const { uid } = pending;
  res.writeHead(303, { location: `${ISSUER_PATH}/interaction/${uid}/callback${query}`, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  res.end();
}

/**
 * The platform's answer, accepted only from the browser that was sent to the platform: it holds
 * the interaction and the sign-in cookie. Otherwise nothing is exchanged or recorded (a victim's
 * browser brought here by someone else's link must not sign that someone in as the victim).
 */
export async function finishPlatformSignIn(state: PlatformSignInState, req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
  const received = new URL(req.url ?? '/', 'http://callback').searchParams;
  const platformState = received.get('state');
  const key = pendingSignInKey(state.records, platformState ?? '');
  const pending = platformState ? ((await state.records.get(key)) as PendingSignIn | undefined) : undefined;
  if (pending === undefined) return sendErrorPage(res, 400, 'Sign-in expired', EXPIRED_ANSWER);
  const details = await state.provider.interactionDetails(req, res).catch((error: { name?: string }) => {
    if (error?.name === 'SessionNotFound') return undefined;
    throw error;
  });
  const nonce = cookieValue(req, state.site.cookies.signIn(uid));
  if (pending.uid !== uid || details?.uid !== uid || !nonce || !sameSecret(sha256(nonce), pending.browserHash)) {
    requestLog(state.logger, req).warn({ platform: pending.platform }, 'refused a platform sign-in answer in a browser that did not start it');
    return sendErrorPage(res, 403, 'Sign-in not accepted', 'This sign-in did not start in this browser, so it was not used. If you did not just start connecting an application, you can ignore this page.');
  }
  // One use, even when the answer reaches two replicas at once.
  if ((await state.store.take(key)) === undefined) return sendErrorPage(res, 400, 'Sign-in expired', 'This sign-in answer was already used.');
  await state.store.delete(pendingStateKey(state.records, uid));
  await recordPlatformOutcome(state, req, pending, received);
  res.writeHead(303, { location: `${ISSUER_PATH}/interaction/${pending.uid}`, 'cache-control': 'no-store', 'set-cookie': signInCookie(state.site, uid, '', 0) });
  res.end();
}

/** Exchanges the platform's code, learns who signed in, and records the outcome for the consent step. */
async function recordPlatformOutcome(state: Pick<PlatformSignInState, 'mounts' | 'records' | 'vault' | 'logger'>, req: IncomingMessage, pending: PendingSignIn, received: URLSearchParams): Promise<void> {
  const mount = state.mounts.find((candidate) => candidate.auth.platform === pending.platform) as OAuthMount;
  const { auth } = mount;
  const next = (value: SignedIn | SignInRefused) => state.records.set(signedInKey(state.records, pending.uid), value, SIGN_IN_TTL_MS);
  try {
    const { finishWebSignIn } = await import('../../signin/oauth.js');
    const tokens = await finishWebSignIn({ ...auth.oauth, clientId: auth.oauth.clientId as string }, received, pending, { timeoutMs: 20_000 });
    const account = await auth.lookupAccount(tokens.accessToken);
    if (!account?.id) {
      await next({ error: 'access_denied', description: `${auth.name} did not say who signed in.` });
    } else {
      const userKey = `${auth.platform}:${account.id}`;
      const platformTokens: PlatformTokens = {
        accessToken: tokens.accessToken,
        tokenType: tokens.tokenType,
        obtainedAt: Date.now(),
        ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
        ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
        ...(tokens.scope ? { scope: tokens.scope } : {}),
        account,
      };
      const who = account.name ? `${account.name}${account.email ? ` <${account.email}>` : ''}` : account.email ?? account.id;
      await next({ userKey, account: who, csrf: randomBytes(24).toString('base64url'), sealed: await state.vault.seal(userKey, platformTokens) });
      requestLog(state.logger, req).info({ platform: auth.platform, account: account.id }, 'platform sign-in for an MCP client');
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    requestLog(state.logger, req).warn({ platform: auth.platform, err: message }, 'platform sign-in failed');
    await next({ error: 'access_denied', description: `Signing in to ${auth.name} failed: ${message}` });
  }
}
