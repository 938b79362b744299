/**
 * The whole contract and the task tools in one choice: `--toolsets all,tasks` (`all` is every
 * toolset of the contract), by flag, environment, and per HTTP request by query or header. `all`
 * alone is the contract, as the default is, and a profile still narrows first.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { listTools, viewFor, type AnyToolServer } from '../src/core/tools/registry.js';
import { SERVERS } from '../src/servers.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const KEY = 'toolsets-all-test-key-0123456789';

describe('--toolsets all,tasks', () => {
  const servers = SERVERS.map((entry) => entry.create({}, { logger: silentLogger }) as AnyToolServer);
  const names = (server: AnyToolServer, selections: object[]) => listTools(server, { selections }).map((tool) => tool.name);
  const contract = (server: AnyToolServer) => server.tools.filter((tool) => !tool.beyondContract).map((tool) => tool.name);
  const tasks = (server: AnyToolServer) => server.tools.filter((tool) => tool.beyondContract).map((tool) => tool.name);

  it('is every contract tool and every task tool; `all` alone is the contract', () => {
    for (const server of servers) {
      assert.ok(tasks(server).length > 0, `${server.name} has task tools`);
      assert.deepEqual(names(server, [{ toolsets: ['all', 'tasks'] }]).sort(), [...contract(server), ...tasks(server)].sort(), server.name);
      assert.deepEqual(names(server, [{ toolsets: ['All'] }]), names(server, []), `${server.name}: all is the default's contract`);
    }
  });

  it('keeps a profile\'s narrowing and the read-only choice', () => {
    const canvasApi = servers.find((server) => server.id === 'canvasapi')!;
    const noEnterprise = names(canvasApi, [{ profile: 'no-enterprise' }, { toolsets: ['all', 'tasks'] }]);
    assert.deepEqual(noEnterprise.sort(), [...names(canvasApi, [{ profile: 'no-enterprise' }]), ...tasks(canvasApi)].sort());
    const readOnly = names(canvasApi, [{ toolsets: ['all', 'tasks'], readOnly: true }]);
    assert.ok(readOnly.includes('CanvasApi.ReadBoard') && !readOnly.includes('CanvasApi.CreateDiagram'));
  });

  it('an unknown toolset is refused with `all` among the names allowed', () => {
    assert.throws(() => viewFor(servers[0]!, { selections: [{ toolsets: ['al'] }] }), /toolset "al".*one of all, /);
  });

  it('works as a flag of `toolservers tools` and as the environment variable', () => {
    const canvasApi = servers.find((server) => server.id === 'canvasapi')!;
    const count = contract(canvasApi).length + tasks(canvasApi).length;
    const byFlag = spawnSync(process.execPath, [CLI, 'tools', 'canvasapi', '--toolsets', 'all,tasks'], { encoding: 'utf8' });
    assert.equal(byFlag.status, 0, byFlag.stderr);
    assert.equal(byFlag.stdout.trim().split('\n').length, count);
    const byEnv = spawnSync(process.execPath, [CLI, 'tools', 'canvasapi'], { encoding: 'utf8', env: { ...process.env, TOOLSERVERS_TOOLSETS: 'all,tasks' } });
    assert.equal(byEnv.stdout.trim().split('\n').length, count);
  });

  describe('per HTTP request', () => {
    let http: RunningHttpServer;
    before(async () => {
      http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: KEY, mounts: servers.map((server) => ({ path: `/${server.id}/mcp`, server })) });
    });
    after(() => http.close());

    async function listAt(path: string, headers: Record<string, string> = {}): Promise<string[]> {
      const client = new Client({ name: 'toolsets-all', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${KEY}`, ...headers } } }));
      const { tools } = await client.listTools();
      await client.close();
      return tools.map((tool) => tool.name).sort();
    }

    it('by query parameter, by header, and under a profile segment', async () => {
      const canvasApi = servers.find((server) => server.id === 'canvasapi')!;
      const everything = [...contract(canvasApi), ...tasks(canvasApi)].sort();
      assert.deepEqual(await listAt('/canvasapi/mcp?toolsets=all,tasks'), everything);
      assert.deepEqual(await listAt('/canvasapi/mcp', { 'X-Toolservers-Toolsets': 'all,tasks' }), everything);
      assert.deepEqual(await listAt('/canvasapi/no-enterprise/mcp?toolsets=all,tasks'), names(canvasApi, [{ profile: 'no-enterprise' }, { toolsets: ['all', 'tasks'] }]).sort());
      assert.deepEqual(await listAt('/canvasapi/mcp'), contract(canvasApi).sort(), 'without the choice, the contract');
    });
  });
});
