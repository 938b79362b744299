import { ToolError } from '../core/errors.js';
import { isRecord } from '../core/json.js';
import type { Logger } from '../core/logger.js';
import { budgetOf } from '../core/call-budget.js';
import { UpstreamClient, type QueryValue, type UpstreamClientOptions } from '../core/platform/upstream.js';
import { formatAuthorization } from '../core/signin/credential-source.js';
import { staticCredentials, type Credentials } from '../core/signin/credentials.js';
import { walkNote, walkPages } from '../core/tools/pager.js';
import type { ToolContext } from '../core/tools/tool.js';
import { INCIDENTOPS_ENV, incidentOpsExplicitToken, type IncidentOpsSettings } from './settings.js';

type Json = Record<string, unknown>;
export type Query = Record<string, QueryValue | undefined>;

/** The largest page the platform serves; used when this server pages through everything. */
export const API_PAGE_SIZE = 100;

/** Told after each page of a multi-page walk: pages fetched so far and, when known, how many there are. */
export type PageProgress = (pagesFetched: number, pagesTotal?: number) => void;

/** Turns a tool's progress reporter into a PageProgress with a readable message. */
export function reportPages(progress: ToolContext<unknown>['progress'], what: string): PageProgress {
  return (fetched, total) => progress(fetched, total, `Reading ${what}: page ${fetched}${total !== undefined ? ` of ${total}` : ''}`);
}

export interface ListPage {
  items: Json[];
  /** Bytes of the answer: what keeping its records costs, roughly. */
  bytes: number;
  limit: number;
  offset: number;
  more: boolean;
  total?: number;
}

/**
 * The incident platform's REST API as the tools use it: GET only (enforced by the client),
 * version-pinned headers, the platform's error body and rate-limit headers understood.
 */
export class IncidentOpsApi {
  readonly client: UpstreamClient;
  readonly settings: IncidentOpsSettings;

  constructor(
    settings: IncidentOpsSettings,
    logger: Logger,
    fetchImpl?: typeof fetch,
    credentials: Credentials = explicitCredentials(settings),
    sharedRateLimit?: UpstreamClientOptions['sharedRateLimit'],
  ) {
    this.settings = settings;
    this.client = new UpstreamClient({
      baseUrl: settings.baseUrl,
      platformName: 'IncidentOps',
      allowedMethods: ['GET'],
      timeoutMs: settings.timeoutMs,
      authorization: () => credentials.authorization(),
      ...(credentials.refresh ? { refreshAuthorization: credentials.refresh } : {}),
      ...(sharedRateLimit ? { sharedRateLimit } : {}),
      missingCredentialsMessage: 'No IncidentOps credentials are configured and nobody has signed in, so nothing was sent.',
      missingCredentialsNextStep:
        'Run `toolservers login incidentops` to sign in, or set ' +
        `${INCIDENTOPS_ENV.accessToken} to an OAuth user token (or ${INCIDENTOPS_ENV.apiToken} to a REST API key); to try things out without an account, add --sandbox (to \`toolservers call\` or to the server's command).`,
      defaultHeaders: {
        Accept: 'application/vnd.pagerduty+json;version=2',
        'Content-Type': 'application/json',
      },
      retryAfterSeconds: (response) => {
        const reset = response.headers.get('ratelimit-reset');
        if (reset !== null && reset.trim() !== '' && Number.isFinite(Number(reset))) return Math.max(0, Number(reset));
        const retryAfter = response.headers.get('retry-after');
        return retryAfter !== null && Number.isFinite(Number(retryAfter)) ? Number(retryAfter) : undefined;
      },
      parseError: (_status, body) => {
        const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
        if (!error) return {};
        const details = error.errors;
        return {
          code: typeof error.code === 'number' || typeof error.code === 'string' ? error.code : undefined,
          message: typeof error.message === 'string' ? error.message : undefined,
          details: Array.isArray(details) ? details : isRecord(details) ? details : undefined,
        };
      },
      describeError: ({ kind, status, platformCode, resourceLabel, method, pathTemplate, defaultMessage }) => {
        if (kind === 'upstream_error' && status !== undefined && status >= 200 && status < 300) {
          // A success status whose body could not be read: the answer is not in the expected shape.
          return { message: `${defaultMessage} The answer to ${method} ${pathTemplate} was not in the expected shape.`, nextStep: UNEXPECTED_SHAPE_NEXT_STEP };
        }
        if (status === 401) {
          return {
            message: 'IncidentOps rejected the credentials: the token is invalid, expired or revoked.',
            nextStep: `Run \`toolservers login incidentops\` to sign in again, or set a valid ${INCIDENTOPS_ENV.accessToken} (OAuth user token) or ${INCIDENTOPS_ENV.apiToken} (REST API key) and restart the server.`,
          };
        }
        if (status === 403) {
          return {
            message: `The IncidentOps token is not allowed to read ${resourceLabel ?? 'this resource'}.`,
            nextStep:
              'Use a token whose user (or app) has read access to it: an OAuth token with the read scope, or an API key of a user whose role can see it; account features such as teams may also need to be enabled on the plan.',
          };
        }
        if (status === 404 && resourceLabel) {
          return { message: `${capitalize(resourceLabel)} was not found, or the token's user cannot see it.`, nextStep: 'Check the ID; list the resources first to find the right one.' };
        }
        if (status === 400 && platformCode === 2002) {
          return { nextStep: 'offset + limit must stay at or below 10000: narrow the filters or the time range instead of paging further.' };
        }
        if (status === 400) return { nextStep: 'Check the arguments; for time ranges, narrow the range or fix the dates.' };
        return undefined;
      },
      logger,
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    });
  }

