import { distance } from 'fastest-levenshtein';

/**
 * The nearest of `candidates` to a mistyped name, if any is reasonably close: case-insensitive
 * equality first, then the smallest edit distance within half the name's length.
 */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  // A name over twice as long as every candidate is farther from each than half its length: no
  // suggestion is possible, and the edit distance would cost time quadratic in the name.
  if (name.length > 2 * Math.max(0, ...candidates.map((candidate) => candidate.length)) + 4) return undefined;
  const wanted = name.toLowerCase();
  let best: { candidate: string; cost: number } | undefined;
  for (const candidate of candidates) {
    const cost = distance(wanted, candidate.toLowerCase());
    if (!best || cost < best.cost) best = { candidate, cost };
  }
  if (!best) return undefined;
  return best.cost <= Math.max(2, Math.floor(Math.max(wanted.length, best.candidate.length) / 2)) ? best.candidate : undefined;
}
