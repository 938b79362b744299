/**
 * CreateDiagram with Mermaid flowchart text, extending a drawing (edges to item:<ID>), and the
 * item links of both task tools. The reader is checked on flowcharts written as Mermaid's own
 * documentation writes them; the drawings against the sandbox, read back by raw HTTP (items,
 * shapes, frame parents, connectors and their captions), each request against the official spec.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { parseMermaid, MermaidError } from '../src/canvasapi/tasks/mermaid.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const problemsOf = (text: string): string[] => {
  try {
    parseMermaid(text);
  } catch (error) {
    if (error instanceof MermaidError) return error.problems;
    throw error;
  }
  return [];
};

describe('the Mermaid flowchart reader, on the documentation\'s examples', () => {
  it('a decision with labelled branches', () => {
    const chart = parseMermaid(['flowchart TD', '    A[Christmas] -->|Get money| B(Go shopping)', '    B --> C{Let me think}', '    C -->|One| D[Laptop]', '    C -->|Two| E[iPhone]', '    C -->|Three| F[fa:fa-car Car]'].join('\n'));
    assert.equal(chart.direction, 'TB');
    assert.deepEqual(chart.nodes.map((n) => [n.id, n.text, n.shape]), [
      ['A', 'Christmas', 'rectangle'],
      ['B', 'Go shopping', 'round_rectangle'],
      ['C', 'Let me think', 'rhombus'],
      ['D', 'Laptop', 'rectangle'],
      ['E', 'iPhone', 'rectangle'],
      ['F', 'fa:fa-car Car', 'rectangle'],
    ]);
    assert.deepEqual(chart.edges.map((e) => `${e.from}>${e.to}:${e.label ?? ''}`), ['A>B:Get money', 'B>C:', 'C>D:One', 'C>E:Two', 'C>F:Three']);
  });

  it('subgraphs: a node mentioned in a subgraph is drawn in it', () => {
    const chart = parseMermaid(['flowchart TB', '    c1-->a2', '    subgraph one', '    a1-->a2', '    end', '    subgraph two', '    b1-->b2', '    end', '    subgraph ide1 [three]', '    c1-->c2', '    end'].join('\n'));
    assert.deepEqual(chart.subgraphs.map((s) => [s.key, s.title]), [['one', 'one'], ['two', 'two'], ['ide1', 'three']]);
    const where = Object.fromEntries(chart.nodes.map((n) => [n.id, n.subgraph]));
    assert.deepEqual(where, { c1: 2, a2: 0, a1: 0, b1: 1, b2: 1, c2: 2 });
  });

  it('shapes, link kinds, label forms, chains and & groups', () => {
    const chart = parseMermaid(
      [
        'graph LR',
        '  a --> b & c--> d',
        '  A -- text --> B -.-> C ==> D --- E',
        '  F -. dotted .-> G == thick ==> H; I <--> J',
        '  K([stadium]) --> L[[subroutine]] --> M[(Database)] --> N((circle)) --> O>asymmetric] --> P{{hexagon}}',
        '  Q[/parallelogram/] --> R[\\alt\\] --> S[/trapezoid\\] --> T[\\alt trapezoid/] --> U["quoted [text]"] --> V(((double)))',
      ].join('\n'),
    );
    assert.equal(chart.direction, 'LR');
    assert.deepEqual(chart.edges.slice(0, 4).map((e) => `${e.from}${e.to}`), ['ab', 'ac', 'bd', 'cd']);
    assert.deepEqual(chart.edges.slice(4, 11).map((e) => [e.from, e.to, e.stroke, e.arrows, e.label ?? '']), [
      ['A', 'B', 'normal', 'end', 'text'],
      ['B', 'C', 'dotted', 'end', ''],
      ['C', 'D', 'thick', 'end', ''],
      ['D', 'E', 'normal', 'none', ''],
      ['F', 'G', 'dotted', 'end', 'dotted'],
      ['G', 'H', 'thick', 'end', 'thick'],
      ['I', 'J', 'normal', 'both', ''],
    ]);
    const shape = Object.fromEntries(chart.nodes.map((n) => [n.id, n.shape]));
    assert.deepEqual([shape.K, shape.L, shape.M, shape.N, shape.O, shape.P], ['round_rectangle', 'flow_chart_predefined_process', 'can', 'circle', 'right_arrow', 'hexagon']);
    assert.deepEqual([shape.Q, shape.R, shape.S, shape.T, shape.V], ['parallelogram', 'parallelogram', 'trapezoid', 'trapezoid', 'circle']);
    assert.equal(chart.nodes.find((n) => n.id === 'U')!.text, 'quoted [text]');
    assert.equal(chart.nodes.find((n) => n.id === 'A')!.text, 'A', 'a node without brackets is its id');
  });

  it('directions, and what it ignores with a note', () => {
    for (const [word, direction] of [['TD', 'TB'], ['TB', 'TB'], ['BT', 'BT'], ['LR', 'LR'], ['RL', 'RL']]) assert.equal(parseMermaid(`flowchart ${word}\n a --> b`).direction, direction);
    const chart = parseMermaid(['---', 'title: Styled', '---', 'flowchart LR', '  %% a comment', '  A:::green --> B', '  classDef green fill:#9f6', '  style B fill:#f9f,stroke:#333', '  click A callback'].join('\n'));
    assert.equal(chart.nodes.find((n) => n.id === 'B')!.color, '#ff99ff', 'a style\'s fill is the node\'s colour');
    assert.deepEqual(chart.ignored, [
      'lines 1-3: the front matter (title, config) is not drawn',
      'line 6: the class of A (:::) is not drawn',
      'line 7: classDef is not drawn (styling and interaction are left out)',
      'line 8: style other than fill is not drawn',
      'line 9: click is not drawn (styling and interaction are left out)',
    ]);
  });

  it('refuses what it cannot draw, with the line and what is wrong', () => {
    assert.deepEqual(problemsOf('pie\n  "Dogs" : 386'), ['line 1: the first line must be "flowchart" or "graph" with a direction (TD, TB, BT, LR, RL); "pie" is not a diagram drawn here: flowchart (or graph), sequenceDiagram, classDiagram, erDiagram or mindmap']);
    assert.deepEqual(problemsOf('flowchart XY\n a --> b'), ['line 1: "XY" is not a direction: one of TD, TB, BT, LR, RL']);
    assert.deepEqual(
      problemsOf(['flowchart TD', '  a --o b', '  c ~~~ d', '  e@{ shape: rect }', '  subgraph s1', '  subgraph s2', '  end', '  end', '  f --> s1', '  g[unclosed --> h'].join('\n')),
      [
        'line 2: circle and cross link ends (--o, --x) are not drawn: write --> or ---',
        'line 3: invisible links (~~~) are not drawn',
        'line 4: the e@{ ... } shape syntax is not drawn; write e[text], e(text), e{text}, e((text)), ...',
        'line 6: a subgraph inside a subgraph is not drawn: frames do not nest on the board',
        'line 8: "end" closes no subgraph',
        'line 10: the text after "[" has no closing "]"',
        'line 9: s1 is a subgraph; an edge is drawn between nodes: connect to a node inside it',
      ],
    );
  });

  it('is linear: 50,000 characters of a long chain or of open brackets read at once', () => {
    const chain = 'flowchart LR\n' + Array.from({ length: 199 }, (_, i) => `n${i} --> n${i + 1}`).join('\n');
    assert.equal(parseMermaid(chain).edges.length, 199);
    // Unclosed brackets and labels are refused by one scan each, not by trying every split.
    assert.equal(problemsOf('flowchart LR\n' + 'a['.repeat(20_000)).length, 1);
    assert.equal(problemsOf('flowchart LR\n' + 'a -- '.repeat(9_000)).length, 1);
  });
});

describe('CreateDiagram with Mermaid, extending a drawing, and item links, against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  /** Requests sent before a test cleared the list, for the spec check at the end. */
  const kept: RunningSandbox['requests'] = [];
  const keepAndClear = () => {
    kept.push(...sandbox.requests);
    sandbox.clearRequests();
  };

  const platform = async (method: string, path: string, body?: unknown): Promise<J> => {
    const response = await fetch(`${sandbox.canvasapi.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    assert.ok(response.ok, `${method} ${path}: ${response.status}`);
    return response.json();
  };
  const newBoard = async (name: string): Promise<J> => platform('POST', '/v2/boards', { name });
  const everything = async (board: string, what: 'items' | 'connectors'): Promise<J[]> => {
    const all: J[] = [];
    let cursor = '';
    do {
      const page = await platform('GET', `/v2/boards/${board}/${what}?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      all.push(...page.data);
      cursor = page.cursor ?? '';
    } while (cursor);
    return all;
  };
  /** An item's box on the board: frames' children are placed from their frame's top-left corner. */
  const boxOnBoard = (item: J, byId: Map<string, J>) => {
    const frame = item.parent ? byId.get(item.parent.id) : undefined;
    const dx = frame ? frame.position.x - frame.geometry.width / 2 : 0;
    const dy = frame ? frame.position.y - frame.geometry.height / 2 : 0;
    const width = item.geometry?.width ?? 0;
    const height = item.geometry?.height ?? width;
    return { left: dx + item.position.x - width / 2, top: dy + item.position.y - height / 2, width, height };
  };
  const overlap = (a: J, b: J) => a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('a decision with labelled branches draws right: shapes, texts, connectors with captions, downward', async () => {
    const board = await newBoard('Mermaid decision');
    const result = await callTool(server, 'CanvasApi.CreateDiagram', {
      board_id: board.id,
      mermaid: 'flowchart TD\n  A[Start] --> B{Is it ready?}\n  B -->|Yes| C([Ship it])\n  B -- No --> D[(Backlog)]\n  D -.-> A',
    });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '4 of 4 nodes and 4 of 4 connectors created.');
    const items = await everything(board.id, 'items');
    const byId = new Map(items.map((item) => [String(item.id), item]));
    const node = (id: string) => byId.get(data.node_items[id])!;
    assert.deepEqual(['A', 'B', 'C', 'D'].map((id) => [node(id).type, node(id).data.shape, node(id).data.content]), [
      ['shape', 'rectangle', 'Start'],
      ['shape', 'rhombus', 'Is it ready?'],
      ['shape', 'round_rectangle', 'Ship it'],
      ['shape', 'can', 'Backlog'],
    ]);
    assert.ok(node('A').position.y < node('B').position.y && node('B').position.y < node('C').position.y, 'top down');
    assert.equal(node('C').position.y, node('D').position.y, 'both branches on one rank');
    const connectors = await everything(board.id, 'connectors');
    const ends = (c: J) => `${c.startItem.id}>${c.endItem.id}:${(c.captions ?? []).map((k: J) => k.content).join('')}`;
    const item = (id: string) => data.node_items[id];
    assert.deepEqual(connectors.map(ends).sort(), [`${item('A')}>${item('B')}:`, `${item('B')}>${item('C')}:Yes`, `${item('B')}>${item('D')}:No`, `${item('D')}>${item('A')}:`].sort());
    const back = connectors.find((c) => c.startItem.id === item('D'))!;
    assert.equal(back.style.strokeStyle, 'dashed', '-.-> is drawn dashed');
    // Each item can be opened: the link template is the board's viewLink, focused on the item.
    assert.equal(data.item_link, `${board.viewLink}?moveToWidget={item_id}`);
  });

  it('subgraphs draw as frames, each holding its nodes; a connector crosses between them', async () => {
    const board = await newBoard('Mermaid subgraphs');
    const result = await callTool(server, 'CanvasApi.CreateDiagram', {
      board_id: board.id,
      mermaid: ['flowchart LR', '  subgraph build [Build stage]', '    compile --> test', '  end', '  subgraph ship [Ship stage]', '    package --> deploy', '  end', '  test -->|green| package', '  deploy --> done((Done))'].join('\n'),
    });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '5 of 5 nodes and 4 of 4 connectors created in 2 frames.');
    const items = await everything(board.id, 'items');
    const byId = new Map(items.map((item) => [String(item.id), item]));
    const frames = items.filter((i) => i.type === 'frame');
    assert.deepEqual(frames.map((f) => f.data.title).sort(), ['Build stage', 'Ship stage']);
    assert.deepEqual(Object.keys(data.frames).sort(), ['build', 'ship']);
    for (const [node, frame] of [['compile', 'build'], ['test', 'build'], ['package', 'ship'], ['deploy', 'ship']]) {
      const item = byId.get(data.node_items[node!])!;
      assert.equal(item.parent?.id, data.frames[frame!], `${node} is in ${frame}`);
      const parent = byId.get(data.frames[frame!])!;
      assert.ok(item.position.x - 110 >= 0 && item.position.x + 110 <= parent.geometry.width && item.position.y - 55 >= 0 && item.position.y + 55 <= parent.geometry.height, `${node} lies inside its frame`);
    }
    assert.equal(byId.get(data.node_items.done)!.parent, undefined, 'a node outside subgraphs is on the board');
    const [build, ship] = [byId.get(data.frames.build)!, byId.get(data.frames.ship)!].map((f) => boxOnBoard(f, byId));
    assert.ok(!overlap(build, ship), 'the frames do not overlap');
    assert.ok(build!.left < ship!.left, 'left to right');
    const connectors = await everything(board.id, 'connectors');
    const crossing = connectors.find((c) => c.startItem.id === data.node_items.test)!;
    assert.equal(crossing.endItem.id, data.node_items.package);
    assert.equal(crossing.captions[0].content, 'green');
  });

  it('"Add a Retry step after Check" is one call: a node beside Check, in its frame, clear of everything', async () => {
    const board = await newBoard('Extend');
    const first = (await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board.id, mermaid: 'flowchart TD\n  start[Start] --> check{Check} --> done[Done]\n  check --> fix[Fix]', frame_title: 'Flow' })).data as J;
    const check = first.node_items.check;
    // The frame has room to the side (a frame_title frame fits its diagram snugly: a new node would go beside it).
    const frame = await platform('GET', `/v2/boards/${board.id}/frames/${first.frame.id}`);
    await platform('PATCH', `/v2/boards/${board.id}/frames/${first.frame.id}`, { geometry: { width: frame.geometry.width + 600, height: frame.geometry.height } });
    keepAndClear();
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board.id, mermaid: `flowchart TD\n  item:${check} -->|failed| retry[Retry]` });
    const sentByTool = [...sandbox.requests];
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, `1 of 1 nodes and 1 of 1 connectors created in frame ${first.frame.id}.`);
    assert.match(data.placed, new RegExp(`^1 new node beside item ${check} "Check", in its frame ${first.frame.id}, clear of the 4 items read in it$`));
    const items = await everything(board.id, 'items');
    const byId = new Map(items.map((item) => [String(item.id), item]));
    const retry = byId.get(data.node_items.retry)!;
    assert.equal(retry.data.content, 'Retry');
    assert.equal(retry.parent?.id, first.frame.id, 'in the frame of Check');
    const retryBox = boxOnBoard(retry, byId);
    for (const other of items) {
      if (other.id === retry.id || other.type === 'frame') continue;
      assert.ok(!overlap(retryBox, boxOnBoard(other, byId)), `Retry does not overlap ${other.data.content}`);
    }
    const frameBox = boxOnBoard(byId.get(first.frame.id), byId);
    assert.ok(retryBox.left >= frameBox.left && retryBox.top >= frameBox.top && retryBox.left + retryBox.width <= frameBox.left + frameBox.width && retryBox.top + retryBox.height <= frameBox.top + frameBox.height, 'inside the frame');
    const checkBox = boxOnBoard(byId.get(check), byId);
    const gap = Math.max(retryBox.left - (checkBox.left + checkBox.width), checkBox.left - (retryBox.left + retryBox.width), retryBox.top - (checkBox.top + checkBox.height), checkBox.top - (retryBox.top + retryBox.height));
    assert.ok(gap < 400, `beside Check (${gap} away)`);
    const connector = (await everything(board.id, 'connectors')).find((c) => c.endItem.id === retry.id)!;
    assert.equal(connector.startItem.id, check);
    assert.equal(connector.captions[0].content, 'failed');
    // What it read: Check, its frame, the frame's children (one page); what it created: one bulk, one connector.
    const sent = sentByTool.filter((r) => r.platform === 'canvasapi').map((r) => `${r.method} ${r.path.replace(encodeURIComponent(board.id), 'B').replace(/\d{6,}/g, 'N')}`);
    assert.deepEqual(sent.sort(), ['GET /v2/boards/B/items', 'GET /v2/boards/B/items/N', 'GET /v2/boards/B/items/N', 'POST /v2/boards/B/connectors', 'POST /v2/boards/B/items/bulk'].sort());
  });

  it('extends with nodes and edges too; a full board area sends the node beside, and a wrong item ID sends nothing', async () => {
    const board = await newBoard('Extend by edges');
    const blocks = (await platform('POST', `/v2/boards/${board.id}/items/bulk`, Array.from({ length: 9 }, (_, i) => ({ type: 'shape', data: { content: `Block ${i}`, shape: 'rectangle' }, position: { x: (i % 3) * 260, y: Math.floor(i / 3) * 160 }, geometry: { width: 220, height: 110 } })))).data as J[];
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board.id, nodes: [{ id: 'next', text: 'Next' }, { id: 'after', text: 'After' }], edges: [{ from: `item:${blocks[4].id}`, to: 'next' }, { from: 'next', to: 'after' }], layout: 'flow-down' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const items = await everything(board.id, 'items');
    const byId = new Map(items.map((item) => [String(item.id), item]));
    const added = ['next', 'after'].map((id) => boxOnBoard(byId.get((result.data as J).node_items[id]), byId));
    for (const box of added) for (const block of blocks) assert.ok(!overlap(box, boxOnBoard(byId.get(String(block.id)), byId)), 'clear of every block');
    assert.ok(added[0]!.top < added[1]!.top, 'the new flow runs down');

    keepAndClear();
    const wrong = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board.id, mermaid: 'flowchart TD\n  item:3458764999999999999 --> x[X]' });
    assert.equal(wrong.isError, true);
    assert.match(JSON.stringify(wrong.data.issues), /item:3458764999999999999 is not an item of this board/);
    assert.equal(sandbox.requests.filter((r) => r.method === 'POST').length, 0, 'nothing created');
  });

  it('refuses both forms or neither, naming both parameters, and Mermaid problems by line; nothing sent', async () => {
    keepAndClear();
    const both = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: 'b', mermaid: 'flowchart TD\n a-->b', nodes: [{ id: 'a', text: 'a' }], layout: 'grid' });
    assert.deepEqual((both.data.issues as J[]).map((i) => i.parameter), ['mermaid', 'nodes']);
    const neither = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: 'b' });
    assert.deepEqual((neither.data.issues as J[]).map((i) => i.parameter), ['mermaid', 'nodes']);
    const bad = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: 'b', mermaid: 'flowchart TD\n  a --> b\n  classDef x fill:#fff\n  b --x c\n  c --> c' });
    assert.deepEqual(bad.data.issues, [{ parameter: 'mermaid', problem: 'line 4: circle and cross link ends (--o, --x) are not drawn: write --> or ---' }]);
    const loop = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: 'b', mermaid: 'flowchart TD\n  a --> b\n  c --> c' });
    assert.deepEqual(loop.data.issues, [{ parameter: 'mermaid', problem: 'line 3: the edge c -> c\'s to must differ from from: a connector joins two different items' }]);
    assert.equal(sandbox.requests.length, 0);
  });

  it('ReadBoard states the item link once; with the listed IDs it opens each item', async () => {
    const board = await newBoard('Links');
    await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board.id, mermaid: 'flowchart LR\n a --> b' });
    const read = (await callTool(server, 'CanvasApi.ReadBoard', { board_id: board.id })).data as J;
    assert.equal(read.item_link, `${board.viewLink}?moveToWidget={item_id}`);
    assert.equal(read.items.length, 2);
  });

  it('every request sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    assert.deepEqual(specProblems(validators, [...kept, ...sandbox.requests].filter((r) => r.platform === 'canvasapi')), []);
  });
});
