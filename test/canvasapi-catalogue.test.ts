/**
 * The CanvasApi catalogue checked against its references: the contract (seed), the endpoint
 * reference table (canvasapi-endpoints.tsv) and the platform's OpenAPI document.
 * Each reference-based check skips with a clear message when its file is absent.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { canvasApiCatalogue, contractDefaultsNotApplied } from '../src/canvasapi/catalogue.js';
import { CANVASAPI_INSTRUCTIONS } from '../src/canvasapi/index.js';
import type { CanvasParam, CanvasToolEntry } from '../src/canvasapi/catalogue-types.js';
import { loadReferenceJson, loadSeed, referenceFile, skipUnlessReference, skipUnlessSeed } from './support/reference.js';
import { parseCanvasApiSeed } from './support/seed-contract.js';

const SEED = '001_deac08a58eb0cb16.txt';
const TSV = 'canvasapi-endpoints.tsv';
const SPEC = 'miro-openapi.json';

const TOOLSETS = new Set(['boards', 'members', 'items', 'frames', 'tags', 'groups', 'connectors', 'mindmaps', 'webhooks', 'metrics', 'organization', 'teams', 'projects', 'compliance', 'tokens']);
const EFFECT_BY_METHOD: Record<string, string> = { GET: 'read', POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };
/** Tools whose effect differs from what their HTTP method suggests. */
const EFFECT_EXCEPTIONS: Record<string, string> = {
  'CanvasApi.CopyCanvasBoard': 'create',
  'CanvasApi.SetBoardClassification': 'update',
  'CanvasApi.RevokeCanvasAccessToken': 'action',
  'CanvasApi.ResetUserSessions': 'action',
};
const RULES: Record<string, string> = {
  'CanvasApi.GetRecentAuditLogs': 'audit-log-window',
  'CanvasApi.FetchBoardContentChanges': 'content-log-window',
  'CanvasApi.GetAppUsageMetrics': 'metrics-date-range',
  'CanvasApi.RemoveTagFromItem': 'require-tag-id',
};

interface TsvRow {
  tool: string;
  method: string;
  path: string;
  specPathKey: string;
  /** Parameter name -> destination in the catalogue's notation (path:x, query:y, body:a.b, body, tool). */
  mapping: Map<string, string>;
  twoMode: boolean;
  plan: string;
  success: number[];
  pagination: string;
}

function parseTsv(text: string): TsvRow[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = (lines.shift() ?? '').split('\t');
  const col = (name: string) => {
    const index = header.indexOf(name);
    assert.ok(index >= 0, `column ${name} in ${TSV}`);
    return index;
  };
  const c = {
    tool: col('tool'), method: col('http_method'), path: col('path_template'), key: col('spec_path_key'),
    mapping: col('param_mapping'), twoMode: col('two_mode'), plan: col('plan'), success: col('success_status'), pagination: col('pagination'),
  };
  return lines.map((line) => {
    const cells = line.split('\t');
    const cell = (i: number) => (cells[i] ?? '').trim();
    const mapping = new Map<string, string>();
    for (const part of cell(c.mapping).split(';').map((p) => p.trim()).filter(Boolean)) {
      const [param, rawDest] = part.split('->') as [string, string | undefined];
      let dest = (rawDest ?? '').replace(/\((?:api-required|spec:[^)]*)\)$/, '');
      if (dest === '(tool)') dest = 'tool';
      if (dest === 'body:(entire JSON body)') dest = 'body';
      mapping.set(param.trim(), dest);
    }
    return {
      tool: cell(c.tool),
      method: cell(c.method),
      path: cell(c.path),
      specPathKey: cell(c.key),
      mapping,
      twoMode: cell(c.twoMode) === 'M',
      plan: cell(c.plan).replace(/\s*\(docs\)$/, ''),
      success: cell(c.success).split('/').map(Number),
      pagination: cell(c.pagination),
    };
  });
}

const placeholders = (template: string) => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
const normalisePath = (template: string) => template.replace(/\?$/, '').replace(/\{[^}]+\}/g, '{}');
const shortName = (entry: CanvasToolEntry) => entry.name.replace(/^CanvasApi\./, '');

