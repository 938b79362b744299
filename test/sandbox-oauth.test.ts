/**
 * The sandbox's OAuth 2.0 authorization servers, spoken to over raw HTTP: the code flow with PKCE
 * on both platforms (auto and one-click consent), the error answers, expiry through an injected
 * clock, refresh-token rotation, both revocation styles, token info, and the request recording
 * keeping no secret.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type OAuthEndpointInfo, type RunningSandbox, type SandboxOptions } from '../src/sandbox/server.js';

const TOKEN = 'static-sandbox-token';
const REDIRECT = 'http://127.0.0.1:53682/callback';
const PD_ACCEPT = 'application/vnd.pagerduty+json;version=2';

type Body = any;
type Platform = 'incidentops' | 'canvasapi';

/** A controllable clock for the authorization servers. */
function clock(): { now: () => Date; advance(ms: number): void } {
  let t = Date.parse('2026-03-11T15:30:00Z');
  return { now: () => new Date(t), advance: (ms) => void (t += ms) };
}

async function start(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, token: TOKEN, ...options });
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(info: OAuthEndpointInfo, params: Record<string, string | undefined>): string {
  const url = new URL(info.authorizeUrl);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

function standardParams(info: OAuthEndpointInfo, challenge: string, state = randomBytes(8).toString('hex')): Record<string, string> {
  return { response_type: 'code', client_id: info.clientId, redirect_uri: REDIRECT, scope: info.scope, state, code_challenge: challenge, code_challenge_method: 'S256' };
}

/** GET authorize without following the redirect. */
async function authorize(info: OAuthEndpointInfo, params: Record<string, string | undefined>): Promise<Response> {
  return fetch(authorizeUrl(info, params), { redirect: 'manual' });
}

/** The query of the loopback redirect target (the Location of a 302). */
function redirected(res: Response): URLSearchParams {
  assert.equal(res.status, 302);
  const location = res.headers.get('location');
  assert.ok(location, 'a Location header');
  const url = new URL(location);
  assert.equal(`${url.origin}${url.pathname}`, REDIRECT);
  return url.searchParams;
}

async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers }, body: new URLSearchParams(fields).toString() });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

