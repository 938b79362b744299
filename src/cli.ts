#!/usr/bin/env node
// Only what every command needs is imported here. A command loads the rest when it runs: its own
// server (server-info.ts), the protocol code, and the sandbox or sign-in only when used, so that a
// server starts without loading the other server, the sandbox, or the OAuth and lock libraries.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { AnyToolServer, ViewOptions } from './core/tools/registry.js';
import { CHOICE_SOURCES, type ChoiceInput } from './core/tools/request-choices.js';
import { NAME_STYLES, nearestTool, styledName, styleOf } from './core/tools/names.js';
import { printable } from './core/signin/printable.js';
import { exitCodeOf } from './core/settings.js';
import { logger } from './cli-logger.js';
import {
  AUTH_ENV,
  checkedView,
  choiceForServer,
  choicesFrom,
  fail,
  failIfPortBusy,
  loadRegistry,
  maybeSandbox,
  METRICS_ENV,
  METRICS_KEY_ENV,
  PUBLIC_URL_ENV,
  type Registry,
  SERVE_DEFAULTS,
  serveAllCommand,
  serveServerCommand,
  SERVER_KEY_ENV,
  type ServeFlags,
  settingsFrom,
} from './serve-command.js';
import { findServerInfo, PACKAGE_VERSION, SERVER_INFO, serverInfoForTool, type ServerEntry, type ServerFlag, type ServerInfo, type ServerSettingsInput } from './server-info.js';

const DEFAULT_SANDBOX_PORT = 4010;

/** The one exit-code rule of every command. */
const EXIT_CODES = 'Exit codes: 0 done; 1 the tool or the platform said no (the reason is printed); 2 bad usage (an unknown command, flag, server, tool or value; a busy port).';

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535');
  return port;
}

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

/** The store of sign-ins (loaded with the credential code by the commands that use it). */
async function defaultStore(): Promise<import('./core/signin/token-store.js').FileTokenStore> {
  return (await import('./servers/shared.js')).defaultStore(logger);
}

function addServeOptions(command: Command, withTransport: boolean): Command {
  if (withTransport) {
    command.addOption(new Option('--transport <transport>', 'how clients connect').choices(['stdio', 'http']).default(SERVE_DEFAULTS.transport));
  }
  return command
    .option('--host <host>', 'HTTP bind address (loopback by default)', SERVE_DEFAULTS.host)
    .option('--port <port>', 'HTTP port', parsePort, SERVE_DEFAULTS.port)
    .option('--sandbox', 'start the built-in sandbox in-process and use it instead of the real platform')
    .option('--server-key <key>', `key HTTP clients must send as "Authorization: Bearer <key>" (${SERVER_KEY_ENV}); when unset, the key kept beside the sign-ins (made on the first start; see \`toolservers key\`)`)
    .option('--allowed-host <name...>', 'extra Host header names to accept (behind a proxy)')
    .option('--allowed-origin <origin...>', 'extra browser origins to accept: a full origin (https://app.example.com[:port], matched exactly) or a bare host name (any scheme and port)')
    .option('--metrics', `serve Prometheus metrics at /metrics (${METRICS_ENV}=true); ${METRICS_KEY_ENV} makes /metrics require that bearer key`)
    .option('--auth <mode>', `HTTP authentication: key (one shared server key, the default) or oauth (every user signs in to the platform as themselves) (${AUTH_ENV})`)
    .option('--public-url <url>', `external base URL of the HTTP server behind a proxy; OAuth issuer and resource URLs derive from it (${PUBLIC_URL_ENV}); default: the bound URL`)
    .option('--store <kind>', 'state shared by replicas: memory (this process only, the default) or redis (TOOLSERVERS_STORE)')
    .option('--redis-url <url>', 'Redis of --store redis, e.g. redis://127.0.0.1:6379/0 (TOOLSERVERS_REDIS_URL: prefer it when the URL has a password)')
    .option('--audit <mode>', 'which calls leave an audit line on stderr: writes (every call that may change platform data, the default), all, or off (TOOLSERVERS_AUDIT)');
}

