/**
 * Hostile input: nothing an agent (or anyone who reaches the server) sends can freeze the server,
 * crash it or slip past validation.
 *
 * - Every string and array parameter of every tool has a maximum (the platform's limit, else a
 *   generic cap of INPUT_LIMITS), and the generic caps stay out of the tool lists.
 * - Deep (100,000 levels), big and poisoned (`__proto__`, `constructor`, `prototype`) arguments are
 *   refused as invalid_input naming the parameter; nothing is sent upstream; no internal error.
 * - Every format check refuses 1 MB of adversarial input within a generous bound (SLOW_MS: a
 *   linear check takes milliseconds, a quadratic one minutes), directly and through the tools, and
 *   never echoes the value back. The figures themselves are measured by `npm run bench`.
 * - Over HTTP, a 1 MB adversarial value is refused within that bound while another client is served.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { checkJsonText, parseRequestBody } from '../src/canvasapi/body-validation.js';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import type { CanvasFormat } from '../src/canvasapi/catalogue-types.js';
import { checkFormat, FORMAT_MAX_CHARS, isEmail } from '../src/canvasapi/params.js';
import { silentLogger } from '../src/core/logger.js';
import { executeTool, viewFor, type AnyToolServer } from '../src/core/tools/registry.js';
import type { AnyToolDefinition } from '../src/core/tools/tool.js';
import { INPUT_LIMITS, itemCapOf, stringCapOf, validationSchemaOf, type JsonSchema } from '../src/core/tools/schema.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { idParam, idsParam, isoTimeParam, parseIsoTime, timeZoneParam } from '../src/incidentops/params.js';
import { normalizeText, rankUsers } from '../src/incidentops/user-matching.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, incidentOpsServerFor, outcomeOf, startTestSandbox, type ToolOutcome } from './support/harness.js';
import { ATTACKS } from './support/hostile-inputs.js';

type Json = Record<string, unknown>;

const MB = 1 << 20;
/**
 * The bound for refusing 1 MB of adversarial input. Generous on purpose (a busy machine must not
 * fail the suite): a linear check takes milliseconds, a quadratic one over 1 MB takes minutes, so
 * only the class of bug fails it. bench/hostile-input.ts reports the real figures.
 */
const SLOW_MS = 2_000;
const SERVER_KEY = 'hostile-input-server-key-0123456789';

/** One timed run (the bound is generous, so one run is enough). */
async function timedOnce<T>(run: () => T | Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await run();
  return { ms: performance.now() - started, result };
}

function deepObject(levels: number, leaf: unknown = 1): Json {
  const root: Json = {};
  let at = root;
  for (let i = 1; i < levels; i += 1) {
    const next: Json = {};
    at.a = next;
    at = next;
  }
  at.a = leaf;
  return root;
}

function deepArray(levels: number): unknown[] {
  const root: unknown[] = [];
  let at = root;
  for (let i = 1; i < levels; i += 1) {
    const next: unknown[] = [];
    at.push(next);
    at = next;
  }
  return root;
}

/** The classic attack strings for each kind of check, 1 MB each. */

/** Runs a tool of a view (a meta tool is in no server's own list). */
async function callThrough(server: AnyToolServer, tool: AnyToolDefinition, args: unknown): Promise<ToolOutcome> {
  return outcomeOf(await executeTool(server, tool, args, new AbortController().signal));
}

function assertNoEcho(outcome: ToolOutcome, what: string): void {
  const text = JSON.stringify(outcome.raw.content);
  assert.ok(text.length < 4_000, `${what}: the error is short (${text.length} characters), the value is not echoed`);
}

function assertRefused(outcome: ToolOutcome, parameter: RegExp, what: string): void {
  assert.equal(outcome.isError, true, `${what}: refused`);
  assert.equal(outcome.data.kind, 'invalid_input', `${what}: ${JSON.stringify(outcome.data).slice(0, 300)}`);
  const issues = outcome.data.issues as { parameter: string; problem: string }[];
  assert.ok(issues.some((issue) => parameter.test(issue.parameter)), `${what}: names ${parameter} (${JSON.stringify(issues).slice(0, 300)})`);
  assertNoEcho(outcome, what);
}

// ---------------------------------------------------------------------------------------------

