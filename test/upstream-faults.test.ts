/**
 * Nothing lost, nothing done twice: real CanvasApi and IncidentOps tools against the sandbox,
 * through a proxy that injects a 5xx, an HTML 502, a reset connection or a hang, either before
 * the platform sees the request or after it has processed it (test/support/fault-proxy.ts).
 *
 * - creates (POST, and CopyCanvasBoard's PUT) are sent once: the sandbox holds exactly as many
 *   new boards and items as requests it received, and the error says the operation may have
 *   happened and what to check;
 * - reads, updates and deletes are sent again and succeed; a delete whose first attempt was
 *   carried out reports success with a note, never "not found".
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, incidentOpsServerFor, startTestSandbox, type ToolOutcome } from './support/harness.js';
import { startFaultProxy, type FaultExchange, type FaultKind, type FaultProxy, type FaultWhen } from './support/fault-proxy.js';

/** Short, so that hangs cost little; the sandbox answers in a few milliseconds. */
const TIMEOUT_MS = 300;

const FAULTS: readonly [FaultKind, FaultWhen][] = (['5xx', 'html502', 'reset', 'hang'] as const).flatMap((kind) =>
  (['before', 'after'] as const).map((when): [FaultKind, FaultWhen] => [kind, when]),
);

type Json = Record<string, unknown>;

let sandbox: RunningSandbox;
let proxy: FaultProxy;
let canvas: AnyToolServer;
let incidents: AnyToolServer;
let board: string;

before(async () => {
  sandbox = await startTestSandbox();
  proxy = await startFaultProxy(sandbox.url);
  canvas = canvasApiServerFor({ baseUrl: `${proxy.url}/canvasapi`, token: sandbox.canvasapi.token }, { timeoutMs: TIMEOUT_MS });
  incidents = incidentOpsServerFor(undefined, { baseUrl: `${proxy.url}/incidentops`, accessToken: sandbox.incidentops.token, timeoutMs: TIMEOUT_MS });
  const demo = sandbox.canvasapi.demo;
  assert.ok(demo);
  board = demo.boardIds[0] as string;
});

after(async () => {
  await proxy?.close();
  await sandbox?.close();
});

