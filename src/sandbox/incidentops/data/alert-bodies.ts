/**
 * What an incident's alerts say, by what the incident is about: a crash-loop incident's alerts
 * talk of restarts, exit codes and pods, a TLS one of expiry dates, a latency one of p99 values.
 * The kind comes from the incident's title (the templates of names.ts). Each alert's signal and
 * value are drawn from the data's random source exactly as before (one draw each, so no record
 * after them changes); the rest of its body (nested details, long log excerpts, links, custom
 * fields) from a random source of its own, seeded by the alert's ID.
 */
import type { AlertContext, AlertDetails } from '../model.js';
import { Rng } from '../random.js';
import { HOUR, MINUTE } from './common.js';

/** What a monitor reports: its check, a summary template ({value}, {host}), unit and range of values past the threshold. */
export interface AlertSignal {
  check: string;
  summary: string;
  unit: string;
  threshold: number;
  high: number;
  /** The value alarms below the threshold (days left), drawn from 1 to threshold - 1. */
  below?: true;
}

/** What a body is made from: the signal, its value, where and when, and whose it is. */
export interface BodyInput {
  alertId: string;
  signal: AlertSignal;
  value: number;
  host: string;
  svcSlug: string;
  serviceName: string;
  createdAt: number;
}

interface AlertKind {
  /** Titles of this kind (names.ts's INCIDENT_TITLES). */
  title: RegExp;
  signals: readonly AlertSignal[];
  /** The value the title states, for the alert that carries the title ("expires in 7 days"). */
  titleValue?: RegExp;
  /** The kind's own fields, after check, value and threshold. */
  fields: (input: BodyInput, rng: Rng) => AlertDetails;
}

const HEX = '0123456789abcdef';
const POD_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1'] as const;
const TIERS = ['tier-1', 'tier-2'] as const;

const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
const podName = (svcSlug: string, rng: Rng) => `${svcSlug}-${rng.chars(9, POD_CHARS)}-${rng.chars(5, POD_CHARS)}`;

/** A few log lines, joined as the monitor sends them: a long value with line breaks. */
function logExcerpt(rng: Rng, at: number, lines: readonly string[]): string {
  return Array.from({ length: rng.int(4, 7) }, (_, i) => `${iso(at - (7 - i) * 1000)} ${rng.pick(lines)}`).join('\n');
}

