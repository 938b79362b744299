/**
 * Compact records for the agent: nulls and API self-links dropped, nested references reduced to
 * id and a readable name. Only the records a tool is about (its top-level records) keep their
 * web link, html_url. Field names stay the platform's own.
 */
import { z } from 'zod';
import { isRecord, pruneEmpty } from '../core/json.js';
import { flatText } from '../core/tools/line-text.js';

type Json = Record<string, unknown>;
/** A shaped record: the platform always sends an id for these. */
export type Shaped = { id: string } & Json;

/** Pruned record with its id (the platform always sends one). */
function shaped(fields: Json): Shaped {
  return pruneEmpty(fields) as Shaped;
}

/** Picks the listed text fields that are text (a platform that sends something else for them has it left out). */
function pickText(source: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) if (typeof source[key] === 'string') out[key] = source[key];
  return out;
}

/** Picks the listed fields (in that order) that are present. */
function pick(source: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) if (source[key] !== undefined && source[key] !== null) out[key] = source[key];
  return out;
}

/** Platform text on one line (separators and format characters too), cut to `max` characters (an ellipsis marks the cut); anything else is empty. */
export function oneLine(text: unknown, max: number): string {
  return flatText(text, max);
}

/**
 * A nested reference or embedded object reduced to id and name (the platform's name, else its
 * summary). A reference the platform sent without a usable id keeps its name; one with neither
 * is left out.
 */
export function ref(value: unknown): Json | undefined {
  if (!isRecord(value)) return undefined;
  const id = typeof value.id === 'string' || typeof value.id === 'number' ? String(value.id) : undefined;
  const label = value.name ?? value.summary;
  const name = typeof label === 'string' ? label : undefined;
  if (id === undefined && name === undefined) return undefined;
  // What pruneEmpty({ id, name }) gives, built directly: SearchUsers' directory takes a ref per team of every user.
  const out: Json = {};
  if (id !== undefined) out.id = id;
  if (name !== undefined) out.name = name;
  return out;
}

/** Like ref, keeping the kind (user, schedule, ...) where a list mixes kinds. */
export function typedRef(value: unknown): Json | undefined {
  const base = ref(value);
  if (!base || !isRecord(value)) return base;
  const type = typeof value.type === 'string' ? value.type.replace(/_reference$/, '') : undefined;
  return type ? { type, ...base } : base;
}

function refs(value: unknown): Json[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((item) => ref(item)).filter((item): item is Json => item !== undefined);
}

export function shapeUser(user: Json): Shaped {
  return shaped({
    ...pick(user, ['id', 'name', 'email', 'role', 'job_title', 'time_zone', 'description']),
    teams: refs(user.teams),
    html_url: user.html_url,
  });
}

/** A contact method's kind without the platform's suffixes: email, sms, phone, push_notification, whatsapp. */
function contactKind(type: unknown): string | undefined {
  return typeof type === 'string' ? type.replace(/_reference$/, '').replace(/_contact_method$/, '') : undefined;
}

/**
 * How a user is reached: kind, label and address (a phone number with its country code). A push
 * method's address is a device token, a secret: it is never passed on (its label names the device).
 */
export function shapeContactMethods(value: unknown): Shaped[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).flatMap((method) => {
    if (method.id === undefined || method.id === null) return [];
    const type = contactKind(method.type);
    const countryCode = typeof method.country_code === 'number' ? `+${method.country_code} ` : '';
    const address = type === 'push_notification' || typeof method.address !== 'string' ? undefined : `${countryCode}${method.address}`;
    const label = [method.label, method.summary].find((text) => typeof text === 'string');
    return [shaped({ id: String(method.id), type, label, address, ...(method.blacklisted === true ? { blacklisted: true } : {}) })];
  });
}

/**
 * When and how a user is paged: urgency, delay and the contact method's kind and id (its address is
 * in contact_methods), high urgency first, soonest first.
 */
