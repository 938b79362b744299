/**
 * OAuth mode against browser-side attacks (issue 15, items 1, 4, 7 and 8):
 *  - login CSRF across browsers: an attacker's sign-in link opened by a victim who is signed in to
 *    the platform must not file the victim's platform sign-in under the attacker's authorization;
 *  - the consent page shows where the code goes and marks self-registered clients unverified;
 *  - every HTML page carries framing protection; over https the cookies are prefixed;
 *  - nothing is remembered between authorizations: each one shows the consent page.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp } from '../src/core/serving/serve.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { DEMO_USER_ID } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { prepareOAuthMode } from '../src/servers/oauth-mode.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, CLIENT_REDIRECT, HttpBrowser, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';

let sandbox: RunningSandbox;
let server: OAuthTestServer;

interface SandboxUser {
  id: string;
  email: string;
  name: string;
}

async function incidentOpsUsers(): Promise<{ victim: SandboxUser; attacker: SandboxUser }> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}/users?limit=5`, {
    headers: { authorization: `Bearer ${sandbox.incidentops.token}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
  });
  const { users } = (await response.json()) as { users: SandboxUser[] };
  const attacker = users.find((user) => user.id !== DEMO_USER_ID);
  assert.ok(attacker);
  return { victim: { id: DEMO_USER_ID, email: 'demo.user@example.com', name: 'Demo User' }, attacker };
}

async function register(metadata: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${server.http.url}/oauth/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [CLIENT_REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...metadata }),
  });
  const body = (await response.json()) as { client_id?: string };
  assert.equal(response.status, 201, JSON.stringify(body));
  return body.client_id as string;
}

interface Authorization {
  url: string;
  verifier: string;
  clientId: string;
  redirectUri: string;
}

function authorization(base: string, clientId: string, options: { loginHint?: string; redirectUri?: string } = {}): Authorization {
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = options.redirectUri ?? CLIENT_REDIRECT;
  const url = new URL(`${base}/oauth/auth`);
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'mcp:tools offline_access',
    resource: `${base}/incidentops/mcp`,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    ...(options.loginHint ? { login_hint: options.loginHint } : {}),
  }).toString();
  return { url: url.href, verifier, clientId, redirectUri };
}

interface Hop {
  url: string;
  /** 0 for the last hop when the walk stopped at a redirect it does not follow. */
  status: number;
  headers: Headers;
  html: string;
}

/**
 * Follows redirects from `start` in `browser` until a page, the client's redirect URI, or (with
 * `stayOn`) a redirect away from that origin; returns every hop.
 */
async function walk(browser: HttpBrowser, start: string, stayOn?: string): Promise<Hop[]> {
  const hops: Hop[] = [];
  let url = start;
  for (let step = 0; step < 15; step += 1) {
    const response = await browser.request(url);
    const redirect = response.status >= 300 && response.status < 400;
    hops.push({ url, status: response.status, headers: response.headers, html: redirect ? '' : await response.text() });
    if (!redirect) return hops;
    url = new URL(response.headers.get('location') as string, url).href;
    if (url.startsWith(CLIENT_REDIRECT) || (stayOn && !url.startsWith(stayOn))) {
      hops.push({ url, status: 0, headers: new Headers(), html: '' });
      return hops;
    }
  }
  throw new Error(`too many redirects from ${start}`);
}

/** The attacker's (or anyone's) start: through the MCP server up to the redirect to the platform. */
async function startUntilPlatform(browser: HttpBrowser, auth: Authorization): Promise<{ platformUrl: string; interactionUrl: string }> {
  const hops = await walk(browser, auth.url, server.http.url);
  const last = hops.at(-1) as Hop;
  assert.equal(last.status, 0, `expected a redirect to the platform, got ${JSON.stringify(hops.map((hop) => [hop.url, hop.status]))}`);
  const interaction = hops.find((hop) => /\/oauth\/interaction\/[^/]+$/.test(new URL(hop.url).pathname));
  assert.ok(interaction, 'the authorization went through an interaction');
  return { platformUrl: last.url, interactionUrl: interaction.url };
}

