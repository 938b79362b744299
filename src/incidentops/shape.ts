/**
 * Compact records for the agent: nulls and API self-links dropped, references reduced to
 * id, a readable name and the web link. Field names stay the platform's own.
 */
import { z } from 'zod';
import { isRecord, pruneEmpty } from '../core/json.js';

type Json = Record<string, unknown>;
/** A shaped record: the platform always sends an id for these. */
export type Shaped = { id: string } & Json;

/** Pruned record with its id (the platform always sends one). */
function shaped(fields: Json): Shaped {
  return pruneEmpty(fields) as Shaped;
}

/** Picks the listed fields (in that order) that are present. */
function pick(source: Json, keys: readonly string[]): Json {
  const out: Json = {};
  for (const key of keys) if (source[key] !== undefined && source[key] !== null) out[key] = source[key];
  return out;
}

/** A reference or embedded object reduced to id, name or summary, and html_url. */
export function ref(value: unknown): Json | undefined {
  if (!isRecord(value)) return undefined;
  return pruneEmpty({ id: value.id, name: value.name ?? value.summary, html_url: value.html_url });
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
    escalation_level: oncall.escalation_level,
    schedule: ref(oncall.schedule),
    // null start and end mean a permanent on-call (a user targeted directly by the policy)
    start: oncall.start,
    end: oncall.end,
    permanent: oncall.start == null && oncall.end == null ? true : undefined,
  });
}

export function shapeIncident(incident: Json): Shaped {
  const assignments = Array.isArray(incident.assignments) ? incident.assignments.filter(isRecord) : [];
  const acknowledgements = Array.isArray(incident.acknowledgements) ? incident.acknowledgements.filter(isRecord) : [];
  const priority = isRecord(incident.priority) ? pruneEmpty({ id: incident.priority.id, name: incident.priority.name ?? incident.priority.summary }) : undefined;
  return shaped({
    ...pick(incident, ['id', 'incident_number', 'title', 'status', 'urgency', 'created_at', 'updated_at', 'last_status_change_at', 'resolved_at', 'incident_key', 'resolve_reason']),
    priority,
    service: ref(incident.service),
    escalation_policy: ref(incident.escalation_policy),
    teams: refs(incident.teams) ?? [],
    assignees: assignments.map((a) => pruneEmpty({ ...ref(a.assignee), assigned_at: a.at })),
    acknowledgers: acknowledgements.length ? acknowledgements.map((a) => pruneEmpty({ ...ref(a.acknowledger), acknowledged_at: a.at })) : undefined,
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

/** Output schema pieces: key fields typed, everything else allowed (records stay readable). */
export const refSchema = z.looseObject({ id: z.string(), name: z.string().optional(), html_url: z.string().optional() });
export const recordSchema = z.looseObject({ id: z.string() });

export const pageFields = {
  limit: z.number().int(),
  offset: z.number().int(),
  more: z.boolean(),
  next_offset: z.number().int().optional(),
};

/** The page envelope every list tool returns next to its items. */
export function page(limit: number, offset: number, more: boolean, count: number) {
  return { limit, offset, more, ...(more ? { next_offset: offset + count } : {}) };
}
