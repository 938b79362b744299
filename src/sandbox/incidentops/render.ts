/**
 * Turns records into the platform's JSON shapes. References carry id/type/summary/self/html_url;
 * `self` points at the sandbox's own API base URL, `html_url` at a fake web host.
 *
 * Where the real API sends `null` although the published schema types the field as a plain
 * object/string (incident `priority` and `resolved_at`, on-call `start`/`end`/`schedule` for
 * direct user targets, schedule layer `end`), the emulator sends `null` like the real API does.
 */
import { DateTime } from 'luxon';
import type {
  AgentRecord,
  AlertRecord,
  Dataset,
  IncidentRecord,
  LayerRecord,
  LogEntryRecord,
  PolicyRecord,
  PriorityRecord,
  ScheduleRecord,
  ServiceRecord,
  TeamRecord,
  UserRecord,
} from './model.js';
import type { Shift } from './oncalls.js';

export const WEB_HOST = 'https://sandbox.incidentops.example';

type Json = Record<string, unknown>;

export interface RenderContext {
  data: Dataset;
  /** API base, e.g. http://127.0.0.1:1234/incidentops */
  baseUrl: string;
  /** IANA zone for timestamps; null renders UTC with a `Z` suffix. */
  zone: string | null;
}

export function formatTime(ms: number, zone: string | null): string {
  return DateTime.fromMillis(ms, { zone: zone ?? 'utc' }).toISO({ suppressMilliseconds: true }) as string;
}

export class Renderer {
  constructor(readonly ctx: RenderContext) {}

  private get data(): Dataset {
    return this.ctx.data;
  }

  time(ms: number): string {
    return formatTime(ms, this.ctx.zone);
  }

  private ref(type: string, id: string, summary: string, apiPath: string, webPath: string | null): Json {
    return {
      id,
      type: `${type}_reference`,
      summary,
      self: `${this.ctx.baseUrl}/${apiPath}`,
      html_url: webPath === null ? null : `${WEB_HOST}/${webPath}`,
    };
  }

  // ----- references

  userRef(id: string): Json {
    const u = this.data.usersById.get(id);
    return this.ref('user', id, u?.name ?? id, `users/${id}`, `users/${id}`);
  }

  teamRef(id: string): Json {
    const t = this.data.teamsById.get(id);
    return this.ref('team', id, t?.name ?? id, `teams/${id}`, `teams/${id}`);
  }

  serviceRef(id: string): Json {
    const s = this.data.servicesById.get(id);
    return this.ref('service', id, s?.name ?? id, `services/${id}`, `service-directory/${id}`);
  }

  policyRef(id: string): Json {
    const p = this.data.policiesById.get(id);
    return this.ref('escalation_policy', id, p?.name ?? id, `escalation_policies/${id}`, `escalation_policies/${id}`);
  }

  scheduleRef(id: string): Json {
    const s = this.data.schedulesById.get(id);
    return this.ref('schedule', id, s?.name ?? id, `schedules/${id}`, `schedules/${id}`);
  }

  incidentRef(id: string): Json {
    const i = this.data.incidentsById.get(id);
    return this.ref('incident', id, i ? incidentSummary(i) : id, `incidents/${id}`, `incidents/${id}`);
  }

  logEntryRef(entry: LogEntryRecord): Json {
    return this.ref(entry.type, entry.id, entry.summary, `log_entries/${entry.id}`, `incidents/${entry.incidentId}/log_entries/${entry.id}`);
  }

  agentRef(agent: AgentRecord): Json {
    return agent.kind === 'user' ? this.userRef(agent.id) : this.serviceRef(agent.id);
  }

  // ----- full objects

