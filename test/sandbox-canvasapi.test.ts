/**
 * The whiteboard platform emulator (src/sandbox/canvasapi), exercised over HTTP through the sandbox
 * host. Every one of the 139 endpoints the CanvasApi tools call is called at least once (checked
 * at the end against the endpoint reference), every request is checked against the platform's
 * OpenAPI document as a self-check, and every response body (success and error) is validated
 * against the schema the document declares for its status.
 *
 * Test-local adjustments of the spec (documented defects, not emulator shortcuts; the first two
 * live in support/miro-spec.ts, shared with the CanvasApi scenario test):
 *  - WidgetDataOutput, ItemDataCreate, ItemStyle, ItemDataChanges and ItemData use `oneOf` over
 *    schemas whose properties are all optional, so any object matches several branches and a
 *    strict validator rejects every valid body. They are checked as `anyOf`.
 *  - Four operations share a method + URL with another one and differ only by a query parameter
 *    (items by tag, items within a frame, remove tag from item, delete group with its items). The
 *    generic validator always picks the first; these are validated against their own operation
 *    through a second document that holds only them, under distinct path prefixes.
 *  - Statuses an operation does not declare (e.g. 401 on the board endpoints, 404 on a mind-map
 *    read) are checked against the generic `Error` schema instead.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { type OpenApiValidator } from './support/openapi.js';
import { loadMiroValidators, MIRO_SPEC, variantPath, type MiroVariant } from './support/miro-spec.js';
import { loadReferenceJson, referenceFile, skipUnlessReference } from './support/reference.js';
import { startSandbox, type RunningSandbox, type SandboxPlatform } from '../src/sandbox/server.js';
import { createCanvasApiPlatform } from '../src/sandbox/canvasapi/index.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const SPEC = MIRO_SPEC;
const TSV = 'canvasapi-endpoints.tsv';
const TOKEN = 'sandbox-token';
const DAY = 86_400_000;

type Variant = MiroVariant;

let main: OpenApiValidator;
let alt: OpenApiValidator;
const covered = new Set<string>();

function loadValidators(): void {
  ({ main, alt } = loadMiroValidators(loadReferenceJson<J>(SPEC)));
}

interface CallOptions {
  query?: Record<string, string | number | boolean | string[] | undefined>;
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  /** Authorization header value; null sends none. */
  auth?: string | null;
  variant?: Variant;
  /** A deliberately invalid request: skip the request self-check. */
  invalid?: boolean;
  /** The status is not declared for this operation in the spec: check the generic error schema. */
  undeclaredOk?: boolean;
}

class Api {
  constructor(
    readonly base: string,
    readonly token: string,
  ) {}

