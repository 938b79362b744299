/**
 * Every one of the 139 CanvasApi tools called with only its required arguments (plausible values:
 * IDs discovered in the sandbox's demo data, values of the right format, the first enum value)
 * either sends requests the platform's OpenAPI document accepts (a body wherever the spec requires
 * one, with every property the spec requires), or is refused locally with invalid_input, sending
 * nothing, and naming parameters that would fill the request: given values for them, it sends a
 * valid request. Also: AddMindmapNode sends node type "text" when omitted, and creates keep the
 * contract's x/y defaults.
 *
 * Skips when miro-openapi.json is absent (see support/reference.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import type { CanvasParam, CanvasToolEntry } from '../src/canvasapi/catalogue-types.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RecordedRequest, RunningSandbox } from '../src/sandbox/server.js';
import { sampleByFormat } from './support/canvas-samples.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { loadMiroValidators, MIRO_SPEC, TOOL_VARIANTS, variantPath, type MiroValidators } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const P = 'CanvasApi.';


/** IDs found in the sandbox's demo data before the calls. */
interface Known {
  org: string;
  team: string;
  project: string;
  board: string;
  app: string;
  me: string;
  colleague: { id: string; email: string };
  teamMember: string;
  projectMember: string;
  boardMember: string;
  items: Record<string, string>;
  mindmapNode: string;
  connector: string;
  tag: string;
  group: string;
  subscription: string;
  caseId: string;
  hold: string;
  job: string;
  label: string;
}

const FAKE_ID = '3074457999999999999';

