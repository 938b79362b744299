/**
 * Memory bounded by the answer (issue 31, point 4), by counts rather than by time: what a cut
 * keeps alive (heap after a forced GC), the bytes ReadBoard counts against its budget, large
 * platform answers held at once (the process-wide gate), and platform JSON too deep to walk,
 * refused with a clear error by every tool of both servers before it is parsed.
 */
import { runAsCaller } from '../src/core/caller.js';
import assert from 'node:assert/strict';
import { setFlagsFromString, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { after, describe, it } from 'node:test';
import { readBoard } from '../src/canvasapi/tasks/read-board.js';
import { flat } from '../src/canvasapi/tasks/kept-text.js';
import { joinedPieces, plainPieces, plainStart, plainText, piecesInclude } from '../src/canvasapi/tasks/text.js';
import { BOARD_READS, readBoardBudget } from '../src/canvasapi/task-vocabulary.js';
import { attachBudget, CallBudget, sizeText } from '../src/core/call-budget.js';
import { nestsDeeperThan, valueNestsDeeperThan } from '../src/core/json.js';
import { silentLogger } from '../src/core/logger.js';
import { MAX_ANSWER_DEPTH } from '../src/core/platform/failure-description.js';
import { LARGE_ANSWER_BYTES, LARGE_ANSWER_SLOTS, largeAnswerStats, resetMostHeld, takeLargeAnswerSlot } from '../src/core/platform/large-answers.js';
import { UpstreamClient } from '../src/core/platform/upstream.js';
import { NO_PROGRESS } from '../src/core/tools/tool.js';
import type { CanvasApiDeps } from '../src/canvasapi/handler.js';
import { callTool, canvasApiServerFor, incidentOpsServerFor, scriptedFetch } from './support/harness.js';
import { startFakeBoard, type FakeBoard, type FakeBoardOptions } from './support/fake-board.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Live heap bytes after full collections. */
function liveHeap(): number {
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
}

const boards: FakeBoard[] = [];
after(async () => {
  await Promise.all(boards.map((board) => board.close()));
});
async function fakeBoard(options: FakeBoardOptions): Promise<FakeBoard> {
  const board = await startFakeBoard(options);
  boards.push(board);
  return board;
}

/** A text of `chars` characters made at run time (never a literal the engine could share). */
const bigText = (seed: number, chars: number) => `${seed}:${'lorem ipsum dolor '.repeat(Math.ceil(chars / 18))}`;

describe('cuts kept as flat copies', () => {
  const N = 200;
  const SOURCE_CHARS = 200_000;
  /** Live heap that `keep` leaves after N cuts of N large texts that are dropped. */
  function retainedBy(keep: (text: string) => string): number {
    const before = liveHeap();
    const kept: string[] = [];
    for (let index = 0; index < N; index++) kept.push(keep(bigText(index, SOURCE_CHARS)));
    const retained = liveHeap() - before;
    assert.equal(kept.length, N);
    return retained;
  }

  it('a plain slice keeps its whole source alive (the engine behaviour the copies avoid)', () => {
    const retained = retainedBy((text) => `${text.slice(0, 40)}…`);
    assert.ok(retained > (N * SOURCE_CHARS) / 2, `${retained} bytes retained by ${N} slices`);
  });

  it('flat() keeps the cut alone: retained memory follows the cuts, not the sources', () => {
    const retained = retainedBy((text) => flat(`${text.slice(0, 40)}…`));
    // About a kilobyte a cut (the copy, its array slot, heap noise); the sources would be 40 MB.
    assert.ok(retained < (N * SOURCE_CHARS) / 50, `${retained} bytes retained by ${N} flat cuts (the sources were ${N * SOURCE_CHARS} characters)`);
  });

  it('flat() copies exactly, lone surrogates and long texts included', () => {
    for (const text of ['', 'a', 'café — ✓', '\ud83d', 'x\udc00y', bigText(1, 10_000)]) assert.equal(flat(text), text);
  });
});

/** ReadBoard called directly, with a budget the test can read. */
async function readBoardWithBudget(board: FakeBoard, args: Record<string, unknown>, limits: { keptBytes?: number } = {}) {
  const client = new UpstreamClient({ platformName: 'CanvasApi', baseUrl: board.baseUrl, authorization: () => `Bearer ${board.token}` });
  const budget = new CallBudget({ ...readBoardBudget(args), ...limits });
  const controller = new AbortController();
  attachBudget(controller.signal, budget);
  const deps = { client, webBase: 'https://canvas.example.test' } as unknown as CanvasApiDeps;
  const requestsBefore = board.requests.length;
  const bytesBefore = board.bytesSent;
  const answer = (await readBoard({ board_id: board.boardId, ...args } as J, { signal: controller.signal, logger: silentLogger, deps, progress: NO_PROGRESS, budget })) as J;
  return { answer, budget, requests: board.requests.length - requestsBefore, bytesRead: board.bytesSent - bytesBefore };
}

describe('ReadBoard counts what it keeps against its budget', () => {
  it('keeps a few bytes per item read, whatever the size of the items', async () => {
    const board = await fakeBoard({ items: 2_000, textChars: 50_000, frameEvery: 100, connectors: 100 });
    const { answer, budget, bytesRead } = await readBoardWithBudget(board, { query: 'no such text', max_items: 5 });
    assert.deepEqual(answer.items, []);
    const itemsRead = Object.values(answer.counts_read as Record<string, number>).reduce((a, b) => a + b, 0) - (answer.counts_read.connector ?? 0);
    assert.ok(itemsRead >= 1_000, `${itemsRead} items read`);
    // Each item: its ID and 41 characters of text; each frame also its title; each connector its ends.
    assert.ok(budget.bytesKept > itemsRead * 40, `${budget.bytesKept} bytes counted for ${itemsRead} items`);
    assert.ok(budget.bytesKept < itemsRead * 120 + 100 * 80, `${budget.bytesKept} bytes counted for ${itemsRead} items (${bytesRead} bytes read)`);
  });

  it('counts frame titles (cut to 200 characters) and stops reading at its budget, saying so', async () => {
    // Every item a frame with a 600-byte title: 2,000 of them would keep 1.3 MB.
    const board = await fakeBoard({ items: 2_000, frameEvery: 1, frameTitleChars: 5_000 });
    const { answer, budget } = await readBoardWithBudget(board, { query: 'no such text', max_items: 2_000 }, { keptBytes: 1_000_000 });
    const frameLine = (answer.frames as string[])[0] ?? '';
    assert.ok(frameLine.length < 260, `a frame line of ${frameLine.length} characters: ${frameLine.slice(0, 80)}`);
    assert.ok(budget.bytesKept > 1_000_000 && budget.bytesKept < 1_100_000, `${budget.bytesKept} bytes counted`);
    const note = (answer.partial as string[]).find((line) => line.startsWith('items:'));
    assert.match(note ?? '', /reached its budget of 1 MB of kept data/, JSON.stringify(answer.partial));
    assert.equal(typeof answer.next_page?.cursor, 'string', 'a continuation from where reading stopped');
  });
});

describe('plain text made piece by piece', () => {
  /** plainText as it was made before: the whole text at once. */
  const wholeAtOnce = (value: string) =>
    value
      .replace(/<\s*(?:br|\/p|\/div|\/li|\/h[1-6])\s*\/?>/gi, ' ')
      .replace(/<[^<>]*>/g, '')
      .replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
        if (name[0] === '#') {
          const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
          return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
        }
        return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' } as Record<string, string>)[name.toLowerCase()] ?? whole;
      })
      .replace(/\s+/g, ' ')
      .trim();
  const parts = ['<p>', '</p>', '<br/>', '<b>', '</b>', '<a href="x">', '<', '>', '&amp;', '&am', 'p;', '&#x1F600;', '&#65;', '&nbsp;', '&lt;', ' ', '  ', '\n', 'word', 'Σ', 'é', '<img src="', 'data">', '&', ';'];
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const texts = Array.from({ length: 300 }, () => Array.from({ length: 1 + random(60) }, () => parts[random(parts.length)]).join(''));

  it('pieces of any size join into the text made whole, tags and entities cut across pieces included', () => {
    for (const text of texts) {
      for (const size of [1, 2, 3, 5, 8, 13, 64]) {
        const pieces: string[] = [];
        plainPieces(text, (piece) => {
          assert.notEqual(piece, '');
          pieces.push(piece);
          return true;
        }, size);
        assert.equal(pieces.join(''), wholeAtOnce(text), `${JSON.stringify(text)} in pieces of ${size}`);
      }
      assert.equal(plainText(text), wholeAtOnce(text));
    }
  });

  it('the start and a query are read from the pieces, as far as needed', () => {
    const long = `<p>${'lorem ipsum '.repeat(40_000)}</p><p>needle at the end</p>`;
    let made = 0;
    const start = plainStart((each) => plainPieces(long, (piece) => {
      made += piece.length;
      return each(piece);
    }), 40);
    assert.equal(start, wholeAtOnce(long).slice(0, 41));
    assert.ok(made < 20_000, `${made} characters made for a start of 40`);
    assert.equal(piecesInclude((each) => plainPieces(long, each), 'needle at the end'), true);
    assert.equal(piecesInclude((each) => plainPieces(long, each), 'ipsum lorem ipsum'), true, 'a match across pieces');
    assert.equal(piecesInclude((each) => plainPieces(long, each), 'no such text'), false);
    const joined: string[] = [];
    joinedPieces(['<p>Title</p>', '<p></p>', 'Body'], ' — ', (piece) => joined.push(piece) > 0);
    assert.equal(joined.join(''), 'Title — Body');
  });
});

