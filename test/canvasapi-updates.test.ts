/**
 * Updates change only what the caller gave. Every CanvasApi update tool (effect "update") is
 * called against the sandbox with a single field: the request body holds exactly that field (no
 * defaults, in particular no x/y that would move an item to the board centre), and a read before
 * and after shows that only that field changed (timestamps of the change aside).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const P = 'CanvasApi.';

interface UpdateCase {
  /** Arguments: the identifiers plus the one field (for two-mode tools, a request_body with one field). */
  args: () => J;
  /** The body the platform must receive: that field and nothing else. */
  body: () => J;
  /** The read that shows the resource, before and after. */
  read: () => [string, J];
  /** Paths (dotted) in the read result that may and must change; '*' for a read that is the changed value itself. */
  changes: string[];
}

/** Timestamps and authors of the change, which any update moves. */
const BOOKKEEPING = /^(modified|updated|last(Modified|Opened))/i;

/** Leaf values of a JSON value by dotted path. */
function leaves(value: unknown, at = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) out.set(at, JSON.stringify(value));
  else if (typeof value === 'object' && value !== null) for (const [key, child] of Object.entries(value)) leaves(child, at ? `${at}.${key}` : key, out);
  else out.set(at, JSON.stringify(value));
  return out;
}

function changedPaths(before: unknown, after: unknown): string[] {
  const a = leaves(before);
  const b = leaves(after);
  return [...new Set([...a.keys(), ...b.keys()])].filter((path) => a.get(path) !== b.get(path) && !path.split('.').some((key) => BOOKKEEPING.test(key))).sort();
}