  /** GET one resource and return the object under `key` (e.g. `incident`). */
  async getOne(path: string, pathParams: Record<string, string>, key: string, signal: AbortSignal, resourceLabel: string, query: Query = {}): Promise<Json> {
    const response = await this.client.request<unknown>({ method: 'GET', path, pathParams, query, signal, resourceLabel });
    const data = response.data;
    if (!isRecord(data)) throw unexpectedShape(path, response.status, `a JSON object was expected, it sent ${describeJson(data)}`);
    const value = data[key];
    if (!isRecord(value)) throw unexpectedShape(path, response.status, `the "${key}" object is missing (${value === undefined ? 'no such key' : `it is ${describeJson(value)}`})`);
    if (!hasId(value.id)) throw unexpectedShape(path, response.status, `the "${key}" object has no id`);
    return value;
  }

  /**
   * GET one page of a classic-paginated list; items come from `key`. `borrowIdleSlots`: a page of
   * a walk of many alike pages (the user directory), which may use every request slot while its
   * caller is alone (core/platform/upstream-request.ts).
   */
  async listPage(path: string, key: string, query: Query, signal: AbortSignal, pathParams?: Record<string, string>, resourceLabel?: string, options: { borrowIdleSlots?: boolean } = {}): Promise<ListPage> {
    const response = await this.client.request<unknown>({
      method: 'GET',
      path,
      query,
      signal,
      ...(pathParams ? { pathParams } : {}),
      ...(resourceLabel ? { resourceLabel } : {}),
      ...(options.borrowIdleSlots ? { borrowIdleSlots: true } : {}),
    });
    const data = response.data as unknown;
    if (!isRecord(data)) throw unexpectedShape(path, response.status, `a JSON object was expected, it sent ${describeJson(data)}`);
    const list = data[key];
    if (!Array.isArray(list)) throw unexpectedShape(path, response.status, `the "${key}" list is missing (${list === undefined ? 'no such key' : `it is ${describeJson(list)}`})`);
    const odd = list.findIndex((item) => !isRecord(item));
    if (odd >= 0) throw unexpectedShape(path, response.status, `"${key}" holds ${describeJson(list[odd])} at index ${odd}, not an object`);
    const idOf = key in RECORD_ID ? RECORD_ID[key] : (item: Json) => item.id;
    const anonymous = idOf ? (list as Json[]).findIndex((item) => !hasId(idOf(item))) : -1;
    if (anonymous >= 0) throw unexpectedShape(path, response.status, `the record at index ${anonymous} of "${key}" has no id`);
    const items = list as Json[];
    return {
      items,
      bytes: response.bytes ?? 0,
      limit: typeof data.limit === 'number' ? data.limit : Number(query.limit ?? items.length),
      offset: typeof data.offset === 'number' ? data.offset : Number(query.offset ?? 0),
      more: data.more === true,
      ...(typeof data.total === 'number' ? { total: data.total } : {}),
    };
  }

