/**
 * OAuth 2.0 sign-in for a command-line tool, built on oauth4webapi: authorization code flow with
 * PKCE (S256) and a one-shot loopback redirect server, refresh, and revocation.
 *
 * Platform-neutral: endpoints, client id/secret and scopes come in as `OAuthEndpoints`.
 * No error message ever contains a token, code, verifier or client secret, and text from the
 * provider (error codes and descriptions) is stripped of control characters and escape sequences
 * before it goes into a message.
 */

import * as oauth from 'oauth4webapi';
import { MAX_ANSWER_DEPTH, nestsDeeperThan } from '../json.js';
import { printable } from './printable.js';
import { answerPage, RedirectReceiver } from './redirect-receiver.js';

export interface OAuthEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
  revokeUrl?: string;
  clientId: string;
  clientSecret?: string;
  /** Space-separated scopes to request. */
  scope?: string;
  /** Added to the authorize URL (they cannot override the protocol parameters). */
  extraAuthorizeParams?: Record<string, string>;
  /**
   * Allow plain http for non-loopback hosts (e.g. a sandbox on another machine). Plain http to
   * 127.0.0.0/8, ::1 and localhost is always allowed; any other http endpoint is refused otherwise.
   */
  allowInsecureHttp?: boolean;
}

export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Lower-cased as oauth4webapi reports it (`bearer`). */
  tokenType: string;
  /** Epoch ms; undefined when the provider sent no `expires_in`. */
  expiresAt?: number;
  scope?: string;
  /** The token endpoint's whole JSON answer (contains secrets: never log it). */
  raw: Record<string, unknown>;
}

/** How the client authenticates at the token/revocation endpoint. Default: `post` with a secret, else `none`. */
export type ClientAuthMethod = 'post' | 'basic' | 'none';

export { OAuthError, type OAuthErrorKind } from './oauth-error.js';
import { OAuthError } from './oauth-error.js';


export interface LoginOptions {
  /** Port of the loopback redirect server; 0 (default) = any free port. */
  redirectPort?: number;
  /** Path of the redirect URI (default `/callback`). */
  redirectPath?: string;
  /** Opens the URL in a browser; default uses the `open` package. Failures are ignored (the URL is printed anyway). */
  openBrowser?: (url: string) => Promise<void> | void;
  /** Where the sign-in URL and progress lines go. The URL is always printed. */
  print: (line: string) => void;
  /** How long to wait for the browser to come back (default 5 minutes). */
  timeoutMs?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  clientAuth?: ClientAuthMethod;
  now?: () => number;
}

export interface TokenRequestOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  clientAuth?: ClientAuthMethod;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  now?: () => number;
}

export interface RevokeOptions extends TokenRequestOptions {
  /** `rfc7009` (default): form POST `token=...` with client authentication. `canvas-json`: JSON POST `{accessToken, clientId, clientSecret}`. */
  style?: 'rfc7009' | 'canvas-json';
  /** RFC 7009 `token_type_hint`. */
  tokenTypeHint?: 'access_token' | 'refresh_token';
}

const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

