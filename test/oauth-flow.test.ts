/**
 * OAuth mode end to end with the official SDK client and no key: the 401 names the Protected
 * Resource Metadata, the client discovers the authorization server, registers (DCR), is sent
 * through the sandbox platform's sign-in (login_hint picks the user) and the server's consent,
 * and calls tools as that user. Two users stay apart.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { DEMO_USER_ID } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, connectWithOAuth, HttpBrowser, MemoryOAuthProvider, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';

let sandbox: RunningSandbox;
let server: OAuthTestServer;

/** Another IncidentOps user of the sandbox than the demo user: id and e-mail. */
async function otherIncidentOpsUser(): Promise<{ id: string; email: string; name: string }> {
  const response = await fetch(`${sandbox.incidentops.baseUrl}/users?limit=5`, {
    headers: { authorization: `Bearer ${sandbox.incidentops.token}`, accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' },
  });
  const { users } = (await response.json()) as { users: { id: string; email: string; name: string }[] };
  const other = users.find((user) => user.id !== DEMO_USER_ID);
  assert.ok(other);
  return other;
}

describe('OAuth mode with the SDK client', () => {
  before(async () => {
    sandbox = await startTestSandbox();
    server = await startOAuthServer(sandbox);
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it('answers an MCP request without a token with 401 naming the resource metadata and the scope', async () => {
    const response = await fetch(server.endpoint('incidentops'), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(response.status, 401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    assert.match(challenge, /^Bearer /);
    assert.ok(challenge.includes(`resource_metadata="${server.http.url}/.well-known/oauth-protected-resource/incidentops/mcp"`), challenge);
    assert.ok(challenge.includes('scope="mcp:tools"'), challenge);
    const metadata = (await (await fetch(`${server.http.url}/.well-known/oauth-protected-resource/incidentops/mcp`)).json()) as Record<string, unknown>;
    assert.equal(metadata.resource, server.endpoint('incidentops'));
    assert.deepEqual(metadata.authorization_servers, [`${server.http.url}/oauth`]);
    const as = (await (await fetch(`${server.http.url}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
    assert.equal(as.issuer, `${server.http.url}/oauth`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.ok(typeof as.registration_endpoint === 'string' && typeof as.revocation_endpoint === 'string');
  });

  it('signs two users in through the platform and each WhoAmI answers as that user', async () => {
    const other = await otherIncidentOpsUser();
    const alice = await connectWithOAuth(server.endpoint('incidentops'), new MemoryOAuthProvider('demo.user@example.com'));
    const bob = await connectWithOAuth(server.endpoint('incidentops'), new MemoryOAuthProvider(other.email));
    try {
      const [a, b] = await Promise.all([callJson(alice, 'IncidentOps.WhoAmI'), callJson(bob, 'IncidentOps.WhoAmI')]);
      assert.equal(a.isError, false, JSON.stringify(a.data));
      assert.equal((a.data.user as Record<string, unknown>).id, DEMO_USER_ID);
      assert.equal(b.isError, false, JSON.stringify(b.data));
      assert.equal((b.data.user as Record<string, unknown>).id, other.id);
      // Interleaved calls keep each user's identity.
      for (let round = 0; round < 3; round += 1) {
        const results = await Promise.all([alice, bob, alice, bob].map((client) => callJson(client, 'IncidentOps.WhoAmI')));
        assert.deepEqual(results.map((result) => (result.data.user as Record<string, unknown>).id), [DEMO_USER_ID, other.id, DEMO_USER_ID, other.id]);
      }
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('signs a CanvasApi user in and GetAccessTokenInfo answers as that user', async () => {
    const member = sandbox.canvasapi.demo as unknown as Record<string, unknown>;
    const client = await connectWithOAuth(server.endpoint('canvasapi'), new MemoryOAuthProvider());
    try {
      const info = await callJson(client, 'CanvasApi.GetAccessTokenInfo');
      assert.equal(info.isError, false, JSON.stringify(info.data));
      assert.ok(member);
      assert.equal(typeof (info.data.user as Record<string, unknown>).id, 'string');
    } finally {
      await client.close();
    }
  });

  it('shows the consent page naming client, server and user; a denial reaches the client as access_denied', async () => {
    const provider = new MemoryOAuthProvider('demo.user@example.com');
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(server.endpoint('incidentops')), { authProvider: provider })));
    const browser = new HttpBrowser();
    const denied = await browser.authorize((provider.authorizationUrl as URL).href, 'deny');
    assert.equal(denied.get('error'), 'access_denied');
    const consent = browser.pages.find((page) => page.html.includes('name="csrf"'));
    assert.ok(consent);
    assert.match(consent.html, /<html lang="en">/);
    assert.match(consent.html, /<h1>Allow OAuth test client to use IncidentOps\?<\/h1>/);
    assert.match(consent.html, /Demo User/);
    assert.match(consent.html, /mcp:tools/);
  });
});
