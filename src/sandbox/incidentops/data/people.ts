/**
 * The account's people: teams, users (the demo user, then the look-alike names, then random ones)
 * and their roles in the teams.
 */
import type { TeamRecord, TeamRole, UserRecord, UserRole } from '../model.js';
import { COLORS, FIRST_NAMES, JOB_TITLES, LAST_NAMES, SIMILAR_NAMES, USER_TIME_ZONES } from '../names.js';
import type { IdFactory, Rng } from '../random.js';
import { DEMO_USER_EMAIL, DEMO_USER_ID, DEMO_USER_NAME, mod } from './common.js';

const TEAMS = [
  { name: 'Platform Engineering', description: 'Kubernetes clusters, networking and the deploy pipeline.' },
  { name: 'Payments', description: 'Checkout, billing and payment provider integrations.' },
  { name: 'Mobile', description: 'iOS and Android apps and the mobile backend.' },
  { name: 'Data Infrastructure', description: 'Streaming pipelines, the warehouse and analytics jobs.' },
  { name: 'Security', description: 'Security monitoring and incident response.' },
  { name: 'Customer Support Tools', description: 'Support portal, help desk integrations and internal tooling.' },
] as const;

const ON_CALL_ROLES: ReadonlySet<UserRole> = new Set(['admin', 'owner', 'user', 'limited_user']);

export interface People {
  teams: TeamRecord[];
  users: UserRecord[];
  usersById: Map<string, UserRecord>;
  teamsById: Map<string, TeamRecord>;
  /** The members of a team who can be on call, in member order. */
  eligibleOf: (teamIdx: number) => string[];
  /** Every user who can be on call, in user order. */
  allEligible: string[];
  /** The team's manager, or a stand-in when it has none. */
  managerOf: (teamIdx: number) => string;
}

export function generatePeople(rng: Rng, ids: IdFactory, userCount: number): People {
  // ----- teams
  const teams: TeamRecord[] = TEAMS.map((t) => ({ id: ids.next(), name: t.name, description: t.description, members: [] }));

  // ----- users
  const users: UserRecord[] = [];
  const emailCounts = new Map<string, number>();
  const makeEmail = (name: string): string => {
    const base = name
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z ]/g, '')
      .trim()
      .replace(/\s+/g, '.');
    const n = (emailCounts.get(base) ?? 0) + 1;
    emailCounts.set(base, n);
    return `${base}${n > 1 ? n : ''}@example.com`;
  };
  const roleFor = (): UserRole =>
    rng.weighted<UserRole>([
      ['user', 70],
      ['limited_user', 10],
      ['admin', 6],
      ['observer', 5],
      ['read_only_user', 4],
      ['read_only_limited_user', 3],
      ['restricted_access', 2],
    ]);
  const addUser = (id: string, name: string, role: UserRole, teamIdx: number[]): void => {
    users.push({
      id,
      name,
      email: id === DEMO_USER_ID ? DEMO_USER_EMAIL : makeEmail(name),
      timeZone: rng.pick(USER_TIME_ZONES),
      color: rng.pick(COLORS),
      role,
      jobTitle: rng.pick(JOB_TITLES),
      description: null,
      teamIds: teamIdx.map((i) => (teams[i] as TeamRecord).id),
    });
  };
  emailCounts.set('demo.user', 1);
  addUser(DEMO_USER_ID, DEMO_USER_NAME, 'admin', [0]);
  const similarTeams = [0, 1, 2, 0, 3, 4, 5, 1, 2];
  SIMILAR_NAMES.forEach((name, i) => {
    if (users.length >= userCount) return;
    addUser(ids.next(), name, i === 0 ? 'owner' : 'user', [similarTeams[i] ?? 0]);
  });
  while (users.length < userCount) {
    const name = `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
    const first = rng.int(0, teams.length - 1);
    const teamIdx = rng.chance(0.15) ? [first, mod(first + rng.int(1, teams.length - 1), teams.length)] : [first];
    addUser(ids.next(), name, roleFor(), teamIdx);
  }
  const usersById = new Map(users.map((u) => [u.id, u]));

  // ----- team memberships (in user order; the first on-call-capable member manages the team)
  const teamsById = new Map(teams.map((t) => [t.id, t]));
  for (const user of users) {
    for (const teamId of user.teamIds) {
      const team = teamsById.get(teamId) as TeamRecord;
      // The demo user is a plain responder so that their on-call duties come from the schedules.
      const canLead = ON_CALL_ROLES.has(user.role) && user.id !== DEMO_USER_ID;
      let role: TeamRole;
      if (user.id === DEMO_USER_ID) role = 'responder';
      else if (!canLead) role = 'observer';
      else if (!team.members.some((m) => m.role === 'manager')) role = 'manager';
      else role = 'responder';
      team.members.push({ userId: user.id, role });
    }
  }
  const eligibleOf = (teamIdx: number): string[] =>
    (teams[teamIdx] as TeamRecord).members.filter((m) => ON_CALL_ROLES.has((usersById.get(m.userId) as UserRecord).role)).map((m) => m.userId);
  const allEligible = users.filter((u) => ON_CALL_ROLES.has(u.role)).map((u) => u.id);
  const managerOf = (teamIdx: number): string => {
    const team = teams[teamIdx] as TeamRecord;
    return (team.members.find((m) => m.role === 'manager') ?? { userId: allEligible[teamIdx % allEligible.length] as string }).userId;
  };
  return { teams, users, usersById, teamsById, eligibleOf, allEligible, managerOf };
}
