/**
 * Six months of resolved incidents on a few services, at every hour of day and night, weekdays and
 * weekends, paged to responders in several time zones: what incident statistics (time to
 * acknowledge and resolve, pages out of hours, nights) are checked against. A random source of its
 * own and IDs reserved against every other record, so adding them changed no other record; numbered
 * from HISTORY_FIRST_NUMBER, oldest first, titles of their own.
 */
import type { IncidentRecord, LogEntryRecord, PolicyRecord, ScheduleRecord, ServiceRecord, UserRecord } from '../model.js';
import { onCallAt } from '../oncalls.js';
import { IdFactory, Rng } from '../random.js';
import { DAY, MINUTE, wholeSecond } from './common.js';

/** Fixed, so the history's draws do not depend on how many the account took. */
const HISTORY_SEED = 0x4a11;
/** The history's incident numbers start here: below the regular incidents' and the search examples' (901 on), so "the highest number" stays a regular incident. */
export const HISTORY_FIRST_NUMBER = 801;
/** How far back the history reaches: the platform's incident list spans six months. */
const SPAN_DAYS = 178;

/** Services with a history, and what goes wrong on each. */
const HISTORY: Record<string, { count: number; titles: string[] }> = {
  'Payments Gateway': { count: 34, titles: ['Card authorisation error rate above 2%', 'Wallet provider answering slowly', 'Settlement file upload late', '3-D Secure challenge timeouts'] },
  'Billing Worker': { count: 14, titles: ['Invoice run behind schedule', 'Dunning email batch stuck'] },
  'Data Pipeline': { count: 16, titles: ['Consumer lag on the orders topic', 'Schema registry unreachable'] },
};

export interface HistoryContext {
  seed: number;
  now: number;
  services: readonly ServiceRecord[];
  policiesById: ReadonlyMap<string, PolicyRecord>;
  schedulesById: ReadonlyMap<string, ScheduleRecord>;
  usersById: ReadonlyMap<string, UserRecord>;
  takenIds: Iterable<string>;
}

/** Who level `level` of the policy reaches at `at` (schedules as rendered, users directly). */
function reached(ctx: HistoryContext, policy: PolicyRecord, level: number, at: number): string[] {
  const users: string[] = [];
  for (const target of policy.rules[level - 1]?.targets ?? []) {
    const schedule = target.kind === 'schedule' ? ctx.schedulesById.get(target.id) : undefined;
    const userId = target.kind === 'user' ? target.id : schedule ? onCallAt(schedule, at) : null;
    if (userId && ctx.usersById.has(userId) && !users.includes(userId)) users.push(userId);
  }
  return users;
}

