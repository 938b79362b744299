/**
 * Sign-in for one platform, described as data by the platform's folder: where the explicit token
 * is, the OAuth client and endpoints, how to revoke, and how to learn who signed in. The CLI's
 * `login`, `logout` and `auth status` and the servers' credentials all go through here.
 */
import type { Logger } from '../logger.js';
import { CredentialSource, type CredentialDescription } from './credential-source.js';
import { sourceCredentials, type Credentials } from './credentials.js';
import { loginWithBrowser, revokeToken, type LoginOptions, type OAuthEndpoints } from './oauth.js';
import type { FileTokenStore, StoredCredential } from './token-store.js';

export interface PlatformAuth {
  /** Platform key in the store and in `toolservers login <platform>`. */
  platform: string;
  /** Display name, e.g. `IncidentOps`. */
  name: string;
  baseUrl: string;
  /** A token from the environment or a flag; wins over any stored sign-in and is never refreshed. */
  explicit?: { token: string; scheme: string; setting: string };
  /** The OAuth client and endpoints; `clientId` undefined when no client is configured. */
  oauth: Omit<OAuthEndpoints, 'clientId'> & { clientId?: string; revokeUrl: string };
  /** The settings that configure the client, for messages. */
  clientIdSetting: string;
  revokeStyle: 'rfc7009' | 'canvas-json';
  /** Best effort: who the token belongs to (never throws). */
  lookupAccount(accessToken: string): Promise<StoredCredential['account'] | undefined>;
}

export interface PlatformCredentials {
  credentials: Credentials;
  source: CredentialSource;
}

function endpointsOf(auth: PlatformAuth): OAuthEndpoints | undefined {
  const { clientId, ...rest } = auth.oauth;
  return clientId ? { ...rest, clientId } : undefined;
}

/** Explicit token first, else the stored sign-in (renewed before expiry and once after a 401). */
export function platformCredentials(
  auth: PlatformAuth,
  store: FileTokenStore | undefined,
  logger: Logger,
  options: { now?: () => number; fetch?: typeof fetch } = {},
): PlatformCredentials {
  const endpoints = endpointsOf(auth);
  const source = new CredentialSource({
    platform: auth.platform,
    ...(auth.explicit ? { envToken: auth.explicit.token } : {}),
    ...(store ? { store } : {}),
    ...(endpoints ? { endpoints } : {}),
    baseUrl: auth.baseUrl,
    logger,
    ...(options.now ? { now: options.now } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { source, credentials: sourceCredentials(source, auth.explicit?.scheme ?? 'Bearer') };
}

export interface SignInOptions extends Omit<LoginOptions, 'now'> {
  now?: () => number;
}

/** The browser sign-in; stores the result (with refresh token, expiry and account) and returns it. */
export async function signIn(auth: PlatformAuth, store: FileTokenStore, options: SignInOptions): Promise<StoredCredential> {
  const endpoints = endpointsOf(auth);
  if (!endpoints) {
    throw new Error(`Signing in to ${auth.name} needs the OAuth app's client ID: set ${auth.clientIdSetting} (and its secret, if the app has one).`);
  }
  const now = options.now ?? Date.now;
  const tokens = await loginWithBrowser(endpoints, { ...options, now });
  const account = await auth.lookupAccount(tokens.accessToken);
  const credential: StoredCredential = {
    platform: auth.platform,
    accessToken: tokens.accessToken,
    tokenType: tokens.tokenType,
    obtainedAt: now(),
    clientId: endpoints.clientId,
    tokenUrl: endpoints.tokenUrl,
    revokeUrl: auth.oauth.revokeUrl,
    baseUrl: auth.baseUrl,
    ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
    ...(tokens.expiresAt !== undefined ? { expiresAt: tokens.expiresAt } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
    ...(account ? { account } : {}),
  };
  await store.set(credential);
  return credential;
}

export interface SignOutResult {
  signedIn: boolean;
  revoked: boolean;
  /** Why revocation did not happen (the stored tokens are deleted regardless). */
  revokeProblem?: string;
}

/** Revokes the stored sign-in where the platform can, then deletes it from the store. */
export async function signOut(auth: PlatformAuth, store: FileTokenStore, options: { fetch?: typeof fetch } = {}): Promise<SignOutResult> {
  const stored = await store.get(auth.platform);
  if (!stored) return { signedIn: false, revoked: false };
  let revoked = false;
  let revokeProblem: string | undefined;
  const clientId = stored.clientId ?? auth.oauth.clientId;
  if (!clientId) {
    revokeProblem = `no client ID to revoke with (set ${auth.clientIdSetting})`;
  } else {
    const sameClient = clientId === auth.oauth.clientId;
    const endpoints: OAuthEndpoints = {
      ...auth.oauth,
      clientId,
      revokeUrl: stored.revokeUrl ?? auth.oauth.revokeUrl,
      ...(sameClient && auth.oauth.clientSecret ? { clientSecret: auth.oauth.clientSecret } : { clientSecret: undefined }),
    };
    // RFC 7009: revoking the refresh token ends the whole grant; the whiteboard platform revokes by access token.
    const token = auth.revokeStyle === 'rfc7009' ? stored.refreshToken ?? stored.accessToken : stored.accessToken;
    try {
      await revokeToken(endpoints, token, { style: auth.revokeStyle, ...(options.fetch ? { fetch: options.fetch } : {}) });
      revoked = true;
    } catch (error) {
      revokeProblem = error instanceof Error ? error.message : String(error);
    }
  }
  await store.delete(auth.platform);
  return { signedIn: true, revoked, ...(revokeProblem ? { revokeProblem } : {}) };
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
