/**
 * ReadBoard reads about what it answers, counted on a loopback stand-in for the platform
 * (support/fake-board.ts) with boards too big for the sandbox: one item of a 25,000-item board
 * of 6,000-character notes, a board with 25,000 tags, filters that match little, and platforms
 * whose paging never ends. Requests and bytes are counted, never time.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { readBoardBudget } from '../src/canvasapi/task-vocabulary.js';
import { callTool, canvasApiServerFor } from './support/harness.js';
import { startFakeBoard, type FakeBoard, type FakeBoardOptions, type Paging } from './support/fake-board.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const boards: FakeBoard[] = [];
after(async () => {
  await Promise.all(boards.map((board) => board.close()));
});

async function fakeBoard(options: FakeBoardOptions): Promise<FakeBoard> {
  const board = await startFakeBoard(options);
  boards.push(board);
  return board;
}

/** One ReadBoard call: its answer, the requests it sent and the bytes the platform sent for it. */
async function readBoard(board: FakeBoard, args: Record<string, unknown> = {}) {
  const requestsBefore = board.requests.length;
  const bytesBefore = board.bytesSent;
  const outcome = await callTool(canvasApiServerFor(board), 'CanvasApi.ReadBoard', { board_id: board.boardId, ...args });
  return { ...outcome, data: outcome.data as J, requests: board.requests.slice(requestsBefore), bytes: board.bytesSent - bytesBefore };
}

