/**
 * Six weeks of incidents: each with its log entries (trigger, notifications, hand-overs,
 * escalation, acknowledgement, notes, resolution: incident-timeline.ts), its alerts and
 * teammates' notes. Every step draws from the random source in a fixed order (a step moved
 * changes every record after it).
 */
import type { AgentRecord, AlertRecord, AlertSeverity, IncidentRecord, IncidentStatus, LogEntryRecord, PolicyRecord, PriorityRecord, ServiceRecord, TeamRecord, UserRecord } from '../model.js';
import { INCIDENT_TITLES, NOTES } from '../names.js';
import type { IdFactory, Rng } from '../random.js';
import { DAY, HOUR, MINUTE, slug, wholeSecond } from './common.js';
import { acknowledge, addResponderNote, escalateOnTimeout, handOver, reactionTimes, resolve, startTimeline, type TimelineContext } from './incident-timeline.js';
import { SERVICES } from './services.js';
import { alertBody, reportedValue, signalsFor } from './alert-bodies.js';

export interface IncidentContext extends TimelineContext {
  now: number;
  services: ServiceRecord[];
  policiesById: Map<string, PolicyRecord>;
  priorities: PriorityRecord[];
}

const INCIDENT_COUNT = 80;
const HISTORY = 42 * DAY;

/** When the incidents happen, what state they are in, and which services they are forced onto. */
interface IncidentPlan {
  /** Services an incident may hit, each with its weight. */
  weights: (readonly [ServiceRecord, number])[];
  /** Creation times, oldest first. */
  times: number[];
  statuses: IncidentStatus[];
  /** The demo user's open incidents, by index: on a service whose first level is the demo user. */
  forcedService: Map<number, ServiceRecord>;
}

/** What an incident is about: where it happened, how urgent it is and its title. */
interface IncidentSubject {
  service: ServiceRecord;
  forced: boolean;
  urgency: 'high' | 'low';
  priority: PriorityRecord | null;
  title: string;
  svcSlug: string;
}

export function generateIncidents(ctx: IncidentContext): { incidents: IncidentRecord[]; logEntries: LogEntryRecord[] } {
  const plan = planIncidents(ctx);
  const incidents: IncidentRecord[] = [];
  const logEntries: LogEntryRecord[] = [];
  const firstNumber = 1000 + ctx.rng.int(100, 900);
  plan.times.forEach((createdAt, index) => {
    const { incident, entries } = generateIncident(ctx, plan, index, createdAt, firstNumber + index);
    incidents.push(incident);
    logEntries.push(...entries);
  });
  logEntries.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  return { incidents, logEntries };
}

/** Creation times and statuses by age, then the demo user's open work (newest trigger, newest acknowledgement). */
function planIncidents(ctx: IncidentContext): IncidentPlan {
  const { rng, now } = ctx;
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
  return { weights, times, statuses, forcedService };
}

/** The service (drawn even when forced, so that the draws stay in step), urgency, priority and title. */
function pickSubject(ctx: IncidentContext, plan: IncidentPlan, index: number): IncidentSubject {
  const { rng } = ctx;
  const randomService = rng.weighted(plan.weights);
  const forced = plan.forcedService.get(index);
  const service = forced ?? randomService;
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
  return { service, forced: forced !== undefined, urgency, priority, title, svcSlug };
}

