/**
 * Views for people (MCP Apps, SEP-1865): a tool may name a view, a self-contained HTML page the
 * client shows with the tool's result. tools/list then carries only the link
 * (`_meta.ui.resourceUri`); the page is a `ui://toolservers/<view>.html` resource whose HTML is read
 * from disk on its first `resources/read`, never at start. Results are the same for every client:
 * those without MCP Apps see exactly the text they always did.
 * The HTML files are built by scripts/build-views.mjs from views/ (docs/views.md).
 */
import { readFile } from 'node:fs/promises';
import type { McpServer } from '@modelcontextprotocol/server';
import type { AnyToolDefinition, ViewName } from './tool.js';

/** The MCP Apps resource type (the package's RESOURCE_MIME_TYPE, copied so that start-up does not load it; a test compares them). */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
export { VIEW_NAMES, type ViewName } from './tool.js';

export function viewUri(view: ViewName): string {
  return `ui://toolservers/${view}.html`;
}

/** The listing's link for a tool with a view (contract tools never have one: their listing is the contract's). */
export function viewMeta(tool: AnyToolDefinition): { ui: { resourceUri: string } } | undefined {
  if (!tool.view) return undefined;
  if (!tool.beyondContract) throw new Error(`${tool.name}: only tools beyond the contract may have a view`);
  return { ui: { resourceUri: viewUri(tool.view) } };
}

// The built views sit beside the code: build/views/ for build/src/core/tools/views.js; in the bundle
// (and the .mcpb's server/), views/ beside cli.js, whether this code lands in cli.js or in chunks/.
const HTML_PLACES = ['../../../views/', '../views/', './views/'];
const loaded = new Map<ViewName, Promise<string>>();

/** A view's HTML, read once per process on first use (a failed read is tried again next time). */
export function viewHtml(view: ViewName): Promise<string> {
  let html = loaded.get(view);
  if (!html) {
    html = (async () => {
      for (const place of HTML_PLACES) {
        try {
          return await readFile(new URL(`${place}${view}.html`, import.meta.url), 'utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      throw new Error(`view ${view} is not built (run node scripts/build-views.mjs)`);
    })();
    html.catch(() => loaded.delete(view));
    loaded.set(view, html);
  }
  return html;
}

/**
 * Registers the resources of the views that the listed tools name (none: nothing registered, and
 * no resources capability appears). The HTML is read on resources/read only.
 */
export function registerViews(mcp: McpServer, tools: readonly AnyToolDefinition[]): void {
  const views = new Set(tools.flatMap((tool) => (tool.view && tool.beyondContract ? [tool.view] : [])));
  for (const view of views) {
    const uri = viewUri(view);
    // No csp origins: the view loads nothing from outside, so hosts apply their strictest policy.
    const meta = { ui: { csp: {}, prefersBorder: true } };
    mcp.registerResource(`view-${view}`, uri, { title: `${view} view`, mimeType: VIEW_MIME_TYPE, _meta: meta }, async () => ({
      contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: await viewHtml(view), _meta: meta }],
    }));
  }
}
