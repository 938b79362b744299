/**
 * User matching for the `IncidentOps.SearchUsers` tool: ranks the platform's users against a
 * free-form query (a name, partial name, typo'd name or e-mail fragment). Pure and deterministic.
 *
 * Scoring (quoted in the README):
 * - Query, names and e-mails are folded: NFD + diacritics stripped, lower-cased, letters that do
 *   not decompose spelled out (ø o, ł l, ı i, ß ss, đ/ð d, æ ae, œ oe, þ th, ħ h, ŧ t, ŋ n),
 *   whitespace collapsed ("  Jørgen  STRAßE " -> "jorgen strasse"). Name tokens split on spaces,
 *   hyphens, dots and commas, apostrophes dropped ("García-López" -> garcia, lopez; "O'Brien" -> obrien).
 *   A name or query with ä/ö/ü also has its German spelling (ae/oe/ue): "Müller" is "muller" and
 *   "mueller", so "Muller", "Mueller" and "Müller" all find it as a whole word.
 * - Exact match of the whole folded name or e-mail = 1.0; the whole name in its other German
 *   spelling ("Zoe Mueller" for "Zoë Müller") = 0.99. Nothing else reaches 0.99 (cap).
 * - Otherwise the confidence is the MAX of these components:
 *   - name tokens, one-word query: equals a name token ("Lee") 0.9; prefix of a name token
 *     0.9 x (0.67 + 0.27 x covered fraction) (about 0.61-0.84); typo (restricted Damerau-Levenshtein,
 *     1 edit for 4-7 letters, 2 for 8+) 0.9 x 0.8 x similarity (about 0.54-0.65).
 *   - name tokens, several words: every word equals a distinct name token and all name tokens are
 *     covered, in any order ("doe jane") 0.95; every word equals a name token but the name has more
 *     tokens ("maria garcia" vs "María García-López") 0.9; otherwise 0.9 x mean of the per-word
 *     scores above (1 for an equal token, 0 for an unmatched word).
 *   - e-mail: query equals the local part ("jdoe") 0.9; query with '@' whose local part equals the
 *     e-mail's and whose domain part starts the e-mail's domain ("jdoe@", "jdoe@acme") 0.9 + 0.09 x
 *     domain coverage; query with '@' or '.' contained in the e-mail ("acme.example") 0.6 + 0.3 x
 *     (query length / e-mail length); prefix of the local part 0.6 (below any name-word prefix,
 *     >= 0.603: a first name the query starts is better evidence than an e-mail that starts with it).
 *   - fuzzy (queries up to 32 characters): the fuse.js model (ignoreLocation, threshold 0.45) over
 *     name and e-mail, computed with a bit-parallel edit distance: per field, s = fewest edits that
 *     turn the query into a substring of the field / query length (0.001 for a plain substring,
 *     ~0 for the whole field), kept if s <= 0.45; score = product of s^(0.5 / sqrt(words in field));
 *     component = 0.6 x (1 - score). It ranks fragments and typos across words, and can never alone
 *     reach the auto-accept threshold.
 * - Results below `minConfidence` (default 0.3), or below RELATIVE_FLOOR x the best result, are
 *   dropped (weak matches are not listed beside strong ones); confidence is rounded to 3 decimals;
 *   ties are ordered by folded name, then name, then id, so the ranking is fully deterministic.
 *
 * Speed: the index (built once per directory) holds each distinct name token once; a search
 * scores every distinct token once per query word, then each user by table look-ups, so a search
 * over 10,000 users takes a few milliseconds.
 *
 * Auto-accept: see AUTO_ACCEPT_THRESHOLD / AUTO_ACCEPT_MARGIN, UserMatch.namesakes and chooseAutoAccept().
 */

export interface MatchCandidate {
  id: string;
  name: string;
  email: string;
}

