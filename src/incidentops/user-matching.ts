/**
 * User matching for the `IncidentOps.SearchUsers` tool: ranks the platform's users against a
 * free-form query (a name, partial name, typo'd name or e-mail fragment). Pure and deterministic.
 *
 * Scoring (quoted in the README):
 * - Query, names and e-mails are normalised: NFD + diacritics stripped, lower-cased, whitespace
 *   collapsed ("  María  GARCÍA " -> "maria garcia"). Name tokens split on spaces, hyphens, dots
 *   and commas, apostrophes dropped ("García-López" -> garcia, lopez; "O'Brien" -> obrien).
 * - Exact match of the whole name or the whole e-mail (after normalisation) = 1.0. Nothing else
 *   can reach 1.0: every other score is capped at 0.99.
 * - Otherwise the confidence is the MAX of these components:
 *   - name tokens, one-word query: equals a name token ("Lee") 0.9; prefix of a name token
 *     0.9 x (0.67 + 0.27 x covered fraction) (about 0.61-0.84); typo (restricted Damerau-Levenshtein,
 *     1 edit for 4-7 letters, 2 for 8+) 0.9 x 0.8 x similarity (about 0.5-0.65).
 *   - name tokens, several words: every word equals a distinct name token and all name tokens are
 *     covered, in any order ("doe jane") 0.95; every word equals a name token but the name has more
 *     tokens ("maria garcia" vs "María García-López") 0.9; otherwise 0.9 x mean of the per-word
 *     scores above (1 for an equal token, 0 for an unmatched word).
 *   - e-mail: query equals the local part ("jdoe") 0.9; prefix of the local part: same scale as a
 *     name-token prefix; query with '@' whose local part equals the e-mail's and whose domain part
 *     starts the e-mail's domain ("jdoe@", "jdoe@acme") 0.9 + 0.09 x domain coverage; query with
 *     '@' or '.' contained in the e-mail ("acme.example") 0.6 + 0.3 x (query length / e-mail length).
 *   - fuzzy (queries up to 32 characters): fuse.js over name, e-mail and e-mail local part (ignoreLocation, threshold 0.45),
 *     component = 0.6 x (1 - fuse score). Fuse rates any substring hit as near-perfect ("lee" inside
 *     "Kathleen"), so it is weighted to stay below whole-token and prefix evidence: it ranks typos
 *     and fragments but can never alone reach the auto-accept threshold.
 * - Results below `minConfidence` (default 0.3, about where fuse hits stop resembling the query)
 *   are dropped; confidence is rounded to 3 decimals; ties are ordered by normalised name, then
 *   name, then id, so the ranking is fully deterministic.
 *
 * Auto-accept: see AUTO_ACCEPT_THRESHOLD / AUTO_ACCEPT_MARGIN and chooseAutoAccept().
 */
import Fuse from 'fuse.js';

export interface MatchCandidate {
  id: string;
  name: string;
  email: string;
}

export interface UserMatch<T extends MatchCandidate> {
  user: T;
  /** In [0, 1], rounded to 3 decimals. 1.0 only for an exact (normalised) name or e-mail match. */
  confidence: number;
  matched_on: 'name' | 'email';
}

export interface RankOptions {
  /** Maximum number of matches returned (default 10). */
  maxResults?: number;
  /** Matches below this confidence are dropped (default 0.3). */
  minConfidence?: number;
}

/**
 * 0.85 sits just below the scores given to "strong" evidence (exact name/e-mail 1.0, all words
 * in another order 0.95, a whole name token, the whole e-mail local part or "local@" 0.9) and above
 * everything weaker: prefixes (<= 0.846), typos, multi-word queries with a typo or prefix
 * (<= ~0.83) and fuzzy/fragment hits (<= 0.6 / < 0.9 for e-mail fragments with '@' or '.'). So only
 * a query that names a user unambiguously can be accepted without asking.
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
const TOKEN_EQUAL = 0.9;
const ALL_TOKENS_REORDERED = 0.95;
const ALL_TOKENS_SUBSET = 0.9;
const FUSE_WEIGHT = 0.6;
const FUSE_THRESHOLD = 0.45;
const MAX_QUERY_TOKENS = 8;
/**
 * Fuzzy matching runs for queries up to this many characters (one bitap word in fuse.js). Its
 * cost grows with the square of the query's length (more chunks, each allowing more errors): a
 * 200-character query took ~0.45 s over 2,000 users. A longer query is no typo'd fragment of a
 * name; the name-token and e-mail evidence still rank it.
 */
