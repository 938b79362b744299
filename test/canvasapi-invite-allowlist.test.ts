/**
 * The invitation allowlist (--invite-allowed-domains / TOOLSERVERS_INVITE_ALLOWED_DOMAINS) covers
 * every way a tool can share: an outside address anywhere in the body of a tool that can share,
 * link, team or organization access widened, team and project sharing settings opened, and fields
 * of a two-mode body whose effect this server cannot judge are refused with the reason, and
 * nothing is sent. Unset, anything goes, as before. The tools and fields are found from the
 * catalogue and the platform's spec, not by name. Tests that read the spec skip without it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import type { CanvasToolEntry } from '../src/canvasapi/catalogue-types.js';
import { ACCESS_FIELDS, addressesIn, applyInviteAllowlist, canShare, isInviteAllowed } from '../src/canvasapi/invite-allowlist.js';
import { canvasApiRequestSchemas } from '../src/canvasapi/request-schemas.js';
import { INVITE_ALLOWLIST_ENV, parseInviteAllowlist, resolveCanvasApiSettings, type InviteAllowlist } from '../src/canvasapi/settings.js';
import { ToolError } from '../src/core/errors.js';
import { formatPath } from '../src/core/tools/schema.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callRecorded, callTool, canvasApiServerFor, startTestSandbox, type ToolOutcome } from './support/harness.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type Json = Record<string, unknown>;

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const ALLOWLIST = 'Northwind.example, ana@partner.io';
const INSIDER = 'jonas.becker@northwind.example';
const OUTSIDER = 'eve@evil.example';

/** Tools with an e-mail parameter written into the request body: the ones that invite or add people. */
const inviting = canvasApiCatalogue.filter((entry) => entry.params.some((param) => param.format === 'email' && param.to.startsWith('body:')));

type SpecSchema = Json & { properties?: Json; items?: unknown; enum?: unknown[]; type?: string };

/** The spec's schemas with `$ref` followed (each name once per branch, so cycles end). */
function specResolver(spec: Json): (node: unknown, seen: Set<string>) => SpecSchema | undefined {
  const components = (spec.components ?? {}) as Json;
  const resolve = (node: unknown, seen: Set<string>): SpecSchema | undefined => {
    if (typeof node !== 'object' || node === null) return undefined;
    const ref = (node as Json).$ref;
    if (typeof ref !== 'string') return node as SpecSchema;
    const [, , kind = '', name = ''] = ref.split('/');
    if (seen.has(ref)) return undefined;
    seen.add(ref);
    return resolve(((components[kind] ?? {}) as Json)[name], seen);
  };
  return resolve;
}

/** Every property of a spec operation's request body, at any depth, as a dotted path with its schema. */
function specBodyFields(spec: Json, operation: Json): Map<string, SpecSchema> {
  const resolve = specResolver(spec);
  const fields = new Map<string, SpecSchema>();
  const walk = (node: unknown, path: string, seen: Set<string>): void => {
    const schema = resolve(node, seen);
    if (!schema) return;
    for (const [key, child] of Object.entries(schema.properties ?? {})) {
      const childPath = path ? `${path}.${key}` : key;
      const resolved = resolve(child, new Set(seen));
      if (resolved) fields.set(childPath, resolved);
      walk(child, childPath, new Set(seen));
    }
    for (const part of [schema.items, ...((schema.allOf ?? []) as unknown[]), ...((schema.oneOf ?? []) as unknown[]), ...((schema.anyOf ?? []) as unknown[])]) walk(part, path, new Set(seen));
  };
  const body = resolve(operation.requestBody, new Set());
  for (const media of Object.values((body?.content ?? {}) as Json)) walk((media as Json).schema, '', new Set());
  return fields;
}

/** Each spec operation, as "METHOD /path/{}", with its request body's fields. */
function specOperations(spec: Json): Map<string, Map<string, SpecSchema>> {
  const out = new Map<string, Map<string, SpecSchema>>();
  for (const [path, operations] of Object.entries(spec.paths as Json)) {
    for (const [method, operation] of Object.entries(operations as Json)) out.set(`${method.toUpperCase()} ${placeholdersBlank(path)}`, specBodyFields(spec, operation as Json));
  }
  return out;
}

/** A path template with its placeholders' names left out: the spec and the catalogue name some differently. */
const placeholdersBlank = (template: string) => template.replace(/\?$/, '').replace(/\{[^}]+\}/g, '{}');
const endpointOf = (entry: CanvasToolEntry) => `${entry.method} ${placeholdersBlank(entry.path)}`;

/** A body field whose name speaks of access, sharing, invitations, discovery, domains, links or outsiders. */
const SHARING_NAME = /access|shar|invit|discover|domain|public|link|external|guest/i;

/**
 * Spec fields with such a name that let no one new reach a board, project or team: they choose
 * what people who already have access may do. Each says why it is not guarded.
 */