  /**
   * Every item of a list, 100 per request, one page after another through the core's pager
   * (core/tools/pager.ts): within the call's budget, and stopped by paging that goes wrong (an
   * offset or a page again, more records than the total). Stops at the platform's offset cap
   * (10,000) or `maxItems`, and at the first page that comes back empty, whatever `more` says (an
   * empty page has nothing after it worth asking for). `truncated` says the list goes on, and
   * `why` says why it was not read to the end. The records kept count against the call's budget.
   * `onProgress` hears of every page.
   */
  async listAll(
    path: string,
    key: string,
    query: Query,
    signal: AbortSignal,
    options: { maxItems?: number; pathParams?: Record<string, string>; resourceLabel?: string; onProgress?: PageProgress } = {},
  ): Promise<{ items: Json[]; truncated: boolean; total?: number; why?: string }> {
    const maxItems = Math.min(options.maxItems ?? OFFSET_CAP, OFFSET_CAP);
    const items: Json[] = [];
    const budget = budgetOf(signal);
    // Records without an ID (on-call shifts) are known by their content: a page of them again is the same page.
    const recordKey = key in RECORD_ID ? (RECORD_ID[key] ?? ((item: Json) => JSON.stringify(item))) : (item: Json) => item.id;
    const walk = await walkPages<Json>({
      signal,
      maxPages: Math.ceil(maxItems / API_PAGE_SIZE),
      pageSize: API_PAGE_SIZE,
      fetchPage: async (at, pageSignal) => {
        const offset = at?.offset ?? 0;
        const page = await this.listPage(path, key, { ...query, limit: API_PAGE_SIZE, offset }, pageSignal, options.pathParams, options.resourceLabel);
        budget?.keep(page.bytes);
        return { records: page.items, ...(page.more ? { next: { offset: offset + page.items.length } } : {}), ...(page.total !== undefined ? { total: page.total } : {}) };
      },
      onPage: (page) => {
        items.push(...page.records);
      },
      idOf: (item: Json) => {
        const id = recordKey(item);
        return hasId(id) ? String(id) : undefined;
      },
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    // The page cap is the caller's own bound (maxItems, the offset cap): the caller says it its way.
    const why = walk.stop === 'pages' ? undefined : walkNote(walk, key.replace(/_/g, ' '), signal);
    return { items: items.slice(0, maxItems), truncated: !walk.complete, ...(walk.total !== undefined ? { total: walk.total } : {}), ...(why ? { why } : {}) };
  }
}

/** The platform's offset cap: offset + limit stays at or below it. */
const OFFSET_CAP = 10_000;

/**
 * Where the id of a list's records is: `id` unless listed here; `undefined` for lists whose
 * records have none (on-call shifts). Every other record the tools return is known by its id.
 */
const RECORD_ID: Record<string, ((item: Json) => unknown) | undefined> = {
  oncalls: undefined,
  members: (member) => (isRecord(member.user) ? member.user.id : undefined),
  past_incidents: (past) => (isRecord(past.incident) ? past.incident.id : undefined),
  related_incidents: (related) => (isRecord(related.incident) ? related.incident.id : undefined),
};

/** The platform's IDs are non-empty strings. */
function hasId(id: unknown): boolean {
  return typeof id === 'string' && id.length > 0;
}

/** What to do about an answer of the wrong shape: nothing about the arguments is wrong. */
const UNEXPECTED_SHAPE_NEXT_STEP =
  `Nothing is wrong with the arguments. Check that the API base URL (${INCIDENTOPS_ENV.baseUrl} or the region) points at the platform's REST API, not a proxy or a login page; if it does, try again later.`;

/** An upstream error: the platform answered with success, but not in the shape the endpoint documents. */
function unexpectedShape(path: string, status: number, problem: string): ToolError {
  return new ToolError({
    kind: 'upstream_error',
    status,
    message: `IncidentOps answered GET ${path} (HTTP ${status}) in an unexpected shape: ${problem}.`,
    nextStep: UNEXPECTED_SHAPE_NEXT_STEP,
  });
}

/** A short description of a JSON value for messages: its kind, never its content. */
function describeJson(value: unknown): string {
  if (value === undefined || value === '') return 'no content';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value)) return 'an object';
  return `a ${typeof value}`;
}

/** The explicit token from the settings, sent as its kind requires (tests and plain token setups). */
export function explicitCredentials(settings: IncidentOpsSettings): Credentials {
  const explicit = incidentOpsExplicitToken(settings);
  return staticCredentials(explicit ? formatAuthorization(explicit.scheme, explicit.token) : undefined);
}


function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