/** Straight to the sandbox, around the proxy: the platform's own view. */
async function platform(method: string, path: string, body?: unknown): Promise<{ status: number; data: Json }> {
  const response = await fetch(`${sandbox.canvasapi.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, data: text ? (JSON.parse(text) as Json) : {} };
}

async function boardCount(): Promise<number> {
  return Number((await platform('GET', '/v2/boards?limit=50')).data.total);
}

async function itemCount(): Promise<number> {
  return Number((await platform('GET', `/v2/boards/${board}/items?limit=50`)).data.total);
}

/** Calls a tool through the proxy with one fault armed for the request matching method and path; returns what the proxy saw of it. */
async function callWithFault(
  server: AnyToolServer,
  tool: string,
  args: Json,
  target: { method: string; path: RegExp },
  [fault, when]: [FaultKind, FaultWhen],
): Promise<{ outcome: ToolOutcome; sent: FaultExchange[] }> {
  proxy.clearFaults();
  proxy.inject({ fault, when, method: target.method, path: target.path });
  const start = proxy.exchanges.length;
  const outcome = await callTool(server, tool, args);
  proxy.clearFaults();
  const sent = proxy.exchanges.slice(start).filter((e) => e.method === target.method && target.path.test(e.path));
  return { outcome, sent };
}

/** An ID as it appears in a request path (encoded), escaped for a RegExp. */
const inPath = (id: string): string => encodeURIComponent(id).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const label = (tool: string, [fault, when]: [FaultKind, FaultWhen]): string => `${tool} with ${fault} ${when} the platform`;

test('creates (POST, and the PUT of CopyCanvasBoard) are sent once under every fault: no duplicates, and the error says what to check', async () => {
  const creates = [
    {
      tool: 'CanvasApi.CreateCanvasBoard',
      args: { mode: 'execute', request_body: { name: 'Fault test board' } },
      target: { method: 'POST', path: /^\/canvasapi\/v2\/boards$/ },
      count: boardCount,
    },
    {
      tool: 'CanvasApi.CopyCanvasBoard',
      args: { mode: 'execute', source_board_id: '', request_body: { name: 'Fault test copy' } },
      target: { method: 'PUT', path: /^\/canvasapi\/v2\/boards\?copy_from=/ },
      count: boardCount,
    },
    {
      tool: 'CanvasApi.AddStickyNoteToBoard',
      args: { mode: 'execute', board_id: '', request_body: { data: { content: 'fault test' } } },
      target: { method: 'POST', path: /\/sticky_notes$/ },
      count: itemCount,
    },
  ];
  let duplicates = 0;
  let resentCreates = 0;
  for (const create of creates) {
    const args = { ...create.args };
    if ('source_board_id' in args) args.source_board_id = board;
    if ('board_id' in args) args.board_id = board;
    for (const fault of FAULTS) {
      const name = label(create.tool, fault);
      const countBefore = await create.count();
      const { outcome, sent } = await callWithFault(canvas, create.tool, args, create.target, fault);
      const countAfter = await create.count();
      const reached = sent.filter((e) => e.forwarded).length;
      duplicates += Math.max(0, countAfter - countBefore - 1);
      resentCreates += Math.max(0, sent.length - 1);

      assert.equal(sent.length, 1, `${name}: sent exactly once`);
      assert.equal(reached, fault[1] === 'after' ? 1 : 0, `${name}: the platform saw it only when the fault came after`);
      assert.equal(countAfter - countBefore, reached, `${name}: one new record per request the platform received`);

      assert.equal(outcome.isError, true, name);
      const error = outcome.data;
      assert.equal(error.kind, fault[0] === 'hang' ? 'timeout' : fault[0] === 'reset' ? 'network_error' : 'upstream_error', name);
      assert.match(String(error.message), new RegExp(`${create.target.method} request \\(create\\)`), name);
      assert.match(String(error.message), /may have (reached CanvasApi and )?been carried out|may have been carried out despite the error/, name);
      assert.match(String(error.message), /not sent again/, name);
      assert.match(String(error.next_step), /may or may not have been applied; check the current state \(for example with a get or list tool\) before repeating it, to avoid duplicating data/, name);
    }
  }
  assert.equal(duplicates, 0, 'no duplicate creates');
  assert.equal(resentCreates, 0, 'no create was sent twice');
});

test('the CopyCanvasBoard error after a 5xx names the status and the next step in words an agent can act on', async () => {
  const { outcome } = await callWithFault(
    canvas,
    'CanvasApi.CopyCanvasBoard',
    { mode: 'execute', source_board_id: board, request_body: { name: 'Copy for the message test' } },
    { method: 'PUT', path: /copy_from=/ },
    ['5xx', 'after'],
  );
  assert.equal(outcome.isError, true);
  assert.deepEqual(
    { kind: outcome.data.kind, status: outcome.data.status },
    { kind: 'upstream_error', status: 503 },
  );
  assert.equal(
    outcome.data.message,
    'CanvasApi failed with HTTP 503. CanvasApi said: Service temporarily unavailable (injected fault) CanvasApi received the PUT request (create), so it may have been carried out despite the error; it was not sent again, so that it cannot happen twice.',
  );
});

test('a create that provably never reached the platform (connection refused) is sent again, and the error says nothing changed', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const nowhere = canvasApiServerFor({ baseUrl: `http://127.0.0.1:${port}/canvasapi`, token: 'sandbox-token' }, { timeoutMs: TIMEOUT_MS });
  const outcome = await callTool(nowhere, 'CanvasApi.CopyCanvasBoard', { mode: 'execute', source_board_id: board, request_body: { name: 'never' } });
  assert.equal(outcome.isError, true);
  assert.equal(outcome.data.kind, 'network_error');
  assert.match(String(outcome.data.message), /connection was refused \(ECONNREFUSED\) after 3 attempts\. Nothing reached CanvasApi, so nothing was changed\./);
});

