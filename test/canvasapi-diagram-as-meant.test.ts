/**
 * CreateDiagram takes its input as meant (issue 32, point 1), against the sandbox: without an
 * origin a diagram lands clear of everything on the board (the demo boards' items, frames whole)
 * and its answer says where; `nodes` without `layout` is drawn (flow-down with edges, grid
 * without); an edge end that is the bare ID of an item on the board connects to it, and the answer
 * says so; a bare ID that is no item is refused with nothing created. Work is counted in requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { PLACE_READS } from '../src/canvasapi/task-vocabulary.js';
import { callRecorded, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { boardItems, platform } from './support/sandbox-board.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}


/** Every item of a board with its box on the board (an item in a frame is placed from the frame's top-left corner). */
async function boxesOf(sandbox: RunningSandbox, boardId: string): Promise<Map<string, { item: J; box: Box }>> {
  const items = await boardItems(sandbox, boardId);
  const byId = new Map(items.map((item) => [String(item.id), item]));
  const boxes = new Map<string, { item: J; box: Box }>();
  const boxOf = (item: J): Box => {
    const width = item.geometry?.width ?? 0;
    const height = item.geometry?.height ?? width;
    const parent = item.parent ? byId.get(String(item.parent.id)) : undefined;
    const base = parent ? boxOf(parent) : { left: 0, top: 0 };
    const x = base.left + item.position.x;
    const y = base.top + item.position.y;
    return { left: x - width / 2, top: y - height / 2, right: x + width / 2, bottom: y + height / 2 };
  };
  for (const item of items) boxes.set(String(item.id), { item, box: boxOf(item) });
  return boxes;
}

const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const union = (boxes: Box[]): Box => ({
  left: Math.min(...boxes.map((b) => b.left)),
  top: Math.min(...boxes.map((b) => b.top)),
  right: Math.max(...boxes.map((b) => b.right)),
  bottom: Math.max(...boxes.map((b) => b.bottom)),
});