describe('ReadBoard on a 25,000-item board of 6,000-character notes', () => {
  it('max_items 1 costs at most 12 requests and reads a few pages, not the board', async () => {
    const board = await fakeBoard({ items: 25_000, textChars: 6_000, frameEvery: 1_000, connectors: 25_000, tags: 3, itemsPerTag: 10 });
    const { isError, data, requests, bytes } = await readBoard(board, { max_items: 1 });
    assert.equal(isError, false, JSON.stringify(data));
    assert.ok(requests.length <= 12, `${requests.length} requests: ${requests.slice(0, 15).map((r) => `${r.path}?${r.query}`).join(', ')}`);
    assert.ok(bytes < 2_000_000, `${bytes} bytes read (the board is about 160 MB)`);
    assert.equal(data.items.length, 1);
    assert.match(data.items[0], /^3458764500000000001 sticky_note .* #"topic 0" #"topic 1": "Note 1: a long note/);
    assert.equal(data.total_items, 25_000, "the platform's total, free with the first page");
    assert.equal(data.counts, undefined);
    assert.deepEqual(data.next_page.offset, 1);
    assert.ok(data.partial.some((note: string) => note.startsWith('counts_read')), JSON.stringify(data.partial));
    assert.ok(data.partial.some((note: string) => note.startsWith('connectors:')), 'connectors checked only in part, and said so');

    // The cursor goes on where the call stopped, at the same cost.
    const second = await readBoard(board, { max_items: 1, cursor: data.next_page.cursor });
    assert.ok(second.requests.length <= 12, `${second.requests.length} requests`);
    assert.match(second.data.items[0], /^3458764500000000002 sticky_note/);
  });

  it('counts: true counts the whole board with one request per item type', async () => {
    const board = await fakeBoard({ items: 25_000, textChars: 6_000, frameEvery: 1_000 });
    const { data, requests } = await readBoard(board, { max_items: 1, counts: true });
    assert.deepEqual(data.counts, { sticky_note: 24_975, frame: 25, connector: 0 });
    assert.ok(requests.length <= 12 + 10, `${requests.length} requests`);
  });

  it('a query that matches little scans within its budget, then answers what it has with a continuation', async () => {
    const board = await fakeBoard({ items: 25_000, textChars: 6_000 });
    const args = { query: 'Note 24999:', max_items: 5 };
    const { isError, data, requests } = await readBoard(board, args);
    assert.equal(isError, false, JSON.stringify(data));
    assert.deepEqual(data.items, []);
    const itemPages = requests.filter((r) => r.path.endsWith('/items') && !r.query.has('type')).length;
    assert.ok(itemPages > 1 && requests.length <= readBoardBudget(args).requests, `${requests.length} requests, ${itemPages} item pages`);
    assert.equal(data.matching_items_at_least, 0);
    assert.equal(typeof data.next_page.cursor, 'string', 'a continuation from where the scan stopped');
    assert.ok(data.partial.some((note: string) => /^items: \d+ items of 25000 read/.test(note)), JSON.stringify(data.partial));
  });
});

describe('ReadBoard on a board of many frames', () => {
  it('lists at most 100 frames and says how many it read', async () => {
    const board = await fakeBoard({ items: 2_000, frameEvery: 2 });
    const { isError, data } = await readBoard(board, { max_items: 2_000 });
    assert.equal(isError, false, JSON.stringify(data));
    assert.equal(data.frames.length, 100);
    assert.ok(data.partial.some((note: string) => /^frames: the first 100 of the \d+ frames read are listed$/.test(note)), JSON.stringify(data.partial));
    assert.equal(data.result_truncated, undefined, 'the tool cuts itself before the generic budget does');
  });
});

describe('ReadBoard on a board with 25,000 tags', () => {
  it('costs at most 60 requests, with or without a query, and says which tags it could not match', async () => {
    const board = await fakeBoard({ items: 400, tags: 25_000, itemsPerTag: 3 });
    const plain = await readBoard(board);
    assert.equal(plain.isError, false, JSON.stringify(plain.data));
    assert.ok(plain.requests.length <= 60, `${plain.requests.length} requests`);
    assert.ok(plain.data.items.length > 32);
    assert.match(plain.data.items.find((line: string) => line.startsWith('3458764500000000002 ')), / #"topic 0" #"topic 1" #"topic 2": /);
    assert.ok(plain.data.partial.some((note: string) => /^tags: tags are shown for the first 32 of the \d+ listed/.test(note)), JSON.stringify(plain.data.partial));

    const queried = await readBoard(board, { query: 'topic 7' });
    assert.equal(queried.isError, false, JSON.stringify(queried.data));
    assert.ok(queried.requests.length <= 60, `${queried.requests.length} requests`);
    // Tags 7 and 70-79 match ("topic 7", "topic 70"...), among the first 200 tags searched: items 7 to 81.
    assert.ok(queried.data.items.some((line: string) => line.startsWith('3458764500000000007 ')));
    assert.ok(queried.data.partial.some((note: string) => note.startsWith('tags: query searched the titles of the first 200 of 25000 tags only')), JSON.stringify(queried.data.partial));
  });
});

describe('ReadBoard on a platform whose paging never ends', () => {
  const modes: Paging[] = ['new-cursor-forever', 'same-cursor', 'random-totals', 'empty-with-cursor'];
  for (const paging of modes) {
    it(`${paging}: an answer within the call's budget of requests, saying what it could not read`, async () => {
      const board = await fakeBoard({ items: 1_000_000, tags: 1_000_000, itemsPerTag: 1_000_000, connectors: 1_000_000, paging });
      for (const args of [{}, { query: 'nothing matches this' }, { max_items: 1 }]) {
        const { isError, data, requests } = await readBoard(board, args);
        assert.equal(isError, false, `${JSON.stringify(args)}: ${JSON.stringify(data)}`);
        assert.ok(requests.length <= readBoardBudget(args).requests, `${JSON.stringify(args)}: ${requests.length} requests`);
        if (paging !== 'empty-with-cursor') assert.ok(data.partial?.length > 0, `${JSON.stringify(args)}: says it is partial`);
      }
    });
  }
});

describe('ReadBoard continuation on a board read in several calls', () => {
  it('gives every item once across next_page, by cursor and by offset alike', async () => {
    const board = await fakeBoard({ items: 230, frameEvery: 50 });
    const seen: string[] = [];
    let next: J;
    let calls = 0;
    do {
      const { data, requests } = await readBoard(board, { max_items: 40, ...(next ?? {}) });
      assert.ok(requests.filter((r) => r.path.endsWith('/items') && !r.query.has('type')).length <= 2, 'one page for 40 items, and at most the next one');
      seen.push(...data.items.map((line: string) => line.split(' ')[0]));
      if (next) {
        const byOffset = await readBoard(board, { max_items: 40, offset: next.offset });
        assert.deepEqual(byOffset.data.items, data.items, 'offset alone gives the same items');
      }
      next = data.next_page;
      calls++;
    } while (next && calls < 10);
    assert.equal(calls, 6);
    assert.equal(seen.length, 225, 'every item but the frames');
    assert.equal(new Set(seen).size, 225);
  });

  it('refuses a cursor given with other filters, or an offset before it, sending nothing', async () => {
    const board = await fakeBoard({ items: 100 });
    const { data } = await readBoard(board, { max_items: 10 });
    const before = board.requests.length;
    const other = await readBoard(board, { cursor: data.next_page.cursor, query: 'x' });
    assert.equal(other.isError, true);
    assert.deepEqual(other.data.issues.map((i: J) => i.parameter), ['cursor']);
    const back = await readBoard(board, { cursor: data.next_page.cursor, offset: 3 });
    assert.deepEqual(back.data.issues.map((i: J) => i.parameter), ['offset']);
    const junk = await readBoard(board, { cursor: 'not-a-cursor' });
    assert.deepEqual(junk.data.issues.map((i: J) => i.parameter), ['cursor']);
    assert.equal(board.requests.length, before, 'nothing was sent');
  });
});
