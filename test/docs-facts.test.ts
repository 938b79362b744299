/**
 * The numbers and names the docs state are the code's: tool counts, meta mode's tools, the task
 * tools a profile adds, the directory walk's parallelism and the renewal claim's timings. (The size
 * table of docs/tools.md is held by test/context-budget.test.ts, the toolsets table by
 * test/cli-choices.test.ts, each client's endpoint by test/client-configs.test.ts.) A doc that
 * drifts from the code fails here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../src/core/logger.js';
import { renewalTimings, REFRESH_TIMEOUT_MS, RENEWAL_CLAIM_MS } from '../src/core/serving/oauth/user-credentials.js';
import { listTools, type AnyToolServer } from '../src/core/tools/registry.js';
import { DIRECTORY_CONCURRENCY, DIRECTORY_INITIAL_CONCURRENCY } from '../src/incidentops/user-directory.js';
import { SERVERS } from '../src/servers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8').replace(/\s+/g, ' ');

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** A count as the docs write it: a word up to ten, else digits with thousands separators. */
const asWord = (n: number) => WORDS[n] ?? n.toLocaleString('en-US');
const seconds = (ms: number) => `${ms / 1000} s`;

/** The one capture of `pattern` in `text`, failing with the doc's name when the sentence is gone. */
function stated(text: string, pattern: RegExp, where: string): string {
  const match = pattern.exec(text);
  assert.ok(match?.[1], `${where} no longer says ${pattern}: reword the test with the doc`);
  return match[1];
}

