/**
 * CanvasApi fitted for real agents: a tool list that fits the context (overall and per profile),
 * forgiving inputs where nothing can go wrong (objects for request_body, numbers for integer text),
 * strict checks of the values the platform enumerates (nothing is sent), and compact results
 * (no self links, the way to the next page given once). Calls go to the built-in sandbox.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import { CANVASAPI_PROFILES, EVERYDAY_TOOLS } from '../src/canvasapi/index.js';
import { contextSize } from '../src/core/tools/context-size.js';
import { silentLogger } from '../src/core/logger.js';
import { findTool, listTools, type AnyToolServer } from '../src/core/tools/registry.js';
import { RESULT_BUDGET_BYTES } from '../src/core/tools/result-budget.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { SERVERS } from '../src/servers.js';
import { callTool, canvasApiServerFor, jsonResponse, scriptedFetch, startTestSandbox } from './support/harness.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type Issue = { parameter: string; problem: string };

const P = 'CanvasApi.';
const ENTERPRISE = new Set(canvasApiCatalogue.filter((e) => e.plan.startsWith('enterprise')).map((e) => e.name));

function canvasServer(): AnyToolServer {
  return canvasApiServerFor(undefined, { baseUrl: 'https://canvas.example.test' });
}

function schemaOf(server: AnyToolServer, short: string): J {
  const tool = listTools(server).find((t) => t.name === `${P}${short}`);
  assert.ok(tool, short);
  return tool.inputSchema;
}

describe('CanvasApi context budget', () => {
  const server = canvasServer();

  it('the whole list stays within 500 model-visible and 600 listed bytes per tool', async () => {
    const size = await contextSize(listTools(server));
    assert.equal(size.tools, 139);
    assert.ok(size.modelVisibleBytes <= 139 * 500, `model-visible ${size.modelVisibleBytes} B (${Math.round(size.modelVisibleBytes / 139)} per tool)`);
    assert.ok(size.listBytes <= 139 * 600, `tools/list ${size.listBytes} B (${Math.round(size.listBytes / 139)} per tool)`);
  });

  it('everyday: about 20 tools for board work, task tools included, within 3,500 tokens', async () => {
    const listing = listTools(server, { selections: [{ profile: 'everyday' }] });
    assert.deepEqual(listing.map((t) => t.name).sort(), [...EVERYDAY_TOOLS].sort());
    assert.ok(listing.length >= 12 && listing.length <= 20, `${listing.length} tools`);
    for (const name of ['RetrieveUserBoards', 'RetrieveBoardItems', 'AddStickyNoteToBoard', 'UpdateStickyNote', 'AddBoardFrame', 'AddConnectorToBoard', 'AttachTagToItem']) {
      assert.ok(listing.some((t) => t.name === `${P}${name}`), name);
    }
    assert.ok(listing.every((t) => !ENTERPRISE.has(t.name)), 'no enterprise tool');
    const size = await contextSize(listing);
    assert.ok(size.listTokens <= 3500, `${size.listTokens} tokens`);
  });

  it('no-enterprise: every tool but enterprise administration, within 128 tools even beside IncidentOps', () => {
    const listing = listTools(server, { selections: [{ profile: 'no-enterprise' }] });
    assert.equal(listing.length, 139 - ENTERPRISE.size);
    assert.ok(listing.length <= 128, `${listing.length} tools`);
    assert.ok(listing.every((t) => !ENTERPRISE.has(t.name)));
    assert.ok(listing.some((t) => t.name === `${P}GetAccessTokenInfo`) && listing.some((t) => t.name === `${P}CreateBoardSubscription`));
    const incidentOps = SERVERS.find((s) => s.id === 'incidentops');
    assert.ok(incidentOps);
    const both = listing.length + listTools(incidentOps.create({}, { logger: silentLogger })).length;
    assert.ok(both <= 128, `${both} tools with IncidentOps`);
  });

  it('each profile says what it is for', () => {
    for (const [name, profile] of Object.entries(CANVASAPI_PROFILES)) assert.ok(profile.description.length >= 40, name);
  });

  it('names the preferred tool of each near-duplicate pair', () => {
    const byName = new Map(canvasApiCatalogue.map((e) => [e.name.slice(P.length), e.description]));
    const prefers: [string, RegExp][] = [
      ['RetrieveBoardItems', /Prefer to GetBoardItems/],
      ['GetBoardItems', /prefer that/],
      ['GetBoardItemInfo', /Prefer to RetrieveBoardItemInfo/],
      ['RetrieveBoardItemInfo', /prefer that/],
      ['DeleteBoardItem', /Prefer to RemoveBoardItem/],
      ['RemoveBoardItem', /prefer that/],
      ['UngroupItemsOnCanvasBoard', /prefer to DeleteBoardGroup/],
      ['DeleteBoardGroup', /UngroupItemsOnCanvasBoard/],
      ['GetShapeInformation', /RetrieveShapeInformation/],
      ['RetrieveShapeInformation', /GetShapeInformation/],
      ['UpdateBoardShape', /UpdateFlowchartShape/],
      ['UpdateFlowchartShape', /UpdateBoardShape/],
      ['DeleteShapeFromCanvasBoard', /DeleteFlowchartShape/],
      ['DeleteFlowchartShape', /DeleteShapeFromCanvasBoard/],
      ['GetItemsByGroupId', /GetGroupItemsCanvas/],
      ['GetGroupItemsCanvas', /GetItemsByGroupId/],
    ];
    for (const [name, pattern] of prefers) assert.match(byName.get(name) ?? '', pattern, name);
  });

  it('says where organization IDs come from in every organization_id parameter', () => {
    for (const entry of canvasApiCatalogue) {
      for (const param of entry.params.filter((p) => p.to === 'path:org_id')) assert.match(param.description, /GetAccessTokenInfo/, `${entry.name}.${param.name}`);
    }
  });
});

describe('CanvasApi advertised schemas keep the contract types', () => {
  const server = canvasServer();

  it('integer text is listed as a string, request_body as a string that also takes an object', () => {
    const boards = schemaOf(server, 'RetrieveUserBoards').properties;
    assert.deepEqual([boards.maximum_number_of_boards.type, boards.results_offset.type], ['string', 'string']);
    assert.equal(boards.maximum_number_of_boards.anyOf, undefined);
    const sticky = schemaOf(server, 'AddStickyNoteToBoard').properties;
    assert.equal(sticky.request_body.type, 'string');
    assert.match(sticky.request_body.description, /object/);
    assert.equal(schemaOf(server, 'AddItemsToCanvasBoard').properties.request_body.type, 'string');
  });

  it('enumerated filters are listed with their values', () => {
    assert.ok(schemaOf(server, 'RetrieveBoardItems').properties.item_type_filter.enum.includes('sticky_note'));
    assert.deepEqual(schemaOf(server, 'GetBoardItems').properties.item_type.enum, ['shape']);
    const members = schemaOf(server, 'GetOrganizationMembers').properties;
    assert.ok(members.license_type.enum.includes('occasional'));
    assert.ok(members.member_role_filter.enum.includes('organization_internal_admin'));
    assert.equal(members.license_type.type, 'string');
  });
});

describe('CanvasApi against the sandbox: forgiving inputs, strict enums, compact results', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  let board = '';

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    board = sandbox.canvasapi.demo?.boardIds[0] ?? '';
    assert.ok(board);
  });
  after(async () => {
    await sandbox?.close();
  });

  const canvasRequests = () => sandbox.requests.filter((r) => r.platform === 'canvasapi');

  async function ok(short: string, args: J): Promise<J> {
    const result = await callTool(server, `${P}${short}`, args);
    assert.equal(result.isError, false, `${short}: ${JSON.stringify(result.data)}`);
    return result.data;
  }

  /** The call is refused locally: invalid_input naming `parameter`, and nothing reaches the platform. */
  async function refused(short: string, args: J, parameter: string, problem: RegExp): Promise<Issue> {
    const before = canvasRequests().length;
    const result = await callTool(server, `${P}${short}`, args);
    assert.equal(result.data.kind, 'invalid_input', JSON.stringify(result.data));
    const issue = (result.data.issues as Issue[]).find((i) => i.parameter === parameter);
    assert.ok(issue, `${parameter} named in ${JSON.stringify(result.data.issues)}`);
    assert.match(issue.problem, problem);
    assert.equal(canvasRequests().length, before, `${short}: nothing was sent`);
    return issue;
  }

  it('request_body as a JSON object (or array) works end to end', async () => {
    const body = { data: { content: 'Object body', shape: 'square' }, position: { x: 100, y: 100 } };
    const created = await ok('AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: body });
    const sent = canvasRequests().at(-1);
    assert.equal(sent?.method, 'POST');
    assert.deepEqual(sent?.body, body);
    const read = await ok('GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: String(created.id) });
    assert.equal(read.data.content, 'Object body');

    await ok('UpdateStickyNote', { mode: 'execute', board_id_for_update: board, sticky_note_id: String(created.id), request_body: { data: { content: 'Edited' } } });
    assert.equal((await ok('GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: String(created.id) })).data.content, 'Edited');

    const bulk = await ok('AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: board, request_body: [{ type: 'text', data: { content: 'a' } }, { type: 'sticky_note', data: { content: 'b' } }] });
    assert.equal((bulk.data as J[]).length, 2);

    // The string form still works, and the body schema is checked the same way for objects.
    await ok('AddTextToCanvasBoard', { mode: 'execute', board_identifier: board, request_body: JSON.stringify({ data: { content: 'String body' } }) });
    await refused('AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: { data: { shape: 'hexagon' } } }, 'request_body.data.shape', /square/);
    await refused('AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: 42 }, 'request_body', /JSON string/);
  });

  it('page sizes and offsets typed as text accept numbers, with the same range checks', async () => {
    const first = await ok('RetrieveUserBoards', { maximum_number_of_boards: 2, results_offset: 0, sort_boards_by: 'last_created' });
    assert.equal((first.data as J[]).length, 2);
    assert.deepEqual(canvasRequests().at(-1)?.query.filter(([k]) => k === 'limit' || k === 'offset'), [['limit', '2'], ['offset', '0']]);
    assert.deepEqual(first.next_page, { results_offset: '2' }, 'next_page keeps the contract type');
    const second = await ok('RetrieveUserBoards', { maximum_number_of_boards: 2, sort_boards_by: 'last_created', ...first.next_page });
    assert.notDeepEqual(second.data, first.data);

    await ok('RetrieveBoardItems', { board_identifier: board, items_limit: 10 });
    await ok('GetBoardTags', { board_id: board, maximum_number_of_tags: 5, result_offset: 1 });
    await refused('RetrieveBoardItems', { board_identifier: board, items_limit: 5 }, 'items_limit', /from 10 to 50/);
    await refused('RetrieveBoardItems', { board_identifier: board, items_limit: 51 }, 'items_limit', /from 10 to 50/);
    await refused('RetrieveBoardItems', { board_identifier: board, items_limit: 12.5 }, 'items_limit', /whole number/);
    await refused('RetrieveBoardItems', { board_identifier: board, items_limit: true }, 'items_limit', /whole number/);
    await refused('RetrieveUserBoards', { results_offset: -1 }, 'results_offset', /whole number/);
    await refused('GetCanvasBoardMembers', { board_id: board, number_of_members_to_retrieve: 0 }, 'number_of_members_to_retrieve', /from 1 to 50/);
  });

  it('an enumerated value outside the list is refused with the allowed values, naming the parameter', async () => {
    const type = await refused('RetrieveBoardItems', { board_identifier: board, item_type_filter: 'cards' }, 'item_type_filter', /"sticky_note"/);
    assert.match(type.problem, /"cards"/);
    await refused('GetBoardItems', { board_identifier: board, item_type: 'sticky_note' }, 'item_type', /"shape"/);
    await refused('GetItemsWithinFrame', { board_id: board, frame_id: '1', item_type_filter: 'frames' }, 'item_type_filter', /"frame"/);
    const org = sandbox.canvasapi.demo?.organizationId ?? '';
    await refused('GetOrganizationMembers', { organization_id: org, license_type: 'premium' }, 'license_type', /"full".*"occasional"/);
    await refused('GetOrganizationMembers', { organization_id: org, member_role_filter: 'admin' }, 'member_role_filter', /"organization_internal_admin"/);
    await refused('GetEnterpriseTeamMembers', { organization_id: org, team_identifier: '1', filter_by_role: 'owner' }, 'filter_by_role', /"team_guest"/);
    await refused('ShareCanvasBoard', { board_unique_identifier: board, invitee_email_addresses: ['a@example.com'], board_member_role: 'admin' }, 'board_member_role', /"coowner"/);
    await refused('CreateBoardSubscription', { board_id: board, webhook_callback_url: 'https://hooks.example.com/x', webhook_status: 'on' }, 'webhook_status', /"lost_access"/);
    await refused('UpdateProjectMemberRole', { organization_id: org, team_id: '1', project_id: '1', member_id: '1', project_member_role: 'admin' }, 'project_member_role', /"commentator"/);

    // Valid values pass and filter.
    const frames = await ok('RetrieveBoardItems', { board_identifier: board, item_type_filter: 'frame' });
    assert.ok((frames.data as J[]).length > 0 && (frames.data as J[]).every((i) => i.type === 'frame'));
    const full = await ok('GetOrganizationMembers', { organization_id: org, license_type: 'full', member_role_filter: 'organization_internal_user' });
    assert.ok((full.data as J[]).every((m) => m.license === 'full' && m.role === 'organization_internal_user'));
    // A blank type filter means all types where the contract says so, and sends no filter.
    const frame = String((frames.data as J[])[0].id);
    await ok('GetItemsWithinFrame', { board_id: board, frame_id: frame, item_type_filter: '' });
    assert.ok(!canvasRequests().at(-1)?.query.some(([k]) => k === 'type'), 'no type filter sent');
  });

  it('results carry no self links, and the cursor once, as next_page in the tool\'s own terms', async () => {
    const page = await ok('RetrieveBoardItems', { board_identifier: board, items_limit: '10' });
    const text = JSON.stringify(page);
    assert.doesNotMatch(text, /"self"/);
    assert.equal(page.cursor, undefined, 'no separate cursor');
    assert.equal(page.links, undefined, 'no page links');
    assert.ok(typeof page.next_page?.pagination_cursor === 'string' && page.next_page.pagination_cursor.length > 0, JSON.stringify(page.next_page));
    assert.equal(text.split(page.next_page.pagination_cursor).length - 1, 1, 'the cursor appears once');
    const next = await ok('RetrieveBoardItems', { board_identifier: board, items_limit: '10', ...page.next_page });
    assert.notDeepEqual(next.data, page.data);

    const boards = await ok('RetrieveUserBoards', { maximum_number_of_boards: '1' });
    assert.equal(boards.links, undefined, 'offset lists lose first/last/next/prev links');
    assert.deepEqual(boards.next_page, { results_offset: '1' });
    assert.ok(typeof boards.total === 'number', 'totals stay');

    const one = await ok('RetrieveBoardInfo', { board_unique_identifier: board });
    assert.doesNotMatch(JSON.stringify(one), /"self"/);
    assert.ok(one.links?.related, 'other links stay');
    const sticky = (await ok('RetrieveBoardItems', { board_identifier: board, item_type_filter: 'sticky_note' })).data[0];
    assert.ok(sticky && sticky.links?.self === undefined);

    const org = sandbox.canvasapi.demo?.organizationId ?? '';
    const members = await ok('GetOrganizationMembers', { organization_id: org, result_limit: 3 });
    assert.equal(members.cursor, undefined);
    assert.ok(members.next_page?.pagination_cursor);
  });
});

describe('CanvasApi list tools say how to get what the result budget cut', () => {
  it('every paged tool has a truncation hint naming its own page-size parameter', () => {
    const server = canvasServer();
    for (const entry of canvasApiCatalogue.filter((e) => e.pagination)) {
      const hint = findTool(server, entry.name)?.truncationHint ?? '';
      const limit = entry.params.find((p) => p.to === 'query:limit');
      assert.ok(limit, `${entry.name} has a page size`);
      assert.match(hint, new RegExp(limit.name), entry.name);
      if (entry.pagination === 'offset') assert.match(hint, new RegExp(entry.params.find((p) => p.to === 'query:offset')?.name ?? 'offset'), entry.name);
    }
  });

  it('a page too big for the budget is cut with that hint', async () => {
    const huge = Array.from({ length: 50 }, (_, i) => ({ id: String(i), type: 'text', data: { content: 'x'.repeat(2_000) } }));
    const scripted = scriptedFetch(() => jsonResponse(200, { data: huge, cursor: 'c2', limit: 50, size: 50, total: 500 }));
    const server = canvasApiServerFor({ baseUrl: 'https://canvas.example.test', token: 't' }, { fetch: scripted.fetch });
    const result = await callTool(server, `${P}RetrieveBoardItems`, { board_identifier: 'b1', items_limit: 50 });
    assert.equal(result.isError, false);
    assert.ok(Buffer.byteLength(JSON.stringify(result.data)) <= RESULT_BUDGET_BYTES);
    const note = result.data.result_truncated as J;
    assert.ok(note && note.omitted > 0, JSON.stringify(note));
    assert.match(note.next_step, /items_limit/);
    assert.deepEqual(result.data.next_page, { pagination_cursor: 'c2' });
  });
});
