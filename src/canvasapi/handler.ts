/**
 * The one handler behind all CanvasApi tools: validate, map parameters onto the request,
 * send, and shape the platform's answer. Everything tool-specific is catalogue data.
 */
import { z } from 'zod';
import { ToolError, type InputIssue } from '../core/errors.js';
import { isRecord, pruneEmpty } from '../core/json.js';
import { requestedFullRecords } from '../core/tools/record-detail.js';
import { toInputJsonSchema } from '../core/tools/schema.js';
import type { ToolDefinition, ToolHints } from '../core/tools/tool.js';
import type { QueryValue, UpstreamClient } from '../core/platform/upstream.js';
import { parseRequestBody, readableRequestSchema, withoutNulls, type BodyValidator } from './body-validation.js';
import type { CanvasEffect, CanvasParam, CanvasToolEntry } from './catalogue-types.js';
import { applyInviteAllowlist } from './invite-allowlist.js';
import { answersLean, leanAnswer } from './lean-records.js';
import type { InviteAllowlist } from './settings.js';
import { CANVASAPI_LISTED_INPUT_SCHEMAS } from './listed-schemas.js';
import { inputSchemaFor, utcMillis } from './params.js';

type Json = Record<string, unknown>;

export interface CanvasApiDeps {
  client: UpstreamClient;
  /**
   * Request-body schemas of the two-mode tools, keyed by tool name without the prefix, and their
   * validator: loaded on the first two-mode call (160 KB that a start does not need to parse).
   */
  requestBodies: () => Promise<{ schemas: Record<string, unknown>; bodies: BodyValidator }>;
  now: () => Date;
  /** The platform's web app, for links to boards and items (params.ts boardWebBase); default https://miro.com. */
  webBase?: string;
  /** The operator's invitation allowlist, applied to every body a sharing tool sends; undefined: none. */
  inviteAllowlist?: InviteAllowlist;
  /** Lists and write echoes keep every field (--full-records); an HTTP request may say otherwise. */
  fullRecords?: boolean;
}

/** The audit log reaches back this many days. */
export const AUDIT_LOG_DAYS = 90;

export function hintsFor(effect: CanvasEffect): ToolHints {
  switch (effect) {
    case 'read':
      return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
    case 'create':
      return { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
    case 'update':
    case 'delete':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };
    case 'action':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
  }
}

/** Any JSON object: the platform's own answer, nulls pruned, plus paging hints. */
const canvasOutput = z.looseObject({});

export function canvasTool(entry: CanvasToolEntry): ToolDefinition<z.ZodObject, typeof canvasOutput, CanvasApiDeps> {
  const truncationHint = truncationHintFor(entry);
  // Both schemas are built on first use, not at start-up: tools/list needs only the advertised
  // JSON Schema (converted once, then cached by the registry), and only tools that are called need
  // their validation schema. With 139 tools this keeps zod work out of the server's cold start.
  let input: z.ZodObject | undefined;
  let inputJsonSchema: Record<string, unknown> | undefined;
  return {
    name: entry.name,
    title: entry.title,
    description: entry.description,
    toolset: entry.toolset,
    get input() {
      return (input ??= inputSchemaFor(entry.params, 'validate'));
    },
    // Listed with the contract's types; calls may also pass numbers for integer text and objects for request_body.
    // Precomputed at build time (listed-schemas.ts, kept in sync by a test); computed here only for an entry it lacks.
    get inputJsonSchema() {
      return (inputJsonSchema ??= CANVASAPI_LISTED_INPUT_SCHEMAS[entry.name] ?? advertisedInputJsonSchema(entry));
    },
    output: canvasOutput,
    hints: hintsFor(entry.effect),
    ...(truncationHint ? { truncationHint } : {}),
    needsCredentials: (args) => !(entry.requestSchema && args.mode === 'get_request_schema'),
    auditTargets: (args, answer) => auditTargetsOf(entry, args as Json, answer),
    handler: (args, context) => runCanvasTool(entry, args as Json, context.deps, context.signal),
  };
}