  async call(method: string, path: string, expect: number, opts: CallOptions = {}): Promise<J> {
    const query: [string, string][] = [];
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const x of v) query.push([k, x]);
      else query.push([k, String(v)]);
    }
    const qs = new URLSearchParams(query).toString();
    const specPath = variantPath(opts.variant, path);
    const validator = opts.variant ? alt : main;
    if (!opts.invalid) {
      const problems = validator.validateRequest({ method, path: specPath, query, body: opts.body });
      assert.deepEqual(problems, [], `request self-check failed for ${method} ${path}`);
    }
    const headers: Record<string, string> = {};
    const auth = opts.auth === undefined ? `Bearer ${this.token}` : opts.auth;
    if (auth !== null) headers.authorization = auth;
    let payload: string | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
    if (payload !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    const res = await fetch(`${this.base}${path}${qs ? `?${qs}` : ''}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    const body: J = text === '' ? undefined : JSON.parse(text);
    assert.equal(res.status, expect, `${method} ${path}${qs ? `?${qs}` : ''} -> ${res.status} ${text.slice(0, 400)}`);
    checkResponse(validator, method, specPath, res.status, body, opts);
    return body;
  }
}

function checkErrorShape(status: number, body: J, label: string): void {
  assert.deepEqual(main.validateSchemaAt('/components/schemas/Error', body), [], `${label}: error body`);
  assert.equal(body.status, status, `${label}: error status field`);
  assert.equal(body.type, 'error', `${label}: error type field`);
  assert.equal(typeof body.code, 'string', `${label}: error code`);
}

function checkResponse(validator: OpenApiValidator, method: string, specPath: string, status: number, body: J, opts: CallOptions): void {
  const op = validator.findOperation(method, specPath);
  assert.ok(op, `no operation for ${method} ${specPath}`);
  if (op.operationId) covered.add(op.operationId);
  const label = `${method} ${op.pathTemplate} -> ${status}`;
  const responses = op.operation.responses as Record<string, unknown>;
  if (status === 204) {
    assert.equal(body, undefined, `${label}: 204 must have no body`);
    assert.ok('204' in responses, `${label}: 204 not declared`);
    return;
  }
  if (!(String(status) in responses)) {
    assert.ok(opts.undeclaredOk, `${label}: status not declared by the spec (declared: ${Object.keys(responses).join(', ')})`);
    checkErrorShape(status, body, label);
    return;
  }
  const errors = validator.validateResponse(method, specPath, status, body);
  if (status >= 400 && errors.length === 1 && (errors[0] ?? '').includes('no content declared')) {
    checkErrorShape(status, body, label); // declared without a body schema (token info 400)
    return;
  }
  assert.deepEqual(errors, [], `${label}: response does not match the spec`);
  if (status >= 400) checkErrorShape(status, body, label);
}

async function startWith(platform: SandboxPlatform): Promise<{ sandbox: RunningSandbox; base: string }> {
  try {
    const sandbox = await startSandbox({ port: 0, platforms: [platform] });
    return { sandbox, base: `${sandbox.url}/${platform.prefix}` };
  } catch (err) {
    // The host may register the built-in platform itself: serve this instance under another prefix.
    if (!(err instanceof Error) || !/registered twice/.test(err.message)) throw err;
    const prefix = `${platform.prefix}-under-test`;
    const sandbox = await startSandbox({ port: 0, platforms: [{ prefix, handle: (r) => platform.handle(r) }] });
    return { sandbox, base: `${sandbox.url}/${prefix}` };
  }
}

const isoMs = (ms: number) => new Date(ms).toISOString();

describe('CanvasApi sandbox emulator', { skip: skipUnlessReference(SPEC) }, () => {
  let clock = Date.parse('2026-03-02T09:00:00.000Z');
  const platform = createCanvasApiPlatform({ token: TOKEN, now: () => new Date(clock) });
  const demo = platform.demo;
  const org = demo.organizationId;
  const [board1, board2, board3] = demo.boardIds as [string, string, string];
  let api: Api;
  let sandbox: RunningSandbox;
  let freeSandbox: RunningSandbox | undefined;
  let me: { id: string; email: string };
  let orgEmails: string[] = [];
  let work: string; // a board created for the item tests

  before(async () => {
    loadValidators();
    const started = await startWith(platform);
    sandbox = started.sandbox;
    api = new Api(started.base, TOKEN);
  });
  after(async () => {
    await sandbox?.close();
    await freeSandbox?.close();
  });

  it('demo data is deterministic for a seed and clock', () => {
    const again = createCanvasApiPlatform({ token: TOKEN, now: () => new Date(Date.parse('2026-03-02T09:00:00.000Z')) });
    assert.deepEqual(again.demo, demo);
    const other = createCanvasApiPlatform({ token: TOKEN, seed: 7, now: () => new Date(clock) });
    assert.notEqual(other.demo.organizationId, demo.organizationId);
    assert.equal(demo.boardIds.length, 3);
  });

  it('authenticates with the bearer token and reports token info', async () => {
    const info = await api.call('GET', '/v1/oauth-token', 200);
    assert.equal(info.organization.id, org);
    assert.equal(info.team.id, demo.teamId);
    assert.ok(info.scopes.includes('auditlogs:read'));
    me = { id: info.user.id, email: '' };
    await api.call('GET', '/v1/oauth-token', 400, { auth: 'Bearer nope' });
    await api.call('GET', '/v2/boards', 401, { auth: null, undeclaredOk: true });
    await api.call('GET', '/v2/boards', 401, { auth: 'Bearer wrong-token', undeclaredOk: true });
    await api.call('GET', '/v2/boards', 401, { auth: `Basic ${TOKEN}`, undeclaredOk: true });
    await api.call('GET', `/v2/orgs/${org}`, 401, { auth: 'Bearer wrong-token' });
  });

  it('answers 404 for unknown paths and 405 for unsupported methods', async () => {
    const r1 = await fetch(`${api.base}/v2/nothing-here`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(r1.status, 404);
    const r2 = await fetch(`${api.base}/v2/boards/${board1}`, { method: 'PUT', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(r2.status, 405);
    assert.match(r2.headers.get('allow') ?? '', /PATCH/);
    assert.equal(((await r2.json()) as J).type, 'error');
  });

  it('boards: list with offset paging and filters, limits enforced', async () => {
    const all = await api.call('GET', '/v2/boards', 200);
    assert.equal(all.total, 3);
    assert.equal(all.offset, 0);
    const p1 = await api.call('GET', '/v2/boards', 200, { query: { limit: 2 } });
    assert.equal(p1.size, 2);
    assert.ok(p1.links.next);
    const p2 = await api.call('GET', '/v2/boards', 200, { query: { limit: 2, offset: 2 } });
    assert.equal(p2.size, 1);
    assert.equal(p2.offset, 2);
    const ids = [...p1.data, ...p2.data].map((b: J) => b.id).sort();
    assert.deepEqual(ids, [...demo.boardIds].sort());
    assert.equal((await api.call('GET', '/v2/boards', 200, { query: { team_id: demo.teamId } })).total, 2);
    const inProject = await api.call('GET', '/v2/boards', 200, { query: { project_id: demo.projectId } });
    assert.deepEqual(inProject.data.map((b: J) => b.id), [board1]);
    assert.deepEqual((await api.call('GET', '/v2/boards', 200, { query: { query: 'retro' } })).data.map((b: J) => b.id), [board2]);
    const alpha = await api.call('GET', '/v2/boards', 200, { query: { sort: 'alphabetically' } });
    assert.deepEqual(alpha.data.map((b: J) => b.name), ['Payments Architecture', 'Q3 Launch Plan', 'Sprint 42 Retrospective']);
    await api.call('GET', '/v2/boards', 400, { query: { limit: 0 }, invalid: true });
    await api.call('GET', '/v2/boards', 400, { query: { limit: 51 }, invalid: true });
    await api.call('GET', '/v2/boards', 400, { query: { limit: 'ten' }, invalid: true });
    await api.call('GET', '/v2/boards', 400, { query: { sort: 'newest' }, invalid: true });
  });

  it('boards: create, read, update; invalid input rejected', async () => {
    const created = await api.call('POST', '/v2/boards', 201, {
      body: { name: 'Item playground', description: 'tests', teamId: demo.teamId, projectId: demo.projectId, policy: { sharingPolicy: { access: 'view', teamAccess: 'edit' } } },
    });
    work = created.id;
    assert.equal(created.name, 'Item playground');
    assert.equal(created.project.id, demo.projectId);
    assert.equal(created.policy.sharingPolicy.access, 'view');
    assert.equal(created.currentUserMembership.role, 'owner');
    assert.equal(created.links.self, `${api.base}/v2/boards/${work}`);
    const untitled = await api.call('POST', '/v2/boards', 201);
    assert.equal(untitled.name, 'Untitled');
    assert.equal(untitled.team.id, demo.teamId);
    const got = await api.call('GET', `/v2/boards/${board1}`, 200);
    assert.equal(got.name, 'Q3 Launch Plan');
    assert.ok(got.lastOpenedAt);
    const patched = await api.call('PATCH', `/v2/boards/${untitled.id}`, 200, { body: { name: 'Renamed', description: 'now with text', policy: { permissionsPolicy: { copyAccess: 'team_members' } } } });
    assert.equal(patched.name, 'Renamed');
    assert.equal(patched.policy.permissionsPolicy.copyAccess, 'team_members');
    await api.call('PATCH', `/v2/boards/${untitled.id}`, 400, { invalid: true });
    await api.call('POST', '/v2/boards', 400, { body: { name: 'x'.repeat(61) }, invalid: true });
    await api.call('POST', '/v2/boards', 400, { body: { policy: { sharingPolicy: { access: 'public' } } }, invalid: true });
    await api.call('POST', '/v2/boards', 400, { body: { name: 42 }, invalid: true });
    await api.call('POST', '/v2/boards', 400, { rawBody: '{"name": ', invalid: true });
    await api.call('POST', '/v2/boards', 400, { rawBody: 'name=x', contentType: 'application/x-www-form-urlencoded', invalid: true });
    await api.call('POST', '/v2/boards', 404, { body: { teamId: '999' } });
    await api.call('GET', '/v2/boards/uXjVnothere=', 404);
    await api.call('DELETE', `/v2/boards/${untitled.id}`, 204);
  });

  it('boards: copy duplicates content; delete moves the board to the Trash', async () => {
    const copy = await api.call('PUT', '/v2/boards', 201, { query: { copy_from: board1 }, body: { name: 'Launch plan (copy)' } });
    assert.equal(copy.name, 'Launch plan (copy)');
    assert.equal(copy.project, undefined);
    const srcItems = await api.call('GET', `/v2/boards/${board1}/items`, 200, { query: { limit: 50 } });
    const copyItems = await api.call('GET', `/v2/boards/${copy.id}/items`, 200, { query: { limit: 50 } });
    assert.equal(copyItems.total, srcItems.total);
    assert.ok(copyItems.data.every((i: J) => !srcItems.data.some((s: J) => s.id === i.id)), 'copied items get new IDs');
    const srcConn = await api.call('GET', `/v2/boards/${board1}/connectors`, 200, { query: { limit: 50 } });
    const copyConn = await api.call('GET', `/v2/boards/${copy.id}/connectors`, 200, { query: { limit: 50 } });
    assert.equal(copyConn.total, srcConn.total);
    const framed = copyItems.data.filter((i: J) => i.parent);
    assert.ok(framed.length > 0 && framed.every((i: J) => copyItems.data.some((f: J) => f.id === i.parent.id && f.type === 'frame')), 'parents are remapped');
    await api.call('PUT', '/v2/boards', 400, { invalid: true });
    await api.call('PUT', '/v2/boards', 404, { query: { copy_from: 'uXjVmissing=' } });

    await api.call('DELETE', `/v2/boards/${copy.id}`, 204);
    await api.call('GET', `/v2/boards/${copy.id}`, 404);
    await api.call('GET', `/v2/boards/${copy.id}/items`, 404);
    await api.call('DELETE', `/v2/boards/${copy.id}`, 404);
    await api.call('PUT', '/v2/boards', 404, { query: { copy_from: copy.id } });
    const list = await api.call('GET', '/v2/boards', 200, { query: { limit: 50 } });
    assert.ok(!list.data.some((b: J) => b.id === copy.id), 'trashed boards are not listed');
  });

  it('board members: share, list, read, change role, remove', async () => {
    const orgMembers = await api.call('GET', `/v2/orgs/${org}/members`, 200);
    orgEmails = orgMembers.data.map((m: J) => m.email);
    me.email = orgMembers.data.find((m: J) => m.id === me.id).email;
    const colleague = orgMembers.data.find((m: J) => m.email.startsWith('kenji'));
    const shared = await api.call('POST', `/v2/boards/${work}/members`, 201, {
      body: { emails: [colleague.email, 'guest.person@outside.example', 'not-an-email'], role: 'owner', message: 'Join us' },
    });
    assert.equal(shared.successful.length, 2);
    assert.ok(shared.successful.every((id: unknown) => Number.isInteger(id)));
    assert.deepEqual(shared.failed.map((f: J) => f.email), ['not-an-email']);
    const kenjiId = String(shared.successful[0]);
    assert.equal(kenjiId, colleague.id);
    const member = await api.call('GET', `/v2/boards/${work}/members/${kenjiId}`, 200);
    assert.equal(member.role, 'coowner', 'owner is granted as coowner');
    const page = await api.call('GET', `/v2/boards/${work}/members`, 200, { query: { limit: 2 } });
    assert.equal(page.total, 3);
    assert.equal(page.size, 2);
    const page2 = await api.call('GET', `/v2/boards/${work}/members`, 200, { query: { limit: 2, offset: 2 } });
    assert.equal(page2.size, 1);
    const updated = await api.call('PATCH', `/v2/boards/${work}/members/${kenjiId}`, 200, { body: { role: 'editor' } });
    assert.equal(updated.role, 'editor');
    const demoted = await api.call('PATCH', `/v2/boards/${work}/members/${kenjiId}`, 200, { body: {} });
    assert.equal(demoted.role, 'commenter', 'a missing role means the default (commenter)');
    await api.call('PATCH', `/v2/boards/${work}/members/${me.id}`, 400, { body: { role: 'viewer' } });
    await api.call('PATCH', `/v2/boards/${work}/members/${kenjiId}`, 400, { body: { role: 'admin' }, invalid: true });
    await api.call('POST', `/v2/boards/${work}/members`, 400, { body: { emails: Array.from({ length: 21 }, (_, i) => `u${i}@x.example`) }, invalid: true });
    await api.call('POST', `/v2/boards/${work}/members`, 400, { body: { emails: [] }, invalid: true });
    await api.call('GET', `/v2/boards/${work}/members`, 400, { query: { limit: 51 }, invalid: true });
    await api.call('DELETE', `/v2/boards/${work}/members/${kenjiId}`, 204);
    await api.call('GET', `/v2/boards/${work}/members/${kenjiId}`, 404);
    await api.call('DELETE', `/v2/boards/${work}/members/${me.id}`, 400);
  });

  const ids: Record<string, string> = {};

  it('items: create, read, update and delete every item type', async () => {
    const b = `/v2/boards/${work}`;
    const sticky = await api.call('POST', `${b}/sticky_notes`, 201, { body: { data: { content: 'Hello', shape: 'square' }, style: { fillColor: 'yellow' }, position: { x: 10, y: 20 }, geometry: { width: 398 } } });
    assert.equal(sticky.geometry.width, 398);
    assert.ok(Math.abs(sticky.geometry.height - 456) < 0.01, 'sticky notes keep their ratio');
    assert.deepEqual(sticky.position, { x: 10, y: 20, origin: 'center', relativeTo: 'canvas_center' });
    assert.equal((await api.call('GET', `${b}/sticky_notes/${sticky.id}`, 200)).data.content, 'Hello');
    assert.equal((await api.call('PATCH', `${b}/sticky_notes/${sticky.id}`, 200, { body: { data: { content: 'Hello again' }, style: { textAlign: 'left' } } })).data.content, 'Hello again');
    ids.sticky = sticky.id;

    const shape = await api.call('POST', `${b}/shapes`, 201, { body: { data: { shape: 'circle', content: 'Node' }, style: { fontSize: '18', borderWidth: '3' }, position: { x: 600, y: 0 }, geometry: { width: 150, height: 150 } } });
    assert.equal(shape.style.fontSize, '18');
    assert.equal((await api.call('GET', `${b}/shapes/${shape.id}`, 200)).data.shape, 'circle');
    assert.equal((await api.call('PATCH', `${b}/shapes/${shape.id}`, 200, { body: { data: { shape: 'star' }, geometry: { rotation: 15 } } })).geometry.rotation, 15);
    ids.shape = shape.id;

    const text = await api.call('POST', `${b}/texts`, 201, { body: { data: { content: '<p>Title</p>' }, geometry: { width: 500 } } });
    assert.equal((await api.call('GET', `${b}/texts/${text.id}`, 200)).geometry.width, 500);
    assert.equal((await api.call('PATCH', `${b}/texts/${text.id}`, 200, { body: { data: { content: 'New title' }, style: { fontSize: '24' } } })).style.fontSize, '24');
    ids.text = text.id;

    const card = await api.call('POST', `${b}/cards`, 201, { body: { data: { title: 'Task', description: 'Do it', assigneeId: me.id, dueDate: '2026-03-20T10:00:00Z' }, style: { cardTheme: '#ff0000' } } });
    assert.equal(card.data.assigneeId, me.id);
    await api.call('GET', `${b}/cards/${card.id}`, 200);
    assert.equal((await api.call('PATCH', `${b}/cards/${card.id}`, 200, { body: { data: { title: 'Task (edited)' } } })).data.description, 'Do it');
    ids.card = card.id;

    const appCard = await api.call('POST', `${b}/app_cards`, 201, { body: { data: { title: 'Ticket', status: 'connected', fields: [{ value: 'P2', tooltip: 'Priority' }] }, style: { fillColor: '#2d9bf0' } } });
    assert.equal(appCard.data.owned, true);
    await api.call('GET', `${b}/app_cards/${appCard.id}`, 200);
    assert.equal((await api.call('PATCH', `${b}/app_cards/${appCard.id}`, 200, { body: { data: { status: 'disabled' } } })).data.status, 'disabled');

    const doc = await api.call('POST', `${b}/documents`, 201, { body: { data: { url: 'https://files.example.com/spec.pdf', title: 'Spec' }, geometry: { width: 640 } } });
    assert.equal(doc.data.documentUrl, 'https://files.example.com/spec.pdf');
    await api.call('GET', `${b}/documents/${doc.id}`, 200);
    assert.equal((await api.call('PATCH', `${b}/documents/${doc.id}`, 200, { body: { data: { title: 'Spec v2' } } })).data.title, 'Spec v2');

    const image = await api.call('POST', `${b}/images`, 201, { body: { data: { url: 'https://images.example.com/a.png', title: 'A' }, position: { x: -500, y: 0 } } });
    assert.equal(image.data.imageUrl, 'https://images.example.com/a.png');
    await api.call('GET', `${b}/images/${image.id}`, 200);
    const resized = await api.call('PATCH', `${b}/images/${image.id}`, 200, { body: { geometry: { width: 300 } } });
    assert.equal(resized.geometry.height, 200, 'images keep their aspect ratio');

    const embed = await api.call('POST', `${b}/embeds`, 201, { body: { data: { url: 'https://www.youtube.com/watch?v=abc', mode: 'inline' } } });
    assert.equal(embed.data.providerName, 'Youtube');
    assert.equal(embed.data.contentType, 'video');
    await api.call('GET', `${b}/embeds/${embed.id}`, 200);
    assert.equal((await api.call('PATCH', `${b}/embeds/${embed.id}`, 200, { body: { data: { mode: 'modal' } } })).data.mode, 'modal');

    const frame = await api.call('POST', `${b}/frames`, 201, { body: { data: { title: 'Frame A', format: 'custom', type: 'freeform' }, style: { fillColor: '#fff9b1' }, position: { x: 2000, y: 1000 }, geometry: { width: 1000, height: 600 } } });
    await api.call('GET', `${b}/frames/${frame.id}`, 200);
    assert.equal((await api.call('PATCH', `${b}/frames/${frame.id}`, 200, { body: { data: { title: 'Frame B' } } })).data.title, 'Frame B');
    ids.frame = frame.id;

    // Deletes through every type-specific endpoint.
    for (const [seg, id] of [['app_cards', appCard.id], ['documents', doc.id], ['images', image.id], ['embeds', embed.id]] as const) {
      await api.call('DELETE', `${b}/${seg}/${id}`, 204);
      await api.call('GET', `${b}/${seg}/${id}`, 404);
    }
    const extra = await api.call('POST', `${b}/cards`, 201, { body: { data: { title: 'Temp' } } });
    await api.call('DELETE', `${b}/cards/${extra.id}`, 204);
    for (const seg of ['sticky_notes', 'shapes', 'texts', 'frames'] as const) {
      const tmp = await api.call('POST', `${b}/${seg}`, 201, { body: seg === 'texts' ? { data: { content: 'tmp' } } : seg === 'frames' ? { data: { title: 'tmp' } } : {} });
      await api.call('DELETE', `${b}/${seg}/${tmp.id}`, 204);
    }
    // A type-specific endpoint does not serve other types.
    await api.call('GET', `${b}/cards/${ids.sticky}`, 404);
  });

  it('items: invalid input is rejected with 400', async () => {
    const b = `/v2/boards/${work}`;
    await api.call('POST', `${b}/sticky_notes`, 400, { body: { style: { fillColor: 'mauve' } }, invalid: true });
    await api.call('POST', `${b}/sticky_notes`, 400, { body: { geometry: { width: 100, height: 100 } } });
    await api.call('POST', `${b}/sticky_notes`, 400, { body: { position: { x: 'left', y: 0 } }, invalid: true });
    await api.call('POST', `${b}/shapes`, 400, { body: { data: { shape: 'flow_chart_process' } } });
    await api.call('POST', `${b}/shapes`, 400, { body: { style: { fontSize: '500' } } });
    await api.call('POST', `${b}/texts`, 400, { body: { position: { x: 0, y: 0 } }, invalid: true });
    await api.call('POST', `${b}/texts`, 400, { body: { data: { content: 'x' }, geometry: { height: 10 } }, invalid: true });
    await api.call('POST', `${b}/cards`, 400, { body: { data: { dueDate: 'tomorrow' } }, invalid: true });
    await api.call('POST', `${b}/documents`, 400, { body: { data: { title: 'no url' } }, invalid: true });
    await api.call('POST', `${b}/images`, 400, { body: { data: { url: 'not a url' } } });
    await api.call('POST', `${b}/embeds`, 400, { body: { data: { url: 'https://x.example', mode: 'popup' } }, invalid: true });
    await api.call('POST', `${b}/frames`, 400, { body: { data: { format: 'desktop' } }, invalid: true });
    await api.call('POST', `${b}/frames`, 400, { body: { data: { title: 'x' }, style: { fillColor: '#123456' } } });
    await api.call('POST', `${b}/sticky_notes`, 400, { body: { parent: { id: ids.shape } } });
    await api.call('POST', `${b}/sticky_notes`, 404, { body: { parent: { id: '3458764000000000000' } } });
    await api.call('POST', `${b}/sticky_notes`, 400, { body: [], invalid: true });
    await api.call('POST', `${b}/sticky_notes`, 400, { invalid: true });
    await api.call('PATCH', `${b}/sticky_notes/${ids.sticky}`, 400, { body: { data: { shape: 'circle' } }, invalid: true });
    await api.call('GET', `${b}/sticky_notes/3458764000000000000`, 404);
    await api.call('POST', '/v2/boards/uXjVmissing=/sticky_notes', 404, { body: {} });
  });

  it('flowchart shapes live under the experimental paths', async () => {
    const b = `/v2-experimental/boards/${work}`;
    const flow = await api.call('POST', `${b}/shapes`, 201, { body: { data: { shape: 'flow_chart_decision', content: 'OK?' }, position: { x: 0, y: 800 } } });
    assert.equal(flow.data.shape, 'flow_chart_decision');
    assert.equal((await api.call('GET', `${b}/shapes/${flow.id}`, 200)).data.content, 'OK?');
    assert.equal((await api.call('PATCH', `${b}/shapes/${flow.id}`, 200, { body: { data: { shape: 'flow_chart_terminator' } } })).data.shape, 'flow_chart_terminator');
    assert.equal((await api.call('GET', `/v2/boards/${work}/shapes/${flow.id}`, 200)).type, 'shape');
    await api.call('POST', `${b}/shapes`, 400, { body: { data: { shape: 'hexagram' } } });
    const shapes = await api.call('GET', `${b}/items`, 200, { query: { type: 'shape', limit: 50 } });
    assert.ok(shapes.data.length >= 2 && shapes.data.every((i: J) => i.type === 'shape'));
    await api.call('GET', `${b}/items`, 400, { query: { type: 'text' }, invalid: true });
    assert.equal((await api.call('GET', `${b}/items/${flow.id}`, 200)).id, flow.id);
    await api.call('DELETE', `${b}/shapes/${flow.id}`, 204);
    await api.call('GET', `${b}/shapes/${flow.id}`, 404);
    const other = await api.call('POST', `${b}/shapes`, 201, { body: { data: { shape: 'flow_chart_process' } } });
    await api.call('DELETE', `${b}/items/${other.id}`, 204);
    await api.call('GET', `${b}/items/${other.id}`, 404);
  });

  it('frames: children are positioned relative to the frame; moves convert positions', async () => {
    const b = `/v2/boards/${work}`;
    // Frame B: center (2000, 1000), 1000 x 600 -> top-left corner at (1500, 700).
    const inside = await api.call('POST', `${b}/sticky_notes`, 201, { body: { data: { content: 'inside' }, parent: { id: ids.frame }, position: { x: 50, y: 60 } } });
    assert.equal(inside.parent.id, ids.frame);
    assert.deepEqual(inside.position, { x: 50, y: 60, origin: 'center', relativeTo: 'parent_top_left' });
    const generic = await api.call('GET', `${b}/items/${inside.id}`, 200);
    assert.equal(generic.parent.id, ids.frame);
    assert.equal(generic.position.relativeTo, 'parent_top_left');
    // Move a canvas item into the frame without a position: it stays where it is on the canvas.
    const loose = await api.call('POST', `${b}/shapes`, 201, { body: { position: { x: 1600, y: 800 } } });
    const moved = await api.call('PATCH', `${b}/items/${loose.id}`, 200, { body: { parent: { id: ids.frame } } });
    assert.deepEqual(moved.position, { x: 100, y: 100, origin: 'center', relativeTo: 'parent_top_left' });
    const repositioned = await api.call('PATCH', `${b}/items/${loose.id}`, 200, { body: { position: { x: 300, y: 200 } } });
    assert.equal(repositioned.position.x, 300);
    await api.call('PATCH', `${b}/items/${loose.id}`, 400, { body: { parent: { id: ids.sticky } } });
    await api.call('PATCH', `${b}/items/${ids.frame}`, 400, { body: { parent: { id: ids.frame } } });
    await api.call('PATCH', `${b}/items/${loose.id}`, 404, { body: { parent: { id: '3458764000000000001' } } });
    await api.call('PATCH', `${b}/items/${loose.id}`, 400, { body: { position: { x: '1' } }, invalid: true });
    const within = await api.call('GET', `${b}/items`, 200, { variant: 'in-frame', query: { parent_item_id: ids.frame } });
    assert.deepEqual(within.data.map((i: J) => i.id).sort(), [inside.id, loose.id].sort());
    const onlyShapes = await api.call('GET', `${b}/items`, 200, { variant: 'in-frame', query: { parent_item_id: ids.frame, type: 'shape' } });
    assert.deepEqual(onlyShapes.data.map((i: J) => i.id), [loose.id]);
    await api.call('GET', `${b}/items`, 400, { variant: 'in-frame', query: { parent_item_id: ids.sticky } });
    await api.call('GET', `${b}/items`, 404, { variant: 'in-frame', query: { parent_item_id: '3458764000000000002' } });
    await api.call('GET', `${b}/items`, 400, { variant: 'in-frame', query: { parent_item_id: ids.frame, limit: 5 }, invalid: true });
    ids.inside = inside.id;
    ids.loose = loose.id;
    // Deleting a frame keeps its children at their canvas position.
    const tmpFrame = await api.call('POST', `${b}/frames`, 201, { body: { data: { title: 'tmp' }, position: { x: -3000, y: 0 }, geometry: { width: 400, height: 400 } } });
    const child = await api.call('POST', `${b}/texts`, 201, { body: { data: { content: 'child' }, parent: { id: tmpFrame.id }, position: { x: 200, y: 200 } } });
    await api.call('DELETE', `${b}/frames/${tmpFrame.id}`, 204);
    const orphan = await api.call('GET', `${b}/texts/${child.id}`, 200);
    assert.deepEqual([orphan.position.x, orphan.position.y, orphan.position.relativeTo, orphan.parent], [-3000, 0, 'canvas_center', undefined]);
  });

  it('bulk create is all-or-nothing', async () => {
    const b = `/v2/boards/${work}`;
    const before = (await api.call('GET', `${b}/items`, 200, { query: { limit: 50 } })).total;
    const ok = await api.call('POST', `${b}/items/bulk`, 201, {
      body: [
        { type: 'sticky_note', data: { content: 'bulk 1' }, position: { x: 0, y: 2000 } },
        { type: 'text', data: { content: 'bulk 2' }, position: { x: 300, y: 2000 } },
        { type: 'shape', data: { shape: 'triangle' }, parent: { id: ids.frame }, position: { x: 500, y: 300 } },
      ],
    });
    assert.equal(ok.data.length, 3);
    assert.equal(ok.data[2].parent.id, ids.frame);
    const bad = await api.call('POST', `${b}/items/bulk`, 400, {
      body: [
        { type: 'sticky_note', data: { content: 'fine' } },
        { type: 'text', data: { content: 'fine too' } },
        { type: 'image', data: { title: 'missing url' } },
      ],
    });
    assert.ok(Array.isArray(bad.context.fields) && bad.context.fields[0].field.startsWith('[2]'));
    await api.call('POST', `${b}/items/bulk`, 400, { body: [{ type: 'hologram' }], invalid: true });
    await api.call('POST', `${b}/items/bulk`, 400, { body: [], invalid: true });
    await api.call('POST', `${b}/items/bulk`, 400, { body: Array.from({ length: 21 }, () => ({ type: 'sticky_note' })), invalid: true });
    await api.call('POST', `${b}/items/bulk`, 400, { body: [{ type: 'sticky_note', parent: { id: '3458764000000000003' } }] });
    const afterCount = (await api.call('GET', `${b}/items`, 200, { query: { limit: 50 } })).total;
    assert.equal(afterCount, before + 3, 'failed bulk requests create nothing');
    await api.call('POST', '/v2/boards/uXjVmissing=/items/bulk', 404, { body: [{ type: 'sticky_note' }], undeclaredOk: true });
  });

  it('items: cursor pagination walks the whole list; type filter; limits 10..50', async () => {
    const b = `/v2/boards/${work}`;
    await api.call('POST', `${b}/items/bulk`, 201, { body: Array.from({ length: 12 }, (_, i) => ({ type: 'sticky_note', data: { content: `page filler ${i}` }, position: { x: i * 250, y: 3000 } })) });
    const seen: string[] = [];
    let cursor: string | undefined;
    let total = -1;
    let pages = 0;
    do {
      const page = await api.call('GET', `${b}/items`, 200, { query: { limit: 10, cursor } });
      total = page.total;
      seen.push(...page.data.map((i: J) => i.id));
      cursor = page.cursor;
      if (cursor) assert.equal(page.size, 10);
      pages += 1;
    } while (cursor && pages < 20);
    assert.equal(seen.length, total);
    assert.equal(new Set(seen).size, total, 'no duplicates across pages');
    assert.ok(pages >= 3);
    const stickies = await api.call('GET', `${b}/items`, 200, { query: { type: 'sticky_note', limit: 50 } });
    assert.ok(stickies.data.every((i: J) => i.type === 'sticky_note'));
    assert.equal((await api.call('GET', `${b}/items`, 200, { query: { type: 'preview' } })).total, 0);
    await api.call('GET', `${b}/items`, 400, { query: { type: 'widget' }, invalid: true });
    await api.call('GET', `${b}/items`, 400, { query: { limit: 9 }, invalid: true });
    await api.call('GET', `${b}/items`, 400, { query: { limit: 51 }, invalid: true });
    await api.call('GET', `${b}/items`, 400, { query: { cursor: 'bogus' } });
    await api.call('GET', `${b}/items/3458764000000000004`, 404);
  });

  it('connectors: own collection, not part of /items, removed with their items', async () => {
    const b = `/v2/boards/${work}`;
    const conn = await api.call('POST', `${b}/connectors`, 200, {
      body: { startItem: { id: ids.sticky, snapTo: 'right' }, endItem: { id: ids.shape, position: { x: '0%', y: '50%' } }, shape: 'elbowed', captions: [{ content: 'leads to' }], style: { strokeWidth: '2', endStrokeCap: 'arrow' } },
    });
    assert.equal(conn.startItem.id, ids.sticky);
    assert.deepEqual(conn.endItem.position, { x: '0%', y: '50%' });
    const items = await api.call('GET', `${b}/items`, 200, { query: { limit: 50 } });
    assert.ok(!items.data.some((i: J) => i.id === conn.id), 'connectors are not items');
    await api.call('GET', `${b}/items/${conn.id}`, 404);
    const list = await api.call('GET', `${b}/connectors`, 200);
    assert.deepEqual(list.data.map((c: J) => c.id), [conn.id]);
    assert.equal((await api.call('GET', `${b}/connectors/${conn.id}`, 200)).captions[0].content, 'leads to');
    const patched = await api.call('PATCH', `${b}/connectors/${conn.id}`, 200, { body: { shape: 'straight', endItem: { id: ids.text }, style: { strokeStyle: 'dashed' } } });
    assert.equal(patched.shape, 'straight');
    assert.equal(patched.endItem.id, ids.text);
    assert.equal(patched.style.strokeWidth, '2');
    await api.call('POST', `${b}/connectors`, 400, { body: { startItem: { id: ids.sticky } }, invalid: true });
    await api.call('POST', `${b}/connectors`, 404, { body: { startItem: { id: ids.sticky }, endItem: { id: '3458764000000000005' } } });
    await api.call('POST', `${b}/connectors`, 400, { body: { startItem: { id: ids.sticky, snapTo: 'top', position: { x: '1%', y: '1%' } }, endItem: { id: ids.text } } });
    await api.call('POST', `${b}/connectors`, 400, { body: { startItem: { id: ids.sticky }, endItem: { id: ids.text }, shape: 'zigzag' }, invalid: true });
    await api.call('GET', `${b}/connectors`, 400, { query: { limit: 9 }, invalid: true });
    await api.call('DELETE', `${b}/connectors/${conn.id}`, 204);
    await api.call('GET', `${b}/connectors/${conn.id}`, 404);
    // A connector disappears with an end item.
    const a = await api.call('POST', `${b}/shapes`, 201, { body: {} });
    const c2 = await api.call('POST', `${b}/connectors`, 200, { body: { startItem: { id: a.id }, endItem: { id: ids.text } } });
    await api.call('DELETE', `${b}/items/${a.id}`, 204);
    await api.call('GET', `${b}/connectors/${c2.id}`, 404);
    // Demo board: several connectors, cursor paging.
    const demoConns = await api.call('GET', `/v2/boards/${board3}/connectors`, 200, { query: { limit: 10 } });
    assert.equal(demoConns.total, 5);
  });

  it('tags: unique titles, attach/detach, items by tag, deletion detaches', async () => {
    const b = `/v2/boards/${work}`;
    const tag = await api.call('POST', `${b}/tags`, 201, { body: { title: 'Blocked', fillColor: 'magenta' } });
    assert.equal(tag.fillColor, 'magenta');
    const other = await api.call('POST', `${b}/tags`, 201, { body: { title: 'Later' } });
    assert.equal(other.fillColor, 'red');
    await api.call('POST', `${b}/tags`, 400, { body: { title: 'blocked' } });
    await api.call('POST', `${b}/tags`, 400, { body: { title: 'X', fillColor: 'teal' }, invalid: true });
    await api.call('POST', `${b}/tags`, 400, { body: { fillColor: 'red' }, invalid: true });
    const tags = await api.call('GET', `${b}/tags`, 200, { query: { limit: 1 } });
    assert.equal(tags.total, 2);
    assert.equal(tags.size, 1);
    await api.call('GET', `${b}/tags`, 400, { query: { limit: 0 }, invalid: true });
    assert.equal((await api.call('GET', `${b}/tags/${tag.id}`, 200)).title, 'Blocked');
    assert.equal((await api.call('PATCH', `${b}/tags/${tag.id}`, 200, { body: { title: 'Blocked!', fillColor: 'black' } })).title, 'Blocked!');
    await api.call('PATCH', `${b}/tags/${other.id}`, 400, { body: { title: 'Blocked!' } });

    await api.call('POST', `${b}/items/${ids.sticky}`, 204, { query: { tag_id: tag.id }, variant: 'by-tag' });
    await api.call('POST', `${b}/items/${ids.card}`, 204, { query: { tag_id: tag.id }, variant: 'by-tag' });
    await api.call('POST', `${b}/items/${ids.card}`, 204, { query: { tag_id: other.id }, variant: 'by-tag' });
    await api.call('POST', `${b}/items/${ids.shape}`, 400, { query: { tag_id: tag.id }, variant: 'by-tag' });
    await api.call('POST', `${b}/items/${ids.sticky}`, 404, { query: { tag_id: '3458764000000000006' }, variant: 'by-tag' });
    assert.deepEqual((await api.call('GET', `${b}/items/${ids.card}/tags`, 200)).tags.map((t: J) => t.id).sort(), [tag.id, other.id].sort());
    const tagged = await api.call('GET', `${b}/items`, 200, { query: { tag_id: tag.id }, variant: 'by-tag' });
    assert.deepEqual(tagged.data.map((i: J) => i.id).sort(), [ids.sticky, ids.card].sort());
    assert.equal(tagged.offset, 0);
    const second = await api.call('GET', `${b}/items`, 200, { query: { tag_id: tag.id, limit: 1, offset: 1 }, variant: 'by-tag' });
    assert.equal(second.size, 1);
    await api.call('GET', `${b}/items`, 400, { query: { tag_id: tag.id, limit: 51 }, variant: 'by-tag', invalid: true });
    await api.call('GET', `${b}/items`, 404, { query: { tag_id: '3458764000000000007' }, variant: 'by-tag' });

    // DELETE with tag_id only detaches; the item survives.
    await api.call('DELETE', `${b}/items/${ids.sticky}`, 204, { query: { tag_id: tag.id }, variant: 'by-tag' });
    assert.equal((await api.call('GET', `${b}/items/${ids.sticky}`, 200)).id, ids.sticky);
    assert.deepEqual((await api.call('GET', `${b}/items/${ids.sticky}/tags`, 200)).tags, []);
    // Deleting a tag removes it from every item.
    await api.call('DELETE', `${b}/tags/${tag.id}`, 204);
    await api.call('GET', `${b}/tags/${tag.id}`, 404);
    assert.deepEqual((await api.call('GET', `${b}/items/${ids.card}/tags`, 200)).tags.map((t: J) => t.id), [other.id]);
    // At most 8 tags per item: the deleted tag no longer takes a slot.
    const extra: string[] = [];
    for (let i = 1; i <= 8; i++) extra.push((await api.call('POST', `${b}/tags`, 201, { body: { title: `Extra ${i}` } })).id);
    for (const id of extra.slice(0, 7)) await api.call('POST', `${b}/items/${ids.card}`, 204, { query: { tag_id: id }, variant: 'by-tag' });
    await api.call('POST', `${b}/items/${ids.card}`, 400, { query: { tag_id: extra[7] as string }, variant: 'by-tag' });
    assert.equal((await api.call('GET', `${b}/items/${ids.card}/tags`, 200)).tags.length, 8);
    // Demo tags are attached to demo items.
    const demoTags = await api.call('GET', `/v2/boards/${board1}/tags`, 200);
    const urgent = demoTags.data.find((t: J) => t.title === 'Urgent');
    assert.equal((await api.call('GET', `/v2/boards/${board1}/items`, 200, { query: { tag_id: urgent.id }, variant: 'by-tag' })).total, 2);
  });

  it('groups: create, list, items, replace, ungroup vs delete with items', async () => {
    const b = `/v2/boards/${work}`;
    const mk = async (n: number) => (await api.call('POST', `${b}/shapes`, 201, { body: { data: { content: `g${n}` }, position: { x: n * 300, y: 5000 } } })).id as string;
    const [a, c, d, e] = [await mk(1), await mk(2), await mk(3), await mk(4)];
    const group = await api.call('POST', `${b}/groups`, 201, { body: { data: { items: [a, c] } } });
    assert.equal(group.type, 'group');
    assert.deepEqual(group.data.items, [a, c]);
    await api.call('POST', `${b}/groups`, 400, { body: { data: { items: [a, d] } } }); // a is grouped already
    await api.call('POST', `${b}/groups`, 400, { body: { data: { items: [d] } }, invalid: true });
    await api.call('POST', `${b}/groups`, 404, { body: { data: { items: [d, '3458764000000000008'] } } });
    assert.deepEqual((await api.call('GET', `${b}/groups/${group.id}`, 200)).data.items, [a, c]);
    const list = await api.call('GET', `${b}/groups`, 200);
    assert.deepEqual(list.data.map((g: J) => g.id), [group.id]);
    await api.call('GET', `${b}/groups`, 400, { query: { limit: 9 }, invalid: true });
    const members = await api.call('GET', `${b}/groups/items`, 200, { query: { group_item_id: group.id } });
    assert.equal(members.total, 2);
    assert.deepEqual(members.data.data[0].data.map((i: J) => i.id).sort(), [a, c].sort());
    await api.call('GET', `${b}/groups/items`, 404, { query: { group_item_id: '3458764000000000009' } });
    const replaced = await api.call('PUT', `${b}/groups/${group.id}`, 200, { body: { data: { items: [a, c, d] } } });
    assert.deepEqual(replaced.data.items, [a, c, d]);
    // Ungroup: the group goes, the items stay.
    await api.call('DELETE', `${b}/groups/${group.id}`, 204);
    await api.call('GET', `${b}/groups/${group.id}`, 404);
    for (const id of [a, c, d]) await api.call('GET', `${b}/items/${id}`, 200);
    // Delete with items: the items go too.
    const g2 = await api.call('POST', `${b}/groups`, 201, { body: { data: { items: [a, c] } } });
    await api.call('DELETE', `${b}/groups/${g2.id}`, 204, { query: { delete_items: true }, variant: 'delete-group' });
    await api.call('GET', `${b}/items/${a}`, 404);
    await api.call('GET', `${b}/items/${c}`, 404);
    await api.call('GET', `${b}/items/${d}`, 200);
    await api.call('DELETE', `${b}/groups/${g2.id}`, 404, { query: { delete_items: true }, variant: 'delete-group' });
    await api.call('DELETE', `${b}/groups/${g2.id}`, 400, { query: { delete_items: 'maybe' }, invalid: true });
    // Deleting an item of a two-item group dissolves the group.
    const g3 = await api.call('POST', `${b}/groups`, 201, { body: { data: { items: [d, e] } } });
    await api.call('DELETE', `${b}/shapes/${e}`, 204);
    await api.call('GET', `${b}/groups/${g3.id}`, 404);
  });

  it('mind maps: nodes with parents; deleting a node deletes its subtree', async () => {
    const b = `/v2-experimental/boards/${work}`;
    const node = (content: string, parent?: string, x?: number) => ({ data: { nodeView: { data: { type: 'text', content } } }, ...(parent ? { parent: { id: parent } } : {}), ...(x !== undefined ? { position: { x, y: 0 } } : {}) });
    const root = await api.call('POST', `${b}/mindmap_nodes`, 201, { body: node('Root', undefined, 0) });
    assert.equal(root.data.isRoot, true);
    const left = await api.call('POST', `${b}/mindmap_nodes`, 201, { body: node('Left', root.id, -200) });
    assert.equal(left.data.direction, 'start');
    const right = await api.call('POST', `${b}/mindmap_nodes`, 201, { body: node('Right', root.id, 200) });
    const leaf = await api.call('POST', `${b}/mindmap_nodes`, 201, { body: node('Leaf', right.id) });
    assert.equal(leaf.parent.id, right.id);
    assert.equal(leaf.data.isRoot, false);
    assert.equal(leaf.data.nodeView.data.content, 'Leaf');
    const inFrame = await api.call('POST', `${b}/mindmap_nodes`, 201, { body: node('Framed root', ids.frame) });
    assert.equal(inFrame.parent.id, ids.frame);
    assert.equal((await api.call('GET', `${b}/mindmap_nodes`, 200, { query: { limit: 50 } })).total, 5);
    assert.equal((await api.call('GET', `${b}/mindmap_nodes/${leaf.id}`, 200)).id, leaf.id);
    await api.call('POST', `${b}/mindmap_nodes`, 400, { body: { data: { nodeView: { data: { type: 'image', content: 'x' } } } } });
    await api.call('POST', `${b}/mindmap_nodes`, 400, { body: { position: { x: 0, y: 0 } }, invalid: true });
    await api.call('POST', `${b}/mindmap_nodes`, 404, { body: node('orphan', '3458764000000000010') });
    await api.call('DELETE', `${b}/mindmap_nodes/${right.id}`, 204);
    await api.call('GET', `${b}/mindmap_nodes/${right.id}`, 404, { undeclaredOk: true });
    await api.call('GET', `${b}/mindmap_nodes/${leaf.id}`, 404, { undeclaredOk: true });
    await api.call('GET', `${b}/mindmap_nodes/${left.id}`, 200);
    assert.equal((await api.call('GET', `${b}/mindmap_nodes`, 200, { query: { limit: 50 } })).total, 3);
    // Demo mind map: six nodes, walked with a small page size.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', `/v2-experimental/boards/${board1}/mindmap_nodes`, 200, { query: { limit: 4, cursor } });
      seen.push(...page.data.map((n: J) => n.id));
      cursor = page.cursor;
    } while (cursor);
    assert.equal(seen.length, 6);
    await api.call('GET', `${b}/mindmap_nodes`, 400, { query: { limit: 0 }, undeclaredOk: true });
  });

  it('webhook subscriptions: https callbacks, cursor list, update, delete, lost access', async () => {
    const created = await api.call('POST', '/v2-experimental/webhooks/board_subscriptions', 201, { body: { boardId: work, callbackUrl: 'https://hooks.example.com/cb' } });
    assert.equal(created.status, 'enabled');
    assert.equal(created.data.boardId, work);
    await api.call('POST', '/v2-experimental/webhooks/board_subscriptions', 400, { body: { boardId: work, callbackUrl: 'http://hooks.example.com/cb' }, invalid: true });
    await api.call('POST', '/v2-experimental/webhooks/board_subscriptions', 400, { body: { callbackUrl: 'https://hooks.example.com/cb' } });
    await api.call('POST', '/v2-experimental/webhooks/board_subscriptions', 404, { body: { boardId: 'uXjVmissing=', callbackUrl: 'https://hooks.example.com/cb' } });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', '/v2-experimental/webhooks/subscriptions', 200, { query: { limit: 1, cursor } });
      seen.push(...page.data.map((s: J) => s.id));
      cursor = page.cursor;
    } while (cursor);
    assert.equal(seen.length, 2);
    assert.ok(seen.includes(created.id));
    await api.call('GET', '/v2-experimental/webhooks/subscriptions', 400, { query: { limit: 101 }, invalid: true });
    assert.equal((await api.call('GET', `/v2-experimental/webhooks/subscriptions/${created.id}`, 200)).callbackUrl, 'https://hooks.example.com/cb');
    const disabled = await api.call('PATCH', `/v2-experimental/webhooks/board_subscriptions/${created.id}`, 200, { body: { status: 'disabled' } });
    assert.equal(disabled.status, 'disabled');
    const moved = await api.call('PATCH', `/v2-experimental/webhooks/board_subscriptions/${created.id}`, 200, { body: { callbackUrl: 'https://hooks.example.com/v2' } });
    assert.deepEqual([moved.callbackUrl, moved.status], ['https://hooks.example.com/v2', 'disabled']);
    await api.call('PATCH', `/v2-experimental/webhooks/board_subscriptions/${created.id}`, 400, { body: { status: 'paused' }, invalid: true });
    await api.call('DELETE', `/v2-experimental/webhooks/subscriptions/${created.id}`, 204);
    await api.call('GET', `/v2-experimental/webhooks/subscriptions/${created.id}`, 404);
    // A subscription loses access when its board goes to the Trash.
    const tmp = await api.call('POST', '/v2/boards', 201, { body: { name: 'tmp for webhook' } });
    const sub = await api.call('POST', '/v2-experimental/webhooks/board_subscriptions', 201, { body: { boardId: tmp.id, callbackUrl: 'https://hooks.example.com/tmp', status: 'enabled' } });
    await api.call('DELETE', `/v2/boards/${tmp.id}`, 204);
    assert.equal((await api.call('GET', `/v2-experimental/webhooks/subscriptions/${sub.id}`, 200)).status, 'lost_access');
    await api.call('PATCH', `/v2-experimental/webhooks/board_subscriptions/${sub.id}`, 400, { body: { status: 'enabled' } });
  });

  it('organization and its members: filters and cursor = last member ID', async () => {
    const o = await api.call('GET', `/v2/orgs/${org}`, 200);
    assert.equal(o.plan, 'company');
    await api.call('GET', '/v2/orgs/123', 404);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', `/v2/orgs/${org}/members`, 200, { query: { limit: 4, cursor } });
      seen.push(...page.data.map((m: J) => m.id));
      if (page.cursor) assert.equal(page.cursor, page.data[page.data.length - 1].id);
      cursor = page.cursor;
    } while (cursor);
    assert.equal(seen.length, 11);
    assert.equal(new Set(seen).size, 11);
    const admins = await api.call('GET', `/v2/orgs/${org}/members`, 200, { query: { role: 'organization_internal_admin' } });
    assert.equal(admins.size, 2);
    assert.ok(admins.data.every((m: J) => m.role === 'organization_internal_admin'));
    assert.ok((await api.call('GET', `/v2/orgs/${org}/members`, 200, { query: { active: false } })).data.every((m: J) => m.active === false));
    assert.ok((await api.call('GET', `/v2/orgs/${org}/members`, 200, { query: { license: 'free' } })).data.every((m: J) => m.license === 'free'));
    const byEmail = await api.call('GET', `/v2/orgs/${org}/members`, 200, { query: { emails: `${me.email},${orgEmails[0]}`, role: 'organization_team_guest_user' } });
    assert.ok(Array.isArray(byEmail), 'an e-mail search answers a plain array and ignores other filters');
    assert.equal(byEmail.length, me.email === orgEmails[0] ? 1 : 2);
    await api.call('GET', `/v2/orgs/${org}/members`, 400, { query: { emails: Array.from({ length: 11 }, (_, i) => `u${i}@x.example`).join(',') } });
    await api.call('GET', `/v2/orgs/${org}/members`, 400, { query: { limit: 101 }, invalid: true });
    await api.call('GET', `/v2/orgs/${org}/members`, 400, { query: { role: 'owner' }, invalid: true });
    await api.call('GET', `/v2/orgs/${org}/members`, 400, { query: { cursor: 'nobody' } });
    assert.equal((await api.call('GET', `/v2/orgs/${org}/members/${me.id}`, 200)).email, me.email);
    await api.call('GET', `/v2/orgs/${org}/members/3074457000000000`, 404);
  });

  let teamId = '';
  it('teams: create, list, read, update; members; settings; delete', async () => {
    const base = `/v2/orgs/${org}/teams`;
    const team = await api.call('POST', base, 201, { body: { name: 'Research' } });
    teamId = team.id;
    await api.call('POST', base, 400, { body: {}, invalid: true });
    await api.call('POST', base, 400, { body: { name: '' }, invalid: true });
    const found = await api.call('GET', base, 200, { query: { name: 'resea' } });
    assert.deepEqual(found.data.map((t: J) => t.id), [teamId]);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', base, 200, { query: { limit: 1, cursor } });
      seen.push(...page.data.map((t: J) => t.id));
      cursor = page.cursor;
    } while (cursor);
    assert.equal(seen.length, 4);
    await api.call('GET', base, 400, { query: { limit: 0 }, invalid: true });
    assert.equal((await api.call('GET', `${base}/${teamId}`, 200)).name, 'Research');
    assert.equal((await api.call('PATCH', `${base}/${teamId}`, 200, { body: { name: 'Research & Insights' } })).name, 'Research & Insights');
    await api.call('GET', `${base}/3458764000000000011`, 404);

    const kenji = orgEmails.find((e) => e.startsWith('kenji')) as string;
    const invited = await api.call('POST', `${base}/${teamId}/members`, 201, { body: { email: kenji, role: 'member' } });
    assert.equal(invited.teamId, teamId);
    await api.call('POST', `${base}/${teamId}/members`, 409, { body: { email: kenji } });
    await api.call('POST', `${base}/${teamId}/members`, 404, { body: { email: 'stranger@nowhere.example' } });
    await api.call('POST', `${base}/${teamId}/members`, 400, { body: { email: kenji, role: 'owner' }, invalid: true });
    const members = await api.call('GET', `${base}/${teamId}/members`, 200);
    assert.equal(members.size, 2);
    assert.deepEqual((await api.call('GET', `${base}/${teamId}/members`, 200, { query: { role: 'admin' } })).data.map((m: J) => m.id), [me.id]);
    await api.call('GET', `${base}/${teamId}/members`, 400, { query: { role: 'boss' } });
    assert.equal((await api.call('GET', `${base}/${teamId}/members/${invited.id}`, 200)).role, 'member');
    assert.equal((await api.call('PATCH', `${base}/${teamId}/members/${invited.id}`, 200, { body: { role: 'admin' } })).role, 'admin');
    await api.call('DELETE', `${base}/${teamId}/members/${invited.id}`, 204);
    await api.call('GET', `${base}/${teamId}/members/${invited.id}`, 404);

    const defaults = await api.call('GET', `/v2/orgs/${org}/default_teams_settings`, 200);
    assert.equal(defaults.organizationId, org);
    const settings = await api.call('GET', `${base}/${teamId}/settings`, 200);
    assert.equal(settings.teamId, teamId);
    const changed = await api.call('PATCH', `${base}/${teamId}/settings`, 200, {
      body: { teamCollaborationSettings: { coOwnerRole: 'disabled' }, teamSharingPolicySettings: { allowListedDomains: ['northwind.example'], sharingViaPublicLink: 'not_allowed' } },
    });
    assert.equal(changed.teamCollaborationSettings.coOwnerRole, 'disabled');
    assert.deepEqual(changed.teamSharingPolicySettings.allowListedDomains, ['northwind.example']);
    assert.equal(changed.teamSharingPolicySettings.defaultBoardAccess, settings.teamSharingPolicySettings.defaultBoardAccess);
    await api.call('PATCH', `${base}/${teamId}/settings`, 400, { body: { teamInvitationSettings: { whoCanInvite: 'everyone' } }, invalid: true });
  });

  it('projects: create, list, read, rename, settings, members; delete keeps boards', async () => {
    const base = `/v2/orgs/${org}/teams/${demo.teamId}/projects`;
    const project = await api.call('POST', base, 201, { body: { name: 'Q4 Planning' } });
    await api.call('POST', base, 400, { body: { name: 'x'.repeat(61) }, invalid: true });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', base, 200, { query: { limit: 1, cursor } });
      seen.push(...page.data.map((p: J) => p.id));
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(seen.sort(), [demo.projectId, project.id].sort());
    assert.equal((await api.call('GET', `${base}/${project.id}`, 200)).name, 'Q4 Planning');
    await api.call('GET', `/v2/orgs/${org}/teams/${teamId}/projects/${project.id}`, 404);
    assert.equal((await api.call('PATCH', `${base}/${project.id}`, 200, { body: { name: 'Q4 Plan' } })).name, 'Q4 Plan');
    await api.call('PATCH', `${base}/${project.id}`, 400, { body: {}, invalid: true });
    assert.equal((await api.call('GET', `${base}/${project.id}/settings`, 200)).sharingPolicySettings.teamAccess, 'private');
    assert.equal((await api.call('PATCH', `${base}/${project.id}/settings`, 200, { body: { sharingPolicySettings: { teamAccess: 'view' } } })).sharingPolicySettings.teamAccess, 'view');
    await api.call('PATCH', `${base}/${project.id}/settings`, 400, { body: { sharingPolicySettings: { teamAccess: 'edit' } }, invalid: true });

    const maya = orgEmails.find((e) => e.startsWith('maya')) as string;
    const kenji = orgEmails.find((e) => e.startsWith('kenji')) as string;
    const added = await api.call('POST', `${base}/${project.id}/members`, 201, { body: { email: maya, role: 'editor' } });
    assert.equal(added.email, maya);
    await api.call('POST', `${base}/${project.id}/members`, 409, { body: { email: maya, role: 'viewer' } });
    await api.call('POST', `${base}/${project.id}/members`, 400, { body: { email: kenji, role: 'viewer' } }); // not in the team
    await api.call('POST', `${base}/${project.id}/members`, 400, { body: { email: maya }, invalid: true });
    assert.equal((await api.call('GET', `${base}/${project.id}/members`, 200)).size, 2);
    assert.equal((await api.call('GET', `${base}/${project.id}/members/${added.id}`, 200)).role, 'editor');
    assert.equal((await api.call('PATCH', `${base}/${project.id}/members/${added.id}`, 200, { body: { role: 'commentator' } })).role, 'commentator');
    await api.call('DELETE', `${base}/${project.id}/members/${added.id}`, 204);
    await api.call('GET', `${base}/${project.id}/members/${added.id}`, 404);

    const board = await api.call('POST', '/v2/boards', 201, { body: { name: 'In Q4', teamId: demo.teamId, projectId: project.id } });
    await api.call('DELETE', `${base}/${project.id}`, 204);
    await api.call('GET', `${base}/${project.id}`, 404);
    const kept = await api.call('GET', `/v2/boards/${board.id}`, 200);
    assert.equal(kept.project, undefined, 'the board survives without its project');
  });

  it('data classification: org labels, team settings, bulk and per-board labels', async () => {
    const settings = await api.call('GET', `/v2/orgs/${org}/data-classification-settings`, 200);
    assert.equal(settings.labels.length, 4);
    const restricted = settings.labels.find((l: J) => l.name === 'Restricted');
    const internal = settings.labels.find((l: J) => l.name === 'Internal');
    const teamBase = `/v2/orgs/${org}/teams/${demo.teamId}`;
    assert.equal((await api.call('GET', `${teamBase}/data-classification-settings`, 200)).defaultLabelId, internal.id);
    const changed = await api.call('PATCH', `${teamBase}/data-classification-settings`, 200, { body: { defaultLabelId: Number(restricted.id), enabled: true }, rawBody: `{"defaultLabelId":${restricted.id},"enabled":true}` }); // 19 digits, exact on the wire
    assert.equal(changed.defaultLabelId, restricted.id);
    await api.call('PATCH', `${teamBase}/data-classification-settings`, 400, { body: { defaultLabelId: 12345 } });
    const boards = (await api.call('GET', '/v2/boards', 200, { query: { team_id: demo.teamId, limit: 50 } })).data;
    let unclassified = 0;
    for (const board of boards) {
      const label = await api.call('GET', `${teamBase}/boards/${board.id}/data-classification`, 200);
      if (!label.id) unclassified += 1;
    }
    assert.ok(unclassified > 0);
    const bulk = await api.call('PATCH', `${teamBase}/data-classification`, 200, { body: { labelId: Number(internal.id), notClassifiedOnly: true }, rawBody: `{"labelId":${internal.id},"notClassifiedOnly":true}` });
    assert.equal(bulk.numberUpdatedBoards, unclassified);
    assert.equal((await api.call('GET', `${teamBase}/boards/${work}/data-classification`, 200)).name, 'Internal');
    assert.equal((await api.call('GET', `${teamBase}/boards/${board1}/data-classification`, 200)).name, 'Confidential', 'notClassifiedOnly leaves classified boards alone');
    const set = await api.call('POST', `${teamBase}/boards/${board1}/data-classification`, 200, { body: { labelId: restricted.id } });
    assert.equal(set.name, 'Restricted');
    await api.call('POST', `${teamBase}/boards/${board1}/data-classification`, 400, { body: { labelId: '999' } });
    await api.call('POST', `${teamBase}/boards/${board1}/data-classification`, 400, { body: { labelId: 5 }, invalid: true });
    await api.call('GET', `${teamBase}/boards/${board3}/data-classification`, 404); // board of another team
    await api.call('PATCH', `${teamBase}/data-classification`, 400, { body: { labelId: 'internal' }, invalid: true });
  });

  it('eDiscovery: cases, legal holds and held content (limit required, 1..100)', async () => {
    const cases = await api.call('GET', `/v2/orgs/${org}/cases`, 200, { query: { limit: 1 } });
    assert.equal(cases.total, 2);
    assert.ok(cases.cursor);
    const next = await api.call('GET', `/v2/orgs/${org}/cases`, 200, { query: { limit: 1, cursor: cases.cursor } });
    assert.equal(next.cursor, undefined);
    await api.call('GET', `/v2/orgs/${org}/cases`, 400, { invalid: true });
    await api.call('GET', `/v2/orgs/${org}/cases`, 400, { query: { limit: 101 }, invalid: true });
    const caseId = cases.data[0].id;
    assert.equal((await api.call('GET', `/v2/orgs/${org}/cases/${caseId}`, 200)).organizationId, org);
    await api.call('GET', `/v2/orgs/${org}/cases/abc`, 400, { invalid: true });
    await api.call('GET', `/v2/orgs/${org}/cases/123`, 404);
    const holds = await api.call('GET', `/v2/orgs/${org}/cases/${caseId}/legal-holds`, 200, { query: { limit: 100 } });
    assert.equal(holds.total, 2);
    const active = holds.data.find((h: J) => h.state === 'ACTIVE');
    assert.equal((await api.call('GET', `/v2/orgs/${org}/cases/${caseId}/legal-holds/${active.id}`, 200)).scope.users.length, 2);
    await api.call('GET', `/v2/orgs/${org}/cases/${caseId}/legal-holds/777`, 404);
    const content = await api.call('GET', `/v2/orgs/${org}/cases/${caseId}/legal-holds/${active.id}/content-items`, 200, { query: { limit: 10 } });
    assert.deepEqual(content.data.map((c: J) => c.contentId).sort(), [board1, board3].sort());
    await api.call('GET', `/v2/orgs/${org}/cases/${caseId}/legal-holds/${active.id}/content-items`, 400, { invalid: true });
  });

  it('board export jobs advance with the clock', async () => {
    const base = `/v2/orgs/${org}/boards/export/jobs`;
    const requestId = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const job = await api.call('POST', base, 200, { query: { request_id: requestId }, body: { boardIds: [board1, 'uXjVgone0000='], boardFormat: 'PDF' } });
    const again = await api.call('POST', base, 200, { query: { request_id: requestId }, body: { boardIds: [board2] } });
    assert.equal(again.jobId, job.jobId, 'request_id makes the call idempotent');
    await api.call('POST', base, 400, { query: { request_id: 'not-a-uuid' }, body: { boardIds: [board1] }, invalid: true });
    await api.call('POST', base, 400, { body: { boardIds: [board1] }, invalid: true });
    await api.call('POST', base, 400, { query: { request_id: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' }, body: { boardIds: [] }, invalid: true });
    await api.call('POST', base, 400, { query: { request_id: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' }, body: { boardIds: [board1], boardFormat: 'PNG' }, invalid: true });
    assert.equal((await api.call('GET', `${base}/${job.jobId}`, 200)).jobStatus, 'CREATED');
    clock += 2_000;
    assert.equal((await api.call('GET', `${base}/${job.jobId}`, 200)).jobStatus, 'IN_PROGRESS');
    const pending = await api.call('GET', `${base}/${job.jobId}/results`, 200);
    assert.ok(pending.results.every((r: J) => r.status === 'IN_PROGRESS' && !r.exportLink));
    clock += 5_000;
    assert.equal((await api.call('GET', `${base}/${job.jobId}`, 200)).jobStatus, 'FINISHED');
    const results = await api.call('GET', `${base}/${job.jobId}/results`, 200);
    assert.equal(results.jobId, job.jobId);
    const ok = results.results.find((r: J) => r.boardId === board1);
    assert.equal(ok.status, 'SUCCESS');
    assert.match(ok.exportLink, /\.pdf$/);
    assert.equal(results.results.find((r: J) => r.boardId !== board1).status, 'ERROR');
    await api.call('GET', `${base}/9b2c5f1e-3d4a-4c8e-9f00-1a2b3c4d5e6f`, 404);
    await api.call('GET', `${base}/9b2c5f1e-3d4a-4c8e-9f00-1a2b3c4d5e6f/results`, 404);
  });

  it('audit logs: required ISO window with ms, 90-day look-back, cursor paging, sorting', async () => {
    const q = (afterMs: number, beforeMs: number, extra: Record<string, string | number | undefined> = {}) => ({ createdAfter: isoMs(afterMs), createdBefore: isoMs(beforeMs), ...extra });
    const all = await api.call('GET', '/v2/audit/logs', 200, { query: q(clock - 89 * DAY, clock + 1000, { limit: 500 }) });
    assert.ok(all.size > 40, 'demo history plus the changes made by this test');
    const times = all.data.map((e: J) => Date.parse(e.createdAt));
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'ASC is the default');
    assert.ok(all.data.some((e: J) => e.event === 'board_created' && e.object.name === 'Item playground'));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', '/v2/audit/logs', 200, { query: q(clock - 89 * DAY, clock + 1000, { limit: 10, cursor, sorting: 'DESC' }) });
      seen.push(...page.data.map((e: J) => e.id));
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(seen, all.data.map((e: J) => e.id).reverse());
    await api.call('GET', '/v2/audit/logs', 400, { query: q(clock - 91 * DAY, clock) });
    await api.call('GET', '/v2/audit/logs', 400, { query: { createdAfter: isoMs(clock - DAY) }, invalid: true });
    await api.call('GET', '/v2/audit/logs', 400, { query: { createdAfter: '2026-03-01T00:00:00Z', createdBefore: isoMs(clock) } });
    await api.call('GET', '/v2/audit/logs', 400, { query: q(clock, clock - DAY) });
    await api.call('GET', '/v2/audit/logs', 400, { query: q(clock - DAY, clock, { sorting: 'asc' }), invalid: true });
    await api.call('GET', '/v2/audit/logs', 400, { query: q(clock - DAY, clock, { limit: 0 }) });
  });

  it('content logs: window, filters, limit 1..1000, cursor paging, sorting', async () => {
    const base = `/v2/orgs/${org}/content-logs/items`;
    const window = { from: isoMs(clock - 60 * DAY), to: isoMs(clock + 1000) };
    const all = await api.call('GET', base, 200, { query: window });
    assert.ok(all.size > 50);
    assert.ok(all.data.some((l: J) => l.contentId === work && l.itemId === ids.sticky && l.actionType === 'create'), 'changes made through the API are logged');
    const onBoard2 = await api.call('GET', base, 200, { query: { ...window, board_ids: [board2] } });
    assert.ok(onBoard2.size > 0 && onBoard2.data.every((l: J) => l.contentId === board2));
    const two = await api.call('GET', base, 200, { query: { ...window, board_ids: [board2, board3] } });
    assert.ok(two.size > onBoard2.size);
    const mine = await api.call('GET', base, 200, { query: { ...window, emails: [me.email] } });
    assert.ok(mine.size > 0 && mine.data.every((l: J) => l.actor.email === me.email));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.call('GET', base, 200, { query: { ...window, limit: 25, cursor, sorting: 'desc' } });
      seen.push(...page.data.map((l: J) => l.id));
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(seen, all.data.map((l: J) => l.id).reverse());
    await api.call('GET', base, 400, { query: { ...window, limit: 1001 }, invalid: true });
    await api.call('GET', base, 400, { query: { ...window, limit: 0 }, invalid: true });
    await api.call('GET', base, 400, { query: { to: window.to }, invalid: true });
    await api.call('GET', base, 400, { query: { from: 'yesterday', to: window.to }, invalid: true });
    await api.call('GET', base, 400, { query: { from: window.to, to: window.from } });
    await api.call('GET', base, 400, { query: { ...window, board_ids: Array.from({ length: 16 }, (_, i) => `b${i}`) }, invalid: true });
  });

  it('sessions reset by e-mail', async () => {
    const kenji = orgEmails.find((e) => e.startsWith('kenji')) as string;
    const body = await api.call('POST', '/v2/sessions/reset_all', 200, { query: { email: kenji } });
    assert.equal(body, undefined);
    await api.call('POST', '/v2/sessions/reset_all', 404, { query: { email: 'nobody@nowhere.example' } });
    await api.call('POST', '/v2/sessions/reset_all', 400, { invalid: true });
  });

  it('app metrics: periods, totals, date validation', async () => {
    const base = `/v2-experimental/apps/${demo.appId}`;
    const days = await api.call('GET', `${base}/metrics`, 200, { query: { startDate: '2026-02-01', endDate: '2026-02-07', period: 'DAY' } });
    assert.deepEqual(days.map((d: J) => d.periodStart), ['2026-02-01', '2026-02-02', '2026-02-03', '2026-02-04', '2026-02-05', '2026-02-06', '2026-02-07']);
    const again = await api.call('GET', `${base}/metrics`, 200, { query: { startDate: '2026-02-01', endDate: '2026-02-07', period: 'DAY' } });
    assert.deepEqual(again, days, 'metrics are stable');
    const weeks = await api.call('GET', `${base}/metrics`, 200, { query: { startDate: '2026-02-01', endDate: '2026-02-28' } });
    assert.equal(weeks[0].periodStart, '2026-01-26', 'WEEK is the default; weeks start on Monday');
    const months = await api.call('GET', `${base}/metrics`, 200, { query: { startDate: '2026-01-15', endDate: '2026-03-01', period: 'MONTH' } });
    assert.deepEqual(months.map((m: J) => m.periodStart), ['2026-01-01', '2026-02-01', '2026-03-01']);
    await api.call('GET', `${base}/metrics`, 400, { query: { startDate: '2026-02-30', endDate: '2026-03-01' }, undeclaredOk: true, invalid: true });
    await api.call('GET', `${base}/metrics`, 400, { query: { startDate: '02/01/2026', endDate: '2026-03-01' }, undeclaredOk: true, invalid: true });
    await api.call('GET', `${base}/metrics`, 400, { query: { startDate: '2026-03-01', endDate: '2026-02-01' }, undeclaredOk: true });
    await api.call('GET', `${base}/metrics`, 400, { query: { startDate: '2026-03-01', endDate: '2026-03-02', period: 'YEAR' }, undeclaredOk: true, invalid: true });
    await api.call('GET', '/v2-experimental/apps/123/metrics', 404, { query: { startDate: '2026-02-01', endDate: '2026-02-07' } });
    const total = await api.call('GET', `${base}/metrics-total`, 200);
    assert.ok(total.uniqueUsers > 0 && total.installations >= total.uninstallations);
    await api.call('GET', '/v2-experimental/apps/123/metrics-total', 404);
  });

  it('deleting the remaining items and boards', async () => {
    const b = `/v2/boards/${work}`;
    await api.call('DELETE', `${b}/sticky_notes/${ids.sticky}`, 204);
    await api.call('DELETE', `${b}/shapes/${ids.shape}`, 204);
    await api.call('DELETE', `${b}/texts/${ids.text}`, 204);
    await api.call('DELETE', `${b}/cards/${ids.card}`, 204);
    await api.call('DELETE', `${b}/items/${ids.inside}`, 204);
    await api.call('DELETE', `${b}/frames/${ids.frame}`, 204);
    assert.equal((await api.call('GET', `${b}/items/${ids.loose}`, 200)).parent, undefined, 'children outlive their frame');
    await api.call('DELETE', `/v2/orgs/${org}/teams/${teamId}`, 204);
    await api.call('GET', `/v2/orgs/${org}/teams/${teamId}`, 404);
    await api.call('DELETE', `/v2/boards/${work}`, 204);
    await api.call('GET', `/v2/boards/${work}`, 404);
  });

  describe('without the enterprise plan', () => {
    let free: Api;
    const freePlatform = createCanvasApiPlatform({ token: TOKEN, enterprise: false, seed: 99 });
    before(async () => {
      const started = await startWith(freePlatform);
      freeSandbox = started.sandbox;
      free = new Api(started.base, TOKEN);
    });

    it('enterprise endpoints answer 403, the others work', async () => {
      const o = freePlatform.demo.organizationId;
      const t = freePlatform.demo.teamId;
      const info = await free.call('GET', '/v1/oauth-token', 200);
      assert.ok(!info.scopes.includes('auditlogs:read'));
      await free.call('GET', '/v2/boards', 200);
      await free.call('GET', `/v2/orgs/${o}`, 403);
      await free.call('GET', `/v2/orgs/${o}/members`, 403);
      await free.call('GET', `/v2/orgs/${o}/teams`, 403);
      await free.call('POST', `/v2/orgs/${o}/teams`, 403, { body: { name: 'x' } });
      await free.call('GET', `/v2/orgs/${o}/teams/${t}/projects`, 403);
      await free.call('GET', `/v2/orgs/${o}/data-classification-settings`, 403);
      await free.call('GET', `/v2/orgs/${o}/cases`, 403, { query: { limit: 10 } });
      await free.call('POST', `/v2/orgs/${o}/boards/export/jobs`, 403, { query: { request_id: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' }, body: { boardIds: freePlatform.demo.boardIds } });
      await free.call('GET', `/v2/orgs/${o}/content-logs/items`, 403, { query: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } });
      await free.call('GET', '/v2/audit/logs', 403, { query: { createdAfter: isoMs(Date.now() - DAY), createdBefore: isoMs(Date.now()) } });
      await free.call('POST', '/v2/sessions/reset_all', 403, { query: { email: 'someone@northwind.example' } });
      const [fb] = freePlatform.demo.boardIds as [string];
      await free.call('POST', `/v2/boards/${fb}/frames`, 400, { body: { data: { title: 'hidden', showContent: false } } });
    });

    it('a revoked token is rejected afterwards', async () => {
      await free.call('POST', '/v2/oauth/revoke', 400, { body: { accessToken: TOKEN }, auth: null, undeclaredOk: true, invalid: true });
      await free.call('POST', '/v2/oauth/revoke', 404, { body: { accessToken: 'someone-elses', clientId: 'app-1', clientSecret: 's3cret' }, auth: null });
      await free.call('POST', '/v2/oauth/revoke', 204, { body: { accessToken: TOKEN, clientId: 'app-1', clientSecret: 's3cret' }, auth: null });
      await free.call('GET', '/v2/boards', 401, { undeclaredOk: true });
      await free.call('GET', '/v1/oauth-token', 400);
      await free.call('POST', '/v2/oauth/revoke', 404, { body: { accessToken: TOKEN, clientId: 'app-1', clientSecret: 's3cret' }, auth: null });
    });
  });

  it('every endpoint of the reference list was exercised', { skip: referenceFile(TSV) ? false : `${TSV} not found` }, () => {
    const file = referenceFile(TSV) as string;
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const header = (lines[0] ?? '').split('\t');
    const col = header.indexOf('operation_id');
    assert.ok(col >= 0);
    const expected = lines.slice(1).map((l) => l.split('\t')[col] ?? '');
    assert.equal(expected.length, 139);
    const missing = expected.filter((id) => !covered.has(id));
    assert.deepEqual(missing, [], `endpoints never called: ${missing.join(', ')}`);
  });
});
