import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who a request acts for, carried through everything it awaits. Set over HTTP in OAuth mode
 * (one user per MCP token); absent on stdio and in server-key mode, where the server's own
 * credentials are used. Caches and credentials that differ per user key on `userKey`.
 */
export interface RequestIdentity {
  /** Stable, opaque key of the signed-in user (never a token): `<platform>:<account id>`. */
  userKey: string;
}

const current = new AsyncLocalStorage<RequestIdentity>();

export function runAs<T>(identity: RequestIdentity, work: () => T): T {
  return current.run(identity, work);
}

export function currentIdentity(): RequestIdentity | undefined {
  return current.getStore();
}
