/**
 * Drawn last, so that every record before stays the same: incidents that happened before (older
 * than the six weeks of incidents.ts, each with what fixed it in a note), and change events
 * (deploys, configuration changes) shortly before incidents.
 */
import type { AlertRecord, ChangeEventRecord, IncidentRecord, LogEntryRecord, ServiceRecord, TeamRecord, UserRecord } from '../model.js';
import type { IdFactory, Rng } from '../random.js';
import { DAY, HOUR, MINUTE, slug, wholeSecond } from './common.js';
import { alertBody, reportedValue, signalsFor, type AlertSignal } from './alert-bodies.js';

/** What fixed a recurring incident, one theme per incident that recurs ({host} is the incident's host). */
const FIXES = [
  'Fixed: restarted the stuck connection pool; it leaks connections after the nightly batch. Follow-up ticket to cap the pool.',
  'Fixed: rolled back the release from earlier today; the new client library retries without backoff.',
  'Fixed: cleared old logs and rotated the disk; log retention was reset by the config sync.',
  'Fixed: renewed the expired credential in the secret store and reloaded the service.',
  'Fixed: failed over to the replica and rebuilt the primary index.',
] as const;
const INVESTIGATING = 'Investigating: same symptoms as last time, checking the runbook.';
/** Recurrences of each chosen incident, months apart. */
const RECURRENCES = 3;
/** Older than the six weeks of regular incidents, within six months. */
const FIRST_GAP = 45 * DAY;
const GAP = 38 * DAY;

export interface RecurrenceContext {
  rng: Rng;
  ids: IdFactory;
  now: number;
  incidents: IncidentRecord[];
  logEntries: LogEntryRecord[];
  alertsByIncident: Map<string, AlertRecord[]>;
  servicesById: Map<string, ServiceRecord>;
  usersById: Map<string, UserRecord>;
  teams: readonly TeamRecord[];
  eligibleOf: (teamIdx: number) => string[];
}

/** The incidents that recur: the newest one, the newest acknowledged one and the newest resolved one. */
function recurringParents(incidents: readonly IncidentRecord[]): IncidentRecord[] {
  const newest = (status?: string) => [...incidents].reverse().find((i) => status === undefined || i.status === status);
  const parents = [newest(), newest('acknowledged'), newest('resolved')].filter((i): i is IncidentRecord => i !== undefined);
  return parents.filter((p, index) => parents.indexOf(p) === index);
}

/**
 * Adds RECURRENCES resolved incidents before each parent, on its service and with its title (another
 * host), each acknowledged, annotated with what fixed it and resolved by a responder. They are older
 * than every other incident, so they are numbered just below the first one and lead the list.
 */