export interface UserMatch<T extends MatchCandidate> {
  user: T;
  /** In [0, 1], rounded to 3 decimals. 1.0 only for an exact (folded) name or e-mail match. */
  confidence: number;
  matched_on: 'name' | 'email';
  /**
   * Present when the match is a whole-name typo match: every query word equals or is a typo of
   * its own name token (at least one a typo, none a mere prefix). `rivals` counts the other users
   * who could be meant (every query word equals, starts, is started by, or is within one edit
   * more than the typo allowance of one of their name tokens).
   */
  typo?: { rivals: number };
  /**
   * Set on the best match only, unless the query names it in full (every word a distinct name
   * token covering the whole name, or its exact e-mail) or is an e-mail fragment: the other users
   * whose name the query could be a short form of (every query word equals or starts a distinct
   * name token of theirs, or is a common short form of one: "bob" for Robert). `names` lists a few.
   */
  namesakes?: { count: number; names: string[] };
}

export interface RankOptions {
  /** Maximum number of matches returned (default 10). */
  maxResults?: number;
  /** Matches below this confidence are dropped (default 0.3). */
  minConfidence?: number;
  /** Matches below this fraction of the best match's confidence are dropped (default RELATIVE_FLOOR). */
  relativeFloor?: number;
}

/**
 * Weak matches are not listed beside strong ones: a match below 0.6 x the best is dropped. It keeps
 * every prefix of a name token (>= 0.603) even beside an exact match, so a user the query could be
 * a short form of stays listed, and drops fragments and fuzzy hits beside a whole name or token.
 */
export const RELATIVE_FLOOR = 0.6;

/**
 * Common short forms that do not start the name they stand for (a short form that does, "sam"
 * for Samantha, is covered by the prefix rule). Used only to find namesakes, never to score.
 */
const SHORT_FORMS: Readonly<Record<string, readonly string[]>> = {
  bob: ['robert'],
  bobby: ['robert'],
  bill: ['william'],
  billy: ['william'],
  liam: ['william'],
  dick: ['richard'],
  rick: ['richard', 'frederick', 'eric'],
  jim: ['james'],
  jimmy: ['james'],
  jack: ['john', 'jackson'],
  johnny: ['john', 'jonathan'],
  mike: ['michael'],
  mick: ['michael'],
  tom: ['thomas'],
  tommy: ['thomas'],
  dave: ['david'],
  joe: ['joseph', 'josephine'],
  sue: ['susan', 'suzanne'],
  tony: ['anthony', 'antonio'],
  ted: ['edward', 'theodore'],
  ned: ['edward'],
  eddie: ['edward', 'edmund'],
  harry: ['henry', 'harold'],
  hank: ['henry'],
  chuck: ['charles'],
  charlie: ['charles', 'charlotte'],
  andy: ['andrew'],
  drew: ['andrew'],
  jenny: ['jennifer'],
  becky: ['rebecca'],
  liz: ['elizabeth'],
  beth: ['elizabeth', 'bethany'],
  betty: ['elizabeth'],
  kate: ['katherine', 'catherine', 'kathleen'],
  katie: ['katherine', 'catherine', 'kathleen'],
  kathy: ['katherine', 'kathleen'],
  cathy: ['catherine'],
  peggy: ['margaret'],
  maggie: ['margaret'],
  meg: ['margaret', 'megan'],
  sasha: ['alexander', 'alexandra'],
  xander: ['alexander'],
  sandy: ['alexandra', 'sandra'],
  nick: ['nicholas', 'nicolas', 'dominic'],
  steve: ['stephen'],
  greg: ['gregory'],
  larry: ['lawrence', 'laurence'],
  jerry: ['gerald', 'jerome'],
  gerry: ['gerald'],
  dan: ['daniel'],
  danny: ['daniel'],
  matt: ['matthew', 'mathias'],
  chris: ['christopher', 'christine', 'christina', 'kristopher'],
  kit: ['christopher'],
  patty: ['patricia'],
  trish: ['patricia'],
  jo: ['joanna', 'josephine'],
  nate: ['nathan', 'nathaniel'],
  ben: ['benjamin'],
  vicky: ['victoria'],
  abby: ['abigail'],
  wes: ['wesley'],
  zach: ['zachary'],
  zack: ['zachary'],
  al: ['albert', 'alan', 'alfred'],
  fred: ['frederick', 'alfred'],
  rob: ['robert'],
};


