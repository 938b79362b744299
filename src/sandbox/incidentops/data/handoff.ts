/**
 * A shift to hand over: the demo user stands in on the support schedule (an override) for the
 * eleven hours around `now`, ending an hour after it, and five incidents happen on the support
 * portal during it: two resolved, two acknowledged (one with two notes), one still triggered.
 * Numbers 4101 to 4105, IDs from a random source of its own; applied last, so every record made
 * before stays the same (only the schedule's overrides and these incidents are new).
 */
import type { AlertRecord, IncidentRecord, IncidentStatus, LogEntryRecord, ScheduleRecord, ServiceRecord } from '../model.js';
import { IdFactory, Rng } from '../random.js';
import { DEMO_USER_ID, HOUR, MINUTE } from './common.js';

/** The override, from the first hour at or after `now`: it started this long before and ends this long after. */
export const HANDOFF_SHIFT = { startsBefore: 10 * HOUR, endsAfter: 1 * HOUR } as const;
const FIRST_NUMBER = 4101;

interface HandoffIncident {
  service: 'Support Portal';
  title: string;
  urgency: 'high' | 'low';
  /** Minutes after the shift's start. */
  at: number;
  /** Minutes after creation; null: not yet. */
  ackAfter: number | null;
  resolveAfter: number | null;
  /** Minutes after creation, and the text. */
  notes: [number, string][];
}

const INCIDENTS: HandoffIncident[] = [
  { service: 'Support Portal', title: 'Support Portal search returning 500s', urgency: 'high', at: 70, ackAfter: 4, resolveAfter: 42, notes: [[20, 'Search index shard 3 was read-only after the disk filled; freed space and reopened it.']] },
  { service: 'Support Portal', title: 'Ticket email ingestion delayed by 20 minutes on Support Portal', urgency: 'high', at: 220, ackAfter: 7, resolveAfter: 85, notes: [[30, 'Restarted the stuck mail poller; the backlog of 1,400 emails is processed.']] },
  { service: 'Support Portal', title: 'SSO login failures for agents on Support Portal', urgency: 'high', at: 380, ackAfter: 11, resolveAfter: null, notes: [[25, 'The identity provider rotated its signing key; new key loaded, a few agents still fail with cached sessions, watching.']] },
  { service: 'Support Portal', title: 'Attachment uploads failing on Support Portal', urgency: 'low', at: 450, ackAfter: 3, resolveAfter: null, notes: [[15, 'Uploads over 10 MB hit the new proxy body limit.'], [70, 'Limit raised to 25 MB on one proxy as a test; roll it to the others after the handover if errors stay at zero.']] },
  { service: 'Support Portal', title: 'Live chat disconnecting agents on Support Portal', urgency: 'high', at: 545, ackAfter: null, resolveAfter: null, notes: [] },
];

export interface HandoffData {
  incidents: IncidentRecord[];
  logEntries: LogEntryRecord[];
  alertsByIncident: Map<string, AlertRecord[]>;
}

/** Adds the override to the support schedule and returns the shift's incidents (the caller merges them in time order). */
export function addHandoffShift(seed: number, now: number, schedules: readonly ScheduleRecord[], services: readonly ServiceRecord[], taken: readonly string[]): HandoffData {
  const ids = new IdFactory(new Rng(seed ^ 0x4a0d0f));
  for (const id of taken) ids.reserve(id);
  const hour = Math.ceil(now / HOUR) * HOUR;
  const start = hour - HANDOFF_SHIFT.startsBefore;
  const support = schedules.find((s) => s.name === 'Support Tools - Daily');
  if (support) {
    (support.overrides ??= []).push({ id: ids.next(), start, end: hour + HANDOFF_SHIFT.endsAfter, userId: DEMO_USER_ID });
    support.overrides.sort((a, b) => a.start - b.start);
  }
  const out: HandoffData = { incidents: [], logEntries: [], alertsByIncident: new Map() };
  INCIDENTS.forEach((spec, index) => {
    const service = services.find((s) => s.name === spec.service);
    if (!service) return;
    const id = ids.next();
    const createdAt = start + spec.at * MINUTE;
    const ackAt = spec.ackAfter === null ? null : createdAt + spec.ackAfter * MINUTE;
    const resolvedAt = spec.resolveAfter === null ? null : createdAt + spec.resolveAfter * MINUTE;
    const status: IncidentStatus = resolvedAt !== null ? 'resolved' : ackAt !== null ? 'acknowledged' : 'triggered';
    const base = { incidentId: id, serviceId: service.id, teamIds: service.teamIds.slice() };
    const entry = (type: LogEntryRecord['type'], at: number, summary: string, extra: Partial<LogEntryRecord> = {}): LogEntryRecord => ({
      ...base,
      id: ids.next('R', 13),
      type,
      createdAt: at,
      agent: type === 'trigger_log_entry' ? { kind: 'service', id: service.id } : { kind: 'user', id: DEMO_USER_ID },
      channel: { type: type === 'trigger_log_entry' ? 'api' : type === 'annotate_log_entry' ? 'note' : 'mobile' },
      summary,
      ...extra,
    });
    const trigger = entry('trigger_log_entry', createdAt, `Triggered through the API: ${spec.title}`);
    const entries = [trigger, entry('assign_log_entry', createdAt, 'Assigned to Demo User.', { assigneeIds: [DEMO_USER_ID] })];
    if (ackAt !== null) entries.push(entry('acknowledge_log_entry', ackAt, 'Acknowledged by Demo User.'));
    for (const [after, text] of spec.notes) entries.push(entry('annotate_log_entry', createdAt + after * MINUTE, 'Note added by Demo User.', { note: text }));
    if (resolvedAt !== null) entries.push(entry('resolve_log_entry', resolvedAt, 'Resolved by Demo User.'));
    const alert: AlertRecord = {
      id: ids.next('Q', 13),
      incidentId: id,
      serviceId: service.id,
      integrationId: service.integrations[0]?.id ?? null,
      createdAt,
      resolvedAt,
      summary: spec.title,
      severity: spec.urgency === 'high' ? 'critical' : 'warning',
      alertKey: `support-handoff-${index + 1}`,
      details: { monitor: `${spec.service.toLowerCase().replace(/ /g, '-')}-monitor`, summary: spec.title },
      contexts: [],
    };
    out.alertsByIncident.set(id, [alert]);
    out.logEntries.push(...entries);
    out.incidents.push({
      id,
      number: FIRST_NUMBER + index,
      title: spec.title,
      details: `${spec.title}. Raised by the ${spec.service} monitor.`,
      createdAt,
      updatedAt: Math.max(...entries.map((e) => e.createdAt)),
      status,
      urgency: spec.urgency,
      serviceId: service.id,
      policyId: service.policyId,
      teamIds: service.teamIds.slice(),
      priorityId: null,
      incidentKey: `support-handoff-${index + 1}`,
      assignments: status === 'resolved' ? [] : [{ at: createdAt, userId: DEMO_USER_ID }],
      acknowledgements: status === 'acknowledged' && ackAt !== null ? [{ at: ackAt, userId: DEMO_USER_ID }] : [],
      resolvedAt,
      lastStatusChangeAt: resolvedAt ?? ackAt ?? createdAt,
      lastStatusChangeBy: status === 'triggered' ? { kind: 'service', id: service.id } : { kind: 'user', id: DEMO_USER_ID },
      alertCount: 1,
      escalationLevel: 1,
      firstTriggerLogEntryId: trigger.id,
      conferenceBridge: null,
    });
  });
  return out;
}
