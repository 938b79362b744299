/**
 * CreateDiagram with Mermaid erDiagram text. The reader is checked on ER diagrams written as
 * Mermaid's documentation writes them (attributes with keys and comments, every cardinality in
 * symbols and in words, identifying or not, aliases; what it ignores and refuses, with lines); the
 * drawings against the sandbox, read back by raw HTTP: one box per entity holding its name and
 * every attribute, sized to its lines, none overlapping; connectors between the right boxes with
 * the platform's ERD caps, dashed when non-identifying, labelled; the sandbox's own handling of
 * those caps and caption positions; a failure part-way; the cost against the contract's tools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { type AnyToolServer } from '../src/core/tools/registry.js';
import { MermaidError } from '../src/canvasapi/tasks/mermaid.js';
import { parseErDiagram } from '../src/canvasapi/tasks/mermaid-er.js';
import { boxesPlanParts } from '../src/canvasapi/tasks/mermaid-boxes.js';
import { boardSvg, toPictureConnectors, type PictureItem } from '../src/canvasapi/tasks/board-picture.js';
import { callTool, canvasApiServerFor, canvasApiWithSecondBulkFailing, startTestSandbox } from './support/harness.js';
import { assertCostRow, costTally } from './support/task-cost.js';
import { boardItems, boardWithItems, platform } from './support/sandbox-board.js';
import { boardConnectors, checkBoxes } from './support/diagram-boxes.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any


const problemsOf = (text: string): string[] => {
  try {
    parseErDiagram(text);
  } catch (error) {
    if (error instanceof MermaidError) return error.problems;
    throw error;
  }
  return [];
};

/** Mermaid's documentation's first ER diagram. */
const ORDERS = ['---', 'title: Order example', '---', 'erDiagram', '    CUSTOMER ||--o{ ORDER : places', '    ORDER ||--|{ LINE-ITEM : contains', '    CUSTOMER }|..|{ DELIVERY-ADDRESS : uses'].join('\n');

/** The documentation's example with attributes, keys and comments. */
const CARS = [
  'erDiagram',
  '    CAR ||--o{ NAMED-DRIVER : allows',
  '    CAR {',
  '        string registrationNumber PK',
  '        string make',
  '        string model',
  '        string[] parts',
  '    }',
  '    PERSON ||--o{ NAMED-DRIVER : is',
  '    PERSON {',
  '        string driversLicense PK "The license #"',
  '        string(99) firstName "Only 99 characters are allowed"',
  '        string lastName',
  '        string phone UK',
  '        int age',
  '    }',
  '    NAMED-DRIVER {',
  '        string carRegistrationNumber PK, FK',
  '        string driverLicence PK, FK',
  '    }',
  '    MANUFACTURER only one to zero or more CAR : makes',
].join('\n');

const CAR_BOXES: Record<string, string[]> = {
  CAR: ['CAR', 'string registrationNumber PK', 'string make', 'string model', 'string[] parts'],
  'NAMED-DRIVER': ['NAMED-DRIVER', 'string carRegistrationNumber PK, FK', 'string driverLicence PK, FK'],
  PERSON: ['PERSON', 'string driversLicense PK — The license #', 'string(99) firstName — Only 99 characters are allowed', 'string lastName', 'string phone UK', 'int age'],
  MANUFACTURER: ['MANUFACTURER'],
};