const MAX_FUZZY_QUERY_CHARS = 32;

/** NFD, strip diacritics, lower-case, collapse whitespace. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
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
  email: string;
  local: string;
  domain: string;
  tokens: string[];
}

interface FuseDoc {
  name: string;
  email: string;
  local: string;
}

/** Prepared, reusable search structure over a user directory (cache it with the directory). */
export class UserIndex<T extends MatchCandidate> {
  /** @internal */
  readonly entries: readonly Entry<T>[];
  /** @internal */
  readonly fuse: Fuse<FuseDoc>;

  constructor(users: readonly T[]) {
    this.entries = users.map((user) => {
      const name = normalizeText(user.name);
      const email = normalizeText(user.email);
      const at = email.lastIndexOf('@');
      return {
        user,
        name,
        email,
        local: at >= 0 ? email.slice(0, at) : email,
        domain: at >= 0 ? email.slice(at + 1) : '',
        tokens: tokenize(name),
      };
    });
    this.fuse = new Fuse<FuseDoc>(
      this.entries.map((e) => ({ name: e.name, email: e.email, local: e.local })),
      {
        keys: ['name', 'email', 'local'],
        includeScore: true,
        includeMatches: true,
        ignoreLocation: true,
        threshold: FUSE_THRESHOLD,
        shouldSort: false,
      },
    );
  }

  get size(): number {
    return this.entries.length;
  }
}

