/**
 * The generic CanvasApi handler with a scripted platform: two-mode flow, dangerous twins,
 * validation before sending, body mapping, 204 handling, retries and error mapping.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import { callTool, canvasApiServerFor, jsonResponse, scriptedFetch } from './support/harness.js';

type Json = Record<string, unknown>;
const TOKEN = 'canvas-secret-token-42';
const BASE = 'https://canvas.example.test';

function server(answer: Parameters<typeof scriptedFetch>[0] = () => jsonResponse(200, { id: '1' }), extra: { now?: () => Date; accessToken?: string } = {}) {
  const scripted = scriptedFetch(answer);
  return { ...scripted, server: canvasApiServerFor({ baseUrl: BASE, token: extra.accessToken ?? TOKEN }, { fetch: scripted.fetch, ...(extra.now ? { now: extra.now } : {}) }) };
}

function bodyOf(init: RequestInit): Json {
  return JSON.parse(String(init.body)) as Json;
}

describe('two-mode tools', () => {
  const twoMode = canvasApiCatalogue.filter((entry) => entry.requestSchema);

  it('there are 20 of them', () => {
    assert.equal(twoMode.length, 20);
  });

  for (const entry of twoMode) {
    it(`${entry.name}: get_request_schema answers locally, without credentials`, async () => {
      const scripted = scriptedFetch(() => jsonResponse(500, {}));
      const noToken = canvasApiServerFor(undefined, { baseUrl: BASE, fetch: scripted.fetch });
      const result = await callTool(noToken, entry.name, { mode: 'get_request_schema' });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      const schema = result.data.request_schema as Json;
      assert.ok(schema.type === 'object' || schema.type === 'array', 'a JSON Schema object');
      assert.match(String(result.data.how_to_execute), /mode "execute"/);
      assert.equal(scripted.calls.length, 0);
    });
  }

  it('execute requires the identifiers and request_body', async () => {
    const { server: s, calls } = server();
    const result = await callTool(s, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute' });
    assert.equal(result.data.kind, 'invalid_input');
    const names = (result.data.issues as { parameter: string }[]).map((i) => i.parameter).sort();
    assert.deepEqual(names, ['board_id', 'request_body']);
    assert.equal(calls.length, 0);
  });

  it('invalid JSON is reported with its position', async () => {
    const { server: s, calls } = server();
    const result = await callTool(s, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b1', request_body: '{"data": {"content": "hi",}}' });
    assert.equal(result.data.kind, 'invalid_input');
    const issue = (result.data.issues as { parameter: string; problem: string }[])[0]!;
    assert.equal(issue.parameter, 'request_body');
    assert.match(issue.problem, /line 1/);
    assert.match(issue.problem, /column \d+/);
    assert.equal(calls.length, 0);
  });

  it('every schema violation is listed with its JSON path, and nothing is sent', async () => {
    const { server: s, calls } = server();
    const body = { data: { content: 'hi', shape: 'hexagon' }, style: { textAlign: 'sideways' }, position: { x: 'left' } };
    const result = await callTool(s, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b1', request_body: JSON.stringify(body) });
    assert.equal(result.data.kind, 'invalid_input');
    const issues = result.data.issues as { parameter: string; problem: string }[];
    const paths = issues.map((i) => i.parameter);
    assert.ok(paths.includes('request_body.data.shape'), JSON.stringify(issues));
    assert.ok(paths.includes('request_body.style.textAlign'));
    assert.ok(paths.includes('request_body.position.x'));
    assert.match(issues.find((i) => i.parameter === 'request_body.data.shape')!.problem, /square/);
    assert.equal(calls.length, 0);
  });

  it('a valid body is sent as JSON to the right path', async () => {
    const { server: s, calls } = server(() => jsonResponse(201, { id: '3458764', type: 'sticky_note', data: { content: 'hi' }, parent: null }));
    const body = { data: { content: 'hi', shape: 'square' }, position: { x: 10, y: 20 } };
    const result = await callTool(s, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'uXjVO+ab=', request_body: JSON.stringify(body) });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.init.method, 'POST');
    assert.equal(calls[0]!.url.pathname, '/v2/boards/uXjVO%2Bab%3D/sticky_notes');
    assert.deepEqual(bodyOf(calls[0]!.init), body);
    assert.equal(new Headers(calls[0]!.init.headers).get('authorization'), `Bearer ${TOKEN}`);
    assert.equal(result.data.parent, undefined, 'nulls are pruned');
  });

  it('AddItemsToCanvasBoard validates each item by its type', async () => {
    const { server: s, calls } = server(() => jsonResponse(201, { data: [], type: 'bulk-list' }));
    const items = [
      { type: 'sticky_note', data: { content: 'a' } },
      { type: 'shape', data: { shape: 'circle', content: 'b' }, style: { fillColor: '#ff0000' } },
      { type: 'text', data: { content: 'c' } },
    ];
    const ok = await callTool(s, 'CanvasApi.AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: 'b1', request_body: JSON.stringify(items) });
    assert.equal(ok.isError, false, JSON.stringify(ok.data));
    assert.deepEqual(bodyOf(calls[0]!.init), items);

    const tooMany = Array.from({ length: 21 }, () => ({ type: 'sticky_note', data: { content: 'x' } }));
    const bad = await callTool(s, 'CanvasApi.AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: 'b1', request_body: JSON.stringify(tooMany) });
    assert.equal(bad.data.kind, 'invalid_input');
    const wrongType = await callTool(s, 'CanvasApi.AddItemsToCanvasBoard', {
      mode: 'execute',
      canvas_board_identifier: 'b1',
      request_body: JSON.stringify([{ type: 'sticky_note', data: { content: 'a' } }, { type: 'shape', data: { shape: 'blob' } }]),
    });
    assert.equal(wrongType.data.kind, 'invalid_input');
    assert.ok((wrongType.data.issues as { parameter: string }[]).some((i) => i.parameter.startsWith('request_body[1]')), JSON.stringify(wrongType.data.issues));
    assert.equal(calls.length, 1, 'only the valid batch was sent');
  });
});

describe('dangerous twins and defaults', () => {
  it('RemoveTagFromItem always sends tag_id and refuses without it', async () => {
    const { server: s, calls } = server(() => jsonResponse(204, undefined));
    const missing = await callTool(s, 'CanvasApi.RemoveTagFromItem', { board_id_for_tag_removal: 'b1', item_id: 'i1' });
    assert.equal(missing.data.kind, 'invalid_input');
    const blank = await callTool(s, 'CanvasApi.RemoveTagFromItem', { board_id_for_tag_removal: 'b1', item_id: 'i1', tag_unique_identifier: '  ' });
    assert.equal(blank.data.kind, 'invalid_input');
    assert.equal(calls.length, 0, 'no DELETE without tag_id');
    const ok = await callTool(s, 'CanvasApi.RemoveTagFromItem', { board_id_for_tag_removal: 'b1', item_id: 'i1', tag_unique_identifier: 't9' });
    assert.equal(ok.isError, false);
    assert.equal(calls[0]!.init.method, 'DELETE');
    assert.equal(calls[0]!.url.pathname, '/v2/boards/b1/items/i1');
    assert.equal(calls[0]!.url.searchParams.get('tag_id'), 't9');
  });

  it('DeleteBoardGroup requires delete_items_with_group', async () => {
    const { server: s, calls } = server(() => jsonResponse(204, undefined));
    const result = await callTool(s, 'CanvasApi.DeleteBoardGroup', { board_id: 'b1', group_id: 'g1' });
    assert.equal(result.data.kind, 'invalid_input');
    assert.ok((result.data.issues as { parameter: string }[]).some((i) => i.parameter === 'delete_items_with_group'));
    assert.equal(calls.length, 0);
  });

  it('UngroupItemsOnCanvasBoard keeps the items unless asked', async () => {
    const { server: s, calls } = server(() => jsonResponse(204, undefined));
    const result = await callTool(s, 'CanvasApi.UngroupItemsOnCanvasBoard', { canvas_board_id: 'b1', group_id: 'g1' });
    assert.equal(result.isError, false);
    assert.equal(calls[0]!.url.searchParams.get('delete_items'), 'false');
    assert.deepEqual(result.data.success, true, '204 becomes a small success object');
  });

  it('maps flat parameters onto nested body fields, applies only the contract defaults (and the only valid frame format and type) and prunes the rest', async () => {
    const { server: s, calls } = server(() => jsonResponse(201, { id: 'f1', type: 'frame' }));
    await callTool(s, 'CanvasApi.AddBoardFrame', { board_id: 'b1', frame_title: 'Plan', frame_fill_color: '#fff9b1' });
    assert.deepEqual(bodyOf(calls[0]!.init), { data: { title: 'Plan', format: 'custom', type: 'freeform' }, style: { fillColor: '#fff9b1' }, position: { x: 0, y: 0 } });
    await callTool(s, 'CanvasApi.AddBoardFrame', { board_id: 'b1' });
    assert.deepEqual(bodyOf(calls[1]!.init), { data: { format: 'custom', type: 'freeform' }, position: { x: 0, y: 0 } }, 'no geometry or style when not given; data, which the platform requires, has its only values');
  });
});

describe('validation before sending', () => {
  const cases: [string, Json, string, RegExp][] = [
    ['CanvasApi.RetrieveBoardItems', { board_identifier: 'b1', items_limit: '5' }, 'items_limit', /from 10 to 50/],
    ['CanvasApi.RetrieveBoardItems', { board_identifier: 'b1', items_limit: 'ten' }, 'items_limit', /whole number/],
    ['CanvasApi.RetrieveUserBoards', { maximum_number_of_boards: '51' }, 'maximum_number_of_boards', /from 1 to 50/],
    ['CanvasApi.GetBoardGroups', { board_id: 'b1', max_items_to_return: 9 }, 'max_items_to_return', /at least 10/],
    ['CanvasApi.FetchBoardContentChanges', { organization_id: 'o', start_date_time: '2026-01-01T00:00:00Z', end_modification_datetime: '2026-01-02T00:00:00Z', max_results_per_call: 1001 }, 'max_results_per_call', /at most 1000/],
    ['CanvasApi.ShareCanvasBoard', { board_unique_identifier: 'b1', invitee_email_addresses: ['not-an-email'] }, 'invitee_email_addresses[0]', /e-mail/],
    ['CanvasApi.ShareCanvasBoard', { board_unique_identifier: 'b1', invitee_email_addresses: Array.from({ length: 21 }, (_, i) => `u${i}@example.com`) }, 'invitee_email_addresses', /at most 20/],
    ['CanvasApi.ShareCanvasBoard', { board_unique_identifier: 'b1', invitee_email_addresses: ['a@example.com'], board_member_role: 'admin' }, 'board_member_role', /"viewer"/],
    ['CanvasApi.GetRecentAuditLogs', { start_date_time_for_audit_logs: '2026-01-01T00:00:00Z', end_date_for_audit_logs: '2026-01-02T00:00:00.000Z' }, 'start_date_time_for_audit_logs', /milliseconds/],
    ['CanvasApi.GetAppUsageMetrics', { application_id: 'a', start_date_utc: '2026-13-01', end_date: '2026-01-31' }, 'start_date_utc', /YYYY-MM-DD/],
    ['CanvasApi.GetAppUsageMetrics', { application_id: 'a', start_date_utc: '2026-02-01', end_date: '2026-01-31' }, 'end_date', /not be before/],
    ['CanvasApi.CreateBoardSubscription', { board_id: 'b1', webhook_callback_url: 'http://hooks.example.com/x' }, 'webhook_callback_url', /https/],
    ['CanvasApi.CreateBoardTag', { board_unique_id: 'b1', tag_title: 'x', tag_fill_color: 'orange' }, 'tag_fill_color', /"red"/],
    ['CanvasApi.RetrieveBoardInfo', { board_unique_identifier: '' }, 'board_unique_identifier', /must not be empty/],
    ['CanvasApi.RetrieveBoardInfo', { board_id: 'b1' }, 'board_id', /unknown parameter/],
    ['CanvasApi.CreateBoardExportJob', { organization_id: 'o1', board_export_request_id: 'job-1' }, 'board_export_request_id', /UUID/],
    ['CanvasApi.CreateBoardTag', { board_unique_id: 'b1', tag_title: 'x'.repeat(121) }, 'tag_title', /at most 120 characters/],
  ];
  for (const [tool, args, parameter, problem] of cases) {
    it(`${tool} rejects ${JSON.stringify(args).slice(0, 80)}`, async () => {
      const { server: s, calls } = server();
      const result = await callTool(s, tool, args);
      assert.equal(result.data.kind, 'invalid_input', JSON.stringify(result.data));
      const issue = (result.data.issues as { parameter: string; problem: string }[]).find((i) => i.parameter === parameter);
      assert.ok(issue, `${parameter} named in ${JSON.stringify(result.data.issues)}`);
      assert.match(issue.problem, problem);
      assert.equal(calls.length, 0);
    });
  }

  it('the audit log window reaches back 90 days only', async () => {
    const now = new Date('2026-06-30T12:00:00.000Z');
    const { server: s, calls } = server(() => jsonResponse(200, { data: [], cursor: '' }), { now: () => now });
    const old = await callTool(s, 'CanvasApi.GetRecentAuditLogs', { start_date_time_for_audit_logs: '2026-03-01T00:00:00.000Z', end_date_for_audit_logs: '2026-06-01T00:00:00.000Z' });
    assert.equal(old.data.kind, 'invalid_input');
    assert.match(JSON.stringify(old.data.issues), /90 days/);
    const ok = await callTool(s, 'CanvasApi.GetRecentAuditLogs', { start_date_time_for_audit_logs: '2026-04-15T00:00:00.000Z', end_date_for_audit_logs: '2026-06-01T00:00:00.000Z' });
    assert.equal(ok.isError, false, JSON.stringify(ok.data));
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.url.searchParams.get('limit'), '100', 'the contract default page size');
  });
});

describe('page sizes the platform insists on', () => {
  it('eDiscovery lists send 100 when the optional page size is omitted, and the given value otherwise', async () => {
    const { server: s, calls } = server(() => jsonResponse(200, { data: [], cursor: '' }));
    await callTool(s, 'CanvasApi.RetrieveEdiscoveryCases', { organization_id: 'o1' });
    await callTool(s, 'CanvasApi.RetrieveEdiscoveryCases', { organization_id: 'o1', maximum_items: 7 });
    assert.deepEqual(calls.map((c) => c.url.searchParams.get('limit')), ['100', '7']);
  });
});

describe('results and failures', () => {
  it('cursor pages name the parameter to pass next', async () => {
    const { server: s } = server(() => jsonResponse(200, { data: [{ id: '1' }], cursor: 'abc', limit: 10, size: 1, total: 30 }));
    const result = await callTool(s, 'CanvasApi.RetrieveBoardItems', { board_identifier: 'b1' });
    assert.deepEqual(result.data.next_page, { pagination_cursor: 'abc' });
  });

  it('offset pages name the next offset', async () => {
    const { server: s, calls } = server(() => jsonResponse(200, { data: [{ id: '1' }, { id: '2' }], offset: 4, limit: 2, size: 2, total: 9 }));
    const result = await callTool(s, 'CanvasApi.GetBoardTags', { board_id: 'b1', maximum_number_of_tags: '2', result_offset: '4' });
    assert.deepEqual(result.data.next_page, { result_offset: '6' });
    assert.equal(calls[0]!.url.searchParams.get('limit'), '2');
  });

  it('a POST is never retried after a 5xx (no duplicate items)', async () => {
    const { server: s, calls } = server(() => jsonResponse(502, { status: 502, code: 'badGateway', message: 'upstream', type: 'error' }));
    const result = await callTool(s, 'CanvasApi.CreateBoardTag', { board_unique_id: 'b1', tag_title: 'Urgent' });
    assert.equal(result.data.kind, 'upstream_error');
    assert.equal(calls.length, 1);
    assert.match(String(result.data.next_step), /check|before/i);
  });

  it('a GET is retried after a 5xx', async () => {
    const { server: s, calls } = server((_u, _i, attempt) => (attempt < 3 ? jsonResponse(503, {}) : jsonResponse(200, { id: 'b1', name: 'Board' })));
    const result = await callTool(s, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: 'b1' });
    assert.equal(result.isError, false);
    assert.equal(calls.length, 3);
  });

  it('a 429 is waited out per X-RateLimit-Reset (UNIX seconds), even for a POST', async () => {
    const { server: s, calls } = server((_u, _i, attempt) =>
      attempt === 1
        ? jsonResponse(429, { status: 429, code: 'tooManyRequests', message: 'slow down', type: 'error' }, { 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000)) })
        : jsonResponse(201, { id: 't1', title: 'Urgent' }),
    );
    const result = await callTool(s, 'CanvasApi.CreateBoardTag', { board_unique_id: 'b1', tag_title: 'Urgent' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    assert.equal(calls.length, 2);
  });

  it('a 429 far in the future says when to retry', async () => {
    const reset = Math.floor(Date.now() / 1000) + 120;
    const { server: s, calls } = server(() => jsonResponse(429, { status: 429, code: 'tooManyRequests', message: 'slow down', type: 'error' }, { 'x-ratelimit-reset': String(reset) }));
    const result = await callTool(s, 'CanvasApi.GetBoardTags', { board_id: 'b1' });
    assert.equal(result.data.kind, 'rate_limited');
    assert.ok(Number(result.data.retry_after_seconds) >= 118 && Number(result.data.retry_after_seconds) <= 121);
    assert.equal(calls.length, 1);
  });

  it('surfaces the platform status, code, message and context, never the token', async () => {
    const { server: s } = server(() => jsonResponse(404, { status: 404, code: 'itemNotFound', message: 'Item not found', context: { fields: [{ field: 'item_id' }] }, type: 'error' }));
    const result = await callTool(s, 'CanvasApi.GetStickyNoteInfo', { canvas_board_id: 'b1', sticky_note_id: 'n404' });
    assert.equal(result.data.kind, 'not_found');
    assert.equal(result.data.status, 404);
    assert.equal(result.data.platform_code, 'itemNotFound');
    assert.equal(result.data.platform_message, 'Item not found');
    assert.deepEqual((result.data.platform_details as Json).context, { fields: [{ field: 'item_id' }] });
    assert.match(String(result.data.message), /sticky_note_id "n404"/);
    assert.doesNotMatch(JSON.stringify(result.raw), new RegExp(TOKEN));
  });

  it('without a token every tool but the schema mode names CANVASAPI_ACCESS_TOKEN', async () => {
    const scripted = scriptedFetch(() => jsonResponse(200, {}));
    const noToken = canvasApiServerFor(undefined, { baseUrl: BASE, fetch: scripted.fetch });
    const result = await callTool(noToken, 'CanvasApi.GetAccessTokenInfo', {});
    assert.equal(result.data.kind, 'not_configured');
    assert.match(String(result.data.next_step), /CANVASAPI_ACCESS_TOKEN/);
    assert.equal(scripted.calls.length, 0);
  });
});

describe('access errors', () => {
  it('a 403 names the scope and, for enterprise tools, the plan the endpoint needs', async () => {
    const { server: s } = server(() => jsonResponse(403, { status: 403, code: 'forbidden', message: 'Forbidden', type: 'error' }));
    const enterprise = await callTool(s, 'CanvasApi.GetOrganizationInfo', { organization_id: 'o1' });
    assert.equal(enterprise.data.kind, 'forbidden');
    assert.match(String(enterprise.data.next_step), /organizations:read/);
    assert.match(String(enterprise.data.next_step), /enterprise plan/);
    const board = await callTool(s, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: 'b1' });
    assert.match(String(board.data.next_step), /boards:read/);
    assert.doesNotMatch(String(board.data.next_step), /enterprise/);
  });
});
