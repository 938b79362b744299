#!/usr/bin/env node
/**
 * The Prism drill: every tool of both servers against the Stoplight Prism mock of the official
 * specs in dynamic mode (random but valid answers), so that an odd platform never makes a tool
 * hang or fail with `internal`. Not part of `npm test`: it fetches Prism with npx and needs
 * ../shared/reference. Run after a build: `npx tsc -p tsconfig.test.json && node scripts/prism-drill.mjs
 * [--only <part of a tool name>] [--calls N]`.
 *
 * - Prism serves ../shared/reference/*-openapi.json copies made at run time in a temporary folder:
 *   the whiteboard spec has paths that differ only in a parameter's name
 *   (`/v2/boards/{board_id_PlatformTags}/items` beside `/v2/boards/{board_id}/items`), which Prism
 *   cannot tell apart; their operations are merged under the plain name.
 * - Prism refuses PagerDuty's versioned `Accept` header (its spec declares `application/json`): a
 *   small proxy here rewrites it.
 * - Each tool is called over stdio with arguments made from its listed input schema (required
 *   properties only: the first enum value, a plausible string, the minimum number), `--calls` times
 *   (default 2). A call must answer within 60 s; an `isError` answer is fine unless its kind is `internal`.
 * An `invalid_input` answer means the made-up arguments were refused before anything was sent (the
 * schema cannot say everything); the task tools get arguments of their own (GIVEN_ARGS) so that each does its work.
 * Prints one line per tool and a summary; exits 1 when a call hung or failed with `internal`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const reference = path.resolve(root, '../shared/reference');
const { values } = parseArgs({ options: { only: { type: 'string' }, calls: { type: 'string' } } });
const CALLS = Number(values.calls ?? 2);
const CALL_LIMIT_MS = 60_000;
const PRISM = '@stoplight/prism-cli@5';

/** The whiteboard spec with same-shaped paths merged: Prism matches the first, so each method lives under the plain name. */
function mergedWhiteboardSpec(spec) {
  const shape = (p) => p.replace(/\{[^}]+\}/g, '{}');
  const plainFirst = Object.keys(spec.paths).sort((a, b) => Number(/\{\w+_Platform\w*\}/.test(a)) - Number(/\{\w+_Platform\w*\}/.test(b)));
  const kept = new Map();
  const paths = {};
  for (const p of plainFirst) {
    const target = kept.get(shape(p));
    if (!target) {
      kept.set(shape(p), p);
      paths[p] = { ...spec.paths[p] };
      continue;
    }
    const renamed = /\{(\w+_Platform\w*)\}/.exec(p)?.[1];
    for (const [method, operation] of Object.entries(spec.paths[p])) {
      if (method in paths[target]) continue;
      const text = JSON.stringify(operation);
      paths[target][method] = JSON.parse(renamed ? text.split(`"${renamed}"`).join('"board_id"') : text);
    }
  }
  return { ...spec, paths };
}

function startPrism(specFile, port) {
  // A process group of its own: npx starts Prism as a child, and stopping npx alone would leave it running.
  const child = spawn('npx', ['-y', PRISM, 'mock', '-d', '-p', String(port), '-h', '127.0.0.1', specFile], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`Prism did not start on ${port} within 180 s:\n${seen.slice(-2000)}`)), 180_000);
    const watch = (chunk) => {
      seen += chunk;
      if (seen.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.on('exit', (code) => reject(new Error(`Prism exited (${code}):\n${seen.slice(-2000)}`)));
  });
}

