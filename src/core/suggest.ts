import Fuse from 'fuse.js';

/** The nearest of `candidates` to a mistyped name (case-insensitive first, then fuzzy), if any is reasonably close. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const exact = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (exact) return exact;
  return new Fuse(candidates, { threshold: 0.4, ignoreLocation: true }).search(name)[0]?.item;
}
