/**
 * The views (MCP Apps) as a person sees them: real calls on the sandbox over MCP (tools/list's
 * _meta.ui link, resources/read of the view), shown in real Chromium inside a minimal host built on
 * the App SDK's AppBridge. Coverage (WhoIsOnCall with `until`): rows per level, the red gap, the
 * override's mark, times in the zone the call asked for (else UTC). Incident (GetIncidentContext): header, timeline marks in time order, on call
 * now, changes, related incidents. All three (the board view too) again over Streamable HTTP for a 2025-era and a 2026-07-28
 * client. Screenshots go to build/test-artifacts/. Skipped, with a
 * message, when no chromium is installed or the views are not built.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp } from '../src/core/serving/serve.js';
import { VIEW_MIME_TYPE, VIEW_NAMES } from '../src/core/tools/views.js';
import { UI_EXTENSION_ID } from '../src/core/tools/result-view.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, incidentOpsServerFor, sandboxBoards, startTestSandbox } from './support/harness.js';
import { screenshot, showView as show, toolsetsClient, viewOf, type Browser } from './support/view-host.js';
import { CHROMIUM, NO_CHROMIUM } from './support/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = VIEW_NAMES.every((view) => existsSync(`${ROOT}build/views/${view}.html`));
const skip = !CHROMIUM ? NO_CHROMIUM : !BUILT ? 'views not built (node scripts/build-views.mjs)' : false;
const PINNED = new Date('2026-05-06T12:00:00Z');

type Styled = { getBoundingClientRect: () => { left: number; width: number } };
// Passed to evaluate() as is: it runs in the page, so it may use nothing from here.
const background = (node: unknown): string => (globalThis as unknown as { getComputedStyle: (n: unknown) => { backgroundColor: string } }).getComputedStyle(node).backgroundColor;

/** A client on the IncidentOps server's task tools, in memory (the eras and HTTP: test/views-eras.test.ts). */
function tasksClient(sandbox: RunningSandbox): Promise<Client> {
  return toolsetsClient(incidentOpsServerFor(sandbox, { now: () => PINNED }), ['tasks', 'incidents']);
}


