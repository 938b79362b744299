/**
 * A loopback stand-in for the incident platform's on-call endpoints, for schedules too big (or
 * too odd) for the sandbox: one escalation policy whose one level pages `schedules` schedules,
 * each with shifts of `shiftMinutes` in `/oncalls`, `layers` layers of `entriesPerLayer` entries
 * over [from, to) in `/schedules/{id}`, and `overrides` overrides in `/schedules/{id}/overrides`.
 * Everything is made up from its index when asked for, never stored. `/oncalls` lists schedule by
 * schedule, each by start (so a cut list is not a cut in time), with `total` when asked (unless
 * `noTotal`). The first layer skips every fifth entry, which the second fills. Override j of a
 * schedule stands in for one whole shift, and `/oncalls` shows its user on that shift. It records
 * every request and the bytes it sent; `onRequest` hears of each (a test's clock).
 */
import { startLoopbackJson } from './loopback-json.js';

export interface FakeOnCallOptions {
  from: number;
  to: number;
  schedules?: number;
  shiftMinutes?: number;
  layers?: number;
  entriesPerLayer?: number;
  overrides?: number;
  /** Milliseconds each answer waits (only for paths `slowPaths` matches, when given). */
  delayMs?: number;
  slowPaths?: RegExp;
  noTotal?: boolean;
  onRequest?: (path: string) => void;
}

export interface FakeOnCall {
  baseUrl: string;
  token: string;
  policyId: string;
  scheduleIds: string[];
  requests: { path: string; query: URLSearchParams }[];
  bytesSent: number;
  close(): Promise<void>;
}

export const FAKE_POLICY = 'PFAKEPOL';
const iso = (time: number) => new Date(time).toISOString().replace('.000Z', 'Z');
const ref = (type: string, id: string, summary: string) => ({ id, type: `${type}_reference`, summary, self: null, html_url: null });
const user = (id: string) => ref('user', id, `User ${id}`);

export async function startFakeOnCall(options: FakeOnCallOptions): Promise<FakeOnCall> {
  const { from, to } = options;
  const scheduleIds = Array.from({ length: options.schedules ?? 1 }, (_, s) => `PSCHED${s}`);
  const shiftMs = (options.shiftMinutes ?? 60) * 60_000;
  const shifts = Math.ceil((to - from) / shiftMs);
  const overrides = Math.min(options.overrides ?? 0, shifts);
  const step = overrides > 0 ? Math.floor(shifts / overrides) : 0;
  /** Shift k of schedule s: its override's user when one stands in for it. */
  const shiftUser = (s: number, k: number) => (step > 0 && k % step === 0 && k / step < overrides ? `POVR${(k / step) % 3}` : `PUSER${(k + s) % 7}`);
  const state = { requests: [] as FakeOnCall['requests'] };
  const policy = { ...ref('escalation_policy', FAKE_POLICY, 'Big policy'), type: 'escalation_policy', name: 'Big policy', escalation_rules: [{ id: 'PRULE1', escalation_delay_in_minutes: 30, targets: scheduleIds.map((id) => ref('schedule', id, `Schedule ${id}`)) }] };

  const oncalls = (query: URLSearchParams) => {
    const since = Date.parse(query.get('since') ?? iso(from));
    const until = Date.parse(query.get('until') ?? iso(to));
    const [offset, limit] = [Number(query.get('offset') ?? 0), Number(query.get('limit') ?? 25)];
    const first = Math.max(0, Math.floor((since - from) / shiftMs));
    const last = Math.min(shifts, Math.ceil((until - from) / shiftMs));
    const perSchedule = Math.max(0, last - first);
    const total = perSchedule * scheduleIds.length;
    const rows = [];
    for (let index = offset; index < Math.min(total, offset + limit); index++) {
      const [s, k] = [Math.floor(index / perSchedule), first + (index % perSchedule)];
      const start = from + k * shiftMs;
      rows.push({ escalation_policy: ref('escalation_policy', FAKE_POLICY, 'Big policy'), escalation_level: 1, schedule: ref('schedule', scheduleIds[s]!, `Schedule ${scheduleIds[s]}`), user: user(shiftUser(s, k)), start: iso(start), end: iso(Math.min(to, start + shiftMs)) });
    }
    return { oncalls: rows, limit, offset, more: offset + rows.length < total, total: query.get('total') === 'true' && !options.noTotal ? total : null };
  };

  const overridesOf = (query: URLSearchParams) => {
    const since = Date.parse(query.get('since') ?? iso(from));
    const until = Date.parse(query.get('until') ?? iso(to));
    const out = [];
    for (let j = 0; j < overrides; j++) {
      const start = from + j * step * shiftMs;
      const end = start + shiftMs;
      if (start < until && end > since) out.push({ id: `POV${j}`, start: iso(Math.max(start, since)), end: iso(Math.min(end, until)), user: user(`POVR${j % 3}`) });
    }
    return { overrides: out };
  };

  const schedule = (id: string, query: URLSearchParams) => {
    const since = Date.parse(query.get('since') ?? iso(from));
    const until = Date.parse(query.get('until') ?? iso(to));
    const entries = options.entriesPerLayer ?? 48;
    const entryMs = (to - from) / entries;
    const layers = Array.from({ length: options.layers ?? 2 }, (_, l) => {
      const rendered = [];
      for (let i = Math.max(0, Math.floor((since - from) / entryMs)); i < entries && from + i * entryMs < until; i++) {
        if (l === 0 && i % 5 === 4) continue;
        rendered.push({ start: iso(from + Math.round(i * entryMs)), end: iso(from + Math.round((i + 1) * entryMs)), user: user(`PUSER${(i + l) % 7}`) });
      }
      return { id: `PLAYER${l}`, name: `Layer ${l + 1}`, rendered_schedule_entries: rendered };
    });
    return { schedule: { id, type: 'schedule', summary: `Schedule ${id}`, name: `Schedule ${id}`, time_zone: 'UTC', schedule_layers: layers } };
  };

  const route = (path: string, query: URLSearchParams): [number, unknown] => {
    if (path === `/escalation_policies/${FAKE_POLICY}`) return [200, { escalation_policy: policy }];
    if (path === '/oncalls') return [200, oncalls(query)];
    const match = /^\/schedules\/([^/]+)(\/overrides)?$/.exec(path);
    if (match && scheduleIds.includes(match[1]!)) return [200, match[2] ? overridesOf(query) : schedule(match[1]!, query)];
    return [404, { error: { code: 2100, message: 'Not Found' } }];
  };

  const server = await startLoopbackJson((_req, url) => {
    state.requests.push({ path: url.pathname, query: url.searchParams });
    options.onRequest?.(url.pathname);
    const [status, body] = route(url.pathname, url.searchParams);
    const delayed = options.delayMs && (!options.slowPaths || options.slowPaths.test(url.pathname));
    return { status, body, ...(delayed ? { delayMs: options.delayMs } : {}) };
  });
  return {
    baseUrl: server.baseUrl,
    token: 'fake-oncall-token',
    policyId: FAKE_POLICY,
    scheduleIds,
    get requests() {
      return state.requests;
    },
    get bytesSent() {
      return server.bytesSent;
    },
    close: () => server.close(),
  };
}
