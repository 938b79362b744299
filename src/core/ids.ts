/** What an ID must be to name one resource in a request path; shared by the schemas (first) and the upstream client (last). */

/**
 * Why a value cannot be one ID in a URL path, or undefined when it can. Encoded, `/`, `?`, `#` or
 * `\` would still reach another resource or none (and a 404 that says nothing), and `.` or `..`
 * would change the path itself.
 */
export function pathIdProblem(value: string): string | undefined {
  const bad = /[/?#\\]/.exec(value);
  if (bad) return `must be a single ID, and an ID never contains "${bad[0]}"; pass the ID alone, not a path or a link`;
  if (value === '.' || value === '..') return `must be an ID, not "${value}" (a dot segment would change the request path)`;
  return undefined;
}
