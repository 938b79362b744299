import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { shapeUser } from '../shape.js';
import type { Directory } from '../user-directory.js';
import { AUTO_ACCEPT_MARGIN, AUTO_ACCEPT_THRESHOLD, chooseAutoAccept, createUserIndex, rankUsers, type MatchCandidate, type UserIndex } from '../user-matching.js';

type Candidate = MatchCandidate & { raw: Record<string, unknown> };

// The index is as fresh as the cached directory it was built from.
const indexes = new WeakMap<Directory, UserIndex<Candidate>>();

function indexFor(directory: Directory): UserIndex<Candidate> {
  let index = indexes.get(directory);
  if (!index) {
    index = createUserIndex(directory.users.map(toCandidate));
    indexes.set(directory, index);
  }
  return index;
}

function toCandidate(user: Record<string, unknown>): Candidate {
  return { id: String(user.id), name: String(user.name ?? user.summary ?? ''), email: String(user.email ?? ''), raw: user };
}

const matchSchema = z.looseObject({ id: z.string(), confidence: z.number().min(0).max(1), matched_on: z.enum(['name', 'email']) });

export default incidentOpsTool({
  name: 'IncidentOps.SearchUsers',
  title: 'Search users by name or e-mail',
  description:
    `Finds users by a name, part of a name (typos tolerated) or an e-mail fragment, ranked with a confidence from 0 to 1 (1 = exact name or e-mail). With auto_accept_matches, the best match is accepted only when its confidence is at least ${AUTO_ACCEPT_THRESHOLD} and ${AUTO_ACCEPT_MARGIN} ahead of the next; otherwise ask the user which one is meant.`,
  toolset: 'users',
  input: z.strictObject({
    query: z.string().trim().min(1).max(200).describe('Name, partial name or e-mail fragment, e.g. "jane doe", "Jne", "jdoe@".'),
    auto_accept_matches: z.boolean().default(false).describe('Accept the best match automatically when it is confident and clearly ahead of the rest (default false).'),
  }),
  output: z.object({
    query: z.string(),
    matches: z.array(matchSchema),
    accepted: matchSchema.optional(),
    auto_accept_reason: z.string().optional(),
    users_searched: z.number().int(),
    directory_truncated: z.boolean().optional(),
  }),
  handler: async (args, { deps, signal }) => {
    const directory = await deps.directory.get(signal);
    let ranked = rankUsers(args.query, indexFor(directory));
    if (directory.truncated) {
      // Beyond the platform's 10,000 offset cap: let the API's own name search find the rest.
      const extra = await deps.api.listPage('/users', 'users', { query: args.query, limit: 100, offset: 0 }, signal);
      const known = new Set(directory.users.map((u) => String(u.id)));
      const merged = [...directory.users, ...extra.items.filter((u) => !known.has(String(u.id)))];
      ranked = rankUsers(args.query, merged.map(toCandidate));
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
