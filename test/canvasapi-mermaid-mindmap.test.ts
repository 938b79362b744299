/**
 * CreateDiagram with Mermaid mindmap text: the reader on Mermaid's documented example (hierarchy
 * by indentation, node shapes, icons, classes, markdown strings), refusals by line; then the
 * drawing against the sandbox as the platform's mind-map nodes, read back by raw HTTP: the parent
 * links reproduce the hierarchy, texts right, parents created before children, a few at a time,
 * placed clear of the board's items, every request valid for the official spec; a failure part-way
 * reported with its branch not sent; and the cost against the contract's one call per node.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { MermaidError } from '../src/canvasapi/tasks/mermaid.js';
import { parseMindmap } from '../src/canvasapi/tasks/mermaid-mindmap.js';
import { layOutMindmap } from '../src/canvasapi/tasks/draw-mindmap.js';
import { viewDataOf } from '../src/core/tools/result-view.js';
import { CallBudget, WorkScope } from '../src/core/call-budget.js';
import { createAnyDiagram } from '../src/canvasapi/tasks/mermaid-kinds.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { assertCostRow, costTally } from './support/task-cost.js';
import { boardItems, platform } from './support/sandbox-board.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';
import { createDiagramBudget, MERMAID_CHARS } from '../src/canvasapi/task-vocabulary.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any


/** Mermaid's documentation, "Mindmap": its first example. */
const DOCS_EXAMPLE = `mindmap
  root((mindmap))
    Origins
      Long history
      ::icon(fa fa-book)
      Popularisation
        British popular psychology author Tony Buzan
    Research
      On effectiveness<br/>and features
      On Automatic creation
        Uses
            Creative techniques
            Strategic planning
            Argument mapping
    Tools
      Pen and paper
      Mermaid`;

/** Each node's text with its parent's text, as the example writes them. */
const HIERARCHY: [string, string | null][] = [
  ['mindmap', null],
  ['Origins', 'mindmap'],
  ['Long history', 'Origins'],
  ['Popularisation', 'Origins'],
  ['British popular psychology author Tony Buzan', 'Popularisation'],
  ['Research', 'mindmap'],
  ['On effectiveness\nand features', 'Research'],
  ['On Automatic creation', 'Research'],
  ['Uses', 'On Automatic creation'],
  ['Creative techniques', 'Uses'],
  ['Strategic planning', 'Uses'],
  ['Argument mapping', 'Uses'],
  ['Tools', 'mindmap'],
  ['Pen and paper', 'Tools'],
  ['Mermaid', 'Tools'],
];

const refusal = (text: string): string[] => {
  try {
    parseMindmap(text);
  } catch (error) {
    if (error instanceof MermaidError) return error.problems;
    throw error;
  }
  assert.fail('expected a refusal');
};

