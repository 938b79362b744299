/**
 * A large 2xx answer parsed in pieces. V8 puts a string past 128 KB in a memory area of its own,
 * which costs about 1.6 ms per 226 KB page of users here, several times its JSON.parse: a cold
 * SearchUsers spent a third of its CPU there. So an answer of that size shaped like a list page,
 * `{ ..., "key": [ records ], ... }`, is read from its bytes: one linear scan finds the largest
 * list of the outer object and the commas between its records (and the nesting depth, which it
 * checks like json.ts's nestsDeeperThan); the rest of the object and runs of records up to
 * PIECE_BYTES are decoded and parsed apart, then put together. The result is JSON.parse's of the
 * whole text. Anything unusual (another shape, a byte-order mark, the list's key twice or
 * `__proto__`, text that does not parse) gives undefined: the caller then parses the whole text,
 * and so says what JSON.parse says of it.
 */

/** Answers smaller than this are one string (below V8's large-object size). */
export const PIECED_ANSWER_BYTES = 128 * 1024;
/** Most bytes of records decoded as one string. */
const PIECE_BYTES = 60 * 1024;

const utf8 = new TextDecoder('utf-8');

interface List {
  keyStart: number;
  keyEnd: number;
  open: number;
  close: number;
  commas: number[];
}

/** The parsed answer, `tooDeep` when it nests past `maxDepth`, or undefined: parse the whole text instead. */
export function parseAnswerInPieces(bytes: Uint8Array, maxDepth: number): { value: unknown } | { tooDeep: true } | undefined {
  const n = bytes.length;
  if (n < PIECED_ANSWER_BYTES) return undefined;
  let at = 0;
  while (at < n && (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at++;
  if (bytes[at] !== 0x7b) return undefined;
  let depth = 0;
  let keyNext = false;
  let keyStart = -1;
  let keyEnd = -1;
  const keys: [number, number][] = [];
  let list: List | undefined;
  let largest: List | undefined;
  for (; at < n; at++) {
    const c = bytes[at];
    if (c === 0x22) {
      const start = at;
      for (at++; at < n; at++) {
        const d = bytes[at];
        if (d === 0x22) break;
        if (d === 0x5c) at++;
      }
      if (at >= n) return undefined;
      if (depth === 1 && keyNext) {
        keyNext = false;
        keyStart = start;
        keyEnd = at + 1;
        keys.push([keyStart, keyEnd]);
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return { tooDeep: true };
      if (depth === 1) keyNext = true;
      else if (depth === 2 && c === 0x5b) list = { keyStart, keyEnd, open: at, close: -1, commas: [] };
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 2 && list && c === 0x5d) {
        list.close = at;
        if (!largest || list.close - list.open > largest.close - largest.open) largest = list;
        list = undefined;
      }
      if (--depth < 0) return undefined;
    } else if (c === 0x2c) {
      if (depth === 1) keyNext = true;
      else if (depth === 2 && list) list.commas.push(at);
    }
  }
  if (depth !== 0 || !largest || largest.keyStart < 0 || largest.close - largest.open < PIECE_BYTES) return undefined;
  try {
    return { value: assemble(bytes, largest, keys) };
  } catch {
    return undefined;
  }
}

/** The outer object parsed without its largest list, then the list's records in runs; throws where the whole text would not parse. */
function assemble(bytes: Uint8Array, list: List, keys: [number, number][]): unknown {
  const keyOf = ([start, end]: [number, number]): unknown => JSON.parse(utf8.decode(bytes.subarray(start, end)));
  const key = keyOf([list.keyStart, list.keyEnd]);
  if (typeof key !== 'string' || key === '__proto__') throw new Error('not pieced');
  // A later member of the same name would replace the list: JSON.parse's answer then.
  if (keys.filter((range) => keyOf(range) === key).length !== 1) throw new Error('not pieced');
  const rest = new Uint8Array(bytes.length - (list.close - list.open - 1));
  rest.set(bytes.subarray(0, list.open + 1));
  rest.set(bytes.subarray(list.close), list.open + 1);
  const outer = JSON.parse(utf8.decode(rest)) as Record<string, unknown>;
  const emptied = outer[key];
  if (!Array.isArray(emptied) || emptied.length !== 0) throw new Error('not pieced');
  const records: unknown[] = [];
  const separators = [list.open, ...list.commas, list.close];
  let from = 0;
  for (let k = 1; k < separators.length; k++) {
    if (k === separators.length - 1 || separators[k + 1]! - separators[from]! > PIECE_BYTES) {
      const run = JSON.parse(`[${utf8.decode(bytes.subarray(separators[from]! + 1, separators[k]!))}]`) as unknown[];
      for (const record of run) records.push(record);
      from = k;
    }
  }
  // An empty place between two commas parses as no record in a run of its own: the whole text would not parse.
  if (list.commas.length > 0 && records.length !== list.commas.length + 1) throw new Error('not pieced');
  outer[key] = records;
  return outer;
}
