/**
 * CanvasApi's task tools against the sandbox: ReadBoard reads a whole board (several hundred
 * items within the result budget, by text, frame and type), CreateDiagram draws a graph in bulk
 * transactions and reports exactly what exists when one fails. Also: where the tools are listed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { executeTool, listTools, viewFor, type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, outcomeOf, startTestSandbox, canvasApiWithSecondBulkFailing } from './support/harness.js';
import { boardItems, platform } from './support/sandbox-board.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';
import { worstDiagram } from './support/worst-diagram.js';
import { CallBudget, DEFAULT_BUDGET, WorkScope } from '../src/core/call-budget.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const TASK_TOOLS = ['CanvasApi.CreateDiagram', 'CanvasApi.ReadBoard', 'CanvasApi.ViewBoard'];
/** In the tasks toolset only, not in everyday (test/canvasapi-board-layout.test.ts). */
const TASKS_ONLY = ['CanvasApi.CreateBoardLayout', 'CanvasApi.BulkEditItems', 'CanvasApi.EditDiagram'];

/** Sends one request straight to the sandbox (test set-up, not through the tools). */

async function newBoard(sandbox: RunningSandbox, name: string): Promise<string> {
  return (await platform(sandbox, 'POST', '/v2/boards', { name })).id as string;
}


const bulkRequests = (sandbox: RunningSandbox, boardId: string) => sandbox.requests.filter((r) => r.method === 'POST' && r.path === `/v2/boards/${encodeURIComponent(boardId)}/items/bulk`);

/** A flow of n nodes: a chain, plus a branch from every fifth node to the next-but-one. */
function flow(n: number): { nodes: J[]; edges: J[] } {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `n${i}`, text: `Step ${i} <check> & go` }));
  const edges: J[] = [];
  for (let i = 1; i < n; i++) edges.push({ from: `n${i - 1}`, to: `n${i}`, ...(i % 7 === 0 ? { label: 'next' } : {}) });
  for (let i = 0; i + 2 < n; i += 5) edges.push({ from: `n${i}`, to: `n${i + 2}` });
  return { nodes, edges };
}

describe('CanvasApi task tools: where they are listed', () => {
  const server = canvasApiServerFor(undefined);
  const names = (selections: J[]) => listTools(server, { selections }).map((tool) => tool.name);

  it('the default and the all profile list exactly the contract\'s 139 tools', () => {
    for (const selections of [[], [{ profile: 'all' }]]) {
      const listed = names(selections);
      assert.equal(listed.length, 139);
      for (const name of TASK_TOOLSET_NAMES()) assert.ok(!listed.includes(name), `${name} is not in ${JSON.stringify(selections)}`);
    }
  });

  it('everyday, the tasks toolset and a tool name add them; read-only keeps only the readers', () => {
    const everyday = names([{ profile: 'everyday' }]);
    for (const name of TASK_TOOLS) assert.ok(everyday.includes(name), `everyday lists ${name}`);
    assert.deepEqual(names([{ toolsets: ['tasks'] }]).sort(), [...TASK_TOOLS, ...TASKS_ONLY].sort());
    for (const name of TASKS_ONLY) assert.ok(!everyday.includes(name), `everyday does not list ${name}`);
    assert.deepEqual(names([{ toolsets: ['boards', 'tasks'] }]).filter((n) => TASK_TOOLS.includes(n)).sort(), TASK_TOOLS);
    assert.deepEqual(names([{ tools: ['ReadBoard'] }]), ['CanvasApi.ReadBoard']);
    assert.deepEqual(names([{ toolsets: ['tasks'], readOnly: true }]).sort(), ['CanvasApi.ReadBoard', 'CanvasApi.ViewBoard']);
    // A choice that names only contract toolsets keeps them out.
    assert.deepEqual(names([{ profile: 'all' }, { toolsets: ['boards'] }]).filter((n) => TASK_TOOLS.includes(n)), []);
  });

  it('meta mode finds them and calls them', async () => {
    const view = viewFor(server, { selections: [{ profile: 'meta' }] });
    const find = view.exposed.find((tool) => tool.name === 'CanvasApi.FindTools')!;
    const found = outcomeOf(await executeTool(server, find, { query: 'read whole board' }, new AbortController().signal));
    assert.ok((found.data.tools as J[]).slice(0, 3).some((tool) => tool.name === 'CanvasApi.ReadBoard'), JSON.stringify(found.data.tools));
    const call = view.exposed.find((tool) => tool.name === 'CanvasApi.CallTool')!;
    const bad = outcomeOf(await executeTool(server, call, { name: 'CanvasApi.CreateDiagram', arguments: { board_id: 'b', nodes: [], layout: 'grid' } }, new AbortController().signal));
    assert.equal(bad.isError, true);
    assert.equal(bad.data.kind, 'invalid_input');
    assert.match(JSON.stringify(bad.data.issues), /nodes/);
  });
});

