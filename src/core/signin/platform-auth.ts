/**
 * Sign-in for one platform, described as data by the platform's folder: where the explicit token
 * is, the OAuth client and endpoints, how to revoke, and how to learn who signed in. The CLI's
 * `login`, `logout` and `auth status` and the servers' credentials all go through here.
 */
import type { Logger } from '../logger.js';
import { resolveClient, type OAuthClientSettings } from './client.js';
import { CredentialSource, type CredentialDescription } from './credential-source.js';
import { sourceCredentials, type Credentials } from './credentials.js';
import type { LoginOptions, OAuthEndpoints } from './oauth.js';
import { printable, printableOrUndefined } from './printable.js';
import { CredentialStoreError, type FileTokenStore, type StoredCredential } from './token-store.js';

export interface PlatformAuth {
  /** Platform key in the store and in `toolservers login <platform>`. */
  platform: string;
  /** Display name, e.g. `IncidentOps`. */
  name: string;
  baseUrl: string;
  /** A token from the environment or a flag; wins over any stored sign-in and is never refreshed. */
  explicit?: { token: string; scheme: string; setting: string };
  /**
   * The OAuth client and endpoints (defaults filled in); `clientId` undefined when no client is
   * configured. `explicit` says which endpoints were set by a flag or variable rather than defaulted:
   * only those win over the ones stored with a sign-in.
   */
  oauth: Omit<OAuthEndpoints, 'clientId'> & { clientId?: string; revokeUrl: string; explicit?: { tokenUrl?: boolean; revokeUrl?: boolean } };
  /** The settings that configure the client and the address, for messages. */
  settingNames: { clientId: string; clientSecret: string; tokenUrl: string; baseUrl: string };
  revokeStyle: 'rfc7009' | 'canvas-json';
  /** Best effort: who the token belongs to (never throws). */
  lookupAccount(accessToken: string): Promise<StoredCredential['account'] | undefined>;
}

export interface PlatformCredentials {
  credentials: Credentials;
  source: CredentialSource;
}

function endpointsOf(auth: PlatformAuth): OAuthEndpoints | undefined {
  const { clientId, explicit: _explicit, ...rest } = auth.oauth;
  return clientId ? { ...rest, clientId } : undefined;
}

