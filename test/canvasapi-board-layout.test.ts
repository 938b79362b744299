/**
 * CanvasApi.CreateBoardLayout against the sandbox: each layout's frames, headers and sticky notes
 * read back by raw HTTP (text, colour, inside its frame, no overlaps, clear of what was on the
 * board), the per-item report naming exactly what was created, bad input refused with nothing
 * sent, every request valid for the official spec, a failure part-way reported without
 * duplicates, and the cost against the contract's tools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listTools, type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, startTestSandbox, canvasApiWithSecondBulkFailing } from './support/harness.js';
import { assertCostRow, costTally } from './support/task-cost.js';
import { boardItems, boardWithItems, platform } from './support/sandbox-board.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { createBoardLayoutDefinition } from '../src/canvasapi/tasks/index.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any


/** Per layout, what each section's notes and header must be coloured (the layout's palette, in order). */
const EXPECTED_COLOURS: Record<string, [string, string][]> = {
  retro: [['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A']],
  kanban: [['gray', '#C4C4C4'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A'], ['light_green', '#C9DF56']],
  two_by_two: [['light_green', '#C9DF56'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A'], ['light_pink', '#F16C7F']],
  swot: [['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['light_blue', '#6CD8FA'], ['orange', '#FF9D48']],
  brainstorm: [['yellow', '#FFDC4A'], ['light_blue', '#6CD8FA'], ['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['violet', '#B384BB'], ['orange', '#FF9D48']],
};

const texts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

const CASES: Record<string, { title?: string; sections: { title: string; items: string[] }[] }> = {
  retro: { title: 'Sprint 12', sections: [{ title: 'Went well', items: [...texts('Good', 5), 'Pairing & reviews'] }, { title: 'To improve', items: texts('Worse', 3) }, { title: 'Ideas', items: [] }, { title: 'Actions', items: texts('Do', 2) }] },
  kanban: { sections: [{ title: 'To do', items: texts('Task', 4) }, { title: 'Doing', items: texts('Busy', 2) }, { title: 'Done', items: texts('Shipped', 3) }] },
  two_by_two: { title: 'Effort vs impact', sections: [{ title: 'Quick wins', items: texts('Quick', 4) }, { title: 'Big bets', items: texts('Bet', 2) }, { title: 'Fill-ins', items: texts('Fill', 1) }, { title: 'Money pits', items: texts('Pit', 3) }] },
  swot: { sections: [{ title: 'Strengths', items: texts('S', 3) }, { title: 'Weaknesses', items: texts('W', 2) }, { title: 'Opportunities', items: texts('O', 4) }, { title: 'Threats', items: texts('T', 1) }] },
  brainstorm: { title: 'Onboarding', sections: [{ title: 'Email', items: texts('Mail', 7) }, { title: 'In-app', items: texts('App', 4) }, { title: 'Docs', items: texts('Doc', 2) }, { title: 'Support', items: texts('Help', 3) }, { title: 'Pricing', items: texts('Price', 1) }] },
};

interface Box { left: number; top: number; right: number; bottom: number }
const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const boxAt = (x: number, y: number, w: number, h: number): Box => ({ left: x - w / 2, top: y - h / 2, right: x + w / 2, bottom: y + h / 2 });
/** The platform's numeric character references, read back as the text. */
const decoded = (content: string) => content.replace(/<\/?p>/g, '').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));

/** Each item's box on the board: a frame's children are placed from its top-left corner. */
function absoluteBoxes(items: J[]): Map<string, Box> {
  const byId = new Map(items.map((item) => [item.id, item]));
  const boxes = new Map<string, Box>();
  for (const item of items) {
    const w = item.geometry?.width ?? 0;
    const h = item.geometry?.height ?? w;
    let { x, y } = item.position;
    if (item.parent?.id) {
      const frame = byId.get(item.parent.id);
      x += frame.position.x - frame.geometry.width / 2;
      y += frame.position.y - frame.geometry.height / 2;
    }
    boxes.set(item.id, boxAt(x, y, w, h));
  }
  return boxes;
}

describe('CanvasApi.CreateBoardLayout against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  /** The items list leaves style out: each item's own record has it. */
  const style = async (board: string, item: J) => (await platform(sandbox, 'GET', `/v2/boards/${board}/${({ shape: 'shapes', card: 'cards', sticky_note: 'sticky_notes' } as J)[item.type]}/${item.id}`)).style;

  /** Each member is in the frame, wholly inside it. */
  function assertInside(frame: J, members: J[]): void {
    for (const member of members) {
      assert.equal(member.parent?.id, frame.id, `${member.id} is in its frame`);
      const w = member.geometry.width;
      const h = member.geometry.height ?? w;
      assert.ok(member.position.x - w / 2 >= 0 && member.position.x + w / 2 <= frame.geometry.width, `${member.id} inside its frame across`);
      assert.ok(member.position.y - h / 2 >= 0 && member.position.y + h / 2 <= frame.geometry.height, `${member.id} inside its frame down`);
    }
  }

  /** What every layout must be: the report naming exactly the items created, none overlapping another or what was there, all within bounds. */
  async function checkDrawn(board: string, existing: J[], data: J, leaves: number, frameCount: number) {
    const items = await boardItems(sandbox, board);
    const byId = new Map(items.map((item) => [item.id, item]));
    const existingIds = new Set(existing.map((item) => item.id));
    const created = items.filter((item) => !existingIds.has(item.id));
    // The report lists exactly the created IDs: frames, then headers and notes.
    assert.deepEqual(new Set(Object.values(data.frames)), new Set(created.filter((i) => i.type === 'frame').map((i) => i.id)));
    assert.deepEqual(new Set(Object.values(data.node_items)), new Set(created.filter((i) => i.type !== 'frame').map((i) => i.id)));
    assert.equal(created.length, leaves + frameCount);
    assert.equal(Object.keys(data.node_items).length, leaves);
    // The audit line names the board, the frames and every item created (IDs only, no text).
    const targets = createBoardLayoutDefinition.auditTargets!({ board_id: board } as never, data) as J;
    assert.deepEqual(targets, { board_id: board, frame_ids: Object.values(data.frames), created_ids: Object.values(data.node_items) });

    const boxes = absoluteBoxes(items);
    const createdLeaves = created.filter((i) => i.type !== 'frame');
    for (let a = 0; a < createdLeaves.length; a++) {
      for (let b = a + 1; b < createdLeaves.length; b++) assert.ok(!overlap(boxes.get(createdLeaves[a].id)!, boxes.get(createdLeaves[b].id)!), `${createdLeaves[a].id} and ${createdLeaves[b].id} do not overlap`);
    }
    const frames = created.filter((i) => i.type === 'frame');
    for (let a = 0; a < frames.length; a++) {
      for (let b = a + 1; b < frames.length; b++) assert.ok(!overlap(boxes.get(frames[a].id)!, boxes.get(frames[b].id)!), 'frames do not overlap');
    }
    for (const item of created) for (const old of existing) assert.ok(!overlap(boxes.get(item.id)!, boxes.get(old.id)!), `${item.id} clear of ${old.id}`);
    // bounds: the box the answer gives holds every created item.
    for (const item of created) {
      const box = boxes.get(item.id)!;
      assert.ok(box.left >= data.bounds.left - 0.5 && box.right <= data.bounds.right + 0.5 && box.top >= data.bounds.top - 0.5 && box.bottom <= data.bounds.bottom + 0.5, `${item.id} within bounds`);
    }
    return { items, byId, boxes, created };
  }

  it('lists the tool in the tasks toolset only, not in everyday', () => {
    const names = (selections: J[]) => listTools(server, { selections }).map((tool) => tool.name);
    assert.ok(names([{ toolsets: ['tasks'] }]).includes('CanvasApi.CreateBoardLayout'));
    assert.ok(!names([{ profile: 'everyday' }]).includes('CanvasApi.CreateBoardLayout'));
    assert.ok(!names([]).includes('CanvasApi.CreateBoardLayout'));
  });

  for (const [layout, input] of Object.entries(CASES)) {
    it(`${layout}: frames, headers and notes with their text and colour, inside their frames, overlapping nothing`, async () => {
      const { board, before: existing } = await boardWithItems(sandbox, `Layout ${layout}`);
      const result = await callTool(server, 'CanvasApi.CreateBoardLayout', { board_id: board, layout, ...input });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      const data = result.data as J;
      const noteCount = input.sections.reduce((sum, s) => sum + s.items.length, 0);
      const total = noteCount + input.sections.length;
      // A kanban's items are cards (title, theme in the header's colour); the others' sticky notes.
      const cards = layout === 'kanban';
      assert.equal(data.summary, `${total} of ${total} items (headers and ${cards ? 'cards' : 'notes'}) created in ${input.sections.length} frames.`);
      assert.equal(data.failed, undefined);
      assert.equal(data.connector_items, undefined);
      assert.match(data.placed, /right of the 2 items read on the board/);

      const { byId } = await checkDrawn(board, existing, data, total, input.sections.length);
      const palette = EXPECTED_COLOURS[layout]!;
      for (const [s, section] of input.sections.entries()) {
        const frame = byId.get(data.frames[`sections[${s}]`]);
        assert.equal(frame.type, 'frame');
        assert.equal(frame.data.title, input.title ? `${input.title}: ${section.title}` : section.title);
        const header = byId.get(data.node_items[`sections[${s}].title`]);
        assert.equal(header.type, 'shape');
        assert.equal(decoded(header.data.content), section.title);
        assert.equal((await style(board, header)).fillColor.toUpperCase(), palette[s % palette.length]![1]);
        const members = [header];
        for (const [i, text] of section.items.entries()) {
          const note = byId.get(data.node_items[`sections[${s}].items[${i}]`]);
          if (cards) {
            assert.equal(note.type, 'card');
            assert.equal(decoded(note.data.title), text);
            assert.equal((await style(board, note)).cardTheme.toUpperCase(), palette[s % palette.length]![1]);
          } else {
            assert.equal(note.type, 'sticky_note');
            assert.equal(decoded(note.data.content), text);
            assert.equal((await style(board, note)).fillColor, palette[s % palette.length]![0]);
          }
          members.push(note);
        }
        assertInside(frame, members);
        // The header is above every note of its section.
        for (const member of members.slice(1)) assert.ok(member.position.y > header.position.y);
      }
      // Bulk creates of at most 20, ceil(total / 20) of them.
      const bulks = sandbox.requests.filter((r) => r.method === 'POST' && r.path === `/v2/boards/${encodeURIComponent(board)}/items/bulk`);
      assert.deepEqual(bulks.map((r) => (r.body as J[]).length), Array.from({ length: Math.ceil(total / 20) }, (_, i) => Math.min(20, total - 20 * i)));
    });
  }

  it('story_map: activities over their steps in the backbone, each release a frame with its stories under their steps', async () => {
    const { board, before: existing } = await boardWithItems(sandbox, 'Layout story map');
    const sections = [{ title: 'Sign up', items: ['Enter email', 'Confirm email'] }, { title: 'Find a product', items: ['Search', 'Browse', 'Filter'] }, { title: 'Pay', items: ['Checkout'] }];
    const releases = [
      { title: 'MVP', stories: [['Email form'], ['Link in mail'], ['Text search', 'Typo tolerance'], [], [], ['Card payment']] },
      { title: 'Later', stories: [[], [], [], ['Categories'], ['By price', 'By brand', 'By rating']] },
    ];
    const result = await callTool(server, 'CanvasApi.CreateBoardLayout', { board_id: board, layout: 'story_map', title: 'Shop', sections, releases });
    assert.equal(result.isError, false, JSON.stringify(result.data));
    const data = result.data as J;
    const stories = releases.reduce((n, r) => n + r.stories.flat().length, 0);
    const leaves = sections.length + 6 + releases.length + stories;
    assert.equal(data.summary, `${leaves} of ${leaves} items (headers and notes) created in 3 frames.`);
    const { byId, boxes } = await checkDrawn(board, existing, data, leaves, 1 + releases.length);
    const backbone = byId.get(data.frames.backbone);
    assert.equal(backbone.data.title, 'Shop: Backbone');
    const steps: J[] = [];
    for (const [a, section] of sections.entries()) {
      const activity = byId.get(data.node_items[`sections[${a}].title`]);
      assert.equal(decoded(activity.data.content), section.title);
      assert.equal((await style(board, activity)).fillColor.toUpperCase(), '#FF9D48');
      assertInside(backbone, [activity]);
      for (const [i, text] of section.items.entries()) {
        const step = byId.get(data.node_items[`sections[${a}].items[${i}]`]);
        assert.equal(decoded(step.data.content), text);
        assert.equal((await style(board, step)).fillColor, 'light_blue');
        assertInside(backbone, [step]);
        // Under its activity: within its header's span, below it.
        const [stepBox, activityBox] = [boxes.get(step.id)!, boxes.get(activity.id)!];
        assert.ok(stepBox.left >= activityBox.left && stepBox.right <= activityBox.right && stepBox.top > activityBox.bottom, `${text} under ${section.title}`);
        steps.push(step);
      }
    }
    let above = boxes.get(backbone.id)!.bottom;
    for (const [r, release] of releases.entries()) {
      const frame = byId.get(data.frames[`releases[${r}]`]);
      assert.equal(frame.data.title, `Shop: ${release.title}`);
      assert.ok(boxes.get(frame.id)!.top > above, `${release.title} below the frame before it`);
      above = boxes.get(frame.id)!.bottom;
      const header = byId.get(data.node_items[`releases[${r}].title`]);
      assert.equal(decoded(header.data.content), release.title);
      assertInside(frame, [header]);
      for (const [k, list] of release.stories.entries()) {
        for (const [j, text] of list.entries()) {
          const story = byId.get(data.node_items[`releases[${r}].stories[${k}][${j}]`]);
          assert.equal(decoded(story.data.content), text);
          assert.equal((await style(board, story)).fillColor, 'yellow');
          assertInside(frame, [story]);
          const [storyBox, stepBox] = [boxes.get(story.id)!, boxes.get(steps[k].id)!];
          assert.equal(storyBox.left, stepBox.left, `${text} in the column of step ${k}`);
        }
      }
    }
  });

  it('a layout at origin_x, origin_y starts its first frame there', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'At origin' })).id as string;
    const data = (await callTool(server, 'CanvasApi.CreateBoardLayout', { board_id: board, layout: 'kanban', sections: [{ title: 'A', items: ['a'] }, { title: 'B', items: [] }], origin_x: 5000, origin_y: -300 })).data as J;
    const frame = await platform(sandbox, 'GET', `/v2/boards/${board}/frames/${data.frames['sections[0]']}`);
    assert.equal(frame.position.x - frame.geometry.width / 2, 5000);
    assert.equal(frame.position.y - frame.geometry.height / 2, -300);
    assert.ok(!sandbox.requests.some((r) => r.method === 'GET' && r.path === `/v2/boards/${encodeURIComponent(board)}/items`), 'no reads to place it');
  });

  it('bad input is refused naming the parameter, with nothing sent', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Refusals' })).id as string;
    const sentBefore = sandbox.requests.length;
    const bad: [J, string, RegExp][] = [
      [{ layout: 'retro', sections: texts('c', 5).map((title) => ({ title, items: [] })) }, 'sections', /3 to 4 sections; got 5/],
      [{ layout: 'swot', sections: texts('c', 3).map((title) => ({ title, items: [] })) }, 'sections', /4 sections; got 3/],
      [{ layout: 'kanban', sections: [{ title: 'only', items: [] }] }, 'sections', /2 to 12/],
      [{ layout: 'timeline', sections: [{ title: 'a', items: [] }] }, 'layout', /one of retro, kanban, story_map, two_by_two, swot, brainstorm/],
      [{ layout: 'retro', sections: texts('c', 3).map((title) => ({ title, items: [] })), releases: [] }, 'releases', /story_map only/],
      [{ layout: 'story_map', sections: [{ title: 'a', items: ['s1', 's2'] }], releases: [{ title: 'r', stories: [[], [], ['x']] }] }, 'releases[0].stories', /3 lists, one per step; the sections have 2 steps/],
      [{ layout: 'story_map', sections: [{ title: 'a', items: ['s'] }], releases: [{ title: 'r', stories: [texts('x', 200)] }] }, 'releases', /201 items; at most 200/],
      [{ layout: 'story_map', sections: [{ title: 'a', items: ['s'] }], releases: Array.from({ length: 9 }, () => ({ title: 'r', stories: [] })) }, 'releases', /./],
      [{ layout: 'brainstorm', sections: [{ title: 'a', items: texts('x', 120) }, { title: 'b', items: texts('y', 81) }] }, 'sections', /201 items; at most 200/],
      [{ layout: 'brainstorm', sections: [{ title: 'a', items: ['x'.repeat(1001)] }] }, 'sections', /1000/],
      [{ layout: 'brainstorm', sections: [] }, 'sections', /at least one section/],
      [{ layout: 'brainstorm', sections: [{ title: ' ', items: [] }] }, 'sections', /./],
      [{ layout: 'brainstorm', sections: [{ title: 'a', items: [] }], colour: 'red' }, 'colour', /./],
    ];
    for (const [args, parameter, problem] of bad) {
      const result = await callTool(server, 'CanvasApi.CreateBoardLayout', { board_id: board, ...args });
      assert.equal(result.isError, true, JSON.stringify(args).slice(0, 80));
      const data = result.data as J;
      assert.equal(data.kind, 'invalid_input');
      const issue = (data.issues as J[]).find((i) => String(i.parameter).startsWith(parameter));
      assert.ok(issue, `${JSON.stringify(data.issues)} names ${parameter}`);
      assert.match(JSON.stringify(data.issues), problem);
    }
    assert.equal(sandbox.requests.length, sentBefore, 'nothing was sent');
  });

  it('every request sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    for (const sent of ['/items/bulk', '/frames', '/items']) assert.ok(requests.some((r) => r.path.endsWith(sent)), `a request to ${sent} was checked`);
  });
});

