/**
 * Seed generator for the incident platform emulator.
 *
 * Deterministic: the same (seed, users, now) always yields the same account. Times are relative
 * to `now` (incidents over the last six weeks), while schedule rotations follow a fixed grid
 * (turns counted from 2024-01-01 09:00 local time), so the on-call user at a given instant does
 * not depend on when the sandbox was started. The exception is deliberate: the demo user (the
 * token's owner) is placed in the rotations so that they are on call at `now` on the platform
 * team's primary schedule and are next in line on its secondary schedule.
 */
import { DateTime } from 'luxon';
import type {
  AgentRecord,
  AlertRecord,
  AlertSeverity,
  Dataset,
  EscalationRuleRecord,
  IncidentRecord,
  IncidentStatus,
  LayerRecord,
  LogEntryRecord,
  PolicyRecord,
  PriorityRecord,
  RestrictionRecord,
  ScheduleRecord,
  ServiceRecord,
  TargetRecord,
  TeamRecord,
  TeamRole,
  UserRecord,
  UserRole,
} from './model.js';
import { COLORS, FIRST_NAMES, INCIDENT_TITLES, JOB_TITLES, LAST_NAMES, NOTES, SIMILAR_NAMES, USER_TIME_ZONES } from './names.js';
import { onCallAt } from './oncalls.js';
import { IdFactory, Rng } from './random.js';

export const DEMO_USER_ID = 'PDEMO01';
export const DEMO_USER_NAME = 'Demo User';
export const DEMO_USER_EMAIL = 'demo.user@example.com';
export const DEFAULT_SEED = 1337;
export const DEFAULT_USER_COUNT = 60;
/** Fewer users than this cannot staff the schedules. */
export const MIN_USER_COUNT = 12;
export const ACCOUNT_TIME_ZONE = 'Etc/UTC';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

export interface GenerateOptions {
  now: number;
  seed?: number;
  users?: number;
}

const TEAMS = [
  { name: 'Platform Engineering', description: 'Kubernetes clusters, networking and the deploy pipeline.' },
  { name: 'Payments', description: 'Checkout, billing and payment provider integrations.' },
  { name: 'Mobile', description: 'iOS and Android apps and the mobile backend.' },
  { name: 'Data Infrastructure', description: 'Streaming pipelines, the warehouse and analytics jobs.' },
  { name: 'Security', description: 'Security monitoring and incident response.' },
  { name: 'Customer Support Tools', description: 'Support portal, help desk integrations and internal tooling.' },
] as const;

interface LayerSpec {
  name: string;
  turn: 'daily' | 'weekly';
  size: number;
  restrictions?: RestrictionRecord[];
  /** Demo placement: 'now' = on call at `now`; 'next' = takes the next turn. */
  demo?: 'now' | 'next';
}

interface ScheduleSpec {
  key: string;
  name: string;
  description: string;
  team: number;
  timeZone: string;
  layers: LayerSpec[];
}

const weekdays = (startTimeOfDay: string, hours: number): RestrictionRecord[] =>
  [1, 2, 3, 4, 5].map((d) => ({ type: 'weekly_restriction', startTimeOfDay, durationSeconds: hours * 3600, startDayOfWeek: d }));

