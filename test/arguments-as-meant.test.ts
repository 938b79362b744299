/**
 * Arguments taken as agents mean them, and refused before sending when they cannot be right:
 * - on every tool of both servers, null for every optional parameter behaves exactly as leaving it
 *   out (same requests, same result), with calls generated from the listed schemas;
 * - a required parameter given as null gets a clear error; digit text is a number on both servers;
 * - int64 label IDs (19 digits) reach the platform digit-exact, and a JSON number past 2^53 is
 *   refused with advice to pass text;
 * - board links are board IDs; GetIncident takes an incident number;
 * - an ID with /, ?, # or a dot segment is refused before the call's first request (GetTeam too);
 * - webhook_status lost_access stays listed but is refused locally.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/server';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import type { CanvasParam } from '../src/canvasapi/catalogue-types.js';
import { z } from 'zod';
import { ToolError } from '../src/core/errors.js';
import { jsonText } from '../src/core/json.js';
import { listTools, type AnyToolServer } from '../src/core/tools/registry.js';
import { parseArguments } from '../src/core/tools/schema.js';
import { parseJsonExact } from '../src/sandbox/canvasapi/http.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { sampleByFormat } from './support/canvas-samples.js';
import { callTool, canvasApiServerFor, incidentOpsServerFor, jsonResponse, scriptedFetch, startTestSandbox, type ToolOutcome } from './support/harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type SchemaNode = Record<string, unknown>;

const NOW = new Date('2026-05-06T12:00:00Z');
const canvasParams = new Map(canvasApiCatalogue.map((entry) => [entry.name, new Map(entry.params.map((p) => [p.name, p]))]));

/** A plausible value for a required parameter, from its listed schema (and, for CanvasApi, its catalogue format). */
function sampleFor(node: SchemaNode, param: CanvasParam | undefined): unknown {
  const byFormat = param ? sampleByFormat(param) : undefined;
  if (byFormat !== undefined) return byFormat;
  if (Array.isArray(node.enum)) return node.enum[0];
  switch (node.type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return typeof node.minimum === 'number' ? node.minimum : 1;
    case 'array':
      return [sampleFor((node.items ?? {}) as SchemaNode, undefined)];
    default:
      return 'PABC123';
  }
}

/** Every request a call sent: method, URL and body text. */
async function recordedCall(makeServer: (fetchImpl: typeof fetch) => AnyToolServer, name: string, args: Json): Promise<{ outcome: ToolOutcome; sent: string[] }> {
  const { fetch: fetchImpl, calls } = scriptedFetch(() => jsonResponse(200, { id: 'X1', data: [], total: 0, offset: 0, limit: 10, more: false }));
  const outcome = await callTool(makeServer(fetchImpl), name, args);
  return { outcome, sent: calls.map((c) => `${c.init.method ?? 'GET'} ${c.url.href} ${String(c.init.body ?? '')}`) };
}

const servers: Record<string, (fetchImpl: typeof fetch) => AnyToolServer> = {
  IncidentOps: (fetchImpl) => incidentOpsServerFor(undefined, { baseUrl: 'https://incidents.example.test', accessToken: 'test-token', fetch: fetchImpl, now: () => NOW }),
  CanvasApi: (fetchImpl) => canvasApiServerFor({ baseUrl: 'https://canvas.example.test', token: 'test-token' }, { fetch: fetchImpl, now: () => NOW }),
};