describe('the Mermaid ER diagram reader, on the documentation\'s examples', () => {
  it('entities from relationships, crow\'s-foot caps per end, identifying solid and non-identifying dashed, labels', () => {
    const parts = boxesPlanParts(ORDERS, 'er');
    assert.deepEqual(parts.nodes.map((n) => n.text), ['CUSTOMER', 'ORDER', 'LINE-ITEM', 'DELIVERY-ADDRESS']);
    assert.deepEqual(parts.edges.map((e) => [e.from, e.caps.start, e.stroke, e.caps.end, e.to, e.label]), [
      ['CUSTOMER', 'erd_only_one', 'normal', 'erd_zero_or_many', 'ORDER', 'places'],
      ['ORDER', 'erd_only_one', 'normal', 'erd_one_or_many', 'LINE-ITEM', 'contains'],
      ['CUSTOMER', 'erd_one_or_many', 'dotted', 'erd_one_or_many', 'DELIVERY-ADDRESS', 'uses'],
    ]);
    assert.deepEqual(parts.notes, ['lines 1-3: the front matter (title, config) is not drawn']);
  });

  it('attributes with types, keys and comments; the relationship in words', () => {
    const parts = boxesPlanParts(CARS, 'er');
    assert.deepEqual(Object.fromEntries(parts.nodes.map((n) => [n.id, n.text.split('\n')])), CAR_BOXES);
    assert.match(parts.nodes.find((n) => n.id === 'PERSON')!.html, /<p>string driversLicense PK — <em>The license #<\/em><\/p>/);
    assert.deepEqual(parts.edges.at(-1), { from: 'MANUFACTURER', to: 'CAR', label: 'makes', stroke: 'normal', caps: { start: 'erd_only_one', end: 'erd_zero_or_many' }, line: 21 });
  });

  it('every cardinality, in symbols and in words; aliases, quoted names and labels; direction', () => {
    const parts = boxesPlanParts(
      [
        'erDiagram',
        'direction LR',
        'A |o--o| B : "zero or one"',
        'A ||..|| C : ""',
        'A }o--o{ D : many',
        'A }|.-|{ E : x',
        'F one or zero optionally to one or more G : y',
        'F zero or many to many(1) H : z',
        'F 1+ to 0+ I : w',
        'F many(0) optionally to 1 J : v',
        'p[Person] {',
        '  string name',
        '}',
        '"ORDER LINE" ||--|| p : "is for"',
        'K',
      ].join('\n'),
      'er',
    );
    assert.equal(parts.layout, 'LR');
    assert.deepEqual(parts.edges.map((e) => `${e.from} ${e.caps.start} ${e.stroke} ${e.caps.end} ${e.to}: ${e.label ?? ''}`), [
      'A erd_zero_or_one normal erd_zero_or_one B: zero or one',
      'A erd_only_one dotted erd_only_one C: ',
      'A erd_zero_or_many normal erd_zero_or_many D: many',
      'A erd_one_or_many dotted erd_one_or_many E: x',
      'F erd_zero_or_one dotted erd_one_or_many G: y',
      'F erd_zero_or_many normal erd_one_or_many H: z',
      'F erd_one_or_many normal erd_zero_or_many I: w',
      'F erd_zero_or_many dotted erd_only_one J: v',
      'ORDER LINE erd_only_one normal erd_only_one p: is for',
    ]);
    const p = parts.nodes.find((n) => n.id === 'p')!;
    assert.deepEqual(p.text.split('\n'), ['Person', 'string name']);
    assert.ok(parts.nodes.some((n) => n.id === 'K' && n.text === 'K'), 'an entity on its own');
  });

  it('lists styling as not drawn and a relationship with itself; refuses what it cannot read, each with its line', () => {
    const read = boxesPlanParts(['erDiagram', 'A ||--o{ B : has', 'style A fill:#a6ccf5', 'classDef x fill:#f00', 'class A x', 'B:::x', 'EMPLOYEE ||--o{ EMPLOYEE : manages'].join('\n'), 'er');
    assert.equal(read.nodes[0]!.color, '#a6ccf5');
    assert.deepEqual(read.notes, [
      'line 4: classDef is not drawn (styling and titles are left out)',
      'line 5: class is not drawn (styling and titles are left out)',
      'line 6: the class of B (:::) is not drawn',
      'line 7: the relationship of EMPLOYEE with itself is not drawn (a connector joins two different items)',
    ]);
    assert.deepEqual(
      problemsOf(['erDiagram', 'A ||--o B : x', 'A ||--o{ B x', 'A {', '  string', '  int n PRIMARY', '  int m "open', '}', 'A often to B : x', 'A ||--|{'].join('\n')),
      [
        'line 2: expected a relationship (||--o{, }|..|{, |o--||, ..., or "only one to zero or more") or "{" at "||--o B : x"',
        'line 3: expected ": label" or the end of the line at "x"',
        'line 5: "string" is not an attribute: write type name, then PK, FK or UK and a "comment" if any',
        'line 6: "PRIMARY" after the attribute n is not a key: PK, FK or UK (a comment goes in quotes)',
        'line 7: the attribute\'s comment at ""open" has no closing quote',
        'line 9: expected a relationship (||--o{, }|..|{, |o--||, ..., or "only one to zero or more") or "{" at "often to B : x"',
        'line 10: an entity is missing at the end',
      ],
    );
    assert.deepEqual(problemsOf('erDiagram\nA {\n  string x'), ['line 2: the entity A\'s "{" has no closing "}"']);
    assert.deepEqual(problemsOf('erDiagram'), ['the ER diagram has no entities']);
    assert.deepEqual(problemsOf('erDiagram LR\nA'), ['line 1: write statements on the lines after "erDiagram"']);
  });
});

describe('the board picture (ViewBoard, the board view) draws the caps and dashes', () => {
  const items: PictureItem[] = [
    { id: 'a', type: 'shape', x: 100, y: 100, width: 100, height: 60, text: 'A', shape: 'rectangle' },
    { id: 'b', type: 'shape', x: 100, y: 400, width: 100, height: 60, text: 'B', shape: 'rectangle' },
  ];
  const svgOf = (style: Record<string, string>) => {
    const connectors = toPictureConnectors([{ id: 'c', startItem: { id: 'a', position: { x: '50%', y: '100%' } }, endItem: { id: 'b', position: { x: '50%', y: '0%' } }, shape: 'straight', style }], items);
    return boardSvg({ area: { x0: 0, y0: 0, x1: 200, y1: 500 }, widthPx: 200, heightPx: 500, items, connectors }).split('\n').filter((line) => !line.startsWith('<svg') && !line.startsWith('<rect width') && !line.includes('<text')).join('\n');
  };
  it('each cap its own mark, arrowheads as before', () => {
    const arrow = svgOf({ startStrokeCap: 'none', endStrokeCap: 'stealth' });
    assert.equal((arrow.match(/<path d="M[^"]*Z" fill="#000000"\/>/g) ?? []).length, 1, 'a filled arrowhead, no stroke');
    const triangle = svgOf({ startStrokeCap: 'triangle', endStrokeCap: 'none' });
    assert.match(triangle, /<path d="M100,130L[^"]*Z" fill="#ffffff" stroke="#000000"/, 'a hollow triangle at the start, its tip on A');
    assert.match(svgOf({ startStrokeCap: 'none', endStrokeCap: 'filled_diamond' }), /<path d="M100,370L[^"]*Z" fill="#000000" stroke=/, 'a filled diamond at B');
    assert.match(svgOf({ startStrokeCap: 'diamond', endStrokeCap: 'none' }), /Z" fill="#ffffff" stroke=/);
    const many = svgOf({ startStrokeCap: 'erd_only_one', endStrokeCap: 'erd_zero_or_many' });
    assert.equal((many.match(/<circle /g) ?? []).length, 1, 'zero: a circle');
    assert.equal((many.match(/<path d="M[\d.]+,[\d.]+L[\d.]+,[\d.]+" stroke=/g) ?? []).length, 2, 'only one: two bars');
    assert.match(many, /<path d="M[^"]*L100,[\d.]+L[^"]*M100,370L100,[\d.]+" fill="none"/, 'many: a crow\'s foot opening onto B');
    const oneOrMany = svgOf({ startStrokeCap: 'erd_zero_or_one', endStrokeCap: 'erd_one_or_many' });
    assert.equal((oneOrMany.match(/<circle /g) ?? []).length, 1);
    assert.equal((oneOrMany.match(/<path d="M[\d.]+,[\d.]+L[\d.]+,[\d.]+" stroke=/g) ?? []).length, 2, 'a bar each end');
  });
  it('dashed and dotted strokes dashed; normal ones solid', () => {
    assert.match(svgOf({ strokeStyle: 'dashed' }), /stroke-dasharray=/);
    assert.match(svgOf({ strokeStyle: 'dotted' }), /stroke-dasharray=/);
    assert.doesNotMatch(svgOf({ strokeStyle: 'normal' }), /stroke-dasharray=/);
  });
});

describe('CreateDiagram with an ER diagram, against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('the sandbox stores every ERD cap and caption positions, as the spec describes them, and refuses a cap the spec does not list', async () => {
    const { board, before: items } = await boardWithItems(sandbox, 'Caps');
    const [a, b] = items.map((i) => i.id);
    for (const cap of ['erd_one', 'erd_many', 'erd_only_one', 'erd_zero_or_one', 'erd_one_or_many', 'erd_zero_or_many', 'triangle', 'filled_diamond', 'diamond', 'oval', 'arrow']) {
      const made = await platform(sandbox, 'POST', `/v2/boards/${board}/connectors`, { startItem: { id: a }, endItem: { id: b }, captions: [{ content: 'has' }, { content: '1', position: '12%' }, { content: '*', position: '88%' }], style: { startStrokeCap: cap, endStrokeCap: cap, strokeStyle: 'dashed' } });
      const back = await platform(sandbox, 'GET', `/v2/boards/${board}/connectors/${made.id}`);
      assert.deepEqual([back.style.startStrokeCap, back.style.endStrokeCap, back.style.strokeStyle], [cap, cap, 'dashed']);
      assert.deepEqual(back.captions, [{ content: 'has' }, { content: '1', position: '12%' }, { content: '*', position: '88%' }]);
    }
    const refused = await fetch(`${sandbox.canvasapi.baseUrl}/v2/boards/${board}/connectors`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ startItem: { id: a }, endItem: { id: b }, style: { endStrokeCap: 'crow' } }) });
    assert.equal(refused.status, 400);
    const badPosition = await fetch(`${sandbox.canvasapi.baseUrl}/v2/boards/${board}/connectors`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ startItem: { id: a }, endItem: { id: b }, captions: [{ content: 'x', position: '120%' }] }) });
    assert.equal(badPosition.status, 400);
    // These two were meant to be refused: the spec check below covers the tool's requests.
    sandbox.clearRequests();
  });

  it('the documentation\'s cars: a box per entity with every attribute, crow\'s feet at each end, labels, clear of the board', async () => {
    const { board, before: existing } = await boardWithItems(sandbox, 'Cars');
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: CARS });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '4 of 4 nodes and 3 of 3 connectors created.');
    const { connectors } = await checkBoxes(sandbox, board, data, existing, CAR_BOXES);
    assert.deepEqual(connectors, [
      'CAR -> NAMED-DRIVER [erd_only_one erd_zero_or_many normal] allows@50%',
      'PERSON -> NAMED-DRIVER [erd_only_one erd_zero_or_many normal] is@50%',
      'MANUFACTURER -> CAR [erd_only_one erd_zero_or_many normal] makes@50%',
    ]);
  });

  it('the documentation\'s orders: the non-identifying relationship dashed; within frame_title, the frame holds every box', async () => {
    const { board, before: existing } = await boardWithItems(sandbox, 'Orders');
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: ORDERS, frame_title: 'Orders' });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    const { items, connectors } = await checkBoxes(sandbox, board, data, existing, { CUSTOMER: ['CUSTOMER'], ORDER: ['ORDER'], 'LINE-ITEM': ['LINE-ITEM'], 'DELIVERY-ADDRESS': ['DELIVERY-ADDRESS'] });
    assert.deepEqual(connectors, [
      'CUSTOMER -> ORDER [erd_only_one erd_zero_or_many normal] places@50%',
      'ORDER -> LINE-ITEM [erd_only_one erd_one_or_many normal] contains@50%',
      'CUSTOMER -> DELIVERY-ADDRESS [erd_one_or_many erd_one_or_many dashed] uses@50%',
    ]);
    for (const id of Object.values(data.node_items)) assert.equal(items.find((i) => i.id === id).parent?.id, data.frame.id);
  });

  it('a refused ER diagram sends nothing', async () => {
    const { board } = await boardWithItems(sandbox, 'Refused');
    const sent = sandbox.requests.length;
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: 'erDiagram\nA ||--o B : x' });
    assert.equal(result.isError, true);
    assert.deepEqual((result.data as J).issues, [{ parameter: 'mermaid', problem: 'line 2: expected a relationship (||--o{, }|..|{, |o--||, ..., or "only one to zero or more") or "{" at "||--o B : x"' }]);
    assert.equal(sandbox.requests.length, sent);
  });

  it('every request sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    assert.ok(requests.some((r) => r.method === 'POST' && r.path.endsWith('/connectors') && JSON.stringify(r.body).includes('erd_zero_or_many')), 'an ERD connector was checked');
  });
});

