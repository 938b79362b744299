// The incident view (MCP Apps) for IncidentOps.GetIncidentContext: the incident's header, a
// timeline chart of its key events (and the related changes before them), who is on call now, the
// changes and the related incidents. Runs in the client's sandboxed iframe; gets the tool's
// structuredContent through the App SDK. Every platform text goes in as text, never as markup.
import { App } from '@modelcontextprotocol/ext-apps';
import { displayZone, shortTime } from './time.js';

// `2026-…Z kind: "summary"`; `2026-…Z "summary" from "source"…`; lines without a time are notes.
const EVENT = /^(\d{4}-\d\d-\d\dT\S+) ([\w-]+): (.*)$/;
const STAMPED = /^(\d{4}-\d\d-\d\dT\S+) (.*)$/;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function list(lines, itemClass) {
  const ul = el('ul', itemClass);
  for (const line of lines) {
    const match = STAMPED.exec(line);
    const li = el('li');
    if (match) li.append(el('span', 'when', match[1]), document.createTextNode(match[2]));
    else li.textContent = line;
    ul.append(li);
  }
  return ul;
}

function section(root, title, lines, name) {
  if (!lines?.length) return;
  root.append(el('h2', '', title));
  const ul = list(lines);
  ul.dataset.part = name;
  root.append(ul);
}

function header(root, incident) {
  const h1 = el('h1');
  const status = String(incident.status ?? '');
  if (status) h1.append(el('span', `badge ${status.replace(/[^a-z]/g, '')}`, status));
  if (incident.urgency) h1.append(el('span', 'badge urgency', `${incident.urgency} urgency`));
  h1.append(document.createTextNode(`${incident.number ? `#${incident.number} ` : ''}${incident.title ?? incident.id}`));
  root.append(h1);
  const facts = el('div', 'facts');
  for (const [label, value] of [
    ['Opened', incident.created_at],
    ['Priority', incident.priority],
    ['Service', incident.service],
    ['Policy', incident.escalation_policy],
    ['Assigned to', Array.isArray(incident.assigned_to) ? incident.assigned_to.join(', ') : incident.assigned_to],
    ['ID', incident.id],
  ]) {
    if (value) facts.append(el('span', '', `${label}: ${value}`));
  }
  root.append(facts);
}

/** Key events (circles) and related changes (squares) on one time axis. */
function chart(root, timeline, changes, zone) {
  const marks = [];
  for (const line of timeline) {
    const match = EVENT.exec(line);
    if (match) marks.push({ at: Date.parse(match[1]), kind: match[2], className: `mark event ${match[2]}`, title: line, tag: match[2] });
  }
  for (const line of changes) {
    const match = STAMPED.exec(line);
    if (match) marks.push({ at: Date.parse(match[1]), className: 'mark change', title: `Change: ${line}`, tag: 'change' });
  }
  const times = marks.map((mark) => mark.at).filter(Number.isFinite);
  if (!times.length) return;
  // A little room on both sides, and a span of at least a minute so one event sits in the middle.
  const first = Math.min(...times);
  const span = Math.max(Math.max(...times) - first, 60_000);
  const start = first - span * 0.04;
  const whole = span * 1.08;
  const at = (time) => `${(((time - start) / whole) * 100).toFixed(3)}%`;
  const title = el('h2', '', 'Timeline ');
  title.append(el('span', 'zone', zone.label));
  root.append(title);
  const box = el('div', 'chart');
  box.dataset.start = new Date(start).toISOString();
  // Labels of marks close in time go on rows above one another, so none hides another.
  const laneEnds = [];
  for (const mark of marks.filter((m) => Number.isFinite(m.at)).sort((a, b) => a.at - b.at)) {
    const from = (mark.at - start) / whole;
    let lane = laneEnds.findIndex((end) => end <= from);
    if (lane < 0) lane = laneEnds.push(0) - 1;
    laneEnds[lane] = from + (mark.tag.length + 2) * 0.008;
    const dot = el('div', mark.className);
    dot.title = mark.title;
    dot.style.left = at(mark.at);
    dot.dataset.lane = String(lane);
    const tag = el('span', 'tag', mark.tag);
    tag.style.bottom = `${12 + lane * 14}px`;
    dot.append(tag);
    box.append(dot);
  }
  box.style.height = `${24 + laneEnds.length * 14}px`;
  for (const time of [first, first + span / 2, first + span]) {
    const tick = el('div', 'tick', shortTime(time, zone));
    tick.dataset.at = new Date(time).toISOString();
    tick.style.left = at(time);
    box.append(tick);
  }
  root.append(box);
  root.append(list(timeline));
}

function render(data) {
  const root = document.getElementById('incident');
  root.replaceChildren();
  header(root, data.incident ?? {});
  const alerts = data.alerts?.count ?? data.alerts?.newest?.length ?? 0;
  if (data.alerts) root.append(el('p', 'note', `${alerts} alert${alerts === 1 ? '' : 's'}; newest: ${data.alerts.newest?.[0]?.summary ?? 'none'}`));
  // GetIncidentContext takes no zone: its times are UTC unless they carry an offset of their own.
  const stamped = (data.timeline ?? []).map((line) => STAMPED.exec(line)?.[1]).find(Boolean);
  chart(root, data.timeline ?? [], data.changes ?? [], displayZone(undefined, stamped ?? data.incident?.created_at));
  section(root, 'On call now', data.on_call_now, 'on_call_now');
  section(root, 'Changes', data.changes, 'changes');
  section(root, 'Notes', data.notes, 'notes');
  section(root, 'Related incidents', data.other_open, 'other_open');
  section(root, 'Depends on', data.depends_on, 'depends_on');
  section(root, 'Depended on by', data.depended_on_by, 'depended_on_by');
  for (const missing of data.partial ?? []) root.append(el('p', 'note partial', `Not read: ${missing}`));
  document.body.dataset.rendered = 'true';
}

const app = new App({ name: 'toolservers incident view', version: '1' });
app.ontoolresult = (result) => {
  if (result.structuredContent) render(result.structuredContent);
};
app.connect();
