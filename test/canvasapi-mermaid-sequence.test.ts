/**
 * CreateDiagram with Mermaid sequenceDiagram text: the reader on Mermaid's documented examples
 * (participants, actors, aliases, every arrow, self-messages, autonumber, notes, blocks, box),
 * refusals by line and what is listed as not drawn; then the drawing against the sandbox, read
 * back by raw HTTP: participants in a row in order, a lifeline under each, each message a
 * connector between the right lifelines at its height in order with its label and arrowheads,
 * notes beside or over their lifelines, blocks behind their messages, clear of the board's items,
 * every request valid for the official spec; and the cost against the contract's tools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { MermaidError } from '../src/canvasapi/tasks/mermaid.js';
import { parseSequence } from '../src/canvasapi/tasks/mermaid-sequence.js';
import { toPictureConnectors } from '../src/canvasapi/tasks/board-picture.js';
import { callTool, canvasApiServerFor, canvasApiWithSecondBulkFailing, startTestSandbox } from './support/harness.js';
import { assertCostRow, costTally } from './support/task-cost.js';
import { boardItems, platform } from './support/sandbox-board.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';
import { createDiagramBudget, MERMAID_CHARS } from '../src/canvasapi/task-vocabulary.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any


/** Mermaid's documentation, "Sequence diagrams": its first examples, joined. */
const DOCS_EXAMPLE = `sequenceDiagram
    autonumber
    participant Alice
    actor John as John Doe
    Alice->>John: Hello John, how are you?
    loop HealthCheck
        John->>John: Fight against hypochondria
    end
    Note right of John: Rational thoughts <br/>prevail!
    John-->>Alice: Great!
    John->>Bob: How about you?
    Bob-->>John: Jolly good!
    alt is sick
        Bob->>+John: Not so good :(
    else is well
        Bob-)John: Feeling fresh like a daisy
    end
    Note over Alice,John: A typical interaction
    activate John
    John--xAlice: Bye
    deactivate John`;

const refusal = (text: string): string[] => {
  try {
    parseSequence(text);
  } catch (error) {
    if (error instanceof MermaidError) return error.problems;
    throw error;
  }
  assert.fail('expected a refusal');
};