describe('CanvasApi.CreateBoardLayout when the second transaction fails', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox?.close();
  });

  const faultyServer = (mode: 'refused' | 'lost-answer') => canvasApiWithSecondBulkFailing(sandbox, mode);

  for (const mode of ['refused', 'lost-answer'] as const) {
    it(`${mode}: the report says exactly what exists, the advice never repeats the layout, nothing is created twice`, async () => {
      const board = (await platform(sandbox, 'POST', '/v2/boards', { name: `Faults ${mode}` })).id as string;
      // 3 headers and 45 notes: 48 items, transactions of 20, 20 and 8.
      const sections = [{ title: 'Went well', items: texts('Good', 15) }, { title: 'To improve', items: texts('Worse', 15) }, { title: 'Ideas', items: texts('Idea', 15) }];
      const ids = sections.flatMap((s, i) => [`sections[${i}].title`, ...s.items.map((_, j) => `sections[${i}].items[${j}]`)]);
      const result = await callTool(faultyServer(mode), 'CanvasApi.CreateBoardLayout', { board_id: board, layout: 'retro', sections });
      assert.equal(result.isError, false, JSON.stringify(result.data));
      const data = result.data as J;
      assert.deepEqual(Object.keys(data.node_items), ids.slice(0, 20));
      assert.equal(data.failed.length, 1);
      assert.deepEqual(data.failed[0].nodes, ids.slice(20, 40));
      assert.equal(data.failed[0].outcome, mode === 'refused' ? 'not_created' : 'may_exist');
      assert.equal(data.failed[0].retry_safe, mode === 'refused');
      assert.deepEqual(data.not_sent, { nodes: ids.slice(40), retry_safe: true });
      assert.match(data.next_step, /never this whole layout again/);
      if (mode === 'lost-answer') assert.match(data.next_step, /may_exist .* read it/);
      assert.equal(data.summary, `20 of 48 items (headers and notes) created in 3 frames${mode === 'lost-answer' ? '; 20 more items may exist (failed, may_exist).' : '.'}`);

      const items = await boardItems(sandbox, board);
      const leaves = items.filter((i) => i.type !== 'frame');
      assert.equal(sandbox.requests.filter((r) => r.method === 'POST' && r.path === `/v2/boards/${encodeURIComponent(board)}/items/bulk`).length, mode === 'refused' ? 1 : 2, 'the failed transaction was not sent again');
      assert.equal(leaves.length, mode === 'refused' ? 20 : 40);
      assert.equal(items.filter((i) => i.type === 'frame').length, 3);
      const contents = leaves.map((i) => i.data.content);
      assert.equal(new Set(contents).size, contents.length, 'no item twice');
      for (const id of Object.values(data.node_items)) assert.ok(leaves.some((i) => i.id === id));
    });
  }
});

