/**
 * The platform client's decisions around an attempt, each alone (the client as a whole is in
 * core-upstream.test.ts and upstream-faults.test.ts): what a request sends, settled before anything
 * is sent, and what an attempt that did not succeed leads to (sent again, an answer after all, or
 * the failure, saying how many attempts were made and whether it may have happened).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ToolError } from '../src/core/errors.js';
import { silentLogger } from '../src/core/logger.js';
import type { AttemptFailure } from '../src/core/platform/attempt.js';
import { alreadyDeletedAnswer, reasonToResendAfterFailure, reasonToResendAfterStatus } from '../src/core/platform/attempt-outcome.js';
import { FailureDescriber } from '../src/core/platform/failure-description.js';
import { refuseUnsendable, requestBody, requestPath } from '../src/core/platform/request-preparation.js';
import { effectOf, mayResend, type HttpMethod } from '../src/core/platform/resend-rules.js';
import type { ErrorDescriptionContext } from '../src/core/platform/upstream-options.js';
import type { AnswerHead, RequestContext, UpstreamRequest } from '../src/core/platform/upstream-request.js';

function contextFor(req: UpstreamRequest, secrets: string[] = []): RequestContext {
  return { req, path: req.path, secrets, effect: effectOf(req), resendable: mayResend(req), ambiguous: undefined, requestId: 'r-1', holder: 'server' };
}

/** A describer that records what each failure was told (attempts, may it have happened). */
function describer(): { failures: FailureDescriber; seen: ErrorDescriptionContext[] } {
  const seen: ErrorDescriptionContext[] = [];
  const failures = new FailureDescriber({ platformName: 'Shapes', describeError: (ctx) => void seen.push(ctx) }, 300, silentLogger);
  return { failures, seen };
}

function answer(status: number): AnswerHead {
  return { status, headers: { get: () => null } };
}

function thrown(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ToolError, String(error));
    return error;
  }
  assert.fail('expected a ToolError');
}

const CREATE: UpstreamRequest = { method: 'POST', path: '/shapes', effect: 'create' };
const UPDATE: UpstreamRequest = { method: 'PUT', path: '/shapes/s1', effect: 'update' };
const DELETE: UpstreamRequest = { method: 'DELETE', path: '/shapes/s1', resourceLabel: 'Shape s1' };

const refused: AttemptFailure = { type: 'failure', kind: 'network_error', code: 'ECONNREFUSED', neverSent: true };
const reset: AttemptFailure = { type: 'failure', kind: 'network_error', code: 'ECONNRESET', neverSent: false };
const timedOut: AttemptFailure = { type: 'failure', kind: 'timeout', neverSent: false };

describe('what a request sends', () => {
  it('refuses a method that is not HTTP, and one a restricted client does not send, before anything is sent', () => {
    const bogus = thrown(() => refuseUnsendable({ method: 'BREW' as HttpMethod, path: '/pot' }, 'Shapes', undefined));
    assert.equal(bogus.details.kind, 'internal');
    assert.equal(bogus.message, 'Unsupported HTTP method BREW; nothing was sent.');
    const write = thrown(() => refuseUnsendable(CREATE, 'Shapes', ['GET']));
    assert.equal(write.message, 'This Shapes server only sends GET requests; refused to send POST /shapes (nothing was sent).');
    refuseUnsendable({ method: 'GET', path: '/shapes' }, 'Shapes', ['GET']);
    refuseUnsendable(CREATE, 'Shapes', undefined);
  });

  it('has a path that starts with a slash, its IDs encoded', () => {
    assert.equal(requestPath({ method: 'GET', path: 'shapes/{id}', pathParams: { id: 'a b' } }), '/shapes/a%20b');
    assert.equal(requestPath({ method: 'GET', path: '/shapes' }), '/shapes');
    assert.equal(requestPath({ method: 'GET', path: '' }), '');
  });

  it('has a JSON body with int64 IDs exact, none when not given, and refuses one that is not JSON', () => {
    assert.equal(requestBody({ method: 'POST', path: '/s', body: { id: 9007199254740993n } }), '{"id":9007199254740993}');
    assert.equal(requestBody({ method: 'GET', path: '/s' }), undefined);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const error = thrown(() => requestBody({ method: 'POST', path: '/s', body: circular }));
    assert.equal(error.details.kind, 'invalid_input');
    assert.deepEqual(error.details.issues, [{ parameter: 'body', problem: 'cannot be serialised as JSON' }]);
  });
});