export function shapeNotificationRules(value: unknown, contactMethods: readonly Shaped[]): Json[] {
  if (!Array.isArray(value)) return [];
  const kindOf = new Map(contactMethods.map((method) => [method.id, method.type]));
  const rules = value.filter(isRecord).map((rule) => {
    const method = isRecord(rule.contact_method) ? rule.contact_method : {};
    const methodId = method.id === undefined || method.id === null ? undefined : String(method.id);
    return pruneEmpty({
      urgency: typeof rule.urgency === 'string' ? rule.urgency : undefined,
      start_delay_in_minutes: typeof rule.start_delay_in_minutes === 'number' ? rule.start_delay_in_minutes : undefined,
      contact_type: contactKind(method.type) ?? (methodId ? kindOf.get(methodId) : undefined),
      contact_method_id: methodId,
      // Without the include the platform sends references: their summary is all there is.
      ...(rule.urgency === undefined && rule.start_delay_in_minutes === undefined && typeof rule.summary === 'string' ? { summary: rule.summary } : {}),
    });
  });
  const urgencyRank = (rule: Json) => (rule.urgency === 'high' ? 0 : rule.urgency === 'low' ? 1 : 2);
  const delay = (rule: Json) => (typeof rule.start_delay_in_minutes === 'number' ? rule.start_delay_in_minutes : Number.MAX_SAFE_INTEGER);
  return rules.sort((a, b) => urgencyRank(a) - urgencyRank(b) || delay(a) - delay(b));
}

export function shapeTeam(team: Json): Shaped {
  return shaped({ ...pick(team, ['id', 'name', 'description', 'default_role']), parent: ref(team.parent), html_url: team.html_url });
}

export function shapeService(service: Json): Shaped {
  return shaped({
    ...pick(service, ['id', 'name', 'description', 'status', 'created_at', 'last_incident_timestamp', 'acknowledgement_timeout', 'auto_resolve_timeout']),
    escalation_policy: ref(service.escalation_policy),
    teams: refs(service.teams),
    incident_urgency_rule: service.incident_urgency_rule,
    html_url: service.html_url,
  });
}

export function shapeEscalationPolicy(policy: Json): Shaped {
  const rules = Array.isArray(policy.escalation_rules) ? policy.escalation_rules : [];
  return shaped({
    ...pick(policy, ['id', 'name', 'description', 'num_loops', 'on_call_handoff_notifications']),
    escalation_rules: rules.filter(isRecord).map((rule, index) =>
      pruneEmpty({
        level: index + 1,
        escalation_delay_in_minutes: rule.escalation_delay_in_minutes,
        targets: Array.isArray(rule.targets) ? rule.targets.map((t) => typedRef(t)).filter(Boolean) : [],
      }),
    ),
    services: refs(policy.services),
    teams: refs(policy.teams),
    html_url: policy.html_url,
  });
}

export function shapeSchedule(schedule: Json): Shaped {
  return shaped({
    ...pick(schedule, ['id', 'name', 'description', 'time_zone']),
    teams: refs(schedule.teams),
    escalation_policies: refs(schedule.escalation_policies),
    html_url: schedule.html_url,
  });
}

export function shapeOncall(oncall: Json): Json {
  return pruneEmpty({
    user: ref(oncall.user),
    escalation_policy: ref(oncall.escalation_policy),
    escalation_level: level(oncall.escalation_level),
    schedule: ref(oncall.schedule),
    // null start and end mean a permanent on-call (a user targeted directly by the policy)
    start: oncall.start,
    end: oncall.end,
    permanent: oncall.start == null && oncall.end == null ? true : undefined,
  });
}

