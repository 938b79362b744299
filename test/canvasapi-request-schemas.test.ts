/**
 * The generated CanvasApi request-body schemas (src/canvasapi/request-schemas.ts) and the
 * validator built on them (src/canvasapi/body-validation.ts).
 *
 * Checks that need the upstream spec (../shared/reference/miro-openapi.json) skip when it is
 * absent: the generator reproduces the committed file, no spec description is copied, and the
 * spec's raw bulk-create `oneOf` really rejects a valid mixed array.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import _Ajv2020 from 'ajv/dist/2020.js';
import _addFormats from 'ajv-formats';
import { compileRequestSchemas, parseRequestBody, type BodyError } from '../src/canvasapi/body-validation.js';
import { loadReferenceJson, referenceFile, skipUnlessReference } from './support/reference.js';

import { canvasApiRequestSchemas } from '../src/canvasapi/request-schemas.js';

const Ajv2020 = _Ajv2020.default;
const addFormats = _addFormats.default;

const SPEC = 'miro-openapi.json';
const SCHEMAS_FILE = path.resolve(process.cwd(), 'src/canvasapi/request-schemas.ts');
const GENERATOR = path.resolve(process.cwd(), 'scripts/generate-canvasapi-schemas.mjs');

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const committedText = readFileSync(SCHEMAS_FILE, 'utf8');
const schemas = canvasApiRequestSchemas as Record<string, JsonObject>;
const validator = compileRequestSchemas(schemas);

const TWO_MODE_TOOLS = [
  'AddAppCardToBoard', 'AddCardToCanvasBoard', 'AddConnectorToBoard', 'AddFlowchartShapeToBoard',
  'AddItemsToCanvasBoard', 'AddShapeToCanvasBoard', 'AddStickyNoteToBoard', 'AddTextToCanvasBoard',
  'CopyCanvasBoard', 'CreateCanvasBoard', 'UpdateBoardShape', 'UpdateBoardText', 'UpdateCanvasAppCard',
  'UpdateCanvasBoard', 'UpdateCanvasBoardFrame', 'UpdateCardOnBoard', 'UpdateConnectorOnBoard',
  'UpdateFlowchartShape', 'UpdateStickyNote', 'UpdateTeamSettings',
];
const ITEM_TYPES = ['app_card', 'card', 'document', 'embed', 'frame', 'image', 'shape', 'sticky_note', 'text'];

const ITEM_ID_A = '3458764517517818867';
const ITEM_ID_B = '3458764517517819001';
const FRAME_ID = '3458764517517810000';

/** One realistic, valid body per tool. */
const VALID_BODIES: Record<string, Json> = {
  CreateCanvasBoard: {
    name: 'Q3 Planning',
    description: 'Roadmap review for the platform team',
    teamId: '3458764516184293832',
    policy: {
      permissionsPolicy: { copyAccess: 'team_members', collaborationToolsStartAccess: 'all_editors', sharingAccess: 'owner_and_coowners' },
      sharingPolicy: { access: 'private', teamAccess: 'edit', organizationAccess: 'view', inviteToAccountAndBoardLinkAccess: 'no_access' },
    },
  },
  CopyCanvasBoard: { name: 'Q3 Planning (copy)', description: 'Working copy for the design review', teamId: '3458764516184293832' },
  UpdateCanvasBoard: { name: 'Q3 Planning - final', policy: { sharingPolicy: { access: 'view' } } },
  AddItemsToCanvasBoard: [
    { type: 'sticky_note', data: { content: 'Ship the onboarding fix', shape: 'square' }, style: { fillColor: 'light_yellow' }, position: { x: 0, y: 0 } },
    { type: 'shape', data: { shape: 'circle', content: 'Auth service' }, style: { fillColor: '#d5f692', borderWidth: '2' }, position: { x: 300, y: 0 }, geometry: { width: 150, height: 150 } },
    { type: 'text', data: { content: 'Architecture overview' }, style: { fontSize: '36' }, position: { x: 0, y: -300 } },
  ],
  AddAppCardToBoard: {
    data: {
      title: 'OPS-142 Fix login redirect',
      description: 'Users land on a blank page after SSO login.',
      status: 'connected',
      fields: [{ value: 'In progress', tooltip: 'Status', iconShape: 'round', fillColor: '#2fa9e3', textColor: '#1a1a1a' }],
    },
    style: { fillColor: '#2d9bf0' },
    position: { x: 100, y: 200 },
  },
  UpdateCanvasAppCard: { data: { status: 'disabled' }, position: { x: 140, y: 220 } },
  AddCardToCanvasBoard: {
    data: { title: 'Write release notes', description: 'Cover the API changes', dueDate: '2025-07-01T17:00:00Z', assigneeId: '3458764516184293999' },
    style: { cardTheme: '#2d9bf0' },
    position: { x: 0, y: 0 },
    geometry: { width: 320 },
  },
  UpdateCardOnBoard: { data: { dueDate: '2025-07-15T09:00:00.000Z' }, position: { x: 400, y: -120 } },
  AddConnectorToBoard: {
    startItem: { id: ITEM_ID_A, snapTo: 'right' },
    endItem: { id: ITEM_ID_B, position: { x: '50%', y: '0%' } },
    shape: 'elbowed',
    captions: [{ content: 'depends on', position: '50%' }],
    style: { strokeColor: '#2d9bf0', strokeWidth: '2', endStrokeCap: 'arrow', strokeStyle: 'normal' },
  },
  UpdateConnectorOnBoard: { shape: 'straight', style: { strokeStyle: 'dashed' } },
  AddShapeToCanvasBoard: {
    data: { shape: 'round_rectangle', content: '<p>API gateway</p>' },
    style: { fillColor: '#d5f692', borderColor: '#1a1a1a', borderWidth: '2', fillOpacity: '1.0', fontSize: '14', textAlign: 'center', textAlignVertical: 'middle' },
    position: { x: -300, y: 150 },
    geometry: { width: 200, height: 100 },
  },
  UpdateBoardShape: { data: { content: 'API gateway v2' }, style: { fillColor: '#ff9d48' } },
  AddStickyNoteToBoard: {
    data: { content: 'Ship the onboarding fix', shape: 'square' },
    style: { fillColor: 'light_yellow', textAlign: 'center' },
    position: { x: 120, y: -40 },
    geometry: { width: 199 },
    parent: { id: FRAME_ID },
  },
  UpdateStickyNote: { style: { fillColor: 'green' }, position: { x: 10, y: 10 } },
  AddTextToCanvasBoard: {
    data: { content: 'Sprint 42 retrospective' },
    style: { fontSize: '36', color: '#1a1a1a', fontFamily: 'open_sans', textAlign: 'left' },
    position: { x: 0, y: -600 },
    geometry: { width: 600 },
  },
  UpdateBoardText: { data: { content: 'Sprint 43 retrospective' } },
  AddFlowchartShapeToBoard: { data: { shape: 'flow_chart_decision', content: 'Approved?' }, position: { x: 0, y: 300 }, geometry: { width: 160, height: 120 } },
  UpdateFlowchartShape: { data: { shape: 'flow_chart_terminator' } },
  UpdateCanvasBoardFrame: {
    data: { title: 'Sprint 42', format: 'custom', type: 'freeform' },
    style: { fillColor: '#ffffff' },
    position: { x: 0, y: 0 },
    geometry: { width: 1600, height: 900 },
  },
  UpdateTeamSettings: {
    teamSharingPolicySettings: { defaultBoardAccess: 'private', sharingViaPublicLink: 'not_allowed', restrictAllowedDomains: 'enabled', allowListedDomains: ['example.com'] },
    teamInvitationSettings: { whoCanInvite: 'admins', inviteExternalUsers: 'not_allowed' },
    teamCollaborationSettings: { coOwnerRole: 'enabled' },
  },
};

