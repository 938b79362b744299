/**
 * CanvasApi.BulkEditItems against the sandbox: a preview writes nothing and lists each change; the
 * confirming call changes exactly the previewed items (read back by raw HTTP: the others keep their
 * content, place, colour and modifiedAt); a board changed in between, or other arguments, change
 * nothing and name what differs; deletes reach the previewed IDs only; moves, resizes, tags and
 * text; bad input refused naming the parameter with nothing sent; a failure part-way reported per
 * item; every request valid for the official spec; the cost against the contract's tools.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallBudget, WorkScope } from '../src/core/call-budget.js';
import { findTool, listTools, type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';
import { assertCostRow, costTally } from './support/task-cost.js';
import { boardItems, platform } from './support/sandbox-board.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const TOOL = 'CanvasApi.BulkEditItems';
const OWN: Record<string, string> = { sticky_note: 'sticky_notes', shape: 'shapes', text: 'texts', card: 'cards', frame: 'frames' };

interface Spec { type?: 'sticky_note' | 'shape'; text: string; color?: string; parent?: string; x?: number; y?: number; width?: number; height?: number }

/** Items made straight on the sandbox (bulk creates of 20), their IDs in order. */
async function make(sandbox: RunningSandbox, board: string, specs: Spec[]): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < specs.length; start += 20) {
    const body = specs.slice(start, start + 20).map((s, i) => ({
      type: s.type ?? 'sticky_note',
      data: { content: `<p>${s.text}</p>`, ...(s.type === 'shape' ? { shape: 'rectangle' } : {}) },
      ...(s.color ? { style: { fillColor: s.color } } : {}),
      position: { x: s.x ?? (start + i) * 10 + 150, y: s.y ?? 150 },
      ...(s.type === 'shape' ? { geometry: { width: s.width ?? 200, height: s.height ?? 100 } } : {}),
      ...(s.parent ? { parent: { id: s.parent } } : {}),
    }));
    const answer = await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, body);
    ids.push(...answer.data.map((item: J) => item.id));
  }
  return ids;
}

/** Each item's own record (style included), by ID. */
async function records(sandbox: RunningSandbox, board: string): Promise<Map<string, J>> {
  const out = new Map<string, J>();
  for (const item of await boardItems(sandbox, board)) out.set(item.id, item.type in OWN ? await platform(sandbox, 'GET', `/v2/boards/${board}/${OWN[item.type]}/${item.id}`) : item);
  return out;
}

const writes = (sandbox: RunningSandbox) => sandbox.requests.filter((r) => r.platform === 'canvasapi' && r.method !== 'GET');
const plain = (content: string) => content.replace(/<\/?p>/g, '').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code)));