  /**
   * A user. `contactMethods` / `notificationRules` (include[]) render those as full objects
   * instead of references, as the platform does.
   */
  user(u: UserRecord, options: { calendarUrls?: boolean; contactMethods?: boolean; notificationRules?: boolean } = {}): Json {
    const self = `${this.ctx.baseUrl}/users/${u.id}`;
    const out: Json = {
      id: u.id,
      type: 'user',
      summary: u.name,
      self,
      html_url: `${WEB_HOST}/users/${u.id}`,
      name: u.name,
      email: u.email,
      time_zone: u.timeZone,
      color: u.color,
      role: u.role,
      avatar_url: `${WEB_HOST}/avatars/${u.id}.png`,
      description: u.description,
      invitation_sent: false,
      job_title: u.jobTitle,
      created_via_sso: false,
      teams: u.teamIds.map((t) => this.teamRef(t)),
      contact_methods: this.contactMethods(u, self, options.contactMethods === true),
      notification_rules: this.notificationRules(u, self, options.notificationRules === true),
    };
    if (options.calendarUrls) {
      out.http_cal_url = `${WEB_HOST}/private/${u.id.toLowerCase()}-calendar/feed`;
      out.web_cal_url = `webcal://sandbox.incidentops.example/private/${u.id.toLowerCase()}-calendar/feed`;
    }
    return out;
  }

  /** Every user has an e-mail, an SMS and a voice contact method, and a push device. */
  private contactMethods(u: UserRecord, self: string, full: boolean): Json[] {
    const phone = `555010${u.id.charCodeAt(u.id.length - 1) % 10}`;
    const methods = [
      { suffix: 'E', kind: 'email', label: 'Default', details: { address: u.email, send_short_email: false, enabled: true } },
      { suffix: 'S', kind: 'sms', label: 'Mobile', details: { address: phone, country_code: 1, enabled: true, blacklisted: false } },
      { suffix: 'V', kind: 'phone', label: 'Mobile', details: { address: phone, country_code: 1, enabled: true, blacklisted: false } },
      // A push address is a device token: the server must never pass it on.
      { suffix: 'P', kind: 'push_notification', label: 'iPhone', details: { address: `device-token-${u.id.toLowerCase()}-0f3a9c`, device_type: 'ios', blacklisted: false, sounds: [] } },
    ];
    return methods.map(({ suffix, kind, label, details }) => {
      const id = `${u.id}${suffix}`;
      const common = { id, summary: label, self: `${self}/contact_methods/${id}`, html_url: null };
      return full ? { ...common, type: `${kind}_contact_method`, label, ...details } : { ...common, type: `${kind}_contact_method_reference` };
    });
  }

  /** High urgency: e-mail at once, SMS after 5 minutes, a call after 10; low urgency: e-mail. */
  private notificationRules(u: UserRecord, self: string, full: boolean): Json[] {
    const rules = [
      { suffix: 'N', method: 'E', kind: 'email', label: 'Default', delay: 0, urgency: 'high' },
      { suffix: 'M', method: 'S', kind: 'sms', label: 'Mobile', delay: 5, urgency: 'high' },
      { suffix: 'C', method: 'V', kind: 'phone', label: 'Mobile', delay: 10, urgency: 'high' },
      { suffix: 'L', method: 'E', kind: 'email', label: 'Default', delay: 0, urgency: 'low' },
    ];
    return rules.map(({ suffix, method, kind, label, delay, urgency }) => {
      const id = `${u.id}${suffix}`;
      const common = { id, summary: `${delay} minutes: channel ${kind}`, self: `${self}/notification_rules/${id}`, html_url: null };
      if (!full) return { ...common, type: 'assignment_notification_rule_reference' };
      const contactMethod = { id: `${u.id}${method}`, type: `${kind}_contact_method_reference`, summary: label, self: `${self}/contact_methods/${u.id}${method}`, html_url: null };
      return { ...common, type: 'assignment_notification_rule', start_delay_in_minutes: delay, urgency, contact_method: contactMethod };
    });
  }

  team(t: TeamRecord): Json {
    return {
      id: t.id,
      type: 'team',
      summary: t.name,
      self: `${this.ctx.baseUrl}/teams/${t.id}`,
      html_url: `${WEB_HOST}/teams/${t.id}`,
      name: t.name,
      description: t.description,
      default_role: 'manager',
    };
  }

  priority(p: PriorityRecord): Json {
    return {
      id: p.id,
      type: 'priority',
      summary: p.name,
      self: `${this.ctx.baseUrl}/priorities/${p.id}`,
      html_url: null,
      name: p.name,
      description: p.description,
      color: p.color,
    };
  }