describe('what the docs state', () => {
  const servers = new Map(SERVERS.map((entry) => [entry.id, entry.create({}, { logger: silentLogger }) as AnyToolServer]));
  const incidentOps = servers.get('incidentops')!;
  const canvasApi = servers.get('canvasapi')!;
  const contractCount = (server: AnyToolServer) => server.tools.filter((tool) => !tool.beyondContract).length;
  const metaCounts = [...servers.values()].map((server) => listTools(server, { selections: [{ profile: 'meta' }] }).length);

  it('the README counts each server\'s contract tools', () => {
    const readme = read('README.md');
    assert.equal(stated(readme, /\*\*IncidentOps\*\*: (\d+) read-only tools/, 'README.md'), String(contractCount(incidentOps)));
    assert.equal(stated(readme, /\*\*CanvasApi\*\*: (\d+) tools/, 'README.md'), String(contractCount(canvasApi)));
    assert.ok(incidentOps.tools.every((tool) => tool.hints.readOnlyHint), 'IncidentOps is read-only, as the README says');
  });

  it('docs/clients.md counts every tool whose short name must be unique', () => {
    const total = [...servers.values()].reduce((sum, server) => sum + server.tools.length, 0);
    assert.equal(stated(read('docs/clients.md'), /across both servers \(all (\d+) tools, task tools included\)/, 'docs/clients.md'), String(total));
  });

  it('meta mode\'s tool count, in the README and docs/tools.md', () => {
    const fewest = Math.min(...metaCounts);
    const most = Math.max(...metaCounts);
    assert.equal(stated(read('README.md'), /`meta` \((\w+ or \w+) tools that find and call the others\)/, 'README.md'), `${asWord(fewest)} or ${asWord(most)}`);
    const tools = read('docs/tools.md');
    assert.equal(stated(tools, /lists up to (\w+) tools instead of the catalogue/, 'docs/tools.md'), asWord(most));
    assert.equal(stated(tools, /any `--read-only` choice get the first (\w+)\./, 'docs/tools.md'), asWord(metaCounts[[...servers.keys()].indexOf('incidentops')]!));
    assert.equal(listTools(canvasApi, { selections: [{ profile: 'meta' }, { readOnly: true }] }).length, fewest, 'a read-only choice lists the first tools only');
  });

  it('the task tools IncidentOps\'s everyday profile adds', () => {
    const everyday = listTools(incidentOps, { selections: [{ profile: 'everyday' }] }).length;
    const added = everyday - contractCount(incidentOps);
    assert.ok(added > 0);
    assert.equal(stated(read('docs/tools.md'), /`everyday` adds the (\w+) task tools/, 'docs/tools.md'), asWord(added));
  });

  it('the task tools\' request budgets, in docs/tools.md and docs/tasks.md', () => {
    const requests = (name: string) => String(incidentOps.tools.find((tool) => tool.name === name)!.budget!({} as never).requests);
    const [context, onCall] = [requests('IncidentOps.GetIncidentContext'), requests('IncidentOps.WhoIsOnCall')];
    assert.deepEqual(stated(read('docs/tools.md'), /(GetIncidentContext \d+ requests; WhoIsOnCall \d+)\)/, 'docs/tools.md').match(/\d+/g), [context, onCall]);
    assert.deepEqual(stated(read('docs/tasks.md'), /\((GetIncidentContext \d+ requests, WhoIsOnCall \d+);/, 'docs/tasks.md').match(/\d+/g), [context, onCall]);
  });

  it('how choices add up: a profile, then the task tools named after it (docs/tools.md)', () => {
    const profile = listTools(canvasApi, { selections: [{ profile: 'no-enterprise' }] }).length;
    const withTasks = listTools(canvasApi, { selections: [{ profile: 'no-enterprise' }, { toolsets: ['all', 'tasks'] }] }).length;
    assert.ok(withTasks > profile, 'naming the task tools after a profile adds them');
    const [alone, added] = stated(read('docs/tools.md'), /(`--profile no-enterprise` lists CanvasApi's \d+ contract tools and `--profile no-enterprise --toolsets all,tasks` \d+)/, 'docs/tools.md').match(/\d+/g)!;
    assert.deepEqual([alone, added], [String(profile), String(withTasks)]);
  });

  it('the tools VS Code gets with the README\'s configurations, in docs/clients.md', () => {
    const incidents = listTools(incidentOps, { selections: [{ toolsets: ['all', 'tasks'] }] }).length;
    const canvas = listTools(canvasApi, { selections: [{ profile: 'no-enterprise' }, { toolsets: ['all', 'tasks'] }] }).length;
    assert.equal(stated(read('docs/clients.md'), /with the task tools \(`--toolsets all,tasks`\) (\d+ \+ \d+) fit/, 'docs/clients.md'), `${incidents} + ${canvas}`);
    assert.ok(incidents + canvas <= 128, 'and they fit in VS Code\'s 128');
  });

  it('the SearchUsers directory walk\'s parallelism', () => {
    const [start, most] = stated(read('docs/tools.md'), /after the first page (\d+ in parallel, one more with each full page, up to \d+)\)/, 'docs/tools.md').match(/\d+/g)!.map(Number);
    assert.deepEqual([start, most], [DIRECTORY_INITIAL_CONCURRENCY, DIRECTORY_CONCURRENCY]);
  });

  it('the platform-token renewal claim, refresh limit and longest wait in docs/replicas.md', () => {
    const replicas = read('docs/replicas.md');
    const { heartbeatMs, renewalWaitMs } = renewalTimings();
    assert.equal(stated(replicas, /`oauth:platform-renewal:<user key>` \(`SET NX PX`, (\d+ s)\)/, 'docs/replicas.md'), seconds(RENEWAL_CLAIM_MS));
    assert.equal(stated(replicas, /extends the claim every (\d+ s) while/, 'docs/replicas.md'), seconds(heartbeatMs));
    assert.equal(stated(replicas, /the refresh request has a (\d+ s) limit/, 'docs/replicas.md'), seconds(REFRESH_TIMEOUT_MS));
    assert.equal(stated(replicas, /its claim lapses within (\d+ s)/, 'docs/replicas.md'), seconds(RENEWAL_CLAIM_MS));
    assert.equal(stated(replicas, /A call waits for this at most (\d+ s)/, 'docs/replicas.md'), seconds(renewalWaitMs));
  });

  it('the README\'s command synopses name only flags the commands have, and login all of its own', () => {
    const raw = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const commands = raw.slice(raw.indexOf('## Commands')).split('\n').filter((line) => line.startsWith('| `toolservers '));
    assert.ok(commands.length >= 8, 'the README has its commands table');
    const flagsOf = (text: string) => new Set([...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((match) => match[0]).filter((flag) => flag !== '--help'));
    let loginChecked = false;
    for (const line of commands) {
      // Cells split at unescaped pipes (`us\|eu` is one cell's text).
      for (const synopsis of line.split(/(?<!\\)\|/)[1]!.split(' / ')) {
        const words = /`toolservers ([a-z ]+?)(?: [[<]|`)/.exec(synopsis)?.[1]?.trim().split(' ') ?? [];
        assert.ok(words.length > 0, `a command in: ${synopsis}`);
        const help = spawnSync(process.execPath, [CLI, ...words, '--help'], { encoding: 'utf8' });
        assert.equal(help.status, 0, `toolservers ${words.join(' ')} --help: ${help.stderr}`);
        const has = flagsOf(help.stdout);
        const written = flagsOf(synopsis);
        for (const flag of written) assert.ok(has.has(flag), `README: toolservers ${words.join(' ')} has no ${flag}`);
        if (words.join(' ') === 'login') {
          assert.deepEqual([...written].sort(), [...has].sort(), 'the README\'s login synopsis names every login flag');
          loginChecked = true;
        }
      }
    }
    assert.ok(loginChecked, 'the README has a login synopsis');
  });
});