/** Query parameters that name what a call acts on, besides those ending in `_id` or `_ids`. */
const TARGET_QUERY = new Set(['copy_from', 'email']);

/**
 * What a call acts on, for its audit line: its path IDs and its ID filters by the platform's names
 * (`board_id`, `item_id`), and what a create made (`created_id`). Never a body field.
 */
export function auditTargetsOf(entry: CanvasToolEntry, args: Json, answer: unknown): Json {
  const targets: Json = {};
  for (const param of entry.params) {
    const value = args[param.name];
    if (value === undefined) continue;
    const [where, name = ''] = splitTarget(param.to);
    if (where === 'path') targets[name] = value;
    else if (where === 'query' && name !== 'request_id' && (/_ids?$/.test(name) || TARGET_QUERY.has(name))) targets[name] = typeof value === 'string' && name.endsWith('_ids') ? value.split(',') : value;
  }
  if (entry.effect === 'create' && isRecord(answer) && (typeof answer.id === 'string' || typeof answer.id === 'number')) targets.created_id = answer.id;
  return targets;
}

/** The input JSON Schema tools/list shows for an entry: its parameters with the contract's types. */
export function advertisedInputJsonSchema(entry: CanvasToolEntry): Record<string, unknown> {
  return toInputJsonSchema(inputSchemaFor(entry.params, 'advertise'));
}

export async function runCanvasTool(entry: CanvasToolEntry, args: Json, deps: CanvasApiDeps, signal: AbortSignal): Promise<Json> {
  let body: unknown;
  let schema: unknown;
  if (entry.requestSchema) {
    const { schemas, bodies } = await deps.requestBodies();
    schema = schemas[entry.requestSchema];
    if (!schema) throw new Error(`no request schema "${entry.requestSchema}" for ${entry.name}`);
    if (args.mode === 'get_request_schema') return describeRequestSchema(entry, readableRequestSchema(schemas, entry.requestSchema));
    body = parseAndValidateBody(entry, args, bodies);
  }
  checkRules(entry, args, deps.now());

  const pathParams: Record<string, string> = {};
  const query: Record<string, QueryValue> = {};
  for (const param of entry.params) {
    const value = args[param.name] ?? param.sentWhenOmitted ?? entry.whenOmitted?.[param.name];
    if (value === undefined || param.to === 'tool' || param.to === 'body') continue;
    const [where, target = ''] = splitTarget(param.to);
    if (where === 'path') pathParams[target] = String(value);
    else if (where === 'query') query[target] = value as QueryValue;
    else if (where === 'body') body = setDeep((body ?? {}) as Json, target, value);
  }
  if (entry.rule === 'require-tag-id' && !(typeof query.tag_id === 'string' && query.tag_id.length > 0)) {
    // Without tag_id the same DELETE removes the whole item: refuse outright.
    const tagParam = entry.params.find((p) => p.to === 'query:tag_id')?.name ?? 'tag_id';
    throw ToolError.invalidParameter(tagParam, 'is required: without it the request would delete the item itself');
  }
  checkBody(entry, args, body);
  body = applyInviteAllowlist(entry, body, schema, deps.inviteAllowlist);
  // A body validated against its schema keeps its empty objects (one may be required).
  const sent = body === undefined ? undefined : entry.requestSchema ? withoutNulls(body) : pruneEmpty(body);

  let response;
  try {
    response = await deps.client.request<unknown>({
      method: entry.method,
      effect: entry.effect, // retries follow what the tool does (a create is never sent twice), not the HTTP method
      path: entry.path,
      pathParams,
      query,
      ...(sent !== undefined ? { body: sent } : {}),
      signal,
      resourceLabel: labelFor(entry, pathParams),
    });
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    if (error.details.kind === 'forbidden') throw withAccessHint(error, entry);
    const status = error.details.status;
    if (error.details.kind === 'upstream_error' && status !== undefined && status >= 200 && status < 300) {
      // A success whose body could not be read (not JSON): say which tool and endpoint, and what to check.
      throw new ToolError({ ...error.details, message: `${error.details.message} ${expectedShapeText(entry, status)}.`, nextStep: shapeNextStep(entry) });
    }
    throw error;
  }
  const result = shapeResult(entry, args, response.status, response.data);
  const fullRecords = requestedFullRecords() ?? deps.fullRecords ?? false;
  // What this call's body set stays in the echo, even at the platform's default.
  return !fullRecords && answersLean(entry, result) ? leanAnswer(result, sent) : result;
}

