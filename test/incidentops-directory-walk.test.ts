/**
 * The SearchUsers directory walk: the first pages are asked for together (before the total is
 * known), pages past the total or past an empty page are neither kept nor indexed, and the index
 * built page by page during the walk ranks exactly as one built from the finished directory. A
 * caller walking alone has every request slot; beside another caller, its fair share.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IncidentOpsDeps } from '../src/incidentops/deps.js';
import { runAsCaller } from '../src/core/caller.js';
import { ConcurrencyLimiter } from '../src/core/concurrency.js';
import { DIRECTORY_CONCURRENCY, DIRECTORY_INITIAL_CONCURRENCY, toCandidate, UserDirectory, walkedIndexes } from '../src/incidentops/user-directory.js';
import { createUserIndex, rankUsers } from '../src/incidentops/user-matching.js';
import { incidentOpsServerFor, jsonResponse, scriptedFetch } from './support/harness.js';

const BASE = 'https://incidents.example.test';
const NAMES = ['Ana Kim', 'Jörg Müller', 'Carmen Petrov', 'Noah Haddad', 'Zoë Brennan', 'Łukasz Nowak', 'Amara Brennan', 'Jana Alvarez'];
const users = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const name = `${NAMES[n % NAMES.length]} ${n}`;
    return { id: `PU${n}`, type: 'user', name, email: `user${n}@example.com`, summary: name };
  });

/** A platform with `count` users (claiming `claimed` in its total), 100 per page; `hole` pages come back empty. */
function platform(count: number, claimed = count, hole: number[] = []) {
  const scripted = scriptedFetch((url) => {
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const page = offset < count && !hole.includes(offset) ? users(offset, Math.min(100, count - offset)) : [];
    return jsonResponse(200, { users: page, limit: 100, offset, more: offset + 100 < claimed, total: url.searchParams.get('total') === 'true' ? claimed : null });
  });
  const server = incidentOpsServerFor(undefined, { baseUrl: BASE, accessToken: 'incident-token-0123456789', fetch: scripted.fetch });
  return { calls: scripted.calls, directory: new UserDirectory((server.deps as IncidentOpsDeps).api) };
}

const signal = new AbortController().signal;

