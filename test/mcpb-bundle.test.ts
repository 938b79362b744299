/**
 * The Claude Desktop bundles (`npm run build:mcpb`): built by the real script with the mcpb CLI,
 * unpacked again, checked for what the manifest's entry point needs, and started the way Claude
 * Desktop starts them: the launch command comes from @anthropic-ai/mcpb's own
 * getMcpConfigForManifest (the code Claude Desktop uses) with a user's settings, and an MCP client
 * lists and calls tools over stdio against the sandbox. The bundles carry only the node_modules the
 * bundled code loads from disk (Ajv), so a call that validates a request body also proves the
 * bundle needs nothing outside itself; a diagram call, that its worker threads find their files;
 * a ViewBoard call, that the CanvasApi archive holds the renderer's wasm and font (IncidentOps's none);
 * reading a view (MCP Apps), that the pages are inside too.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { getMcpConfigForManifest, replaceVariables, type McpbManifestAny } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { DEMO_USER_ID, type RunningSandbox } from '../src/sandbox/server.js';
import { startTestSandbox } from './support/harness.js';
import { assertSelfContained } from './support/views.js';
import { VIEW_MIME_TYPE, VIEW_NAMES, viewUri } from '../src/core/tools/views.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST_CLI = path.join(ROOT, 'dist', 'cli.js');
const MCPB_CLI = path.join(path.dirname(createRequire(import.meta.url).resolve('@anthropic-ai/mcpb')), 'cli', 'cli.js');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string> };

type Manifest = McpbManifestAny & {
  server: { entry_point: string; mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  user_config: Record<string, { type: string; required?: boolean; sensitive?: boolean; default?: unknown }>;
  tools: { name: string; description?: string }[];
};

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, base) : [path.relative(base, full).split(path.sep).join('/')];
  });
}

/**
 * The server a chunk of the archive is wholly made of (its source map in dist/chunks/ says: every
 * project source under src/<server>/), or null for shared code. The archive's chunks are dist's.
 */