function parseEndpointUrl(value: string | undefined, name: string, endpoints: OAuthEndpoints): URL {
  let url: URL;
  try {
    url = new URL(value ?? '');
  } catch {
    throw new OAuthError('configuration', `The OAuth ${name} is not a valid URL.`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && (isLoopbackHost(url.hostname) || endpoints.allowInsecureHttp === true)) return url;
  throw new OAuthError('configuration', `The OAuth ${name} must use https (plain http is only allowed for loopback hosts): ${url.origin}`);
}

function usesHttp(...urls: (URL | undefined)[]): boolean {
  return urls.some((url) => url?.protocol === 'http:');
}

function authorizationServer(endpoints: OAuthEndpoints, need: 'authorize' | 'token' | 'revoke'): { as: oauth.AuthorizationServer; insecure: boolean } {
  const tokenUrl = need === 'revoke' ? undefined : parseEndpointUrl(endpoints.tokenUrl, 'token URL', endpoints);
  const authorizeUrl = need === 'authorize' ? parseEndpointUrl(endpoints.authorizeUrl, 'authorize URL', endpoints) : undefined;
  const revokeUrl = need === 'revoke' ? parseEndpointUrl(endpoints.revokeUrl, 'revoke URL', endpoints) : undefined;
  const issuerSource = authorizeUrl ?? tokenUrl ?? revokeUrl;
  const as: oauth.AuthorizationServer = {
    issuer: issuerSource ? issuerSource.origin : 'urn:toolservers:oauth',
    ...(authorizeUrl ? { authorization_endpoint: authorizeUrl.href } : {}),
    ...(tokenUrl ? { token_endpoint: tokenUrl.href } : {}),
    ...(revokeUrl ? { revocation_endpoint: revokeUrl.href } : {}),
  };
  return { as, insecure: usesHttp(tokenUrl, authorizeUrl, revokeUrl) };
}

function oauthClient(endpoints: OAuthEndpoints): oauth.Client {
  if (typeof endpoints.clientId !== 'string' || endpoints.clientId.trim() === '') {
    throw new OAuthError('configuration', 'The OAuth client id is missing.');
  }
  return { client_id: endpoints.clientId };
}

function clientAuthentication(endpoints: OAuthEndpoints, method: ClientAuthMethod | undefined): oauth.ClientAuth {
  const secret = endpoints.clientSecret;
  const chosen = method ?? (secret ? 'post' : 'none');
  if (chosen === 'none') return oauth.None();
  if (!secret) throw new OAuthError('configuration', `Client authentication "${chosen}" needs a client secret, and none is configured.`);
  return chosen === 'basic' ? oauth.ClientSecretBasic(secret) : oauth.ClientSecretPost(secret);
}

/** One signal that aborts when any of the inputs does (AbortSignal.any is not in every Node 20). */
function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal {
  const controller = new AbortController();
  for (const signal of signals) {
    if (!signal) continue;
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

function requestOptions(
  insecure: boolean,
  options: { fetch?: typeof fetch; signal?: AbortSignal; timeoutMs?: number },
  what: 'token' | 'revocation' = 'token',
): oauth.TokenEndpointRequestOptions {
  const fetchImpl = options.fetch;
  const out: oauth.TokenEndpointRequestOptions = {
    signal: anySignal([options.signal, AbortSignal.timeout(options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS)]),
  };
  out[oauth.customFetch] = (url, init) => depthChecked(fetchImpl ?? ((input, more) => globalThis.fetch(input, more)), url, init as RequestInit, what);
  // Plain http is only reached for loopback hosts or endpoints explicitly marked allowInsecureHttp.
  if (insecure) out[oauth.allowInsecureRequests] = true;
  return out;
}

/** Statuses whose answer has no body (a Response cannot be made with one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * The endpoint's answer read and checked before oauth4webapi parses it: JSON nested past
 * MAX_ANSWER_DEPTH is refused with a clear error, where parsing it would overflow the stack.
 */
async function depthChecked(fetchImpl: typeof fetch, url: string, init: RequestInit, what: 'token' | 'revocation'): Promise<Response> {
  const response = await fetchImpl(url, init);
  if (NO_BODY.has(response.status) || response.status < 200 || response.status > 599) return response;
  const text = await response.text();
  if (nestsDeeperThan(text, MAX_ANSWER_DEPTH)) {
    throw new OAuthError(`${what}_error`, `The ${what} endpoint answered HTTP ${response.status} with JSON nested more than ${MAX_ANSWER_DEPTH} levels deep, the most this server reads; the answer was not read.`, { status: response.status });
  }
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Replaces every secret (longest first) in a text. */
function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 4).sort((a, b) => b.length - a.length);
  for (const secret of list) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret && out.includes(encoded)) out = out.split(encoded).join('[redacted]');
  }
  return out;
}

function describeProviderError(code: string, description: string | undefined): string {
  return description ? `${code} (${description})` : code;
}