describe('the mindmap reader', () => {
  it('reads the documented example: the hierarchy by indentation, texts, what is not drawn', () => {
    const d = parseMindmap(DOCS_EXAMPLE);
    assert.deepEqual(d.nodes.map((n) => [n.text, n.parent === undefined ? null : d.nodes[n.parent]!.text]), HIERARCHY);
    assert.deepEqual(d.nodes.map((n) => n.key).slice(0, 5), ['line 2', 'line 3', 'line 4', 'line 6', 'line 7']);
    assert.deepEqual(d.ignored, ['line 2: node shapes ([ ], ( ), (( )), )) ((, ) (, {{ }}) are not drawn: the platform\'s mind-map nodes are text (the text is kept)', 'line 5: icons (::icon) are not drawn']);
  });

  it('reads every shape, classes, and markdown strings (over lines too), keeping their text', () => {
    const d = parseMindmap(`mindmap
    id1["\`**Root** with
a second line\`"]
      a[square]
      b(rounded)
      c((circle))
      d))bang((
      e)cloud(
      f{{hexagon}}
      :::urgent large
      plain text node
        g["\`The dog in **the** hog\`"]`);
    assert.deepEqual(d.nodes.map((n) => [n.id, n.text, n.shape, n.depth, n.line]), [
      ['id1', '**Root** with\na second line', 'square', 0, 2],
      ['a', 'square', 'square', 1, 4],
      ['b', 'rounded', 'rounded', 1, 5],
      ['c', 'circle', 'circle', 1, 6],
      ['d', 'bang', 'bang', 1, 7],
      ['e', 'cloud', 'cloud', 1, 8],
      ['f', 'hexagon', 'hexagon', 1, 9],
      ['plain text node', 'plain text node', 'plain', 1, 11],
      ['g', 'The dog in **the** hog', 'square', 2, 12],
    ]);
    assert.deepEqual(d.ignored, ['lines 2, 4, 5, 6, 7, 8, 9, 12: node shapes ([ ], ( ), (( )), )) ((, ) (, {{ }}) are not drawn: the platform\'s mind-map nodes are text (the text is kept)', 'line 10: classes (:::) are not drawn']);
  });

  it('refuses a second root, a bad node, an icon before any node, an unclosed markdown string, each with its line', () => {
    assert.deepEqual(refusal('mindmap\n  root\n    a\n  other root'), ['line 4: "other root" is indented no more than the root: a mind map has one root, and every other node is indented under it']);
    assert.deepEqual(refusal('mindmap\n  ::icon(fa fa-book)\n  root'), ['line 2: an icon belongs to the node above it: there is none']);
    assert.deepEqual(refusal('mindmap\n  root\n    a[unclosed'), ['line 3: "a[unclosed" is not a node: write text, or an id with its text in [ ], ( ), (( )), )) ((, ) ( or {{ }}']);
    assert.deepEqual(refusal('mindmap\n  root\n    a[]'), ['line 3: the node a has no text between its brackets']);
    assert.deepEqual(refusal('mindmap\n  root["`never closed\n  more'), ['line 2: the markdown string ("` ... `") has no closing `"']);
    assert.deepEqual(refusal('graph\n  root'), ['line 1: the first line must be "mindmap" alone']);
    assert.deepEqual(refusal(`mindmap\n  root\n${'    n\n'.repeat(200)}`), ['line 202: more than 200 nodes']);
  });

  it('lays the tree out: branches to both sides, each level a column further out, parents level with their children, nothing overlapping', () => {
    const d = parseMindmap(DOCS_EXAMPLE);
    const { centres, size } = layOutMindmap(d);
    const root = centres[0]!;
    for (const [index, node] of d.nodes.entries()) {
      if (node.parent === undefined) continue;
      const side = Math.sign(centres[index]!.x - root.x);
      assert.notEqual(side, 0);
      // Further out than its parent, on its parent's side.
      assert.equal(Math.abs(centres[index]!.x - root.x), node.depth * 280);
      if (node.parent !== 0) assert.equal(Math.sign(centres[node.parent]!.x - root.x), side);
    }
    assert.ok(d.nodes.some((_, i) => centres[i]!.x < root.x) && d.nodes.some((_, i) => centres[i]!.x > root.x), 'both sides');
    const seen = new Set(centres.map((c) => `${c.x},${c.y}`));
    assert.equal(seen.size, centres.length, 'no two nodes at one place');
    for (const c of centres) assert.ok(c.x - 110 >= 0 && c.y - 25 >= 0 && c.x + 110 <= size.width && c.y + 25 <= size.height);
  });
});