function TASK_TOOLSET_NAMES(): string[] {
  return [...TASK_TOOLS, ...TASKS_ONLY];
}

describe('CanvasApi.ReadBoard and CreateDiagram against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('reads a board of 420 items within the budget, every item exactly once across next_page, with progress', async () => {
    const board = await newBoard(sandbox, 'Big workshop');
    const frame = await platform(sandbox, 'POST', `/v2/boards/${board}/frames`, { data: { title: 'Ideas', format: 'custom', type: 'freeform' }, position: { x: 0, y: 0 }, geometry: { width: 4000, height: 4000 } });
    const texts: string[] = [];
    for (let batch = 0; batch < 21; batch++) {
      const items = Array.from({ length: 20 }, (_, i) => {
        const n = batch * 20 + i;
        const text = `Idea ${n}: ${n % 50 === 0 ? 'PINEAPPLE ' : ''}${'a longer sticky note text that people write in workshops '.repeat(2)}`;
        texts.push(text);
        return { type: 'sticky_note', data: { content: `<p>${text.replace(/&/g, '&amp;')}</p>` }, position: { x: 100 + (n % 20) * 10, y: 100 + batch * 10 }, ...(n < 40 ? { parent: { id: frame.id } } : {}) };
      });
      await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, items);
    }
    const tag = await platform(sandbox, 'POST', `/v2/boards/${board}/tags`, { title: 'Vote' });
    const all = await boardItems(sandbox, board);
    const first = all.find((item) => item.type === 'sticky_note')!;
    await platform(sandbox, 'POST', `/v2/boards/${board}/items/${first.id}?tag_id=${tag.id}`);
    const notes = all.filter((item) => item.type === 'sticky_note');
    await platform(sandbox, 'POST', `/v2/boards/${board}/connectors`, { startItem: { id: notes[0].id }, endItem: { id: notes[1].id }, captions: [{ content: '<p>leads to</p>' }] });

    const seen: string[] = [];
    let next: J;
    let calls = 0;
    const progress: number[] = [];
    const tool = server.tools.find((t) => t.name === 'CanvasApi.ReadBoard')!;
    do {
      sandbox.clearRequests();
      const callProgress: number[] = [];
      const raw = await executeTool(server, tool, { board_id: `https://miro.com/app/board/${board}/?share=1`, ...(next ?? {}) }, new AbortController().signal, (p) => callProgress.push(p));
      const { data, isError } = outcomeOf(raw);
      assert.equal(isError, false, JSON.stringify(data));
      calls++;
      assert.equal(data.result_truncated, undefined, 'the tool cuts itself before the generic budget does');
      assert.equal((data.board as J).name, 'Big workshop');
      assert.match((data.frames as string[])[0]!, new RegExp(`^${frame.id} "Ideas" 0,0 4000x4000$`));
      for (const line of data.items as string[]) seen.push(line.split(' ')[0]!);
      // Only what the answer needs is read: the pages of its items (and the rest of the last one), not the whole board.
      const itemPages = sandbox.requests.filter((r) => r.path.endsWith('/items') && !r.query.some(([key]) => key === 'tag_id' || key === 'type')).length;
      assert.ok(itemPages <= Math.ceil((data.items as string[]).length / 50) + 1, `${itemPages} item pages for ${(data.items as string[]).length} items`);
      assert.ok(callProgress.length >= itemPages, `progress per page (${callProgress.length} reports, ${itemPages} item pages)`);
      for (let i = 1; i < callProgress.length; i++) assert.ok(callProgress[i]! > callProgress[i - 1]!, 'progress increases');
      progress.push(...callProgress);
      if (calls === 1) {
        assert.ok((data.next_page as J)?.offset > 0 && typeof (data.next_page as J)?.cursor === 'string', 'a board this size is cut with next_page');
        assert.equal(data.counts, undefined, 'the whole board was not read, so no whole-board counts');
        assert.equal(data.total_items, 421, "the platform's total comes free with the first page");
        assert.ok((data.matching_items_at_least as number) >= (data.next_page as J).offset);
        assert.ok((data.partial as string[]).some((note) => note.startsWith('counts_read')));
        const firstLine = (data.items as string[]).find((line) => line.startsWith(`${first.id} `))!;
        assert.match(firstLine, /frame "Ideas" #"Vote": "Idea 0: PINEAPPLE a longer/);
        assert.ok(!firstLine.includes('<p>'), 'HTML is stripped');
        assert.match((data.connectors as string[])[0]!, new RegExp(`: ${notes[0].id} "Idea 0: PINEAPPLE .*" -> ${notes[1].id} ".*" caption "leads to"$`));
        // offset alone still works: the same items as the cursor gives, read again from the start.
        const byOffset = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, offset: (data.next_page as J).offset, max_items: 3 })).data;
        const byCursor = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, cursor: (data.next_page as J).cursor, max_items: 3 })).data;
        assert.deepEqual(byOffset.items, byCursor.items);
        assert.equal((byCursor.items as string[])[0]!.split(' ')[0], notes.find((n) => !(data.items as string[]).some((l) => l.startsWith(`${n.id} `)))?.id);
      }
      next = data.next_page;
      if (!next) {
        assert.equal(data.matching_items, 420, 'the last page knows the count of every match');
        assert.deepEqual((data.partial as string[]).filter((note) => !note.startsWith('counts_read')), [], 'read to the end: only the counts cover part of the board (this call began mid-board)');
      }
    } while (next !== undefined && calls < 10);
    assert.ok(calls >= 2 && calls < 10, `${calls} calls`);
    assert.equal(seen.length, 420);
    assert.equal(new Set(seen).size, 420, 'no item twice');
    assert.deepEqual(new Set(seen), new Set(notes.map((n) => n.id)));
    // Whole-board counts when asked: one request per type for its total.
    const counted = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, max_items: 1, counts: true })).data;
    assert.deepEqual(counted.counts, { sticky_note: 420, frame: 1, connector: 1 });

    // Filters: text (case-insensitive, tags included), frame, type, max_items.
    const pineapple = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, query: 'pineapple' })).data;
    assert.equal(pineapple.matching_items, 9);
    assert.equal((pineapple.items as string[]).length, 9);
    assert.equal(pineapple.next_page, undefined);
    const voted = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, query: 'VOTE' })).data;
    assert.deepEqual((voted.items as string[]).map((l) => l.split(' ')[0]), [first.id]);
    const inFrame = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, frame_id: frame.id })).data;
    assert.equal(inFrame.matching_items, 40);
    assert.ok((inFrame.items as string[]).every((l) => l.includes('frame "Ideas"')));
    const few = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, item_types: ['sticky_note'], max_items: 5 })).data;
    assert.equal((few.items as string[]).length, 5);
    assert.equal((few.next_page as J).offset, 5);
    const none = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, item_types: ['card'], counts: true })).data;
    assert.deepEqual(none.items, []);
    assert.deepEqual(none.counts, { sticky_note: 420, frame: 1, connector: 1 }, 'counts: true describes the whole board, whatever the filter');
    const missing = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, frame_id: '3458764000000000001' });
    assert.equal(missing.isError, true);
    assert.equal(missing.data.kind, 'not_found');
    assert.match(String(missing.data.message), /the frame "3458764000000000001" on the board/);
  });

  it('refuses bad input naming the parameter, sending nothing', async () => {
    sandbox.clearRequests();
    const bad = await callTool(server, 'CanvasApi.ReadBoard', { board_id: 'a/b', item_types: ['sticker'], max_items: 0 });
    assert.equal(bad.isError, true);
    const params = (bad.data.issues as J[]).map((i) => i.parameter).sort();
    assert.deepEqual(params, ['board_id', 'item_types[0]', 'max_items']);
    const graph = await callTool(server, 'CanvasApi.CreateDiagram', {
      board_id: 'x',
      nodes: [{ id: 'A', text: 'a' }, { id: 'A', text: 'b' }, { id: 'C', text: 'c', shape: 'sticky_note', color: '#ffffff' }, { id: 'D', text: 'd', color: 'yellow' }],
      edges: [{ from: 'A', to: 'Z' }, { from: 'C', to: 'C' }],
      layout: 'flow-down',
    });
    assert.equal(graph.isError, true);
    assert.deepEqual((graph.data.issues as J[]).map((i) => i.parameter), ['nodes[1].id', 'nodes[2].color', 'nodes[3].color', 'edges[0].to', 'edges[1].to']);
    assert.match(JSON.stringify(graph.data.issues), /"Z\\" is not the id of any node; the nodes are \\"A\\", \\"C\\", \\"D\\"/);
    const tooMany = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: 'x', nodes: Array.from({ length: 201 }, (_, i) => ({ id: `${i}`, text: '' })), layout: 'grid' });
    assert.deepEqual((tooMany.data.issues as J[]).map((i) => i.parameter), ['nodes']);
    assert.equal(sandbox.requests.length, 0, 'nothing was sent');
  });

  it('a failed read stops the reads still in flight', async () => {
    let itemsAborted = false;
    const failing = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/connectors')) return new Response(JSON.stringify({ status: 403, code: 'forbidden', message: 'No access', type: 'error' }), { status: 403, headers: { 'content-type': 'application/json' } });
      if (url.includes('/items')) {
        // Answers only when aborted: the call could not end otherwise.
        return new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => {
            itemsAborted = true;
            reject(new DOMException('aborted', 'AbortError'));
          });
        });
      }
      return fetch(input, init);
    }) as typeof fetch;
    const result = await callTool(canvasApiServerFor(sandbox.canvasapi, { fetch: failing }), 'CanvasApi.ReadBoard', { board_id: sandbox.canvasapi.demo!.boardIds[0] });
    assert.equal(result.isError, true);
    assert.equal(result.data.kind, 'forbidden');
    assert.equal(itemsAborted, true);
  });

  it('draws a 30-node flow in a frame with two bulk transactions and one connector per edge', async () => {
    const board = await newBoard(sandbox, 'Diagram');
    const { nodes, edges } = flow(30);
    const progress: { done: number; total?: number }[] = [];
    const raw = await executeTool(server, server.tools.find((t) => t.name === 'CanvasApi.CreateDiagram')!, { board_id: board, nodes, edges, layout: 'flow-down', origin_x: 1000, origin_y: -500, frame_title: 'Release flow' }, new AbortController().signal, (done, total) => progress.push({ done, ...(total !== undefined ? { total } : {}) }));
    const result = outcomeOf(raw);
    const steps = 1 + nodes.length + edges.length;
    assert.deepEqual(progress.map((p) => p.done), Array.from({ length: steps }, (_, i) => i + 1), 'progress per frame, node and connector');
    assert.ok(progress.every((p) => p.total === steps));
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, `30 of 30 nodes and ${edges.length} of ${edges.length} connectors created in frame ${data.frame.id}.`);
    assert.equal(data.failed, undefined);
    assert.equal(bulkRequests(sandbox, board).length, 2);
    assert.deepEqual(bulkRequests(sandbox, board).map((r) => (r.body as J[]).length), [20, 10]);
    const items = await boardItems(sandbox, board);
    const byId = new Map(items.map((item) => [item.id, item]));
    assert.equal(items.filter((i) => i.type === 'shape').length, 30);
    const frame = byId.get(data.frame.id);
    assert.equal(frame.data.title, 'Release flow');
    assert.equal(frame.position.x - frame.geometry.width / 2, 1000, 'the frame starts at origin_x');
    for (const node of nodes) {
      const item = byId.get(data.node_items[node.id]);
      assert.equal(item.parent.id, data.frame.id);
      assert.equal(item.data.content, 'Step ' + node.id.slice(1) + ' &#60;check&#62; &#38; go');
      assert.ok(item.position.x > 0 && item.position.x < frame.geometry.width && item.position.y > 0 && item.position.y < frame.geometry.height, 'inside its frame');
    }
    for (const edge of edges) assert.ok(byId.get(data.node_items[edge.from]).position.y < byId.get(data.node_items[edge.to]).position.y, `${edge.from} above ${edge.to}`);
    assert.equal(data.connector_items.length, edges.length);
    assert.equal(new Set(data.connector_items).size, edges.length, 'a connector ID for each edge, in the order of edges');

    // ReadBoard shows it back as text.
    const read = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, query: 'step 7 ' })).data as J;
    assert.equal(read.items.length, 1);
    assert.match(read.items[0], /shape .* frame "Release flow": "Step 7 <check> & go"$/);
    assert.ok(read.connectors.some((line: string) => line.includes(`${data.node_items.n6} "Step 6 <check> & go" -> ${data.node_items.n7} "Step 7 <check> & go" caption "next"`)));
  });

  it('a board the platform does not know: its own error, nothing created', async () => {
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: 'uXjVnoSuchBoard=', nodes: [{ id: 'A', text: 'a' }], layout: 'grid' });
    assert.equal(result.isError, true);
    assert.equal(result.data.kind, 'not_found');
  });

  it('a grid of sticky notes: a diagram without edges, in rows and columns', async () => {
    const board = await newBoard(sandbox, 'Grid');
    const nodes = Array.from({ length: 9 }, (_, i) => ({ id: `s${i}`, text: `Note ${i}`, shape: 'sticky_note', color: 'light_blue' }));
    const data = (await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, nodes, layout: 'grid' })).data as J;
    assert.equal(Object.keys(data.node_items).length, 9);
    const items = await boardItems(sandbox, board);
    assert.deepEqual(new Set(items.map((i) => i.type)), new Set(['sticky_note']));
    assert.equal(new Set(items.map((i) => i.position.x)).size, 3, 'three columns');
    assert.equal(new Set(items.map((i) => i.position.y)).size, 3, 'three rows');
  });

  it('reports every edge by its index: repeated edges and ids with arrows, each connector once, the counts as on the board', async () => {
    const board = await newBoard(sandbox, 'Arrows');
    const nodes = ['A', 'B->C', 'A->B', 'C'].map((id) => ({ id, text: id }));
    // "A" -> "B->C" and "A->B" -> "C" both read A->B->C; the last edge repeats the one before.
    const edges = [{ from: 'A', to: 'B->C' }, { from: 'A->B', to: 'C' }, { from: 'C', to: 'A', label: 'x'.repeat(200) }, { from: 'A->B', to: 'C', label: 'a < b' }];
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, nodes, edges, layout: 'flow-right' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '4 of 4 nodes and 4 of 4 connectors created.');
    assert.equal(data.failed, undefined);
    assert.equal(data.next_step, undefined);
    const connectors = (await platform(sandbox, 'GET', `/v2/boards/${board}/connectors?limit=50`)).data as J[];
    assert.equal(connectors.length, 4);
    edges.forEach((edge, index) => {
      const connector = connectors.find((c) => c.id === data.connector_items[index]);
      assert.ok(connector, `edges[${index}] has its own connector`);
      assert.deepEqual([connector.startItem.id, connector.endItem.id], [data.node_items[edge.from], data.node_items[edge.to]]);
    });
  });

  it('checks labels and node texts as sent, HTML-escaped, against their limits, sending nothing', async () => {
    const sentBefore = sandbox.requests.length;
    const result = await callTool(server, 'CanvasApi.CreateDiagram', {
      board_id: sandbox.canvasapi.demo!.boardIds[0],
      nodes: [{ id: 'A', text: '<b>'.repeat(1500) }, { id: 'B', text: 'b' }],
      edges: [{ from: 'A', to: 'B', label: 'x'.repeat(196) + '&' }, { from: 'B', to: 'A', label: '<>'.repeat(100) }],
      layout: 'flow-down',
    });
    assert.equal(result.isError, true);
    assert.equal(result.data.kind, 'invalid_input');
    const issues = result.data.issues as J[];
    assert.deepEqual(issues.map((i) => i.parameter), ['nodes[0].text', 'edges[0].label', 'edges[1].label']);
    assert.match(issues[0].problem, /is 16500 characters once HTML-escaped .* more than the 6000 allowed/);
    assert.match(issues[1].problem, /is 201 characters once HTML-escaped .* more than the 200 allowed/);
    assert.equal(sandbox.requests.length, sentBefore, 'nothing was sent');
  });

  it('cancelled part-way: what was never sent is listed as not sent, and the rest is on the board or may exist', async () => {
    const board = await newBoard(sandbox, 'Cancelled');
    const { nodes, edges } = flow(12);
    const cancel = new AbortController();
    let connectorsAnswered = 0;
    const cancelling = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      const answer = await fetch(input, init);
      if (url.endsWith('/connectors') && ++connectorsAnswered === 3) cancel.abort();
      return answer;
    }) as typeof fetch;
    const result = await callTool(canvasApiServerFor(sandbox.canvasapi, { fetch: cancelling }), 'CanvasApi.CreateDiagram', { board_id: board, nodes, edges, layout: 'flow-down' }, cancel.signal);
    const data = result.data as J;
    const created = (data.connector_items as (string | null)[]).flatMap((id, index) => (id === null ? [] : [index]));
    const mayExist = (data.failed as J[]).filter((f) => f.outcome === 'may_exist').map((f) => Number(/^edges\[(\d+)\]$/.exec(f.edge)![1]));
    const notSent = (data.not_sent.edges as string[]).map((name) => Number(/^edges\[(\d+)\]$/.exec(name)![1]));
    assert.ok(notSent.length > 0, 'some edges were never sent');
    assert.deepEqual([...created, ...mayExist, ...notSent].sort((a, b) => a - b), edges.map((_, index) => index), 'every edge is accounted for, once');
    const onBoard = ((await platform(sandbox, 'GET', `/v2/boards/${board}/connectors?limit=50`)).data as J[]).map((c) => `${c.startItem.id} ${c.endItem.id}`);
    const ends = (index: number) => `${data.node_items[edges[index]!.from]} ${data.node_items[edges[index]!.to]}`;
    for (const index of created) assert.ok(onBoard.includes(ends(index)), `edges[${index}] is on the board`);
    for (const index of notSent) assert.ok(!onBoard.includes(ends(index)), `edges[${index}], not sent, is not on the board`);
    assert.ok(onBoard.every((line) => [...created, ...mayExist].some((index) => ends(index) === line)), 'on the board: only what is reported created or may_exist');
    assert.equal(data.summary, `12 of 12 nodes and ${created.length} of ${edges.length} connectors created${mayExist.length ? `; ${mayExist.length} more item${mayExist.length === 1 ? '' : 's'} may exist (failed, may_exist).` : '.'}`);
  });

  it('the largest diagram (200 nodes, 400 edges) is drawn whole: its budget is its own creates, past the default', async () => {
    const board = await newBoard(sandbox, 'Largest');
    const diagram = worstDiagram(board);
    const before = sandbox.requests.length;
    const result = await callTool(server, 'CanvasApi.CreateDiagram', diagram);
    assert.equal(result.isError, false, JSON.stringify(result.data).slice(0, 500));
    const data = result.data as J;
    assert.equal(data.summary, '200 of 200 nodes and 400 of 400 connectors created.');
    const sent = sandbox.requests.slice(before).filter((r) => r.method === 'POST');
    assert.equal(sent.length, 10 + 400, 'ten node transactions and one connector per edge, nothing more');
    assert.ok(sent.length > DEFAULT_BUDGET.requests, 'more than the default budget allows');
  });

  it('a budget that runs out part-way: the creates it refused are not sent, and are reported so', async () => {
    const board = await newBoard(sandbox, 'Out of budget');
    const { nodes, edges } = flow(30);
    const budget = new CallBudget({ requests: 4 });
    const scope = new WorkScope(new AbortController().signal, { budget });
    const before = sandbox.requests.length;
    try {
      const { createDiagram } = await import('../src/canvasapi/tasks/create-diagram.js');
      // An explicit origin: no reads to place it, so the four requests are all creates.
      const data = (await createDiagram({ board_id: board, nodes, edges, layout: 'flow-down', origin_x: 0, origin_y: 0 } as never, { signal: scope.signal, budget, deps: server.deps, progress: () => undefined, logger: server.logger })) as J;
      const posted = sandbox.requests.slice(before).filter((r) => r.method === 'POST');
      assert.equal(posted.length, 4, 'the budget\'s four requests, and no more');
      assert.equal(Object.keys(data.node_items).length, 30, 'both node transactions');
      const created = (data.connector_items as (string | null)[]).filter((id) => id !== null).length;
      assert.equal(created, 2);
      assert.deepEqual(data.failed ?? [], [], 'a refusal by the budget is no failure');
      assert.equal((data.not_sent.edges as string[]).length, edges.length - 2, 'every other edge is listed as not sent');
      assert.equal(data.not_sent.retry_safe, true);
      assert.equal(data.summary, `30 of 30 nodes and 2 of ${edges.length} connectors created.`);
    } finally {
      scope.dispose();
    }
  });

  it('every request sent (by the tools and the set-up) matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    for (const sent of ['/items/bulk', '/connectors', '/frames', '/tags']) assert.ok(requests.some((r) => r.path.endsWith(sent)), `a request to ${sent} was checked`);
  });
});

