/**
 * The board view (MCP Apps) as a person sees it: real ReadBoard, ViewBoard and CreateDiagram calls
 * on the sandbox from a client that declares MCP Apps, the view read through the tool's `_meta.ui`
 * link and shown in real Chromium inside a host built on the App SDK's AppBridge
 * (support/view-host.ts). Checked: one drawn item per item of the view's data, which are the
 * answer's items; ViewBoard's sticky colours at the places the items occupy (sampled from a
 * screenshot); a click shows the item's text, ID and link; drag pans and wheel and buttons zoom
 * (the SVG's viewBox); nothing is fetched. Screenshot: build/test-artifacts/board-view.png.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { buildMcpServer, viewFor } from '../src/core/tools/registry.js';
import { VIEW_MIME_TYPE } from '../src/core/tools/views.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, startTestSandbox, sandboxBoards } from './support/harness.js';
import { assertSelfContained } from './support/views.js';
import { platform } from './support/sandbox-board.js';
import { htmlLines } from './support/svg-text.js';
import { CHROMIUM, NO_CHROMIUM } from './support/chromium.js';
import { screenshot, showView as show, type Browser, type Page } from './support/view-host.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const skip = !CHROMIUM ? NO_CHROMIUM : !existsSync(`${ROOT}build/views/board.html`) ? 'views not built (node scripts/build-views.mjs)' : false;
const KEY = 'io.github.toolservers/board';
const HEIGHT = 620;
/** The first token of each answer line: the item's ID. */
const idsOf = (lines: string[]) => lines.map((line) => line.slice(0, line.indexOf(' ')));
const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/** Page coordinates of board points, through the view's SVG (its scale and origin, its screen matrix) and the iframe's place. */
async function onPage(page: Page, points: { x: number; y: number }[]): Promise<{ x: number; y: number }[]> {
  const frame = (await page.locator('iframe').boundingBox())!;
  const svg = page.frameLocator('iframe').locator('.canvas > svg');
  const inFrame = await svg.evaluate((node: J, pts: { x: number; y: number }[]) => {
    const scale = Number(node.dataset.scale);
    const x0 = Number(node.dataset.x0);
    const y0 = Number(node.dataset.y0);
    const matrix = node.getScreenCTM();
    return pts.map((p) => {
      const q = node.createSVGPoint();
      q.x = (p.x - x0) * scale;
      q.y = (p.y - y0) * scale;
      const r = q.matrixTransform(matrix);
      return { x: r.x, y: r.y };
    });
  }, points);
  return inFrame.map((p) => ({ x: frame.x + p.x, y: frame.y + p.y }));
}

const viewBoxOf = async (page: Page) => (await page.frameLocator('iframe').locator('.canvas > svg').getAttribute('viewBox'))!.split(' ').map(Number) as [number, number, number, number];