describe('CreateDiagram with an ER diagram when the second transaction fails', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  for (const mode of ['refused', 'lost-answer'] as const) {
    it(`${mode}: the report names each entity and relation by what exists, nothing is created twice`, async () => {
      const board = (await platform(sandbox, 'POST', '/v2/boards', { name: `ER faults ${mode}` })).id as string;
      // 25 entities in a chain: transactions of 20 and 5; 24 relationships.
      const names = Array.from({ length: 25 }, (_, i) => `E${i}`);
      const mermaid = ['erDiagram', ...names.slice(1).map((name, i) => `${names[i]} ||--o{ ${name} : next`)].join('\n');
      const result = await callTool(canvasApiWithSecondBulkFailing(sandbox, mode), 'CanvasApi.CreateDiagram', { board_id: board, mermaid, origin_x: 0, origin_y: 0 });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      const data = result.data as J;
      assert.equal(Object.keys(data.node_items).length, 20);
      assert.equal(data.failed[0].nodes.length, 5);
      assert.equal(data.failed[0].retry_safe, mode === 'refused');
      const connectors = await boardConnectors(sandbox, board);
      // Only relations between two created entities were sent; the others are not sent, retry-safe.
      const drawnIds = new Set(Object.values(data.node_items));
      assert.equal(connectors.length, data.connector_items.filter((id: string | null) => id !== null).length);
      for (const c of connectors) assert.ok(drawnIds.has(c.startItem.id) && drawnIds.has(c.endItem.id));
      assert.equal(data.not_sent.retry_safe, true);
      assert.equal(data.not_sent.edges.length, 24 - connectors.length);
      const shapes = (await boardItems(sandbox, board)).filter((i) => i.type === 'shape');
      assert.equal(shapes.length, mode === 'refused' ? 20 : 25);
      assert.equal(new Set(shapes.map((s) => s.data.content)).size, shapes.length, 'no entity twice');
    });
  }
});

