/**
 * The pictures of the README and docs/ come from scripts/pictures.mjs: every picture link points at
 * a file that exists (a PNG of at most 200 KB), every picture is one the script names, docs/ shows
 * each once and the README exactly one; and the script, run into a temporary folder, makes each
 * picture again at the committed one's size (from real calls on the sandbox, Chromium for the views).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CHROMIUM, NO_CHROMIUM } from './support/chromium.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PICTURES_DIR = path.join(ROOT, 'docs', 'pictures');
const MAX_BYTES = 200 * 1024;
type Script = { PICTURES: { file: string }[]; makePictures: (outDir: string) => Promise<{ file: string; bytes: number }[]> };
const script = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'pictures.mjs')).href)) as Script;
const named = script.PICTURES.map((picture) => picture.file);

/** The images a Markdown file shows, as paths from the repository's root. */
function picturesIn(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => path.relative(ROOT, path.resolve(path.dirname(file), match[1]!)).split(path.sep).join('/'));
}

/** Width and height from a PNG's header. */
function pngSize(bytes: Buffer): [number, number] {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

describe('the pictures', () => {
  const docs = readdirSync(path.join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join(ROOT, 'docs', name));
  const inDocs = docs.flatMap(picturesIn);
  const inReadme = picturesIn(path.join(ROOT, 'README.md'));

  it('that the README and docs show exist, are PNGs of at most 200 KB, and are made by scripts/pictures.mjs', () => {
    assert.ok(inDocs.length > 0 && inReadme.length > 0);
    for (const shown of [...inReadme, ...inDocs]) {
      assert.ok(existsSync(path.join(ROOT, shown)), `${shown} exists`);
      assert.ok(shown.startsWith('docs/pictures/'), `${shown} is in docs/pictures/`);
      assert.ok(named.includes(path.basename(shown)), `scripts/pictures.mjs makes ${shown}`);
      const bytes = readFileSync(path.join(ROOT, shown));
      pngSize(bytes);
      assert.ok(bytes.length <= MAX_BYTES, `${shown}: ${bytes.length} bytes`);
    }
  });

  it('are each shown once in docs/, one of them in the README, and nothing else lies in docs/pictures/', () => {
    assert.equal(new Set(named).size, named.length, 'one entry per file');
    for (const file of named) assert.equal(inDocs.filter((shown) => shown === `docs/pictures/${file}`).length, 1, `docs/ shows ${file} once`);
    assert.equal(inReadme.length, 1, 'the README shows one picture');
    assert.deepEqual(readdirSync(PICTURES_DIR).sort(), [...named].sort(), 'docs/pictures/ holds what the script makes');
  });

  it('are made again by the script, from real calls, at the committed size', { skip: CHROMIUM ? false : NO_CHROMIUM }, async () => {
    const out = mkdtempSync(path.join(tmpdir(), 'toolservers-pictures-'));
    try {
      const saved = await script.makePictures(out);
      assert.deepEqual(saved.map((picture) => picture.file).sort(), [...named].sort());
      for (const { file, bytes } of saved) {
        const made = readFileSync(path.join(out, file));
        assert.equal(statSync(path.join(out, file)).size, bytes);
        assert.ok(bytes <= MAX_BYTES, `${file}: ${bytes} bytes`);
        assert.deepEqual(pngSize(made), pngSize(readFileSync(path.join(PICTURES_DIR, file))), `${file}: the committed picture's size`);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