/** Builds the index once; pass it to rankUsers instead of the user array to skip re-indexing. */
export function createUserIndex<T extends MatchCandidate>(users: readonly T[]): UserIndex<T> {
  return new UserIndex(users);
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

function prefixScore(q: string, token: string): number {
  return 0.67 + 0.27 * (q.length / token.length);
}

/** Per-word score against one name token: 1 equal, ~0.67-0.94 prefix, ~0.55-0.72 typo, else 0. */
function wordScore(q: string, token: string): number {
  if (q === token) return 1;
  if (token.startsWith(q)) return prefixScore(q, token);
  const maxEdits = q.length < 4 ? 0 : q.length < 8 ? 1 : 2;
  if (maxEdits === 0) return 0;
  const d = osaDistance(q, token, maxEdits);
  if (d === Infinity) return 0;
  return 0.8 * (1 - d / Math.max(q.length, token.length));
}

function nameTokenScore(qTokens: readonly string[], tokens: readonly string[]): number {
  if (qTokens.length === 0 || tokens.length === 0) return 0;
  if (qTokens.length === 1) {
    const q = qTokens[0]!;
    let best = 0;
    for (const t of tokens) best = Math.max(best, wordScore(q, t));
    return TOKEN_EQUAL * best;
  }
  // Greedy one-to-one assignment of query words to name tokens, best pairs first.
  const m = qTokens.map((q) => tokens.map((t) => wordScore(q, t)));
  const usedQ = new Set<number>();
  const usedT = new Set<number>();
  let sum = 0;
  let exact = 0;
  for (;;) {
    let bi = -1;
    let bj = -1;
    let bv = 0;
    for (let i = 0; i < m.length; i++) {
      if (usedQ.has(i)) continue;
      const row = m[i]!;
      for (let j = 0; j < row.length; j++) {
        if (!usedT.has(j) && row[j]! > bv) {
          bv = row[j]!;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) break;
    usedQ.add(bi);
    usedT.add(bj);
    sum += bv;
    if (bv === 1) exact++;
  }
  if (exact === qTokens.length) {
    return exact === tokens.length ? ALL_TOKENS_REORDERED : ALL_TOKENS_SUBSET;
  }
  return TOKEN_EQUAL * (sum / qTokens.length);
}

function emailScore(q: string, e: Entry<unknown>): number {
  let best = 0;
  if (q === e.local) best = TOKEN_EQUAL;
  else if (e.local.startsWith(q)) best = TOKEN_EQUAL * prefixScore(q, e.local);
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

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Ranks `users` (or a prepared index) against `query`, best first. Empty/blank queries give [].
 */
export function rankUsers<T extends MatchCandidate>(
  query: string,
  users: readonly T[] | UserIndex<T>,
  options: RankOptions = {},
): UserMatch<T>[] {
  const maxResults = options.maxResults ?? DEFAULT_MAX_RESULTS;
  const minConfidence = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  const q = normalizeText(query);
  if (q.length === 0 || maxResults <= 0) return [];
  const index = users instanceof UserIndex ? users : createUserIndex(users);
  const qTokens = tokenize(q).slice(0, MAX_QUERY_TOKENS);

  const fuseHits = new Map<number, { score: number; on: 'name' | 'email' }>();
  for (const r of q.length <= MAX_FUZZY_QUERY_CHARS ? index.fuse.search(q) : []) {
    const keys = (r.matches ?? []).map((mt) => mt.key);
    fuseHits.set(r.refIndex, {
      score: FUSE_WEIGHT * (1 - (r.score ?? 1)),
      on: keys.includes('name') ? 'name' : 'email',
    });
  }

  const scored: { entry: Entry<T>; confidence: number; on: 'name' | 'email' }[] = [];
  index.entries.forEach((entry, i) => {
    let confidence: number;
    let on: 'name' | 'email';
    if (q === entry.name) {
      confidence = 1;
      on = 'name';
    } else if (q === entry.email) {
      confidence = 1;
      on = 'email';
    } else {
      confidence = nameTokenScore(qTokens, entry.tokens);
      on = 'name';
      const es = emailScore(q, entry);
      if (es > confidence) {
        confidence = es;
        on = 'email';
      }
      const fh = fuseHits.get(i);
      if (fh && fh.score > confidence) {
        confidence = fh.score;
        on = fh.on;
      }
      confidence = round3(Math.min(NON_EXACT_CAP, Math.max(0, confidence)));
    }
    if (confidence >= minConfidence && confidence > 0) scored.push({ entry, confidence, on });
  });

  scored.sort(
    (a, b) =>
      b.confidence - a.confidence ||
      compareStrings(a.entry.name, b.entry.name) ||
      compareStrings(a.entry.user.name, b.entry.user.name) ||
      compareStrings(a.entry.user.id, b.entry.user.id),
  );
  return scored.slice(0, maxResults).map((s) => ({ user: s.entry.user, confidence: s.confidence, matched_on: s.on }));
}

function describe(m: UserMatch<MatchCandidate>): string {
  return `"${m.user.name}" <${m.user.email}> (id ${m.user.id}, confidence ${m.confidence})`;
}

/** Confidence in thousandths, so margin comparisons are exact on 3-decimal values. */
function milli(x: number): number {
  return Math.round(x * 1000);
}

/**
 * Decides whether the best match can be used without asking: only when its confidence is at
 * least AUTO_ACCEPT_THRESHOLD and it leads the runner-up by at least AUTO_ACCEPT_MARGIN (or has
 * no runner-up). `matches` need not be sorted. `reason` is one actionable sentence.
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
  if (milli(top.confidence) < milli(AUTO_ACCEPT_THRESHOLD)) {
    return {
      reason: `The best match ${describe(top)} is below the auto-accept threshold ${AUTO_ACCEPT_THRESHOLD}: confirm it is the intended user before using it.`,
    };
  }
  const lead = second
    ? `well ahead of the next match "${second.user.name}" (${second.confidence})`
    : 'the only match';
  return { accepted: top, reason: `Accepted ${describe(top)}: ${lead}.` };
}
