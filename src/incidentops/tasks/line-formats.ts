/**
 * Every answer field of IncidentOps' task tools that holds a one-line format with platform text in
 * it, and the format (docs/tasks.md, "Platform text in lines"): texts ("text") quoted, names
 * (Name (ID)) bare when plain words and quoted otherwise (core/tools/line-text.ts). `TEXT_FIELDS`
 * hold one platform text alone, flattened. A test (test/line-forgery.test.ts) fills every platform
 * text with random text and checks that each of these keeps its shape, and that no other answer
 * field depends on platform text: a new format must be listed here.
 */

/** Answer path (`[]` an array's items, `{key}` and `{}` a map's keys and values) -> format. */
export const LINE_FORMATS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'IncidentOps.GetIncidentContext': {
    'incident.priority': 'Name (ID)',
    'incident.service': 'Name (ID)',
    'incident.escalation_policy': 'Name (ID)',
    'incident.assigned_to[]': 'Name (ID)',
    'alerts.newest[].details': '"line; line; line"',
    'notes[]': 'time Author (ID): "text"',
    'timeline[]': 'time kind: "summary"',
    'on_call_now[]': 'level N: Name (ID) until time, Name (ID) (always[; also on Schedule (ID)]), nobody on Schedule (ID)',
    'changes[]': 'time "summary" from "source" on Service (ID), reason',
    'other_open[]': '#N Title (ID), status, Service (ID)',
    'depends_on[]': 'Service (ID): N open, most urgent #N, urgency, status; or : nothing open, : business service',
    'depended_on_by[]': 'Service (ID): N open, most urgent #N, urgency, status; or : nothing open, : business service',
  },
  'IncidentOps.WhoIsOnCall': {
    service: 'Name (ID)',
    team: 'Name (ID)',
    'escalation_policies[].escalation_policy': 'Name (ID)',
    'escalation_policies[].levels[].on_call[].user': 'Name (ID)',
    'escalation_policies[].levels[].on_call[].via': 'Schedule (ID)[, Schedule (ID)]',
    'escalation_policies[].levels[].on_call[].next.user': 'Name (ID)',
    'escalation_policies[].levels[].shifts{key}': 'Schedule (ID), or always',
    'escalation_policies[].levels[].shifts{}[]': 'time to time Name (ID)[: override[ time to time], replaces Name (ID)[, then from time Name (ID)]]',
    summary: 'N gaps: Policy (ID) level N time to time (duration); ... N overrides.',
  },
  'IncidentOps.FindSimilarIncidents': {
    similar_to: '#N Title (ID) on Service (ID), or text "text" on Service (ID)',
    ranked_by: '... the resolved incidents of Service (ID) ...',
    'incidents[].incident': '#N Title (ID)[, status]',
    'incidents[].resolved_by': 'Name (ID)',
    'incidents[].last_notes[]': 'time Author (ID): "text"',
    note: '... of the resolved incidents of Service (ID) created in the last N days ... Try ...',
  },
  'IncidentOps.ListIncidentAlerts': {
    'alerts[].alert': 'Summary (ID)',
    'alerts[].service': 'Name (ID)',
    'alerts[].integration': 'Name (ID)',
    'alerts[].links[]': 'link Text: "url", or image Text: "url"',
    'alerts[].details[]': 'key.path: "value" (keys bare or quoted, numbers bare), or "text"',
    cut: 'N detail values cut at N characters (marked …); N detail lines left out past the first N of N alerts (details_left_out). ...',
  },
  'IncidentOps.IncidentStats': {
    of: 'service|team|escalation policy Name (ID)',
    'responders[]': 'Name (ID): N pages, N out of hours, N at night (N incidents) in Zone',
  },
  'IncidentOps.ShiftHandoff': {
    subject: 'Name (ID), or schedule ID, or escalation policy ID level N',
    shift: 'time to time Name (ID) via Schedule (ID)',
    handover: 'time: Name (ID) hands over to Name (ID) (in N min)',
    'levels[]': 'Policy (ID) level N',
    'incidents.open_incidents[]': '#N "Title" (ID): urgency, status[ in N min][, assigned to Name (ID)]; last note: time Author (ID): "text"',
    'incidents.resolved_incidents[]': '#N "Title" (ID): urgency, resolved in N min, acknowledged in N min',
    'next_on_call[]': 'Policy (ID) level N: Name (ID)[ (always)][ until time][, then Name (ID) from time], or nobody',
    'coming_24h[]': 'Policy (ID) level N: gap time to time (duration), or a coverage shift line',
  },
};

/** Fields that hold one platform text alone: flattened to one line, not quoted. */
export const TEXT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'IncidentOps.GetIncidentContext': ['incident.title', 'alerts.newest[].summary'],
  'IncidentOps.ListIncidentAlerts': ['alerts[].dedup_key'],
};
