/**
 * The diagram round trip as text against the sandbox: a flow drawn with CreateDiagram in a frame,
 * read with ReadBoard `format: "mermaid"`, edited here (rename, remove, add a node, add and remove
 * an edge), dry run (nothing changes), applied, and read back by raw HTTP: the renamed item keeps
 * its ID and place, the removed one and its connectors are gone, the rest is untouched, the new
 * node is in the frame clear of everything, the connectors are as edited. A board changed since
 * the read is refused naming the change; an ID outside the diagram is refused with its line;
 * platform text that would break Mermaid round-trips; every request is valid for the spec; and
 * the cost against the contract's tools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listTools, type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { parseMermaid } from '../src/canvasapi/tasks/mermaid.js';
import fc from 'fast-check';
import { flatText } from '../src/core/tools/line-text.js';
import { decodeMermaidText, mermaidText } from '../src/canvasapi/tasks/board-mermaid.js';
import { editDiagramDefinition } from '../src/canvasapi/tasks/index.js';
import { callTool, canvasApiServerFor, canvasApiWithSecondBulkFailing, startTestSandbox } from './support/harness.js';
import { assertCostRow, costTally } from './support/task-cost.js';
import { boardItems, platform } from './support/sandbox-board.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const FLOW = ['flowchart TD', '  A[Start] --> B{Check}', '  B -->|ok| C(Ship)', '  B -->|no| D[Retry]', '  D --> B', '  C --> E([Done])'].join('\n');

interface Box { left: number; top: number; right: number; bottom: number }
const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
/** The platform's content as plain text (what CreateDiagram and EditDiagram write: escaped HTML). */
const plain = (content: string) => content.replace(/<\/?p>/g, '').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Every connector of a board, read straight from the sandbox. */
async function boardConnectors(sandbox: RunningSandbox, board: string): Promise<J[]> {
  const all: J[] = [];
  let cursor = '';
  do {
    const page = await platform(sandbox, 'GET', `/v2/boards/${board}/connectors?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
    all.push(...page.data);
    cursor = page.cursor ?? '';
  } while (cursor);
  return all;
}

/** A board's whole state by raw HTTP: items and connectors by ID. */
async function snapshot(sandbox: RunningSandbox, board: string) {
  return { items: new Map((await boardItems(sandbox, board)).map((i) => [i.id, i])), connectors: new Map((await boardConnectors(sandbox, board)).map((c) => [c.id, c])) };
}

/** Each item's box on the board: a frame's children are placed from its top-left corner. */
function absoluteBox(item: J, byId: Map<string, J>): Box {
  const w = item.geometry?.width ?? 0;
  const h = item.geometry?.height ?? w;
  let { x, y } = item.position;
  if (item.parent?.id) {
    const frame = byId.get(item.parent.id);
    x += frame.position.x - frame.geometry.width / 2;
    y += frame.position.y - frame.geometry.height / 2;
  }
  return { left: x - w / 2, top: y - h / 2, right: x + w / 2, bottom: y + h / 2 };
}

const writes = (sandbox: RunningSandbox, from: number) => sandbox.requests.slice(from).filter((r) => r.platform === 'canvasapi' && r.method !== 'GET');

describe('platform text in Mermaid (board-mermaid.ts)', () => {
  it('any flat text, written in a node or a caption, is read back as itself and stays one node or one label', () => {
    const text = fc.string({ unit: fc.constantFrom('"', '\\', '#', '|', '%', '<', '>', '`', ']', '[', ')', '(', '}', '{', ';', '-', '>', '=', '.', ':', '&', ' ', 'a', '1', 'é', '😀', '#34;', '-->', '%%', '"]', 'end', '@'), maxLength: 40 })
      .map((raw) => flatText(raw))
      .filter((flat) => flat.length > 0);
    fc.assert(
      fc.property(text, text, (node, caption) => {
        const chart = parseMermaid(['flowchart TB', `  i1[${mermaidText(node)}]:::sticky_note`, `  i2(${mermaidText(caption)})`, `  i1 c9@-->|${mermaidText(caption)}| i2`].join('\n'), { ids: true });
        assert.deepEqual(chart.nodes.map((n) => [n.id, decodeMermaidText(n.text)]), [['i1', node], ['i2', caption]]);
        assert.equal(chart.nodes[0]!.className, 'sticky_note');
        assert.deepEqual(chart.edges.map((e) => [e.id, e.from, e.to, decodeMermaidText(e.label ?? '')]), [['c9', 'i1', 'i2', caption]]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('CanvasApi diagram round trip as text, against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  /** A board with an item outside, and the flow drawn in a frame: the frame, and node letter -> item ID. */
  async function drawnFlow(name: string): Promise<{ board: string; frame: string; ids: Record<string, string>; outside: string }> {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name })).id as string;
    const outside = (await platform(sandbox, 'POST', `/v2/boards/${board}/sticky_notes`, { data: { content: '<p>Elsewhere</p>' }, position: { x: -900, y: 0 } })).id as string;
    const drawn = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, frame_title: 'Order flow', mermaid: FLOW });
    assert.equal(drawn.isError, false, JSON.stringify(drawn.data));
    const data = drawn.data as J;
    return { board, frame: data.frame.id, ids: data.node_items, outside };
  }

  async function readMermaid(board: string, frame: string): Promise<string[]> {
    const read = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, frame_id: frame, format: 'mermaid' });
    assert.equal(read.isError, false, JSON.stringify(read.data));
    return (read.data as J).mermaid as string[];
  }

  it('lists EditDiagram in the tasks toolset only', () => {
    const names = (selections: J[]) => listTools(server, { selections }).map((tool) => tool.name);
    assert.ok(names([{ toolsets: ['tasks'] }]).includes('CanvasApi.EditDiagram'));
    assert.ok(!names([{ profile: 'everyday' }]).includes('CanvasApi.EditDiagram'));
    assert.ok(!names([]).includes('CanvasApi.EditDiagram'));
  });

  it('reads a frame as Mermaid that keeps every item and connector ID, as the board has them', async () => {
    const { board, frame, ids } = await drawnFlow('Read as text');
    const lines = await readMermaid(board, frame);
    const state = await snapshot(sandbox, board);
    assert.match(lines[0]!, new RegExp(`^%% toolservers board=${board.replace(/[=+]/g, '\\$&')} frame=${frame} read=\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z state=[0-9a-f]{16}$`));
    assert.equal(lines[1], 'flowchart TB');
    const chart = parseMermaid(lines.join('\n'), { ids: true });
    // One node per item of the frame, its text the item's.
    const inFrame = [...state.items.values()].filter((i) => i.parent?.id === frame);
    assert.deepEqual(chart.nodes.map((n) => n.id).sort(), inFrame.map((i) => `i${i.id}`).sort());
    for (const node of chart.nodes) assert.equal(decodeMermaidText(node.text), plain(state.items.get(node.id.slice(1)).data.content));
    assert.equal(chart.nodes.find((n) => n.id === `i${ids.B}`)!.shape, 'rhombus');
    // One edge per connector, with its ID, ends and caption.
    const expected = [...state.connectors.values()].map((c) => `c${c.id} i${c.startItem.id} i${c.endItem.id} ${c.captions?.[0] ? plain(c.captions[0].content) : ''}`).sort();
    assert.deepEqual(chart.edges.map((e) => `${e.id} ${e.from} ${e.to} ${e.label ?? ''}`).sort(), expected);
  });

  it('dry run plans the edit and changes nothing; applying renames, removes, adds and rewires exactly as edited', async () => {
    const { board, frame, ids, outside } = await drawnFlow('Round trip');
    const lines = await readMermaid(board, frame);
    const before = await snapshot(sandbox, board);
    const connectorOf = (from: string, to: string) => [...before.connectors.values()].find((c) => c.startItem.id === ids[from] && c.endItem.id === ids[to])!;
    const retryEdges = [connectorOf('B', 'D'), connectorOf('D', 'B')];
    const dropped = connectorOf('C', 'E');
    // The edit: Check -> Validate; Retry and its edges out; C -> E out; A -> C and C -> Notify in.
    const edited = lines
      .map((line) => (line.startsWith(`  i${ids.B}{`) ? `  i${ids.B}{"Validate"}` : line))
      .filter((line) => !line.includes(`i${ids.D}`) && !line.includes(`c${dropped.id}@`))
      .concat([`  n1["Notify #34;customer#34;"]`, `  i${ids.C} -->|"sent"| n1`, `  i${ids.A} --> i${ids.C}`]);
    const text = edited.join('\n');

    const sent = sandbox.requests.length;
    const dry = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text, dry_run: true });
    assert.equal(dry.isError, false, JSON.stringify(dry.data));
    const plan = (dry.data as J).plan as string[];
    assert.deepEqual(writes(sandbox, sent), [], 'a dry run sends nothing but reads');
    assert.deepEqual(await snapshot(sandbox, board), before, 'the board is as it was');
    assert.equal(plan.length, 8, plan.join('\n'));
    assert.ok(plan.includes(`rename i${ids.B} shape "Check" -> "Validate"`), plan.join('\n'));
    assert.ok(plan.includes(`remove i${ids.D} shape "Retry"`));
    for (const c of retryEdges) assert.ok(plan.includes(`remove c${c.id} i${c.startItem.id} -> i${c.endItem.id} (with i${ids.D})`), plan.join('\n'));
    assert.ok(plan.includes(`remove c${dropped.id} i${ids.C} -> i${ids.E}`));
    assert.ok(plan.some((line) => line.startsWith(`add n1 rectangle "Notify \\"customer\\"" beside i${ids.C} in frame ${frame} at `)), plan.join('\n'));
    assert.ok(plan.includes(`add edge i${ids.C} -> n1 caption "sent"`));
    assert.ok(plan.includes(`add edge i${ids.A} -> i${ids.C}`));
    assert.equal((dry.data as J).unchanged, 3);

    const applied = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text });
    assert.equal(applied.isError, false, JSON.stringify(applied.data));
    const data = applied.data as J;
    assert.equal(data.summary, '8 of 8 changes made.');
    // The audit line names what the edit created, changed and deleted (IDs only).
    const audit = editDiagramDefinition.auditTargets!({ board_id: board } as never, data) as J;
    assert.deepEqual({ ...audit, deleted_ids: [...audit.deleted_ids].sort() }, {
      board_id: board,
      created_ids: [data.created.n1],
      updated_ids: [ids.B],
      deleted_ids: [...[...retryEdges, dropped].map((c) => c.id), ids.D].sort(),
    });
    assert.equal(data.failed, undefined);
    assert.equal(data.not_sent, undefined);
    const after = await snapshot(sandbox, board);
    const created = data.created.n1 as string;
    // Renamed in place: same ID, place and size, new text.
    const renamed = after.items.get(ids.B!);
    assert.equal(plain(renamed.data.content), 'Validate');
    assert.deepEqual([renamed.position, renamed.geometry, renamed.parent], [before.items.get(ids.B!).position, before.items.get(ids.B!).geometry, before.items.get(ids.B!).parent]);
    // Removed with its connectors.
    assert.ok(!after.items.has(ids.D!));
    for (const c of [...retryEdges, dropped]) assert.ok(!after.connectors.has(c.id), `${c.id} removed`);
    // Untouched: the other items exactly as they were (content, place, modifiedAt), and the item outside.
    for (const key of ['A', 'C', 'E']) assert.deepEqual(after.items.get(ids[key]!), before.items.get(ids[key]!), `${key} untouched`);
    assert.deepEqual(after.items.get(outside), before.items.get(outside));
    assert.deepEqual(after.items.get(frame), before.items.get(frame));
    // The new node: in the frame, wholly inside it, overlapping nothing.
    const node = after.items.get(created);
    assert.equal(node.type, 'shape');
    assert.equal(plain(node.data.content), 'Notify "customer"');
    assert.equal(node.parent?.id, frame);
    const frameItem = after.items.get(frame);
    assert.ok(node.position.x - node.geometry.width / 2 >= 0 && node.position.x + node.geometry.width / 2 <= frameItem.geometry.width);
    assert.ok(node.position.y - node.geometry.height / 2 >= 0 && node.position.y + node.geometry.height / 2 <= frameItem.geometry.height);
    const box = absoluteBox(node, after.items);
    for (const other of after.items.values()) if (other.id !== created && other.id !== frame) assert.ok(!overlap(box, absoluteBox(other, after.items)), `the new node clear of ${other.id}`);
    // Connectors as edited: the kept ones with their IDs, the new ones between the right items.
    const pairs = (connectors: Map<string, J>) => [...connectors.values()].map((c) => `${c.startItem.id}>${c.endItem.id}`).sort();
    const kept = [...before.connectors.values()].filter((c) => ![...retryEdges, dropped].includes(c));
    for (const c of kept) assert.deepEqual(after.connectors.get(c.id), c, `${c.id} untouched`);
    assert.deepEqual(pairs(after.connectors), [...kept.map((c) => `${c.startItem.id}>${c.endItem.id}`), `${ids.C}>${created}`, `${ids.A}>${ids.C}`].sort());
    const caption = [...after.connectors.values()].find((c) => c.endItem.id === created)!.captions[0].content;
    assert.equal(plain(caption), 'sent');
    // Read again: the text is the edited one, with the new IDs.
    const again = parseMermaid((await readMermaid(board, frame)).join('\n'), { ids: true });
    assert.deepEqual(again.nodes.map((n) => decodeMermaidText(n.text)).sort(), ['Notify "customer"', 'Ship', 'Start', 'Validate', 'Done'].sort());
    // The same text again is refused: the board changed since that read (by this very edit).
    const twice = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text });
    assert.equal((twice.data as J).applied, false);
  });

  it('a diagram changed since the read is refused naming the change, and nothing is sent', async () => {
    const { board, frame, ids } = await drawnFlow('Changed meanwhile');
    const lines = await readMermaid(board, frame);
    await platform(sandbox, 'PATCH', `/v2/boards/${board}/shapes/${ids.A}`, { data: { content: 'Begin' } });
    const added = (await platform(sandbox, 'POST', `/v2/boards/${board}/sticky_notes`, { data: { content: 'New idea' }, position: { x: 100, y: 100 }, parent: { id: frame } })).id as string;
    const before = await snapshot(sandbox, board);
    const sent = sandbox.requests.length;
    const text = lines.map((line) => (line.startsWith(`  i${ids.C}(`) ? `  i${ids.C}("Deliver")` : line)).join('\n');
    const result = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.applied, false);
    assert.match(data.summary, /^Nothing was changed/);
    assert.ok(data.changed_since_read.some((line: string) => line.startsWith(`i${ids.A} shape "Begin": modified since the read`)), data.changed_since_read.join('\n'));
    assert.ok(data.changed_since_read.some((line: string) => line.startsWith(`i${added} sticky_note "New idea": added since the read`)), data.changed_since_read.join('\n'));
    assert.match(data.next_step, /Read the diagram again/);
    assert.deepEqual(writes(sandbox, sent), []);
    assert.deepEqual(await snapshot(sandbox, board), before);
  });

  it('an ID outside the diagram, a connector joined to other ends and a text without its header are refused with the line, nothing sent', async () => {
    const { board, frame, ids, outside } = await drawnFlow('Out of scope');
    const lines = await readMermaid(board, frame);
    const sent = sandbox.requests.length;
    const cases: [string, RegExp][] = [
      [[...lines, `  i${outside}["Elsewhere"]`].join('\n'), new RegExp(`line ${lines.length + 1}: i${outside} is not an item of this diagram`)],
      [[...lines, `  i${ids.A} --> i${outside}`].join('\n'), new RegExp(`line ${lines.length + 1}: i${outside} is not an item of this diagram`)],
      [lines.map((l) => l.replace(new RegExp(`^  i${ids.A} (c\\d+@)--> i${ids.B}$`), `  i${ids.A} $1--> i${ids.C}`)).join('\n'), /joins i\d+ -> i\d+ on the board; keep its ends/],
      [lines.slice(1).join('\n'), /no \\"%% toolservers \.\.\.\\" line/],
      [[...lines, '  x -->'].join('\n'), new RegExp(`line ${lines.length + 1}: a node is missing`)],
    ];
    for (const [text, problem] of cases) {
      const result = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text });
      assert.equal(result.isError, true, text.slice(-80));
      assert.equal((result.data as J).kind, 'invalid_input');
      assert.equal((result.data as J).issues[0].parameter, 'mermaid');
      assert.match(JSON.stringify((result.data as J).issues), problem);
    }
    const other = await callTool(server, 'CanvasApi.EditDiagram', { board_id: 'uXjVOther0=', mermaid: lines.join('\n') });
    assert.equal((other.data as J).issues[0].parameter, 'board_id');
    const format = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, format: 'mermaid' });
    assert.match(JSON.stringify(format.data), /"parameter":"format".*frame_id/);
    const paging = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, frame_id: frame, format: 'mermaid', max_items: 5 });
    assert.equal((paging.data as J).issues[0].parameter, 'max_items');
    assert.deepEqual(writes(sandbox, sent), []);
  });

  it('platform text that would break Mermaid round-trips: read, left as it is, nothing changes; its neighbour renamed alone', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Hostile text' })).id as string;
    const frame = (await platform(sandbox, 'POST', `/v2/boards/${board}/frames`, { data: { title: 'F', format: 'custom', type: 'freeform' }, position: { x: 0, y: 0 }, geometry: { width: 2000, height: 1400 } })).id as string;
    const hostile = 'a"] --> B[x] %% note; end\\ |pipe| #35; `tick` <b>';
    const content = hostile.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    const [weird, plainItem] = (await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, [
      { type: 'shape', data: { content: `<p>${content}</p><p>second line</p>`, shape: 'rectangle' }, position: { x: 400, y: 300 }, geometry: { width: 300, height: 150 }, parent: { id: frame } },
      { type: 'sticky_note', data: { content: 'Plain' }, position: { x: 400, y: 800 }, parent: { id: frame } },
    ])).data.map((i: J) => i.id);
    const connector = (await platform(sandbox, 'POST', `/v2/boards/${board}/connectors`, { startItem: { id: weird }, endItem: { id: plainItem }, captions: [{ content: 'yes | no -->' }] })).id as string;
    const lines = await readMermaid(board, frame);
    // Each item one node line, each connector one edge line: no text made a line, node or edge of its own.
    assert.equal(lines.length, 5, lines.join('\n'));
    const chart = parseMermaid(lines.join('\n'), { ids: true });
    assert.deepEqual(chart.nodes.map((n) => n.id).sort(), [`i${weird}`, `i${plainItem}`].sort());
    assert.equal(decodeMermaidText(chart.nodes.find((n) => n.id === `i${weird}`)!.text), `${hostile} second line`);
    assert.equal(chart.nodes.find((n) => n.id === `i${plainItem}`)!.className, 'sticky_note');
    assert.deepEqual(chart.edges.map((e) => [e.id, decodeMermaidText(e.label ?? '')]), [[`c${connector}`, 'yes | no -->']]);
    const before = await snapshot(sandbox, board);
    const sent = sandbox.requests.length;
    const same = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: lines.join('\n') });
    assert.equal(same.isError, false, JSON.stringify(same.data));
    assert.equal((same.data as J).summary, 'Nothing to change: the text is the diagram as it is.');
    assert.deepEqual(writes(sandbox, sent), []);
    const renamed = lines.map((l) => (l.startsWith(`  i${plainItem}[`) ? `  i${plainItem}["Plain, edited"]:::sticky_note` : l)).join('\n');
    const result = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: renamed });
    assert.equal((result.data as J).summary, '1 of 1 change made.', JSON.stringify(result.data));
    const patches = writes(sandbox, sent);
    assert.deepEqual(patches.map((r) => [r.method, r.path, r.body]), [['PATCH', `/v2/boards/${encodeURIComponent(board)}/sticky_notes/${plainItem}`, { data: { content: 'Plain, edited' } }]]);
    const after = await snapshot(sandbox, board);
    assert.deepEqual(after.items.get(weird), before.items.get(weird));
    assert.deepEqual(after.connectors.get(connector), before.connectors.get(connector));
  });

  it('reads the shapes connected to a query\'s match when no frame is given, and edits them', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Connected' })).id as string;
    const drawn = (await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: 'flowchart LR\n P[Plan] --> Q[Build] --> R[Test]\n S[Unrelated]' })).data as J;
    const read = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, query: 'build', format: 'mermaid' });
    assert.equal(read.isError, false, JSON.stringify(read.data));
    const lines = (read.data as J).mermaid as string[];
    assert.match(lines[0]!, new RegExp(`seeds=${drawn.node_items.Q} read=`));
    assert.equal(lines[1], 'flowchart LR');
    const chart = parseMermaid(lines.join('\n'), { ids: true });
    assert.deepEqual(chart.nodes.map((n) => n.id).sort(), ['P', 'Q', 'R'].map((k) => `i${drawn.node_items[k]}`).sort());
    const text = lines.map((l) => (l.startsWith(`  i${drawn.node_items.R}[`) ? `  i${drawn.node_items.R}["Verify"]` : l)).join('\n');
    const result = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text });
    assert.equal((result.data as J).summary, '1 of 1 change made.', JSON.stringify(result.data));
    assert.equal(plain((await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${drawn.node_items.R}`)).data.content), 'Verify');
    assert.equal(plain((await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${drawn.node_items.S}`)).data.content), 'Unrelated');
  });

  it('every request sent (by the tools and the set-up) matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    for (const [method, end] of [['PATCH', '/shapes/'], ['PATCH', '/sticky_notes/'], ['DELETE', '/connectors/'], ['DELETE', '/items/'], ['POST', '/items/bulk'], ['POST', '/connectors']]) {
      assert.ok(requests.some((r) => r.method === method && r.path.includes(end!)), `a ${method} ${end} was checked`);
    }
  });
});

