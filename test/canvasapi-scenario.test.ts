/**
 * Every one of the 139 CanvasApi tools, called through the official MCP client (2026-07-28 era,
 * Streamable HTTP) against the built-in sandbox, in one scenario that creates what it later reads,
 * updates and deletes. Afterwards every request the tools sent to the platform is validated
 * against the platform's OpenAPI document (method + path, query names and values, required query
 * parameters, JSON body) and must carry Bearer auth.
 *
 * The scenario needs no reference file; the contract part skips when miro-openapi.json is absent.
 * Spec adjustments (non-exclusive oneOf checked as anyOf; operations that share a method + URL
 * validated through a second document) live in support/miro-spec.ts. On top of the spec, body
 * properties no schema declares are flagged (the spec leaves additionalProperties open, so a
 * misspelt catalogue `body:` target would otherwise pass), and each request must match the
 * operationId the endpoint reference lists for its tool (when canvasapi-endpoints.tsv is present).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import type { RecordedRequest, RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { loadMiroValidators, MIRO_SPEC, TOOL_VARIANTS, variantPath } from './support/miro-spec.js';
import { loadReferenceJson, referenceFile, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const P = 'CanvasApi.';
const DAY = 86_400_000;
const TSV = 'canvasapi-endpoints.tsv';
const SERVER_KEY = 'scenario-server-key-0123456789';


describe('CanvasApi scenario: all 139 tools through an MCP client against the sandbox', () => {
  // Shared by the sandbox and the tool server: real time plus an offset, or frozen while a test
  // steps it by hand (the export job advances with it).
  let clockOffset = 0;
  let frozenAt: number | undefined;
  const now = () => new Date(frozenAt ?? Date.now() + clockOffset);
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  let client: Client;
  const called = new Set<string>();
  const schemaShown = new Set<string>();

  /** Every platform request, with the tool whose call sent it. */
  const sent: { tool: string; req: RecordedRequest }[] = [];
  const toolOf = new Map<RecordedRequest, string>();
  /** Requests sent by calls that were expected to fail. */
  const expectedToFail = new Set<RecordedRequest>();

  // Shared state, filled in order.
  let org = '';
  let team = '';
  let app = '';
  const me: { id: string; email: string } = { id: '', email: '' };
  let colleague: { id: string; email: string } = { id: '', email: '' };
  let board = '';

  before(async () => {
    sandbox = await startTestSandbox({ canvasapi: { now } });
    // The MCP endpoint may require a server key (Authorization: Bearer <key>); it never reaches the platform.
    const serveOptions = { host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: SERVER_KEY, mounts: [{ path: '/mcp', server: canvasApiServerFor(sandbox.canvasapi, { now }) }] };
    http = await serveOverHttp(serveOptions);
    client = new Client({ name: 'canvasapi-scenario', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${SERVER_KEY}` } } }));
    assert.equal(client.getProtocolEra(), 'modern');
    const demo = sandbox.canvasapi.demo;
    assert.ok(demo, 'the sandbox has demo data');
    org = demo.organizationId;
    team = demo.teamId;
    app = demo.appId;
  });
  after(async () => {
    await client?.close();
    await http?.close();
    await sandbox?.close();
  });

  // ----------------------------------------------------------------------------------------------
  // calling tools

  async function call(short: string, args: J = {}): Promise<{ isError: boolean; data: J; text: string }> {
    const name = `${P}${short}`;
    const start = sandbox.requests.length;
    const result = await client.callTool({ name, arguments: args });
    for (const req of sandbox.requests.slice(start)) {
      sent.push({ tool: short, req });
      toolOf.set(req, short);
    }
    const content = result.content as { type: string; text?: string }[];
    const text = content[0]?.text ?? '';
    if (result.isError) {
      let data: J;
      try {
        data = (JSON.parse(text) as J).error;
      } catch {
        data = { kind: 'unparseable', text };
      }
      return { isError: true, data, text };
    }
    const data = JSON.parse(text) as J;
    assert.deepEqual(result.structuredContent, data, `${name}: structuredContent equals the text content`);
    return { isError: false, data, text };
  }

  const show = (short: string, args: J, text: string) => `${P}${short} ${JSON.stringify(args)} -> ${text.slice(0, 1500)}`;

  async function ok(short: string, args: J = {}): Promise<J> {
    const r = await call(short, args);
    assert.ok(!r.isError, `expected success: ${show(short, args, r.text)}`);
    called.add(`${P}${short}`);
    return r.data;
  }

  async function fails(short: string, args: J, kind: string): Promise<J> {
    const start = sandbox.requests.length;
    const r = await call(short, args);
    for (const req of sandbox.requests.slice(start)) expectedToFail.add(req);
    assert.ok(r.isError, `expected an error of kind ${kind}: ${show(short, args, r.text)}`);
    assert.equal(r.data.kind, kind, `error kind: ${show(short, args, r.text)}`);
    return r.data;
  }

  /** A two-mode tool: the schema first (once per tool; nothing is sent), then execute. */
  async function twoMode(short: string, args: J, body: unknown): Promise<J> {
    if (!schemaShown.has(short)) {
      const before = sandbox.requests.length;
      const described = await ok(short, { ...args, mode: 'get_request_schema' });
      assert.equal(described.tool, `${P}${short}`);
      assert.equal(typeof described.request_schema, 'object', `${short}: request_schema is a schema object`);
      assert.match(String(described.how_to_execute), /mode "execute"/);
      assert.equal(sandbox.requests.length, before, `${short}: get_request_schema sends nothing`);
      schemaShown.add(short);
    }
    return ok(short, { ...args, mode: 'execute', request_body: JSON.stringify(body) });
  }

  /** Walks a list through its next_page hints; returns every page. */
  async function walk(short: string, args: J, maxPages = 30): Promise<J[]> {
    const pages: J[] = [];
    let next: J = {};
    do {
      const page = await ok(short, { ...args, ...next });
      pages.push(page);
      next = page.next_page;
    } while (next && pages.length < maxPages);
    assert.ok(!next, `${short}: paging ended within ${maxPages} pages`);
    return pages;
  }
  const ids = (list: J[] | undefined) => (list ?? []).map((x: J) => String(x.id));

  // ----------------------------------------------------------------------------------------------

  it('token, organization and its members', async () => {
    const token = await ok('GetAccessTokenInfo');
    assert.equal(token.organization.id, org);
    assert.equal(token.team.id, team);
    me.id = String(token.user.id);

    const info = await ok('GetOrganizationInfo', { organization_id: org });
    assert.equal(info.id, org);
    const pages = await walk('GetOrganizationMembers', { organization_id: org, result_limit: 4 });
    assert.ok(pages.length >= 2, 'org members page by cursor');
    const members = pages.flatMap((p) => p.data as J[]);
    assert.equal(new Set(ids(members)).size, members.length, 'no duplicates across pages');
    const mine = members.find((m) => String(m.id) === me.id);
    assert.ok(mine, 'the token user is an org member');
    me.email = mine.email;
    const other = members.find((m) => String(m.id) !== me.id && m.active === true && m.role === 'organization_internal_user');
    assert.ok(other, 'an active colleague');
    colleague = { id: String(other.id), email: other.email };
    const filtered = await ok('GetOrganizationMembers', { organization_id: org, include_only_active_members: true, license_type: 'full', member_role_filter: 'organization_internal_user', result_limit: 100 });
    assert.ok(filtered.data.length > 0 && filtered.data.every((m: J) => m.active === true && m.license === 'full' && m.role === 'organization_internal_user'), 'filters apply');
    const byEmail = await ok('GetOrganizationMembers', { organization_id: org, user_emails: colleague.email });
    assert.deepEqual(ids(byEmail.data), [colleague.id]);
    const member = await ok('GetOrganizationMemberInfo', { organization_id: org, organization_member_id: colleague.id });
    assert.equal(member.email, colleague.email);
  });

  let copy = '';
  it('boards: create, list, read, update, copy, share, members, delete', async () => {
    const created = await twoMode('CreateCanvasBoard', {}, { name: 'Scenario board', description: 'made by the scenario test', teamId: team, policy: { sharingPolicy: { access: 'private', teamAccess: 'edit' } } });
    board = String(created.id);
    assert.ok(board, 'the created board has an ID');
    assert.equal(created.name, 'Scenario board');

    const found = await ok('RetrieveUserBoards', { search_query: 'Scenario', sort_boards_by: 'alphabetically', results_offset: '0' });
    assert.deepEqual(ids(found.data), [board]);
    const read = await ok('RetrieveBoardInfo', { board_unique_identifier: board });
    assert.equal(read.description, 'made by the scenario test');

    const updated = await twoMode('UpdateCanvasBoard', { board_identifier: board }, { name: 'Scenario board (renamed)', description: 'renamed' });
    assert.equal(updated.name, 'Scenario board (renamed)');
    assert.equal((await ok('RetrieveBoardInfo', { board_unique_identifier: board })).name, 'Scenario board (renamed)', 'the update is visible on a re-read');

    const source = sandbox.canvasapi.demo?.boardIds[0] as string;
    const copied = await twoMode('CopyCanvasBoard', { source_board_id: source }, { name: 'Scenario copy', description: 'a copy' });
    copy = String(copied.id);
    assert.notEqual(copy, source);
    assert.equal(copied.name, 'Scenario copy');

    // Offset paging walks all boards via next_page.
    const pages = await walk('RetrieveUserBoards', { maximum_number_of_boards: '2', sort_boards_by: 'last_created' });
    assert.ok(pages.length >= 3, 'five boards, two per page');
    const all = pages.flatMap((p) => ids(p.data));
    assert.equal(all.length, pages[0].total);
    assert.ok(all.includes(board) && all.includes(copy));
    assert.deepEqual(pages[0].next_page, { results_offset: '2' });
    const demoProject = String(sandbox.canvasapi.demo?.projectId);
    const filtered = await ok('RetrieveUserBoards', { team_identifier: team, project_id_filter: demoProject, board_owner_id: me.id, maximum_number_of_boards: '50' });
    assert.ok(filtered.data.length > 0 && filtered.data.every((b: J) => b.team?.id === team && b.project?.id === demoProject && String(b.owner?.id) === me.id), 'team, project and owner filters apply');

    // Sharing and members.
    const shared = await ok('ShareCanvasBoard', { board_unique_identifier: copy, invitee_email_addresses: [colleague.email], board_member_role: 'editor', invitation_message: 'Have a look' });
    assert.deepEqual(shared.successful.map(String), [colleague.id]);
    const memberPages = await walk('GetCanvasBoardMembers', { board_id: copy, number_of_members_to_retrieve: '1' });
    assert.equal(memberPages.length, 2, 'owner and colleague, one per page');
    assert.deepEqual(memberPages.flatMap((p) => ids(p.data)).sort(), [me.id, colleague.id].sort());
    assert.equal(memberPages[0].next_page.pagination_offset, '1');
    assert.equal((await ok('GetBoardMemberInfo', { board_id: copy, board_member_id: colleague.id })).role, 'editor');
    assert.equal((await ok('UpdateBoardMemberRole', { board_unique_identifier: copy, board_member_unique_id: colleague.id, board_member_role: 'viewer' })).role, 'viewer');
    assert.equal((await ok('GetBoardMemberInfo', { board_id: copy, board_member_id: colleague.id })).role, 'viewer');
    assert.equal((await ok('RemoveBoardMember', { board_unique_id: copy, board_member_id: colleague.id })).success, true);
    await fails('GetBoardMemberInfo', { board_id: copy, board_member_id: colleague.id }, 'not_found');

    // Delete moves the board to the Trash: gone for the API.
    assert.equal((await ok('DeleteCanvasBoard', { board_identifier: copy })).success, true);
    await fails('RetrieveBoardInfo', { board_unique_identifier: copy }, 'not_found');
  });

  const item: Record<string, string> = {};
  it('items of every kind: create, read, update', async () => {
    const sticky = await twoMode('AddStickyNoteToBoard', { board_id: board }, { data: { content: 'Hello', shape: 'square' }, style: { fillColor: 'yellow' }, position: { x: 0, y: 0 } });
    item.sticky = String(sticky.id);
    assert.equal((await ok('GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: item.sticky })).data.content, 'Hello');
    await twoMode('UpdateStickyNote', { board_id_for_update: board, sticky_note_id: item.sticky }, { data: { content: 'Hello again' } });
    assert.equal((await ok('GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: item.sticky })).data.content, 'Hello again');

    const shape = await twoMode('AddShapeToCanvasBoard', { board_id: board }, { data: { shape: 'circle', content: 'Node' }, position: { x: 600, y: 0 }, geometry: { width: 150, height: 150 } });
    item.shape = String(shape.id);
    assert.equal((await ok('GetShapeInformation', { board_identifier: board, shape_item_id: item.shape })).data.shape, 'circle');
    await twoMode('UpdateBoardShape', { board_identifier: board, shape_item_id: item.shape }, { data: { shape: 'star' } });
    assert.equal((await ok('GetShapeInformation', { board_identifier: board, shape_item_id: item.shape })).data.shape, 'star');

    const text = await twoMode('AddTextToCanvasBoard', { board_identifier: board }, { data: { content: 'Title' }, position: { x: 0, y: -400 } });
    item.text = String(text.id);
    assert.equal((await ok('GetTextItemInfo', { board_id: board, text_item_id: item.text })).data.content, 'Title');
    await twoMode('UpdateBoardText', { board_id: board, text_item_id: item.text }, { data: { content: 'New title' } });
    assert.equal((await ok('GetTextItemInfo', { board_id: board, text_item_id: item.text })).data.content, 'New title');

    const card = await twoMode('AddCardToCanvasBoard', { canvas_board_id: board }, { data: { title: 'Task', description: 'Do it', assigneeId: me.id }, position: { x: 900, y: 0 } });
    item.card = String(card.id);
    assert.equal((await ok('GetCardItemInfo', { board_identifier: board, item_unique_id: item.card })).data.title, 'Task');
    await twoMode('UpdateCardOnBoard', { board_identifier: board, card_item_id: item.card }, { data: { title: 'Task (edited)' } });
    const cardRead = await ok('GetCardItemInfo', { board_identifier: board, item_unique_id: item.card });
    assert.deepEqual([cardRead.data.title, cardRead.data.description], ['Task (edited)', 'Do it']);

    const appCard = await twoMode('AddAppCardToBoard', { board_identifier: board }, { data: { title: 'Ticket', status: 'connected', fields: [{ value: 'P2', tooltip: 'Priority' }] }, position: { x: 1200, y: 0 } });
    item.appCard = String(appCard.id);
    assert.equal((await ok('RetrieveAppCardInfo', { board_identifier: board, item_identifier: item.appCard })).data.title, 'Ticket');
    await twoMode('UpdateCanvasAppCard', { board_identifier: board, item_identifier_for_update: item.appCard }, { data: { status: 'disabled' } });
    assert.equal((await ok('RetrieveAppCardInfo', { board_identifier: board, item_identifier: item.appCard })).data.status, 'disabled');

    const doc = await ok('AddDocumentToBoardByUrl', { board_identifier: board, document_url: 'https://files.example.com/spec.pdf', document_title: 'Spec', item_width_in_pixels: 640, rotation_angle_degrees: 0, position_x_coordinate: 1500, y_axis_coordinate_on_board: 100 });
    item.doc = String(doc.id);
    assert.equal((await ok('RetrieveDocumentItemInfo', { board_identifier: board, document_item_id: item.doc })).data.title, 'Spec');
    await ok('UpdateDocumentItemOnBoard', { board_id: board, item_identifier_to_update: item.doc, document_title: 'Spec v2', document_hosting_url: 'https://files.example.com/spec-v2.pdf', item_width_pixels: 500, rotation_angle_degrees: 5, x_axis_coordinate_on_board: 1500, y_axis_coordinate: 150 });
    const docRead = await ok('RetrieveDocumentItemInfo', { board_identifier: board, document_item_id: item.doc });
    assert.deepEqual([docRead.data.title, docRead.data.documentUrl, docRead.geometry.width, docRead.geometry.rotation, docRead.position.y], ['Spec v2', 'https://files.example.com/spec-v2.pdf', 500, 5, 150]);

    const image = await ok('AddImageToCanvasBoard', { board_unique_identifier: board, image_url: 'https://images.example.com/a.png', image_title: 'Diagram', image_width_pixels: 300, rotation_angle_degrees: 0, x_axis_coordinate: -600, y_axis_coordinate: 50 });
    item.image = String(image.id);
    assert.equal((await ok('GetImageItemInfo', { board_unique_id: board, image_item_id: item.image })).data.title, 'Diagram');
    await ok('UpdateBoardImage', { board_identifier: board, image_item_id: item.image, image_title: 'Diagram v2', image_url: 'https://images.example.com/b.png', image_width_in_pixels: 200, item_rotation_angle: 10, x_axis_coordinate: -600, y_axis_coordinate_position: 60 });
    const imageRead = await ok('GetImageItemInfo', { board_unique_id: board, image_item_id: item.image });
    assert.deepEqual([imageRead.data.title, imageRead.data.imageUrl, imageRead.geometry.width, imageRead.geometry.rotation, imageRead.position.y], ['Diagram v2', 'https://images.example.com/b.png', 200, 10, 60]);

    const embed = await ok('AddEmbedItemToBoard', { board_identifier: board, content_url: 'https://www.youtube.com/watch?v=abc', content_display_mode: 'inline', preview_image_url: 'https://images.example.com/preview.png', embed_item_width_pixels: 480, x_coordinate_on_board: 0, y_axis_coordinate_on_board: 600 });
    item.embed = String(embed.id);
    assert.equal((await ok('GetEmbedItemInfo', { board_identifier: board, embed_item_id: item.embed })).data.mode, 'inline');
    await ok('UpdateEmbedItemOnBoard', { board_id: board, embed_item_id: item.embed, embed_display_mode: 'modal', content_resource_url: 'https://www.youtube.com/watch?v=def', preview_image_url: 'https://images.example.com/preview2.png', item_width_pixels: 640, x_axis_coordinate_on_board: 10, y_axis_coordinate: 600 });
    const embedRead = await ok('GetEmbedItemInfo', { board_identifier: board, embed_item_id: item.embed });
    assert.deepEqual([embedRead.data.mode, embedRead.data.url, embedRead.data.previewUrl, embedRead.geometry.width, embedRead.position.x], ['modal', 'https://www.youtube.com/watch?v=def', 'https://images.example.com/preview2.png', 640, 10]);

    const flow = await twoMode('AddFlowchartShapeToBoard', { board_identifier: board }, { data: { shape: 'flow_chart_decision', content: 'OK?' }, position: { x: 0, y: 900 } });
    item.flow = String(flow.id);
    assert.equal((await ok('RetrieveShapeInformation', { board_identifier: board, shape_item_id: item.flow })).data.shape, 'flow_chart_decision');
    await twoMode('UpdateFlowchartShape', { board_identifier: board, item_id: item.flow }, { data: { shape: 'flow_chart_terminator' } });
    assert.equal((await ok('RetrieveShapeInformation', { board_identifier: board, shape_item_id: item.flow })).data.shape, 'flow_chart_terminator');

    const bulk = await twoMode('AddItemsToCanvasBoard', { canvas_board_identifier: board }, [
      { type: 'sticky_note', data: { content: 'bulk 1' }, position: { x: 0, y: 2000 } },
      { type: 'text', data: { content: 'bulk 2' }, position: { x: 300, y: 2000 } },
      { type: 'shape', data: { shape: 'triangle' }, position: { x: 600, y: 2000 } },
    ]);
    assert.deepEqual(bulk.data.map((i: J) => i.type), ['sticky_note', 'text', 'shape']);
    [item.bulk1, item.bulk2, item.bulk3] = ids(bulk.data) as [string, string, string];
  });

  it('generic items: list (both twins), read (both twins), cursor paging', async () => {
    const pages = await walk('RetrieveBoardItems', { board_identifier: board, items_limit: '10' });
    assert.ok(pages.length >= 2, 'more than ten items: at least two pages');
    const listed = pages.flatMap((p) => ids(p.data));
    assert.equal(new Set(listed).size, listed.length, 'no duplicates across pages');
    for (const id of Object.values(item)) assert.ok(listed.includes(id), `item ${id} is listed`);
    const stickies = await ok('RetrieveBoardItems', { board_identifier: board, item_type_filter: 'sticky_note', items_limit: '50' });
    assert.deepEqual(ids(stickies.data).sort(), [item.sticky, item.bulk1].sort());

    const shapes = await ok('GetBoardItems', { board_identifier: board, item_type: 'shape', pagination_limit: '50' });
    for (const id of [item.shape, item.flow, item.bulk3]) assert.ok(ids(shapes.data).includes(id as string), `shape ${id} listed by the experimental twin`);
    assert.ok(shapes.data.every((i: J) => i.type === 'shape'));

    const generic = await ok('GetBoardItemInfo', { board_identifier: board, item_identifier: item.card });
    assert.deepEqual([generic.id, generic.type], [item.card, 'card']);
    const experimental = await ok('RetrieveBoardItemInfo', { board_identifier: board, item_id: item.flow });
    assert.deepEqual([experimental.id, experimental.type], [item.flow, 'shape']);
  });

  it('frames: add, read, update, move an item in, items within, delete', async () => {
    const frame = await ok('AddBoardFrame', { board_id: board, frame_title: 'Frame A', frame_format: 'custom', frame_type: 'freeform', frame_fill_color: '#fff9b1', x_axis_position_on_board: 3000, position_y_coordinate: 0, frame_width_in_pixels: 1000, frame_height_pixels: 600, reveal_frame_content: true });
    item.frame = String(frame.id);
    assert.equal((await ok('GetBoardFrameInfo', { board_unique_id: board, frame_id: item.frame })).data.title, 'Frame A');
    await twoMode('UpdateCanvasBoardFrame', { board_id: board, frame_id: item.frame }, { data: { title: 'Frame B' } });
    assert.equal((await ok('GetBoardFrameInfo', { board_unique_id: board, frame_id: item.frame })).data.title, 'Frame B');

    const moved = await ok('UpdateItemPositionParent', { board_identifier: board, item_id: item.sticky, parent_frame_id: item.frame, item_x_axis_coordinate: 100, y_axis_coordinate: 120 });
    assert.equal(moved.parent.id, item.frame);
    assert.deepEqual([moved.position.x, moved.position.y], [100, 120]);
    const reread = await ok('GetBoardItemInfo', { board_identifier: board, item_identifier: item.sticky });
    assert.equal(reread.parent.id, item.frame, 'the move is visible on a re-read');
    // A flat-parameter item joins the frame too (position relative to the frame's top-left corner).
    const docMoved = await ok('UpdateDocumentItemOnBoard', { board_id: board, item_identifier_to_update: item.doc, parent_frame_id: item.frame, x_axis_coordinate_on_board: 300, y_axis_coordinate: 200 });
    assert.equal(docMoved.parent.id, item.frame);
    const within = await ok('GetItemsWithinFrame', { board_id: board, frame_id: item.frame, item_retrieval_limit: '10' });
    assert.deepEqual(ids(within.data).sort(), [item.sticky, item.doc].sort());
    const docsWithin = await ok('GetItemsWithinFrame', { board_id: board, frame_id: item.frame, item_type_filter: 'document', item_retrieval_limit: '10' });
    assert.deepEqual(ids(docsWithin.data), [item.doc]);
  });

  it('connectors: add, list, read, update, delete', async () => {
    const conn = await twoMode('AddConnectorToBoard', { board_unique_id: board }, { startItem: { id: item.card, snapTo: 'right' }, endItem: { id: item.shape }, shape: 'elbowed', captions: [{ content: 'leads to' }] });
    const id = String(conn.id);
    assert.equal(conn.startItem.id, item.card);
    const list = await ok('GetBoardConnectors', { board_identifier: board, result_limit: '10' });
    assert.deepEqual(ids(list.data), [id]);
    assert.equal((await ok('RetrieveBoardConnectorInfo', { board_unique_identifier: board, connector_unique_id: id })).captions[0].content, 'leads to');
    await twoMode('UpdateConnectorOnBoard', { board_identifier: board, connector_identifier: id }, { shape: 'straight', endItem: { id: item.text } });
    const reread = await ok('RetrieveBoardConnectorInfo', { board_unique_identifier: board, connector_unique_id: id });
    assert.deepEqual([reread.shape, reread.endItem.id], ['straight', item.text]);
    assert.equal((await ok('DeleteBoardConnector', { board_unique_identifier: board, connector_id: id })).success, true);
    await fails('RetrieveBoardConnectorInfo', { board_unique_identifier: board, connector_unique_id: id }, 'not_found');
  });

  it('mind map: root and child, list, read, delete the parent removes the child', async () => {
    const root = await ok('AddMindmapNode', { board_id: board, mindmap_node_content: 'Root', node_type: 'text', node_width_pixels: 200, x_coordinate: 0, y_coordinate: 4000 });
    const child = await ok('AddMindmapNode', { board_id: board, mindmap_node_content: 'Child', node_type: 'text', parent_frame_id: String(root.id), x_coordinate: 300, y_coordinate: 0 });
    assert.equal(child.parent.id, root.id);
    const list = await ok('GetMindmapNodes', { board_identifier: board, maximum_results_limit: '10' });
    assert.deepEqual(ids(list.data).sort(), [String(root.id), String(child.id)].sort());
    const read = await ok('GetCanvasMindmapNode', { board_id: board, mindmap_node_id: String(child.id) });
    assert.equal(read.data.nodeView.data.content, 'Child');
    assert.equal((await ok('DeleteMindmapNode', { board_identifier: board, mindmap_node_id: String(root.id) })).success, true);
    await fails('GetCanvasMindmapNode', { board_id: board, mindmap_node_id: String(child.id) }, 'not_found');
    assert.equal((await ok('GetMindmapNodes', { board_identifier: board })).data?.length ?? 0, 0);
  });

  it('groups: create, list, items (both tools), update, ungroup, delete with items', async () => {
    const group = await ok('CreateGroupOnBoard', { board_identifier: board, item_ids: [item.bulk1, item.bulk2] });
    const id = String(group.id);
    assert.deepEqual(group.data.items, [item.bulk1, item.bulk2]);
    assert.deepEqual(ids((await ok('GetBoardGroups', { board_id: board, max_items_to_return: 10 })).data), [id]);
    const byGroup = await ok('GetItemsByGroupId', { board_identifier: board, group_item_id: id, max_items_per_request: 10 });
    assert.equal(byGroup.total, 2);
    assert.deepEqual(ids(byGroup.data.data[0].data).sort(), [item.bulk1, item.bulk2].sort());
    assert.deepEqual((await ok('GetGroupItemsCanvas', { board_unique_identifier: board, group_id: id })).data.items, [item.bulk1, item.bulk2]);
    const updated = await ok('UpdateBoardGroup', { board_unique_id: board, group_id: id, item_ids: [item.bulk1, item.bulk2, item.bulk3] });
    assert.deepEqual(updated.data.items, [item.bulk1, item.bulk2, item.bulk3]);
    assert.equal((await ok('GetGroupItemsCanvas', { board_unique_identifier: board, group_id: id })).data.items.length, 3);

    assert.equal((await ok('UngroupItemsOnCanvasBoard', { canvas_board_id: board, group_id: id, remove_items_after_ungrouping: false })).success, true);
    await fails('GetGroupItemsCanvas', { board_unique_identifier: board, group_id: id }, 'not_found');
    for (const kept of [item.bulk1, item.bulk2, item.bulk3]) await ok('GetBoardItemInfo', { board_identifier: board, item_identifier: kept });

    const again = await ok('CreateGroupOnBoard', { board_identifier: board, item_ids: [item.bulk1, item.bulk2] });
    assert.equal((await ok('DeleteBoardGroup', { board_id: board, group_id: String(again.id), delete_items_with_group: true })).success, true);
    await fails('GetGroupItemsCanvas', { board_unique_identifier: board, group_id: String(again.id) }, 'not_found');
    await fails('GetBoardItemInfo', { board_identifier: board, item_identifier: item.bulk1 }, 'not_found');
    await fails('GetBoardItemInfo', { board_identifier: board, item_identifier: item.bulk2 }, 'not_found');
    await ok('GetBoardItemInfo', { board_identifier: board, item_identifier: item.bulk3 });
  });

  it('tags: create, list, read, update, attach, by item, by tag, detach, delete', async () => {
    const tag = await ok('CreateBoardTag', { board_unique_id: board, tag_title: 'Blocked', tag_fill_color: 'magenta' });
    const other = await ok('CreateBoardTag', { board_unique_id: board, tag_title: 'Later' });
    const tagId = String(tag.id);
    const pages = await walk('GetBoardTags', { board_id: board, maximum_number_of_tags: '1' });
    assert.deepEqual(pages.flatMap((p) => ids(p.data)).sort(), [tagId, String(other.id)].sort());
    assert.equal(pages[0].next_page.result_offset, '1');
    assert.equal((await ok('GetTagInfo', { board_id: board, tag_identifier: tagId })).title, 'Blocked');
    await ok('UpdateCanvasTag', { board_identifier: board, tag_unique_identifier: tagId, tag_title: 'Blocked!', tag_fill_color: 'black' });
    const reread = await ok('GetTagInfo', { board_id: board, tag_identifier: tagId });
    assert.deepEqual([reread.title, reread.fillColor], ['Blocked!', 'black']);

    assert.equal((await ok('AttachTagToItem', { board_id: board, item_identifier: item.card, tag_id: tagId })).success, true);
    assert.deepEqual(ids((await ok('GetTagsFromItem', { board_identifier: board, item_identifier: item.card })).tags), [tagId]);
    const tagged = await ok('RetrieveItemsByTag', { board_id: board, tag_identifier: tagId, max_items_to_retrieve: '10', pagination_offset: '0' });
    assert.deepEqual(ids(tagged.data), [item.card]);
    assert.equal((await ok('RemoveTagFromItem', { board_id_for_tag_removal: board, item_id: item.card, tag_unique_identifier: tagId })).success, true);
    assert.deepEqual((await ok('GetTagsFromItem', { board_identifier: board, item_identifier: item.card })).tags ?? [], []);
    await ok('GetCardItemInfo', { board_identifier: board, item_unique_id: item.card }); // the item survives the detach
    assert.equal((await ok('DeleteBoardTag', { board_identifier: board, tag_id_to_delete: tagId })).success, true);
    await fails('GetTagInfo', { board_id: board, tag_identifier: tagId }, 'not_found');
  });

  it('items: delete through every type-specific tool, then 404', async () => {
    const deletes: [string, J, string, J][] = [
      ['DeleteStickyNote', { board_id: board, sticky_note_id: item.sticky }, 'GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: item.sticky }],
      ['DeleteShapeFromCanvasBoard', { board_id: board, item_id: item.shape }, 'GetShapeInformation', { board_identifier: board, shape_item_id: item.shape }],
      ['RemoveBoardTextItem', { board_identifier: board, text_item_id: item.text }, 'GetTextItemInfo', { board_id: board, text_item_id: item.text }],
      ['DeleteCardItem', { board_identifier: board, item_id: item.card }, 'GetCardItemInfo', { board_identifier: board, item_unique_id: item.card }],
      ['DeleteAppCardFromBoard', { board_id: board, item_id: item.appCard }, 'RetrieveAppCardInfo', { board_identifier: board, item_identifier: item.appCard }],
      ['DeleteDocumentItemFromBoard', { board_id: board, item_id: item.doc }, 'RetrieveDocumentItemInfo', { board_identifier: board, document_item_id: item.doc }],
      ['DeleteBoardImage', { board_identifier: board, image_item_id: item.image }, 'GetImageItemInfo', { board_unique_id: board, image_item_id: item.image }],
      ['RemoveEmbedItemFromBoard', { board_identifier: board, item_id_to_delete: item.embed }, 'GetEmbedItemInfo', { board_identifier: board, embed_item_id: item.embed }],
      ['DeleteFlowchartShape', { board_unique_id: board, item_id: item.flow }, 'RetrieveShapeInformation', { board_identifier: board, shape_item_id: item.flow }],
      ['DeleteBoardFrame', { board_id: board, frame_id: item.frame }, 'GetBoardFrameInfo', { board_unique_id: board, frame_id: item.frame }],
      ['DeleteBoardItem', { board_id: board, item_id: item.bulk3 }, 'GetBoardItemInfo', { board_identifier: board, item_identifier: item.bulk3 }],
    ];
    for (const [del, args, get, getArgs] of deletes) {
      assert.equal((await ok(del, args)).success, true, del);
      await fails(get, getArgs, 'not_found');
    }
    const extra = await twoMode('AddStickyNoteToBoard', { board_id: board }, { data: { content: 'to be removed' } });
    assert.equal((await ok('RemoveBoardItem', { board_unique_id: board, item_id: String(extra.id) })).success, true);
    await fails('RetrieveBoardItemInfo', { board_identifier: board, item_id: String(extra.id) }, 'not_found');
    const left = await ok('RetrieveBoardItems', { board_identifier: board, items_limit: '50' });
    assert.deepEqual(left.data ?? [], [], 'the board is empty again');
  });

  it('webhooks: create, list, read, update, delete', async () => {
    const sub = await ok('CreateBoardSubscription', { board_id: board, webhook_callback_url: 'https://hooks.example.com/scenario', webhook_status: 'enabled' });
    const id = String(sub.id);
    assert.equal(sub.callbackUrl, 'https://hooks.example.com/scenario');
    const pages = await walk('GetUserWebhookSubscriptions', { subscription_limit: '1' });
    assert.ok(pages.flatMap((p) => ids(p.data)).includes(id));
    assert.equal((await ok('GetCanvasSubscriptionInfo', { subscription_id: id })).data.boardId, board);
    await ok('UpdateBoardWebhookSubscription', { subscription_id: id, webhook_status: 'disabled', webhook_callback_url: 'https://hooks.example.com/v2' });
    const reread = await ok('GetCanvasSubscriptionInfo', { subscription_id: id });
    assert.deepEqual([reread.status, reread.callbackUrl], ['disabled', 'https://hooks.example.com/v2']);
    assert.equal((await ok('DeleteCanvasWebhookSubscription', { subscription_id: id })).success, true);
    await fails('GetCanvasSubscriptionInfo', { subscription_id: id }, 'not_found');
  });

  it('app metrics: by period and totals', async () => {
    const days = await ok('GetAppUsageMetrics', { application_id: app, start_date_utc: '2026-02-01', end_date: '2026-02-07', group_data_by_period: 'DAY' });
    assert.deepEqual(days.data.map((d: J) => d.periodStart), ['2026-02-01', '2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05', '2026-02-06', '2026-02-07']);
    const total = await ok('RetrieveAppMetrics', { app_id: app });
    assert.ok(total.uniqueUsers > 0);
  });

  it('teams: create, list, read, update, members, settings, delete', async () => {
    const created = await ok('CreateEnterpriseTeam', { organization_id: org, team_name: 'Scenario team' });
    const t = String(created.id);
    assert.deepEqual(ids((await ok('GetEnterpriseTeams', { organization_id: org, team_name_filter: 'Scenario' })).data), [t]);
    const pages = await walk('GetEnterpriseTeams', { organization_id: org, maximum_results_limit: 1 });
    assert.ok(pages.length >= 2 && pages.flatMap((p) => ids(p.data)).includes(t) && pages.flatMap((p) => ids(p.data)).includes(team));
    assert.equal((await ok('GetTeamInfo', { organization_id: org, team_id: t })).name, 'Scenario team');
    await ok('UpdateEnterpriseTeam', { organization_id: org, team_identifier: t, new_team_name: 'Scenario team (renamed)' });
    assert.equal((await ok('GetTeamInfo', { organization_id: org, team_id: t })).name, 'Scenario team (renamed)');

    const invited = await ok('InviteCanvasTeamMember', { organization_id: org, team_identifier: t, user_email_for_team_invitation: colleague.email, team_member_role: 'member' });
    assert.equal(String(invited.id), colleague.id);
    const members = await ok('GetEnterpriseTeamMembers', { organization_id: org, team_identifier: t });
    assert.ok(ids(members.data).includes(colleague.id));
    assert.deepEqual(ids((await ok('GetEnterpriseTeamMembers', { organization_id: org, team_identifier: t, filter_by_role: 'member' })).data), [colleague.id]);
    assert.equal((await ok('RetrieveTeamMemberById', { organization_id: org, team_identifier: t, team_member_id: colleague.id })).role, 'member');
    await ok('UpdateTeamMemberRole', { organization_id: org, team_identifier: t, team_member_id: colleague.id, team_member_role: 'admin' });
    assert.equal((await ok('RetrieveTeamMemberById', { organization_id: org, team_identifier: t, team_member_id: colleague.id })).role, 'admin');
    assert.equal((await ok('RemoveTeamMember', { organization_id: org, team_identifier: t, team_member_id: colleague.id })).success, true);
    await fails('RetrieveTeamMemberById', { organization_id: org, team_identifier: t, team_member_id: colleague.id }, 'not_found');

    assert.equal((await ok('GetDefaultTeamSettings', { organization_id: org })).organizationId, org);
    const settings = await ok('GetTeamSettings', { organization_id: org, team_id: t });
    assert.equal(settings.teamId, t);
    await twoMode('UpdateTeamSettings', { organization_id: org, team_identifier: t }, { teamCollaborationSettings: { coOwnerRole: 'disabled' } });
    assert.equal((await ok('GetTeamSettings', { organization_id: org, team_id: t })).teamCollaborationSettings.coOwnerRole, 'disabled');

    assert.equal((await ok('DeleteEnterpriseTeam', { organization_id: org, team_id: t })).success, true);
    await fails('GetTeamInfo', { organization_id: org, team_id: t }, 'not_found');
  });

  it('projects: create, list, read, update, settings, members, delete', async () => {
    const created = await ok('CreateEnterpriseProject', { organization_id: org, team_id: team, project_name: 'Scenario project' });
    const p = String(created.id);
    const pages = await walk('GetTeamProjects', { organization_id: org, team_id: team, max_results_per_call: 1 });
    const listed = pages.flatMap((page) => ids(page.data));
    assert.ok(listed.includes(p) && listed.includes(String(sandbox.canvasapi.demo?.projectId)));
    assert.equal((await ok('GetCanvasProjectInfo', { organization_id: org, team_id_for_project_info: team, project_identifier: p })).name, 'Scenario project');
    await ok('UpdateProjectInfo', { organization_id: org, team_id: team, project_identifier: p, new_project_name: 'Scenario project (renamed)' });
    assert.equal((await ok('GetCanvasProjectInfo', { organization_id: org, team_id_for_project_info: team, project_identifier: p })).name, 'Scenario project (renamed)');
    assert.equal((await ok('GetProjectSettings', { organization_id: org, team_id: team, project_id: p })).sharingPolicySettings.teamAccess, 'private');
    await ok('UpdateProjectSettings', { organization_id: org, team_id: team, project_identifier: p, team_access_level: 'view' });
    assert.equal((await ok('GetProjectSettings', { organization_id: org, team_id: team, project_id: p })).sharingPolicySettings.teamAccess, 'view');

    // A member of the team (discovered, not hard-coded) joins the project.
    const teamPages = await walk('GetEnterpriseTeamMembers', { organization_id: org, team_identifier: team, member_retrieval_limit: 1 });
    assert.ok(teamPages.length >= 2, 'team members page by cursor');
    const teamMembers = teamPages.flatMap((page) => page.data as J[]);
    const candidate = teamMembers.find((m) => String(m.id) !== me.id && m.role !== 'team_guest');
    assert.ok(candidate, 'the demo team has another member');
    const email = (await ok('GetOrganizationMemberInfo', { organization_id: org, organization_member_id: String(candidate.id) })).email as string;
    const added = await ok('AddCanvasProjectMember', { organization_id: org, team_id: team, project_id: p, user_email_id: email, project_member_role: 'editor' });
    const m = String(added.id);
    assert.equal(added.email, email);
    const projectMemberPages = await walk('GetProjectMembers', { organization_id: org, team_id: team, project_identifier: p, maximum_results_per_call: 1 });
    assert.deepEqual(projectMemberPages.flatMap((page) => ids(page.data)).sort(), [me.id, m].sort(), 'owner and the new member, one per page');
    assert.equal((await ok('GetProjectMemberInfo', { organization_id: org, team_identifier: team, project_identifier: p, member_id: m })).role, 'editor');
    await ok('UpdateProjectMemberRole', { organization_id: org, team_id: team, project_id: p, member_id: m, project_member_role: 'commentator' });
    assert.equal((await ok('GetProjectMemberInfo', { organization_id: org, team_identifier: team, project_identifier: p, member_id: m })).role, 'commentator');
    assert.equal((await ok('RemoveProjectMember', { organization_id: org, team_id: team, project_identifier: p, member_id: m })).success, true);
    await fails('GetProjectMemberInfo', { organization_id: org, team_identifier: team, project_identifier: p, member_id: m }, 'not_found');

    assert.equal((await ok('DeleteEnterpriseProject', { organization_id: org, team_id: team, project_id_to_delete: p })).success, true);
    await fails('GetCanvasProjectInfo', { organization_id: org, team_id_for_project_info: team, project_identifier: p }, 'not_found');
  });

  it('compliance: classification, eDiscovery, board export, audit and content logs, sessions', async () => {
    const orgSettings = await ok('GetBoardClassificationSettings', { organization_id: org });
    const labels = orgSettings.labels as J[];
    assert.ok(labels.length >= 2);
    const [first, second] = labels as [J, J];
    await ok('UpdateTeamBoardClassificationSettings', { organization_id: org, team_identifier: team, enable_data_classification: true, data_classification_default_label_id: String(second.id) });
    assert.equal(String((await ok('GetTeamBoardClassificationSettings', { organization_id: org, team_identifier: team })).defaultLabelId), String(second.id));
    const before = await ok('RetrieveBoardClassification', { organization_id: org, team_id: team, board_identifier: board });
    assert.equal(before.id, undefined, 'the scenario board starts unclassified');
    const bulk = await ok('UpdateBoardClassification', { organization_id: org, team_identifier: team, data_classification_label_id: String(first.id), assign_to_not_classified_only: true });
    assert.ok(bulk.numberUpdatedBoards >= 1);
    assert.equal(String((await ok('RetrieveBoardClassification', { organization_id: org, team_id: team, board_identifier: board })).id), String(first.id));
    await ok('SetBoardClassification', { organization_id: org, team_id: team, board_identifier: board, data_classification_label_id: String(second.id) });
    assert.equal((await ok('RetrieveBoardClassification', { organization_id: org, team_id: team, board_identifier: board })).name, second.name);

    // eDiscovery: discover the case and hold through the list tools.
    const casePages = await walk('RetrieveEdiscoveryCases', { organization_id: org, maximum_items: 1 });
    const cases = casePages.flatMap((p) => p.data as J[]);
    assert.ok(cases.length >= 1);
    const caseId = String((cases[0] as J).id);
    assert.equal(String((await ok('RetrieveCaseInfo', { organization_id: org, case_id: caseId })).id), caseId);
    const holds = (await walk('RetrieveLegalHolds', { organization_id: org, case_id: caseId, maximum_items_in_result: 1 })).flatMap((page) => page.data as J[]);
    assert.ok(holds.length >= 2, 'legal holds walked one per page');
    const hold = holds.find((h) => h.state === 'ACTIVE') ?? holds[0];
    const holdId = String(hold.id);
    assert.equal(String((await ok('RetrieveLegalHoldInfo', { organization_id: org, case_identifier: caseId, legal_hold_identifier: holdId })).id), holdId);
    const held = (await walk('ReviewLegalHoldBoards', { organization_id: org, case_id: caseId, legal_hold_identifier: holdId, maximum_items_in_result: 1 })).flatMap((page) => page.data as J[]);
    assert.ok(held.length >= 2 && held.every((c) => typeof c.contentId === 'string'), 'held boards');

    // Board export: the job advances with the sandbox clock (frozen here, then stepped).
    frozenAt = now().getTime();
    const job = await ok('CreateBoardExportJob', { organization_id: org, board_export_request_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b', export_board_ids: [board], export_format: 'PDF' });
    const jobId = String(job.jobId);
    assert.ok(jobId);
    assert.equal((await ok('GetExportJobStatus', { organization_id: org, board_export_job_id: jobId })).jobStatus, 'CREATED');
    frozenAt += 2_000;
    assert.equal((await ok('GetExportJobStatus', { organization_id: org, board_export_job_id: jobId })).jobStatus, 'IN_PROGRESS');
    frozenAt += 6_000;
    assert.equal((await ok('GetExportJobStatus', { organization_id: org, board_export_job_id: jobId })).jobStatus, 'FINISHED');
    clockOffset = frozenAt - Date.now(); // time goes on from here, never backwards
    frozenAt = undefined;
    const results = await ok('RetrieveCanvasExportResults', { organization_unique_identifier: org, job_identifier: jobId });
    const mine = (results.results as J[]).find((r) => r.boardId === board);
    assert.equal(mine?.status, 'SUCCESS');
    assert.match(String(mine?.exportLink), /\.pdf$/);

    // Audit logs: ISO with milliseconds and Z, within 90 days; cursor paging via next_page.
    const t = now().getTime();
    const window = { start_date_time_for_audit_logs: new Date(t - 89 * DAY).toISOString(), end_date_for_audit_logs: new Date(t + 1000).toISOString() };
    const auditPages = await walk('GetRecentAuditLogs', { ...window, maximum_results_limit: 25, sort_order: 'DESC' });
    const events = auditPages.flatMap((p) => p.data as J[]);
    assert.ok(auditPages.length >= 2, 'more than one page of audit events');
    assert.ok(events.some((e) => e.event === 'board_created' && e.object?.name === 'Scenario board'), 'the board created by the scenario is audited');
    await fails('GetRecentAuditLogs', { start_date_time_for_audit_logs: new Date(t - 91 * DAY).toISOString(), end_date_for_audit_logs: new Date(t).toISOString() }, 'invalid_input');

    // Content logs of the scenario board.
    const logs = await walk('FetchBoardContentChanges', { organization_id: org, start_date_time: new Date(t - DAY).toISOString(), end_modification_datetime: new Date(t + 1000).toISOString(), board_ids: [board], max_results_per_call: 10, sort_order_by_date: 'asc', user_email_filter: [me.email] });
    assert.ok(logs.length >= 2, 'content logs page by cursor');
    const entries = logs.flatMap((p) => p.data as J[]);
    assert.ok(entries.length > 0 && entries.every((e) => e.contentId === board), 'content logs of the scenario board');
    assert.ok(entries.some((e) => e.itemId === item.sticky && e.actionType === 'create'));

    const reset = await ok('ResetUserSessions', { user_email_for_session_reset: colleague.email });
    assert.equal(reset.success, true);
  });

  it('last: delete the board, revoke the token; later calls are unauthorized; every tool was called', async () => {
    assert.equal((await ok('DeleteCanvasBoard', { board_identifier: board })).success, true);
    await fails('RetrieveBoardInfo', { board_unique_identifier: board }, 'not_found');

    const revoked = await ok('RevokeCanvasAccessToken', { client_id: 'scenario-app', client_secret: 'scenario-secret', canvas_access_token: sandbox.canvasapi.token });
    assert.equal(revoked.success, true);
    await fails('RetrieveUserBoards', {}, 'unauthorized');

    const expected = canvasApiCatalogue.map((e) => e.name).sort();
    assert.equal(expected.length, 139);
    const missing = expected.filter((n) => !called.has(n));
    assert.deepEqual(missing, [], `tools never called successfully: ${missing.join(', ')}`);
    assert.deepEqual([...called].sort(), expected);
  });

  // ----------------------------------------------------------------------------------------------
  // contract

  it('every request the tools sent used Bearer auth, was attributed to a tool call and failed only when meant to', () => {
    const platformRequests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.ok(platformRequests.length > 139, 'the scenario sent requests');
    assert.equal(sent.length, sandbox.requests.length, 'every request came from a tool call');
    const entries = new Map(canvasApiCatalogue.map((e) => [e.name.replace(P, ''), e]));
    for (const { tool, req } of sent) {
      assert.equal(req.platform, 'canvasapi');
      assert.equal(req.headers.authorization, 'Bearer [redacted]', `${tool}: ${req.method} ${req.path} uses Bearer auth`);
      const entry = entries.get(tool);
      assert.ok(entry, `${tool} is in the catalogue`);
      assert.equal(req.method, entry.method, `${tool}: method`);
      if (expectedToFail.has(req)) assert.ok(req.status >= 400 && req.status < 500, `${tool}: ${req.method} ${req.path} was refused (${req.status})`);
      else assert.ok(entry.success.includes(req.status), `${tool}: ${req.method} ${req.path} answered ${req.status}, expected ${entry.success.join(' or ')}`);
      // Every tool in this scenario passes at least one body field when it has any: the body was recorded (for the contract check).
      if (entry.params.some((p) => p.to === 'body' || p.to.startsWith('body:'))) {
        assert.ok(req.body !== undefined, `${tool}: ${req.method} ${req.path} carried a JSON body`);
        assert.match(req.headers['content-type'] ?? '', /^application\/json/, `${tool}: JSON content type`);
      } else {
        assert.equal(req.body, undefined, `${tool}: ${req.method} ${req.path} carried no body`);
      }
    }
  });

  it('every request the tools sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const { main, alt } = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const operationOf = operationIdsByTool();
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const req of sandbox.requests.filter((r) => r.platform === 'canvasapi')) {
      const tool = toolOf.get(req) ?? '(sent outside a tool call)';
      const variant = TOOL_VARIANTS[tool];
      const validator = variant ? alt : main;
      const path = variantPath(variant, req.path);
      const label = `${tool}: ${req.method} ${req.path}${req.query.length ? `?${new URLSearchParams(req.query).toString()}` : ''}`;
      const op = validator.findOperation(req.method, path);
      if (!op) {
        problems.push(`${label}: no such operation in the spec`);
        continue;
      }
      const expected = operationOf?.get(tool);
      if (expected && op.operationId !== expected) problems.push(`${label}: matched operation ${op.operationId}, the tool is ${expected}`);
      for (const e of validator.validateRequest({ method: req.method, path, query: req.query, headers: req.headers, body: req.body })) problems.push(`${label}: ${e}`);
      if (req.body !== undefined) {
        const schema = requestBodySchema(validator.document, op.operation);
        for (const at of undeclaredProperties(validator.document, schema === undefined ? [] : [schema], req.body, '')) problems.push(`${label}: body property ${at} is not declared by the spec`);
      }
      seen.add(tool);
    }
    assert.deepEqual(problems, []);
    assert.equal(seen.size, 139, 'requests of every tool were validated');
  });
});

// ------------------------------------------------------------------------------------------------
// Undeclared body properties. The spec leaves `additionalProperties` open almost everywhere, so a
// misspelt body field (a catalogue `body:` target with a typo) would pass schema validation and be
// ignored by the platform. This stricter check flags any property that no schema branch declares.

type Doc = Record<string, unknown>;

function deref(doc: Doc, schema: unknown): J {
  let node: J = schema;
  for (let hops = 0; hops < 32 && node && typeof node === 'object' && typeof node.$ref === 'string'; hops++) {
    const pointer = decodeURIComponent(String(node.$ref).slice(String(node.$ref).indexOf('#') + 1));
    node = pointer
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<J>((at, token) => (at && typeof at === 'object' ? at[token] : undefined), doc);
  }
  return node;
}

function requestBodySchema(doc: Doc, operation: J): unknown {
  const body = deref(doc, operation.requestBody);
  const content = body?.content ?? {};
  const media = Object.keys(content).find((t) => /json/i.test(t));
  return media ? content[media].schema : undefined;
}

/** The branches a schema stands for: itself plus its allOf/anyOf/oneOf parts, refs resolved. */
function flatten(doc: Doc, schemas: unknown[]): J[] {
  const out: J[] = [];
  const visit = (s: unknown, depth: number) => {
    const r = deref(doc, s);
    if (!r || typeof r !== 'object' || depth > 20) return;
    out.push(r);
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const part of (r[key] as unknown[] | undefined) ?? []) visit(part, depth + 1);
  };
  for (const s of schemas) visit(s, 0);
  return out;
}

function undeclaredProperties(doc: Doc, schemas: unknown[], value: unknown, at: string): string[] {
  if (typeof value !== 'object' || value === null || schemas.length === 0) return [];
  const branches = flatten(doc, schemas);
  if (Array.isArray(value)) {
    const items = branches.map((b) => b.items).filter((i) => i !== undefined);
    return value.flatMap((v, i) => undeclaredProperties(doc, items, v, `${at}[${i}]`));
  }
  const declared = branches.filter((b) => b.properties && typeof b.properties === 'object');
  const maps = branches.map((b) => b.additionalProperties).filter((a) => a && typeof a === 'object');
  if (declared.length === 0 && maps.length === 0) return []; // a free-form object
  const problems: string[] = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const path = at ? `${at}.${key}` : key;
    const childSchemas = declared.map((b) => b.properties[key]).filter((c) => c !== undefined);
    if (childSchemas.length === 0 && maps.length === 0) problems.push(path);
    else problems.push(...undeclaredProperties(doc, childSchemas.length ? childSchemas : maps, child, path));
  }
  return problems;
}

/** Tool (short name) -> operationId from the endpoint reference, when present. */
function operationIdsByTool(): Map<string, string> | undefined {
  const file = referenceFile(TSV);
  if (!file) return undefined;
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const header = (lines[0] ?? '').split('\t');
  const toolCol = header.indexOf('tool');
  const opCol = header.indexOf('operation_id');
  if (toolCol < 0 || opCol < 0) return undefined;
  const out = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const cells = line.split('\t');
    out.set((cells[toolCol] ?? '').replace(P, ''), cells[opCol] ?? '');
  }
  return out;
}
