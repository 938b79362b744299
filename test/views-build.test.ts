/**
 * How the views (MCP Apps pages) are built: once per `npm test`, `npm run build` or bench run
 * (scripts/bundle.mjs runs scripts/build-views.mjs, which writes build/views/ and dist/views/ both),
 * and every views/*.html gets the shared views/common.css inlined, with no rule of it repeated in a page.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { assertSelfContained } from './support/views.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const pages = readdirSync(path.join(ROOT, 'views')).filter((name) => name.endsWith('.html'));
const commonCss = readFileSync(path.join(ROOT, 'views', 'common.css'), 'utf8');

/** The commands an npm script runs, with `npm run X` replaced by X's own commands. */
function commandsOf(script: string): string[] {
  return scripts[script]!.split('&&').flatMap((part) => {
    const command = part.trim();
    const nested = /^npm run ([\w:-]+)$/.exec(command);
    return nested ? commandsOf(nested[1]!) : [command];
  });
}

/** The CSS rules of a stylesheet, comments dropped, whitespace normalised: `selector { declarations }`. */
function rulesOf(css: string): string[] {
  return [...css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([^{}]+)\{([^}]*)\}/g)].map(([, selector, body]) => `${selector!.trim()} {${body!.trim().replace(/\s+/g, ' ')}}`);
}

describe('building the views', () => {
  it('happens once per test, build or bench run: scripts/bundle.mjs builds them into build/views/ and dist/views/', () => {
    assert.match(readFileSync(path.join(ROOT, 'scripts', 'bundle.mjs'), 'utf8'), /await import\('\.\/build-views\.mjs'\)/);
    const buildScript = readFileSync(path.join(ROOT, 'scripts', 'build-views.mjs'), 'utf8');
    assert.match(buildScript, /for \(const out of \['build', 'dist'\]\)/);
    const viewBuilds = (script: string): number => commandsOf(script).filter((command) => /scripts\/(build-views|bundle)\.mjs/.test(command)).length;
    for (const script of ['test', 'build', 'build:test', 'build:mcpb', 'bench', 'bench:cold-start', 'bench:soak']) assert.equal(viewBuilds(script), 1, `npm run ${script} builds the views once`);
    // The test run needs both: build/views/ for the unbundled tests, dist/ for the bundle's.
    assert.ok(commandsOf('test').includes('node scripts/bundle.mjs'));
  });

  it('gives every page of views/ in build/views/ and dist/views/, the same, with the shared style inlined first', { skip: existsSync(path.join(ROOT, 'dist', 'views')) ? false : 'views not built (node scripts/bundle.mjs)' }, () => {
    for (const page of pages) {
      const built = readFileSync(path.join(ROOT, 'build', 'views', page), 'utf8');
      assert.equal(readFileSync(path.join(ROOT, 'dist', 'views', page), 'utf8'), built, `${page}: build/ and dist/ agree`);
      assertSelfContained(built);
      const firstStyle = /<style>([\s\S]*?)<\/style>/.exec(built)![1]!;
      assert.equal(firstStyle.trim(), commonCss.trim(), `${page}: views/common.css is its first style`);
    }
  });

  it('keeps each shared rule in views/common.css only: no page repeats one', () => {
    const shared = new Set(rulesOf(commonCss));
    assert.ok(shared.size >= 5);
    for (const page of pages) {
      const own = [...readFileSync(path.join(ROOT, 'views', page), 'utf8').matchAll(/<style>([\s\S]*?)<\/style>/g)].flatMap((match) => rulesOf(match[1]!));
      assert.deepEqual(own.filter((rule) => shared.has(rule)), [], `${page} repeats no shared rule`);
    }
  });

  it('inlines the shared style into any new page, with or without a style of its own', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'toolservers-views-'));
    try {
      mkdirSync(path.join(root, 'scripts'));
      for (const script of ['build-views.mjs', 'zod-english-only.mjs']) cpSync(path.join(ROOT, 'scripts', script), path.join(root, 'scripts', script));
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
      mkdirSync(path.join(root, 'views'));
      cpSync(path.join(ROOT, 'views', 'common.css'), path.join(root, 'views', 'common.css'));
      const head = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">`;
      writeFileSync(path.join(root, 'views', 'plain.html'), `<!doctype html><html><head>${head}<title>t</title></head><body><script>/*VIEW_SCRIPT*/</script></body></html>`);
      writeFileSync(path.join(root, 'views', 'styled.html'), `<!doctype html><html><head>${head}<style>.own { color: red; }</style></head><body><script>/*VIEW_SCRIPT*/</script></body></html>`);
      for (const view of ['plain', 'styled']) writeFileSync(path.join(root, 'views', `${view}.js`), `document.title = '${view}';`);
      await run(process.execPath, [path.join(root, 'scripts', 'build-views.mjs')]);
      for (const view of ['plain', 'styled']) {
        const html = readFileSync(path.join(root, 'dist', 'views', `${view}.html`), 'utf8');
        const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!.trim());
        assert.deepEqual(styles, view === 'plain' ? [commonCss.trim()] : [commonCss.trim(), '.own { color: red; }'], `${view}: the shared style, then its own`);
        assert.ok(html.indexOf('<style>') < html.indexOf('</head>'));
        assert.match(html, new RegExp(`document\\.title\\s*=\\s*"${view}"`));
        assert.equal(readFileSync(path.join(root, 'build', 'views', `${view}.html`), 'utf8'), html);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
