/**
 * What a tool's view (MCP Apps, views.ts) needs beyond the answer, e.g. the board view's item
 * geometry: attached to the result data under a symbol the JSON never shows, and sent by the core
 * in the result's `_meta` under `io.github.toolservers/<view>`, only to clients that declared the
 * MCP Apps extension. So the text and structuredContent the model reads never change, the result
 * budget never counts or cuts it, and clients without MCP Apps get exactly today's result.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';

export const RESULT_VIEW_DATA: unique symbol = Symbol('result view data');

/** The MCP Apps extension's ID in the client's capabilities (the package's EXTENSION_ID, copied so that start-up does not load it; a test compares them). */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/** A view's data past this many bytes of JSON is not sent at all (the tools bound theirs well below: docs/tasks.md). */
export const VIEW_DATA_MAX_BYTES = 512 * 1024;

/**
 * The data with its view's data attached (not enumerable: a copy of the data, e.g. marked as
 * untrusted, leaves it behind). Made by `build` only for a client that shows views: the others pay nothing.
 */
export function withViewData<T extends object>(data: T, build: () => Record<string, unknown>): T {
  Object.defineProperty(data, RESULT_VIEW_DATA, { value: build, enumerable: false, configurable: true });
  return data;
}

export function viewDataOf(data: object): Record<string, unknown> | undefined {
  return (data as { [RESULT_VIEW_DATA]?: () => Record<string, unknown> })[RESULT_VIEW_DATA]?.();
}

/** Whether the client declared MCP Apps (SEP-1865): `capabilities.extensions["io.modelcontextprotocol/ui"]`. */
export function clientShowsViews(capabilities: unknown): boolean {
  if (typeof capabilities !== 'object' || capabilities === null) return false;
  const extensions = (capabilities as { extensions?: unknown }).extensions;
  if (typeof extensions !== 'object' || extensions === null) return false;
  const ui = (extensions as Record<string, unknown>)[UI_EXTENSION_ID];
  return typeof ui === 'object' && ui !== null;
}

/** The result key a view's data goes under. */
export function viewDataKey(view: string): string {
  return `io.github.toolservers/${view}`;
}

/** The result with the view's data in its `_meta` (unchanged when there is none, or it is over the bound). */
export function withViewMeta(result: CallToolResult, view: string, viewData: Record<string, unknown> | undefined): CallToolResult {
  if (!viewData || result.isError) return result;
  const json = JSON.stringify(viewData);
  if (Buffer.byteLength(json) > VIEW_DATA_MAX_BYTES) return result;
  return { ...result, _meta: { ...result._meta, [viewDataKey(view)]: viewData } };
}
