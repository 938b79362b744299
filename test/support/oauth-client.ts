/**
 * What the OAuth tests need on the client side: an in-memory OAuthClientProvider for the SDK
 * client, a "browser" of plain HTTP requests that follows redirects with a cookie jar and answers
 * the server's consent form, and a server in OAuth mode against a sandbox.
 */
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { createLogger, silentLogger, type Logger } from '../../src/core/logger.js';
import type { AdmissionLimits } from '../../src/core/serving/oauth/admission.js';
const testLogger = process.env.OAUTH_TRACE ? createLogger('debug') : silentLogger;
import { oauthRecords, type OAuthRecords } from '../../src/core/serving/oauth/adapter.js';
import { recordKeysFor } from '../../src/core/serving/oauth/layer.js';
import { serveOverHttp, type RunningHttpServer } from '../../src/core/serving/serve.js';
import { generateStateKey, STATE_KEY_ENV, stateKeyFrom } from '../../src/core/store/sealed.js';
import type { SharedStore } from '../../src/core/store/store.js';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { SERVERS } from '../../src/servers.js';
import { RECORDS_GONE_CHANNEL } from '../../src/core/serving/oauth/record-cache.js';
import { prepareOAuthMode } from '../../src/servers/oauth-mode.js';

/** Where the test client says it receives the code; never contacted (the browser stops there). */
export const CLIENT_REDIRECT = 'http://127.0.0.1:9/callback';

export class MemoryOAuthProvider implements OAuthClientProvider {
  clientInfo: any;
  savedTokens: any;
  verifier = '';
  authorizationUrl: URL | undefined;
  clientMetadataUrl?: string;

  constructor(
    private readonly loginHint?: string,
    options: { clientMetadataUrl?: string } = {},
  ) {
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return CLIENT_REDIRECT;
  }

  get clientMetadata() {
    return { client_name: 'OAuth test client', redirect_uris: [CLIENT_REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }

  clientInformation() {
    return this.clientInfo;
  }

  saveClientInformation(info: unknown) {
    this.clientInfo = info;
  }

  tokens() {
    return this.savedTokens;
  }

  saveTokens(tokens: unknown) {
    this.savedTokens = tokens;
  }

  redirectToAuthorization(url: URL) {
    // The platform's sandbox picks the user from login_hint; the server passes it on.
    if (this.loginHint) url.searchParams.set('login_hint', this.loginHint);
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    return this.verifier;
  }

  private discovery: any;

  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }
}

/** Plain HTTP requests with cookies, following redirects, as a browser would (no script needed). */
export class HttpBrowser {
  private readonly cookies = new Map<string, string>();
  /** Every page (HTML) seen on the way, for assertions. */
  readonly pages: { url: string; status: number; html: string }[] = [];

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      if (eq > 0) this.cookies.set((pair as string).slice(0, eq).trim(), (pair as string).slice(eq + 1).trim());
    }
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    this.remember(response);
    return response;
  }

  /**
   * Follows redirects from `start` until the client's redirect URI, answering the server's consent
   * form with `decision`. Returns the redirect's query parameters (code and state, or error).
   */
  async authorize(start: string, decision: 'allow' | 'deny' = 'allow'): Promise<URLSearchParams> {
    let response = await this.request(start);
    let url = start;
    for (let step = 0; step < 20; step += 1) {
      if (response.status >= 300 && response.status < 400) {
        url = new URL(response.headers.get("location") as string, url).href;
        if (process.env.OAUTH_TRACE) console.error(response.status, url);
        if (url.startsWith(CLIENT_REDIRECT)) return new URL(url).searchParams;
        response = await this.request(url);
        continue;
      }
      const html = await response.text();
      this.pages.push({ url, status: response.status, html });
      const form = /<form method="post" action="([^"]+)">/.exec(html);
      const csrf = /name="csrf" value="([^"]+)"/.exec(html);
      assert.ok(form && csrf, `expected the consent form at ${url}, got ${response.status}: ${html.slice(0, 300)}`);
      url = new URL(decodeEntities(form[1] as string), url).href;
      response = await this.request(url, { method: 'POST', form: { csrf: decodeEntities(csrf[1] as string), decision } });
    }
    throw new Error('too many redirects');
  }
}

