/**
 * The upstream client's rules, each read and tested alone (the client's behaviour as a whole is
 * in core-upstream.test.ts, upstream-faults.test.ts and upstream-limits.test.ts): the rate-limit
 * hold, one capped attempt, and the description of a failure.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../src/core/logger.js';
import { attemptOnce, type AttemptSettings } from '../src/core/platform/attempt.js';
import { FailureDescriber } from '../src/core/platform/failure-description.js';
import type { CappedBody, HeaderLookup, Send, SentAnswer } from '../src/core/platform/http-send.js';
import { RateLimitHolds } from '../src/core/platform/rate-limit-hold.js';
import { effectOf, mayResend } from '../src/core/platform/resend-rules.js';
import { secretsOf } from '../src/core/platform/secrets.js';
import type { AnswerHead, RequestContext, UpstreamRequest } from '../src/core/platform/upstream-request.js';

function headersOf(values: Record<string, string>): HeaderLookup {
  return { get: (name: string) => values[name.toLowerCase()] ?? null };
}

function answer(status: number, headers: Record<string, string> = {}): AnswerHead {
  return { status, headers: headersOf(headers) };
}

function contextFor(req: UpstreamRequest, secrets: string[] = []): RequestContext {
  return { req, path: req.path, secrets, effect: effectOf(req), resendable: mayResend(req), ambiguous: undefined, requestId: undefined, holder: 'server' };
}

describe('rate-limit hold', () => {
  const clock = (start: number) => {
    let now = start;
    return { now: () => new Date(now), advance: (ms: number) => (now += ms), at: () => now };
  };

  it('doubles the wait once per burst of 429s without a reset time, and holds only the identity that got them', () => {
    const time = clock(1_000_000);
    const holds = new RateLimitHolds({ now: time.now, minBackoffMs: 1000, maxBackoffMs: 30_000 });
    const sent = time.at();
    assert.equal(holds.holdAfter429('alice', answer(429), sent).waitMs, 1000);
    // Another 429 for a request of the same burst (sent before the wait ended) does not double it.
    assert.equal(holds.holdAfter429('alice', answer(429), sent).waitMs, 1000);
    time.advance(1500);
    assert.equal(holds.holdAfter429('alice', answer(429), time.at()).waitMs, 2000);
    assert.ok(holds.notBefore('alice') >= time.at() + 2000);
    assert.equal(holds.notBefore('bob'), 0, "alice's 429s never hold bob back");
  });

  it("takes the platform's reset time when it gives one, and forgets a passed hold on the next answer", () => {
    const time = clock(2_000_000);
    const holds = new RateLimitHolds({ now: time.now, minBackoffMs: 1000, maxBackoffMs: 30_000 });
    const { waitMs, deadline } = holds.holdAfter429('server', answer(429, { 'retry-after': '7' }), time.at());
    assert.equal(waitMs, 7000);
    assert.equal(deadline, time.at() + 7000);
    holds.settle('server');
    assert.equal(holds.size, 1, 'a hold still running stays');
    time.advance(7000);
    holds.settle('server');
    assert.equal(holds.size, 0);
    assert.equal(holds.notBefore('server'), 0);
  });
});

describe('one capped attempt', () => {
  function fakeSend(status: number, body: Buffer, headers: Record<string, string> = {}) {
    const seen = { discarded: 0, readLimit: -1 };
    const send: Send = async () => {
      const sent: SentAnswer = {
        status,
        headers: headersOf(headers),
        read: async (limit: number, keepOnOverflow: boolean): Promise<CappedBody> => {
          seen.readLimit = limit;
          const overflow = body.length > limit;
          return { bytes: overflow && !keepOnOverflow ? Buffer.alloc(0) : body.subarray(0, limit), overflow };
        },
        discard: () => {
          seen.discarded += 1;
        },
      };
      return sent;
    };
    return { send, seen };
  }
  const settings = (send: Send, maxResponseBytes: number): AttemptSettings => ({ platformName: 'Demo', send, timeoutMs: 30_000, maxResponseBytes, logger: silentLogger, now: () => new Date() });
  const ctx = contextFor({ method: 'GET', path: '/things' });
  const init = { method: 'GET', headers: {}, body: undefined };

  it('does not read an answer that announces more than the cap', async () => {
    const { send, seen } = fakeSend(200, Buffer.alloc(10), { 'content-length': '5000' });
    const outcome = await attemptOnce(settings(send, 1000), 'http://x/things', init, ctx, 1);
    assert.deepEqual({ type: outcome.type, limit: outcome.type === 'too_large' ? outcome.limit : 0, declared: outcome.type === 'too_large' ? outcome.declared : 0 }, { type: 'too_large', limit: 1000, declared: 5000 });
    assert.equal(seen.discarded, 1);
    assert.equal(seen.readLimit, -1, 'nothing was read');
  });

  it('abandons a streamed answer past the cap, and reads error answers no further than the cap', async () => {
    const big = Buffer.alloc(2000, 'a');
    const { send } = fakeSend(200, big);
    assert.equal((await attemptOnce(settings(send, 1000), 'http://x/things', init, ctx, 1)).type, 'too_large');
    const error = fakeSend(500, big);
    const outcome = await attemptOnce(settings(error.send, 1000), 'http://x/things', init, ctx, 1);
    assert.equal(outcome.type, 'response', 'an error answer is read up to the cap and described');
    assert.equal(outcome.type === 'response' ? outcome.text.length : 0, 1000);
  });

  it('knows a refused connection never reached the platform, and a reset one may have', async () => {
    const failing = (code: string): Send => async () => {
      throw Object.assign(new Error('failed'), { cause: { code } });
    };
    const refused = await attemptOnce(settings(failing('ECONNREFUSED'), 1000), 'http://x', init, ctx, 1);
    assert.deepEqual(refused, { type: 'failure', kind: 'network_error', code: 'ECONNREFUSED', neverSent: true });
    const reset = await attemptOnce(settings(failing('ECONNRESET'), 1000), 'http://x', init, ctx, 1);
    assert.deepEqual(reset, { type: 'failure', kind: 'network_error', code: 'ECONNRESET', neverSent: false });
  });
});

describe('describing a failure', () => {
  const describer = new FailureDescriber({ platformName: 'Demo' }, 30_000, silentLogger);

  it('says a create that failed with a 5xx may have happened and was not sent again', () => {
    const error = describer.httpFailure(answer(502), 'Bad gateway', contextFor({ method: 'POST', path: '/things', effect: 'create' }), 1, undefined);
    assert.equal(error.details.kind, 'upstream_error');
    assert.match(error.details.message, /may have been carried out despite the error; it was not sent again/);
    assert.match(error.details.nextStep ?? '', /check the current state .* to avoid duplicating data/);
  });

  it('never repeats a credential the platform echoed in its error', () => {
    const authorization = 'Bearer sk_live_0123456789abcdef';
    const ctx = contextFor({ method: 'GET', path: '/things' }, secretsOf(authorization));
    const error = describer.httpFailure(answer(400, { 'content-type': 'application/json' }), JSON.stringify({ error: { message: 'token sk_live_0123456789abcdef is not allowed here' } }), ctx, 1, undefined);
    assert.equal(error.details.kind, 'bad_request');
    assert.doesNotMatch(JSON.stringify(error.toJSON()), /sk_live_0123456789abcdef/);
    assert.match(error.details.platformMessage ?? '', /\[redacted\]/);
  });

  it('lets the platform reword a failure, and keeps the default when its hook throws', () => {
    const reworded = new FailureDescriber({ platformName: 'Demo', describeError: (context) => ({ message: `custom ${context.kind} ${context.status}` }) }, 30_000, silentLogger);
    assert.equal(reworded.httpFailure(answer(404), '', contextFor({ method: 'GET', path: '/things/1' }), 1, undefined).details.message, 'custom not_found 404');
    const broken = new FailureDescriber({ platformName: 'Demo', describeError: () => { throw new Error('hook bug'); } }, 30_000, silentLogger);
    assert.match(broken.httpFailure(answer(404), '', contextFor({ method: 'GET', path: '/things/1' }), 1, undefined).details.message, /was not found on Demo \(HTTP 404\)/);
  });
});
