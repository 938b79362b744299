/**
 * The incident platform emulator's state, built once when it starts and handed to every handler
 * and to the dispatch explicitly: the generated account, its lists in serving order, the clock,
 * the plan and what accepts a credential.
 */
import type { TokenVerification } from '../oauth.js';
import { generateDataset } from './data.js';
import type { PlanOptions } from './intelligence.js';
import type { Dataset, PolicyRecord, ScheduleRecord, ServiceRecord, TeamRecord, UserRecord } from './model.js';

export interface IncidentOpsPlatformOptions {
  token: string;
  users?: number;
  seed?: number;
  now?: () => Date;
  /** Checks bearer tokens other than `token` (the identity service's OAuth user tokens). */
  verifyToken?: (token: string) => TokenVerification;
  /** Past and related incidents, related change events, service dependencies: a plan without them (intelligence.ts). */
  plan?: PlanOptions;
}

export interface IncidentOpsState {
  data: Dataset;
  clock: () => Date;
  /** The static token every request may present. */
  token: string;
  verifyToken: ((token: string) => TokenVerification) | undefined;
  plan: PlanOptions;
  /** Lists are served in a stable order: users/teams/services/policies/schedules by name. */
  sorted: {
    users: UserRecord[];
    teams: TeamRecord[];
    services: ServiceRecord[];
    policies: PolicyRecord[];
    schedules: ScheduleRecord[];
  };
  /** A policy's place in `sorted.policies` (the on-call list's first sort key). */
  policyOrder: Map<string, number>;
  /** Each user's JSON per base URL, rendered on first use (users never change). */
  renderedUsers: Map<string, Map<string, string>>;
}

/** Orders by name (case-insensitive), then by ID. */
export function byName<T extends { name: string; id: string }>(a: T, b: T): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Generates the account (relative to the clock's now) and sorts its lists for serving. */
export function createIncidentOpsState(options: IncidentOpsPlatformOptions): IncidentOpsState {
  const clock = options.now ?? (() => new Date());
  const data = generateDataset({ now: clock().getTime(), seed: options.seed, users: options.users });
  const policies = data.policies.slice().sort(byName);
  return {
    data,
    clock,
    token: options.token,
    verifyToken: options.verifyToken,
    plan: options.plan ?? {},
    sorted: {
      users: data.users.slice().sort(byName),
      teams: data.teams.slice().sort(byName),
      services: data.services.slice().sort(byName),
      policies,
      schedules: data.schedules.slice().sort(byName),
    },
    policyOrder: new Map(policies.map((p, i) => [p.id, i])),
    renderedUsers: new Map(),
  };
}
