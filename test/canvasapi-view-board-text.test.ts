/**
 * ViewBoard's text (issue 33): widths measured with DejaVu Sans's own advances (the table is
 * checked against the font file, and against the ink resvg draws), lines broken between words,
 * readable sizes, and characters the font lacks (emoji) left out.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { boardSvg, drawableText, fittedSize, fontDraws, textWidthEm, wrapText, type PictureInput, type PictureItem } from '../src/canvasapi/tasks/board-picture.js';
import { drawPicture } from '../src/canvasapi/tasks/view-board.js';

const SCRIPT = fileURLToPath(new URL('../../scripts/generate-dejavu-metrics.mjs', import.meta.url));

/** Columns holding dark ink in the row band [y0, y1): first and last. */
function inkColumns(png: PNG, y0: number, y1: number): [number, number] {
  let first = -1;
  let last = -1;
  for (let x = 0; x < png.width; x++) {
    for (let y = y0; y < y1; y++) {
      const i = (y * png.width + x) * 4;
      if (png.data[i]! < 128) {
        if (first < 0) first = x;
        last = x;
        break;
      }
    }
  }
  return [first, last];
}

describe('ViewBoard text', () => {
  it('the width table is the font file\'s (regenerated from the TTF and compared)', () => {
    // Exits non-zero when src/canvasapi/tasks/dejavu-metrics.ts differs from what the font gives.
    execFileSync(process.execPath, [SCRIPT, '--check'], { stdio: 'pipe' });
  });

  it('measured widths match the ink resvg draws, narrow and wide letters alike', async () => {
    const size = 40;
    const samples = ['iiiiiiiiiiii', 'WWWWWWWWWWWW', 'Quarterly roadmap, Q3', 'Привет, Ωμέγα'];
    const items: PictureItem[] = samples.map((text, row) => ({ id: String(row), type: 'text', x: 600, y: 60 + row * 100, width: 1200, height: 90, text, fontSize: size }));
    const input: PictureInput = { area: { x0: 0, y0: 0, x1: 1200, y1: 400 }, widthPx: 1200, heightPx: 400, items, connectors: [] };
    const png = PNG.sync.read(Buffer.from((await drawPicture(input, new AbortController().signal)).png));
    samples.forEach((text, row) => {
      const [first, last] = inkColumns(png, 20 + row * 100, 100 + row * 100);
      const ink = last - first + 1;
      const predicted = textWidthEm(text) * size;
      // Ink is the advance less the outer side bearings: a few pixels at 40 px.
      assert.ok(ink <= predicted + 2 && ink >= predicted - 0.12 * size - 4, `"${text}": ink ${ink} px, measured ${predicted.toFixed(1)} px`);
    });
    // The estimate of 0.6 em a character was 30% off for both; the table is not.
    assert.ok(textWidthEm('WWWW') / textWidthEm('iiii') > 3);
  });

  it('lines break between words; a word alone too wide is the only one cut; "…" ends a cut-off text', () => {
    const text = 'Customer onboarding needs a clearer first week checklist with owners';
    for (const width of [120, 200, 333]) {
      const lines = wrapText(text, width, 14, 100);
      assert.equal(lines.join(' '), text, `width ${width}: no word cut or lost`);
      for (const line of lines) assert.ok(textWidthEm(line) * 14 <= width, `"${line}" fits ${width}`);
      // Greedy: the next line's first word did not fit after this line.
      for (let i = 0; i + 1 < lines.length; i++) assert.ok(textWidthEm(`${lines[i]} ${lines[i + 1]!.split(' ')[0]}`) * 14 > width);
    }
    const long = 'Supercalifragilisticexpialidocious';
    const pieces = wrapText(`a ${long} b`, 100, 14, 100);
    assert.equal(pieces.join('').replace(/ /g, ''), `a${long}b`);
    assert.equal(pieces[0], 'a', 'the short word before is not glued to a piece of the long one');
    for (const piece of pieces) assert.ok(textWidthEm(piece) * 14 <= 100);
    const cut = wrapText(text, 120, 14, 2);
    assert.equal(cut.length, 2);
    assert.ok(cut[1]!.endsWith('…') && textWidthEm(cut[1]!) * 14 <= 120, cut[1]);
  });

  it('an item\'s own font size too small to read gives way to the size that fills its box; a readable one is kept unless it would cut a word', () => {
    const text = 'Legal sign-off';
    const grown = fittedSize(text, 160, 80, 2);
    assert.ok(grown > 10, `${grown}`);
    const lines = wrapText(text, 160, grown, 100);
    assert.ok(lines.length * grown * 1.2 <= 80 && lines.every((line) => textWidthEm(line) * grown <= 160));
    assert.equal(fittedSize(text, 160, 80, 14), 14);
    // A readable own size that would cut a word gives way to one that holds the word whole, never larger.
    const word = 'Quarantine';
    const shrunk = fittedSize(`${word} flaky tests`, 80, 120, 18);
    assert.ok(textWidthEm(word) * 18 > 80, 'the own size would cut the word');
    assert.ok(shrunk < 18 && textWidthEm(word) * shrunk <= 80 + 1e-9, `${shrunk}`);
    assert.ok(wrapText(`${word} flaky tests`, 80, shrunk, 100).includes(word), 'the word on a line of its own, whole');
    // A box too small for any readable text draws none.
    const tiny: PictureItem = { id: 't', type: 'sticky_note', x: 2, y: 2, width: 4, height: 4, text: 'A long note that cannot fit' };
    assert.doesNotMatch(boardSvg({ area: { x0: 0, y0: 0, x1: 4, y1: 4 }, widthPx: 4, heightPx: 4, items: [tiny], connectors: [] }), /<text/);
  });

  it('characters the font lacks (emoji) are left out, not drawn as empty boxes; letters it has are kept', () => {
    assert.equal(fontDraws('🚀'.codePointAt(0)!), false);
    assert.equal(fontDraws('é'.codePointAt(0)!), true);
    assert.equal(drawableText('Launch 🚀 now ✅'), fontDraws(0x2705) ? 'Launch now ✅' : 'Launch now');
    assert.equal(drawableText('Café Привет Ωμέγα'), 'Café Привет Ωμέγα');
    const item: PictureItem = { id: 'e', type: 'shape', shape: 'circle', x: 100, y: 100, width: 200, height: 200, text: 'Launch 🚀' };
    const svg = boardSvg({ area: { x0: 0, y0: 0, x1: 200, y1: 200 }, widthPx: 200, heightPx: 200, items: [item], connectors: [] });
    assert.match(svg, />Launch</);
    assert.doesNotMatch(svg, /🚀/u);
  });
});