describe('the views in a real browser', { skip }, () => {
  let sandbox: RunningSandbox;
  let browser: Browser;
  before(async () => {
    sandbox = await startTestSandbox({ incidentops: { now: () => PINNED } });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
    await sandbox?.close();
  });

  it('coverage: one row per level, the gap in red and the override with whom it replaces, from a real call', async () => {
    const client = await tasksClient(sandbox);
    try {
      const html = await viewOf(client, 'IncidentOps.WhoIsOnCall');
      const args = { service_id: 'payments', until: '2026-05-08T12:00:00Z' };
      const result = await client.callTool({ name: 'IncidentOps.WhoIsOnCall', arguments: args });
      const data = result.structuredContent as { escalation_policies: { levels: { level: number; gaps: string[] }[] }[] };
      const levels = data.escalation_policies.flatMap((policy) => policy.levels);
      assert.ok(levels.reduce((sum, level) => sum + level.gaps.length, 0) > 0, 'the sandbox policy has a gap in the window');

      const { page, blocked } = await show(browser, html, args, result, 420);
      const view = page.frameLocator('iframe');
      assert.equal(await view.locator('.level').count(), levels.length, 'one row per level');
      for (const level of levels) {
        assert.equal(await view.locator(`.level[data-level="${level.level}"] .gap`).count(), level.gaps.length, `level ${level.level}'s gaps`);
      }
      assert.equal(await view.locator('.gap').first().evaluate(background), 'rgb(220, 0, 0)', 'gaps are red');
      const gapWidth = await view.locator('.gap').first().evaluate((node) => (node as unknown as Styled).getBoundingClientRect().width);
      assert.ok(gapWidth > 50, `the 10 h gap of 48 h is wide enough to see (${gapWidth} px)`);
      const override = view.locator('.shift.override');
      assert.equal(await override.count(), 1);
      assert.match(await override.locator('.replaces').innerText(), /replaces Sean Rahman/);
      assert.equal(await view.locator('.level[data-level="1"] .shift.override').count(), 1, 'the override is on level 1');
      // The time axis: ticks in time order, left to right, inside the window.
      const ticks = await view.locator('.axis .tick').evaluateAll((nodes) => nodes.map((node) => ({ at: (node as unknown as { dataset: { at: string } }).dataset.at, left: (node as unknown as Styled).getBoundingClientRect().left + (node as unknown as Styled).getBoundingClientRect().width / 2 })));
      assert.ok(ticks.length >= 4 && ticks.length <= 9, `${ticks.length} ticks over 48 h`);
      for (let i = 1; i < ticks.length; i++) assert.ok(Date.parse(ticks[i]!.at) > Date.parse(ticks[i - 1]!.at) && ticks[i]!.left > ticks[i - 1]!.left);
      const track = await view.locator('.level[data-level="1"] .track').evaluate((node) => (node as unknown as Styled).getBoundingClientRect());
      const tickOf = (iso: string) => ticks.find((tick) => tick.at === iso);
      const noon = tickOf('2026-05-07T12:00:00.000Z');
      assert.ok(noon, JSON.stringify(ticks));
      assert.ok(Math.abs(noon.left - track.left - track.width / 2) < 3, `the middle tick sits mid-track (${noon.left} vs ${track.left + track.width / 2})`);
      // No time_zone asked, times given in UTC: the axis is in UTC, and says so.
      assert.equal(await view.locator('h1 .zone').innerText(), 'UTC');
      const labels = await view.locator('.axis .tick').allInnerTexts();
      assert.deepEqual(labels.slice(0, ticks.length), ticks.map((tick) => tick.at.slice(5, 16).replace('T', ' ')), 'UTC labels');
      // Bars that overlap in time on one level are drawn apart: on the sandbox, level 2 has a
      // week's schedule shift and the same user named directly by the policy ("always").
      const level2 = levels.find((level) => level.level === 2) as unknown as { shifts: Record<string, string[]> };
      assert.ok(level2.shifts.always?.length && Object.keys(level2.shifts).length > 1, JSON.stringify(level2));
      for (const level of levels) {
        const bars = await view.locator(`.level[data-level="${level.level}"] .shift`).evaluateAll((nodes) =>
          nodes.map((node) => {
            const box = (node as unknown as { getBoundingClientRect: () => { left: number; right: number; top: number; bottom: number } }).getBoundingClientRect();
            return { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
          }),
        );
        assert.equal(bars.length, Object.values((level as unknown as { shifts: Record<string, string[]> }).shifts).flat().length, `level ${level.level}: a bar per shift`);
        for (let i = 0; i < bars.length; i++) {
          for (let j = i + 1; j < bars.length; j++) {
            const [one, two] = [bars[i]!, bars[j]!];
            const covered = Math.min(one.right, two.right) - Math.max(one.left, two.left) > 1 && Math.min(one.bottom, two.bottom) - Math.max(one.top, two.top) > 1;
            assert.ok(!covered, `level ${level.level}: bars ${i} and ${j} do not cover each other`);
          }
        }
        assert.equal(new Set(bars.map((bar) => bar.top)).size, level.level === 2 ? 2 : 1, `level ${level.level}'s lanes`);
      }
      assert.deepEqual(blocked, [], 'the view loads nothing');
      await screenshot(page, 'coverage-view');
      await page.close();
    } finally {
      await client.close();
    }
  });

  it('coverage: in the time zone the call asked for, ticks on that zone\'s round hours, labelled with it', async () => {
    const client = await tasksClient(sandbox);
    try {
      const html = await viewOf(client, 'IncidentOps.WhoIsOnCall');
      // India: UTC+05:30 all year (no daylight saving), so local whole hours are :30 in UTC.
      const args = { service_id: 'payments', until: '2026-05-08T12:00:00Z', time_zone: 'Asia/Kolkata' };
      const result = await client.callTool({ name: 'IncidentOps.WhoIsOnCall', arguments: args });
      const data = result.structuredContent as { at: string; until: string };
      assert.match(data.until, /\+05:30$/, 'the result is in that zone');
      const { page, blocked } = await show(browser, html, args, result, 420);
      const view = page.frameLocator('iframe');
      const local = (ms: number) => new Date(ms + 330 * 60_000).toISOString();
      assert.equal(await view.locator('h1 .zone').innerText(), 'Asia/Kolkata');
      assert.ok((await view.locator('h1').innerText()).includes(`${local(Date.parse(data.at)).slice(0, 16).replace('T', ' ')} → ${local(Date.parse(data.until)).slice(0, 16).replace('T', ' ')}`));
      const ticks = await view.locator('.axis .tick').evaluateAll((nodes) => nodes.map((node) => ({ at: (node as unknown as { dataset: { at: string } }).dataset.at, text: (node as unknown as { textContent: string }).textContent, left: (node as unknown as Styled).getBoundingClientRect().left + (node as unknown as Styled).getBoundingClientRect().width / 2 })));
      // 48 h at a 6 h step: local 00:00, 06:00, 12:00, 18:00 (UTC 18:30, 00:30, 06:30, 12:30).
      assert.equal(ticks.length, 8, JSON.stringify(ticks));
      for (const tick of ticks) {
        const wall = local(Date.parse(tick.at));
        assert.equal(tick.text, wall.slice(5, 16).replace('T', ' '), 'labelled in local time');
        assert.match(wall, /T(00|06|12|18):00:00/, `${tick.at} is a round local hour`);
      }
      const track = await view.locator('.level[data-level="1"] .track').evaluate((node) => (node as unknown as Styled).getBoundingClientRect());
      const start = Date.parse(data.at);
      const span = Date.parse(data.until) - start;
      const evening = ticks.find((tick) => tick.at === '2026-05-07T12:30:00.000Z');
      assert.ok(evening, 'the tick at local 05-07 18:00');
      const expected = track.left + (track.width * (Date.parse(evening.at) - start)) / span;
      assert.ok(Math.abs(evening.left - expected) < 3, `it sits at its instant (${evening.left} vs ${expected})`);
      assert.deepEqual(blocked, [], 'the view loads nothing');
      await page.close();
    } finally {
      await client.close();
    }
  });

  it('incident: the header, key events in time order on the chart, on call now, changes and related incidents, from a real call', async () => {
    const client = await tasksClient(sandbox);
    try {
      const html = await viewOf(client, 'IncidentOps.GetIncidentContext');
      // The acknowledged incident with the most to show: events, changes and related incidents.
      const listed = await client.callTool({ name: 'IncidentOps.ListIncidents', arguments: { status: 'acknowledged', limit: 10 } });
      type Context = { incident: { id: string; number: number; title: string; status: string }; timeline: string[]; on_call_now: string[]; changes: string[]; other_open: string[]; depends_on: string[]; depended_on_by: string[] };
      let best: { args: { incident_id: string }; result: Awaited<ReturnType<Client['callTool']>>; data: Context } | undefined;
      for (const incident of (listed.structuredContent as { incidents: { id: string }[] }).incidents) {
        const args = { incident_id: incident.id };
        const result = await client.callTool({ name: 'IncidentOps.GetIncidentContext', arguments: args });
        const data = result.structuredContent as Context;
        const score = (c: Context) => c.timeline.length + c.changes.length + c.other_open.length;
        if (!best || score(data) > score(best.data)) best = { args, result, data };
      }
      assert.ok(best, 'the sandbox has acknowledged incidents');
      const { args, result, data } = best;
      const stamped = (lines: string[]) => lines.filter((line) => /^\d{4}-\d\d-\d\dT\S+ /.test(line));
      assert.ok(stamped(data.timeline).length >= 2 && data.changes.length >= 1 && data.other_open.length >= 1, JSON.stringify(data));

      const { page, blocked } = await show(browser, html, args, result, 760);
      const view = page.frameLocator('iframe');
      const heading = await view.locator('h1').innerText();
      assert.ok(heading.includes(`#${data.incident.number} ${data.incident.title}`), heading);
      assert.equal(await view.locator(`h1 .badge.${data.incident.status}`).innerText(), data.incident.status);
      assert.equal(await view.locator('h1 .badge.acknowledged').evaluate(background), 'rgb(191, 135, 0)', 'acknowledged is amber');

      // The chart: one mark per key event and per change, left to right in time order.
      const events = view.locator('.chart .mark.event');
      assert.equal(await events.count(), stamped(data.timeline).length, 'one mark per key event');
      assert.equal(await view.locator('.chart .mark.change').count(), stamped(data.changes).length, 'one mark per change');
      const marks = await view.locator('.chart .mark').evaluateAll((nodes) =>
        nodes.map((node) => ({ left: (node as unknown as Styled).getBoundingClientRect().left, title: (node as unknown as { title: string }).title })),
      );
      const when = (title: string) => Date.parse(/\d{4}-\d\d-\d\dT\S+/.exec(title)![0]);
      const byTime = marks.slice().sort((a, b) => when(a.title) - when(b.title));
      for (let i = 1; i < byTime.length; i++) {
        if (when(byTime[i]!.title) > when(byTime[i - 1]!.title)) assert.ok(byTime[i]!.left > byTime[i - 1]!.left, `later is further right: ${byTime[i]!.title}`);
      }
      // GetIncidentContext gives its times in UTC: the chart's ticks are UTC, and say so.
      assert.equal(await view.locator('h2 .zone').innerText(), 'UTC');
      const chartTicks = await view.locator('.chart .tick').evaluateAll((nodes) => nodes.map((node) => ({ at: (node as unknown as { dataset: { at: string } }).dataset.at, text: (node as unknown as { textContent: string }).textContent })));
      assert.equal(chartTicks.length, 3);
      for (const tick of chartTicks) assert.equal(tick.text, tick.at.slice(5, 16).replace('T', ' '));
      const trigger = view.locator('.chart .mark.event.trigger').first();
      assert.equal(await trigger.evaluate(background), 'rgb(207, 34, 46)', 'the trigger is red');

      const items = (part: string) => view.locator(`ul[data-part="${part}"] li`).allInnerTexts();
      const spaced = (lines: string[]) => lines.map((line) => line.replace(/^(\S+) /, '$1 ').trim());
      assert.deepEqual(spaced(await items('on_call_now')), data.on_call_now, 'on call now, each level');
      assert.equal((await items('changes')).length, data.changes.length);
      assert.deepEqual(await items('other_open'), data.other_open, 'related incidents');
      // What else breaks: the services around its own, as the answer lists them (a list only when there are any).
      assert.ok(data.depends_on.length + data.depended_on_by.length > 0, 'the sandbox graph gives the incident neighbours');
      for (const part of ['depends_on', 'depended_on_by'] as const) assert.deepEqual(data[part].length ? await items(part) : [], data[part], part);
      assert.deepEqual(blocked, [], 'the view loads nothing');
      await screenshot(page, 'incident-view');
    } finally {
      await client.close();
    }
  });

  // The same views through Streamable HTTP, for a 2025-era and a 2026-07-28 client.
  for (const { era, options } of [
    { era: 'legacy', options: {} },
    { era: 'modern', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  ] as const) {
    it(`the three views render from real calls over Streamable HTTP for a ${era} client`, async () => {
      const key = 'views-browser-key-0123456789abcdef';
      const http = await serveOverHttp({
        host: '127.0.0.1',
        port: 0,
        logger: silentLogger,
        serverKey: key,
        mounts: [
          { path: '/mcp', server: incidentOpsServerFor(sandbox, { now: () => PINNED }) },
          { path: '/canvas', server: canvasApiServerFor(sandbox.canvasapi) },
        ],
      });
      const client = new Client({ name: 'views-browser', version: '1' }, options);
      // A host that shows views says so (the board view's data is sent to such clients).
      const boardClient = new Client({ name: 'views-browser', version: '1' }, { ...options, capabilities: { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } } });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp?toolsets=tasks,incidents`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
        assert.equal(client.getProtocolEra(), era);
        const coverageArgs = { service_id: 'payments', until: '2026-05-08T12:00:00Z' };
        const coverage = await client.callTool({ name: 'IncidentOps.WhoIsOnCall', arguments: coverageArgs });
        const levels = (coverage.structuredContent as { escalation_policies: { levels: unknown[] }[] }).escalation_policies.flatMap((policy) => policy.levels);
        const one = await show(browser, await viewOf(client, 'IncidentOps.WhoIsOnCall'), coverageArgs, coverage, 420);
        assert.equal(await one.page.frameLocator('iframe').locator('.level').count(), levels.length);
        assert.equal(await one.page.frameLocator('iframe').locator('.gap').count(), 1);
        assert.deepEqual(one.blocked, []);
        await one.page.close();

        const listed = await client.callTool({ name: 'IncidentOps.ListIncidents', arguments: { status: 'acknowledged', limit: 1 } });
        const incidentArgs = { incident_id: (listed.structuredContent as { incidents: { id: string }[] }).incidents[0]!.id };
        const context = await client.callTool({ name: 'IncidentOps.GetIncidentContext', arguments: incidentArgs });
        const data = context.structuredContent as { incident: { title: string }; timeline: string[] };
        const two = await show(browser, await viewOf(client, 'IncidentOps.GetIncidentContext'), incidentArgs, context, 760);
        assert.ok((await two.page.frameLocator('iframe').locator('h1').innerText()).includes(data.incident.title));
        assert.equal(await two.page.frameLocator('iframe').locator('.chart .mark.event').count(), data.timeline.filter((line) => /^\d{4}-/.test(line)).length);
        assert.deepEqual(two.blocked, []);
        await two.page.close();

        // The board view: ViewBoard on a demo board, every item it drew drawn again as SVG.
        await boardClient.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/canvas?toolsets=tasks`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
        assert.equal(boardClient.getProtocolEra(), era);
        const boards = await sandboxBoards(sandbox);
        const boardArgs = { board_id: boards.find((board) => board.name === 'Sprint 42 Retrospective')!.id, max_side: 600 };
        const picture = await boardClient.callTool({ name: 'CanvasApi.ViewBoard', arguments: boardArgs });
        const boardData = picture._meta?.['io.github.toolservers/board'] as { items: { id: string }[] } | undefined;
        assert.ok(boardData && boardData.items.length > 0, 'the result carries the board view data');
        const three = await show(browser, await viewOf(boardClient, 'CanvasApi.ViewBoard'), boardArgs, picture, 560);
        const drawn = await three.page.frameLocator('iframe').locator('.canvas > svg g[data-id]').count();
        assert.equal(drawn, boardData.items.length);
        assert.deepEqual(three.blocked, []);
        await three.page.close();
      } finally {
        await client.close();
        await boardClient.close();
        await http.close();
      }
    });
  }
});
