/**
 * CreateDiagram with Mermaid classDiagram text. The reader is checked on class diagrams written
 * as Mermaid's documentation writes them (members, relation kinds, cardinalities, generics,
 * annotations, namespaces; what it ignores and refuses, with lines); the drawings against the
 * sandbox, read back by raw HTTP: one box per class holding its name and every member, sized to
 * its lines, none overlapping; connectors between the right boxes with UML caps, dashes and
 * captions; every request valid for the official spec.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSandbox } from '../src/sandbox/server.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import { MermaidError } from '../src/canvasapi/tasks/mermaid.js';
import { parseClassDiagram } from '../src/canvasapi/tasks/mermaid-class.js';
import { boxesPlanParts } from '../src/canvasapi/tasks/mermaid-boxes.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { boardWithItems, platform } from './support/sandbox-board.js';
import { boardConnectors, checkBoxes } from './support/diagram-boxes.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const problemsOf = (text: string): string[] => {
  try {
    parseClassDiagram(text);
  } catch (error) {
    if (error instanceof MermaidError) return error.problems;
    throw error;
  }
  return [];
};

/** Mermaid's documentation's first class diagram. */
const ANIMALS = [
  '---',
  'title: Animal example',
  '---',
  'classDiagram',
  '    note "From Duck till Zebra"',
  '    Animal <|-- Duck',
  '    note for Duck "can fly\\ncan swim\\ncan dive\\ncan help in debugging"',
  '    Animal <|-- Fish',
  '    Animal <|-- Zebra',
  '    Animal : +int age',
  '    Animal : +String gender',
  '    Animal: +isMammal()',
  '    Animal: +mate()',
  '    class Duck{',
  '        +String beakColor',
  '        +swim()',
  '        +quack()',
  '    }',
  '    class Fish{',
  '        -int sizeInFeet',
  '        -canEat()',
  '    }',
  '    class Zebra{',
  '        +bool is_wild',
  '        +run()',
  '    }',
].join('\n');

const ANIMAL_BOXES: Record<string, string[]> = {
  Animal: ['Animal', '+int age', '+String gender', '+isMammal()', '+mate()'],
  Duck: ['Duck', '+String beakColor', '+swim()', '+quack()'],
  Fish: ['Fish', '-int sizeInFeet', '-canEat()'],
  Zebra: ['Zebra', '+bool is_wild', '+run()'],
};

/** The documentation's table of relation kinds, with labels. */
const RELATIONS = [
  'classDiagram',
  'classA --|> classB : Inheritance',
  'classC --* classD : Composition',
  'classE --o classF : Aggregation',
  'classG --> classH : Association',
  'classI -- classJ : Link(Solid)',
  'classK ..> classL : Dependency',
  'classM ..|> classN : Realization',
  'classO .. classP : Link(Dashed)',
].join('\n');

