/**
 * IncidentOps fit for real agents: a small tool list that says each convention once, profiles,
 * results bounded on a large account (a 1,900-member team, incidents at limit 50), compact
 * references, progress over MCP, and what a cut page says about getting the rest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { contextSize, countTokens } from '../src/core/tools/context-size.js';
import { buildMcpServer, listTools, viewFor, type AnyToolServer } from '../src/core/tools/registry.js';
import { RESULT_BUDGET_BYTES, TRUNCATION_KEY } from '../src/core/tools/result-budget.js';
import type { IncidentOpsDeps } from '../src/incidentops/deps.js';
import { INCIDENTOPS_INSTRUCTIONS } from '../src/incidentops/index.js';
import { LIST_TRUNCATION_HINT } from '../src/incidentops/shape.js';
import { TEAM_LIST_CAP } from '../src/incidentops/tools/get-team.js';
import { UserDirectory } from '../src/incidentops/user-directory.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, incidentOpsServerFor, jsonResponse, scriptedFetch, startTestSandbox } from './support/harness.js';

type Json = Record<string, unknown>;

const BIG_ACCOUNT_USERS = 10_000;
const LIST_TOOLS = ['ListIncidents', 'ListLogEntries', 'ListEscalationPolicies', 'ListServices', 'ListSchedules', 'ListOnCalls', 'ListUsers', 'ListTeams'];

let big: RunningSandbox;
let bigServer: AnyToolServer;

before(async () => {
  big = await startTestSandbox({ incidentops: { users: BIG_ACCOUNT_USERS } });
  bigServer = incidentOpsServerFor(big);
});
after(async () => {
  await big.close();
});

async function ok(server: AnyToolServer, name: string, args: Json = {}): Promise<{ data: Json; bytes: number; text: string }> {
  const result = await callTool(server, `IncidentOps.${name}`, args);
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.data)}`);
  const first = result.raw.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  return { data: result.data, bytes: Buffer.byteLength(text), text };
}

/** An MCP client connected in memory to a fresh protocol server; counts the progress notifications it receives. */
async function connect(server: AnyToolServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await buildMcpServer(viewFor(server)).connect(serverSide);
  const client = new Client({ name: 'agent-fit-test', version: '1' });
  await client.connect(clientSide);
  let progressNotifications = 0;
  const deliver = clientSide.onmessage;
  clientSide.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'notifications/progress') progressNotifications++;
    deliver?.(message, extra);
  };
  return { client, progressNotifications: () => progressNotifications };
}

/**
 * Where `html_url` may appear: on a record at the top of the result (`team`, `incident`) or on an
 * item of a top-level list (`incidents[3]`), never inside one. Nested objects with an id are
 * references: id and name (plus the kind, or when someone was assigned or acknowledged).
 */
