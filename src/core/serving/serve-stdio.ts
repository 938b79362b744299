import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { mcpServerFactory, viewFor, type AnyToolServer, type ViewOptions } from '../tools/registry.js';

/**
 * Serves one tool server over stdio; both protocol eras (2025 `initialize` and 2026-07-28).
 * Apart from serve.ts so that a stdio start loads none of the HTTP serving code.
 */
export function serveOverStdio(server: AnyToolServer, options: ViewOptions = {}): StdioServerHandle {
  return serveStdio(mcpServerFactory(viewFor(server, options)), {
    onerror: (error) => server.logger.warn({ err: error.message }, 'stdio transport error'),
  });
}