  service(s: ServiceRecord, options: { autoPause?: boolean } = {}): Json {
    const incidents = this.data.incidents.filter((i) => i.serviceId === s.id);
    const status =
      s.fixedStatus ??
      (incidents.some((i) => i.status === 'triggered') ? 'critical' : incidents.some((i) => i.status === 'acknowledged') ? 'warning' : 'active');
    const last = incidents[incidents.length - 1];
    const out: Json = {
      id: s.id,
      type: 'service',
      summary: s.name,
      self: `${this.ctx.baseUrl}/services/${s.id}`,
      html_url: `${WEB_HOST}/service-directory/${s.id}`,
      name: s.name,
      description: s.description,
      auto_resolve_timeout: s.autoResolveTimeout,
      acknowledgement_timeout: s.acknowledgementTimeout,
      created_at: this.time(s.createdAt),
      status,
      ...(last ? { last_incident_timestamp: this.time(last.createdAt) } : {}),
      escalation_policy: this.policyRef(s.policyId),
      response_play: null,
      teams: s.teamIds.map((t) => this.teamRef(t)),
      integrations: s.integrations.map((i) => ({
        id: i.id,
        type: i.type,
        summary: i.name,
        self: `${this.ctx.baseUrl}/services/${s.id}/integrations/${i.id}`,
        html_url: `${WEB_HOST}/services/${s.id}/integrations/${i.id}`,
      })),
      incident_urgency_rule: { type: 'constant', urgency: s.urgency },
      scheduled_actions: [],
      addons: [],
      alert_creation: 'create_alerts_and_incidents',
    };
    if (options.autoPause) out.auto_pause_notifications_parameters = { enabled: false, timeout: 0 };
    return out;
  }

  policy(p: PolicyRecord): Json {
    return {
      id: p.id,
      type: 'escalation_policy',
      summary: p.name,
      self: `${this.ctx.baseUrl}/escalation_policies/${p.id}`,
      html_url: `${WEB_HOST}/escalation_policies/${p.id}`,
      name: p.name,
      description: p.description,
      num_loops: p.numLoops,
      on_call_handoff_notifications: p.onCallHandoffNotifications,
      escalation_rules: p.rules.map((r) => ({
        id: r.id,
        escalation_delay_in_minutes: r.delayMinutes,
        targets: r.targets.map((t) => (t.kind === 'user' ? this.userRef(t.id) : this.scheduleRef(t.id))),
        escalation_rule_assignment_strategy: r.assignmentStrategy,
      })),
      services: this.data.services.filter((s) => s.policyId === p.id).map((s) => this.serviceRef(s.id)),
      teams: p.teamIds.map((t) => this.teamRef(t)),
    };
  }

  /** Users on any layer of the schedule, in layer order, without duplicates. */
  scheduleUserIds(s: ScheduleRecord): string[] {
    return [...new Set(s.layers.flatMap((l) => l.userIds))];
  }

  schedule(s: ScheduleRecord): Json {
    return {
      id: s.id,
      type: 'schedule',
      summary: s.name,
      self: `${this.ctx.baseUrl}/schedules/${s.id}`,
      html_url: `${WEB_HOST}/schedules/${s.id}`,
      name: s.name,
      description: s.description,
      time_zone: s.timeZone,
      escalation_policies: this.data.policies
        .filter((p) => p.rules.some((r) => r.targets.some((t) => t.kind === 'schedule' && t.id === s.id)))
        .map((p) => this.policyRef(p.id)),
      users: this.scheduleUserIds(s).map((u) => this.userRef(u)),
      teams: s.teamIds.map((t) => this.teamRef(t)),
    };
  }

  entries(shifts: Shift[]): Json[] {
    return shifts.map((sh) => ({ user: this.userRef(sh.userId), start: this.time(sh.start), end: this.time(sh.end) }));
  }