describe('the Mermaid class diagram reader, on the documentation\'s examples', () => {
  it('classes with members from blocks and "X : member" lines; inheritance; notes and front matter listed as not drawn', () => {
    const parts = boxesPlanParts(ANIMALS, 'class');
    assert.deepEqual(Object.fromEntries(parts.nodes.map((n) => [n.id, n.text.split('\n')])), ANIMAL_BOXES);
    assert.deepEqual(parts.edges.map((e) => [e.from, e.to, e.caps.start, e.caps.end, e.stroke]), [
      ['Animal', 'Duck', 'triangle', 'none', 'normal'],
      ['Animal', 'Fish', 'triangle', 'none', 'normal'],
      ['Animal', 'Zebra', 'triangle', 'none', 'normal'],
    ]);
    assert.deepEqual(parts.notes, ['lines 1-3: the front matter (title, config) is not drawn', 'line 5: notes are not drawn', 'line 7: notes are not drawn']);
    assert.equal(parts.layout, 'TB');
    assert.match(parts.nodes[0]!.html, /^<p><strong>Animal<\/strong><\/p><p>\+int age<\/p>/);
  });

  it('each kind of relation: its caps, dashed or not, its label; both ends; the lollipop', () => {
    const parts = boxesPlanParts(`${RELATIONS}\nAnimal <|--|> Zebra\nbar ()-- foo\nfoo --() baz\nclassQ <.. classR\nclassS *-- classT\nclassU o-- classV`, 'class');
    assert.deepEqual(parts.edges.map((e) => `${e.from} ${e.caps.start}/${e.caps.end} ${e.stroke} ${e.to}: ${e.label ?? ''}`), [
      'classA none/triangle normal classB: Inheritance',
      'classC none/filled_diamond normal classD: Composition',
      'classE none/diamond normal classF: Aggregation',
      'classG none/arrow normal classH: Association',
      'classI none/none normal classJ: Link(Solid)',
      'classK none/arrow dotted classL: Dependency',
      'classM none/triangle dotted classN: Realization',
      'classO none/none dotted classP: Link(Dashed)',
      'Animal triangle/triangle normal Zebra: ',
      'bar oval/none normal foo: ',
      'foo none/oval normal baz: ',
      'classQ arrow/none dotted classR: ',
      'classS filled_diamond/none normal classT: ',
      'classU diamond/none normal classV: ',
    ]);
  });

  it('cardinalities at their ends, with or without a label', () => {
    const parts = boxesPlanParts(['classDiagram', '    Customer "1" --> "*" Ticket', '    Student "1" --> "1..*" Course', '    Galaxy --> "many" Star : Contains'].join('\n'), 'class');
    assert.deepEqual(parts.edges.map((e) => [e.from, e.to, e.endLabels?.start ?? '', e.endLabels?.end ?? '', e.label ?? '']), [
      ['Customer', 'Ticket', '1', '*', ''],
      ['Student', 'Course', '1', '1..*', ''],
      ['Galaxy', 'Star', '', 'many', 'Contains'],
    ]);
  });

  it('generics as <T>, annotations above the name, static underlined and abstract in italics, return types after ":"', () => {
    const parts = boxesPlanParts(
      [
        'classDiagram',
        'class Square~Shape~{',
        '    int id',
        '    List~int~ position',
        '    setPoints(List~int~ points)',
        '    getPoints() List~int~',
        '}',
        'Square : -List~string~ messages',
        'Square : +setMessages(List~string~ messages)',
        'Square : +getMessages() List~string~',
        'Square : +getDistanceMatrix() List~List~int~~',
        'class Shape{',
        '    <<interface>>',
        '    noOfVertices',
        '    draw()',
        '    someAbstractMethod()*',
        '    someStaticMethod()$',
        '    String someField$',
        '}',
        '<<Enumeration>> Color',
        'class Animal["Animal with a label"]',
        'class Bank <<service>>',
      ].join('\n'),
      'class',
    );
    const byId = Object.fromEntries(parts.nodes.map((n) => [n.id, n]));
    assert.deepEqual(byId.Square!.text.split('\n'), [
      'Square<Shape>',
      'int id',
      'List<int> position',
      '-List<string> messages',
      'setPoints(List<int> points)',
      'getPoints() : List<int>',
      '+setMessages(List<string> messages)',
      '+getMessages() : List<string>',
      '+getDistanceMatrix() : List<List<int>>',
    ]);
    assert.deepEqual(byId.Shape!.text.split('\n'), ['«interface»', 'Shape', 'noOfVertices', 'String someField', 'draw()', 'someAbstractMethod()', 'someStaticMethod()']);
    assert.match(byId.Shape!.html, /<p><u>String someField<\/u><\/p><p>draw\(\)<\/p><p><em>someAbstractMethod\(\)<\/em><\/p><p><u>someStaticMethod\(\)<\/u><\/p>$/);
    assert.match(byId.Square!.html, /<strong>Square&#60;Shape&#62;<\/strong>/, 'the generic is escaped, not a tag');
    assert.deepEqual(byId.Color!.text.split('\n'), ['«Enumeration»', 'Color']);
    assert.deepEqual(byId.Animal!.text.split('\n'), ['Animal with a label']);
    assert.deepEqual(byId.Bank!.text.split('\n'), ['«service»', 'Bank']);
  });

  it('namespaces as frames; direction decides the layout; style fill colours; styling and interaction listed as not drawn', () => {
    const parts = boxesPlanParts(
      [
        'classDiagram',
        'direction RL',
        'namespace BaseShapes {',
        '    class Triangle',
        '    class Rectangle {',
        '      double width',
        '      double height',
        '    }',
        '}',
        'namespace Empty {',
        '}',
        'Triangle <|-- Scalene',
        'style Scalene fill:#f9f,stroke:#333,stroke-width:4px',
        'classDef pink fill:#f9f',
        'cssClass "Scalene" pink',
        'class Triangle:::pink',
        'click Triangle href "https://example.com" "A link"',
        'link Rectangle "https://example.com"',
        'callback Rectangle "callbackFunction"',
        'note for Triangle "three sides"',
      ].join('\n'),
      'class',
    );
    assert.equal(parts.layout, 'RL');
    assert.deepEqual(parts.frames, [{ title: 'BaseShapes', key: 'BaseShapes' }]);
    assert.deepEqual(parts.nodes.map((n) => [n.id, n.frame]), [['Triangle', 0], ['Rectangle', 0], ['Scalene', undefined]]);
    assert.equal(parts.nodes[2]!.color, '#ff99ff');
    assert.deepEqual(parts.notes, [
      'line 13: style other than fill is not drawn',
      'line 14: classDef is not drawn (styling, interaction and titles are left out)',
      'line 15: cssClass is not drawn (styling, interaction and titles are left out)',
      'line 16: the class of Triangle (:::) is not drawn',
      'line 17: click is not drawn (styling, interaction and titles are left out)',
      'line 18: link is not drawn (styling, interaction and titles are left out)',
      'line 19: callback is not drawn (styling, interaction and titles are left out)',
      'line 20: notes are not drawn',
      'line 10: the namespace "Empty" has no classes and is not drawn',
    ]);
  });

  it('a long member list: the first 30 shown, the rest counted in the box and in not_drawn', () => {
    const members = Array.from({ length: 45 }, (_, i) => `    +int field${i}`);
    const parts = boxesPlanParts(['classDiagram', 'class Big {', ...members, '}'].join('\n'), 'class');
    const lines = parts.nodes[0]!.text.split('\n');
    assert.equal(lines.length, 32);
    assert.equal(lines[30], '+int field29');
    assert.equal(lines[31], '… 15 more');
    assert.deepEqual(parts.notes, ['line 2: class Big shows its first 30 of 45 members (at most 30 a box)']);
  });

  it('refuses what it cannot read, each with its line; a relation of a class with itself is listed as not drawn', () => {
    assert.deepEqual(
      problemsOf(['classDiagram', 'A ->> B', 'class C {', '  +x', '}', 'namespace N {', '  namespace M {', '}', 'D <|--', 'E :', 'F --> F', '}'].join('\n')),
      [
        'line 2: expected a relation (<|--, *--, o--, -->, --, ..>, ..|>, .., or ": member") at "->> B"',
        'line 7: a namespace inside a namespace is not drawn: frames do not nest on the board',
        'line 9: the relation has no class at its end',
        'line 10: nothing after "E :": write a member, e.g. E : +int id',
        'line 12: "}" closes no class or namespace',
      ],
    );
    assert.deepEqual(problemsOf('classDiagram\nclass Open {\n  +x'), ['line 2: the class Open\'s "{" has no closing "}"']);
    assert.deepEqual(problemsOf('classDiagram\nA <|---- B'), ['line 2: "<|---" is not a relation: write <|--, *--, o--, -->, --, ..>, ..|> or ..']);
    assert.deepEqual(problemsOf('classDiagram\n'), ['the class diagram has no classes']);
    assert.deepEqual(problemsOf('classDiagram\nitem:3458764612345 <|-- B'), ['line 2: item:<ID> (an item already on the board) is read in flowcharts only; a class diagram draws its own classes']);
    assert.deepEqual(problemsOf('classDiagram\ndirection UP\nA --> B'), ['line 2: "UP" is not a direction: one of TB, TD, BT, LR, RL']);
    assert.deepEqual(problemsOf(`classDiagram\nA : ${'x'.repeat(201)}`), [`line 2: "${'x'.repeat(30)}..." is 201 characters; a field is at most 200`]);
    assert.deepEqual(problemsOf(`classDiagram\n${Array.from({ length: 201 }, (_, i) => `class C${i}`).join('\n')}`), ['line 202: more than 200 classes']);
    assert.deepEqual(boxesPlanParts('classDiagram\nEmployee --> Employee : manages', 'class').notes, ['line 2: the relation of Employee with itself is not drawn (a connector joins two different items)']);
  });

  it('is linear: 50,000 characters of members read at once', () => {
    const text = `classDiagram\nclass Big {\n${'  +int field\n'.repeat(3_800)}}`;
    assert.ok(text.length > 49_000 && text.length <= 50_000);
    assert.equal(parseClassDiagram(text).boxes[0]!.fields.length, 3_800);
  });
});

describe('CreateDiagram with a class diagram, against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('the documentation\'s animals: a box per class with every member, inheritance with hollow triangles at Animal, parents above, clear of the board', async () => {
    const { board, before: existing } = await boardWithItems(sandbox, 'Animals');
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: ANIMALS });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '4 of 4 nodes and 3 of 3 connectors created.');
    assert.deepEqual(data.not_drawn, ['lines 1-3: the front matter (title, config) is not drawn', 'line 5: notes are not drawn', 'line 7: notes are not drawn']);
    const { items, connectors } = await checkBoxes(sandbox, board, data, existing, ANIMAL_BOXES);
    assert.deepEqual(connectors, ['Animal -> Duck [triangle none normal] ', 'Animal -> Fish [triangle none normal] ', 'Animal -> Zebra [triangle none normal] ']);
    const y = (name: string) => items.find((i) => i.id === data.node_items[name]).position.y;
    for (const child of ['Duck', 'Fish', 'Zebra']) assert.ok(y('Animal') < y(child), `Animal above ${child}`);
    assert.ok(data.bounds && data.placed, 'placed clear of the board, and says where');
  });

  it('direction LR: parents left of their children, each connector leaving the side that faces the other box', async () => {
    const { board, before: existing } = await boardWithItems(sandbox, 'Animals LR');
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: ANIMALS.replace('classDiagram', 'classDiagram\n    direction LR') });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    const { items, connectors } = await checkBoxes(sandbox, board, data, existing, ANIMAL_BOXES);
    assert.equal(connectors.length, 3);
    const item = (name: string) => items.find((i) => i.id === data.node_items[name]);
    for (const child of ['Duck', 'Fish', 'Zebra']) assert.ok(item('Animal').position.x + item('Animal').geometry.width / 2 < item(child).position.x - item(child).geometry.width / 2, `Animal left of ${child}`);
    const ends = (await boardConnectors(sandbox, board)).map((c: J) => [c.startItem.position.x, c.endItem.position.x]);
    assert.deepEqual(ends, [['100%', '0%'], ['100%', '0%'], ['100%', '0%']], 'out of Animal\'s right side, into each child\'s left');
  });

  it('every kind of relation, with cardinalities near their ends and the label in the middle', async () => {
    const { board, before: existing } = await boardWithItems(sandbox, 'Relations');
    const mermaid = `${RELATIONS}\nCustomer "1" --> "*" Ticket : opens\nAnimal <|--|> Zebra\nbar ()-- foo`;
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    const names = 'ABCDEFGHIJKLMNOP'.split('').map((c) => `class${c}`);
    const expected = Object.fromEntries([...names, 'Customer', 'Ticket', 'Animal', 'Zebra', 'bar', 'foo'].map((name) => [name, [name]]));
    const { connectors } = await checkBoxes(sandbox, board, data, existing, expected);
    assert.deepEqual(connectors, [
      'classA -> classB [none triangle normal] Inheritance@50%',
      'classC -> classD [none filled_diamond normal] Composition@50%',
      'classE -> classF [none diamond normal] Aggregation@50%',
      'classG -> classH [none arrow normal] Association@50%',
      'classI -> classJ [none none normal] Link(Solid)@50%',
      'classK -> classL [none arrow dashed] Dependency@50%',
      'classM -> classN [none triangle dashed] Realization@50%',
      'classO -> classP [none none dashed] Link(Dashed)@50%',
      'Customer -> Ticket [none arrow normal] opens@50%, 1@12%, *@88%',
      'Animal -> Zebra [triangle triangle normal] ',
      'bar -> foo [oval none normal] ',
    ]);
  });

  it('namespaces are frames holding their classes; generics and annotations shown; a style fill colours its box', async () => {
    const { board, before: existing } = await boardWithItems(sandbox, 'Namespaces');
    const mermaid = ['classDiagram', 'namespace Shapes {', '  class Shape{', '    <<interface>>', '    +draw()', '  }', '  class Square~T~', '}', 'Shape <|.. Square', 'Square : +List~T~ corners', 'style Square fill:#a6ccf5'].join('\n');
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    assert.equal(data.summary, '2 of 2 nodes and 1 of 1 connectors created in 1 frame.');
    const { items, connectors } = await checkBoxes(sandbox, board, data, existing, { Shape: ['«interface»', 'Shape', '+draw()'], Square: ['Square<T>', '+List<T> corners'] });
    assert.deepEqual(connectors, ['Shape -> Square [triangle none dashed] ']);
    const frame = items.find((i) => i.id === data.frames.Shapes);
    assert.equal(frame.data.title, 'Shapes');
    for (const name of ['Shape', 'Square']) {
      const item = items.find((i) => i.id === data.node_items[name]);
      assert.equal(item.parent?.id, frame.id, `${name} is in the frame`);
      assert.ok(item.position.x - item.geometry.width / 2 >= 0 && item.position.x + item.geometry.width / 2 <= frame.geometry.width, `${name} inside across`);
      assert.ok(item.position.y - item.geometry.height / 2 >= 0 && item.position.y + item.geometry.height / 2 <= frame.geometry.height, `${name} inside down`);
    }
    assert.equal((await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${data.node_items.Square}`)).style.fillColor, '#a6ccf5');
  });

  it('a diagram it cannot read is refused with its lines, nothing sent', async () => {
    const { board } = await boardWithItems(sandbox, 'Refused');
    const sent = sandbox.requests.length;
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: 'classDiagram\nA <|-- B\nA ~~ C\nclass D {' });
    assert.equal(result.isError, true);
    const data = result.data as J;
    assert.equal(data.kind, 'invalid_input');
    assert.deepEqual(data.issues.map((i: J) => [i.parameter, i.problem]), [
      ['mermaid', 'line 3: expected a relation (<|--, *--, o--, -->, --, ..>, ..|>, .., or ": member") at "~~ C"'],
      ['mermaid', 'line 4: the class D\'s "{" has no closing "}"'],
    ]);
    assert.equal(sandbox.requests.length, sent, 'nothing was sent');
  });

  it('every request sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    for (const sent of ['/items/bulk', '/connectors', '/frames']) assert.ok(requests.some((r) => r.method === 'POST' && r.path.endsWith(sent)), `a POST to ${sent} was checked`);
  });
});
