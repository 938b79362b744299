/**
 * Skills (SEP-2640) through the SDK's own client (SkillsClient): listed, got and read, each file
 * verified against its entry, over stdio (the real CLI) and stateless HTTP, in both protocol eras.
 * And accurate: every tool a skill names is a tool of its server, every parameter written in
 * `Tool { a, b }` form is one of that tool's parameters, and the task tools a skill recommends are
 * listed by the profile and toolset it names.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { mcpServerFactory, viewFor, inputJsonSchema, type AnyToolServer } from '../src/core/tools/registry.js';
import { silentLogger } from '../src/core/logger.js';
import { skillMarkdown, type SkillText } from '../src/core/tools/skills.js';
import { INCIDENTOPS_SKILLS } from '../src/incidentops/skills.js';
import { CANVASAPI_SKILLS } from '../src/canvasapi/skills.js';
import { canvasApiServerFor, incidentOpsServerFor } from './support/harness.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const SERVER_KEY = 'skills-test-server-key-0123456789';
const ERAS = [
  { era: '2025 (initialize)', options: {} },
  { era: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;
const EXPECTED = {
  incidentops: { skills: INCIDENTOPS_SKILLS, names: ['incident-triage', 'oncall-handoff'] },
  canvasapi: { skills: CANVASAPI_SKILLS, names: ['build-board', 'read-board'] },
} as const;

/** Lists, gets and reads every skill through SkillsClient and checks each against the server's own text. */
async function assertSkillsServed(transport: Transport, serverId: keyof typeof EXPECTED, clientOptions: object): Promise<void> {
  const client = new Client({ name: 'skills-test', version: '1.0.0' }, clientOptions);
  await client.connect(transport);
  try {
    const skills = new SkillsClient(client);
    assert.equal(skills.supported, true, 'the server declares the skills extension');
    // The skills of a process never change, and neither does the tool list of a connection.
    assert.deepEqual(client.getServerCapabilities()?.resources, { listChanged: false });
    assert.deepEqual(client.getServerCapabilities()?.tools, {});
    const listing = await skills.list();
    assert.deepEqual(listing.invalid, []);
    const { names, skills: texts } = EXPECTED[serverId];
    assert.deepEqual(listing.skills.map((skill) => skill.frontmatter.name).sort(), [...names]);
    for (const entry of listing.skills) {
      assert.equal(entry.uri, `skill://${serverId}/${entry.frontmatter.name}/SKILL.md`);
      const text = texts.find((skill) => skill.name === entry.frontmatter.name)!;
      assert.equal(entry.frontmatter.description, text.description);
      const got = await skills.get(entry.uri);
      assert.deepEqual(got.skill, entry, 'skills/get answers the listed entry');
      // read() checks size, digest and frontmatter against the entry, and throws on any mismatch.
      const file = await skills.read(got.skill);
      assert.equal(file.verified, true);
      assert.equal(file.text, skillMarkdown(text));
      assert.equal(file.body?.trim(), text.body.trim());
    }
    await assert.rejects(skills.get(`skill://${serverId}/no-such-skill/SKILL.md`), /No skill is served/);
    // The tools are still there beside the skills.
    assert.ok((await client.listTools()).tools.length > 0);
  } finally {
    await client.close();
  }
}

describe('skills over stdio (the CLI)', () => {
  for (const serverId of ['incidentops', 'canvasapi'] as const) {
    for (const { era, options } of ERAS) {
      it(`${serverId}, ${era}: lists, gets and reads every skill`, async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [CLI, serverId],
          env: { PATH: process.env.PATH ?? '', TOOLSERVERS_LOG_LEVEL: 'warn', INCIDENTOPS_ACCESS_TOKEN: 'dummy', CANVASAPI_ACCESS_TOKEN: 'dummy', TOOLSERVERS_CREDENTIALS_FILE: '/nonexistent/credentials.json' },
        });
        await assertSkillsServed(transport, serverId, options);
      });
    }
  }
});

