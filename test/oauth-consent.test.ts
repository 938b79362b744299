/**
 * The consent step of OAuth mode (src/core/serving/oauth/consent.ts and the interaction page,
 * interaction.ts), called directly over a real store, records and vault, with oidc-provider
 * stood in for by a provider that knows each browser by its interaction cookie. The answer counts
 * only from the browser of its authorization, with the page's CSRF token, once; allowing puts the
 * platform sign-in in the vault and grants the one endpoint; every refusal changes nothing.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { silentLogger } from '../src/core/logger.js';
import type { PlatformAuth } from '../src/core/signin/platform-auth.js';
import { oauthRecords, type OAuthRecords } from '../src/core/serving/oauth/adapter.js';
import { confirmConsent, type ConsentState } from '../src/core/serving/oauth/consent.js';
import { publicSite } from '../src/core/serving/oauth/endpoints.js';
import { showInteraction } from '../src/core/serving/oauth/interaction.js';
import { recordKeysFor } from '../src/core/serving/oauth/keys.js';
import type { PlatformSignInState } from '../src/core/serving/oauth/platform-sign-in.js';
import { signedInKey, type InteractionDetails, type InteractionProvider, type SignedIn } from '../src/core/serving/oauth/sign-in-state.js';
import { TokenVault, type PlatformTokens } from '../src/core/serving/oauth/vault.js';
import { MemoryStore } from '../src/core/store/memory-store.js';
import { generateStateKey, stateKeyFrom } from '../src/core/store/sealed.js';
import { RecordedResponse } from './support/raw-http.js';

const SITE = 'https://mcp.example';
const ENDPOINT = `${SITE}/incidentops/mcp`;
const USER = 'incidentops:PDEMO01';
const CSRF = 'csrf-of-the-page-shown';
const PLATFORM_TOKENS: PlatformTokens = { accessToken: 'platform-access', refreshToken: 'platform-refresh', tokenType: 'Bearer', obtainedAt: 1 };
const CLIENT_ID = 'client-1';

interface Fixture {
  state: ConsentState & PlatformSignInState;
  records: OAuthRecords;
  vault: TokenVault;
  /** The authorization requests by interaction uid. */
  interactions: Map<string, Record<string, unknown>>;
  /** interactionFinished's results, in order. */
  finished: Record<string, unknown>[];
  /** Grants saved: who, which client, which scopes. */
  grants: { accountId: string; clientId: unknown; oidc: string[]; resources: [string, string][] }[];
}

/** oidc-provider as far as the consent uses it: a browser's interaction is the one its cookie names. */
function provider(fixture: Omit<Fixture, 'state' | 'records' | 'vault'>): InteractionProvider {
  return {
    async interactionDetails(req): Promise<InteractionDetails> {
      const uid = /(?:^|; )interaction=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      const params = uid === undefined ? undefined : fixture.interactions.get(uid);
      if (uid === undefined || params === undefined) throw Object.assign(new Error('interaction session id cookie not found'), { name: 'SessionNotFound' });
      return { uid, params };
    },
    async interactionFinished(_req, _res, result) {
      fixture.finished.push(result);
    },
    Client: { find: async (clientId) => (clientId === CLIENT_ID ? { clientName: 'Claude Desktop', redirectUris: ['http://127.0.0.1:33418/callback'] } : undefined) },
    Grant: class {
      private readonly saved: Fixture['grants'][number];
      constructor(init: { accountId: string; clientId: unknown }) {
        this.saved = { ...init, oidc: [], resources: [] };
      }
      addOIDCScope(scope: string) {
        this.saved.oidc.push(scope);
      }
      addResourceScope(resource: string, scope: string) {
        this.saved.resources.push([resource, scope]);
      }
      async save() {
        fixture.grants.push(this.saved);
        return `grant-${fixture.grants.length}`;
      }
    },
  };
}

function fixture(): Fixture {
  const store = new MemoryStore();
  const stateKey = stateKeyFrom(generateStateKey());
  const records = oauthRecords(store, recordKeysFor(stateKey.bytes), silentLogger);
  const vault = new TokenVault(store, stateKey);
  const parts = { interactions: new Map<string, Record<string, unknown>>(), finished: [], grants: [] };
  const auth = { platform: 'incidentops', name: 'IncidentOps' } as PlatformAuth;
  const state = { provider: provider(parts), site: publicSite(SITE), mounts: [{ path: '/incidentops/mcp', name: 'IncidentOps', auth }], records, store, vault, logger: silentLogger };
  return { ...parts, state, records, vault };
}

