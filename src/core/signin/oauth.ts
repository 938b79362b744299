/**
 * OAuth 2.0 sign-in for a command-line tool, built on oauth4webapi: authorization code flow with
 * PKCE (S256) and a one-shot loopback redirect server, refresh, and revocation.
 *
 * Platform-neutral: endpoints, client id/secret and scopes come in as `OAuthEndpoints`.
 * No error message ever contains a token, code, verifier or client secret, and text from the
 * provider (error codes and descriptions) is stripped of control characters and escape sequences
 * before it goes into a message.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { printable } from './printable.js';
import { escapeHtml } from '../html.js';

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
): oauth.TokenEndpointRequestOptions {
  const fetchImpl = options.fetch;
  const out: oauth.TokenEndpointRequestOptions = {
    signal: anySignal([options.signal, AbortSignal.timeout(options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS)]),
  };
  if (fetchImpl) out[oauth.customFetch] = (url, init) => fetchImpl(url, init as RequestInit);
  // Plain http is only reached for loopback hosts or endpoints explicitly marked allowInsecureHttp.
  if (insecure) out[oauth.allowInsecureRequests] = true;
  return out;
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

/** Constant-time comparison of two strings (of any length). */
function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
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

function htmlPage(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;margin:3em"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></body></html>`;
}

function answer(res: ServerResponse, status: number, title: string, body: string): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
    'referrer-policy': 'no-referrer',
  });
  res.end(htmlPage(title, body));
}

async function defaultOpenBrowser(url: string): Promise<void> {
  const { default: open } = await import('open');
  await open(url);
}

// ---------------------------------------------------------------------------------------------
// Login
// ---------------------------------------------------------------------------------------------

