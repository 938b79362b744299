/**
 * The bearer check of OAuth mode (src/core/serving/oauth/bearer.ts), called directly: a missing,
 * malformed, unknown, expired, revoked, foreign-audience or scope-less token, or one whose platform
 * sign-in is gone, gets 401 with the exact challenge the layer gives; a store that does not
 * answer gets 503; a valid token passes as its user, with the platform sign-in read once and no
 * more reads than the token, its grant and that sign-in.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { createLogger } from '../src/core/logger.js';
import { checkBearer, tokenVerifier, type BearerCheck, type FoundAccessToken, type TokenRecords } from '../src/core/serving/oauth/bearer.js';
import { publicSite } from '../src/core/serving/oauth/endpoints.js';
import type { PlatformTokens } from '../src/core/serving/oauth/vault.js';
import { StoreUnavailableError } from '../src/core/store/store.js';
import { RecordedResponse } from './support/raw-http.js';

const SITE = 'https://mcp.example';
const ENDPOINT = `${SITE}/incidentops/mcp`;
const USER = 'incidentops:PUSER01';
const SIGN_IN: PlatformTokens = { accessToken: 'platform-access', tokenType: 'Bearer', obtainedAt: 1 };

interface Fixture {
  check: BearerCheck;
  tokens: Map<string, FoundAccessToken>;
  grants: Set<string>;
  signIns: Map<string, PlatformTokens>;
  reads: string[];
  logs: Record<string, unknown>[];
  /** Set to make every store read fail as an outage. */
  storeDown: boolean;
}

function fixture(): Fixture {
  const fixture = { tokens: new Map(), grants: new Set(), signIns: new Map([[USER, SIGN_IN]]), reads: [], logs: [], storeDown: false } as unknown as Fixture;
  const read = (what: string) => {
    fixture.reads.push(what);
    if (fixture.storeDown) throw new StoreUnavailableError('redis at 10.0.0.7:6379 did not answer');
  };
  const records: TokenRecords = {
    AccessToken: {
      find: async (token) => {
        read('AccessToken');
        return fixture.tokens.get(token);
      },
    },
    Grant: {
      find: async (grantId) => {
        read('Grant');
        return fixture.grants.has(String(grantId)) ? { grantId } : undefined;
      },
    },
  };
  const vault = {
    get: async (userKey: string) => {
      read('vault');
      return fixture.signIns.get(userKey);
    },
  };
  const logger = createLogger('info', { write: (line: string) => void fixture.logs.push(JSON.parse(line) as Record<string, unknown>) });
  fixture.check = { site: publicSite(SITE), verifier: tokenVerifier(records, vault), logger };
  return fixture;
}

/** A token as oidc-provider keeps it after a completed authorization for ENDPOINT. */
function issue(fixture: Fixture, token: string, changes: Partial<FoundAccessToken> = {}): void {
  fixture.grants.add('grant-1');
  fixture.tokens.set(token, { isExpired: false, accountId: USER, clientId: 'client-1', grantId: 'grant-1', scope: 'mcp:tools', exp: 2_000_000_000, aud: ENDPOINT, ...changes });
}

function request(path: string, authorization?: string): IncomingMessage {
  return { url: path, headers: { 'x-request-id': 'req-1', ...(authorization !== undefined ? { authorization } : {}) } } as unknown as IncomingMessage;
}

async function refused(fixture: Fixture, path: string, authorization: string | undefined): Promise<RecordedResponse> {
  const res = new RecordedResponse();
  const identity = await checkBearer(fixture.check, request(path, authorization), res as unknown as ServerResponse);
  assert.equal(identity, undefined, 'a refused request gets no identity');
  return res;
}

function challenge(description: string, endpointPath = '/incidentops/mcp'): string {
  return `Bearer error="invalid_token", error_description="${description}", scope="mcp:tools", resource_metadata="${SITE}/.well-known/oauth-protected-resource${endpointPath}"`;
}

function assertInvalidToken(res: RecordedResponse, description: string, endpointPath?: string): void {
  assert.equal(res.status, 401);
  assert.equal(res.headers['www-authenticate'], challenge(description, endpointPath));
  assert.equal(res.headers['content-type'], 'application/json');
  assert.deepEqual(res.json, { error: 'invalid_token', error_description: description });
}

const UNKNOWN = 'The access token is unknown, expired or revoked.';