describe('CreateBoardLayout against the contract tools: calls and tokens', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });

  it('a 3-column retro of 12 notes: the contract plan vs one call, the figures docs/tasks.md gives', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Retro cost' })).id as string;
    await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, [{ type: 'sticky_note', data: { content: '<p>Already here</p>' }, position: { x: 0, y: 0 } }]);
    const { cost, call } = costTally(server);
    const columns = [{ title: 'Went well', items: texts('Good', 4) }, { title: 'To improve', items: texts('Worse', 4) }, { title: 'Actions', items: texts('Do', 4) }];
    // The contract plan: read the board to find room, a frame per column, the bulk body's schema, one bulk create of headers and notes.
    await call('contract', 'CanvasApi.RetrieveBoardItems', { board_identifier: board, items_limit: '50' });
    const frameIds: string[] = [];
    for (const [i, column] of columns.entries()) {
      const frame = await call('contract', 'CanvasApi.AddBoardFrame', { board_id: board, frame_title: column.title, x_axis_position_on_board: 2000 + i * 600, position_y_coordinate: 0, frame_width_in_pixels: 520, frame_height_pixels: 1400 });
      frameIds.push(frame.id);
    }
    await call('contract', 'CanvasApi.AddItemsToCanvasBoard', { mode: 'get_request_schema' });
    const body = columns.flatMap((column, i) => [
      { type: 'shape', data: { content: column.title, shape: 'rectangle' }, style: { fillColor: '#C9DF56' }, position: { x: 260, y: 90 }, geometry: { width: 440, height: 100 }, parent: { id: frameIds[i] } },
      ...column.items.map((text, j) => ({ type: 'sticky_note', data: { content: text }, style: { fillColor: 'light_green' }, position: { x: 140 + (j % 2) * 240, y: 280 + Math.floor(j / 2) * 240 }, parent: { id: frameIds[i] } })),
    ]);
    await call('contract', 'CanvasApi.AddItemsToCanvasBoard', { mode: 'execute', canvas_board_identifier: board, request_body: body });
    const made = await call('task', 'CanvasApi.CreateBoardLayout', { board_id: board, layout: 'retro', sections: columns });
    assert.equal(Object.keys(made.node_items).length, 15);
    assert.ok(cost.task.tokens < cost.contract.tokens / 2, `${cost.task.tokens} vs ${cost.contract.tokens}`);
    assertCostRow('A 3-column retro of 12 notes', cost, 'CreateBoardLayout');
  });
});
