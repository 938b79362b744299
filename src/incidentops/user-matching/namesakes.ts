/**
 * Who else a query could mean, so that a match is not accepted while another user is a plausible
 * reading: namesakes (the query could be a short form of their name) and typo rivals.
 */
import type { Entry, MatchCandidate, UserIndex } from './user-index.js';
import { longerNames, plausibleWord } from './word-scores.js';

/** The other users whose name the query could be a short form of (see UserMatch.namesakes). */
export function namesakesOf<T extends MatchCandidate>(best: Entry<T>, words: readonly string[][], indexes: readonly UserIndex<T>[]): { count: number; names: string[] } {
  let count = 0;
  const names: string[] = [];
  for (const index of indexes) {
    // Per query word, which distinct tokens it could stand for (either spelling of the word): a
    // token it equals or begins, or a name it is a short form of ("bob" for Robert, "kasia" for Katarzyna).
    const fits = words.map((forms) => {
      const longer = longerNames(forms);
      return Uint8Array.from(index.tokens, (token) => (forms.some((word) => token.startsWith(word)) || longer?.has(token) ? 1 : 0));
    });
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
export function plausibleUsers<T extends MatchCandidate>(words: readonly string[][], indexes: readonly UserIndex<T>[]): number {
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
