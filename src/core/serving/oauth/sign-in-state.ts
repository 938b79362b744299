/**
 * What a sign-in keeps between its steps, shared by the platform sign-in (platform-sign-in.ts)
 * and the consent (consent.ts): the pending platform sign-in, bound to
 * the browser that started it by the hash of a nonce in its cookie; then the signed-in result
 * awaiting consent, bound to the consent page by a CSRF token. Both are sealed records under
 * names that do not show the state or interaction they belong to.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthRecords } from './adapter.js';

/** A sign-in in progress lives this long (the platform redirect, then the consent). */
export const SIGN_IN_TTL_MS = 10 * 60_000;

/** A sign-in in progress: kept in the store between the platform redirect and the consent. */
export interface PendingSignIn {
  uid: string;
  platform: string;
  redirectUri: string;
  state: string;
  codeVerifier: string;
  /** SHA-256 of the nonce in the cookie of the browser that was sent to the platform. */
  browserHash: string;
}

/** The platform said who signed in: what the consent step needs. */
export interface SignedIn {
  userKey: string;
  account: string;
  csrf: string;
  /** The platform tokens, sealed for the user key until the person allows. */
  sealed: string;
}

/** The platform sign-in failed: the authorization ends with this error. */
export interface SignInRefused {
  error: string;
  description: string;
}

/** The pending sign-in of a platform `state`. */
export const pendingSignInKey = (records: OAuthRecords, state: string): string => records.key('pending-sign-in', state);
/** The platform `state` an interaction's pending sign-in is kept under (one per interaction). */
export const pendingStateKey = (records: OAuthRecords, uid: string): string => records.key('pending-state', uid);
/** An interaction's signed-in result, until its consent is answered. */
export const signedInKey = (records: OAuthRecords, uid: string): string => records.key('signed-in', uid);


/** What an interaction of oidc-provider says about its authorization request. */
export interface InteractionDetails {
  uid: string;
  params: Record<string, unknown>;
}

/** A grant oidc-provider is asked to save (the consent's answer). */
export interface NewGrant {
  addOIDCScope(scope: string): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

/** The parts of oidc-provider the sign-in steps use (it ships no types). */
export interface InteractionProvider {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options: { mergeWithLastSubmission: boolean }): Promise<unknown>;
  Client: { find(clientId: unknown): Promise<{ clientName?: unknown; redirectUris?: unknown[] } | undefined> };
  Grant: new (init: { accountId: string; clientId: unknown }) => NewGrant;
}