describe('after an attempt that got no answer', () => {
  it('sends again one that never reached the platform while retries are left, even a create', () => {
    const { failures } = describer();
    const ctx = contextFor(CREATE);
    assert.equal(reasonToResendAfterFailure(failures, refused, ctx, 1, true), 'ECONNREFUSED');
    assert.equal(ctx.ambiguous, undefined, 'nothing may have happened');
  });

  it('reports one that never reached the platform when no retry is left, as not carried out', () => {
    const { failures, seen } = describer();
    const error = thrown(() => reasonToResendAfterFailure(failures, refused, contextFor(CREATE), 3, false));
    assert.equal(error.details.kind, 'network_error');
    assert.match(error.message, /Nothing reached Shapes, so nothing was changed\./);
    assert.equal(seen[0]?.attempts, 3);
    assert.equal(seen[0]?.mayHaveHappened, false);
  });

  it('sends again an update that may have reached the platform, and remembers why', () => {
    const { failures } = describer();
    const ctx = contextFor(UPDATE);
    assert.equal(reasonToResendAfterFailure(failures, timedOut, ctx, 1, true), 'timeout');
    assert.equal(ctx.ambiguous, 'no answer within 300 ms');
  });

  it('never sends a create again once it may have reached the platform, and says it may have happened', () => {
    const { failures, seen } = describer();
    const ctx = contextFor(CREATE);
    const error = thrown(() => reasonToResendAfterFailure(failures, reset, ctx, 1, true));
    assert.equal(error.details.kind, 'network_error');
    assert.match(error.message, /may have reached Shapes and been carried out; it was not sent again/);
    assert.equal(seen[0]?.mayHaveHappened, true);
    assert.equal(ctx.ambiguous, undefined);
  });

  it('ends a cancelled call at once, counting only attempts that were sent', () => {
    const { failures, seen } = describer();
    const queued = thrown(() => reasonToResendAfterFailure(failures, { type: 'failure', kind: 'cancelled', neverSent: true }, contextFor(UPDATE), 2, true));
    assert.equal(queued.details.kind, 'cancelled');
    assert.deepEqual([seen[0]?.attempts, seen[0]?.mayHaveHappened], [1, false]);
    const ctx = contextFor(UPDATE);
    ctx.ambiguous = 'HTTP 503';
    thrown(() => reasonToResendAfterFailure(failures, { type: 'failure', kind: 'cancelled', neverSent: true }, ctx, 2, true));
    assert.equal(seen[1]?.mayHaveHappened, true, 'an earlier attempt may have been carried out');
    thrown(() => reasonToResendAfterFailure(failures, { type: 'failure', kind: 'cancelled', neverSent: false }, contextFor(UPDATE), 2, true));
    assert.deepEqual([seen[2]?.attempts, seen[2]?.mayHaveHappened], [2, true]);
  });
});

describe('after an error status', () => {
  it('sends again a 5xx of a request that may be sent again, while retries are left', () => {
    const { failures } = describer();
    const ctx = contextFor(UPDATE);
    assert.equal(reasonToResendAfterStatus(failures, answer(503), '', ctx, 1, true), 'HTTP 503');
    assert.equal(ctx.ambiguous, 'HTTP 503');
  });

  it("reports a 5xx of a create, a 5xx without retries left and a 4xx, in the platform's words", () => {
    const { failures } = describer();
    const create = thrown(() => reasonToResendAfterStatus(failures, answer(502), '{"message":"bad gateway"}', contextFor(CREATE), 1, true));
    assert.equal(create.details.kind, 'upstream_error');
    assert.equal(create.details.platformMessage, 'bad gateway');
    assert.equal(thrown(() => reasonToResendAfterStatus(failures, answer(503), '', contextFor(UPDATE), 3, false)).details.kind, 'upstream_error');
    const missing = thrown(() => reasonToResendAfterStatus(failures, answer(404), '', contextFor(UPDATE), 1, true));
    assert.equal(missing.details.kind, 'not_found');
  });

  it('reads a 404 of a delete resent after an ambiguous failure as already deleted, with a note', () => {
    const ctx = contextFor(DELETE, ['sekrit-token']);
    assert.equal(alreadyDeletedAnswer(answer(404), ctx, 2, 'Shapes', silentLogger), undefined, 'no earlier attempt may have deleted it');
    ctx.ambiguous = 'HTTP 503';
    const gone = alreadyDeletedAnswer<Record<string, unknown>>(answer(404), ctx, 2, 'Shapes', silentLogger);
    assert.equal(gone?.status, 404);
    assert.equal(gone?.alreadyApplied, true);
    assert.equal(gone?.data.already_deleted, true);
    assert.match(gone?.note ?? '', /^An earlier attempt of this delete failed \(HTTP 503\) after it may have reached Shapes; .* most likely deleted Shape s1\./);
    assert.equal(alreadyDeletedAnswer(answer(410), ctx, 2, 'Shapes', silentLogger), undefined, 'only a 404');
    const update = contextFor(UPDATE);
    update.ambiguous = 'HTTP 503';
    assert.equal(alreadyDeletedAnswer(answer(404), update, 2, 'Shapes', silentLogger), undefined, 'only a delete');
  });
});
