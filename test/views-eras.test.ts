/**
 * The views (MCP Apps) over Streamable HTTP, for a 2025-era client and a 2026-07-28 client: the
 * tool's `_meta.ui` link is listed and its `ui://` resource reads as a self-contained page with a
 * strict CSP. No browser here (test/views-browser.test.ts shows the page). Also: the mime type we
 * copy equals the App SDK's own export.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { silentLogger } from '../src/core/logger.js';
import { serveOverHttp, type RunningHttpServer } from '../src/core/serving/serve.js';
import { VIEW_MIME_TYPE, VIEW_NAMES, viewUri } from '../src/core/tools/views.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, incidentOpsServerFor, startTestSandbox } from './support/harness.js';
import { assertSelfContained } from './support/views.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = VIEW_NAMES.every((view) => existsSync(`${ROOT}build/views/${view}.html`));
const KEY = 'views-eras-key-0123456789abcdef';
const AUTH = { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } };
const ERAS = [
  { era: 'legacy', options: {} },
  { era: 'modern', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

it('the copied mime type is the App SDK’s RESOURCE_MIME_TYPE', () => {
  assert.equal(VIEW_MIME_TYPE, RESOURCE_MIME_TYPE);
});

describe('views over Streamable HTTP, both protocol eras', { skip: BUILT ? false : 'views not built (node scripts/build-views.mjs)' }, () => {
  let sandbox: RunningSandbox;
  let http: RunningHttpServer;
  before(async () => {
    sandbox = await startTestSandbox();
    http = await serveOverHttp({ host: '127.0.0.1', port: 0, logger: silentLogger, serverKey: KEY, mounts: [
        { path: '/mcp', server: incidentOpsServerFor(sandbox) },
        { path: '/canvas', server: canvasApiServerFor(sandbox.canvasapi) },
      ],
    });
  });
  after(async () => {
    await http?.close();
    await sandbox?.close();
  });

  const SERVERS = [
    {
      path: '/mcp',
      links: [
        { tool: 'IncidentOps.WhoIsOnCall', view: 'coverage' },
        { tool: 'IncidentOps.GetIncidentContext', view: 'incident' },
      ],
    },
    {
      path: '/canvas',
      links: [
        { tool: 'CanvasApi.ReadBoard', view: 'board' },
        { tool: 'CanvasApi.CreateDiagram', view: 'board' },
        { tool: 'CanvasApi.ViewBoard', view: 'board' },
      ],
    },
  ] as const;
  for (const { era, options } of ERAS) {
    for (const { path, links } of SERVERS) {
      it(`a ${era} client lists the tools' _meta.ui links and reads each ui:// page (${path})`, async () => {
        const client = new Client({ name: 'views-eras', version: '1' }, options);
        await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}${path}?toolsets=tasks`), AUTH));
        try {
          assert.equal(client.getProtocolEra(), era);
          const { tools } = await client.listTools();
          const { resources } = await client.listResources();
          const views = [...new Set(links.map((link) => link.view))];
          assert.deepEqual(resources.map((resource) => resource.uri).filter((uri) => uri.startsWith('ui://')).sort(), views.map(viewUri).sort(), 'one resource per view');
          for (const { tool: name, view } of links) {
            const tool = tools.find((listed) => listed.name === name);
            assert.ok(tool, `${name} is in the tasks toolset`);
            assert.deepEqual(tool._meta, { ui: { resourceUri: viewUri(view) } }, 'only the link is added');
            assert.equal(resources.find((resource) => resource.uri === viewUri(view))?.mimeType, RESOURCE_MIME_TYPE);

            const read = await client.readResource({ uri: viewUri(view) });
            assert.equal(read.contents.length, 1);
            const content = read.contents[0] as { uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> };
            assert.equal(content.uri, viewUri(view));
            assert.equal(content.mimeType, RESOURCE_MIME_TYPE);
            assert.deepEqual(content._meta, { ui: { csp: {}, prefersBorder: true } });
            assertSelfContained(content.text ?? '');
          }
        } finally {
          await client.close();
        }
      });
    }
  }

  it('the contract listing (no toolsets chosen) carries no _meta and no ui:// resource', async () => {
    const client = new Client({ name: 'views-eras', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), AUTH));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.every((tool) => tool._meta === undefined));
      const resources = client.getServerCapabilities()?.resources ? (await client.listResources()).resources : [];
      assert.ok(resources.every((resource) => !resource.uri.startsWith('ui://')));
    } finally {
      await client.close();
    }
  });
});