describe('skills over stateless HTTP', () => {
  let http: RunningHttpServer;
  before(async () => {
    http = await serveOverHttp({
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger,
      serverKey: SERVER_KEY,
      mounts: [
        { path: '/incidentops/mcp', server: incidentOpsServerFor(undefined) },
        { path: '/canvasapi/mcp', server: canvasApiServerFor(undefined) },
      ],
    });
  });
  after(() => http.close());

  for (const serverId of ['incidentops', 'canvasapi'] as const) {
    for (const { era, options } of ERAS) {
      it(`${serverId}, ${era}: lists, gets and reads every skill`, async () => {
        const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/${serverId}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } });
        await assertSkillsServed(transport, serverId, options);
      });
    }
  }
});

/** Tool names a skill mentions, and the parameters it writes as `Tool { a, b: ... }`. */
function mentions(skill: SkillText): { tools: Set<string>; parameters: [string, string][] } {
  const tools = new Set(skill.body.match(/\b(?:IncidentOps|CanvasApi)\.[A-Z]\w+/g) ?? []);
  const parameters: [string, string][] = [];
  for (const match of skill.body.matchAll(/\b((?:IncidentOps|CanvasApi)\.[A-Z]\w+) \{([^}]*)\}/g)) {
    for (const part of match[2]!.split(',')) parameters.push([match[1]!, part.split(':')[0]!.trim()]);
  }
  return { tools, parameters };
}

describe('skills name real tools, parameters and profiles', () => {
  const servers: [AnyToolServer, readonly SkillText[], string[]][] = [
    [incidentOpsServerFor(undefined), INCIDENTOPS_SKILLS, ['IncidentOps.GetIncidentContext', 'IncidentOps.WhoIsOnCall']],
    [canvasApiServerFor(undefined), CANVASAPI_SKILLS, ['CanvasApi.ReadBoard', 'CanvasApi.CreateDiagram']],
  ];
  for (const [server, skills, taskTools] of servers) {
    it(`${server.name}: every tool and parameter named exists`, () => {
      const byName = new Map(server.tools.map((tool) => [tool.name, tool]));
      let checkedParameters = 0;
      for (const skill of skills) {
        const { tools, parameters } = mentions(skill);
        assert.ok(tools.size > 0, `${skill.name} names tools`);
        for (const name of tools) assert.ok(byName.has(name), `${skill.name}: ${name} is a tool of ${server.name}`);
        for (const [tool, parameter] of parameters) {
          const properties = Object.keys((inputJsonSchema(byName.get(tool)!) as { properties?: object }).properties ?? {});
          assert.ok(properties.includes(parameter), `${skill.name}: ${tool} has a parameter ${parameter} (it has ${properties.join(', ')})`);
          checkedParameters++;
        }
      }
      assert.ok(checkedParameters >= 4, 'the check saw the parameters the skills write out');
    });

    it(`${server.name}: the task tools the skills recommend are listed by the everyday profile and the tasks toolset, not by all`, () => {
      const named = new Set(skills.flatMap((skill) => [...mentions(skill).tools]));
      for (const tool of taskTools) assert.ok(named.has(tool), `a skill recommends ${tool}`);
      const listed = (selection: object) => new Set(viewFor(server, { selections: [selection] }).listing.map((tool) => tool.name));
      for (const tool of taskTools) {
        assert.ok(listed({ profile: 'everyday' }).has(tool));
        assert.ok(listed({ toolsets: ['tasks'] }).has(tool));
        assert.ok(!listed({ profile: 'all' }).has(tool));
      }
    });
  }
});

describe('a skill text that breaks the rules', () => {
  it('fails skills/list with an error, is retried on the next request, and leaves the tools working', async () => {
    let loads = 0;
    const broken: SkillText = { name: 'Not A Valid Name', description: 'upper case and spaces are not allowed in a skill name', body: 'text' };
    const base = incidentOpsServerFor(undefined);
    const server: AnyToolServer = { ...base, skills: async () => (loads++, [broken]) };
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = await mcpServerFactory(viewFor(server))({} as never);
    await mcp.connect(serverSide);
    const client = new Client({ name: 'skills-test', version: '1.0.0' });
    await client.connect(clientSide);
    try {
      const skills = new SkillsClient(client);
      assert.equal(skills.supported, true);
      assert.equal(loads, 0, 'the texts are not loaded before a skills request');
      await assert.rejects(skills.list(), /name/i);
      await assert.rejects(skills.list(), /name/i);
      assert.equal(loads, 2, 'a failed build is not cached: each request tries again');
      assert.equal((await client.listTools()).tools.length, 14, 'the tools are unaffected');
    } finally {
      await client.close();
    }
  });
});