const SCHEDULES: ScheduleSpec[] = [
  {
    key: 'platform-primary',
    name: 'Platform Engineering - Primary',
    description: 'Weekly primary rotation for the platform team. Hand-off Mondays 09:00 New York time.',
    team: 0,
    timeZone: 'America/New_York',
    layers: [{ name: 'Weekly rotation', turn: 'weekly', size: 4, demo: 'now' }],
  },
  {
    key: 'platform-secondary',
    name: 'Platform Engineering - Secondary',
    description: 'Backup rotation for the platform team.',
    team: 0,
    timeZone: 'America/New_York',
    layers: [{ name: 'Weekly rotation', turn: 'weekly', size: 4, demo: 'next' }],
  },
  {
    key: 'payments-primary',
    name: 'Payments - Primary',
    description: 'Business-hours responders on weekdays, a weekly rotation covers the rest.',
    team: 1,
    timeZone: 'Europe/London',
    layers: [
      { name: 'Business hours', turn: 'daily', size: 3, restrictions: weekdays('09:00:00', 8) },
      { name: 'Round the clock', turn: 'weekly', size: 4 },
    ],
  },
  {
    key: 'payments-secondary',
    name: 'Payments - Secondary',
    description: 'Escalation backup for payments.',
    team: 1,
    timeZone: 'Europe/London',
    layers: [{ name: 'Weekly rotation', turn: 'weekly', size: 3 }],
  },
  {
    key: 'mobile',
    name: 'Mobile On-Call',
    description: 'Mobile backend and app release support.',
    team: 2,
    timeZone: 'America/Los_Angeles',
    layers: [{ name: 'Weekly rotation', turn: 'weekly', size: 5 }],
  },
  {
    key: 'data',
    name: 'Data Infrastructure On-Call',
    description: 'Daytime responders for pipelines, with a weekly rotation overnight.',
    team: 3,
    timeZone: 'Europe/Berlin',
    layers: [
      { name: 'Daytime', turn: 'daily', size: 3, restrictions: [{ type: 'daily_restriction', startTimeOfDay: '08:00:00', durationSeconds: 12 * 3600 }] },
      { name: 'Overnight', turn: 'weekly', size: 3 },
    ],
  },
  {
    key: 'security',
    name: 'Security Incident Response',
    description: 'Security responders, weekly rotation.',
    team: 4,
    timeZone: 'Etc/UTC',
    layers: [{ name: 'Weekly rotation', turn: 'weekly', size: 4 }],
  },
  {
    key: 'support',
    name: 'Support Tools - Daily',
    description: 'Daily rotation for internal support tooling.',
    team: 5,
    timeZone: 'Asia/Kolkata',
    layers: [{ name: 'Daily rotation', turn: 'daily', size: 4 }],
  },
];

type TargetSpec = { schedule: string } | { teamManager: number } | { teamMember: [number, number] } | { demo: true };

interface PolicySpec {
  key: string;
  name: string;
  description: string;
  teams: number[];
  numLoops: number;
  rules: { delay: number; targets: TargetSpec[]; strategy?: 'round_robin' | 'assign_to_everyone' }[];
}

const POLICIES: PolicySpec[] = [
  {
    key: 'platform',
    name: 'Platform Engineering Escalation',
    description: 'Primary, then secondary, then the engineering manager.',
    teams: [0],
    numLoops: 2,
    rules: [
      { delay: 30, targets: [{ schedule: 'platform-primary' }] },
      { delay: 30, targets: [{ schedule: 'platform-secondary' }] },
      { delay: 30, targets: [{ teamManager: 0 }] },
    ],
  },
  {
    key: 'payments',
    name: 'Payments Escalation',
    description: 'Payments primary, then secondary together with the team lead.',
    teams: [1],
    numLoops: 1,
    rules: [
      { delay: 30, targets: [{ schedule: 'payments-primary' }] },
      { delay: 20, targets: [{ schedule: 'payments-secondary' }, { teamManager: 1 }] },
    ],
  },
  {
    key: 'mobile',
    name: 'Mobile Escalation',
    description: 'Mobile on-call, then the mobile lead.',
    teams: [2],
    numLoops: 0,
    rules: [
      { delay: 30, targets: [{ schedule: 'mobile' }] },
      { delay: 30, targets: [{ teamManager: 2 }] },
    ],
  },
  {
    key: 'data',
    name: 'Data Infrastructure Escalation',
    description: 'Data on-call, then two senior data engineers.',
    teams: [3],
    numLoops: 1,
    rules: [
      { delay: 30, targets: [{ schedule: 'data' }] },
      { delay: 60, targets: [{ teamMember: [3, 1] }, { teamMember: [3, 2] }], strategy: 'round_robin' },
    ],
  },
  {
    key: 'security',
    name: 'Security Escalation',
    description: 'Security responders with a short escalation delay.',
    teams: [4],
    numLoops: 3,
    rules: [
      { delay: 10, targets: [{ schedule: 'security' }] },
      { delay: 10, targets: [{ teamManager: 4 }] },
    ],
  },
  {
    key: 'support',
    name: 'Support Tools Escalation',
    description: 'Daily support rotation, then the support tooling lead.',
    teams: [5],
    numLoops: 0,
    rules: [
      { delay: 30, targets: [{ schedule: 'support' }] },
      { delay: 30, targets: [{ teamManager: 5 }] },
    ],
  },
  {
    key: 'business-hours',
    name: 'Internal Tools (Business Hours)',
    description: 'Low-urgency internal tools: the demo user first, then the platform secondary rotation.',
    teams: [0],
    numLoops: 0,
    rules: [
      { delay: 15, targets: [{ demo: true }] },
      { delay: 15, targets: [{ schedule: 'platform-secondary' }] },
    ],
  },
  {
    key: 'critical',
    name: 'Critical Customer Impact',
    description: 'Customer-facing checkout: both primaries at once, then both managers.',
    teams: [0, 1],
    numLoops: 2,
    rules: [
      { delay: 5, targets: [{ schedule: 'platform-primary' }, { schedule: 'payments-primary' }] },
      { delay: 15, targets: [{ teamManager: 0 }, { teamManager: 1 }] },
    ],
  },
];

