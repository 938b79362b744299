/**
 * Issue 17's "done when", end to end: a real redis-server is killed, stalled (SIGSTOP), paused for
 * writes (`CLIENT PAUSE WRITE`) and filled (`maxmemory` with `noeviction`) under two replicas
 * behind nginx, while two signed-in users call a tool a few times a second (test/support/replicas.ts).
 *
 * OAuth mode shows: every answer during an outage is a success or a clear "unavailable" (503
 * `temporarily_unavailable` with `Retry-After`, or a tool error saying the sign-in store is not
 * answering, naming no host), never a bare 500; an MCP refresh during a write pause, retried after,
 * keeps the grant; a platform token renewed as Redis refuses writes or dies is kept, so nobody has
 * to sign in again; calls work again within seconds of Redis returning; and `/ready` is 503 while
 * Redis stalls or refuses writes, 200 after.
 * Key mode shows: `/ready` stays 200 (`degraded`) while Redis is down or stalled, and every call is
 * served. And nginx, configured as docs/replicas.md shows, passes a replica's 503 and Retry-After
 * on without taking the replica out of rotation.
 *
 * Skipped, saying why, only when redis-server or nginx is not installed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { generateStateKey, STATE_KEY_ENV } from '../src/core/store/sealed.js';
import { DEMO_USER_ID, type RunningSandbox } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { CLIENT_REDIRECT, connectWithOAuth, MemoryOAuthProvider } from './support/oauth-client.js';
import { missingPrograms, startNginx, startReplicaSet, type ReplicaSet } from './support/replicas.js';

const missing = missingPrograms('redis-server', 'nginx');
if (missing) console.log(`# store-outage test skipped: ${missing}`);

type Json = Record<string, unknown>;

/** Platform access tokens live 2 s, so replicas renew them (after 1 s) all through the outages. */
const PLATFORM_TOKEN_SECONDS = 2;
/** Calls must work again this soon after Redis returns (generous: the machine is shared). */
const RECOVERY_LIMIT_MS = 10_000;
/** How long Redis stays stalled or dead: longer than one command may wait (2 s). */
const OUTAGE_MS = 3500;
/** No answer at all within this is a hang. */
const ANSWER_LIMIT_MS = 15_000;
/** What no answer may ever show: the store's address, a sign-out, or a bare server error. */
const FORBIDDEN_TEXT = /redis:\/\/|127\.0\.0\.1:\d+|sign in again|nobody has signed in|invalid_grant|Internal Server Error|oops/i;
const SERVER_KEY = 'store-outage-test-server-key-0123456789';

/** One HTTP answer, as the test saw it. */
interface Answer {
  status: number;
  retryAfter: string | null;
  body: string;
  startedAt: number;
  endedAt: number;
}

async function send(url: string, init: RequestInit): Promise<Answer> {
  const startedAt = Date.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_LIMIT_MS) });
    const body = await response.text();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body, startedAt, endedAt: Date.now() };
  } catch (error) {
    return { status: 0, retryAfter: null, body: `no answer: ${error instanceof Error ? error.message : String(error)}`, startedAt, endedAt: Date.now() };
  }
}

function describeAnswer(answer: Answer): string {
  return `${answer.status}${answer.retryAfter !== null ? ` Retry-After: ${answer.retryAfter}` : ''} ${answer.body.replace(/\s+/g, ' ').slice(0, 240)}`;
}