describe('null for every optional parameter behaves as leaving it out, on every tool', () => {
  it('sends the same requests and answers the same on all tools of both servers', async (t) => {
    let tools = 0;
    let nulls = 0;
    let reachedPlatform = 0;
    for (const make of Object.values(servers)) {
      const listing: Tool[] = listTools(make(fetch));
      for (const tool of listing) {
        tools += 1;
        const properties = (tool.inputSchema.properties ?? {}) as Record<string, SchemaNode>;
        const required = new Set(tool.inputSchema.required ?? []);
        const params = canvasParams.get(tool.name);
        const without: Json = {};
        for (const name of required) without[name] = sampleFor(properties[name] ?? {}, params?.get(name));
        const withNulls: Json = { ...without };
        for (const name of Object.keys(properties)) {
          if (required.has(name)) continue;
          withNulls[name] = null;
          nulls += 1;
        }
        const plain = await recordedCall(make, tool.name, without);
        const nulled = await recordedCall(make, tool.name, withNulls);
        assert.deepEqual(nulled.outcome.isError, plain.outcome.isError, `${tool.name}: ${JSON.stringify(nulled.outcome.data)}`);
        assert.deepEqual(nulled.outcome.data, plain.outcome.data, `${tool.name}: the result differs with nulls`);
        assert.deepEqual(nulled.sent, plain.sent, `${tool.name}: the requests differ with nulls`);
        if (plain.sent.length > 0) reachedPlatform += 1;
      }
    }
    t.diagnostic(`${tools} tools, ${nulls} optional parameters given as null, ${reachedPlatform} tools sent requests`);
    assert.equal(tools, 153, 'both servers list 153 tools together');
    assert.ok(nulls >= 240, `optional parameters given as null: ${nulls}`);
    // Most generated calls get past validation, so the comparison covers the requests, not only errors.
    assert.ok(reachedPlatform >= 100, `tools that sent a request: ${reachedPlatform}`);
  });

  it('keeps the contract types in the listings (no "null" type added)', () => {
    for (const make of Object.values(servers)) {
      for (const tool of listTools(make(fetch))) assert.doesNotMatch(JSON.stringify(tool.inputSchema), /"null"/, tool.name);
    }
  });
});

