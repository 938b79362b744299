/**
 * The authorization server's own requests (Client ID Metadata Documents, a client's jwks_uri)
 * never connect to a special-use address, whatever form the client_id gives it (IP literals in
 * every notation, IPv4 inside IPv6, a name resolving there), and every failure is the same error,
 * no sooner than the floor, so that neither answer nor timing tells what is at an address.
 * Connections are counted on a loopback listener whose port the client_ids name. A host name
 * is resolved once and the connection goes to the address checked, with SNI and the
 * certificate check for the name.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { createOutboundFetch, OUTBOUND_TIMEOUT_MS, OutboundRequestFailed, type ResolvedAddress } from '../src/core/serving/oauth/outbound-fetch.js';
import { isSpecialUseAddress } from '../src/core/serving/oauth/special-use.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { CLIENT_REDIRECT, startOAuthServer, type OAuthTestServer } from './support/oauth-client.js';
import { DOCS_EXAMPLE_CERT, DOCS_EXAMPLE_HOST, DOCS_EXAMPLE_KEY } from './support/tls-fixture.js';

/** A bound against hangs, not a timing check. */
const NO_HANG_MS = 15_000;

/** A TCP listener on loopback (127.0.0.1 and, where the machine has it, [::1] on the same port) that counts accepted sockets. */
async function startCountingListener(): Promise<{ port: number; accepted(): number; close(): Promise<void> }> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const listen = (host: string, port: number) =>
    new Promise<TcpServer | undefined>((resolve) => {
      const server = createTcpServer((socket) => {
        accepted += 1;
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      server.once('error', () => resolve(undefined));
      server.listen({ host, port, ipv6Only: host === '::1' }, () => resolve(server));
    });
  const v4 = (await listen('127.0.0.1', 0)) as TcpServer;
  const port = (v4.address() as { port: number }).port;
  const v6 = await listen('::1', port);
  return {
    port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([v4, v6].map((server) => server && new Promise((resolve) => server.close(resolve))));
    },
  };
}

/** Every notation of a loopback, unspecified or IPv4-in-IPv6 address naming `port`. */
function specialUseUrls(port: number): string[] {
  return [
    `https://127.0.0.1:${port}/client.json`,
    `https://[::1]:${port}/client.json`,
    `https://localhost:${port}/client.json`,
    `https://LOCALHOST.:${port}/client.json`,
    `https://2130706433:${port}/client.json`,
    `https://0x7f000001:${port}/client.json`,
    `https://0x7f.0.0.1:${port}/client.json`,
    `https://0177.0.0.1:${port}/client.json`,
    `https://127.1:${port}/client.json`,
    `https://127.0.0.1.:${port}/client.json`,
    `https://%31%32%37.0.0.1:${port}/client.json`,
    `https://0.0.0.0:${port}/client.json`,
    `https://0:${port}/client.json`,
    `https://[::]:${port}/client.json`,
    `https://[::ffff:127.0.0.1]:${port}/client.json`,
    `https://[::ffff:7f00:1]:${port}/client.json`,
    `https://[::127.0.0.1]:${port}/client.json`,
    `https://[64:ff9b::127.0.0.1]:${port}/client.json`,
    `https://[2002:7f00:1::1]:${port}/client.json`,
  ];
}

