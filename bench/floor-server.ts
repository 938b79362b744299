/**
 * The floor of the HTTP bench: a bare server on the same SDK packages as toolservers
 * (`@modelcontextprotocol/server` McpServer + createMcpHandler, `@modelcontextprotocol/node`
 * toNodeHandler) with one tool that does the same upstream GET with plain fetch and returns the
 * answer as text and structured content. No Host/Origin checks, no server key, no validation
 * beyond the SDK's own, no retries, no limits: what any server on this SDK pays at least.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { z } from 'zod';

export interface FloorServerOptions {
  /** Upstream origin the tool's `path` is appended to, e.g. `http://127.0.0.1:4000`. */
  upstreamBase: string;
  /** Headers of the upstream GET of a path (Authorization, Accept, ...): the ones the platform requires. */
  upstreamHeaders: (path: string) => Record<string, string>;
  port?: number;
}

export const FLOOR_TOOL = 'get';

export async function startFloorServer(options: FloorServerOptions): Promise<{ url: string; http: Server; close(): Promise<void> }> {
  const factory = () => {
    const server = new McpServer({ name: 'floor', version: '1.0.0' });
    server.registerTool(
      FLOOR_TOOL,
      { description: 'One upstream GET of a path.', inputSchema: z.object({ path: z.string().startsWith('/') }) },
      async ({ path }, ctx) => {
        const response = await fetch(`${options.upstreamBase}${path}`, {
          headers: options.upstreamHeaders(path),
          signal: ctx.mcpReq.signal,
        });
        const data = (await response.json()) as Record<string, unknown>;
        if (!response.ok) return { isError: true, content: [{ type: 'text', text: JSON.stringify(data) }] };
        return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
      },
    );
    return server;
  };
  const handler = toNodeHandler(createMcpHandler(factory));
  const http = createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    http,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}
