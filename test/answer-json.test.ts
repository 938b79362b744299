/**
 * Large answers parsed in pieces (core/platform/answer-json.ts): the value is JSON.parse's of the
 * whole text, every time; whatever the pieces cannot give exactly (another shape, a repeated or
 * `__proto__` key, a byte-order mark, text that does not parse) is left to the whole-text parse;
 * JSON nested too deep is found by the same scan.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ANSWER_DEPTH } from '../src/core/platform/failure-description.js';
import { parseAnswerInPieces, PIECED_ANSWER_BYTES } from '../src/core/platform/answer-json.js';

/** A deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TRICKY = ['', 'plain', 'quote " inside', 'back\\slash\\', '{[,]}', ',', '"],"users":[', 'Jörg Müller', 'Łukasz', '日本語', '🚀 rocket', '\u2028\u2029', 'tab\there', 'new\nline', '\u0000'];

function record(next: () => number, i: number): unknown {
  const text = () => TRICKY[Math.floor(next() * TRICKY.length)]!;
  return {
    id: `P${i}`,
    name: `${text()} ${i}`,
    email: `user${i}@example.com`,
    n: Math.floor(next() * 1e9) / 7,
    flag: next() < 0.5,
    none: null,
    teams: [{ id: `T${i % 7}`, summary: text() }, []],
    nested: { deeper: { list: [1, [2, [3]], { k: text() }] } },
  };
}

function page(seed: number, count: number): unknown {
  const next = random(seed);
  return { before: { text: TRICKY[seed % TRICKY.length] }, users: Array.from({ length: count }, (_, i) => record(next, i)), limit: 100, offset: 0, more: true, total: count };
}

const bytesOf = (text: string) => Buffer.from(text, 'utf8');

describe('large answers parsed in pieces', () => {
  it('give JSON.parse\'s value of the whole text, whatever the records hold and however the text is spaced', () => {
    for (let seed = 1; seed <= 6; seed++) {
      const value = page(seed, 1_200);
      for (const text of [JSON.stringify(value), JSON.stringify(value, null, seed % 2 === 0 ? 2 : '\t')]) {
        const bytes = bytesOf(text);
        assert.ok(bytes.length >= PIECED_ANSWER_BYTES, `seed ${seed}: large enough (${bytes.length})`);
        const pieced = parseAnswerInPieces(bytes, MAX_ANSWER_DEPTH);
        assert.ok(pieced && 'value' in pieced, `seed ${seed}: parsed in pieces`);
        assert.deepEqual(pieced.value, JSON.parse(text), `seed ${seed}`);
      }
    }
  });

  it('the largest list of the outer object is the one cut; the other members stay as they are', () => {
    const value = { small: [1, 2, 3], users: (page(7, 1_000) as { users: unknown[] }).users, after: [{ x: 1 }], n: 2 };
    const text = JSON.stringify(value);
    const pieced = parseAnswerInPieces(bytesOf(text), MAX_ANSWER_DEPTH);
    assert.ok(pieced && 'value' in pieced);
    assert.deepEqual(pieced.value, value);
    assert.deepEqual(Object.keys(pieced.value as object), ['small', 'users', 'after', 'n'], 'members in the same order');
  });

  it('leaves to the whole-text parse what the pieces cannot give exactly', () => {
    const users = JSON.stringify((page(8, 1_000) as { users: unknown[] }).users);
    const cases: [string, string][] = [
      ['small answers', '{"users":[{"id":"P1"}]}'],
      ['an array at the top', `[${users}]`],
      ['a byte-order mark', `\ufeff{"users":${users}}`],
      ['the key twice (the last one wins)', `{"users":${users},"users":[]}`],
      ['the key twice, spelled with an escape', `{"users":${users},"\\u0075sers":[]}`],
      ['__proto__', `{"__proto__":${users}}`],
      ['a trailing comma', `{"users":${users.slice(0, -1)},]}`],
      ['an empty place between records', `{"users":${users.slice(0, -1)},,{"id":"X"}]}`],
      ['a missing comma', `{"users":${users.slice(0, -1)}{"id":"X"}]}`],
      ['an unclosed object', `{"users":${users}`],
      ['text after the object', `{"users":${users}} x`],
      ['an unclosed string', `{"users":${users}, "x": "open}`],
    ];
    for (const [what, text] of cases) {
      const bytes = bytesOf(text);
      const pieced = parseAnswerInPieces(bytes, MAX_ANSWER_DEPTH);
      let whole: unknown;
      let wholeFails = false;
      try {
        whole = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        wholeFails = true;
      }
      if (wholeFails) assert.equal(pieced, undefined, `${what}: the whole-text parse says what is wrong`);
      else if (pieced !== undefined) assert.deepEqual('value' in pieced ? pieced.value : pieced, whole, what);
      if (what !== 'small answers' && what !== 'text after the object') assert.equal(pieced, undefined, what);
    }
  });

  it('finds JSON nested too deep in the same scan, and counts only what is outside strings', () => {
    const users = JSON.stringify((page(9, 1_000) as { users: unknown[] }).users);
    const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    assert.deepEqual(parseAnswerInPieces(bytesOf(`{"users":${users},"x":${deep(200_000)}}`), MAX_ANSWER_DEPTH), { tooDeep: true });
    assert.deepEqual(parseAnswerInPieces(bytesOf(`{"users":${users},"x":${deep(MAX_ANSWER_DEPTH)}}`), MAX_ANSWER_DEPTH), { tooDeep: true }, 'inside the outer object: one level more');
    const fits = parseAnswerInPieces(bytesOf(`{"users":${users},"x":${deep(MAX_ANSWER_DEPTH - 1)},"s":"${'['.repeat(500)}"}`), MAX_ANSWER_DEPTH);
    assert.ok(fits && 'value' in fits, 'brackets in strings are text');
  });
});
