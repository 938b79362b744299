/**
 * Seed generator for the incident platform emulator.
 *
 * Deterministic: the same (seed, users, now) always yields the same account. Times are relative
 * to `now` (incidents over the last six weeks), while schedule rotations follow a fixed grid
 * (turns counted from 2024-01-01 09:00 local time), so the on-call user at a given instant does
 * not depend on when the sandbox was started. The exception is deliberate: the demo user (the
 * token's owner) is placed in the rotations so that they are on call at `now` on the platform
 * team's primary schedule and are next in line on its secondary schedule.
 *
 * The parts, in data/, in the order they draw from the random source (a step moved changes
 * every record after it): people.ts (teams, users, team roles), on-call.ts (schedules and
 * escalation policies), services.ts (services and priorities), incidents.ts (incidents, log
 * entries, alerts, notes; an incident's log entries, step by step, in incident-timeline.ts),
 * coverage.ts (a coverage gap and overrides ahead), recurrences.ts (earlier recurrences of a few
 * incidents, change events), dependencies.ts (business services and the dependency graph, from a
 * random source of its own), search-examples.ts (old resolved incidents a text search has to
 * understand), history.ts (six months of resolved incidents on a few services, paged at all hours
 * to responders in several time zones) and handoff.ts (a shift of the demo user's with incidents in
 * it), each from a source of its own; common.ts holds what they share.
 */
import type { Dataset } from './model.js';
import { IdFactory, Rng } from './random.js';
import { DEMO_USER_ID } from './data/common.js';
import { addCoverageChanges } from './data/coverage.js';
import { addTeammateNotes, generateAlerts, generateIncidents } from './data/incidents.js';
import { generatePolicies, generateSchedules } from './data/on-call.js';
import { generatePeople } from './data/people.js';
import { generatePriorities, generateServices } from './data/services.js';
import { generateDependencies } from './data/dependencies.js';
import { addRecurrences, generateChangeEvents } from './data/recurrences.js';
import { addSearchExamples } from './data/search-examples.js';
import { generateHistory } from './data/history.js';
import { addHandoffShift } from './data/handoff.js';

export { DEMO_USER_EMAIL, DEMO_USER_ID, DEMO_USER_NAME } from './data/common.js';
export const DEFAULT_SEED = 1337;
export const DEFAULT_USER_COUNT = 60;
/** Fewer users than this cannot staff the schedules. */
export const MIN_USER_COUNT = 12;
export const ACCOUNT_TIME_ZONE = 'Etc/UTC';

export interface GenerateOptions {
  now: number;
  seed?: number;
  users?: number;
}

export function generateDataset(options: GenerateOptions): Dataset {
  const now = options.now;
  const seed = options.seed ?? DEFAULT_SEED;
  const userCount = Math.max(MIN_USER_COUNT, Math.floor(options.users ?? DEFAULT_USER_COUNT));
  const rng = new Rng(seed);
  const ids = new IdFactory(rng);
  ids.reserve(DEMO_USER_ID);

  const people = generatePeople(rng, ids, userCount);
  const { teams, users, usersById, teamsById, eligibleOf } = people;
  const { schedules, scheduleByKey } = generateSchedules(rng, ids, now, people);
  const { policies, policyByKey } = generatePolicies(ids, people, scheduleByKey);
  const services = generateServices(rng, ids, now, policyByKey);
  const priorities = generatePriorities(ids);

  const schedulesById = new Map(schedules.map((s) => [s.id, s]));
  const policiesById = new Map(policies.map((p) => [p.id, p]));
  const servicesById = new Map(services.map((s) => [s.id, s]));

  // ----- incidents and their log entries
  const { incidents, logEntries } = generateIncidents({ rng, ids, now, services, policiesById, schedulesById, usersById, teams, priorities, eligibleOf });
  // Drawn after everything else, so that adding them changed none of the records above.
  const alertsByIncident = generateAlerts(rng, ids, incidents, servicesById);
  addTeammateNotes(rng, ids, now, incidents, logEntries, teams, eligibleOf, usersById);
  // Last: a coverage gap and overrides in the next two days (they change no past record).
  addCoverageChanges(ids, now, people, scheduleByKey);
  // Then, for the same reason: past recurrences of a few incidents, and change events.
  const recurring = addRecurrences({ rng, ids, now, incidents, logEntries, alertsByIncident, servicesById, usersById, teams, eligibleOf });
  const changeEvents = generateChangeEvents(rng, incidents, servicesById, recurring);
  // The dependency graph draws from a source of its own: it changes none of the records above.
  const taken = [users, teams, schedules, policies, services, priorities, incidents].flatMap((list: readonly { id: string }[]) => list.map((r) => r.id));
  const { businessServices, dependencies } = generateDependencies(seed, services, teamsById, taken);
  // Incidents a text search has to understand, from a source of their own, older than the rest.
  const alertIds = [...alertsByIncident.values()].flat().map((a) => a.id);
  const takenNow = [...taken, ...businessServices.map((b) => b.id), ...dependencies.map((d) => d.id), ...logEntries.map((l) => l.id), ...alertIds];
  addSearchExamples({ seed, now, incidents, logEntries, alertsByIncident, services, usersById, teams, eligibleOf, takenIds: takenNow });
  // Six months of history on a few services, from a source of its own too (numbered 801 on, below the rest).
  const history = generateHistory({
    seed,
    now,
    services,
    policiesById,
    schedulesById,
    usersById,
    // Every ID so far, the search examples' included, once each.
    takenIds: [...new Set([...taken, ...incidents.map((i) => i.id), ...businessServices.map((b) => b.id), ...logEntries.map((l) => l.id), ...[...alertsByIncident.values()].flat().map((a) => a.id)])],
  });
  incidents.push(...history.incidents);
  // Opened by hand, not by an alert: their alert lists are empty, not missing.
  for (const incident of history.incidents) alertsByIncident.set(incident.id, []);
  incidents.sort((a, b) => a.createdAt - b.createdAt);
  logEntries.push(...history.logEntries);
  logEntries.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  // A shift to hand over (the demo user's override on the support schedule, with its incidents), from a source of its own too.
  const takenAfter = [...takenNow, ...incidents.map((i) => i.id), ...logEntries.map((l) => l.id), ...[...alertsByIncident.values()].flat().map((a) => a.id)];
  const handoff = addHandoffShift(seed, now, schedules, services, [...new Set(takenAfter)]);
  incidents.push(...handoff.incidents);
  incidents.sort((a, b) => a.createdAt - b.createdAt);
  logEntries.push(...handoff.logEntries);
  logEntries.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  for (const [id, alerts] of handoff.alertsByIncident) alertsByIncident.set(id, alerts);

  return {
    generatedAt: now,
    seed,
    accountTimeZone: ACCOUNT_TIME_ZONE,
    demoUserId: DEMO_USER_ID,
    users,
    teams,
    schedules,
    policies,
    services,
    priorities,
    incidents,
    logEntries,
    usersById,
    teamsById,
    schedulesById,
    policiesById,
    servicesById,
    prioritiesById: new Map(priorities.map((p) => [p.id, p])),
    incidentsById: new Map(incidents.map((i) => [i.id, i])),
    logEntriesById: new Map(logEntries.map((l) => [l.id, l])),
    alertsByIncident,
    changeEvents,
    businessServices,
    businessServicesById: new Map(businessServices.map((b) => [b.id, b])),
    dependencies,
  };
}