describe('the sequenceDiagram reader', () => {
  it('reads the documented example: participants in order, aliases, actors, messages, notes, blocks, numbering', () => {
    const d = parseSequence(DOCS_EXAMPLE);
    assert.deepEqual(d.participants.map((p) => [p.id, p.label, p.actor]), [['Alice', 'Alice', false], ['John', 'John Doe', true], ['Bob', 'Bob', false]]);
    const messages = d.events.filter((e) => e.kind === 'message') as J[];
    assert.deepEqual(messages.map((m) => [m.from, m.to, m.text, m.line]), [
      ['Alice', 'John', '1. Hello John, how are you?', 5],
      ['John', 'John', '2. Fight against hypochondria', 7],
      ['John', 'Alice', '3. Great!', 10],
      ['John', 'Bob', '4. How about you?', 11],
      ['Bob', 'John', '5. Jolly good!', 12],
      ['Bob', 'John', '6. Not so good :(', 14],
      ['Bob', 'John', '7. Feeling fresh like a daisy', 16],
      ['John', 'Alice', '8. Bye', 20],
    ]);
    assert.deepEqual(messages.map((m) => `${m.arrow.stroke} ${m.arrow.head}`), ['solid arrow', 'solid arrow', 'dotted arrow', 'solid arrow', 'dotted arrow', 'solid arrow', 'solid open', 'dotted cross']);
    const notes = d.events.filter((e) => e.kind === 'note') as J[];
    assert.deepEqual(notes.map((n) => [n.side, n.actors, n.text]), [['right', ['John'], 'Rational thoughts\nprevail!'], ['over', ['Alice', 'John'], 'A typical interaction']]);
    assert.deepEqual(d.blocks.map((b) => b.sections.map((s) => `${s.label} @${s.line}`)), [['loop: HealthCheck @6'], ['alt: is sick @13', 'else: is well @15']]);
    assert.deepEqual(d.events.filter((e) => e.kind === 'activate' || e.kind === 'deactivate'), [{ kind: 'activate', who: 'John', line: 14 }, { kind: 'activate', who: 'John', line: 19 }, { kind: 'deactivate', who: 'John', line: 21 }]);
    assert.deepEqual(d.ignored, []);
  });

  it('reads every arrow of the documented table', () => {
    const arrows = ['->', '-->', '->>', '-->>', '<<->>', '<<-->>', '-x', '--x', '-)', '--)'];
    const d = parseSequence(`sequenceDiagram\n${arrows.map((arrow) => `A${arrow}B: ${arrow}`).join('\n')}`);
    const got = (d.events as J[]).map((m) => `${m.text}: ${m.arrow.stroke} ${m.arrow.head}${m.arrow.both ? ' both' : ''}`);
    assert.deepEqual(got, ['->: solid none', '-->: dotted none', '->>: solid arrow', '-->>: dotted arrow', '<<->>: solid arrow both', '<<-->>: dotted arrow both', '-x: solid cross', '--x: dotted cross', '-): solid open', '--): dotted open']);
  });

  it('reads par/and, critical/option, break, opt, rect (nested), box, autonumber with a start and step, and names with dashes', () => {
    const d = parseSequence(`sequenceDiagram
  box rgb(33,66,99) The team
  participant Web-App
  participant API
  end
  autonumber 10 5
  par Alice to Bob
    Alice->>Bob: Hello guys!
  and Alice to John
    Alice->>John: Hello guys!
  end
  critical Establish a connection to the DB
    Service-->DB: connect
  option Network timeout
    Service-->Service: Log error
  end
  rect rgba(0, 0, 255, .1)
    opt Extra response
      Web-App->>API: Thanks
    end
  end
  break when the booking process fails
    API-->Consumer: show failure
  end
  autonumber off
  API->>Web-App: done
  title: Not drawn`);
    assert.deepEqual(d.participants.map((p) => p.id), ['Web-App', 'API', 'Alice', 'Bob', 'John', 'Service', 'DB', 'Consumer']);
    assert.deepEqual(d.boxes, [{ label: 'The team', line: 2, color: '#214263', members: ['Web-App', 'API'] }]);
    assert.deepEqual((d.events.filter((e) => e.kind === 'message') as J[]).map((m) => m.text), ['10. Hello guys!', '15. Hello guys!', '20. connect', '25. Log error', '30. Thanks', '35. show failure', 'done']);
    assert.deepEqual(d.blocks.map((b) => [b.keyword, b.depth, b.sections.map((s) => s.label)]), [
      ['par', 0, ['par: Alice to Bob', 'and: Alice to John']],
      ['critical', 0, ['critical: Establish a connection to the DB', 'option: Network timeout']],
      ['rect', 0, ['']],
      ['opt', 1, ['opt: Extra response']],
      ['break', 0, ['break: when the booking process fails']],
    ]);
    assert.equal(d.blocks[2]!.sections[0]!.color, '#0000ff');
    assert.deepEqual(d.ignored, ['line 25: "autonumber off" stops the numbering', 'line 27: title and accessibility lines are not drawn']);
  });

  it('reads typed participants (@{ "type": ... }) as their shapes, their alias as the label', () => {
    const d = parseSequence(`sequenceDiagram
  participant API@{ "type": "boundary", "alias": "Public API" }
  participant DB@{ "type" : "database" }
  participant Q@{ "type": "queue" }
  participant S@{ "type": "spaceship", "colour": "red" }
  API->>DB: read`);
    assert.deepEqual(d.participants.map((p) => [p.id, p.label, p.shape]), [['API', 'Public API', 'round_rectangle'], ['DB', 'DB', 'can'], ['Q', 'Q', 'can'], ['S', 'S', undefined]]);
    assert.deepEqual(d.ignored, ['line 5: the type "spaceship" is drawn as a rectangle; colour not drawn']);
  });

  it('refuses what it cannot read, each problem with its line, at most 10', () => {
    assert.deepEqual(refusal('sequenceDiagram\n  Alice->>John: hi\n  Alice says hello\n  else nope\n  end'), [
      'line 3: "Alice says hello" is not a statement of a sequence diagram: a message is "A->>B: text" (arrows ->, -->, ->>, -->>, -x, --x, -), --), <<->>)',
      'line 4: "else" is not inside a block it belongs to (else inside alt, and inside par, option inside critical)',
      'line 5: "end" closes no block or box',
    ]);
    assert.deepEqual(refusal('sequenceDiagram\n  loop forever\n    A->>B: x'), ['line 2: the loop block has no "end"']);
    assert.deepEqual(refusal('sequenceDiagram\n  Note above A: x'), ['line 2: a note is placed "right of", "left of" or "over" a participant, not "above A"']);
    assert.deepEqual(refusal('sequenceDiagram\n  Note right of A,B: x'), ['line 2: a note right of one participant: "Note right of A: text"']);
    assert.deepEqual(refusal('sequenceDiagram\n  A->>: x'), ['line 2: the message names no participant after its arrow']);
    assert.deepEqual(refusal('sequenceDiagram\n  rect blue\n  end'), ['line 2: rect takes a colour: rect rgb(200, 150, 255) or rect rgba(0, 0, 255, .1)', 'line 3: "end" closes no block or box']);
    assert.deepEqual(refusal('sequenceDiagram\n  participant A@{ type: database }'), ['line 2: the participant\'s "@{ ... }" is not read: write it as JSON, e.g. participant A@{ "type": "database" }']);
    assert.deepEqual(refusal('sequenceDiagram\n  A->>B: hi\n  B-->>-A: back'), ['line 3: B is not active: nothing to deactivate']);
    assert.deepEqual(refusal('sequenceDiagram\n  autonumber x'), ['line 2: autonumber takes at most a start and a step, whole numbers: "autonumber", "autonumber 10 5" or "autonumber off"']);
    assert.equal(refusal(`sequenceDiagram\n${'x\n'.repeat(30)}`).length, 10);
    assert.deepEqual(refusal(`sequenceDiagram\n${'loop x\nend\n'.repeat(5000)}`).slice(0, 2), ['line 402: more than 200 shapes (each participant and its lifeline, each note, block section, box, activation and self-message)', 'line 403: "end" closes no block or box']);
    assert.equal(refusal(`sequenceDiagram\n${'A->>B: x\n'.repeat(401)}`)[0], 'line 402: more than 400 messages');
  });
});