interface ServiceSpec {
  name: string;
  description: string;
  policy: string;
  urgency: 'high' | 'low';
  fixedStatus?: 'disabled' | 'maintenance';
  /** Relative share of the incidents. */
  weight: number;
}

const SERVICES: ServiceSpec[] = [
  { name: 'Kubernetes Platform', description: 'Production clusters and ingress.', policy: 'platform', urgency: 'high', weight: 5 },
  { name: 'Deploy Pipeline', description: 'CI/CD runners and artifact registry.', policy: 'platform', urgency: 'low', weight: 3 },
  { name: 'Checkout API', description: 'Public checkout and order placement API.', policy: 'critical', urgency: 'high', weight: 4 },
  { name: 'Payments Gateway', description: 'Card and wallet payment processing.', policy: 'payments', urgency: 'high', weight: 4 },
  { name: 'Billing Worker', description: 'Invoice generation and dunning jobs.', policy: 'payments', urgency: 'low', weight: 2 },
  { name: 'Mobile Backend', description: 'API gateway for the iOS and Android apps.', policy: 'mobile', urgency: 'high', weight: 3 },
  { name: 'Push Notifications', description: 'APNs/FCM delivery service.', policy: 'mobile', urgency: 'low', fixedStatus: 'maintenance', weight: 1 },
  { name: 'Data Pipeline', description: 'Kafka ingestion and stream processing.', policy: 'data', urgency: 'high', weight: 3 },
  { name: 'Analytics Warehouse', description: 'Nightly ETL and BI dashboards.', policy: 'data', urgency: 'low', weight: 2 },
  { name: 'Security Monitoring', description: 'SIEM alerts and intrusion detection.', policy: 'security', urgency: 'high', weight: 2 },
  { name: 'Support Portal', description: 'Customer help center and ticket intake.', policy: 'support', urgency: 'low', weight: 2 },
  { name: 'Internal Admin Tools', description: 'Back-office admin console.', policy: 'business-hours', urgency: 'low', weight: 2 },
  { name: 'Legacy Reporting', description: 'Old reporting stack, switched off.', policy: 'platform', urgency: 'low', fixedStatus: 'disabled', weight: 0 },
];

const PRIORITIES = [
  { name: 'P1', description: 'Critical: widespread customer impact.', color: 'a8171c' },
  { name: 'P2', description: 'High: significant impact on a major feature.', color: 'eb6016' },
  { name: 'P3', description: 'Moderate: degraded service, workaround exists.', color: 'f9b406' },
  { name: 'P4', description: 'Low: minor impact.', color: '0b6ebd' },
  { name: 'P5', description: 'Informational.', color: '6b6b6b' },
] as const;

const ON_CALL_ROLES: ReadonlySet<UserRole> = new Set(['admin', 'owner', 'user', 'limited_user']);

function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** Timestamps are kept to whole seconds, as the platform renders them. */
function wholeSecond(t: number): number {
  return Math.floor(t / 1000) * 1000;
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}