/** An escalation level: a whole number (given as one, or as its text). */
function level(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

/** Incident fields both the list and the detail view show. */
function incidentBase(incident: Json): Json {
  const assignments = Array.isArray(incident.assignments) ? incident.assignments.filter(isRecord) : [];
  const acknowledgements = Array.isArray(incident.acknowledgements) ? incident.acknowledgements.filter(isRecord) : [];
  return {
    ...pick(incident, ['id', 'incident_number', 'title', 'status', 'urgency', 'created_at', 'last_status_change_at', 'resolved_at']),
    priority: ref(incident.priority),
    service: ref(incident.service),
    teams: refs(incident.teams) ?? [],
    assignees: assignments.map((a) => pruneEmpty({ ...ref(a.assignee), assigned_at: a.at })),
    acknowledgers: acknowledgements.length ? acknowledgements.map((a) => pruneEmpty({ ...ref(a.acknowledger), acknowledged_at: a.at })) : undefined,
  };
}

/** An incident as ListIncidents shows it: what tells incidents apart; GetIncident has the rest. */
export function shapeIncidentSummary(incident: Json): Shaped {
  return shaped({ ...incidentBase(incident), html_url: incident.html_url });
}

/** An incident with every field an agent can use. */
export function shapeIncident(incident: Json): Shaped {
  return shaped({
    ...incidentBase(incident),
    ...pick(incident, ['updated_at', 'incident_key', 'resolve_reason']),
    escalation_policy: ref(incident.escalation_policy),
    last_status_change_by: ref(incident.last_status_change_by),
    alert_counts: incident.alert_counts,
    html_url: incident.html_url,
  });
}

export function shapeLogEntry(entry: Json): Shaped {
  return shaped({
    ...pick(entry, ['id', 'type', 'summary', 'created_at', 'note']),
    agent: typedRef(entry.agent),
    channel: isRecord(entry.channel) ? pruneEmpty({ type: entry.channel.type, summary: entry.channel.summary }) : undefined,
    incident: ref(entry.incident),
    service: ref(entry.service),
    teams: refs(entry.teams),
    html_url: entry.html_url,
  });
}

/** A team member as GetTeam lists them: who, how to reach them, their role in the team. */
export function shapeMember(member: Json): Shaped {
  const user = isRecord(member.user) ? member.user : {};
  return shaped({ ...pickText(user, ['id', 'name', 'email']), ...pickText({ team_role: member.role }, ['team_role']) });
}

/** A service as GetTeam lists it: enough to pick one for IncidentOps.GetService. */
export function shapeServiceSummary(service: Json): Shaped {
  return shaped({ ...pickText(service, ['id', 'name', 'status']), escalation_policy: ref(service.escalation_policy) });
}

/** An escalation policy as GetTeam lists it; IncidentOps.GetEscalationPolicy has its levels. */
export function shapeEscalationPolicyRef(policy: Json): Shaped {
  return ref(policy) as Shaped;
}

// ----- output schemas

/** A nested reference: id and name only (a platform that leaves out the id still leaves the name). */
export const refSchema = z.strictObject({ id: z.string().optional(), name: z.string().optional() });
/** A record with its id; other fields are the platform's own. */
export const recordSchema = z.looseObject({ id: z.string() });

export const pageFields = {
  limit: z.number().int(),
  offset: z.number().int(),
  more: z.boolean(),
  next_offset: z.number().int().optional(),
};

/** An on-call shift: the user and policy as references, the level, the times. */
export const contactMethodSchema = z.looseObject({ id: z.string(), type: z.string().optional(), label: z.string().optional(), address: z.string().optional() });

export const notificationRuleSchema = z.looseObject({ urgency: z.string().optional(), start_delay_in_minutes: z.number().optional(), contact_type: z.string().optional(), contact_method_id: z.string().optional() });

export const oncallSchema = z.looseObject({ user: refSchema.optional(), escalation_policy: refSchema.optional(), schedule: refSchema.optional(), escalation_level: z.number().int().optional() });

/** Any object or array, advertised as just that (`{"type":"object"}`, `{"type":"array"}`). */
export const anyObject = z.custom<Record<string, unknown>>((value) => isRecord(value), { message: 'must be an object' }).meta({ type: 'object' });
export const anyArray = z.custom<unknown[]>((value) => Array.isArray(value), { message: 'must be an array' }).meta({ type: 'array' });

/**
 * An output schema checked in full but advertised as `advertised` (often nothing at all): every
 * result is still validated against `checked` before it leaves the server, while tools/list
 * shows only what helps a client. The resource tools' shape ({record} or {records, limit,
 * offset, more, next_offset}) is stated once in the server's instructions instead.
 * Typed as `checked` so handlers stay type-checked against the full shape.
 */
export function checkedOutput<T extends z.ZodType>(checked: T, advertised: z.ZodType = anyObject): z.ZodType<z.output<T>> {
  return z.pipe(checked as z.ZodType, advertised as z.ZodType) as unknown as z.ZodType<z.output<T>>;
}

/** The output of a list tool returning `key`: checked, not advertised. */
export function listOutput<K extends string>(key: K) {
  const shape = { [key]: z.array(recordSchema), ...pageFields } as Record<K, z.ZodArray<typeof recordSchema>> & typeof pageFields;
  return checkedOutput(z.object(shape));
}

/** The output of a get tool returning one record under `key`: checked, not advertised. */
export function recordOutput<K extends string>(key: K) {
  return checkedOutput(z.object({ [key]: recordSchema } as Record<K, typeof recordSchema>));
}

/**
 * The page envelope every list tool returns next to its items. An empty page ends the list, even
 * when the platform says `more`: a next_offset equal to this offset would send the agent round in
 * a loop.
 */
export function page(limit: number, offset: number, more: boolean, count: number) {
  const hasMore = more && count > 0;
  return { limit, offset, more: hasMore, ...(hasMore ? { next_offset: offset + count } : {}) };
}

/** What the result budget tells the agent when a list tool's page is cut. */
export const LIST_TRUNCATION_HINT =
  'The page was cut to fit: to get the omitted records, call again with offset set to this offset plus `returned` (next_offset would skip them), or with a smaller limit.';
