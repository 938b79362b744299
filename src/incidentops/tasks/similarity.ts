/**
 * How alike two incidents' words are: the words they share, each weighted by how rare it is among
 * the incidents compared (a word on every title, like a service's name, counts little), over the
 * words of both (a weighted Jaccard index, 0 to 1). Numbers are left out: hosts and values vary
 * from one occurrence to the next.
 */

const STOP_WORDS = new Set(['the', 'and', 'for', 'from', 'with', 'over', 'above', 'below', 'into', 'out', 'off', 'not', 'are', 'was', 'has', 'its', 'this', 'that', 'prod', 'internal']);

export function words(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 2 && !/^\d+$/.test(word) && !STOP_WORDS.has(word)));
}

/** Scores each candidate against the query, with word weights from the candidates themselves. */
export function rankBySharedWords(query: ReadonlySet<string>, candidates: readonly ReadonlySet<string>[]): number[] {
  const documents = new Map<string, number>();
  for (const candidate of candidates) for (const word of candidate) documents.set(word, (documents.get(word) ?? 0) + 1);
  const weight = (word: string) => Math.log(1 + candidates.length / (1 + (documents.get(word) ?? 0)));
  return candidates.map((candidate) => {
    let shared = 0;
    let either = 0;
    for (const word of new Set([...query, ...candidate])) {
      const w = weight(word);
      either += w;
      if (query.has(word) && candidate.has(word)) shared += w;
    }
    return either > 0 ? shared / either : 0;
  });
}