describe('An ER diagram against the contract tools: calls and tokens', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('"Draw this ER diagram (4 entities, 3 relations)": the contract plan vs one call, the figures docs/tasks.md gives', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'ER cost' })).id as string;
    const { cost, call } = costTally(server);
    // The contract plan: both body schemas, one bulk create of the four boxes (sized and placed by hand), a connector per relation with its caps and caption.
    await call('contract', 'CanvasApi.AddItemsToCanvasBoard', { mode: 'get_request_schema' });
    await call('contract', 'CanvasApi.AddConnectorToBoard', { mode: 'get_request_schema' });
    const boxes = Object.entries(CAR_BOXES).map(([, lines], i) => ({
      type: 'shape',
      data: { content: lines.map((line, j) => (j === 0 ? `<p><strong>${line}</strong></p>` : `<p>${line}</p>`)).join(''), shape: 'rectangle' },
      style: { textAlign: 'left', textAlignVertical: 'top' },
      position: { x: 5000 + (i % 2) * 500, y: Math.floor(i / 2) * 400 },
      geometry: { width: 420, height: 40 + 24 * lines.length },
    }));
    const made = await call('contract', 'CanvasApi.AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: board, request_body: boxes });
    const ids = (made.data as J[]).map((item) => item.id);
    for (const [from, to, label] of [[0, 1, 'allows'], [2, 1, 'is'], [3, 0, 'makes']] as const) {
      await call('contract', 'CanvasApi.AddConnectorToBoard', { mode: 'execute', board_unique_id: board, request_body: { startItem: { id: ids[from] }, endItem: { id: ids[to] }, captions: [{ content: label }], style: { startStrokeCap: 'erd_only_one', endStrokeCap: 'erd_zero_or_many' } } });
    }
    const drawn = await call('task', 'CanvasApi.CreateDiagram', { board_id: board, mermaid: CARS, origin_x: 0, origin_y: 2000 });
    assert.equal(Object.keys(drawn.node_items).length, 4);
    assert.equal(cost.contract.calls, 6);
    assert.ok(cost.task.tokens < cost.contract.tokens / 4, `${cost.task.tokens} vs ${cost.contract.tokens}`);
    assertCostRow('Draw this ER diagram (4 entities, 3 relations)', cost, 'CreateDiagram `mermaid`');
  });
});
