/**
 * The emulator's internal records. Times are epoch milliseconds; they are turned into the
 * platform's JSON shapes (ISO 8601 strings, references, self/html_url links) by render.ts.
 */

export type UserRole = 'admin' | 'limited_user' | 'observer' | 'owner' | 'read_only_user' | 'restricted_access' | 'read_only_limited_user' | 'user';
export type TeamRole = 'manager' | 'responder' | 'observer';

export interface UserRecord {
  id: string;
  name: string;
  email: string;
  timeZone: string;
  color: string;
  role: UserRole;
  jobTitle: string;
  description: string | null;
  teamIds: string[];
}

export interface TeamMembership {
  userId: string;
  role: TeamRole;
}

export interface TeamRecord {
  id: string;
  name: string;
  description: string;
  members: TeamMembership[];
}

/** A mask on a layer: the layer only covers these windows (in the schedule's time zone). */
export interface RestrictionRecord {
  type: 'daily_restriction' | 'weekly_restriction';
  /** HH:MM:SS, local to the schedule's time zone. */
  startTimeOfDay: string;
  durationSeconds: number;
  /** ISO weekday 1 (Monday) .. 7 (Sunday); weekly restrictions only. */
  startDayOfWeek?: number;
}

export interface LayerRecord {
  id: string;
  name: string;
  /** When the layer takes effect. */
  start: number;
  end: number | null;
  /** Turn k runs [rotationVirtualStart + k * turn, rotationVirtualStart + (k + 1) * turn) and belongs to userIds[k mod n]. */
  rotationVirtualStart: number;
  turnLengthSeconds: number;
  userIds: string[];
  restrictions: RestrictionRecord[];
}

export interface ScheduleRecord {
  id: string;
  name: string;
  description: string;
  timeZone: string;
  /** Index 0 has the highest priority: where it has someone on call, lower layers are hidden. */
  layers: LayerRecord[];
  teamIds: string[];
  /** Someone on call in place of the layers for a while, above every layer; sorted by start, never overlapping. */
  overrides?: OverrideRecord[];
}

export interface OverrideRecord {
  id: string;
  start: number;
  end: number;
  userId: string;
}

export type TargetRecord = { kind: 'schedule'; id: string } | { kind: 'user'; id: string };

export interface EscalationRuleRecord {
  id: string;
  delayMinutes: number;
  targets: TargetRecord[];
  assignmentStrategy: 'round_robin' | 'assign_to_everyone';
}

export interface PolicyRecord {
  id: string;
  name: string;
  description: string;
  numLoops: number;
  onCallHandoffNotifications: 'if_has_services' | 'always';
  teamIds: string[];
  rules: EscalationRuleRecord[];
}

export interface IntegrationRecord {
  id: string;
  type: 'events_api_v2_inbound_integration_reference' | 'generic_email_inbound_integration_reference';
  name: string;
}

export interface ServiceRecord {
  id: string;
  name: string;
  description: string;
  policyId: string;
  teamIds: string[];
  createdAt: number;
  /** Seconds. */
  autoResolveTimeout: number;
  /** Seconds. */
  acknowledgementTimeout: number;
  /** 'disabled' / 'maintenance' override; otherwise the status follows the open incidents. */
  fixedStatus: 'disabled' | 'maintenance' | null;
  urgency: 'high' | 'low';
  integrations: IntegrationRecord[];
}

/** A business service: a capability people care about, resting on technical services (or other business services). */
export interface BusinessServiceRecord {
  id: string;
  name: string;
  description: string;
  pointOfContact: string;
  teamId: string | null;
}

/** One end of a dependency: a technical service (a ServiceRecord) or a business service. */
export interface ServiceEnd {
  kind: 'technical' | 'business';
  id: string;
}

/** `dependent` depends on `supporting`. */
export interface DependencyRecord {
  id: string;
  supporting: ServiceEnd;
  dependent: ServiceEnd;
}

export interface PriorityRecord {
  id: string;
  name: string;
  description: string;
  color: string;
}

export type AgentRecord = { kind: 'user'; id: string } | { kind: 'service'; id: string };

export type IncidentStatus = 'triggered' | 'acknowledged' | 'resolved';
export type Urgency = 'high' | 'low';