describe('special-use addresses', () => {
  const refused = [
    ...['0.1.2.3', '10.0.0.1', '100.64.0.1', '100.127.255.254', '127.0.0.1', '127.255.255.254', '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.0.0.170', '192.0.2.1', '192.88.99.1', '192.168.1.1', '198.18.0.1', '198.19.255.255', '198.51.100.1', '203.0.113.1', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255'],
    ...['::', '::1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '::10.0.0.1', '64:ff9b::192.168.0.1', '64:ff9b:1::1', '100::1', '2001::1', '2001:0:4136:e378::1', '2001:db8::1', '2002:c0a8:101::1', '2620:4f:8000::1', '3fff::1', '5f00::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1', 'ff02::1', '4000::1'],
    ...['localhost', '', 'not an address'],
  ];
  const allowed = ['8.8.8.8', '1.1.1.1', '100.128.0.1', '172.32.0.1', '192.0.1.1', '198.20.0.1', '223.255.255.254', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001::200e'];

  it('are refused in every family and form; public unicast is not', () => {
    assert.deepEqual(refused.filter((address) => !isSpecialUseAddress(address)), [], 'refused');
    assert.deepEqual(allowed.filter((address) => isSpecialUseAddress(address)), [], 'allowed');
  });
});

describe('outbound requests of the authorization server', () => {
  let listener: Awaited<ReturnType<typeof startCountingListener>>;
  before(async () => {
    listener = await startCountingListener();
  });
  after(async () => listener?.close());

  it('counts a connection when one is made (the zero below means something)', async () => {
    const reachAnything = createOutboundFetch({ isSpecialUse: () => false, failureFloorMs: 0 });
    const before_ = listener.accepted();
    // The listener speaks no TLS: the request fails, after the connection.
    await assert.rejects(reachAnything(`https://127.0.0.1:${listener.port}/client.json`, { signal: AbortSignal.timeout(500) }), OutboundRequestFailed);
    assert.equal(listener.accepted() - before_, 1);
  });

  it('opens no connection to a loopback, unspecified or IPv4-in-IPv6 address, in any notation', async () => {
    const outbound = createOutboundFetch({ failureFloorMs: 0 });
    const urls = specialUseUrls(listener.port);
    const results = await Promise.allSettled(urls.map((url) => outbound(url)));
    const answered = results.map((result, i) => (result.status === 'rejected' && result.reason instanceof OutboundRequestFailed ? undefined : urls[i])).filter(Boolean);
    assert.deepEqual(answered, [], 'each is refused with the one error');
    assert.equal(listener.accepted(), 1, 'no connection beyond the control one');
  });

  it('checks every address a name resolves to, and resolves it once', async () => {
    const lookups: string[] = [];
    const answers: Record<string, ResolvedAddress[]> = {
      'mixed.example': [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }],
      'private.example': [{ address: '10.0.0.7', family: 4 }],
      'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
      'v6-loopback.example': [{ address: '2606:4700::1', family: 6 }, { address: '::1', family: 6 }],
      'nothing.example': [],
    };
    const outbound = createOutboundFetch({
      failureFloorMs: 0,
      resolve: async (name) => {
        lookups.push(name);
        return answers[name] ?? [];
      },
    });
    for (const name of Object.keys(answers)) await assert.rejects(outbound(`https://${name}:${listener.port}/client.json`), OutboundRequestFailed);
    assert.deepEqual(lookups, Object.keys(answers));
    assert.equal(listener.accepted(), 1, 'no connection beyond the control one');
  });

  it('within one incoming request, does not try a failed URL again; another request does', async () => {
    let lookups = 0;
    let scope: object = {};
    const outbound = createOutboundFetch({
      failureFloorMs: 0,
      requestScope: () => scope,
      resolve: async () => {
        lookups += 1;
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    const url = 'https://again.example/client.json';
    await assert.rejects(outbound(url), OutboundRequestFailed);
    await assert.rejects(outbound(url), OutboundRequestFailed);
    assert.equal(lookups, 1, 'the second look-up in the request reused the failure');
    scope = {};
    await assert.rejects(outbound(url), OutboundRequestFailed);
    assert.equal(lookups, 2, 'a new request tries again');
  });

  it('answers every failure with the same error, no sooner than the floor: special-use, unresolvable, refused, silent', async () => {
    const closedPort = await (async () => {
      const probe = await startCountingListener();
      await probe.close();
      return probe.port;
    })();
    // The test listener's address stands for a public one here, so that a connection is attempted.
    const reachLoopback = createOutboundFetch({ isSpecialUse: () => false });
    const outbound = createOutboundFetch({
      resolve: async (name) => {
        if (name === 'loopback.example') return [{ address: '127.0.0.1', family: 4 }];
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      },
    });
    const attempts: [string, () => Promise<Response>][] = [
      ['a loopback literal', () => outbound(`https://127.0.0.1:${listener.port}/client.json`)],
      ['a name resolving to loopback', () => outbound(`https://loopback.example:${listener.port}/client.json`)],
      ['a name that does not resolve', () => outbound('https://nowhere.example/client.json')],
      ['a refused connection', () => reachLoopback(`https://127.0.0.1:${closedPort}/client.json`)],
      ['a server that never answers', () => reachLoopback(`https://127.0.0.1:${listener.port}/silent.json`)],
    ];
    const outcomes = await Promise.all(
      attempts.map(async ([what, attempt]) => {
        const started = performance.now();
        const error = await attempt().then(
          () => undefined,
          (reason: unknown) => reason,
        );
        return { what, error, elapsed: performance.now() - started };
      }),
    );
    for (const { what, error, elapsed } of outcomes) {
      assert.ok(error instanceof OutboundRequestFailed, `${what}: ${String(error)}`);
      assert.equal(error.message, 'outbound request failed', what);
      assert.ok(elapsed >= OUTBOUND_TIMEOUT_MS - 5, `${what} answered after ${Math.round(elapsed)} ms`);
      assert.ok(elapsed < NO_HANG_MS, `${what} answered after ${Math.round(elapsed)} ms`);
    }
  });
});

describe('a public name: one resolution, the connection pinned to the checked address', () => {
  let server: HttpsServer;
  let port = 0;
  const serverNames: (string | false | null)[] = [];
  let listener: Awaited<ReturnType<typeof startCountingListener>>;

  before(async () => {
    listener = await startCountingListener();
    server = createHttpsServer({ key: DOCS_EXAMPLE_KEY, cert: DOCS_EXAMPLE_CERT }, (req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `https://127.0.0.1:${listener.port}/client.json` }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(JSON.stringify({ client_id: `https://${DOCS_EXAMPLE_HOST}:${port}/client.json`, accept: req.headers.accept ?? null }));
    });
    server.on('secureConnection', (socket: TLSSocket) => serverNames.push(socket.servername));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await listener?.close();
  });

  /** docs.example (and other.example) resolve, once each, to the test server's loopback address, taken as public here. */
  function pinnedFetch(options: { ca?: string } = {}) {
    const lookups: string[] = [];
    const outbound = createOutboundFetch({
      failureFloorMs: 0,
      isSpecialUse: (address) => address !== '127.0.0.1',
      resolve: async (name) => {
        lookups.push(name);
        return [{ address: '127.0.0.1', family: 4 }];
      },
      ...options,
    });
    return { outbound, lookups };
  }

  it('fetches over TLS with SNI and the certificate checked for the name, after one resolution', async () => {
    const { outbound, lookups } = pinnedFetch({ ca: DOCS_EXAMPLE_CERT });
    // docs.example resolves nowhere else: a second resolution by the connection would fail.
    const response = await outbound(`https://${DOCS_EXAMPLE_HOST}:${port}/client.json`, { headers: { accept: 'application/json', 'user-agent': '' }, signal: AbortSignal.timeout(NO_HANG_MS) });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'max-age=60');
    assert.deepEqual(await response.json(), { client_id: `https://${DOCS_EXAMPLE_HOST}:${port}/client.json`, accept: 'application/json' });
    assert.deepEqual(lookups, [DOCS_EXAMPLE_HOST]);
    assert.equal(serverNames.at(-1), DOCS_EXAMPLE_HOST, 'SNI names the host');
  });

  it('refuses a certificate that does not name the host, or that no trusted authority signed', async () => {
    const named = pinnedFetch({ ca: DOCS_EXAMPLE_CERT });
    await assert.rejects(named.outbound(`https://other.example:${port}/client.json`), OutboundRequestFailed);
    const untrusted = pinnedFetch();
    await assert.rejects(untrusted.outbound(`https://${DOCS_EXAMPLE_HOST}:${port}/client.json`), OutboundRequestFailed);
  });

  it('follows no redirect (it could lead to loopback)', async () => {
    const { outbound } = pinnedFetch({ ca: DOCS_EXAMPLE_CERT });
    const before_ = listener.accepted();
    const response = await outbound(`https://${DOCS_EXAMPLE_HOST}:${port}/redirect`, { redirect: 'manual' });
    assert.equal(response.status, 302);
    await response.body?.cancel();
    assert.equal(listener.accepted(), before_);
  });

  it('refuses a URL that is not https, or that holds credentials, without resolving it', async () => {
    const { outbound, lookups } = pinnedFetch({ ca: DOCS_EXAMPLE_CERT });
    await assert.rejects(outbound(`http://${DOCS_EXAMPLE_HOST}:${port}/client.json`), OutboundRequestFailed);
    await assert.rejects(outbound(`https://user:secret@${DOCS_EXAMPLE_HOST}:${port}/client.json`), OutboundRequestFailed);
    assert.deepEqual(lookups, []);
  });
});

describe('GET /oauth/auth with a client_id on a special-use address', () => {
  let sandbox: RunningSandbox;
  let plain: OAuthTestServer;
  let dev: OAuthTestServer;
  let listener: Awaited<ReturnType<typeof startCountingListener>>;

  before(async () => {
    sandbox = await startTestSandbox();
    plain = await startOAuthServer(sandbox);
    dev = await startOAuthServer(sandbox, { allowHttpClientIds: true });
    listener = await startCountingListener();
  });
  after(async () => {
    await listener?.close();
    await plain?.close();
    await dev?.close();
    await sandbox?.close();
  });

  function authorizationUrl(server: OAuthTestServer, clientId: string): string {
    const url = new URL(`${server.http.url}/oauth/auth`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: CLIENT_REDIRECT,
      scope: 'mcp:tools',
      state: 'state',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuyjw-cM0Ac',
      code_challenge_method: 'S256',
      resource: server.endpoint('incidentops'),
    }).toString();
    return url.href;
  }

  it('opens no connection and answers each with the same refusal (dev flag or not)', async () => {
    const clientIds = [...specialUseUrls(listener.port), 'https://client-metadata.invalid/client.json'];
    const attempts = [plain, dev].flatMap((server) => clientIds.map((clientId) => ({ server, clientId })));
    const answers = await Promise.all(
      attempts.map(async ({ server, clientId }) => {
        const response = await fetch(authorizationUrl(server, clientId), { redirect: 'manual', signal: AbortSignal.timeout(NO_HANG_MS) });
        const text = (await response.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
        return { clientId, status: response.status, text };
      }),
    );
    for (const { clientId, status, text } of answers) {
      assert.equal(status, 400, `${clientId}: ${text}`);
      assert.match(text, /invalid_client: client_id metadata document fetch failed/, clientId);
    }
    assert.equal(new Set(answers.map(({ text }) => text)).size, 1, 'one refusal, whatever the address');
    assert.equal(listener.accepted(), 0, 'no TCP connection reached the loopback port');
  });
});