describe('bounds: every parameter has a maximum, stated in one place', () => {
  const servers: [string, AnyToolServer][] = [
    ['IncidentOps', incidentOpsServerFor(undefined)],
    ['CanvasApi', canvasApiServerFor(undefined)],
  ];

  function toolsOf(server: AnyToolServer): AnyToolDefinition[] {
    // The catalogue's tools and the meta tools over them.
    return [...server.tools, ...viewFor(server, { selections: [{ profile: 'meta' }] }).exposed];
  }

  function branches(node: JsonSchema): JsonSchema[] {
    const alternatives = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
    return alternatives ?? [node];
  }

  it('every string parameter (and string item) has a maximum length and every array parameter a maximum number of items', () => {
    let strings = 0;
    let arrays = 0;
    for (const [, server] of servers) {
      for (const tool of toolsOf(server)) {
        const json = validationSchemaOf(tool.input);
        for (const [name, node] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>)) {
          for (const branch of branches(node)) {
            const type = branch.type;
            const where = `${tool.name}.${name}`;
            if (type === 'string' || type === undefined) {
              strings += 1;
              const cap = stringCapOf(branch);
              assert.ok(typeof cap === 'number', `${where} has a maximum length`);
              assert.ok(cap <= Math.max(INPUT_LIMITS.textChars, INPUT_LIMITS.jsonTextBytes), `${where}: ${cap}`);
            }
            if (type === 'array') {
              arrays += 1;
              assert.ok(typeof itemCapOf(branch) === 'number', `${where} has a maximum number of items`);
              const items = branch.items as JsonSchema;
              if (items.type === 'string') assert.ok(typeof stringCapOf(items) === 'number', `${where}[] has a maximum length`);
            }
          }
        }
      }
    }
    assert.ok(strings > 300 && arrays > 10, `checked ${strings} string and ${arrays} array parameters`);
  });

  it('free text takes 10,000 characters, identifiers 1,000, e-mails 254; a platform limit stays the limit', () => {
    const canvas = (servers[1] as [string, AnyToolServer])[1];
    const capOf = (toolName: string, param: string) => {
      const tool = canvas.tools.find((t) => t.name === toolName) as AnyToolDefinition;
      return stringCapOf(((validationSchemaOf(tool.input).properties ?? {}) as Record<string, JsonSchema>)[param]);
    };
    assert.equal(capOf('CanvasApi.ShareCanvasBoard', 'invitation_message'), INPUT_LIMITS.textChars);
    assert.equal(capOf('CanvasApi.ShareCanvasBoard', 'board_unique_identifier'), INPUT_LIMITS.identifierChars);
    assert.equal(capOf('CanvasApi.ResetUserSessions', 'user_email_for_session_reset'), 254);
    assert.equal(capOf('CanvasApi.CreateBoardTag', 'tag_title'), 120);
    assert.equal(capOf('CanvasApi.AddStickyNoteToBoard', 'request_body'), INPUT_LIMITS.jsonTextBytes);
  });

  it('the tool lists carry no generic cap (only platform limits are advertised)', () => {
    for (const [, server] of servers) {
      for (const profile of ['all', 'meta'] as const) {
        const listing = JSON.stringify(viewFor(server, { selections: [{ profile }] }).listing);
        assert.ok(!listing.includes('x-generic-cap'), 'no marker');
        for (const cap of [INPUT_LIMITS.identifierChars, INPUT_LIMITS.textChars, INPUT_LIMITS.jsonTextBytes, 254, 2560]) {
          assert.ok(!listing.includes(`"maxLength":${cap}`), `no maxLength ${cap} in the ${profile} list`);
        }
        assert.ok(!listing.includes(`"maxItems":${INPUT_LIMITS.items}`), 'no generic item cap');
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('deep, big and poisoned arguments are refused before anything is sent', () => {
  let sandbox: RunningSandbox;
  let incidentOps: AnyToolServer;
  let canvas: AnyToolServer;
  let canvasMeta: AnyToolDefinition;

  before(async () => {
    sandbox = await startTestSandbox();
    incidentOps = incidentOpsServerFor(sandbox);
    canvas = canvasApiServerFor(sandbox.canvasapi);
    canvasMeta = viewFor(canvas, { selections: [{ profile: 'meta' }] }).find('CanvasApi.CallTool') as AnyToolDefinition;
  });
  after(() => sandbox.close());

  /** Calls a tool and asserts that nothing reached the platform. */
  async function refusedWithoutSending(server: AnyToolServer, name: string, args: unknown): Promise<ToolOutcome> {
    const before = sandbox.requests.length;
    const outcome = await callTool(server, name, args);
    assert.equal(sandbox.requests.length, before, `${name}: nothing was sent upstream`);
    assert.notEqual(outcome.data.kind, 'internal', `${name}: no internal error (${String(outcome.data.message).slice(0, 200)})`);
    return outcome;
  }

  it('100,000 levels of nesting in request_body (object, array, JSON text), in any argument and through CallTool', async () => {
    const levels = 100_000;
    const sticky = { mode: 'execute', board_id: 'uXjVBoard=' };
    const cases: [AnyToolServer, string, unknown, RegExp][] = [
      [canvas, 'CanvasApi.AddStickyNoteToBoard', { ...sticky, request_body: deepObject(levels) }, /^request_body$/],
      [canvas, 'CanvasApi.AddStickyNoteToBoard', { ...sticky, request_body: deepArray(levels) }, /^request_body$/],
      [canvas, 'CanvasApi.AddStickyNoteToBoard', { ...sticky, request_body: `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}` }, /^request_body$/],
      [canvas, 'CanvasApi.AddStickyNoteToBoard', { ...sticky, request_body: `${'['.repeat(levels)}${']'.repeat(levels)}` }, /^request_body$/],
      [incidentOps, 'IncidentOps.ListIncidents', { since: deepObject(levels) }, /^since$/],
      [incidentOps, 'IncidentOps.ListIncidents', { service_ids: deepArray(levels) }, /^service_ids$/],
      [canvas, 'CanvasApi.ShareCanvasBoard', { board_unique_identifier: 'b', invitee_email_addresses: [deepObject(levels)] }, /^invitee_email_addresses/],
    ];
    for (const [server, name, args, parameter] of cases) {
      const { ms, result } = await timedOnce(() => refusedWithoutSending(server, name, args));
      assertRefused(result, parameter, `${name} ${String(parameter)}`);
      assert.match(JSON.stringify(result.data), /more than 64 levels deep/);
      assert.ok(ms < SLOW_MS, `${name}: refused in ${ms.toFixed(1)} ms`);
    }
    // Through the meta tool: the arguments as an object and as JSON text.
    for (const inner of [{ ...sticky, request_body: deepObject(levels) }, `{"mode":"execute","board_id":"b","request_body":${'['.repeat(levels)}${']'.repeat(levels)}}`]) {
      const before = sandbox.requests.length;
      const outcome = await callThrough(canvas, canvasMeta, { name: 'CanvasApi.AddStickyNoteToBoard', arguments: inner });
      assert.equal(sandbox.requests.length, before);
      assert.equal(outcome.data.kind, 'invalid_input', JSON.stringify(outcome.data).slice(0, 300));
      assert.match(JSON.stringify(outcome.data), /more than 64 levels deep/);
    }
  });

  it('a body nested exactly 64 levels passes the bound (and is then checked against its schema)', async () => {
    // request_body (1) > data (2) > content (62 more): 64 levels; content must be text, so the schema refuses it.
    const outcome = await refusedWithoutSending(canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: { data: { content: deepObject(62) } } });
    assert.equal(outcome.data.kind, 'invalid_input');
    assert.doesNotMatch(JSON.stringify(outcome.data), /levels deep/);
    assert.match(JSON.stringify(outcome.data), /request_body\.data\.content/);
    const tooDeep = await refusedWithoutSending(canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: { data: { content: deepObject(63) } } });
    assert.match(JSON.stringify(tooDeep.data), /more than 64 levels deep/);
  });

  it('request_body over 1 MB (as text or as an object) is refused naming request_body, the cap and the size found', async () => {
    const bigText = JSON.stringify({ data: { content: 'x'.repeat(1_200_000) } });
    const text = await refusedWithoutSending(canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: bigText });
    assertRefused(text, /^request_body$/, 'text');
    assert.match(String(text.data.message), /1000000/);
    assert.match(String(text.data.message), /1200\d{3}/, 'says how long it was');

    const multiByte = JSON.stringify({ data: { content: 'é'.repeat(600_000) } }); // 600,000 characters, 1.2 MB
    const bytes = await refusedWithoutSending(canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: multiByte });
    assertRefused(bytes, /^request_body$/, 'multi-byte text');
    assert.match(String(bytes.data.message), /is 1200\d{3} bytes of JSON; at most 1000000 bytes \(1 MB\)/);

    const bigObject = { data: { content: 'x'.repeat(5_000) }, style: Array.from({ length: 250 }, () => 'y'.repeat(5_000)) };
    const object = await refusedWithoutSending(canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: bigObject });
    assertRefused(object, /^request_body$/, 'object');
    assert.match(String(object.data.message), /more than 1000000 bytes of JSON; at most 1000000 bytes \(1 MB\)/);

    const manyValues = await refusedWithoutSending(canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: new Array(60_000).fill(0) });
    assertRefused(manyValues, /^request_body$/, 'entries');
    assert.match(String(manyValues.data.message), /more than 50000 values/);

    const hugeArguments = await refusedWithoutSending(canvas, 'CanvasApi.AddStickyNoteToBoard', {
      mode: 'execute',
      board_id: 'b',
      request_body: Array.from({ length: 300 }, () => 'z'.repeat(9_000)),
    });
    assertRefused(hugeArguments, /^request_body$/, 'arguments over 2 MB');
    assert.match(String(hugeArguments.data.message), /larger than 2000000 bytes of JSON/);
  });

  it('__proto__, constructor and prototype are unknown parameters (with the allowed list) at the top and refused anywhere below', async () => {
    for (const key of INPUT_LIMITS.reservedKeys) {
      const args = JSON.parse(`{"${key}": {"limit": 500}, "limit": 2}`) as Json;
      const outcome = await refusedWithoutSending(incidentOps, 'IncidentOps.ListIncidents', args);
      assertRefused(outcome, new RegExp(`^${key}$`), key);
      const issue = (outcome.data.issues as { parameter: string; problem: string }[]).find((i) => i.parameter === key);
      assert.match(issue?.problem ?? '', /^unknown parameter .*allowed parameters: status, urgency, service_ids, team_ids, since, until, limit, offset$/);
    }
    const nested: [AnyToolServer, string, unknown, RegExp][] = [
      [canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: JSON.parse('{"data":{"content":"hi","__proto__":{"shape":"circle"}}}') }, /^request_body\.data\.__proto__$/],
      [canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: JSON.parse('{"data":{"content":"hi"},"constructor":{"prototype":1}}') }, /^request_body\.constructor$/],
      [canvas, 'CanvasApi.AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: 'b', request_body: JSON.parse('[{"type":"sticky_note","data":{"content":"x"},"prototype":{}}]') }, /^request_body\[0\]\.prototype$/],
      [canvas, 'CanvasApi.AddStickyNoteToBoard', { mode: 'execute', board_id: 'b', request_body: '{"data":{"content":"hi","__proto__":{"shape":"circle"}}}' }, /^request_body$/],
      [incidentOps, 'IncidentOps.ListIncidents', { service_ids: [JSON.parse('{"__proto__":1}')] }, /^service_ids\[0\]\.__proto__$/],
    ];
    for (const [server, name, args, parameter] of nested) {
      const outcome = await refusedWithoutSending(server, name, args);
      assertRefused(outcome, parameter, `${name} ${String(parameter)}`);
      assert.match(JSON.stringify(outcome.data), /reserved name/);
    }
    // Through the meta tool, nested in its arguments (object and JSON text).
    for (const inner of [JSON.parse('{"status":"triggered","__proto__":{"limit":500}}') as Json, '{"status":"triggered","__proto__":{"limit":500}}']) {
      const meta = viewFor(incidentOps, { selections: [{ profile: 'meta' }] }).find('IncidentOps.CallReadOnlyTool') as AnyToolDefinition;
      const before = sandbox.requests.length;
      const outcome = await callThrough(incidentOps, meta, { name: 'IncidentOps.ListIncidents', arguments: inner });
      assert.equal(sandbox.requests.length, before);
      assert.equal(outcome.data.kind, 'invalid_input');
      assert.match(JSON.stringify(outcome.data), /__proto__/);
    }
  });

  it('an unknown parameter with a 1 MB name is listed short, without a did-you-mean search', async () => {
    const { ms, result } = await timedOnce(() => refusedWithoutSending(incidentOps, 'IncidentOps.ListIncidents', { ['x'.repeat(MB)]: 1 }));
    assert.equal(result.data.kind, 'invalid_input');
    assertNoEcho(result, 'huge name');
    assert.ok(ms < SLOW_MS, `${ms.toFixed(1)} ms`);
  });

  it('a thousand bad values are reported as the first ten and a count', async () => {
    const outcome = await refusedWithoutSending(canvas, 'CanvasApi.AddItemsToCanvasBoard', {
      mode: 'execute',
      canvas_board_identifier: 'b',
      request_body: Array.from({ length: 20 }, () => ({ type: 'sticky_note', data: { content: 1, shape: 2 }, style: { fillColor: 3 }, position: { x: 'a', y: 'b' } })),
    });
    const issues = outcome.data.issues as { parameter: string; problem: string }[];
    assert.equal(issues.length, 11, JSON.stringify(issues).slice(0, 500));
    assert.match(issues[10]?.problem ?? '', /^\d+ more problems not listed/);
    const many = await refusedWithoutSending(canvas, 'CanvasApi.ShareCanvasBoard', { board_unique_identifier: 'b', invitee_email_addresses: Array.from({ length: 500 }, (_, i) => `not-an-email-${i}`) });
    assert.ok((many.data.issues as unknown[]).length <= 11);
  });
});

