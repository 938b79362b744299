/** OAuth failures, in a module of their own so that checking for one does not load the OAuth client. */

export type OAuthErrorKind =
  | 'configuration' // endpoints or options are unusable; nothing was sent
  | 'state_mismatch' // (not raised by loginWithBrowser any more: a callback without this login's state is ignored)
  | 'invalid_callback' // the callback lacks a code
  | 'authorization_denied' // the provider redirected back with error=...
  | 'token_error' // the token endpoint answered with an OAuth error (e.g. invalid_grant)
  | 'revocation_error' // the revocation endpoint refused
  | 'invalid_response' // an endpoint answered something that is not a valid OAuth response
  | 'network_error' // no HTTP answer
  | 'timeout'
  | 'cancelled';

export class OAuthError extends Error {
  readonly kind: OAuthErrorKind;
  /** The provider's OAuth error code (e.g. `invalid_grant`, `access_denied`), when it sent one. */
  readonly error?: string;
  readonly errorDescription?: string;
  /** HTTP status of the endpoint's answer, when there was one. */
  readonly status?: number;

  constructor(kind: OAuthErrorKind, message: string, extra: { error?: string; errorDescription?: string; status?: number } = {}) {
    super(message);
    this.name = 'OAuthError';
    this.kind = kind;
    if (extra.error !== undefined) this.error = extra.error;
    if (extra.errorDescription !== undefined) this.errorDescription = extra.errorDescription;
    if (extra.status !== undefined) this.status = extra.status;
  }
}