export function addRecurrences(ctx: RecurrenceContext): Set<string> {
  const { rng, ids, now } = ctx;
  const firstNumber = Math.min(...ctx.incidents.map((i) => i.number));
  const added: IncidentRecord[] = [];
  const parents = recurringParents(ctx.incidents);
  parents.forEach((parent, parentIndex) => {
    const service = ctx.servicesById.get(parent.serviceId) as ServiceRecord;
    const teamIdx = ctx.teams.findIndex((t) => t.id === parent.teamIds[0]);
    const responders = teamIdx >= 0 ? ctx.eligibleOf(teamIdx) : [];
    const fix = FIXES[parentIndex % FIXES.length] as string;
    for (let k = 0; k < RECURRENCES; k++) {
      const createdAt = wholeSecond(now - FIRST_GAP - k * GAP - rng.int(0, 20) * HOUR);
      const responder = rng.pick(responders.length > 0 ? responders : [...ctx.usersById.keys()]);
      const name = (ctx.usersById.get(responder) as UserRecord).name;
      const host = String(rng.int(1, 24)).padStart(2, '0');
      const title = parent.title.replace(/-\d\d\.prod\.internal/, `-${host}.prod.internal`);
      const ackAt = createdAt + rng.int(2, 9) * MINUTE;
      const noteAt = ackAt + rng.int(10, 50) * MINUTE;
      const resolvedAt = noteAt + rng.int(2, 15) * MINUTE;
      const id = ids.next();
      const base = { incidentId: id, serviceId: service.id, teamIds: service.teamIds.slice() };
      const triggerId = ids.next('R', 13);
      const entry = (type: LogEntryRecord['type'], createdAt: number, summary: string, note?: string): LogEntryRecord => ({
        ...base,
        id: type === 'trigger_log_entry' ? triggerId : ids.next('R', 13),
        type,
        createdAt,
        agent: type === 'trigger_log_entry' ? { kind: 'service', id: service.id } : { kind: 'user', id: responder },
        channel: type === 'trigger_log_entry' ? { type: 'api', summary: title } : type === 'annotate_log_entry' ? { type: 'note' } : { type: 'web_ui' },
        summary,
        ...(note !== undefined ? { note } : {}),
        ...(type === 'trigger_log_entry' ? { eventDetails: { description: title } } : {}),
      });
      ctx.logEntries.push(
        entry('trigger_log_entry', createdAt, 'Triggered through the API.'),
        entry('acknowledge_log_entry', ackAt, `Acknowledged by ${name}.`),
        entry('annotate_log_entry', ackAt + MINUTE, `Note added by ${name}.`, INVESTIGATING),
        entry('annotate_log_entry', noteAt, `Note added by ${name}.`, fix),
        entry('resolve_log_entry', resolvedAt, `Resolved by ${name}.`),
      );
      const svcSlug = slug(service.name);
      const alertId = ids.next('Q', 13);
      const alertKey = rng.chars(32, '0123456789abcdef');
      // The body from the alert's own random source: the draws above stay as they were.
      const signal = signalsFor(title)[0] as AlertSignal;
      const alertHost = /[a-z0-9-]+-\d\d\.prod\.internal/.exec(title)?.[0] ?? `${svcSlug}-${host}.prod.internal`;
      const value = reportedValue(title, true, signal.below ? signal.threshold - 1 : signal.threshold + 1);
      ctx.alertsByIncident.set(id, [
        {
          id: alertId,
          incidentId: id,
          serviceId: service.id,
          integrationId: service.integrations[0]?.id ?? null,
          createdAt,
          resolvedAt,
          summary: title,
          severity: parent.urgency === 'high' ? 'critical' : 'warning',
          alertKey,
          ...alertBody(title, { alertId, signal, value, host: alertHost, svcSlug, serviceName: service.name, createdAt }),
        },
      ]);
      added.push({
        id,
        number: 0,
        title,
        details: `${title}. Alert raised by ${svcSlug}-monitor; see the runbook for ${service.name}.`,
        createdAt,
        updatedAt: resolvedAt,
        status: 'resolved',
        urgency: parent.urgency,
        serviceId: service.id,
        policyId: parent.policyId,
        teamIds: service.teamIds.slice(),
        priorityId: null,
        incidentKey: rng.chars(32, '0123456789abcdef'),
        assignments: [],
        acknowledgements: [],
        resolvedAt,
        lastStatusChangeAt: resolvedAt,
        lastStatusChangeBy: { kind: 'user', id: responder },
        alertCount: 1,
        escalationLevel: 1,
        firstTriggerLogEntryId: triggerId,
        conferenceBridge: null,
      });
    }
  });
  added.sort((a, b) => a.createdAt - b.createdAt);
  added.forEach((incident, index) => (incident.number = firstNumber - added.length + index));
  ctx.incidents.unshift(...added);
  ctx.logEntries.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  return new Set([...parents, ...added].map((i) => i.id));
}

const CHANGES = [
  { summary: 'Deploy {slug} v{version}', source: '{slug}-ci', kind: 'deploy' },
  { summary: 'Config change: {slug} feature flags updated', source: 'flag-service', kind: 'config' },
  { summary: 'Scaled {slug} from {from} to {to} replicas', source: 'autoscaler', kind: 'scale' },
] as const;

/** A change event shortly before half of the incidents (and before each of `always`), on the incident's service. */
export function generateChangeEvents(rng: Rng, incidents: readonly IncidentRecord[], servicesById: Map<string, ServiceRecord>, always: ReadonlySet<string>): ChangeEventRecord[] {
  const events: ChangeEventRecord[] = [];
  for (const incident of incidents) {
    if (!(always.has(incident.id) || rng.chance(0.5))) continue;
    const service = servicesById.get(incident.serviceId) as ServiceRecord;
    const svcSlug = slug(service.name);
    const change = rng.pick(CHANGES);
    const version = `${rng.int(1, 4)}.${rng.int(0, 30)}.${rng.int(0, 9)}`;
    const from = rng.int(2, 8);
    events.push({
      id: rng.chars(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ'),
      serviceId: service.id,
      integrationId: service.integrations[0]?.id ?? null,
      timestamp: wholeSecond(incident.createdAt - rng.int(10, 90) * MINUTE),
      summary: change.summary.replace('{slug}', svcSlug).replace('{version}', version).replace('{from}', String(from)).replace('{to}', String(from * 2)),
      source: change.source.replace('{slug}', svcSlug),
      customDetails: change.kind === 'deploy' ? { version, build_state: 'passed' } : { kind: change.kind },
    });
  }
  return events.sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1));
}
