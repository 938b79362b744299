/**
 * Six weeks of incidents: each with its log entries (trigger, notifications, hand-overs,
 * escalation, acknowledgement, notes, resolution), its alerts and teammates' notes.
 */
import type { AgentRecord, AlertRecord, AlertSeverity, IncidentRecord, IncidentStatus, LogEntryRecord, PolicyRecord, PriorityRecord, ScheduleRecord, ServiceRecord, TeamRecord, UserRecord } from '../model.js';
import { INCIDENT_TITLES, NOTES } from '../names.js';
import { onCallAt } from '../oncalls.js';
import type { IdFactory, Rng } from '../random.js';
import { DAY, HOUR, MINUTE, slug, wholeSecond } from './common.js';
import { SERVICES } from './services.js';

export interface IncidentContext {
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

export function generateIncidents(ctx: IncidentContext): { incidents: IncidentRecord[]; logEntries: LogEntryRecord[] } {
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
export function generateAlerts(rng: Rng, ids: IdFactory, incidents: readonly IncidentRecord[], servicesById: Map<string, ServiceRecord>): Map<string, AlertRecord[]> {
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
export function addTeammateNotes(
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
