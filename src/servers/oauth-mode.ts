/**
 * OAuth mode (`--auth oauth`): the servers built with per-user credentials and the OAuth layer
 * that signs people in and checks MCP tokens. Loaded only in that mode (oidc-provider, jose and
 * the OAuth client load with it).
 */
import type { AnyToolServer } from '../core/tools/registry.js';
import type { Logger } from '../core/logger.js';
import type { AdmissionLimits } from '../core/serving/oauth/admission.js';
import { createOAuthLayer, type OAuthLayer } from '../core/serving/oauth/layer.js';
import { userCredentials } from '../core/serving/oauth/user-credentials.js';
import { resolveStateKey, TokenVault } from '../core/serving/oauth/vault.js';
import { MemoryStore } from '../core/store/memory-store.js';
import type { SharedStore } from '../core/store/store.js';
import type { RunningSandbox } from '../sandbox/server.js';
import type { ServerEntry, ServerSettingsInput } from './server-entry.js';

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
  /** Rate limits and the unused-client expiry (tests); default: the layer's. */
  admission?: Partial<AdmissionLimits>;
}

export const TRUSTED_PROXIES_ENV = 'TOOLSERVERS_TRUSTED_PROXIES';

/** How many proxies in front append to X-Forwarded-For (0: none, the socket's peer is the client). */
function trustedProxiesFrom(env: NodeJS.ProcessEnv): number {
  const raw = env[TRUSTED_PROXIES_ENV]?.trim();
  if (!raw) return 0;
  if (!/^\d$/.test(raw)) throw new Error(`${TRUSTED_PROXIES_ENV} must be the number of proxies in front of the server that append to X-Forwarded-For, 0 to 9 (e.g. 1 behind one nginx); got "${raw.slice(0, 20)}".`);
  return Number(raw);
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
  const trustedProxies = trustedProxiesFrom(env);
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
    ...(options.admission ? { admission: options.admission } : {}),
    trustedProxies,
  });
  return { servers, layer, store };
}
