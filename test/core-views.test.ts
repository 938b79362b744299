/**
 * The core's views of a server: name styles, tool selection (profiles, toolsets, tools, exclusions,
 * read-only), unknown-tool hints, progress, the result budget, and per-request choices over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { silentLogger } from '../src/core/logger.js';
import { buildMcpServer, viewFor, type ToolServer, type ViewOptions } from '../src/core/tools/registry.js';
import { fitResult, RESULT_BUDGET_BYTES, TRUNCATION_KEY } from '../src/core/tools/result-budget.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { SelectionError } from '../src/core/tools/names.js';
import { defineTool, READ_ONLY_HINTS, type AnyToolDefinition } from '../src/core/tools/tool.js';
import { UNTRUSTED_NOTICE } from '../src/core/tools/untrusted.js';

type Json = Record<string, unknown>;
const WRITE_HINTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };

const calls: string[] = [];
const tools: AnyToolDefinition[] = [
  defineTool({
    name: 'Demo.ListThings',
    title: 'List things',
    description: 'Lists things; see Demo.GetThing for one.',
    toolset: 'things',
    input: z.strictObject({ count: z.number().int().min(0).max(100_000).default(3).describe('How many things to return.') }),
    output: z.object({ things: z.array(z.object({ id: z.string(), text: z.string() })) }),
    hints: READ_ONLY_HINTS,
    truncationHint: 'Ask for fewer things with count.',
    handler: async (args, context) => {
      calls.push('ListThings');
      const things = [];
      for (let i = 0; i < args.count; i++) {
        things.push({ id: `T${i}`, text: `thing number ${i} with some words to take up room` });
        if (i % 1000 === 999) context.progress(i + 1, args.count, 'making things');
      }
      return { things };
    },
  }),
  defineTool({
    name: 'Demo.GetThing',
    title: 'Get a thing',
    description: 'One thing by ID.',
    toolset: 'things',
    input: z.strictObject({ id: z.string().min(1).describe('ID of the thing.') }),
    output: z.looseObject({}),
    hints: READ_ONLY_HINTS,
    handler: async (args) => {
      calls.push('GetThing');
      return { id: args.id };
    },
  }),
  defineTool({
    name: 'Demo.DeleteThing',
    title: 'Delete a thing',
    description: 'Deletes one thing.',
    toolset: 'admin',
    input: z.strictObject({ id: z.string().min(1).describe('ID of the thing.') }),
    output: z.looseObject({}),
    hints: WRITE_HINTS,
    handler: async (args) => {
      calls.push('DeleteThing');
      return { deleted: args.id };
    },
  }),
];

const server: ToolServer<undefined> = {
  id: 'demo',
  name: 'Demo',
  version: '1',
  instructions: 'Start with Demo.ListThings.',
  tools,
  profiles: { small: { description: 'only reading one thing', tools: ['Demo.GetThing'] } },
  deps: undefined,
  logger: silentLogger,
};

async function connect(options: ViewOptions = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(viewFor(server, options)).connect(serverSide);
  const client = new Client({ name: 'views-test', version: '1' });
  await client.connect(clientSide);
  return client;
}

async function names(options: ViewOptions = {}): Promise<string[]> {
  const client = await connect(options);
  const { tools: listed } = await client.listTools();
  await client.close();
  return listed.map((tool) => tool.name);
}

describe('name styles', () => {
  it('lists contract names by default and underscore names on request, texts included', async () => {
    assert.deepEqual(await names(), ['Demo.ListThings', 'Demo.GetThing', 'Demo.DeleteThing']);
    const client = await connect({ nameStyle: 'underscore' });
    const { tools: listed } = await client.listTools();
    assert.deepEqual(listed.map((tool) => tool.name), ['Demo_ListThings', 'Demo_GetThing', 'Demo_DeleteThing']);
    assert.match(listed[0]!.description!, /see Demo_GetThing/, 'names inside descriptions follow the style');
    assert.match(client.getInstructions() ?? '', /Demo_ListThings/);
    await client.close();
  });

  it('calls a tool by either spelling in either style', async () => {
    for (const nameStyle of ['contract', 'underscore'] as const) {
      const client = await connect({ nameStyle });
      for (const name of ['Demo.GetThing', 'Demo_GetThing']) {
        const result = await client.callTool({ name, arguments: { id: 'x' } });
        assert.equal(result.isError, undefined, `${nameStyle}: ${name}`);
        assert.deepEqual(result.structuredContent, { untrusted_text_notice: UNTRUSTED_NOTICE, id: 'x' });
      }
      await client.close();
    }
  });
});

describe('tool selection', () => {
  it('narrows by toolsets, tools, exclusions, read-only and profiles', async () => {
    assert.deepEqual(await names({ selections: [{ toolsets: ['admin'] }] }), ['Demo.DeleteThing']);
    assert.deepEqual(await names({ selections: [{ toolsets: ['admin'], tools: ['Demo_GetThing'] }] }), ['Demo.GetThing', 'Demo.DeleteThing'], 'tools add to toolsets');
    assert.deepEqual(await names({ selections: [{ excludeTools: ['GetThing'] }] }), ['Demo.ListThings', 'Demo.DeleteThing'], 'a name without the prefix works');
    assert.deepEqual(await names({ selections: [{ readOnly: true }] }), ['Demo.ListThings', 'Demo.GetThing']);
    assert.deepEqual(await names({ selections: [{ profile: 'readonly' }] }), ['Demo.ListThings', 'Demo.GetThing']);
    assert.deepEqual(await names({ selections: [{ profile: 'small' }] }), ['Demo.GetThing']);
    assert.deepEqual(await names({ selections: [{ readOnly: true }, { toolsets: ['admin'] }] }), [], 'a later choice never widens an earlier one');
  });

  it('refuses unknown profiles, toolsets and tools with the nearest name', () => {
    assert.throws(() => viewFor(server, { selections: [{ profile: 'smal' }] }), (error: Error) => error instanceof SelectionError && /profile "smal" \(did you mean "small"\?\)/.test(error.message));
    assert.throws(() => viewFor(server, { selections: [{ toolsets: ['thing'] }] }), /toolset "thing" \(did you mean "things"\?\)/);
    assert.throws(() => viewFor(server, { selections: [{ tools: ['Demo.GetThng'] }] }), /tool "Demo.GetThng" \(did you mean "Demo.GetThing"\?\)/);
  });

  it('a filtered-out tool cannot be called, and nothing runs', async () => {
    const client = await connect({ selections: [{ readOnly: true }] });
    calls.length = 0;
    await assert.rejects(client.callTool({ name: 'Demo.DeleteThing', arguments: { id: 'x' } }), /not available on this connection.*read-only/);
    assert.deepEqual(calls, []);
    await client.close();
  });

  it('an unknown tool gets a "did you mean"', async () => {
    const client = await connect({ nameStyle: 'underscore' });
    await assert.rejects(client.callTool({ name: 'Demo_GetThng', arguments: {} }), /Unknown tool Demo_GetThng\. Did you mean Demo_GetThing\?/);
    await client.close();
  });

  it('does not advertise listChanged: the list of a connection never changes', async () => {
    const client = await connect();
    assert.deepEqual(client.getServerCapabilities()?.tools, {});
    await client.close();
  });
});

describe('meta mode', () => {
  it('lists find, describe and the two call tools, and calls through them with the same validation', async () => {
    const client = await connect({ selections: [{ profile: 'meta' }] });
    const { tools: listed } = await client.listTools();
    assert.deepEqual(listed.map((tool) => tool.name), ['Demo.FindTools', 'Demo.DescribeTool', 'Demo.CallReadOnlyTool', 'Demo.CallTool']);
    assert.equal(listed[2]!.annotations?.readOnlyHint, true);
    assert.equal(listed[3]!.annotations?.destructiveHint, true);
    const found = (await client.callTool({ name: 'Demo.FindTools', arguments: { query: 'delete' } })).structuredContent as { tools: Json[] };
    assert.equal(found.tools[0]?.name, 'Demo.DeleteThing');
    assert.equal(found.tools[0]?.destructive, true);
    const described = (await client.callTool({ name: 'Demo.DescribeTool', arguments: { name: 'Demo.ListThings' } })).structuredContent as Json;
    assert.deepEqual(Object.keys((described.input_schema as { properties: Json }).properties), ['count']);
    const listedThings = await client.callTool({ name: 'Demo.CallReadOnlyTool', arguments: { name: 'Demo.ListThings', arguments: { count: 2 } } });
    assert.equal((listedThings.structuredContent as { things: Json[] }).things.length, 2);
    const refused = await client.callTool({ name: 'Demo.CallReadOnlyTool', arguments: { name: 'Demo.DeleteThing', arguments: { id: 'x' } } });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /changes data; call it with Demo.CallTool/);
    const invalid = await client.callTool({ name: 'Demo.CallTool', arguments: { name: 'Demo.ListThings', arguments: { count: -1 } } });
    assert.equal(invalid.isError, true);
    assert.match(JSON.stringify(invalid.content), /count: must be at least 0/);
    const asString = await client.callTool({ name: 'Demo.CallTool', arguments: { name: 'Demo.DeleteThing', arguments: '{"id":"y"}' } });
    assert.deepEqual(asString.structuredContent, { untrusted_text_notice: UNTRUSTED_NOTICE, deleted: 'y' });
    await client.close();
  });

  it('in meta mode over a read-only selection there is no call tool for writes, and writes are unreachable', async () => {
    const client = await connect({ selections: [{ profile: 'meta' }, { readOnly: true }] });
    const { tools: listed } = await client.listTools();
    assert.deepEqual(listed.map((tool) => tool.name), ['Demo.FindTools', 'Demo.DescribeTool', 'Demo.CallReadOnlyTool']);
    const refused = await client.callTool({ name: 'Demo.CallReadOnlyTool', arguments: { name: 'Demo.DeleteThing', arguments: { id: 'x' } } });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /not available on this connection/);
    await client.close();
  });
});

describe('progress', () => {
  it('sends notifications/progress when the request has a progress token, increasing', async () => {
    const client = await connect();
    const seen: { progress: number; total?: number }[] = [];
    const result = await client.callTool({ name: 'Demo.ListThings', arguments: { count: 5000 } }, { onprogress: (p) => seen.push(p) });
    assert.ok(!result.isError);
    assert.deepEqual(
      seen.map((p) => p.progress),
      [1000, 2000, 3000, 4000, 5000],
    );
    assert.equal(seen[0]?.total, 5000);
    const quiet = await client.callTool({ name: 'Demo.ListThings', arguments: { count: 2000 } });
    assert.ok(!quiet.isError, 'without a token the same call works and reports nowhere');
    await client.close();
  });
});

describe('result budget', () => {
  it('cuts the longest list at a record boundary and says how to get the rest', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'Demo.ListThings', arguments: { count: 20_000 } });
    const text = (result.content as { text: string }[])[0]!.text;
    assert.ok(Buffer.byteLength(text) <= RESULT_BUDGET_BYTES, `${Buffer.byteLength(text)} bytes`);
    const data = result.structuredContent as { things: Json[]; [TRUNCATION_KEY]: Json };
    const note = data[TRUNCATION_KEY];
    assert.equal(note.list, 'things');
    assert.equal(note.returned, data.things.length);
    assert.equal((note.returned as number) + (note.omitted as number), 20_000);
    assert.equal(note.next_step, 'Ask for fewer things with count.');
    assert.deepEqual(data.things.at(-1), { id: `T${data.things.length - 1}`, text: `thing number ${data.things.length - 1} with some words to take up room` }, 'whole records only');
    assert.deepEqual(JSON.parse(text), data, 'text and structured content agree');
    await client.close();
  });

  it('leaves a result within the budget untouched', () => {
    const data = { things: [{ id: 'a' }] };
    assert.equal(fitResult(data, undefined).data, data);
  });

  it('shortens long texts when one record alone is too big', () => {
    const { data, text } = fitResult({ note: 'x'.repeat(200_000), items: [{ big: 'y'.repeat(100_000) }] }, undefined);
    assert.ok(Buffer.byteLength(text) <= RESULT_BUDGET_BYTES);
    const note = data[TRUNCATION_KEY] as Json;
    assert.ok((note.shortened_texts as number) >= 1);
    assert.match(String(data.note), /more characters cut\]$/);
  });
});

describe('per-request choices over HTTP', () => {
  const KEY = 'views-test-server-key-0123456789';
  let http: RunningHttpServer;
  before(async () => {
    http = await serveOverHttp({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      serverKey: KEY,
      mounts: [
        { path: '/demo/mcp', server, view: { selections: [{ excludeTools: ['Demo.ListThings'] }] } },
        { path: '/all/mcp', server },
      ],
    });
  });
  after(() => http.close());

  async function listAt(path: string, headers: Record<string, string> = {}, modern = false): Promise<string[]> {
    const client = new Client({ name: 'views-http', version: '1' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${KEY}`, ...headers } } }));
    const { tools: listed } = await client.listTools();
    await client.close();
    return listed.map((tool) => tool.name);
  }

  it('chooses profile and name style by path segment, for both protocol eras', async () => {
    for (const modern of [false, true]) {
      assert.deepEqual(await listAt('/demo/mcp', {}, modern), ['Demo.GetThing', 'Demo.DeleteThing'], "the operator's exclusion holds");
      assert.deepEqual(await listAt('/demo/readonly/mcp', {}, modern), ['Demo.GetThing']);
      assert.deepEqual(await listAt('/demo/readonly/underscore/mcp', {}, modern), ['Demo_GetThing']);
    }
  });

  it('chooses by headers and query parameters, and never widens the operator choice', async () => {
    assert.deepEqual(await listAt('/demo/mcp', { 'X-Toolservers-Toolsets': 'admin', 'X-Toolservers-Tool-Names': 'underscore' }), ['Demo_DeleteThing']);
    assert.deepEqual(await listAt('/demo/mcp?read_only=true'), ['Demo.GetThing']);
    assert.deepEqual(await listAt('/demo/mcp', { 'X-Toolservers-Tools': 'Demo.ListThings,Demo.GetThing' }), ['Demo.GetThing'], 'an excluded tool stays excluded');
  });

  it('streams progress notifications over stateless HTTP, for both protocol eras', async () => {
    for (const modern of [false, true]) {
      const client = new Client({ name: 'views-http', version: '1' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/all/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
      const seen: number[] = [];
      const result = await client.callTool({ name: 'Demo.ListThings', arguments: { count: 3000 } }, { onprogress: (p) => seen.push(p.progress) });
      assert.ok(!result.isError);
      assert.deepEqual(seen, [1000, 2000, 3000], modern ? 'modern' : 'legacy');
      await client.close();
    }
  });

  it('answers 400 naming the problem for an unknown profile or toolset', async () => {
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${http.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    const badProfile = await post('/demo/everyda/mcp');
    assert.equal(badProfile.status, 400);
    assert.match(((await badProfile.json()) as { error: string }).error, /Unknown profile "everyda"/);
    const badToolset = await post('/demo/mcp', { 'X-Toolservers-Toolsets': 'nope' });
    assert.equal(badToolset.status, 400);
    assert.match(((await badToolset.json()) as { error: string }).error, /Unknown toolset "nope"/);
    const notFound = await post('/demo/a/b/c/d/mcp');
    assert.equal(notFound.status, 404);
  });
});
