/**
 * Which MCP endpoint an URL path is: a mount's own path, or its base with up to three choice
 * segments before `/mcp` (`/incidentops/readonly/mcp`). One rule for dispatch and for the OAuth
 * layer, so that the endpoint a request reaches and the one its token is for never drift apart.
 */

/** A path's mount, with the choice segments between its base and `/mcp`. */
export interface MountMatch<Mount extends { path: string }> {
  mount: Mount;
  segments: string[];
}

const CHOICE_SEGMENT = /^[a-z][a-z0-9-]{0,30}$/;

export function matchMount<Mount extends { path: string }>(mounts: readonly Mount[], path: string): MountMatch<Mount> | undefined {
  for (const mount of mounts) {
    if (path === mount.path) return { mount, segments: [] };
    const base = mount.path.slice(0, -'/mcp'.length);
    if (mount.path.endsWith('/mcp') && path.startsWith(`${base}/`) && path.endsWith('/mcp')) {
      const segments = path.slice(base.length + 1, -'/mcp'.length).split('/');
      if (segments.length <= 3 && segments.every((segment) => CHOICE_SEGMENT.test(segment))) return { mount, segments };
    }
  }
  return undefined;
}
