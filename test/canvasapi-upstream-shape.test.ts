/**
 * CanvasApi against a platform (or a proxy in front of it) that answers a success status with a
 * body of the wrong shape: not JSON, JSON that is not an object, an array where the endpoint
 * answers an object, or nothing at all for a read. Each is an upstream error that names the tool
 * and the endpoint, never "a bug in the tool server"; the two endpoints that do answer arrays
 * still work.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canvasApiCatalogue } from '../src/canvasapi/catalogue.js';
import type { CanvasParam } from '../src/canvasapi/catalogue-types.js';
import { sampleByFormat } from './support/canvas-samples.js';
import { callTool, canvasApiServerFor, jsonResponse, scriptedFetch } from './support/harness.js';

type Json = Record<string, unknown>;
const BASE = 'https://canvas.example.test';

function server(answer: Parameters<typeof scriptedFetch>[0]) {
  const scripted = scriptedFetch(answer);
  return { ...scripted, server: canvasApiServerFor({ baseUrl: BASE, token: 'canvas-token-0123456789' }, { fetch: scripted.fetch }) };
}

/** A valid value for a parameter, without any platform behind it. */
function valueFor(param: CanvasParam): unknown {
  if (param.name === 'mode') return 'execute';
  const formatted = sampleByFormat(param);
  if (formatted !== undefined) return formatted;
  switch (param.type) {
    case 'boolean':
      return false;
    case 'number':
    case 'integer':
      return param.min ?? 10;
    case 'string[]':
      return ['3074457000000000001'];
    case 'string':
      return '3074457000000000001';
  }
}

/** Required arguments plus one body parameter, so that writes send something. */
function argsFor(params: readonly CanvasParam[], bodyNeeds: readonly string[] = []): Json {
  const chosen = params.filter((p) => p.required || bodyNeeds.includes(p.name));
  const firstBody = params.find((p) => p.to.startsWith('body:') && !p.required);
  if (firstBody && !chosen.some((p) => p.to.startsWith('body:'))) chosen.push(firstBody);
  return Object.fromEntries(chosen.map((p) => [p.name, valueFor(p)]));
}

describe('CanvasApi: a success answer of the wrong shape is an upstream error', () => {
  const WRONG: [string, () => Response][] = [
    ['a JSON array', () => jsonResponse(200, [{ id: '1' }])],
    ['a JSON number', () => jsonResponse(200, 42)],
    ['a JSON string', () => jsonResponse(200, 'done')],
    ['not JSON', () => new Response('<html>Sign in</html>', { status: 200, headers: { 'content-type': 'text/html' } })],
  ];
  for (const [what, answer] of WRONG) {
    it(`every tool (but the two that answer arrays, for an array) reports ${what} as upstream_error naming the tool and endpoint`, async () => {
      const problems: string[] = [];
      let checked = 0;
      for (const entry of canvasApiCatalogue) {
        if (entry.requestSchema) continue; // two-mode tools need a schema-valid body; their answers take the same path
        const { server: s, calls } = server(answer);
        const result = await callTool(s, entry.name, argsFor(entry.params, entry.bodyNeeds));
        if (result.isError && result.data.kind === 'invalid_input') {
          problems.push(`${entry.name}: the test's arguments were refused: ${String(result.data.message)}`);
          continue;
        }
        assert.ok(calls.length >= 1, entry.name);
        checked += 1;
        if (entry.answersArray && what === 'a JSON array') {
          if (result.isError) problems.push(`${entry.name}: an array is this endpoint's answer, yet: ${String(result.data.message)}`);
          continue;
        }
        if (!result.isError) {
          problems.push(`${entry.name}: answered ${JSON.stringify(result.data).slice(0, 120)}`);
          continue;
        }
        const text = `${String(result.data.message)} ${String(result.data.next_step)}`;
        if (result.data.kind !== 'upstream_error') problems.push(`${entry.name}: kind ${String(result.data.kind)}: ${text}`);
        if (!text.includes(entry.name) || !text.includes(`${entry.method} ${entry.path}`)) problems.push(`${entry.name}: tool or endpoint not named: ${text}`);
        if (!/expected shape/.test(text)) problems.push(`${entry.name}: does not say the shape was wrong: ${text}`);
        if (/bug/i.test(text)) problems.push(`${entry.name}: blamed on a bug: ${text}`);
        if (entry.effect !== 'read' && !/change may have been made/.test(text)) problems.push(`${entry.name}: a write does not warn that it may have happened: ${text}`);
      }
      assert.deepEqual(problems, []);
      assert.ok(checked >= 119, `${checked} tools checked`);
    });
  }

  it('a read answered with no content is an upstream error; a write answered with none is a success', async () => {
    const empty = () => new Response('', { status: 200 });
    const read = await callTool(server(empty).server, 'CanvasApi.GetBoardItemInfo', { board_identifier: 'b1', item_identifier: 'i1' });
    assert.equal(read.data.kind, 'upstream_error');
    assert.match(String(read.data.message), /CanvasApi\.GetBoardItemInfo \(GET \/v2\/boards\/\{board_id\}\/items\/\{item_id\}, HTTP 200\).*no content/);
    const write = await callTool(server(() => new Response(null, { status: 204 })).server, 'CanvasApi.DeleteBoardItem', { board_id: 'b1', item_id: 'i1' });
    assert.equal(write.isError, false);
    assert.equal(write.data.success, true);
  });

  it('the endpoints that answer arrays still work', async () => {
    const metrics = await callTool(server(() => jsonResponse(200, [{ periodStart: '2026-02-01', uniqueUsers: 3 }])).server, 'CanvasApi.GetAppUsageMetrics', {
      application_id: 'a1',
      start_date_utc: '2026-02-01',
      end_date: '2026-02-07',
    });
    assert.equal(metrics.isError, false, JSON.stringify(metrics.data));
    assert.deepEqual(metrics.data.data, [{ periodStart: '2026-02-01', uniqueUsers: 3 }]);
    const byEmail = await callTool(server(() => jsonResponse(200, [{ id: '1', email: 'ana@example.com' }])).server, 'CanvasApi.GetOrganizationMembers', { organization_id: 'o1', user_emails: 'ana@example.com' });
    assert.equal(byEmail.isError, false, JSON.stringify(byEmail.data));
  });
});