/** One incident: its subject, its log entries as they happened, then the record with its key and bridge. */
function generateIncident(ctx: IncidentContext, plan: IncidentPlan, index: number, createdAt: number, number: number): { incident: IncidentRecord; entries: LogEntryRecord[] } {
  const { rng, ids, now } = ctx;
  const { service, forced, urgency, priority, title, svcSlug } = pickSubject(ctx, plan, index);
  const policy = ctx.policiesById.get(service.policyId) as PolicyRecord;
  const status = plan.statuses[index] as IncidentStatus;
  const id = ids.next();
  const limit = wholeSecond(now - 30_000); // nothing happens in the last 30 seconds
  const serviceAgent: AgentRecord = { kind: 'service', id: service.id };

  const { timeline, triggerId } = startTimeline(ctx, { id, service, serviceAgent, policy, createdAt, title, svcSlug, limit });
  const reaction = reactionTimes(rng, status, createdAt, forced, limit, now);
  const { ackAt, resolvedAt } = reaction;
  handOver(ctx, timeline, service, createdAt, reaction.reactionAt, forced);
  escalateOnTimeout(ctx, timeline, createdAt, reaction.reactionAt);
  const responder = timeline.assignees[0] ?? null;
  const acknowledgements = acknowledge(ctx, timeline, responder, ackAt);
  addResponderNote(ctx, timeline, responder, ackAt ?? createdAt, resolvedAt);
  const lastChangeBy = resolve(ctx, timeline, responder, reaction, serviceAgent);

  const { entries } = timeline;
  entries.sort((a, b) => a.createdAt - b.createdAt);
  const updatedAt = entries.reduce((max, e) => Math.max(max, e.createdAt), createdAt);
  const alertCount = rng.chance(0.7) ? 1 : rng.int(2, 5);
  const incident: IncidentRecord = {
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
    assignments: status === 'resolved' ? [] : timeline.assignees.map((userId) => ({ at: timeline.assignedAt, userId })),
    acknowledgements: status === 'acknowledged' ? acknowledgements : [],
    resolvedAt,
    lastStatusChangeAt: resolvedAt ?? ackAt ?? createdAt,
    lastStatusChangeBy: lastChangeBy,
    alertCount,
    escalationLevel: timeline.level,
    firstTriggerLogEntryId: triggerId,
    conferenceBridge: priority?.name === 'P1' ? { number: `+1 555-0100,,${rng.int(100000, 999999)}#`, url: `https://meet.example.com/${rng.chars(10, 'abcdefghijkmnpqrstuvwxyz')}` } : null,
  };
  return { incident, entries };
}

/** Each incident's alertCount alerts, saying what its title says: the first carries the title, the others related signals (data/alert-bodies.ts). */
export function generateAlerts(rng: Rng, ids: IdFactory, incidents: readonly IncidentRecord[], servicesById: Map<string, ServiceRecord>): Map<string, AlertRecord[]> {
  const byIncident = new Map<string, AlertRecord[]>();
  for (const incident of incidents) {
    const service = servicesById.get(incident.serviceId) as ServiceRecord;
    const svcSlug = slug(service.name);
    const severities: AlertSeverity[] = incident.urgency === 'high' ? ['critical', 'error'] : ['warning', 'info'];
    const titleHost = /[a-z0-9-]+-\d\d\.prod\.internal/.exec(incident.title)?.[0];
    const alerts: AlertRecord[] = [];
    for (let n = 0; n < incident.alertCount; n++) {
      // One draw each for the signal, host and value, as ever: the records drawn after stay the same.
      const signals = signalsFor(incident.title);
      const picked = rng.pick(signals);
      // The alert that carries the title reports the kind's main signal.
      const signal = n === 0 ? (signals[0] as typeof picked) : picked;
      const drawnHost = `${svcSlug}-${String(rng.int(1, 24)).padStart(2, '0')}.prod.internal`;
      const host = n === 0 && titleHost ? titleHost : drawnHost;
      const drawn = signal.below ? rng.int(1, signal.threshold - 1) : rng.int(signal.threshold + 1, signal.high);
      const value = reportedValue(incident.title, n === 0, drawn);
      // Alerts arrive within the incident's life: the first with the trigger, the rest shortly after.
      const lastMoment = Math.max(incident.createdAt, (incident.resolvedAt ?? incident.updatedAt) - 1000);
      const createdAt = n === 0 ? incident.createdAt : Math.min(incident.createdAt + rng.int(1, 15) * MINUTE, lastMoment);
      const id = ids.next('Q', 13);
      const summary = n === 0 ? incident.title : signal.summary.replace('{value}', String(value)).replace('{host}', host).replace('{domain}', `${svcSlug}.example.com`);
      const severity = n === 0 ? (severities[0] as AlertSeverity) : rng.pick(severities);
      const alertKey = rng.chars(32, '0123456789abcdef');
      const body = alertBody(incident.title, { alertId: id, signal, value, host, svcSlug, serviceName: service.name, createdAt });
      alerts.push({ id, incidentId: incident.id, serviceId: service.id, integrationId: service.integrations[0]?.id ?? null, createdAt, resolvedAt: incident.resolvedAt, summary, severity, alertKey, ...body });
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
