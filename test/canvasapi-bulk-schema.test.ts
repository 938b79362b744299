/**
 * AddItemsToCanvasBoard's `get_request_schema` answer is enough to act on: from that schema alone
 * (no hand-written item), a generic generator builds one valid item of every type, and the tool
 * creates each of them on the sandbox board. The answer stays small enough to read.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type _Ajv2020 from 'ajv/dist/2020.js';
import type _addFormats from 'ajv-formats';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';

type Json = Record<string, unknown>;

const TOOL = 'CanvasApi.AddItemsToCanvasBoard';
/** The readable bound of the schema answer, in bytes of compact JSON (about 3,000 tokens). */
const MAX_SCHEMA_BYTES = 16_000;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One value that satisfies `schema`, built only from what the schema says: local `$ref`s, `const`,
 * `enum`, `oneOf`/`anyOf` (first branch), `allOf`, required properties, array and number bounds,
 * string formats and lengths. Optional properties are left out.
 */
function sampleFor(schema: unknown, root: Json, depth = 0): unknown {
  assert.ok(depth < 32, 'the schema nests too deep for a sample');
  if (!isObject(schema)) return {};
  if (typeof schema.$ref === 'string') {
    const match = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    assert.ok(match, `only local $defs references are expected, got ${schema.$ref}`);
    return sampleFor((root.$defs as Json)[match[1]!], root, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(schema[key])) return sampleFor(schema[key][0], root, depth + 1);
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((part) => sampleFor(part, root, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(required.map((name) => [name, sampleFor(properties[name], root, depth + 1)]));
    }
    case 'array':
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 1)) }, () => sampleFor(schema.items, root, depth + 1));
    case 'integer':
    case 'number': {
      const low = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1;
      const high = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - 1 : Infinity;
      return Math.min(Math.max(low, 1), high);
    }
    case 'boolean':
      return true;
    case 'string': {
      const byFormat: Record<string, string> = {
        uri: 'https://example.com/sample.png',
        url: 'https://example.com/sample.png',
        'date-time': '2026-01-01T00:00:00Z',
        date: '2026-01-01',
        email: 'someone@example.com',
        uuid: '123e4567-e89b-42d3-a456-426614174000',
      };
      const text = typeof schema.format === 'string' && byFormat[schema.format] ? byFormat[schema.format]! : 'sample';
      const min = Number(schema.minLength ?? 0);
      return text.length >= min ? text.slice(0, Number(schema.maxLength ?? text.length)) : text.padEnd(min, 'x');
    }
    default:
      return {};
  }
}

function newAjv() {
  const require = createRequire(import.meta.url);
  const Ajv2020 = (require('ajv/dist/2020.js') as typeof _Ajv2020).default;
  const addFormats = (require('ajv-formats') as typeof _addFormats).default;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv;
}

describe('AddItemsToCanvasBoard: the schema mode shows every item type', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  let board: string;
  let schema: Json;

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    board = String(sandbox.canvasapi.demo!.boardIds[0]);
    const answer = await callTool(server, TOOL, { mode: 'get_request_schema' });
    assert.equal(answer.isError, false, JSON.stringify(answer.data));
    schema = answer.data.request_schema as Json;
  });
  after(async () => {
    await sandbox?.close();
  });

  it('lists every item type with its own fields (a oneOf by type), and points at nothing a call cannot read', () => {
    const items = schema.items as Json;
    const branches = items.oneOf as Json[];
    assert.ok(Array.isArray(branches) && branches.length >= 9, 'one schema per item type');
    const types = branches.map((branch) => ((branch.properties as Json).type as Json).const);
    assert.equal(new Set(types).size, types.length, 'each type once');
    for (const [i, branch] of branches.entries()) {
      assert.ok(Object.keys(branch.properties as Json).length > 1, `${String(types[i])} has fields besides its type`);
      assert.deepEqual((branch.required as string[]).includes('type'), true);
    }
    const sticky = branches.find((branch) => ((branch.properties as Json).type as Json).const === 'sticky_note') as Json;
    assert.ok(((sticky.properties as Json).data as Json).properties, 'a sticky note shows its data fields');
    assert.doesNotMatch(JSON.stringify(schema), /itemTypes/, 'no pointer to a schema no call can read');
    assert.ok(newAjv().validateSchema(schema), 'a valid JSON Schema');
  });

  it('stays small enough to read, byte for byte the same on every call', async () => {
    const bytes = Buffer.byteLength(JSON.stringify(schema));
    assert.ok(bytes <= MAX_SCHEMA_BYTES, `${bytes} bytes`);
    const again = await callTool(server, TOOL, { mode: 'get_request_schema' });
    assert.equal(JSON.stringify(again.data.request_schema), JSON.stringify(schema));
  });

  it('a generic generator builds one valid item of every type from that schema alone, and the tool creates each', async () => {
    const validate = newAjv().compile(schema);
    const branches = (schema.items as Json).oneOf as Json[];
    const created: string[] = [];
    for (const branch of branches) {
      const item = sampleFor(branch, schema) as Json;
      const type = String(item.type);
      assert.ok(validate([item]), `${type}: the generated item fits the returned schema: ${JSON.stringify(validate.errors)}`);
      const before = sandbox.requests.length;
      const outcome = await callTool(server, TOOL, { mode: 'execute', canvas_board_identifier: board, request_body: JSON.stringify([item]) });
      assert.equal(outcome.isError, false, `${type} ${JSON.stringify(item)}: ${JSON.stringify(outcome.data).slice(0, 600)}`);
      assert.equal(sandbox.requests.length, before + 1, `${type}: one request`);
      const data = (outcome.data.data ?? outcome.data.items ?? outcome.data) as Json[] | Json;
      const first = Array.isArray(data) ? data[0] : data;
      assert.equal(first?.type, type, `${type}: created as that type`);
      created.push(type);
    }
    assert.equal(created.length, branches.length);
  });
});