function assertCompactReferences(value: unknown, tool: string, path = ''): void {
  if (Array.isArray(value)) return value.forEach((item, index) => assertCompactReferences(item, tool, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return;
  const record = value as Json;
  const topLevel = /^[a-z_]+(\[\d+\])?$/.test(path);
  if ('html_url' in record) assert.ok(topLevel, `${tool}: html_url inside a record at ${path}`);
  if (!topLevel && path !== '' && typeof record.id === 'string') {
    const extra = Object.keys(record).filter((key) => !['id', 'name', 'type', 'assigned_at', 'acknowledged_at'].includes(key));
    assert.deepEqual(extra, [], `${tool}: reference at ${path} carries more than id and name`);
  }
  for (const [key, child] of Object.entries(record)) assertCompactReferences(child, tool, path ? `${path}.${key}` : key);
}

describe('what the agent is shown', () => {
  const server = incidentOpsServerFor(undefined);

  it('the tool list fits in 6 KB model-visible and 9 KB whole, every parameter described, all four hints explicit', async () => {
    const listing = listTools(server);
    const size = await contextSize(listing);
    assert.equal(size.tools, 14);
    assert.ok(size.modelVisibleBytes <= 6_000, `model-visible ${size.modelVisibleBytes} B`);
    assert.ok(size.listBytes <= 9_000, `tools/list ${size.listBytes} B (${size.listTokens} tokens)`);
    for (const tool of listing) {
      assert.deepEqual(tool.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true }, tool.name);
      for (const [name, property] of Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>)) {
        assert.ok((property.description ?? '').length >= 10, `${tool.name}.${name} is described`);
      }
    }
  });

  it('says the shared conventions once, in the instructions, and not again in every tool', () => {
    for (const convention of ['limit (1-50, default 10)', 'offset', 'next_offset', 'ISO 8601', 'IANA', 'IncidentOps.SearchUsers', 'IncidentOps.WhoAmI', 'html_url', 'result_truncated']) {
      assert.ok(INCIDENTOPS_INSTRUCTIONS.includes(convention), `the instructions mention ${convention}`);
    }
    const listed = JSON.stringify(listTools(server).map((tool) => [tool.description, tool.inputSchema]));
    for (const repeated of ['ISO 8601', 'next_offset', 'IANA', 'e.g.']) assert.ok(!listed.includes(repeated), `no tool repeats "${repeated}"`);
  });

  it('advertises output schemas only where the top-level shape is the tool’s own', () => {
    const withSchema = listTools(server)
      .filter((tool) => tool.outputSchema)
      .map((tool) => tool.name)
      .sort();
    assert.deepEqual(withSchema, ['IncidentOps.GetTeam', 'IncidentOps.SearchUsers', 'IncidentOps.WhoAmI']);
    const getTeam = listTools(server).find((tool) => tool.name === 'IncidentOps.GetTeam')!;
    assert.deepEqual(Object.keys(getTeam.outputSchema?.properties ?? {}), ['team', 'members', 'member_count', 'services', 'escalation_policies', 'partial']);
  });

  it('still checks every result in full against its output schema', async () => {
    const { fetch } = scriptedFetch((url) =>
      url.pathname.endsWith('/incidents')
        ? jsonResponse(200, { incidents: [{ title: 'a record without an id' }], limit: 10, offset: 0, more: false })
        : jsonResponse(200, { team: { id: 'PT1', name: 'T' }, members: [{ role: 'responder', user: { name: 'no id' } }], services: [], escalation_policies: [], limit: 100, offset: 0, more: false, total: 1 }),
    );
    const broken = incidentOpsServerFor(undefined, { baseUrl: 'https://io.invalid', accessToken: 't', fetch });
    for (const [tool, args] of [
      ['IncidentOps.ListIncidents', {}],
      ['IncidentOps.GetTeam', { team_id: 'PT1' }],
    ] as const) {
      const result = await callTool(broken, tool, args);
      assert.equal(result.isError, true, tool);
      // Records without an id are the platform's wrong shape: reported as an upstream error, never passed on.
      assert.equal(result.data.kind, 'upstream_error', tool);
      assert.match(String(result.data.message), /has no id/, tool);
    }
  });

  it('offers the everyday profile (the 14 contract tools and the 5 task tools) and no-enterprise (the 14)', () => {
    for (const [profile, count] of [['everyday', 19], ['no-enterprise', 14]] as const) {
      const view = viewFor(server, { selections: [{ profile }] });
      assert.equal(view.listing.length, count, profile);
      assert.ok(server.profiles?.[profile]?.description, `${profile} is described`);
    }
  });

  it('gives every list tool a truncation hint that does not skip the cut records', () => {
    for (const name of LIST_TOOLS) {
      const tool = server.tools.find((t) => t.name === `IncidentOps.${name}`)!;
      assert.equal(tool.truncationHint, LIST_TRUNCATION_HINT, name);
    }
    assert.match(LIST_TRUNCATION_HINT, /offset/);
    assert.match(LIST_TRUNCATION_HINT, /returned/);
    assert.match(LIST_TRUNCATION_HINT, /smaller limit/);
  });
});