// ---------------------------------------------------------------------------------------------

describe('format checks are linear: 1 MB of adversarial input is refused in linear time', () => {
  const FORMATS = Object.keys(FORMAT_MAX_CHARS) as CanvasFormat[];

  it('CanvasApi: every format check refuses every attack string quickly, and runs quickly at its longest allowed length', async (t: TestContext) => {
    const rows: string[] = [];
    for (const format of FORMATS) {
      let worst = 0;
      for (const [label, attack] of Object.entries(ATTACKS)) {
        const { ms, result } = await timedOnce(() => checkFormat(format, attack, { min: 1, max: 100 }));
        assert.ok(result !== undefined, `${format} refuses ${label}`);
        assert.ok(result.length < 600, `${format}: the message does not echo the value (${result.length} characters)`);
        assert.ok(ms < SLOW_MS, `${format} / ${label}: ${ms.toFixed(2)} ms`);
        worst = Math.max(worst, ms);
        // At the longest length the format allows, the check itself (not the length guard) runs.
        const atCap = await timedOnce(() => checkFormat(format, attack.slice(0, FORMAT_MAX_CHARS[format])));
        assert.ok(atCap.ms < SLOW_MS, `${format} / ${label} at ${FORMAT_MAX_CHARS[format]} characters: ${atCap.ms.toFixed(2)} ms`);
        worst = Math.max(worst, atCap.ms);
      }
      rows.push(`${format}: worst ${worst.toFixed(2)} ms`);
    }
    t.diagnostic(rows.join('; '));
  });

  it('the linear e-mail check accepts exactly what the old regular expression accepted', () => {
    const OLD_EMAIL = /^[^\s@,;]+@[^\s@,;]+\.[^\s@,;]+$/;
    const char = fc.constantFrom('a', 'b', '@', '.', ',', ';', ' ', '\t', '\u00a0', '\u2028', 'é', '-');
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }).map((chars) => chars.join('')), (value) => isEmail(value) === OLD_EMAIL.test(value)),
      { numRuns: 20_000 },
    );
    for (const good of ['ana@example.com', 'a.b+c@sub.example.co', 'x@y.z']) assert.ok(isEmail(good), good);
    for (const bad of ['ana@example', '@example.com', 'ana@.com', 'ana@com.', 'a b@c.d', 'a@b@c.d', 'a,b@c.d', `${'a'.repeat(250)}@b.cd`]) assert.ok(!isEmail(bad), bad);
  });

  it('IncidentOps: ISO times, time zones and IDs refuse every attack string quickly', async (t: TestContext) => {
    const checks: [string, (value: string) => boolean][] = [
      ['parseIsoTime', (v) => parseIsoTime(v) !== undefined],
      ['isoTimeParam', (v) => isoTimeParam('t').safeParse(v).success],
      ['timeZoneParam', (v) => timeZoneParam.safeParse(v).success],
      ['idParam', (v) => idParam('t').safeParse(v).success],
      ['idsParam', (v) => idsParam('t').safeParse([v]).success],
    ];
    const rows: string[] = [];
    for (const [name, accepts] of checks) {
      let worst = 0;
      for (const [label, attack] of Object.entries(ATTACKS)) {
        const { ms, result } = await timedOnce(() => accepts(attack));
        assert.equal(result, false, `${name} refuses ${label}`);
        assert.ok(ms < SLOW_MS, `${name} / ${label}: ${ms.toFixed(2)} ms`);
        worst = Math.max(worst, ms);
      }
      rows.push(`${name}: worst ${worst.toFixed(2)} ms`);
    }
    assert.equal(parseIsoTime('2026-05-06T10:00:00[Europe/Berlin]'), undefined, 'a bracketed zone is not ISO 8601');
    assert.ok(parseIsoTime('2026-05-06T03:30:00-07:00'));
    t.diagnostic(rows.join('; '));
  });

  it('SearchUsers: query normalisation and ranking stay fast at the longest query they can get', async () => {
    const users = Array.from({ length: 200 }, (_, i) => ({ id: `U${i}`, name: `Person Number${i} O'Brien-López`, email: `person.${i}@example.com` }));
    for (const query of ['a\u0301'.repeat(100), ' -.,'.repeat(50), 'é'.repeat(200), `${'a@'.repeat(99)}.`, 'a'.repeat(32), 'a'.repeat(33), 'a'.repeat(200)]) {
      const { ms } = await timedOnce(() => rankUsers(query, users));
      assert.ok(ms < SLOW_MS, `rankUsers(${JSON.stringify(query.slice(0, 12))}...): ${ms.toFixed(2)} ms`);
    }
    // The pre-check lets at most the generic text cap through (the tool then refuses over 200).
    const { ms } = await timedOnce(() => normalizeText('a\u0301 -.,'.repeat(INPUT_LIMITS.textChars / 6)));
    assert.ok(ms < SLOW_MS, `normalizeText: ${ms.toFixed(2)} ms`);
  });

  it('request_body: size, depth and syntax of 1 MB of adversarial JSON text are judged quickly', async (t: TestContext) => {
    const texts: Record<string, string> = {
      'brackets only': '['.repeat(MB),
      'objects only': '{"a":'.repeat(MB / 5),
      'escaped quotes': `"${'\\"'.repeat(MB / 2)}`,
      'numbers with an error at the end': `[${'1,'.repeat(499_000)}x]`,
      'strings with a bad escape at the end': `[${'"a",'.repeat(249_000)}"\\x"]`,
      'members with a missing colon at the end': `{${'"a":1,'.repeat(166_000)}"b" 1}`,
      'lines of numbers with an error at the end': `[${'1,\n'.repeat(330_000)}x]`,
    };
    const rows: string[] = [];
    for (const [label, text] of Object.entries(texts)) {
      const { ms, result } = await timedOnce(() => parseRequestBody(text));
      assert.equal(result.ok, false, label);
      assert.ok(!result.ok && result.message.length < 400, `${label}: short message`);
      assert.ok(ms < SLOW_MS, `${label}: ${ms.toFixed(2)} ms`);
      rows.push(`${label}: ${ms.toFixed(1)} ms`);
      assert.ok((await timedOnce(() => checkJsonText(text))).ms < SLOW_MS);
    }
    t.diagnostic(rows.join('; '));
  });
});