/** Turns anything an oauth4webapi call or fetch threw into an OAuthError free of secrets. */
function toOAuthError(
  error: unknown,
  what: string,
  kindForProviderError: 'token_error' | 'revocation_error',
  secrets: readonly (string | undefined)[],
  callerSignal: AbortSignal | undefined,
): OAuthError {
  if (error instanceof OAuthError) return error;
  const clean = (text: string | undefined): string | undefined => (text === undefined ? undefined : printable(scrub(text, secrets)).slice(0, 500));
  if (error instanceof oauth.ResponseBodyError) {
    const description = clean(error.error_description);
    const code = clean(error.error) ?? 'error';
    return new OAuthError(kindForProviderError, `The ${what} answered HTTP ${error.status}: ${describeProviderError(code, description)}.`, {
      error: code,
      ...(description !== undefined ? { errorDescription: description } : {}),
      status: error.status,
    });
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const params = error.cause[0]?.parameters ?? {};
    const code = clean(params.error) ?? (error.status === 401 ? 'invalid_client' : 'error');
    const description = clean(params.error_description);
    return new OAuthError(kindForProviderError, `The ${what} answered HTTP ${error.status}: ${describeProviderError(code, description)}.`, {
      error: code,
      ...(description !== undefined ? { errorDescription: description } : {}),
      status: error.status,
    });
  }
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'AbortError' || name === 'TimeoutError') {
    if (callerSignal?.aborted) return new OAuthError('cancelled', `The request to the ${what} was cancelled.`);
    return new OAuthError('timeout', `The ${what} did not answer in time.`);
  }
  if (error instanceof oauth.OperationProcessingError) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Response) {
      return new OAuthError('invalid_response', `The ${what} answered HTTP ${cause.status} without a usable OAuth answer.`, { status: cause.status });
    }
    return new OAuthError('invalid_response', `The ${what} sent an invalid answer: ${clean(error.message)}.`);
  }
  if (error instanceof oauth.UnsupportedOperationError) {
    return new OAuthError('invalid_response', `The ${what} sent an answer this client cannot use: ${clean(error.message)}.`);
  }
  if (error instanceof TypeError) {
    const causeCode = (error as { cause?: { code?: unknown } }).cause?.code;
    const detail = typeof causeCode === 'string' ? causeCode : clean(error.message);
    return new OAuthError('network_error', `Could not reach the ${what} (${detail}).`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new OAuthError('invalid_response', `The request to the ${what} failed: ${clean(message)}.`);
}

function toTokenSet(response: oauth.TokenEndpointResponse, now: number, previousRefreshToken?: string): TokenSet {
  const set: TokenSet = {
    accessToken: response.access_token,
    tokenType: response.token_type,
    raw: { ...response },
  };
  const refreshToken = response.refresh_token ?? previousRefreshToken;
  if (refreshToken) set.refreshToken = refreshToken;
  if (typeof response.expires_in === 'number' && Number.isFinite(response.expires_in) && response.expires_in > 0) {
    set.expiresAt = now + Math.round(response.expires_in * 1000);
  }
  if (typeof response.scope === 'string' && response.scope !== '') set.scope = response.scope;
  return set;
}

async function defaultOpenBrowser(url: string): Promise<void> {
  const { default: open } = await import('open');
  await open(url);
}

// ---------------------------------------------------------------------------------------------
// Login
// ---------------------------------------------------------------------------------------------

/**
 * Interactive sign-in: prints (and tries to open) the authorize URL, waits for the provider to
 * redirect the browser to `http://127.0.0.1:<port><path>`, checks `state`, exchanges the code
 * (with the PKCE verifier) and resolves with the token set. Requests without this login's `state`
 * are answered 400 and ignored (nothing of them is printed); the first one with it is the answer.
 * The loopback server accepts exactly one callback and is always closed before this returns.
 */
export async function loginWithBrowser(endpoints: OAuthEndpoints, options: LoginOptions): Promise<TokenSet> {
  const { as, insecure } = authorizationServer(endpoints, 'authorize');
  const client = oauthClient(endpoints);
  const clientAuth = clientAuthentication(endpoints, options.clientAuth);
  const redirectPath = options.redirectPath ?? '/callback';
  if (!redirectPath.startsWith('/')) throw new OAuthError('configuration', 'The redirect path must start with "/".');
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS;
  if (options.signal?.aborted) throw new OAuthError('cancelled', 'The sign-in was cancelled.');

  const state = oauth.generateRandomState();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  const secrets: readonly (string | undefined)[] = [endpoints.clientSecret, codeVerifier, state];

  const receiver = new RedirectReceiver(redirectPath, state, options.print);
  try {
    const redirectUri = await receiver.listen(options.redirectPort ?? 0);
    const signInUrl = authorizeUrl(as, endpoints, client, endpoints.extraAuthorizeParams ?? {}, { redirectUri, state, codeChallenge });
    offerSignInUrl(signInUrl, redirectUri, options);
    const { params, res } = await receiver.arrival(timeoutMs, options.signal);
    const login: LoginExchange = { as, client, clientAuth, insecure, redirectUri, state, codeVerifier, secrets, options };
    try {
      const tokenSet = await exchangeLoginCallback(params, login);
      answerPage(res, 200, 'Signed in', 'You can close this tab and return to the terminal.');
      return tokenSet;
    } catch (error) {
      const failure = error instanceof OAuthError ? error : toOAuthError(error, 'token endpoint', 'token_error', secrets, options.signal);
      answerPage(res, 400, 'Sign-in failed', `${failure.message} Return to the terminal.`);
      throw failure;
    }
  } finally {
    receiver.close();
  }
}

/** The provider's authorize URL for one sign-in: `extra` parameters first, then the protocol's, which they cannot override. */
function authorizeUrl(
  as: oauth.AuthorizationServer,
  endpoints: OAuthEndpoints,
  client: oauth.Client,
  extra: Record<string, string>,
  signIn: { redirectUri: string; state: string; codeChallenge: string },
): string {
  const url = new URL(as.authorization_endpoint as string);
  for (const [key, value] of Object.entries(extra)) url.searchParams.set(key, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', signIn.redirectUri);
  if (endpoints.scope) url.searchParams.set('scope', endpoints.scope);
  url.searchParams.set('state', signIn.state);
  url.searchParams.set('code_challenge', signIn.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.href;
}

/** Prints the sign-in address (always) and tries to open it in a browser (a convenience: failures are ignored). */
function offerSignInUrl(signInUrl: string, redirectUri: string, options: Pick<LoginOptions, 'print' | 'openBrowser'>): void {
  options.print('To sign in, open this address in a browser:');
  options.print(`  ${signInUrl}`);
  options.print(`Waiting for the browser to come back to ${redirectUri} ...`);
  try {
    Promise.resolve((options.openBrowser ?? defaultOpenBrowser)(signInUrl)).catch(() => undefined);
  } catch {
    // The URL is printed; opening a browser is only a convenience.
  }
}

/** What a command-line sign-in needs to turn its callback into tokens. */
interface LoginExchange {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  insecure: boolean;
  redirectUri: string;
  state: string;
  codeVerifier: string;
  /** Scrubbed from every message (the authorization code is added for the exchange). */
  secrets: readonly (string | undefined)[];
  options: LoginOptions;
}

/** The callback (its state already checked by the receiver) read and its code exchanged with the PKCE verifier. */
async function exchangeLoginCallback(received: URLSearchParams, login: LoginExchange): Promise<TokenSet> {
  const { as, client, secrets, options } = login;
  throwProviderRefusal(received, secrets);
  if (!received.get('code')) throw new OAuthError('invalid_callback', 'The sign-in callback carried no authorization code.');
  const validated = validatedCallback(as, client, received, login.state, secrets);
  const secretsWithCode = [...secrets, received.get('code') ?? undefined];
  try {
    const response = await oauth.authorizationCodeGrantRequest(as, client, login.clientAuth, validated, login.redirectUri, login.codeVerifier, requestOptions(login.insecure, options));
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    return toTokenSet(result, (options.now ?? Date.now)());
  } catch (error) {
    throw toOAuthError(error, 'token endpoint', 'token_error', secretsWithCode, options.signal);
  }
}

/** A redirect that carries the provider's `error` (the user said no, or the request was refused) as an OAuthError. */
function throwProviderRefusal(received: URLSearchParams, secrets: readonly (string | undefined)[]): void {
  const providerError = received.get('error');
  if (providerError === null) return;
  const code = printable(scrub(providerError, secrets)).slice(0, 200);
  const raw = received.get('error_description');
  const description = raw === null ? undefined : printable(scrub(raw, secrets)).slice(0, 500);
  throw new OAuthError('authorization_denied', `The provider refused the sign-in: ${describeProviderError(code, description)}.`, {
    error: code,
    ...(description !== undefined ? { errorDescription: description } : {}),
  });
}

/** The redirect's parameters checked by oauth4webapi against the state (issuer, errors, code). */
function validatedCallback(as: oauth.AuthorizationServer, client: oauth.Client, received: URLSearchParams, state: string, secrets: readonly (string | undefined)[]): URLSearchParams {
  try {
    return oauth.validateAuthResponse(as, client, received, state);
  } catch (error) {
    throw new OAuthError('invalid_callback', `The sign-in callback is not valid: ${printable(scrub(error instanceof Error ? error.message : String(error), secrets))}.`);
  }
}

// ---------------------------------------------------------------------------------------------
// Web sign-in (the HTTP server's own redirect URI, for OAuth mode)
// ---------------------------------------------------------------------------------------------

/** A fresh state and PKCE verifier with the authorize URL that uses them. */
export async function startWebSignIn(endpoints: OAuthEndpoints, redirectUri: string, extra: Record<string, string> = {}): Promise<{ url: string; state: string; codeVerifier: string }> {
  const { as } = authorizationServer(endpoints, 'authorize');
  const client = oauthClient(endpoints);
  const state = oauth.generateRandomState();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  const url = authorizeUrl(as, endpoints, client, { ...endpoints.extraAuthorizeParams, ...extra }, { redirectUri, state, codeChallenge });
  return { url, state, codeVerifier };
}

/** The redirect's answer checked against the state, and its code exchanged with the PKCE verifier. */
export async function finishWebSignIn(
  endpoints: OAuthEndpoints,
  received: URLSearchParams,
  started: { redirectUri: string; state: string; codeVerifier: string },
  options: TokenRequestOptions = {},
): Promise<TokenSet> {
  const { as, insecure } = authorizationServer(endpoints, 'token');
  const client = oauthClient(endpoints);
  const clientAuth = clientAuthentication(endpoints, options.clientAuth);
  const secrets = [endpoints.clientSecret, started.codeVerifier, started.state, received.get('code') ?? undefined];
  throwProviderRefusal(received, secrets);
  const validated = validatedCallback(as, client, received, started.state, secrets);
  try {
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, validated, started.redirectUri, started.codeVerifier, requestOptions(insecure, options));
    return toTokenSet(await oauth.processAuthorizationCodeResponse(as, client, response), (options.now ?? Date.now)());
  } catch (error) {
    throw toOAuthError(error, 'token endpoint', 'token_error', secrets, options.signal);
  }
}

// ---------------------------------------------------------------------------------------------
// Refresh and revoke
// ---------------------------------------------------------------------------------------------

/** Refresh-token grant. A response without `refresh_token` keeps the old one (non-rotating providers). */
export async function refreshTokenSet(endpoints: OAuthEndpoints, refreshToken: string, options: TokenRequestOptions = {}): Promise<TokenSet> {
  const { as, insecure } = authorizationServer(endpoints, 'token');
  const client = oauthClient(endpoints);
  const clientAuth = clientAuthentication(endpoints, options.clientAuth);
  const secrets = [endpoints.clientSecret, refreshToken];
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, requestOptions(insecure, options));
    const result = await oauth.processRefreshTokenResponse(as, client, response);
    return toTokenSet(result, (options.now ?? Date.now)(), refreshToken);
  } catch (error) {
    throw toOAuthError(error, 'token endpoint', 'token_error', secrets, options.signal);
  }
}

