/**
 * One generated incident's log entries, step by step as they happen: the trigger and its
 * notifications, a hand-over, the timeout escalation, the acknowledgement, a responder's note and
 * the resolution. Each step draws from the random source in the order incidents.ts calls it (a
 * step moved changes every record after it).
 */
import type { AgentRecord, LogEntryRecord, PolicyRecord, ScheduleRecord, ServiceRecord, TeamRecord, UserRecord } from '../model.js';
import { NOTES } from '../names.js';
import { onCallAt } from '../oncalls.js';
import type { IdFactory, Rng } from '../random.js';
import { HOUR, MINUTE, wholeSecond } from './common.js';

/** What the timeline's steps read of the account. */
export interface TimelineContext {
  rng: Rng;
  ids: IdFactory;
  schedulesById: Map<string, ScheduleRecord>;
  usersById: Map<string, UserRecord>;
  teams: TeamRecord[];
  eligibleOf: (teamIdx: number) => string[];
}

/** An incident's entries so far and who it is assigned to, at which escalation level. */
export interface IncidentTimeline {
  policy: PolicyRecord;
  /** What every entry of the incident carries. */
  base: { incidentId: string; serviceId: string; teamIds: string[] };
  /** Nothing happens after this instant (30 seconds before now). */
  limit: number;
  entries: LogEntryRecord[];
  assignees: string[];
  assignedAt: number;
  level: number;
}

/** When the responder acknowledges and when the incident is resolved (null: not yet). */
export interface Reaction {
  ackAt: number | null;
  resolvedAt: number | null;
  /** The first of them, or now. */
  reactionAt: number;
}

function userName(ctx: TimelineContext, userId: string): string {
  return (ctx.usersById.get(userId) as UserRecord).name;
}

/** A random instant from `from + minMs` to `from + maxMs`, no later than `limit`. */
export function sometimeBefore(rng: Rng, from: number, minMs: number, maxMs: number, limit: number): number {
  return wholeSecond(Math.min(from + minMs + Math.floor(rng.next() * (maxMs - minMs)), limit));
}

/** Who the policy's level `level` reaches at `at` (a round-robin level: its first only). */
function resolveLevel(ctx: TimelineContext, policy: PolicyRecord, level: number, at: number): string[] {
  const rule = policy.rules[level - 1];
  if (!rule) return [];
  const users: string[] = [];
  for (const target of rule.targets) {
    const userId = target.kind === 'user' ? target.id : onCallAt(ctx.schedulesById.get(target.id) as ScheduleRecord, at);
    if (userId && !users.includes(userId)) users.push(userId);
  }
  return rule.assignmentStrategy === 'round_robin' ? users.slice(0, 1) : users;
}

/** One notification entry per user, four seconds apart, by a random channel. */
function notify(ctx: TimelineContext, timeline: IncidentTimeline, userIds: string[], at: number): void {
  const { rng, ids } = ctx;
  userIds.forEach((userId, i) => {
    const user = ctx.usersById.get(userId) as UserRecord;
    const type = rng.pick(['email_notification', 'sms_notification', 'push_notification', 'phone_notification'] as const);
    const address = type === 'email_notification' ? user.email : type === 'push_notification' ? 'iPhone' : `+1 555-01${String(rng.int(0, 99)).padStart(2, '0')}`;
    timeline.entries.push({
      ...timeline.base,
      id: ids.next('R', 13),
      type: 'notify_log_entry',
      createdAt: Math.min(at + (i + 1) * 4_000, timeline.limit),
      agent: null,
      channel: { type: 'notification', notification: { type, status: 'success', address } },
      summary: `Notified ${user.name} by ${type.replace('_notification', '').replace('sms', 'SMS')}.`,
      userId,
      notification: { type, address },
    });
  });
}

/** The trigger through the API, assigned to and notifying the policy's first level. */
export function startTimeline(
  ctx: TimelineContext,
  incident: { id: string; service: ServiceRecord; serviceAgent: AgentRecord; policy: PolicyRecord; createdAt: number; title: string; svcSlug: string; limit: number },
): { timeline: IncidentTimeline; triggerId: string } {
  const { service, policy, createdAt, title } = incident;
  const timeline: IncidentTimeline = {
    policy,
    base: { incidentId: incident.id, serviceId: service.id, teamIds: service.teamIds.slice() },
    limit: incident.limit,
    entries: [],
    assignees: [],
    assignedAt: createdAt,
    level: 1,
  };
  const triggerId = ctx.ids.next('R', 13);
  timeline.entries.push({
    ...timeline.base,
    id: triggerId,
    type: 'trigger_log_entry',
    createdAt,
    agent: incident.serviceAgent,
    channel: { type: 'api', summary: title, details: { source: `${incident.svcSlug}-monitor` } },
    summary: 'Triggered through the API.',
    eventDetails: { description: title },
  });
  timeline.assignees = resolveLevel(ctx, policy, 1, createdAt);
  notify(ctx, timeline, timeline.assignees, createdAt);
  return { timeline, triggerId };
}

/** Acknowledged incidents always get an acknowledgement, most resolved ones too; resolved ones a resolution. */
export function reactionTimes(rng: Rng, status: string, createdAt: number, forced: boolean, limit: number, now: number): Reaction {
  const acks = status === 'acknowledged' || (status === 'resolved' && rng.chance(0.75));
  let ackAt = acks ? sometimeBefore(rng, createdAt, 2 * MINUTE, forced ? 10 * MINUTE : 35 * MINUTE, limit - 2 * MINUTE) : null;
  if (ackAt !== null && ackAt <= createdAt) ackAt = createdAt + 10_000;
  let resolvedAt = status === 'resolved' ? sometimeBefore(rng, ackAt ?? createdAt, 5 * MINUTE, 6 * HOUR, limit - MINUTE) : null;
  if (resolvedAt !== null && resolvedAt <= (ackAt ?? createdAt)) resolvedAt = (ackAt ?? createdAt) + 20_000;
  return { ackAt, resolvedAt, reactionAt: ackAt ?? resolvedAt ?? now };
}

