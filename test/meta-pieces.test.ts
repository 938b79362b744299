/**
 * Meta mode's pieces, each alone (meta-workflow.test.ts drives them together over HTTP): the
 * search's ranking, FindTools, which tool a meta call names, its arguments, DescribeTool and the
 * two call tools, over a view that is only what meta.ts asks of one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ToolError } from '../src/core/errors.js';
import { silentLogger } from '../src/core/logger.js';
import {
  callToolParameters,
  callToolTool,
  describeToolTool,
  findToolsTool,
  metaCallArguments,
  metaNames,
  metaTarget,
  metaTools,
  rankTools,
  type MetaToolsView,
} from '../src/core/tools/meta.js';
import type { NameStyle } from '../src/core/tools/names.js';
import { runTool } from '../src/core/tools/run-tool.js';
import { NO_PROGRESS, type AnyToolDefinition, type ToolHints } from '../src/core/tools/tool.js';

const READS: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const CREATES: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
const DELETES: ToolHints = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };

/** A tool that answers with what it was given, so a test sees what reached it. */
function tool(short: string, toolset: string, hints: ToolHints, description: string): AnyToolDefinition {
  return {
    name: `Shapes.${short}`,
    title: short.replace(/([a-z])([A-Z])/g, '$1 $2'),
    description,
    toolset,
    input: z.strictObject({ shape_id: z.string().min(2).describe('The shape.') }),
    output: z.looseObject({}),
    hints,
    handler: async (args) => ({ ran: short, shape_id: args.shape_id }),
  };
}

const LIST = tool('ListShapes', 'shapes', READS, 'Lists the shapes on a sheet. Newest first.');
const GET = tool('GetShape', 'shapes', READS, 'Gets one shape by ID.');
const CREATE = tool('CreateCircle', 'drawing', CREATES, 'Draws a circle on a sheet.');
const DELETE = tool('DeleteShape', 'drawing', DELETES, 'Deletes a shape for good.');

function view(tools: AnyToolDefinition[], nameStyle: NameStyle = 'contract'): MetaToolsView {
  return {
    server: { name: 'Shapes' },
    nameStyle,
    selected: { tools },
    unknownToolMessage: (name) => `Unknown tool ${name}.`,
  };
}

const context = { signal: new AbortController().signal, logger: silentLogger, deps: {}, progress: NO_PROGRESS };

async function run(meta: AnyToolDefinition, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await runTool(meta, args, context)).data;
}

function invalid(error: unknown, parameter: string, problem: RegExp): boolean {
  assert.ok(error instanceof ToolError, String(error));
  assert.equal(error.details.kind, 'invalid_input');
  const issue = error.details.issues?.[0];
  assert.equal(issue?.parameter, parameter);
  assert.match(issue?.problem ?? '', problem);
  return true;
}

describe('the search ranking', () => {
  /** An index that answers each word with fixed hits: score 0 is a perfect match, 1 none. */
  const index = (hits: Record<string, [AnyToolDefinition, number][]>) => {
    const searched: string[] = [];
    return {
      searched,
      search: (word: string) => {
        searched.push(word);
        return (hits[word] ?? []).map(([item, score], refIndex) => ({ item, score, refIndex }));
      },
    };
  };

  it('adds up the scores of the whole query and of each word, best first', () => {
    const fake = index({
      'delete shape': [[LIST, 0.6]],
      delete: [[DELETE, 0.1]],
      shape: [
        [DELETE, 0.5],
        [LIST, 0.3],
        [GET, 0.2],
      ],
    });
    // DELETE: 0.9 + 0.5 = 1.4; LIST: 0.4 + 0.7 = 1.1; GET: 0.8.
    assert.deepEqual(rankTools(fake, 'delete shape', 8), [DELETE, LIST, GET]);
    assert.deepEqual(fake.searched, ['delete shape', 'delete', 'shape']);
  });

  it('searches a one-word query once, and keeps the best `limit`', () => {
    const fake = index({ shape: [[LIST, 0.3], [GET, 0.1], [DELETE, 0.5]] });
    assert.deepEqual(rankTools(fake, 'shape', 2), [GET, LIST]);
    assert.deepEqual(fake.searched, ['shape']);
  });
});

describe('FindTools', () => {
  const all = view([LIST, GET, CREATE, DELETE], 'underscore');
  const find = findToolsTool(all, metaNames(all));

  it("finds tools by words, in the view's names, saying which change data", async () => {
    assert.equal(find.name, 'Shapes.FindTools');
    assert.match(find.description, /Searches the 4 Shapes tools/);
    const found = (await run(find, { query: 'delete shape' })).tools as Record<string, unknown>[];
    assert.deepEqual(found[0], { name: 'Shapes_DeleteShape', title: 'Delete Shape', summary: 'Deletes a shape for good.', changes_data: true, destructive: true });
    const circle = ((await run(find, { query: 'circle' })).tools as Record<string, unknown>[])[0];
    assert.deepEqual(circle, { name: 'Shapes_CreateCircle', title: 'Create Circle', summary: 'Draws a circle on a sheet.', changes_data: true });
    const list = ((await run(find, { query: 'list shapes', limit: 1 })).tools as Record<string, unknown>[]);
    assert.deepEqual(list, [{ name: 'Shapes_ListShapes', title: 'List Shapes', summary: 'Lists the shapes on a sheet.', read_only: true }]);
  });

  it('names the toolsets when nothing matches, and points to DescribeTool', async () => {
    const answer = await run(find, { query: 'zzqx' });
    assert.deepEqual(answer.tools, []);
    assert.equal(answer.hint, 'No tool matched; try other words, or a toolset: shapes, drawing');
    assert.equal(answer.next_step, "Read a tool's parameters with Shapes_DescribeTool.");
  });
});