/** A connector end's height on the board: its item's top plus its relative y. */
const endY = (item: J, end: J) => item.position.y - item.geometry.height / 2 + (Number.parseFloat(end.position.y) / 100) * item.geometry.height;
const decoded = (content: string) => content.replace(/<\/?p>/g, '').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
interface Box { left: number; top: number; right: number; bottom: number }
const boxOf = (item: J): Box => ({ left: item.position.x - item.geometry.width / 2, top: item.position.y - (item.geometry.height ?? item.geometry.width) / 2, right: item.position.x + item.geometry.width / 2, bottom: item.position.y + (item.geometry.height ?? item.geometry.width) / 2 });
const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('CreateDiagram draws a sequence diagram on the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('participants in a row, lifelines under them, messages in order with labels and arrowheads, notes and blocks in place, clear of the board', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Sequence' })).id as string;
    await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, [
      { type: 'sticky_note', data: { content: '<p>Already here</p>' }, position: { x: 0, y: 0 }, geometry: { width: 200 } },
      { type: 'shape', data: { content: '<p>Old shape</p>', shape: 'rectangle' }, position: { x: 700, y: 300 }, geometry: { width: 400, height: 200 } },
    ]);
    const existing = await boardItems(sandbox, board);
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: DOCS_EXAMPLE });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    // 3 participants, 3 lifelines, 2 notes, 3 block sections, 2 activations, 1 self-message box; 8 messages.
    assert.equal(data.summary, '14 of 14 shapes (participants, lifelines, notes, blocks) and 8 of 8 messages created.');
    assert.deepEqual(Object.keys(data.node_items).sort(), ['line 13', 'line 14', 'line 15', 'line 19', 'line 6', 'lifelines.Alice', 'lifelines.Bob', 'lifelines.John', 'messages[1].self', 'notes[0]', 'notes[1]', 'participants.Alice', 'participants.Bob', 'participants.John'].sort());
    assert.equal(data.not_drawn, undefined);
    assert.match(data.placed, /^14 new nodes right of the 2 items read on the board, clear of them$/);

    const items = await boardItems(sandbox, board);
    const byId = new Map(items.map((item) => [item.id, item]));
    const item = (key: string) => byId.get(data.node_items[key]);
    // Participants: a row, in order of appearance, with their labels; the actor an ellipse.
    const heads = ['Alice', 'John', 'Bob'].map((id) => item(`participants.${id}`));
    assert.deepEqual(heads.map((h) => decoded(h.data.content)), ['Alice', 'John Doe', 'Bob']);
    assert.deepEqual(heads.map((h) => h.data.shape), ['rectangle', 'circle', 'rectangle']);
    assert.ok(heads.every((h) => h.position.y === heads[0].position.y), 'one row');
    assert.ok(heads[0].position.x < heads[1].position.x && heads[1].position.x < heads[2].position.x, 'in order of appearance');
    // Lifelines: under each head, thin and tall, down past the last message.
    const lifelines = new Map(['Alice', 'John', 'Bob'].map((id, i) => {
      const line = item(`lifelines.${id}`);
      assert.equal(line.position.x, heads[i].position.x);
      assert.ok(boxOf(line).top >= boxOf(heads[i]).bottom - 0.5, `${id}'s lifeline starts under its head`);
      assert.ok(line.geometry.width <= 10 && line.geometry.height > 500);
      return [line.id, line];
    }));
    // Messages: connector_items in order, each between the right lifelines, at increasing heights, labelled, with its arrow.
    const connectors = new Map<string, J>();
    for (let cursor = ''; ;) {
      const page = await platform(sandbox, 'GET', `/v2/boards/${board}/connectors?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      for (const c of page.data) connectors.set(c.id, c);
      if (!page.cursor) break;
      cursor = page.cursor;
    }
    assert.equal(connectors.size, 8);
    const expected = [
      ['Alice', 'John', '1. Hello John, how are you?', 'normal', 'stealth'],
      ['John', 'John', '2. Fight against hypochondria', 'normal', 'stealth'],
      ['John', 'Alice', '3. Great!', 'dashed', 'stealth'],
      ['John', 'Bob', '4. How about you?', 'normal', 'stealth'],
      ['Bob', 'John', '5. Jolly good!', 'dashed', 'stealth'],
      ['Bob', 'John', '6. Not so good :(', 'normal', 'stealth'],
      ['Bob', 'John', '7. Feeling fresh like a daisy', 'normal', 'arrow'],
      ['John', 'Alice', '8. Bye', 'dashed', 'filled_oval'],
    ];
    let previous = -Infinity;
    const heightOf: number[] = [];
    for (const [i, [from, to, label, stroke, cap]] of expected.entries()) {
      const c = connectors.get(data.connector_items[i]);
      assert.ok(c, `messages[${i}] exists`);
      assert.equal(c.startItem.id, data.node_items[`lifelines.${from}`]);
      assert.equal(c.endItem.id, from === to ? data.node_items['messages[1].self'] : data.node_items[`lifelines.${to}`]);
      assert.equal(decoded(c.captions[0].content), label);
      assert.equal(c.style.strokeStyle, stroke);
      assert.equal(c.style.endStrokeCap, cap);
      const y = endY(lifelines.get(c.startItem.id), c.startItem);
      if (from !== to) assert.ok(Math.abs(endY(lifelines.get(c.endItem.id), c.endItem) - y) < 0.5, `messages[${i}] is level`);
      assert.ok(y > previous + 20, `messages[${i}] below the one before`);
      heightOf.push(y);
      previous = y;
    }
    // The self-message's box sits right beside its lifeline, just below the message.
    const self = boxOf(item('messages[1].self'));
    assert.ok(self.left >= boxOf(item('lifelines.John')).right && self.left - boxOf(item('lifelines.John')).right < 20 && self.top > heightOf[1]! && self.top < heightOf[2]!);
    // Notes: right of John between messages 2 and 3; over Alice and John after message 7.
    const note0 = boxOf(item('notes[0]'));
    assert.equal(decoded(item('notes[0]').data.content), 'Rational thoughts\nprevail!');
    assert.ok(note0.left > heads[1].position.x && note0.top > heightOf[1]! && note0.bottom < heightOf[2]!, 'note 0 right of John, in its place');
    const note1 = boxOf(item('notes[1]'));
    assert.ok(note1.left < heads[0].position.x && note1.right > heads[1].position.x && note1.top > heightOf[6]! && note1.bottom < heightOf[7]!, 'note 1 over Alice and John, in its place');
    // Blocks: each section's box holds its messages; the alt's sections stack.
    const loop = boxOf(item('line 6'));
    assert.equal(decoded(item('line 6').data.content), 'loop: HealthCheck');
    assert.ok(loop.top < heightOf[1]! && loop.bottom > heightOf[1]! && loop.bottom < heightOf[2]!);
    const [alt, otherwise] = [boxOf(item('line 13')), boxOf(item('line 15'))];
    assert.equal(decoded(item('line 15').data.content), 'else: is well');
    assert.ok(alt.top < heightOf[5]! && alt.bottom > heightOf[5]! && otherwise.top >= alt.bottom - 0.5 && otherwise.bottom > heightOf[6]! && otherwise.bottom < heightOf[7]!);
    assert.ok(alt.left < heads[1].position.x && alt.right > heads[2].position.x, 'the alt spans John and Bob');
    // Activations: John's from "Bob->>+John" (message 6) to the end, and a nested one around message 8.
    const [outer, inner] = [boxOf(item('line 14')), boxOf(item('line 19'))];
    const john = heads[1].position.x;
    assert.ok(outer.left < john && outer.right > john && Math.abs(outer.top - heightOf[5]!) < 0.5 && outer.bottom >= heightOf[7]!);
    assert.ok(inner.left > outer.left && inner.left < john && inner.top < heightOf[7]! && inner.bottom > heightOf[7]! && inner.bottom <= outer.bottom);
    // Clear of what was on the board, within the answer's bounds.
    const created = items.filter((i) => !existing.some((e) => e.id === i.id));
    assert.equal(created.length, 14);
    for (const mine of created) {
      for (const old of existing) assert.ok(!overlap(boxOf(mine), boxOf(old)), `${mine.id} clear of ${old.id}`);
      const b = boxOf(mine);
      assert.ok(b.left >= data.bounds.left - 0.5 && b.right <= data.bounds.right + 0.5 && b.top >= data.bounds.top - 0.5 && b.bottom <= data.bounds.bottom + 0.5);
    }
  });

  it('a frame_title frame holds the whole diagram; bad input is refused with its line, nothing sent', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Sequence framed' })).id as string;
    const framed = (await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid: 'sequenceDiagram\n  A->>B: hi\n  B-->>A: hello', frame_title: 'Greeting', origin_x: 100, origin_y: 100 })).data as J;
    assert.equal(framed.summary, '4 of 4 shapes (participants, lifelines, notes, blocks) and 2 of 2 messages created in frame ' + framed.frame.id + '.');
    const items = await boardItems(sandbox, board);
    const frame = items.find((i) => i.type === 'frame');
    assert.equal(frame.data.title, 'Greeting');
    for (const i of items.filter((i) => i.type !== 'frame')) {
      assert.equal(i.parent?.id, frame.id);
      assert.ok(i.position.x - i.geometry.width / 2 >= 0 && i.position.x + i.geometry.width / 2 <= frame.geometry.width && i.position.y - i.geometry.height / 2 >= 0 && i.position.y + i.geometry.height / 2 <= frame.geometry.height);
    }
    const sentBefore = sandbox.requests.length;
    for (const [mermaid, problem] of [
      ['sequenceDiagram\n  A->>B: hi\n  loop\n  A->>B: x', 'line 3: the loop block has no "end"'],
      [`sequenceDiagram\n  A->>B: ${'<'.repeat(50)}`, 'line 2: the message\'s text is 250 characters once HTML-escaped'],
      [`sequenceDiagram\n${Array.from({ length: 101 }, (_, i) => `  participant P${i}`).join('\n')}`, 'line 102: more than 200 shapes'],
    ] as const) {
      const refused = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid });
      assert.equal(refused.isError, true);
      const issues = (refused.data as J).issues as J[];
      assert.equal(issues[0].parameter, 'mermaid');
      assert.ok(issues[0].problem.startsWith(problem), issues[0].problem);
    }
    assert.equal(sandbox.requests.length, sentBefore, 'nothing was sent');
  });

  it('every request sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    const connectors = requests.filter((r) => r.method === 'POST' && r.path.endsWith('/connectors'));
    assert.ok(connectors.length >= 10 && connectors.some((r) => (r.body as J).startItem.position), 'connectors with relative ends were checked');
  });
});

describe('a sequence diagram against the contract tools: calls and tokens', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('a 3-participant sequence of 6 messages and a note: the contract plan vs one call, the figures docs/tasks.md gives', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Sequence cost' })).id as string;
    const { cost, call } = costTally(server);
    const messages: [number, number, string][] = [[0, 1, 'Log in'], [1, 2, 'Check password'], [2, 1, 'OK'], [1, 0, 'Session'], [0, 1, 'Get orders'], [1, 0, 'Orders']];
    const names = ['Browser', 'API', 'Auth'];
    // The contract plan: both body schemas, one bulk create of heads, lifelines and the note, a connector per message at its height.
    await call('contract', 'CanvasApi.AddItemsToCanvasBoard', { mode: 'get_request_schema' });
    await call('contract', 'CanvasApi.AddConnectorToBoard', { mode: 'get_request_schema' });
    const body = [
      ...names.map((name, i) => ({ type: 'shape', data: { content: name, shape: 'rectangle' }, position: { x: 9000 + i * 300, y: 0 }, geometry: { width: 200, height: 70 } })),
      ...names.map((_, i) => ({ type: 'shape', data: { content: '', shape: 'rectangle' }, position: { x: 9000 + i * 300, y: 300 }, geometry: { width: 8, height: 500 } })),
      { type: 'shape', data: { content: 'Passwords are hashed', shape: 'rectangle' }, style: { fillColor: '#fff9b1' }, position: { x: 9700, y: 200 }, geometry: { width: 180, height: 50 } },
    ];
    const made = await call('contract', 'CanvasApi.AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: board, request_body: body });
    const lifelines = (made.data as J[]).slice(3, 6).map((i) => i.id);
    for (const [k, [from, to, label]] of messages.entries()) {
      const at = { x: '50%', y: `${10 + k * 12}%` };
      await call('contract', 'CanvasApi.AddConnectorToBoard', { mode: 'execute', board_unique_id: board, request_body: { startItem: { id: lifelines[from], position: at }, endItem: { id: lifelines[to], position: at }, shape: 'straight', captions: [{ content: label }] } });
    }
    const mermaid = `sequenceDiagram\n${messages.map(([from, to, label], k) => `  ${names[from]}->>${names[to]}: ${label}${k === 1 ? '\n  Note right of Auth: Passwords are hashed' : ''}`).join('\n')}`;
    const drawn = await call('task', 'CanvasApi.CreateDiagram', { board_id: board, mermaid });
    assert.equal(drawn.connector_items.length, 6);
    assert.ok(cost.task.tokens < cost.contract.tokens / 2, `${cost.task.tokens} vs ${cost.contract.tokens}`);
    assertCostRow('A sequence of 3 participants, 6 messages and a note', cost, 'CreateDiagram `mermaid`');
  });
});

describe('a sequence diagram within the bounds', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('the largest allowed (200 shapes, 400 messages) is drawn within the call\'s request budget', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Largest sequence' })).id as string;
    const lines = ['sequenceDiagram', ...Array.from({ length: 50 }, (_, i) => `  participant P${i}`)];
    for (let k = 0; k < 400; k++) {
      lines.push(`  P${k % 49}->>P${(k % 49) + 1}: m${k}`);
      if (k % 4 === 0) lines.push(`  Note over P${k % 50}: n${k}`);
    }
    const mermaid = lines.join('\n');
    assert.ok(mermaid.length <= MERMAID_CHARS);
    sandbox.clearRequests();
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: board, mermaid });
    assert.equal(result.isError, false, JSON.stringify(result.data).slice(0, 300));
    assert.equal((result.data as J).summary, '200 of 200 shapes (participants, lifelines, notes, blocks) and 400 of 400 messages created.');
    const sent = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    // 10 bulk transactions, 400 connectors, the reads that place it.
    assert.equal(sent.filter((r) => r.path.endsWith('/items/bulk')).length, 10);
    assert.equal(sent.filter((r) => r.path.endsWith('/connectors')).length, 400);
    assert.ok(sent.length <= createDiagramBudget({ mermaid }).requests, `${sent.length} requests within ${createDiagramBudget({ mermaid }).requests}`);
  });

  it('reads the longest texts in linear time: pathological spacing, dashes and <br> runs', () => {
    for (const body of [' '.repeat(MERMAID_CHARS - 100), '-'.repeat(MERMAID_CHARS - 100), `A->>B: ${' <br'.repeat((MERMAID_CHARS - 100) / 4)}`, `A->>B: ${'#1'.repeat((MERMAID_CHARS - 100) / 2)}`]) {
      const started = performance.now();
      try {
        parseSequence(`sequenceDiagram\n${body}`);
      } catch (error) {
        if (!(error instanceof MermaidError)) throw error;
      }
      assert.ok(performance.now() - started < 1_000, `${body.slice(0, 10)}: ${performance.now() - started} ms`);
    }
  });
});

describe('the board view of a sequence diagram', () => {
  it('draws a message where its ends are attached on the lifelines, not at their middles', () => {
    const lifeline = (id: string, x: number) => ({ id, type: 'shape', x, y: 500, width: 8, height: 800, text: '' });
    const items = [lifeline('a', 0), lifeline('b', 300)];
    const at = { x: '50%', y: '12.50%' };
    const [message, centred] = toPictureConnectors([
      { id: 'm', startItem: { id: 'a', position: at }, endItem: { id: 'b', position: at }, shape: 'straight', style: {} },
      { id: 'c', startItem: { id: 'a', position: { x: '50%', y: '50%' } }, endItem: { id: 'b', position: { x: '50%', y: '50%' } }, shape: 'straight', style: {} },
    ], items);
    assert.deepEqual([message!.start.x, message!.start.y, message!.end.x, message!.end.y], [0, 200, 300, 200]);
    // The centre is how the platform reports an automatic end: drawn from the facing side.
    assert.deepEqual([centred!.start.x, centred!.start.side], [4, 'right']);
  });
});

describe('a sequence diagram when the second transaction fails', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  for (const mode of ['refused', 'lost-answer'] as const) {
    it(`${mode}: the shapes of the first transaction and the messages between them exist; the rest is named, messages by index, never sent twice`, async () => {
      const board = (await platform(sandbox, 'POST', '/v2/boards', { name: `Sequence faults ${mode}` })).id as string;
      // 10 loop sections, then 12 lifelines: the first transaction holds the sections and lifelines P0 to P9.
      const lines = ['sequenceDiagram', ...Array.from({ length: 12 }, (_, i) => `  participant P${i}`)];
      for (let k = 0; k < 10; k++) lines.push(`  loop round ${k}`, `    P${k}->>P${k + 1}: m${k}`, '  end');
      lines.push('  P10->>P11: last', '  P0->>P9: back');
      const result = await callTool(canvasApiWithSecondBulkFailing(sandbox, mode), 'CanvasApi.CreateDiagram', { board_id: board, mermaid: lines.join('\n'), origin_x: 0, origin_y: 0 });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      const data = result.data as J;
      const sections = Array.from({ length: 10 }, (_, k) => `line ${14 + 3 * k}`);
      const lifelines = Array.from({ length: 12 }, (_, i) => `lifelines.P${i}`);
      assert.deepEqual(Object.keys(data.node_items), [...sections, ...lifelines.slice(0, 10)]);
      assert.deepEqual(data.failed[0].nodes, [...lifelines.slice(10), ...Array.from({ length: 12 }, (_, i) => `participants.P${i}`)]);
      assert.equal(data.failed[0].outcome, mode === 'refused' ? 'not_created' : 'may_exist');
      // Messages 9 (P9->P10) and 10 (P10->P11) need a lifeline that is not known to exist: not sent.
      assert.deepEqual(data.not_sent, { edges: ['messages[9]', 'messages[10]'], retry_safe: true });
      assert.deepEqual(data.connector_items.map((id: string | null) => id !== null), [true, true, true, true, true, true, true, true, true, false, false, true]);
      assert.match(data.next_step, /never (draw )?this whole diagram again/i);
      const bulks = sandbox.requests.filter((r) => r.method === 'POST' && r.path === `/v2/boards/${encodeURIComponent(board)}/items/bulk`);
      assert.equal(bulks.length, mode === 'refused' ? 1 : 2, 'the failed transaction was not sent again');
      const items = await boardItems(sandbox, board);
      assert.equal(items.length, mode === 'refused' ? 20 : 34);
    });
  }
});
