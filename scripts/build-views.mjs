#!/usr/bin/env node
// Builds the MCP Apps views (views/<name>.html + views/<name>.js, with the App SDK bundled in)
// into single self-contained HTML files: build/views/ (tests) and dist/views/ (the package).
// The server reads them on first resources/read (src/core/tools/views.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { englishZodLocalesOnly } from './zod-english-only.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VIEWS = ['coverage', 'incident', 'board'];

for (const view of VIEWS) {
  const script = await build({
    entryPoints: [path.join(root, 'views', `${view}.js`)],
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
  const template = readFileSync(path.join(root, 'views', `${view}.html`), 'utf8');
  const html = template.replace('/*VIEW_SCRIPT*/', () => code);
  for (const out of ['build', 'dist']) {
    mkdirSync(path.join(root, out, 'views'), { recursive: true });
    writeFileSync(path.join(root, out, 'views', `${view}.html`), html);
  }
  console.error(`views: ${view}.html ${(html.length / 1024).toFixed(0)} KB`);
}