const LETS_NO_ONE_IN: Readonly<Record<string, string>> = {
  'policy.permissionsPolicy.collaborationToolsStartAccess': 'which board members may start timers, votes and calls',
  'policy.permissionsPolicy.copyAccess': 'what people who can open the board may copy',
  'policy.permissionsPolicy.sharingAccess': 'which board members may change sharing (each change through this server is checked)',
  'teamCopyAccessLevelSettings.copyAccessLevel': 'what people with access may copy, on new boards',
  'teamCopyAccessLevelSettings.copyAccessLevelLimitation': 'whether people with access may be given copy rights',
  'teamInvitationSettings.whoCanInvite': 'which team members may invite (each invitation through this server is checked)',
  'teamSharingPolicySettings.createAssetAccessLevel': 'who in the team may create boards and projects',
  'teamSharingPolicySettings.defaultBoardSharingAccess': 'which board members may change sharing, on new boards',
  'teamSharingPolicySettings.moveBoardToAccount': 'whether boards may be moved into the team (moves are a documented limit)',
  accessToken: 'the token that RevokeCanvasAccessToken revokes',
};

/** The tool's arguments that carry a request body, with the IDs of the demo organization. */
function argumentsFor(entry: CanvasToolEntry, body: Json, demo: NonNullable<RunningSandbox['canvasapi']['demo']>): Json {
  const ids: Json = {
    board_identifier: demo.boardIds[0],
    source_board_id: demo.boardIds[0],
    organization_id: demo.organizationId,
    team_identifier: demo.teamId,
    team_id: demo.teamId,
    project_identifier: demo.projectId,
  };
  const args: Json = {};
  for (const param of entry.params) if (param.to.startsWith('path:') || param.to.startsWith('query:')) if (ids[param.name] !== undefined) args[param.name] = ids[param.name];
  if (entry.requestSchema) return { ...args, mode: 'execute', request_body: body };
  // A tool with parameters: each body field from the parameter that fills it.
  for (const param of entry.params) {
    if (!param.to.startsWith('body:')) continue;
    const value = param.to.slice('body:'.length).split('.').reduce<unknown>((node, key) => (node as Json | undefined)?.[key], body);
    if (value !== undefined) args[param.name] = value;
  }
  return args;
}

/** `{ a: { b: value } }` from "a.b". */
function bodyWith(dotted: string, value: unknown): Json {
  return dotted.split('.').reduceRight<Json>((inner, key) => ({ [key]: inner }), value as Json);
}

/** The enum of a field of a two-mode tool's generated request schema. */
function generatedEnum(entry: CanvasToolEntry, dotted: string): string[] | undefined {
  let node = canvasApiRequestSchemas[entry.requestSchema ?? ''] as SpecSchema | undefined;
  for (const key of dotted.split('.')) node = node?.properties?.[key] as SpecSchema | undefined;
  return node?.enum as string[] | undefined;
}

/** A value of the field that widens access: the first of the platform's values not closed. */
function widerValue(entry: CanvasToolEntry, field: (typeof ACCESS_FIELDS)[string][number]): unknown {
  if (field.domains) return ['evil.example'];
  const values = entry.requestSchema ? generatedEnum(entry, field.path) : entry.params.find((p) => p.to === `body:${field.path}`)?.enum;
  return values?.find((value) => !field.closed?.includes(value));
}

function assertRefusedUnsent(outcome: ToolOutcome & { sent: unknown[] }, label: string): { parameter: string; problem: string }[] {
  assert.equal(outcome.isError, true, `${label}: ${JSON.stringify(outcome.data)}`);
  assert.equal(outcome.data.kind, 'invalid_input', label);
  assert.equal(outcome.sent.length, 0, `${label}: nothing was sent`);
  assert.match(String(outcome.data.message), /^Nothing was sent: /, label);
  return outcome.data.issues as { parameter: string; problem: string }[];
}

const sharingTools = canvasApiCatalogue.filter(canShare);
const byName = (name: string) => canvasApiCatalogue.find((entry) => entry.name === name) as CanvasToolEntry;

