/**
 * The precomputed tools/list input schemas (src/canvasapi/listed-schemas.ts) are exactly what the
 * catalogue gives today, for every tool and no other, and they are what the tools advertise.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import { advertisedInputJsonSchema } from '../src/canvasapi/handler.js';
import { canvasApiTools } from '../src/canvasapi/index.js';
import { CANVASAPI_LISTED_INPUT_SCHEMAS } from '../src/canvasapi/listed-schemas.js';

const REGENERATE = 'src/canvasapi/listed-schemas.ts is out of date: run `npm run generate:canvasapi-listing` and commit the result';

describe('precomputed CanvasApi listing schemas', () => {
  it('cover exactly the catalogue', () => {
    assert.deepEqual(Object.keys(CANVASAPI_LISTED_INPUT_SCHEMAS).sort(), canvasApiCatalogue.map((entry) => entry.name).sort(), REGENERATE);
  });

  it('equal the schemas computed from the catalogue now', () => {
    for (const entry of canvasApiCatalogue) {
      // Through JSON, as the file stores them: what a client receives either way.
      assert.deepEqual(CANVASAPI_LISTED_INPUT_SCHEMAS[entry.name], JSON.parse(JSON.stringify(advertisedInputJsonSchema(entry))), `${entry.name}: ${REGENERATE}`);
    }
  });

  it('are what the tools advertise', () => {
    for (const tool of canvasApiTools) assert.equal(tool.inputJsonSchema, CANVASAPI_LISTED_INPUT_SCHEMAS[tool.name]);
  });
});
