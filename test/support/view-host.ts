/**
 * A minimal MCP Apps host for the views' browser tests (views-browser, board-view-browser): an
 * iframe for the view and the App SDK's AppBridge on it, bundled for the browser by esbuild; the
 * view shown with a call's input and result, every request it makes recorded.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export type Browser = Awaited<ReturnType<(typeof import('playwright-core'))['chromium']['launch']>>;
export type Page = Awaited<ReturnType<Browser['newPage']>>;

let script: Promise<string> | undefined;

/** The test host: an iframe for the view and an AppBridge on it, bundled for the browser (once). */
export function hostScript(): Promise<string> {
  script ??= (async () => {
    const { build } = await import('esbuild');
    const source = `
      import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
      window.showView = (html, args, result, height) => new Promise((resolve) => {
        const frame = document.createElement('iframe');
        frame.setAttribute('sandbox', 'allow-scripts');
        frame.style.cssText = 'width: 1000px; border: 0; height: ' + height + 'px';
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
  return script;
}

/** Shows the view with the call's input and result in a host page; records any request it makes. */
export async function show(browser: Browser, html: string, args: unknown, result: unknown, height: number): Promise<{ page: Page; blocked: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1040, height: height + 60 } });
  const blocked: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith('about:') && !request.url().startsWith('data:')) blocked.push(request.url());
  });
  await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
  await page.addScriptTag({ content: await hostScript() });
  await page.evaluate(([h, a, r, x]) => (globalThis as unknown as { showView: (...x: unknown[]) => Promise<string> }).showView(h, a, r, x), [html, args, result, height] as const);
  await page.frameLocator('iframe').locator('body[data-rendered="true"]').waitFor();
  return { page, blocked };
}

/** Saves the page as build/test-artifacts/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<Buffer> {
  mkdirSync(`${ROOT}build/test-artifacts`, { recursive: true });
  return page.screenshot({ path: `${ROOT}build/test-artifacts/${name}.png` });
}