/** The client settings of a server: only what was set explicitly wins over a stored sign-in; the rest are fallbacks. */
export function configuredClient(auth: PlatformAuth): OAuthClientSettings {
  const { oauth } = auth;
  return {
    ...(oauth.clientId ? { clientId: oauth.clientId } : {}),
    ...(oauth.clientSecret ? { clientSecret: oauth.clientSecret } : {}),
    ...(oauth.explicit?.tokenUrl ? { tokenUrl: oauth.tokenUrl } : {}),
    ...(oauth.explicit?.revokeUrl ? { revokeUrl: oauth.revokeUrl } : {}),
    defaultTokenUrl: oauth.tokenUrl,
    defaultRevokeUrl: oauth.revokeUrl,
    ...(oauth.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
    names: { clientId: auth.settingNames.clientId, clientSecret: auth.settingNames.clientSecret, tokenUrl: auth.settingNames.tokenUrl },
  };
}

/** Explicit token first, else the stored sign-in (renewed before expiry and once after a 401). */
export function platformCredentials(
  auth: PlatformAuth,
  store: FileTokenStore | undefined,
  logger: Logger,
  options: { now?: () => number; fetch?: typeof fetch } = {},
): PlatformCredentials {
  const source = new CredentialSource({
    platform: auth.platform,
    ...(auth.explicit ? { envToken: auth.explicit.token } : {}),
    ...(store ? { store } : {}),
    client: configuredClient(auth),
    baseUrl: auth.baseUrl,
    baseUrlSetting: auth.settingNames.baseUrl,
    logger,
    ...(options.now ? { now: options.now } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { source, credentials: sourceCredentials(source, auth.explicit?.scheme ?? 'Bearer') };
}

export interface SignInOptions extends Omit<LoginOptions, 'now'> {
  now?: () => number;
}

function printableAccount(account: StoredCredential['account'] | undefined): StoredCredential['account'] | undefined {
  if (!account) return undefined;
  const out: NonNullable<StoredCredential['account']> = {};
  for (const key of ['id', 'name', 'email'] as const) {
    const value = printableOrUndefined(account[key])?.trim();
    if (value) out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The browser sign-in; stores the result with everything renewal and revocation need (refresh
 * token, expiry, client ID and secret, token and revoke URLs) and the account, and returns it.
 * A credentials file that could not be rewritten safely is reported before the browser opens.
 */
export async function signIn(auth: PlatformAuth, store: FileTokenStore, options: SignInOptions): Promise<StoredCredential> {
  const endpoints = endpointsOf(auth);
  if (!endpoints) {
    throw new Error(`Signing in to ${auth.name} needs the OAuth app's client ID: set ${auth.settingNames.clientId} or pass --client-id (and the app's secret, if it has one).`);
  }
  await withPlatformAdvice(auth, () => store.checkWritable(auth.platform));
  const now = options.now ?? Date.now;
  // The OAuth client (and the browser opener) load only for a sign-in, not for every server start.
  const { loginWithBrowser } = await import('./oauth.js');
  const tokens = await loginWithBrowser(endpoints, { ...options, now });
  const account = printableAccount(await auth.lookupAccount(tokens.accessToken));
  const credential: StoredCredential = {
    platform: auth.platform,
    accessToken: tokens.accessToken,
    tokenType: tokens.tokenType,
    obtainedAt: now(),
    clientId: endpoints.clientId,
    ...(endpoints.clientSecret ? { clientSecret: endpoints.clientSecret } : {}),
    tokenUrl: endpoints.tokenUrl,
    revokeUrl: auth.oauth.revokeUrl,
    baseUrl: auth.baseUrl,
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
    ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
    ...(account ? { account } : {}),
  };
  await withPlatformAdvice(auth, () => store.set(credential));
  return credential;
}

/** Store errors with advice that names this platform's login command. */
async function withPlatformAdvice<T>(auth: PlatformAuth, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw error instanceof CredentialStoreError ? error.forPlatform(auth.platform) : error;
  }
}

export interface SignOutResult {
  signedIn: boolean;
  revoked: boolean;
  /** Why revocation did not happen (the stored tokens are deleted regardless). */
  revokeProblem?: string;
  /** The entry was malformed: it was removed without revoking anything. */
  removedMalformed?: boolean;
}

/**
 * Revokes the stored sign-in where the platform can, with the client stored with it (settings
 * that are set win), then deletes it; both in one locked update, so a file that could not be
 * rewritten safely fails before anything is revoked. A malformed entry of this platform is
 * removed (other entries are kept as they are).
 */
export async function signOut(auth: PlatformAuth, store: FileTokenStore, options: { fetch?: typeof fetch; timeoutMs?: number } = {}): Promise<SignOutResult> {
  let result: SignOutResult = { signedIn: false, revoked: false };
  try {
    await store.update(auth.platform, async (stored) => {
      if (!stored) return undefined;
      result = { signedIn: true, ...(await revokeStored(auth, stored, options)) };
      return undefined;
    });
  } catch (error) {
    if (error instanceof CredentialStoreError && error.problem === 'malformed_entry' && error.platform === auth.platform) {
      // `logout` is the repair for this platform's own malformed entry (unless another entry is malformed too).
      await withPlatformAdvice(auth, () => store.delete(auth.platform, { removeMalformed: true }));
      return {
        signedIn: true,
        revoked: false,
        removedMalformed: true,
        revokeProblem: `the stored entry was malformed (${error.detail ?? 'unknown problem'}), so nothing could be revoked; it was removed`,
      };
    }
    throw error instanceof CredentialStoreError ? error.forPlatform(auth.platform) : error;
  }
  return result;
}

async function revokeStored(
  auth: PlatformAuth,
  stored: StoredCredential,
  options: { fetch?: typeof fetch; timeoutMs?: number },
): Promise<{ revoked: boolean; revokeProblem?: string }> {
  const client = resolveClient(stored, configuredClient(auth));
  const names = auth.settingNames;
  if (!client.clientId) return { revoked: false, revokeProblem: `no client ID to revoke with (none was stored with the sign-in; set ${names.clientId})` };
  if (!client.revokeUrl) return { revoked: false, revokeProblem: 'no revoke URL is known' };
  if (auth.revokeStyle === 'canvas-json' && !client.clientSecret) {
    return { revoked: false, revokeProblem: `no client secret to revoke with (none was stored with the sign-in; set ${names.clientSecret})` };
  }
  const endpoints: OAuthEndpoints = {
    authorizeUrl: client.revokeUrl,
    tokenUrl: client.tokenUrl ?? client.revokeUrl,
    revokeUrl: client.revokeUrl,
    clientId: client.clientId,
    ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
    ...(auth.oauth.allowInsecureHttp ? { allowInsecureHttp: true } : {}),
  };
  // RFC 7009: revoking the refresh token ends the whole grant; the whiteboard platform revokes by access token.
  const token = auth.revokeStyle === 'rfc7009' ? stored.refreshToken ?? stored.accessToken : stored.accessToken;
  try {
    const { revokeToken } = await import('./oauth.js');
    await revokeToken(endpoints, token, { style: auth.revokeStyle, timeoutMs: options.timeoutMs ?? 15_000, ...(options.fetch ? { fetch: options.fetch } : {}) });
    return { revoked: true };
  } catch (error) {
    return { revoked: false, revokeProblem: printable(error instanceof Error ? error.message : String(error)) };
  }
}

export interface AuthStatus extends CredentialDescription {
  platform: string;
  name: string;
  /** The setting the explicit token came from, when it did. */
  setting?: string;
}

/** Who is signed in, with what scope, until when and from where; never a secret. */
export async function authStatus(auth: PlatformAuth, store: FileTokenStore, logger: Logger): Promise<AuthStatus> {
  const { source } = platformCredentials(auth, store, logger);
  const description = await source.status();
  return { platform: auth.platform, name: auth.name, ...description, ...(auth.explicit ? { setting: auth.explicit.setting } : {}) };
}