export function generateDataset(options: GenerateOptions): Dataset {
  const now = options.now;
  const seed = options.seed ?? DEFAULT_SEED;
  const userCount = Math.max(MIN_USER_COUNT, Math.floor(options.users ?? DEFAULT_USER_COUNT));
  const rng = new Rng(seed);
  const ids = new IdFactory(rng);
  ids.reserve(DEMO_USER_ID);

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

  // ----- schedules
  const schedules: ScheduleRecord[] = [];
  const scheduleByKey = new Map<string, ScheduleRecord>();
  for (const spec of SCHEDULES) {
    const layers: LayerRecord[] = spec.layers.map((ls) => {
      const len = ls.turn === 'weekly' ? WEEK : DAY;
      // Grid anchor: Monday 2024-01-01 09:00 in the schedule's zone; turns have a fixed length.
      const anchor = DateTime.fromObject({ year: 2024, month: 1, day: 1, hour: 9 }, { zone: spec.timeZone }).toMillis();
      const cycle = ls.size * len;
      // Show a virtual start 8+ weeks back; moving it by whole cycles does not change who is on call.
      const vs = anchor + Math.floor((now - 8 * WEEK - anchor) / cycle) * cycle;
      let pool = eligibleOf(spec.team).filter((id) => id !== DEMO_USER_ID);
      if (pool.length < ls.size) pool = pool.concat(rng.shuffle(allEligible.filter((id) => !pool.includes(id) && id !== DEMO_USER_ID)));
      let members = rng.sample(pool, ls.demo ? ls.size - 1 : ls.size);
      if (ls.demo) {
        const kNow = Math.floor((now - vs) / len);
        const pos = mod(kNow + (ls.demo === 'next' ? 1 : 0), ls.size);
        members = [...members.slice(0, pos), DEMO_USER_ID, ...members.slice(pos)];
      }
      return {
        id: ids.next(),
        name: ls.name,
        start: vs,
        end: null,
        rotationVirtualStart: vs,
        turnLengthSeconds: len / 1000,
        userIds: members,
        restrictions: ls.restrictions ?? [],
      };
    });
    const schedule: ScheduleRecord = {
      id: ids.next(),
      name: spec.name,
      description: spec.description,
      timeZone: spec.timeZone,
      layers,
      teamIds: [(teams[spec.team] as TeamRecord).id],
    };
    schedules.push(schedule);
    scheduleByKey.set(spec.key, schedule);
  }

  // ----- escalation policies
  const policies: PolicyRecord[] = [];
  const policyByKey = new Map<string, PolicyRecord>();
  for (const spec of POLICIES) {
    const rules: EscalationRuleRecord[] = spec.rules.map((r) => ({
      id: ids.next(),
      delayMinutes: r.delay,
      assignmentStrategy: r.strategy ?? 'assign_to_everyone',
      targets: r.targets.map((t): TargetRecord => {
        if ('schedule' in t) return { kind: 'schedule', id: (scheduleByKey.get(t.schedule) as ScheduleRecord).id };
        if ('demo' in t) return { kind: 'user', id: DEMO_USER_ID };
        if ('teamManager' in t) return { kind: 'user', id: managerOf(t.teamManager) };
        const pool = eligibleOf(t.teamMember[0]);
        return { kind: 'user', id: (pool[t.teamMember[1]] ?? pool[0] ?? allEligible[0]) as string };
      }),
    }));
    // Two targets may have collapsed onto the same user in a small account: keep targets unique.
    for (const rule of rules) rule.targets = rule.targets.filter((t, i, all) => all.findIndex((o) => o.kind === t.kind && o.id === t.id) === i);
    const policy: PolicyRecord = {
      id: ids.next(),
      name: spec.name,
      description: spec.description,
      numLoops: spec.numLoops,
      onCallHandoffNotifications: spec.key === 'critical' ? 'always' : 'if_has_services',
      teamIds: spec.teams.map((i) => (teams[i] as TeamRecord).id),
      rules,
    };
    policies.push(policy);
    policyByKey.set(spec.key, policy);
  }

  // ----- services
  const services: ServiceRecord[] = SERVICES.map((spec) => {
    const policy = policyByKey.get(spec.policy) as PolicyRecord;
    const id = ids.next();
    return {
      id,
      name: spec.name,
      description: spec.description,
      policyId: policy.id,
      teamIds: policy.teamIds.slice(),
      createdAt: wholeSecond(now - rng.int(120, 900) * DAY),
      autoResolveTimeout: spec.urgency === 'low' ? 14_400 : 28_800,
      acknowledgementTimeout: spec.urgency === 'high' ? 1_800 : 3_600,
      fixedStatus: spec.fixedStatus ?? null,
      urgency: spec.urgency,
      integrations: [
        { id: ids.next(), type: 'events_api_v2_inbound_integration_reference', name: 'Events API V2' },
        ...(rng.chance(0.4) ? [{ id: ids.next(), type: 'generic_email_inbound_integration_reference' as const, name: 'Email' }] : []),
      ],
    };
  });

  const priorities: PriorityRecord[] = PRIORITIES.map((p) => ({ id: ids.next(), name: p.name, description: p.description, color: p.color }));

  const schedulesById = new Map(schedules.map((s) => [s.id, s]));
  const policiesById = new Map(policies.map((p) => [p.id, p]));
  const servicesById = new Map(services.map((s) => [s.id, s]));

  // ----- incidents and their log entries
  const { incidents, logEntries } = generateIncidents({ rng, ids, now, services, policiesById, schedulesById, usersById, teams, priorities, eligibleOf });
  // Drawn after everything else, so that adding them changed none of the records above.
  const alertsByIncident = generateAlerts(rng, ids, incidents, servicesById);
  addTeammateNotes(rng, ids, now, incidents, logEntries, teams, eligibleOf, usersById);

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
  };
}

