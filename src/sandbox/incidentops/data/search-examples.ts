/**
 * Resolved incidents that a text search has to understand (issue 34): what people type ("TLS
 * certificate expiring on checkout", "certificate expired", "connection pool leak") is in their
 * titles or only in their notes, in other word forms ("expiry", "leaking connections"). Numbered
 * 901 on, older than every other incident (125 to 175 days ago, inside the platform's six months),
 * from a random source of their own: adding them changed no other record.
 */
import type { AlertRecord, IncidentRecord, LogEntryRecord, ServiceRecord, TeamRecord, UserRecord } from '../model.js';
import { IdFactory, Rng } from '../random.js';
import { alertBody, signalsFor, type AlertSignal } from './alert-bodies.js';
import { DAY, HOUR, MINUTE, slug, wholeSecond } from './common.js';

interface Example {
  service: string;
  title: string;
  alert: string;
  notes: readonly string[];
  daysAgo: number;
}

/** Oldest first: their numbers follow their age. */
export const SEARCH_EXAMPLES: readonly Example[] = [
  {
    service: 'Mobile Backend',
    title: 'Login failures on the mobile API',
    alert: 'Synthetic login check failing for mobile-backend',
    notes: ['Investigating: every login fails with invalid_token.', "Fixed: root cause was the expiry of the identity provider's signing certificate; rotated it and restarted the token service."],
    daysAgo: 172,
  },
  {
    service: 'Payments Gateway',
    title: 'Connection pool exhausted on payments-gateway',
    alert: 'Active database connections 200 of 200 on payments-gateway',
    notes: ['Investigating: requests wait for a database connection.', 'Fixed: the pool was leaking connections after the retry storm; restarted the pods and capped the pool at 50.'],
    daysAgo: 164,
  },
  {
    service: 'Checkout API',
    title: 'TLS certificate expiring on checkout.example.com',
    alert: 'Certificate for checkout.example.com expires in 2 days',
    notes: ['Investigating: the renewal job has not run for a month.', 'Fixed: renewed the certificate by hand and re-enabled automatic renewal; the issuer had lost its credentials.'],
    daysAgo: 151,
  },
  {
    service: 'Push Notifications',
    title: 'APNs deliveries stalled',
    alert: 'Push delivery success rate 41% (threshold 95%)',
    notes: ['Investigating: deliveries queue up, APNs answers slowly.', 'Fixed: the HTTP/2 client pool was leaking connections to APNs; upgraded the client library and redeployed.'],
    daysAgo: 143,
  },
  {
    service: 'Payments Gateway',
    title: 'Card authorisations failing with handshake errors',
    alert: 'Handshake failures to the acquirer above 20%',
    notes: ["Fixed: the acquirer's client certificate expired overnight; installed the renewed one and restarted the gateway."],
    daysAgo: 131,
  },
];

const FIRST_NUMBER = 901;
/** Fixed, so their IDs do not depend on how many draws the account took. */
const SEARCH_SEED = 0x5ea4c;

export interface SearchExampleContext {
  seed: number;
  now: number;
  incidents: IncidentRecord[];
  logEntries: LogEntryRecord[];
  alertsByIncident: Map<string, AlertRecord[]>;
  services: readonly ServiceRecord[];
  usersById: Map<string, UserRecord>;
  teams: readonly TeamRecord[];
  eligibleOf: (teamIdx: number) => string[];
  takenIds: Iterable<string>;
}

export function addSearchExamples(ctx: SearchExampleContext): void {
  const rng = new Rng(ctx.seed ^ SEARCH_SEED);
  const ids = new IdFactory(rng);
  for (const id of ctx.takenIds) ids.reserve(id);
  const added = SEARCH_EXAMPLES.map((example, index): IncidentRecord => {
    const service = ctx.services.find((s) => s.name === example.service) as ServiceRecord;
    const teamIdx = ctx.teams.findIndex((t) => t.id === service.teamIds[0]);
    const responder = rng.pick(teamIdx >= 0 ? ctx.eligibleOf(teamIdx) : [...ctx.usersById.keys()]);
    const name = (ctx.usersById.get(responder) as UserRecord).name;
    const createdAt = wholeSecond(ctx.now - example.daysAgo * DAY - rng.int(0, 20) * HOUR);
    const ackAt = createdAt + rng.int(2, 9) * MINUTE;
    const resolvedAt = ackAt + (example.notes.length + 1) * rng.int(10, 40) * MINUTE;
    const id = ids.next();
    const triggerId = ids.next('R', 13);
    const base = { incidentId: id, serviceId: service.id, teamIds: service.teamIds.slice() };
    const byResponder = { kind: 'user', id: responder } as const;
    ctx.logEntries.push(
      { ...base, id: triggerId, type: 'trigger_log_entry', createdAt, agent: { kind: 'service', id: service.id }, channel: { type: 'api', summary: example.title }, summary: 'Triggered through the API.', eventDetails: { description: example.title } },
      { ...base, id: ids.next('R', 13), type: 'acknowledge_log_entry', createdAt: ackAt, agent: byResponder, channel: { type: 'web_ui' }, summary: `Acknowledged by ${name}.` },
      ...example.notes.map((note, n): LogEntryRecord => ({ ...base, id: ids.next('R', 13), type: 'annotate_log_entry', createdAt: ackAt + (n + 1) * 5 * MINUTE, agent: byResponder, channel: { type: 'note' }, summary: `Note added by ${name}.`, note })),
      { ...base, id: ids.next('R', 13), type: 'resolve_log_entry', createdAt: resolvedAt, agent: byResponder, channel: { type: 'web_ui' }, summary: `Resolved by ${name}.` },
    );
    const svcSlug = slug(service.name);
    const alertId = ids.next('Q', 13);
    const signal = signalsFor(example.title)[0] as AlertSignal;
    ctx.alertsByIncident.set(id, [
      {
        id: alertId,
        incidentId: id,
        serviceId: service.id,
        integrationId: service.integrations[0]?.id ?? null,
        createdAt,
        resolvedAt,
        summary: example.alert,
        severity: service.urgency === 'high' ? 'critical' : 'warning',
        alertKey: rng.chars(32, '0123456789abcdef'),
        ...alertBody(example.title, { alertId, signal, value: signal.below ? 2 : signal.threshold + 1, host: `${svcSlug}-0${index + 1}.prod.internal`, svcSlug, serviceName: service.name, createdAt }),
      },
    ]);
    return {
      id,
      number: FIRST_NUMBER + index,
      title: example.title,
      details: `${example.title}. Alert raised by ${svcSlug}-monitor.`,
      createdAt,
      updatedAt: resolvedAt,
      status: 'resolved',
      urgency: service.urgency,
      serviceId: service.id,
      policyId: service.policyId,
      teamIds: service.teamIds.slice(),
      priorityId: null,
      incidentKey: rng.chars(32, '0123456789abcdef'),
      assignments: [],
      acknowledgements: [],
      resolvedAt,
      lastStatusChangeAt: resolvedAt,
      lastStatusChangeBy: byResponder,
      alertCount: 1,
      escalationLevel: 1,
      firstTriggerLogEntryId: triggerId,
      conferenceBridge: null,
    };
  });
  // Older than every other incident: they lead the list, as the platform keeps it.
  ctx.incidents.unshift(...added);
  ctx.logEntries.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
}
