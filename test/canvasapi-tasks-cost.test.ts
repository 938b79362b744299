/**
 * What the task tools save, measured on the sandbox: the same tasks done with the contract's
 * tools (the best plan: fewest calls, largest pages) and with one task-tool call, counting calls
 * and the tokens of the results the agent reads (o200k_base). The figures are in
 * docs/tasks.md (CanvasApi); MEASURE=1 prints them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { countTokens } from '../src/core/tools/context-size.js';
import { executeTool, findTool, type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, outcomeOf, startTestSandbox } from './support/harness.js';
import { workshopBoard } from './support/sandbox-board.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Cost {
  calls: number;
  tokens: number;
}

describe('task tools cost well under half the tokens of the contract-only path', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  let board = '';

  /** Calls a tool, adds its result's tokens to the tally and returns the parsed result. */
  const call = async (cost: Cost, name: string, args: Record<string, unknown>): Promise<J> => {
    const raw = await executeTool(server, findTool(server, name)!, args, new AbortController().signal);
    const { data, isError } = outcomeOf(raw);
    assert.equal(isError, false, `${name}: ${JSON.stringify(data)}`);
    cost.calls++;
    cost.tokens += await countTokens((raw.content[0] as { text: string }).text);
    return data;
  };

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    // A 64-item workshop board: 2 frames, 50 sticky notes, 8 shapes, 4 texts; 3 tags on 12 notes; 8 connectors.
    board = await workshopBoard(sandbox);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('"What is on this board?", "Which notes mention the refund policy?" and "Draw A -> B -> C, D from B"', async () => {
    const contract: Record<string, Cost> = { read: { calls: 0, tokens: 0 }, find: { calls: 0, tokens: 0 }, draw: { calls: 0, tokens: 0 } };
    const tasks: Record<string, Cost> = { read: { calls: 0, tokens: 0 }, find: { calls: 0, tokens: 0 }, draw: { calls: 0, tokens: 0 } };

    // 1. What is on this board: the board, every item page, the connectors, the tags and each tag's items.
    await call(contract.read!, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: board });
    let cursor: string | undefined;
    do {
      const page = await call(contract.read!, 'CanvasApi.RetrieveBoardItems', { board_identifier: board, items_limit: '50', ...(cursor ? { pagination_cursor: cursor } : {}) });
      cursor = page.next_page?.pagination_cursor;
    } while (cursor);
    await call(contract.read!, 'CanvasApi.GetBoardConnectors', { board_identifier: board, result_limit: '50' });
    const tags = await call(contract.read!, 'CanvasApi.GetBoardTags', { board_id: board, maximum_number_of_tags: '50' });
    for (const tag of tags.data) await call(contract.read!, 'CanvasApi.RetrieveItemsByTag', { board_id: board, tag_identifier: tag.id, max_items_to_retrieve: '50' });
    const read = await call(tasks.read!, 'CanvasApi.ReadBoard', { board_id: board });
    assert.equal(read.items.length, 62);
    assert.equal(read.connectors.length, 8);

    // 2. Finding a phrase: the contract has no text search, so every item page is read.
    cursor = undefined;
    do {
      const page = await call(contract.find!, 'CanvasApi.RetrieveBoardItems', { board_identifier: board, items_limit: '50', ...(cursor ? { pagination_cursor: cursor } : {}) });
      cursor = page.next_page?.pagination_cursor;
    } while (cursor);
    const found = await call(tasks.find!, 'CanvasApi.ReadBoard', { board_id: board, query: 'refund policy' });
    assert.equal(found.items.length, 5);

    // 3. Draw a flow: both body schemas, one bulk create, one connector per edge.
    await call(contract.draw!, 'CanvasApi.AddItemsToCanvasBoard', { mode: 'get_request_schema' });
    await call(contract.draw!, 'CanvasApi.AddConnectorToBoard', { mode: 'get_request_schema' });
    const shapes = await call(contract.draw!, 'CanvasApi.AddItemsToCanvasBoard', {
      mode: 'execute',
      canvas_board_identifier: board,
      request_body: ['A', 'B', 'C', 'D'].map((text, i) => ({ type: 'shape', data: { content: text, shape: 'round_rectangle' }, position: { x: 9000 + (i === 3 ? 300 : 0), y: [0, 200, 400, 400][i] }, geometry: { width: 220, height: 110 } })),
    });
    const ids = (shapes.data as J[]).map((item) => item.id);
    for (const [from, to] of [[0, 1], [1, 2], [1, 3]] as const) {
      await call(contract.draw!, 'CanvasApi.AddConnectorToBoard', { mode: 'execute', board_unique_id: board, request_body: { startItem: { id: ids[from] }, endItem: { id: ids[to] } } });
    }
    const drawn = await call(tasks.draw!, 'CanvasApi.CreateDiagram', {
      board_id: board,
      nodes: ['A', 'B', 'C', 'D'].map((id) => ({ id, text: id })),
      edges: [{ from: 'A', to: 'B' }, { from: 'B', to: 'C' }, { from: 'B', to: 'D' }],
      layout: 'flow-down',
      origin_x: 12000,
    });
    assert.equal(Object.keys(drawn.node_items).length, 4);

    const total = (costs: Record<string, Cost>) => Object.values(costs).reduce((sum, c) => ({ calls: sum.calls + c.calls, tokens: sum.tokens + c.tokens }), { calls: 0, tokens: 0 });
    if (process.env.MEASURE === '1') {
      for (const task of Object.keys(contract)) console.log(`${task}: contract ${contract[task]!.calls} calls ${contract[task]!.tokens} tokens; task tool ${tasks[task]!.calls} call ${tasks[task]!.tokens} tokens`);
      console.log(`total: contract ${total(contract).calls} calls ${total(contract).tokens} tokens; task tools ${total(tasks).calls} calls ${total(tasks).tokens} tokens`);
    }
    for (const task of Object.keys(contract)) {
      assert.equal(tasks[task]!.calls, 1);
      assert.ok(tasks[task]!.tokens < contract[task]!.tokens / 2, `${task}: ${tasks[task]!.tokens} vs ${contract[task]!.tokens} tokens`);
    }
    assert.ok(total(tasks).tokens < total(contract).tokens / 3, `${total(tasks).tokens} vs ${total(contract).tokens} tokens`);

    // The figures docs/tasks.md and the README publish are these (token counts are deterministic).
    const n = (value: number) => value.toLocaleString('en-US');
    const page = readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8');
    const rows: Record<string, string> = { read: 'What is on this board?', find: 'Which notes mention the refund policy?', draw: 'Draw A -> B -> C, D branching from B' };
    for (const [task, question] of Object.entries(rows)) {
      const row = page.split('\n').find((line) => line.startsWith(`| ${question} |`));
      assert.ok(row, `docs/tasks.md has the row "${question}"`);
      assert.match(row, new RegExp(`\\| ${contract[task]!.calls} \\| ${n(contract[task]!.tokens)} \\| \\w+[^|]*\\| 1 \\| ${n(tasks[task]!.tokens)} \\|$`), `docs/tasks.md: ${row}`);
    }
    const all = page.split('\n').find((line) => line.startsWith('| All three |')) ?? '';
    const share = Math.round((100 * total(tasks).tokens) / total(contract).tokens);
    assert.match(all, new RegExp(`\\| ${total(contract).calls} \\| ${n(total(contract).tokens)} \\| \\| ${total(tasks).calls} \\| ${n(total(tasks).tokens)} \\(${share}%\\) \\|$`), `docs/tasks.md: ${all}`);
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const [task, tool] of [['read', 'ReadBoard'], ['draw', 'CreateDiagram']] as const) {
      assert.ok(readme.includes(`| ${contract[task]!.calls} calls, ${n(contract[task]!.tokens)} tokens | \`${tool}\`: 1 call, ${n(tasks[task]!.tokens)} tokens |`), `README: ${tool}'s row gives the measured figures`);
    }
  });

  it('"Add a Retry step after Step 3", and a decision flow written as Mermaid or as nodes and edges', async () => {
    const contract: Cost = { calls: 0, tokens: 0 };
    const task: Cost = { calls: 0, tokens: 0 };
    // Contract: every item page (to find Step 3 and the free space around it), both body schemas, the shape, the connector.
    const items: J[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(contract, 'CanvasApi.RetrieveBoardItems', { board_identifier: board, items_limit: '50', ...(cursor ? { pagination_cursor: cursor } : {}) });
      items.push(...page.data);
      cursor = page.next_page?.pagination_cursor;
    } while (cursor);
    const step3 = items.find((item) => item.data?.content === '<p>Step 3</p>');
    await call(contract, 'CanvasApi.AddShapeToCanvasBoard', { mode: 'get_request_schema' });
    await call(contract, 'CanvasApi.AddConnectorToBoard', { mode: 'get_request_schema' });
    const retry = await call(contract, 'CanvasApi.AddShapeToCanvasBoard', { mode: 'execute', board_id: board, request_body: { data: { content: 'Retry', shape: 'round_rectangle' }, position: { x: step3.position.x, y: step3.position.y + 300 }, geometry: { width: 220, height: 110 } } });
    await call(contract, 'CanvasApi.AddConnectorToBoard', { mode: 'execute', board_unique_id: board, request_body: { startItem: { id: step3.id }, endItem: { id: retry.id } } });
    // Task tools: find Step 3, then one CreateDiagram naming it.
    const found = await call(task, 'CanvasApi.ReadBoard', { board_id: board, query: 'Step 3', item_types: ['shape'] });
    const id = String(found.items[0]).split(' ')[0];
    const added = await call(task, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: `flowchart TD\n  item:${id} --> retry[Retry]` });
    assert.equal(Object.keys(added.node_items).length, 1);
    assert.equal(task.calls, 2);
    assert.ok(task.tokens < contract.tokens / 2, `add a step: ${task.tokens} vs ${contract.tokens} tokens`);

    // The same decision flow as nodes and edges, and as Mermaid: the tokens the agent writes, and those of the answer.
    const nodesForm = {
      board_id: board,
      nodes: [{ id: 'A', text: 'Start', shape: 'rectangle' }, { id: 'B', text: 'Is it ready?', shape: 'rhombus' }, { id: 'C', text: 'Ship it' }, { id: 'D', text: 'Backlog', shape: 'can' }],
      edges: [{ from: 'A', to: 'B' }, { from: 'B', to: 'C', label: 'Yes' }, { from: 'B', to: 'D', label: 'No' }, { from: 'D', to: 'A' }],
      layout: 'flow-down',
      origin_x: 15000,
    };
    const mermaidForm = { board_id: board, mermaid: 'flowchart TD\n  A[Start] --> B{Is it ready?}\n  B -->|Yes| C(Ship it)\n  B -->|No| D[(Backlog)]\n  D --> A', origin_x: 18000 };
    const written = { nodes: await countTokens(JSON.stringify(nodesForm)), mermaid: await countTokens(JSON.stringify(mermaidForm)) };
    const answers = { nodes: { calls: 0, tokens: 0 }, mermaid: { calls: 0, tokens: 0 } };
    await call(answers.nodes, 'CanvasApi.CreateDiagram', nodesForm);
    await call(answers.mermaid, 'CanvasApi.CreateDiagram', mermaidForm);
    assert.ok(written.mermaid < written.nodes * 0.75, `mermaid ${written.mermaid} vs nodes ${written.nodes} tokens written`);
    if (process.env.MEASURE === '1') {
      console.log(`add a step: contract ${contract.calls} calls ${contract.tokens} tokens; task tools ${task.calls} calls ${task.tokens} tokens`);
      console.log(`decision flow: nodes/edges ${written.nodes} written, ${answers.nodes.tokens} answered; mermaid ${written.mermaid} written, ${answers.mermaid.tokens} answered`);
    }
    const n = (value: number) => value.toLocaleString('en-US');
    const page = readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8');
    const row = page.split('\n').find((line) => line.startsWith('| Add a Retry step after Step 3 |')) ?? '';
    assert.match(row, new RegExp(`\\| ${contract.calls} \\| ${n(contract.tokens)} \\| [^|]+\\| 2 \\| ${n(task.tokens)} \\|$`), `docs/tasks.md: ${row}`);
    for (const [form, label] of [['nodes', '`nodes` and `edges`'], ['mermaid', '`mermaid`']] as const) {
      const line = page.split('\n').find((l) => l.startsWith(`| The decision flow as ${label} |`)) ?? '';
      assert.ok(line.endsWith(`| ${n(written[form])} | ${n(answers[form].tokens)} |`), `docs/tasks.md: ${line} (${written[form]}, ${answers[form].tokens})`);
    }
  });
});
