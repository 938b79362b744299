import { AsyncLocalStorage } from 'node:async_hooks';

/** What the server keeps of one user's sign-in to a platform. */
export interface PlatformTokens {
  accessToken: string;
  refreshToken?: string;
  tokenType: string;
  /** Epoch ms. */
  expiresAt?: number;
  obtainedAt: number;
  scope?: string;
  account?: { id?: string; name?: string; email?: string };
}

/**
 * Who a request acts for, carried through everything it awaits. Set over HTTP in OAuth mode
 * (one user per MCP token); absent on stdio and in server-key mode, where the server's own
 * credentials are used. Caches and credentials that differ per user key on `userKey`.
 */
export interface RequestIdentity {
  /** Stable, opaque key of the signed-in user (never a token): `<platform>:<account id>`. */
  userKey: string;
  /**
   * OAuth mode: the user's platform sign-in as the bearer check just opened it. The request's
   * first platform call takes it rather than reading the store again; later calls read the store
   * (a renewal may have replaced it).
   */
  platformTokens?: PlatformTokens;
}

const current = new AsyncLocalStorage<RequestIdentity>();

export function runAs<T>(identity: RequestIdentity, work: () => T): T {
  return current.run(identity, work);
}

export function currentIdentity(): RequestIdentity | undefined {
  return current.getStore();
}