describe('EditDiagram when its bulk create fails', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  for (const mode of ['refused', 'lost-answer'] as const) {
    it(`${mode}: the rename is done, the new node reported as it may be, its edge not sent, and nothing is ever created twice`, async () => {
      // The drawing is the server's first bulk create; the edit's is the second, which fails.
      const server = canvasApiWithSecondBulkFailing(sandbox, mode);
      const board = (await platform(sandbox, 'POST', '/v2/boards', { name: `Edit faults ${mode}` })).id as string;
      const drawn = (await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, frame_title: 'Flow', mermaid: FLOW })).data as J;
      const lines = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, frame_id: drawn.frame.id, format: 'mermaid' })).data.mermaid as string[];
      const ids = drawn.node_items as Record<string, string>;
      const text = lines.map((l) => (l.startsWith(`  i${ids.B}{`) ? `  i${ids.B}{"Validate"}` : l)).concat(['  n1["Notify"]', `  i${ids.C} --> n1`]).join('\n');
      const result = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      const data = result.data as J;
      assert.deepEqual(data.done, [`rename i${ids.B} shape "Check" -> "Validate"`]);
      assert.equal(data.failed.length, 1);
      assert.match(data.failed[0].change, /^add n1 rectangle "Notify" beside i\d+ in frame \d+ at /);
      assert.equal(data.failed[0].outcome, mode === 'refused' ? 'not_done' : 'may_have_happened');
      assert.equal(data.failed[0].retry_safe, mode === 'refused');
      assert.deepEqual(data.not_sent, [`add edge i${ids.C} -> n1 (an end was not created)`]);
      assert.equal(data.created, undefined);
      assert.match(data.next_step, /Do not send this text again\. Read the diagram again/);
      if (mode === 'lost-answer') assert.match(data.next_step, /may_have_happened/);
      const bulks = () => sandbox.requests.filter((r) => r.method === 'POST' && r.path === `/v2/boards/${encodeURIComponent(board)}/items/bulk`).length;
      assert.equal(bulks(), mode === 'refused' ? 1 : 2, 'the failed transaction was not sent again');
      const notify = (await boardItems(sandbox, board)).filter((i) => i.data?.content && plain(i.data.content) === 'Notify');
      assert.equal(notify.length, mode === 'refused' ? 0 : 1);
      // The same text again is refused (the edit changed the diagram): no second Notify.
      const again = await callTool(server, 'CanvasApi.EditDiagram', { board_id: board, mermaid: text });
      assert.equal((again.data as J).applied, false);
      assert.equal(bulks(), mode === 'refused' ? 1 : 2);
      // Read again: a Notify that exists shows with its ID, so the next edit keeps it instead of adding another.
      const reread = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, frame_id: drawn.frame.id, format: 'mermaid' })).data.mermaid as string[];
      assert.equal(reread.filter((l) => l.includes('"Notify"')).length, notify.length);
    });
  }
});