/** Revokes a token (RFC 7009 form POST, or the whiteboard platform's JSON style). */
export async function revokeToken(endpoints: OAuthEndpoints, token: string, options: RevokeOptions = {}): Promise<void> {
  const { as, insecure } = authorizationServer(endpoints, 'revoke');
  const client = oauthClient(endpoints);
  const secrets = [endpoints.clientSecret, token];
  if ((options.style ?? 'rfc7009') === 'canvas-json') {
    const fetchImpl = options.fetch ?? ((input: string | URL | Request, init?: RequestInit) => globalThis.fetch(input, init));
    const body: Record<string, string> = { accessToken: token, clientId: client.client_id };
    if (endpoints.clientSecret) body.clientSecret = endpoints.clientSecret;
    let response: Response;
    try {
      response = await fetchImpl(as.revocation_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: anySignal([options.signal, AbortSignal.timeout(options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS)]),
      });
    } catch (error) {
      throw toOAuthError(error, 'revocation endpoint', 'revocation_error', secrets, options.signal);
    }
    const text = await response.text().catch(() => '');
    if (response.ok) return;
    let message: string | undefined;
    try {
      if (nestsDeeperThan(text, MAX_ANSWER_DEPTH)) throw new Error('too deep');
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const candidate = parsed.message ?? parsed.error_description ?? parsed.error;
      if (typeof candidate === 'string') message = candidate;
    } catch {
      message = text.trim() || undefined;
    }
    const detail = message ? `: ${printable(scrub(message, secrets)).slice(0, 300)}` : '';
    throw new OAuthError('revocation_error', `The revocation endpoint answered HTTP ${response.status}${detail}.`, { status: response.status });
  }
  const clientAuth = clientAuthentication(endpoints, options.clientAuth);
  const requestOpts: oauth.RevocationRequestOptions = requestOptions(insecure, options, 'revocation');
  if (options.tokenTypeHint) requestOpts.additionalParameters = { token_type_hint: options.tokenTypeHint };
  try {
    const response = await oauth.revocationRequest(as, client, clientAuth, token, requestOpts);
    await oauth.processRevocationResponse(response);
  } catch (error) {
    throw toOAuthError(error, 'revocation endpoint', 'revocation_error', secrets, options.signal);
  }
}