/** One valid item per bulk item type. */
const VALID_ITEMS: Record<string, JsonObject> = {
  app_card: { type: 'app_card', data: { title: 'OPS-142', status: 'connected' }, style: { fillColor: '#2d9bf0' } },
  card: { type: 'card', data: { title: 'Write release notes', dueDate: '2025-07-01T17:00:00Z' }, style: { cardTheme: '#2d9bf0' } },
  document: { type: 'document', data: { url: 'https://example.com/spec.pdf', title: 'Spec' } },
  embed: { type: 'embed', data: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', mode: 'modal' } },
  frame: { type: 'frame', data: { title: 'Sprint 42' }, geometry: { width: 1200, height: 800 } },
  image: { type: 'image', data: { url: 'https://example.com/diagram.png', title: 'Diagram' }, position: { x: 10, y: 10 } },
  shape: { type: 'shape', data: { shape: 'hexagon', content: 'Queue' }, style: { borderStyle: 'dashed' } },
  sticky_note: { type: 'sticky_note', data: { content: 'Idea' }, style: { fillColor: 'cyan' } },
  text: { type: 'text', data: { content: 'Legend' }, parent: { id: FRAME_ID } },
};

function errorsFor(tool: string, body: unknown): BodyError[] {
  return validator.validateBody(tool, body);
}

function findError(errors: BodyError[], pathText: string): BodyError {
  const hit = errors.find((e) => e.path === pathText);
  assert.ok(hit, `expected an error at ${pathText}, got ${JSON.stringify(errors)}`);
  return hit;
}

function walk(value: unknown, visit: (key: string, v: unknown, parentIsProperties: boolean) => void, parentIsProperties = false): void {
  if (Array.isArray(value)) {
    for (const v of value) walk(v, visit);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      visit(k, v, parentIsProperties);
      walk(v, visit, !parentIsProperties && k === 'properties');
    }
  }
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

describe('CanvasApi request schemas: shape of the committed file', () => {
  it('has one schema per two-mode tool plus the bulk item types', () => {
    assert.deepEqual(Object.keys(schemas).filter((k) => !k.includes('.')).sort(), [...TWO_MODE_TOOLS].sort());
    assert.deepEqual(Object.keys(schemas['AddItemsToCanvasBoard.itemTypes'] ?? {}).sort(), ITEM_TYPES);
    assert.deepEqual(validator.toolKeys().sort(), [...TWO_MODE_TOOLS].sort());
  });

  it('every schema (and every item type) compiles with Ajv 2020 + ajv-formats', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const tool of TWO_MODE_TOOLS) assert.doesNotThrow(() => ajv.compile(schemas[tool] as JsonObject), tool);
    for (const type of ITEM_TYPES) {
      const itemSchema = (schemas['AddItemsToCanvasBoard.itemTypes'] as Record<string, JsonObject>)[type];
      assert.doesNotThrow(() => ajv.compile(itemSchema as JsonObject), type);
    }
  });

  it('contains no $ref, $defs or OpenAPI-only keywords, and every schema has a title', () => {
    walk(schemas, (key, _v, parentIsProperties) => {
      if (parentIsProperties) return; // property names are data, not keywords
      assert.ok(!['$ref', '$defs', 'definitions', 'nullable', 'example', 'examples', 'discriminator', 'readOnly', 'xml'].includes(key), `keyword ${key}`);
      assert.ok(!key.startsWith('x-'), `keyword ${key}`);
    });
    assert.doesNotMatch(committedText, /"\$ref"|"\$defs"/);
    for (const tool of TWO_MODE_TOOLS) assert.equal(typeof schemas[tool]?.title, 'string', `${tool} title`);
  });

  it('is a generated module holding exactly the exported schemas', () => {
    assert.match(committedText, /^\/\/ Generated by scripts\/generate-canvasapi-schemas\.mjs/);
    assert.ok(committedText.endsWith(`= ${JSON.stringify(schemas, null, 2)};\n`));
  });

  it('bulk create: the top level is an array of typed objects, without oneOf', () => {
    const top = schemas.AddItemsToCanvasBoard as JsonObject;
    assert.equal(top.type, 'array');
    assert.equal(top.minItems, 1);
    assert.equal(top.maxItems, 20);
    assert.doesNotMatch(JSON.stringify(top), /"oneOf"/);
    assert.deepEqual(((top.items as JsonObject).properties as JsonObject).type, {
      ...(((top.items as JsonObject).properties as JsonObject).type as JsonObject),
      enum: ITEM_TYPES,
    });
    assert.deepEqual((top.items as JsonObject).required, ['type']);
  });
});