interface IncidentContext {
  rng: Rng;
  ids: IdFactory;
  now: number;
  services: ServiceRecord[];
  policiesById: Map<string, PolicyRecord>;
  schedulesById: Map<string, ScheduleRecord>;
  usersById: Map<string, UserRecord>;
  teams: TeamRecord[];
  priorities: PriorityRecord[];
  eligibleOf: (teamIdx: number) => string[];
}

const INCIDENT_COUNT = 80;
const HISTORY = 42 * DAY;

function generateIncidents(ctx: IncidentContext): { incidents: IncidentRecord[]; logEntries: LogEntryRecord[] } {
  const { rng, ids, now } = ctx;
  const candidates = ctx.services.filter((s) => s.fixedStatus !== 'disabled');
  const weights = candidates.map((s) => [s, SERVICES.find((x) => x.name === s.name)?.weight ?? 1] as const);

  // Creation times, oldest first; the newest is a few minutes old.
  const times = Array.from({ length: INCIDENT_COUNT }, () => wholeSecond(now - 5 * MINUTE - Math.floor(rng.next() * HISTORY))).sort((a, b) => a - b);

  // Status depends on age: old incidents are almost all resolved.
  const statuses: IncidentStatus[] = times.map((t) => {
    const age = now - t;
    if (age < 6 * HOUR) return rng.weighted<IncidentStatus>([['triggered', 45], ['acknowledged', 40], ['resolved', 15]]);
    if (age < 3 * DAY) return rng.weighted<IncidentStatus>([['triggered', 10], ['acknowledged', 25], ['resolved', 65]]);
    return rng.weighted<IncidentStatus>([['acknowledged', 3], ['resolved', 97]]);
  });
  // Make sure open incidents are well represented, using the newest resolved ones.
  for (const [wanted, minimum] of [['triggered', 4], ['acknowledged', 6]] as const) {
    for (let i = statuses.length - 1; statuses.filter((s) => s === wanted).length < minimum && i >= 0; i--) {
      if (statuses[i] === 'resolved') statuses[i] = wanted;
    }
  }
  // The demo user gets open work: the newest incident is a fresh trigger on a service whose first
  // escalation level is the demo user, and the newest acknowledged one was acknowledged by them.
  const last = times.length - 1;
  times[last] = Math.max(times[last] as number, wholeSecond(now - 7 * MINUTE));
  statuses[last] = 'triggered';
  const demoAck = statuses.lastIndexOf('acknowledged', last - 1);
  const demoService = candidates.find((s) => s.name === 'Internal Admin Tools') as ServiceRecord;
  const forcedService = new Map<number, ServiceRecord>([[last, demoService]]);
  if (demoAck >= 0) forcedService.set(demoAck, demoService);

  const incidents: IncidentRecord[] = [];
  const logEntries: LogEntryRecord[] = [];
  const firstNumber = 1000 + rng.int(100, 900);
  const sometimeBefore = (from: number, minMs: number, maxMs: number, limit: number): number =>
    wholeSecond(Math.min(from + minMs + Math.floor(rng.next() * (maxMs - minMs)), limit));

  times.forEach((createdAt, index) => {
    const randomService = rng.weighted(weights);
    const forced = forcedService.get(index);
    const service = forced ?? randomService;
    const policy = ctx.policiesById.get(service.policyId) as PolicyRecord;
    const status = statuses[index] as IncidentStatus;
    const urgency = rng.chance(service.urgency === 'high' ? 0.8 : 0.2) ? 'high' : 'low';
    const priority =
      urgency === 'high'
        ? rng.chance(0.7) ? rng.pick(ctx.priorities.slice(0, 3)) : null
        : rng.chance(0.4) ? rng.pick(ctx.priorities.slice(3)) : null;
    const svcSlug = slug(service.name);
    const title = rng
      .pick(INCIDENT_TITLES)
      .replace('{svc}', service.name)
      .replace('{host}', `${svcSlug}-${String(rng.int(1, 24)).padStart(2, '0')}.prod.internal`)
      .replace('{domain}', `${svcSlug}.example.com`)
      .replace('{db}', `${svcSlug}-db-${rng.int(1, 3)}`);
    const id = ids.next();
    const number = firstNumber + index;
    const entries: LogEntryRecord[] = [];
    const limit = wholeSecond(now - 30_000); // nothing happens in the last 30 seconds
    const base = { incidentId: id, serviceId: service.id, teamIds: service.teamIds.slice() };
    const serviceAgent: AgentRecord = { kind: 'service', id: service.id };

    const resolveLevel = (level: number, at: number): string[] => {
      const rule = policy.rules[level - 1];
      if (!rule) return [];
      const users: string[] = [];
      for (const target of rule.targets) {
        const userId = target.kind === 'user' ? target.id : onCallAt(ctx.schedulesById.get(target.id) as ScheduleRecord, at);
        if (userId && !users.includes(userId)) users.push(userId);
      }
      return rule.assignmentStrategy === 'round_robin' ? users.slice(0, 1) : users;
    };
    const notify = (userIds: string[], at: number) => {
      userIds.forEach((userId, i) => {
        const user = ctx.usersById.get(userId) as UserRecord;
        const type = rng.pick(['email_notification', 'sms_notification', 'push_notification', 'phone_notification'] as const);
        const address = type === 'email_notification' ? user.email : type === 'push_notification' ? 'iPhone' : `+1 555-01${String(rng.int(0, 99)).padStart(2, '0')}`;
        entries.push({
          ...base,
          id: ids.next('R', 13),
          type: 'notify_log_entry',
          createdAt: Math.min(at + (i + 1) * 4_000, limit),
          agent: null,
          channel: { type: 'notification', notification: { type, status: 'success', address } },
          summary: `Notified ${user.name} by ${type.replace('_notification', '').replace('sms', 'SMS')}.`,
          userId,
          notification: { type, address },
        });
      });
    };

    // Trigger.
    const triggerId = ids.next('R', 13);
    entries.push({
      ...base,
      id: triggerId,
      type: 'trigger_log_entry',
      createdAt,
      agent: serviceAgent,
      channel: { type: 'api', summary: title, details: { source: `${svcSlug}-monitor` } },
      summary: 'Triggered through the API.',
      eventDetails: { description: title },
    });
    let assignees = resolveLevel(1, createdAt);
    let assignedAt = createdAt;
    notify(assignees, createdAt);
    let level = 1;

    // When does the responder react? Acknowledged incidents always do, most resolved ones too.
    const acks = status === 'acknowledged' || (status === 'resolved' && rng.chance(0.75));
    let ackAt = acks ? sometimeBefore(createdAt, 2 * MINUTE, forced ? 10 * MINUTE : 35 * MINUTE, limit - 2 * MINUTE) : null;
    if (ackAt !== null && ackAt <= createdAt) ackAt = createdAt + 10_000;
    let resolvedAt =
      status === 'resolved' ? sometimeBefore(ackAt ?? createdAt, 5 * MINUTE, 6 * HOUR, limit - MINUTE) : null;
    if (resolvedAt !== null && resolvedAt <= (ackAt ?? createdAt)) resolvedAt = (ackAt ?? createdAt) + 20_000;
    const reactionAt = ackAt ?? resolvedAt ?? now;

    // Hand-over before anyone acknowledged.
    if (rng.chance(0.1) && assignees.length > 0 && !forced) {
      const by = assignees[0] as string;
      const teamIdx = ctx.teams.findIndex((t) => t.id === service.teamIds[0]);
      const others = ctx.eligibleOf(teamIdx).filter((u) => !assignees.includes(u));
      const at = createdAt + rng.int(1, 4) * MINUTE;
      if (others.length > 0 && at < reactionAt - MINUTE) {
        const to = rng.pick(others);
        entries.push({
          ...base,
          id: ids.next('R', 13),
          type: 'assign_log_entry',
          createdAt: at,
          agent: { kind: 'user', id: by },
          channel: { type: 'web_ui' },
          summary: `Reassigned to ${(ctx.usersById.get(to) as UserRecord).name}.`,
          assigneeIds: [to],
        });
        assignees = [to];
        assignedAt = at;
        notify(assignees, at);
      }
    }

    // Timeout escalation to level 2 when nobody reacted in time.
    const firstRule = policy.rules[0];
    const escalateAt = createdAt + (firstRule?.delayMinutes ?? 30) * MINUTE;
    if (policy.rules.length > 1 && escalateAt < reactionAt && escalateAt < limit) {
      const next = resolveLevel(2, escalateAt);
      if (next.length > 0) {
        entries.push({
          ...base,
          id: ids.next('R', 13),
          type: 'escalate_log_entry',
          createdAt: escalateAt,
          agent: null,
          channel: { type: 'timeout' },
          summary: `Escalated to level 2 (${next.map((u) => (ctx.usersById.get(u) as UserRecord).name).join(', ')}) after ${firstRule?.delayMinutes ?? 30} minutes without acknowledgement.`,
          assigneeIds: next,
        });
        assignees = next;
        assignedAt = escalateAt;
        level = 2;
        notify(assignees, escalateAt);
      }
    }

    const responder = assignees[0] ?? null;
    let acknowledgements: { at: number; userId: string }[] = [];
    if (ackAt !== null && responder) {
      entries.push({
        ...base,
        id: ids.next('R', 13),
        type: 'acknowledge_log_entry',
        createdAt: ackAt,
        agent: { kind: 'user', id: responder },
        channel: { type: rng.pick(['web_ui', 'mobile', 'slack']) },
        summary: `Acknowledged by ${(ctx.usersById.get(responder) as UserRecord).name}.`,
      });
      acknowledgements = [{ at: ackAt, userId: responder }];
    }
    if (responder && rng.chance(0.35)) {
      const at = (ackAt ?? createdAt) + rng.int(3, 20) * MINUTE;
      if (at < (resolvedAt ?? limit)) {
        entries.push({
          ...base,
          id: ids.next('R', 13),
          type: 'annotate_log_entry',
          createdAt: at,
          agent: { kind: 'user', id: responder },
          channel: { type: 'note' },
          summary: `Note added by ${(ctx.usersById.get(responder) as UserRecord).name}.`,
          note: rng.pick(NOTES),
        });
      }
    }
    let lastChangeBy: AgentRecord = responder && ackAt !== null ? { kind: 'user', id: responder } : serviceAgent;
    if (resolvedAt !== null) {
      const byService = !responder || rng.chance(0.25);
      lastChangeBy = byService ? serviceAgent : { kind: 'user', id: responder };
      entries.push({
        ...base,
        id: ids.next('R', 13),
        type: 'resolve_log_entry',
        createdAt: resolvedAt,
        agent: lastChangeBy,
        channel: byService ? { type: 'api' } : { type: 'web_ui' },
        summary: byService ? 'Resolved through the API.' : `Resolved by ${(ctx.usersById.get(responder) as UserRecord).name}.`,
      });
    }

    entries.sort((a, b) => a.createdAt - b.createdAt);
    const updatedAt = entries.reduce((max, e) => Math.max(max, e.createdAt), createdAt);
    const alertCount = rng.chance(0.7) ? 1 : rng.int(2, 5);
    incidents.push({
      id,
      number,
      title,
      details: `${title}. Alert raised by ${svcSlug}-monitor; see the runbook for ${service.name}.`,
      createdAt,
      updatedAt,
      status,
      urgency,
      serviceId: service.id,
      policyId: policy.id,
      teamIds: service.teamIds.slice(),
      priorityId: priority?.id ?? null,
      incidentKey: rng.chars(32, '0123456789abcdef'),
      assignments: status === 'resolved' ? [] : assignees.map((userId) => ({ at: assignedAt, userId })),
      acknowledgements: status === 'acknowledged' ? acknowledgements : [],
      resolvedAt,
      lastStatusChangeAt: resolvedAt ?? ackAt ?? createdAt,
      lastStatusChangeBy: lastChangeBy,
      alertCount,
      escalationLevel: level,
      firstTriggerLogEntryId: triggerId,
      conferenceBridge: priority?.name === 'P1' ? { number: `+1 555-0100,,${rng.int(100000, 999999)}#`, url: `https://meet.example.com/${rng.chars(10, 'abcdefghijkmnpqrstuvwxyz')}` } : null,
    });
    logEntries.push(...entries);
  });
  logEntries.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  return { incidents, logEntries };
}

