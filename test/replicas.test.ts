/**
 * Two replicas behind nginx, sharing Redis, against one sandbox, all real processes on loopback
 * (test/support/replicas.ts): calls through nginx reach both replicas; state written through
 * one replica (the SearchUsers directory, a rate-limit hold) is seen by the other; and killing
 * a replica (SIGKILL) in the middle of a read load fails no read beyond one bounded retry by the
 * client. Skipped, saying why, only when redis-server or nginx is not installed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createIncidentOpsPlatform } from '../src/sandbox/incidentops/api.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.js';
import { missingPrograms, startReplicaSet, type ReplicaSet } from './support/replicas.js';

const SERVER_KEY = 'replica-test-server-key-0123456789';
const missing = missingPrograms('redis-server', 'nginx');
if (missing) console.log(`# replicas test skipped: ${missing}`);

type Json = Record<string, unknown>;

async function connect(baseUrl: string, server: 'incidentops' | 'canvasapi'): Promise<Client> {
  const client = new Client({ name: 'replicas-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/${server}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${SERVER_KEY}` } } }));
  return client;
}

async function call(client: Client, name: string, args: Json = {}): Promise<{ isError: boolean; data: Json }> {
  const result = await client.callTool({ name, arguments: args });
  // Errors carry their JSON only as text.
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find((part) => part.type === 'text')?.text;
  return { isError: result.isError === true, data: (result.structuredContent as Json | undefined) ?? (JSON.parse(text ?? '{}') as Json) };
}

describe('replicas behind nginx with Redis', { skip: missing }, () => {
  let sandbox: RunningSandbox;
  let set: ReplicaSet;
  /** When set, the incident platform answers 429 (allowed again in 60 s). */
  let rateLimited = false;
  const clients: Client[] = [];
  const client = async (baseUrl: string, server: 'incidentops' | 'canvasapi') => {
    const made = await connect(baseUrl, server);
    clients.push(made);
    return made;
  };

  before(async () => {
    const incidents = createIncidentOpsPlatform({ token: 'sandbox-token', users: 250 });
    sandbox = await startSandbox({
      platforms: [
        {
          prefix: 'incidentops',
          handle: (request) =>
            rateLimited ? { status: 429, headers: { 'ratelimit-reset': '60' }, body: { error: { message: 'Rate Limit Exceeded', code: 2020 } } } : incidents.handle(request),
        },
      ],
    });
    set = await startReplicaSet({
      env: {
        TOOLSERVERS_SERVER_KEY: SERVER_KEY,
        INCIDENTOPS_BASE_URL: sandbox.incidentops.baseUrl,
        INCIDENTOPS_ACCESS_TOKEN: sandbox.incidentops.token,
        CANVASAPI_BASE_URL: sandbox.canvasapi.baseUrl,
        CANVASAPI_ACCESS_TOKEN: sandbox.canvasapi.token,
        TOOLSERVERS_LOG_LEVEL: process.env.REPLICAS_LOG_LEVEL ?? 'warn',
      },
    });
  });

  after(async () => {
    for (const made of clients) await made.close().catch(() => undefined);
    await set?.close();
    await sandbox?.close();
  });

  it('calls through nginx reach both replicas (round robin, no sticky sessions)', async () => {
    const viaNginx = await client(set.publicUrl, 'incidentops');
    for (let i = 0; i < 8; i++) {
      const { isError, data } = await call(viaNginx, 'IncidentOps.WhoAmI');
      assert.equal(isError, false, JSON.stringify(data));
    }
    const served = new Set(set.nginx.accessLog().filter((entry) => entry.uri === '/incidentops/mcp' && entry.status === 200).map((entry) => entry.upstream));
    for (const replica of set.replicas) assert.ok(served.has(replica.address), `${replica.address} served no call: ${[...served].join(' ')}`);
  });

  it('the SearchUsers directory walked through one replica serves the other', async () => {
    const [first, second] = await Promise.all(set.replicas.map((replica) => client(replica.url, 'incidentops')));
    const directoryPages = () => sandbox.requests.filter((request) => request.platform === 'incidentops' && request.path === '/users').length;
    sandbox.clearRequests();
    const there = await call(first!, 'IncidentOps.SearchUsers', { query: 'an' });
    assert.equal(there.isError, false, JSON.stringify(there.data));
    assert.equal(directoryPages(), 3);
    sandbox.clearRequests();
    const here = await call(second!, 'IncidentOps.SearchUsers', { query: 'an' });
    assert.equal(directoryPages(), 0, `the second replica read the directory from Redis\n${set.replicas.map((r) => r.output().split('\n').filter((l) => l.startsWith('{"')).join('\n')).join('\n---\n')}`);
    assert.deepEqual(here.data, there.data);
  });

  it('a rate-limit hold from one replica holds back the other: its request is not sent', async () => {
    const [first, second] = await Promise.all(set.replicas.map((replica) => client(replica.url, 'incidentops')));
    rateLimited = true;
    const limited = await call(first!, 'IncidentOps.ListIncidents', { limit: 1 });
    rateLimited = false;
    assert.equal(limited.isError, true);
    assert.equal((limited.data.error as Json).kind, 'rate_limited');
    sandbox.clearRequests();
    const held = await call(second!, 'IncidentOps.ListIncidents', { limit: 1 });
    assert.equal(held.isError, true);
    assert.equal((held.data.error as Json).kind, 'rate_limited');
    assert.match(String((held.data.error as Json).message), /rate limiting this server.*This request was not sent/);
    assert.equal(sandbox.requests.filter((request) => request.platform === 'incidentops').length, 0, 'nothing reached the platform');
  });

  it('killing a replica in the middle of a read load fails no read beyond one retry by the client', async () => {
    const workers = await Promise.all([0, 1, 2, 3].map(() => client(set.publicUrl, 'canvasapi')));
    const victim = set.replicas[1]!;
    const survivor = set.replicas[0]!;
    let completed = 0;
    let retried = 0;
    const failures: string[] = [];
    let killedAt: number | undefined;
    const logBefore = set.nginx.accessLog().length;
    /** One read with at most one retry, as a client behind a load balancer does. */
    const read = async (worker: Client) => {
      for (let attempt = 1; ; attempt++) {
        try {
          const { isError, data } = await call(worker, 'CanvasApi.GetAccessTokenInfo');
          if (isError) throw new Error(JSON.stringify(data));
          return;
        } catch (error) {
          if (attempt === 2) {
            failures.push(error instanceof Error ? error.message : String(error));
            return;
          }
          retried++;
        }
      }
    };
    await Promise.all(
      workers.map(async (worker) => {
        while (killedAt === undefined || completed < killedAt + 60) {
          await read(worker);
          completed++;
          if (completed === 30 && killedAt === undefined) {
            killedAt = completed;
            void victim.kill();
          }
        }
      }),
    );
    console.log(`# ${completed} reads, ${retried} retried once, ${failures.length} failed`);
    assert.deepEqual(failures, []);
    const entries = set.nginx.accessLog().slice(logBefore).filter((entry) => entry.uri === '/canvasapi/mcp');
    assert.ok(entries.some((entry) => entry.upstream === victim.address && entry.status === 200), 'the killed replica had served reads');
    const last = entries.slice(-20);
    assert.ok(last.every((entry) => entry.upstream.endsWith(survivor.address) && entry.status === 200), `after the kill only ${survivor.address} serves: ${JSON.stringify(last)}`);
  });

  // The OAuth mode adds, on this same set (startReplicaSet takes `--auth oauth --public-url` per replica):
  it.todo('two users sign in through nginx and each sees their own WhoAmI');
  it.todo('a platform token refreshed through one replica is used by the other');
});