  layer(l: LayerRecord, rendered?: { entries: Shift[]; coverage: number }): Json {
    return {
      id: l.id,
      name: l.name,
      start: this.time(l.start),
      end: l.end === null ? null : this.time(l.end),
      rotation_virtual_start: this.time(l.rotationVirtualStart),
      rotation_turn_length_seconds: l.turnLengthSeconds,
      users: l.userIds.map((u) => ({ user: this.userRef(u) })),
      restrictions: l.restrictions.map((r) => ({
        type: r.type,
        start_time_of_day: r.startTimeOfDay,
        duration_seconds: r.durationSeconds,
        ...(r.startDayOfWeek !== undefined ? { start_day_of_week: r.startDayOfWeek } : {}),
      })),
      ...(rendered ? { rendered_schedule_entries: this.entries(rendered.entries), rendered_coverage_percentage: rendered.coverage } : {}),
    };
  }

  incident(i: IncidentRecord, include: ReadonlySet<string>, now: number): Json {
    const fullUsers = include.has('users') || include.has('assignees');
    const fullAckers = include.has('users') || include.has('acknowledgers');
    const userOrRef = (id: string, full: boolean): Json => {
      const u = this.data.usersById.get(id);
      return full && u ? this.user(u) : this.userRef(id);
    };
    const service = this.data.servicesById.get(i.serviceId) as ServiceRecord;
    const policy = this.data.policiesById.get(i.policyId) as PolicyRecord;
    const trigger = this.data.logEntriesById.get(i.firstTriggerLogEntryId) as LogEntryRecord;
    const priority = i.priorityId ? (this.data.prioritiesById.get(i.priorityId) as PriorityRecord) : null;

    const pending: Json[] = [];
    if (i.status === 'triggered') {
      const rule = policy.rules[i.escalationLevel - 1];
      const escalateAt = i.assignments[0] ? i.assignments[0].at + (rule?.delayMinutes ?? 30) * 60_000 : null;
      if (escalateAt !== null && escalateAt > now && policy.rules.length > i.escalationLevel) pending.push({ type: 'escalate', at: this.time(escalateAt) });
    }
    if (i.status === 'acknowledged' && i.acknowledgements[0]) {
      const at = i.acknowledgements[0].at + service.acknowledgementTimeout * 1000;
      if (at > now) pending.push({ type: 'unacknowledge', at: this.time(at) });
    }
    if (i.status !== 'resolved') {
      const at = i.createdAt + service.autoResolveTimeout * 1000;
      if (at > now) pending.push({ type: 'resolve', at: this.time(at) });
    }

    const out: Json = {
      id: i.id,
      type: 'incident',
      summary: incidentSummary(i),
      self: `${this.ctx.baseUrl}/incidents/${i.id}`,
      html_url: `${WEB_HOST}/incidents/${i.id}`,
      incident_number: i.number,
      title: i.title,
      created_at: this.time(i.createdAt),
      updated_at: this.time(i.updatedAt),
      status: i.status,
      incident_key: i.incidentKey,
      service: include.has('services') ? this.service(service) : this.serviceRef(service.id),
      assignments: i.assignments.map((a) => ({ at: this.time(a.at), assignee: userOrRef(a.userId, fullUsers) })),
      assigned_via: 'escalation_policy',
      last_status_change_at: this.time(i.lastStatusChangeAt),
      resolved_at: i.resolvedAt === null ? null : this.time(i.resolvedAt),
      first_trigger_log_entry: include.has('first_trigger_log_entries') ? this.logEntry(trigger) : this.logEntryRef(trigger),
      alert_counts: {
        all: i.alertCount,
        triggered: i.status === 'resolved' ? 0 : i.alertCount,
        resolved: i.status === 'resolved' ? i.alertCount : 0,
      },
      is_mergeable: true,
      incident_type: { name: 'incident_default' },
      escalation_policy: include.has('escalation_policies') ? this.policy(policy) : this.policyRef(policy.id),
      teams: i.teamIds.map((t) => {
        const team = this.data.teamsById.get(t);
        return include.has('teams') && team ? this.team(team) : this.teamRef(t);
      }),
      pending_actions: pending,
      acknowledgements: i.acknowledgements.map((a) => ({ at: this.time(a.at), acknowledger: userOrRef(a.userId, fullAckers) })),
      last_status_change_by: include.has('agents') ? this.agentFull(i.lastStatusChangeBy) : this.agentRef(i.lastStatusChangeBy),
      priority: priority ? this.priority(priority) : null,
      incidents_responders: [],
      responder_requests: [],
      urgency: i.urgency,
    };
    if (include.has('conference_bridge') && i.conferenceBridge) {
      out.conference_bridge = { conference_number: i.conferenceBridge.number, conference_url: i.conferenceBridge.url };
    }
    if (include.has('body')) out.body = { type: 'incident_body', details: i.details };
    return out;
  }