/** Name style and tool selection flags (each also a TOOLSERVERS_* variable), with examples from `exampleTool`'s server. */
function addChoiceOptions(command: Command, exampleTool: string, toolsets: { flag: string; description: string } = { flag: '--toolsets <list>', description: 'only these toolsets, comma-separated' }): Command {
  const [contract, underscore, short] = NAME_STYLES.map((style) => styledName(exampleTool, style));
  return command
    .option(
      '--tool-names <style>',
      `contract (${contract}, the default), underscore (${underscore}, for clients that refuse dots) or short (${short}, for clients that put the server's name before each tool's) (${CHOICE_SOURCES.toolNames.env})`,
    )
    .option('--profile <name>', `a named tool set: all, everyday, no-enterprise, readonly, meta (${CHOICE_SOURCES.profile.env})`)
    .option(toolsets.flag, `${toolsets.description} (${CHOICE_SOURCES.toolsets.env})`)
    .option('--tools <list>', `only these tools (added to --toolsets), comma-separated, in any name style (${short} or ${contract}) (${CHOICE_SOURCES.tools.env})`)
    .option('--exclude-tools <list>', `never these tools, comma-separated, in any name style (${CHOICE_SOURCES.excludeTools.env})`)
    .option('--read-only', `only tools that change nothing (${CHOICE_SOURCES.readOnly.env})`);
}

function addServerFlags(command: Command, flags: ServerFlag[]): Command {
  for (const flag of flags) command.option(flag.flags, flag.description);
  return command;
}

/** For commands that serve any server: every server's flags once; each server reads the ones it knows. */
function allServerFlags(which: 'flags' | 'loginFlags' = 'flags'): ServerFlag[] {
  const seen = new Map<string, ServerFlag>();
  for (const entry of SERVER_INFO) {
    for (const flag of entry[which]) {
      const existing = seen.get(flag.flags);
      const description = existing ? `${existing.description}; ${entry.name}: ${flag.description}` : `${entry.name}: ${flag.description}`;
      seen.set(flag.flags, { flags: flag.flags, description, ...(flag.serve || existing?.serve ? { serve: true as const } : {}) });
    }
  }
  return [...seen.values()];
}

const program = new Command()
  .name('toolservers')
  .description('MCP tool servers for IncidentOps (incident management) and CanvasApi (whiteboards).')
  .version(PACKAGE_VERSION)
  .showHelpAfterError()
  // Commander's own usage errors exit with 2, as ours do (see EXIT_CODES); help and --version with 0.
  .exitOverride()
  .addHelpText('after', `\n${EXIT_CODES}`);

for (const info of SERVER_INFO) {
  const command = program.command(info.id).description(`serve the ${info.name} tools (stdio by default)`);
  addChoiceOptions(addServerFlags(addServeOptions(command, true), info.flags), info.exampleTool).action(async (flags: ServeFlags) => {
    await serveServerCommand(info, flags);
  });
}

addChoiceOptions(
  addServerFlags(
    addServeOptions(
      program.command('serve').description('serve every tool server over HTTP on one port, one path each (/<server>/mcp); credentials come from the environment'),
      false,
    ),
    allServerFlags().filter((flag) => flag.serve),
  ),
  SERVER_INFO[0]!.exampleTool,
).action(async (flags: ServeFlags) => {
  await serveAllCommand(flags);
});