test('reads (CanvasApi and IncidentOps GET) are sent again after every fault and succeed', async () => {
  for (const fault of FAULTS) {
    const canvasRead = await callWithFault(canvas, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: board }, { method: 'GET', path: new RegExp(`/v2/boards/${inPath(board)}$`) }, fault);
    assert.equal(canvasRead.outcome.isError, false, `${label('RetrieveBoardInfo', fault)}: ${JSON.stringify(canvasRead.outcome.data)}`);
    assert.equal(canvasRead.outcome.data.id, board);
    assert.equal(canvasRead.sent.length, 2, label('RetrieveBoardInfo', fault));

    const incidentRead = await callWithFault(incidents, 'IncidentOps.ListServices', {}, { method: 'GET', path: /^\/incidentops\/services/ }, fault);
    assert.equal(incidentRead.outcome.isError, false, `${label('ListServices', fault)}: ${JSON.stringify(incidentRead.outcome.data)}`);
    assert.ok(Array.isArray(incidentRead.outcome.data.services));
    assert.equal(incidentRead.sent.length, 2, label('ListServices', fault));
  }
});

test('updates (PATCH that sets fields) are sent again after every fault and end in the requested state', async () => {
  for (const [i, fault] of FAULTS.entries()) {
    const name = `Renamed under fault ${i}`;
    const { outcome, sent } = await callWithFault(
      canvas,
      'CanvasApi.UpdateCanvasBoard',
      { mode: 'execute', board_identifier: board, request_body: { name } },
      { method: 'PATCH', path: new RegExp(`/v2/boards/${inPath(board)}$`) },
      fault,
    );
    assert.equal(outcome.isError, false, `${label('UpdateCanvasBoard', fault)}: ${JSON.stringify(outcome.data)}`);
    assert.equal(outcome.data.name, name);
    assert.equal(sent.length, 2, label('UpdateCanvasBoard', fault));
    assert.equal((await platform('GET', `/v2/boards/${board}`)).data.name, name, 'the platform holds the new name');
  }
});

test('deletes are sent again after every fault; when the first attempt did it, the answer is success with a note, never "not found"', async () => {
  let falseNotFound = 0;
  for (const fault of FAULTS) {
    const made = await platform('POST', `/v2/boards/${board}/sticky_notes`, { data: { content: 'to delete' } });
    assert.equal(made.status, 201);
    const item = String(made.data.id);
    const { outcome, sent } = await callWithFault(
      canvas,
      'CanvasApi.DeleteBoardItem',
      { board_id: board, item_id: item },
      { method: 'DELETE', path: new RegExp(`/items/${inPath(item)}$`) },
      fault,
    );
    const name = label('DeleteBoardItem', fault);
    if (outcome.isError && outcome.data.kind === 'not_found') falseNotFound += 1;
    assert.equal(outcome.isError, false, `${name}: ${JSON.stringify(outcome.data)}`);
    assert.equal(outcome.data.success, true, name);
    assert.equal(sent.length, 2, name);
    if (fault[1] === 'after') {
      assert.equal(outcome.data.already_deleted, true, name);
      assert.match(String(outcome.data.note), /An earlier attempt of this delete failed \(.+\) after it may have reached CanvasApi; sent again, it was answered 404 \(not found\), so the earlier attempt most likely deleted/, name);
    } else {
      assert.equal(outcome.data.already_deleted, undefined, `${name}: the first attempt never reached the platform, so the resend did the delete`);
    }
    assert.equal((await platform('GET', `/v2/boards/${board}/items/${item}`)).status, 404, `${name}: the item is gone`);
  }
  assert.equal(falseNotFound, 0);
});