describe('ReadBoard on large items', () => {
  it('lists an item longer than the answer cut to fit, and next_page moves on to the next one', async () => {
    // Each item's line alone is twice the room for lines.
    const board = await fakeBoard({ items: 6, textChars: 100_000 });
    const seen: string[] = [];
    let args: Record<string, unknown> = { max_items: 3 };
    for (let call = 0; call < 4; call++) {
      const { answer } = await readBoardWithBudget(board, args);
      assert.equal(answer.items.length, 1, JSON.stringify(answer.partial));
      const line = answer.items[0] as string;
      assert.ok(Buffer.byteLength(line) < 48_000, `a line of ${line.length} characters`);
      assert.match(line, /…"$/);
      assert.ok((answer.partial as string[]).some((note) => /is cut to fit this answer/.test(note)), JSON.stringify(answer.partial));
      seen.push(line.split(' ')[0]!);
      assert.equal(typeof answer.next_page?.cursor, 'string');
      args = { max_items: 3, cursor: answer.next_page.cursor };
    }
    assert.equal(new Set(seen).size, 4, `each call lists the next item: ${seen.join(', ')}`);
  });

  it('asks for smaller item pages after a large one, and keeps a few bytes per item whatever its size', async () => {
    // 50 items of 100,000 characters: a 5 MB page, past BOARD_READS.pageBytes.
    const board = await fakeBoard({ items: 150, textChars: 100_000 });
    const { answer, budget } = await readBoardWithBudget(board, { query: 'no such text', max_items: 5 });
    assert.deepEqual(answer.items, []);
    const limits = board.requests.filter((r) => r.path.endsWith('/items') && !r.query.has('type')).map((r) => Number(r.query.get('limit')));
    assert.equal(limits[0], BOARD_READS.pageSize);
    assert.ok(limits.length > 2);
    for (const limit of limits.slice(1)) assert.ok(limit < BOARD_READS.pageSize && limit >= BOARD_READS.leastPageSize && limit * 100_000 <= BOARD_READS.pageBytes, `limits asked: ${limits.join(', ')}`);
    // Items read: their ID and 41 characters each; nothing of their 100,000.
    const itemsRead = limits.reduce((a, b) => a + b, 0);
    assert.ok(budget.bytesKept < itemsRead * 120, `${budget.bytesKept} bytes counted for ${itemsRead} items`);
  });

  it('asks for smaller pages of a tag\'s items after a large one too', async () => {
    const board = await fakeBoard({ items: 150, textChars: 100_000, tags: 1, itemsPerTag: 150 });
    const { answer } = await readBoardWithBudget(board, { query: 'topic 0', max_items: 1 });
    assert.equal(answer.items.length, 1);
    const limits = board.requests.filter((r) => r.query.has('tag_id')).map((r) => Number(r.query.get('limit')));
    assert.equal(limits[0], BOARD_READS.pageSize);
    assert.ok(limits.length >= 2 && limits.slice(1).every((limit) => limit * 100_000 <= BOARD_READS.pageBytes && limit >= BOARD_READS.leastPageSize), `limits asked: ${limits.join(', ')}`);
  });

  it('says budget sizes under 1 MB in KB or bytes', () => {
    assert.deepEqual([sizeText(4_000_000), sizeText(1_500_000), sizeText(400_000), sizeText(999), sizeText(1)], ['4 MB', '1.5 MB', '400 KB', '999 bytes', '1 byte']);
  });
});

describe('large platform answers held at once', () => {
  const PAGE_CHARS = 110_000; // 50 items a page: about 5.5 MB, past LARGE_ANSWER_BYTES

  it('10 concurrent ReadBoards on 5 MB pages hold at most the gate\'s slots at once, and all answer', async () => {
    const board = await fakeBoard({ items: 500, textChars: PAGE_CHARS });
    const server = canvasApiServerFor(board);
    resetMostHeld();
    let sawWaiting = 0;
    const watch = setInterval(() => {
      sawWaiting = Math.max(sawWaiting, largeAnswerStats().waiting);
    }, 5);
    try {
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => callTool(server, 'CanvasApi.ReadBoard', { board_id: board.boardId, max_items: 1 })));
      for (const outcome of outcomes) assert.equal(outcome.isError, false, JSON.stringify(outcome.data).slice(0, 300));
    } finally {
      clearInterval(watch);
    }
    const stats = largeAnswerStats();
    assert.ok(stats.mostHeld >= 1 && stats.mostHeld <= LARGE_ANSWER_SLOTS, `${stats.mostHeld} large answers held at once`);
    assert.equal(stats.held, 0, 'every slot given back');
    assert.equal(stats.waiting, 0);
    assert.ok(sawWaiting > 0, 'calls waited for a slot');
  });

  it('one slot per user at a time: a user\'s second large answer waits, another user\'s goes at once', async () => {
    const as = (group: string) => runAsCaller({ caller: { group, member: group } }, () => takeLargeAnswerSlot(new AbortController().signal));
    const first = await as('heavy');
    let secondGranted = false;
    const second = as('heavy').then((release) => ((secondGranted = true), release));
    await until(() => largeAnswerStats().waiting === 1);
    const other = await as('light');
    assert.equal(largeAnswerStats().held, 2, "the other user took the second slot at once, ahead of the heavy user's second");
    assert.equal(secondGranted, false);
    first();
    (await second)();
    other();
    assert.deepEqual([largeAnswerStats().held, largeAnswerStats().waiting], [0, 0]);
  });

  it('an answer without a length takes a slot once its reading passes the threshold', async () => {
    const body = JSON.stringify({ id: 'b1', type: 'board', name: 'Big', description: 'd'.repeat(LARGE_ANSWER_BYTES + 1_000) });
    // Both slots held by two other users (one slot per user at a time).
    const holding = (group: string) => runAsCaller({ caller: { group, member: group } }, () => takeLargeAnswerSlot(new AbortController().signal));
    const releases = [await holding('user-1'), await holding('user-2')];
    const { fetch } = scriptedFetch(() => new Response(chunked(body), { status: 200, headers: { 'content-type': 'application/json' } }));
    const server = canvasApiServerFor({ baseUrl: 'https://api.canvas.test', token: 't' }, { fetch });
    const controller = new AbortController();
    const pending = callTool(server, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: 'b1' }, controller.signal);
    await until(() => largeAnswerStats().waiting === 1);
    // Cancelled while it waits: it leaves the queue, and the slots stay with their holders.
    controller.abort();
    const outcome = await pending;
    assert.equal(outcome.isError, true);
    assert.equal((outcome.data as J).kind, 'cancelled');
    assert.equal(largeAnswerStats().waiting, 0);
    assert.equal(largeAnswerStats().held, LARGE_ANSWER_SLOTS);
    for (const release of releases) release();
    // With a slot free, the same answer is read.
    const again = await callTool(server, 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: 'b1' });
    assert.equal(again.isError, false, JSON.stringify(again.data).slice(0, 300));
    assert.equal(largeAnswerStats().held, 0);
  });
});