describe('CanvasApi.BulkEditItems against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(async () => {
    await sandbox?.close();
  });
  /** Every request sent before the log was last cleared: the spec check at the end sees them all. */
  const earlier: RunningSandbox['requests'] = [];
  const clearRequests = () => {
    earlier.push(...sandbox.requests);
    sandbox.clearRequests();
  };

  /** A board with frame Ideas (40 yellow and 5 blue notes), 10 yellow notes and 2 shapes outside it. */
  async function ideasBoard(name: string) {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name })).id as string;
    const frame = (await platform(sandbox, 'POST', `/v2/boards/${board}/frames`, { data: { title: 'Ideas', format: 'custom', type: 'freeform' }, position: { x: 0, y: 0 }, geometry: { width: 2000, height: 1000 } })).id as string;
    const yellow = await make(sandbox, board, Array.from({ length: 40 }, (_, i) => ({ text: `Idea ${i + 1}`, color: 'yellow', parent: frame, x: 100 + (i % 10) * 180, y: 150 + Math.floor(i / 10) * 230 })));
    const blue = await make(sandbox, board, Array.from({ length: 5 }, (_, i) => ({ text: `Question ${i + 1}`, color: 'blue', parent: frame, x: 100 + i * 180, y: 900 })));
    const outside = await make(sandbox, board, Array.from({ length: 10 }, (_, i) => ({ text: `Loose ${i + 1}`, color: 'yellow', x: 3000 + i * 250, y: 0 })));
    const shapes = await make(sandbox, board, [{ type: 'shape', text: 'Box A', color: '#ffdc4a', x: 3000, y: 800 }, { type: 'shape', text: 'Box B', color: '#ffdc4a', x: 3300, y: 800 }]);
    return { board, frame, yellow, blue, outside, shapes };
  }

  it('is listed in the tasks toolset only: not everyday, not the default, not read-only', () => {
    const names = (selections: J[]) => listTools(server, { selections }).map((tool) => tool.name);
    assert.ok(names([{ toolsets: ['tasks'] }]).includes(TOOL));
    assert.ok(!names([{ profile: 'everyday' }]).includes(TOOL));
    assert.ok(!names([]).includes(TOOL));
    assert.ok(!names([{ toolsets: ['tasks'], readOnly: true }]).includes(TOOL));
    assert.ok(!names([{ profile: 'readonly' }]).includes(TOOL));
  });

  it('recolours the 40 yellow notes of frame Ideas: the preview writes nothing, the confirm changes exactly those 40', async () => {
    const { board, frame, yellow } = await ideasBoard('Recolour');
    const before = await records(sandbox, board);
    const args = { board_id: board, filter: { frame_id: frame, type: 'sticky_note', color: 'yellow' }, update: { color: 'green' } };
    clearRequests();
    const preview = await callTool(server, TOOL, args);
    assert.equal(preview.isError, false, JSON.stringify(preview.data));
    assert.deepEqual(writes(sandbox), [], 'the preview sends no write');
    const p = preview.data as J;
    assert.equal(p.matched, 40);
    assert.equal(p.summary, 'Preview, nothing written: 40 items match; 40 would be changed.');
    const expectedLines = [...yellow].sort().map((id) => `${id} sticky_note ${JSON.stringify(plain(before.get(id).data.content))}: color yellow -> green`);
    assert.deepEqual(p.changes, expectedLines);
    assert.match(p.confirm, /^[0-9a-z]+\.[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);

    clearRequests();
    const done = await callTool(server, TOOL, { ...args, confirm: p.confirm });
    assert.equal(done.isError, false, JSON.stringify(done.data));
    const d = done.data as J;
    assert.equal(d.summary, '40 of 40 items updated.');
    assert.deepEqual(d.updated, [...yellow].sort());
    assert.equal(d.failed, undefined);
    const sent = writes(sandbox);
    assert.equal(sent.length, 40);
    for (const r of sent) {
      assert.equal(r.method, 'PATCH');
      assert.deepEqual(r.body, { style: { fillColor: 'green' } }, 'only the colour is sent');
    }
    assert.deepEqual(new Set(sent.map((r) => r.path.split('/').pop())), new Set(yellow));
    const after = await records(sandbox, board);
    assert.equal(after.size, before.size);
    for (const [id, was] of before) {
      const now = after.get(id);
      if (yellow.includes(id)) {
        assert.equal(now.style.fillColor, 'green');
        assert.deepEqual({ ...now.style, fillColor: 'yellow' }, was.style, 'the rest of the style kept');
        assert.deepEqual([now.data, now.position, now.geometry, now.parent?.id], [was.data, was.position, was.geometry, was.parent?.id]);
      } else {
        assert.deepEqual(now, was, `${id} untouched`);
      }
    }
    // The same confirm again finds the 40 modified: nothing is sent twice.
    clearRequests();
    const again = await callTool(server, TOOL, { ...args, confirm: p.confirm });
    assert.equal(again.isError, true);
    assert.equal((again.data as J).kind, 'invalid_input');
    assert.deepEqual(writes(sandbox), []);
  });

  it('a board changed between preview and confirm changes nothing and names the item', async () => {
    const { board, frame, yellow } = await ideasBoard('Changed meanwhile');
    const args = { board_id: board, filter: { frame_id: frame, color: 'yellow' }, update: { color: 'red' } };
    const p = (await callTool(server, TOOL, args)).data as J;
    assert.equal(p.matched, 40);
    // Someone edits one of them (not its colour) after the preview.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await platform(sandbox, 'PATCH', `/v2/boards/${board}/sticky_notes/${yellow[7]}`, { data: { content: '<p>Edited</p>' } });
    clearRequests();
    const refused = await callTool(server, TOOL, { ...args, confirm: p.confirm });
    assert.equal(refused.isError, true);
    const e = refused.data as J;
    assert.equal(e.kind, 'invalid_input');
    assert.equal(e.issues[0].parameter, 'confirm');
    assert.match(e.issues[0].problem, new RegExp(`modified since the preview: ${yellow[7]}\\b`));
    assert.match(e.issues[0].problem, /Nothing was changed/);
    assert.deepEqual(writes(sandbox), []);
    // A new matching note after a second preview: named as new, nothing changed.
    const p2 = (await callTool(server, TOOL, args)).data as J;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const [extra] = await make(sandbox, board, [{ text: 'Late idea', color: 'yellow', parent: frame, x: 1900, y: 900 }]);
    clearRequests();
    const refused2 = await callTool(server, TOOL, { ...args, confirm: p2.confirm });
    assert.equal(refused2.isError, true);
    assert.match((refused2.data as J).issues[0].problem, new RegExp(`new since the preview: ${extra}; the preview matched 40 items, now 41`));
    assert.deepEqual(writes(sandbox), []);
    const colours = await Promise.all(yellow.map(async (id) => (await platform(sandbox, 'GET', `/v2/boards/${board}/sticky_notes/${id}`)).style.fillColor));
    assert.deepEqual(new Set(colours), new Set(['yellow']), 'no note was recoloured');
  });

  it('a confirm with another filter or change than the preview is refused, nothing written', async () => {
    const { board, frame } = await ideasBoard('Other arguments');
    const args = { board_id: board, filter: { frame_id: frame, color: 'yellow' }, update: { color: 'red' } };
    const p = (await callTool(server, TOOL, args)).data as J;
    clearRequests();
    for (const other of [{ ...args, update: { color: 'blue' } }, { ...args, filter: { frame_id: frame, color: 'yellow', text: 'idea' } }, { ...args, update: { color: 'red', width: 300 } }]) {
      const refused = await callTool(server, TOOL, { ...other, confirm: p.confirm });
      assert.equal(refused.isError, true, JSON.stringify(other));
      assert.equal((refused.data as J).issues[0].parameter, 'confirm');
    }
    const garbage = await callTool(server, TOOL, { ...args, confirm: 'not-a-token' });
    assert.match(JSON.stringify((garbage.data as J).issues), /not a token this tool gave/);
    assert.deepEqual(writes(sandbox), []);
  });

  it('delete by tag reaches only the previewed IDs; an item tagged after the preview survives', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Delete by tag' })).id as string;
    const notes = await make(sandbox, board, Array.from({ length: 9 }, (_, i) => ({ text: `Note ${i + 1}`, color: 'yellow' })));
    const tag = (await platform(sandbox, 'POST', `/v2/boards/${board}/tags`, { title: 'Obsolete' })).id as string;
    for (const id of notes.slice(0, 6)) await platform(sandbox, 'POST', `/v2/boards/${board}/items/${id}?tag_id=${tag}`);
    const args = { board_id: board, filter: { tag: 'obsolete' }, delete: true };
    clearRequests();
    const p = (await callTool(server, TOOL, args)).data as J;
    assert.deepEqual(writes(sandbox), []);
    assert.equal(p.matched, 6);
    assert.deepEqual(p.changes, [...notes.slice(0, 6)].sort().map((id) => `${id} sticky_note "Note ${notes.indexOf(id) + 1}": delete`));
    // Tagged after the preview: the set is no longer the previewed one, so nothing is deleted.
    await platform(sandbox, 'POST', `/v2/boards/${board}/items/${notes[6]}?tag_id=${tag}`);
    const refused = await callTool(server, TOOL, { ...args, confirm: p.confirm });
    assert.equal(refused.isError, true);
    assert.match((refused.data as J).issues[0].problem, /the preview matched 6 items, now 7 match/);
    assert.equal((await boardItems(sandbox, board)).length, 9);
    // With that tag removed again the set is the previewed one: exactly those 6 are deleted.
    await platform(sandbox, 'DELETE', `/v2/boards/${board}/items/${notes[6]}?tag_id=${tag}`);
    clearRequests();
    const done = (await callTool(server, TOOL, { ...args, confirm: p.confirm })).data as J;
    assert.equal(done.summary, '6 of 6 items deleted.');
    assert.deepEqual(done.deleted, [...notes.slice(0, 6)].sort());
    assert.deepEqual(new Set(writes(sandbox).map((r) => `${r.method} ${r.path.split('/').pop()}`)), new Set(notes.slice(0, 6).map((id) => `DELETE ${id}`)));
    assert.deepEqual(new Set((await boardItems(sandbox, board)).map((i) => i.id)), new Set(notes.slice(6)));
  });

  it('an item deleted by someone else between the confirm\'s reads and its delete is reported as already gone', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Already gone' })).id as string;
    const notes = await make(sandbox, board, Array.from({ length: 3 }, (_, i) => ({ text: `Gone ${i + 1}` })));
    const target = notes[1]!;
    // Someone deletes it just before the tool's DELETE arrives: the platform answers 404.
    const racing = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (init?.method === 'DELETE' && url.endsWith(`/items/${target}`)) await platform(sandbox, 'DELETE', `/v2/boards/${board}/items/${target}`);
      return fetch(input, init);
    }) as typeof fetch;
    const racingServer = canvasApiServerFor(sandbox.canvasapi, { fetch: racing });
    const args = { board_id: board, filter: { text: 'gone' }, delete: true };
    const p = (await callTool(racingServer, TOOL, args)).data as J;
    const d = (await callTool(racingServer, TOOL, { ...args, confirm: p.confirm })).data as J;
    assert.equal(d.summary, '2 of 3 items deleted; 1 already gone.');
    assert.deepEqual(d.already_gone, [target]);
    assert.deepEqual(d.deleted, notes.filter((id) => id !== target).sort());
    assert.equal(d.failed, undefined);
    assert.deepEqual(await boardItems(sandbox, board), []);
  });

  it('moves (a frame and its child moved once), resizes, retags and changes text', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Edits' })).id as string;
    const frame = (await platform(sandbox, 'POST', `/v2/boards/${board}/frames`, { data: { title: 'F', format: 'custom', type: 'freeform' }, position: { x: 0, y: 0 }, geometry: { width: 800, height: 600 } })).id as string;
    const [child, other] = await make(sandbox, board, [{ text: 'Child', parent: frame, x: 100, y: 100 }, { text: 'Other child', parent: frame, x: 300, y: 100 }]);
    const [loose, box1, box2] = await make(sandbox, board, [{ text: 'Loose', x: 2000, y: 0 }, { type: 'shape', text: 'Box 1', x: 2500, y: 0 }, { type: 'shape', text: 'Box 2', x: 2800, y: 0 }]);
    // An image has no colour or text here: it moves by the generic position PATCH.
    const image = (await platform(sandbox, 'POST', `/v2/boards/${board}/images`, { data: { url: 'https://images.example.com/diagram.png' }, position: { x: 4000, y: 0 } })).id as string;
    const before = await records(sandbox, board);

    const move = { board_id: board, filter: { item_ids: [frame, child!, loose!, image] }, update: { move_by: { dx: 100, dy: -50 } } };
    const mp = (await callTool(server, TOOL, move)).data as J;
    assert.deepEqual(mp.unchanged, [child], 'the child moves with its frame');
    const md = (await callTool(server, TOOL, { ...move, confirm: mp.confirm })).data as J;
    assert.deepEqual(md.updated, [frame, loose, image].sort());
    assert.deepEqual(sandbox.requests.find((r) => r.method === 'PATCH' && r.path.endsWith(`/items/${image}`))?.body, { position: { x: 4100, y: -50 } });
    const moved = await records(sandbox, board);
    assert.deepEqual([moved.get(frame).position.x, moved.get(frame).position.y], [100, -50]);
    assert.deepEqual([moved.get(loose!).position.x, moved.get(loose!).position.y], [2100, -50]);
    for (const id of [child!, other!]) assert.deepEqual(moved.get(id).position, before.get(id).position, 'children keep their place in the frame');

    const resize = { board_id: board, filter: { type: 'shape', text: 'box' }, update: { width: 320, height: 90 } };
    const rp = (await callTool(server, TOOL, resize)).data as J;
    assert.deepEqual(rp.changes, ([box1, box2] as string[]).sort().map((id) => `${id} shape ${JSON.stringify(plain(before.get(id).data.content))}: width 200 -> 320; height 100 -> 90`));
    await callTool(server, TOOL, { ...resize, confirm: rp.confirm });
    for (const id of [box1!, box2!]) {
      const { width, height } = (await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${id}`)).geometry;
      assert.deepEqual({ width, height }, { width: 320, height: 90 });
    }

    const todo = (await platform(sandbox, 'POST', `/v2/boards/${board}/tags`, { title: 'todo' })).id as string;
    const doneTag = (await platform(sandbox, 'POST', `/v2/boards/${board}/tags`, { title: 'Done' })).id as string;
    for (const id of [child!, other!]) await platform(sandbox, 'POST', `/v2/boards/${board}/items/${id}?tag_id=${todo}`);
    const retag = { board_id: board, filter: { frame_id: frame, type: 'sticky_note' }, update: { add_tags: ['done'], remove_tags: ['TODO'] } };
    const tp = (await callTool(server, TOOL, retag)).data as J;
    assert.deepEqual(tp.changes, ([child, other] as string[]).sort().map((id) => `${id} sticky_note ${JSON.stringify(plain(before.get(id).data.content))}: tags +"Done" -"todo"`));
    const td = (await callTool(server, TOOL, { ...retag, confirm: tp.confirm })).data as J;
    assert.equal(td.summary, '2 of 2 items updated.');
    for (const id of [child!, other!]) assert.deepEqual((await platform(sandbox, 'GET', `/v2/boards/${board}/items/${id}/tags`)).tags.map((t: J) => t.id), [doneTag]);

    const text = { board_id: board, filter: { text: 'child' }, update: { replace_text: { find: 'child', with: 'kid & co' } } };
    const xp = (await callTool(server, TOOL, text)).data as J;
    assert.deepEqual(xp.changes, [`${other} sticky_note "Other child": text "Other child" -> "Other kid & co"`]);
    assert.deepEqual(xp.unchanged, [child], 'Child holds "Child", not "child": replace_text is exact');
    await callTool(server, TOOL, { ...text, confirm: xp.confirm });
    const after = await platform(sandbox, 'GET', `/v2/boards/${board}/sticky_notes/${other}`);
    assert.equal(plain(after.data.content), 'Other kid & co');
    assert.deepEqual([after.style, after.position, after.parent.id], [before.get(other!).style, before.get(other!).position, frame], 'the rest of the item kept');
  });

  it("each type's colour and text through its own endpoint: a shape's and frame's fill, a text's colour, a card's theme; a card's and frame's title", async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Types' })).id as string;
    const frame = (await platform(sandbox, 'POST', `/v2/boards/${board}/frames`, { data: { title: 'Plan A', format: 'custom', type: 'freeform' }, position: { x: 0, y: 0 }, geometry: { width: 800, height: 600 } })).id as string;
    const card = (await platform(sandbox, 'POST', `/v2/boards/${board}/cards`, { data: { title: 'Plan A card' }, position: { x: 2000, y: 0 } })).id as string;
    const text = (await platform(sandbox, 'POST', `/v2/boards/${board}/texts`, { data: { content: '<p>Plan A text</p>' }, position: { x: 2500, y: 0 } })).id as string;
    const [shape] = await make(sandbox, board, [{ type: 'shape', text: 'Plan A shape', x: 3000, y: 0 }]);
    const args = { board_id: board, filter: { text: 'plan a' }, update: { color: '#f5d128', replace_text: { find: 'Plan A', with: 'Plan B' } } };
    const p = (await callTool(server, TOOL, args)).data as J;
    assert.equal(p.matched, 4);
    clearRequests();
    const d = (await callTool(server, TOOL, { ...args, confirm: p.confirm })).data as J;
    assert.deepEqual(d.updated, [frame, card, text, shape].sort());
    const body = (id: string) => sandbox.requests.find((r) => r.method === 'PATCH' && r.path.endsWith(`/${id}`))?.body;
    assert.deepEqual(body(frame), { style: { fillColor: '#f5d128' }, data: { title: 'Plan B' } });
    assert.deepEqual(body(card), { style: { cardTheme: '#f5d128' }, data: { title: 'Plan B card' } });
    assert.deepEqual(body(text), { style: { color: '#f5d128' }, data: { content: 'Plan B text' } });
    assert.deepEqual(body(shape!), { style: { fillColor: '#f5d128' }, data: { content: 'Plan B shape' } });
    const read = async (type: string, id: string) => platform(sandbox, 'GET', `/v2/boards/${board}/${type}/${id}`);
    assert.deepEqual([(await read('frames', frame)).style.fillColor, (await read('frames', frame)).data.title], ['#f5d128', 'Plan B']);
    assert.deepEqual([(await read('cards', card)).style.cardTheme, (await read('cards', card)).data.title], ['#f5d128', 'Plan B card']);
    assert.deepEqual([(await read('texts', text)).style.color, plain((await read('texts', text)).data.content)], ['#f5d128', 'Plan B text']);
    // The audit line names the board and the items changed (IDs only).
    const definition = findTool(server, TOOL)!;
    assert.deepEqual(definition.auditTargets!({ ...args } as never, d), { board_id: board, updated_ids: d.updated });
  });

  it('bad input is refused naming the parameter, nothing sent (too many matches: nothing written)', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Refusals' })).id as string;
    const sentBefore = sandbox.requests.length;
    const bad: [J, string, RegExp][] = [
      [{ filter: {}, update: { color: 'red' } }, 'filter', /at least one of item_ids, type/],
      [{ filter: { type: 'sticky_note' } }, 'update', /exactly one/],
      [{ filter: { type: 'sticky_note' }, update: { color: 'red' }, delete: true }, 'delete', /exactly one/],
      [{ filter: { type: 'sticky_note' }, update: { color: '#ff0000' } }, 'update.color', /sticky notes take a colour name/],
      [{ filter: { type: 'shape' }, update: { color: 'red' } }, 'update.color', /#RRGGBB/],
      [{ filter: { text: 'x' }, update: { color: 'reddish' } }, 'update.color', /must be #RRGGBB/],
      [{ filter: { type: 'shape' }, update: { add_tags: ['x'] } }, 'update.add_tags', /does not apply to shape items/],
      [{ filter: { type: 'frame' }, update: { color: '#112233' } }, 'update.color', /frames take one of #f5f6f8/],
      [{ filter: { type: 'sticky_note' }, update: { width: 10, height: 10 } }, 'update.height', /width or height, not both/],
      [{ filter: { type: 'text' }, update: { text: 'a', replace_text: { find: 'a', with: 'b' } } }, 'update.replace_text', /not both/],
      [{ filter: { type: 'frame' }, delete: true }, 'delete', /frames are not deleted/],
      [{ filter: { type: 'table' }, delete: true }, 'filter.type', /one of sticky_note/],
      [{ filter: { text: 'a' }, update: {} }, 'update', /at least one change/],
      [{ filter: { text: 'a' }, update: { colour: 'red' } }, 'update', /./],
    ];
    for (const [args, parameter, problem] of bad) {
      const result = await callTool(server, TOOL, { board_id: board, ...args });
      assert.equal(result.isError, true, JSON.stringify(args));
      const data = result.data as J;
      assert.equal(data.kind, 'invalid_input');
      const issue = (data.issues as J[]).find((i) => String(i.parameter) === parameter || String(i.parameter).startsWith(`${parameter}.`));
      assert.ok(issue, `${JSON.stringify(data.issues)} names ${parameter}`);
      assert.match(JSON.stringify(data.issues), problem);
    }
    assert.equal(sandbox.requests.length, sentBefore, 'nothing was sent');
    assert.match(String((await callTool(server, TOOL, { board_id: board, filter: {} })).data.message), /^Invalid arguments \(nothing was sent\)/);

    await make(sandbox, board, Array.from({ length: 101 }, (_, i) => ({ text: `N${i}`, color: 'yellow' })));
    clearRequests();
    const tooMany = await callTool(server, TOOL, { board_id: board, filter: { type: 'sticky_note' }, update: { color: 'red' } });
    assert.equal(tooMany.isError, true);
    assert.match(JSON.stringify((tooMany.data as J).issues), /101 items match; at most 100/);
    // A check on what the platform holds: its reads were sent, and the message says so.
    assert.match(String((tooMany.data as J).message), /^Invalid arguments \(only reads were sent, nothing was changed\)/);
    assert.deepEqual(writes(sandbox), []);
    const noTag = await callTool(server, TOOL, { board_id: board, filter: { tag: 'nope' }, delete: true });
    assert.equal((noTag.data as J).issues[0].parameter, 'filter.tag');
    const mixed = await make(sandbox, board, [{ type: 'shape', text: 'S' }]);
    const wrongType = await callTool(server, TOOL, { board_id: board, filter: { item_ids: [mixed[0]!] }, update: { color: 'red' } });
    assert.match(JSON.stringify((wrongType.data as J).issues), /update.color.*shape items take a #RRGGBB colour/);
    const frameId = (await platform(sandbox, 'POST', `/v2/boards/${board}/frames`, { data: { title: 'F' }, position: { x: 0, y: 5000 }, geometry: { width: 400, height: 300 } })).id as string;
    const wrongFrame = await callTool(server, TOOL, { board_id: board, filter: { item_ids: [frameId, mixed[0]!] }, update: { color: '#112233' } });
    assert.match(JSON.stringify((wrongFrame.data as J).issues), /update.color.*frames take one of/);
    assert.deepEqual(writes(sandbox).filter((r) => !r.path.endsWith('/items/bulk') && !r.path.endsWith('/frames')), []);
  });

  it('a failure part-way is reported per item: refused, may have happened, the rest done', async () => {
    const { board, frame, yellow } = await ideasBoard('Faults');
    const [refusedId, lostId] = [...yellow].sort() as [string, string];
    const faulty = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      if (init?.method === 'PATCH' && url.endsWith(`/sticky_notes/${refusedId}`)) return new Response(JSON.stringify({ status: 400, code: 'invalidParameters', message: 'Injected "refusal"\nforged: line', type: 'error' }), { status: 400, headers: { 'content-type': 'application/json' } });
      if (init?.method === 'PATCH' && url.endsWith(`/sticky_notes/${lostId}`)) {
        await fetch(input, init);
        return new Response('bad gateway', { status: 502 });
      }
      return fetch(input, init);
    }) as typeof fetch;
    const faultyServer = canvasApiServerFor(sandbox.canvasapi, { fetch: faulty });
    const args = { board_id: board, filter: { frame_id: frame, color: 'yellow' }, update: { color: 'orange' } };
    const p = (await callTool(faultyServer, TOOL, args)).data as J;
    const d = (await callTool(faultyServer, TOOL, { ...args, confirm: p.confirm })).data as J;
    assert.equal(d.summary, '38 of 40 items updated; 2 failed.');
    assert.deepEqual(d.updated, [...yellow].sort().slice(2));
    const byId = new Map((d.failed as J[]).map((f) => [f.id, f]));
    assert.equal(byId.get(refusedId).may_have_happened, false);
    assert.match(byId.get(refusedId).error, /^bad_request \(HTTP 400\): "Injected \\"refusal\\" forged: line"$/);
    assert.equal(byId.get(lostId).may_have_happened, true);
    assert.match(d.next_step, /may_have_happened .* read them/);
    const colour = async (id: string) => (await platform(sandbox, 'GET', `/v2/boards/${board}/sticky_notes/${id}`)).style.fillColor;
    assert.equal(await colour(refusedId!), 'yellow');
    assert.equal(await colour(lostId!), 'orange', 'the lost answer was carried out');
    for (const id of [...yellow].sort().slice(2)) assert.equal(await colour(id), 'orange');
    // A new preview lists only what is left.
    const again = (await callTool(server, TOOL, args)).data as J;
    assert.deepEqual(again.changes.map((line: string) => line.split(' ')[0]), [refusedId]);
  });

  it('a budget that runs out part-way: the writes it refused are not sent, and are listed as not sent', async () => {
    const { board, frame, yellow } = await ideasBoard('Out of budget');
    const args = { board_id: board, filter: { frame_id: frame, color: 'yellow' }, update: { color: 'violet' } };
    const p = (await callTool(server, TOOL, args)).data as J;
    // The confirm's reads: one page of the frame's 45 notes and 45 colour reads; then room for 10 writes.
    const budget = new CallBudget({ requests: 46 + 10 });
    const scope = new WorkScope(new AbortController().signal, { budget });
    clearRequests();
    try {
      const { bulkEditItems } = await import('../src/canvasapi/tasks/bulk-edit.js');
      const d = (await bulkEditItems({ ...args, confirm: p.confirm }, { signal: scope.signal, budget, deps: (server as J).deps, progress: () => undefined, logger: (server as J).logger })) as J;
      assert.equal(writes(sandbox).length, 10, "the budget's ten writes, and no more");
      assert.equal(d.updated.length, 10);
      assert.equal(d.not_sent.length, 30);
      assert.equal(d.failed.length, 0, 'a refusal by the budget is no failure');
      assert.equal(d.summary, '10 of 40 items updated; 30 not sent.');
      assert.deepEqual([...d.updated, ...d.not_sent].sort(), [...yellow].sort());
      for (const id of d.updated) assert.equal((await platform(sandbox, 'GET', `/v2/boards/${board}/sticky_notes/${id}`)).style.fillColor, 'violet');
      for (const id of d.not_sent) assert.equal((await platform(sandbox, 'GET', `/v2/boards/${board}/sticky_notes/${id}`)).style.fillColor, 'yellow');
      assert.match(d.next_step, /Preview again with the same arguments/);
    } finally {
      scope.dispose();
    }
  });

  it('every request sent matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = [...earlier, ...sandbox.requests].filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    const sent = new Set(requests.map((r) => `${r.method} ${r.path.replace(/\/[0-9]+(?=\/|$)/g, '/{id}').replace(/boards\/[^/]+/, 'boards/{board}')}${r.query.some(([key]) => key === 'tag_id') ? '?tag_id' : ''}`));
    for (const kind of ['PATCH /v2/boards/{board}/sticky_notes/{id}', 'PATCH /v2/boards/{board}/shapes/{id}', 'PATCH /v2/boards/{board}/frames/{id}', 'PATCH /v2/boards/{board}/cards/{id}', 'PATCH /v2/boards/{board}/texts/{id}', 'PATCH /v2/boards/{board}/items/{id}', 'POST /v2/boards/{board}/items/{id}?tag_id', 'DELETE /v2/boards/{board}/items/{id}?tag_id', 'DELETE /v2/boards/{board}/items/{id}', 'GET /v2/boards/{board}/items?tag_id', 'GET /v2/boards/{board}/items/{id}/tags', 'GET /v2/boards/{board}/tags']) {
      assert.ok(sent.has(kind), `a request ${kind} was checked (${[...sent].join(', ')})`);
    }
  });
});

describe('BulkEditItems against the contract tools: calls and tokens', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  // Fixed clocks: the token (preview time, the items' stamps) is then the same on every run, and so its tokens.
  const now = () => new Date('2026-03-02T10:00:00Z');
  before(async () => {
    sandbox = await startTestSandbox({ canvasapi: { now } });
    server = canvasApiServerFor(sandbox.canvasapi, { now });
  });
  after(async () => {
    await sandbox?.close();
  });

  it('recolour the 40 yellow notes in frame Ideas to green: the contract plan vs preview and confirm, the figures docs/tasks.md gives', async () => {
    const board = (await platform(sandbox, 'POST', '/v2/boards', { name: 'Recolour cost' })).id as string;
    const frame = (await platform(sandbox, 'POST', `/v2/boards/${board}/frames`, { data: { title: 'Ideas', format: 'custom', type: 'freeform' }, position: { x: 0, y: 0 }, geometry: { width: 2000, height: 1000 } })).id as string;
    const yellow = await make(sandbox, board, Array.from({ length: 40 }, (_, i) => ({ text: `Idea ${i + 1}`, color: 'yellow', parent: frame, x: 100 + (i % 10) * 180, y: 150 + Math.floor(i / 10) * 230 })));
    await make(sandbox, board, Array.from({ length: 5 }, (_, i) => ({ text: `Question ${i + 1}`, color: 'blue', parent: frame, x: 100 + i * 180, y: 900 })));
    const { cost, call } = costTally(server);
    // The contract plan: the frame's items (the list has no colours), each note's record for its colour, the update's body schema, an update per yellow note.
    const listed = await call('contract', 'CanvasApi.GetItemsWithinFrame', { board_id: board, frame_id: frame, item_retrieval_limit: '50', item_type_filter: 'sticky_note' });
    const ids = (listed.data as J[]).map((item) => item.id as string);
    assert.equal(ids.length, 45);
    const found: string[] = [];
    for (const id of ids) if ((await call('contract', 'CanvasApi.GetStickyNoteInfo', { canvas_board_id: board, sticky_note_id: id })).style.fillColor === 'yellow') found.push(id);
    assert.deepEqual(found.sort(), [...yellow].sort());
    await call('contract', 'CanvasApi.UpdateStickyNote', { mode: 'get_request_schema' });
    for (const id of found) await call('contract', 'CanvasApi.UpdateStickyNote', { mode: 'execute', board_id_for_update: board, sticky_note_id: id, request_body: { style: { fillColor: 'green' } } });
    // Back to yellow straight on the sandbox, so that the task tool does the same work.
    for (const id of found) await platform(sandbox, 'PATCH', `/v2/boards/${board}/sticky_notes/${id}`, { style: { fillColor: 'yellow' } });
    const args = { board_id: board, filter: { frame_id: frame, color: 'yellow' }, update: { color: 'green' } };
    const p = await call('task', 'CanvasApi.BulkEditItems', args);
    const d = await call('task', 'CanvasApi.BulkEditItems', { ...args, confirm: p.confirm });
    assert.equal(d.summary, '40 of 40 items updated.');
    assert.ok(cost.task.tokens < cost.contract.tokens / 2, `${cost.task.tokens} vs ${cost.contract.tokens}`);
    assertCostRow('Recolour the 40 yellow stickies in frame Ideas to green', cost, 'BulkEditItems');
  });
});
