/**
 * The heaviest diagram CreateDiagram accepts (test/support/worst-diagram.ts) over HTTP: while it is
 * laid out, the server goes on answering `/health` and another client's calls, counted in the order
 * things happen (no timing): answers between the start of the tool's handler and the diagram's
 * first request to the platform, which the layout alone separates. The diagram is then drawn in full. Past the layout's time limit, an error names what to reduce and
 * nothing is sent; an unknown board is the platform's own error after the layout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { OFF_THREAD_TIMEOUT_ENV } from '../src/core/tools/off-thread.js';
import type { AnyToolDefinition } from '../src/core/tools/tool.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { worstDiagram } from './support/worst-diagram.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const SERVER_KEY = 'diagram-load-test-key-0123456789';

describe('CreateDiagram at its limits, over HTTP', () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  /** What happened, in order: `start` (CreateDiagram's handler called), `health`, `other` (another client's call answered), `create` (a POST for the diagram's board sent to the platform). */
  const events: string[] = [];
  let diagramBoard = '';
  const clients: Client[] = [];

  before(async () => {
    sandbox = await startTestSandbox();
    const recording = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (diagramBoard && url.includes(`/v2/boards/${encodeURIComponent(diagramBoard)}/`)) events.push(init?.method === 'POST' ? 'create' : 'read');
      return fetch(input, init);
    }) as typeof fetch;
    const server = canvasApiServerFor(sandbox.canvasapi, { fetch: recording });
    const tools = server.tools as AnyToolDefinition[];
    const index = tools.findIndex((tool) => tool.name === 'CanvasApi.CreateDiagram');
    const createDiagram = tools[index]!;
    tools[index] = { ...createDiagram, input: createDiagram.input, handler: (args, context) => (events.push('start'), createDiagram.handler(args, context)) };
    // The first call loads the tool's code: not what is measured.
    const warmUp = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: sandbox.canvasapi.demo!.boardIds[0], nodes: [{ id: 'a', text: 'a' }, { id: 'b', text: 'b' }], edges: [{ from: 'a', to: 'b' }], layout: 'flow-down' });
    assert.equal(warmUp.isError, false);
    http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: SERVER_KEY, mounts: [{ path: '/mcp', server, view: { selections: [{ tools: ['CanvasApi.CreateDiagram', 'CanvasApi.RetrieveBoardInfo'] }] } }] });
  });
  after(async () => {
    delete process.env[OFF_THREAD_TIMEOUT_ENV];
    await Promise.all(clients.map((client) => client.close()));
    await http?.close();
    await sandbox?.close();
  });

  async function client(): Promise<Client> {
    const connected = new Client({ name: 'diagram-load-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
    clients.push(connected);
    return connected;
  }

  /** Runs the diagram call while /health is probed and another client calls, one after another, until it ends. */
  async function drawWhileProbed(boardId: string): Promise<{ result: J; before: { health: number; other: number } }> {
    events.length = 0;
    diagramBoard = boardId;
    const [drawing, other] = [await client(), await client()];
    let done = false;
    const probe = async () => {
      while (!done) {
        const answer = await fetch(`${http.url}/health`);
        await answer.text();
        if (answer.ok) events.push('health');
      }
    };
    const otherCalls = async () => {
      while (!done) {
        const answer = await other.callTool({ name: 'CanvasApi.RetrieveBoardInfo', arguments: { board_unique_identifier: sandbox.canvasapi.demo!.boardIds[0] } });
        if (!answer.isError) events.push('other');
      }
    };
    const probing = Promise.all([probe(), otherCalls()]);
    try {
      const result = await drawing.callTool({ name: 'CanvasApi.CreateDiagram', arguments: worstDiagram(boardId) }, { timeout: 120_000 });
      const start = events.indexOf('start');
      const firstCreate = events.indexOf('create');
      assert.ok(start >= 0);
      const upTo = events.slice(start, firstCreate < 0 ? undefined : firstCreate);
      return { result, before: { health: upTo.filter((e) => e === 'health').length, other: upTo.filter((e) => e === 'other').length } };
    } finally {
      done = true;
      await probing;
    }
  }

  it('answers /health and other calls all through the layout, then draws every node and edge', async () => {
    const board = (await (await fetch(`${sandbox.canvasapi.baseUrl}/v2/boards`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Worst case' }) })).json()) as { id: string };
    const { result, before } = await drawWhileProbed(board.id);
    assert.ok(before.health >= 5, `/health answered ${before.health} times between the call's start and its first create`);
    assert.ok(before.other >= 1, `another client's call answered ${before.other} times between the call's start and its first create`);
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const data = result.structuredContent as J;
    assert.equal(data.summary, '200 of 200 nodes and 400 of 400 connectors created.');
    assert.match(data.layout_note, /^\d+ edges crossing many ranks \(edges\[\d+\], .*\) did not shape the layout, which keeps it fast; they are drawn all the same\.$/);
    const read = async (path: string) => (await (await fetch(`${sandbox.canvasapi.baseUrl}${path}`, { headers: { authorization: `Bearer ${sandbox.canvasapi.token}` } })).json()) as J;
    let connectors = 0;
    for (let cursor = ''; ; ) {
      const page = await read(`/v2/boards/${board.id}/connectors?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      connectors += page.data.length;
      if (!page.cursor) break;
      cursor = page.cursor;
    }
    assert.equal(connectors, 400);
  });

  it('an unknown board: /health answered through the layout, then the platform says so, and nothing exists', async () => {
    const { result, before } = await drawWhileProbed('uXjVnoSuchBoard=');
    assert.ok(before.health >= 5, `/health answered ${before.health} times between the call's start and its first request`);
    assert.equal(result.isError, true);
    assert.equal((JSON.parse((result.content as { text: string }[])[0]!.text) as J).error.kind, 'not_found');
    // Without an origin, its first request reads the board's items to place it: refused, nothing created.
    assert.deepEqual(events.filter((e) => e === 'create' || e === 'read'), ['read'], 'one request, refused');
  });

  it(`past the layout's time limit (${OFF_THREAD_TIMEOUT_ENV}), says what to reduce and sends nothing`, async () => {
    process.env[OFF_THREAD_TIMEOUT_ENV] = '1';
    sandbox.clearRequests();
    const result = await callTool(canvasApiServerFor(sandbox.canvasapi), 'CanvasApi.CreateDiagram', worstDiagram(sandbox.canvasapi.demo!.boardIds[0]!));
    delete process.env[OFF_THREAD_TIMEOUT_ENV];
    assert.equal(result.isError, true);
    assert.equal(result.data.kind, 'invalid_input');
    assert.deepEqual((result.data.issues as J[]).map((i) => i.parameter), ['edges']);
    assert.match(result.data.message as string, /^Computing the layout took more than 1 ms, its limit \(nothing was sent\): edges: laying these nodes and edges out takes more than 1 ms: draw fewer nodes or edges/);
    assert.equal(sandbox.requests.length, 0, 'nothing was sent');
  });
});