describe('spellings and refusals, against the sandbox', () => {
  let sandbox: RunningSandbox;
  let incidents: AnyToolServer;
  let canvas: AnyToolServer;

  before(async () => {
    sandbox = await startTestSandbox();
    incidents = incidentOpsServerFor(sandbox);
    canvas = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => sandbox.close());

  async function run(server: AnyToolServer, name: string, args: unknown) {
    sandbox.clearRequests();
    const outcome = await callTool(server, name, args);
    return { ...outcome, sent: [...sandbox.requests] };
  }
  const issuesOf = (outcome: ToolOutcome) => (outcome.data.issues ?? []) as { parameter: string; problem: string }[];

  it('a required parameter given as null is refused by name, and nothing is sent', async () => {
    const result = await run(incidents, 'IncidentOps.GetIncident', { incident_id: null });
    assert.equal(result.data.kind, 'invalid_input');
    assert.equal(result.sent.length, 0);
    const issue = issuesOf(result).find((i) => i.parameter === 'incident_id');
    assert.ok(issue, JSON.stringify(result.data));
    assert.match(issue.problem, /must not be null.*required.*expected a string/);
  });

  it('digit text is a number on both servers; other text is refused by name', async () => {
    const five = await run(incidents, 'IncidentOps.ListIncidents', { limit: '5', offset: ' 2 ' });
    assert.equal(five.isError, false, JSON.stringify(five.data));
    const query = five.sent[0]!.query;
    assert.deepEqual(query.filter(([k]) => k === 'limit').map(([, v]) => v), ['5']);
    assert.deepEqual(query.filter(([k]) => k === 'offset').map(([, v]) => v), ['2']);
    assert.equal(five.data.limit, 5);

    for (const bad of ['5.5', 'five', '', '99999999999999999']) {
      const refused = await run(incidents, 'IncidentOps.ListIncidents', { limit: bad });
      assert.equal(refused.data.kind, 'invalid_input', bad);
      assert.equal(refused.sent.length, 0);
      assert.ok(issuesOf(refused).some((i) => i.parameter === 'limit'), JSON.stringify(refused.data));
    }

    const org = sandbox.canvasapi.demo!.organizationId;
    const members = await run(canvas, 'CanvasApi.GetOrganizationMembers', { organization_id: org, result_limit: '3' });
    assert.equal(members.isError, false, JSON.stringify(members.data));
    assert.deepEqual(members.sent[0]!.query.filter(([k]) => k === 'limit').map(([, v]) => v), ['3']);
  });

  it('a 19-digit label ID reaches the platform digit-exact, in both classification tools', async () => {
    const demo = sandbox.canvasapi.demo!;
    const settings = await run(canvas, 'CanvasApi.GetBoardClassificationSettings', { organization_id: demo.organizationId });
    const labels = settings.data.labels as Json[];
    const label = String(labels.find((l) => !l.default && l.name !== 'Confidential')?.id);
    assert.match(label, /^\d{19}$/);
    assert.ok(BigInt(label) > BigInt(Number.MAX_SAFE_INTEGER));
    assert.notEqual(String(BigInt(Number(label))), label, 'this ID cannot survive as a JSON number');

    const team = await run(canvas, 'CanvasApi.UpdateTeamBoardClassificationSettings', { organization_id: demo.organizationId, team_identifier: demo.teamId, data_classification_default_label_id: label });
    assert.equal(team.isError, false, JSON.stringify(team.data));
    assert.match(team.sent[0]!.bodyText ?? '', new RegExp(`"defaultLabelId":${label}[,}]`));
    assert.equal(team.data.defaultLabelId, label);

    const bulk = await run(canvas, 'CanvasApi.UpdateBoardClassification', { organization_id: demo.organizationId, team_identifier: demo.teamId, data_classification_label_id: ` ${label} ` });
    assert.equal(bulk.isError, false, JSON.stringify(bulk.data));
    assert.match(bulk.sent[0]!.bodyText ?? '', new RegExp(`"labelId":${label}[,}]`));
    const board = demo.boardIds[0] as string;
    const read = await run(canvas, 'CanvasApi.RetrieveBoardClassification', { board_identifier: board, organization_id: demo.organizationId, team_id: demo.teamId });
    assert.equal(read.data.id, label);
  });

  it('a JSON number past 2^53 is refused with advice to pass text; a small one goes out as a number', async () => {
    const demo = sandbox.canvasapi.demo!;
    const lossy = await run(canvas, 'CanvasApi.UpdateBoardClassification', { organization_id: demo.organizationId, team_identifier: demo.teamId, data_classification_label_id: 3000457366756290996 });
    assert.equal(lossy.data.kind, 'invalid_input');
    assert.equal(lossy.sent.length, 0);
    assert.match(issuesOf(lossy).find((i) => i.parameter === 'data_classification_label_id')?.problem ?? '', /2\^53.*as text/);
    for (const bad of ['30004573667562909961', '-4', 'abc', 1.5]) {
      const refused = await run(canvas, 'CanvasApi.UpdateBoardClassification', { organization_id: demo.organizationId, team_identifier: demo.teamId, data_classification_label_id: bad });
      assert.equal(refused.data.kind, 'invalid_input', String(bad));
      assert.equal(refused.sent.length, 0);
    }
    const small = await run(canvas, 'CanvasApi.UpdateBoardClassification', { organization_id: demo.organizationId, team_identifier: demo.teamId, data_classification_label_id: 42 });
    assert.match(small.sent[0]!.bodyText ?? '', /"labelId":42[,}]/);
  });

  it('a board link is its board ID wherever a board ID goes', async () => {
    const board = sandbox.canvasapi.demo!.boardIds[0] as string;
    const links = [
      `https://miro.com/app/board/${board}/?moveToWidget=3458764517517819000&cot=14`,
      `https://miro.com/app/board/${encodeURIComponent(board)}`,
      `miro.com/app/board/${board}/`,
      `http://www.miro.com/app/live-embed/${board}/?embedMode=view_only`,
    ];
    for (const link of links) {
      const result = await run(canvas, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: link });
      assert.equal(result.isError, false, `${link}: ${JSON.stringify(result.data)}`);
      assert.equal(result.data.id, board);
      assert.equal(result.sent[0]!.path, `/v2/boards/${encodeURIComponent(board)}`);
    }
    // Only the platform's own links: another site's path is not taken for a board ID, and the refusal names the hosts read.
    for (const tool of ['CanvasApi.RetrieveBoardInfo', 'CanvasApi.ReadBoard']) {
      const parameter = tool === 'CanvasApi.ReadBoard' ? 'board_id' : 'board_unique_identifier';
      const foreign = await run(canvas, tool, { [parameter]: `https://evil.example/app/board/${board}/` });
      assert.equal(foreign.data.kind, 'invalid_input');
      assert.equal(foreign.sent.length, 0);
      const problem = issuesOf(foreign).find((i) => i.parameter === parameter)?.problem ?? '';
      assert.match(problem, /evil\.example, which is not the platform's web host/, problem);
      assert.match(problem, /board links are read on miro\.com \(and its subdomains\)/, problem);
      assert.ok(problem.includes(new URL(sandbox.canvasapi.baseUrl).host), `the configured platform's host is named: ${problem}`);
    }
  });

  it("the platform's own viewLink reads as the board ID, on the configured platform's web host (the sandbox)", async () => {
    const created = await run(canvas, 'CanvasApi.CreateCanvasBoard', { mode: 'execute', request_body: { name: 'Linked back' } });
    assert.equal(created.isError, false, JSON.stringify(created.data));
    const viewLink = String(created.data.viewLink);
    const board = String(created.data.id);
    assert.ok(viewLink.startsWith(`${sandbox.canvasapi.baseUrl}/app/board/`), viewLink);
    await run(canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: board, request_body: { data: { content: 'Read me back' } } });

    const withExtras = [viewLink, `${viewLink}?moveToWidget=1&cot=14`, `${viewLink.replace(/\/$/, '')}#frame`, viewLink.replace(/^https?:\/\//, ''), viewLink.replace('/app/board/', '/app/live-embed/')];
    for (const link of withExtras) {
      const info = await run(canvas, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: link });
      assert.equal(info.isError, false, `${link}: ${JSON.stringify(info.data)}`);
      assert.equal(info.data.id, board);
      assert.equal(info.sent[0]!.path, `/v2/boards/${encodeURIComponent(board)}`);
    }
    const read = await run(canvas, 'CanvasApi.ReadBoard', { board_id: viewLink });
    assert.equal(read.isError, false, JSON.stringify(read.data));
    assert.equal((read.data.board as Json).name, 'Linked back');
    assert.match(JSON.stringify(read.data.items), /Read me back/);
    assert.ok(read.sent.every((request) => request.path.startsWith(`/v2/boards/${encodeURIComponent(board)}`)), JSON.stringify(read.sent.map((r) => r.path)));

    // Where a board ID goes in a query or a body, the link is its ID as well (CopyCanvasBoard's copy_from).
    const copy = await run(canvas, 'CanvasApi.CopyCanvasBoard', { mode: 'execute', source_board_id: viewLink, request_body: { name: 'Linked copy' } });
    assert.equal(copy.isError, false, JSON.stringify(copy.data));
    assert.deepEqual(copy.sent[0]!.query.filter(([k]) => k === 'copy_from').map(([, v]) => v), [board]);

    // The same host outside the web app's path is no board link: refused, with what one looks like.
    const origin = new URL(sandbox.canvasapi.baseUrl).origin;
    const elsewhere = await run(canvas, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: `${origin}/app/board/${board}/` });
    assert.equal(elsewhere.data.kind, 'invalid_input');
    assert.equal(elsewhere.sent.length, 0);
    assert.match(issuesOf(elsewhere)[0]?.problem ?? '', /not to a board: a board link there looks like .*\/canvasapi\/app\/board\/<board ID>\//);
  });

  it('GetIncident takes the incident number, with or without #', async () => {
    const list = await run(incidents, 'IncidentOps.ListIncidents', { limit: 1 });
    const first = (list.data.incidents as Json[])[0]!;
    assert.equal(typeof first.incident_number, 'number');
    for (const spelled of [String(first.incident_number), `#${first.incident_number}`]) {
      const one = await run(incidents, 'IncidentOps.GetIncident', { incident_id: spelled });
      assert.equal(one.isError, false, JSON.stringify(one.data));
      assert.equal((one.data.incident as Json).id, first.id);
      assert.equal(one.sent[0]!.path, `/incidents/${first.incident_number}`);
    }
  });

  it('an ID with /, ?, # or a dot segment is refused before the first request, on both servers', async () => {
    const hostile = ['../teams', 'P1/members', 'P1?x=1', 'P1#frag', '..', '.', 'a\\b'];
    for (const id of hostile) {
      const team = await run(incidents, 'IncidentOps.GetTeam', { team_id: id });
      assert.equal(team.data.kind, 'invalid_input', id);
      assert.equal(team.sent.length, 0, `GetTeam sent ${team.sent.length} requests for ${id}`);
      assert.ok(issuesOf(team).some((i) => i.parameter === 'team_id'));

      const item = await run(canvas, 'CanvasApi.GetStickyNoteInfo', { board_id: sandbox.canvasapi.demo!.boardIds[0], item_id: id });
      assert.equal(item.data.kind, 'invalid_input', id);
      assert.equal(item.sent.length, 0);
      assert.ok(issuesOf(item).some((i) => i.parameter === 'item_id'), JSON.stringify(item.data));
    }
  });

  it('webhook_status lost_access stays listed but is refused locally, naming what a caller can set', async () => {
    for (const name of ['CanvasApi.CreateBoardSubscription', 'CanvasApi.UpdateBoardWebhookSubscription']) {
      const listed = listTools(canvas).find((t) => t.name === name)!;
      assert.deepEqual((listed.inputSchema.properties as Json).webhook_status.enum, ['enabled', 'disabled', 'lost_access']);
      const args = { board_id: sandbox.canvasapi.demo!.boardIds[0], subscription_id: '3458764000000000001', webhook_callback_url: 'https://hooks.example.com/x', webhook_status: 'lost_access' };
      const own = Object.fromEntries(Object.entries(args).filter(([key]) => key in (listed.inputSchema.properties as Json)));
      const result = await run(canvas, name, own);
      assert.equal(result.data.kind, 'invalid_input');
      assert.equal(result.sent.length, 0);
      assert.match(issuesOf(result).find((i) => i.parameter === 'webhook_status')?.problem ?? '', /set by the platform.*"enabled", "disabled"/);
    }
  });
});

