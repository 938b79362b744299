/**
 * The shipped `toolservers` command is the esbuild bundle in dist/cli.js (`npm run build`); every
 * other test runs the unbundled build/. This one checks the bundle does what the unbundled CLI does:
 * the same tools/list for each server, a call that validates a request body (Ajv, loaded at run
 * time) against the in-process sandbox, and the package version; that lazily loaded code sits in
 * chunks a start does not load; and that CreateDiagram lays flows out in a worker thread from the
 * bundle's own files, the server answering all the while; and that it serves the views (dist/views/).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { silentLogger } from '../src/core/logger.js';
import { listTools } from '../src/core/tools/registry.js';
import { PACKAGE_VERSION, SERVERS } from '../src/servers.js';
import { modulesLoadedBy } from './support/modules-loaded.js';
import { assertSelfContained } from './support/views.js';
import { worstDiagram } from './support/worst-diagram.js';
import { VIEW_MIME_TYPE, viewUri } from '../src/core/tools/views.js';

const BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cli.js');
const home = mkdtempSync(path.join(tmpdir(), 'toolservers-bundle-'));
after(() => rmSync(home, { recursive: true, force: true }));
const env = { PATH: process.env.PATH ?? '', HOME: home, TOOLSERVERS_CREDENTIALS_FILE: path.join(home, 'credentials.json'), TOOLSERVERS_LOG_LEVEL: 'warn', INCIDENTOPS_ACCESS_TOKEN: 'dummy', CANVASAPI_ACCESS_TOKEN: 'dummy' };

function run(args: string[], input?: string, until?: (stdout: string) => boolean, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUNDLE, ...args], { env: { ...env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (until?.(stdout)) child.stdin.end();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin.write(input);
    else child.stdin.end();
  });
}

const LIST =
  [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ]
    .map((message) => JSON.stringify(message))
    .join('\n') + '\n';

describe('the bundled CLI (dist/cli.js)', { skip: existsSync(BUNDLE) ? false : 'dist/cli.js is not built (npm run build)' }, () => {
  it('prints the package version', async () => {
    const result = await run(['--version']);
    assert.equal(result.stdout.trim(), PACKAGE_VERSION);
  });

  for (const entry of SERVERS) {
    it(`serves the same tools/list as the unbundled ${entry.name} server`, async () => {
      const result = await run([entry.id], LIST, (out) => out.includes('"id":2'));
      const line = result.stdout.split('\n').find((l) => l.includes('"id":2'));
      assert.ok(line, `no tools/list answer; stderr: ${result.stderr}`);
      const listed = (JSON.parse(line) as { result: { tools: unknown[] } }).result.tools;
      assert.deepEqual(listed, JSON.parse(JSON.stringify(listTools(entry.create({}, { logger: silentLogger })))));
    });
  }

  // `toolservers <server>` alone starts without the command-line parser (src/main.ts): the
  // environment's choices and their errors must work exactly as through the parser.
  it('a server started with no flags takes its choices from the environment, as with flags', async () => {
    const readonly = await run(['canvasapi'], LIST, (out) => out.includes('"id":2'), { TOOLSERVERS_PROFILE: 'readonly' });
    const viaParser = await run(['canvasapi', '--profile', 'readonly'], LIST, (out) => out.includes('"id":2'));
    const tools = (result: { stdout: string }) => (JSON.parse(result.stdout.split('\n').find((l) => l.includes('"id":2')) ?? '{}') as { result?: { tools: { name: string }[] } }).result?.tools.map((t) => t.name);
    assert.ok(tools(readonly)?.length && tools(readonly)!.length < 139, readonly.stderr);
    assert.deepEqual(tools(readonly), tools(viaParser));
    const bad = await run(['canvasapi'], '', undefined, { TOOLSERVERS_PROFILE: 'bogus' });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Unknown profile "bogus": one of all, readonly, meta, everyday, no-enterprise/);
  });

  it('explains a wrong argument in words (the bundle keeps only the English messages of zod)', async () => {
    const refused = await run(['call', 'CanvasApi.RetrieveBoardInfo', '{"board_unique_identifier":5}']);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /board_unique_identifier: expected a string \(got 5\)/);
    const unknown = await run(['call', 'CanvasApi.RetrieveBoardInfo', '{"board_unique_identifier":"b","limit_x":1}']);
    assert.match(unknown.stdout, /limit_x/);
  });

  it('validates a request body with Ajv and calls the sandbox', async () => {
    const refused = await run(['call', 'CanvasApi.CreateCanvasBoard', '{"mode":"execute","request_body":{"name":7}}', '--sandbox']);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /request_body\.name: must be of type string/);
    const created = await run(['call', 'CanvasApi.CreateCanvasBoard', '{"mode":"execute","request_body":{"name":"From the bundle"}}', '--sandbox']);
    assert.equal(created.code, 0, created.stderr);
    assert.equal((JSON.parse(created.stdout) as { name?: string }).name, 'From the bundle');
  });

  it("puts IncidentOps's task-tool logic in chunks that a start does not load and the first call does", async () => {
    // Which chunks hold the logic: their source maps name the sources.
    const chunks = path.join(path.dirname(BUNDLE), 'chunks');
    const sourcesOf = (file: string) => (JSON.parse(readFileSync(path.join(chunks, `${file}.map`), 'utf8')) as { sources: string[] }).sources;
    const logicChunks = readdirSync(chunks)
      .filter((file) => file.endsWith('.js'))
      .filter((file) => sourcesOf(file).some((source) => /\/src\/incidentops\/(tasks\/|oncall-levels\.ts)/.test(source)));
    assert.ok(logicChunks.length >= 2, `chunks with the task logic: ${logicChunks.join(', ')}`);
    // Only task logic, and packages only it uses (the stemmer): a start loads none of these chunks (below).
    for (const file of logicChunks) assert.deepEqual(sourcesOf(file).filter((source) => !/\/src\/incidentops\/(tasks\/|oncall-levels\.ts)|node_modules\//.test(source)), [], `${file} holds the task logic only`);

    const loaded = await modulesLoadedBy(BUNDLE, ['incidentops', '--sandbox', '--profile', 'everyday'], { name: 'IncidentOps.WhoIsOnCall', arguments: { service_id: 'payments' } });
    assert.equal(loaded.tools, 19);
    const logicIn = (modules: string[]) => logicChunks.filter((file) => modules.some((m) => m.endsWith(`/dist/chunks/${file}`)));
    assert.deepEqual(logicIn(loaded.atList), [], 'a start loads none of it');
    assert.equal(loaded.called?.isError, undefined, JSON.stringify(loaded.called));
    const afterCall = logicIn(loaded.afterCall);
    assert.ok(afterCall.some((file) => sourcesOf(file).some((source) => source.endsWith('/src/incidentops/tasks/who-is-on-call.ts'))), `the call loaded its logic: ${afterCall.join(', ')}`);
    assert.ok(!afterCall.some((file) => sourcesOf(file).some((source) => source.endsWith('/src/incidentops/tasks/incident-context.ts'))), "and not the other tool's");
  });
  it('serves the views from dist/views/: the link in tools/list and the self-contained page', async () => {
    const client = new Client({ name: 'bundle-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BUNDLE, 'incidentops', '--sandbox', '--profile', 'everyday'], env, stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.find((tool) => tool.name === 'IncidentOps.WhoIsOnCall')?._meta, { ui: { resourceUri: viewUri('coverage') } });
      const read = await client.readResource({ uri: viewUri('coverage') });
      const content = read.contents[0] as { mimeType?: string; text?: string };
      assert.equal(content.mimeType, VIEW_MIME_TYPE);
      assert.equal(content.text, readFileSync(path.join(path.dirname(BUNDLE), 'views', 'coverage.html'), 'utf8'));
      assertSelfContained(content.text ?? '');
    } finally {
      await client.close();
    }
  });

  it('lays flows out in a worker thread from its own files: the layout library is out of reach of the CLI, and the server answers while it computes', async () => {
    // The chunks the CLI can load by its own imports (static and dynamic): dagre is not among them.
    const chunks = path.join(path.dirname(BUNDLE), 'chunks');
    const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"(\.\.?\/[^"]+\.js)"/g)].map((m) => path.resolve(path.dirname(file), m[1]!));
    const reachable = new Set<string>();
    const visit = (file: string): void => {
      if (reachable.has(file)) return;
      reachable.add(file);
      importsOf(file).forEach(visit);
    };
    visit(BUNDLE);
    const holdsDagre = (file: string) => (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources.some((source) => source.includes('node_modules/@dagrejs/dagre/'));
    assert.ok(reachable.has(path.join(chunks, readdirSync(chunks).find((f) => f.startsWith('create-diagram-') && f.endsWith('.js'))!)), 'the CLI reaches the tool');
    assert.deepEqual([...reachable].filter(holdsDagre), [], 'nothing the CLI imports holds dagre');
    assert.ok(holdsDagre(path.join(chunks, 'diagram-layout.js')) || importsOf(path.join(chunks, 'diagram-layout.js')).some(holdsDagre), "the worker's step holds it");
    assert.ok(existsSync(path.join(chunks, 'off-thread-worker.js')));

    const client = new Client({ name: 'bundle-test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BUNDLE, 'canvasapi', '--sandbox', '--profile', 'everyday'], env, stderr: 'pipe' }));
    try {
      const boards = await client.callTool({ name: 'CanvasApi.RetrieveUserBoards', arguments: {} });
      const board = (boards.structuredContent as { data: { id: string }[] }).data[0]!.id;
      const drawn = await client.callTool({ name: 'CanvasApi.CreateDiagram', arguments: { board_id: board, nodes: ['A', 'B', 'C'].map((id) => ({ id, text: `Bundle ${id}` })), edges: [{ from: 'A', to: 'B' }, { from: 'B', to: 'C' }], layout: 'flow-down' } });
      assert.equal(drawn.isError, undefined, JSON.stringify(drawn.content));
      const items = (drawn.structuredContent as { node_items: Record<string, string> }).node_items;
      const read = await client.callTool({ name: 'CanvasApi.ReadBoard', arguments: { board_id: board, query: 'bundle ' } });
      const yOf = (id: string) => Number(/ -?\d+,(-?\d+) /.exec((read.structuredContent as { items: string[] }).items.find((line) => line.startsWith(`${id} `))!)![1]);
      assert.ok(yOf(items.A!) < yOf(items.B!) && yOf(items.B!) < yOf(items.C!), 'A above B above C');

      // ViewBoard over stdio from the bundle: the worker loads resvg's wasm and the font from their packages; the PNG comes as an image block.
      const seen = await client.callTool({ name: 'CanvasApi.ViewBoard', arguments: { board_id: board, max_side: 300 } });
      assert.equal(seen.isError, undefined, JSON.stringify(seen.content).slice(0, 500));
      const image = (seen.content as { type: string; mimeType?: string; data?: string }[])[1]!;
      assert.deepEqual([image.type, image.mimeType], ['image', 'image/png']);
      assert.equal(Buffer.from(image.data!, 'base64').subarray(1, 4).toString(), 'PNG');
      assert.match((seen.structuredContent as { size_px: string }).size_px, /^300x\d+$|^\d+x300$/);

      // The heaviest flow, on a board that does not exist: one request, after the layout. Pings
      // sent one after another are answered while it computes.
      let pings = 0;
      let done = false;
      const pinging = (async () => {
        while (!done) {
          await client.ping();
          pings++;
        }
      })();
      const worst = await client.callTool({ name: 'CanvasApi.CreateDiagram', arguments: worstDiagram('uXjVnoSuchBoard=') }, { timeout: 120_000 });
      done = true;
      await pinging;
      assert.equal(worst.isError, true);
      assert.match(JSON.stringify(worst.content), /not_found/);
      assert.ok(pings >= 20, `${pings} pings answered during the call`);
    } finally {
      await client.close();
    }
  });
});