/** An authorization for ENDPOINT whose platform sign-in is done: the consent page is due. */
async function signedIn(f: Fixture, uid: string, changes: Partial<SignedIn> = {}): Promise<void> {
  f.interactions.set(uid, { client_id: CLIENT_ID, resource: ENDPOINT, redirect_uri: 'http://127.0.0.1:33418/callback' });
  const record: SignedIn = { userKey: USER, account: 'Demo User <demo.user@example.com>', csrf: CSRF, sealed: await f.vault.seal(USER, PLATFORM_TOKENS), ...changes };
  await f.records.set(signedInKey(f.records, uid), record, 60_000);
}

function formPost(uid: string, browserOf: string | undefined, body: string, contentType = 'application/x-www-form-urlencoded'): IncomingMessage {
  return Object.assign(Readable.from([Buffer.from(body)]), {
    method: 'POST',
    url: `/oauth/interaction/${uid}/confirm`,
    headers: { 'content-type': contentType, ...(browserOf ? { cookie: `interaction=${browserOf}` } : {}) },
  }) as unknown as IncomingMessage;
}

/** The consent form's answer from the browser holding `browserOf`'s interaction (null: a browser holding none). */
async function answer(f: Fixture, uid: string, form: Record<string, string>, browserOf: string | null = uid): Promise<RecordedResponse> {
  const res = new RecordedResponse();
  await confirmConsent(f.state, formPost(uid, browserOf ?? undefined, new URLSearchParams(form).toString()), res as unknown as ServerResponse, uid);
  return res;
}

function assertPage(res: RecordedResponse, status: number, title: string, text: string): void {
  assert.equal(res.status, status);
  assert.match(res.body, new RegExp(`<h1>${title}</h1>`));
  assert.ok(res.body.includes(text), res.body);
}

/** Nothing of the sign-in was used: it is still awaiting its answer, no grant, nothing in the vault, the authorization not ended. */
async function assertUnchanged(f: Fixture, uid: string): Promise<void> {
  assert.ok(await f.records.get(signedInKey(f.records, uid)), 'the signed-in record is kept for the real answer');
  assert.deepEqual(f.grants, []);
  assert.deepEqual(f.finished, []);
  assert.equal(await f.vault.get(USER), undefined);
}

describe('the consent answer', () => {
  it('allowed from the browser of its authorization with the page\'s token: the sign-in goes to the vault, the one endpoint is granted', async () => {
    const f = fixture();
    await signedIn(f, 'uid-1');
    const res = await answer(f, 'uid-1', { csrf: CSRF, decision: 'allow' });
    assert.equal(res.status, 0, 'oidc-provider answers the browser');
    assert.deepEqual(await f.vault.get(USER), PLATFORM_TOKENS);
    assert.deepEqual(f.grants, [{ accountId: USER, clientId: CLIENT_ID, oidc: ['openid offline_access mcp:tools'], resources: [[ENDPOINT, 'mcp:tools']] }]);
    assert.deepEqual(f.finished, [{ login: { accountId: USER }, consent: { grantId: 'grant-1' } }]);
    assert.equal(await f.records.get(signedInKey(f.records, 'uid-1')), undefined, 'the sign-in is used up');
  });

  it('is refused from a browser that holds another authorization, and without one', async () => {
    const f = fixture();
    await signedIn(f, 'uid-1');
    f.interactions.set('uid-2', { client_id: CLIENT_ID, resource: ENDPOINT });
    assertPage(await answer(f, 'uid-1', { csrf: CSRF, decision: 'allow' }, 'uid-2'), 400, 'Sign-in expired', 'This form belongs to another authorization.');
    await assert.rejects(answer(f, 'uid-1', { csrf: CSRF, decision: 'allow' }, null), { name: 'SessionNotFound' });
    await assertUnchanged(f, 'uid-1');
  });

  it('is refused with another CSRF token, none, a form of another type or one over 8 KB; the real answer still counts', async () => {
    const f = fixture();
    await signedIn(f, 'uid-1');
    const refusals = [
      await answer(f, 'uid-1', { csrf: 'guessed', decision: 'allow' }),
      await answer(f, 'uid-1', { csrf: `${CSRF}x`, decision: 'allow' }),
      await answer(f, 'uid-1', { decision: 'allow' }),
    ];
    for (const [body, type] of [[JSON.stringify({ csrf: CSRF, decision: 'allow' }), 'application/json'], [`csrf=${CSRF}&decision=allow&pad=${'x'.repeat(8 * 1024)}`, 'application/x-www-form-urlencoded']] as const) {
      const res = new RecordedResponse();
      await confirmConsent(f.state, formPost('uid-1', 'uid-1', body, type), res as unknown as ServerResponse, 'uid-1');
      refusals.push(res);
    }
    for (const res of refusals) assertPage(res, 403, 'Form not accepted', 'The consent form was not sent from the page this server showed.');
    await assertUnchanged(f, 'uid-1');
    await answer(f, 'uid-1', { csrf: CSRF, decision: 'allow' });
    assert.equal(f.grants.length, 1);
  });

  it('counts once: an answer that another replica took first is refused and grants nothing', async () => {
    const f = fixture();
    await signedIn(f, 'uid-1');
    // Another replica takes the sign-in between this one's read and its take.
    const racing = { ...f.records, take: async (key: string) => (await f.records.take(key), f.records.take(key)) };
    const res = new RecordedResponse();
    await confirmConsent({ ...f.state, records: racing }, formPost('uid-1', 'uid-1', `csrf=${CSRF}&decision=allow`), res as unknown as ServerResponse, 'uid-1');
    assertPage(res, 400, 'Sign-in expired', 'This consent was already answered.');
    assert.deepEqual(f.grants, []);
    assert.deepEqual(f.finished, []);
    assert.equal(await f.vault.get(USER), undefined);
  });

  it('denied (or anything but allow): the authorization ends with access_denied and nothing is kept', async () => {
    for (const decision of ['deny', 'ALLOW', undefined]) {
      const f = fixture();
      await signedIn(f, 'uid-1');
      await answer(f, 'uid-1', { csrf: CSRF, ...(decision ? { decision } : {}) });
      assert.deepEqual(f.finished, [{ error: 'access_denied', error_description: 'The user denied access.' }], String(decision));
      assert.deepEqual(f.grants, []);
      assert.equal(await f.vault.get(USER), undefined);
      assert.equal(await f.records.get(signedInKey(f.records, 'uid-1')), undefined);
    }
  });

  it('is refused when the sealed sign-in does not open for its user, or the request names no single endpoint', async () => {
    const f = fixture();
    await signedIn(f, 'uid-1', { sealed: await f.vault.seal('incidentops:SOMEONE', PLATFORM_TOKENS) });
    assertPage(await answer(f, 'uid-1', { csrf: CSRF, decision: 'allow' }), 400, 'Sign-in expired', 'The platform sign-in could not be read back.');
    await signedIn(f, 'uid-2');
    f.interactions.set('uid-2', { client_id: CLIENT_ID, resource: [ENDPOINT, `${SITE}/canvasapi/mcp`] });
    assertPage(await answer(f, 'uid-2', { csrf: CSRF, decision: 'allow' }), 400, 'Invalid request', 'The authorization request must name exactly one MCP endpoint as its resource (RFC 8707)');
    assert.deepEqual(f.grants, []);
    assert.equal(await f.vault.get(USER), undefined);
  });
});

