/**
 * A minimal MCP Apps host in real Chromium, shared by test/views-browser.test.ts and
 * scripts/pictures.mjs: the view's page in a `sandbox="allow-scripts"` srcdoc iframe, an AppBridge
 * (the App SDK's host side, bundled for the browser by esbuild) on it sending the call's input then
 * its result. Also the client side: a tool's view found as a client finds it.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { buildMcpServer, viewFor, type AnyToolServer } from '../../src/core/tools/registry.js';
import { VIEW_MIME_TYPE } from '../../src/core/tools/views.js';
import { UI_EXTENSION_ID } from '../../src/core/tools/result-view.js';
import { assertSelfContained } from './views.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export type Browser = Awaited<ReturnType<(typeof import('playwright-core'))['chromium']['launch']>>;
export type Page = Awaited<ReturnType<Browser['newPage']>>;

let bundled: Promise<string> | undefined;
/** The host page's script: an iframe for the view and an AppBridge on it, bundled once per process. */
export function hostScript(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import('esbuild');
    const source = `
      import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
      window.showView = (html, args, result, width, height) => new Promise((resolve) => {
        const frame = document.createElement('iframe');
        frame.setAttribute('sandbox', 'allow-scripts');
        frame.style.cssText = 'display: block; border: 0; width: ' + width + 'px; height: ' + height + 'px';
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
  })();
  return bundled;
}

/** A client on a server's chosen toolsets, in memory, declaring MCP Apps as a host that shows views does. */
export async function toolsetsClient(server: AnyToolServer, toolsets: string[]): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(viewFor(server, { selections: [{ toolsets }] })).connect(serverSide);
  const client = new Client({ name: 'views-host', version: '1' }, { capabilities: { extensions: { [UI_EXTENSION_ID]: { mimeTypes: [VIEW_MIME_TYPE] } } } });
  await client.connect(clientSide);
  return client;
}

/** The tool's view as a client finds it: the listing's link, then the page (checked self-contained). */
export async function viewOf(client: Client, toolName: string): Promise<string> {
  const { tools } = await client.listTools();
  const uri = (tools.find((listed) => listed.name === toolName)?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  assert.ok(uri, `${toolName} links a view`);
  const content = (await client.readResource({ uri })).contents[0] as { mimeType?: string; text?: string };
  assert.equal(content.mimeType, VIEW_MIME_TYPE);
  assertSelfContained(content.text ?? '');
  return content.text ?? '';
}

/** Shows the view with the call's input and result in a host page (the view `width` × `height`); records any request it makes. */
export async function showView(browser: Browser, html: string, args: unknown, result: unknown, height: number, width = 1000): Promise<{ page: Page; blocked: string[] }> {
  const page = await browser.newPage({ viewport: { width: width + 40, height: height + 60 } });
  const blocked: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('about:') && !request.url().startsWith('data:')) blocked.push(request.url());
  });
  await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
  await page.addScriptTag({ content: await hostScript() });
  await page.evaluate(([h, a, r, w, x]) => (globalThis as unknown as { showView: (...x: unknown[]) => Promise<string> }).showView(h, a, r, w, x), [html, args, result, width, height] as const);
  await page.frameLocator('iframe').locator('body[data-rendered="true"]').waitFor();
  return { page, blocked };
}

/** Saves the page as build/test-artifacts/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(`${ROOT}build/test-artifacts`, { recursive: true });
  return page.screenshot({ path: `${ROOT}build/test-artifacts/${name}.png` });
}
