// The coverage view (MCP Apps) for IncidentOps.WhoIsOnCall with `until`: one row per policy level
// over the window, its shifts as bars, gaps in red, overrides marked with whom they replace.
// Runs in the client's sandboxed iframe; gets the tool's structuredContent through the App SDK.
// Every platform text goes in as text (textContent), never as markup.
import { App } from '@modelcontextprotocol/ext-apps';
import { displayZone, fullTime, shortTime, wallClockTicks } from './time.js';

const SHIFT = /^(\S+) to (\S+) (.*?)(?:: (.*))?$/;
const GAP = /^(\S+) to (\S+)/;
const time = (text) => Date.parse(text);
const LANE_PX = 36;
const HOUR = 3_600_000;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A bar over [start, end) of the window, in per cent of the track's width. */
function place(node, start, end, window) {
  const span = window.end - window.start;
  const left = Math.max(0, (start - window.start) / span);
  const right = Math.min(1, (end - window.start) / span);
  node.style.left = `${(left * 100).toFixed(3)}%`;
  node.style.width = `${(Math.max(0, right - left) * 100).toFixed(3)}%`;
}

/** Ticks under the rows: a step of whole hours that gives at most 9 of them, on the zone's round hours. */
function axis(window, zone) {
  const row = el('div', 'axis');
  row.append(el('div', 'label'));
  const scale = el('div', 'scale');
  const span = window.end - window.start;
  const step = [1, 2, 3, 6, 12, 24, 48, 168].map((hours) => hours * HOUR).find((ms) => span / ms <= 8) ?? Math.ceil(span / 8 / HOUR) * HOUR;
  for (const at of wallClockTicks(window.start, window.end, step, zone)) {
    const tick = el('div', 'tick', shortTime(at, zone));
    tick.dataset.at = new Date(at).toISOString();
    tick.style.left = `${(((at - window.start) / span) * 100).toFixed(3)}%`;
    scale.append(tick);
  }
  row.append(scale);
  return row;
}

function render(data) {
  const root = document.getElementById('coverage');
  root.replaceChildren();
  const window = { start: time(data.at), end: time(data.until) };
  if (!data.until || !(window.end > window.start)) {
    root.append(el('p', 'note', 'No window: ask with until for the coverage chart.'));
    return;
  }
  // The zone the call asked for, else the offset its times carry, else UTC.
  const zone = displayZone(toolArguments?.time_zone, data.at);
  const heading = el('h1', '', `On-call coverage ${fullTime(window.start, zone)} → ${fullTime(window.end, zone)} `);
  heading.append(el('span', 'zone', zone.label));
  root.append(heading);
  if (data.summary) root.append(el('p', 'summary', data.summary));
  for (const policy of data.escalation_policies ?? []) {
    const section = el('section', 'policy');
    section.dataset.policy = policy.escalation_policy;
    section.append(el('h2', '', policy.escalation_policy));
    for (const level of policy.levels ?? []) {
      const row = el('div', 'level');
      row.dataset.level = String(level.level);
      row.append(el('div', 'label', `Level ${level.level}`));
      const track = el('div', 'track');
      const bars = [];
      for (const [who, lines] of Object.entries(level.shifts ?? {})) {
        for (const line of lines) {
          // Under "always": users the policy names directly, on call throughout.
          const match = who === 'always' ? null : SHIFT.exec(line);
          const start = match ? time(match[1]) : window.start;
          const end = match ? time(match[2]) : window.end;
          const user = match ? match[3] : line;
          const flags = match?.[4];
          const bar = el('div', flags && flags.includes('override') ? 'shift override' : 'shift', user);
          bar.title = match ? `${match[1]} to ${match[2]} ${user} (${who})` : `${user}, always`;
          bar.dataset.schedule = who;
          place(bar, start, end, window);
          if (flags) {
            const mark = el('span', 'replaces', flags);
            bar.title += `\n${flags}`;
            bar.append(mark);
          }
          bars.push({ bar, start, end });
        }
      }
      // Bars that overlap in time (two schedules, or a user named directly) go on lanes of their own.
      const laneEnds = [];
      for (const { bar, start, end } of bars.sort((a, b) => a.start - b.start || b.end - a.end)) {
        let lane = laneEnds.findIndex((laneEnd) => laneEnd <= start);
        if (lane < 0) lane = laneEnds.push(0) - 1;
        laneEnds[lane] = end;
        bar.dataset.lane = String(lane);
        bar.style.top = `${3 + lane * LANE_PX}px`;
        track.append(bar);
      }
      track.style.height = `${Math.max(1, laneEnds.length) * LANE_PX + 4}px`;
      for (const gap of level.gaps ?? []) {
        const match = GAP.exec(gap);
        if (!match) continue;
        const bar = el('div', 'gap');
        bar.title = `Gap: ${gap}`;
        place(bar, time(match[1]), time(match[2]), window);
        track.append(bar);
      }
      row.append(track);
      section.append(row);
    }
    section.append(axis(window, zone));
    root.append(section);
  }
  if (data.covered_until) root.append(el('p', 'note', `Covered up to ${data.covered_until} only.`));
  if (data.note) root.append(el('p', 'note', data.note));
  document.body.dataset.rendered = 'true';
}

const app = new App({ name: 'toolservers coverage view', version: '1' });
/** The call's arguments (the host sends them before the result): `time_zone` picks the zone shown. */
let toolArguments;
app.ontoolinput = (input) => {
  toolArguments = input.arguments;
};
app.ontoolresult = (result) => {
  if (result.structuredContent) render(result.structuredContent);
};
app.connect();