/** "METHOD /path/{}" of every spec operation whose request body has an e-mail property, at any depth. */
function specOperationsWithBodyEmails(spec: Json): string[] {
  const found: string[] = [];
  for (const [operation, fields] of specOperations(spec)) if ([...fields.keys()].some((path) => /mail/i.test(path.split('.').pop() ?? ''))) found.push(operation);
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

  it('knows the tools that can share: those that invite or add by e-mail and those whose body can widen access', () => {
    assert.deepEqual(inviting.map((entry) => entry.name).sort(), ['CanvasApi.AddCanvasProjectMember', 'CanvasApi.InviteCanvasTeamMember', 'CanvasApi.ShareCanvasBoard']);
    // A new tool that can share must be added here, and to docs/operations.md.
    assert.deepEqual(sharingTools.map((entry) => entry.name).sort(), [
      'CanvasApi.AddCanvasProjectMember',
      'CanvasApi.CopyCanvasBoard',
      'CanvasApi.CreateCanvasBoard',
      'CanvasApi.InviteCanvasTeamMember',
      'CanvasApi.ShareCanvasBoard',
      'CanvasApi.UpdateCanvasBoard',
      'CanvasApi.UpdateProjectSettings',
      'CanvasApi.UpdateTeamSettings',
    ]);
  });

  it('covers every tool that invites or adds people by e-mail, as the platform spec lists them', { skip: skipUnlessReference('miro-openapi.json') }, () => {
    const spec = loadReferenceJson('miro-openapi.json') as Json;
    assert.deepEqual(inviting.map(endpointOf).sort(), specOperationsWithBodyEmails(spec));
  });

  it('covers every body field of the catalogue that can widen access, as the platform spec lists them, with its values read from the spec', { skip: skipUnlessReference('miro-openapi.json') }, () => {
    const operations = specOperations(loadReferenceJson('miro-openapi.json') as Json);
    const unguarded: string[] = [];
    for (const entry of canvasApiCatalogue) {
      const fields = operations.get(endpointOf(entry));
      assert.ok(fields, `${entry.name}: ${endpointOf(entry)} is in the spec`);
      const guarded = new Map((ACCESS_FIELDS[entry.name] ?? []).map((field) => [field.path, field]));
      for (const [path, schema] of fields) {
        const leaf = schema.type !== 'object';
        if (leaf && SHARING_NAME.test(path) && !guarded.has(path) && !Object.hasOwn(LETS_NO_ONE_IN, path)) unguarded.push(`${entry.name} ${path}`);
      }
      for (const [path, field] of guarded) {
        const schema = fields.get(path);
        assert.ok(schema, `${entry.name}: ${path} is a field of its body in the spec`);
        if (field.domains) {
          assert.equal(schema.type, 'array', `${entry.name} ${path}`);
          continue;
        }
        const values = (schema.enum ?? []) as string[];
        assert.ok(field.closed?.length && field.closed.every((value) => values.includes(value)), `${entry.name} ${path}: the closed values ${JSON.stringify(field.closed)} are values of the spec (${values.join(', ')})`);
        assert.ok(values.some((value) => !field.closed?.includes(value)), `${entry.name} ${path}: some value of the spec widens access`);
      }
    }
    assert.deepEqual(unguarded, [], 'a body field that may widen access is neither guarded (ACCESS_FIELDS) nor named here as letting no one in (LETS_NO_ONE_IN)');
  });

  it('guards fields a call can reach: each is in its two-mode request schema or filled by a parameter of the tool', () => {
    for (const [name, fields] of Object.entries(ACCESS_FIELDS)) {
      const entry = byName(name);
      assert.ok(entry, name);
      for (const field of fields) {
        if (entry.requestSchema) assert.ok(field.domains || generatedEnum(entry, field.path), `${name} ${field.path} is in the generated request schema`);
        else assert.ok(entry.params.some((p) => p.to === `body:${field.path}`), `${name} ${field.path} is filled by a parameter`);
        assert.notEqual(widerValue(entry, field), undefined, `${name} ${field.path} has a wider value`);
      }
    }
  });

  it('finds every e-mail-shaped part of a text, however it is written', () => {
    assert.deepEqual(addressesIn('Ana <ana@partner.io>, mailto:EVE@Evil.Example; (bo@x.example).'), ['ana@partner.io', 'EVE@Evil.Example', 'bo@x.example']);
    assert.deepEqual(addressesIn('eve\uff20evil.example'), ['eve\uff20evil.example'], 'a full-width at sign is read as one');
    assert.deepEqual(addressesIn('jonas@northwind.example.evil.example jonas@northwind.example%2eevil.example'), ['jonas@northwind.example.evil.example', 'jonas@northwind.example%2eevil.example']);
    assert.deepEqual(addressesIn('"eve"@partner.io eve@[192.0.2.1]'), ['"eve"@partner.io', 'eve@[192.0.2.1]']);
    assert.deepEqual(addressesIn('no address: @ alone, a@ b, 50 @ 3 EUR'), []);
    const list = parseInviteAllowlist(ALLOWLIST)!;
    for (const outside of addressesIn('"eve"@partner.io eve@[192.0.2.1] x}ana@partner.io jonas@northwind.example%2eevil.example eve.(x)ana@partner.io ana@partner.io(x) eve\uff20northwind.example')) {
      assert.ok(!isInviteAllowed(outside, list), outside);
    }
    for (const inside of addressesIn('Jonas.Becker@NorthWind.example. Ana <ana@partner.io>')) assert.ok(isInviteAllowed(inside, list), inside);
  });

  it('refuses every widening of board, project and team access, naming the field and the value, and sends nothing', async () => {
    const demo = sandbox.canvasapi.demo!;
    let cases = 0;
    for (const [name, fields] of Object.entries(ACCESS_FIELDS)) {
      const entry = byName(name);
      for (const field of fields) {
        const wider = widerValue(entry, field);
        const outcome = await callRecorded(sandbox, guarded, name, argumentsFor(entry, bodyWith(field.path, wider), demo));
        const issues = assertRefusedUnsent(outcome, `${name} ${field.path}`);
        const parameter = entry.requestSchema ? `request_body.${field.path}${field.domains ? '[0]' : ''}` : entry.params.find((p) => p.to === `body:${field.path}`)!.name;
        assert.deepEqual(issues.map((issue) => issue.parameter), [parameter], `${name} ${field.path}`);
        assert.ok(issues[0]!.problem.includes(JSON.stringify(field.domains ? 'evil.example' : wider)) && issues[0]!.problem.includes(`would open ${field.opensTo}`), issues[0]!.problem);
        assert.match(String(outcome.data.message), /wider than the invitation allowlist \(northwind\.example, ana@partner\.io\) allows/);
        cases += 1;
      }
    }
    assert.equal(cases, Object.values(ACCESS_FIELDS).flat().length);

    // As measured on main: a board opened to anyone with the link, through each board tool.
    const opened = { policy: { sharingPolicy: { access: 'edit', inviteToAccountAndBoardLinkAccess: 'editor' } } };
    for (const name of ['CanvasApi.UpdateCanvasBoard', 'CanvasApi.CreateCanvasBoard', 'CanvasApi.CopyCanvasBoard']) {
      for (const requestBody of [opened, JSON.stringify(opened)]) {
        const issues = assertRefusedUnsent(await callRecorded(sandbox, guarded, name, { ...argumentsFor(byName(name), {}, demo), request_body: requestBody }), name);
        assert.deepEqual(issues.map((issue) => issue.parameter), ['request_body.policy.sharingPolicy.access', 'request_body.policy.sharingPolicy.inviteToAccountAndBoardLinkAccess']);
      }
    }
  });

  it('refuses an outside address in any field of a sharing tool, and fields of a two-mode body it cannot judge; sends nothing', async () => {
    const demo = sandbox.canvasapi.demo!;
    const board = demo.boardIds[0];
    const cases: [string, Json, string[]][] = [
      ['CanvasApi.UpdateCanvasBoard', { mode: 'execute', board_identifier: board, request_body: { description: `Questions to ${OUTSIDER}` } }, ['request_body.description']],
      ['CanvasApi.CreateCanvasBoard', { mode: 'execute', request_body: { name: `Eve <${OUTSIDER.toUpperCase()}>` } }, ['request_body.name']],
      ['CanvasApi.ShareCanvasBoard', { board_unique_identifier: board, invitee_email_addresses: [INSIDER], invitation_message: `Forward to ${OUTSIDER}` }, ['invitation_message']],
      ['CanvasApi.UpdateTeamSettings', { mode: 'execute', organization_id: demo.organizationId, team_identifier: demo.teamId, request_body: { teamSharingPolicySettings: { allowListedDomains: ['northwind.example', `@${OUTSIDER.split('@')[1]}`] } } }, [
        'request_body.teamSharingPolicySettings.allowListedDomains[1]',
        'request_body.teamSharingPolicySettings.allowListedDomains[1]',
      ]],
      // Unknown fields: an allowed address does not make them acceptable, since their effect is unknown.
      ['CanvasApi.UpdateCanvasBoard', { mode: 'execute', board_identifier: board, request_body: { name: 'Plan', sharedWith: ['ana@partner.io'] } }, ['request_body.sharedWith']],
      ['CanvasApi.CopyCanvasBoard', { mode: 'execute', source_board_id: board, request_body: { policy: { sharingPolicy: { guestAccess: 'edit' } } } }, ['request_body.policy.sharingPolicy.guestAccess']],
      ['CanvasApi.UpdateTeamSettings', { mode: 'execute', organization_id: demo.organizationId, team_identifier: demo.teamId, request_body: JSON.stringify({ teamInvitationSettings: { inviteGuests: [OUTSIDER] } }) }, [
        'request_body.teamInvitationSettings.inviteGuests[0]',
        'request_body.teamInvitationSettings.inviteGuests',
      ]],
    ];
    for (const [name, args, parameters] of cases) {
      const outcome = await callRecorded(sandbox, guarded, name, args);
      const issues = assertRefusedUnsent(outcome, name);
      assert.deepEqual(issues.map((issue) => issue.parameter), parameters, `${name}: ${JSON.stringify(issues)}`);
    }
  });

  it('sends what the allowlist allows: closed access, insiders, and a create or copy made private by link when it says nothing', async () => {
    const demo = sandbox.canvasapi.demo!;
    const allClosed = (name: string): Json => {
      const entry = byName(name);
      const body: Json = {};
      for (const field of ACCESS_FIELDS[name]!) {
        const value = field.domains ? ['NorthWind.example', '@northwind.example'] : field.closed![0];
        const keys = field.path.split('.');
        let node = body;
        for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Json;
        node[keys[keys.length - 1]!] = value;
      }
      return argumentsFor(entry, body, demo);
    };
    for (const name of Object.keys(ACCESS_FIELDS)) {
      const outcome = await callRecorded(sandbox, guarded, name, allClosed(name));
      assert.equal(outcome.isError, false, `${name}: ${JSON.stringify(outcome.data)}`);
      assert.equal(outcome.sent.length, 1, name);
    }
    const settings = { teamInvitationSettings: { whoCanInvite: 'all_members' }, teamCopyAccessLevelSettings: { copyAccessLevel: 'anyone' } };
    const delegating = await callRecorded(sandbox, guarded, 'CanvasApi.UpdateTeamSettings', argumentsFor(byName('CanvasApi.UpdateTeamSettings'), settings, demo));
    assert.equal(delegating.isError, false, 'settings that let no one new in pass');

    const insiders = await callRecorded(sandbox, guarded, 'CanvasApi.UpdateCanvasBoard', { mode: 'execute', board_identifier: demo.boardIds[1], request_body: { description: `Owner: ${INSIDER}, reviewer Ana <ana@partner.io>.` } });
    assert.equal(insiders.isError, false, JSON.stringify(insiders.data));
    assert.equal(insiders.sent.length, 1);

    // The sandbox, like the platform, gives a copy its source's sharing: open one by link first.
    const source = demo.boardIds[2];
    const opened = await callTool(open, 'CanvasApi.UpdateCanvasBoard', { mode: 'execute', board_identifier: source, request_body: { policy: { sharingPolicy: { access: 'edit' } } } });
    assert.equal(opened.isError, false, JSON.stringify(opened.data));
    const linkAccess = (outcome: ToolOutcome) => ((outcome.data.policy as Json).sharingPolicy as Json).access;
    const openCopy = await callTool(open, 'CanvasApi.CopyCanvasBoard', { mode: 'execute', source_board_id: source, request_body: {} });
    assert.equal(linkAccess(openCopy), 'edit', 'without the allowlist a copy keeps the link open');
    for (const [name, args] of [
      ['CanvasApi.CopyCanvasBoard', { mode: 'execute', source_board_id: source, request_body: { name: 'Copy', policy: { sharingPolicy: { teamAccess: 'private' } } } }],
      ['CanvasApi.CreateCanvasBoard', { mode: 'execute', request_body: '{}' }],
    ] as const) {
      const outcome = await callRecorded(sandbox, guarded, name, args);
      assert.equal(outcome.isError, false, `${name}: ${JSON.stringify(outcome.data)}`);
      const sent = (outcome.sent[0]?.body as Json).policy as Json;
      assert.deepEqual(sent.sharingPolicy, { ...(name === 'CanvasApi.CopyCanvasBoard' ? { teamAccess: 'private' } : {}), access: 'private', inviteToAccountAndBoardLinkAccess: 'no_access' }, name);
      assert.equal(linkAccess(outcome), 'private', `${name}: the new board is not open by link`);
    }
    const copyArgs = { mode: 'execute', source_board_id: source, request_body: { name: 'Kept' } };
    await callTool(guarded, 'CanvasApi.CopyCanvasBoard', copyArgs);
    assert.deepEqual(copyArgs.request_body, { name: 'Kept' }, "the caller's body is not changed");
  });

  it('without an allowlist, sharing settings, outside addresses and unknown fields are sent as before', async () => {
    const demo = sandbox.canvasapi.demo!;
    for (const [name, args] of [
      ['CanvasApi.UpdateCanvasBoard', { mode: 'execute', board_identifier: demo.boardIds[1], request_body: { description: `Ask ${OUTSIDER}`, policy: { sharingPolicy: { access: 'view', organizationAccess: 'edit' } } } }],
      ['CanvasApi.UpdateProjectSettings', { organization_id: demo.organizationId, team_id: demo.teamId, project_identifier: demo.projectId, team_access_level: 'view' }],
      ['CanvasApi.UpdateTeamSettings', { mode: 'execute', organization_id: demo.organizationId, team_identifier: demo.teamId, request_body: { teamSharingPolicySettings: { sharingViaPublicLink: 'allowed' } } }],
      ['CanvasApi.CreateCanvasBoard', { mode: 'execute', request_body: { name: 'Open', shareWith: OUTSIDER } }],
    ] as const) {
      const outcome = await callRecorded(sandbox, open, name, args);
      assert.equal(outcome.sent.length, 1, `${name}: sent`);
      if (name === 'CanvasApi.CreateCanvasBoard') assert.equal((outcome.sent[0]?.body as Json).shareWith, OUTSIDER, 'the unknown field reaches the platform unchanged');
      else assert.equal(outcome.isError, false, `${name}: ${JSON.stringify(outcome.data)}`);
    }
  });

  it('property: an outside address placed anywhere in the body of a tool that can share is refused, an insider in its place is not', () => {
    const list = parseInviteAllowlist(ALLOWLIST) as InviteAllowlist;
    const text = fc.string({ maxLength: 10 }).filter((value) => !value.includes('@'));
    const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
      tree: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('tree'), { maxLength: 3 }), fc.dictionary(text, tie('tree'), { maxKeys: 3 })),
    }));
    const body = fc.dictionary(text, tree, { maxKeys: 4 });
    const outsider = fc.oneof(fc.emailAddress(), fc.emailAddress().map((address) => `${address.split('@')[0]}@partner.io`)).filter((address) => !isInviteAllowed(address, list));
    const insider = fc.oneof(fc.emailAddress().map((address) => `${address.split('@')[0]}@northwind.example`), fc.constant('ana@partner.io'));
    const separator = fc.constantFrom(' ', '\n', ',', ';', ':', '<', '>', '(', ')', '"');
    const around = fc.option(fc.tuple(text, separator, separator, text), { nil: undefined });
    const where = fc.record({ container: fc.nat(), as: fc.constantFrom('value', 'key', 'inside-string'), upper: fc.boolean(), around });
    fc.assert(
      fc.property(fc.constantFrom(...sharingTools), body, outsider, insider, where, (entry, base, outside, inside, placement) => {
        const place = (address: string) => placeAddress(base, placement.upper ? address.toUpperCase() : address, placement);
        const { body: withOutsider, path } = place(outside);
        let refused: ToolError | undefined;
        try {
          applyInviteAllowlist(entry, withOutsider, undefined, list);
        } catch (error) {
          refused = error as ToolError;
        }
        assert.ok(refused instanceof ToolError, `${entry.name}: ${JSON.stringify(withOutsider)} was not refused`);
        assert.equal(refused.details.kind, 'invalid_input');
        const shown = placement.upper ? outside.toUpperCase() : outside;
        // Plain and outside, or touched by a comment or quote that makes it a form this server does not read.
        const named = (problem: string) => problem.startsWith(`${shown} is not allowed`) || (problem.includes(shown) && problem.includes('is not a plain e-mail address'));
        assert.ok(refused.details.issues?.some((issue) => named(issue.problem) && (!entry.requestSchema || issue.parameter === formatPath(['request_body', ...path]))), JSON.stringify(refused.details.issues));
        // An insider passes wherever it stands, unless a comment or quote touches it.
        const [before = '', open = '', close = '', after = ''] = placement.around ?? [];
        const untouched = placement.around ? ([before, ` ${open}`.replace(/[)"]/, ' '), close.replace('(', ' '), after] as [string, string, string, string]) : undefined;
        applyInviteAllowlist(entry, placeAddress(base, placement.upper ? inside.toUpperCase() : inside, { ...placement, around: untouched }).body, undefined, list);
      }),
      { numRuns: 2000 },
    );
  });

  it('property, through the server: an outside address in any text field of a sharing tool is refused and nothing is sent', async () => {
    const demo = sandbox.canvasapi.demo!;
    const list = parseInviteAllowlist(ALLOWLIST) as InviteAllowlist;
    const outsider = fc.emailAddress().filter((address) => address.length <= 40 && !isInviteAllowed(address, list));
    const words = fc.string({ maxLength: 8 }).filter((value) => !value.includes('@'));
    const targets = [
      ['CanvasApi.UpdateCanvasBoard', 'name'],
      ['CanvasApi.UpdateCanvasBoard', 'description'],
      ['CanvasApi.CreateCanvasBoard', 'description'],
      ['CanvasApi.CopyCanvasBoard', 'name'],
      ['CanvasApi.ShareCanvasBoard', 'message'],
    ] as const;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), outsider, words, words, fc.boolean(), async ([name, field], address, before, after, asText) => {
        const entry = byName(name);
        const value = `${before} ${address} ${after}`;
        const args = entry.requestSchema
          ? { ...argumentsFor(entry, {}, demo), request_body: asText ? JSON.stringify({ [field]: value }) : { [field]: value } }
          : { board_unique_identifier: demo.boardIds[0], invitee_email_addresses: [INSIDER], invitation_message: value };
        const outcome = await callRecorded(sandbox, guarded, name, args);
        const issues = assertRefusedUnsent(outcome, name);
        assert.deepEqual(issues.map((issue) => issue.parameter), [entry.requestSchema ? `request_body.${field}` : 'invitation_message']);
        assert.ok(String(outcome.data.message).includes(address), String(outcome.data.message));
      }),
      { numRuns: 60 },
    );
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

  it("refuses the issue's addresses, and every form that hides a mailbox, in every inviting tool and in text, naming the parameter, the address and the reason", async () => {
    const demo = sandbox.canvasapi.demo!;
    const inviteArgs: Record<string, (address: string) => [Json, string]> = {
      'CanvasApi.ShareCanvasBoard': (address) => [{ board_unique_identifier: demo.boardIds[0], invitee_email_addresses: [INSIDER, address], board_member_role: 'viewer' }, 'invitee_email_addresses[1]'],
      'CanvasApi.InviteCanvasTeamMember': (address) => [{ organization_id: demo.organizationId, team_identifier: demo.teamId, user_email_for_team_invitation: address }, 'user_email_for_team_invitation'],
      'CanvasApi.AddCanvasProjectMember': (address) => [{ organization_id: demo.organizationId, team_id: demo.teamId, project_id: demo.projectId, user_email_id: address, project_member_role: 'editor' }, 'user_email_id'],
    };
    assert.deepEqual(Object.keys(inviteArgs).sort(), inviting.map((entry) => entry.name).sort(), 'one call per inviting tool');
    // Forms of ana@partner.io (listed) and of addresses at northwind.example (a listed domain); none plain.
    const forms: [string, RegExp][] = [
      ['eve.(x)ana@partner.io', /comment/],
      ['eve(x)ana@partner.io', /comment/],
      ['ana(x)@partner.io', /comment/],
      ['ana@partner.io(x)', /comment/],
      ['"eve"ana@partner.io', /quoted/],
      ['"eve.ana"@partner.io', /quoted/],
      ['eve."x".ana@partner.io', /quoted/],
      ['@evil.example:ana@partner.io', /source route|more than one @/],
      ['eve. ana@partner.io', /white space/],
      ['ana@[192.0.2.1]', /IP-address literal/],
      ['ana@partner.io.', /ending in a dot/],
      ['Eve <ana@partner.io>', /white space|angle brackets/],
      ['ana\uff20partner.io', /full-width @/],
      ['\uff41na@partner.io', /outside ASCII/],
      ['bo@northwind.example@evil.example', /more than one @/],
    ];
    for (const [tool, argsFor] of Object.entries(inviteArgs)) {
      for (const [form, reason] of forms) {
        const [args, parameter] = argsFor(form);
        const outcome = await callRecorded(sandbox, guarded, tool, args);
        assert.equal(outcome.isError, true, `${tool} ${form}: ${JSON.stringify(outcome.data)}`);
        assert.equal(outcome.sent.length, 0, `${tool} ${form}: nothing was sent`);
        const issue = (outcome.data.issues as { parameter: string; problem: string }[]).find((candidate) => candidate.parameter === parameter);
        assert.ok(issue, `${tool} ${form}: ${JSON.stringify(outcome.data)}`);
        // The parameter's own e-mail format may refuse a form first; else the allowlist names it and the reason.
        if (issue.problem.startsWith('must be')) continue;
        assert.match(String(outcome.data.message), /^Nothing was sent: /);
        assert.ok(issue.problem.startsWith(`${form} is not a plain e-mail address: it `) && reason.test(issue.problem) && issue.problem.includes('plain addresses (name@domain.tld'), `${tool} ${form}: ${issue.problem}`);
      }
    }
    // The issue's two in running text: an invitation message and a board description.
    for (const address of ['eve.(x)ana@partner.io', 'eve(x)ana@partner.io']) {
      const message = await callRecorded(sandbox, guarded, 'CanvasApi.ShareCanvasBoard', { board_unique_identifier: demo.boardIds[0], invitee_email_addresses: [INSIDER], invitation_message: `Ask ${address} first.` });
      assert.match(assertRefusedUnsent(message, address)[0]!.problem, new RegExp(`^${address.replace(/[.()]/g, '\\$&')} is not a plain e-mail address: it has a comment in parentheses`));
      assert.match(String(message.data.message), /is not a plain e-mail address/);
      const description = await callRecorded(sandbox, guarded, 'CanvasApi.CreateCanvasBoard', { mode: 'execute', request_body: { name: 'B', description: `Owner: ${address}` } });
      assert.deepEqual(assertRefusedUnsent(description, address).map((issue) => issue.parameter), ['request_body.description']);
    }
  });

  it('reads listed domains as the platform resolves them: any case or script form of the same name passes, another name does not', async () => {
    const demo = sandbox.canvasapi.demo!;
    const list = parseInviteAllowlist('Bücher.Example, xn--caf-dma.example, ana@ｐａｒｔｎｅｒ.io')!;
    assert.deepEqual([...list.domains], ['xn--bcher-kva.example', 'xn--caf-dma.example']);
    assert.deepEqual([...list.addresses], ['ana@partner.io']);
    for (const address of ['jo@xn--bcher-kva.example', 'jo@BÜCHER.example', 'jo@café.example', 'ANA@partner.io', 'ana@PARTNER.IO']) assert.ok(isInviteAllowed(address, list), address);
    for (const address of ['jo@bucher.example', 'jo@cafe.example', 'jo@b\u00fccher.example.evil.example', 'ana@p\u0430rtner.io', 'ana@partner.io.', 'bo@partner.io']) assert.ok(!isInviteAllowed(address, list), address);
    const server = canvasApiServerFor(sandbox.canvasapi, { inviteAllowedDomains: 'bücher.example' });
    const sent = await callRecorded(sandbox, server, 'CanvasApi.ShareCanvasBoard', { board_unique_identifier: demo.boardIds[0], invitee_email_addresses: ['jo@xn--bcher-kva.example'], board_member_role: 'viewer' });
    assert.equal(sent.isError, false, JSON.stringify(sent.data));
    assert.equal(sent.sent.length, 1);
    // A sentence's full stop ends the address; in an address field the dot is refused.
    assert.equal((await callRecorded(sandbox, guarded, 'CanvasApi.ShareCanvasBoard', { board_unique_identifier: demo.boardIds[0], invitee_email_addresses: [INSIDER], invitation_message: `Ask ${INSIDER}.` })).isError, false);
  });

  it('refuses an allowlist entry that is not a plain domain or address, with the reason, at start', () => {
    for (const [bad, reason] of [
      ['eve.(x)ana@partner.io', /comment/],
      ['"ana"@partner.io', /quoted/],
      ['ana@[192.0.2.1]', /IP-address literal/],
      ['partner.io.', /ending in a dot/],
      ['192.0.2.1', /IP address/],
    ] as const) {
      assert.throws(() => parseInviteAllowlist(bad), (error: Error) => error.message.includes(JSON.stringify(bad)) && reason.test(error.message), bad);
    }
  });

  it('the CLI reaches the tools: `toolservers call --sandbox` refuses an outside address with exit code 1, by the flag or by the variable', () => {
    const args = JSON.stringify({ board_unique_identifier: 'uXjVBoard=', invitee_email_addresses: [OUTSIDER] });
    for (const [flags, env] of [
      [['--invite-allowed-domains', 'northwind.example'], {}],
      [[], { [INVITE_ALLOWLIST_ENV]: 'northwind.example' }],
    ] as const) {
      const result = spawnSync(process.execPath, [CLI, 'call', 'CanvasApi.ShareCanvasBoard', args, '--sandbox', ...flags], {
        encoding: 'utf8',
        timeout: 60_000,
        env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'error', HOME: process.env.HOME ?? '', ...env },
      });
      assert.equal(result.status, 1, `${flags.join(' ')} ${JSON.stringify(env)}: ${result.stderr}`);
      const printed = JSON.parse(result.stdout) as Json;
      const error = (printed.error ?? printed) as Json;
      assert.equal(error.kind, 'invalid_input', result.stdout);
      assert.match(result.stdout, /outside the invitation allowlist \(northwind\.example\)/);
    }
  });

  it('`toolservers serve --sandbox` (what `npm start` runs) takes the allowlist as a flag or from the variable; the sandbox still gets none of the real credentials', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'allowlist-serve-'));
    try {
      for (const [flags, env] of [
        [['--invite-allowed-domains', 'northwind.example'], {}],
        [[], { [INVITE_ALLOWLIST_ENV]: 'northwind.example' }],
      ] as const) {
        // A real platform's token and host in the environment are not read with --sandbox.
        const served = await startServe([...flags], { HOME: home, TOOLSERVERS_CREDENTIALS_FILE: path.join(home, 'credentials.json'), CANVASAPI_ACCESS_TOKEN: 'real-token-never-sent', CANVASAPI_BASE_URL: 'http://127.0.0.1:9', ...env });
        try {
          const client = new Client({ name: 'allowlist-test', version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/canvasapi/mcp`), { requestInit: { headers: { Authorization: `Bearer ${served.key}` } } }));
          try {
            const boards = (await client.callTool({ name: 'CanvasApi.RetrieveUserBoards', arguments: {} })) as { isError?: boolean; content: { text: string }[] };
            assert.notEqual(boards.isError, true, `the sandbox answers: ${boards.content[0]?.text}`);
            const board = /"id":\s*"([^"]+)"/.exec(boards.content[0]!.text)?.[1];
            assert.ok(board, boards.content[0]!.text);
            for (const [address, refused] of [[OUTSIDER, true], ['eve.(x)ana@northwind.example', true], [INSIDER, false]] as const) {
              const result = (await client.callTool({ name: 'CanvasApi.ShareCanvasBoard', arguments: { board_unique_identifier: board, invitee_email_addresses: [address], board_member_role: 'viewer' } })) as { isError?: boolean; content: { text: string }[] };
              assert.equal(result.isError === true, refused, `${flags.join(' ')} ${JSON.stringify(env)} ${address}: ${result.content[0]?.text}`);
              if (refused) assert.match(result.content[0]!.text, /Nothing was sent: .*\(northwind\.example\)/);
            }
          } finally {
            await client.close();
          }
        } finally {
          await stopChild(served.child);
        }
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

/** `toolservers serve --sandbox` on a free port with exactly this environment: its URL and the key its banner shows. */
async function startServe(flags: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--port', '0', ...flags], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'error', ...env } });
  let banner = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner: ${banner}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      banner += chunk.toString('utf8');
      if (banner.includes('The servers use the built-in sandbox')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${banner}`)));
  });
  const url = /(http:\/\/127\.0\.0\.1:\d+)\/canvasapi\/mcp/.exec(banner)?.[1];
  const key = /\):\n {2}(\S+)\n/.exec(banner)?.[1];
  assert.ok(url && key, banner);
  return { child, url, key };
}