describe('CanvasApi.CreateDiagram takes its input as meant', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  let boards: { launchPlan: string; retro: string; payments: string };

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    const [launchPlan, retro, payments] = sandbox.canvasapi.demo!.boardIds as [string, string, string];
    boards = { launchPlan, retro, payments };
  });
  after(async () => {
    await sandbox?.close();
  });

  /** Draws without an origin and checks: nothing that was there is overlapped, `bounds` holds every new item, the reads are one page per 50 items. */
  async function drawClear(boardId: string, args: J): Promise<J> {
    const beforeItems = await boxesOf(sandbox, boardId);
    const result = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', { board_id: boardId, ...args });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    const afterItems = await boxesOf(sandbox, boardId);
    const added = [...afterItems].filter(([id]) => !beforeItems.has(id)).map(([, entry]) => entry);
    assert.ok(added.length > 0);
    for (const fresh of added) {
      for (const [id, old] of beforeItems) {
        assert.ok(!overlap(fresh.box, old.box), `new ${fresh.item.type} ${JSON.stringify(fresh.box)} overlaps ${old.item.type} ${id} ${JSON.stringify(old.box)} that was there`);
      }
    }
    // The answer says where it went: its bounds are the new items' box, on the board.
    const drawn = union(added.map((entry) => entry.box));
    for (const side of ['left', 'top', 'right', 'bottom'] as const) assert.ok(Math.abs(data.bounds[side] - drawn[side]) <= 1, `bounds.${side} ${data.bounds[side]} vs ${drawn[side]} drawn`);
    assert.match(data.placed, new RegExp(`^\\d+ new nodes? right of the ${beforeItems.size} items read on the board, clear of them$`));
    // Work: the board's items read once, one page per 50, and only the creates besides.
    const reads = result.sent.filter((r) => r.method === 'GET');
    assert.ok(reads.length >= 1 && reads.length <= Math.ceil(beforeItems.size / 50) + 1, `${reads.length} pages read`);
    assert.ok(reads.every((r) => r.path === `/v2/boards/${encodeURIComponent(boardId)}/items`));
    assert.ok(result.sent.every((r) => r.method === 'GET' || r.method === 'POST'));
    return data;
  }

  it('a Mermaid diagram with a subgraph, without an origin, on "Payments Architecture": clear of its shapes, and the answer says where', async () => {
    const data = await drawClear(boards.payments, { mermaid: 'flowchart LR\n  subgraph checkout [Checkout]\n    A[Cart] --> B[Pay]\n  end\n  B --> C[Receipt]' });
    assert.equal(data.summary, '3 of 3 nodes and 2 of 2 connectors created in 1 frame.');
    assert.ok(data.bounds.left > 800, `beside the board's drawing, to its right: ${JSON.stringify(data.bounds)}`);
  });

  it('a second diagram on the same board goes clear of the first too', async () => {
    await drawClear(boards.payments, { nodes: [{ id: 'x', text: 'Fraud check' }, { id: 'y', text: 'Score' }], edges: [{ from: 'x', to: 'y' }] });
  });

  it('on the retro board, a diagram in a frame of its own covers none of its sticky notes', async () => {
    await drawClear(boards.retro, { mermaid: 'flowchart TD\n  A[Vote] --> B[Discuss] --> C[Decide]', frame_title: 'Retro flow' });
  });

  it('on the launch plan, frames count whole: clear of the frame and of what is in it', async () => {
    await drawClear(boards.launchPlan, { nodes: [{ id: 'a', text: 'Go / no-go' }, { id: 'b', text: 'Launch' }], edges: [{ from: 'a', to: 'b' }], frame_title: 'Launch day' });
  });

  it('an empty board: at 0,0, after one read', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Empty' })).id as string;
    const result = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', { board_id: board, nodes: [{ id: 'a', text: 'A' }] });
    const data = result.data as J;
    assert.equal(data.placed, '1 new node at 0,0: the board has no items');
    assert.deepEqual(data.bounds, { left: 0, top: 0, right: 220, bottom: 110 });
    assert.equal(result.sent.filter((r) => r.method === 'GET').length, 1);
  });

  it('a board with room at 0,0 keeps the diagram there', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Far away' })).id as string;
    await platform(sandbox, 'POST', `/v2/boards/${board}/shapes`, { data: { content: 'far', shape: 'rectangle' }, position: { x: -3000, y: -3000 }, geometry: { width: 200, height: 100 } });
    const data = (await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', { board_id: board, nodes: [{ id: 'a', text: 'A' }] })).data as J;
    assert.equal(data.placed, '1 new node at 0,0, clear of the 1 item read on the board');
    assert.deepEqual(data.bounds, { left: 0, top: 0, right: 220, bottom: 110 });
  });

  it(`a board too big to read: ${PLACE_READS.pages} pages read, the diagram placed clear of those, and the answer says so`, async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Crowded' })).id as string;
    for (let batch = 0; batch < 26; batch++) {
      await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, Array.from({ length: 20 }, (_, i) => ({ type: 'shape', data: { content: `s${batch * 20 + i}`, shape: 'rectangle' }, position: { x: i * 250, y: batch * 150 }, geometry: { width: 200, height: 100 } })));
    }
    const result = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', { board_id: board, nodes: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], edges: [{ from: 'a', to: 'b' }] });
    const data = result.data as J;
    assert.equal(result.sent.filter((r) => r.method === 'GET').length, PLACE_READS.pages, 'the pages the budget gives placement, no more');
    assert.equal(data.placed, '2 new nodes right of the 500 items read on the board (the first 500; the rest were not read), clear of them');
    assert.ok(data.bounds.left >= 19 * 250 + 100 + 200, 'right of everything read');
  });

  it('an explicit origin keeps its place: no reads, no bounds', async () => {
    const result = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', { board_id: boards.payments, nodes: [{ id: 'a', text: 'A' }], origin_x: -800, origin_y: 0 });
    const data = result.data as J;
    assert.equal(result.sent.filter((r) => r.method === 'GET').length, 0);
    assert.equal(data.placed, undefined);
    assert.equal(data.bounds, undefined);
    const created = (await boxesOf(sandbox, boards.payments)).get(data.node_items.a)!;
    assert.deepEqual([created.item.position.x, created.item.position.y], [-800 + 110, 55], 'its top-left corner at the origin, over what is there as asked');
  });

  it('nodes without layout: a flow down when there are edges, a grid when there are none', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Defaults' })).id as string;
    const flow = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', { board_id: board, nodes: ['a', 'b', 'c'].map((id) => ({ id, text: id })), edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }] });
    assert.equal(flow.isError, false, JSON.stringify(flow.data));
    const items = await boxesOf(sandbox, board);
    const at = (id: string) => items.get((flow.data as J).node_items[id])!.item.position;
    assert.ok(at('a').x === at('b').x && at('b').x === at('c').x && at('a').y < at('b').y && at('b').y < at('c').y, 'one column, top to bottom');
    const grid = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', { board_id: board, nodes: ['p', 'q', 'r', 's'].map((id) => ({ id, text: id })) });
    assert.equal(grid.isError, false, JSON.stringify(grid.data));
    const cells = await boxesOf(sandbox, board);
    const placed = Object.values((grid.data as J).node_items as Record<string, string>).map((id) => cells.get(id)!.item.position);
    assert.equal(new Set(placed.map((p) => p.x)).size, 2, 'two columns');
    assert.equal(new Set(placed.map((p) => p.y)).size, 2, 'two rows');
  });

  it('a bare item ID as an edge end connects to that item, read once, and the answer says so', async () => {
    const before = await boxesOf(sandbox, boards.payments);
    const review = [...before.values()].find((entry) => entry.item.data?.content === 'Manual review')!.item;
    const id = String(review.id);
    const result = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', {
      board_id: boards.payments,
      nodes: [{ id: 'escalate', text: 'Escalate' }, { id: 'close', text: 'Close' }],
      edges: [{ from: id, to: 'escalate', label: 'too high' }, { from: 'escalate', to: 'close' }, { from: 'close', to: id }],
    });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '2 of 2 nodes and 3 of 3 connectors created.');
    assert.deepEqual(data.read_as_items, [`edges[0].from, edges[2].to: "${id}" is no node's id, read as item:${id}`]);
    assert.match(data.placed, new RegExp(`^2 new nodes beside item ${id} "Manual review", clear of the \\d+ items read$`));
    const connectors = (await platform(sandbox, 'GET', `/v2/boards/${boards.payments}/connectors?limit=50`)).data as J[];
    const byId = new Map(connectors.map((c) => [c.id, c]));
    assert.equal(byId.get(data.connector_items[0]).startItem.id, id);
    assert.equal(byId.get(data.connector_items[2]).endItem.id, id);
    // The item read once: its lookup serves the placement too.
    assert.equal(result.sent.filter((r) => r.method === 'GET' && r.path.endsWith(`/items/${id}`)).length, 1);
    // Placed clear of what was there.
    const after = await boxesOf(sandbox, boards.payments);
    for (const node of ['escalate', 'close']) {
      const box = after.get(data.node_items[node])!.box;
      for (const [otherId, old] of before) assert.ok(!overlap(box, old.box), `${node} overlaps ${otherId}`);
    }
  });

  it('a bare ID that is no item is refused naming its edge, with nothing created: one read per distinct ID', async () => {
    const result = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', {
      board_id: boards.payments,
      nodes: [{ id: 'a', text: 'A' }],
      edges: [{ from: '999000111', to: 'a' }, { from: 'a', to: '999000111' }],
    });
    assert.equal(result.isError, true);
    assert.equal(result.data.kind, 'invalid_input');
    const issues = result.data.issues as J[];
    assert.deepEqual(issues.map((i) => i.parameter), ['edges[0].from', 'edges[1].to']);
    assert.match(issues[0].problem, /^"999000111" is neither the id of a node nor an item of this board; the nodes are "a" \(an item already on the board is item:<its ID>, or its ID alone/);
    assert.deepEqual(result.sent.map((r) => `${r.method} ${r.path}`), [`GET /v2/boards/${encodeURIComponent(boards.payments)}/items/999000111`], 'one read, nothing created');
  });

  it('a bare ID beside another mistake: refused at once, nothing read', async () => {
    const result = await callRecorded(sandbox, server, 'CanvasApi.CreateDiagram', {
      board_id: boards.payments,
      nodes: [{ id: 'a', text: 'A', color: 'yellow' }],
      edges: [{ from: '999000111', to: 'a' }],
    });
    assert.equal(result.isError, true);
    assert.deepEqual((result.data.issues as J[]).map((i) => i.parameter), ['nodes[0].color', 'edges[0].from']);
    assert.equal(result.sent.length, 0);
  });
});