/**
 * 0.85 sits just below the scores given to "strong" evidence (exact name/e-mail 1.0, German
 * spelling of the whole name 0.99, all words in another order 0.95, a whole name token, the whole
 * e-mail local part or "local@" 0.9) and above everything weaker: prefixes (<= 0.846), typos,
 * multi-word queries with a typo or prefix (<= ~0.83) and fuzzy/fragment hits (<= 0.6 / < 0.9 for
 * e-mail fragments with '@' or '.'). Typo matches have their own rule (chooseAutoAccept).
 */
export const AUTO_ACCEPT_THRESHOLD = 0.85;
/**
 * 0.15 separates an exact match from a user that shares every query word plus more (1.0 vs 0.9,
 * "Maria Garcia" vs "María García-López": not accepted, the short form is a plausible nickname),
 * and two users sharing the matched token (0.9 vs 0.9), while accepting an exact name over a user
 * whose name merely starts the same way ("Chris Lee" 1.0 vs "Christine Lee" ~0.82) or a whole
 * token over a prefix of another user's token when the prefix covers little of it.
 */
export const AUTO_ACCEPT_MARGIN = 0.15;

export const DEFAULT_MAX_RESULTS = 10;
export const DEFAULT_MIN_CONFIDENCE = 0.3;

const NON_EXACT_CAP = 0.99;
const VARIANT_EXACT = 0.99;
const TOKEN_EQUAL = 0.9;
const ALL_TOKENS_REORDERED = 0.95;
const ALL_TOKENS_SUBSET = 0.9;
const EMAIL_PREFIX = 0.6;
const FUZZY_WEIGHT = 0.6;
const FUZZY_THRESHOLD = 0.45;
const MAX_QUERY_TOKENS = 8;
/**
 * Fuzzy matching runs for queries up to this many characters (one machine word of the bit-parallel
 * edit distance; fuse.js's bitap limit too). A longer query is no typo'd fragment of a name; the
 * name-token and e-mail evidence still rank it.
 */
const MAX_FUZZY_QUERY_CHARS = 32;

/** Letters that NFD does not decompose, spelled the way they are usually written without them. */
export const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ø: 'o',
  ł: 'l',
  ı: 'i',
  ß: 'ss',
  đ: 'd',
  ð: 'd',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
  ħ: 'h',
  ŧ: 't',
  ŋ: 'n',
};
const FOLD_RE = new RegExp(`[${Object.keys(LETTER_FOLDS).join('')}]`, 'g');
const UMLAUT_RE = /[äöü]/;
const UMLAUTS: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue' };

/** NFD, strip diacritics, lower-case, fold the letters of LETTER_FOLDS, collapse whitespace. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(FOLD_RE, (c) => LETTER_FOLDS[c]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The German spelling of a text with ä/ö/ü (ae/oe/ue), folded; undefined when it has none. */
function germanSpelling(s: string): string | undefined {
  const lower = s.normalize('NFC').toLowerCase();
  if (!UMLAUT_RE.test(lower)) return undefined;
  return normalizeText(lower.replace(/[äöü]/g, (c) => UMLAUTS[c]!));
}

