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
 *     1 edit for 4-7 letters, 2 for 8+) 0.9 x 0.8 x similarity (about 0.54-0.65); a known short
 *     form that does not begin the name ("kasia" for Katarzyna, "bill" for William, "paco" for
 *     Francisco: user-matching/short-forms.ts) 0.9 x 0.8 = 0.72, and as a word of several 0.8.
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
 *
 * This file ranks and decides; its parts are in user-matching/: text.ts (folding and word
 * splitting), user-index.ts (the prepared directory), word-scores.ts (the name-token and e-mail
 * components), short-forms.ts (short forms of given names that do not begin them, across the
 * directory's languages), fuzzy.ts (the fuzzy component) and namesakes.ts (who else a query could mean).
 * Callers import from this file only.
 */
import { FUZZY_WEIGHT, FuzzyQuery, fuzzyScore, MAX_FUZZY_QUERY_CHARS } from './user-matching/fuzzy.js';
import { namesakesOf, plausibleUsers } from './user-matching/namesakes.js';
import { germanSpelling, normalizeText, tokenize } from './user-matching/text.js';
import { createUserIndex, UserIndex, type Entry, type MatchCandidate } from './user-matching/user-index.js';
import { ALL_TOKENS_REORDERED, emailScore, nameTokenScore, wordTable } from './user-matching/word-scores.js';
import { idText, quotedText } from '../core/tools/line-text.js';

// The rest of the interface, defined by the parts.
export { fuzzyComponent } from './user-matching/fuzzy.js';
export { LETTER_FOLDS, normalizeText } from './user-matching/text.js';
export { createUserIndex, UserIndex, type MatchCandidate } from './user-matching/user-index.js';

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
const MAX_QUERY_TOKENS = 8;

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
        // The fuzzy component (at most FUZZY_WEIGHT) changes nothing when the user already scores
        // that much, or when the kept matches all score more.
        const last = scored.length >= maxResults ? scored[scored.length - 1]!.confidence : 0;
        const fz = fuzzy && confidence < FUZZY_WEIGHT && last <= FUZZY_WEIGHT ? fuzzyScore(fuzzy, entry) : undefined;
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

/** Names and addresses are the platform's: quoted (core/tools/line-text.ts), so that none can forge the reason's text. */
function describe(m: UserMatch<MatchCandidate>): string {
  return `${quotedText(m.user.name)} <${idText(m.user.email)}> (id ${idText(m.user.id)}, confidence ${m.confidence})`;
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
    const names = close.slice(0, 3).map((m) => `${quotedText(m.user.name)} (${m.confidence})`).join(', ');
    const who = close.length === 2 ? 'Two users match' : `${close.length} users match`;
    return { reason: `${who} almost equally well (${names}${close.length > 3 ? ', ...' : ''}): ask which one is meant.` };
  }
  if (top.namesakes && top.namesakes.count > 0) {
    const { count, names } = top.namesakes;
    const others = names.map((name) => quotedText(name)).join(', ') + (count > names.length ? ` and ${count - names.length} more` : '');
    return {
      reason: `The best match ${describe(top)} is not certain: the query could also be short for ${others}. Ask which one is meant (or search with the full name or e-mail address).`,
    };
  }
  const lead = second ? `well ahead of the next match ${quotedText(second.user.name)} (${second.confidence})` : 'the only match';
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
