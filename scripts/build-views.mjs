#!/usr/bin/env node
// Builds the MCP Apps views (every views/<name>.html with its views/<name>.js, the App SDK bundled
// in) into single self-contained HTML files: build/views/ (tests) and dist/views/ (the package).
// views/common.css, the style every view shares, is inlined into each page before the page's own
// style (so a page's rules win). The server reads the pages on first resources/read
// (src/core/tools/views.ts). `node scripts/bundle.mjs` runs this too: one build gives both folders.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { englishZodLocalesOnly } from './zod-english-only.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sources = path.join(root, 'views');
const VIEWS = readdirSync(sources).filter((name) => name.endsWith('.html')).map((name) => name.slice(0, -'.html'.length)).sort();
const commonCss = readFileSync(path.join(sources, 'common.css'), 'utf8');
if (/@import|url\(|<\//i.test(commonCss)) throw new Error('views/common.css must load nothing and hold no tag');

/** The page with the shared style as its first <style> (before the page's own, or else before </head>). */
function withCommonStyle(template) {
  const at = template.search(/<style>|<\/head>/i);
  if (at < 0) throw new Error('a view page needs a <head>');
  return `${template.slice(0, at)}<style>\n${commonCss}</style>\n${template.slice(at)}`;
}

for (const view of VIEWS) {
  const script = await build({
    entryPoints: [path.join(sources, `${view}.js`)],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    charset: 'ascii',
    legalComments: 'none',
    plugins: [englishZodLocalesOnly],
    logLevel: 'warning',
  });
  // `</script` inside the code would end the inline script early.
  const code = script.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  const template = withCommonStyle(readFileSync(path.join(sources, `${view}.html`), 'utf8'));
  const html = template.replace('/*VIEW_SCRIPT*/', () => code);
  for (const out of ['build', 'dist']) {
    mkdirSync(path.join(root, out, 'views'), { recursive: true });
    writeFileSync(path.join(root, out, 'views', `${view}.html`), html);
  }
  console.error(`views: ${view}.html ${(html.length / 1024).toFixed(0)} KB`);
}
