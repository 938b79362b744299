/**
 * GetIncidentContext and ReadBoard against a platform that drips some answers (a byte every
 * 100 ms, never ending): at the call's deadline they answer with the parts that arrived and name
 * what is missing and why, instead of running attempt after attempt and failing. The calls get a
 * 2 s time budget; work is counted (requests to the dripping endpoints: one each, no retry), and
 * the only time bound is many times the budget.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { executeTool, type AnyToolServer } from '../src/core/tools/registry.js';
import type { AnyToolDefinition } from '../src/core/tools/tool.js';
import { startFakeBoard, type FakeBoard } from './support/fake-board.js';
import { canvasApiServerFor, incidentOpsServerFor, jsonResponse, outcomeOf, scriptedFetch, type ToolOutcome } from './support/harness.js';

type Json = Record<string, unknown>;

const WALL_MS = 2000;

/** An answer whose body sends one byte every 100 ms and never ends (until cancelled). */
function drippingResponse(): Response {
  let timer: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"data":['));
      timer = setInterval(() => controller.enqueue(new TextEncoder().encode(' ')), 100);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

/** Runs `name` with the time budget cut to WALL_MS (its other limits as the tool sets them). */
async function callWithin(server: AnyToolServer, name: string, args: Json): Promise<ToolOutcome & { ms: number }> {
  const tool = server.tools.find((t) => t.name === name) as AnyToolDefinition;
  const short: AnyToolDefinition = { ...tool, budget: (input) => ({ ...tool.budget?.(input), wallMs: WALL_MS }) };
  const started = performance.now();
  const outcome = outcomeOf(await executeTool(server, short, args, new AbortController().signal));
  return { ...outcome, ms: performance.now() - started };
}

describe('GetIncidentContext at the deadline', () => {
  const incident = { id: 'PI9', incident_number: 9, title: 'Checkout latency high', status: 'triggered', created_at: '2026-05-06T11:00:00Z', service: { id: 'PS1', summary: 'Checkout' }, escalation_policy: { id: 'PEP1', summary: 'Ops' }, alert_counts: { all: 3, triggered: 1 } };
  /** The platform, with the paths matching `drip` dripping. */
  function platform(drip: RegExp) {
    const scripted = scriptedFetch((url) => {
      const path = url.pathname;
      if (drip.test(path)) return drippingResponse();
      if (path === '/incidents/PI9' || path === '/incidents/9') return jsonResponse(200, { incident });
      if (path === '/incidents/PI9/alerts') return jsonResponse(200, { alerts: [{ id: 'A1', summary: 'p99 over 2 s', status: 'triggered' }], limit: 5, offset: 0, more: false, total: 3 });
      if (path === '/incidents/PI9/notes') return jsonResponse(200, { notes: [{ id: 'N1', content: 'Rolled back the deploy', created_at: '2026-05-06T11:30:00Z', user: { id: 'PU1', summary: 'Ana' } }] });
      if (path === '/incidents/PI9/log_entries') return jsonResponse(200, { log_entries: [{ id: 'L1', type: 'trigger_log_entry', created_at: '2026-05-06T11:00:00Z', summary: 'Triggered through the API' }], limit: 100, offset: 0, more: false });
      if (path === '/oncalls') return jsonResponse(200, { oncalls: [], limit: 100, offset: 0, more: false });
      if (path === '/incidents/PI9/related_change_events') return jsonResponse(200, { change_events: [] });
      if (path === '/incidents/PI9/related_incidents') return jsonResponse(200, { related_incidents: [] });
      return jsonResponse(404, { error: { code: 2100, message: 'Not Found' } });
    });
    const server = incidentOpsServerFor(undefined, { baseUrl: 'https://incidents.example.test', accessToken: 'incident-token-0123456789', fetch: scripted.fetch, now: () => new Date('2026-05-06T12:00:00Z') });
    const sentTo = (pattern: RegExp) => scripted.calls.filter((call) => pattern.test(call.url.pathname)).length;
    return { server, sentTo };
  }

  it('answers with the parts that arrived, naming the missing ones and why', async () => {
    const { server, sentTo } = platform(/\/(notes|log_entries)$/);
    const result = await callWithin(server, 'IncidentOps.GetIncidentContext', { incident_id: 'PI9' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal((result.data.incident as Json).title, 'Checkout latency high');
    assert.equal((result.data.alerts as Json).count, 3);
    assert.deepEqual(result.data.notes, []);
    const partial = result.data.partial as string[];
    assert.ok(partial.some((line) => /^notes: not read, the platform did not answer within this call's time budget of 2 s$/.test(line)), JSON.stringify(partial));
    // The timeline is a walk: it says it stopped at the budget.
    assert.ok(partial.some((line) => /^timeline: 0 log entries read: this call reached its budget of 2 s$/.test(line)), JSON.stringify(partial));
    assert.ok(!partial.some((line) => /^(alerts|incident|changes|other_open)/.test(line)), 'what arrived is not said missing');
    assert.equal(sentTo(/\/notes$/), 1, 'the dripping read was not sent again');
    assert.equal(sentTo(/\/log_entries$/), 1);
    assert.ok(result.ms < 20_000);
  });

  it('without the incident itself, answers with the parts read by its ID', async () => {
    const { server, sentTo } = platform(/^\/incidents\/PI9$/);
    const result = await callWithin(server, 'IncidentOps.GetIncidentContext', { incident_id: 'PI9' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.deepEqual(result.data.incident, { id: 'PI9' });
    assert.equal((result.data.notes as string[]).length, 1);
    const partial = (result.data.partial as string[]).join('\n');
    assert.match(partial, /^incident: not read, the platform did not answer within this call's time budget of 2 s$/m);
    assert.match(partial, /^on_call_now, changes, other_open, depends_on, depended_on_by: not read, they need the incident/m);
    assert.equal(sentTo(/^\/incidents\/PI9$/), 1);
  });

  it('with nothing in time, fails saying the time ran out', async () => {
    const { server, sentTo } = platform(/^\/incidents\/9$/);
    const result = await callWithin(server, 'IncidentOps.GetIncidentContext', { incident_id: '9' });
    assert.equal(result.isError, true);
    assert.equal(result.data.kind, 'budget_exceeded');
    assert.match(String(result.data.message), /did not answer with incident "9" within this call's time budget/);
    assert.equal(sentTo(/^\/incidents\/9$/), 1);
  });
});

describe('ReadBoard at the deadline', () => {
  let board: FakeBoard;
  before(async () => {
    board = await startFakeBoard({ items: 500, connectors: 10, tags: 3, itemsPerTag: 5 });
  });
  after(async () => {
    await board.close();
  });

  /** The fake board, with the requests `drip` matches dripping (counted, never forwarded). */
  function server(drip: (url: URL) => boolean) {
    const dripped: string[] = [];
    const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (drip(url)) {
        dripped.push(url.pathname + url.search);
        return drippingResponse();
      }
      return fetch(input, init);
    }) as typeof fetch;
    return { server: canvasApiServerFor(board, { fetch: fetchImpl }), dripped };
  }

  it('answers with the items read so far, saying the board was read in part because of the time, with next_page', async () => {
    // Items after the first page drip.
    const { server: canvas, dripped } = server((url) => url.pathname.endsWith('/items') && url.searchParams.has('cursor') && !url.searchParams.has('type'));
    const result = await callWithin(canvas, 'CanvasApi.ReadBoard', { board_id: board.boardId, max_items: 200 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const items = result.data.items as string[];
    assert.ok(items.length > 0 && items.length < 200, `${items.length} items`);
    const partial = (result.data.partial as string[]).join('\n');
    assert.match(partial, /^items: \d+ items of 500 read: this call reached its budget of 2 s; next_page continues$/m);
    assert.ok(result.data.next_page);
    assert.equal(dripped.length, 1, 'the dripping page was asked for once');
    assert.ok(result.ms < 20_000);
  });

  it('answers without the board\'s name when that is what dripped, and says so', async () => {
    const { server: canvas, dripped } = server((url) => /\/boards\/[^/]+$/.test(url.pathname));
    const result = await callWithin(canvas, 'CanvasApi.ReadBoard', { board_id: board.boardId, max_items: 20 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal((result.data.items as string[]).length, 20);
    assert.match((result.data.partial as string[]).join('\n'), /^board: its name and description not read: the platform did not answer within this call's time budget of 2 s$/m);
    assert.equal(dripped.length, 1);
  });

  it("answers without the items' tags when those dripped, and says so", async () => {
    // Two items: their tags are asked for item by item (fewer than the board's 3 tags).
    const perItem = server((url) => /\/items\/[^/]+\/tags$/.test(url.pathname));
    const few = await callWithin(perItem.server, 'CanvasApi.ReadBoard', { board_id: board.boardId, max_items: 2 });
    assert.equal(few.isError, false, JSON.stringify(few.data));
    assert.equal((few.data.items as string[]).length, 2);
    assert.match((few.data.partial as string[]).join('\n'), /^tags: the tags of the listed items not read: the platform did not answer within this call's time budget of 2 s$/m);
    assert.equal(perItem.dripped.length, 2, 'each asked once');
    // Five items: through each tag's items, walks that stop at the time for reads.
    const perTag = server((url) => url.searchParams.has('tag_id'));
    const more = await callWithin(perTag.server, 'CanvasApi.ReadBoard', { board_id: board.boardId, max_items: 5 });
    assert.equal(more.isError, false, JSON.stringify(more.data));
    assert.equal((more.data.items as string[]).length, 5);
    assert.match((more.data.partial as string[]).join('\n'), /^tags: the items of 3 tags were not all read/m);
    assert.equal(perTag.dripped.length, 3, 'each tag asked once');
  });
});

describe('a create whose answer is still awaited at the deadline', () => {
  it('CreateDiagram reports those nodes as may_exist, never as not sent (a retry would make them twice)', async () => {
    // Nodes: one bulk transaction of 2; its answer drips past the call's budget. The origin is given: nothing is read first.
    const scripted = scriptedFetch((url, init) => (init.method === 'POST' && url.pathname.endsWith('/items/bulk') ? drippingResponse() : jsonResponse(404, { status: 404, code: 'notFound', message: 'Not found', type: 'error' })));
    const canvas = canvasApiServerFor({ baseUrl: 'https://canvas.example.test', token: 't' }, { fetch: scripted.fetch });
    const result = await callWithin(canvas, 'CanvasApi.CreateDiagram', { board_id: 'uXjVOabc=', nodes: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], edges: [{ from: 'a', to: 'b' }], origin_x: 0, origin_y: 0 });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as Json & { failed: Json[] };
    assert.deepEqual(data.failed.map((f) => [f.nodes, f.outcome, f.retry_safe]), [[['a', 'b'], 'may_exist', false]]);
    assert.match(String(data.failed[0]!.error), /^budget_exceeded/);
    // The edge was never sent (its ends may not exist); the nodes are not listed as not sent.
    assert.deepEqual(data.not_sent, { edges: ['edges[0]'], retry_safe: true });
    assert.match(String(data.next_step), /may_exist .* read it/);
    assert.equal(scripted.calls.filter((call) => call.url.pathname.endsWith('/items/bulk')).length, 1, 'the transaction was sent once');
    assert.ok(result.ms < 20_000);
  });
});
