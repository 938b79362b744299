import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { reportPages } from '../api.js';
import { anyArray, anyObject, checkedOutput, shapeUser } from '../shape.js';
import { toCandidate, walkedIndexes, type Directory, type DirectoryCandidate } from '../user-directory.js';
import { AUTO_ACCEPT_MARGIN, AUTO_ACCEPT_THRESHOLD, chooseAutoAccept, createUserIndex, rankUsers, type UserIndex } from '../user-matching.js';

type Candidate = DirectoryCandidate;

// The index is as fresh as the cached directory it was built from.
const indexes = new WeakMap<Directory, UserIndex<Candidate>>();

function indexFor(directory: Directory): UserIndex<Candidate> {
  let index = indexes.get(directory);
  if (!index) {
    index = walkedIndexes.get(directory) ?? createUserIndex(directory.users.map(toCandidate));
    indexes.set(directory, index);
  }
  return index;
}

const ids = new WeakMap<Directory, Set<string>>();

function knownIds(directory: Directory): Set<string> {
  let known = ids.get(directory);
  if (!known) {
    known = new Set(directory.users.map((u) => String(u.id)));
    ids.set(directory, known);
  }
  return known;
}


const matchSchema = z.looseObject({ id: z.string(), confidence: z.number().min(0).max(1), matched_on: z.enum(['name', 'email']) });

export default incidentOpsTool({
  name: 'IncidentOps.SearchUsers',
  title: 'Search users',
  description: 'Users ranked by match to a name, partial name (typos allowed) or e-mail fragment.',
  toolset: 'users',
  input: z.strictObject({
    query: z.string().trim().min(1).refine((query) => query.length <= 200, { message: 'must be at most 200 characters' }).describe('Name or e-mail fragment.'),
    auto_accept_matches: z.boolean().default(false).describe(`Accept the best match when ${AUTO_ACCEPT_MARGIN} ahead of the next and ${AUTO_ACCEPT_THRESHOLD}+, or the only name a typo away.`),
  }),
  output: checkedOutput(
    z.object({
      query: z.string(),
      matches: z.array(matchSchema),
      accepted: matchSchema.optional(),
      auto_accept_reason: z.string().optional(),
      users_searched: z.number().int(),
      directory_truncated: z.boolean().optional(),
    }),
    z.object({ matches: anyArray, accepted: anyObject.optional(), auto_accept_reason: z.string().optional() }),
  ),
  handler: async (args, { deps, signal, progress }) => {
    const directory = await deps.directory.get(signal, reportPages(progress, 'the user directory'));
    const index = indexFor(directory);
    let ranked = rankUsers(args.query, index);
    if (directory.truncated) {
      // Beyond the platform's 10,000 offset cap: let the API's own name search find the rest,
      // ranked together with the cached directory (scores do not depend on the other users).
      const extra = await deps.api.listPage('/users', 'users', { query: args.query, limit: 100, offset: 0 }, signal);
      const known = knownIds(directory);
      const unknown = extra.items.filter((u) => !known.has(String(u.id)));
      if (unknown.length > 0) ranked = rankUsers<Candidate>(args.query, [index, createUserIndex(unknown.map(toCandidate))]);
    }
    const matches = ranked.map((m) => ({ ...shapeUser(m.user.raw), id: m.user.id, confidence: m.confidence, matched_on: m.matched_on }));
    const decision = args.auto_accept_matches ? chooseAutoAccept(ranked) : undefined;
    const accepted = decision?.accepted ? matches[ranked.indexOf(decision.accepted)] : undefined;
    return {
      query: args.query,
      matches,
      users_searched: directory.users.length,
      ...(directory.truncated ? { directory_truncated: true } : {}),
      ...(accepted ? { accepted } : {}),
      ...(decision ? { auto_accept_reason: decision.reason } : {}),
    };
  },
});