function basic(id: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}` };
}

/** Token request with client_secret_post (default) or HTTP Basic. */
async function tokenRequest(info: OAuthEndpointInfo, fields: Record<string, string>, auth: 'post' | 'basic' = 'post', secret = info.clientSecret) {
  if (auth === 'basic') return postForm(info.tokenUrl, fields, basic(info.clientId, secret));
  return postForm(info.tokenUrl, { ...fields, client_id: info.clientId, client_secret: secret });
}

async function codeFor(info: OAuthEndpointInfo, challenge: string, scope?: string): Promise<string> {
  const state = 'st-' + randomBytes(4).toString('hex');
  const q = redirected(await authorize(info, { ...standardParams(info, challenge, state), ...(scope !== undefined ? { scope } : {}) }));
  assert.equal(q.get('state'), state, 'state comes back unchanged');
  const code = q.get('code');
  assert.ok(code);
  return code;
}

/** The whole code flow; returns the token response body. */
async function signIn(info: OAuthEndpointInfo, auth: 'post' | 'basic' = 'post', scope?: string): Promise<Body> {
  const { verifier, challenge } = pkce();
  const code = await codeFor(info, challenge, scope);
  const res = await tokenRequest(info, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A tool-like incident API call. */
async function incidentCall(sb: RunningSandbox, token: string, path = '/users/me'): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${sb.incidentops.baseUrl}${path}`, { headers: { accept: PD_ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

/** A tool-like whiteboard API call. */
async function canvasCall(sb: RunningSandbox, token: string, path = '/v2/boards?limit=5'): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${sb.canvasapi.baseUrl}${path}`, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function apiCall(sb: RunningSandbox, platform: Platform, token: string) {
  return platform === 'incidentops' ? incidentCall(sb, token) : canvasCall(sb, token);
}

function assertIncidentAuthFailure(res: { status: number; body: Body }, reason: RegExp): void {
  assert.equal(res.status, 401);
  assert.equal(res.body.error.code, 2006);
  assert.equal(res.body.error.message, 'Authentication failed');
  assert.match(res.body.error.errors[0], reason);
}

function assertCanvasAuthFailure(res: { status: number; body: Body }, code: string): void {
  assert.equal(res.status, 401);
  assert.deepEqual({ status: res.body.status, code: res.body.code, type: res.body.type }, { status: 401, code, type: 'error' });
  assert.equal(typeof res.body.message, 'string');
}

describe('sandbox OAuth: code flow with PKCE', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await start();
  });
  after(() => sb.close());

  test('endpoint info of both platforms', () => {
    assert.deepEqual(sb.oauth.incidentops, {
      authorizeUrl: `${sb.url}/incidentops-identity/oauth/authorize`,
      tokenUrl: `${sb.url}/incidentops-identity/oauth/token`,
      revokeUrl: `${sb.url}/incidentops-identity/oauth/revoke`,
      clientId: 'toolservers-sandbox',
      clientSecret: 'sandbox-client-secret',
      scope: 'read',
    });
    const c = sb.oauth.canvasapi;
    assert.equal(c.authorizeUrl, `${sb.url}/canvasapi/oauth/authorize`);
    assert.equal(c.tokenUrl, `${sb.url}/canvasapi/v1/oauth/token`);
    assert.equal(c.revokeUrl, `${sb.url}/canvasapi/v2/oauth/revoke`);
    assert.equal(c.clientId, 'toolservers-sandbox');
    assert.match(c.scope, /^boards:read boards:write /);
  });

  test('IncidentOps: authorize -> 302 with code and state, token (client_secret_post), API call', async () => {
    const info = sb.oauth.incidentops;
    const { verifier, challenge } = pkce();
    const res = await authorize(info, standardParams(info, challenge, 'xyz state/+='));
    const q = redirected(res);
    assert.equal(q.get('state'), 'xyz state/+=');
    const code = q.get('code') as string;
    const tok = await tokenRequest(info, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
    assert.equal(tok.status, 200);
    assert.equal(tok.headers.get('cache-control'), 'no-store');
    assert.deepEqual(Object.keys(tok.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    assert.equal(tok.body.token_type, 'bearer');
    assert.equal(tok.body.expires_in, 3600);
    assert.equal(tok.body.scope, 'read');
    assert.match(tok.body.access_token, /^pdus\+_/);
    assert.notEqual(tok.body.refresh_token, tok.body.access_token);
    const me = await incidentCall(sb, tok.body.access_token);
    assert.equal(me.status, 200);
    assert.equal(me.body.user.id, 'PDEMO01');
    assert.equal((await incidentCall(sb, tok.body.access_token, '/incidents?limit=3')).status, 200);
    // Only as a bearer token, and the static token works as before.
    const asApiKey = await fetch(`${sb.incidentops.baseUrl}/users/me`, { headers: { accept: PD_ACCEPT, 'content-type': 'application/json', authorization: `Token token=${tok.body.access_token}` } });
    assert.equal(asApiKey.status, 401);
    assert.equal((await incidentCall(sb, TOKEN)).status, 200);
    assert.equal((await incidentCall(sb, 'pdus+_made-up')).status, 401);
  });

  test('CanvasApi: token (HTTP Basic) has user_id and team_id; API call and token info', async () => {
    const info = sb.oauth.canvasapi;
    const body = await signIn(info, 'basic', 'boards:read boards:write');
    assert.equal(body.token_type, 'bearer');
    assert.equal(body.scope, 'boards:read boards:write');
    assert.equal(body.expires_in, 3600);
    assert.equal(body.team_id, sb.canvasapi.demo?.teamId);
    assert.equal(typeof body.user_id, 'string');
    assert.doesNotMatch(body.access_token, /^pdus/);
    const boards = await canvasCall(sb, body.access_token);
    assert.equal(boards.status, 200);
    assert.ok(Array.isArray(boards.body.data));
    const info1 = await canvasCall(sb, body.access_token, '/v1/oauth-token');
    assert.equal(info1.status, 200);
    assert.deepEqual(info1.body.scopes, ['boards:read', 'boards:write']);
    assert.equal(info1.body.user.id, body.user_id);
    assert.equal(info1.body.createdBy.id, body.user_id);
    assert.equal(info1.body.team.id, body.team_id);
    assert.equal(info1.body.organization.id, sb.canvasapi.demo?.organizationId);
    // The static token still reports every scope.
    const staticInfo = await canvasCall(sb, TOKEN, '/v1/oauth-token');
    assert.ok(staticInfo.body.scopes.length > 2);
    // Without a scope parameter every scope of the app is granted.
    const all = await signIn(info);
    assert.equal(all.scope, info.scope);
  });

  test('token parameters in the whiteboard token endpoint query are accepted too', async () => {
    const info = sb.oauth.canvasapi;
    const { verifier, challenge } = pkce();
    const code = await codeFor(info, challenge);
    const url = new URL(info.tokenUrl);
    for (const [k, v] of Object.entries({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, client_id: info.clientId, client_secret: info.clientSecret })) url.searchParams.set(k, v);
    const res = await fetch(url, { method: 'POST' });
    assert.equal(res.status, 200);
  });
});

describe('sandbox OAuth: one-click consent', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await start({ oauth: { consent: 'click' } });
  });
  after(() => sb.close());

  async function consentPage(platform: Platform, state: string, challenge: string): Promise<{ action: string; fields: Record<string, string> }> {
    const info = sb.oauth[platform];
    const res = await authorize(info, standardParams(info, challenge, state));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    assert.match(html, /Allow/);
    const action = /<form[^>]*method="post"[^>]*action="([^"]+)"/.exec(html)?.[1];
    assert.ok(action, 'a form that posts');
    const fields: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1] as string] = m[2] as string;
    return { action, fields };
  }

  for (const platform of ['incidentops', 'canvasapi'] as const) {
    test(`${platform}: Allow redirects with a code that works`, async () => {
      const info = sb.oauth[platform];
      const { verifier, challenge } = pkce();
      const page = await consentPage(platform, 's1', challenge);
      const approve = await fetch(page.action, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...page.fields, decision: 'allow' }).toString(),
      });
      const q = redirected(approve);
      assert.equal(q.get('state'), 's1');
      const tok = await tokenRequest(info, { grant_type: 'authorization_code', code: q.get('code') as string, redirect_uri: REDIRECT, code_verifier: verifier });
      assert.equal(tok.status, 200);
      assert.equal((await apiCall(sb, platform, tok.body.access_token)).status, 200);
      // The page answers once.
      const again = await fetch(page.action, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...page.fields, decision: 'allow' }).toString() });
      assert.equal(again.status, 400);
      assert.equal(again.headers.get('location'), null);
    });
  }

  test('Deny redirects with access_denied', async () => {
    const page = await consentPage('incidentops', 's2', pkce().challenge);
    const res = await fetch(page.action, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...page.fields, decision: 'deny' }).toString() });
    const q = redirected(res);
    assert.equal(q.get('error'), 'access_denied');
    assert.equal(q.get('state'), 's2');
    assert.equal(q.get('code'), null);
  });
});

describe('sandbox OAuth: rejected requests', () => {
  let sb: RunningSandbox;
  const time = clock();
  before(async () => {
    sb = await start({ oauth: { now: time.now } });
  });
  after(() => sb.close());

  for (const platform of ['incidentops', 'canvasapi'] as const) {
    test(`${platform}: wrong verifier, reused code, redirect_uri mismatch, expired code -> invalid_grant`, async () => {
      const info = sb.oauth[platform];
      const a = pkce();
      const codeA = await codeFor(info, a.challenge);
      const wrong = await tokenRequest(info, { grant_type: 'authorization_code', code: codeA, redirect_uri: REDIRECT, code_verifier: pkce().verifier });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'invalid_grant');
      assert.equal(typeof wrong.body.error_description, 'string');
      // The failed attempt consumed the code.
      const afterWrong = await tokenRequest(info, { grant_type: 'authorization_code', code: codeA, redirect_uri: REDIRECT, code_verifier: a.verifier });
      assert.equal(afterWrong.body.error, 'invalid_grant');

      const b = pkce();
      const codeB = await codeFor(info, b.challenge);
      const fields = { grant_type: 'authorization_code', code: codeB, redirect_uri: REDIRECT, code_verifier: b.verifier };
      const first = await tokenRequest(info, fields);
      assert.equal(first.status, 200);
      const reused = await tokenRequest(info, fields);
      assert.equal(reused.status, 400);
      assert.equal(reused.body.error, 'invalid_grant');
      // A replayed code revokes what it produced.
      assert.equal((await apiCall(sb, platform, first.body.access_token)).status, 401);

      const c = pkce();
      const codeC = await codeFor(info, c.challenge);
      const mismatch = await tokenRequest(info, { grant_type: 'authorization_code', code: codeC, redirect_uri: 'http://127.0.0.1:53682/other', code_verifier: c.verifier });
      assert.equal(mismatch.body.error, 'invalid_grant');

      const d = pkce();
      const codeD = await codeFor(info, d.challenge);
      time.advance(61_000);
      const late = await tokenRequest(info, { grant_type: 'authorization_code', code: codeD, redirect_uri: REDIRECT, code_verifier: d.verifier });
      assert.equal(late.body.error, 'invalid_grant');
      assert.match(late.body.error_description, /expired/);

      const e = pkce();
      const missing = await tokenRequest(info, { grant_type: 'authorization_code', code: await codeFor(info, e.challenge), redirect_uri: REDIRECT });
      assert.equal(missing.body.error, 'invalid_request');
    });

    test(`${platform}: bad client authentication -> 401 invalid_client`, async () => {
      const info = sb.oauth[platform];
      const { verifier, challenge } = pkce();
      const code = await codeFor(info, challenge);
      const fields = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
      for (const res of [
        await tokenRequest(info, fields, 'post', 'wrong-secret'),
        await tokenRequest(info, fields, 'basic', 'wrong-secret'),
        await postForm(info.tokenUrl, { ...fields, client_id: info.clientId }),
        await postForm(info.tokenUrl, fields),
        await postForm(info.tokenUrl, { ...fields, client_id: 'someone-else', client_secret: info.clientSecret }),
      ]) {
        assert.equal(res.status, 401);
        assert.equal(res.body.error, 'invalid_client');
        assert.ok(res.headers.get('www-authenticate'));
      }
      // The code survived the failed client authentication.
      assert.equal((await tokenRequest(info, fields, 'basic')).status, 200);
      const unsupported = await tokenRequest(info, { grant_type: 'password' });
      assert.equal(unsupported.body.error, 'unsupported_grant_type');
      const json = await fetch(info.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...fields, client_id: info.clientId, client_secret: info.clientSecret }) });
      assert.equal(json.status, 400);
      assert.equal(((await json.json()) as Body).error, 'invalid_request');
    });

    test(`${platform}: authorize refuses unknown clients and non-loopback redirect URIs without redirecting`, async () => {
      const info = sb.oauth[platform];
      const { challenge } = pkce();
      for (const redirect of ['https://evil.example/callback', 'http://example.com:8080/cb', 'http://127.0.0.1.evil.example/cb', 'http://127.0.0.1:5000/cb#frag', 'custom:/cb']) {
        const res = await authorize(info, { ...standardParams(info, challenge), redirect_uri: redirect });
        assert.equal(res.status, 400, redirect);
        assert.equal(res.headers.get('location'), null);
        assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
        assert.match(await res.text(), /redirect/i);
      }
      const noRedirect = await authorize(info, { ...standardParams(info, challenge), redirect_uri: undefined });
      assert.equal(noRedirect.status, 400);
      const unknown = await authorize(info, { ...standardParams(info, challenge), client_id: 'not-registered' });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.headers.get('location'), null);
      // Any loopback port and localhost are fine.
      const local = await authorize(info, { ...standardParams(info, challenge), redirect_uri: 'http://localhost:1/x' });
      assert.equal(local.status, 302);
    });

    test(`${platform}: other authorize errors redirect with error, description and state`, async () => {
      const info = sb.oauth[platform];
      const { challenge } = pkce();
      const cases: [Record<string, string | undefined>, string][] = [
        [{ code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
        [{ code_challenge_method: 'plain' }, 'invalid_request'],
        [{ code_challenge: 'short' }, 'invalid_request'],
        [{ response_type: 'token' }, 'unsupported_response_type'],
        [{ response_type: undefined }, 'invalid_request'],
        [{ scope: 'no-such:scope' }, 'invalid_scope'],
      ];
      for (const [change, error] of cases) {
        const q = redirected(await authorize(info, { ...standardParams(info, challenge, 'keep-me'), ...change }));
        assert.equal(q.get('error'), error, JSON.stringify(change));
        assert.ok(q.get('error_description'));
        assert.equal(q.get('state'), 'keep-me');
        assert.equal(q.get('code'), null);
      }
    });
  }
});

describe('sandbox OAuth: expiry, refresh and revocation', () => {
  let sb: RunningSandbox;
  const time = clock();
  before(async () => {
    sb = await start({ oauth: { now: time.now, tokenLifetimeSeconds: 2 } });
  });
  after(() => sb.close());

  test('expired tokens get each platform\'s 401; refresh rotates', async () => {
    const pd = await signIn(sb.oauth.incidentops);
    const cv = await signIn(sb.oauth.canvasapi);
    assert.equal(pd.expires_in, 2);
    assert.equal((await incidentCall(sb, pd.access_token)).status, 200);
    assert.equal((await canvasCall(sb, cv.access_token)).status, 200);
    time.advance(1_500);
    assert.equal((await incidentCall(sb, pd.access_token)).status, 200, 'still valid before the lifetime ends');
    time.advance(600);
    assertIncidentAuthFailure(await incidentCall(sb, pd.access_token), /expired/);
    assertCanvasAuthFailure(await canvasCall(sb, cv.access_token), 'tokenExpired');
    const expiredInfo = await canvasCall(sb, cv.access_token, '/v1/oauth-token');
    assert.equal(expiredInfo.status, 400, 'token info answers 400 as the spec declares');
    assert.equal((await incidentCall(sb, TOKEN)).status, 200, 'the static token never expires');
    assert.equal((await canvasCall(sb, TOKEN)).status, 200);

    for (const [platform, old] of [['incidentops', pd], ['canvasapi', cv]] as const) {
      const info = sb.oauth[platform];
      const fresh = await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: old.refresh_token }, 'basic');
      assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
      assert.notEqual(fresh.body.access_token, old.access_token);
      assert.notEqual(fresh.body.refresh_token, old.refresh_token);
      assert.equal(fresh.body.scope, old.scope);
      assert.equal((await apiCall(sb, platform, fresh.body.access_token)).status, 200);
      const replay = await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: old.refresh_token });
      assert.equal(replay.status, 400);
      assert.equal(replay.body.error, 'invalid_grant');
      // The rotated token keeps working.
      const next = await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: fresh.body.refresh_token });
      assert.equal(next.status, 200);
      const wrongClient = await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: next.body.refresh_token }, 'post', 'nope');
      assert.equal(wrongClient.status, 401);
      const widened = await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: next.body.refresh_token, scope: `${next.body.scope} extra:scope` });
      assert.equal(widened.body.error, 'invalid_scope');
    }
  });

  test('IncidentOps: RFC 7009 revocation of the refresh token kills the access token', async () => {
    const info = sb.oauth.incidentops;
    const tok = await signIn(info);
    const bad = await postForm(info.revokeUrl, { token: tok.refresh_token, client_id: info.clientId, client_secret: 'wrong' });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.error, 'invalid_client');
    assert.equal((await incidentCall(sb, tok.access_token)).status, 200);
    const res = await postForm(info.revokeUrl, { token: tok.refresh_token, token_type_hint: 'refresh_token', client_id: info.clientId, client_secret: info.clientSecret });
    assert.equal(res.status, 200);
    assertIncidentAuthFailure(await incidentCall(sb, tok.access_token), /revoked/);
    const refresh = await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: tok.refresh_token });
    assert.equal(refresh.body.error, 'invalid_grant');
    // Revoking by access token (HTTP Basic) works the same; unknown tokens are fine.
    const other = await signIn(info);
    assert.equal((await postForm(info.revokeUrl, { token: other.access_token }, basic(info.clientId, info.clientSecret))).status, 200);
    assert.equal((await incidentCall(sb, other.access_token)).status, 401);
    assert.equal((await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: other.refresh_token })).body.error, 'invalid_grant');
    assert.equal((await postForm(info.revokeUrl, { token: 'never-issued', client_id: info.clientId, client_secret: info.clientSecret })).status, 200);
    assert.equal((await incidentCall(sb, TOKEN)).status, 200);
  });

  test('CanvasApi: /v2/oauth/revoke revokes OAuth tokens and their refresh token', async () => {
    const info = sb.oauth.canvasapi;
    const tok = await signIn(info);
    const revoke = (accessToken: string, clientSecret = info.clientSecret) =>
      fetch(info.revokeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accessToken, clientId: info.clientId, clientSecret }) });
    assert.equal((await revoke(tok.access_token, 'wrong-secret')).status, 404);
    assert.equal((await canvasCall(sb, tok.access_token)).status, 200);
    const res = await revoke(tok.access_token);
    assert.equal(res.status, 204);
    assertCanvasAuthFailure(await canvasCall(sb, tok.access_token), 'tokenRevoked');
    assert.equal((await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: tok.refresh_token })).body.error, 'invalid_grant');
    assert.equal((await revoke(tok.access_token)).status, 404, 'already revoked');
    assert.equal((await revoke('never-issued')).status, 404);
    // The deprecated v1 form (token in the query) revokes OAuth tokens too.
    const v1 = await signIn(info);
    const v1res = await fetch(`${sb.canvasapi.baseUrl}/v1/oauth/revoke?access_token=${encodeURIComponent(v1.access_token)}`, { method: 'POST' });
    assert.equal(v1res.status, 204);
    assert.equal((await canvasCall(sb, v1.access_token)).status, 401);
    assert.equal((await canvasCall(sb, TOKEN)).status, 200, 'the static token is not affected');
  });
});

describe('sandbox OAuth: the recording keeps no secret', () => {
  let sb: RunningSandbox;
  before(async () => {
    sb = await start({ oauth: { clientId: 'custom-client', clientSecret: 'custom-secret-value' } });
  });
  after(() => sb.close());

  test('codes, verifiers, client secrets and tokens never appear in sb.requests', async () => {
    assert.equal(sb.oauth.incidentops.clientId, 'custom-client');
    assert.equal(sb.oauth.canvasapi.clientSecret, 'custom-secret-value');
    const secrets: string[] = ['custom-secret-value', TOKEN];
    for (const platform of ['incidentops', 'canvasapi'] as const) {
      const info = sb.oauth[platform];
      for (const auth of ['post', 'basic'] as const) {
        const { verifier, challenge } = pkce();
        const code = await codeFor(info, challenge);
        const tok = await tokenRequest(info, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
        assert.equal(tok.status, 200);
        const fresh = await tokenRequest(info, { grant_type: 'refresh_token', refresh_token: tok.body.refresh_token }, auth);
        assert.equal((await apiCall(sb, platform, fresh.body.access_token)).status, 200);
        secrets.push(code, verifier, tok.body.access_token, tok.body.refresh_token, fresh.body.access_token, fresh.body.refresh_token);
        if (platform === 'incidentops') {
          assert.equal((await postForm(info.revokeUrl, { token: fresh.body.refresh_token, client_id: info.clientId, client_secret: info.clientSecret })).status, 200);
        } else {
          const res = await fetch(info.revokeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accessToken: fresh.body.access_token, clientId: info.clientId, clientSecret: info.clientSecret }) });
          assert.equal(res.status, 204);
        }
      }
    }
    await fetch(`${sb.canvasapi.baseUrl}/v1/oauth/revoke?access_token=${encodeURIComponent(TOKEN)}`, { method: 'POST' });
    const recorded = JSON.stringify(sb.requests);
    for (const s of secrets) assert.ok(!recorded.includes(s) && !recorded.includes(encodeURIComponent(s)), 'a secret was recorded');
    // What is not secret is still there.
    const exchange = sb.requests.find((r) => r.platform === 'incidentops-identity' && r.path === '/oauth/token' && (r.body as Body)?.grant_type === 'authorization_code');
    assert.ok(exchange);
    assert.deepEqual(exchange.body, { grant_type: 'authorization_code', code: '[redacted]', redirect_uri: REDIRECT, code_verifier: '[redacted]', client_id: 'custom-client', client_secret: '[redacted]' });
    const basicExchange = sb.requests.find((r) => r.headers.authorization?.startsWith('Basic'));
    assert.equal(basicExchange?.headers.authorization, 'Basic [redacted]');
    const canvasRevoke = sb.requests.find((r) => r.path === '/v2/oauth/revoke');
    assert.deepEqual(canvasRevoke?.body, { accessToken: '[redacted]', clientId: 'custom-client', clientSecret: '[redacted]' });
    const v1 = sb.requests.find((r) => r.path === '/v1/oauth/revoke');
    assert.deepEqual(v1?.query, [['access_token', '[redacted]']]);
  });
});
