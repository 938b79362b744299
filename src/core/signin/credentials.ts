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
 * Only when nothing at all is configured (no token, nobody signed in) is undefined returned, so
 * that the server says what to set or run. Any more specific reason (the credentials file cannot
 * be used, the sign-in was made for another base URL, it expired and cannot be renewed) is raised
 * as the source's own ToolError, which names the file, the addresses or the command.
 */
export function sourceCredentials(source: CredentialSource, scheme: string): Credentials {
  return {
    authorization: async () => {
      const value = await source.authorization(scheme);
      if (value !== undefined) return value;
      if (source.hasSpecificProblem()) throw source.unavailableError();
      return undefined;
    },
    refresh: () => source.onUnauthorized(),
  };
}
