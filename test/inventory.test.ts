/**
 * The tool inventory against the contracts: names, parameters, required flags, defaults,
 * explicit annotations, described parameters and flat schemas.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/server';
import { listTools } from '../src/core/tools/registry.js';
import { silentLogger } from '../src/core/logger.js';
import { contractDefaultsNotApplied } from '../src/canvasapi/catalogue.js';
import { SERVERS } from '../src/servers.js';
import { loadSeed, skipUnlessSeed } from './support/reference.js';
import { parseCanvasApiSeed, parseIncidentOpsSeed, type SeedTool } from './support/seed-contract.js';

const INCIDENTOPS_SEED = '000_8725cf638a095541.txt';
const CANVASAPI_SEED = '001_deac08a58eb0cb16.txt';

function toolsOf(serverId: string): Required<Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'annotations'>>[] {
  const entry = SERVERS.find((s) => s.id === serverId);
  assert.ok(entry, `server ${serverId} is registered`);
  return listTools(entry.create({}, { logger: silentLogger })) as Required<Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'annotations'>>[];
}

type Schema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>>; required?: string[] };

/** `notApplied`: contract defaults a server deliberately leaves unadvertised (tool -> parameter -> default). */
function assertMatchesSeed(
  listed: Required<Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'annotations'>>[],
  seedTools: SeedTool[],
  notApplied: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {},
): void {
  assert.deepEqual(listed.map((t) => t.name).sort(), seedTools.map((t) => t.name).sort(), 'tool names are exactly the seed tool names');
  for (const seedTool of seedTools) {
    const tool = listed.find((t) => t.name === seedTool.name);
    assert.ok(tool);
    const schema = tool.inputSchema as Schema;
    const properties = schema.properties ?? {};
    assert.deepEqual(Object.keys(properties).sort(), seedTool.parameters.map((p) => p.name).sort(), `${tool.name}: parameter names`);
    const required = new Set(schema.required ?? []);
    for (const param of seedTool.parameters) {
      assert.equal(required.has(param.name), param.required, `${tool.name}.${param.name}: required flag`);
      if (param.default !== undefined && notApplied[tool.name]?.[param.name] !== undefined) {
        assert.equal(properties[param.name]?.default, undefined, `${tool.name}.${param.name}: default deliberately not advertised`);
      } else if (param.default !== undefined) {
        assert.equal(String(properties[param.name]?.default), param.default, `${tool.name}.${param.name}: default`);
      }
    }
  }
}

/** No $ref/$defs anywhere, no top-level combinators, every parameter described. */
function assertFlatAndDescribed(tool: Required<Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'annotations'>>): void {
  const schema = tool.inputSchema as Schema;
  assert.equal(schema.type, 'object', `${tool.name}: object schema`);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'not']) assert.equal(schema[key], undefined, `${tool.name}: no top-level ${key}`);
  const text = JSON.stringify(schema);
  assert.doesNotMatch(text, /"\$ref"|"\$defs"|"definitions"/, `${tool.name}: no references`);
  assert.equal(schema.additionalProperties, false, `${tool.name}: unknown parameters are refused`);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const description = property.description;
    assert.equal(typeof description, 'string', `${tool.name}.${name} has a description`);
    assert.ok((description as string).length >= 10 && (description as string).length <= 400, `${tool.name}.${name}: short description`);
  }
  assert.ok(tool.description.length >= 20, `${tool.name} has a description`);
  assert.ok(tool.title.length > 0, `${tool.name} has a title`);
}

function assertExplicitHints(tool: Required<Pick<Tool, 'name' | 'title' | 'description' | 'inputSchema' | 'annotations'>>): void {
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
    assert.equal(typeof tool.annotations[hint], 'boolean', `${tool.name}: ${hint} is explicit`);
  }
}