/** Methods whose requests carry the tool's body parameters. */
const BODY_METHODS: readonly string[] = ['POST', 'PUT', 'PATCH'];

/**
 * A tool whose parameters fill a body sends one the platform accepts, or nothing at all: the
 * platform requires a body on every such endpoint, so a call that gives none of its body
 * parameters (an update with nothing to change) is refused, and so is a create without a field
 * the body cannot do without (`bodyNeeds`). The refusal names the parameters that would fill it.
 */
function checkBody(entry: CanvasToolEntry, args: Json, body: unknown): void {
  const needed = (entry.bodyNeeds ?? []).filter((name) => args[name] === undefined || (Array.isArray(args[name]) && (args[name] as unknown[]).length === 0));
  if (needed.length) {
    throw ToolError.invalidInput(needed.map((parameter) => ({ parameter, problem: 'is required (and not empty) here: the platform refuses the request without it' })));
  }
  const bodyParams = entry.params.filter((p) => p.to.startsWith('body:'));
  if (!bodyParams.length || !BODY_METHODS.includes(entry.method)) return;
  const sent = body === undefined ? undefined : pruneEmpty(body);
  if (isRecord(sent) && Object.keys(sent).length > 0) return;
  const names = bodyParams.map((p) => p.name);
  const what = entry.effect === 'update' ? 'there is nothing to change' : 'the platform needs a request body';
  throw new ToolError({
    kind: 'invalid_input',
    message: `Invalid arguments (nothing was sent): give at least one of ${names.join(', ')}; otherwise ${what}.`,
    nextStep: 'Add the parameters to set and call the tool again.',
    issues: names.map((parameter) => ({ parameter, problem: 'not given; at least one of the listed parameters is needed' })),
  });
}

/** A 403 names what this endpoint needs: the token's scope and, for enterprise tools, the plan. */
function withAccessHint(error: ToolError, entry: CanvasToolEntry): ToolError {
  const needs = [
    entry.scope ? `a token with the ${entry.scope} scope` : undefined,
    entry.plan.startsWith('enterprise') ? 'an organization on the enterprise plan (and, for administration, a company admin)' : undefined,
  ].filter(Boolean);
  if (!needs.length) return error;
  return new ToolError({ ...error.details, nextStep: `${entry.name} needs ${needs.join(' and ')}. ${error.details.nextStep ?? ''}`.trim() });
}

function splitTarget(to: string): [string, string | undefined] {
  const colon = to.indexOf(':');
  return colon < 0 ? [to, undefined] : [to.slice(0, colon), to.slice(colon + 1)];
}

function describeRequestSchema(entry: CanvasToolEntry, schema: unknown): Json {
  const identifiers = entry.params.filter((p) => p.requiredForExecute && p.name !== 'request_body').map((p) => p.name);
  return {
    tool: entry.name,
    request_schema: schema as Json,
    how_to_execute:
      `Call ${entry.name} again with mode "execute"` +
      (identifiers.length ? `, ${identifiers.join(', ')}` : '') +
      ' and request_body set to JSON that matches request_schema (as a string, or the object itself).',
  };
}