async function exchange(auth: Authorization, code: string): Promise<string> {
  const response = await fetch(`${server.http.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: auth.verifier, client_id: auth.clientId, redirect_uri: auth.redirectUri, resource: `${server.http.url}/incidentops/mcp` }).toString(),
  });
  const body = (await response.json()) as { access_token?: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token as string;
}

async function whoAmI(token: string): Promise<string> {
  const client = new Client({ name: 'attack-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.endpoint('incidentops')), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    const who = await callJson(client, 'IncidentOps.WhoAmI');
    assert.equal(who.isError, false, JSON.stringify(who.data));
    return String((who.data.user as Record<string, unknown>).id);
  } finally {
    await client.close();
  }
}

/** Consent, code, token, WhoAmI: whom the browser's authorization acts as. */
async function finishAs(browser: HttpBrowser, auth: Authorization, from: string): Promise<string> {
  const answer = await browser.authorize(from);
  const code = answer.get('code');
  assert.ok(code, `authorization answered ${answer.toString()}`);
  return whoAmI(await exchange(auth, code));
}

function assertNotFramed(headers: Headers | IncomingHttpHeaders, where: string): void {
  const get = (name: string) => String((headers instanceof Headers ? headers.get(name) : headers[name]) ?? '');
  assert.equal(get('x-frame-options'), 'DENY', `${where}: X-Frame-Options`);
  assert.match(get('content-security-policy'), /frame-ancestors 'none'/, `${where}: CSP frame-ancestors`);
}

describe('OAuth mode against browser attacks', () => {
  let users: { victim: SandboxUser; attacker: SandboxUser };
  before(async () => {
    sandbox = await startTestSandbox();
    server = await startOAuthServer(sandbox);
    users = await incidentOpsUsers();
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it("refuses a victim's platform sign-in brought back through an attacker's link; the attacker never acts as the victim", async () => {
    const { victim, attacker } = users;
    const attackerBrowser = new HttpBrowser();
    const victimBrowser = new HttpBrowser();
    const auth = authorization(server.http.url, await register({ client_name: 'Claude Desktop' }), { loginHint: attacker.email });
    const started = await startUntilPlatform(attackerBrowser, auth);
    // The victim, signed in to the platform (login_hint stands for their platform session), opens the link.
    const lure = new URL(started.platformUrl);
    lure.searchParams.set('login_hint', victim.email);
    const victimHops = await walk(victimBrowser, lure.href);
    const refused = victimHops.at(-1) as Hop;
    assert.equal(refused.status, 403, `${refused.url}: ${refused.html.slice(0, 300)}`);
    assert.match(refused.html, /did not start in this browser/);
    assertNotFramed(refused.headers, 'the refused sign-in page');
    assert.ok(victimHops.some((hop) => new URL(hop.url).pathname === '/oauth/callback'), 'the platform did send the victim back with a code');

    // The attacker continues: the interaction holds no sign-in, so it goes to the platform again and acts as the attacker.
    const resumed = await walk(attackerBrowser, started.interactionUrl, server.http.url);
    assert.ok(resumed.every((hop) => !hop.html.includes(victim.name)), "no page of the attacker's names the victim");
    assert.equal(resumed.at(-1)?.status, 0, 'back to the platform');
    assert.equal(await finishAs(attackerBrowser, auth, started.interactionUrl), attacker.id);
    for (const page of attackerBrowser.pages) assert.ok(!page.html.includes(victim.name), `${page.url} names the victim`);
  });

  it("does not bind an attacker's answer to a victim's own sign-in in progress; the victim's own sign-in still completes", async () => {
    const { victim, attacker } = users;
    const victimBrowser = new HttpBrowser();
    const attackerBrowser = new HttpBrowser();
    const victimAuth = authorization(server.http.url, await register({ client_name: 'Victim client' }), { loginHint: victim.email });
    const victimStarted = await startUntilPlatform(victimBrowser, victimAuth);
    const attackerAuth = authorization(server.http.url, await register({ client_name: 'Claude Desktop' }), { loginHint: attacker.email });
    const attackerStarted = await startUntilPlatform(attackerBrowser, attackerAuth);
    const lure = new URL(attackerStarted.platformUrl);
    lure.searchParams.set('login_hint', victim.email);
    assert.equal((await walk(victimBrowser, lure.href)).at(-1)?.status, 403);
    // The victim's own sign-in, in the same browser, is untouched.
    assert.equal(await finishAs(victimBrowser, victimAuth, victimStarted.platformUrl), victim.id);
    assert.equal(await finishAs(attackerBrowser, attackerAuth, attackerStarted.interactionUrl), attacker.id);
  });

  it('accepts the answer only with both the interaction and the sign-in cookie, and only once', async () => {
    const auth = authorization(server.http.url, await register({ client_name: 'Cookie test' }));
    const pairs = (response: Response) => response.headers.getSetCookie().map((line) => line.split(';')[0] as string);
    const started = await fetch(auth.url, { redirect: 'manual' });
    const interactionCookies = pairs(started).filter((pair) => !pair.includes('resume'));
    const interactionUrl = new URL(started.headers.get('location') as string, auth.url).href;
    const toPlatform = await fetch(interactionUrl, { redirect: 'manual', headers: { cookie: interactionCookies.join('; ') } });
    const signInCookie = pairs(toPlatform).find((pair) => pair.startsWith('sign-in-'));
    assert.ok(signInCookie, 'the sign-in cookie is set with the redirect to the platform');
    const platformAnswer = await fetch(toPlatform.headers.get('location') as string, { redirect: 'manual' });
    const callbackUrl = platformAnswer.headers.get('location') as string;
    assert.match(callbackUrl, /\/oauth\/callback\?/);
    const hop = await fetch(callbackUrl, { redirect: 'manual' });
    const answerUrl = new URL(hop.headers.get('location') as string, callbackUrl).href;
    assert.equal(new URL(answerUrl).pathname, `${new URL(interactionUrl).pathname}/callback`);
    const tryWith = async (cookies: string[]) => (await fetch(answerUrl, { redirect: 'manual', headers: { cookie: cookies.join('; ') } })).status;
    assert.equal(await tryWith([]), 403, 'no cookie');
    assert.equal(await tryWith(interactionCookies), 403, 'the interaction without the sign-in cookie');
    assert.equal(await tryWith([signInCookie]), 403, 'the sign-in cookie without the interaction');
    assert.equal(await tryWith([...interactionCookies, `${signInCookie}x`]), 403, 'a wrong nonce');
    assert.equal(await tryWith([...interactionCookies, signInCookie]), 303, 'both');
    assert.equal(await tryWith([...interactionCookies, signInCookie]), 400, 'the same answer again');
    const consent = await fetch(interactionUrl, { redirect: 'manual', headers: { cookie: interactionCookies.join('; ') } });
    assert.match(await consent.text(), /name="csrf"/);
  });

  it('keeps one pending sign-in per authorization however often its page is reloaded; only the latest answer counts', async () => {
    const browser = new HttpBrowser();
    const auth = authorization(server.http.url, await register({ client_name: 'Reloads' }));
    const first = await startUntilPlatform(browser, auth);
    const pendingCount = () => [...(server.store as unknown as { entries: Map<string, unknown> }).entries.keys()].filter((key) => key.startsWith('oauth:pending-sign-in:')).length;
    const before = pendingCount();
    let latest = first.platformUrl;
    for (let reload = 0; reload < 20; reload += 1) {
      const hops = await walk(browser, first.interactionUrl, server.http.url);
      latest = (hops.at(-1) as Hop).url;
    }
    assert.equal(pendingCount(), before, 'twenty reloads left no more pending sign-ins than one');
    assert.equal((await walk(browser, first.platformUrl)).at(-1)?.status, 400, 'the replaced answer has expired');
    assert.match((await walk(browser, latest)).at(-1)?.html ?? '', /name="csrf"/, 'the latest answer reaches the consent page');
  });

  it('shows where the code goes and marks a self-registered client unverified, escaping what it registered', async () => {
    const lookalike = await register({ client_name: 'Claude Desktop', redirect_uris: ['https://collector.attacker.example/cb'] });
    const consent = (await walk(new HttpBrowser(), authorization(server.http.url, lookalike, { redirectUri: 'https://collector.attacker.example/cb' }).url)).at(-1) as Hop;
    assert.equal(consent.status, 200, consent.html.slice(0, 300));
    assert.match(consent.html, /<strong>Unverified application\.<\/strong> &quot;Claude Desktop&quot; is the name it registered itself with/);
    assert.match(consent.html, /access goes to <strong><code>collector\.attacker\.example<\/code><\/strong>/);
    assertNotFramed(consent.headers, 'the consent page');

    const hostile = await register({ client_name: '<img src=x onerror=alert(1)>' });
    const escaped = (await walk(new HttpBrowser(), authorization(server.http.url, hostile).url)).at(-1) as Hop;
    assert.equal(escaped.status, 200);
    assert.ok(!escaped.html.includes('<img'), 'the client name is escaped');
    assert.match(escaped.html, /&#60;img src=x onerror=alert\(1\)&#62;/);
    assert.match(escaped.html, /access goes to <strong><code>http:\/\/127\.0\.0\.1:9<\/code><\/strong> \(an application on this computer\)/);
  });

  it("names a metadata-document client by its document's host, not as unverified", async () => {
    let documentUrl = '';
    const documents = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ client_id: documentUrl, client_name: 'Document Client', redirect_uris: [CLIENT_REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' }));
    });
    await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
    const port = (documents.address() as { port: number }).port;
    documentUrl = `http://127.0.0.1:${port}/client.json`;
    const devServer = await startOAuthServer(sandbox, { allowHttpClientIds: true });
    try {
      const consent = (await walk(new HttpBrowser(), authorization(devServer.http.url, documentUrl).url)).at(-1) as Hop;
      assert.equal(consent.status, 200, consent.html.slice(0, 300));
      assert.match(consent.html, new RegExp(`metadata document published at <strong>127\\.0\\.0\\.1:${port}</strong>`));
      assert.ok(!consent.html.includes('Unverified'));
    } finally {
      await devServer.close();
      documents.closeAllConnections();
      await new Promise((resolve) => documents.close(resolve));
    }
  });

  it('remembers nothing: a second authorization in the same browser goes through the platform and the consent page again', async () => {
    const { victim } = users;
    const browser = new HttpBrowser();
    const clientId = await register({ client_name: 'Returning client' });
    const first = authorization(server.http.url, clientId, { loginHint: victim.email });
    assert.equal(await finishAs(browser, first, first.url), victim.id);
    assert.equal(browser.pages.length, 1, 'one consent page');
    const second = authorization(server.http.url, clientId, { loginHint: victim.email });
    const toPlatform = await walk(browser, second.url, server.http.url);
    const last = toPlatform.at(-1) as Hop;
    assert.ok(last.status === 0 && !last.url.startsWith(CLIENT_REDIRECT), `the second authorization goes to the platform: ${JSON.stringify(toPlatform.map((hop) => [hop.url, hop.status]))}`);
    assert.equal(await finishAs(browser, second, second.url), victim.id);
    assert.equal(browser.pages.length, 2, 'the consent page again');
  });

  it('sends framing protection with every page: errors, oidc-provider errors, logout', async () => {
    const base = server.http.url;
    // A browser with a session: the logout page is then a real page rather than an automatic form post.
    const browser = new HttpBrowser();
    const auth = authorization(base, await register({ client_name: 'Framing test' }));
    assert.ok((await browser.authorize(auth.url)).get('code'));
    const pages: { url: string; method?: string; script?: true }[] = [
      { url: `${base}/oauth/interaction/unknown-uid` },
      { url: `${base}/oauth/interaction/unknown-uid/confirm`, method: 'POST' },
      { url: `${base}/oauth/interaction/unknown-uid/callback?state=nope&code=nope` },
      { url: `${base}/oauth/callback?state=nope&code=nope` },
      { url: `${base}/oauth/auth?client_id=unknown&response_type=code&redirect_uri=${encodeURIComponent(CLIENT_REDIRECT)}` },
      { url: `${base}/oauth/session/end` },
      { url: `${base}/oauth/session/end/success` },
    ];
    for (const page of pages) {
      const response = await browser.request(page.url, { method: page.method ?? 'GET' });
      const html = await response.text();
      assert.match(response.headers.get('content-type') ?? '', /text\/html/, `${page.url}: ${response.status} ${html.slice(0, 200)}`);
      assertNotFramed(response.headers, page.url);
      assert.ok(!/<script|fonts\.googleapis/i.test(html), `${page.url} loads nothing: ${html.slice(0, 300)}`);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/, `${page.url}: the pages' own policy`);
      assert.match(html, /<html lang="en">/, page.url);
    }
    // Without a session oidc-provider answers logout with its self-posting form: framed by nobody either.
    const formPost = await fetch(`${base}/oauth/session/end`);
    assertNotFramed(formPost.headers, 'the logout form post');
  });

  it('names cookies without prefixes over plain http loopback, where browsers would refuse them', async () => {
    const auth = authorization(server.http.url, await register({ client_name: 'Plain http' }));
    const first = await fetch(auth.url, { redirect: 'manual' });
    const interaction = new URL(first.headers.get('location') as string, auth.url).href;
    const cookies = first.headers.getSetCookie().map((line) => line.split(';').map((part) => part.trim()));
    assert.ok(cookies.length > 0);
    for (const cookie of cookies) {
      assert.ok(!/^__(Host|Secure)-/.test(cookie[0] ?? ''), cookie.join('; '));
      assert.ok(!cookie.some((attribute) => attribute.toLowerCase() === 'secure'), cookie.join('; '));
    }
    const cookieHeader = cookies.map((cookie) => cookie[0]).join('; ');
    const toPlatform = await fetch(interaction, { redirect: 'manual', headers: { cookie: cookieHeader } });
    assert.equal(toPlatform.status, 303);
    const signIn = toPlatform.headers.getSetCookie().find((line) => line.startsWith('sign-in-')) ?? '';
    assert.match(signIn, /; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
  });
});

