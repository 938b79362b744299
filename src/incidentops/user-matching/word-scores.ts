/**
 * The name-token and e-mail components of a user's confidence (see user-matching.ts for the
 * scores): each query word against each distinct name token, then per user by table look-ups.
 */
import { namesShortenedTo } from './short-forms.js';
import type { Entry } from './user-index.js';

const TOKEN_EQUAL = 0.9;
export const ALL_TOKENS_REORDERED = 0.95;
const ALL_TOKENS_SUBSET = 0.9;
const EMAIL_PREFIX = 0.6;
/**
 * A query word that is a known short form of the token ("kasia" for Katarzyna, short-forms.ts):
 * as good as a prefix covering half the name, so 0.72 for a one-word query, well below
 * auto-accept: it lists the user, beside anyone the word names outright, and never picks them alone.
 */
const SHORT_FORM_OF = 0.8;

/** Restricted Damerau-Levenshtein (optimal string alignment) distance, or Infinity if > max. */
function osaDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return Infinity;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, prev2[j - 2]! + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return Infinity;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  const d = prev[n]!;
  return d > max ? Infinity : d;
}

/** Edits a word of this length may contain and still count as a typo of a name token. */
function typoAllowance(length: number): number {
  return length < 4 ? 0 : length < 8 ? 1 : 2;
}

function prefixScore(q: string, token: string): number {
  return 0.67 + 0.27 * (q.length / token.length);
}

const NONE = 0;
const EQUAL = 1;
const PREFIX = 2;
const TYPO = 3;
const SHORT_FORM = 4;

/** Per-word score against one name token: 1 equal, ~0.67-0.94 prefix, ~0.6-0.72 typo, else 0 (short forms: wordTable). */
function wordScore(q: string, token: string): [number, number] {
  if (q === token) return [1, EQUAL];
  if (token.startsWith(q)) return [prefixScore(q, token), PREFIX];
  const maxEdits = typoAllowance(q.length);
  if (maxEdits === 0) return [0, NONE];
  const d = osaDistance(q, token, maxEdits);
  if (d === Infinity) return [0, NONE];
  return [0.8 * (1 - d / Math.max(q.length, token.length)), TYPO];
}

/** Whether a query word could mean this token, more loosely than any score: for typo safety. */
export function plausibleWord(q: string, token: string): boolean {
  if (token.startsWith(q) || (token.length >= 2 && q.startsWith(token))) return true;
  return osaDistance(q, token, typoAllowance(q.length) + 1) !== Infinity;
}

/** One query word, scored once against every distinct token of the index. */
export interface WordTable {
  score: Float64Array;
  kind: Uint8Array;
}

export function wordTable(forms: readonly string[], tokens: readonly string[]): WordTable {
  const score = new Float64Array(tokens.length);
  const kind = new Uint8Array(tokens.length);
  const longer = longerNames(forms);
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    for (const q of forms) {
      const [s, k] = wordScore(q, token);
      if (s > score[t]!) {
        score[t] = s;
        kind[t] = k;
      }
    }
    if (longer?.has(token) && SHORT_FORM_OF > score[t]!) {
      score[t] = SHORT_FORM_OF;
      kind[t] = SHORT_FORM;
    }
  }
  return { score, kind };
}

/** The names any spelling of a query word is a short form of (short-forms.ts), or undefined: most words are none. */
export function longerNames(forms: readonly string[]): ReadonlySet<string> | undefined {
  let names: Set<string> | undefined;
  for (const q of forms) for (const name of namesShortenedTo(q) ?? []) (names ??= new Set()).add(name);
  return names;
}

/** Score and kind of query word `w` against token position `p` of an entry (either spelling). */
function at(table: WordTable, e: Entry<unknown>, p: number): [number, number] {
  const id = e.tokens[p]!;
  let s = table.score[id]!;
  let k = table.kind[id]!;
  const de = e.tokensDe?.[p] ?? -1;
  if (de >= 0 && table.score[de]! > s) {
    s = table.score[de]!;
    k = table.kind[de]!;
  }
  return [s, k];
}

/** The name-token component of an entry, and whether it is a whole-name typo match. */
export function nameTokenScore(tables: readonly WordTable[], e: Entry<unknown>): [number, boolean] {
  const n = e.tokens.length;
  if (tables.length === 0 || n === 0) return [0, false];
  if (tables.length === 1) {
    // at() inlined: this runs for every user of every one-word search.
    const { score, kind } = tables[0]!;
    let best = 0;
    let bestKind = NONE;
    for (let p = 0; p < n; p++) {
      const id = e.tokens[p]!;
      if (score[id]! > best) {
        best = score[id]!;
        bestKind = kind[id]!;
      }
      const de = e.tokensDe?.[p] ?? -1;
      if (de >= 0 && score[de]! > best) {
        best = score[de]!;
        bestKind = kind[de]!;
      }
    }
    return [TOKEN_EQUAL * best, bestKind === TYPO];
  }
  // Most users share no token with the query: skip them before building the score matrix.
  let any = false;
  for (let w = 0; w < tables.length && !any; w++) {
    const score = tables[w]!.score;
    for (let p = 0; p < n; p++) {
      const de = e.tokensDe?.[p] ?? -1;
      if (score[e.tokens[p]!]! > 0 || (de >= 0 && score[de]! > 0)) {
        any = true;
        break;
      }
    }
  }
  if (!any) return [0, false];
  // Greedy one-to-one assignment of query words to name tokens, best pairs first.
  const m = tables.map((table) => Array.from({ length: n }, (_, p) => at(table, e, p)));
  const usedQ = new Set<number>();
  const usedT = new Set<number>();
  let sum = 0;
  let exact = 0;
  let typos = 0;
  for (;;) {
    let bi = -1;
    let bj = -1;
    let bv = 0;
    let bk = NONE;
    for (let i = 0; i < m.length; i++) {
      if (usedQ.has(i)) continue;
      const row = m[i]!;
      for (let j = 0; j < row.length; j++) {
        if (!usedT.has(j) && row[j]![0] > bv) {
          [bv, bk] = row[j]!;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) break;
    usedQ.add(bi);
    usedT.add(bj);
    sum += bv;
    if (bk === EQUAL) exact++;
    else if (bk === TYPO) typos++;
  }
  if (exact === tables.length) {
    return [exact === n ? ALL_TOKENS_REORDERED : ALL_TOKENS_SUBSET, false];
  }
  return [TOKEN_EQUAL * (sum / tables.length), typos > 0 && exact + typos === tables.length];
}

export function emailScore(q: string, e: Entry<unknown>): number {
  let best = 0;
  if (q === e.local) best = TOKEN_EQUAL;
  else if (e.local.startsWith(q)) best = EMAIL_PREFIX;
  const at = q.indexOf('@');
  if (at >= 0) {
    const qLocal = q.slice(0, at);
    const qDomain = q.slice(at + 1);
    if (qLocal.length > 0 && qLocal === e.local && e.domain.startsWith(qDomain) && e.domain.length > 0) {
      best = Math.max(best, 0.9 + 0.09 * (qDomain.length / e.domain.length));
    }
  }
  if ((at >= 0 || q.includes('.')) && e.email.includes(q)) {
    best = Math.max(best, 0.6 + 0.3 * (q.length / e.email.length));
  }
  return best;
}