program
  .command('sandbox')
  .description('run the built-in platform emulators standalone')
  .option('--host <host>', 'bind address', '127.0.0.1')
  .option('--port <port>', 'port', parsePort, DEFAULT_SANDBOX_PORT)
  .option('--token <token>', 'access token the emulators accept', 'sandbox-token')
  .option('--users <n>', 'number of IncidentOps users to generate', parsePositiveInt)
  .option('--latency <ms>', 'artificial latency per request', parsePositiveInt, 0)
  .option('--token-lifetime <seconds>', 'lifetime of access tokens issued by the OAuth endpoints', parsePositiveInt, 3600)
  .option('--consent <mode>', 'OAuth consent: auto (redirect at once) or click (an Allow button)', 'auto')
  .option('--not-enterprise', 'the whiteboard organization is not on the enterprise plan (enterprise tools get 403)')
  .action(async (flags: { host: string; port: number; token: string; users?: number; latency: number; tokenLifetime: number; consent: string; notEnterprise?: boolean }) => {
    if (flags.consent !== 'auto' && flags.consent !== 'click') fail('--consent must be auto or click');
    const { startSandbox } = await import('./sandbox/server.js');
    const sandbox = await startSandbox({
      host: flags.host,
      port: flags.port,
      token: flags.token,
      latencyMs: flags.latency,
      oauth: { tokenLifetimeSeconds: flags.tokenLifetime, consent: flags.consent },
      ...(flags.notEnterprise ? { canvasapi: { enterprise: false } } : {}),
      ...(flags.users !== undefined ? { incidentops: { users: flags.users } } : {}),
    }).catch((error: unknown) => {
      failIfPortBusy(error, flags.host, flags.port);
      throw error;
    });
    process.stdout.write(
      [
        `Sandbox running at ${sandbox.url}`,
        `  IncidentOps base URL: ${sandbox.incidentops.baseUrl}`,
        `  CanvasApi base URL:   ${sandbox.canvasapi.baseUrl}`,
        `  Access token:         ${sandbox.incidentops.token} (both platforms)`,
        '',
        'Point a server at it, for example:',
        `  INCIDENTOPS_BASE_URL=${sandbox.incidentops.baseUrl} INCIDENTOPS_ACCESS_TOKEN=${sandbox.incidentops.token} toolservers incidentops`,
        `  CANVASAPI_BASE_URL=${sandbox.canvasapi.baseUrl} CANVASAPI_ACCESS_TOKEN=${sandbox.canvasapi.token} toolservers canvasapi`,
        '',
        `Or sign in through its OAuth endpoints (${flags.consent === 'click' ? 'one-click' : 'automatic'} consent; access tokens live ${flags.tokenLifetime} s; the client secret is shown because this is a local sandbox):`,
        `  toolservers login incidentops --base-url ${sandbox.incidentops.baseUrl} --client-id ${sandbox.oauth.incidentops.clientId} --client-secret ${sandbox.oauth.incidentops.clientSecret} --authorize-url ${sandbox.oauth.incidentops.authorizeUrl} --token-url ${sandbox.oauth.incidentops.tokenUrl}`,
        `  toolservers login canvasapi --base-url ${sandbox.canvasapi.baseUrl} --client-id ${sandbox.oauth.canvasapi.clientId} --client-secret ${sandbox.oauth.canvasapi.clientSecret} --authorize-url ${sandbox.oauth.canvasapi.authorizeUrl} --token-url ${sandbox.oauth.canvasapi.tokenUrl}`,
        '',
      ].join('\n'),
    );
    const stop = () => void sandbox.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

addChoiceOptions(
  program
    .command('tools')
    .description('list the tools of one server or of all, as a client with the same choices would see them')
    .argument('[server]', `one of: ${SERVER_INFO.map((s) => s.id).join(', ')}`)
    .option('--json', 'print the full definitions exactly as a client receives them')
    .option('--sizes', 'print each toolset and profile with its tool count and the size of its tool list in bytes and tokens'),
  SERVER_INFO[0]!.exampleTool,
  { flag: '--toolsets [list]', description: 'only these toolsets, comma-separated; without a list, the same table as --sizes' },
).action(async (serverId: string | undefined, flags: ChoiceInput & { json?: boolean; sizes?: boolean; toolsets?: string | boolean }) => {
  const entries = await loadAll(serverId ? [requireServer(serverId)] : SERVER_INFO);
  const registry = await loadRegistry();
  // `--toolsets` alone asks for the size table; with a list it selects toolsets.
  const sizes = flags.sizes || flags.toolsets === true;
  const view = choicesFrom({ ...flags, toolsets: typeof flags.toolsets === 'string' ? flags.toolsets : undefined });
  const servers = entries.map((entry) => entry.create({}, { logger }));
  if (sizes) {
    process.stdout.write(await sizeTable(registry, servers, view));
    return;
  }
  const all = servers.flatMap((server) => checkedView(registry, server, choiceForServer(view, server, servers)).listing);
  if (flags.json) {
    process.stdout.write(JSON.stringify(all, null, 2) + '\n');
    return;
  }
  for (const tool of all) process.stdout.write(`${tool.name.padEnd(44)} ${tool.title ?? ''}\n`);
});

/** Toolsets and profiles with what each costs in the agent's context. */
async function sizeTable(registry: Registry, servers: AnyToolServer[], options: ViewOptions): Promise<string> {
  const { contextSize } = await import('./core/tools/context-size.js');
  const { profilesOf, toolsetsOf } = await import('./core/tools/selection.js');
  const rows: string[][] = [['server', 'toolset or profile', 'tools', 'bytes', 'tokens']];
  const row = async (server: AnyToolServer, label: string, selection: ViewOptions) => {
    const size = await contextSize(checkedView(registry, server, selection).listing);
    // A toolset the operator's choice leaves empty is not offered at all.
    if (size.tools > 0 || label.startsWith('profile')) rows.push([server.id, label, String(size.tools), String(size.listBytes), String(size.listTokens)]);
  };
  for (const server of servers) {
    const own = choiceForServer(options, server, servers);
    const base = own.selections ?? [];
    const style = options.nameStyle ? { nameStyle: options.nameStyle } : {};
    // Every toolset, those beyond the contract too: naming one is how a client opts in to it.
    for (const toolset of toolsetsOf(server.tools)) await row(server, `toolset ${toolset}`, { ...style, selections: [...base, { toolsets: [toolset] }] });
    for (const profile of Object.keys(profilesOf(server))) await row(server, `profile ${profile}`, { ...style, selections: [...base, { profile }] });
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  return rows.map((cells) => cells.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ').trimEnd()).join('\n') + '\n';
}

addServerFlags(
  program
    .command('call')
    .description("run one tool and print its result as JSON, e.g. toolservers call ListIncidents '{\"status\":\"triggered\"}' --sandbox")
    .argument('<tool>', 'tool name in any style, e.g. WhoAmI, IncidentOps.WhoAmI or CanvasApi_GetAccessTokenInfo (`toolservers tools` lists them)')
    .argument('[arguments]', 'JSON object with the arguments', '{}')
    .option('--sandbox', 'run against the built-in sandbox (no account needed)')
    .option('--image-out <file>', 'write the picture a tool returns (CanvasApi.ViewBoard) to this PNG file'),
  allServerFlags(),
).action(async (toolName: string, json: string, flags: ServerSettingsInput & { sandbox?: boolean; imageOut?: string }) => {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch (error) {
    fail(`The arguments are not valid JSON: ${(error as Error).message}`);
  }
  // A name with a server's prefix loads only that server; a name without one is looked up in each.
  const prefixed = serverInfoForTool(toolName);
  const [entries, registry, sandbox] = await Promise.all([loadAll(prefixed ? [prefixed] : SERVER_INFO), loadRegistry(), maybeSandbox(flags.sandbox)]);
  const servers = entries.map((entry) => entry.create(settingsFrom(flags), { logger, ...(sandbox ? { sandbox } : {}) }));
  const found = servers.flatMap((server) => {
    const tool = registry.findTool(server, toolName);
    return tool ? [{ server, tool }] : [];
  });
  if (found.length === 0) fail(unknownToolText(toolName, servers));
  if (found.length > 1) fail(`"${toolName}" is a tool of ${found.map(({ server }) => server.name).join(' and ')}: name one, ${found.map(({ tool }) => tool.name).join(' or ')}.`);
  const { server, tool } = found[0]!;
  const result = await registry.executeTool(server, tool, args, new AbortController().signal);
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  process.stdout.write(JSON.stringify(result.structuredContent ?? JSON.parse(text || '{}'), null, 2) + '\n');
  // Pictures are not JSON: written to a file when asked, else one line on stderr each (stdout stays the result's JSON).
  for (const line of await reportImages(result.content, flags.imageOut)) process.stderr.write(`${line}\n`);
  await sandbox?.close();
  process.exitCode = result.isError ? 1 : 0;
});

/** What `call` says of a result's images: the first written to `imageOut` when given; each one's type and size. */
async function reportImages(content: readonly { type: string; data?: unknown; mimeType?: unknown }[], imageOut: string | undefined): Promise<string[]> {
  const lines: string[] = [];
  const images = content.filter((block) => block.type === 'image' && typeof block.data === 'string');
  for (const [index, image] of images.entries()) {
    const bytes = Buffer.from(image.data as string, 'base64');
    // A PNG's width and height are the IHDR chunk's first 8 bytes, after the 8-byte signature and the chunk's length and type.
    const isPng = bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR';
    const size = `${isPng ? `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)} px, ` : ''}${bytes.length.toLocaleString('en-US')} bytes`;
    const what = `${printable(String(image.mimeType ?? 'image'))}, ${size}`;
    if (imageOut && index === 0) {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(imageOut, bytes);
      lines.push(`The result holds an image (${what}): written to ${printable(imageOut)}.`);
    } else lines.push(`The result holds an image (${what}), not printed${imageOut ? '' : ': --image-out <file> writes it to a file'}.`);
  }
  return lines;
}

/** Why `call` cannot run a name, in a shell's words: the nearest names, spelt as typed, and the command that lists them. */
function unknownToolText(name: string, servers: readonly AnyToolServer[]): string {
  const suggestions = servers.flatMap((server) => {
    const nearest = nearestTool(name, server.tools.map((tool) => tool.name), server.name);
    return nearest ? [styledName(nearest, styleOf(name, server.name))] : [];
  });
  const shown = printable(name.length > 100 ? `${name.slice(0, 97)}...` : name);
  const only = servers.length === 1 ? servers[0] : undefined;
  const beyond = only?.tools.filter((tool) => tool.beyondContract) ?? [];
  const addedBy = [...new Set(beyond.map((tool) => tool.toolset))].join(',');
  const list = only
    ? `\`toolservers tools ${only.id}\` lists its ${only.tools.length - beyond.length} tools${beyond.length ? ` (and \`--toolsets ${addedBy}\` the ${beyond.length} beyond the contract)` : ''}`
    : '`toolservers tools` lists every tool';
  return `Unknown tool "${shown}".${suggestions.length ? ` Did you mean ${suggestions.join(' or ')}?` : ''} ${list}.`;
}

addServerFlags(
  program
    .command('login')
    .description('sign in to a platform in the browser (OAuth 2.0 authorization code with PKCE); the tokens are stored for the servers to use')
    .argument('<server>', `one of: ${SERVER_INFO.map((s) => s.id).join(', ')}`)
    .option('--redirect-port <port>', 'port of the loopback redirect (the OAuth app must allow http://127.0.0.1:<port>/callback); default: any free port', parsePort)
    .option('--no-browser', 'do not open a browser; only print the sign-in URL'),
  allServerFlags('loginFlags'),
).action(async (serverId: string, flags: ServerSettingsInput & { redirectPort?: number; browser: boolean }) => {
  const entry = await requireServer(serverId).load();
  const auth = entry.auth(settingsFrom(flags), {});
  const store = await defaultStore();
  const { signIn } = await import('./core/signin/platform-auth.js');
  const credential = await signIn(auth, store, {
    print: (line) => process.stderr.write(`${line}\n`),
    ...(flags.redirectPort !== undefined ? { redirectPort: flags.redirectPort } : {}),
    ...(flags.browser ? {} : { openBrowser: () => undefined }),
  });
  const expiry = credential.expiresAt ? `; the access token expires ${new Date(credential.expiresAt).toISOString()}${credential.refreshToken ? ' and is renewed automatically' : ''}` : '';
  process.stdout.write(`Signed in to ${auth.name} as ${accountText(credential.account) ?? 'an unknown user'}${credential.scope ? ` (scope: ${printable(credential.scope)})` : ''}${expiry}.\n`);
  const kept = credential.clientSecret ? 'client ID, client secret' : 'client ID';
  process.stdout.write(`Stored in ${store.file} (owner-only), with the ${kept}, token URL and revoke URL, so servers renew and revoke it without any OAuth settings of their own.\n`);
  if (auth.explicit) process.stdout.write(`Note: ${auth.explicit.setting} is set and takes precedence over this sign-in.\n`);
});

/** Who a stored account is, printable (provider text never reaches the terminal with control characters). */
function accountText(account: { id?: string; name?: string; email?: string } | undefined): string | undefined {
  if (!account) return undefined;
  const who = printable(account.name ?? account.id ?? 'unknown user');
  return `${who}${account.email ? ` <${printable(account.email)}>` : ''}`;
}

program
  .command('logout')
  .description('revoke the stored sign-in where the platform allows it, and delete it')
  .argument('<server>', `one of: ${SERVER_INFO.map((s) => s.id).join(', ')}`)
  .action(async (serverId: string) => {
    const entry = await requireServer(serverId).load();
    const auth = entry.auth({}, {});
    const { signOut } = await import('./core/signin/platform-auth.js');
    const result = await signOut(auth, await defaultStore());
    const problem = printable(result.revokeProblem ?? 'unknown reason');
    if (!result.signedIn) process.stdout.write(`Nobody is signed in to ${auth.name}.\n`);
    else if (result.removedMalformed) process.stdout.write(`Removed the malformed ${auth.name} entry from the credentials file (${problem}); the other sign-ins are unchanged.\n`);
    else if (result.revoked) process.stdout.write(`Signed out of ${auth.name}: the token was revoked and deleted.\n`);
    else process.stdout.write(`Signed out of ${auth.name}: the stored token was deleted, but revoking it failed (${problem}).\n`);
  });

program
  .command('auth')
  .description('sign-in information')
  .command('status')
  .description('who is signed in to each platform, with which scopes, until when, and where the token comes from (never the token)')
  .option('--json', 'print JSON')
  .action(async (flags: { json?: boolean }) => {
    const store = await defaultStore();
    const { authStatus } = await import('./core/signin/platform-auth.js');
    const statuses = [];
    for (const entry of await loadAll(SERVER_INFO)) statuses.push(await authStatus(entry.auth({}, {}), store, logger));
    // Entries of the file that no server reads, or that are malformed, are reported too (never their content).
    let malformed: { platform: string; problem: string }[] = [];
    try {
      malformed = (await store.inspect()).malformed.filter((entry) => !SERVER_INFO.some((server) => server.id === entry.platform));
    } catch {
      // A file that cannot be used at all is already explained in every platform's problem.
    }
    if (flags.json) {
      process.stdout.write(JSON.stringify({ credentials_file: store.file, platforms: statuses, ...(malformed.length > 0 ? { malformed_entries: malformed } : {}) }, null, 2) + '\n');
      return;
    }
    for (const status of statuses) {
      const source = status.source === 'environment' ? `token from ${status.setting ?? 'the environment'}` : status.source === 'stored sign-in' ? 'stored sign-in' : 'not signed in';
      const parts = [`${status.name.padEnd(12)} ${source}`];
      const who = accountText(status.account);
      if (who) parts.push(`as ${who}`);
      if (status.scope) parts.push(`scope ${printable(status.scope)}`);
      if (status.signedInFor) parts.push(`for ${printable(status.signedInFor)}`);
      if (status.expiresAt) parts.push(`expires ${new Date(status.expiresAt).toISOString()}${status.refreshable ? ' (renewable)' : ''}`);
      if (status.renewal) {
        const secret = status.renewal.clientSecret === 'none' ? 'no client secret' : `client secret ${status.renewal.clientSecret === 'setting' ? 'from the environment' : 'stored'}`;
        parts.push(
          status.renewal.clientId
            ? `renewed with client ${printable(status.renewal.clientId)} (${status.renewal.clientIdFrom === 'setting' ? 'from the environment' : 'stored'}), ${secret}`
            : 'no client ID to renew with',
        );
      }
      process.stdout.write(parts.join(', ') + '\n');
      if (status.problem) process.stdout.write(`             ${printable(status.problem)}\n`);
    }
    for (const entry of malformed) process.stdout.write(`Malformed entry "${printable(entry.platform)}" in the credentials file: ${entry.problem}.\n`);
    process.stdout.write(`Sign-ins are stored in ${store.file}\n`);
  });

const keyCommand = program
  .command('key')
  .description('the server key HTTP clients send when none is set (kept beside the sign-ins, the same at every start)');

keyCommand
  .command('show')
  .description('print the kept server key and its file (made now if there is none)')
  .action(async () => {
    const { keptServerKey, serverKeyFile } = await import('./core/signin/server-key.js');
    const file = serverKeyFile();
    const { key, created } = await keptServerKey(file);
    process.stderr.write(`${created ? 'Made a new key in' : 'The key kept in'} ${file}:\n`);
    process.stdout.write(`${key}\n`);
  });

keyCommand
  .command('rotate')
  .description('replace the kept server key with a new one; running servers keep the old key until they restart, and clients need the new one')
  .action(async () => {
    const { rotateServerKey, serverKeyFile } = await import('./core/signin/server-key.js');
    const file = serverKeyFile();
    const key = await rotateServerKey(file);
    process.stderr.write(`New key written to ${file}. Restart running servers, and give clients the new key:\n`);
    process.stdout.write(`${key}\n`);
  });

function requireServer(id: string): ServerInfo {
  const entry = findServerInfo(id);
  if (!entry) fail(`Unknown server "${id}". Choose one of: ${SERVER_INFO.map((s) => s.id).join(', ')}.`);
  return entry;
}

/** These servers' code, loaded. */
function loadAll(infos: readonly ServerInfo[]): Promise<ServerEntry[]> {
  return Promise.all(infos.map((info) => info.load()));
}

program.parseAsync(process.argv).catch((error: unknown) => {
  // Commander has printed its message (and help) already.
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
  // Messages may carry provider text: printed without control characters or escape sequences.
  process.stderr.write(`${printable(error instanceof Error ? error.message : String(error))}\n`);
  process.exit(exitCodeOf(error));
});
