/**
 * The per-call budget and the shared pager (core/call-budget.ts, core/tools/pager.ts): the
 * platform client refuses a call's requests past its budget, sending nothing; every call gets a
 * budget (the tool's own, sized from its arguments, else the default) on its signal; walks stop
 * at the budget, at a page cap, and when paging goes wrong (a cursor or offset again, the same
 * page again, more records than the total, an empty page), and say where to go on. IncidentOps'
 * walks go through it: a platform that ignores the offset costs a couple of requests, not 100.
 * Work is counted in requests, never timed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { attachBudget, CallBudget, DEFAULT_BUDGET } from '../src/core/call-budget.js';
import { ToolError } from '../src/core/errors.js';
import { silentLogger } from '../src/core/logger.js';
import { UpstreamClient } from '../src/core/platform/upstream.js';
import { walkNote, walkPages, type Page, type PagePosition } from '../src/core/tools/pager.js';
import { executeTool, type AnyToolServer } from '../src/core/tools/registry.js';
import type { AnyToolDefinition, ToolContext } from '../src/core/tools/tool.js';
import { READ_ONLY_HINTS } from '../src/core/tools/tool.js';
import { callTool, incidentOpsServerFor, jsonResponse, outcomeOf, scriptedFetch } from './support/harness.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function budgetSignal(limits: ConstructorParameters<typeof CallBudget>[0]): { signal: AbortSignal; budget: CallBudget } {
  const budget = new CallBudget(limits);
  const signal = new AbortController().signal;
  attachBudget(signal, budget);
  return { signal, budget };
}

describe('the platform client spends the call budget', () => {
  it('refuses the request past the budget with budget_exceeded, sending nothing', async () => {
    const { fetch, calls } = scriptedFetch(() => jsonResponse(200, { ok: true }));
    const client = new UpstreamClient({ baseUrl: 'https://api.example.test', platformName: 'Example', authorization: () => 'Bearer t0k3n-abcdefgh', fetch, logger: silentLogger });
    const { signal, budget } = budgetSignal({ requests: 2 });
    await client.request({ method: 'GET', path: '/a', signal });
    await client.request({ method: 'GET', path: '/b', signal });
    await assert.rejects(client.request({ method: 'GET', path: '/c', signal }), (error: unknown) => {
      assert.ok(error instanceof ToolError);
      assert.equal(error.details.kind, 'budget_exceeded');
      assert.match(error.message, /budget of 2 platform requests; the request was not sent/);
      return true;
    });
    assert.equal(calls.length, 2);
    assert.equal(budget.requestsSent, 2);
    // Without a budget on the signal nothing is counted.
    await client.request({ method: 'GET', path: '/d' });
    assert.equal(calls.length, 3);
  });

  it('every call gets a budget on its signal: the tool\'s own, sized from its arguments, else the default', async () => {
    const seen: CallBudget['limits'][] = [];
    const { fetch, calls } = scriptedFetch(() => jsonResponse(200, {}));
    const client = new UpstreamClient({ baseUrl: 'https://api.example.test', platformName: 'Example', authorization: () => 'Bearer t0k3n-abcdefgh', fetch, logger: silentLogger });
    const handler = async (args: { pages: number }, context: ToolContext<unknown>) => {
      seen.push(context.budget.limits);
      for (let i = 0; i < args.pages; i++) await client.request({ method: 'GET', path: `/p${i}`, signal: context.signal });
      return { sent: context.budget.requestsSent };
    };
    const tool = (budget?: AnyToolDefinition['budget']): AnyToolDefinition => ({
      name: 'Test.Walk',
      title: 'Walk',
      description: 'Walks.',
      toolset: 'test',
      input: z.strictObject({ pages: z.number().int() }),
      output: z.looseObject({}),
      hints: READ_ONLY_HINTS,
      ...(budget ? { budget } : {}),
      handler: handler as AnyToolDefinition['handler'],
    });
    const server: AnyToolServer = { id: 'test', name: 'Test', version: '0', instructions: '', tools: [], deps: {}, logger: silentLogger };
    const sized = tool((args) => ({ requests: (args.pages as number) - 1 }));
    const cut = outcomeOf(await executeTool(server, sized, { pages: 4 }, new AbortController().signal));
    assert.equal(cut.isError, true);
    assert.equal(cut.data.kind, 'budget_exceeded');
    assert.equal(calls.length, 3, 'the fourth request was not sent');
    const fine = outcomeOf(await executeTool(server, tool(), { pages: 4 }, new AbortController().signal));
    assert.deepEqual(fine.data.sent, 4);
    assert.deepEqual(seen.map((limits) => limits.requests), [3, DEFAULT_BUDGET.requests]);
  });
});

/** A list of `count` records, `size` a page, by cursor: `c<n>` starts at record n. */
function cursorList(count: number, size = 10) {
  const pages: (string | undefined)[] = [];
  const fetchPage = async (at: PagePosition | undefined): Promise<Page<{ id: string }>> => {
    pages.push(at?.cursor);
    const start = at?.cursor ? Number(at.cursor.slice(1)) : 0;
    const records = Array.from({ length: Math.max(0, Math.min(size, count - start)) }, (_, i) => ({ id: `r${start + i}` }));
    return { records, total: count, ...(start + size < count ? { next: { cursor: `c${start + size}` } } : {}) };
  };
  return { fetchPage, pages };
}