describe('the interaction page', () => {
  async function show(f: Fixture, uid: string, browserOf = uid): Promise<RecordedResponse> {
    const res = new RecordedResponse();
    const req = { method: 'GET', url: `/oauth/interaction/${uid}`, headers: { cookie: `interaction=${browserOf}` } } as unknown as IncomingMessage;
    await showInteraction(f.state, req, res as unknown as ServerResponse, uid);
    return res;
  }

  it('once signed in, shows the consent page: the client, where its code goes, the endpoint, the account, and the form with its token', async () => {
    const f = fixture();
    await signedIn(f, 'uid-1');
    const res = await show(f, 'uid-1');
    assert.equal(res.status, 200);
    for (const text of ['Claude Desktop', 'http://127.0.0.1:33418', ENDPOINT, 'Demo User &#60;demo.user@example.com&#62;', `value="${CSRF}"`, 'action="/oauth/interaction/uid-1/confirm"']) assert.ok(res.body.includes(text), text);
    assert.equal(res.headers['x-frame-options'], 'DENY');
  });

  it('ends the authorization with the platform\'s refusal, which it forgets', async () => {
    const f = fixture();
    f.interactions.set('uid-1', { client_id: CLIENT_ID, resource: ENDPOINT });
    await f.records.set(signedInKey(f.records, 'uid-1'), { error: 'access_denied', description: 'IncidentOps did not say who signed in.' });
    await show(f, 'uid-1');
    assert.deepEqual(f.finished, [{ error: 'access_denied', error_description: 'IncidentOps did not say who signed in.' }]);
    assert.equal(await f.records.get(signedInKey(f.records, 'uid-1')), undefined);
  });

  it('refuses the page of another authorization, and ends one that names no single endpoint with invalid_target', async () => {
    const f = fixture();
    await signedIn(f, 'uid-1');
    await signedIn(f, 'uid-2');
    assertPage(await show(f, 'uid-1', 'uid-2'), 400, 'Sign-in expired', 'This page belongs to another authorization.');
    f.interactions.set('uid-3', { client_id: CLIENT_ID });
    await show(f, 'uid-3');
    assert.deepEqual(f.finished, [{ error: 'invalid_target', error_description: `The authorization request must name exactly one MCP endpoint as its resource (RFC 8707), e.g. ${ENDPOINT}.` }]);
  });
});