describe('CanvasApi request schemas: valid bodies', () => {
  for (const tool of TWO_MODE_TOOLS) {
    it(`${tool} accepts a realistic body`, () => {
      assert.ok(tool in VALID_BODIES, `a valid body is written for ${tool}`);
      assert.deepEqual(errorsFor(tool, VALID_BODIES[tool]), []);
    });
  }

  it('accepts the CanvasApi.-prefixed tool name too', () => {
    assert.deepEqual(errorsFor('CanvasApi.AddStickyNoteToBoard', VALID_BODIES.AddStickyNoteToBoard), []);
  });

  it('every bulk item type accepts a realistic item, alone and all mixed in one array', () => {
    for (const type of ITEM_TYPES) assert.deepEqual(errorsFor('AddItemsToCanvasBoard', [VALID_ITEMS[type]]), [], type);
    assert.deepEqual(errorsFor('AddItemsToCanvasBoard', ITEM_TYPES.map((t) => VALID_ITEMS[t])), []);
  });

  it('boards accept an empty object (all fields optional)', () => {
    assert.deepEqual(errorsFor('CreateCanvasBoard', {}), []);
    assert.deepEqual(errorsFor('UpdateCanvasBoard', {}), []);
  });

  it('the spec does not forbid extra properties, so an unknown one passes', () => {
    assert.deepEqual(errorsFor('UpdateStickyNote', { style: { fillColor: 'green' }, extra: 1 }), []);
  });

  it('unknown tools are a programming error', () => {
    assert.throws(() => errorsFor('NoSuchTool', {}), /no request body schema/);
  });
});