describe('SearchUsers directory walk', () => {
  it('asks for the first pages together, and the index built during the walk ranks like a fresh one', async () => {
    const { calls, directory } = platform(1_050);
    const walked = await directory.get(signal);
    assert.equal(walked.users.length, 1_050);
    assert.deepEqual(walked.users.map((u) => u.id), users(0, 1_050).map((u) => u.id), 'in platform order, each once');
    const offsets = calls.map((call) => Number(call.url.searchParams.get('offset') ?? 0));
    assert.deepEqual(offsets.slice(0, DIRECTORY_INITIAL_CONCURRENCY).sort((a, b) => a - b), Array.from({ length: DIRECTORY_INITIAL_CONCURRENCY }, (_, i) => i * 100), 'the first pages leave together');
    assert.equal(calls.length, 11, 'no page twice');
    const index = walkedIndexes.get(walked);
    assert.ok(index, 'the walk left its index');
    const fresh = createUserIndex(walked.users.map(toCandidate));
    for (const query of ['Carmen Petrov 17', 'jorg muller', 'Joerg Mueller 1', 'zoe', 'user42@example.com', 'Brenan', 'Lukasz', 'Jana Alvarez 1047']) {
      const view = (matches: ReturnType<typeof rankUsers>) => matches.map((m) => [m.user.id, m.confidence, m.matched_on]);
      assert.deepEqual(view(rankUsers(query, index)), view(rankUsers(query, fresh)), query);
    }
  });

  it('alone, the walk has all its pages in flight (the request slots kept for other callers too); beside another caller, its share', async () => {
    const held: { url: URL; answer: () => void }[] = [];
    const outstanding = () => held.filter((request) => request.url.pathname.endsWith('/users')).length;
    let most = 0;
    const fetchImpl = (input: string | URL | Request) =>
      new Promise<Response>((resolve) => {
        const url = new URL(String(input));
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const entry = { url, answer: () => resolve(jsonResponse(200, url.pathname.endsWith('/users') ? { users: users(offset, 100), limit: 100, offset, more: offset + 100 < 5_000, total: 5_000 } : { teams: [], limit: 100, offset: 0, more: false })) };
        held.push(entry);
        most = Math.max(most, outstanding());
      });
    const server = incidentOpsServerFor(undefined, { baseUrl: BASE, accessToken: 'incident-token-0123456789', fetch: fetchImpl as typeof fetch });
    const { api } = server.deps as IncidentOpsDeps;
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
    const isPage = (request: { url: URL }) => request.url.pathname.endsWith('/users');
    /** Answers the oldest request held of the kind asked for, then lets the client go on. */
    const answer = async (page = true) => {
      const at = held.findIndex((request) => isPage(request) === page);
      held.splice(at, 1)[0]!.answer();
      for (let i = 0; i < 5; i++) await settle();
    };
    const walk = runAsCaller({ caller: { group: 'A', member: 'A' } }, () => new UserDirectory(api).get(signal));
    await settle();
    while (held.length > 0 && most < DIRECTORY_CONCURRENCY) await answer();
    assert.equal(most, DIRECTORY_CONCURRENCY, 'alone: every slot');
    // Another caller comes: its request takes the first freed slot; while it is out, A keeps to its share.
    const other = runAsCaller({ caller: { group: 'B', member: 'B' } }, () => api.listPage('/teams', 'teams', {}, signal));
    await settle();
    await answer();
    assert.equal(held.filter((request) => !isPage(request)).length, 1, 'B was sent on the first freed slot');
    for (let i = 0; i < 8; i++) await answer();
    assert.equal(outstanding(), new ConcurrencyLimiter(16).maxInFlightPerCaller, "beside B, A's pages in flight are its share");
    await answer(false);
    await other;
    while (held.length > 0) await answer();
    assert.equal((await walk).users.length, 5_000);
    assert.ok(most <= DIRECTORY_CONCURRENCY, `never more than all the slots (${most})`);
  });

  it('a small directory costs the early pages once, and they are not kept', async () => {
    const { calls, directory } = platform(40);
    const walked = await directory.get(signal);
    assert.equal(walked.users.length, 40);
    assert.ok(calls.length <= DIRECTORY_INITIAL_CONCURRENCY, `${calls.length} requests`);
    assert.equal(walkedIndexes.get(walked)?.size, 40);
  });

  it('pages past an empty one are neither kept nor ranked (no walked index then)', async () => {
    // 250 users, but a total of 900: pages 300 and up come back empty.
    const { directory } = platform(250, 900);
    const walked = await directory.get(signal);
    assert.equal(walked.users.length, 250);
    assert.equal(walkedIndexes.get(walked)?.size, 250);
  });

  it('a platform that ignores the offset (the first page again, whatever is asked) ends the walk: no user twice, few requests', async () => {
    const scripted = scriptedFetch((url) => jsonResponse(200, { users: users(0, 100), limit: 100, offset: Number(url.searchParams.get('offset') ?? 0), more: true, total: 5_000 }));
    const server = incidentOpsServerFor(undefined, { baseUrl: BASE, accessToken: 'incident-token-0123456789', fetch: scripted.fetch });
    const walked = await new UserDirectory((server.deps as IncidentOpsDeps).api).get(signal);
    assert.equal(walked.users.length, 100);
    assert.equal(new Set(walked.users.map((u) => u.id)).size, 100);
    assert.equal(walked.truncated, true, 'the directory says it may be incomplete');
    assert.ok(scripted.calls.length <= DIRECTORY_INITIAL_CONCURRENCY + 2, `${scripted.calls.length} requests`);
  });

  it('users of pages that came after an empty page are not ranked either', async () => {
    // Page 200 comes back empty although pages 300-500 (asked for early) hold users.
    const { directory } = platform(600, 600, [200]);
    const walked = await directory.get(signal);
    assert.equal(walked.users.length, 200, 'the walk ends at the empty page');
    assert.equal(walkedIndexes.get(walked), undefined, 'the index saw pages the directory dropped: SearchUsers builds its own');
    assert.equal(rankUsers('Carmen Petrov 302', createUserIndex(walked.users.map(toCandidate))).some((m) => m.user.id === 'PU302'), false);
  });
});
