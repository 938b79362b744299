/**
 * Stands in for the SDK's Node shim (`@modelcontextprotocol/server/_shims`) in the shipped bundle
 * only (scripts/bundle.mjs; tests run the SDK's own). Same exports and behaviour, but the JSON
 * Schema validator uses the project's own Ajv, required on the first schema it validates, instead
 * of the SDK's inlined 290 KB copy of Ajv that every start compiled. These servers never ask the
 * SDK to validate a schema (no elicitation; tool arguments and results are checked by the tools),
 * so a start loads no Ajv at all. test/sdk-node-shims.test.ts checks it against the SDK's.
 */
import { createRequire } from 'node:module';
import process from 'node:process';
import type _Ajv from 'ajv';
import type _Ajv2019 from 'ajv/dist/2019.js';
import type _Ajv2020 from 'ajv/dist/2020.js';
import type _addFormats from 'ajv-formats';

export { process };

type Engine = InstanceType<typeof _Ajv2020.default>;
type Dialect = '2020-12' | '2019-09' | 'draft-7';
type Result = { valid: true; data: unknown; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

const DIALECT_URIS: Readonly<Record<string, Dialect>> = Object.fromEntries(
  (
    [
      ['json-schema.org/draft/2020-12/schema', '2020-12'],
      ['json-schema.org/draft/2019-09/schema', '2019-09'],
      ['json-schema.org/draft-07/schema', 'draft-7'],
      ['json-schema.org/draft-06/schema', 'draft-7'],
    ] as const
  ).flatMap(([uri, dialect]) => [
    [`https://${uri}`, dialect],
    [`http://${uri}`, dialect],
  ]),
);

/** The dialect a schema declares (none: 2020-12); any other is refused, as the SDK does. */
function dialectOf(schema: Record<string, unknown>): Dialect {
  if (typeof schema.$schema !== 'string') return '2020-12';
  const dialect = DIALECT_URIS[schema.$schema.replace(/#$/, '')];
  if (!dialect) {
    throw new Error(`JSON Schema declares an unsupported dialect ("$schema": "${schema.$schema.slice(0, 200)}"). The validator supports JSON Schema 2020-12, 2019-09, draft-07 and draft-06.`);
  }
  return dialect;
}

/** The SDK's default validator, on the project's Ajv (the SDK's settings: lenient, all errors, formats). */
export class DefaultJsonSchemaValidator {
  private readonly engines = new Map<Dialect, Engine>();

  private engineFor(dialect: Dialect): Engine {
    let engine = this.engines.get(dialect);
    if (!engine) {
      const require = createRequire(import.meta.url);
      // CommonJS modules whose real export is also `.default`.
      const Engine =
        dialect === '2020-12'
          ? (require('ajv/dist/2020.js') as typeof _Ajv2020).default
          : dialect === '2019-09'
            ? (require('ajv/dist/2019.js') as typeof _Ajv2019).default
            : (require('ajv') as typeof _Ajv).default;
      const addFormats = (require('ajv-formats') as typeof _addFormats).default;
      engine = new Engine({ strict: false, validateFormats: true, validateSchema: false, allErrors: true }) as Engine;
      addFormats(engine);
      this.engines.set(dialect, engine);
    }
    return engine;
  }

  getValidator(schema: Record<string, unknown>): (input: unknown) => Result {
    const engine = this.engineFor(dialectOf(schema));
    const validate = typeof schema.$id === 'string' ? (engine.getSchema(schema.$id) ?? engine.compile(schema)) : engine.compile(schema);
    return (input) =>
      validate(input) ? { valid: true, data: input, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: engine.errorsText(validate.errors) };
  }
}
