/**
 * One server of the HTTP bench in its own process (so that its CPU time is its own):
 * `node http-child.js <floor|incidentops|canvasapi> <sandbox url> <credentials file>`.
 * Prints `READY <endpoint url>`; answers the IPC message `cpu` with process.cpuUsage().
 * The tool servers use the stored sign-in in the given credentials file (as after `toolservers
 * login`), through the same serveOverHttp as `toolservers <id> --http`; TOOLSERVERS_METRICS=true turns metrics on.
 * BENCH_AUTH=oauth serves OAuth mode (the platform OAuth app and state key from the environment,
 * as `serve --auth oauth` reads them); BENCH_REDIS_URL puts the shared store on that Redis.
 */
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp } from '../src/core/serving/serve.js';
import { FileTokenStore } from '../src/core/signin/token-store.js';
import { SERVERS } from '../src/servers.js';
import { startFloorServer } from './floor-server.js';

export const BENCH_SERVER_KEY = 'bench-server-key-0123456789abcdef';

async function main(): Promise<void> {
  const [kind, sandboxUrl, credentialsFile] = process.argv.slice(2);
  if (!kind || !sandboxUrl || !credentialsFile) throw new Error('usage: http-child <kind> <sandbox url> <credentials file>');
  let url: string;
  if (kind === 'floor') {
    const floor = await startFloorServer({
      upstreamBase: sandboxUrl,
      // What the platforms require (the IncidentOps API insists on its versioned Accept and a Content-Type).
      upstreamHeaders: (path): Record<string, string> =>
        path.startsWith('/incidentops/')
          ? { authorization: 'Bearer sandbox-token', accept: 'application/vnd.pagerduty+json;version=2', 'content-type': 'application/json' }
          : { authorization: 'Bearer sandbox-token', accept: 'application/json' },
    });
    url = floor.url;
  } else {
    const entry = SERVERS.find((candidate) => candidate.id === kind);
    if (!entry) throw new Error(`no server ${kind}`);
    const redisUrl = process.env.BENCH_REDIS_URL;
    const shared = redisUrl ? await (await import('../src/core/store/redis-store.js')).RedisStore.connect({ url: redisUrl, keyPrefix: `bench-${process.pid}:` }) : undefined;
    const input = { baseUrl: `${sandboxUrl}/${entry.id}` };
    const metrics = process.env.TOOLSERVERS_METRICS === 'true' ? { metrics: {} } : {};
    let http;
    if (process.env.BENCH_AUTH === 'oauth') {
      const { prepareOAuthMode } = await import('../src/servers/oauth-mode.js');
      const mode = prepareOAuthMode({ entries: [entry], input, logger: silentLogger, env: process.env, single: false, ...(shared ? { store: shared } : {}) });
      http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, auth: { kind: 'oauth', layer: mode.layer }, store: mode.store, mounts: [{ path: `/${entry.id}/mcp`, server: mode.servers[0]! }], ...metrics });
    } else {
      const store = new FileTokenStore(credentialsFile, { logger: silentLogger });
      const server = entry.create(input, { logger: silentLogger, env: {}, store, ...(shared ? { shared } : {}) });
      http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: BENCH_SERVER_KEY, mounts: [{ path: `/${entry.id}/mcp`, server }], ...(shared ? { store: shared } : {}), ...metrics });
    }
    url = http.endpoints[0]!.url;
  }
  process.on('message', (message) => {
    if (message === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', () => process.exit(0));
  console.log(`READY ${url}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
