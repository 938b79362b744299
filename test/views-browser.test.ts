/**
 * The coverage view (MCP Apps) as a person sees it: a real WhoIsOnCall call with `until` on the
 * sandbox, over MCP (tools/list's _meta.ui link, resources/read of the view), shown in real
 * Chromium inside a minimal host built on the App SDK's AppBridge. Checks the rows per level, the
 * red gap, the override's mark; saves a screenshot (build/test-artifacts/). Skipped, with a
 * message, when no chromium is installed or the views are not built.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { buildMcpServer, viewFor } from '../src/core/tools/registry.js';
import { VIEW_MIME_TYPE } from '../src/core/tools/views.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { incidentOpsServerFor, startTestSandbox } from './support/harness.js';
import { CHROMIUM, NO_CHROMIUM } from './support/chromium.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = existsSync(`${ROOT}build/views/coverage.html`);
const skip = !CHROMIUM ? NO_CHROMIUM : !BUILT ? 'views not built (node scripts/build-views.mjs)' : false;
const PINNED = new Date('2026-05-06T12:00:00Z');

/** The test host: an iframe for the view and an AppBridge on it, bundled for the browser. */
async function hostScript(): Promise<string> {
  const { build } = await import('esbuild');
  const source = `
    import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
    window.showView = (html, args, result) => new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', 'allow-scripts');
      frame.style.cssText = 'width: 1000px; height: 420px; border: 0';
      document.body.append(frame);
      const bridge = new AppBridge(null, { name: 'test-host', version: '1' }, {});
      bridge.oninitialized = async () => {
        await bridge.sendToolInput({ arguments: args });
        await bridge.sendToolResult(result);
        resolve('sent');
      };
      frame.srcdoc = html;
      bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
    });`;
  const out = await build({ stdin: { contents: source, resolveDir: ROOT, loader: 'js' }, bundle: true, write: false, format: 'iife', platform: 'browser', logLevel: 'warning' });
  return out.outputFiles[0]!.text;
}

describe('the coverage view in a real browser', { skip }, () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox({ incidentops: { now: () => PINNED } });
  });
  after(async () => {
    await sandbox?.close();
  });

  it('shows one row per level, the gap in red and the override with whom it replaces, from a real call', async () => {
    const server = incidentOpsServerFor(sandbox, { now: () => PINNED });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await buildMcpServer(viewFor(server, { selections: [{ toolsets: ['tasks'] }] })).connect(serverSide);
    const client = new Client({ name: 'views-test', version: '1' });
    await client.connect(clientSide);

    const { tools } = await client.listTools();
    const tool = tools.find((listed) => listed.name === 'IncidentOps.WhoIsOnCall');
    const uri = (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
    assert.equal(uri, 'ui://toolservers/coverage.html');
    const read = await client.readResource({ uri });
    const content = read.contents[0] as { mimeType?: string; text?: string };
    assert.equal(content.mimeType, VIEW_MIME_TYPE);
    const html = content.text ?? '';
    assert.ok(!/<script[^>]+src=|<link[^>]+href=/i.test(html), 'no external script or style');
    assert.ok(html.includes("default-src 'none'"), 'a strict CSP');

    const args = { service_id: 'payments', until: '2026-05-08T12:00:00Z' };
    const result = await client.callTool({ name: 'IncidentOps.WhoIsOnCall', arguments: args });
    const data = result.structuredContent as { escalation_policies: { levels: { level: number; gaps: string[] }[] }[] };
    const levels = data.escalation_policies.flatMap((policy) => policy.levels);
    const gapCount = levels.reduce((sum, level) => sum + level.gaps.length, 0);
    assert.ok(gapCount > 0, 'the sandbox policy has a gap in the window');

    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1040, height: 480 } });
      const blocked: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('about:') && !request.url().startsWith('data:')) blocked.push(request.url());
      });
      await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
      await page.addScriptTag({ content: await hostScript() });
      await page.evaluate(([h, a, r]) => (globalThis as unknown as { showView: (...x: unknown[]) => Promise<string> }).showView(h, a, r), [html, args, result] as const);
      const view = page.frameLocator('iframe');
      await view.locator('body[data-rendered="true"]').waitFor();

      assert.equal(await view.locator('.level').count(), levels.length, 'one row per level');
      for (const level of levels) {
        assert.equal(await view.locator(`.level[data-level="${level.level}"] .gap`).count(), level.gaps.length, `level ${level.level}'s gaps`);
      }
      const gapColour = await view.locator('.gap').first().evaluate((node) => (globalThis as unknown as { getComputedStyle: (n: unknown) => { backgroundColor: string } }).getComputedStyle(node).backgroundColor);
      assert.equal(gapColour, 'rgb(220, 0, 0)', 'gaps are red');
      const gapWidth = await view.locator('.gap').first().evaluate((node) => (node as unknown as { getBoundingClientRect: () => { width: number } }).getBoundingClientRect().width);
      assert.ok(gapWidth > 50, `the 10 h gap of 48 h is wide enough to see (${gapWidth} px)`);
      const override = view.locator('.shift.override');
      assert.equal(await override.count(), 1);
      assert.match(await override.locator('.replaces').innerText(), /replaces Sean Rahman/);
      assert.equal(await view.locator('.level[data-level="1"] .shift.override').count(), 1, 'the override is on level 1');
      assert.deepEqual(blocked, [], 'the view loads nothing');

      mkdirSync(`${ROOT}build/test-artifacts`, { recursive: true });
      await page.screenshot({ path: `${ROOT}build/test-artifacts/coverage-view.png` });
    } finally {
      await browser.close();
      await client.close();
    }
  });
});