describe('CanvasApi catalogue: shape', () => {
  it('has 139 entries with unique CanvasApi names', () => {
    assert.equal(canvasApiCatalogue.length, 139);
    const names = canvasApiCatalogue.map((e) => e.name);
    assert.equal(new Set(names).size, names.length, 'names are unique');
    for (const name of names) assert.match(name, /^CanvasApi\.[A-Z][A-Za-z]+$/);
  });

  it('says once, in the server instructions, what every tool relies on', () => {
    // Two-mode flow, empty answers, where IDs come from and the plan marker: said once, not per tool.
    assert.match(CANVASAPI_INSTRUCTIONS, /get_request_schema/);
    assert.match(CANVASAPI_INSTRUCTIONS, /"success": true/);
    assert.match(CANVASAPI_INSTRUCTIONS, /GetAccessTokenInfo/);
    assert.match(CANVASAPI_INSTRUCTIONS, /organization_id/);
    assert.match(CANVASAPI_INSTRUCTIONS, /next_page/);
    assert.match(CANVASAPI_INSTRUCTIONS, /Enterprise/);
    assert.ok(CANVASAPI_INSTRUCTIONS.length <= 1600, `instructions stay short (${CANVASAPI_INSTRUCTIONS.length} characters)`);
  });

  it('gives every entry a title, a toolset, an effect that fits its method, and a short description', () => {
    for (const entry of canvasApiCatalogue) {
      assert.ok(entry.title.trim().length > 0 && entry.title.length <= 60, `${entry.name}: title`);
      assert.ok(TOOLSETS.has(entry.toolset), `${entry.name}: toolset ${entry.toolset}`);
      assert.equal(entry.effect, EFFECT_EXCEPTIONS[entry.name] ?? EFFECT_BY_METHOD[entry.method], `${entry.name}: effect`);
      assert.ok(entry.description.trim().length > 0, `${entry.name}: description present`);
      assert.ok(entry.description.length < 400, `${entry.name}: description under 400 characters (${entry.description.length})`);
      if (entry.plan.startsWith('enterprise')) assert.match(entry.description, /[Ee]nterprise/, `${entry.name}: says it needs the enterprise plan`);
      assert.equal(entry.rule, RULES[entry.name], `${entry.name}: rule`);
    }
  });

  it('describes every parameter and uses valid destinations, bounds and enums', () => {
    for (const entry of canvasApiCatalogue) {
      const names = entry.params.map((p) => p.name);
      assert.equal(new Set(names).size, names.length, `${entry.name}: unique parameter names`);
      for (const param of entry.params) {
        const where = `${entry.name}.${param.name}`;
        assert.ok(param.description.trim().length > 0 && param.description.length <= 160, `${where}: description (${param.description.length})`);
        assert.match(param.to, /^(?:(?:path|query):[A-Za-z_]+|body:[A-Za-z_]+(?:\.[A-Za-z_]+)*|body|tool)$/, `${where}: destination ${param.to}`);
        if (param.enum) {
          assert.ok(param.enum.length > 0 && new Set(param.enum).size === param.enum.length, `${where}: enum values unique`);
          assert.equal(param.type, 'string', `${where}: enums are on strings`);
        }
        if (param.min !== undefined && param.max !== undefined) assert.ok(param.min <= param.max, `${where}: min <= max`);
        if (param.min !== undefined || param.max !== undefined) {
          assert.ok(param.type === 'integer' || param.type === 'number' || param.format === 'integer-text', `${where}: bounds on a number or integer text`);
        }
        if (param.format === 'integer-text') assert.equal(param.type, 'string', `${where}: integer-text is a string`);
        if (param.maxItems !== undefined) assert.equal(param.type, 'string[]', `${where}: maxItems on a list`);
        if (param.default !== undefined && param.enum) assert.ok(param.enum.includes(String(param.default)), `${where}: default in enum`);
      }
    }
  });

  it('feeds every path placeholder from exactly one parameter', () => {
    for (const entry of canvasApiCatalogue) {
      const inTemplate = placeholders(entry.path);
      assert.equal(new Set(inTemplate).size, inTemplate.length, `${entry.name}: placeholders unique in ${entry.path}`);
      const fed = entry.params.filter((p) => p.to.startsWith('path:')).map((p) => p.to.slice('path:'.length));
      for (const name of fed) assert.ok(inTemplate.includes(name), `${entry.name}: {${name}} is in ${entry.path}`);
      for (const name of inTemplate) {
        assert.equal(fed.filter((f) => f === name).length, 1, `${entry.name}: {${name}} fed by exactly one parameter`);
      }
    }
  });

  it('marks two-mode tools consistently', () => {
    for (const entry of canvasApiCatalogue) {
      const mode = entry.params.find((p) => p.name === 'mode');
      if (!entry.requestSchema) {
        assert.equal(mode, undefined, `${entry.name}: no mode without requestSchema`);
        assert.ok(entry.params.every((p) => p.requiredForExecute === undefined), `${entry.name}: requiredForExecute only on two-mode tools`);
        continue;
      }
      assert.equal(entry.requestSchema, shortName(entry), `${entry.name}: requestSchema key`);
      assert.ok(mode, `${entry.name}: has mode`);
      assert.equal(mode.required, true, `${entry.name}: mode required`);
      assert.equal(mode.to, 'tool', `${entry.name}: mode consumed by the tool`);
      assert.deepEqual(mode.enum, ['get_request_schema', 'execute'], `${entry.name}: mode enum`);
      const body = entry.params.find((p) => p.name === 'request_body');
      assert.ok(body && body.to === 'body' && body.type === 'string', `${entry.name}: request_body is the whole body, as a string`);
      for (const param of entry.params) {
        if (param.name === 'mode') continue;
        assert.equal(param.required, false, `${entry.name}.${param.name}: optional in the contract`);
        assert.equal(param.requiredForExecute, true, `${entry.name}.${param.name}: required for execute`);
      }
      assert.ok(mode.description.length >= 10, `${entry.name}: describes mode`);
    }
  });

  it('keeps the known traps', () => {
    const byName = new Map(canvasApiCatalogue.map((e) => [e.name, e]));
    const get = (name: string) => {
      const entry = byName.get(name);
      assert.ok(entry, name);
      return entry;
    };
    const removeTag = get('CanvasApi.RemoveTagFromItem');
    const deleteItem = get('CanvasApi.DeleteBoardItem');
    assert.equal(removeTag.method, deleteItem.method);
    assert.equal(removeTag.path, deleteItem.path);
    assert.ok(removeTag.params.some((p) => p.to === 'query:tag_id' && p.required), 'RemoveTagFromItem requires tag_id in the query');
    assert.equal(removeTag.rule, 'require-tag-id');
    const withinFrame = get('CanvasApi.GetItemsWithinFrame');
    assert.equal(withinFrame.path, '/v2/boards/{board_id}/items');
    assert.ok(withinFrame.params.some((p) => p.name === 'frame_id' && p.to === 'query:parent_item_id' && p.required));
    const copy = get('CanvasApi.CopyCanvasBoard');
    assert.equal(copy.method, 'PUT');
    assert.ok(copy.params.some((p) => p.to === 'query:copy_from'));
    assert.equal(get('CanvasApi.ResetUserSessions').params[0]?.to, 'query:email');
    assert.ok(get('CanvasApi.CreateBoardExportJob').params.some((p) => p.to === 'query:request_id' && p.required));
  });
});

