/**
 * The platform leg of OAuth mode (src/core/serving/oauth/platform-sign-in.ts), called directly
 * against the sandbox platform: the browser sent to the platform is marked with a nonce cookie,
 * and the platform's answer counts only in that browser, holding that authorization, and once.
 * An answer anywhere else exchanges nothing and records nothing; a refused sign-in is recorded as
 * a refusal for the consent step. Reloading keeps one pending sign-in per authorization.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../src/core/logger.js';
import { oauthRecords } from '../src/core/serving/oauth/adapter.js';
import { publicSite } from '../src/core/serving/oauth/endpoints.js';
import { recordKeysFor } from '../src/core/serving/oauth/keys.js';
import { finishPlatformSignIn, platformCallback, sendToPlatform, type PlatformSignInState } from '../src/core/serving/oauth/platform-sign-in.js';
import { signedInKey, type InteractionProvider, type SignedIn } from '../src/core/serving/oauth/sign-in-state.js';
import { TokenVault } from '../src/core/serving/oauth/vault.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { generateStateKey, stateKeyFrom } from '../src/core/store/sealed.js';
import { DEMO_USER_ID, type RunningSandbox } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { startTestSandbox } from './support/harness.js';
import { RecordedResponse } from './support/raw-http.js';

/** The public URL: loopback, as the sandbox platform wants its redirect URIs; never contacted. */
const SITE = 'http://127.0.0.1:9';

let sandbox: RunningSandbox;
before(async () => {
  sandbox = await startTestSandbox();
});
after(async () => {
  await sandbox?.close();
});

interface Fixture {
  state: PlatformSignInState;
  store: MemoryStore;
  vault: TokenVault;
  logs: Record<string, unknown>[];
}

function fixture(): Fixture {
  const store = new MemoryStore();
  const stateKey = stateKeyFrom(generateStateKey());
  const vault = new TokenVault(store, stateKey);
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const entry = SERVERS.find((candidate) => candidate.id === 'incidentops')!;
  const auth = entry.auth({}, { sandbox, env: {} });
  // oidc-provider as far as this leg uses it: a browser's interaction is the one its cookie names.
  const provider: Pick<InteractionProvider, 'interactionDetails'> = {
    async interactionDetails(req) {
      const uid = /(?:^|; )interaction=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (uid === undefined) throw Object.assign(new Error('interaction session id cookie not found'), { name: 'SessionNotFound' });
      return { uid, params: {} };
    },
  };
  const state: PlatformSignInState = { provider, site: publicSite(SITE), mounts: [{ path: '/incidentops/mcp', name: 'IncidentOps', auth }], records: oauthRecords(store, recordKeysFor(stateKey.bytes), logger), store, vault, logger };
  return { state, store, vault, logs };
}

function get(url: string, cookie?: string): IncomingMessage {
  return { method: 'GET', url, headers: { 'x-request-id': 'req-1', ...(cookie !== undefined ? { cookie } : {}) } } as unknown as IncomingMessage;
}

/** The first visit of `uid`: the browser's sign-in cookie and the platform's URL. */
async function sendOff(f: Fixture, uid: string, loginHint = 'demo.user@example.com'): Promise<{ platformUrl: string; signInCookie: string }> {
  const res = new RecordedResponse();
  await sendToPlatform(f.state, res as unknown as ServerResponse, uid, f.state.mounts[0]!, { login_hint: loginHint });
  assert.equal(res.status, 303);
  return { platformUrl: res.header('location'), signInCookie: res.header('set-cookie') };
}

/** The platform signs the person in and sends the browser back; then the callback moves the answer to its interaction. */
async function platformAnswer(f: Fixture, platformUrl: string): Promise<string> {
  const response = await fetch(platformUrl, { redirect: 'manual' });
  const back = new URL(response.headers.get('location')!);
  assert.equal(`${back.origin}${back.pathname}`, `${SITE}/oauth/callback`);
  const res = new RecordedResponse();
  await platformCallback(f.state, get(`${back.pathname}${back.search}`), res as unknown as ServerResponse);
  assert.equal(res.status, 303);
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  return res.header('location');
}

