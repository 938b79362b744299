/**
 * OAuth mode (`--auth oauth`): the servers built with per-user credentials and the OAuth layer
 * that signs people in and checks MCP tokens. Loaded only in that mode (oidc-provider, jose and
 * the OAuth client load with it).
 */
import type { AnyToolServer } from '../core/registry.js';
import type { Logger } from '../core/logger.js';
import { createOAuthLayer, type OAuthLayer } from '../core/oauth/layer.js';
import { userCredentials } from '../core/oauth/user-credentials.js';
import { resolveStateKey, TokenVault } from '../core/oauth/vault.js';
import { MemoryStore } from '../core/store/memory-store.js';
import type { SharedStore } from '../core/store/store.js';
import type { RunningSandbox } from '../sandbox/server.js';
import type { ServerEntry, ServerSettingsInput } from '../server-info.js';

export interface OAuthModeOptions {
  entries: readonly ServerEntry[];
  input: ServerSettingsInput;
  logger: Logger;
  sandbox?: RunningSandbox;
  env?: NodeJS.ProcessEnv;
  /** Mount paths: `/mcp` for one server alone, else `/<id>/mcp`. */
  single: boolean;
  publicUrl?: string;
  /** Default: a fresh MemoryStore. */
  store?: SharedStore;
  allowHttpClientIds?: boolean;
}

export interface OAuthMode {
  servers: AnyToolServer[];
  layer: OAuthLayer;
  store: SharedStore;
}

export function prepareOAuthMode(options: OAuthModeOptions): OAuthMode {
  const env = options.env ?? process.env;
  const store = options.store ?? new MemoryStore();
  const stateKey = resolveStateKey(env, store.kind, options.logger);
  const vault = new TokenVault(store, stateKey);
  const buildOptions = { logger: options.logger, ...(options.sandbox ? { sandbox: options.sandbox } : {}), env };
  const mounts = options.entries.map((entry) => {
    const auth = entry.auth(options.input, buildOptions);
    if (!auth.oauth.clientId) {
      throw new Error(`--auth oauth signs people in to ${auth.name} with its OAuth app: set ${auth.settingNames.clientId} and ${auth.settingNames.clientSecret} (register the redirect URI <public URL>/oauth/callback with the app).`);
    }
    return { path: options.single ? '/mcp' : `/${entry.id}/mcp`, name: entry.name, auth };
  });
  const servers = options.entries.map((entry) =>
    entry.create(options.input, { ...buildOptions, shared: store, userCredentials: (auth) => userCredentials(auth, vault, options.logger) }),
  );
  const layer = createOAuthLayer({
    mounts,
    store,
    vault,
    stateKey: stateKey.bytes,
    logger: options.logger,
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.allowHttpClientIds ? { allowHttpClientIds: true } : {}),
  });
  return { servers, layer, store };
}