describe('CanvasApi catalogue: one file per toolset', () => {
  // The compiled files beside this build's catalogue.js: every entry module, with no list to keep.
  const folder = new URL('../src/canvasapi/catalogue/', import.meta.url);
  const loadFiles = async () =>
    Promise.all(
      readdirSync(folder)
        .filter((file) => file.endsWith('.js'))
        .map(async (file) => ({ file: file.replace(/\.js$/, ''), exports: (await import(new URL(file, folder).href)) as Record<string, Record<string, CanvasToolEntry>> })),
    );

  it('keeps each entry in its toolset\'s file, under its short name', async () => {
    const files = await loadFiles();
    assert.ok(files.length >= new Set(canvasApiCatalogue.map((e) => e.toolset)).size, 'a file per toolset at least');
    for (const { file, exports } of files) {
      const camelName = file.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
      assert.deepEqual(Object.keys(exports), [camelName], `${file}.js exports one object, named after the file`);
      for (const [key, entry] of Object.entries(exports[camelName]!)) {
        assert.equal(key, shortName(entry), `${file}.js: ${entry.name} is keyed by its short name`);
        assert.ok(file === entry.toolset || file.startsWith(`${entry.toolset}-`), `${entry.name} has toolset ${entry.toolset} but is in ${file}.ts`);
      }
    }
  });

  it('lists every entry of every file exactly once, each file in the contract order', async () => {
    const defined = (await loadFiles()).flatMap(({ exports }) => Object.values(exports).map((entries) => Object.values(entries)));
    const listed = new Set(canvasApiCatalogue);
    assert.equal(listed.size, canvasApiCatalogue.length, 'no entry is listed twice');
    assert.equal(defined.flat().length, canvasApiCatalogue.length, 'as many entries defined as listed');
    for (const entries of defined) {
      for (const entry of entries) assert.ok(listed.has(entry), `${entry.name} is listed in catalogue.ts`);
      const positions = entries.map((entry) => canvasApiCatalogue.indexOf(entry));
      assert.deepEqual(positions, [...positions].sort((a, b) => a - b), `a file keeps its entries in the contract's order: ${entries.map(shortName).join(', ')}`);
    }
  });
});