function serverOfChunk(file: string): string | null {
  const map = path.join(ROOT, 'dist', file.replace(/^server\//, '') + '.map');
  if (!existsSync(map)) return null;
  const sources = (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources.filter((source) => !source.includes('node_modules/'));
  const rooms = new Set(sources.map((source) => /^src\/([^/]+)\//.exec(path.relative(ROOT, path.resolve(path.dirname(map), source)).split(path.sep).join('/'))?.[1]));
  const [room] = rooms;
  return rooms.size === 1 && (room === 'incidentops' || room === 'canvasapi') ? room : null;
}

/** The listing the CLI gives for these arguments (names as the bundle serves them). */
async function cliToolNames(args: string[]): Promise<string[]> {
  const { stdout } = await run(process.execPath, [DIST_CLI, 'tools', ...args, '--json', '--tool-names', 'underscore'], { maxBuffer: 16 * 1024 * 1024 });
  return (JSON.parse(stdout) as { name: string }[]).map((tool) => tool.name);
}

describe('the .mcpb bundles', { skip: existsSync(DIST_CLI) ? false : 'dist/cli.js is not built (npm run build)' }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'toolservers-mcpb-'));
  const home = path.join(out, 'home');
  const unpacked: Record<string, { dir: string; manifest: Manifest }> = {};
  let sandbox: RunningSandbox;
  const clients: Client[] = [];

  before(async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'scripts', 'build-mcpb.mjs'), '--out', out], { cwd: ROOT });
    for (const archive of stdout.trim().split('\n')) {
      const server = /toolservers-(\w+)-/.exec(path.basename(archive))![1]!;
      const dir = path.join(out, server);
      await run(process.execPath, [MCPB_CLI, 'unpack', archive, dir]);
      unpacked[server] = { dir, manifest: JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest };
    }
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await sandbox?.close();
    rmSync(out, { recursive: true, force: true });
  });

  /** Starts a bundle as Claude Desktop would (with this Node in place of its built-in one) and connects a client. */
  async function start(server: string, config: { command: string; args?: string[]; env?: Record<string, string> }): Promise<Client> {
    assert.equal(config.command, 'node');
    const transport = new StdioClientTransport({ command: process.execPath, args: config.args ?? [], env: { ...config.env, PATH: process.env.PATH ?? '', HOME: home, TOOLSERVERS_LOG_LEVEL: 'warn' }, stderr: 'pipe' });
    const client = new Client({ name: `mcpb-${server}`, version: '1' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  it('are built by `npm run build:mcpb`, one per server, at the package version', () => {
    assert.match(pkg.scripts['build:mcpb']!, /scripts\/build-mcpb\.mjs/);
    assert.deepEqual(Object.keys(unpacked).sort(), ['canvasapi', 'incidentops']);
    for (const [server, { manifest }] of Object.entries(unpacked)) {
      assert.equal(manifest.version, pkg.version);
      assert.equal(manifest.manifest_version, '0.3');
      // The source manifests carry the version too, for `mcpb validate` on them.
      assert.equal((JSON.parse(readFileSync(path.join(ROOT, 'mcpb', `${server}.manifest.json`), 'utf8')) as { version: string }).version, pkg.version);
    }
  });

  it('hold what the entry point needs and nothing else: the bundled CLI as ES modules and what it loads, no source maps', () => {
    for (const [server, { dir, manifest }] of Object.entries(unpacked)) {
      const files = filesUnder(dir);
      assert.equal(manifest.server.type, 'node');
      assert.ok(files.includes(manifest.server.entry_point), `${manifest.server.entry_point} is in the archive`);
      assert.equal(manifest.server.mcp_config.args[0], `\${__dirname}/${manifest.server.entry_point}`, 'the command runs the entry point');
      assert.equal((JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type: string }).type, 'module');
      assert.ok(files.includes('LICENSE'));
      assert.deepEqual(files.filter((file) => /\.map$|\.ts$/.test(file)), []);
      // The bundled CLI's own code: everything it names by package must be in the archive's node_modules,
      // unless the naming chunk is wholly the other server's code.
      const loaded = new Set<string>();
      const resolvedFiles = new Map<string, Set<string>>();
      const requireInArchive = createRequire(path.join(dir, 'server', 'cli.js'));
      for (const file of files.filter((name) => name.startsWith('server/') && name.endsWith('.js'))) {
        const code = readFileSync(path.join(dir, file), 'utf8');
        const owner = serverOfChunk(file);
        for (const [, resolve, spec] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\d*(\.resolve)?\(\s*)"((?:node:)?[@.a-z0-9][\w./@-]*)"/g)) {
          if (spec!.startsWith('.')) assert.ok(files.includes(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec!))), `${file} imports ${spec}, which the archive lacks`);
          else if (!spec!.startsWith('node:') && !builtinModules.includes(spec!)) {
            const name = spec!.startsWith('@') ? spec!.split('/').slice(0, 2).join('/') : spec!.split('/')[0]!;
            if (owner !== null && owner !== server) continue;
            if (resolve && spec !== name) {
              // A data file: resolved from inside the archive, as the bundle resolves it.
              const found = requireInArchive.resolve(spec!);
              assert.ok(found.startsWith(path.join(dir, 'node_modules') + path.sep), `${spec} resolves inside the archive`);
              resolvedFiles.set(name, (resolvedFiles.get(name) ?? new Set()).add(path.relative(path.join(dir, 'node_modules', name), found).split(path.sep).join('/')));
              continue;
            }
            assert.ok(files.includes(`node_modules/${name}/package.json`), `${file} loads ${spec}, which is not in the bundle`);
            loaded.add(name);
          }
        }
      }
      // Only that and what it depends on: no development tools, no server dependencies the bundle already contains.
      const packages = files.filter((file) => /^node_modules\/(@[^/]+\/)?[^/@]+\/package\.json$/.test(file)).map((file) => file.slice('node_modules/'.length, -'/package.json'.length));
      const needed = new Set<string>();
      const visit = (name: string): void => {
        if (needed.has(name) || !packages.includes(name)) return;
        needed.add(name);
        const manifest = JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
        for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency);
      };
      for (const name of loaded) visit(name);
      const fileOnly = [...resolvedFiles.keys()].filter((name) => !needed.has(name));
      assert.deepEqual([...packages].sort(), [...needed, ...fileOnly].sort(), 'node_modules holds exactly what the bundle loads at run time and what that depends on');
      assert.ok(loaded.has('ajv') && loaded.has('pino'), `the bundle loads ${[...loaded].join(', ')} from node_modules`);
      // Of a package it only reads files from: those files, its package.json and its licence, nothing else.
      for (const name of fileOnly) {
        const held = files.filter((file) => file.startsWith(`node_modules/${name}/`)).map((file) => file.slice(`node_modules/${name}/`.length));
        const licences = held.filter((file) => /^(licen[cs]e|copying|notice)/i.test(file));
        assert.deepEqual(held.sort(), ['package.json', ...licences, ...resolvedFiles.get(name)!].sort(), `${name}: only the files the bundle resolves`);
      }
    }
    // ViewBoard renders in CanvasApi only: its wasm and font are there, and in IncidentOps nothing of either package.
    const canvasFiles = filesUnder(unpacked.canvasapi!.dir);
    for (const file of ['node_modules/@resvg/resvg-wasm/index_bg.wasm', 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf', 'node_modules/dejavu-fonts-ttf/LICENSE']) assert.ok(canvasFiles.includes(file), `the CanvasApi archive holds ${file}`);
    assert.deepEqual(canvasFiles.filter((file) => file.startsWith('node_modules/dejavu-fonts-ttf/ttf/')), ['node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf'], 'one font file of the package');
    assert.deepEqual(filesUnder(unpacked.incidentops!.dir).filter((file) => /resvg|dejavu|\.wasm$|\.ttf$/i.test(file)), [], 'IncidentOps never renders');
  });

  it('ask for the platform token as a sensitive setting, the base URL and tool profile as optional ones, and use every setting', () => {
    for (const { manifest } of Object.values(unpacked)) {
      const config = manifest.user_config;
      const tokens = Object.entries(config).filter(([key]) => /token/.test(key));
      assert.ok(tokens.length >= 1);
      for (const [key, option] of tokens) assert.equal(option.sensitive, true, `${key} is sensitive`);
      for (const key of ['base_url', 'profile']) {
        assert.equal(config[key]?.required, false, `${key} is optional`);
        // A default makes conformant hosts substitute it rather than pass a placeholder on.
        assert.equal(typeof config[key]?.default, 'string');
      }
      const used = JSON.stringify(manifest.server.mcp_config);
      for (const key of Object.keys(config)) assert.ok(used.includes(`\${user_config.${key}}`), `${key} reaches the server`);
      for (const [, key] of used.matchAll(/\$\{user_config\.([^}]+)\}/g)) assert.ok(key! in config, `${key} is declared`);
    }
  });

  it('list the tools the server serves', async () => {
    for (const [server, { manifest }] of Object.entries(unpacked)) assert.deepEqual(manifest.tools.map((tool) => tool.name), await cliToolNames([server]));
  });

  it('start IncidentOps from Claude Desktop settings and call WhoAmI against the sandbox', async () => {
    const { dir, manifest } = unpacked.incidentops!;
    const config = await getMcpConfigForManifest({
      manifest,
      extensionPath: dir,
      systemDirs: {},
      pathSeparator: path.sep,
      userConfig: { access_token: sandbox.incidentops.token, base_url: sandbox.incidentops.baseUrl },
    });
    assert.ok(config, 'all required settings are given');
    const client = await start('incidentops', config);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), manifest.tools.map((tool) => tool.name).sort());
    const result = await client.callTool({ name: 'IncidentOps_WhoAmI', arguments: {} });
    assert.ok(!result.isError, JSON.stringify(result.content));
    assert.equal((result.structuredContent as { user: { id: string } }).user.id, DEMO_USER_ID);
  });

  it('serve the views (MCP Apps) from inside the bundle', async () => {
    const { dir, manifest } = unpacked.incidentops!;
    for (const view of VIEW_NAMES) assert.ok(existsSync(path.join(dir, 'server', 'views', `${view}.html`)), `server/views/${view}.html is in the archive`);
    const config = await getMcpConfigForManifest({
      manifest,
      extensionPath: dir,
      systemDirs: {},
      pathSeparator: path.sep,
      userConfig: { access_token: sandbox.incidentops.token, base_url: sandbox.incidentops.baseUrl, profile: 'everyday' },
    });
    const client = await start('incidentops', config!);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.find((tool) => tool.name === 'IncidentOps_WhoIsOnCall')?._meta, { ui: { resourceUri: viewUri('coverage') } });
    const read = await client.readResource({ uri: viewUri('coverage') });
    const content = read.contents[0] as { mimeType?: string; text?: string };
    assert.equal(content.mimeType, VIEW_MIME_TYPE);
    assertSelfContained(content.text ?? '');
  });

  it('start CanvasApi with a chosen profile, and validate and send a request body with nothing outside the bundle', async () => {
    const { dir, manifest } = unpacked.canvasapi!;
    assert.equal(await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs: {}, pathSeparator: path.sep, userConfig: {} }), undefined, 'the token is required');
    const config = await getMcpConfigForManifest({
      manifest,
      extensionPath: dir,
      systemDirs: {},
      pathSeparator: path.sep,
      userConfig: { access_token: sandbox.canvasapi.token, base_url: sandbox.canvasapi.baseUrl, profile: 'everyday' },
    });
    const client = await start('canvasapi', config!);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), (await cliToolNames(['canvasapi', '--profile', 'everyday'])).sort());
    const boards = await client.callTool({ name: 'CanvasApi_RetrieveUserBoards', arguments: {} });
    const board = (boards.structuredContent as { data: { id: string }[] }).data[0]!.id;
    const refused = await client.callTool({ name: 'CanvasApi_AddStickyNoteToBoard', arguments: { mode: 'execute', board_id: board, request_body: { data: { content: 7 } } } });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /request_body\.data\.content/);
    const added = await client.callTool({ name: 'CanvasApi_AddStickyNoteToBoard', arguments: { mode: 'execute', board_id: board, request_body: { data: { content: 'From the bundle' } } } });
    assert.ok(!added.isError, JSON.stringify(added.content));
    assert.equal((added.structuredContent as { data: { content: string } }).data.content, 'From the bundle');
    // A flow's layout runs in a worker thread, from the bundle's own files (server/chunks/).
    const drawn = await client.callTool({ name: 'CanvasApi_CreateDiagram', arguments: { board_id: board, nodes: [{ id: 'A', text: 'a' }, { id: 'B', text: 'b' }], edges: [{ from: 'A', to: 'B' }], layout: 'flow-right' } });
    assert.ok(!drawn.isError, JSON.stringify(drawn.content));
    assert.equal((drawn.structuredContent as { summary: string }).summary, '2 of 2 nodes and 1 of 1 connectors created.');
    // ViewBoard renders in a worker with the wasm and the font read from the archive's node_modules.
    const viewed = await client.callTool({ name: 'CanvasApi_ViewBoard', arguments: { board_id: board, max_side: 256 } });
    assert.ok(!viewed.isError, JSON.stringify(viewed.content));
    const image = (viewed.content as { type: string; mimeType?: string; data?: string }[]).find((block) => block.type === 'image');
    assert.equal(image?.mimeType, 'image/png');
    const png = Buffer.from(image!.data!, 'base64');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    assert.equal(Math.max(width, height), 256, 'drawn at the asked size');
  });

  it('start when a host passes blank optional settings on as literal placeholders', async () => {
    const { dir, manifest } = unpacked.canvasapi!;
    // Such a host substitutes only the values it has: base_url and profile stay `${user_config.…}`.
    const config = replaceVariables(manifest.server.mcp_config, { __dirname: dir, 'user_config.access_token': 'a-token' }) as Manifest['server']['mcp_config'];
    assert.equal(config.env.TOOLSERVERS_PROFILE, '${user_config.profile}');
    const client = await start('canvasapi', config);
    const { tools } = await client.listTools();
    assert.equal(tools.length, manifest.tools.length, 'the default profile: every tool');
  });
});
