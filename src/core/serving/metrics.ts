/**
 * Prometheus metrics (prom-client), imported only when metrics are on: per tool call, per upstream
 * attempt, per rate-limit wait, plus prom-client's default process metrics. Labels take values from
 * fixed sets only (server ids, contract tool names, error kinds, HTTP methods and statuses, platform
 * names, network error codes): never IDs, paths or anything a client chooses.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual, createHash } from 'node:crypto';
import promClient from 'prom-client';
import { observeToolCalls, type ToolCallEvent } from '../tools/registry.js';
import { observeUpstream, type RateLimitWaitEvent, type UpstreamAnswerEvent } from '../platform/upstream.js';

export interface Metrics {
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
  /** Stops observing (the metrics keep their values). */
  stop(): void;
}

/** Seconds; from a cached answer (a few ms) to a slow multi-page walk. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Distinct network failure reasons kept as label values; any further one is counted as `other`. */
const MAX_FAILURE_REASONS = 24;

/** Starts collecting into a registry of its own and observing tool calls and upstream requests. */
export function startMetrics(): Metrics {
  const registry = new promClient.Registry();
  promClient.collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const toolCalls = new promClient.Counter({
    name: 'toolservers_tool_calls_total',
    help: 'Tool calls by server, tool and outcome (ok, or the error kind: invalid_input, not_found, rate_limited, ...).',
    labelNames: ['server', 'tool', 'outcome'] as const,
    registers,
  });
  const toolDuration = new promClient.Histogram({
    name: 'toolservers_tool_call_duration_seconds',
    help: 'Time from a tool call arriving (after protocol parsing) to its result, by server and tool.',
    labelNames: ['server', 'tool'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const upstreamRequests = new promClient.Counter({
    name: 'toolservers_upstream_requests_total',
    help: 'Requests to the platforms that got an answer, by platform, method and HTTP status (each retry counts).',
    labelNames: ['platform', 'method', 'status'] as const,
    registers,
  });
  const upstreamFailures = new promClient.Counter({
    name: 'toolservers_upstream_failures_total',
    help: 'Requests to the platforms that got no complete answer, by platform, method and reason (timeout, cancelled, or the network error code).',
    labelNames: ['platform', 'method', 'reason'] as const,
    registers,
  });
  const upstreamDuration = new promClient.Histogram({
    name: 'toolservers_upstream_request_duration_seconds',
    help: 'Time of one request to a platform, from sending to the answer read (or the failure), by platform and method.',
    labelNames: ['platform', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const rateLimitWaits = new promClient.Counter({
    name: 'toolservers_rate_limit_waits_total',
    help: 'Waits imposed by platform rate limits (HTTP 429): before resending the refused request or holding back later ones.',
    labelNames: ['platform'] as const,
    registers,
  });
  const rateLimitSeconds = new promClient.Counter({
    name: 'toolservers_rate_limit_wait_seconds_total',
    help: 'Seconds of waiting the platform rate limits asked for.',
    labelNames: ['platform'] as const,
    registers,
  });

  // Children looked up once per label set: the hot path only increments.
  type ToolSeries = { duration: promClient.Histogram.Internal<'server' | 'tool'>; calls: Map<string, promClient.Counter.Internal> };
  const toolSeries = new Map<string, ToolSeries>();
  const seenReasons = new Set<string>();

  const onToolCall = (event: ToolCallEvent): void => {
    const key = `${event.server}\u0000${event.tool}`;
    let series = toolSeries.get(key);
    if (!series) toolSeries.set(key, (series = { duration: toolDuration.labels(event.server, event.tool), calls: new Map() }));
    let calls = series.calls.get(event.outcome);
    if (!calls) series.calls.set(event.outcome, (calls = toolCalls.labels(event.server, event.tool, event.outcome)));
    calls.inc();
    series.duration.observe(event.seconds);
  };
  type UpstreamSeries = { duration: promClient.Histogram.Internal<'platform' | 'method'>; answers: Map<number | undefined, promClient.Counter.Internal> };
  const upstreamSeries = new Map<string, UpstreamSeries>();
  const onUpstreamAnswer = (event: UpstreamAnswerEvent): void => {
    const key = `${event.platform}\u0000${event.method}`;
    let series = upstreamSeries.get(key);
    if (!series) upstreamSeries.set(key, (series = { duration: upstreamDuration.labels(event.platform, event.method), answers: new Map() }));
    series.duration.observe(event.seconds);
    if (event.failure !== undefined) {
      upstreamFailures.labels(event.platform, event.method, failureReason(event.failure, seenReasons)).inc();
      return;
    }
    let answers = series.answers.get(event.status);
    if (!answers) series.answers.set(event.status, (answers = upstreamRequests.labels(event.platform, event.method, statusLabel(event.status))));
    answers.inc();
  };
  const onRateLimitWait = (event: RateLimitWaitEvent): void => {
    rateLimitWaits.labels(event.platform).inc();
    rateLimitSeconds.labels(event.platform).inc(event.seconds);
  };

  const stopTools = observeToolCalls({ onToolCall });
  const stopUpstream = observeUpstream({ onUpstreamAnswer, onRateLimitWait });
  return {
    render: () => registry.metrics(),
    contentType: registry.contentType,
    stop() {
      stopTools();
      stopUpstream();
    },
  };
}

function statusLabel(status: number | undefined): string {
  return status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : 'other';
}

/** `timeout`, `cancelled`, or an error code such as `ECONNRESET`; bounded in number. */
function failureReason(failure: string, seen: Set<string>): string {
  if (!/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(failure)) return 'other';
  if (seen.has(failure)) return failure;
  if (seen.size >= MAX_FAILURE_REASONS) return 'other';
  seen.add(failure);
  return failure;
}

/**
 * Answers GET /metrics. With a metrics key, only `Authorization: Bearer <metrics key>` is let in
 * (the server key is not: a scraper needs no access to the tools).
 */
export async function serveMetrics(metrics: Metrics, req: IncomingMessage, res: ServerResponse, key: string | undefined): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { 'content-type': 'application/json', allow: 'GET, HEAD' });
    res.end(JSON.stringify({ error: `${req.method ?? 'This method'} is not allowed on /metrics; use GET.` }));
    return;
  }
  if (key !== undefined && !bearerMatches(req.headers.authorization, key)) {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="toolservers-metrics"' });
    res.end(JSON.stringify({ error: 'This endpoint needs Authorization: Bearer <metrics key> (TOOLSERVERS_METRICS_KEY).' }));
    return;
  }
  const text = await metrics.render();
  res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}

function bearerMatches(header: string | undefined, key: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(match[1]), digest(key));
}