describe('CanvasApi request schemas: invalid bodies', () => {
  it('wrong enum value: path and the allowed values', () => {
    const body = clone(VALID_BODIES.AddStickyNoteToBoard) as JsonObject;
    (body.style as JsonObject).fillColor = 'purple';
    const error = findError(errorsFor('AddStickyNoteToBoard', body), 'request_body.style.fillColor');
    assert.match(error.message, /must be one of/);
    assert.match(error.message, /"light_yellow"/);
    assert.match(error.message, /"dark_blue"/);
    assert.match(error.message, /got "purple"/);
  });

  it('missing required property: path points at the missing property and names it', () => {
    const noData = findError(errorsFor('AddTextToCanvasBoard', { position: { x: 0, y: 0 } }), 'request_body.data');
    assert.match(noData.message, /missing required property "data"/);
    const noContent = findError(errorsFor('AddTextToCanvasBoard', { data: {} }), 'request_body.data.content');
    assert.match(noContent.message, /"content"/);
    const noEnd = errorsFor('AddConnectorToBoard', { startItem: { id: ITEM_ID_A } });
    assert.match(findError(noEnd, 'request_body.endItem').message, /missing required property "endItem"/);
    const noId = errorsFor('AddConnectorToBoard', { startItem: { snapTo: 'top' }, endItem: { id: ITEM_ID_B } });
    assert.match(findError(noId, 'request_body.startItem.id').message, /missing required property "id"/);
    const caption = errorsFor('UpdateConnectorOnBoard', { captions: [{ position: '20%' }] });
    assert.match(findError(caption, 'request_body.captions[0].content').message, /"content"/);
  });

  it('wrong type: expected and actual type', () => {
    const errors = errorsFor('AddShapeToCanvasBoard', { data: { shape: 'circle' }, position: { x: '100', y: 20 } });
    const error = findError(errors, 'request_body.position.x');
    assert.match(error.message, /must be of type number/);
    assert.match(error.message, /got string "100"/);
    const notObject = findError(errorsFor('UpdateBoardText', 'hello'), 'request_body');
    assert.match(notObject.message, /must be of type object/);
    const style = findError(errorsFor('UpdateBoardShape', { style: { fillOpacity: 0.5 } }), 'request_body.style.fillOpacity');
    assert.match(style.message, /must be of type string/);
  });

  it('length, item-count and format limits name the bound', () => {
    const longName = findError(errorsFor('CreateCanvasBoard', { name: 'x'.repeat(61) }), 'request_body.name');
    assert.match(longName.message, /at most 60 characters/);
    const emptyName = findError(errorsFor('UpdateCanvasBoard', { name: '' }), 'request_body.name');
    assert.match(emptyName.message, /at least 1 character/);
    const captions = Array.from({ length: 21 }, (_, i) => ({ content: `c${i}` }));
    assert.match(findError(errorsFor('UpdateConnectorOnBoard', { captions }), 'request_body.captions').message, /at most 20 items/);
    const due = findError(errorsFor('AddCardToCanvasBoard', { data: { title: 't', dueDate: 'next friday' } }), 'request_body.data.dueDate');
    assert.match(due.message, /valid date-time/);
  });

  it('team settings: a wrong value deep in a settings group', () => {
    const error = findError(errorsFor('UpdateTeamSettings', { teamInvitationSettings: { whoCanInvite: 'everyone' } }), 'request_body.teamInvitationSettings.whoCanInvite');
    assert.match(error.message, /"only_org_admins", "admins", "all_members"/);
  });

  it('frames: only the custom format and freeform type exist', () => {
    const error = findError(errorsFor('UpdateCanvasBoardFrame', { data: { format: 'a4' } }), 'request_body.data.format');
    assert.match(error.message, /"custom"/);
  });

  it('unknown properties are named when a schema forbids them', () => {
    const strict = compileRequestSchemas({
      Demo: { type: 'object', properties: { title: { type: 'string' }, color: { type: 'string' } }, additionalProperties: false },
    });
    const error = findError(strict.validateBody('Demo', { title: 'a', colour: 'red' }), 'request_body.colour');
    assert.match(error.message, /unknown property "colour"/);
    assert.match(error.message, /allowed properties: title, color/);
  });
});