describe('CanvasApi catalogue agrees with the endpoint reference', { skip: skipUnlessReference(TSV) }, () => {
  const rows = () => {
    const file = referenceFile(TSV);
    assert.ok(file);
    return new Map(parseTsv(readFileSync(file, 'utf8')).map((row) => [row.tool, row]));
  };

  it('lists the same tools', () => {
    const table = rows();
    assert.equal(table.size, 139);
    assert.deepEqual([...canvasApiCatalogue.map((e) => e.name)].sort(), [...table.keys()].sort());
  });

  it('uses the reference method, path, parameter placement, statuses, pagination and plan', () => {
    const table = rows();
    for (const entry of canvasApiCatalogue) {
      const row = table.get(entry.name);
      assert.ok(row, `${entry.name} in ${TSV}`);
      assert.equal(entry.method, row.method, `${entry.name}: method`);
      assert.equal(entry.path, row.path, `${entry.name}: path`);
      assert.deepEqual(new Map(entry.params.map((p) => [p.name, p.to])), row.mapping, `${entry.name}: parameter placement`);
      assert.deepEqual([...entry.success], row.success, `${entry.name}: success statuses`);
      assert.equal(entry.pagination ?? '', row.pagination, `${entry.name}: pagination`);
      assert.equal(entry.plan, row.plan, `${entry.name}: plan`);
      assert.equal(Boolean(entry.requestSchema), row.twoMode, `${entry.name}: two-mode`);
    }
  });
});

describe('CanvasApi catalogue agrees with the contract', { skip: skipUnlessSeed(SEED) }, () => {
  const seedTools = () => parseCanvasApiSeed(loadSeed(SEED) ?? '');

  it('parses the contract fully', () => {
    const tools = seedTools();
    assert.equal(tools.length, 139);
    assert.equal(tools.filter((t) => t.twoMode).length, 20);
    const share = tools.find((t) => t.name === 'CanvasApi.ShareCanvasBoard');
    assert.deepEqual(share?.parameters.map((p) => [p.name, p.required, p.type]), [
      ['board_unique_identifier', true, 'string'],
      ['invitee_email_addresses', true, 'string[]'],
      ['board_member_role', false, 'string'],
      ['invitation_message', false, 'string'],
    ]);
    const sticky = tools.find((t) => t.name === 'CanvasApi.GetStickyNoteInfo');
    assert.deepEqual(sticky?.parameters.map((p) => p.name), ['canvas_board_id', 'sticky_note_id']);
  });

  it('has the contract tools in the contract order, with the same parameters, types and required flags', () => {
    const tools = seedTools();
    assert.deepEqual(canvasApiCatalogue.map((e) => e.name), tools.map((t) => t.name), 'tool order');
    const byName = new Map(canvasApiCatalogue.map((e) => [e.name, e]));
    for (const tool of tools) {
      const entry = byName.get(tool.name);
      assert.ok(entry, tool.name);
      assert.equal(Boolean(entry.requestSchema), Boolean(tool.twoMode), `${tool.name}: two-mode`);
      assert.deepEqual(entry.params.map((p) => p.name), tool.parameters.map((p) => p.name), `${tool.name}: parameter names and order`);
      for (const seedParam of tool.parameters) {
        const param: CanvasParam | undefined = entry.params.find((p) => p.name === seedParam.name);
        assert.ok(param);
        assert.equal(Boolean(param.required), seedParam.required, `${tool.name}.${param.name}: required`);
        if (seedParam.type) assert.equal(param.type, seedParam.type, `${tool.name}.${param.name}: type`);
      }
    }
  });

  it('states defaults only where the contract does, with the same value', () => {
    const tools = new Map(seedTools().map((t) => [t.name, t]));
    for (const entry of canvasApiCatalogue) {
      for (const param of entry.params) {
        const seedDefault = tools.get(entry.name)?.parameters.find((p) => p.name === param.name)?.default;
        // Position defaults of update tools are deliberately not applied (an omitted x/y keeps the item where it is).
        const notApplied = contractDefaultsNotApplied[entry.name]?.[param.name];
        if (notApplied !== undefined) {
          assert.equal(param.default, undefined, `${entry.name}.${param.name}: no default on an update`);
          assert.equal(String(notApplied), seedDefault, `${entry.name}.${param.name}: the contract's default is recorded`);
          continue;
        }
        assert.equal(param.default === undefined ? undefined : String(param.default), seedDefault, `${entry.name}.${param.name}: default`);
      }
    }
  });
});

describe('CanvasApi catalogue agrees with the OpenAPI document', { skip: skipUnlessReference(SPEC) }, () => {
  it('maps every tool to a documented operation with the same method', () => {
    const spec = loadReferenceJson<{ paths: Record<string, Record<string, unknown>> }>(SPEC);
    assert.ok(spec);
    const operations = new Set<string>();
    for (const [template, item] of Object.entries(spec.paths)) {
      for (const method of Object.keys(item)) operations.add(`${method.toUpperCase()} ${normalisePath(template)}`);
    }
    for (const entry of canvasApiCatalogue) {
      assert.ok(operations.has(`${entry.method} ${normalisePath(entry.path)}`), `${entry.name}: ${entry.method} ${entry.path} is in ${SPEC}`);
    }
  });
});