describe('CanvasApi.CreateDiagram when the second transaction fails', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  const faultyServer = (mode: 'refused' | 'lost-answer') => canvasApiWithSecondBulkFailing(sandbox, mode);

  for (const mode of ['refused', 'lost-answer'] as const) {
    it(`${mode}: the report says exactly what exists, and nothing is created twice`, async () => {
      const board = await newBoard(sandbox, `Faults ${mode}`);
      const { nodes, edges } = flow(30);
      const result = await callTool(faultyServer(mode), 'CanvasApi.CreateDiagram', { board_id: board, nodes, edges, layout: 'flow-right' });
      assert.equal(result.isError, false);
      const data = result.data as J;
      const firstTwenty = nodes.slice(0, 20).map((n) => n.id);
      const lastTen = nodes.slice(20).map((n) => n.id);
      assert.deepEqual(Object.keys(data.node_items), firstTwenty);
      assert.equal(data.failed.length, 1);
      assert.deepEqual(data.failed[0].nodes, lastTen);
      assert.equal(data.failed[0].outcome, mode === 'refused' ? 'not_created' : 'may_exist');
      assert.equal(data.failed[0].retry_safe, mode === 'refused');
      // Connectors only between created nodes; the others are listed as not sent.
      const inside = edges.filter((e) => firstTwenty.includes(e.from) && firstTwenty.includes(e.to));
      assert.deepEqual(
        data.connector_items.map((id: string | null) => id !== null),
        edges.map((e) => inside.includes(e)),
        'a connector ID for each edge between created nodes, null for the others',
      );
      assert.deepEqual(data.not_sent.edges, edges.flatMap((e, index) => (inside.includes(e) ? [] : [`edges[${index}]`])));
      assert.equal(data.not_sent.retry_safe, true);
      assert.equal(data.summary, `20 of 30 nodes and ${inside.length} of ${edges.length} connectors created${mode === 'lost-answer' ? '; 10 more items may exist (failed, may_exist).' : '.'}`);

      const items = await boardItems(sandbox, board);
      const texts = items.map((i) => i.data.content);
      assert.equal(bulkRequests(sandbox, board).length, mode === 'refused' ? 1 : 2, 'the failed transaction was not sent again');
      assert.equal(items.length, mode === 'refused' ? 20 : 30);
      assert.equal(new Set(texts).size, texts.length, 'no node twice');
      assert.deepEqual(new Set(items.filter((i) => firstTwenty.includes(nodes.find((n) => data.node_items[n.id] === i.id)?.id ?? '')).map((i) => i.id)), new Set(Object.values(data.node_items)));
      const connectors = await platform(sandbox, 'GET', `/v2/boards/${board}/connectors?limit=50`);
      assert.equal(connectors.data.length, inside.length);
    });
  }
});
