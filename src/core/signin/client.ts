/**
 * Which OAuth client renews and revokes a stored sign-in: what the server's settings set
 * explicitly (flags or environment) wins, field by field; otherwise what `login` stored with the
 * sign-in; otherwise the platform's default endpoints.
 *
 * - client ID: the setting, else the stored one;
 * - client secret: the setting, else the stored one, but only while the client ID is the stored
 *   one (one app's secret is never sent with another app's ID);
 * - token URL, revoke URL: the setting, else the stored one, else the default.
 */

/** The OAuth client as the server's settings describe it. */
export interface OAuthClientSettings {
  /** Values set explicitly (flag or environment); each wins over what the sign-in stored. */
  clientId?: string;
  clientSecret?: string;
  tokenUrl?: string;
  revokeUrl?: string;
  /** Used when neither a setting nor the stored sign-in says. */
  defaultTokenUrl?: string;
  defaultRevokeUrl?: string;
  /** Allow plain http to non-loopback endpoints (see OAuthEndpoints). */
  allowInsecureHttp?: boolean;
  /** Setting names, for messages (e.g. `CANVASAPI_CLIENT_ID`). */
  names?: { clientId?: string; clientSecret?: string; tokenUrl?: string };
}

export type ValueSource = 'setting' | 'stored sign-in' | 'default';

export interface ResolvedClient {
  clientId?: string;
  clientSecret?: string;
  tokenUrl?: string;
  revokeUrl?: string;
  from: { clientId?: ValueSource; clientSecret?: ValueSource; tokenUrl?: ValueSource; revokeUrl?: ValueSource };
  /** Set when the setting names another client than the one the sign-in was made with. */
  otherClient?: { stored: string; configured: string };
}

/** The client to renew or revoke `stored` with (see the module comment for the rules). */
export function resolveClient(
  stored: { clientId?: string; clientSecret?: string; tokenUrl?: string; revokeUrl?: string },
  settings: OAuthClientSettings | undefined,
): ResolvedClient {
  const s = settings ?? {};
  const out: ResolvedClient = { from: {} };
  const pick = <K extends 'tokenUrl' | 'revokeUrl'>(key: K, fallback: string | undefined): void => {
    if (s[key]) {
      out[key] = s[key];
      out.from[key] = 'setting';
    } else if (stored[key]) {
      out[key] = stored[key];
      out.from[key] = 'stored sign-in';
    } else if (fallback) {
      out[key] = fallback;
      out.from[key] = 'default';
    }
  };
  if (s.clientId) {
    out.clientId = s.clientId;
    out.from.clientId = 'setting';
  } else if (stored.clientId) {
    out.clientId = stored.clientId;
    out.from.clientId = 'stored sign-in';
  }
  const sameClient = stored.clientId === undefined || out.clientId === stored.clientId;
  if (!sameClient && stored.clientId && s.clientId) out.otherClient = { stored: stored.clientId, configured: s.clientId };
  if (s.clientSecret) {
    out.clientSecret = s.clientSecret;
    out.from.clientSecret = 'setting';
  } else if (sameClient && stored.clientSecret) {
    out.clientSecret = stored.clientSecret;
    out.from.clientSecret = 'stored sign-in';
  }
  pick('tokenUrl', s.defaultTokenUrl);
  pick('revokeUrl', s.defaultRevokeUrl);
  return out;
}
