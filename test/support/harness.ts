/** Shared test plumbing: a sandbox, a server pointed at it, and a direct way to call tools. */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { silentLogger } from '../../src/core/logger.js';
import { executeTool, findTool, type AnyToolServer } from '../../src/core/tools/registry.js';
import { RESULT_BUDGET_BYTES } from '../../src/core/tools/result-budget.js';
import { createCanvasApiServer } from '../../src/canvasapi/index.js';
import { resolveCanvasApiSettings, type CanvasApiSettingsInput } from '../../src/canvasapi/settings.js';
import { createIncidentOpsServer } from '../../src/incidentops/index.js';
import { resolveIncidentOpsSettings, type IncidentOpsSettingsInput } from '../../src/incidentops/settings.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/server.js';

/** The sandbox's incident platform read straight over HTTP, as a client of its REST API (status and JSON body). */
export async function incidentOpsRaw(sandbox: RunningSandbox, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${sandbox.incidentops.token}`, Accept: 'application/vnd.pagerduty+json;version=2', 'Content-Type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The same, for an answer that must be 200: its JSON body. */
export async function incidentOpsGet(sandbox: RunningSandbox, path: string): Promise<Record<string, unknown>> {
  const { status, body } = await incidentOpsRaw(sandbox, path);
  if (status !== 200) throw new Error(`${path}: HTTP ${status}`);
  return body;
}

/** The sandbox whiteboard's boards (its demo boards among them), read straight over HTTP: the first 50. */
export async function sandboxBoards(sandbox: RunningSandbox): Promise<{ id: string; name: string }[]> {
  const response = await fetch(`${sandbox.canvasapi.baseUrl}/v2/boards?limit=50`, { headers: { authorization: `Bearer ${sandbox.canvasapi.token}` } });
  return ((await response.json()) as { data: { id: string; name: string }[] }).data;
}

/**
 * A CanvasApi server whose second bulk create fails: `refused` before the platform sees it (HTTP
 * 400), or `lost-answer`: carried out, then answered 502 (so it may exist).
 */
export function canvasApiWithSecondBulkFailing(sandbox: RunningSandbox, mode: 'refused' | 'lost-answer'): AnyToolServer {
  let bulks = 0;
  const faulty = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.endsWith('/items/bulk') && ++bulks === 2) {
      if (mode === 'refused') return new Response(JSON.stringify({ status: 400, code: 'invalidParameters', message: 'Injected refusal', type: 'error' }), { status: 400, headers: { 'content-type': 'application/json' } });
      await fetch(input, init);
      return new Response('bad gateway', { status: 502 });
    }
    return fetch(input, init);
  }) as typeof fetch;
  return canvasApiServerFor(sandbox.canvasapi, { fetch: faulty });
}

export interface ToolOutcome {
  isError: boolean;
  /** structuredContent on success, the parsed error object on failure. */
  data: Record<string, unknown>;
  raw: CallToolResult;
}

export async function callTool(server: AnyToolServer, name: string, args: unknown, signal = new AbortController().signal): Promise<ToolOutcome> {
  const tool = findTool(server, name);
  if (!tool) throw new Error(`no tool ${name}`);
  const raw = await executeTool(server, tool, args, signal);
  return outcomeOf(raw);
}

/** Calls a tool with the sandbox's request log cleared first: the outcome and every request it sent. */
export async function callRecorded(sandbox: RunningSandbox, server: AnyToolServer, name: string, args: unknown): Promise<ToolOutcome & { sent: RunningSandbox['requests'] }> {
  sandbox.clearRequests();
  const outcome = await callTool(server, name, args);
  return { ...outcome, sent: [...sandbox.requests] };
}

export function outcomeOf(raw: CallToolResult): ToolOutcome {
  const first = raw.content[0];
  const text = first && first.type === 'text' ? first.text : '{}';
  // Every result any test sees stays within the context budget.
  if (Buffer.byteLength(text) > RESULT_BUDGET_BYTES) throw new Error(`a tool result of ${Buffer.byteLength(text)} bytes exceeds the ${RESULT_BUDGET_BYTES}-byte budget`);
  if (raw.isError) {
    const parsed = JSON.parse(text) as { error: Record<string, unknown> };
    return { isError: true, data: parsed.error, raw };
  }
  return { isError: false, data: (raw.structuredContent ?? JSON.parse(text)) as Record<string, unknown>, raw };
}

export async function startTestSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ port: 0, ...options });
}

export function incidentOpsServerFor(sandbox: RunningSandbox | undefined, overrides: IncidentOpsSettingsInput & { fetch?: typeof fetch; now?: () => Date } = {}): AnyToolServer {
  const { fetch: fetchImpl, now, ...settingsInput } = overrides;
  const settings = resolveIncidentOpsSettings(
    { ...(sandbox ? { baseUrl: sandbox.incidentops.baseUrl, accessToken: sandbox.incidentops.token } : {}), ...settingsInput },
    {},
  );
  return createIncidentOpsServer({
    settings,
    logger: silentLogger,
    version: '0.0.0-test',
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(now ? { now } : {}),
  });
}

/** A fetch that answers from a script and records what it was asked. */
export function scriptedFetch(answer: (url: URL, init: RequestInit, attempt: number) => Response | Promise<Response>) {
  const calls: { url: URL; init: RequestInit }[] = [];
  const fetchImpl = (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    calls.push({ url, init });
    return answer(url, init, calls.length);
  }) as typeof fetch;
  return { fetch: fetchImpl, calls };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A CanvasApi server pointed at a platform (the sandbox's `canvasapi` entry) or, without one, at nothing. */
export function canvasApiServerFor(
  platform: { baseUrl: string; token: string } | undefined,
  overrides: CanvasApiSettingsInput & { fetch?: typeof fetch; now?: () => Date } = {},
): AnyToolServer {
  const { fetch: fetchImpl, now, ...settingsInput } = overrides;
  const base = platform ? { baseUrl: platform.baseUrl, accessToken: platform.token } : {};
  return createCanvasApiServer({
    settings: resolveCanvasApiSettings({ ...base, ...settingsInput }, {}),
    logger: silentLogger,
    version: '0.0.0-test',
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(now ? { now } : {}),
  });
}