describe('walkPages', () => {
  const signal = () => budgetSignal({}).signal;

  it('reads to the end, or stops when the walker has enough, with where to go on', async () => {
    const list = cursorList(35);
    const all = await walkPages({ signal: signal(), fetchPage: list.fetchPage });
    assert.deepEqual(all, { stop: 'end', complete: true, pages: 4, records: 35, total: 35 });
    const few = await walkPages({ signal: signal(), fetchPage: cursorList(35).fetchPage, onPage: (_page, at) => at?.cursor === 'c10' });
    assert.deepEqual(few, { stop: 'enough', complete: false, pages: 2, records: 20, total: 35, next: { cursor: 'c20' } });
  });

  it('stops at its page cap and at the call budget, each with a continuation and a note', async () => {
    const capped = await walkPages({ signal: signal(), maxPages: 2, fetchPage: cursorList(100).fetchPage });
    assert.deepEqual(capped, { stop: 'pages', complete: false, pages: 2, records: 20, total: 100, next: { cursor: 'c20' } });
    assert.equal(walkNote(capped, 'items'), '20 items of 100 read (2 pages, as many as this call reads)');
    const { signal: small, budget } = budgetSignal({ requests: 3 });
    let sent = 0;
    const spent = await walkPages({
      signal: small,
      fetchPage: async (at) => {
        // As the platform client does: each page spends one request of the call.
        budget.spendRequest();
        sent++;
        return cursorList(100).fetchPage(at);
      },
    });
    assert.equal(sent, 3);
    assert.equal(spent.stop, 'requests');
    assert.deepEqual(spent.next, { cursor: 'c30' });
    assert.equal(walkNote(spent, 'items', small), "30 items of 100 read: this call reached its budget of 3 platform requests");
  });

  it('stops when the time is up, abandoning the page in flight', async () => {
    const { signal: soon } = budgetSignal({ wallMs: 200 });
    let aborted = false;
    const walk = await walkPages({
      signal: soon,
      fetchPage: (at, pageSignal) => {
        if (!at) return Promise.resolve({ records: [{ id: 'a' }], next: { cursor: 'x' } });
        // Answers only when abandoned.
        return new Promise<Page<{ id: string }>>((_resolve, reject) =>
          pageSignal.addEventListener('abort', () => {
            aborted = true;
            reject(new ToolError({ kind: 'cancelled', message: 'cancelled' }));
          }),
        );
      },
    });
    assert.equal(walk.stop, 'time');
    assert.equal(aborted, true);
    assert.deepEqual(walk.next, { cursor: 'x' });
  });

  it('ends paging that goes wrong: a cursor again, an offset that does not advance, the same page again, more than the total, an empty page', async () => {
    const page = (ids: string[], next?: PagePosition, total?: number): Page<{ id: string }> => ({ records: ids.map((id) => ({ id })), ...(next ? { next } : {}), ...(total !== undefined ? { total } : {}) });
    const cases: [string, (at: PagePosition | undefined, n: number) => Page<{ id: string }>, string][] = [
      ['the same cursor', (_at, n) => page([`a${n}`], { cursor: 'same' }), 'repeated'],
      ['cursors that cycle', (_at, n) => page([`b${n}`], { cursor: `c${n % 3}` }), 'repeated'],
      ['an offset that does not advance', (_at, n) => page([`d${n}`], { offset: 5 }), 'repeated'],
      ['the same records under new cursors', (_at, n) => page(['e1', 'e2'], { cursor: `n${n}` }), 'repeated'],
      ['more records than the total', (_at, n) => page([`f${n}a`, `f${n}b`], { cursor: `n${n}` }, 3), 'overrun'],
      ['an empty page that claims more', (_at, n) => page([], { cursor: `n${n}` }, 1_000), 'end'],
    ];
    for (const [name, answer, stop] of cases) {
      let n = 0;
      const walk = await walkPages({ signal: signal(), fetchPage: async (at) => answer(at, n++), idOf: (r) => r.id });
      assert.equal(walk.stop, stop, name);
      assert.ok(n <= 5, `${name}: ${n} pages`);
      if (stop !== 'end') assert.equal(walk.next, undefined, `${name}: no continuation into broken paging`);
    }
  });
});