function decodeEntities(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}

export interface OAuthTestServer {
  http: RunningHttpServer;
  store: SharedStore;
  /** oidc-provider's records as the server names and seals them (its state key). */
  records: OAuthRecords;
  endpoint(server: 'incidentops' | 'canvasapi', variant?: string): string;
  /** Announces records changed behind the server's back (a test edits the store), as revocation does: replicas forget what they remembered. */
  announceChanged(...keys: string[]): Promise<void>;
  /** Stops the server; the store too unless `keepStore`. */
  close(options?: { keepStore?: boolean }): Promise<void>;
}

export interface OAuthTestServerOptions {
  allowHttpClientIds?: boolean;
  publicUrl?: string;
  /** Default: a fresh MemoryStore. */
  store?: SharedStore;
  /** TOOLSERVERS_STATE_KEY; default: a fresh one. */
  stateKey?: string;
  /** More environment, e.g. TOOLSERVERS_TRUSTED_PROXIES. */
  env?: Record<string, string>;
  admission?: Partial<AdmissionLimits>;
  /** The OAuth layer's logger (default: silent unless OAUTH_TRACE is set). */
  logger?: Logger;
}

export async function startOAuthServer(sandbox: RunningSandbox, options: OAuthTestServerOptions = {}): Promise<OAuthTestServer> {
  const stateKey = options.stateKey ?? generateStateKey();
  const mode = prepareOAuthMode({
    entries: SERVERS,
    input: {},
    logger: options.logger ?? testLogger,
    sandbox,
    env: { [STATE_KEY_ENV]: stateKey, ...options.env },
    single: false,
    ...(options.admission ? { admission: options.admission } : {}),
    ...(options.allowHttpClientIds ? { allowHttpClientIds: true } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.store ? { store: options.store } : {}),
  });
  const http = await serveOverHttp({
    host: '127.0.0.1',
    port: 0,
    mounts: mode.servers.map((server) => ({ path: `/${server.id}/mcp`, server })),
    logger: silentLogger,
    auth: { kind: 'oauth', layer: mode.layer },
  });
  return {
    http,
    store: mode.store,
    records: oauthRecords(mode.store, recordKeysFor(stateKeyFrom(stateKey).bytes), silentLogger),
    endpoint: (server, variant) => `${http.url}/${server}${variant ? `/${variant}` : ''}/mcp`,
    announceChanged: (...keys) => mode.store.publish(RECORDS_GONE_CHANNEL, keys.join('\n')),
    close: async ({ keepStore = false } = {}) => {
      await http.close();
      if (!keepStore) await mode.store.close();
    },
  };
}

/** The whole flow through the SDK client: 401, discovery, registration, sign-in, consent, tokens; then a connected client. */
export async function connectWithOAuth(endpoint: string, provider: MemoryOAuthProvider, browser = new HttpBrowser()): Promise<Client> {
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
  await assert.rejects(first.connect(transport), (error: unknown) => error instanceof UnauthorizedError);
  assert.ok(provider.authorizationUrl, 'the client was sent to the authorization endpoint');
  const answer = await browser.authorize(provider.authorizationUrl.href);
  const code = answer.get('code');
  assert.ok(code, `authorization answered ${answer.toString()}`);
  // The whole answer: code, state and the issuer (RFC 9207), which the client checks.
  await transport.finishAuth(answer);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider }));
  return client;
}

export async function callJson(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; data: Record<string, unknown> }> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return { isError: Boolean(result.isError), data: JSON.parse(content[0]?.text ?? '{}') as Record<string, unknown> };
}