describe('CanvasApi update tools change only the given field', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  const ids: Record<string, string> = {};
  let org = '';
  let team = '';
  let label = { first: '', second: '' };

  async function ok(short: string, args: J): Promise<J> {
    const result = await callTool(server, `${P}${short}`, args);
    assert.equal(result.isError, false, `${short} ${JSON.stringify(args)}: ${JSON.stringify(result.data)}`);
    return result.data;
  }
  const exec = (body: unknown) => ({ mode: 'execute', request_body: body });

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    const demo = sandbox.canvasapi.demo;
    assert.ok(demo);
    org = demo.organizationId;
    team = demo.teamId;
    const token = await ok('GetAccessTokenInfo', {});
    const me = String(token.user.id);

    const board = await ok('CreateCanvasBoard', exec({ name: 'Updates', description: 'before', teamId: team }));
    const b = (ids.board = String(board.id));
    const add = async (key: string, short: string, args: J) => (ids[key] = String((await ok(short, { ...args })).id));
    await add('sticky', 'AddStickyNoteToBoard', { board_id: b, ...exec({ data: { content: 'Sticky', shape: 'square' }, style: { fillColor: 'yellow' }, position: { x: 100, y: 200 } }) });
    await add('sticky2', 'AddStickyNoteToBoard', { board_id: b, ...exec({ data: { content: 'Second' }, position: { x: 400, y: 200 } }) });
    await add('shape', 'AddShapeToCanvasBoard', { board_id: b, ...exec({ data: { shape: 'circle', content: 'Shape' }, position: { x: 700, y: -300 }, geometry: { width: 150, height: 150 } }) });
    await add('text', 'AddTextToCanvasBoard', { board_identifier: b, ...exec({ data: { content: 'Text' }, position: { x: -250, y: -400 } }) });
    await add('card', 'AddCardToCanvasBoard', { canvas_board_id: b, ...exec({ data: { title: 'Card', description: 'Keep me' }, position: { x: 900, y: 100 } }) });
    await add('appCard', 'AddAppCardToBoard', { board_identifier: b, ...exec({ data: { title: 'App card', status: 'connected' }, position: { x: 1200, y: 100 } }) });
    await add('flow', 'AddFlowchartShapeToBoard', { board_identifier: b, ...exec({ data: { shape: 'flow_chart_decision', content: 'OK?' }, position: { x: 0, y: 900 } }) });
    await add('doc', 'AddDocumentToBoardByUrl', { board_identifier: b, document_url: 'https://files.example.com/spec.pdf', document_title: 'Spec', item_width_in_pixels: 320, position_x_coordinate: -420, y_axis_coordinate_on_board: 420 });
    await add('embed', 'AddEmbedItemToBoard', { board_identifier: b, content_url: 'https://www.youtube.com/watch?v=abc', content_display_mode: 'inline', x_coordinate_on_board: 300, y_axis_coordinate_on_board: -200 });
    await add('image', 'AddImageToCanvasBoard', { board_unique_identifier: b, image_url: 'https://images.example.com/a.png', image_title: 'Diagram', x_axis_coordinate: -600, y_axis_coordinate: 50 });
    await add('frame', 'AddBoardFrame', { board_id: b, frame_title: 'Frame', frame_fill_color: '#fff9b1', x_axis_position_on_board: 3000, position_y_coordinate: -500, frame_width_in_pixels: 800, frame_height_pixels: 600 });
    await add('connector', 'AddConnectorToBoard', { board_unique_id: b, ...exec({ startItem: { id: ids.card }, endItem: { id: ids.shape }, shape: 'curved', captions: [{ content: 'leads to' }] }) });
    await add('group', 'CreateGroupOnBoard', { board_identifier: b, item_ids: [ids.sticky, ids.sticky2] });
    await add('tag', 'CreateBoardTag', { board_unique_id: b, tag_title: 'Tag', tag_fill_color: 'red' });
    await add('subscription', 'CreateBoardSubscription', { board_id: b, webhook_callback_url: 'https://hooks.example.com/updates', webhook_status: 'enabled' });

    // A colleague on the board, in a new team, and in a new project of the demo team.
    const members = (await ok('GetOrganizationMembers', { organization_id: org, result_limit: 100 })).data as J[];
    const colleague = members.find((m) => String(m.id) !== me && m.active === true && m.role === 'organization_internal_user');
    assert.ok(colleague);
    ids.colleague = String(colleague.id);
    await ok('ShareCanvasBoard', { board_unique_identifier: b, invitee_email_addresses: [colleague.email], board_member_role: 'editor' });
    await add('team', 'CreateEnterpriseTeam', { organization_id: org, team_name: 'Updates team' });
    await ok('InviteCanvasTeamMember', { organization_id: org, team_identifier: ids.team, user_email_for_team_invitation: colleague.email, team_member_role: 'member' });
    await add('project', 'CreateEnterpriseProject', { organization_id: org, team_id: team, project_name: 'Updates project' });
    const teamMembers = (await ok('GetEnterpriseTeamMembers', { organization_id: org, team_identifier: team })).data as J[];
    const candidate = teamMembers.find((m) => String(m.id) !== me && m.role !== 'team_guest');
    assert.ok(candidate);
    const email = (await ok('GetOrganizationMemberInfo', { organization_id: org, organization_member_id: String(candidate.id) })).email as string;
    await add('projectMember', 'AddCanvasProjectMember', { organization_id: org, team_id: team, project_id: ids.project, user_email_id: email, project_member_role: 'editor' });

    // Classification: two labels; the demo team gets a default label and classification on.
    const labels = (await ok('GetBoardClassificationSettings', { organization_id: org })).labels as J[];
    label = { first: String(labels[0].id), second: String(labels[1].id) }; // int64: as text
    await ok('UpdateTeamBoardClassificationSettings', { organization_id: org, team_identifier: team, enable_data_classification: true, data_classification_default_label_id: label.first });
    await ok('SetBoardClassification', { organization_id: org, team_id: team, board_identifier: b, data_classification_label_id: String(label.first) });
  });
  after(async () => {
    await sandbox?.close();
  });

  const b = () => ids.board as string;
  const cases: Record<string, UpdateCase> = {
    UpdateBoardClassification: {
      args: () => ({ organization_id: org, team_identifier: team, data_classification_label_id: label.second }),
      body: () => ({ labelId: Number(label.second) }), // the record parses JSON numbers as doubles
      read: () => ['RetrieveBoardClassification', { organization_id: org, team_id: team, board_identifier: b() }],
      changes: ['*'],
    },
    UpdateTeamBoardClassificationSettings: {
      args: () => ({ organization_id: org, team_identifier: team, enable_data_classification: false }),
      body: () => ({ enabled: false }),
      read: () => ['GetTeamBoardClassificationSettings', { organization_id: org, team_identifier: team }],
      changes: ['enabled'],
    },
    SetBoardClassification: {
      args: () => ({ organization_id: org, team_id: team, board_identifier: b(), data_classification_label_id: String(label.first) }),
      body: () => ({ labelId: String(label.first) }),
      read: () => ['RetrieveBoardClassification', { organization_id: org, team_id: team, board_identifier: b() }],
      changes: ['*'],
    },
    UpdateCanvasBoard: {
      args: () => ({ board_identifier: b(), ...exec({ description: 'after' }) }),
      body: () => ({ description: 'after' }),
      read: () => ['RetrieveBoardInfo', { board_unique_identifier: b() }],
      changes: ['description'],
    },
    UpdateBoardMemberRole: {
      args: () => ({ board_unique_identifier: b(), board_member_unique_id: ids.colleague, board_member_role: 'viewer' }),
      body: () => ({ role: 'viewer' }),
      read: () => ['GetBoardMemberInfo', { board_id: b(), board_member_id: ids.colleague }],
      changes: ['role'],
    },
    UpdateItemPositionParent: {
      args: () => ({ board_identifier: b(), item_id: ids.sticky, item_x_axis_coordinate: 150 }),
      body: () => ({ position: { x: 150 } }),
      read: () => ['GetBoardItemInfo', { board_identifier: b(), item_identifier: ids.sticky }],
      changes: ['position.x'],
    },
    UpdateCanvasAppCard: {
      args: () => ({ board_identifier: b(), item_identifier_for_update: ids.appCard, ...exec({ data: { status: 'disabled' } }) }),
      body: () => ({ data: { status: 'disabled' } }),
      read: () => ['RetrieveAppCardInfo', { board_identifier: b(), item_identifier: ids.appCard }],
      changes: ['data.status'],
    },
    UpdateCardOnBoard: {
      args: () => ({ board_identifier: b(), card_item_id: ids.card, ...exec({ data: { title: 'Card (edited)' } }) }),
      body: () => ({ data: { title: 'Card (edited)' } }),
      read: () => ['GetCardItemInfo', { board_identifier: b(), item_unique_id: ids.card }],
      changes: ['data.title'],
    },
    UpdateConnectorOnBoard: {
      args: () => ({ board_identifier: b(), connector_identifier: ids.connector, ...exec({ shape: 'straight' }) }),
      body: () => ({ shape: 'straight' }),
      read: () => ['RetrieveBoardConnectorInfo', { board_unique_identifier: b(), connector_unique_id: ids.connector }],
      changes: ['shape'],
    },
    UpdateDocumentItemOnBoard: {
      args: () => ({ board_id: b(), item_identifier_to_update: ids.doc, document_title: 'Spec v2' }),
      body: () => ({ data: { title: 'Spec v2' } }),
      read: () => ['RetrieveDocumentItemInfo', { board_identifier: b(), document_item_id: ids.doc }],
      changes: ['data.title'],
    },
    UpdateEmbedItemOnBoard: {
      args: () => ({ board_id: b(), embed_item_id: ids.embed, embed_display_mode: 'modal' }),
      body: () => ({ data: { mode: 'modal' } }),
      read: () => ['GetEmbedItemInfo', { board_identifier: b(), embed_item_id: ids.embed }],
      changes: ['data.mode'],
    },
    UpdateBoardImage: {
      args: () => ({ board_identifier: b(), image_item_id: ids.image, image_title: 'Diagram v2' }),
      body: () => ({ data: { title: 'Diagram v2' } }),
      read: () => ['GetImageItemInfo', { board_unique_id: b(), image_item_id: ids.image }],
      changes: ['data.title'],
    },
    UpdateBoardShape: {
      args: () => ({ board_identifier: b(), shape_item_id: ids.shape, ...exec({ data: { content: 'Shape (edited)' } }) }),
      body: () => ({ data: { content: 'Shape (edited)' } }),
      read: () => ['GetShapeInformation', { board_identifier: b(), shape_item_id: ids.shape }],
      changes: ['data.content'],
    },
    UpdateStickyNote: {
      args: () => ({ board_id_for_update: b(), sticky_note_id: ids.sticky2, ...exec({ data: { content: 'Second (edited)' } }) }),
      body: () => ({ data: { content: 'Second (edited)' } }),
      read: () => ['GetStickyNoteInfo', { canvas_board_id: b(), sticky_note_id: ids.sticky2 }],
      changes: ['data.content'],
    },
    UpdateBoardText: {
      args: () => ({ board_id: b(), text_item_id: ids.text, ...exec({ data: { content: 'Text (edited)' } }) }),
      body: () => ({ data: { content: 'Text (edited)' } }),
      read: () => ['GetTextItemInfo', { board_id: b(), text_item_id: ids.text }],
      changes: ['data.content'],
    },
    UpdateFlowchartShape: {
      args: () => ({ board_identifier: b(), item_id: ids.flow, ...exec({ data: { content: 'Really?' } }) }),
      body: () => ({ data: { content: 'Really?' } }),
      read: () => ['RetrieveShapeInformation', { board_identifier: b(), shape_item_id: ids.flow }],
      changes: ['data.content'],
    },
    UpdateCanvasBoardFrame: {
      args: () => ({ board_id: b(), frame_id: ids.frame, ...exec({ data: { title: 'Frame (edited)' } }) }),
      body: () => ({ data: { title: 'Frame (edited)' } }),
      read: () => ['GetBoardFrameInfo', { board_unique_id: b(), frame_id: ids.frame }],
      changes: ['data.title'],
    },
    UpdateBoardGroup: {
      args: () => ({ board_unique_id: b(), group_id: ids.group, item_ids: [ids.sticky, ids.sticky2, ids.text] }),
      body: () => ({ data: { items: [ids.sticky, ids.sticky2, ids.text] } }),
      read: () => ['GetGroupItemsCanvas', { board_unique_identifier: b(), group_id: ids.group }],
      changes: ['data.items'],
    },
    UpdateCanvasTag: {
      args: () => ({ board_identifier: b(), tag_unique_identifier: ids.tag, tag_title: 'Tag (edited)' }),
      body: () => ({ title: 'Tag (edited)' }),
      read: () => ['GetTagInfo', { board_id: b(), tag_identifier: ids.tag }],
      changes: ['title'],
    },
    UpdateBoardWebhookSubscription: {
      args: () => ({ subscription_id: ids.subscription, webhook_status: 'disabled' }),
      body: () => ({ status: 'disabled' }),
      read: () => ['GetCanvasSubscriptionInfo', { subscription_id: ids.subscription }],
      changes: ['status'],
    },
    UpdateProjectInfo: {
      args: () => ({ organization_id: org, team_id: team, project_identifier: ids.project, new_project_name: 'Updates project (renamed)' }),
      body: () => ({ name: 'Updates project (renamed)' }),
      read: () => ['GetCanvasProjectInfo', { organization_id: org, team_id_for_project_info: team, project_identifier: ids.project }],
      changes: ['name'],
    },
    UpdateProjectSettings: {
      args: () => ({ organization_id: org, team_id: team, project_identifier: ids.project, team_access_level: 'view' }),
      body: () => ({ sharingPolicySettings: { teamAccess: 'view' } }),
      read: () => ['GetProjectSettings', { organization_id: org, team_id: team, project_id: ids.project }],
      changes: ['sharingPolicySettings.teamAccess'],
    },
    UpdateProjectMemberRole: {
      args: () => ({ organization_id: org, team_id: team, project_id: ids.project, member_id: ids.projectMember, project_member_role: 'commentator' }),
      body: () => ({ role: 'commentator' }),
      read: () => ['GetProjectMemberInfo', { organization_id: org, team_identifier: team, project_identifier: ids.project, member_id: ids.projectMember }],
      changes: ['role'],
    },
    UpdateEnterpriseTeam: {
      args: () => ({ organization_id: org, team_identifier: ids.team, new_team_name: 'Updates team (renamed)' }),
      body: () => ({ name: 'Updates team (renamed)' }),
      read: () => ['GetTeamInfo', { organization_id: org, team_id: ids.team }],
      changes: ['name'],
    },
    UpdateTeamMemberRole: {
      args: () => ({ organization_id: org, team_identifier: ids.team, team_member_id: ids.colleague, team_member_role: 'admin' }),
      body: () => ({ role: 'admin' }),
      read: () => ['RetrieveTeamMemberById', { organization_id: org, team_identifier: ids.team, team_member_id: ids.colleague }],
      changes: ['role'],
    },
    UpdateTeamSettings: {
      args: () => ({ organization_id: org, team_identifier: ids.team, ...exec({ teamCollaborationSettings: { coOwnerRole: 'disabled' } }) }),
      body: () => ({ teamCollaborationSettings: { coOwnerRole: 'disabled' } }),
      read: () => ['GetTeamSettings', { organization_id: org, team_id: ids.team }],
      changes: ['teamCollaborationSettings.coOwnerRole'],
    },
  };

  it('there is a case for every update tool', () => {
    const updates = canvasApiCatalogue.filter((e) => e.effect === 'update').map((e) => e.name.replace(P, ''));
    assert.deepEqual(Object.keys(cases).sort(), updates.sort());
  });

  for (const [short, c] of Object.entries(cases)) {
    it(`${short}: sends only the given field, and only it changes`, async () => {
      const [readTool, readArgs] = c.read();
      const before = await ok(readTool, readArgs);
      const start = sandbox.requests.length;
      await ok(short, c.args());
      const sent = sandbox.requests.slice(start);
      assert.equal(sent.length, 1, `${short}: one request`);
      assert.deepEqual(sent[0]?.body, c.body(), `${short}: the body holds the given field only`);
      const after = await ok(readTool, readArgs);
      const changed = changedPaths(before, after);
      assert.ok(changed.length > 0, `${short}: the field changed`);
      if (!c.changes.includes('*')) assert.deepEqual(changed, c.changes, `${short}: only the given field changed`);
    });
  }

  it('an omitted position keeps a document, an embed and an image where they are; 0 still moves them to the centre', async () => {
    const doc = await ok('RetrieveDocumentItemInfo', { board_identifier: b(), document_item_id: ids.doc });
    assert.deepEqual([doc.position.x, doc.position.y], [-420, 420], 'after a title-only update');
    const embed = await ok('GetEmbedItemInfo', { board_identifier: b(), embed_item_id: ids.embed });
    assert.deepEqual([embed.position.x, embed.position.y], [300, -200]);
    const image = await ok('GetImageItemInfo', { board_unique_id: b(), image_item_id: ids.image });
    assert.deepEqual([image.position.x, image.position.y], [-600, 50]);
    const moved = await ok('UpdateDocumentItemOnBoard', { board_id: b(), item_identifier_to_update: ids.doc, x_axis_coordinate_on_board: 0, y_axis_coordinate: 0 });
    assert.deepEqual([moved.position.x, moved.position.y], [0, 0], 'the contract default is reachable by passing it');
  });
});
