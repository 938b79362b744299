/**
 * The loopback receiver of a command-line sign-in, alone (core-auth.test.ts runs whole sign-ins
 * through it): only a GET of the redirect path carrying this sign-in's state is the answer, once;
 * anything else is answered with an error page and the sign-in keeps waiting, noted on the
 * terminal a few times at most; the wait ends on the answer, the timeout or the caller's abort.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { after, describe, it } from 'node:test';
import { escapeHtml } from '../src/core/html.js';
import { OAuthError } from '../src/core/signin/oauth-error.js';
import { answerPage, RedirectReceiver } from '../src/core/signin/redirect-receiver.js';
import { rawRequest, type RawAnswer } from './support/raw-http.js';

const STATE = 'state-0123456789abcdef';

/** One request to the receiver: its status, headers and page. */
function send(url: string, method = 'GET'): Promise<RawAnswer> {
  return rawRequest(url, { method });
}

/** Whether the callback has arrived, without waiting for it. */
async function arrived(receiver: RedirectReceiver): Promise<boolean> {
  return Promise.race([receiver.callback.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

describe('the sign-in receiver', () => {
  const printed: string[] = [];
  const receiver = new RedirectReceiver('/callback', STATE, (line) => printed.push(line));
  let redirectUri = '';
  after(() => receiver.close());

  it('listens on 127.0.0.1 and gives the redirect URI', async () => {
    redirectUri = await receiver.listen(0);
    assert.match(redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  });

  it('answers other paths 404 and other methods 405, and keeps waiting', async () => {
    const base = new URL(redirectUri).origin;
    assert.equal((await send(`${base}/elsewhere?state=${STATE}`)).status, 404);
    assert.equal((await send(`${base}/callback?state=${STATE}`, 'POST')).status, 405);
    assert.equal(await arrived(receiver), false);
    assert.deepEqual(printed, []);
  });

  it('answers a redirect without this sign-in\'s state 400, noting it on the terminal three times at most', async () => {
    const base = redirectUri;
    const missing = await send(`${base}?code=c1`);
    assert.equal(missing.status, 400);
    assert.match(missing.body, /<h1>Not this sign-in<\/h1>/);
    assert.equal((await send(`${base}?code=c1&state=other-state`)).status, 400);
    assert.equal((await send(`${base}?code=c1&state=${STATE}&state=${STATE}`)).status, 400, 'the state given twice is not the state');
    assert.equal((await send(`${base}?code=c1&state=${STATE.slice(0, -1)}`)).status, 400);
    assert.equal(printed.length, 3);
    assert.match(printed[0] ?? '', /did not carry this sign-in's state \(answered 400\); still waiting/);
    assert.equal(await arrived(receiver), false);
  });

  it('takes the first redirect with the state as the answer, its page left to the caller, and refuses any after it', async () => {
    const base = redirectUri;
    const page = send(`${base}?code=the-code&state=${STATE}`);
    const callback = await receiver.callback;
    assert.equal(callback.params.get('code'), 'the-code');
    answerPage(callback.res, 200, 'Signed in', 'Close <this> tab.');
    answerPage(callback.res, 400, 'Sign-in failed', 'an answer already sent is left alone');
    const answered = await page;
    assert.equal(answered.status, 200);
    assert.equal(answered.headers['cache-control'], 'no-store');
    assert.equal(answered.headers['referrer-policy'], 'no-referrer');
    assert.ok(answered.body.includes(`<p>${escapeHtml('Close <this> tab.')}</p>`) && !answered.body.includes('<this>'), answered.body);
    assert.equal((await send(`${base}?code=again&state=${STATE}`)).status, 409);
  });
});

describe('waiting for the answer', () => {
  it('ends with the callback, leaving no listener on the signal', async () => {
    const receiver = new RedirectReceiver('/cb', STATE, () => undefined);
    const uri = await receiver.listen(0);
    try {
      const controller = new AbortController();
      const waiting = receiver.arrival(60_000, controller.signal);
      const page = send(`${uri}?state=${STATE}&code=c`);
      const callback = await waiting;
      answerPage(callback.res, 200, 'ok', 'ok');
      await page;
      assert.equal(callback.params.get('code'), 'c');
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    } finally {
      receiver.close();
    }
  });

  it('ends as cancelled when the caller aborts, or had aborted already', async () => {
    const receiver = new RedirectReceiver('/cb', STATE, () => undefined);
    await receiver.listen(0);
    try {
      const controller = new AbortController();
      const waiting = receiver.arrival(60_000, controller.signal);
      controller.abort();
      await assert.rejects(waiting, (error: unknown) => error instanceof OAuthError && error.kind === 'cancelled' && error.message === 'The sign-in was cancelled.');
      await assert.rejects(receiver.arrival(60_000, AbortSignal.abort()), (error: unknown) => error instanceof OAuthError && error.kind === 'cancelled');
    } finally {
      receiver.close();
    }
  });

  it('ends as a timeout when nothing comes back in time', async () => {
    const receiver = new RedirectReceiver('/cb', STATE, () => undefined);
    await receiver.listen(0);
    try {
      await assert.rejects(receiver.arrival(1000, undefined), (error: unknown) => error instanceof OAuthError && error.kind === 'timeout' && error.message === 'No sign-in came back within 1 s; run the login again.');
    } finally {
      receiver.close();
    }
  });

  it('says which port it could not listen on', async () => {
    const first = new RedirectReceiver('/cb', STATE, () => undefined);
    const port = Number(new URL(await first.listen(0)).port);
    const second = new RedirectReceiver('/cb', STATE, () => undefined);
    try {
      await assert.rejects(second.listen(port), (error: unknown) => error instanceof OAuthError && error.kind === 'configuration' && error.message === `Could not start the local sign-in receiver on 127.0.0.1:${port} (EADDRINUSE).`);
    } finally {
      first.close();
      second.close();
    }
  });

  it('stops receiving once closed', async () => {
    const receiver = new RedirectReceiver('/cb', STATE, () => undefined);
    const uri = await receiver.listen(0);
    receiver.close();
    await assert.rejects(send(`${uri}?state=${STATE}`), (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED');
  });
});
