/**
 * What an API client needs from a credential source: the Authorization header value and a way to
 * renew it after a 401. Servers receive one of these; they never see where it came from.
 */
import type { CredentialSource } from './credential-source.js';

export interface Credentials {
  /** The Authorization header value; undefined when nothing is configured (the client then says what to set). */
  authorization(): Promise<string | undefined>;
  /** Renew after a 401; true when a different credential is now available. */
  refresh?(): Promise<boolean>;
}

/** A fixed header value (an explicit token), or none. */
export function staticCredentials(authorization: string | undefined): Credentials {
  return { authorization: async () => authorization };
}

/**
 * Credentials backed by a CredentialSource (explicit token first, else the stored sign-in).
 * When a stored sign-in exists but cannot be used (expired and not renewable), the source's own
 * error, which names the login command, is raised instead of the generic "not configured".
 */
export function sourceCredentials(source: CredentialSource, scheme: string): Credentials {
  return {
    authorization: async () => {
      const value = await source.authorization(scheme);
      if (value !== undefined) return value;
      const description = source.describe();
      // A stored sign-in that cannot be used has its own explanation; nothing at all gets the server's message.
      if (description.source === 'stored sign-in' && description.problem) return source.requireAuthorization(scheme);
      return undefined;
    },
    refresh: () => source.onUnauthorized(),
  };
}
