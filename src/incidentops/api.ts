import { isRecord } from '../core/json.js';
import type { Logger } from '../core/logger.js';
import { UpstreamClient, type QueryValue } from '../core/upstream.js';
import { formatAuthorization } from '../core/auth/credential-source.js';
import { staticCredentials, type Credentials } from '../core/auth/credentials.js';
import type { ToolContext } from '../core/tool.js';
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

  constructor(settings: IncidentOpsSettings, logger: Logger, fetchImpl?: typeof fetch, credentials: Credentials = explicitCredentials(settings)) {
    this.settings = settings;
    this.client = new UpstreamClient({
      baseUrl: settings.baseUrl,
      platformName: 'IncidentOps',
      allowedMethods: ['GET'],
      timeoutMs: settings.timeoutMs,
      authorization: () => credentials.authorization(),
      ...(credentials.refresh ? { refreshAuthorization: credentials.refresh } : {}),
      missingCredentialsMessage: 'No IncidentOps credentials are configured and nobody has signed in, so nothing was sent.',
      missingCredentialsNextStep:
        'Run `toolservers login incidentops` to sign in, or set ' +
        `${INCIDENTOPS_ENV.accessToken} to an OAuth user token (or ${INCIDENTOPS_ENV.apiToken} to a REST API key); to try things out, start the server with --sandbox.`,
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
      describeError: ({ status, platformCode, resourceLabel }) => {
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
    const response = await this.client.request<Json>({ method: 'GET', path, pathParams, query, signal, resourceLabel });
    const value = response.data?.[key];
    if (!isRecord(value)) throw new Error(`IncidentOps answered ${path} without a "${key}" object`);
    return value;
  }

  /** GET one page of a classic-paginated list; items come from `key`. */
  async listPage(path: string, key: string, query: Query, signal: AbortSignal, pathParams?: Record<string, string>, resourceLabel?: string): Promise<ListPage> {
    const response = await this.client.request<Json>({
      method: 'GET',
      path,
      query,
      signal,
      ...(pathParams ? { pathParams } : {}),
      ...(resourceLabel ? { resourceLabel } : {}),
    });
    const data = response.data ?? {};
    const items = Array.isArray(data[key]) ? (data[key] as unknown[]).filter(isRecord) : [];
    return {
      items,
      limit: typeof data.limit === 'number' ? data.limit : Number(query.limit ?? items.length),
      offset: typeof data.offset === 'number' ? data.offset : Number(query.offset ?? 0),
      more: data.more === true,
      ...(typeof data.total === 'number' ? { total: data.total } : {}),
    };
  }

  /**
   * Every item of a list, 100 per request. With `concurrency` > 1 the first page asks for the
   * total and the remaining pages are fetched in parallel, a few at a time. Stops at the
   * platform's offset cap (10,000); `truncated` says so. `onProgress` hears of every page.
   */
  async listAll(
    path: string,
    key: string,
    query: Query,
    signal: AbortSignal,
    options: { concurrency?: number; maxItems?: number; pathParams?: Record<string, string>; resourceLabel?: string; onProgress?: PageProgress } = {},
  ): Promise<{ items: Json[]; truncated: boolean; total?: number }> {
    const maxItems = Math.min(options.maxItems ?? 10_000, 10_000);
    const concurrency = Math.max(1, options.concurrency ?? 1);
    const onProgress = options.onProgress ?? (() => undefined);
    const extra = { pathParams: options.pathParams, resourceLabel: options.resourceLabel };
    const first = await this.listPage(path, key, { ...query, limit: API_PAGE_SIZE, offset: 0, total: concurrency > 1 ? true : undefined }, signal, extra.pathParams, extra.resourceLabel);
    const items = [...first.items];
    if (!first.more) {
      onProgress(1, 1);
      return { items, truncated: false, ...(first.total !== undefined ? { total: first.total } : {}) };
    }

    if (concurrency > 1 && first.total !== undefined) {
      const offsets: number[] = [];
      for (let offset = API_PAGE_SIZE; offset < Math.min(first.total, maxItems); offset += API_PAGE_SIZE) offsets.push(offset);
      const pagesTotal = offsets.length + 1;
      let fetched = 1;
      onProgress(fetched, pagesTotal);
      const pages = await mapConcurrent(offsets, concurrency, async (offset) => {
        const page = await this.listPage(path, key, { ...query, limit: API_PAGE_SIZE, offset }, signal, extra.pathParams, extra.resourceLabel);
        onProgress(++fetched, pagesTotal);
        return page;
      });
      for (const p of pages) items.push(...p.items);
      const truncated = first.total > maxItems;
      return { items: items.slice(0, maxItems), truncated, total: first.total };
    }

    let fetched = 1;
    onProgress(fetched);
    let offset = API_PAGE_SIZE;
    let more: boolean = first.more;
    while (more && offset + API_PAGE_SIZE <= maxItems) {
      const next = await this.listPage(path, key, { ...query, limit: API_PAGE_SIZE, offset }, signal, extra.pathParams, extra.resourceLabel);
      items.push(...next.items);
      onProgress(++fetched);
      more = next.more;
      offset += API_PAGE_SIZE;
    }
    return { items, truncated: more };
  }
}

/** The explicit token from the settings, sent as its kind requires (tests and plain token setups). */
export function explicitCredentials(settings: IncidentOpsSettings): Credentials {
  const explicit = incidentOpsExplicitToken(settings);
  return staticCredentials(explicit ? formatAuthorization(explicit.scheme, explicit.token) : undefined);
}

/** Runs `fn` over `inputs` with at most `limit` in flight; results keep input order. */
export async function mapConcurrent<T, R>(inputs: readonly T[], limit: number, fn: (input: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const index = next++;
      results[index] = await fn(inputs[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  return results;
}


function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