describe('the board view in a real browser', { skip }, () => {
  let sandbox: RunningSandbox;
  let browser: Browser;
  let client: Client;
  let html: string;
  let boards: J[];
  before(async () => {
    sandbox = await startTestSandbox();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await buildMcpServer(viewFor(canvasApiServerFor(sandbox.canvasapi), { selections: [{ toolsets: ['tasks'] }] })).connect(serverSide);
    client = new Client({ name: 'board-view-browser', version: '1' }, { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    const uris = ['CanvasApi.ReadBoard', 'CanvasApi.CreateDiagram', 'CanvasApi.ViewBoard'].map((name) => (tools.find((tool) => tool.name === name)?._meta?.ui as J)?.resourceUri);
    assert.deepEqual(uris, Array(3).fill('ui://toolservers/board.html'), 'the three tools link the board view');
    const content = (await client.readResource({ uri: uris[0] })).contents[0] as J;
    assert.equal(content.mimeType, VIEW_MIME_TYPE);
    assertSelfContained(content.text);
    html = content.text;
    boards = await sandboxBoards(sandbox);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
  });
  after(async () => {
    await browser?.close();
    await client?.close();
    await sandbox?.close();
  });
  const boardNamed = (name: string) => boards.find((b) => b.name === name).id as string;
  const drawnIds = (page: Page) => page.frameLocator('iframe').locator('.canvas > svg g[data-id]').evaluateAll((nodes) => nodes.map((node) => (node as unknown as { getAttribute: (n: string) => string }).getAttribute('data-id')));

  it('ViewBoard: every item drawn, stickies in their colours where they are, a click shows text, ID and link, drag pans, wheel and buttons zoom', async () => {
    const args = { board_id: boardNamed('Sprint 42 Retrospective') };
    const result = await client.callTool({ name: 'CanvasApi.ViewBoard', arguments: args });
    const answer = result.structuredContent as J;
    const data = result._meta![KEY] as J;
    assert.equal(data.items.length, answer.items, 'the data holds the items drawn in the PNG');
    const { page, blocked } = await show(browser, html, args, result, HEIGHT);
    const view = page.frameLocator('iframe');
    assert.deepEqual((await drawnIds(page)).sort(), data.items.map((item: J) => item.id).sort(), 'one drawn item per item');

    // Colours: each sticky near its top-left corner, inside the margin the builder keeps free of text.
    const stickies = data.items.filter((item: J) => item.type === 'sticky_note');
    assert.ok(stickies.length >= 4);
    const points = await onPage(page, stickies.map((s: J) => ({ x: s.x - s.width * 0.42, y: s.y - s.height * 0.42 })));
    const shot = PNG.sync.read(await page.screenshot());
    stickies.forEach((sticky: J, i: number) => {
      const { x, y } = points[i]!;
      const at = (Math.round(y) * shot.width + Math.round(x)) * 4;
      const seen = [shot.data[at]!, shot.data[at + 1]!, shot.data[at + 2]!];
      const want = rgb(sticky.fill);
      assert.ok(seen.every((v, c) => Math.abs(v - want[c]!) <= 8), `sticky ${sticky.id}: ${sticky.fill} wanted, ${seen} seen at ${x},${y}`);
    });

    // A click on a sticky's centre: its text, ID and the item link.
    const chosen = stickies[0];
    const [centre] = await onPage(page, [{ x: chosen.x, y: chosen.y }]);
    await page.mouse.click(centre!.x, centre!.y);
    assert.equal(await view.locator('.panel').getAttribute('data-selected'), chosen.id);
    assert.equal(await view.locator('.panel dd[data-part="id"]').innerText(), chosen.id);
    assert.equal(await view.locator('.panel dd[data-part="text"]').textContent(), chosen.text);
    const link = data.link_template.replace('{item_id}', chosen.id);
    assert.equal(await view.locator('.panel dd[data-part="link"] a').getAttribute('href'), link);
    assert.match(link, /\/app\/board\/.+\/\?moveToWidget=\d+$/);

    // Pan: a drag moves the viewBox by the distance in SVG units, and selects nothing new.
    const before = await viewBoxOf(page);
    const unitsPerPx = await view.locator('.canvas > svg').evaluate((node: J) => 1 / node.getScreenCTM().a);
    await page.mouse.move(centre!.x, centre!.y);
    await page.mouse.down();
    await page.mouse.move(centre!.x + 60, centre!.y + 30, { steps: 5 });
    await page.mouse.move(centre!.x + 120, centre!.y + 60, { steps: 5 });
    await page.mouse.up();
    const panned = await viewBoxOf(page);
    assert.ok(Math.abs(panned[0] - (before[0] - 120 * unitsPerPx)) < 2 && Math.abs(panned[1] - (before[1] - 60 * unitsPerPx)) < 2, `${before} → ${panned}`);
    assert.equal(panned[2], before[2], 'panning keeps the zoom');
    assert.equal(await view.locator('.panel').getAttribute('data-selected'), chosen.id, 'a drag is not a click');
    // Zoom: the wheel zooms in around the pointer, + and − by a step, Fit shows the whole region.
    await page.mouse.move(centre!.x, centre!.y);
    await page.mouse.wheel(0, -100);
    const wheeled = await viewBoxOf(page);
    assert.ok(Math.abs(wheeled[2] - panned[2] / 1.25) < 0.5, `${panned} → ${wheeled}`);
    await view.locator('button[data-zoom="in"]').click();
    const zoomed = await viewBoxOf(page);
    assert.ok(Math.abs(zoomed[2] - wheeled[2] / 1.25) < 0.5);
    await view.locator('button[data-zoom="out"]').click();
    assert.ok(Math.abs((await viewBoxOf(page))[2] - wheeled[2]) < 0.5);
    await view.locator('button[data-zoom="fit"]').click();
    assert.deepEqual(await viewBoxOf(page), [0, 0, before[2], before[3]]);
    await page.mouse.click(centre!.x, centre!.y);
    assert.deepEqual(blocked, [], 'the view loads nothing');
    await screenshot(page, 'board-view');
    await page.close();
  });

  it('ReadBoard: the answer’s frames and items drawn, each clickable for its text, ID and link', async () => {
    const args = { board_id: boardNamed('Q3 Launch Plan') };
    const result = await client.callTool({ name: 'CanvasApi.ReadBoard', arguments: args });
    const answer = result.structuredContent as J;
    const data = result._meta![KEY] as J;
    const answered = new Set([...idsOf(answer.frames), ...idsOf(answer.items)]);
    assert.equal(data.items.length, answered.size);
    const { page, blocked } = await show(browser, html, args, result, HEIGHT);
    const view = page.frameLocator('iframe');
    assert.deepEqual(new Set(await drawnIds(page)), answered, 'one drawn item per frame and item of the answer');
    assert.equal((await drawnIds(page)).length, answered.size);
    // A non-frame item, clicked at its centre.
    const item = data.items.find((i: J) => i.type !== 'frame' && i.text);
    const [centre] = await onPage(page, [{ x: item.x, y: item.y }]);
    await page.mouse.click(centre!.x, centre!.y);
    assert.equal(await view.locator('.panel').getAttribute('data-selected'), item.id);
    assert.equal(await view.locator('.panel dd[data-part="id"]').innerText(), item.id);
    const line = answer.items.find((l: string) => l.startsWith(`${item.id} `));
    assert.ok(line.endsWith(`: ${JSON.stringify(await view.locator('.panel dd[data-part="text"]').textContent())}`), `${line} ends with the text shown`);
    assert.equal(await view.locator('.panel dd[data-part="link"] a').getAttribute('href'), answer.item_link.replace('{item_id}', item.id));
    assert.deepEqual(blocked, []);
    await page.close();
  });

  it('CreateDiagram: the frame, nodes and connectors it created', async () => {
    const args = {
      board_id: boardNamed('Payments Architecture'),
      mermaid: 'flowchart LR\n  a[Request] --> b{Valid?}\n  b -->|yes| c(Charge)\n  b -->|no| d[Refuse]',
      frame_title: 'Board view test',
      origin_x: 9_000,
      origin_y: 9_000,
    };
    const result = await client.callTool({ name: 'CanvasApi.CreateDiagram', arguments: args });
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const answer = result.structuredContent as J;
    const created = [answer.frame.id, ...Object.values(answer.node_items)];
    const { page, blocked } = await show(browser, html, args, result, HEIGHT);
    assert.deepEqual((await drawnIds(page)).sort(), created.sort());
    // Connectors: one path (with its head) per connector, outside the items' groups.
    const data = result._meta![KEY] as J;
    assert.equal(data.connectors.length, answer.connector_items.length);
    assert.deepEqual(blocked, []);
    await page.close();
  });
  it('CreateDiagram: a class box shows one line per member, left-aligned from the box\'s left padding, from its top', async () => {
    const board = boardNamed('Payments Architecture');
    const mermaid = ['classDiagram', '  class Customer {', '    +String name', '    +String custNumber', '    +placeOrder() Order', '  }', '  Customer --> Order'].join('\n');
    const args = { board_id: board, mermaid, origin_x: 15_000, origin_y: 9_000 };
    const result = await client.callTool({ name: 'CanvasApi.CreateDiagram', arguments: args });
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const id = String((result.structuredContent as J).node_items.Customer);
    // The lines its HTML shows on the platform, read back by raw HTTP.
    const expected = htmlLines((await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${id}`)).data.content);
    const { page, blocked } = await show(browser, html, args, result, HEIGHT);
    const drawn = await page.frameLocator('iframe').locator(`.canvas > svg g[data-id="${id}"]`).evaluate((node) => {
      const g = node as unknown as { querySelector: (s: string) => { getBBox: () => { x: number; y: number; width: number; height: number }; getAttribute: (n: string) => string | null; querySelectorAll: (s: string) => ArrayLike<{ textContent: string | null }> } };
      const text = g.querySelector('text');
      const outline = g.querySelector('path');
      // An SVGRect does not cross to the test as JSON: its numbers do.
      const rect = (r: { x: number; y: number; width: number; height: number }) => ({ x: r.x, y: r.y, width: r.width, height: r.height });
      return { size: Number(text.getAttribute('font-size')), anchor: text.getAttribute('text-anchor'), lines: Array.from(text.querySelectorAll('tspan'), (t) => t.textContent), text: rect(text.getBBox()), box: rect(outline.getBBox()) };
    });
    assert.deepEqual(drawn.lines, expected, 'one line per member');
    assert.equal(drawn.anchor, 'start');
    // The ink starts at the left padding (8% of the width), not centred, and in the box's upper part.
    assert.ok(Math.abs(drawn.text.x - (drawn.box.x + 0.08 * drawn.box.width)) <= 2, JSON.stringify(drawn));
    const roomTop = drawn.box.y + 0.08 * drawn.box.height;
    assert.ok(drawn.text.y >= roomTop - 1 && drawn.text.y <= roomTop + 0.3 * drawn.size, JSON.stringify(drawn));
    assert.deepEqual(blocked, []);
    await page.close();
  });
});