/** Every mind-map node of a board, read straight from the sandbox. */
async function mindmapNodes(sandbox: RunningSandbox, board: string): Promise<J[]> {
  const nodes: J[] = [];
  for (let cursor = ''; ;) {
    const page = await platform(sandbox, 'GET', `/v2-experimental/boards/${board}/mindmap_nodes?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    nodes.push(...page.data);
    if (!page.cursor) return nodes;
    cursor = page.cursor;
  }
}
const textOf = (node: J) => node.data.nodeView.data.content.replace(/&#(\d+);/g, (_: string, code: string) => String.fromCharCode(Number(code)));

describe('CreateDiagram draws a mind map on the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('the documented example: one root, each node under its parent with its text, parents first, clear of the board', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Mind map' })).id as string;
    await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, [
      { type: 'sticky_note', data: { content: '<p>Already here</p>' }, position: { x: 0, y: 0 }, geometry: { width: 200 } },
      { type: 'shape', data: { content: '<p>Old shape</p>', shape: 'rectangle' }, position: { x: 700, y: 300 }, geometry: { width: 400, height: 200 } },
    ]);
    const existing = await boardItems(sandbox, board);
    sandbox.clearRequests();
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: DOCS_EXAMPLE });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '15 of 15 mind-map nodes created.');
    assert.match(data.placed, /^15 mind-map nodes right of the 2 items read on the board, clear of them$/);
    assert.equal(data.not_drawn.length, 2);
    assert.equal(data.failed, undefined);

    const nodes = await mindmapNodes(sandbox, board);
    assert.equal(nodes.length, 15);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    assert.deepEqual(new Set(Object.values(data.node_items)), new Set(byId.keys()), 'node_items names exactly the nodes created');
    const written = parseMindmap(DOCS_EXAMPLE).nodes;
    const got = written.map((w) => {
      const node = byId.get(data.node_items[w.key]);
      return [textOf(node), node.parent ? textOf(byId.get(node.parent.id)) : null];
    });
    assert.deepEqual(got, HIERARCHY);
    assert.equal(nodes.filter((n) => n.data.isRoot).length, 1);

    // Sent: each node once, its parent created before it; positions clear of the board's items.
    const creates = sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/mindmap_nodes'));
    assert.equal(creates.length, 15);
    // The sandbox refuses a parent that does not exist (yet): each create named one created before it.
    const parents = creates.map((r) => (r.body as J).parent?.id).filter(Boolean);
    assert.equal(parents.length, 14);
    assert.deepEqual(new Set(parents), new Set(nodes.filter((n) => HIERARCHY.some(([, parent]) => parent === textOf(n))).map((n) => n.id)));
    for (const body of creates.map((r) => r.body as J)) {
      const box = { left: body.position.x - 110, right: body.position.x + 110, top: body.position.y - 25, bottom: body.position.y + 25 };
      assert.ok(box.left >= data.bounds.left && box.right <= data.bounds.right && box.top >= data.bounds.top && box.bottom <= data.bounds.bottom);
      for (const old of existing) {
        const o = { left: old.position.x - old.geometry.width / 2, right: old.position.x + old.geometry.width / 2, top: old.position.y - (old.geometry.height ?? old.geometry.width) / 2, bottom: old.position.y + (old.geometry.height ?? old.geometry.width) / 2 };
        assert.ok(!(box.left < o.right && o.left < box.right && box.top < o.bottom && o.top < box.bottom), 'clear of what was there');
      }
    }
    // The root's children branch to both sides.
    const directions = new Set(nodes.filter((n) => n.parent?.id === data.node_items['line 2']).map((n) => n.data.direction));
    assert.deepEqual(directions, new Set(['start', 'end']));
  });

  it('a failed node stops its branch only: its descendants are not sent, the rest is drawn, the advice never duplicates', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Mind map fault' })).id as string;
    const faulty = (async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).endsWith('/mindmap_nodes') && init?.method === 'POST' && String(init.body).includes('"Research"')) {
        return new Response(JSON.stringify({ status: 400, code: 'invalidParameters', message: 'Injected refusal', type: 'error' }), { status: 400, headers: { 'content-type': 'application/json' } });
      }
      return fetch(input, init);
    }) as typeof fetch;
    const result = await callTool(canvasApiServerFor(sandbox.canvasapi, { fetch: faulty }), 'CanvasApi.CreateDiagram', { board_id: board, mermaid: DOCS_EXAMPLE, origin_x: 0, origin_y: 0 });
    const data = result.data as J;
    assert.equal(data.summary, '8 of 15 mind-map nodes created.');
    assert.equal(data.failed.length, 1);
    assert.equal(data.failed[0].node, 'line 8');
    assert.equal(data.failed[0].outcome, 'not_created');
    assert.deepEqual(data.not_sent, { nodes: ['line 9', 'line 10', 'line 11', 'line 12', 'line 13', 'line 14'], retry_safe: true });
    assert.match(data.next_step, /parents first, with CanvasApi.AddMindmapNode .* never this whole mind map again/);
    const nodes = await mindmapNodes(sandbox, board);
    assert.deepEqual(nodes.map(textOf).sort(), ['mindmap', 'Origins', 'Long history', 'Popularisation', 'British popular psychology author Tony Buzan', 'Tools', 'Pen and paper', 'Mermaid'].sort());
  });

  it('the board view holds each node where it was put, joined to its parent; a budget that runs out leaves the rest not sent', async () => {
    const draw = async (name: string, requests: number) => {
      const board = (await platform(sandbox, 'POST', '/v2/boards', { name })).id as string;
      const budget = new CallBudget({ requests });
      const scope = new WorkScope(new AbortController().signal, { budget });
      try {
        const answer = await createAnyDiagram({ board_id: board, mermaid: DOCS_EXAMPLE, origin_x: 0, origin_y: 0 }, { signal: scope.signal, budget, deps: server.deps, progress: () => undefined, logger: server.logger } as never);
        return { board, answer: answer as J };
      } finally {
        scope.dispose();
      }
    };
    const { board, answer } = await draw('Mind map view', 100);
    const view = viewDataOf(answer) as J;
    const nodes = await mindmapNodes(sandbox, board);
    assert.equal(view.items.length, 15);
    for (const node of nodes) {
      const drawn = view.items.find((i: J) => i.id === node.id);
      assert.equal(drawn.type, 'mindmap_node');
      assert.equal(drawn.text, textOf(node).replace(/&#(\d+);/g, ''));
      assert.equal(drawn.parentNode, node.parent?.id);
    }
    const sent = sandbox.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/mindmap_nodes')).slice(-15).map((r) => (r.body as J).position);
    assert.deepEqual(new Set(view.items.map((i: J) => `${i.x},${i.y}`)), new Set(sent.map((p: J) => `${p.x},${p.y}`)), 'where the creates put them');
    // Five requests: the root and four more; the rest never sent, safe to add.
    const short = await draw('Mind map budget', 5);
    assert.equal(short.answer.summary, '5 of 15 mind-map nodes created.');
    assert.deepEqual(short.answer.failed, []);
    assert.equal(short.answer.not_sent.nodes.length, 10);
    assert.equal(short.answer.not_sent.retry_safe, true);
    assert.equal((await mindmapNodes(sandbox, short.board)).length, 5);
  });

  it('frame_title and bad text are refused, nothing sent', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Mind map refusals' })).id as string;
    const sentBefore = sandbox.requests.length;
    for (const [args, parameter, problem] of [
      [{ mermaid: DOCS_EXAMPLE, frame_title: 'Map' }, 'frame_title', /leave it out with a mind map/],
      [{ mermaid: 'mindmap\n  root\n  second' }, 'mermaid', /^line 3: "second" is indented no more than the root/],
      [{ mermaid: `mindmap\n  root\n    ${'<'.repeat(1300)}` }, 'mermaid', /^line 3: the node's text is 6500 characters once HTML-escaped/],
    ] as const) {
      const refused = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, ...args });
      assert.equal(refused.isError, true);
      const issue = ((refused.data as J).issues as J[])[0];
      assert.equal(issue.parameter, parameter);
      assert.match(issue.problem, problem);
    }
    assert.equal(sandbox.requests.length, sentBefore, 'nothing was sent');
  });

  it('every request sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    assert.ok(requests.filter((r) => r.path.endsWith('/mindmap_nodes') && r.method === 'POST').length >= 15, 'mind-map creates were checked');
  });
});

describe('a mind map against the contract tools: calls and tokens', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('the documented 15-node mind map: one AddMindmapNode per node vs one call, the figures docs/tasks.md gives', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Mind map cost' })).id as string;
    const { cost, call } = costTally(server);
    // The contract plan: each node in order, its parent's ID from the answer before, positions worked out by hand.
    const written = parseMindmap(DOCS_EXAMPLE).nodes;
    const ids: string[] = [];
    for (const [index, node] of written.entries()) {
      const made = await call('contract', 'CanvasApi.AddMindmapNode', { board_id: board, mindmap_node_content: node.text, node_type: 'text', x_coordinate: 5000 + node.depth * 280, y_coordinate: index * 70, ...(node.parent !== undefined ? { parent_frame_id: ids[node.parent] } : {}) });
      ids.push(String(made.id));
    }
    const drawn = await call('task', 'CanvasApi.CreateDiagram', { board_id: board, mermaid: DOCS_EXAMPLE });
    assert.equal(Object.keys(drawn.node_items).length, 15);
    assert.ok(cost.task.tokens < cost.contract.tokens / 2, `${cost.task.tokens} vs ${cost.contract.tokens}`);
    assertCostRow("Mermaid's 15-node example mind map", cost, 'CreateDiagram `mermaid`');
  });
});

describe('a mind map within the bounds', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('the largest allowed (200 nodes, 5 levels deep) is drawn within the call\'s request budget', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Largest mind map' })).id as string;
    const lines = ['mindmap', '  root'];
    for (let i = 1; lines.length - 1 < 200; i++) lines.push(`${'  '.repeat(2 + (i % 5))}node ${i}`);
    const mermaid = lines.join('\n');
    sandbox.clearRequests();
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid });
    assert.equal(result.isError, false, JSON.stringify(result.data).slice(0, 300));
    assert.equal((result.data as J).summary, '200 of 200 mind-map nodes created.');
    const sent = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.equal(sent.filter((r) => r.path.endsWith('/mindmap_nodes')).length, 200);
    assert.ok(sent.length <= createDiagramBudget({ mermaid }).requests, `${sent.length} requests within ${createDiagramBudget({ mermaid }).requests}`);
    // Each node under the one the indentation names.
    const nodes = await mindmapNodes(sandbox, board);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const parsed = parseMindmap(mermaid).nodes;
    for (const node of parsed) {
      const drawn = byId.get((result.data as J).node_items[node.key]);
      assert.equal(drawn.parent?.id, node.parent === undefined ? undefined : (result.data as J).node_items[parsed[node.parent]!.key]);
    }
  });

  it('reads the longest texts in linear time: an unclosed markdown string over many lines, long indentation', () => {
    for (const body of [`  root["\`${'x\n'.repeat((MERMAID_CHARS - 100) / 2)}`, `  root\n${' '.repeat(MERMAID_CHARS - 100)}x`, `  root\n    a(${'('.repeat(MERMAID_CHARS - 100)}`]) {
      const started = performance.now();
      try {
        parseMindmap(`mindmap\n${body}`);
      } catch (error) {
        if (!(error instanceof MermaidError)) throw error;
      }
      assert.ok(performance.now() - started < 1_000, `${body.slice(0, 10)}: ${performance.now() - started} ms`);
    }
  });
});