async function finish(f: Fixture, uid: string, answerUrl: string, cookie: string | undefined): Promise<RecordedResponse> {
  const res = new RecordedResponse();
  await finishPlatformSignIn(f.state, get(answerUrl, cookie), res as unknown as ServerResponse, uid);
  return res;
}

const tokenRequests = () => sandbox.requests.filter((request) => request.path.endsWith('/oauth/token')).length;
const pendingSignIns = (f: Fixture) => [...(f.store as unknown as { entries: Map<string, unknown> }).entries.keys()].filter((key) => key.startsWith('oauth:pending-sign-in:')).length;

describe('the platform sign-in', () => {
  it('marks the browser it sends to the platform with a nonce cookie for this authorization only', async () => {
    const f = fixture();
    const { platformUrl, signInCookie } = await sendOff(f, 'uid-1');
    assert.match(signInCookie, /^sign-in-uid-1=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
    const platform = new URL(platformUrl);
    assert.equal(platform.searchParams.get('redirect_uri'), `${SITE}/oauth/callback`);
    assert.equal(platform.searchParams.get('login_hint'), 'demo.user@example.com');
    assert.equal(platform.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(!platformUrl.includes(signInCookie.split(';')[0]!.split('=')[1]!), 'the nonce stays in the browser');
  });

  it('accepts the answer in the browser that started it, once: who signed in is sealed for the consent', async () => {
    const f = fixture();
    const { platformUrl, signInCookie } = await sendOff(f, 'uid-1');
    const answerUrl = await platformAnswer(f, platformUrl);
    assert.match(answerUrl, /^\/oauth\/interaction\/uid-1\/callback\?/);
    const cookies = `interaction=uid-1; ${signInCookie.split(';')[0]}`;
    const res = await finish(f, 'uid-1', answerUrl, cookies);
    assert.equal(res.status, 303, res.body);
    assert.equal(res.headers.location, '/oauth/interaction/uid-1');
    assert.equal(res.headers['set-cookie'], 'sign-in-uid-1=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax');
    const signedIn = (await f.state.records.get(signedInKey(f.state.records, 'uid-1'))) as unknown as SignedIn;
    assert.equal(signedIn.userKey, `incidentops:${DEMO_USER_ID}`);
    assert.match(signedIn.account, /demo\.user@example\.com/);
    assert.match(signedIn.csrf, /^[A-Za-z0-9_-]{32}$/);
    assert.equal((await f.vault.open(signedIn.userKey, signedIn.sealed))?.account?.id, DEMO_USER_ID);
    assert.equal(await f.vault.get(signedIn.userKey), undefined, 'nothing in the vault before the consent');
    assert.deepEqual(
      f.logs.map((line) => [line.msg, line.account]),
      [['platform sign-in for an MCP client', DEMO_USER_ID]],
    );
    const again = await finish(f, 'uid-1', answerUrl, cookies);
    assert.equal(again.status, 400);
    assert.ok(again.body.includes('This sign-in answer is unknown, was already used or has expired.'));
  });

  it('refuses the answer without the sign-in cookie, with another nonce, or in a browser holding another authorization; nothing is exchanged or recorded', async () => {
    const f = fixture();
    const { platformUrl, signInCookie } = await sendOff(f, 'uid-1');
    const answerUrl = await platformAnswer(f, platformUrl);
    const nonce = signInCookie.split(';')[0]!;
    const exchanged = tokenRequests();
    for (const cookies of [undefined, 'interaction=uid-1', `interaction=uid-1; ${nonce}x`, `interaction=uid-1; sign-in-uid-1=${'A'.repeat(43)}`, nonce, `interaction=uid-2; ${nonce}`]) {
      const res = await finish(f, 'uid-1', answerUrl, cookies);
      assert.equal(res.status, 403, String(cookies));
      assert.ok(res.body.includes('This sign-in did not start in this browser, so it was not used.'));
    }
    assert.equal(tokenRequests(), exchanged, 'no code was exchanged');
    assert.equal(await f.state.records.get(signedInKey(f.state.records, 'uid-1')), undefined);
    assert.deepEqual(new Set(f.logs.map((line) => line.msg)), new Set(['refused a platform sign-in answer in a browser that did not start it']));
    // The browser that started it still can.
    assert.equal((await finish(f, 'uid-1', answerUrl, `interaction=uid-1; ${nonce}`)).status, 303);
    assert.equal(tokenRequests(), exchanged + 1, 'its code was exchanged');
  });

  it('refuses an answer moved to another authorization\'s path, even in the browser holding that one', async () => {
    const f = fixture();
    const first = await sendOff(f, 'uid-1');
    const second = await sendOff(f, 'uid-2');
    const answerUrl = await platformAnswer(f, first.platformUrl);
    const moved = answerUrl.replace('/uid-1/', '/uid-2/');
    const firstNonce = first.signInCookie.split(';')[0]!.split('=')[1]!;
    // With uid-2's own nonce, and even with the nonce that started uid-1 under uid-2's cookie.
    for (const cookies of [`interaction=uid-2; ${second.signInCookie.split(';')[0]}`, `interaction=uid-2; sign-in-uid-2=${firstNonce}`]) {
      assert.equal((await finish(f, 'uid-2', moved, cookies)).status, 403, cookies);
    }
    for (const uid of ['uid-1', 'uid-2']) assert.equal(await f.state.records.get(signedInKey(f.state.records, uid)), undefined, uid);
  });

  it('keeps one pending sign-in per authorization however often it is sent off; only the latest answer counts', async () => {
    const f = fixture();
    const first = await sendOff(f, 'uid-1');
    for (let reload = 0; reload < 5; reload += 1) await sendOff(f, 'uid-1');
    assert.equal(pendingSignIns(f), 1);
    const stale = await fetch(first.platformUrl, { redirect: 'manual' });
    const back = new URL(stale.headers.get('location')!);
    const res = new RecordedResponse();
    await platformCallback(f.state, get(`${back.pathname}${back.search}`), res as unknown as ServerResponse);
    assert.equal(res.status, 400);
    assert.ok(res.body.includes('This sign-in answer is unknown, was already used or has expired.'));
  });

  it('records a sign-in the platform refused as a refusal for the consent step', async () => {
    const f = fixture();
    const { platformUrl, signInCookie } = await sendOff(f, 'uid-1');
    const state = new URL(platformUrl).searchParams.get('state')!;
    const res = await finish(f, 'uid-1', `/oauth/interaction/uid-1/callback?error=access_denied&state=${state}`, `interaction=uid-1; ${signInCookie.split(';')[0]}`);
    assert.equal(res.status, 303);
    const refused = (await f.state.records.get(signedInKey(f.state.records, 'uid-1'))) as Record<string, unknown>;
    assert.equal(refused.error, 'access_denied');
    assert.match(String(refused.description), /^Signing in to IncidentOps failed: The provider refused the sign-in/);
    assert.deepEqual(f.logs.map((line) => [line.level, line.msg]), [[40, 'platform sign-in failed']]);
  });

  it('answers an unknown or missing state on the way back as expired', async () => {
    const f = fixture();
    for (const url of ['/oauth/callback?state=forged&code=x', '/oauth/callback']) {
      const res = new RecordedResponse();
      await platformCallback(f.state, get(url), res as unknown as ServerResponse);
      assert.equal(res.status, 400, url);
    }
    assert.equal((await finish(f, 'uid-1', '/oauth/interaction/uid-1/callback?state=forged', 'interaction=uid-1')).status, 400);
  });
});