describe('bounded results on a large account', () => {
  it('GetTeam on a team of over 1,000 members lists the first 100, counts them all and says how to reach the rest', async () => {
    const teams = (await ok(bigServer, 'ListTeams', { limit: 50 })).data.teams as Json[];
    let largest: { id: string; result: { data: Json; bytes: number } } | undefined;
    for (const team of teams) {
      const result = await ok(bigServer, 'GetTeam', { team_id: team.id });
      assert.ok(result.bytes < 20_000, `GetTeam ${String(team.id)}: ${result.bytes} bytes`);
      if (!largest || (result.data.member_count as number) > (largest.result.data.member_count as number)) largest = { id: String(team.id), result };
    }
    assert.ok(largest);
    const { data } = largest.result;
    const memberCount = data.member_count as number;
    assert.ok(memberCount >= 1_000, `the sandbox has a team of ${memberCount} members`);
    const members = data.members as Json[];
    assert.equal(members.length, TEAM_LIST_CAP);
    for (const member of members) assert.deepEqual(Object.keys(member).filter((k) => !['id', 'name', 'email', 'team_role'].includes(k)), []);
    const partial = data.partial as Json[];
    assert.deepEqual(
      partial.map((p) => [p.list, p.returned, p.total]),
      [['members', TEAM_LIST_CAP, memberCount]],
    );
    const nextStep = String(partial[0]!.next_step);
    assert.match(nextStep, /IncidentOps\.SearchUsers/);
    assert.match(nextStep, /IncidentOps\.ListUsers/);
    assert.ok(nextStep.includes(largest.id));
    assert.equal(data[TRUNCATION_KEY], undefined, 'bounded by the tool, not cut by the budget');

    // The way the note describes works: a member beyond the first 100 is found through ListUsers and SearchUsers.
    const shown = new Set(members.map((m) => m.id));
    let other: Json | undefined;
    for (let offset = 0; !other && offset < 1_000; offset += 50) {
      const page = (await ok(bigServer, 'ListUsers', { limit: 50, offset })).data.users as Json[];
      other = page.find((user) => !shown.has(user.id) && (user.teams as Json[] | undefined)?.some((t) => t.id === largest.id));
    }
    assert.ok(other, 'ListUsers shows members that GetTeam left out, with their teams');
    const search = await ok(bigServer, 'SearchUsers', { query: String(other.email) });
    const top = (search.data.matches as Json[])[0]!;
    assert.equal(top.id, other.id);
    assert.ok((top.teams as Json[]).some((t) => t.id === largest.id), 'SearchUsers shows the team');
  });

  it('GetTeam caps services and escalation policies the same way, and copes without a platform total', async () => {
    const items = (n: number, kind: string) => Array.from({ length: n }, (_, i) => ({ id: `P${kind}${i}`, name: `${kind} ${i}`, status: 'active', html_url: `https://x.example/${kind}/${i}` }));
    const { fetch, calls } = scriptedFetch((url) => {
      const path = url.pathname;
      if (path.endsWith('/teams/PT1')) return jsonResponse(200, { team: { id: 'PT1', name: 'Huge', html_url: 'https://x.example/teams/PT1' } });
      if (path.endsWith('/members')) {
        return jsonResponse(200, { members: items(100, 'U').map((user) => ({ role: 'responder', user: { ...user, email: 'u@example.com' } })), limit: 100, offset: 0, more: true, total: null });
      }
      if (path.endsWith('/services')) return jsonResponse(200, { services: items(100, 'S'), limit: 100, offset: 0, more: true, total: 250 });
      return jsonResponse(200, { escalation_policies: items(100, 'E'), limit: 100, offset: 0, more: true, total: 120 });
    });
    const server = incidentOpsServerFor(undefined, { baseUrl: 'https://io.invalid', accessToken: 't', fetch });
    const result = await ok(server, 'GetTeam', { team_id: 'PT1' });
    assert.equal(calls.length, 4, 'one request per list');
    assert.ok(result.bytes < 30_000, `${result.bytes} bytes`);
    assert.equal(result.data.member_count, undefined, 'no count when the platform gives none');
    assert.deepEqual(
      (result.data.partial as Json[]).map((p) => [p.list, p.returned, p.total]),
      [
        ['members', 100, undefined],
        ['services', 100, 250],
        ['escalation_policies', 100, 120],
      ],
    );
    assert.match(String((result.data.partial as Json[])[1]!.next_step), /IncidentOps\.ListServices/);
    assert.match(String((result.data.partial as Json[])[2]!.next_step), /IncidentOps\.ListEscalationPolicies/);
    assertCompactReferences(result.data, 'GetTeam');
  });

  it('ListIncidents at limit 50 stays under 10,000 tokens, on the default and the large account', async () => {
    const small = await startTestSandbox();
    try {
      for (const [label, server] of [
        ['default account', incidentOpsServerFor(small)],
        ['10,000 users', bigServer],
      ] as const) {
        const result = await ok(server, 'ListIncidents', { limit: 50 });
        assert.equal((result.data.incidents as Json[]).length, 50, label);
        const tokens = await countTokens(result.text);
        assert.ok(tokens < 10_000, `${label}: ${tokens} tokens`);
        assertCompactReferences(result.data, 'ListIncidents');
      }
    } finally {
      await small.close();
    }
  });

  it('no tool result exceeds the budget or needs cutting, and references are compact everywhere', async () => {
    const first = async (tool: string, key: string) => ((await ok(bigServer, tool, { limit: 50 })).data[key] as Json[])[0]!.id;
    const soon = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const teams = ((await ok(bigServer, 'ListTeams', { limit: 50 })).data.teams as Json[]).map((t) => t.id);
    const calls: [string, Json][] = [
      ['WhoAmI', {}],
      ['ListIncidents', { limit: 50 }],
      ['ListIncidents', { limit: 50, status: 'resolved' }],
      ['GetIncident', { incident_id: await first('ListIncidents', 'incidents') }],
      ['ListLogEntries', { limit: 50 }],
      ['ListLogEntries', { limit: 50, is_overview: false }],
      ['ListEscalationPolicies', { limit: 50 }],
      ['GetEscalationPolicy', { escalation_policy_id: await first('ListEscalationPolicies', 'escalation_policies') }],
      ['ListServices', { limit: 50 }],
      ['GetService', { service_id: await first('ListServices', 'services') }],
      ['ListSchedules', { limit: 50 }],
      ['ListOnCalls', { limit: 50 }],
      ['ListOnCalls', { limit: 50, until: soon, team_ids: teams }],
      ['ListUsers', { limit: 50 }],
      ['SearchUsers', { query: 'a' }],
      ['SearchUsers', { query: 'Demo User', auto_accept_matches: true }],
      ['ListTeams', { limit: 50 }],
      ...teams.map((team_id): [string, Json] => ['GetTeam', { team_id }]),
    ];
    for (const [tool, args] of calls) {
      const result = await ok(bigServer, tool, args);
      assert.ok(result.bytes <= RESULT_BUDGET_BYTES, `${tool} ${JSON.stringify(args)}: ${result.bytes} bytes`);
      assert.equal(result.data[TRUNCATION_KEY], undefined, `${tool} ${JSON.stringify(args)} was cut`);
      assertCompactReferences(result.data, tool);
    }
  });

  it('a page cut by the budget says how to continue without skipping records', async () => {
    const incidents = Array.from({ length: 50 }, (_, i) => ({ id: `PI${i}`, incident_number: i, title: `${'long title '.repeat(300)}${i}`, status: 'triggered' }));
    const { fetch, calls } = scriptedFetch(() => jsonResponse(200, { incidents, limit: 50, offset: 0, more: true }));
    const server = incidentOpsServerFor(undefined, { baseUrl: 'https://io.invalid', accessToken: 't', fetch });
    const result = await callTool(server, 'IncidentOps.ListIncidents', { limit: 50 });
    const note = result.data[TRUNCATION_KEY] as Json;
    assert.equal(note.list, 'incidents');
    assert.equal(note.next_step, LIST_TRUNCATION_HINT);
    const returned = note.returned as number;
    assert.ok(returned > 0 && returned < 50);
    assert.deepEqual(
      (result.data.incidents as Json[]).map((i) => i.id),
      incidents.slice(0, returned).map((i) => i.id),
    );
    // As the hint says: the next call starts right after the last record shown.
    await callTool(server, 'IncidentOps.ListIncidents', { limit: 50, offset: 0 + returned });
    assert.equal(calls.at(-1)!.url.searchParams.get('offset'), String(returned));
  });
});

