/**
 * The metadata documents a client discovers the layer by: Protected Resource Metadata (RFC 9728)
 * per MCP endpoint, served here, and the authorization server's metadata (RFC 8414), which
 * oidc-provider writes, at every path clients look for it. Both may be cached for five minutes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendUncachedJson } from './answers.js';
import { ISSUER_PATH, MCP_SCOPE, mountFor, pinToPublicOrigin, PROTECTED_RESOURCE_PREFIX, resourceFor, type OAuthMount, type PublicSite } from './endpoints.js';
import { toProvider, type StartedProvider } from './provider.js';

/** Metadata changes only with a deployment; five minutes of caching spares clients a round trip per connection. */
const METADATA_CACHE_CONTROL = 'public, max-age=300';

/** RFC 8414 path insertion, the OpenID variant, and the bare path legacy clients probe on the resource origin. */
const AUTHORIZATION_SERVER_METADATA_PATHS: ReadonlySet<string> = new Set([
  `/.well-known/oauth-authorization-server${ISSUER_PATH}`,
  `/.well-known/openid-configuration${ISSUER_PATH}`,
  '/.well-known/oauth-authorization-server',
  `${ISSUER_PATH}/.well-known/openid-configuration`,
]);

/** The Protected Resource Metadata at `path` (under the well-known prefix); false when it names no MCP endpoint. */
export function serveProtectedResourceMetadata(site: PublicSite, mounts: readonly OAuthMount[], res: ServerResponse, path: string): boolean {
  const endpointPath = path.slice(PROTECTED_RESOURCE_PREFIX.length);
  const mount = mountFor(mounts, endpointPath);
  if (!mount) return false;
  sendUncachedJson(
    res,
    200,
    {
      resource: resourceFor(site, endpointPath),
      authorization_servers: [site.issuer],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: `${mount.name} tools (toolservers)`,
    },
    { 'cache-control': METADATA_CACHE_CONTROL },
  );
  return true;
}

export function isAuthorizationServerMetadataPath(path: string): boolean {
  return AUTHORIZATION_SERVER_METADATA_PATHS.has(path);
}

/** oidc-provider's discovery document, with URLs on the public URL whatever the request's Host says. */
export function serveAuthorizationServerMetadata(site: PublicSite, callback: StartedProvider['callback'], req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('cache-control', METADATA_CACHE_CONTROL);
  pinToPublicOrigin(site, req);
  toProvider(callback, req, res, '/.well-known/openid-configuration');
}