const KINDS: readonly AlertKind[] = [
  {
    title: /crash-looping/,
    signals: [
      { check: 'kube_pod_crashlooping', summary: 'Back-off restarting failed container on {host}', unit: 'restarts in 10 min', threshold: 5, high: 40 },
      { check: 'kube_deployment_replicas_unavailable', summary: 'Deployment has {value} unavailable replicas', unit: 'replicas', threshold: 0, high: 6 },
    ],
    fields: ({ svcSlug, createdAt, signal, value }, rng) => {
      const exitCode = rng.pick([1, 137, 139, 143]);
      return {
        cluster: `prod-${rng.pick(REGIONS)}`,
        namespace: svcSlug,
        pod: podName(svcSlug, rng),
        container: {
          name: svcSlug,
          image: `registry.example.com/${svcSlug}:v${rng.int(1, 4)}.${rng.int(0, 60)}.${rng.int(0, 9)}`,
          restart_count: signal.check === 'kube_pod_crashlooping' ? value : rng.int(6, 60),
          last_state: { exit_code: exitCode, reason: exitCode === 137 ? 'OOMKilled' : 'Error', finished_at: iso(createdAt - rng.int(5, 90) * 1000) },
        },
        last_log_lines: logExcerpt(rng, createdAt, [
          'ERROR main: failed to connect to config service: dial tcp 10.0.12.7:8500: connect: connection refused',
          'WARN  startup: retrying in 2s (attempt 5 of 5)',
          'FATAL main: giving up after 5 attempts, exiting',
          'INFO  http: shutting down server',
        ]),
      };
    },
  },
  {
    title: /^TLS certificate/,
    signals: [{ check: 'tls_certificate_expiry', summary: 'Certificate for {domain} expires in {value} days', unit: 'days left', threshold: 14, high: 14, below: true }],
    titleValue: /expires in (\d+) days/,
    fields: ({ svcSlug, createdAt, value }, rng) => {
      const domain = `${svcSlug}.example.com`;
      const notAfter = createdAt + value * 24 * HOUR;
      return {
        endpoint: `${domain}:443`,
        certificate: {
          subject: `CN=${domain}`,
          issuer: rng.pick(['CN=R11, O=Let\'s Encrypt, C=US', 'CN=Example Corp Issuing CA 2, O=Example Corp, C=US']),
          serial: rng.chars(32, HEX),
          not_before: iso(notAfter - 90 * 24 * HOUR),
          not_after: iso(notAfter),
          subject_alt_names: [domain, `www.${domain}`, `api.${domain}`],
        },
        renewal: { method: rng.pick(['cert-manager', 'manual']), last_attempt: iso(createdAt - rng.int(1, 48) * HOUR), last_error: 'acme: error 403 :: urn:ietf:params:acme:error:unauthorized :: The client lacks sufficient authorization: DNS problem: NXDOMAIN looking up TXT for _acme-challenge' },
      };
    },
  },
  {
    title: /p99 latency above SLO|^Elevated timeouts/,
    signals: [
      { check: 'latency_p99', summary: 'p99 latency {value} ms on {host}', unit: 'ms', threshold: 800, high: 6000 },
      { check: 'upstream_timeouts', summary: '{value} upstream timeouts per minute', unit: 'timeouts/min', threshold: 20, high: 900 },
    ],
    fields: ({ signal, value }, rng) => {
      const p99 = signal.check === 'latency_p99' ? value : rng.int(900, 6000);
      return {
        window: '5m',
        percentiles: { p50: `${Math.round(p99 / rng.int(6, 12))} ms`, p90: `${Math.round(p99 / rng.int(2, 3))} ms`, p99: `${p99} ms` },
        slo: { objective: '99.5% of requests under 800 ms', burn_rate_1h: (rng.int(30, 150) / 10).toFixed(1) },
        slowest_route: rng.pick(['POST /v1/charges', 'GET /v1/orders/{id}', 'POST /v1/sessions', 'GET /v1/search']),
        upstream: { name: rng.pick(['postgres', 'redis', 'ledger-api', 'auth-api']), p99: `${Math.round(p99 * 0.8)} ms` },
      };
    },
  },
  {
    title: /^High error rate|^5xx responses|^Error budget burn/,
    signals: [
      { check: 'http_error_rate', summary: 'Error rate {value}% over 5 minutes on {host}', unit: '%', threshold: 5, high: 40 },
      { check: 'http_5xx_count', summary: '{value} HTTP 5xx responses per minute', unit: 'responses/min', threshold: 50, high: 3000 },
    ],
    fields: ({ createdAt }, rng) => ({
      window: '5m',
      status_codes: { '500': rng.int(10, 900), '502': rng.int(0, 300), '503': rng.int(0, 600), '504': rng.int(0, 200) },
      top_error: rng.pick(['java.net.SocketTimeoutException: Read timed out', 'upstream connect error or disconnect/reset before headers', 'pq: sorry, too many clients already']),
      sample_trace: logExcerpt(rng, createdAt, [
        'at com.example.http.Client.send(Client.java:212)',
        'at com.example.ledger.LedgerClient.post(LedgerClient.java:88)',
        'Caused by: java.net.SocketTimeoutException: Read timed out',
        'at java.base/java.net.SocketInputStream.read(SocketInputStream.java:183)',
      ]),
    }),
  },
  {
    title: /^Health check failing|^Synthetic check failed/,
    signals: [
      { check: 'health_check', summary: 'Health check failing on {host}', unit: 'consecutive failures', threshold: 3, high: 12 },
      { check: 'synthetic_login_flow', summary: 'Synthetic login flow failed {value} times in a row', unit: 'failures', threshold: 2, high: 10 },
    ],
    fields: ({ svcSlug }, rng) => ({
      probe: { url: `https://${svcSlug}.example.com/healthz`, method: 'GET', timeout: '5s', locations: rng.sample(['Frankfurt', 'Virginia', 'Oregon', 'Singapore', 'Sao Paulo'], 3) },
      last_response: { status: rng.pick([500, 502, 503, 0]), time_ms: rng.int(4000, 5000), body_excerpt: '{"status":"fail","checks":{"database":"timeout after 3000ms","cache":"ok","queue":"ok"}}' },
    }),
  },
  {
    title: /^Disk usage/,
    signals: [{ check: 'disk_used', summary: 'Disk {value}% full on {host}', unit: '%', threshold: 90, high: 99 }],
    fields: ({ value }, rng) => {
      const size = rng.pick([100, 250, 500]);
      return {
        mount: rng.pick(['/var/lib/postgresql', '/var/log', '/data']),
        filesystem: { device: '/dev/nvme1n1', type: 'ext4', size: `${size} GiB`, free: `${((size * (100 - value)) / 100).toFixed(1)} GiB` },
        fill_rate: `${rng.int(1, 9)}.${rng.int(0, 9)} GiB/h`,
        largest_paths: ['/var/log/app/access.log.1', '/var/log/app/debug.log', '/var/lib/app/tmp'].slice(0, rng.int(2, 3)),
      };
    },
  },
  {
    title: /^CPU saturation/,
    signals: [
      { check: 'cpu_utilisation', summary: 'CPU {value}% on {host}', unit: '%', threshold: 85, high: 100 },
      { check: 'cpu_throttling', summary: 'CPU throttled {value}% of periods on {host}', unit: '% of periods', threshold: 25, high: 90 },
    ],
    fields: (_input, rng) => ({
      cores: rng.pick([4, 8, 16]),
      load_average: { '1m': (rng.int(80, 400) / 10).toFixed(1), '5m': (rng.int(60, 300) / 10).toFixed(1), '15m': (rng.int(40, 200) / 10).toFixed(1) },
      top_process: { command: rng.pick(['java -jar app.jar', 'node server.js', 'gunicorn app:wsgi']), cpu: `${rng.int(60, 99)}%` },
    }),
  },
  {
    title: /^Memory pressure/,
    signals: [
      { check: 'memory_used', summary: 'Memory {value}% used on {host}', unit: '%', threshold: 90, high: 100 },
      { check: 'oom_kills', summary: '{value} OOM kills in 15 minutes on {host}', unit: 'kills', threshold: 0, high: 12 },
    ],
    fields: ({ createdAt }, rng) => ({
      memory: { total: '16 GiB', used: `${rng.int(145, 160) / 10} GiB`, swap_used: `${rng.int(0, 20) / 10} GiB` },
      oom_killer: { victim: rng.pick(['java', 'node', 'python3']), rss: `${rng.int(30, 90) / 10} GiB`, at: iso(createdAt - rng.int(1, 9) * MINUTE) },
      kernel_log: logExcerpt(rng, createdAt, [
        'kernel: Out of memory: Killed process 4211 (java) total-vm:9123456kB, anon-rss:7012345kB',
        'kernel: oom_reaper: reaped process 4211 (java), now anon-rss:0kB',
        'kernel: java invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0',
      ]),
    }),
  },
  {
    title: /^Queue backlog/,
    signals: [
      { check: 'queue_depth', summary: 'Queue depth {value} messages', unit: 'messages', threshold: 5000, high: 90000 },
      { check: 'consumer_lag', summary: 'Consumer lag {value} s', unit: 's', threshold: 60, high: 3600 },
    ],
    fields: ({ svcSlug }, rng) => ({
      queue: `${svcSlug}.events`,
      broker: rng.pick(['rabbitmq-prod-2', 'kafka-prod-1']),
      consumers: { connected: rng.int(0, 4), expected: 6 },
      rates: { publish: `${rng.int(200, 900)}/s`, deliver: `${rng.int(0, 150)}/s` },
      oldest_message_age: `${rng.int(5, 95)} min`,
    }),
  },
  {
    title: /^Database replication lag/,
    signals: [{ check: 'replication_lag', summary: 'Replication lag {value} s on {host}', unit: 's', threshold: 30, high: 1800 }],
    fields: ({ svcSlug }, rng) => ({
      primary: `${svcSlug}-db-1`,
      replica: `${svcSlug}-db-${rng.int(2, 3)}`,
      wal: { sent_lsn: `${rng.chars(2, HEX).toUpperCase()}/${rng.chars(8, HEX).toUpperCase()}`, replay_lsn: `${rng.chars(2, HEX).toUpperCase()}/${rng.chars(8, HEX).toUpperCase()}`, behind: `${rng.int(1, 40)} GB` },
      long_running_query: "SELECT o.id, o.total, c.email FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.created_at > now() - interval '90 days' AND o.status IN ('pending', 'authorised', 'captured') ORDER BY o.created_at DESC",
    }),
  },
];