async function stopChild(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill();
  await exited;
}

/**
 * A copy of `base` with `address` placed in one of its objects or arrays (picked by `container`):
 * as a value, as a property name, or inside a string there; optionally with text around it, cut
 * off by separators. Returns where it went.
 */
function placeAddress(
  base: Json,
  address: string,
  where: { container: number; as: 'value' | 'key' | 'inside-string'; around: [string, string, string, string] | undefined },
): { body: Json; path: (string | number)[] } {
  const body = structuredClone(base);
  const containers: { node: Json | unknown[]; path: (string | number)[] }[] = [];
  const collect = (node: unknown, path: (string | number)[]) => {
    if (Array.isArray(node)) {
      containers.push({ node, path });
      node.forEach((child, i) => collect(child, [...path, i]));
    } else if (node !== null && typeof node === 'object') {
      containers.push({ node: node as Json, path });
      for (const [key, child] of Object.entries(node)) collect(child, [...path, key]);
    }
  };
  collect(body, []);
  const { node, path } = containers[where.container % containers.length]!;
  const [before, open, close, after] = where.around ?? ['', '', '', ''];
  const text = `${before}${open}${address}${close}${after}`;
  if (Array.isArray(node)) {
    const strings = node.map((child, i) => [child, i] as const).filter(([child]) => typeof child === 'string');
    if (where.as === 'inside-string' && strings.length) {
      const [child, i] = strings[0]!;
      node[i] = `${String(child)} ${address} ${String(child)}`;
      return { body, path: [...path, i] };
    }
    node.push(text);
    return { body, path: [...path, node.length - 1] };
  }
  const stringKey = Object.keys(node).find((key) => typeof node[key] === 'string');
  if (where.as === 'inside-string' && stringKey !== undefined) {
    node[stringKey] = `${String(node[stringKey])} ${address} ${String(node[stringKey])}`;
    return { body, path: [...path, stringKey] };
  }
  if (where.as === 'key') {
    node[text] = 0;
    return { body, path: [...path, text] };
  }
  const key = `placed${Object.keys(node).length}`;
  node[key] = text;
  return { body, path: [...path, key] };
}
