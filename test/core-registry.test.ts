/** The registry as the SDK sees it: advertised schemas, our input errors, and output checked against its schema. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { silentLogger } from '../src/core/logger.js';
import { buildMcpServer, viewFor, type ToolServer } from '../src/core/tools/registry.js';
import { defineTool, READ_ONLY_HINTS } from '../src/core/tools/tool.js';
import { UNTRUSTED_NOTICE } from '../src/core/tools/untrusted.js';

const echo = defineTool({
  name: 'Test.Echo',
  title: 'Echo',
  description: 'Returns the number it was given, or a string when asked to misbehave.',
  toolset: 'test',
  input: z.strictObject({ n: z.number().int().min(1).max(5).describe('A number from 1 to 5.'), misbehave: z.boolean().default(false).describe('Return output that breaks the schema.') }),
  output: z.object({ n: z.number() }),
  hints: READ_ONLY_HINTS,
  handler: async (args) => (args.misbehave ? ({ n: 'not a number' } as unknown as { n: number }) : { n: args.n }),
});

const server: ToolServer<undefined> = { id: 'test', name: 'Test', version: '1', instructions: 'test', tools: [echo], deps: undefined, logger: silentLogger };

async function connect(): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(viewFor(server)).connect(serverSide);
  const client = new Client({ name: 'registry-test', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('registry over MCP', () => {
  it('advertises the flat input schema and the output schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    assert.equal(tools.length, 1);
    const tool = tools[0]!;
    assert.deepEqual(tool.inputSchema.required, ['n']);
    assert.equal((tool.inputSchema.properties as Record<string, { maximum?: number }>).n?.maximum, 5);
    assert.equal((tool.outputSchema?.properties as Record<string, { type?: string }>).n?.type, 'number');
    assert.deepEqual(tool.annotations, READ_ONLY_HINTS, 'the four hints, explicit; the title only once, at the top level');
    assert.equal(tool.title, 'Echo');
    await client.close();
  });

  it('answers bad input with our error shape and good input with matching structured content', async () => {
    const client = await connect();
    const bad = await client.callTool({ name: 'Test.Echo', arguments: { n: 9 } });
    assert.equal(bad.isError, true);
    const error = JSON.parse((bad.content as { text: string }[])[0]!.text) as { error: { kind: string; issues: { parameter: string }[] } };
    assert.equal(error.error.kind, 'invalid_input');
    assert.equal(error.error.issues[0]?.parameter, 'n');
    const good = await client.callTool({ name: 'Test.Echo', arguments: { n: 3 } });
    assert.deepEqual(good.structuredContent, { untrusted_text_notice: UNTRUSTED_NOTICE, n: 3 }, 'open-world results start with the notice that platform text is data');
    await client.close();
  });

  it('refuses a result that breaks the output schema', async () => {
    const client = await connect();
    const result = await client.callTool({ name: 'Test.Echo', arguments: { n: 2, misbehave: true } });
    assert.equal(result.isError, true);
    assert.match((result.content as { text: string }[])[0]!.text, /Output validation error/);
    await client.close();
  });
});