describe('the bearer check', () => {
  it('passes a valid token as its user, with the platform sign-in it read, in three reads', async () => {
    const f = fixture();
    issue(f, 'good-token');
    const res = new RecordedResponse();
    const identity = await checkBearer(f.check, request('/incidentops/mcp?session=1', 'Bearer good-token'), res as unknown as ServerResponse);
    assert.deepEqual(identity, { userKey: USER, platformTokens: SIGN_IN });
    assert.equal(res.status, 0, 'nothing is answered');
    assert.deepEqual(f.reads.sort(), ['AccessToken', 'Grant', 'vault']);
    assert.deepEqual(f.logs, []);
  });

  it('refuses a request without a token, or with another scheme, before reading anything', async () => {
    const f = fixture();
    assertInvalidToken(await refused(f, '/incidentops/mcp', undefined), 'Missing Authorization header');
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer ', 'Bearertoken']) {
      assertInvalidToken(await refused(f, '/incidentops/mcp', header), "Invalid Authorization header format, expected 'Bearer TOKEN'");
    }
    assert.deepEqual(f.reads, []);
    assert.deepEqual(
      f.logs.map((line) => [line.level, line.msg, line.path, line.request_id]),
      Array.from({ length: 4 }, () => [30, 'rejected MCP request: bearer token refused', '/incidentops/mcp', 'req-1']),
    );
  });

  it('refuses an unknown token and an expired one alike', async () => {
    const f = fixture();
    assertInvalidToken(await refused(f, '/incidentops/mcp', 'Bearer never-issued'), UNKNOWN);
    issue(f, 'old-token', { isExpired: true });
    assertInvalidToken(await refused(f, '/incidentops/mcp', 'Bearer old-token'), UNKNOWN);
    assert.equal(f.logs.at(-1)?.reason, UNKNOWN);
  });

  it('refuses a token whose grant was revoked, though the token record is still there', async () => {
    const f = fixture();
    issue(f, 'revoked-token');
    f.grants.clear();
    assertInvalidToken(await refused(f, '/incidentops/mcp', 'Bearer revoked-token'), UNKNOWN);
  });

  it('refuses a token whose user has no platform sign-in that opens', async () => {
    const f = fixture();
    issue(f, 'orphan-token');
    f.signIns.clear();
    assertInvalidToken(await refused(f, '/incidentops/mcp', 'Bearer orphan-token'), "The platform sign-in behind this token is gone (removed, or the server's state key changed); authorize again.");
  });

  it('refuses a token at any endpoint but its own, a variant of it included, naming that endpoint\'s metadata', async () => {
    const f = fixture();
    issue(f, 'incidentops-token');
    for (const path of ['/canvasapi/mcp', '/incidentops/readonly/mcp']) {
      assertInvalidToken(await refused(f, path, 'Bearer incidentops-token'), 'Token was not issued for this resource', path);
    }
    issue(f, 'no-audience-token', { aud: undefined });
    assertInvalidToken(await refused(f, '/incidentops/mcp', 'Bearer no-audience-token'), 'Token was not issued for this resource');
  });

  it('refuses a token without the mcp:tools scope', async () => {
    const f = fixture();
    issue(f, 'openid-token', { scope: 'openid offline_access' });
    const res = await refused(f, '/incidentops/mcp', 'Bearer openid-token');
    assert.equal(res.status, 403);
    assert.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", error_description="Insufficient scope", scope="mcp:tools", resource_metadata="${SITE}/.well-known/oauth-protected-resource/incidentops/mcp"`);
  });

  it('answers 503 with Retry-After when the store does not answer, and never names the store', async () => {
    const f = fixture();
    issue(f, 'good-token');
    f.storeDown = true;
    const res = await refused(f, '/incidentops/mcp', 'Bearer good-token');
    assert.equal(res.status, 503);
    assert.equal(res.headers['retry-after'], '2');
    assert.deepEqual(res.json, { error: 'temporarily_unavailable', error_description: 'The sign-in store of this server is not answering; nothing was changed. Try again in a few seconds.' });
    assert.ok(!res.body.includes('10.0.0.7'));
    assert.deepEqual(
      f.logs.map((line) => [line.level, line.msg]),
      [[40, 'bearer check waits for the store']],
    );
  });

  it('refuses every token while the server is starting', async () => {
    const f = fixture();
    issue(f, 'good-token');
    const starting: BearerCheck = { site: publicSite(''), verifier: undefined, logger: f.check.logger };
    const res = new RecordedResponse();
    assert.equal(await checkBearer(starting, request('/incidentops/mcp', 'Bearer good-token'), res as unknown as ServerResponse), undefined);
    assert.equal(res.status, 500);
    assert.deepEqual(res.json, { error: 'server_error', error_description: 'The server is starting.' });
    assert.deepEqual(f.reads, []);
  });
});