describe('IncidentOps walks go through the pager', () => {
  const BASE = 'https://incidents.example.test';

  it('a platform that ignores the offset (the same page, more: true, forever) costs two requests, and the answer says so', async () => {
    const shift = (n: number) => ({ escalation_policy: { id: 'PEP1', type: 'escalation_policy_reference', summary: 'Payments' }, escalation_level: 1, user: { id: `PU${n}`, type: 'user_reference', summary: `User ${n}` }, schedule: { id: 'PS1', type: 'schedule_reference', summary: 'Primary' }, start: '2026-05-06T00:00:00Z', end: '2026-05-07T00:00:00Z' });
    const { fetch, calls } = scriptedFetch((url) => {
      if (url.pathname === '/oncalls') return jsonResponse(200, { oncalls: [shift(1), shift(2)], limit: 100, offset: Number(url.searchParams.get('offset') ?? 0), more: true });
      return jsonResponse(404, { error: { message: 'not found' } });
    });
    const server = incidentOpsServerFor(undefined, { baseUrl: BASE, accessToken: 'incident-token-0123456789', fetch, now: () => new Date('2026-05-06T12:00:00Z') });
    const result = await callTool(server, 'IncidentOps.WhoIsOnCall', { escalation_policy_id: 'PEP1' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(calls.length, 2, `${calls.length} requests`);
    assert.match(String((result.data as J).note), /the platform sent a page or cursor it had sent before/);
  });

  it("GetIncidentContext's timeline says why it stopped when the log repeats itself", async () => {
    const { fetch, calls } = scriptedFetch((url) => {
      if (url.pathname === '/incidents/PINC1') return jsonResponse(200, { incident: { id: 'PINC1', type: 'incident', title: 'Checkout down', status: 'triggered' } });
      if (url.pathname.endsWith('/log_entries')) {
        const entries = Array.from({ length: 100 }, (_, i) => ({ id: `L${i}`, type: 'annotate_log_entry', created_at: '2026-05-06T10:00:00Z', summary: 'note' }));
        return jsonResponse(200, { log_entries: entries, limit: 100, offset: Number(url.searchParams.get('offset') ?? 0), more: true });
      }
      return jsonResponse(200, { alerts: [], notes: [], change_events: [], related_incidents: [], limit: 5, offset: 0, more: false, total: 0 });
    });
    const server = incidentOpsServerFor(undefined, { baseUrl: BASE, accessToken: 'incident-token-0123456789', fetch });
    const result = await callTool(server, 'IncidentOps.GetIncidentContext', { incident_id: 'PINC1' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const logPages = calls.filter((call) => call.url.pathname.endsWith('/log_entries')).length;
    assert.equal(logPages, 2);
    assert.match((result.data as J).timeline.at(-1), /key events after the first 200 are not shown \(200 log entries read: the platform sent a page or cursor it had sent before, so reading stopped there\)/);
  });
});