function tokenize(normalized: string): string[] {
  return normalized
    .replace(/['’`]/g, '')
    .split(/[\s\-.,]+/)
    .filter((t) => t.length > 0);
}

interface Entry<T> {
  user: T;
  name: string;
  /** The whole name in German spelling, when it has umlauts. */
  nameDe?: string;
  email: string;
  local: string;
  domain: string;
  /** Distinct-token ids of the name's tokens, in order. */
  tokens: Int32Array;
  /** Ids of the same tokens in German spelling (-1 where it is the same), or undefined. */
  tokensDe?: Int32Array;
  /** fuse.js field norms (1 / sqrt(words)) of name and e-mail. */
  nameNorm: number;
  emailNorm: number;
}

/** Prepared, reusable search structure over a user directory (cache it with the directory). */
export class UserIndex<T extends MatchCandidate> {
  /** @internal */
  readonly entries: Entry<T>[] = [];
  /** @internal Every distinct name token (either spelling), by id. */
  readonly tokens: string[] = [];
  private readonly tokenIds = new Map<string, number>();

  constructor(users: readonly T[]) {
    this.add(users);
  }

  /** Adds users (a directory page as it arrives: the index is ready when the last page is). */
  add(users: readonly T[]): void {
    const idOf = (token: string): number => {
      let id = this.tokenIds.get(token);
      if (id === undefined) {
        id = this.tokens.length;
        this.tokens.push(token);
        this.tokenIds.set(token, id);
      }
      return id;
    };
    for (const user of users) {
      const name = normalizeText(user.name);
      const email = normalizeText(user.email);
      const at = email.lastIndexOf('@');
      const nameTokens = tokenize(name);
      const nameDe = germanSpelling(user.name);
      const deTokens = nameDe !== undefined ? tokenize(nameDe) : undefined;
      const entry: Entry<T> = {
        user,
        name,
        email,
        local: at >= 0 ? email.slice(0, at) : email,
        domain: at >= 0 ? email.slice(at + 1) : '',
        tokens: Int32Array.from(nameTokens, idOf),
        nameNorm: fieldNorm(name),
        emailNorm: fieldNorm(email),
      };
      if (nameDe !== undefined && nameDe !== name && deTokens && deTokens.length === nameTokens.length) {
        entry.nameDe = nameDe;
        entry.tokensDe = Int32Array.from(deTokens, (t, i) => (t === nameTokens[i] ? -1 : idOf(t)));
      }
      this.entries.push(entry);
    }
  }

  get size(): number {
    return this.entries.length;
  }
}

/** Builds the index once; pass it to rankUsers instead of the user array to skip re-indexing. */
export function createUserIndex<T extends MatchCandidate>(users: readonly T[]): UserIndex<T> {
  return new UserIndex(users);
}

/** fuse.js's field norm: 1 / sqrt(number of whitespace-separated words), 3 decimals. */
function fieldNorm(value: string): number {
  const words = value.split(' ').filter((w) => w.length > 0).length || 1;
  return Math.round(1000 / Math.sqrt(words)) / 1000;
}

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

/** Per-word score against one name token: 1 equal, ~0.67-0.94 prefix, ~0.6-0.72 typo, else 0; kind in `out`. */
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
function plausibleWord(q: string, token: string): boolean {
  if (token.startsWith(q) || (token.length >= 2 && q.startsWith(token))) return true;
  return osaDistance(q, token, typoAllowance(q.length) + 1) !== Infinity;
}

/** One query word, scored once against every distinct token of the index. */
interface WordTable {
  score: Float64Array;
  kind: Uint8Array;
}

function wordTable(forms: readonly string[], tokens: readonly string[]): WordTable {
  const score = new Float64Array(tokens.length);
  const kind = new Uint8Array(tokens.length);
  for (let t = 0; t < tokens.length; t++) {
    const token = tokens[t]!;
    for (const q of forms) {
      const [s, k] = wordScore(q, token);
      if (s > score[t]!) {
        score[t] = s;
        kind[t] = k;
      }
    }
  }
  return { score, kind };
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
function nameTokenScore(tables: readonly WordTable[], e: Entry<unknown>): [number, boolean] {
  const n = e.tokens.length;
  if (tables.length === 0 || n === 0) return [0, false];
  if (tables.length === 1) {
    let best = 0;
    let kind = NONE;
    for (let p = 0; p < n; p++) {
      const [s, k] = at(tables[0]!, e, p);
      if (s > best) {
        best = s;
        kind = k;
      }
    }
    return [TOKEN_EQUAL * best, kind === TYPO];
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

function emailScore(q: string, e: Entry<unknown>): number {
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

/**
 * The query prepared for the fuzzy component: bit masks of the query's characters (Myers' bit-
 * parallel approximate matching; one 32-bit word, so queries up to 32 characters).
 */
class FuzzyQuery {
  private readonly peq = new Int32Array(0x10000);
  private readonly last: number;
  readonly maxEdits: number;

  constructor(readonly q: string) {
    for (let i = 0; i < q.length; i++) {
      const c = q.charCodeAt(i);
      this.peq[c] = this.peq[c]! | (1 << i);
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
      const eq = this.peq[text.charCodeAt(j)]!;
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

  /** fuse.js's score of one field: 0 for the whole field, else edits / length (>= 0.001), or undefined past the threshold. */
  fieldScore(text: string): number | undefined {
    if (text === this.q) return 0;
    if (text.includes(this.q)) return 0.001;
    if (text.length + this.maxEdits < this.q.length) return undefined;
    const d = this.distance(text);
    return d <= this.maxEdits ? Math.max(0.001, d / this.q.length) : undefined;
  }
}

/** fuse.js's combination of matched fields (weight 1/2 each), as a confidence component. */
function fuzzyScore(fq: FuzzyQuery, e: Entry<unknown>): [number, 'name' | 'email'] | undefined {
  const name = fq.fieldScore(e.name);
  const email = fq.fieldScore(e.email);
  if (name === undefined && email === undefined) return undefined;
  let total = 1;
  if (name !== undefined) total *= Math.pow(name === 0 ? Number.EPSILON : name, 0.5 * e.nameNorm);
  if (email !== undefined) total *= Math.pow(email === 0 ? Number.EPSILON : email, 0.5 * e.emailNorm);
  return [FUZZY_WEIGHT * (1 - total), name !== undefined ? 'name' : 'email'];
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface Scored<T> {
  entry: Entry<T>;
  confidence: number;
  on: 'name' | 'email';
  typo: boolean;
}

function compareScored<T extends MatchCandidate>(a: Scored<T>, b: Scored<T>): number {
  return (
    b.confidence - a.confidence ||
    compareStrings(a.entry.name, b.entry.name) ||
    compareStrings(a.entry.user.name, b.entry.user.name) ||
    compareStrings(a.entry.user.id, b.entry.user.id)
  );
}

/** Query words in both spellings (the German one only when the query has umlauts). */
function queryWords(query: string, q: string): string[][] {
  const words = tokenize(q).slice(0, MAX_QUERY_TOKENS);
  const de = germanSpelling(query);
  const deWords = de !== undefined ? tokenize(de) : undefined;
  return words.map((w, i) => (deWords && deWords.length === words.length && deWords[i] !== w ? [w, deWords[i]!] : [w]));
}

/**
 * Ranks `users` (or one or more prepared indexes, e.g. the cached directory plus a few extra
 * users) against `query`, best first. Empty/blank queries give [].
 */
export function rankUsers<T extends MatchCandidate>(
  query: string,
  users: readonly T[] | UserIndex<T> | readonly UserIndex<T>[],
  options: RankOptions = {},
): UserMatch<T>[] {
  const maxResults = options.maxResults ?? DEFAULT_MAX_RESULTS;
  const minConfidence = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  const q = normalizeText(query);
  if (q.length === 0 || maxResults <= 0) return [];
  const indexes: readonly UserIndex<T>[] =
    users instanceof UserIndex ? [users] : users.length > 0 && users[0] instanceof UserIndex ? (users as readonly UserIndex<T>[]) : [createUserIndex(users as readonly T[])];
  const qDe = germanSpelling(query);
  const words = queryWords(query, q);
  const fuzzy = q.length <= MAX_FUZZY_QUERY_CHARS ? new FuzzyQuery(q) : undefined;

  // The best maxResults so far, sorted: a full sort of thousands of weak hits is not needed.
  const scored: Scored<T>[] = [];
  const keep = (s: Scored<T>): void => {
    if (scored.length >= maxResults && compareScored(s, scored[scored.length - 1]!) >= 0) return;
    let i = scored.length;
    while (i > 0 && compareScored(s, scored[i - 1]!) < 0) i--;
    scored.splice(i, 0, s);
    if (scored.length > maxResults) scored.pop();
  };
  for (const index of indexes) {
    const tables = words.map((forms) => wordTable(forms, index.tokens));
    for (const entry of index.entries) {
      let confidence: number;
      let on: 'name' | 'email' = 'name';
      let typo = false;
      if (q === entry.name) confidence = 1;
      else if (q === entry.email) {
        confidence = 1;
        on = 'email';
      } else {
        [confidence, typo] = nameTokenScore(tables, entry);
        if ((qDe !== undefined && (qDe === entry.name || qDe === entry.nameDe)) || (entry.nameDe !== undefined && q === entry.nameDe)) {
          confidence = VARIANT_EXACT;
          typo = false;
        }
        const es = emailScore(q, entry);
        if (es > confidence) {
          confidence = es;
          on = 'email';
        }
        const fz = fuzzy ? fuzzyScore(fuzzy, entry) : undefined;
        if (fz && fz[0] > confidence) [confidence, on] = fz;
        confidence = round3(Math.min(NON_EXACT_CAP, Math.max(0, confidence)));
      }
      if (confidence >= minConfidence && confidence > 0) keep({ entry, confidence, on, typo });
    }
  }

  const best = scored[0];
  const floor = milli(best?.confidence ?? 0) * (options.relativeFloor ?? RELATIVE_FLOOR);
  const top = scored.filter((s) => milli(s.confidence) >= floor);
  let rivals: number | undefined;
  if (top.some((s) => s.typo)) rivals = plausibleUsers(words, indexes);
  // Namesakes matter only for a match that could be accepted (strong, or a typo match).
  const acceptable = best !== undefined && (milli(best.confidence) >= milli(AUTO_ACCEPT_THRESHOLD) || best.typo);
  const namesakes = acceptable && !namesInFull(best, words.length, q) ? namesakesOf(best.entry, words, indexes) : undefined;
  return top.map((s) => ({
    user: s.entry.user,
    confidence: s.confidence,
    matched_on: s.on,
    ...(s.typo && rivals !== undefined ? { typo: { rivals: rivals - 1 } } : {}),
    ...(s === best && namesakes ? { namesakes } : {}),
  }));
}

/**
 * Whether the query names this match beyond doubt: its exact e-mail or an e-mail fragment (with
 * '@'), or, with two words or more, every token of its name (1.0 exact, 0.99 German spelling,
 * 0.95 another order). A single word never does: "Sam" may be short for Samantha.
 */
function namesInFull(s: Scored<unknown>, wordCount: number, q: string): boolean {
  if (s.on === 'email') return s.confidence === 1 || q.includes('@');
  return wordCount >= 2 && s.confidence >= ALL_TOKENS_REORDERED;
}

/** Whether a query word could stand for this name token: it equals or starts it, or is a common short form of it. */
function couldStandFor(word: string, token: string): boolean {
  return token.startsWith(word) || (SHORT_FORMS[word]?.includes(token) ?? false);
}

/** The other users whose name the query could be a short form of (see UserMatch.namesakes). */
function namesakesOf<T extends MatchCandidate>(best: Entry<T>, words: readonly string[][], indexes: readonly UserIndex<T>[]): { count: number; names: string[] } {
  let count = 0;
  const names: string[] = [];
  for (const index of indexes) {
    // Per query word, which distinct tokens it could stand for (either spelling of the word).
    const fits = words.map((forms) => Uint8Array.from(index.tokens, (token) => (forms.some((word) => couldStandFor(word, token)) ? 1 : 0)));
    for (const entry of index.entries) {
      if (entry === best || !readsAs(fits, entry)) continue;
      count++;
      if (names.length < 3) names.push(entry.user.name);
    }
  }
  return { count, names };
}

/** Whether every query word can be given its own name token of the entry that it could stand for. */
function readsAs(fits: readonly Uint8Array[], entry: Entry<unknown>): boolean {
  const n = entry.tokens.length;
  if (fits.length > n) return false;
  const fitsAt = (w: number, p: number): boolean => {
    const de = entry.tokensDe?.[p] ?? -1;
    return fits[w]![entry.tokens[p]!] === 1 || (de >= 0 && fits[w]![de] === 1);
  };
  // Few words and tokens: a small search for a one-to-one assignment.
  const used = new Uint8Array(n);
  const assign = (w: number): boolean => {
    if (w === fits.length) return true;
    for (let p = 0; p < n; p++) {
      if (used[p] || !fitsAt(w, p)) continue;
      used[p] = 1;
      if (assign(w + 1)) return true;
      used[p] = 0;
    }
    return false;
  };
  return assign(0);
}

/** How many users every query word could mean one of the name tokens of (see UserMatch.typo). */
function plausibleUsers<T extends MatchCandidate>(words: readonly string[][], indexes: readonly UserIndex<T>[]): number {
  let count = 0;
  for (const index of indexes) {
    const tables = words.map((forms) => {
      const ok = new Uint8Array(index.tokens.length);
      index.tokens.forEach((token, t) => {
        if (forms.some((q) => plausibleWord(q, token))) ok[t] = 1;
      });
      return ok;
    });
    for (const e of index.entries) {
      const fits = tables.every((ok) => {
        for (let p = 0; p < e.tokens.length; p++) {
          const de = e.tokensDe?.[p] ?? -1;
          if (ok[e.tokens[p]!] || (de >= 0 && ok[de])) return true;
        }
        return false;
      });
      if (fits) count++;
    }
  }
  return count;
}

function describe(m: UserMatch<MatchCandidate>): string {
  return `"${m.user.name}" <${m.user.email}> (id ${m.user.id}, confidence ${m.confidence})`;
}

/** Confidence in thousandths, so margin comparisons are exact on 3-decimal values. */
function milli(x: number): number {
  return Math.round(x * 1000);
}

/**
 * Decides whether the best match can be used without asking. Never when another match is within
 * AUTO_ACCEPT_MARGIN of it, nor while another user's name is a plausible reading of the query
 * (`namesakes`, set by rankUsers). Otherwise accepted when
 * - its confidence is at least AUTO_ACCEPT_THRESHOLD, or
 * - it is a whole-name typo match (`typo` set by rankUsers: every query word equals or is a typo
 *   of its own name token) and no other user could be meant (`typo.rivals` is 0: nobody else has,
 *   for every query word, a name token it equals, starts, is started by, or is within one edit
 *   more than the typo allowance of).
 * `matches` need not be sorted. `reason` is one actionable sentence.
 */
export function chooseAutoAccept<T extends MatchCandidate>(
  matches: readonly UserMatch<T>[],
): { accepted?: UserMatch<T>; reason: string } {
  if (matches.length === 0) {
    return { reason: 'No user matches the query: check the spelling, try part of the name or the e-mail address.' };
  }
  const sorted = [...matches].sort((a, b) => b.confidence - a.confidence);
  const top = sorted[0]!;
  const second = sorted[1];
  const close = sorted.filter((m) => milli(top.confidence) - milli(m.confidence) < milli(AUTO_ACCEPT_MARGIN));
  if (close.length > 1) {
    const names = close.slice(0, 3).map((m) => `"${m.user.name}" (${m.confidence})`).join(', ');
    const who = close.length === 2 ? 'Two users match' : `${close.length} users match`;
    return { reason: `${who} almost equally well (${names}${close.length > 3 ? ', ...' : ''}): ask which one is meant.` };
  }
  if (top.namesakes && top.namesakes.count > 0) {
    const { count, names } = top.namesakes;
    const others = names.map((name) => `"${name}"`).join(', ') + (count > names.length ? ` and ${count - names.length} more` : '');
    return {
      reason: `The best match ${describe(top)} is not certain: the query could also be short for ${others}. Ask which one is meant (or search with the full name or e-mail address).`,
    };
  }
  const lead = second ? `well ahead of the next match "${second.user.name}" (${second.confidence})` : 'the only match';
  if (milli(top.confidence) < milli(AUTO_ACCEPT_THRESHOLD)) {
    if (top.typo && top.typo.rivals === 0) {
      return { accepted: top, reason: `Accepted ${describe(top)}: every query word matches its name up to a typo, no other user's name comes close, and it is ${lead}.` };
    }
    if (top.typo) {
      const others = top.typo.rivals === 1 ? 'another user' : `${top.typo.rivals} other users`;
      return { reason: `The best match ${describe(top)} matches up to a typo, but ${others} could be meant as well: confirm it is the intended user before using it.` };
    }
    return {
      reason: `The best match ${describe(top)} is below the auto-accept threshold ${AUTO_ACCEPT_THRESHOLD}: confirm it is the intended user before using it.`,
    };
  }
  return { accepted: top, reason: `Accepted ${describe(top)}: ${lead}.` };
}

/** @internal The fuzzy component for one user (tests compare it with fuse.js itself). */
export function fuzzyComponent(query: string, user: MatchCandidate): [number, 'name' | 'email'] | undefined {
  const q = normalizeText(query);
  if (q.length === 0 || q.length > MAX_FUZZY_QUERY_CHARS) return undefined;
  return fuzzyScore(new FuzzyQuery(q), new UserIndex([user]).entries[0]!);
}