describe('CanvasApi request schemas: bulk create (AddItemsToCanvasBoard)', () => {
  const mixed = VALID_BODIES.AddItemsToCanvasBoard as JsonObject[];

  it('rejects 0 and 21 items', () => {
    assert.match(findError(errorsFor('AddItemsToCanvasBoard', []), 'request_body').message, /at least 1 item/);
    const many = Array.from({ length: 21 }, (_, i) => ({ type: 'sticky_note', data: { content: `note ${i}` } }));
    assert.match(findError(errorsFor('AddItemsToCanvasBoard', many), 'request_body').message, /at most 20 items/);
    assert.deepEqual(errorsFor('AddItemsToCanvasBoard', many.slice(0, 20)), []);
  });

  it('rejects a non-array body', () => {
    assert.match(findError(errorsFor('AddItemsToCanvasBoard', mixed[0]), 'request_body').message, /must be of type array/);
  });

  it('rejects an unknown item type, listing the known ones', () => {
    const body = [mixed[0], { type: 'mindmap_node', data: { content: 'x' } }];
    const errors = errorsFor('AddItemsToCanvasBoard', body);
    assert.equal(errors.length, 1, JSON.stringify(errors));
    const error = findError(errors, 'request_body[1].type');
    assert.match(error.message, /"sticky_note"/);
    assert.match(error.message, /got "mindmap_node"/);
  });

  it('rejects items that are not objects or have no type', () => {
    const errors = errorsFor('AddItemsToCanvasBoard', ['note', { data: { content: 'x' } }]);
    assert.match(findError(errors, 'request_body[0]').message, /must be of type object/);
    assert.match(findError(errors, 'request_body[1].type').message, /missing required property "type"/);
  });

  it('validates each item against the schema of its own type, with indexed paths', () => {
    const body = clone(mixed);
    (body[0]?.style as JsonObject).fillColor = '#ff0000'; // sticky notes take colour names
    (body[1]?.data as JsonObject).shape = 'blob';
    body[2] = { type: 'text', data: {} };
    body.push({ type: 'image', data: { title: 'no url' } });
    const errors = errorsFor('AddItemsToCanvasBoard', body);
    assert.match(findError(errors, 'request_body[0].style.fillColor').message, /"light_yellow"/);
    assert.match(findError(errors, 'request_body[1].data.shape').message, /"rectangle"/);
    assert.match(findError(errors, 'request_body[2].data.content').message, /"content"/);
    assert.match(findError(errors, 'request_body[3].data.url').message, /"url"/);
    assert.equal(errors.length, 4, JSON.stringify(errors));
  });

  it('a shape colour is not checked against the sticky-note colour names (per-type, not a union)', () => {
    assert.deepEqual(errorsFor('AddItemsToCanvasBoard', [{ type: 'shape', style: { fillColor: '#ff0000' } }]), []);
  });
});

