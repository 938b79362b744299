/**
 * OAuth mode's token rules: audience-bound MCP tokens, expiry, revocation, rotating refresh,
 * the platform token renewed behind the MCP token, and no token of one user serving another.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { DEMO_USER_ID } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { callJson, connectWithOAuth, MemoryOAuthProvider, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';

let sandbox: RunningSandbox;
let server: OAuthTestServer;

/** A raw MCP request with a bearer token: the status and challenge. */
async function mcpStatus(endpoint: string, token: string): Promise<{ status: number; challenge: string }> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.arrayBuffer();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

async function tokenRequest(form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.http.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('OAuth mode tokens', () => {
  before(async () => {
    // Platform tokens live one second, so the server must renew them behind the MCP token.
    sandbox = await startTestSandbox({ oauth: { tokenLifetimeSeconds: 1 } });
    server = await startOAuthServer(sandbox);
  });
  after(async () => {
    await server?.close();
    await sandbox?.close();
  });

  it('binds a token to its endpoint: another endpoint, an unknown token and an expired one get 401 with a challenge', async () => {
    const provider = new MemoryOAuthProvider('demo.user@example.com');
    const client = await connectWithOAuth(server.endpoint('incidentops'), provider);
    await client.close();
    const token = String(provider.savedTokens.access_token);
    assert.equal((await mcpStatus(server.endpoint('incidentops'), token)).status, 200);
    for (const endpoint of [server.endpoint('canvasapi'), server.endpoint('incidentops', 'readonly')]) {
      const refused = await mcpStatus(endpoint, token);
      assert.equal(refused.status, 401, endpoint);
      assert.match(refused.challenge, /error="invalid_token"/);
      assert.ok(refused.challenge.includes(`resource_metadata="${server.http.url}/.well-known/oauth-protected-resource${new URL(endpoint).pathname}"`), refused.challenge);
    }
    assert.equal((await mcpStatus(server.endpoint('incidentops'), 'not-a-token')).status, 401);
    // The token's record says it expired: refused although it is still stored.
    const key = server.records.key('AccessToken', token);
    const record = await server.records.get(key);
    assert.ok(record, 'the token is stored under the HMAC of its value');
    await server.records.set(key, { ...record, exp: Math.floor(Date.now() / 1000) - 5 });
    await server.announceChanged(key);
    const expired = await mcpStatus(server.endpoint('incidentops'), token);
    assert.equal(expired.status, 401);
    assert.match(expired.challenge, /scope="mcp:tools"/);
  });

  it('refreshes with rotation, and revoking the refresh token ends every token of the grant', async () => {
    const provider = new MemoryOAuthProvider('demo.user@example.com');
    const client = await connectWithOAuth(server.endpoint('incidentops'), provider);
    await client.close();
    const clientId = String(provider.clientInfo.client_id);
    const first = provider.savedTokens as Record<string, string>;
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: clientId, resource: server.endpoint('incidentops') });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.notEqual(refreshed.body.refresh_token, first.refresh_token);
    assert.equal((await mcpStatus(server.endpoint('incidentops'), String(refreshed.body.access_token))).status, 200);
    // The used refresh token is dead (rotation); reusing it is refused.
    assert.equal((await tokenRequest({ grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: clientId })).status, 400);

    const revoke = await fetch(`${server.http.url}/oauth/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: String(refreshed.body.refresh_token), token_type_hint: 'refresh_token', client_id: clientId }).toString(),
    });
    assert.equal(revoke.status, 200);
    const after = await mcpStatus(server.endpoint('incidentops'), String(refreshed.body.access_token));
    assert.equal(after.status, 401);
    assert.match(after.challenge, /resource_metadata=/);
  });

  it('renews the user\'s expired platform token behind the MCP token, as that user', async () => {
    const client = await connectWithOAuth(server.endpoint('incidentops'), new MemoryOAuthProvider('demo.user@example.com'));
    try {
      assert.equal(((await callJson(client, 'IncidentOps.WhoAmI')).data.user as Record<string, unknown>).id, DEMO_USER_ID);
      sandbox.clearRequests();
      // Past the platform token's one-second lifetime: the next call needs a renewal.
      await sleep(1100);
      const again = await callJson(client, 'IncidentOps.WhoAmI');
      assert.equal(again.isError, false, JSON.stringify(again.data));
      assert.equal((again.data.user as Record<string, unknown>).id, DEMO_USER_ID);
      const renewals = sandbox.requests.filter((request) => request.path === '/oauth/token' && (request.body as Record<string, unknown> | undefined)?.grant_type === 'refresh_token');
      assert.ok(renewals.length >= 1, 'the platform token was renewed with its refresh token');
    } finally {
      await client.close();
    }
  });

  it('refuses an MCP token whose platform sign-in is gone (401 invalid_token, refresh refused): the client must authorize again, and no other token is used', async () => {
    const other = new MemoryOAuthProvider('PDEMO01');
    const client = await connectWithOAuth(server.endpoint('incidentops'), other);
    await client.close();
    const token = String(other.savedTokens.access_token);
    assert.equal((await mcpStatus(server.endpoint('incidentops'), token)).status, 200);
    await server.store.delete(`oauth:platform-tokens:incidentops:${DEMO_USER_ID}`);
    sandbox.clearRequests();
    const refused = await mcpStatus(server.endpoint('incidentops'), token);
    assert.equal(refused.status, 401);
    assert.match(refused.challenge, /error="invalid_token"/);
    // A refresh would only mint another token with nothing behind it: refused, so the client starts a new authorization.
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: String(other.savedTokens.refresh_token), client_id: String(other.clientInfo.client_id), resource: server.endpoint('incidentops') });
    assert.equal(refreshed.status, 400, JSON.stringify(refreshed.body));
    assert.equal(refreshed.body.error, 'invalid_grant');
    assert.equal(sandbox.requests.length, 0, 'nothing reached the platform');
  });
});
