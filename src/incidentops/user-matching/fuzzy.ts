/**
 * The fuzzy component of a user's confidence: fuse.js's scoring model (see user-matching.ts),
 * computed with a bit-parallel edit distance.
 */
import { normalizeText } from './text.js';
import { UserIndex, type Entry, type MatchCandidate } from './user-index.js';

/** The fuzzy component is FUZZY_WEIGHT x (1 - fuse.js's score): never above this. */
export const FUZZY_WEIGHT = 0.6;
const FUZZY_THRESHOLD = 0.45;
/**
 * Fuzzy matching runs for queries up to this many characters (one machine word of the bit-parallel
 * edit distance; fuse.js's bitap limit too). A longer query is no typo'd fragment of a name; the
 * name-token and e-mail evidence still rank it.
 */
export const MAX_FUZZY_QUERY_CHARS = 32;

/**
 * The query prepared for the fuzzy component: bit masks of the query's characters (Myers' bit-
 * parallel approximate matching; one 32-bit word, so queries up to 32 characters).
 */
export class FuzzyQuery {
  /**
   * Positions of each character in the query, as bits: Latin-1 in a small table, the rest in a
   * map (a table of every UTF-16 unit was a 256 KB allocation per search).
   */
  private readonly peqLow = new Int32Array(256);
  private readonly peqHigh = new Map<number, number>();
  /** charMask's bits of the query's characters, and how many query positions hold each bit. */
  private readonly mask: number = 0;
  private readonly positionsOfBit = new Int32Array(32);
  private readonly last: number;
  readonly maxEdits: number;

  constructor(readonly q: string) {
    for (let i = 0; i < q.length; i++) {
      const c = q.charCodeAt(i);
      if (c < 256) this.peqLow[c] = this.peqLow[c]! | (1 << i);
      else this.peqHigh.set(c, (this.peqHigh.get(c) ?? 0) | (1 << i));
      this.mask |= 1 << (c & 31);
      this.positionsOfBit[c & 31]! += 1;
    }
    this.last = 1 << (q.length - 1);
    this.maxEdits = Math.floor(FUZZY_THRESHOLD * q.length + 1e-9);
  }

  /** Fewest edits turning the query into some substring of `text`. */
  distance(text: string): number {
    const m = this.q.length;
    let pv = -1;
    let mv = 0;
    let score = m;
    let best = m;
    for (let j = 0; j < text.length; j++) {
      const c = text.charCodeAt(j);
      const eq = c < 256 ? this.peqLow[c]! : this.peqHigh.get(c) ?? 0;
      const xv = eq | mv;
      const xh = ((((eq & pv) + pv) | 0) ^ pv) | eq;
      let ph = mv | ~(xh | pv);
      let mh = pv & xh;
      if (ph & this.last) score++;
      else if (mh & this.last) score--;
      ph <<= 1;
      mh <<= 1;
      pv = mh | ~(xv | ph);
      mv = ph & xv;
      if (score < best) {
        best = score;
        if (best === 0) break;
      }
    }
    return best;
  }

  /**
   * fuse.js's score of one field: 0 for the whole field, else edits / length (>= 0.001), or
   * undefined past the threshold. `chars` (charMask of the text) skips the edit distance when more
   * query positions than the threshold allows hold characters the text lacks: each costs an edit.
   */
  fieldScore(text: string, chars?: number): number | undefined {
    if (chars !== undefined) {
      // Query positions whose bit the text lacks, counted per missing bit (usually none or few).
      let missing = this.mask & ~chars;
      let absent = 0;
      while (missing !== 0) {
        const lowest = missing & -missing;
        absent += this.positionsOfBit[31 - Math.clz32(lowest)]!;
        if (absent > this.maxEdits) return undefined;
        missing ^= lowest;
      }
    }
    if (text === this.q) return 0;
    if (text.includes(this.q)) return 0.001;
    if (text.length + this.maxEdits < this.q.length) return undefined;
    const d = this.distance(text);
    return d <= this.maxEdits ? Math.max(0.001, d / this.q.length) : undefined;
  }
}

/** fuse.js's combination of matched fields (weight 1/2 each), as a confidence component. */
export function fuzzyScore(fq: FuzzyQuery, e: Entry<unknown>): [number, 'name' | 'email'] | undefined {
  const name = fq.fieldScore(e.name, e.nameChars);
  const email = fq.fieldScore(e.email, e.emailChars);
  if (name === undefined && email === undefined) return undefined;
  let total = 1;
  if (name !== undefined) total *= Math.pow(name === 0 ? Number.EPSILON : name, 0.5 * e.nameNorm);
  if (email !== undefined) total *= Math.pow(email === 0 ? Number.EPSILON : email, 0.5 * e.emailNorm);
  return [FUZZY_WEIGHT * (1 - total), name !== undefined ? 'name' : 'email'];
}

/** @internal The fuzzy component for one user (tests compare it with fuse.js itself). */
export function fuzzyComponent(query: string, user: MatchCandidate): [number, 'name' | 'email'] | undefined {
  const q = normalizeText(query);
  if (q.length === 0 || q.length > MAX_FUZZY_QUERY_CHARS) return undefined;
  return fuzzyScore(new FuzzyQuery(q), new UserIndex([user]).entries[0]!);
}
