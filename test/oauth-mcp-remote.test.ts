/**
 * mcp-remote (the stdio bridge Claude Desktop and others use) against the HTTP server in OAuth
 * mode, with no key: it reads the 401, discovers the authorization server, registers (DCR),
 * opens the authorization URL in "the browser" (a scripted one, reached through `$BROWSER` as
 * mcp-remote's opener does on a machine without a desktop), gets the code on its own loopback
 * callback, and then a stdio MCP client lists tools and calls WhoAmI as the signed-in user.
 * mcp-remote keeps its state in a temporary directory; HOME is a temporary directory too.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { DEMO_USER_ID } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MCP_REMOTE = path.join(ROOT, 'node_modules', '.bin', 'mcp-remote');
const SCRIPTED_BROWSER = fileURLToPath(new URL('./support/scripted-browser.js', import.meta.url));

interface BrowserStep {
  at?: string;
  status?: number;
  heading?: string;
  error?: string;
}

// Elsewhere `open` calls the system's opener, which would start a real browser.
const skip = process.platform === 'linux' ? false : 'mcp-remote reaches $BROWSER through xdg-open only on Linux';

describe('OAuth mode with mcp-remote', { skip }, () => {
  let sandbox: RunningSandbox;
  let server: OAuthTestServer;
  let work: string;
  let browserLog: string;
  let other: { id: string; email: string } | undefined;
  const env = (): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    // Nothing of the user's: mcp-remote's state, HOME and the browser are all the test's.
    HOME: path.join(work, 'home'),
    MCP_REMOTE_CONFIG_DIR: path.join(work, 'mcp-auth'),
    BROWSER: path.join(work, 'browser'),
    SCRIPTED_BROWSER_LOG: browserLog,
  });
  const steps = (): BrowserStep[] => (existsSync(browserLog) ? readFileSync(browserLog, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as BrowserStep) : []);

  async function connect(loginHint: string): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: MCP_REMOTE,
      args: [server.endpoint('incidentops'), '--host', '127.0.0.1', '--authorize-param', `login_hint=${loginHint}`],
      env: env(),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'mcp-remote-check', version: '1' });
    try {
      await client.connect(transport);
    } catch (error) {
      throw new Error(`mcp-remote did not connect: ${String(error)}\n--- mcp-remote stderr ---\n${stderr}\n--- browser ---\n${JSON.stringify(steps())}`);
    }
    return { client, stderr: () => stderr };
  }

  before(async () => {
    sandbox = await startTestSandbox();
    server = await startOAuthServer(sandbox);
    work = mkdtempSync(path.join(tmpdir(), 'oauth-mcp-remote-'));
    browserLog = path.join(work, 'browser.log');
    // xdg-open runs `$BROWSER <url>`: one executable, so a two-line shell script.
    const quoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    writeFileSync(env().BROWSER as string, `#!/bin/sh\nexec ${quoted(process.execPath)} ${quoted(SCRIPTED_BROWSER)} "$@"\n`);
    chmodSync(env().BROWSER as string, 0o755);
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('registers, signs the hinted user in through the browser and calls WhoAmI as that user', async () => {
    const users = (await (await fetch(`${sandbox.incidentops.baseUrl}/users?limit=5`, {
      headers: { authorization: `Bearer ${sandbox.incidentops.token}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
    })).json()) as { users: { id: string; email: string }[] };
    const found = users.users.find((user) => user.id !== DEMO_USER_ID);
    assert.ok(found, 'the sandbox has a second user');
    other = found;

    const { client, stderr } = await connect(other.email);
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes('IncidentOps.WhoAmI'), tools.join(', '));
      const who = await callJson(client, 'IncidentOps.WhoAmI');
      assert.equal(who.isError, false, JSON.stringify(who.data));
      assert.equal((who.data.user as Record<string, unknown>).id, other.id, 'WhoAmI answers as the user who signed in, not the demo user');
    } finally {
      await client.close();
    }

    // The way the browser went: the server's authorization endpoint, the platform, the server's
    // consent page naming mcp-remote's registered client, and mcp-remote's loopback callback.
    const visited = steps();
    assert.ok(!visited.some((step) => step.error), JSON.stringify(visited));
    const base = server.http.url;
    assert.equal(visited[0]?.at, `${base}/oauth/auth`);
    assert.ok(visited.some((step) => step.at === sandbox.oauth.incidentops.authorizeUrl), JSON.stringify(visited));
    // --authorize-param login_hint went through the server to the platform, which signed that user in.
    const platformAuthorize = sandbox.requests.find((request) => request.method === 'GET' && request.path.endsWith('/oauth/authorize'));
    assert.deepEqual(platformAuthorize?.query.find(([name]) => name === 'login_hint'), ['login_hint', other.email]);
    // The client mcp-remote registered (DCR) and saved, named on the consent page.
    const saved = readdirSync(env().MCP_REMOTE_CONFIG_DIR as string, { recursive: true }).map(String);
    const clientInfoFile = saved.find((name) => name.endsWith('client_info.json'));
    assert.ok(clientInfoFile, `mcp-remote saved its registration: ${saved.join(', ')}`);
    const registered = JSON.parse(readFileSync(path.join(env().MCP_REMOTE_CONFIG_DIR as string, clientInfoFile), 'utf8')) as { client_id: string; client_name?: string };
    assert.ok(registered.client_id && registered.client_name, JSON.stringify(registered));
    assert.ok(await server.records.get(server.records.key('Client', registered.client_id)), 'the client was registered with this server');
    const consent = visited.find((step) => step.heading?.startsWith('Allow '));
    assert.equal(consent?.heading, `Allow ${registered.client_name} to use IncidentOps?`, JSON.stringify(visited));
    const last = visited.at(-1);
    assert.match(last?.at ?? '', /^http:\/\/127\.0\.0\.1:\d+\/oauth\/callback$/);
    assert.equal(last?.status, 200);
    assert.match(stderr(), /Please authorize this client by visiting/);
    // Its state went to MCP_REMOTE_CONFIG_DIR, nowhere in HOME.
    assert.ok(readdirSync(env().MCP_REMOTE_CONFIG_DIR as string, { recursive: true }).some((name) => String(name).endsWith('tokens.json')));
    assert.ok(!existsSync(path.join(env().HOME as string, '.mcp-auth')));
  });

  it('a second start reuses the stored tokens: no browser, same user', async () => {
    assert.ok(other, 'the first test signed in');
    const before_ = steps().length;
    // The same arguments: mcp-remote keys its stored state by server URL, headers and --authorize-param values.
    const { client } = await connect(other.email);
    try {
      const who = await callJson(client, 'IncidentOps.WhoAmI');
      assert.equal(who.isError, false, JSON.stringify(who.data));
      assert.equal((who.data.user as Record<string, unknown>).id, other.id);
    } finally {
      await client.close();
    }
    assert.equal(steps().length, before_, 'the browser was not opened again');
  });
  it('after the access token is gone it refreshes (rotating the refresh token) without the browser', async () => {
    assert.ok(other, 'the first test signed in');
    const dir = env().MCP_REMOTE_CONFIG_DIR as string;
    const tokensFile = readdirSync(dir, { recursive: true }).map(String).find((name) => name.endsWith('tokens.json'));
    assert.ok(tokensFile);
    const stored = JSON.parse(readFileSync(path.join(dir, tokensFile), 'utf8')) as { access_token: string; refresh_token?: string };
    assert.ok(stored.refresh_token, 'the server issued a refresh token to mcp-remote');
    // As if it expired: the server no longer knows the access token.
    const tokenKey = server.records.key('AccessToken', stored.access_token);
    await server.store.delete(tokenKey);
    await server.announceChanged(tokenKey);
    const before_ = steps().length;
    const { client } = await connect(other.email);
    try {
      const who = await callJson(client, 'IncidentOps.WhoAmI');
      assert.equal((who.data.user as Record<string, unknown>).id, other.id);
    } finally {
      await client.close();
    }
    assert.equal(steps().length, before_, 'the browser was not opened again');
    const renewed = JSON.parse(readFileSync(path.join(dir, tokensFile), 'utf8')) as { access_token: string; refresh_token?: string };
    assert.notEqual(renewed.access_token, stored.access_token);
    assert.ok(renewed.refresh_token && renewed.refresh_token !== stored.refresh_token, 'the refresh token rotated');
  });
});