/** A request with a Host header (fetch cannot set one): the server as reached through its public name. */
function requestAs(base: string, host: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, base);
    const req = httpRequest(target, { method: init.method ?? 'GET', headers: { host, ...init.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('OAuth mode behind a https public URL', () => {
  let httpsSandbox: RunningSandbox;
  let running: Awaited<ReturnType<typeof serveOverHttp>>;
  let close: () => Promise<void>;
  before(async () => {
    httpsSandbox = await startTestSandbox();
    const mode = prepareOAuthMode({ entries: SERVERS, input: {}, logger: silentLogger, sandbox: httpsSandbox, env: {}, single: false, publicUrl: 'https://tools.test' });
    running = await serveOverHttp({ host: '127.0.0.1', port: 0, mounts: mode.servers.map((entry) => ({ path: `/${entry.id}/mcp`, server: entry })), logger: silentLogger, allowedHosts: ['tools.test'], auth: { kind: 'oauth', layer: mode.layer } });
    close = async () => {
      await running.close();
      await mode.store.close();
    };
  });
  after(async () => {
    await close?.();
    await httpsSandbox?.close();
  });

  it('sets only Secure cookies with the __Host- prefix where the path is / and __Secure- on per-authorization paths, with no proxy header needed', async () => {
    const registered = await requestAs(running.url, 'tools.test', '/oauth/reg', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [CLIENT_REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none', client_name: 'Https test' }),
    });
    assert.equal(registered.status, 201, registered.body);
    const { client_id: clientId } = JSON.parse(registered.body) as { client_id: string };
    const auth = new URL(authorization('https://tools.test', clientId).url);
    const started = await requestAs(running.url, 'tools.test', `${auth.pathname}${auth.search}`);
    assert.equal(started.status, 303, started.body);
    const location = new URL(started.headers.location as string, 'https://tools.test');
    const setCookies = [...(started.headers['set-cookie'] ?? [])];
    const cookieHeader = setCookies.map((line) => line.split(';')[0]).join('; ');
    const toPlatform = await requestAs(running.url, 'tools.test', location.pathname, { headers: { cookie: cookieHeader } });
    assert.equal(toPlatform.status, 303, toPlatform.body);
    setCookies.push(...(toPlatform.headers['set-cookie'] ?? []));
    const names = setCookies.map((line) => line.split('=')[0]);
    assert.ok(names.includes('__Secure-interaction') && names.includes('__Secure-interaction_resume'), names.join(', '));
    assert.ok(names.some((name) => name?.startsWith('__Host-sign-in-')), names.join(', '));
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const lower = attributes.map((attribute) => attribute.toLowerCase());
      assert.match(pair ?? '', /^__(Host|Secure)-/, line);
      assert.ok(lower.includes('secure') && lower.includes('httponly') && lower.includes('samesite=lax'), line);
      assert.ok(!lower.some((attribute) => attribute.startsWith('domain=')), line);
      if (pair?.startsWith('__Host-')) assert.ok(lower.includes('path=/'), line);
    }
  });
});