describe('IncidentOps inventory', () => {
  const listed = toolsOf('incidentops');

  it('lists exactly the seed tools with the seed parameters, required flags and defaults', { skip: skipUnlessSeed(INCIDENTOPS_SEED) }, () => {
    const seedTools = parseIncidentOpsSeed(loadSeed(INCIDENTOPS_SEED) ?? '');
    assert.equal(seedTools.length, 14, 'the seed names 14 tools');
    assertMatchesSeed(listed, seedTools);
  });

  it('marks every tool read-only, idempotent, non-destructive and open-world', () => {
    assert.equal(listed.length, 14);
    for (const tool of listed) {
      assertExplicitHints(tool);
      assert.deepEqual(
        { r: tool.annotations.readOnlyHint, d: tool.annotations.destructiveHint, i: tool.annotations.idempotentHint, o: tool.annotations.openWorldHint },
        { r: true, d: false, i: true, o: true },
        tool.name,
      );
    }
  });

  it('advertises flat input schemas with every parameter described', () => {
    for (const tool of listed) assertFlatAndDescribed(tool);
  });

  it('uses the contract limits for paging parameters', () => {
    for (const tool of listed) {
      const properties = (tool.inputSchema as Schema).properties ?? {};
      if (properties.limit) assert.deepEqual([properties.limit.minimum, properties.limit.maximum, properties.limit.default], [1, 50, 10], tool.name);
      if (properties.offset) assert.equal(properties.offset.minimum, 0, tool.name);
    }
  });
});

describe('CanvasApi inventory', () => {
  const listed = toolsOf('canvasapi');

  it('lists exactly the seed tools with the seed parameters, required flags and defaults', { skip: skipUnlessSeed(CANVASAPI_SEED) }, () => {
    const seedTools = parseCanvasApiSeed(loadSeed(CANVASAPI_SEED) ?? '');
    assert.equal(seedTools.length, 139, 'the seed names 139 tools');
    assertMatchesSeed(listed, seedTools, contractDefaultsNotApplied);
  });

  it('annotates reads, creates, updates, deletes and irreversible actions as the contract asks', () => {
    assert.equal(listed.length, 139);
    const byName = new Map(listed.map((t) => [t.name, t.annotations]));
    const hints = (name: string) => {
      const a = byName.get(name);
      assert.ok(a, name);
      return [a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint];
    };
    assert.deepEqual(hints('CanvasApi.RetrieveBoardInfo'), [true, false, true, true]);
    assert.deepEqual(hints('CanvasApi.CreateBoardTag'), [false, false, false, true], 'creates are additive');
    assert.deepEqual(hints('CanvasApi.UpdateStickyNote'), [false, true, true, true], 'updates overwrite');
    assert.deepEqual(hints('CanvasApi.DeleteCanvasBoard'), [false, true, true, true]);
    assert.deepEqual(hints('CanvasApi.RevokeCanvasAccessToken')[1], true, 'revoking a token is destructive');
    assert.deepEqual(hints('CanvasApi.ResetUserSessions')[1], true, 'resetting sessions is destructive');
    for (const tool of listed) {
      assertExplicitHints(tool);
      assert.equal(tool.annotations.openWorldHint, true, tool.name);
      if (tool.annotations.readOnlyHint) assert.equal(tool.annotations.destructiveHint, false, tool.name);
      if (/\.(Delete|Remove)/.test(tool.name)) assert.equal(tool.annotations.destructiveHint, true, tool.name);
      if (/\.(Get|Retrieve|Fetch|Review)/.test(tool.name)) assert.equal(tool.annotations.readOnlyHint, true, tool.name);
    }
  });

  it('advertises flat input schemas with every parameter described', () => {
    for (const tool of listed) assertFlatAndDescribed(tool);
  });
});

describe('all servers', () => {
  it('use unique tool names prefixed with the server name', () => {
    const names = new Set<string>();
    for (const entry of SERVERS) {
      for (const tool of toolsOf(entry.id)) {
        assert.ok(tool.name.startsWith(`${entry.name}.`), tool.name);
        assert.ok(!names.has(tool.name), `duplicate ${tool.name}`);
        names.add(tool.name);
        assertExplicitHints(tool);
        assertFlatAndDescribed(tool);
      }
    }
  });
});