export interface IncidentRecord {
  id: string;
  number: number;
  title: string;
  details: string;
  createdAt: number;
  updatedAt: number;
  status: IncidentStatus;
  urgency: Urgency;
  serviceId: string;
  policyId: string;
  teamIds: string[];
  priorityId: string | null;
  incidentKey: string;
  /** Current assignees (empty once resolved). */
  assignments: { at: number; userId: string }[];
  acknowledgements: { at: number; userId: string }[];
  resolvedAt: number | null;
  lastStatusChangeAt: number;
  lastStatusChangeBy: AgentRecord;
  alertCount: number;
  /** Escalation level the incident currently sits at (1-based). */
  escalationLevel: number;
  firstTriggerLogEntryId: string;
  conferenceBridge: { number: string; url: string } | null;
}

export type LogEntryType =
  | 'trigger_log_entry'
  | 'notify_log_entry'
  | 'acknowledge_log_entry'
  | 'assign_log_entry'
  | 'escalate_log_entry'
  | 'annotate_log_entry'
  | 'resolve_log_entry';

export interface LogEntryRecord {
  id: string;
  type: LogEntryType;
  createdAt: number;
  incidentId: string;
  serviceId: string;
  teamIds: string[];
  agent: AgentRecord | null;
  channel: Record<string, unknown>;
  summary: string;
  note?: string;
  /** notify: the user notified. */
  userId?: string;
  /** assign / escalate: the new assignees. */
  assigneeIds?: string[];
  /** notify: how the user was reached. */
  notification?: { type: 'sms_notification' | 'email_notification' | 'phone_notification' | 'push_notification'; address: string };
  eventDetails?: Record<string, string>;
}

export type AlertSeverity = 'info' | 'warning' | 'error' | 'critical';

/** One alert grouped into an incident (its monitoring event). */
export interface AlertRecord {
  id: string;
  incidentId: string;
  serviceId: string;
  integrationId: string | null;
  createdAt: number;
  resolvedAt: number | null;
  summary: string;
  severity: AlertSeverity;
  alertKey: string;
  /** The monitor's details: nested objects, lists and long texts, as monitors send them. */
  details: AlertDetails;
  /** Links and images (the body's `contexts`). */
  contexts: AlertContext[];
}

export type AlertValue = string | number | boolean | null | AlertValue[] | { [key: string]: AlertValue };
export type AlertDetails = { [key: string]: AlertValue };
/** The spec's Context: a link (href) or an image (src), with its text. */
export type AlertContext = { type: 'link'; href: string; text: string } | { type: 'image'; src: string; text: string };

/** A change event (a deploy, a configuration change) sent to a service's integration. */
export interface ChangeEventRecord {
  id: string;
  serviceId: string;
  integrationId: string | null;
  timestamp: number;
  summary: string;
  source: string;
  customDetails: Record<string, string>;
}

export interface Dataset {
  /** The instant the data was generated for. */
  generatedAt: number;
  seed: number;
  accountTimeZone: string;
  demoUserId: string;
  users: UserRecord[];
  teams: TeamRecord[];
  schedules: ScheduleRecord[];
  policies: PolicyRecord[];
  services: ServiceRecord[];
  priorities: PriorityRecord[];
  /** Sorted by createdAt ascending. */
  incidents: IncidentRecord[];
  /** Sorted by createdAt ascending. */
  logEntries: LogEntryRecord[];
  /** Deploys and configuration changes, oldest first. */
  changeEvents: ChangeEventRecord[];
  /** Sorted by name. */
  businessServices: BusinessServiceRecord[];
  businessServicesById: Map<string, BusinessServiceRecord>;
  /** The service dependency graph (data/dependencies.ts). */
  dependencies: DependencyRecord[];
  /** Each incident's alerts, oldest first (incident.alertCount of them). */
  alertsByIncident: Map<string, AlertRecord[]>;
  usersById: Map<string, UserRecord>;
  teamsById: Map<string, TeamRecord>;
  schedulesById: Map<string, ScheduleRecord>;
  policiesById: Map<string, PolicyRecord>;
  servicesById: Map<string, ServiceRecord>;
  prioritiesById: Map<string, PriorityRecord>;
  incidentsById: Map<string, IncidentRecord>;
  logEntriesById: Map<string, LogEntryRecord>;
}