function parseAndValidateBody(entry: CanvasToolEntry, args: Json, bodies: BodyValidator): unknown {
  const missing = entry.params.filter((p) => p.requiredForExecute && (args[p.name] === undefined || args[p.name] === ''));
  if (missing.length) {
    throw ToolError.invalidInput(
      missing.map((p) => ({
        parameter: p.name,
        problem: p.name === 'request_body' ? 'is required when mode is "execute" (JSON text or an object; call with mode "get_request_schema" to see its schema)' : 'is required when mode is "execute"',
      })),
    );
  }
  // JSON text per the contract; the object (or array) itself is accepted as well.
  let body: unknown = args.request_body;
  if (typeof body === 'string') {
    const parsed = parseRequestBody(body);
    if (!parsed.ok) throw ToolError.invalidParameter('request_body', parsed.message);
    body = parsed.value;
  }
  const violations = bodies.validateBody(entry.requestSchema as string, body);
  if (violations.length) {
    throw ToolError.invalidInput(violations.map((v): InputIssue => ({ parameter: v.path, problem: v.message })));
  }
  return body;
}

function checkRules(entry: CanvasToolEntry, args: Json, now: Date): void {
  const issues: InputIssue[] = [];
  const window = (fromName: string, toName: string) => {
    const from = typeof args[fromName] === 'string' ? utcMillis(args[fromName] as string) : undefined;
    const to = typeof args[toName] === 'string' ? utcMillis(args[toName] as string) : undefined;
    if (from !== undefined && to !== undefined && from > to) issues.push({ parameter: toName, problem: `must not be before ${fromName} (${String(args[fromName])})` });
    return { from, to };
  };
  switch (entry.rule) {
    case 'audit-log-window': {
      const { from } = window('start_date_time_for_audit_logs', 'end_date_for_audit_logs');
      const earliest = now.getTime() - AUDIT_LOG_DAYS * 86_400_000;
      if (from !== undefined && from < earliest) {
        issues.push({ parameter: 'start_date_time_for_audit_logs', problem: `must be within the last ${AUDIT_LOG_DAYS} days (not before ${new Date(earliest).toISOString()})` });
      }
      break;
    }
    case 'content-log-window':
      window('start_date_time', 'end_modification_datetime');
      break;
    case 'metrics-date-range':
      window('start_date_utc', 'end_date');
      break;
    default:
      break;
  }
  if (issues.length) throw ToolError.invalidInput(issues);
}

/** Sets `a.b.c` inside a copy-free object tree (creating the intermediate objects). */
function setDeep(target: Json, dottedPath: string, value: unknown): Json {
  const keys = dottedPath.split('.');
  let node = target;
  keys.slice(0, -1).forEach((key) => {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Json;
  });
  node[keys[keys.length - 1] as string] = value;
  return target;
}

function labelFor(entry: CanvasToolEntry, pathParams: Record<string, string>): string | undefined {
  const parts = Object.entries(pathParams).map(([name, value]) => {
    const param = entry.params.find((p) => p.to === `path:${name}`);
    return `${param?.name ?? name} "${value}"`;
  });
  return parts.length ? `the resource (${parts.join(', ')})` : undefined;
}

/**
 * The platform's JSON, compacted: nulls pruned, no `links.self` anywhere (the agent cannot call
 * URLs), and for lists the way to the next page given once, as `next_page` in this tool's own
 * parameter names (the platform's `cursor` and page links are dropped).
 */