/** The kind of an incident's title; titles of no kind (none in the data) are read as error rates. */
function kindOf(title: string): AlertKind {
  return KINDS.find((kind) => kind.title.test(title)) ?? (KINDS[3] as AlertKind);
}

/** The signals an incident's alerts may carry. */
export function signalsFor(title: string): readonly AlertSignal[] {
  return kindOf(title).signals;
}

/** The value an alert reports: the title's own for the alert that carries it, else the drawn one. */
export function reportedValue(title: string, carriesTitle: boolean, drawn: number): number {
  const stated = carriesTitle ? kindOf(title).titleValue?.exec(title)?.[1] : undefined;
  return stated === undefined ? drawn : Number(stated);
}

/** A string's FNV-1a hash: a body's own seed, from its alert's ID. */
function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** An alert's details and links: check, value and threshold first (GetIncidentContext shows the first lines), then the kind's fields, the source, the runbook and custom fields. */
export function alertBody(title: string, input: BodyInput): { details: AlertDetails; contexts: AlertContext[] } {
  const rng = new Rng(seedOf(input.alertId));
  const { signal, svcSlug } = input;
  const runbook = `https://runbooks.example.com/${svcSlug}/${signal.check}`;
  const dashboard = `https://grafana.example.com/d/${svcSlug}?var-host=${encodeURIComponent(input.host)}&from=${input.createdAt - HOUR}&to=${input.createdAt + HOUR}`;
  const details: AlertDetails = {
    check: signal.check,
    value: `${input.value} ${signal.unit}`,
    threshold: `${signal.threshold} ${signal.unit}`,
    host: input.host,
    ...kindOf(title).fields(input, rng),
    source: `${svcSlug}-monitor`,
    runbook,
    custom: {
      service: input.serviceName,
      environment: 'production',
      region: rng.pick(REGIONS),
      tier: rng.pick(TIERS),
      owner_channel: `#${svcSlug}-oncall`,
    },
  };
  const contexts: AlertContext[] = [
    { type: 'link', href: runbook, text: 'Runbook' },
    { type: 'link', href: dashboard, text: 'Dashboard' },
    ...(rng.chance(0.5) ? [{ type: 'image' as const, src: `https://grafana.example.com/render/d/${svcSlug}/${signal.check}.png`, text: `${signal.check} over the last hour` }] : []),
  ];
  return { details, contexts };
}
