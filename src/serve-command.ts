/**
 * Serving: `toolservers <server>` (stdio, or HTTP with --transport http) and `toolservers serve`
 * (every server over HTTP). Nothing here needs the command-line parser, so that main.ts can start
 * a server launched with no flags (as desktop clients launch it) without loading it.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import type { AnyToolServer, ToolView, ViewOptions } from './core/tools/registry.js';
import { operatorChoices, requestViewOptions, type ChoiceInput } from './core/tools/request-choices.js';
import { SelectionError } from './core/tools/names.js';
import { forServer, parseBoolean } from './core/tools/selection.js';
import type { RunningSandbox } from './sandbox/server.js';
import type { SharedStore } from './core/store/store.js';
import { printable } from './core/signin/printable.js';
import { logger, raiseToServerLogLevel } from './cli-logger.js';
import { SERVER_INFO, type ServerEntry, type ServerInfo, type ServerSettingsInput } from './server-info.js';

const DEFAULT_HTTP_PORT = 3000;

/** What a server command is given when no flag is: the defaults the command-line options declare. */
export const SERVE_DEFAULTS = { transport: 'stdio', host: '127.0.0.1', port: DEFAULT_HTTP_PORT } as const;

export interface ServeFlags extends ServerSettingsInput, ChoiceInput {
  transport: 'stdio' | 'http';
  host: string;
  port: number;
  sandbox?: boolean;
  allowedHost?: string[];
  allowedOrigin?: string[];
  serverKey?: string;
  metrics?: boolean;
  auth?: string;
  publicUrl?: string;
  store?: string;
  redisUrl?: string;
  audit?: string;
}

export const SERVER_KEY_ENV = 'TOOLSERVERS_SERVER_KEY';
export const METRICS_ENV = 'TOOLSERVERS_METRICS';
export const METRICS_KEY_ENV = 'TOOLSERVERS_METRICS_KEY';
export const AUTH_ENV = 'TOOLSERVERS_AUTH';
export const PUBLIC_URL_ENV = 'TOOLSERVERS_PUBLIC_URL';
/** Tests and local development only: Client ID Metadata Documents on http loopback URLs. */
const DEV_HTTP_CLIENT_IDS_ENV = 'TOOLSERVERS_DEV_ALLOW_HTTP_CLIENT_IDS';

/** `--auth` / TOOLSERVERS_AUTH: key (default) or oauth. */
function authMode(flags: ServeFlags): 'key' | 'oauth' {
  const value = (flags.auth ?? process.env[AUTH_ENV] ?? 'key').trim().toLowerCase() || 'key';
  if (value !== 'key' && value !== 'oauth') fail(`--auth (${AUTH_ENV}) must be key or oauth, got "${printable(value).slice(0, 40)}".`);
  return value;
}

function publicUrlFrom(flags: ServeFlags): string | undefined {
  const raw = (flags.publicUrl ?? process.env[PUBLIC_URL_ENV])?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(`--public-url (${PUBLIC_URL_ENV}) must be an absolute URL such as https://tools.example.com, got "${printable(raw).slice(0, 80)}".`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))) {
    fail(`--public-url (${PUBLIC_URL_ENV}) must use https (http only for loopback), got ${url.origin}.`);
  }
  if (url.search || url.hash) fail(`--public-url (${PUBLIC_URL_ENV}) must not have a query or fragment.`);
  return url.href.replace(/\/+$/, '');
}

export type Registry = typeof import('./core/tools/registry.js');

/** The protocol side (views, listings, calls): loaded by the commands that serve or call tools. */
export function loadRegistry(): Promise<Registry> {
  return import('./core/tools/registry.js');
}

export async function maybeSandbox(enabled: boolean | undefined): Promise<RunningSandbox | undefined> {
  if (!enabled) return undefined;
  const { startSandbox } = await import('./sandbox/server.js');
  const sandbox = await startSandbox({ port: 0 });
  logger.debug({ url: sandbox.url }, 'sandbox started in-process');
  return sandbox;
}

