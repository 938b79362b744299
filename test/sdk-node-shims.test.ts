/**
 * The bundle replaces the SDK's Node shim with src/sdk-node-shims.ts (the same validator on the
 * project's own Ajv, loaded on first use). It must answer exactly as the SDK's own does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DefaultJsonSchemaValidator as SdkValidator, process as sdkProcess } from '@modelcontextprotocol/server/_shims';
import { DefaultJsonSchemaValidator, process as ownProcess } from '../src/sdk-node-shims.js';

const cases: { schema: Record<string, unknown>; inputs: unknown[] }[] = [
  {
    schema: { type: 'object', properties: { name: { type: 'string', minLength: 2 }, email: { type: 'string', format: 'email' }, when: { type: 'string', format: 'date-time' } }, required: ['name'], additionalProperties: false },
    inputs: [{ name: 'Ana' }, { name: 'A' }, {}, { name: 'Ana', email: 'not an e-mail' }, { name: 'Ana', when: '2026-11-22T10:00:00Z' }, { name: 'Ana', extra: 1 }, 'text', null],
  },
  { schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: { type: 'integer' }, maxItems: 2 }, inputs: [[1, 2], [1, 2, 3], [1.5], []] },
  { schema: { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { n: { type: 'number', exclusiveMinimum: 0 } } }, inputs: [{ n: 1 }, { n: 0 }, { n: 'x' }] },
  { schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'urn:toolservers:test', enum: ['a', 'b'] }, inputs: ['a', 'c'] },
];

test('the bundle shim validates every dialect exactly as the SDK shim does, with the same messages', () => {
  const ours = new DefaultJsonSchemaValidator();
  const sdk = new SdkValidator();
  for (const { schema, inputs } of cases) {
    const own = ours.getValidator(schema);
    const theirs = sdk.getValidator(schema as never);
    for (const input of inputs) assert.deepEqual(own(input), theirs(input), `${JSON.stringify(schema)} on ${JSON.stringify(input)}`);
  }
});

test('an unsupported dialect is refused by both', () => {
  const schema = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' };
  assert.throws(() => new SdkValidator().getValidator(schema as never), /unsupported dialect/);
  assert.throws(() => new DefaultJsonSchemaValidator().getValidator(schema), /unsupported dialect/);
});

test('the shim exports the same process', () => {
  assert.equal(ownProcess, sdkProcess);
});