  private agentFull(agent: AgentRecord): Json {
    if (agent.kind === 'user') {
      const u = this.data.usersById.get(agent.id);
      return u ? this.user(u) : this.userRef(agent.id);
    }
    const s = this.data.servicesById.get(agent.id);
    return s ? this.service(s) : this.serviceRef(agent.id);
  }

  logEntry(e: LogEntryRecord): Json {
    const service = this.data.servicesById.get(e.serviceId);
    const out: Json = {
      id: e.id,
      type: e.type,
      summary: e.summary,
      self: `${this.ctx.baseUrl}/log_entries/${e.id}`,
      html_url: `${WEB_HOST}/incidents/${e.incidentId}/log_entries/${e.id}`,
      created_at: this.time(e.createdAt),
      channel: e.notification ? { type: 'notification', notification: { type: e.notification.type, status: 'success', address: e.notification.address, started_at: this.time(e.createdAt) } } : e.channel,
      ...(e.agent ? { agent: this.agentRef(e.agent) } : {}),
      service: this.serviceRef(e.serviceId),
      incident: this.incidentRef(e.incidentId),
      teams: e.teamIds.map((t) => this.teamRef(t)),
      contexts: [],
    };
    if (e.eventDetails) out.event_details = e.eventDetails;
    if (e.note !== undefined) out.note = e.note;
    if (e.userId) out.user = this.userRef(e.userId);
    if (e.assigneeIds) out.assignees = e.assigneeIds.map((u) => this.userRef(u));
    if (e.type === 'acknowledge_log_entry' && service) out.acknowledgement_timeout = service.acknowledgementTimeout;
    return out;
  }

  /** The spec types an alert's service, trigger entry and incident as references, so include[] keeps them references. */
  alert(a: AlertRecord): Json {
    const incident = this.data.incidentsById.get(a.incidentId) as IncidentRecord;
    const service = this.data.servicesById.get(a.serviceId) as ServiceRecord;
    const trigger = this.data.logEntriesById.get(incident.firstTriggerLogEntryId) as LogEntryRecord;
    const integration = service.integrations.find((i) => i.id === a.integrationId);
    return {
      id: a.id,
      type: 'alert',
      summary: a.summary,
      self: `${this.ctx.baseUrl}/incidents/${a.incidentId}/alerts/${a.id}`,
      html_url: `${WEB_HOST}/alerts/${a.id}`,
      created_at: this.time(a.createdAt),
      status: a.resolvedAt === null ? 'triggered' : 'resolved',
      alert_key: a.alertKey,
      service: this.serviceRef(service.id),
      first_trigger_log_entry: this.logEntryRef(trigger),
      incident: this.incidentRef(incident.id),
      suppressed: false,
      severity: a.severity,
      ...(integration
        ? {
            integration: this.ref(
              integration.type.replace(/_reference$/, ''),
              integration.id,
              integration.name,
              `services/${service.id}/integrations/${integration.id}`,
              `services/${service.id}/integrations/${integration.id}`,
            ),
          }
        : {}),
      body: { type: 'alert_body', contexts: a.contexts, details: a.details },
    };
  }

  /** A note is the annotate log entry that recorded it. */
  note(e: LogEntryRecord): Json {
    return {
      id: e.id,
      user: e.agent?.kind === 'user' ? this.userRef(e.agent.id) : this.ref('bot_user', e.agent?.id ?? 'unknown', 'Automation', `users/${e.agent?.id ?? 'unknown'}`, null),
      channel: { summary: 'The PagerDuty website or APIs' },
      content: e.note ?? '',
      created_at: this.time(e.createdAt),
      updated_at: this.time(e.createdAt),
    };
  }
}

export function incidentSummary(i: IncidentRecord): string {
  return `[#${i.number}] ${i.title}`;
}