/** What a monitor reports, with its check name and unit; one alert of an incident per signal. */
const ALERT_SIGNALS = [
  { check: 'http_error_rate', summary: 'Error rate {value}% over 5 minutes', unit: '%', threshold: 5, high: 40 },
  { check: 'latency_p99', summary: 'p99 latency {value} ms', unit: 'ms', threshold: 800, high: 6000 },
  { check: 'health_check', summary: 'Health check failing on {host}', unit: 'failures', threshold: 3, high: 12 },
  { check: 'disk_used', summary: 'Disk {value}% full on {host}', unit: '%', threshold: 90, high: 99 },
  { check: 'queue_depth', summary: 'Queue depth {value} messages', unit: 'messages', threshold: 5000, high: 90000 },
] as const;

/** Each incident's alertCount alerts: the first carries the incident's title, the others related signals. */
function generateAlerts(rng: Rng, ids: IdFactory, incidents: readonly IncidentRecord[], servicesById: Map<string, ServiceRecord>): Map<string, AlertRecord[]> {
  const byIncident = new Map<string, AlertRecord[]>();
  for (const incident of incidents) {
    const service = servicesById.get(incident.serviceId) as ServiceRecord;
    const svcSlug = slug(service.name);
    const severities: AlertSeverity[] = incident.urgency === 'high' ? ['critical', 'error'] : ['warning', 'info'];
    const alerts: AlertRecord[] = [];
    for (let n = 0; n < incident.alertCount; n++) {
      const signal = rng.pick(ALERT_SIGNALS);
      const host = `${svcSlug}-${String(rng.int(1, 24)).padStart(2, '0')}.prod.internal`;
      const value = rng.int(signal.threshold + 1, signal.high);
      // Alerts arrive within the incident's life: the first with the trigger, the rest shortly after.
      const lastMoment = Math.max(incident.createdAt, (incident.resolvedAt ?? incident.updatedAt) - 1000);
      const createdAt = n === 0 ? incident.createdAt : Math.min(incident.createdAt + rng.int(1, 15) * MINUTE, lastMoment);
      alerts.push({
        id: ids.next('Q', 13),
        incidentId: incident.id,
        serviceId: service.id,
        integrationId: service.integrations[0]?.id ?? null,
        createdAt,
        resolvedAt: incident.resolvedAt,
        summary: n === 0 ? incident.title : signal.summary.replace('{value}', String(value)).replace('{host}', host),
        severity: n === 0 ? (severities[0] as AlertSeverity) : rng.pick(severities),
        alertKey: rng.chars(32, '0123456789abcdef'),
        details: {
          check: signal.check,
          host,
          value: `${value} ${signal.unit}`,
          threshold: `${signal.threshold} ${signal.unit}`,
          source: `${svcSlug}-monitor`,
          runbook: `https://runbooks.example.com/${svcSlug}/${signal.check}`,
        },
      });
    }
    alerts.sort((a, b) => a.createdAt - b.createdAt);
    byIncident.set(incident.id, alerts);
  }
  return byIncident;
}