describe('exact int64 JSON on both sides of the wire', () => {
  it('jsonText writes bigints as exact numbers and leaves look-alike text alone', () => {
    const text = jsonText({ labelId: 3000457366756290996n, note: 'int64:abc:12', list: [1n, -2n], nested: { n: 1 } });
    assert.equal(text, '{"labelId":3000457366756290996,"note":"int64:abc:12","list":[1,-2],"nested":{"n":1}}');
    assert.equal(jsonText({ a: 1 }), JSON.stringify({ a: 1 }));
  });

  it('the sandbox parses an integer past 2^53 exactly, and strings stay strings', () => {
    const parsed = parseJsonExact('{"labelId":3000457366756290996,"text":"3000457366756290996 \\"9999999999999999999\\"","small":12}') as Json;
    assert.equal(parsed.labelId, 3000457366756290996n);
    assert.equal(parsed.text, '3000457366756290996 "9999999999999999999"');
    assert.equal(parsed.small, 12);
  });
});

describe('the core rule, on schemas of every shape', () => {
  const schema = z.strictObject({
    name: z.string(),
    count: z.number().int().min(0).optional(),
    ratio: z.number().optional(),
    ids: z.array(z.number().int()).optional(),
    window: z.strictObject({ from: z.string(), size: z.number().int().optional() }).optional(),
    body: z.unknown().optional(),
    flag: z.boolean().default(false),
  });
  const refusal = (args: unknown) => {
    try {
      parseArguments(schema, args);
    } catch (error) {
      assert.ok(error instanceof ToolError);
      return JSON.stringify(error.toJSON());
    }
    assert.fail(`accepted ${JSON.stringify(args)}`);
  };

  it('null means not given at any declared depth (defaults apply); free-form JSON keeps its nulls', () => {
    const given = { name: 'a', count: null, ratio: null, ids: null, window: { from: 'x', size: null }, body: { keep: null }, flag: null };
    assert.deepEqual(parseArguments(schema, given), { name: 'a', window: { from: 'x' }, body: { keep: null }, flag: false });
    assert.equal(given.count, null, 'the caller\'s object is not changed');
  });

  it('digit text is the number for integers, numbers and integer items; anything else is refused by name', () => {
    assert.deepEqual(parseArguments(schema, { name: '7', count: ' 12 ', ratio: '0.25', ids: ['3', 4] }), { name: '7', count: 12, ratio: 0.25, ids: [3, 4], flag: false });
    assert.match(refusal({ name: 'a', count: '1e3' }), /"parameter":"count"/);
    assert.match(refusal({ name: 'a', count: '-1' }), /"parameter":"count","problem":"must be at least 0/);
    assert.match(refusal({ name: 'a', ratio: 'NaN' }), /"parameter":"ratio"/);
    assert.match(refusal({ name: 'a', ids: ['x'] }), /"parameter":"ids\[0\]"/);
  });

  it('a required parameter or field given as null is named, and so is a null item', () => {
    assert.match(refusal({ name: null }), /"parameter":"name","problem":"must not be null \(it is required/);
    assert.match(refusal({ name: 'a', window: { from: null } }), /"parameter":"window.from","problem":"must not be null/);
    assert.match(refusal({ name: 'a', ids: [null] }), /"parameter":"ids\[0\]","problem":"must not be null: expected a number/);
  });
});