describe('progress over MCP', () => {
  it('SearchUsers reports the directory fetch page by page, increasing, to a client that asked', async () => {
    const { client } = await connect(incidentOpsServerFor(big));
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool({ name: 'IncidentOps.SearchUsers', arguments: { query: 'demo user' } }, { onprogress: (p) => seen.push(p) });
    assert.ok(!result.isError, JSON.stringify(result.content));
    const pages = BIG_ACCOUNT_USERS / 100;
    assert.ok(seen.length >= 10, `${seen.length} notifications`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress > seen[i - 1]!.progress, 'progress increases');
    assert.equal(seen.at(-1)!.progress, pages);
    assert.ok(seen.every((p) => p.total === pages));
    assert.match(String(seen[0]!.message), /user directory/);
    await client.close();
  });

  it('without a progress token the same call works and nothing is sent', async () => {
    const { client, progressNotifications } = await connect(incidentOpsServerFor(big));
    const result = await client.callTool({ name: 'IncidentOps.SearchUsers', arguments: { query: 'demo user' } });
    assert.ok(!result.isError);
    assert.equal(((result.structuredContent as Json).matches as Json[]).length > 0, true);
    assert.equal(progressNotifications(), 0);
    await client.close();
  });

  it('page walks of other tools report too: ListOnCalls team resolution, ListSchedules, WhoAmI', async () => {
    const { client } = await connect(bigServer);
    const teams = ((await ok(bigServer, 'ListTeams', { limit: 50 })).data.teams as Json[]).map((t) => t.id);
    for (const [name, args, what] of [
      ['IncidentOps.ListOnCalls', { team_ids: teams }, /escalation policies/],
      ['IncidentOps.ListSchedules', { limit: 50 }, /on-call shifts/],
      ['IncidentOps.WhoAmI', {}, /your on-call shifts/],
    ] as const) {
      const seen: { progress: number; message?: string }[] = [];
      const result = await client.callTool({ name, arguments: args }, { onprogress: (p) => seen.push(p) });
      assert.ok(!result.isError, name);
      assert.ok(seen.length >= 1, `${name} reported progress`);
      assert.match(String(seen[0]!.message), what);
    }
    await client.close();
  });

  it('callers sharing one directory fetch each hear of its progress', async () => {
    const { api } = bigServer.deps as IncidentOpsDeps;
    const directory = new UserDirectory(api);
    const first: number[] = [];
    const second: number[] = [];
    big.clearRequests();
    const signal = new AbortController().signal;
    const [a, b] = await Promise.all([directory.get(signal, (fetched) => first.push(fetched)), directory.get(signal, (fetched) => second.push(fetched))]);
    assert.equal(a, b, 'one shared fetch');
    assert.equal(big.requests.filter((r) => r.path === '/users').length, BIG_ACCOUNT_USERS / 100);
    for (const seen of [first, second]) {
      assert.ok(seen.length > 0);
      assert.deepEqual(seen, [...seen].sort((x, y) => x - y));
      assert.equal(seen.at(-1), BIG_ACCOUNT_USERS / 100);
    }
  });
});