/** A stateless MCP `tools/call` with a bearer token. */
function mcpCall(endpoint: string, bearer: string, name: string, args: Json = {}): Promise<Answer> {
  return send(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

/** The tool result in an MCP answer (plain JSON or one server-sent event), or undefined. */
function toolResult(answer: Answer): { isError: boolean; data: Json } | undefined {
  if (answer.status !== 200) return undefined;
  const json = answer.body.trimStart().startsWith('{') ? answer.body : answer.body.split('\n').find((line) => line.startsWith('data: '))?.slice('data: '.length);
  try {
    const message = JSON.parse(json ?? '') as { result?: { isError?: boolean; content?: { text?: string }[] } };
    if (!message.result) return undefined;
    return { isError: message.result.isError === true, data: JSON.parse(message.result.content?.[0]?.text ?? '{}') as Json };
  } catch {
    return undefined;
  }
}

/** Why `answer` is not a clear "temporarily unavailable" (503, `temporarily_unavailable`, a `Retry-After` in seconds, no host), or undefined when it is. */
function notClearlyUnavailable(answer: Answer): string | undefined {
  let error: unknown;
  try {
    error = (JSON.parse(answer.body) as Json).error;
  } catch {
    // not JSON
  }
  const clear = answer.status === 503 && error === 'temporarily_unavailable' && /^\d+$/.test(answer.retryAfter ?? '') && !FORBIDDEN_TEXT.test(answer.body);
  return clear ? undefined : describeAnswer(answer);
}

/**
 * Why a WhoAmI answer for `userId` is not acceptable, or undefined: a success as that user, a
 * clear 503, or a tool error saying the sign-in store is not answering (naming no host).
 */
function unacceptableWhoAmI(answer: Answer, userId: string): string | undefined {
  const result = toolResult(answer);
  if (!result) return notClearlyUnavailable(answer);
  if (!result.isError) {
    const id = (result.data.user as Json | undefined)?.id;
    return id === userId ? undefined : `answered as ${String(id)}, not ${userId}`;
  }
  const error = result.data.error as Json | undefined;
  const clear = error?.kind === 'unavailable' && /sign-in store/.test(String(error.message)) && !FORBIDDEN_TEXT.test(JSON.stringify(result.data));
  return clear ? undefined : `tool error: ${JSON.stringify(result.data).slice(0, 300)}`;
}

function succeeded(answer: Answer): boolean {
  const result = toolResult(answer);
  return result !== undefined && !result.isError;
}

/** Each distinct text once, with how often it came. */
function counted(texts: string[]): string[] {
  const counts = new Map<string, number>();
  for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
  return [...counts].map(([text, count]) => (count > 1 ? `${count}× ${text}` : text));
}

interface Sample extends Answer {
  user: string;
  problem: string | undefined;
}

/** Each user calls WhoAmI through nginx every `pauseMs`, one call at a time; every answer is kept and judged. */
class SteadyLoad {
  readonly samples: Sample[] = [];
  private running = true;
  private readonly loops: Promise<void>[];

  constructor(endpoint: string, users: { name: string; id: string; bearer: () => string }[], pauseMs = 250) {
    this.loops = users.map(async (user) => {
      while (this.running) {
        const answer = await mcpCall(endpoint, user.bearer(), 'IncidentOps.WhoAmI');
        this.samples.push({ ...answer, user: user.name, problem: unacceptableWhoAmI(answer, user.id) });
        await sleep(pauseMs);
      }
    });
  }

  /** What was wrong with the answers to calls started at or after `since`. */
  problems(since: number): string[] {
    return counted(this.samples.filter((sample) => sample.startedAt >= since && sample.problem).map((sample) => `a user's call: ${sample.problem}`));
  }

  /**
   * Waits until every user's last three calls started after `since` succeeded; resolves with how
   * long after `since` the first of them started. Fails after `RECOVERY_LIMIT_MS`.
   */
  async recovery(since: number): Promise<number> {
    const users = [...new Set(this.samples.map((sample) => sample.user))];
    for (;;) {
      const starts = users.map((user) => {
        const last = this.samples.filter((sample) => sample.user === user && sample.startedAt >= since).slice(-3);
        return last.length === 3 && last.every(succeeded) ? last[0]!.startedAt : undefined;
      });
      if (starts.every((start) => start !== undefined)) return Math.max(...starts) - since;
      if (Date.now() - since > RECOVERY_LIMIT_MS + 3000) {
        const recent = this.samples.filter((sample) => sample.startedAt >= since).slice(-6);
        assert.fail(`calls did not work again within ${RECOVERY_LIMIT_MS} ms of Redis returning; last answers:\n${recent.map((sample) => `${sample.user}: ${describeAnswer(sample)}`).join('\n')}`);
      }
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

async function readiness(baseUrl: string): Promise<{ status: number; state: unknown }> {
  const answer = await send(`${baseUrl}/ready`, {});
  let state: unknown;
  try {
    state = (JSON.parse(answer.body) as Json).status;
  } catch {
    state = answer.body;
  }
  return { status: answer.status, state };
}

/** Polls `/ready` of every replica until each answers `status` (bounded), and returns what they answered. */
async function readinessBecomes(set: ReplicaSet, status: number, limitMs = RECOVERY_LIMIT_MS): Promise<{ status: number; state: unknown }[]> {
  const started = Date.now();
  for (;;) {
    const answers = await Promise.all(set.replicas.map((replica) => readiness(replica.url)));
    if (answers.every((answer) => answer.status === status) || Date.now() - started > limitMs) return answers;
    await sleep(200);
  }
}

async function waitUntil(what: string, condition: () => boolean, limitMs = RECOVERY_LIMIT_MS): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) assert.fail(`${what} did not happen within ${limitMs} ms`);
    await sleep(50);
  }
}

/** What an outage test found wrong, asserted empty at its end: one run reports every problem at once. */
class Findings {
  readonly list: string[] = [];

  add(...problems: string[]): void {
    this.list.push(...problems);
  }

  expect(what: string, problem: string | undefined): void {
    if (problem) this.list.push(`${what}: ${problem}`);
  }

  same(what: string, actual: unknown, expected: unknown): void {
    if (!isDeepStrictEqual(actual, expected)) this.list.push(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
  }
}

const READY = [
  { status: 200, state: 'ready' },
  { status: 200, state: 'ready' },
];
const NOT_READY = [
  { status: 503, state: 'not ready' },
  { status: 503, state: 'not ready' },
];

/**
 * The platform's token endpoint behind a relay that can run a step (kill or fill Redis) after the
 * platform has answered a refresh and before the replica hears it: the platform has rotated the
 * refresh token, and the replica must now store a new pair in a store that is failing.
 */
class TokenRelay {
  private server: Server | undefined;
  url = '';
  /** Runs once, on the next refresh the platform grants. */
  private onRenewed: (() => Promise<void>) | undefined;
  /** Every refresh the platform answered: its status and error (invalid_grant means a replica used a rotated refresh token). */
  readonly refreshes: { status: number; error?: string }[] = [];

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void (async () => {
          const body = Buffer.concat(chunks).toString();
          const headers: Record<string, string> = {};
          for (const name of ['content-type', 'authorization', 'accept']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
          const answer = await fetch(this.target, { method: req.method ?? 'POST', headers, body });
          const text = await answer.text();
          if (new URLSearchParams(body).get('grant_type') === 'refresh_token') {
            let error: string | undefined;
            try {
              error = (JSON.parse(text) as { error?: string }).error;
            } catch {
              // not JSON
            }
            this.refreshes.push({ status: answer.status, ...(error ? { error } : {}) });
            const step = answer.status === 200 ? this.onRenewed : undefined;
            if (step) {
              this.onRenewed = undefined;
              await step();
            }
          }
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json', 'cache-control': 'no-store' });
          res.end(text);
        })().catch(() => {
          res.writeHead(502).end();
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/token`;
  }

  /** Resolves once `step` has run, after the platform granted the next refresh; fails when no renewal comes within `limitMs`. */
  afterNextRenewal(step: () => Promise<void>, limitMs = RECOVERY_LIMIT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.onRenewed = undefined;
        reject(new Error(`no platform token renewal within ${limitMs} ms`));
      }, limitMs);
      this.onRenewed = () => step().then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('nginx in front of replicas that answer 503 while the store is down', { skip: missing }, () => {
  it('passes each 503 and its Retry-After on, and does not take the replicas out of rotation for them (no "no live upstreams" 502 once they answer again)', async () => {
    let storeDown = true;
    const replicas = await Promise.all(
      [1, 2].map(
        () =>
          new Promise<Server>((resolve) => {
            const server = createServer((req, res) => {
              req.resume();
              req.on('end', () => {
                if (storeDown) res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' }).end(JSON.stringify({ error: 'temporarily_unavailable' }));
                else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
              });
            });
            server.listen(0, '127.0.0.1', () => resolve(server));
          }),
      ),
    );
    const nginx = await startNginx({ upstreams: replicas.map((server) => `127.0.0.1:${(server.address() as AddressInfo).port}`) });
    try {
      const during: Answer[] = [];
      for (let i = 0; i < 3; i++) for (const method of ['POST', 'GET']) during.push(await send(`${nginx.url}/incidentops/mcp`, { method, ...(method === 'POST' ? { body: '{}' } : {}) }));
      storeDown = false;
      const afterwards = await send(`${nginx.url}/incidentops/mcp`, { method: 'POST', body: '{}' });
      assert.deepEqual(during.map(notClearlyUnavailable), during.map(() => undefined), during.map(describeAnswer).join('\n'));
      assert.equal(afterwards.status, 200, describeAnswer(afterwards));
    } finally {
      await nginx.close();
      for (const server of replicas) server.close();
    }
  });
});

describe('key mode: Redis down or stalled under two replicas', { skip: missing }, () => {
  let sandbox: RunningSandbox;
  let set: ReplicaSet;
  let load: SteadyLoad;

  before(async () => {
    sandbox = await startTestSandbox();
    set = await startReplicaSet({
      env: {
        TOOLSERVERS_SERVER_KEY: SERVER_KEY,
        INCIDENTOPS_BASE_URL: sandbox.incidentops.baseUrl,
        INCIDENTOPS_ACCESS_TOKEN: sandbox.incidentops.token,
        CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl,
        CANVASAPI_ACCESS_TOKEN: sandbox.canvasapi.token,
      },
    });
    const caller = { id: DEMO_USER_ID, bearer: () => SERVER_KEY };
    load = new SteadyLoad(`${set.publicUrl}/incidentops/mcp`, [
      { name: 'first caller', ...caller },
      { name: 'second caller', ...caller },
    ]);
  });

  after(async () => {
    await load?.stop();
    await set?.close();
    await sandbox?.close();
  });

  it('stays ready (200, degraded) while Redis is killed and while it is stalled, serves every call, and is plainly ready again once Redis is back', async () => {
    assert.deepEqual(await readinessBecomes(set, 200), [
      { status: 200, state: 'ready' },
      { status: 200, state: 'ready' },
    ]);
    const seen: { status: number; state: unknown }[] = [];
    await set.redis.kill();
    try {
      for (let i = 0; i < 3; i++) {
        seen.push(...(await Promise.all(set.replicas.map((replica) => readiness(replica.url)))));
        await sleep(300);
      }
    } finally {
      await set.redis.restart({ keepData: false });
    }
    assert.deepEqual(await readinessBecomes(set, 200), [
      { status: 200, state: 'ready' },
      { status: 200, state: 'ready' },
    ]);
    set.redis.pause();
    try {
      seen.push(...(await Promise.all(set.replicas.map((replica) => readiness(replica.url)))));
    } finally {
      set.redis.resume();
    }
    assert.deepEqual(seen, seen.map(() => ({ status: 200, state: 'degraded' })), 'degraded, still ready, while Redis was down or stalled');
    const calls = load.samples.length;
    const sinceBack = Date.now();
    await waitUntil('a few more calls', () => load.samples.length >= calls + 6);
    const readyAgain = await readinessBecomes(set, 200);
    const plainlyReady = Date.now() - sinceBack;
    assert.deepEqual(readyAgain, [
      { status: 200, state: 'ready' },
      { status: 200, state: 'ready' },
    ]);
    console.log(`# key mode: ${load.samples.length} calls, ready again ${plainlyReady} ms after Redis continued`);
    assert.deepEqual(
      load.samples.filter((sample) => !succeeded(sample)).map(describeAnswer),
      [],
      'every key-mode call was served through the outage',
    );
  });
});

describe('OAuth mode: Redis killed, stalled, paused for writes and filled under two replicas', { skip: missing }, () => {
  let sandbox: RunningSandbox;
  let set: ReplicaSet;
  let relay: TokenRelay;
  let load: SteadyLoad;
  const stateKey = generateStateKey();
  const users: { name: string; id: string; provider: MemoryOAuthProvider }[] = [];
  /** MCP endpoint through nginx: what clients use, and the resource every token is bound to. */
  const endpoint = () => `${set.publicUrl}/incidentops/mcp`;

  async function signIn(loginHint: string): Promise<MemoryOAuthProvider> {
    const provider = new MemoryOAuthProvider(loginHint);
    const client = await connectWithOAuth(endpoint(), provider);
    await client.close();
    return provider;
  }

  function tokenRequest(form: Record<string, string>, baseUrl = set.publicUrl): Promise<Answer> {
    return send(`${baseUrl}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  }

  /** A refresh grant through nginx, or to one replica (`baseUrl`). */
  function refresh(provider: MemoryOAuthProvider, refreshToken: string, baseUrl?: string): Promise<Answer> {
    return tokenRequest({ grant_type: 'refresh_token', client_id: String(provider.clientInfo.client_id), resource: endpoint(), refresh_token: refreshToken }, baseUrl);
  }

  function register(): Promise<Answer> {
    return send(`${set.publicUrl}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'store outage test', redirect_uris: [CLIENT_REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }),
    });
  }

  /**
   * While the store is failing, through nginx: an MCP call with a token no replica has seen, a
   * refresh and a registration are each a clear 503 (only the store can tell whether such a token
   * is valid); a user's own call is a success (a replica may know the token already) or a clear
   * "unavailable". Returns what was wrong.
   */
  async function outageAnswers(): Promise<string[]> {
    const [user] = users;
    const [unknown, own, token, registration] = await Promise.all([
      // Shaped like the server's opaque access tokens.
      mcpCall(endpoint(), randomBytes(32).toString('base64url'), 'IncidentOps.WhoAmI'),
      mcpCall(endpoint(), String(user!.provider.savedTokens.access_token), 'IncidentOps.WhoAmI'),
      refresh(user!.provider, randomBytes(32).toString('base64url')),
      register(),
    ]);
    const findings = new Findings();
    findings.expect('MCP call with a token the store must look up', notClearlyUnavailable(unknown));
    findings.expect("a user's MCP call", unacceptableWhoAmI(own, user!.id));
    findings.expect('/oauth/token', notClearlyUnavailable(token));
    findings.expect('/oauth/reg', notClearlyUnavailable(registration));
    return findings.list;
  }

  async function fill(): Promise<void> {
    assert.match(await set.redis.command('CONFIG', 'SET', 'maxmemory-policy', 'noeviction'), /^\+OK/);
    assert.match(await set.redis.command('CONFIG', 'SET', 'maxmemory', '1'), /^\+OK/);
  }

  async function unfill(): Promise<void> {
    assert.match(await set.redis.command('CONFIG', 'SET', 'maxmemory', '0'), /^\+OK/);
  }

  const readinessOfAll = () => Promise.all(set.replicas.map((replica) => readiness(replica.url)));

  /** Calls must work again within RECOVERY_LIMIT_MS of `back`. */
  async function recoveryProblems(back: number, event: string): Promise<string[]> {
    try {
      const recovered = await load.recovery(back);
      console.log(`# calls worked again ${recovered} ms after ${event}`);
      return [];
    } catch (error) {
      return [error instanceof Error ? error.message : String(error)];
    }
  }

  /**
   * The client retries the refresh it sent during the outage (it never got the answer), then goes
   * on: the new access token serves calls and the new refresh token refreshes. Any break in that
   * chain signs the user out.
   */
  async function refreshChainProblems(provider: MemoryOAuthProvider, when: string): Promise<string[]> {
    const retried = await refresh(provider, String(provider.savedTokens.refresh_token));
    if (retried.status !== 200) return [`the refresh retried ${when}: ${describeAnswer(retried)}`];
    const tokens = JSON.parse(retried.body) as Json;
    const call = await mcpCall(endpoint(), String(tokens.access_token), 'IncidentOps.WhoAmI');
    if (!succeeded(call)) return [`a call with the retried refresh's access token: ${describeAnswer(call)}`];
    const next = await refresh(provider, String(tokens.refresh_token));
    if (next.status !== 200) return [`the refresh after that: ${describeAnswer(next)}`];
    provider.saveTokens(JSON.parse(next.body));
    return [];
  }

  /** Past two more platform renewals every user's calls succeed: the refresh token the platform rotated last is the one the replicas use. */
  async function afterTwoRenewals(): Promise<string[]> {
    const count = load.samples.length;
    await sleep(PLATFORM_TOKEN_SECONDS * 1000 + 500);
    return counted(
      load.samples
        .slice(count)
        .filter((sample) => !succeeded(sample))
        .map((sample) => `a user's call after recovery: ${describeAnswer(sample)}`),
    );
  }

  before(async () => {
    sandbox = await startTestSandbox({ oauth: { tokenLifetimeSeconds: PLATFORM_TOKEN_SECONDS } });
    const { incidentops, canvasapi } = sandbox.oauth;
    relay = new TokenRelay(incidentops.tokenUrl);
    await relay.start();
    set = await startReplicaSet({
      redis: { appendOnly: true },
      env: {
        [STATE_KEY_ENV]: stateKey,
        INCIDENTOPS_BASE_URL: sandbox.incidentops.baseUrl,
        INCIDENTOPS_CLIENT_ID: incidentops.clientId,
        INCIDENTOPS_CLIENT_SECRET: incidentops.clientSecret,
        INCIDENTOPS_AUTHORIZE_URL: incidentops.authorizeUrl,
        INCIDENTOPS_TOKEN_URL: relay.url,
        CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl,
        CANVASAPI_CLIENT_ID: canvasapi.clientId,
        CANVASAPI_CLIENT_SECRET: canvasapi.clientSecret,
        CANVASAPI_AUTHORIZE_URL: canvasapi.authorizeUrl,
        CANVASAPI_TOKEN_URL: canvasapi.tokenUrl,
        TOOLSERVERS_LOG_LEVEL: process.env.REPLICAS_LOG_LEVEL ?? 'warn',
      },
      args: ({ publicUrl }) => ['--auth', 'oauth', '--public-url', publicUrl],
    });
    const response = await fetch(`${sandbox.incidentops.baseUrl}/users?limit=5`, {
      headers: { authorization: `Bearer ${sandbox.incidentops.token}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
    });
    const other = ((await response.json()) as { users: { id: string; email: string }[] }).users.find((user) => user.id !== DEMO_USER_ID);
    assert.ok(other, 'the sandbox has a second user');
    users.push({ name: 'alice', id: DEMO_USER_ID, provider: await signIn('demo.user@example.com') });
    users.push({ name: 'bob', id: other.id, provider: await signIn(other.email) });
    load = new SteadyLoad(
      endpoint(),
      users.map((user) => ({ name: user.name, id: user.id, bearer: () => String(user.provider.savedTokens.access_token) })),
    );
    await waitUntil('the first calls', () => load.samples.filter(succeeded).length >= 4);
  });

  after(async () => {
    await load?.stop();
    if (set) console.log(`# OAuth mode: ${load?.samples.length ?? 0} calls, ${load?.samples.filter(succeeded).length ?? 0} succeeded; platform refreshes: ${relay.refreshes.length}, refused: ${JSON.stringify(relay.refreshes.filter((r) => r.status !== 200))}`);
    await set?.close();
    await relay?.close();
    await sandbox?.close();
  });

  it('Redis stalled (SIGSTOP): MCP, /oauth/token and /oauth/reg answer 503 temporarily_unavailable with Retry-After; /ready is 503; calls work again within seconds of SIGCONT', async () => {
    const findings = new Findings();
    const start = Date.now();
    set.redis.pause();
    try {
      const [problems, ready] = await Promise.all([outageAnswers(), readinessOfAll()]);
      findings.add(...problems);
      findings.same('/ready while Redis stalled', ready, NOT_READY);
      // Longer than a command may wait (2 s), so that the users' calls meet the stall too.
      await sleep(Math.max(0, start + OUTAGE_MS - Date.now()));
    } finally {
      set.redis.resume();
    }
    findings.add(...(await recoveryProblems(Date.now(), 'SIGCONT')));
    findings.add(...load.problems(start));
    findings.same('/ready after', await readinessBecomes(set, 200), READY);
    assert.deepEqual(findings.list, []);
  });

  it('Redis pausing writes (CLIENT PAUSE WRITE): /ready is 503 while PING answers; an MCP refresh answers 503, and its retry afterwards is no reuse: the grant lives on', async () => {
    const findings = new Findings();
    const start = Date.now();
    const carol = await signIn('demo.user@example.com');
    // A replica that serves no other call: the refresh's use of its token is the first write it stalls on, as in issue 17.
    const quiet = await set.startAnother();
    const pauseMs = 4000;
    assert.match(await set.redis.command('CLIENT', 'PAUSE', String(pauseMs), 'WRITE'), /^\+OK/);
    const pausedAt = Date.now();
    const [during, ready] = await Promise.all([refresh(carol, String(carol.savedTokens.refresh_token), quiet.url), readinessOfAll()]);
    assert.match(await set.redis.command('PING'), /^\+PONG/, 'reads still answer');
    findings.same('/ready while writes were paused', ready, NOT_READY);
    findings.expect('the refresh during the pause', notClearlyUnavailable(during));
    await sleep(Math.max(0, pausedAt + pauseMs + 300 - Date.now()));
    findings.add(...(await refreshChainProblems(carol, 'after the pause')));
    findings.same('/ready after', await readinessBecomes(set, 200), READY);
    findings.add(...load.problems(start));
    assert.deepEqual(findings.list, []);
  });

  it('Redis full (writes refused with OOM) as a platform token is renewed: /ready is 503, /oauth/token and /oauth/reg answer 503; the renewed pair is kept and nobody is signed out', async () => {
    const findings = new Findings();
    const start = Date.now();
    const dave = await signIn('demo.user@example.com');
    await relay.afterNextRenewal(fill);
    const filledAt = Date.now();
    try {
      assert.match(await set.redis.command('SET', 'outage-probe', 'x'), /^-OOM/, 'writes are refused');
      const [registration, during, ready] = await Promise.all([register(), refresh(dave, String(dave.savedTokens.refresh_token)), readinessOfAll()]);
      findings.expect('/oauth/reg while Redis refused writes', notClearlyUnavailable(registration));
      findings.expect('a refresh while Redis refused writes', notClearlyUnavailable(during));
      findings.same('/ready while Redis refused writes', ready, NOT_READY);
      // Longer than a platform token lives: calls must go on with the pair the store refused.
      await sleep(Math.max(0, filledAt + PLATFORM_TOKEN_SECONDS * 1000 + 500 - Date.now()));
    } finally {
      await unfill();
    }
    findings.add(...(await recoveryProblems(Date.now(), 'writes were accepted again')));
    findings.add(...(await refreshChainProblems(dave, 'after writes were accepted again')));
    findings.add(...(await afterTwoRenewals()));
    findings.add(...load.problems(start));
    assert.deepEqual(findings.list, []);
  });

  it('Redis killed as a platform token is renewed, restarted with its AOF: MCP and /oauth answer 503 while it is down; the renewed pair is kept; calls work again within seconds', async () => {
    const findings = new Findings();
    const start = Date.now();
    await relay.afterNextRenewal(() => set.redis.kill());
    const killedAt = Date.now();
    try {
      const [problems, ready] = await Promise.all([outageAnswers(), readinessOfAll()]);
      findings.add(...problems);
      findings.same('/ready while Redis was down', ready, NOT_READY);
      await sleep(Math.max(0, killedAt + OUTAGE_MS - Date.now()));
    } finally {
      await set.redis.restart({ keepData: true });
    }
    findings.add(...(await recoveryProblems(Date.now(), 'Redis restarted')));
    findings.add(...(await afterTwoRenewals()));
    findings.add(...load.problems(start));
    assert.deepEqual(findings.list, []);
  });

  it('Redis restarted without its data: MCP tokens are refused with 401 (never a 500), and a new sign-in works', async () => {
    await load.stop();
    await set.redis.restart({ keepData: false });
    const [user] = users;
    const old = await mcpCall(endpoint(), String(user!.provider.savedTokens.access_token), 'IncidentOps.WhoAmI');
    assert.equal(old.status, 401, describeAnswer(old));
    const again = await signIn('demo.user@example.com');
    assert.ok(succeeded(await mcpCall(endpoint(), String(again.savedTokens.access_token), 'IncidentOps.WhoAmI')));
  });
});