/**
 * A second note, by a teammate of the responder, on about half of the incidents that already have
 * one and on every open incident: notes by different people, each also an annotate log entry.
 */
function addTeammateNotes(
  rng: Rng,
  ids: IdFactory,
  now: number,
  incidents: IncidentRecord[],
  logEntries: LogEntryRecord[],
  teams: readonly TeamRecord[],
  eligibleOf: (teamIdx: number) => string[],
  usersById: Map<string, UserRecord>,
): void {
  const limit = wholeSecond(now - 30_000);
  const annotated = new Set(logEntries.filter((e) => e.type === 'annotate_log_entry').map((e) => e.incidentId));
  for (const incident of incidents) {
    const open = incident.status !== 'resolved';
    if (!(open || (annotated.has(incident.id) && rng.chance(0.5)))) continue;
    const teamIdx = teams.findIndex((t) => t.id === incident.teamIds[0]);
    const responders = new Set([...incident.assignments, ...incident.acknowledgements].map((a) => a.userId));
    const teammates = teamIdx >= 0 ? eligibleOf(teamIdx).filter((u) => !responders.has(u)) : [];
    if (teammates.length === 0) continue;
    const author = rng.pick(teammates);
    const end = Math.min(incident.resolvedAt ?? limit, limit);
    const at = wholeSecond(incident.createdAt + Math.floor(rng.next() * Math.max(1, end - incident.createdAt)));
    if (!(at > incident.createdAt && at < end)) continue;
    logEntries.push({
      id: ids.next('R', 13),
      type: 'annotate_log_entry',
      createdAt: at,
      incidentId: incident.id,
      serviceId: incident.serviceId,
      teamIds: incident.teamIds.slice(),
      agent: { kind: 'user', id: author },
      channel: { type: 'note' },
      summary: `Note added by ${(usersById.get(author) as UserRecord).name}.`,
      note: rng.pick(NOTES),
    });
    incident.updatedAt = Math.max(incident.updatedAt, at);
  }
  logEntries.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}