describe('the tool a meta call names', () => {
  const all = view([LIST, CREATE], 'short');
  const names = metaNames(all);

  it('is found by any spelling among the selected tools', () => {
    assert.equal(metaTarget(all, names, 'Shapes_ListShapes', true), LIST);
    assert.equal(metaTarget(all, names, 'CreateCircle', false), CREATE);
  });

  it('is refused when unknown, with the view\'s reason and where to search', () => {
    assert.throws(() => metaTarget(all, names, 'Shapes.Nope', false), (error) => invalid(error, 'name', /^Unknown tool Shapes\.Nope\. Use FindTools to search\.$/));
  });

  it('is refused by the read-only call tool when it changes data, naming the call tool for writes', () => {
    assert.throws(() => metaTarget(all, names, 'Shapes.CreateCircle', true), (error) => invalid(error, 'name', /^CreateCircle changes data; call it with CallTool instead$/));
  });
});

describe("a meta call's arguments", () => {
  it('are an object, a string holding one, or none', () => {
    assert.deepEqual(metaCallArguments({ shape_id: 's1' }), { shape_id: 's1' });
    assert.deepEqual(metaCallArguments('{"shape_id":"s2"}'), { shape_id: 's2' });
    assert.deepEqual(metaCallArguments(undefined), {});
  });

  it('are refused when a string is not JSON, or the JSON is not an object', () => {
    assert.throws(() => metaCallArguments('{shape'), (error) => invalid(error, 'arguments', /^must be a JSON object \(or a string holding one\)$/));
    assert.throws(() => metaCallArguments('[1,2]'), (error) => invalid(error, 'arguments', /^must be a JSON object$/));
    assert.throws(() => metaCallArguments('"s1"'), (error) => invalid(error, 'arguments', /^must be a JSON object$/));
  });
});

describe('DescribeTool', () => {
  const all = view([GET, DELETE], 'underscore');
  const describeTool = describeToolTool(all, metaNames(all));

  it('shows a tool as tools/list would, with the call tool that runs it', async () => {
    const read = await run(describeTool, { name: 'GetShape' });
    assert.equal(read.name, 'Shapes_GetShape');
    assert.equal(read.description, 'Gets one shape by ID.');
    assert.deepEqual((read.input_schema as { required?: string[] }).required, ['shape_id']);
    assert.deepEqual(read.annotations, READS);
    assert.equal(read.call_with, 'Shapes_CallReadOnlyTool');
    assert.equal((await run(describeTool, { name: 'Shapes.DeleteShape' })).call_with, 'Shapes_CallTool');
  });
});

describe('the call tools', () => {
  const all = view([GET, DELETE]);
  const names = metaNames(all);
  const parameters = callToolParameters();
  const callReadOnly = callToolTool(all, names, parameters, true);
  const callAny = callToolTool(all, names, parameters, false);

  it('are named and hinted for what they may run', () => {
    assert.equal(callReadOnly.name, 'Shapes.CallReadOnlyTool');
    assert.equal(callReadOnly.hints.readOnlyHint, true);
    assert.equal(callAny.name, 'Shapes.CallTool');
    assert.equal(callAny.hints.destructiveHint, true);
  });

  it('run the named tool with its arguments, object or string', async () => {
    assert.deepEqual(await run(callReadOnly, { name: 'Shapes.GetShape', arguments: { shape_id: 's1' } }), { ran: 'GetShape', shape_id: 's1' });
    assert.deepEqual(await run(callAny, { name: 'DeleteShape', arguments: '{"shape_id":"s9"}' }), { ran: 'DeleteShape', shape_id: 's9' });
  });

  it("check the arguments with the named tool's own schema, as a direct call does", async () => {
    await assert.rejects(run(callReadOnly, { name: 'Shapes.GetShape', arguments: { shape_id: 'x' } }), (error) => invalid(error, 'shape_id', /.+/));
    await assert.rejects(run(callReadOnly, { name: 'Shapes.GetShape', arguments: { shape_id: 's1', extra: 1 } }), (error: unknown) => error instanceof ToolError && error.details.kind === 'invalid_input');
  });

  it('keep writes out of the read-only call tool, before anything runs', async () => {
    await assert.rejects(run(callReadOnly, { name: 'Shapes.DeleteShape', arguments: { shape_id: 's1' } }), (error) => invalid(error, 'name', /changes data; call it with Shapes\.CallTool instead/));
  });
});

describe('the meta tools of a view', () => {
  it('have CallTool only when the selection has a tool that changes data; both call tools share one input', () => {
    const reads = metaTools(view([LIST, GET]));
    assert.deepEqual(reads.map((meta) => meta.name), ['Shapes.FindTools', 'Shapes.DescribeTool', 'Shapes.CallReadOnlyTool']);
    const all = metaTools(view([LIST, CREATE]));
    assert.deepEqual(all.map((meta) => meta.name), ['Shapes.FindTools', 'Shapes.DescribeTool', 'Shapes.CallReadOnlyTool', 'Shapes.CallTool']);
    assert.equal(all[2]?.input, all[3]?.input);
    assert.equal(all[2]?.inputJsonSchema, all[3]?.inputJsonSchema);
  });
});
