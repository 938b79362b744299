#!/usr/bin/env node
/**
 * The pictures of docs/ and the README, made from real calls, never drawn by hand:
 * `npx tsc -p tsconfig.test.json && node scripts/bundle.mjs && node scripts/pictures.mjs [--out DIR]`
 * (default docs/pictures/). It starts the sandbox with the tests' pinned clock, calls each tool over
 * MCP, and saves either the tool's view (MCP Apps) rendered in Chromium inside an AppBridge host
 * (test/support/view-host.ts, as the browser test shows it) or the image block the answer carries
 * (ViewBoard). One entry of PICTURES per picture; Chromium is found as the tests find it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = (file) => import(path.join(root, 'build', file));
/** The tests' pinned clock: the sandbox's on-call shifts and incidents are laid out around it. */
const PINNED = new Date('2026-05-06T12:00:00Z');
/** Kept small for the repository. */
const MAX_BYTES = 200 * 1024;

/**
 * Each picture: its file, the server and the toolsets its calls need, the tool and its arguments
 * (a function of the sandbox's demo content: `call` another tool, `boardNamed`), and `view` (the
 * tool's MCP Apps view at width × height) or `image` (the answer's image block). A new view is one
 * more entry.
 */
export const PICTURES = [
  {
    file: 'coverage-view.png',
    server: 'incidentops',
    toolsets: ['tasks', 'incidents'],
    tool: 'IncidentOps.WhoIsOnCall',
    args: async () => ({ service_id: 'payments', until: '2026-05-08T12:00:00Z', time_zone: 'Europe/Berlin' }),
    view: { width: 860, height: 240 },
  },
  {
    file: 'incident-view.png',
    server: 'incidentops',
    toolsets: ['tasks', 'incidents'],
    tool: 'IncidentOps.GetIncidentContext',
    args: async ({ call }) => ({ incident_id: await incidentWithMostContext(call) }),
    view: { width: 860, height: 690 },
  },
  {
    file: 'board-view.png',
    server: 'canvasapi',
    toolsets: ['tasks', 'boards'],
    tool: 'CanvasApi.ViewBoard',
    args: async ({ boardNamed }) => ({ board_id: await boardNamed('Sprint 42 Retrospective'), max_side: 900 }),
    view: { width: 860, height: 560 },
  },
  {
    file: 'viewboard.png',
    server: 'canvasapi',
    toolsets: ['tasks', 'boards'],
    tool: 'CanvasApi.ViewBoard',
    args: async ({ boardNamed }) => ({ board_id: await boardNamed('Sprint 42 Retrospective'), max_side: 900 }),
    image: true,
  },
];

/** The acknowledged incident whose context shows the most (events, changes, related incidents); the first such on a tie. */
async function incidentWithMostContext(call) {
  const listed = await call('IncidentOps.ListIncidents', { status: 'acknowledged', limit: 10 });
  let best;
  for (const { id } of listed.structuredContent.incidents) {
    const data = (await call('IncidentOps.GetIncidentContext', { incident_id: id })).structuredContent;
    const score = data.timeline.length + data.changes.length + data.other_open.length;
    if (!best || score > best.score) best = { id, score };
  }
  if (!best) throw new Error('the sandbox has no acknowledged incident');
  return best.id;
}

export async function makePictures(outDir, pictures = PICTURES) {
  const [{ startTestSandbox, incidentOpsServerFor, canvasApiServerFor }, host, { CHROMIUM, NO_CHROMIUM }] = await Promise.all([
    built('test/support/harness.js'),
    built('test/support/view-host.js'),
    built('test/support/chromium.js'),
  ]);
  if (!CHROMIUM) throw new Error(NO_CHROMIUM);
  mkdirSync(outDir, { recursive: true });
  const sandbox = await startTestSandbox({ incidentops: { now: () => PINNED }, canvasapi: { now: () => PINNED } });
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const saved = [];
  try {
    for (const picture of pictures) {
      const server = picture.server === 'incidentops' ? incidentOpsServerFor(sandbox, { now: () => PINNED }) : canvasApiServerFor(sandbox.canvasapi, { now: () => PINNED });
      const client = await host.toolsetsClient(server, picture.toolsets);
      try {
        const call = async (name, args) => {
          const result = await client.callTool({ name, arguments: args });
          if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
          return result;
        };
        const boardNamed = async (name) => {
          const boards = (await call('CanvasApi.RetrieveUserBoards', { maximum_number_of_boards: '50' })).structuredContent.data;
          const board = boards.find((candidate) => candidate.name === name);
          if (!board) throw new Error(`no demo board named ${name}`);
          return board.id;
        };
        const args = await picture.args({ call, boardNamed });
        const result = await call(picture.tool, args);
        let png;
        if (picture.image) {
          const image = result.content.find((block) => block.type === 'image');
          if (image?.mimeType !== 'image/png') throw new Error(`${picture.tool} gave no PNG`);
          png = Buffer.from(image.data, 'base64');
        } else {
          const html = await host.viewOf(client, picture.tool);
          const { page, blocked } = await host.showView(browser, html, args, result, picture.view.height, picture.view.width);
          if (blocked.length) throw new Error(`the view asked for ${blocked.join(', ')}`);
          png = await page.locator('iframe').screenshot();
          await page.close();
        }
        if (png.length > MAX_BYTES) throw new Error(`${picture.file} is ${png.length} bytes, over ${MAX_BYTES}: make it smaller`);
        writeFileSync(path.join(outDir, picture.file), png);
        saved.push({ file: picture.file, bytes: png.length });
      } finally {
        await client.close();
      }
    }
  } finally {
    await browser.close();
    await sandbox.close();
  }
  return saved;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  for (const { file, bytes } of await makePictures(path.resolve(values.out ?? path.join(root, 'docs', 'pictures')))) {
    process.stdout.write(`${file} ${(bytes / 1024).toFixed(0)} KB\n`);
  }
}