/** A body streamed in 64 KB chunks, with no length announced. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 65_536));
      at += 65_536;
    },
  });
}

async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000 && !condition(); turn++) await new Promise((resolve) => setTimeout(resolve, 2));
  assert.ok(condition(), 'the condition was never met');
}

describe('platform JSON nested too deep', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it('the scan counts nesting outside strings only, linearly', () => {
    assert.equal(nestsDeeperThan(deep(MAX_ANSWER_DEPTH), MAX_ANSWER_DEPTH), false);
    assert.equal(nestsDeeperThan(deep(MAX_ANSWER_DEPTH + 1), MAX_ANSWER_DEPTH), true);
    assert.equal(nestsDeeperThan(JSON.stringify({ text: '[[[[{{{{', quoted: 'a \\" [[[[ \\\\', after: [[1]] }), 3), false);
    assert.equal(nestsDeeperThan(JSON.stringify({ a: 'x\\', b: [[[[1]]]] }), 3), true, 'a string ending in a backslash ends there');
    assert.equal(nestsDeeperThan(deep(200_000), MAX_ANSWER_DEPTH), true);
  });

  it('the check of a parsed value agrees with the scan, and never recurses past the limit', () => {
    assert.equal(valueNestsDeeperThan(JSON.parse(deep(MAX_ANSWER_DEPTH)), MAX_ANSWER_DEPTH), false);
    assert.equal(valueNestsDeeperThan(JSON.parse(deep(MAX_ANSWER_DEPTH + 1)), MAX_ANSWER_DEPTH), true);
    assert.equal(valueNestsDeeperThan({ text: '[[[[{{{{', after: [[1]] }, 3), false);
    assert.equal(valueNestsDeeperThan({ a: 'x', b: [[{ c: 1 }]] }, 3), true, 'objects in arrays count as levels');
    assert.equal(valueNestsDeeperThan('[[[[', 0), false, 'a string is no container');
    assert.equal(valueNestsDeeperThan(JSON.parse(deep(200_000)), MAX_ANSWER_DEPTH), true);
  });

  const answers: [string, string, (fetchImpl: typeof fetch) => ReturnType<typeof canvasApiServerFor>, string, Record<string, unknown>][] = [
    ['CanvasApi', 'a generic tool', (f) => canvasApiServerFor({ baseUrl: 'https://api.canvas.test', token: 't' }, { fetch: f }), 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: 'b1' }],
    ['CanvasApi', 'ReadBoard', (f) => canvasApiServerFor({ baseUrl: 'https://api.canvas.test', token: 't' }, { fetch: f }), 'CanvasApi.ReadBoard', { board_id: 'b1', max_items: 1 }],
    ['IncidentOps', 'a generic tool', (f) => incidentOpsServerFor(undefined, { baseUrl: 'https://api.incidents.test', accessToken: 't', fetch: f }), 'IncidentOps.GetIncident', { incident_id: 'PINC001' }],
  ];
  for (const [platform, what, serverFor, tool, args] of answers) {
    it(`${platform}, ${what}: 200,000 levels answered is a clear error, never a stack overflow`, async () => {
      const { fetch, calls } = scriptedFetch(() => new Response(deep(200_000), { status: 200, headers: { 'content-type': 'application/json' } }));
      const outcome = await callTool(serverFor(fetch), tool, args);
      assert.equal(outcome.isError, true);
      const error = outcome.data as J;
      assert.equal(error.kind, 'upstream_error', JSON.stringify(error));
      assert.match(error.message, new RegExp(`JSON nested more than ${MAX_ANSWER_DEPTH} levels deep`));
      assert.doesNotMatch(JSON.stringify(error), /call stack|internal/i);
      assert.ok(calls.length >= 1);
    });
  }

  it('an error answer nested too deep is quoted as text, not parsed', async () => {
    const { fetch } = scriptedFetch(() => new Response(`{"message":${deep(200_000)}}`, { status: 400, headers: { 'content-type': 'application/json' } }));
    const outcome = await callTool(canvasApiServerFor({ baseUrl: 'https://api.canvas.test', token: 't' }, { fetch }), 'CanvasApi.RetrieveBoardInfo', { board_unique_identifier: 'b1' });
    assert.equal(outcome.isError, true);
    assert.equal((outcome.data as J).kind, 'bad_request', JSON.stringify(outcome.data).slice(0, 300));
  });
});