/**
 * `--audit` / TOOLSERVERS_AUDIT: which calls leave an audit line on stderr (docs/operations.md,
 * "Audit"): `writes` by default, over HTTP and stdio alike; `all`; `off`. A bad value stops the start.
 */
async function startAudit(flags: ServeFlags): Promise<void> {
  const { AUDIT_ENV, auditToolCalls, resolveAuditMode } = await import('./core/tools/audit.js');
  try {
    auditToolCalls(resolveAuditMode(flags.audit ?? process.env[AUDIT_ENV]), logger);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

/** Metrics are opt-in (--metrics or TOOLSERVERS_METRICS); the key comes from the environment only, never a flag that `ps` shows. */
function metricsSetting(flag: boolean | undefined, host: string, isLoopback: (host: string) => boolean): { key?: string } | undefined {
  let enabled: boolean | undefined;
  try {
    enabled = flag === true ? true : parseBoolean(process.env[METRICS_ENV], METRICS_ENV);
  } catch (error) {
    if (error instanceof SelectionError) fail(error.message);
    throw error;
  }
  if (!enabled) return undefined;
  const key = process.env[METRICS_KEY_ENV]?.trim() || undefined;
  if (key !== undefined && key.length < 16) fail(`${METRICS_KEY_ENV} must be at least 16 characters long.`);
  if (!key && !isLoopback(host)) logger.warn({ host }, `metrics at /metrics are readable by every client that can reach the server; set ${METRICS_KEY_ENV} to require a key`);
  return key ? { key } : {};
}

/**
 * The store replicas share (src/core/store): opened when serving HTTP, and for stdio only when
 * Redis is chosen. Its code (and ioredis) is loaded only then.
 */
async function openSharedStore(flags: ServeFlags, http: boolean): Promise<SharedStore | undefined> {
  if (!http && !flags.store && !process.env.TOOLSERVERS_STORE) return undefined;
  const { openStore, storeChoice } = await import('./core/serving/open-store.js');
  try {
    const choice = storeChoice(flags);
    if (!http && choice.kind === 'memory') return undefined;
    return await openStore(choice, logger);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

/** The operator's view choice from flags and environment; a bad choice stops the command with the reason. */
export function choicesFrom(flags: ChoiceInput): ViewOptions {
  try {
    return operatorChoices(flags);
  } catch (error) {
    if (error instanceof SelectionError) fail(error.message);
    throw error;
  }
}

/** The operator's choice for one of several servers served together: each keeps the named tools it has. */
export function choiceForServer(options: ViewOptions, server: AnyToolServer, servers: readonly AnyToolServer[]): ViewOptions {
  try {
    return { ...options, selections: (options.selections ?? []).map((selection) => forServer(selection, server, servers)) };
  } catch (error) {
    if (error instanceof SelectionError) fail(error.message);
    throw error;
  }
}

/** The view of a server for the operator's choice, or the reason it cannot be served. */
export function checkedView(registry: Registry, server: AnyToolServer, options: ViewOptions): ToolView {
  try {
    return registry.viewFor(server, options);
  } catch (error) {
    if (error instanceof SelectionError) fail(`${server.name}: ${error.message}`);
    throw error;
  }
}

export function settingsFrom(flags: ServerSettingsInput): ServerSettingsInput {
  const out: ServerSettingsInput = {};
  if (flags.baseUrl) out.baseUrl = flags.baseUrl;
  if (flags.region) out.region = flags.region;
  if (flags.accessToken) out.accessToken = flags.accessToken;
  if (flags.apiToken) out.apiToken = flags.apiToken;
  if (flags.clientId) out.clientId = flags.clientId;
  if (flags.clientSecret) out.clientSecret = flags.clientSecret;
  if (flags.authorizeUrl) out.authorizeUrl = flags.authorizeUrl;
  if (flags.tokenUrl) out.tokenUrl = flags.tokenUrl;
  if (flags.inviteAllowedDomains) out.inviteAllowedDomains = flags.inviteAllowedDomains;
  if (flags.fullRecords) out.fullRecords = true;
  return out;
}

/** OAuth mode: the servers built with per-user credentials, and the layer that signs people in. */
async function oauthServers(entries: readonly ServerEntry[], input: ServerSettingsInput, flags: ServeFlags, sandbox: RunningSandbox | undefined, single: boolean, shared: SharedStore | undefined) {
  const { prepareOAuthMode } = await import('./servers/oauth-mode.js');
  const publicUrl = publicUrlFrom(flags);
  try {
    return prepareOAuthMode({
      entries,
      input,
      logger,
      single,
      ...(sandbox ? { sandbox } : {}),
      ...(publicUrl ? { publicUrl } : {}),
      ...(shared ? { store: shared } : {}),
      ...(process.env[DEV_HTTP_CLIENT_IDS_ENV] === 'true' ? { allowHttpClientIds: true } : {}),
    });
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

/** The servers of an HTTP start: per-user credentials and the sign-in layer in OAuth mode, the configured credentials otherwise. */
async function httpServers(entries: readonly ServerEntry[], input: ServerSettingsInput, flags: ServeFlags, sandbox: RunningSandbox | undefined, single: boolean) {
  const shared = await openSharedStore(flags, true);
  if (authMode(flags) === 'oauth') {
    const mode = await oauthServers(entries, input, flags, sandbox, single, shared);
    return { servers: mode.servers, shared: mode.store, oauth: mode.layer };
  }
  const servers = entries.map((entry) => entry.create(input, { logger, ...(sandbox ? { sandbox } : {}), ...(shared ? { shared } : {}) }));
  return { servers, shared, oauth: undefined };
}

async function serveHttp(started: { servers: AnyToolServer[]; shared: SharedStore | undefined; oauth: import('./core/serving/oauth/layer.js').OAuthLayer | undefined }, flags: ServeFlags, single: boolean): Promise<void> {
  const { servers, shared, oauth } = started;
  const [registry, { isLoopbackHost, serveOverHttp }, { allowedOriginsFrom }, serverKeys] = await Promise.all([
    loadRegistry(),
    import('./core/serving/serve.js'),
    import('./core/serving/http/origins.js'),
    import('./core/signin/server-key.js'),
  ]);
  try {
    allowedOriginsFrom(flags.allowedOrigin ?? []);
  } catch (error) {
    fail((error as Error).message);
  }
  const configured = configuredServerKey(flags, serverKeys.MIN_SERVER_KEY_LENGTH);
  if (oauth) {
    if (!isLoopbackHost(flags.host)) logger.warn({ host: flags.host }, 'binding to a non-loopback address: serve it behind https (set --public-url)');
  } else if (!isLoopbackHost(flags.host)) {
    if (!configured) fail(`Binding to ${flags.host} needs a server key set explicitly: set ${SERVER_KEY_ENV} (or --server-key) to a long random value.`);
    logger.warn({ host: flags.host }, 'binding to a non-loopback address: every client that can reach it and has the server key can use these tools');
  }
  const key = oauth ? undefined : configured ?? (await keptKey(serverKeys));
  const metrics = metricsSetting(flags.metrics, flags.host, isLoopbackHost);
  const choice = choicesFrom(flags);
  const viewOf = (server: AnyToolServer) => choiceForServer(choice, server, servers);
  // Served together, a server the choice leaves no tool (`--toolsets boards` for IncidentOps) is not mounted: a client gets a 404 naming the endpoints, not an empty list.
  const served = single ? servers : servers.filter((server) => checkedView(registry, server, viewOf(server)).selected.tools.length > 0);
  if (served.length === 0) fail('The tool choice leaves no server any tool: run `toolservers tools` with the same choices to see what it keeps.');
  const mounts = served.map((server) => ({ path: single ? '/mcp' : `/${server.id}/mcp`, server, view: viewOf(server) }));
  const publicUrl = publicUrlFrom(flags);
  // Behind a proxy the public host is the one clients (and the consent form) use.
  const publicHost = publicUrl ? [new URL(publicUrl).hostname] : [];
  let running: Awaited<ReturnType<typeof serveOverHttp>>;
  try {
    running = await serveOverHttp({
      host: flags.host,
      port: flags.port,
      mounts,
      logger,
      auth: oauth ? { kind: 'oauth', layer: oauth } : { kind: 'key', serverKey: key!.value, keyLocation: key!.location },
      allowedHosts: [...(flags.allowedHost ?? []), ...publicHost],
      allowedOrigins: [...(flags.allowedOrigin ?? []), ...publicHost],
      ...(shared ? { store: shared } : {}),
      ...(metrics ? { metrics } : {}),
    });
  } catch (error) {
    failIfPortBusy(error, flags.host, flags.port);
    throw error;
  }
  if (oauth) {
    const base = publicUrl ?? running.url;
    const lines = ['', 'toolservers is serving MCP over Streamable HTTP with OAuth (every user signs in to the platform as themselves; no key):'];
    for (const { path, server } of running.endpoints) lines.push(`  ${server.name.padEnd(12)} ${base}${path}`);
    lines.push('', `Authorization server: ${base}/oauth (metadata at ${base}/.well-known/oauth-authorization-server/oauth).`, `Each platform's OAuth app must allow the redirect URI ${base}/oauth/callback.`, '');
    process.stderr.write(lines.join('\n'));
  } else {
    const withTasks = (server: AnyToolServer) => registry.viewFor(server, requestViewOptions(viewOf(server), [], `/mcp${TASK_TOOLS_QUERY}`, {})).listing.length;
    process.stderr.write(describeEndpoints(running.endpoints.map((endpoint) => ({ ...endpoint, view: checkedView(registry, endpoint.server, viewOf(endpoint.server)), configured: withTasks(endpoint.server) })), key!));
  }
  for (const server of servers.filter((server) => !served.includes(server))) process.stderr.write(`${server.name} is not served: the tool choice leaves it no tool.\n`);
  // Start-up lines would sit among the banner; from here on a server logs at info unless told otherwise.
  raiseToServerLogLevel();
  if (metrics) logger.info({ url: `${running.url}/metrics`, key: metrics.key ? 'required' : 'none' }, 'serving Prometheus metrics');
  const stop = () => void running.close().then(() => shared?.close()).finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The server key and where its user finds it (`file` when it is the kept one). */
export interface ServerKeyChoice {
  value: string;
  location: string;
  file?: string;
  created?: boolean;
}

/** A key set by --server-key or TOOLSERVERS_SERVER_KEY: it wins over the kept one. */
function configuredServerKey(flags: ServeFlags, minLength: number): ServerKeyChoice | undefined {
  const fromFlag = flags.serverKey?.trim();
  const fromEnv = process.env[SERVER_KEY_ENV]?.trim();
  const configured = fromFlag
    ? { value: fromFlag, location: 'the key given to it with --server-key' }
    : fromEnv
      ? { value: fromEnv, location: `the key in its ${SERVER_KEY_ENV} variable` }
      : undefined;
  if (configured && configured.value.length < minLength) fail(`${fromFlag ? '--server-key' : SERVER_KEY_ENV} must be at least ${minLength} characters long (a long random value).`);
  return configured;
}

/** The key kept beside the sign-ins, made on the first start. */
async function keptKey({ keptServerKey, serverKeyFile }: typeof import('./core/signin/server-key.js')): Promise<ServerKeyChoice> {
  const file = serverKeyFile();
  try {
    const { key, created } = await keptServerKey(file);
    // Clients are told the file relative to the home directory: the path says where, not whose.
    const home = homedir();
    const shown = home && file.startsWith(`${home}${path.sep}`) ? `~${file.slice(home.length)}` : file;
    return { value: key, location: `the key kept in ${shown} on its machine (\`toolservers key show\` prints it)`, file, created };
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

/** A port another program holds: say which, and how to choose another. */
export function failIfPortBusy(error: unknown, host: string, port: number, flag = '--port'): void {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') fail(`Port ${port} on ${host} is already in use (another server, perhaps another toolservers, listens there). Stop it, or choose another port with ${flag} <port> (0 picks a free one).`);
  if (code === 'EACCES') fail(`Port ${port} on ${host} needs privileges this user lacks. Choose a port above 1023 with ${flag} <port>.`);
  if (code === 'EADDRNOTAVAIL') fail(`${host} is not an address of this machine. Choose one with --host (127.0.0.1 by default).`);
}

/** What a person needs to connect a client, printed at start (stderr, like all diagnostics). */
function describeEndpoints(endpoints: { url: string; server: AnyToolServer; view: ToolView; configured: number }[], serverKey: ServerKeyChoice): string {
  // A kept key is shown (it is the user's own file); a configured one is never echoed.
  const key = serverKey.file ? serverKey.value : `<the value of ${SERVER_KEY_ENV}>`;
  const bearer = `Bearer ${key}`;
  const lines = ['', 'toolservers is serving MCP over Streamable HTTP:'];
  for (const { url, server, view, configured } of endpoints) {
    const more = configured > view.listing.length ? `; ${configured} with the task tools the configurations below choose` : '';
    lines.push(`  ${server.name.padEnd(12)} ${url}  (${view.listing.length} tools${more})`);
  }
  lines.push(
    '',
    'Insert a profile or name style before /mcp to choose per client: /underscore/mcp (names without dots), /short/mcp (names without the server\'s),',
    '/everyday/mcp, /no-enterprise/mcp, /readonly/mcp, /meta/mcp; or send X-Toolservers-Profile, -Toolsets, -Tools, -Exclude-Tools, -Read-Only, -Tool-Names headers.',
    `The configurations below add the task tools with ${TASK_TOOLS_QUERY}, as the README's stdio ones do with --toolsets all,tasks (docs/tools.md).`,
  );
  lines.push(
    '',
    serverKey.file
      ? `Clients must send "Authorization: Bearer <key>". The key (${serverKey.created ? 'made now and ' : ''}kept in ${serverKey.file}, the same at every start; \`toolservers key rotate\` replaces it):\n  ${serverKey.value}`
      : `Clients must send "Authorization: Bearer <key>" with ${serverKey.location}.`,
  );
  // Each client gets the URL variant it works with: see clientUrl.
  const entries = (client: Client, shape: (url: string) => unknown) => Object.fromEntries(endpoints.map(({ url, server }) => [server.id, shape(clientUrl(url, client))]));
  lines.push('', 'Claude Desktop (claude_desktop_config.json, through the mcp-remote bridge):');
  lines.push(
    JSON.stringify(
      { mcpServers: entries('claude-desktop', (url) => ({ command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${TOOLSERVERS_AUTH_HEADER}'], env: { TOOLSERVERS_AUTH_HEADER: bearer } })) },
      null,
      2,
    ),
  );
  lines.push('', 'Claude Code:');
  // Quoted: a shell reads `?` as a pattern (zsh refuses the line when nothing matches).
  for (const { url, server } of endpoints) lines.push(`  claude mcp add --transport http ${server.id} "${clientUrl(url, 'claude-code')}" --header "Authorization: ${bearer}"`);
  lines.push('', 'Cursor (~/.cursor/mcp.json):');
  lines.push(JSON.stringify({ mcpServers: entries('cursor', (url) => ({ url, headers: { Authorization: bearer } })) }, null, 2));
  lines.push('', 'VS Code (.vscode/mcp.json; CanvasApi without enterprise administration, to stay under 128 tools per request):');
  lines.push(JSON.stringify({ servers: entries('vscode', (url) => ({ type: 'http', url, headers: { Authorization: bearer } })) }, null, 2));
  lines.push('', 'Gemini CLI (~/.gemini/settings.json):');
  lines.push(JSON.stringify({ mcpServers: entries('gemini', (url) => ({ httpUrl: url, headers: { Authorization: bearer } })) }, null, 2));
  lines.push('', `Codex (~/.codex/config.toml; export TOOLSERVERS_KEY="${key}"):`);
  for (const { url, server } of endpoints) lines.push(`[mcp_servers.${server.id}]`, `url = "${clientUrl(url, 'codex')}"`, 'bearer_token_env_var = "TOOLSERVERS_KEY"');
  return lines.join('\n') + '\n';
}

/**
 * The endpoint each client is given. Every one of them puts the server's name before each tool's
 * (docs/clients.md), so all get short names, which also keeps the whole name under 64 characters;
 * VS Code gets a smaller CanvasApi for its 128-tool limit. Every one gets the task tools (TASK_TOOLS_QUERY).
 */
const CLIENT_ENDPOINTS = {
  'claude-desktop': '/short/mcp',
  'claude-code': '/short/mcp',
  cursor: '/short/mcp',
  vscode: '/no-enterprise/short/mcp',
  gemini: '/short/mcp',
  codex: '/short/mcp',
} as const;

type Client = keyof typeof CLIENT_ENDPOINTS;

/**
 * The contract's tools and the task tools, as the README's stdio configurations choose them: a
 * request's toolsets narrow the operator's choice, and name the task tools (docs/tools.md).
 */
export const TASK_TOOLS_QUERY = '?toolsets=all,tasks';

function clientUrl(url: string, client: Client): string {
  return url.replace(/\/mcp$/, CLIENT_ENDPOINTS[client]) + TASK_TOOLS_QUERY;
}

/** `toolservers <server>`: stdio, or HTTP with --transport http. */
export async function serveServerCommand(info: ServerInfo, flags: ServeFlags): Promise<void> {
  const view = choicesFrom(flags);
  await startAudit(flags);
  const sandbox = await maybeSandbox(flags.sandbox);
  const entry = await info.load();
  if (flags.transport !== 'stdio') {
    await serveHttp(await httpServers([entry], settingsFrom(flags), flags, sandbox, true), flags, true);
    return;
  }
  const shared = await openSharedStore(flags, false);
  const server = entry.create(settingsFrom(flags), { logger, ...(sandbox ? { sandbox } : {}), ...(shared ? { shared } : {}) });
  const [registry, { serveOverStdio }] = await Promise.all([loadRegistry(), import('./core/serving/serve-stdio.js')]);
  // The listing itself is computed when the client first asks for it.
  const tools = checkedView(registry, server, view).exposed.length;
  const handle = serveOverStdio(server, view);
  logger.debug({ server: entry.name, tools }, 'serving over stdio');
  // The client closing stdin ends the session: exit, in-process sandbox included, so no server is left orphaned.
  const stop = () => void handle.close().finally(() => void Promise.all([sandbox?.close(), shared?.close()]).finally(() => process.exit(0)));
  process.stdin.once('end', stop);
  process.stdin.once('close', stop);
}

/** `toolservers serve`: every server over HTTP, one path each. */
export async function serveAllCommand(flags: ServeFlags): Promise<void> {
  await startAudit(flags);
  const sandbox = await maybeSandbox(flags.sandbox);
  const entries = await Promise.all(SERVER_INFO.map((info) => info.load()));
  await serveHttp(await httpServers(entries, settingsFrom(flags), flags, sandbox, false), flags, false);
  if (sandbox) process.stderr.write(`The servers use the built-in sandbox at ${sandbox.url} (no real platform is contacted).\n\n`);
}

export function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