// ---------------------------------------------------------------------------------------------

describe('through the tools: 1 MB values are refused in linear time, named, never echoed, never sent', () => {
  let sandbox: RunningSandbox;
  let incidentOps: AnyToolServer;
  let canvas: AnyToolServer;

  before(async () => {
    sandbox = await startTestSandbox();
    incidentOps = incidentOpsServerFor(sandbox);
    canvas = canvasApiServerFor(sandbox.canvasapi);
  });
  after(() => sandbox.close());

  it('every CanvasApi format parameter and a free-text, an ID and a body parameter', async (t: TestContext) => {
    const targets = new Map<string, { tool: string; param: string; array: boolean }>();
    for (const entry of canvasApiCatalogue) {
      for (const param of entry.params) {
        if (param.format && !targets.has(param.format)) targets.set(param.format, { tool: entry.name, param: param.name, array: param.type === 'string[]' });
      }
    }
    targets.set('free text', { tool: 'CanvasApi.ShareCanvasBoard', param: 'invitation_message', array: false });
    targets.set('identifier', { tool: 'CanvasApi.RetrieveBoardInfo', param: 'board_unique_identifier', array: false });
    targets.set('request_body', { tool: 'CanvasApi.AddStickyNoteToBoard', param: 'request_body', array: false });
    const rows: string[] = [];
    for (const [kind, { tool, param, array }] of targets) {
      let worst = 0;
      for (const [label, attack] of Object.entries(ATTACKS)) {
        const before = sandbox.requests.length;
        const { ms, result } = await timedOnce(() => callTool(canvas, tool, { [param]: array ? [attack] : attack }));
        assert.equal(sandbox.requests.length, before, `${tool}: nothing sent`);
        assertRefused(result, new RegExp(`^${param}`), `${tool}.${param} / ${label}`);
        assert.ok(ms < SLOW_MS, `${tool}.${param} / ${label}: ${ms.toFixed(2)} ms`);
        worst = Math.max(worst, ms);
      }
      rows.push(`${kind} (${tool.slice('CanvasApi.'.length)}.${param}): worst ${worst.toFixed(1)} ms`);
    }
    t.diagnostic(rows.join('; '));
  });

  it('every IncidentOps string parameter kind: times, time zones, ID lists, IDs, search queries', async (t: TestContext) => {
    const targets: [string, string, boolean][] = [
      ['IncidentOps.ListIncidents', 'since', false],
      ['IncidentOps.ListOnCalls', 'time_zone', false],
      ['IncidentOps.ListIncidents', 'team_ids', true],
      ['IncidentOps.GetIncident', 'incident_id', false],
      ['IncidentOps.SearchUsers', 'query', false],
      ['IncidentOps.ListServices', 'query', false],
    ];
    const rows: string[] = [];
    for (const [tool, param, array] of targets) {
      let worst = 0;
      for (const [label, attack] of Object.entries(ATTACKS)) {
        const before = sandbox.requests.length;
        const { ms, result } = await timedOnce(() => callTool(incidentOps, tool, { [param]: array ? [attack] : attack }));
        assert.equal(sandbox.requests.length, before, `${tool}: nothing sent`);
        assertRefused(result, new RegExp(`^${param}`), `${tool}.${param} / ${label}`);
        assert.ok(ms < SLOW_MS, `${tool}.${param} / ${label}: ${ms.toFixed(2)} ms`);
        worst = Math.max(worst, ms);
      }
      rows.push(`${tool.slice('IncidentOps.'.length)}.${param}: worst ${worst.toFixed(1)} ms`);
    }
    t.diagnostic(rows.join('; '));
  });
});