export function shapeResult(entry: CanvasToolEntry, args: Json, status: number, data: unknown): Json {
  if (data === undefined || data === null || data === '') {
    if (entry.effect === 'read') throw unexpectedShape(entry, status, 'no content');
    return { success: true, status, message: `${entry.title}: done (the platform returns no content for this call).` };
  }
  if (Array.isArray(data) ? !entry.answersArray : !isRecord(data)) throw unexpectedShape(entry, status, Array.isArray(data) ? 'a JSON array' : `a JSON ${typeof data}`);
  const result: Json = withoutSelfLinks(Array.isArray(data) ? { data: pruneEmpty(data) } : pruneEmpty(data as Json)) as Json;
  const next = nextPage(entry, args, result);
  if (entry.pagination) {
    delete result.cursor;
    if (isRecord(result.links)) {
      const links: Json = { ...result.links };
      for (const key of PAGE_LINKS) delete links[key];
      if (Object.keys(links).length) result.links = links;
      else delete result.links;
    }
  }
  if (next) result.next_page = next;
  return result;
}

/** A success status whose body is not what the endpoint answers: the platform's fault, not the caller's nor this server's. */
function unexpectedShape(entry: CanvasToolEntry, status: number, got: string): ToolError {
  return new ToolError({ kind: 'upstream_error', status, message: `${expectedShapeText(entry, status)}: it sent ${got}.`, nextStep: shapeNextStep(entry) });
}

function expectedShapeText(entry: CanvasToolEntry, status: number): string {
  const expected = entry.answersArray ? 'a JSON object or array' : 'a JSON object';
  return `The platform's answer to ${entry.name} (${entry.method} ${entry.path}, HTTP ${status}) was not in the expected shape (${expected})`;
}

function shapeNextStep(entry: CanvasToolEntry): string {
  return (
    (entry.effect === 'read' ? '' : 'The change may have been made: read the resource before trying again. ') +
    'Nothing is wrong with the arguments. Check that the API base URL (CANVASAPI_BASE_URL) points at the platform itself, not a proxy or a login page; if it does, try again later.'
  );
}

/** Page links of list answers: `next_page` says the same in the tool's own terms. */
const PAGE_LINKS = ['next', 'prev', 'first', 'last'];

/** Drops `self` from every `links` object, and `links` objects left empty. */
function withoutSelfLinks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSelfLinks);
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === 'links' && isRecord(child)) {
      const { self: _self, ...rest } = child;
      if (Object.keys(rest).length) out.links = rest;
      continue;
    }
    out[key] = withoutSelfLinks(child);
  }
  return out;
}

/** How to get what the result budget cut from a list: a smaller page, or the offset after what came back. */
export function truncationHintFor(entry: CanvasToolEntry): string | undefined {
  const limit = paramFor(entry, 'limit')?.name;
  const smaller = limit ? `a smaller ${limit}` : 'narrower filters';
  if (entry.pagination === 'cursor') {
    return `Call again with the same arguments and ${smaller}: next_page continues after the full page, so it would skip the records cut here.`;
  }
  if (entry.pagination === 'offset') {
    const offset = paramFor(entry, 'offset')?.name ?? 'offset';
    return `Call again with ${offset} set to this page's offset plus the records returned, or with ${smaller}.`;
  }
  return undefined;
}

function paramFor(entry: CanvasToolEntry, queryName: string): CanvasParam | undefined {
  return entry.params.find((p) => p.to === `query:${queryName}`);
}

function nextPage(entry: CanvasToolEntry, args: Json, result: Json): Json | undefined {
  if (entry.pagination === 'cursor') {
    const cursor = result.cursor;
    const param = paramFor(entry, 'cursor');
    if (typeof cursor === 'string' && cursor.length > 0 && param) return { [param.name]: cursor };
    return undefined;
  }
  if (entry.pagination === 'offset') {
    const offsetParam = paramFor(entry, 'offset');
    const offset = Number(result.offset ?? args[offsetParam?.name ?? ''] ?? 0);
    const size = Number(result.size ?? (Array.isArray(result.data) ? result.data.length : 0));
    const total = Number(result.total);
    if (offsetParam && Number.isFinite(total) && size > 0 && offset + size < total) {
      const value = offset + size;
      return { [offsetParam.name]: offsetParam.type === 'string' ? String(value) : value };
    }
  }
  return undefined;
}
