/**
 * A server command loads only its own server's code: starting `toolservers incidentops` and
 * answering tools/list loads nothing of CanvasApi (and the reverse), and neither loads the sandbox,
 * the browser opener, the HTTP adapter, nor Ajv's formats (set up on the first body to validate);
 * the task tools' logic, and the worker threads of CPU-heavy steps, load with their first call. Checked on the real CLI process with a preload that records every module it loads.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { modulesLoadedBy } from './support/modules-loaded.js';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli.js');

/** What only IncidentOps's task tools run (their definitions are in src/incidentops/tools/). */
const INCIDENTOPS_TASK_LOGIC = /\/src\/incidentops\/(tasks\/|oncall-levels\.js)/;

const ALWAYS_ABSENT: [string, RegExp][] = [
  ['the sandbox', /\/src\/sandbox\//],
  ['the browser opener (open)', /node_modules\/open\//],
  ['the HTTP adapter', /node_modules\/@modelcontextprotocol\/node\/|node_modules\/hono\//],
  ['Ajv formats', /node_modules\/ajv-formats\//],
  ['the tokenizer', /node_modules\/js-tiktoken\//],
  ['the OAuth authorization server', /node_modules\/(oidc-provider|koa)\//],
  ['the Redis client', /node_modules\/ioredis\//],
  ['the metrics library', /node_modules\/prom-client\//],
  // A stdio server at warn writes no line at start, so its logger never makes a pino logger.
  ['the logging library (pino)', /node_modules\/pino\//],
  ['the HTTP serving code', /\/src\/core\/serving\/(serve\.js|http\/)/],
  // Worker threads start with the first CPU-heavy step (a flow diagram's layout).
  ['the off-thread steps', /\/src\/core\/tools\/off-thread/],
  // Only the SDK's skills extension loads before the first answer; the texts wait for a skills request.
  ['the skill texts', /\/src\/(incidentops|canvasapi)\/skills\.js/],
];

describe('cold start loads only what the command uses', () => {
  it('toolservers incidentops loads nothing of CanvasApi, the sandbox or sign-in UI', async () => {
    const { atList: modules, tools } = await modulesLoadedBy(CLI, ['incidentops']);
    assert.equal(tools, 14);
    assert.ok(modules.some((m) => m.includes('/src/incidentops/index.js')), 'the preload recorded the server itself');
    assert.deepEqual(modules.filter((m) => INCIDENTOPS_TASK_LOGIC.test(m)), [], "the task tools' logic loads with their first call");
    assert.deepEqual(modules.filter((m) => /node_modules\/luxon\//.test(m)), [], 'luxon loads with the first time or time zone to check');
    // Its settings (names of environment variables, for help texts, and the allowlist's address grammar) are all the CLI knows of the other server.
    assert.deepEqual(modules.filter((m) => /\/src\/canvasapi\//.test(m) && !/\/src\/canvasapi\/(settings|email-address)\.js$/.test(m)), []);
    for (const [what, pattern] of ALWAYS_ABSENT) assert.deepEqual(modules.filter((m) => pattern.test(m)), [], `${what} must not be loaded`);
  });

  it("IncidentOps's task tools are listed from their definitions; their logic loads with the first call", async () => {
    const { atList, afterCall, tools, called } = await modulesLoadedBy(CLI, ['incidentops', '--sandbox', '--profile', 'everyday'], { name: 'IncidentOps.WhoIsOnCall', arguments: { service_id: 'payments' } });
    assert.equal(tools, 19);
    assert.ok(atList.some((m) => m.endsWith('/src/incidentops/tools/who-is-on-call.js')), 'the definitions load at start');
    assert.deepEqual(atList.filter((m) => INCIDENTOPS_TASK_LOGIC.test(m)), [], "the task tools' logic loads with their first call");
    assert.equal(called?.isError, undefined, JSON.stringify(called));
    assert.ok(afterCall.some((m) => m.endsWith('/src/incidentops/tasks/who-is-on-call.js')) && afterCall.some((m) => m.endsWith('/src/incidentops/oncall-levels.js')), 'the first call loaded the logic');
    assert.ok(!afterCall.some((m) => m.endsWith('/src/incidentops/tasks/incident-context.js')), "only the called tool's logic");
  });

  it('toolservers canvasapi loads nothing of IncidentOps, the sandbox, or Ajv before a body is validated', async () => {
    const { atList: modules, tools } = await modulesLoadedBy(CLI, ['canvasapi']);
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