interface Callback {
  params: URLSearchParams;
  res: ServerResponse;
}

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
  const now = options.now ?? Date.now;
  if (options.signal?.aborted) throw new OAuthError('cancelled', 'The sign-in was cancelled.');

  const state = oauth.generateRandomState();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  const secrets = (): (string | undefined)[] => [endpoints.clientSecret, codeVerifier, state];

  let deliver: (callback: Callback) => void = () => undefined;
  const callbackArrived = new Promise<Callback>((resolve) => {
    deliver = resolve;
  });
  let accepted = false;
  let ignored = 0;
  let port = 0;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname !== redirectPath) {
      answer(res, 404, 'Not found', 'This local address only receives the sign-in redirect.');
      return;
    }
    if (req.method !== 'GET') {
      answer(res, 405, 'Method not allowed', 'The sign-in redirect must be a GET request.');
      return;
    }
    if (accepted) {
      answer(res, 409, 'Already handled', 'This sign-in has already been handled; return to the terminal.');
      return;
    }
    // Only the redirect that carries this login's state is the answer; anything else (a stray or
    // forged request from another local process, a stale tab) gets a 400 and the login keeps waiting.
    const states = url.searchParams.getAll('state');
    if (states.length !== 1 || !sameSecret(states[0] ?? '', state)) {
      ignored += 1;
      answer(
        res,
        400,
        'Not this sign-in',
        'This address only accepts the answer to the sign-in started by toolservers in your terminal, and this request does not carry its state. If you are signing in, finish in the tab the sign-in address opened.',
      );
      if (ignored <= 3) options.print('Ignored a request to the sign-in receiver that did not carry this sign-in\'s state (answered 400); still waiting for the browser ...');
      return;
    }
    accepted = true;
    deliver({ params: url.searchParams, res });
  });

  const closeServer = (): void => {
    server.close();
    server.closeAllConnections();
  };

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.redirectPort ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      throw new OAuthError('configuration', `Could not start the local sign-in receiver on 127.0.0.1:${options.redirectPort ?? 0} (${typeof code === 'string' ? code : 'error'}).`);
    });
    port = (server.address() as AddressInfo).port;
    const redirectUri = `http://127.0.0.1:${port}${redirectPath}`;

    const authorizeUrl = new URL(as.authorization_endpoint as string);
    for (const [key, value] of Object.entries(endpoints.extraAuthorizeParams ?? {})) authorizeUrl.searchParams.set(key, value);
    authorizeUrl.searchParams.set('response_type', 'code');
    authorizeUrl.searchParams.set('client_id', client.client_id);
    authorizeUrl.searchParams.set('redirect_uri', redirectUri);
    if (endpoints.scope) authorizeUrl.searchParams.set('scope', endpoints.scope);
    authorizeUrl.searchParams.set('state', state);
    authorizeUrl.searchParams.set('code_challenge', codeChallenge);
    authorizeUrl.searchParams.set('code_challenge_method', 'S256');
    const signInUrl = authorizeUrl.href;

    options.print('To sign in, open this address in a browser:');
    options.print(`  ${signInUrl}`);
    options.print(`Waiting for the browser to come back to ${redirectUri} ...`);
    try {
      Promise.resolve((options.openBrowser ?? defaultOpenBrowser)(signInUrl)).catch(() => undefined);
    } catch {
      // The URL is printed; opening a browser is only a convenience.
    }

    // Wait for the one callback, the timeout or the caller's abort.
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let callback: Callback;
    try {
      callback = await Promise.race([
        callbackArrived,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            reject(new OAuthError('timeout', `No sign-in came back within ${Math.round(timeoutMs / 1000)} s; run the login again.`));
          }, timeoutMs);
          timer.unref?.();
          onAbort = () => reject(new OAuthError('cancelled', 'The sign-in was cancelled.'));
          // An abort while the receiver was starting has already fired: no event will come.
          if (options.signal?.aborted) onAbort();
          else options.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    }
    const { params, res } = callback;

    try {
      const tokenSet = await completeCallback(params);
      answer(res, 200, 'Signed in', 'You can close this tab and return to the terminal.');
      return tokenSet;
    } catch (error) {
      const failure = error instanceof OAuthError ? error : toOAuthError(error, 'token endpoint', 'token_error', secrets(), options.signal);
      answer(res, 400, 'Sign-in failed', `${failure.message} Return to the terminal.`);
      throw failure;
    }

    async function completeCallback(received: URLSearchParams): Promise<TokenSet> {
      // The state was checked before the callback was accepted.
      const providerError = received.get('error');
      if (providerError !== null) {
        const code = printable(scrub(providerError, secrets())).slice(0, 200);
        const descriptionRaw = received.get('error_description');
        const description = descriptionRaw === null ? undefined : printable(scrub(descriptionRaw, secrets())).slice(0, 500);
        throw new OAuthError('authorization_denied', `The provider refused the sign-in: ${describeProviderError(code, description)}.`, {
          error: code,
          ...(description !== undefined ? { errorDescription: description } : {}),
        });
      }
      if (!received.get('code')) throw new OAuthError('invalid_callback', 'The sign-in callback carried no authorization code.');
      let validated: URLSearchParams;
      try {
        validated = oauth.validateAuthResponse(as, client, received, state);
      } catch (error) {
        throw new OAuthError('invalid_callback', `The sign-in callback is not valid: ${printable(scrub(error instanceof Error ? error.message : String(error), secrets()))}.`);
      }
      const secretsWithCode = [...secrets(), received.get('code') ?? undefined];
      try {
        const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, validated, redirectUri, codeVerifier, requestOptions(insecure, options));
        const result = await oauth.processAuthorizationCodeResponse(as, client, response);
        return toTokenSet(result, now());
      } catch (error) {
        throw toOAuthError(error, 'token endpoint', 'token_error', secretsWithCode, options.signal);
      }
    }
  } finally {
    closeServer();
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
  const url = new URL(as.authorization_endpoint as string);
  for (const [key, value] of Object.entries({ ...endpoints.extraAuthorizeParams, ...extra })) url.searchParams.set(key, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', redirectUri);
  if (endpoints.scope) url.searchParams.set('scope', endpoints.scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url: url.href, state, codeVerifier };
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
  const providerError = received.get('error');
  if (providerError !== null) {
    const code = printable(scrub(providerError, secrets)).slice(0, 200);
    const raw = received.get('error_description');
    const description = raw === null ? undefined : printable(scrub(raw, secrets)).slice(0, 500);
    throw new OAuthError('authorization_denied', `The provider refused the sign-in: ${describeProviderError(code, description)}.`, { error: code, ...(description !== undefined ? { errorDescription: description } : {}) });
  }
  let validated: URLSearchParams;
  try {
    validated = oauth.validateAuthResponse(as, client, received, started.state);
  } catch (error) {
    throw new OAuthError('invalid_callback', `The sign-in callback is not valid: ${printable(scrub(error instanceof Error ? error.message : String(error), secrets))}.`);
  }
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
  const requestOpts: oauth.RevocationRequestOptions = requestOptions(insecure, options);
  if (options.tokenTypeHint) requestOpts.additionalParameters = { token_type_hint: options.tokenTypeHint };
  try {
    const response = await oauth.revocationRequest(as, client, clientAuth, token, requestOpts);
    await oauth.processRevocationResponse(response);
  } catch (error) {
    throw toOAuthError(error, 'revocation endpoint', 'revocation_error', secrets, options.signal);
  }
}
