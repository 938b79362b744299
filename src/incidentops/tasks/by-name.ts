/**
 * A service or team given by ID or by name, so that "who is on call for payments" is one call.
 * A value shaped like the platform's IDs (capital letters and digits, PABC123) is asked for by ID
 * first; anything else, or an ID the platform does not find, is looked up with the list's `query`
 * (one page): one exact name (any case) wins, else a single match; several are an error listing them.
 */
import { ToolError } from '../../core/errors.js';
import { API_PAGE_SIZE, type IncidentOpsApi } from '../api.js';
import { named } from '../oncall-levels.js';

type Json = Record<string, unknown>;

/** The platform's IDs: capital letters and digits only. Names like "API" have that shape too, hence the fallback. */
const ID_SHAPE = /^[A-Z0-9]+$/;
/** Candidates named in an ambiguity error; the rest are counted. */
const CANDIDATES_SHOWN = 20;
/** Platform names are cut here in the candidate list (`Name (ID)`). */
const NAME_CHARS = 100;

const KINDS = {
  service: { item: '/services/{id}', list: '/services', key: 'service', listKey: 'services', listTool: 'IncidentOps.ListServices' },
  team: { item: '/teams/{id}', list: '/teams', key: 'team', listKey: 'teams', listTool: 'IncidentOps.ListTeams' },
  escalation_policy: { item: '/escalation_policies/{id}', list: '/escalation_policies', key: 'escalation_policy', listKey: 'escalation_policies', listTool: 'IncidentOps.ListEscalationPolicies' },
} as const;

export async function resolveByIdOrName(api: IncidentOpsApi, kind: keyof typeof KINDS, parameter: string, value: string, signal: AbortSignal): Promise<Json> {
  const { item, list, key, listKey, listTool } = KINDS[kind];
  if (ID_SHAPE.test(value)) {
    try {
      return await api.getOne(item, { id: value }, key, signal, `${kind} "${value}"`);
    } catch (error) {
      if (!(error instanceof ToolError && error.details.kind === 'not_found')) throw error;
    }
  }
  const page = await api.listPage(list, listKey, { query: value, limit: API_PAGE_SIZE }, signal);
  const wanted = value.toLowerCase();
  const exact = page.items.filter((record) => typeof record.name === 'string' && record.name.trim().toLowerCase() === wanted);
  const candidates = exact.length > 0 ? exact : page.items;
  if (candidates.length === 1) return candidates[0] as Json;
  if (candidates.length === 0) {
    throw new ToolError({
      kind: 'not_found',
      message: `No ${kind.replace('_', ' ')} has the ID or a name matching "${value}" (${parameter}).`,
      nextStep: `${listTool} lists them (its query filters by name); pass one's ID or exact name as ${parameter}.`,
    });
  }
  const more = exact.length === 0 && page.more;
  const labels = candidates.slice(0, CANDIDATES_SHOWN).map((record) => named(record, NAME_CHARS) as string);
  const unshown = candidates.length - labels.length;
  const count = `${candidates.length}${more ? ' or more' : ''}`;
  throw new ToolError({
    kind: 'invalid_input',
    message: `${parameter} "${value}" matches ${count} ${listKey}; which one is meant?`,
    nextStep: `Pass one of the candidates' IDs as ${parameter}, or a name that matches only one${unshown > 0 || more ? `; ${listTool} with query pages through all of them` : ''}.`,
    issues: [{ parameter, problem: `matches ${count} ${listKey}, not one: give an ID or a more exact name` }],
    // Platform text (names): carried as the platform's details, so the result is marked as data.
    platformDetails: { candidates: labels, ...(unshown > 0 ? { not_shown: unshown } : {}) },
  });
}