// ---------------------------------------------------------------------------------------------

describe('over HTTP: a 1 MB adversarial value is refused within a generous bound while another client is served', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  const clients: Client[] = [];

  async function connect(path: string): Promise<Client> {
    const client = new Client({ name: 'hostile-input', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${SERVER_KEY}` } } }));
    clients.push(client);
    return client;
  }

  before(async () => {
    sandbox = await startTestSandbox();
    http = await serveOverHttp({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      serverKey: SERVER_KEY,
      mounts: [
        { path: '/canvasapi/mcp', server: canvasApiServerFor(sandbox.canvasapi) },
        { path: '/incidentops/mcp', server: incidentOpsServerFor(sandbox) },
      ],
    });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await http.close();
    await sandbox.close();
  });

  async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> {
    const started = performance.now();
    const result = await run();
    return { ms: performance.now() - started, result };
  }

  function errorOf(result: Awaited<ReturnType<Client['callTool']>>): Json {
    const content = result.content as { type: string; text: string }[];
    return (JSON.parse(content[0]?.text ?? '{}') as { error: Json }).error;
  }

  const attacks: { label: string; path: string; tool: string; args: Json; parameter: RegExp }[] = [
    {
      label: 'ShareCanvasBoard with a 1 MB e-mail',
      path: '/canvasapi/mcp',
      tool: 'CanvasApi.ShareCanvasBoard',
      args: { board_unique_identifier: 'uXjVBoard=', invitee_email_addresses: [ATTACKS['a@ then a. repeated (no end)']] },
      parameter: /invitee_email_addresses\[0\]/,
    },
    {
      label: 'ListIncidents with a 1 MB time',
      path: '/incidentops/mcp',
      tool: 'IncidentOps.ListIncidents',
      args: { since: ATTACKS['date-time, then fraction digits'] },
      parameter: /since/,
    },
  ];

  for (const attack of attacks) {
    it(`${attack.label} is refused within a generous bound while another client reads boards and incidents`, async (t: TestContext) => {
      const attacker = await connect(attack.path);
      const boards = await connect('/canvasapi/mcp');
      const incidents = await connect('/incidentops/mcp');
      const bystanders = () =>
        Promise.all([
          timed(() => boards.callTool({ name: 'CanvasApi.RetrieveUserBoards', arguments: { maximum_number_of_boards: '5' } })),
          timed(() => incidents.callTool({ name: 'IncidentOps.ListIncidents', arguments: { limit: 3 } })),
        ]);
      // One round to warm up (connections, schema conversions), then the three measured ones.
      await Promise.all([attacker.callTool({ name: attack.tool, arguments: attack.args }), bystanders()]);
      const rounds: { refusedMs: number; boardsMs: number; incidentsMs: number }[] = [];
      for (let round = 0; round < 3; round += 1) {
        const before = sandbox.requests.length;
        const [refused, [servedBoards, servedIncidents]] = await Promise.all([timed(() => attacker.callTool({ name: attack.tool, arguments: attack.args })), bystanders()]);
        assert.equal(refused.result.isError, true);
        const error = errorOf(refused.result);
        assert.equal(error.kind, 'invalid_input');
        assert.match(JSON.stringify(error.issues), attack.parameter);
        assert.ok(JSON.stringify(refused.result).length < 4_000, 'the 1 MB value is not echoed');
        for (const served of [servedBoards, servedIncidents]) assert.notEqual(served.result.isError, true, `the other client is served: ${JSON.stringify(served.result).slice(0, 300)}`);
        assert.equal(sandbox.requests.length - before, 2, 'only the two valid calls reached the platform');
        rounds.push({ refusedMs: refused.ms, boardsMs: servedBoards.ms, incidentsMs: servedIncidents.ms });
      }
      const best = (key: keyof (typeof rounds)[number]) => Math.min(...rounds.map((r) => r[key]));
      t.diagnostic(`best of 3: refused in ${best('refusedMs').toFixed(1)} ms; meanwhile boards served in ${best('boardsMs').toFixed(1)} ms, incidents in ${best('incidentsMs').toFixed(1)} ms`);
      assert.ok(best('refusedMs') < SLOW_MS, `refused in ${best('refusedMs').toFixed(1)} ms`);
      assert.ok(best('boardsMs') < SLOW_MS && best('incidentsMs') < SLOW_MS, 'the other client is served promptly');
    });
  }

  it('deep nesting sent as raw JSON-RPC (100,000 levels) is refused as invalid_input, not an internal error', async () => {
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"CanvasApi.AddStickyNoteToBoard","arguments":{"mode":"execute","board_id":"b","request_body":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
    const response = await fetch(`${http.url}/canvasapi/mcp`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${SERVER_KEY}`, 'mcp-protocol-version': '2025-06-18' },
    });
    const text = await response.text();
    assert.equal(response.status, 200, text.slice(0, 300));
    assert.match(text, /invalid_input/);
    assert.match(text, /more than 64 levels deep/);
    assert.doesNotMatch(text, /internal/);
  });

  it(
    'an unknown tool name of 200 KB is answered within a generous bound, without echoing it',
    async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: `Canvas${'x'.repeat(200_000)}`, arguments: {} } });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${SERVER_KEY}`, 'mcp-protocol-version': '2025-06-18' };
      const { ms, result } = await timedOnce(async () => (await fetch(`${http.url}/canvasapi/mcp`, { method: 'POST', body, headers })).text());
      assert.match(result, /Unknown tool/);
      assert.ok(result.length < 4_000, `the answer is short (${result.length} characters)`);
      assert.ok(ms < SLOW_MS, `${ms.toFixed(1)} ms`);
    },
  );

  it(
    'a top-level __proto__ argument sent over the wire is refused, not silently dropped',
    async () => {
      const client = await connect('/incidentops/mcp');
      const before = sandbox.requests.length;
      const result = await client.callTool({ name: 'IncidentOps.ListIncidents', arguments: JSON.parse('{"__proto__":{"limit":500},"limit":2}') as Json });
      assert.equal(result.isError, true);
      assert.equal(sandbox.requests.length, before);
    },
  );
});
