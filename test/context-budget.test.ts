/**
 * What agents see is reviewed like code and kept small:
 * - every tool's listed definition is a committed snapshot (test/snapshots/tools/), so any change
 *   to a name, schema, description or hint shows in the diff (UPDATE_SNAPSHOTS=1 rewrites them);
 * - the context budgets hold, counted in bytes and with a real tokenizer;
 * - the size table of docs/tools.md is the one the code produces.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { contextSize } from '../src/core/tools/context-size.js';
import { silentLogger } from '../src/core/logger.js';
import { listTools, type ViewOptions } from '../src/core/tools/registry.js';
import { profilesOf } from '../src/core/tools/selection.js';
import { SERVERS } from '../src/servers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SNAPSHOTS = path.join(ROOT, 'test', 'snapshots', 'tools');
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';

const servers = SERVERS.map((entry) => ({ entry, server: entry.create({}, { logger: silentLogger }) }));
const serverById = (id: string) => servers.find((s) => s.entry.id === id)!.server;
const sizeOf = (id: string, options: ViewOptions = {}) => contextSize(listTools(serverById(id), options));

describe('tool definition snapshots', () => {
  for (const { entry, server } of servers) {
    it(`${entry.name}: each listed definition matches its committed snapshot`, () => {
      const dir = path.join(SNAPSHOTS, entry.id);
      // Every tool, those beyond the contract too (listed only when a choice names them).
      const listed = listTools(server, { selections: [{ tools: server.tools.map((tool) => tool.name) }] });
      if (UPDATE) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir, { recursive: true });
        for (const tool of listed) writeFileSync(path.join(dir, `${tool.name}.json`), JSON.stringify(tool, null, 2) + '\n');
      }
      const stale = existsSync(dir) ? readdirSync(dir).filter((file) => !listed.some((tool) => `${tool.name}.json` === file)) : [];
      assert.deepEqual(stale, [], 'snapshots of tools that no longer exist (run with UPDATE_SNAPSHOTS=1)');
      for (const tool of listed) {
        const file = path.join(dir, `${tool.name}.json`);
        assert.ok(existsSync(file), `no snapshot for ${tool.name} (run npm test with UPDATE_SNAPSHOTS=1 and review the diff)`);
        assert.equal(JSON.stringify(tool, null, 2) + '\n', readFileSync(file, 'utf8'), `${tool.name} changed: review, then run with UPDATE_SNAPSHOTS=1`);
      }
    });
  }
});

describe('context budgets', () => {
  it('CanvasApi: at most 500 B per tool model-visible and 600 B per tool for the whole tools/list', async () => {
    const size = await sizeOf('canvasapi');
    assert.equal(size.tools, 139);
    assert.ok(size.modelVisibleBytes <= 500 * size.tools, `model-visible ${size.modelVisibleBytes} B = ${(size.modelVisibleBytes / size.tools).toFixed(0)} B/tool`);
    assert.ok(size.listBytes <= 600 * size.tools, `tools/list ${size.listBytes} B = ${(size.listBytes / size.tools).toFixed(0)} B/tool`);
  });

  it('IncidentOps: at most 6 KB model-visible and 9 KB for the whole tools/list', async () => {
    const size = await sizeOf('incidentops');
    assert.equal(size.tools, 14);
    assert.ok(size.modelVisibleBytes <= 6 * 1024, `model-visible ${size.modelVisibleBytes} B`);
    assert.ok(size.listBytes <= 9 * 1024, `tools/list ${size.listBytes} B`);
  });

  it('the everyday profile costs under 3,500 tokens and meta mode under 1,500, on every server and in both name styles', async () => {
    for (const { entry } of servers) {
      for (const nameStyle of ['contract', 'underscore'] as const) {
        const everyday = await sizeOf(entry.id, { nameStyle, selections: [{ profile: 'everyday' }] });
        assert.ok(everyday.listTokens < 3500, `${entry.id} everyday: ${everyday.listTokens} tokens`);
        const meta = await sizeOf(entry.id, { nameStyle, selections: [{ profile: 'meta' }] });
        assert.ok(meta.listTokens < 1500, `${entry.id} meta: ${meta.listTokens} tokens`);
      }
    }
  });

  it('docs/tools.md publishes the size of every profile as the code measures it', async () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'tools.md'), 'utf8');
    for (const { entry, server } of servers) {
      for (const profile of Object.keys(profilesOf(server))) {
        const size = await sizeOf(entry.id, { selections: [{ profile }] });
        const row = `| ${entry.name} | \`${profile}\` | ${size.tools} | ${size.listBytes.toLocaleString('en-US')} | ${size.listTokens.toLocaleString('en-US')} |`;
        assert.ok(page.includes(row), `docs/tools.md lacks the row ${row}`);
      }
    }
  });
});