/** Sometimes the first assignee hands the incident to a teammate before anyone acknowledged. */
export function handOver(ctx: TimelineContext, timeline: IncidentTimeline, service: ServiceRecord, createdAt: number, reactionAt: number, forced: boolean): void {
  const { rng, ids } = ctx;
  if (!(rng.chance(0.1) && timeline.assignees.length > 0 && !forced)) return;
  const by = timeline.assignees[0] as string;
  const teamIdx = ctx.teams.findIndex((t) => t.id === service.teamIds[0]);
  const others = ctx.eligibleOf(teamIdx).filter((u) => !timeline.assignees.includes(u));
  const at = createdAt + rng.int(1, 4) * MINUTE;
  if (others.length === 0 || at >= reactionAt - MINUTE) return;
  const to = rng.pick(others);
  timeline.entries.push({
    ...timeline.base,
    id: ids.next('R', 13),
    type: 'assign_log_entry',
    createdAt: at,
    agent: { kind: 'user', id: by },
    channel: { type: 'web_ui' },
    summary: `Reassigned to ${userName(ctx, to)}.`,
    assigneeIds: [to],
  });
  timeline.assignees = [to];
  timeline.assignedAt = at;
  notify(ctx, timeline, timeline.assignees, at);
}

/** Escalation to level 2 when nobody reacted within the first level's delay. */
export function escalateOnTimeout(ctx: TimelineContext, timeline: IncidentTimeline, createdAt: number, reactionAt: number): void {
  const { policy } = timeline;
  const firstRule = policy.rules[0];
  const escalateAt = createdAt + (firstRule?.delayMinutes ?? 30) * MINUTE;
  if (!(policy.rules.length > 1 && escalateAt < reactionAt && escalateAt < timeline.limit)) return;
  const next = resolveLevel(ctx, policy, 2, escalateAt);
  if (next.length === 0) return;
  timeline.entries.push({
    ...timeline.base,
    id: ctx.ids.next('R', 13),
    type: 'escalate_log_entry',
    createdAt: escalateAt,
    agent: null,
    channel: { type: 'timeout' },
    summary: `Escalated to level 2 (${next.map((u) => userName(ctx, u)).join(', ')}) after ${firstRule?.delayMinutes ?? 30} minutes without acknowledgement.`,
    assigneeIds: next,
  });
  timeline.assignees = next;
  timeline.assignedAt = escalateAt;
  timeline.level = 2;
  notify(ctx, timeline, timeline.assignees, escalateAt);
}

/** The responder's acknowledgement at `ackAt`, if any; the incident's acknowledgements. */
export function acknowledge(ctx: TimelineContext, timeline: IncidentTimeline, responder: string | null, ackAt: number | null): { at: number; userId: string }[] {
  if (ackAt === null || !responder) return [];
  timeline.entries.push({
    ...timeline.base,
    id: ctx.ids.next('R', 13),
    type: 'acknowledge_log_entry',
    createdAt: ackAt,
    agent: { kind: 'user', id: responder },
    channel: { type: ctx.rng.pick(['web_ui', 'mobile', 'slack']) },
    summary: `Acknowledged by ${userName(ctx, responder)}.`,
  });
  return [{ at: ackAt, userId: responder }];
}

/** Sometimes a note by the responder, a few minutes after they reacted and before the resolution. */
export function addResponderNote(ctx: TimelineContext, timeline: IncidentTimeline, responder: string | null, from: number, resolvedAt: number | null): void {
  const { rng } = ctx;
  if (!(responder && rng.chance(0.35))) return;
  const at = from + rng.int(3, 20) * MINUTE;
  if (at >= (resolvedAt ?? timeline.limit)) return;
  timeline.entries.push({
    ...timeline.base,
    id: ctx.ids.next('R', 13),
    type: 'annotate_log_entry',
    createdAt: at,
    agent: { kind: 'user', id: responder },
    channel: { type: 'note' },
    summary: `Note added by ${userName(ctx, responder)}.`,
    note: rng.pick(NOTES),
  });
}

/** The resolution at `resolvedAt` (by the service or the responder); who changed the status last. */
export function resolve(ctx: TimelineContext, timeline: IncidentTimeline, responder: string | null, reaction: Reaction, serviceAgent: AgentRecord): AgentRecord {
  const { ackAt, resolvedAt } = reaction;
  if (resolvedAt === null) return responder && ackAt !== null ? { kind: 'user', id: responder } : serviceAgent;
  const byService = !responder || ctx.rng.chance(0.25);
  const lastChangeBy: AgentRecord = byService ? serviceAgent : { kind: 'user', id: responder };
  timeline.entries.push({
    ...timeline.base,
    id: ctx.ids.next('R', 13),
    type: 'resolve_log_entry',
    createdAt: resolvedAt,
    agent: lastChangeBy,
    channel: byService ? { type: 'api' } : { type: 'web_ui' },
    summary: byService ? 'Resolved through the API.' : `Resolved by ${userName(ctx, responder as string)}.`,
  });
  return lastChangeBy;
}