export function generateHistory(ctx: HistoryContext): { incidents: IncidentRecord[]; logEntries: LogEntryRecord[] } {
  const rng = new Rng(ctx.seed ^ HISTORY_SEED);
  const ids = new IdFactory(rng);
  for (const id of ctx.takenIds) ids.reserve(id);
  const incidents: IncidentRecord[] = [];
  const logEntries: LogEntryRecord[] = [];
  for (const service of ctx.services) {
    const spec = HISTORY[service.name];
    const policy = ctx.policiesById.get(service.policyId);
    if (!spec || !policy) continue;
    for (let k = 0; k < spec.count; k++) {
      // Any minute of any day: nights and weekends come as often as office hours.
      const createdAt = wholeSecond(ctx.now - rng.int(2, SPAN_DAYS) * DAY - rng.int(0, 24 * 60 - 1) * MINUTE);
      const title = rng.pick(spec.titles);
      const urgency = rng.chance(0.3) ? 'low' : service.urgency;
      const id = ids.next();
      const base = { incidentId: id, serviceId: service.id, teamIds: service.teamIds.slice() };
      const entries: LogEntryRecord[] = [];
      const entry = (type: LogEntryRecord['type'], at: number, summary: string, extra: Partial<LogEntryRecord> = {}): LogEntryRecord => {
        const record: LogEntryRecord = { ...base, id: ids.next('R', 13), type, createdAt: at, agent: null, channel: { type: 'api' }, summary, ...extra };
        entries.push(record);
        return record;
      };
      const notifyAll = (users: string[], at: number) =>
        users.forEach((userId, i) => {
          const user = ctx.usersById.get(userId) as UserRecord;
          const type = rng.pick(['sms_notification', 'push_notification', 'phone_notification'] as const);
          const address = type === 'push_notification' ? 'iPhone' : `+1 555-02${String(rng.int(0, 99)).padStart(2, '0')}`;
          entry('notify_log_entry', at + (i + 1) * 4_000, `Notified ${user.name} by ${type === 'sms_notification' ? 'SMS' : type.replace('_notification', '')}.`, {
            channel: { type: 'notification', notification: { type, status: 'success', address } },
            userId,
            notification: { type, address },
          });
        });
      const trigger = entry('trigger_log_entry', createdAt, 'Triggered through the API.', {
        agent: { kind: 'service', id: service.id },
        channel: { type: 'api', summary: title },
        eventDetails: { description: title },
      });
      let responders = reached(ctx, policy, 1, createdAt);
      notifyAll(responders, createdAt);
      // A slow first level: escalated after its delay, the next level paged too.
      const delay = (policy.rules[0]?.delayMinutes ?? 30) * MINUTE;
      const slow = policy.rules.length > 1 && rng.chance(0.2);
      if (slow) {
        const next = reached(ctx, policy, 2, createdAt + delay);
        if (next.length > 0) {
          entry('escalate_log_entry', createdAt + delay, `Escalated to level 2 after ${delay / MINUTE} minutes without acknowledgement.`, { channel: { type: 'timeout' }, assigneeIds: next });
          notifyAll(next, createdAt + delay);
          responders = next;
        }
      }
      const responder = responders[0];
      const acked = responder !== undefined && rng.chance(0.85);
      const ackAt = acked ? wholeSecond(createdAt + (slow ? delay : 0) + rng.int(1, 40) * MINUTE + rng.int(0, 59) * 1000) : null;
      if (ackAt !== null && responder) {
        entry('acknowledge_log_entry', ackAt, `Acknowledged by ${(ctx.usersById.get(responder) as UserRecord).name}.`, { agent: { kind: 'user', id: responder }, channel: { type: rng.pick(['mobile', 'web_ui', 'slack']) } });
      }
      const resolvedAt = wholeSecond((ackAt ?? createdAt) + rng.int(10, 8 * 60) * MINUTE);
      const byUser = acked && responder !== undefined && rng.chance(0.8);
      const resolvedBy = byUser ? { kind: 'user' as const, id: responder as string } : { kind: 'service' as const, id: service.id };
      entry('resolve_log_entry', resolvedAt, byUser ? `Resolved by ${(ctx.usersById.get(responder as string) as UserRecord).name}.` : 'Resolved through the API.', {
        agent: resolvedBy,
        channel: { type: byUser ? 'web_ui' : 'api' },
      });
      logEntries.push(...entries);
      incidents.push({
        id,
        number: 0,
        title,
        details: `${title}. Raised by the ${service.name} monitor.`,
        createdAt,
        updatedAt: resolvedAt,
        status: 'resolved',
        urgency,
        serviceId: service.id,
        policyId: policy.id,
        teamIds: service.teamIds.slice(),
        priorityId: null,
        incidentKey: rng.chars(32, '0123456789abcdef'),
        assignments: [],
        acknowledgements: [],
        resolvedAt,
        lastStatusChangeAt: resolvedAt,
        lastStatusChangeBy: resolvedBy,
        alertCount: 0,
        escalationLevel: slow ? 2 : 1,
        firstTriggerLogEntryId: trigger.id,
        conferenceBridge: null,
      });
    }
  }
  incidents.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  incidents.forEach((incident, index) => (incident.number = HISTORY_FIRST_NUMBER + index));
  return { incidents, logEntries };
}
