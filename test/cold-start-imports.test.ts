/**
 * A server command loads only its own server's code: starting `toolservers incidentops` and
 * answering tools/list loads nothing of CanvasApi (and the reverse), and neither loads the sandbox,
 * the browser opener, the HTTP adapter, nor Ajv's formats (set up on the first body to validate).
 * Checked on the real CLI process with a preload that records every module it loads.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(here, '..', 'src', 'cli.js');
const PRELOAD = path.resolve(here, 'support', 'module-log.js');

const REQUESTS =
  [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'imports-test', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ]
    .map((message) => JSON.stringify(message))
    .join('\n') + '\n';

/** Starts `toolservers <server>` over stdio, waits for the tools/list answer, and returns the modules it loaded and the tool count. */
async function modulesLoadedBy(server: string): Promise<{ modules: string[]; tools: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'toolservers-imports-'));
  const log = path.join(dir, 'modules.log');
  try {
    const tools = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', PRELOAD, CLI, server], {
        env: { PATH: process.env.PATH ?? '', HOME: dir, MODULE_LOG: log, TOOLSERVERS_CREDENTIALS_FILE: path.join(dir, 'credentials.json'), TOOLSERVERS_LOG_LEVEL: 'warn', INCIDENTOPS_ACCESS_TOKEN: 'dummy', CANVASAPI_ACCESS_TOKEN: 'dummy' },
      });
      let out = '';
      let err = '';
      let count: number | undefined;
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        for (const line of out.split('\n')) {
          if (!line.includes('"id":2')) continue;
          count = (JSON.parse(line) as { result: { tools: unknown[] } }).result.tools.length;
          child.stdin.end();
        }
      });
      child.on('exit', () => {
        clearTimeout(timer);
        if (count === undefined) reject(new Error(`no tools/list answer; stderr: ${err}`));
        else resolve(count);
      });
      child.stdin.write(REQUESTS);
    });
    return { modules: readFileSync(log, 'utf8').split('\n').filter(Boolean), tools };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ALWAYS_ABSENT: [string, RegExp][] = [
  ['the sandbox', /\/src\/sandbox\//],
  ['the browser opener (open)', /node_modules\/open\//],
  ['the HTTP adapter', /node_modules\/@modelcontextprotocol\/node\/|node_modules\/hono\//],
  ['Ajv formats', /node_modules\/ajv-formats\//],
  ['the tokenizer', /node_modules\/js-tiktoken\//],
  ['the OAuth authorization server', /node_modules\/(oidc-provider|koa)\//],
  ['the Redis client', /node_modules\/ioredis\//],
  ['the metrics library', /node_modules\/prom-client\//],
  ['the HTTP serving code', /\/src\/core\/serving\/(serve\.js|http\/)/],
  // Only the SDK's skills extension loads before the first answer; the texts wait for a skills request.
  ['the skill texts', /\/src\/(incidentops|canvasapi)\/skills\.js/],
];

describe('cold start loads only what the command uses', () => {
  it('toolservers incidentops loads nothing of CanvasApi, the sandbox or sign-in UI', async () => {
    const { modules, tools } = await modulesLoadedBy('incidentops');
    assert.equal(tools, 14);
    assert.ok(modules.some((m) => m.includes('/src/incidentops/index.js')), 'the preload recorded the server itself');
    // Its settings (names of environment variables, for help texts) are all the CLI knows of the other server.
    assert.deepEqual(modules.filter((m) => /\/src\/canvasapi\//.test(m) && !m.endsWith('/src/canvasapi/settings.js')), []);
    for (const [what, pattern] of ALWAYS_ABSENT) assert.deepEqual(modules.filter((m) => pattern.test(m)), [], `${what} must not be loaded`);
  });

  it('toolservers canvasapi loads nothing of IncidentOps, the sandbox, or Ajv before a body is validated', async () => {
    const { modules, tools } = await modulesLoadedBy('canvasapi');
    assert.equal(tools, 139);
    assert.ok(modules.some((m) => m.includes('/src/canvasapi/catalogue.js')), 'the preload recorded the server itself');
    assert.deepEqual(modules.filter((m) => /node_modules\/fuse\.js\//.test(m)), [], 'fuse.js loads with the first FindTools search only');
    assert.deepEqual(modules.filter((m) => /node_modules\/luxon\//.test(m)), [], 'CanvasApi checks its UTC dates without a date library');
    assert.deepEqual(modules.filter((m) => /\/src\/canvasapi\/tasks\/(?!index\.js)/.test(m)), [], 'the task tools\' logic loads with their first call');
    assert.deepEqual(modules.filter((m) => /node_modules\/@dagrejs\//.test(m)), [], 'the layout library loads with the first diagram');
    assert.deepEqual(modules.filter((m) => /\/src\/incidentops\//.test(m) && !m.endsWith('/src/incidentops/settings.js')), []);
    for (const [what, pattern] of ALWAYS_ABSENT) assert.deepEqual(modules.filter((m) => pattern.test(m)), [], `${what} must not be loaded`);
  });
});