describe('CanvasApi: every tool with only its required arguments', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  let validators: MiroValidators;
  let known: Known;

  async function read(short: string, args: J): Promise<J> {
    const result = await callTool(server, `${P}${short}`, args);
    assert.equal(result.isError, false, `${short}: ${JSON.stringify(result.data)}`);
    return result.data;
  }
  const firstId = (list: J[] | undefined, keep: (x: J) => boolean = () => true) => String((list ?? []).find(keep)?.id ?? FAKE_ID);

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const demo = sandbox.canvasapi.demo;
    assert.ok(demo);
    const board = demo.boardIds[0] as string;
    const token = await read('GetAccessTokenInfo', {});
    const me = String(token.user.id);
    const members = (await read('GetOrganizationMembers', { organization_id: demo.organizationId, result_limit: 100 })).data as J[];
    const colleague = members.find((m) => String(m.id) !== me && m.active === true && m.role === 'organization_internal_user');
    const teamMembers = (await read('GetEnterpriseTeamMembers', { organization_id: demo.organizationId, team_identifier: demo.teamId })).data as J[];
    const projectMembers = (await read('GetProjectMembers', { organization_id: demo.organizationId, team_id: demo.teamId, project_identifier: demo.projectId })).data as J[];
    const boardMembers = (await read('GetCanvasBoardMembers', { board_id: board, number_of_members_to_retrieve: '50' })).data as J[];
    const items: Record<string, string> = {};
    let next: J = {};
    do {
      const page = await read('RetrieveBoardItems', { board_identifier: board, items_limit: '50', ...next });
      for (const item of page.data as J[]) items[item.type] ??= String(item.id);
      next = page.next_page;
    } while (next);
    const cases = (await read('RetrieveEdiscoveryCases', { organization_id: demo.organizationId })).data as J[];
    const caseId = firstId(cases);
    const holds = (await read('RetrieveLegalHolds', { organization_id: demo.organizationId, case_id: caseId })).data as J[];
    const job = await read('CreateBoardExportJob', { organization_id: demo.organizationId, board_export_request_id: randomUUID(), export_board_ids: [board] });
    const labels = (await read('GetBoardClassificationSettings', { organization_id: demo.organizationId })).labels as J[];
    known = {
      org: demo.organizationId,
      team: demo.teamId,
      project: demo.projectId,
      board,
      app: demo.appId,
      me,
      colleague: { id: String(colleague?.id ?? FAKE_ID), email: String(colleague?.email ?? 'someone@example.com') },
      teamMember: firstId(teamMembers, (m) => String(m.id) !== me),
      projectMember: firstId(projectMembers, (m) => String(m.id) !== me),
      boardMember: firstId(boardMembers, (m) => m.role !== 'owner'),
      items,
      mindmapNode: firstId((await read('GetMindmapNodes', { board_identifier: board })).data),
      connector: firstId((await read('GetBoardConnectors', { board_identifier: board })).data),
      tag: firstId((await read('GetBoardTags', { board_id: board })).data),
      group: firstId((await read('GetBoardGroups', { board_id: board })).data),
      subscription: firstId((await read('GetUserWebhookSubscriptions', {})).data),
      caseId,
      hold: firstId(holds),
      job: String(job.jobId ?? FAKE_ID),
      label: firstId(labels),
    };
  });
  after(async () => {
    await sandbox?.close();
  });

  /** The item a path's `{item_id}` stands for, by the collection before it. */
  function itemFor(entry: CanvasToolEntry): string {
    const collection = /\/([a-z_]+)\/\{item_id\}/.exec(entry.path)?.[1] ?? 'items';
    const byCollection: Record<string, string | undefined> = {
      app_cards: known.items.app_card,
      cards: known.items.card,
      documents: known.items.document,
      embeds: known.items.embed,
      images: known.items.image,
      shapes: known.items.shape,
      sticky_notes: known.items.sticky_note,
      texts: known.items.text,
      frames: known.items.frame,
      mindmap_nodes: known.mindmapNode,
      items: known.items.sticky_note,
    };
    return byCollection[collection] ?? FAKE_ID;
  }

  /** The member a path's `{member_id}` stands for: of the organization, the team or the project. */
  function memberFor(entry: CanvasToolEntry): string {
    if (entry.path.includes('/projects/')) return known.projectMember;
    if (entry.path.includes('/teams/')) return known.teamMember;
    return known.colleague.id;
  }

  /** A plausible value for one parameter of one tool. */
  function valueFor(entry: CanvasToolEntry, param: CanvasParam): unknown {
    const [where, target = ''] = param.to.split(':') as [string, string | undefined];
    if (param.name === 'mode') return 'execute';
    if (where === 'path') {
      const ids: Record<string, string> = {
        org_id: known.org,
        team_id: known.team,
        project_id: known.project,
        board_id: known.board,
        app_id: known.app,
        board_member_id: known.boardMember,
        connector_id: known.connector,
        tag_id: known.tag,
        group_id: known.group,
        subscription_id: known.subscription,
        case_id: known.caseId,
        legal_hold_id: known.hold,
        job_id: known.job,
      };
      if (target === 'item_id') return itemFor(entry);
      if (target === 'member_id') return memberFor(entry);
      return ids[target] ?? FAKE_ID;
    }
    if (target === 'parent_item_id' || target === 'parent.id') return entry.path.includes('mindmap') ? known.mindmapNode : (known.items.frame ?? FAKE_ID);
    if (target === 'group_item_id') return known.group;
    if (target === 'tag_id') return known.tag;
    if (target === 'boardId') return known.board;
    if (target === 'labelId' || target === 'defaultLabelId') return known.label; // int64 label IDs go as text (19 digits do not survive as a JSON number)
    const formatted = sampleByFormat(param, known.colleague.email);
    if (formatted !== undefined) return formatted;
    switch (param.type) {
      case 'boolean':
        return false;
      case 'number':
      case 'integer':
        return param.min ?? (/width|height/.test(param.name) ? 200 : 10);
      case 'string[]':
        if (target === 'data.items') return [known.items.sticky_note ?? FAKE_ID, known.items.card ?? FAKE_ID];
        if (/board/.test(param.name)) return [known.board];
        return ['Sample'];
      case 'string':
        if (param.to === 'body') return JSON.stringify({});
        return `Sample ${param.name.replace(/_/g, ' ')}`;
    }
  }

  function requiredArgs(entry: CanvasToolEntry): Record<string, unknown> {
    return Object.fromEntries(entry.params.filter((p) => p.required).map((p) => [p.name, valueFor(entry, p)]));
  }

  /** Spec problems of the requests one call sent. */
  function specProblems(short: string, requests: RecordedRequest[]): string[] {
    const problems: string[] = [];
    for (const req of requests) {
      const variant = TOOL_VARIANTS[short];
      const validator = variant ? validators.alt : validators.main;
      const path = variantPath(variant, req.path);
      const label = `${short}: ${req.method} ${req.path}${req.query.length ? `?${new URLSearchParams(req.query).toString()}` : ''} ${JSON.stringify(req.body) ?? ''}`;
      if (!validator.findOperation(req.method, path)) {
        problems.push(`${label}: no such operation`);
        continue;
      }
      for (const e of validator.validateRequest({ method: req.method, path, query: req.query, headers: req.headers, body: req.body })) problems.push(`${label}: ${e}`);
    }
    return problems;
  }

  /** Reads, creates and updates first; then deletes, the deepest resources first; irreversible actions last. */
  function order(entries: readonly CanvasToolEntry[]): CanvasToolEntry[] {
    const rank = { read: 0, create: 1, update: 2, delete: 3, action: 4 } as const;
    const depth = (e: CanvasToolEntry) => e.path.split('/').length;
    return [...entries].sort((a, b) => rank[a.effect] - rank[b.effect] || (a.effect === 'delete' ? depth(b) - depth(a) : 0));
  }

  it('sends a request the official spec accepts, or refuses locally naming the parameters that would fill it', async () => {
    const problems: string[] = [];
    const outcome = new Map<string, string>();
    for (const entry of order(canvasApiCatalogue)) {
      const short = entry.name.replace(P, '');
      const args = requiredArgs(entry);
      const start = sandbox.requests.length;
      const result = await callTool(server, entry.name, args);
      const sent = sandbox.requests.slice(start);
      if (result.isError && result.data.kind === 'invalid_input') {
        if (sent.length) problems.push(`${short}: refused as invalid_input but sent ${sent.length} request(s)`);
        const named = ((result.data.issues as { parameter: string }[] | undefined) ?? []).map((i) => i.parameter);
        const params = named.map((name) => entry.params.find((p) => p.name === name));
        if (!named.length || params.some((p) => p === undefined || p.required)) {
          problems.push(`${short}: the refusal names ${JSON.stringify(named)}, not optional parameters of the tool (${result.data.message})`);
          continue;
        }
        outcome.set(short, `refused: ${named.join(', ')}`);
        // Given values for the named parameters, the tool sends a request the spec accepts
        // (two-mode tools need a schema-valid body: the scenario test covers them).
        if (entry.requestSchema) continue;
        const filled = { ...args, ...Object.fromEntries((params as CanvasParam[]).map((p) => [p.name, valueFor(entry, p)])) };
        const again = sandbox.requests.length;
        const retry = await callTool(server, entry.name, filled);
        if (retry.isError && retry.data.kind === 'invalid_input') problems.push(`${short}: still refused with ${JSON.stringify(filled)}: ${String(retry.data.message)}`);
        const resent = sandbox.requests.slice(again);
        if (!retry.isError || retry.data.kind !== 'invalid_input') {
          if (!resent.length) problems.push(`${short}: nothing sent with ${JSON.stringify(filled)}`);
          problems.push(...specProblems(short, resent));
        }
        continue;
      }
      if (!sent.length) {
        problems.push(`${short}: sent nothing, yet answered ${JSON.stringify(result.data).slice(0, 200)}`);
        continue;
      }
      outcome.set(short, `sent: ${sent.map((r) => `${r.method} ${r.status}${r.body === undefined ? '' : ` ${JSON.stringify(r.body)}`}`).join('; ')}`);
      problems.push(...specProblems(short, sent));
    }
    if (process.env.SHOW_MINIMAL_OUTCOMES === '1') for (const [tool, what] of outcome) console.log(`${tool}\t${what}`);
    assert.deepEqual(problems, []);
    assert.equal(outcome.size, 139, 'every tool was called');
  });
});