/** Forwards to Prism with `Accept: application/json` (the PagerDuty spec's only declared type). */
function acceptProxy(targetPort) {
  const server = http.createServer((req, res) => {
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, path: req.url, method: req.method, headers: { ...req.headers, accept: 'application/json' } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Arguments the schema alone cannot give ("exactly one of" rules, a diagram to draw), so that every task tool does its work. */
/** A tool's arguments, or a list of them: each set is called CALLS times. */
const GIVEN_ARGS = {
  'IncidentOps.WhoIsOnCall': { schedule_id: 'PABC123', until: '2026-12-02T00:00:00Z', at: '2026-12-01T00:00:00Z' },
  'IncidentOps.FindSimilarIncidents': { text: 'database connection timeout' },
  'IncidentOps.IncidentStats': { service_id: 'PABC123', days: 30 },
  'CanvasApi.CreateDiagram': [
    { mermaid: 'flowchart TD\nA[Start] --> B{Check}\nB -->|yes| C[Done]' },
    { mermaid: 'sequenceDiagram\n  A->>B: hi\n  A->>A: think\n  Note right of B: n' },
    { mermaid: 'mindmap\n  root\n    a\n      b\n    c' },
    { mermaid: 'classDiagram\n  Animal <|-- Duck\n  Animal : +int age\n  class Duck { +swim() }' },
    { mermaid: 'erDiagram\n  CUSTOMER ||--o{ ORDER : places\n  ORDER { string id PK }' },
  ],
  'CanvasApi.ViewBoard': { item_ids: ['3074457345618265000', '3074457345618265001'] },
  'CanvasApi.CreateBoardLayout': [{ layout: 'kanban', sections: [{ title: 'To do', items: ['a', 'b'] }, { title: 'Done', items: ['c'] }] }],
  // Previews only (a confirm needs the preview's token): a recolour by type, a delete by ID.
  'CanvasApi.BulkEditItems': [{ filter: { type: 'sticky_note' }, update: { color: 'green' } }, { filter: { item_ids: ['3074457345618265000'] }, delete: true }],
  // A frame's diagram as text, and an edit of it (the mock's answers differ from the header's state: refused as changed, or planned).
  'CanvasApi.ReadBoard': [{}, { format: 'outline' }, { frame_id: '3074457345618265000', format: 'mermaid' }, { query: 'a', format: 'mermaid' }],
  'CanvasApi.EditDiagram': [
    { board_id: 'uXjVDrill0=', dry_run: true, mermaid: '%% toolservers board=uXjVDrill0= frame=3074457345618265000 read=2026-12-01T00:00:00Z state=0000000000000000\nflowchart TB\n  i3074457345618265001["Renamed"]\n  n1["New"]\n  i3074457345618265001 --> n1' },
    { board_id: 'uXjVDrill0=', mermaid: '%% toolservers board=uXjVDrill0= seeds=3074457345618265001 read=2026-12-01T00:00:00Z state=0000000000000000\nflowchart LR\n  i3074457345618265001["Renamed"]' },
  ],
};

/** A value a schema accepts, as plainly as possible (required properties only). */
function sample(schema, name = '') {
  if (!schema || typeof schema !== 'object') return 'abc';
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf']) if (Array.isArray(schema[key])) return sample(schema[key].find((s) => s.type !== 'null') ?? schema[key][0], name);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out = {};
      for (const key of schema.required ?? []) out[key] = sample(schema.properties?.[key], key);
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sample(schema.items, name));
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    default:
      if (schema.format === 'date-time' || /(^|_)(at|since|until)$/.test(name)) return '2026-12-01T00:00:00Z';
      if (schema.format === 'email' || /email/.test(name)) return 'someone@example.com';
      if (schema.format === 'uri' || /url$/.test(name)) return 'https://example.com/x';
      if (name === 'mermaid') return 'flowchart TD\nA-->B';
      return name.endsWith('id') || name.endsWith('ids') ? '3074457345618265000' : 'abc';
  }
}

async function drill(serverId, env) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(root, 'build/src/main.js'), serverId],
    env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_CONFIG_HOME: tmp, TOOLSERVERS_TOOLSETS: 'all,tasks', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'prism-drill', version: '1' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const bad = [];
  const chosen = tools.filter((t) => !values.only || t.name.includes(values.only));
  try {
    for (const tool of chosen) {
      const given = GIVEN_ARGS[tool.name];
      const outcomes = [];
      for (const set of Array.isArray(given) ? given : [given ?? {}]) for (let i = 0; i < CALLS; i++) {
        const args = { ...sample(tool.inputSchema), ...set };
        const started = Date.now();
        try {
          const result = await client.callTool({ name: tool.name, arguments: args }, { timeout: CALL_LIMIT_MS });
          const text = result.content?.find((block) => block.type === 'text')?.text ?? '';
          const kind = result.isError ? (/"kind":"(\w+)"/.exec(text)?.[1] ?? 'error') : 'ok';
          outcomes.push(`${kind} ${Date.now() - started}ms`);
          if (kind === 'internal') bad.push(`${tool.name}: internal: ${text.slice(0, 300)}`);
        } catch (error) {
          outcomes.push(`no answer ${Date.now() - started}ms`);
          bad.push(`${tool.name}: no answer within ${CALL_LIMIT_MS / 1000} s (${String(error).slice(0, 200)})`);
        }
      }
      process.stdout.write(`${tool.name}: ${outcomes.join(', ')}\n`);
    }
  } finally {
    await client.close();
  }
  return { count: chosen.length, bad };
}

const tmp = mkdtempSync(path.join(tmpdir(), 'prism-drill-'));
const children = [];
let proxy;
try {
  for (const file of ['miro-openapi.json', 'pagerduty-openapi.json']) if (!existsSync(path.join(reference, file))) throw new Error(`${path.join(reference, file)} is missing: the drill needs ../shared/reference`);
  const whiteboard = path.join(tmp, 'whiteboard.json');
  writeFileSync(whiteboard, JSON.stringify(mergedWhiteboardSpec(JSON.parse(readFileSync(path.join(reference, 'miro-openapi.json'), 'utf8')))));
  const [whiteboardPrism, incidentsPrism] = await Promise.all([startPrism(whiteboard, 4710), startPrism(path.join(reference, 'pagerduty-openapi.json'), 4711)]);
  children.push(whiteboardPrism, incidentsPrism);
  proxy = await acceptProxy(4711);
  const results = [
    await drill('canvasapi', { CANVASAPI_BASE_URL: 'http://127.0.0.1:4710', CANVASAPI_ACCESS_TOKEN: 'drill' }),
    await drill('incidentops', { INCIDENTOPS_BASE_URL: `http://127.0.0.1:${proxy.address().port}`, INCIDENTOPS_API_TOKEN: 'drill' }),
  ];
  const bad = results.flatMap((result) => result.bad);
  process.stdout.write(`\n${results.reduce((sum, result) => sum + result.count, 0)} tools, ${CALLS} calls each: ${bad.length === 0 ? 'every call answered, none internal' : `${bad.length} bad:\n${bad.join('\n')}`}\n`);
  process.exitCode = bad.length === 0 ? 0 : 1;
} finally {
  proxy?.close();
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  rmSync(tmp, { recursive: true, force: true });
}
