/**
 * How alike a query and an incident's words are. Words are compared by their stems (Porter's
 * English stemmer: "expiring", "expired" and "expires" are one word), each weighted by how rare it
 * is among the incidents compared (a word on every title, like a service's name, counts little).
 * Numbers are left out: hosts and values vary from one occurrence to the next.
 */
import { stemmer } from 'stemmer';

const STOP_WORDS = new Set(['the', 'and', 'for', 'from', 'with', 'over', 'above', 'below', 'into', 'out', 'off', 'not', 'are', 'was', 'has', 'its', 'this', 'that', 'prod', 'internal']);

/** Porter leaves a final "y" as "i" ("expiry" → "expiri") where other forms lose it ("expired" → "expir"). */
function stemOf(word: string): string {
  const stem = stemmer(word);
  return stem.length > 4 && stem.endsWith('i') ? stem.slice(0, -1) : stem;
}

/** The stems of a text's words of three letters or more, numbers and common words left out. */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (word.length > 2 && !/^\d+$/.test(word) && !STOP_WORDS.has(word)) out.add(stemOf(word));
  }
  return out;
}

/** Word weights from the candidates themselves: log(1 + n / (1 + documents with the word)). */
export function wordWeights(candidates: readonly ReadonlySet<string>[]): (word: string) => number {
  const documents = new Map<string, number>();
  for (const candidate of candidates) for (const word of candidate) documents.set(word, (documents.get(word) ?? 0) + 1);
  return (word) => Math.log(1 + candidates.length / (1 + (documents.get(word) ?? 0)));
}

/** The words both share over the words of either, weighted (a weighted Jaccard index, 0 to 1): for two incidents' titles. */
export function sharedShare(query: ReadonlySet<string>, candidate: ReadonlySet<string>, weight: (word: string) => number): number {
  let shared = 0;
  let either = 0;
  for (const word of new Set([...query, ...candidate])) {
    const w = weight(word);
    either += w;
    if (query.has(word) && candidate.has(word)) shared += w;
  }
  return either > 0 ? shared / either : 0;
}

/** The share of the query's words a text has, weighted (0 to 1): for a few words against a title, notes or alerts. */
export function queryShare(query: ReadonlySet<string>, text: ReadonlySet<string>, weight: (word: string) => number): number {
  let found = 0;
  let all = 0;
  for (const word of query) {
    const w = weight(word);
    all += w;
    if (text.has(word)) found += w;
  }
  return all > 0 ? found / all : 0;
}