describe('CanvasApi request schemas: against the upstream spec', { skip: skipUnlessReference(SPEC) }, () => {
  const spec = loadReferenceJson<JsonObject>(SPEC) as JsonObject;

  it('the committed file is exactly what the generator produces now', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'canvasapi-schemas-'));
    try {
      const out = path.join(dir, 'request-schemas.ts');
      execFileSync(process.execPath, [GENERATOR], {
        env: { ...process.env, CANVASAPI_SCHEMAS_OUT: out, MIRO_OPENAPI: referenceFile(SPEC) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      assert.equal(readFileSync(out, 'utf8'), committedText, 'run `node scripts/generate-canvasapi-schemas.mjs` and commit the result');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no description is copied from the spec', () => {
    const specDescriptions = new Set<string>();
    walk(spec, (key, v, parentIsProperties) => {
      if (key === 'description' && !parentIsProperties && typeof v === 'string') specDescriptions.add(v.trim());
    });
    assert.ok(specDescriptions.size > 100);
    let count = 0;
    walk(schemas, (key, v, parentIsProperties) => {
      if (key !== 'description' || parentIsProperties) return;
      assert.equal(typeof v, 'string');
      count += 1;
      assert.ok(!specDescriptions.has(String(v).trim()), `copied from the spec: ${String(v)}`);
    });
    assert.ok(count > 50, `the output carries its own descriptions (${count})`);
  });

  it('the item types are exactly the spec bulk item type enum', () => {
    const componentSchemas = (spec.components as JsonObject).schemas as JsonObject;
    assert.deepEqual([...((componentSchemas.ItemTypeChange as JsonObject).enum as string[])].sort(), ITEM_TYPES);
  });

  it("the spec's raw oneOf rejects the valid mixed array that the per-type schemas accept", () => {
    const componentSchemas = (spec.components as JsonObject).schemas as JsonObject;
    // Inline-free compile: put the referenced component schemas under $defs and rewrite refs.
    const defs: JsonObject = {};
    const rewrite = (value: Json): Json => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string') {
          const name = v.replace('#/components/schemas/', '');
          if (!(name in defs)) {
            defs[name] = {};
            defs[name] = rewrite(componentSchemas[name] as Json);
          }
          out.$ref = `#/$defs/${name}`;
        } else {
          out[k] = rewrite(v);
        }
      }
      return out;
    };
    const op = ((spec.paths as JsonObject)['/v2/boards/{board_id}/items/bulk'] as JsonObject).post as JsonObject;
    const bodySchema = rewrite((((op.requestBody as JsonObject).content as JsonObject)['application/json'] as JsonObject).schema as Json) as JsonObject;
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
    addFormats(ajv);
    const raw = ajv.compile({ ...bodySchema, $defs: defs });
    const mixed = VALID_BODIES.AddItemsToCanvasBoard as JsonObject[];

    assert.equal(raw(mixed), false, 'the raw oneOf rejects the valid mixed array');
    const oneOfFailures = (raw.errors ?? []).filter((e) => e.keyword === 'oneOf');
    assert.ok(oneOfFailures.length > 0);
    // Every single item fails on its own as well: its data (and style) match several branches.
    for (const item of mixed) {
      assert.equal(raw([item]), false, `raw oneOf rejects ${String(item.type)}`);
      assert.ok((raw.errors ?? []).some((e) => e.keyword === 'oneOf' && (e.params as { passingSchemas?: unknown }).passingSchemas !== null));
    }
    assert.deepEqual(errorsFor('AddItemsToCanvasBoard', mixed), []);
  });
});

describe('parseRequestBody', () => {
  it('parses valid JSON', () => {
    assert.deepEqual(parseRequestBody('{"data":{"content":"hi"}}'), { ok: true, value: { data: { content: 'hi' } } });
    assert.deepEqual(parseRequestBody(' [1, 2] '), { ok: true, value: [1, 2] });
  });

  it('reports line, column and offset of a syntax error the engine does not locate (trailing comma)', () => {
    const text = '{\n  "data": {\n    "content": "hi",\n  }\n}';
    const result = parseRequestBody(text);
    assert.equal(result.ok, false);
    if (result.ok) return;
    const offset = text.indexOf('}');
    assert.match(result.message, /line 4, column 3/);
    assert.match(result.message, new RegExp(`character ${offset}\\b`));
    assert.match(result.message, />>>\}/);
  });

  it('uses the engine position when there is one', () => {
    const result = parseRequestBody('{"a":1');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.match(result.message, /line 1, column 7 \(character 6\)/);
  });

  it('locates a bad literal, a raw line break in a string and trailing garbage', () => {
    const literal = parseRequestBody('{"a": 1,\n "b": tru}');
    assert.ok(!literal.ok && /line 2, column 10/.test(literal.message), JSON.stringify(literal));
    const lineBreak = parseRequestBody('{"content": "two\nlines"}');
    assert.ok(!lineBreak.ok && /line 1, column 17/.test(lineBreak.message), JSON.stringify(lineBreak));
    const garbage = parseRequestBody('{"a":1} x');
    assert.ok(!garbage.ok && /line 1, column 9/.test(garbage.message), JSON.stringify(garbage));
    const single = parseRequestBody("{'a': 1}");
    assert.ok(!single.ok && /line 1, column 2/.test(single.message) && /double quotes/.test(single.message), JSON.stringify(single));
  });

  it('reports empty input', () => {
    const result = parseRequestBody('   ');
    assert.ok(!result.ok && /empty/.test(result.message));
  });
});