describe('Rename and remove a step against the contract tools: calls and tokens', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  // One pinned clock for the platform and the server: the text's read time and state, and so its tokens, are the same each run.
  const now = () => new Date('2026-05-06T12:00:00Z');
  before(async () => {
    sandbox = await startTestSandbox({ canvasapi: { now } });
    server = canvasApiServerFor(sandbox.canvasapi, { now });
  });
  after(async () => {
    await sandbox?.close();
  });

  it('"Rename Check to Validate, and remove the Retry step": the contract plan vs 2 calls, the figures docs/tasks.md gives', async () => {
    const { cost, call } = costTally(server);
    const draw = async (name: string) => {
      const board = (await platform(sandbox, 'POST', '/v2/boards', { name })).id as string;
      const drawn = (await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, frame_title: 'Order flow', mermaid: FLOW })).data as J;
      return { board, frame: drawn.frame.id as string, ids: drawn.node_items as Record<string, string> };
    };
    // The contract plan: the frame's items (to find Check and Retry), the update's schema, the update, the delete (the platform drops Retry's connectors).
    const first = await draw('Contract plan');
    const listed = await call('contract', 'CanvasApi.GetItemsWithinFrame', { board_id: first.board, frame_id: first.frame, item_retrieval_limit: '50' });
    const find = (text: string) => (listed.data as J[]).find((item) => plain(item.data.content) === text).id;
    await call('contract', 'CanvasApi.UpdateBoardShape', { mode: 'get_request_schema' });
    await call('contract', 'CanvasApi.UpdateBoardShape', { mode: 'execute', board_identifier: first.board, shape_item_id: find('Check'), request_body: { data: { content: 'Validate' } } });
    await call('contract', 'CanvasApi.DeleteShapeFromCanvasBoard', { board_id: first.board, item_id: find('Retry') });
    // The task tools: read as text, apply the edited text.
    const second = await draw('Task tools');
    const lines = (await call('task', 'CanvasApi.ReadBoard', { board_id: second.board, frame_id: second.frame, format: 'mermaid' })).mermaid as string[];
    const text = lines.map((l) => l.replace('"Check"', '"Validate"')).filter((l) => !l.includes(`i${second.ids.D}`)).join('\n');
    const done = await call('task', 'CanvasApi.EditDiagram', { board_id: second.board, mermaid: text });
    assert.equal(done.summary, '4 of 4 changes made.');
    for (const [board, ids] of [[first.board, first.ids], [second.board, second.ids]] as const) {
      const items = await boardItems(sandbox, board);
      assert.equal(plain(items.find((i) => i.id === ids.B).data.content), 'Validate');
      assert.ok(!items.some((i) => i.id === ids.D));
      assert.equal((await boardConnectors(sandbox, board)).length, 3);
    }
    assert.equal(cost.task.calls, 2);
    assert.ok(cost.task.tokens < cost.contract.tokens, `${cost.task.tokens} vs ${cost.contract.tokens}`);
    assertCostRow('Rename Check to Validate, and remove the Retry step', cost, 'ReadBoard + EditDiagram');
  });
});
