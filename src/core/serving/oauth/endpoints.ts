/**
 * Where the OAuth layer is reached: the MCP endpoints it protects (mounts, with the choice
 * segments a URL may insert before `/mcp`), and what derives from the public URL once the server
 * listens: the issuer, each endpoint's resource and metadata URLs, and cookie names that suit
 * http or https.
 */
import type { IncomingMessage } from 'node:http';
import type { PlatformAuth } from '../../signin/platform-auth.js';
import { matchMount } from '../http/mount-paths.js';

/** The one scope an MCP token carries for its endpoint. */
export const MCP_SCOPE = 'mcp:tools';
/** oidc-provider is mounted here; its issuer is the public URL plus this path. */
export const ISSUER_PATH = '/oauth';
/** Protected Resource Metadata (RFC 9728) of an endpoint: this prefix plus the endpoint's path. */
export const PROTECTED_RESOURCE_PREFIX = '/.well-known/oauth-protected-resource';

export interface OAuthMount {
  /** The MCP endpoint path, e.g. `/incidentops/mcp`. */
  path: string;
  /** Display name, e.g. `IncidentOps`. */
  name: string;
  /** How its platform signs people in (client, endpoints, who signed in). */
  auth: PlatformAuth;
}

/** A mount plus the choice segments a URL may insert before `/mcp`. */
export function mountFor(mounts: readonly OAuthMount[], path: string): OAuthMount | undefined {
  return matchMount(mounts, path)?.mount;
}

export interface CookieNames {
  session: string;
  interaction: string;
  resume: string;
  /** The cookie that binds a platform sign-in to the browser that started it. */
  signIn: (uid: string) => string;
}

/**
 * Cookie names. Over https: `__Host-` (Secure, Path=/, no Domain: no sibling host can set them) where
 * the path is /, `__Secure-` for oidc-provider's interaction cookies, which it scopes to one
 * authorization's path so that two sign-ins in one browser do not overwrite each other. Over plain
 * http (loopback development), browsers refuse both prefixes, so the names go without them.
 */
function cookieNames(https: boolean): CookieNames {
  const host = https ? '__Host-' : '';
  const secure = https ? '__Secure-' : '';
  return { session: `${host}session`, interaction: `${secure}interaction`, resume: `${secure}interaction_resume`, signIn: (uid) => `${host}sign-in-${uid}` };
}

/** The layer's public address and what derives from it; fixed when the server starts. */
export interface PublicSite {
  /** The public URL without a trailing slash ('' before the server starts). */
  url: string;
  issuer: string;
  /** Browsers reach it over https: cookies are Secure and prefixed. */
  https: boolean;
  cookies: CookieNames;
}

export function publicSite(url: string): PublicSite {
  const https = url.startsWith('https:');
  return { url, issuer: `${url}${ISSUER_PATH}`, https, cookies: cookieNames(https) };
}

/** The resource (RFC 8707 audience) of the MCP endpoint at `path`. */
export function resourceFor(site: PublicSite, path: string): string {
  return `${site.url}${path}`;
}

export function metadataUrlFor(site: PublicSite, path: string): string {
  return `${site.url}${PROTECTED_RESOURCE_PREFIX}${path}`;
}

export function mountOfResource(site: PublicSite, mounts: readonly OAuthMount[], resource: string): OAuthMount | undefined {
  return resource.startsWith(`${site.url}/`) ? mountFor(mounts, resource.slice(site.url.length)) : undefined;
}

/** The one MCP endpoint an authorization request names, or why it cannot be served. */
export function requestedMount(site: PublicSite, mounts: readonly OAuthMount[], params: Record<string, unknown>): { mount: OAuthMount; resource: string } | string {
  const raw = params.resource;
  const resources = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  if (resources.length !== 1) return `The authorization request must name exactly one MCP endpoint as its resource (RFC 8707), e.g. ${resourceFor(site, mounts[0]?.path ?? '/mcp')}.`;
  const resource = String(resources[0]);
  const mount = mountOfResource(site, mounts, resource);
  return mount ? { mount, resource } : `${resource} is not an MCP endpoint of this server.`;
}

/**
 * oidc-provider builds its URLs (metadata endpoints, redirects) and cookie flags from the
 * request's host and protocol: both are set from the public URL, so a forged Host or
 * X-Forwarded-* header changes none of them.
 */
export function pinToPublicOrigin(site: PublicSite, req: IncomingMessage): void {
  const origin = new URL(site.url);
  req.headers.host = origin.host;
  req.headers['x-forwarded-proto'] = origin.protocol.slice(0, -1);
  for (const forwarded of ['x-forwarded-host', 'x-forwarded-port', 'forwarded']) delete req.headers[forwarded];
}