describe('CanvasApi: values and refusals that keep requests valid', () => {
  const BASE = 'https://canvas.example.test';
  function scripted() {
    const calls: { url: URL; body: unknown }[] = [];
    const fetchImpl = (async (input: string | URL | Request, init: RequestInit = {}) => {
      calls.push({ url: new URL(String(input)), body: init.body === undefined ? undefined : JSON.parse(String(init.body)) });
      return new Response(JSON.stringify({ id: '1', type: 'item' }), { status: 201, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    return { calls, server: canvasApiServerFor({ baseUrl: BASE, token: 'canvas-token-0123456789' }, { fetch: fetchImpl }) };
  }

  it('AddMindmapNode sends node type "text" when omitted (its only valid value), and the given one otherwise', async () => {
    const { calls, server } = scripted();
    assert.equal((await callTool(server, 'CanvasApi.AddMindmapNode', { board_id: 'b1' })).isError, false);
    assert.deepEqual(calls[0]?.body, { data: { nodeView: { data: { type: 'text' } } }, position: { x: 0, y: 0 } });
    await callTool(server, 'CanvasApi.AddMindmapNode', { board_id: 'b1', mindmap_node_content: 'Root', node_type: 'text', x_coordinate: 5 });
    assert.deepEqual(calls[1]?.body, { data: { nodeView: { data: { type: 'text', content: 'Root' } } }, position: { x: 5, y: 0 } });
  });

  it('creates keep the contract position defaults; updates send no position unless given', async () => {
    const { calls, server } = scripted();
    await callTool(server, 'CanvasApi.AddImageToCanvasBoard', { board_unique_identifier: 'b1', image_url: 'https://images.example.com/a.png' });
    assert.deepEqual(calls[0]?.body, { data: { url: 'https://images.example.com/a.png' }, position: { x: 0, y: 0 } });
    await callTool(server, 'CanvasApi.UpdateBoardImage', { board_identifier: 'b1', image_item_id: 'i1', image_title: 'New' });
    assert.deepEqual(calls[1]?.body, { data: { title: 'New' } });
    await callTool(server, 'CanvasApi.UpdateBoardImage', { board_identifier: 'b1', image_item_id: 'i1', y_axis_coordinate_position: 0 });
    assert.deepEqual(calls[2]?.body, { position: { y: 0 } }, 'an explicit 0 is sent');
  });

  const refusals: [string, Record<string, unknown>, string[]][] = [
    ['CanvasApi.UpdateDocumentItemOnBoard', { board_id: 'b1', item_identifier_to_update: 'i1' }, ['document_hosting_url', 'document_title', 'item_height_pixels', 'item_width_pixels', 'parent_frame_id', 'rotation_angle_degrees', 'x_axis_coordinate_on_board', 'y_axis_coordinate']],
    ['CanvasApi.UpdateBoardMemberRole', { board_unique_identifier: 'b1', board_member_unique_id: 'u1' }, ['board_member_role']],
    ['CanvasApi.AddDocumentToBoardByUrl', { board_identifier: 'b1', document_title: 'Spec' }, ['document_url']],
    ['CanvasApi.CreateBoardSubscription', { webhook_status: 'enabled' }, ['board_id', 'webhook_callback_url']],
    ['CanvasApi.CreateBoardExportJob', { organization_id: 'o1', board_export_request_id: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b', export_board_ids: [] }, ['export_board_ids']],
    ['CanvasApi.CreateGroupOnBoard', { board_identifier: 'b1' }, ['item_ids']],
  ];
  for (const [tool, args, named] of refusals) {
    it(`${tool} ${JSON.stringify(args).slice(0, 60)} is refused naming ${named.join(', ')}, and nothing is sent`, async () => {
      const { calls, server } = scripted();
      const result = await callTool(server, tool, args);
      assert.equal(result.data.kind, 'invalid_input', JSON.stringify(result.data));
      assert.deepEqual((result.data.issues as { parameter: string }[]).map((i) => i.parameter), named);
      assert.equal(calls.length, 0);
    });
  }
});
