/**
 * Who is called: schedules (rotations on a fixed grid, with the demo user placed on call now and
 * next in line) and the escalation policies that page them.
 */
import { DateTime } from 'luxon';
import type { EscalationRuleRecord, LayerRecord, PolicyRecord, RestrictionRecord, ScheduleRecord, TargetRecord, TeamRecord } from '../model.js';
import type { IdFactory, Rng } from '../random.js';
import { DAY, DEMO_USER_ID, mod, WEEK } from './common.js';
import type { People } from './people.js';

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

export function generateSchedules(rng: Rng, ids: IdFactory, now: number, people: People): { schedules: ScheduleRecord[]; scheduleByKey: Map<string, ScheduleRecord> } {
  const { teams, eligibleOf, allEligible } = people;
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
  return { schedules, scheduleByKey };
}

export function generatePolicies(ids: IdFactory, people: People, scheduleByKey: Map<string, ScheduleRecord>): { policies: PolicyRecord[]; policyByKey: Map<string, PolicyRecord> } {
  const { teams, eligibleOf, allEligible, managerOf } = people;
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
  return { policies, policyByKey };
}
