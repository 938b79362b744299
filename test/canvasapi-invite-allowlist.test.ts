/**
 * The invitation allowlist (--invite-allowed-domains / TOOLSERVERS_INVITE_ALLOWED_DOMAINS): every
 * tool that invites or adds people by e-mail (found from the catalogue and the platform's spec, not
 * by name) refuses an address outside it, naming the address and the allowlist, and sends nothing.
 * Unset, anyone may be invited.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import { isInviteAllowed } from '../src/canvasapi/invite-allowlist.js';
import { INVITE_ALLOWLIST_ENV, parseInviteAllowlist, resolveCanvasApiSettings } from '../src/canvasapi/settings.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ALLOWLIST = 'Northwind.example, ana@partner.io';
const INSIDER = 'jonas.becker@northwind.example';
const OUTSIDER = 'eve@evil.example';

/** Tools with an e-mail parameter written into the request body: the ones that invite or add people. */
const inviting = canvasApiCatalogue.filter((entry) => entry.params.some((param) => param.format === 'email' && param.to.startsWith('body:')));

/** "METHOD /path" of every spec operation whose request body has an e-mail property, at any depth. */
function specOperationsWithBodyEmails(spec: Json): string[] {
  const schemas = ((spec.components as Json | undefined)?.schemas ?? {}) as Json;
  const resolve = (node: unknown, seen: Set<string>): Json | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    const ref = (node as Json).$ref;
    if (typeof ref !== 'string') return node as Json;
    const name = ref.split('/').pop() ?? '';
    if (seen.has(name)) return undefined;
    seen.add(name);
    return resolve(schemas[name], seen);
  };
  const hasEmail = (node: unknown, seen: Set<string>): boolean => {
    const schema = resolve(node, seen);
    if (!schema) return false;
    const properties = (schema.properties ?? {}) as Json;
    if (Object.keys(properties).some((key) => /mail/i.test(key))) return true;
    const children = [...Object.values(properties), schema.items, ...((schema.allOf ?? []) as unknown[]), ...((schema.oneOf ?? []) as unknown[]), ...((schema.anyOf ?? []) as unknown[])];
    return children.some((child) => hasEmail(child, new Set(seen)));
  };
  const found: string[] = [];
  for (const [path, operations] of Object.entries(spec.paths as Json)) {
    for (const [method, operation] of Object.entries(operations as Json)) {
      const body = resolve((operation as Json).requestBody, new Set());
      const content = (body?.content ?? {}) as Json;
      if (Object.values(content).some((media) => hasEmail((media as Json).schema, new Set()))) found.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return found.sort();
}

describe('the invitation allowlist', () => {
  let sandbox: RunningSandbox;
  let guarded: AnyToolServer;
  let open: AnyToolServer;

  before(async () => {
    sandbox = await startTestSandbox();
    guarded = canvasApiServerFor(sandbox.canvasapi, { inviteAllowedDomains: ALLOWLIST });
    open = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('covers every tool that invites or adds people by e-mail, as the catalogue lists them', () => {
    assert.deepEqual(inviting.map((entry) => entry.name).sort(), ['CanvasApi.AddCanvasProjectMember', 'CanvasApi.InviteCanvasTeamMember', 'CanvasApi.ShareCanvasBoard']);
  });

  it('covers every operation whose request body has an e-mail in the platform spec', { skip: skipUnlessReference('miro-openapi.json') }, () => {
    const spec = loadReferenceJson('miro-openapi.json') as Json;
    assert.deepEqual(inviting.map((entry) => `${entry.method} ${entry.path}`).sort(), specOperationsWithBodyEmails(spec));
  });

  it('reads domains and exact addresses, case-insensitively, from the flag or the environment (the flag wins)', () => {
    const list = parseInviteAllowlist(' example.com ,@corp.example, Ana@Partner.io,, ');
    assert.ok(list);
    assert.deepEqual([...list.domains], ['example.com', 'corp.example']);
    assert.deepEqual([...list.addresses], ['ana@partner.io']);
    for (const ok of ['bo@example.com', 'BO@EXAMPLE.COM', 'x@corp.example', 'ana@partner.io']) assert.ok(isInviteAllowed(ok, list), ok);
    for (const refused of ['bo@sub.example.com', 'bo@example.com.evil.example', 'ben@partner.io', 'bo@notexample.com']) assert.ok(!isInviteAllowed(refused, list), refused);
    assert.equal(parseInviteAllowlist(undefined), undefined);
    assert.equal(parseInviteAllowlist(' , '), undefined);
    for (const bad of ['*.example.com', 'example', 'https://example.com', 'a b@example.com', 'example.com/x']) {
      assert.throws(() => parseInviteAllowlist(bad), (error: Error) => error.message.includes(JSON.stringify(bad)) && error.message.includes(INVITE_ALLOWLIST_ENV), bad);
    }
    assert.deepEqual([...(resolveCanvasApiSettings({}, { [INVITE_ALLOWLIST_ENV]: 'env.example' }).inviteAllowlist?.domains ?? [])], ['env.example']);
    assert.deepEqual([...(resolveCanvasApiSettings({ inviteAllowedDomains: 'flag.example' }, { [INVITE_ALLOWLIST_ENV]: 'env.example' }).inviteAllowlist?.domains ?? [])], ['flag.example']);
    assert.equal(resolveCanvasApiSettings({}, {}).inviteAllowlist, undefined);
  });

  it('refuses an address outside the allowlist in every inviting tool, naming it and the allowlist, and sends nothing', async () => {
    const demo = sandbox.canvasapi.demo!;
    const calls: [string, Json, string][] = [
      ['CanvasApi.ShareCanvasBoard', { board_unique_identifier: demo.boardIds[0], invitee_email_addresses: [INSIDER, OUTSIDER], board_member_role: 'viewer' }, 'invitee_email_addresses[1]'],
      ['CanvasApi.InviteCanvasTeamMember', { organization_id: demo.organizationId, team_identifier: demo.teamId, user_email_for_team_invitation: OUTSIDER }, 'user_email_for_team_invitation'],
      ['CanvasApi.AddCanvasProjectMember', { organization_id: demo.organizationId, team_id: demo.teamId, project_id: demo.projectId, user_email_id: OUTSIDER, project_member_role: 'editor' }, 'user_email_id'],
    ];
    assert.equal(calls.length, inviting.length, 'one call per inviting tool');
    for (const [tool, args, parameter] of calls) {
      const before = sandbox.requests.length;
      const outcome = await callTool(guarded, tool, args);
      assert.equal(sandbox.requests.length, before, `${tool}: nothing was sent`);
      assert.equal(outcome.isError, true, tool);
      assert.equal(outcome.data.kind, 'invalid_input');
      assert.match(String(outcome.data.message), /eve@evil\.example/);
      assert.match(String(outcome.data.message), /northwind\.example, ana@partner\.io/);
      const issues = outcome.data.issues as { parameter: string; problem: string }[];
      assert.deepEqual(issues.map((issue) => issue.parameter), [parameter], tool);
      assert.match(issues[0]!.problem, /eve@evil\.example is not allowed.*northwind\.example, ana@partner\.io/);
    }
  });

  it('sends an invitation to an allowed address, and without an allowlist to anyone', async () => {
    const board = sandbox.canvasapi.demo!.boardIds[0];
    for (const [server, address] of [
      [guarded, INSIDER.toUpperCase()],
      [guarded, 'ana@partner.io'],
      [open, OUTSIDER],
    ] as const) {
      const before = sandbox.requests.length;
      const outcome = await callTool(server, 'CanvasApi.ShareCanvasBoard', { board_unique_identifier: board, invitee_email_addresses: [address], board_member_role: 'viewer' });
      assert.equal(outcome.isError, false, `${address}: ${JSON.stringify(outcome.data)}`);
      assert.equal(sandbox.requests.length, before + 1, `${address}: sent once`);
    }
  });

  it('the CLI flag reaches the tools: `toolservers call` refuses an outside address with exit code 1', () => {
    const args = JSON.stringify({ board_unique_identifier: 'uXjVBoard=', invitee_email_addresses: [OUTSIDER] });
    const result = spawnSync(process.execPath, [CLI, 'call', 'CanvasApi.ShareCanvasBoard', args, '--sandbox', '--invite-allowed-domains', 'northwind.example'], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'error', HOME: process.env.HOME ?? '' },
    });
    assert.equal(result.status, 1, result.stderr);
    const printed = JSON.parse(result.stdout) as Json;
    const error = (printed.error ?? printed) as Json;
    assert.equal(error.kind, 'invalid_input', result.stdout);
    assert.match(result.stdout, /outside the invitation allowlist \(northwind\.example\)/);
  });
});
