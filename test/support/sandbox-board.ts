/** Straight to the sandbox's CanvasApi, past the servers: what a test checks a tool's work against. */
import assert from 'node:assert/strict';
import type { RunningSandbox } from '../../src/sandbox/server.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One request to the sandbox's CanvasApi; fails the test on an error status. */
export async function platform(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<J> {
  const response = await fetch(`${sandbox.canvasapi.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.canvasapi.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(response.ok, `${method} ${path}: HTTP ${response.status} ${await response.clone().text()}`);
  return response.status === 204 ? undefined : response.json();
}

/** Every item of a board, read straight from the sandbox. */
export async function boardItems(sandbox: RunningSandbox, boardId: string): Promise<J[]> {
  const items: J[] = [];
  let cursor = '';
  do {
    const page = await platform(sandbox, 'GET', `/v2/boards/${boardId}/items?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
    items.push(...page.data);
    cursor = page.cursor ?? '';
  } while (cursor);
  return items;
}

/** A new board with two items on it (a sticky note at 0,0, a 400x200 shape at 400,300), where a drawing must not go, and those items. */
export async function boardWithItems(sandbox: RunningSandbox, name: string): Promise<{ board: string; before: J[] }> {
  const board = (await platform(sandbox, 'POST', '/v2/boards', { name })).id as string;
  await platform(sandbox, 'POST', `/v2/boards/${board}/items/bulk`, [
    { type: 'sticky_note', data: { content: '<p>Already here</p>' }, position: { x: 0, y: 0 } },
    { type: 'shape', data: { content: '<p>Old shape</p>', shape: 'rectangle' }, position: { x: 400, y: 300 }, geometry: { width: 400, height: 200 } },
  ]);
  return { board, before: await boardItems(sandbox, board) };
}

/**
 * The 64-item workshop board the cost tests measure on: 2 frames, 50 sticky notes (three colours,
 * ten topics), 8 shapes, 4 texts; 3 tags on 12 notes; 8 connectors (7 along the shapes, captions
 * on every third, and one between the first two notes). Answers the board's ID.
 */
export async function workshopBoard(sandbox: RunningSandbox): Promise<string> {
  const http = (method: string, path: string, body?: unknown) => platform(sandbox, method, path, body);
  const board = (await http('POST', '/v2/boards', { name: 'Pricing workshop', description: 'Ideas and decisions on the new pricing page.' })).id as string;
  const frames = await Promise.all(
    ['Ideas', 'Decisions'].map((title, i) => http('POST', `/v2/boards/${board}/frames`, { data: { title, format: 'custom', type: 'freeform' }, position: { x: i * 3000, y: 0 }, geometry: { width: 2800, height: 2000 } })),
  );
  const topics = ['pricing tiers', 'free trial length', 'annual discount', 'enterprise seats', 'usage limits', 'onboarding emails', 'checkout flow', 'invoice currency', 'student plan', 'refund policy'];
  const notes = Array.from({ length: 50 }, (_, n) => ({
    type: 'sticky_note',
    data: { content: `<p>${topics[n % 10]}: ${['keep it simple', 'ask sales first', 'test with 5 customers', 'compare with competitors', 'needs legal review'][n % 5]}</p>` },
    style: { fillColor: ['yellow', 'light_green', 'light_blue'][n % 3] },
    position: { x: 200 + (n % 10) * 240, y: 200 + Math.floor(n / 10) * 240 },
    parent: { id: frames[n < 30 ? 0 : 1].id },
  }));
  const others = [
    ...Array.from({ length: 8 }, (_, n) => ({ type: 'shape', data: { content: `<p>Step ${n + 1}</p>`, shape: 'round_rectangle' }, position: { x: 6500 + n * 300, y: 0 }, geometry: { width: 200, height: 100 } })),
    ...Array.from({ length: 4 }, (_, n) => ({ type: 'text', data: { content: `<p><strong>Note ${n + 1}</strong>: read the survey</p>` }, position: { x: 6500 + n * 300, y: 600 } })),
  ];
  const created: J[] = [];
  for (const batch of [notes.slice(0, 20), notes.slice(20, 40), [...notes.slice(40), ...others.slice(0, 10)], others.slice(10)]) created.push(...(await http('POST', `/v2/boards/${board}/items/bulk`, batch)).data);
  for (const [t, title] of ['Vote', 'Risk', 'Follow-up'].entries()) {
    const tag = await http('POST', `/v2/boards/${board}/tags`, { title });
    for (let k = 0; k < 4; k++) await http('POST', `/v2/boards/${board}/items/${created[t * 4 + k].id}?tag_id=${tag.id}`);
  }
  const shapes = created.filter((item) => item.type === 'shape');
  for (let k = 0; k < 7; k++) await http('POST', `/v2/boards/${board}/connectors`, { startItem: { id: shapes[k].id }, endItem: { id: shapes[k + 1].id }, ...(k % 3 === 0 ? { captions: [{ content: 'then' }] } : {}) });
  await http('POST', `/v2/boards/${board}/connectors`, { startItem: { id: created[0].id }, endItem: { id: created[1].id } });
  return board;
}
