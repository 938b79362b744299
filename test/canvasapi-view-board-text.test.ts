/**
 * ViewBoard's text (issue 33): widths measured with DejaVu Sans's own advances (the table is
 * checked against the font file, and against the ink resvg draws), lines broken between words,
 * readable sizes, and characters the font lacks (emoji) left out.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { boardSvg, drawableText, fittedSize, fontDraws, shapeTextBox, textWidthEm, toPictureItems, wrapText, type PictureInput, type PictureItem } from '../src/canvasapi/tasks/board-picture.js';
import { PIECE_CHARS, plainLines, plainText } from '../src/canvasapi/tasks/text.js';
import { drawPicture } from '../src/canvasapi/tasks/view-board.js';
import { buildMcpServer, viewFor } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { canvasApiServerFor, sandboxBoards, startTestSandbox } from './support/harness.js';
import { platform } from './support/sandbox-board.js';
import { drawnText, htmlLines } from './support/svg-text.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

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

/** A picture of one item filling `w` × `h` pixels at scale 1. */
const alone = (item: PictureItem) => boardSvg({ area: { x0: 0, y0: 0, x1: item.width, y1: item.height }, widthPx: item.width, heightPx: item.height, items: [item], connectors: [] });
const at = (extra: Partial<PictureItem>): PictureItem => ({ id: 'i', type: 'shape', shape: 'rectangle', x: 150, y: 100, width: 300, height: 200, text: 'a\nb', fontSize: 20, ...extra });

describe('ViewBoard text: the platform\'s lines and alignment', () => {
  it('each paragraph or line break of an HTML text starts a line; within a line, as plainText', () => {
    const box = '<p><strong>CUSTOMER</strong></p><p>string name</p><p>string &lt;custNumber&gt; PK</p>';
    assert.deepEqual(plainLines(box, 1_000), htmlLines(box));
    assert.deepEqual(plainLines(box, 1_000), ['CUSTOMER', 'string name', 'string <custNumber> PK']);
    assert.deepEqual(plainLines('a<br>b<BR />c</div>d</li>e</h2>  f  g ', 1_000), ['a', 'b', 'c', 'd', 'e', 'f g']);
    assert.deepEqual(plainLines('<p>a</p><p></p><p>b</p>', 1_000), ['a', '', 'b'], 'an empty paragraph between two is an empty line');
    assert.deepEqual(plainLines('<br><br> a <br><br>', 1_000), ['a'], 'none before the first text or after the last');
    assert.deepEqual(plainLines('raw\nnewlines\tare blanks', 1_000), ['raw newlines are blanks']);
    // Random texts (tags, entities, blanks, breaks; some longer than a piece): the lines hold plainText's words, a text without breaks is plainText.
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n);
    const parts = ['a', 'bc', ' ', '  ', '\n', '<b>', '</b>', '<p>', '</p>', '<br>', '<br/>', '&amp;', '&lt;', '&#65;', '&', '<', '>', '</div>', '</li>', 'é'];
    for (let round = 0; round < 300; round++) {
      const count = round % 50 === 0 ? PIECE_CHARS / 2 : 1 + random(60);
      const html = Array.from({ length: count }, () => parts[random(parts.length)]).join('');
      const lines = plainLines(html, 1e9);
      assert.equal(lines.filter(Boolean).join(' '), plainText(html), JSON.stringify(html.slice(0, 200)));
      assert.ok(lines.every((line) => line === line.trim() && !/\s{2}|\n/.test(line)));
      const flat = html.replace(/<\/p>|<\/div>|<\/li>|<br\/?>/g, '');
      assert.deepEqual(plainLines(flat, 1e9), plainText(flat) ? [plainText(flat)] : []);
    }
    // A cut: the lines joined hold maxChars and one more character, which marks it.
    assert.deepEqual(plainLines('x'.repeat(5_000), 100), ['x'.repeat(101)]);
    assert.equal(plainLines('<p>abc</p>'.repeat(1_000), 100).join('\n').length, 101);
  });

  it('hostile HTML, thousands of breaks, stays bounded: lines kept, then lines drawn, counted', () => {
    for (const html of ['a<br>'.repeat(20_000), `x${'<br>'.repeat(100_000)}y`, `${'<p></p>'.repeat(50_000)}z`, '<br/>'.repeat(100_000)]) {
      const lines = plainLines(html, 1_000);
      assert.ok(lines.join('\n').length <= 1_001 && lines.length <= 1_001, `${lines.length} lines`);
      const [item] = toPictureItems([{ id: 'h', type: 'shape', data: { content: html, shape: 'rectangle' }, style: { fontSize: '14' }, position: { x: 150, y: 100 }, geometry: { width: 300, height: 200 } }]);
      assert.ok(item!.text.length <= 1_001);
      const drawn = drawnText(alone(item!), 'h');
      if (!drawn) continue;
      // No more lines than the box holds, at least one text line, and a cut says so.
      assert.ok(drawn.lines.length <= Math.floor((200 * 0.84) / (drawn.size * 1.2)), `${drawn.lines.length} lines at ${drawn.size}px`);
      if (item!.text.split('\n').length > drawn.lines.length) assert.ok(drawn.lines.at(-1)!.text.endsWith('…'));
    }
    assert.deepEqual(plainLines('<br/>'.repeat(100_000), 1_000), []);
    assert.deepEqual(plainLines(`${'<br>'.repeat(100_000)}x`, 1_000), ['x']);
  });

  it('wrapping: each \\n starts a line, each line wraps within the box, maxLines and "…" hold', () => {
    assert.deepEqual(wrapText('aa bb\ncc', 1_000, 14, 10), ['aa bb', 'cc']);
    assert.deepEqual(wrapText('a\n\nb', 1_000, 14, 10), ['a', '', 'b']);
    const long = 'Customer onboarding needs a clearer first week checklist';
    const wrapped = wrapText(`${long}\nowners`, 150, 14, 100);
    assert.deepEqual(wrapped.slice(0, -1), wrapText(long, 150, 14, 100), 'the first line wraps as alone');
    assert.equal(wrapped.at(-1), 'owners', 'the break starts a line of its own');
    const cut = wrapText('a\nb\nc\nd', 1_000, 14, 2);
    assert.deepEqual(cut, ['a', 'b…']);
  });

  it('a text without breaks is drawn as before: centred both ways, lines from its words', () => {
    const text = 'Quarantine flaky tests within 24h';
    for (const item of [at({ text }), at({ text, type: 'sticky_note', fill: '#fff9b1' }), at({ text, type: 'text' })]) {
      const drawn = drawnText(alone(item), 'i')!;
      assert.equal(drawn.anchor, 'middle');
      assert.equal(drawn.lines.map((l) => l.text).join(' '), text);
      const lh = drawn.size * 1.2;
      drawn.lines.forEach((line, i) => {
        assert.equal(line.x, 150, 'the box\'s middle');
        const expected = 100 - ((drawn.lines.length - 1) * lh) / 2 + drawn.size * 0.35 + i * lh;
        assert.ok(Math.abs(line.y - expected) < 0.01, `${item.type} line ${i}: ${line.y} for ${expected}`);
      });
    }
  });

  it('textAlign and textAlignVertical: right and bottom, left and top land at the text room\'s edges; a sticky\'s default top stays centred', () => {
    const room = shapeTextBox('rectangle', 0, 0, 300, 200);
    const rightBottom = drawnText(alone(at({ textAlign: 'right', textAlignVertical: 'bottom' })), 'i')!;
    assert.equal(rightBottom.anchor, 'end');
    assert.deepEqual(rightBottom.lines.map((l) => l.text), ['a', 'b']);
    assert.ok(rightBottom.lines.every((l) => Math.abs(l.x - (room.x + room.w)) < 0.01));
    const last = rightBottom.lines.at(-1)!.y;
    assert.ok(last <= room.y + room.h - 0.2 * rightBottom.size && last >= room.y + room.h - rightBottom.size, `last baseline ${last}`);
    const leftTop = drawnText(alone(at({ textAlign: 'left', textAlignVertical: 'top' })), 'i')!;
    assert.equal(leftTop.anchor, 'start');
    assert.ok(leftTop.lines.every((l) => Math.abs(l.x - room.x) < 0.01));
    assert.ok(Math.abs(leftTop.lines[0]!.y - (room.y + leftTop.size)) < 0.01, 'the first baseline a line below the top');
    // Read from the platform's style: values outside the spec's are ignored; a sticky's `top` (every sticky's default) is not honoured, its `bottom` and `left` are.
    const read = (type: string, style: object) => toPictureItems([{ id: 's', type, data: { content: 'x' }, style, position: { x: 0, y: 0 }, geometry: { width: 100, height: 100 } }])[0]!;
    assert.deepEqual([read('shape', { textAlign: 'right', textAlignVertical: 'bottom' }).textAlign, read('shape', { textAlign: 'right', textAlignVertical: 'bottom' }).textAlignVertical], ['right', 'bottom']);
    assert.equal(read('shape', { textAlign: 'center', textAlignVertical: 'middle' }).textAlign, undefined);
    assert.equal(read('shape', { textAlign: 'justify', textAlignVertical: '<b>' }).textAlignVertical, undefined);
    assert.equal(read('sticky_note', { textAlign: 'center', textAlignVertical: 'top' }).textAlignVertical, undefined);
    assert.deepEqual([read('sticky_note', { textAlign: 'left', textAlignVertical: 'bottom' }).textAlign, read('sticky_note', { textAlign: 'left', textAlignVertical: 'bottom' }).textAlignVertical], ['left', 'bottom']);
    assert.equal(read('text', { textAlign: 'right' }).textAlign, 'right');
    const text = drawnText(alone(at({ type: 'text', textAlign: 'right' })), 'i')!;
    assert.ok(text.anchor === 'end' && text.lines.every((l) => l.x === 300), 'a text item has no padding');
  });
});

/** Columns and rows holding dark ink inside a box (its border left out). */
function inkBox(png: PNG, x0: number, y0: number, x1: number, y1: number): { left: number; right: number; top: number; bottom: number } {
  const box = { left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity };
  for (let y = Math.ceil(y0); y < Math.floor(y1); y++) {
    for (let x = Math.ceil(x0); x < Math.floor(x1); x++) {
      const i = (y * png.width + x) * 4;
      if (png.data[i]! < 100 && png.data[i + 1]! < 100 && png.data[i + 2]! < 100) {
        box.left = Math.min(box.left, x);
        box.right = Math.max(box.right, x);
        box.top = Math.min(box.top, y);
        box.bottom = Math.max(box.bottom, y);
      }
    }
  }
  return box;
}

describe('ViewBoard draws the platform\'s lines and alignment, on the sandbox', () => {
  let sandbox: RunningSandbox;
  let client: Client;
  let board: string;
  before(async () => {
    sandbox = await startTestSandbox();
    const server = canvasApiServerFor(sandbox.canvasapi);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await buildMcpServer(viewFor(server, { selections: [{ toolsets: ['tasks'] }] })).connect(serverSide);
    // A client that shows views: the answer carries the items drawn (board-view-data.ts), each as the PNG drew it.
    client = new Client({ name: 'view-board-text', version: '1' }, { capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } });
    await client.connect(clientSide);
    board = (await sandboxBoards(sandbox))[0]!.id;
  });
  after(async () => {
    await client.close();
    await sandbox.close();
  });

  /** ViewBoard of some items: the view's data, the SVG drawn from it at the answer's size, and the PNG. */
  async function viewed(itemIds: string[]): Promise<{ data: J; svg: string; png: PNG; X: (x: number) => number; Y: (y: number) => number; scale: number }> {
    const result = await client.callTool({ name: 'CanvasApi.ViewBoard', arguments: { board_id: board, item_ids: itemIds, max_side: 900 } });
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const data = (result._meta as J)['io.github.toolservers/board'];
    const [widthPx, heightPx] = (result.structuredContent as J).size_px.split('x').map(Number);
    const png = PNG.sync.read(Buffer.from((result.content as J[]).find((block) => block.type === 'image').data, 'base64'));
    assert.deepEqual([png.width, png.height], [widthPx, heightPx]);
    const scale = widthPx / (data.area.x1 - data.area.x0);
    const svg = boardSvg({ area: data.area, widthPx, heightPx, items: data.items, connectors: data.connectors });
    return { data, svg, png, X: (x) => (x - data.area.x0) * scale, Y: (y) => (y - data.area.y0) * scale, scale };
  }

  it('a class box drawn by CreateDiagram: one line per member of the HTML it sent, left-aligned at the box\'s left padding, from the top', async () => {
    const mermaid = ['classDiagram', '  class Customer {', '    +String name', '    +String custNumber', '    +placeOrder(item) Order', '  }', '  class Order {', '    +int number', '  }', '  Customer --> Order'].join('\n');
    const created = await client.callTool({ name: 'CanvasApi.CreateDiagram', arguments: { board_id: board, mermaid, origin_x: 30_000, origin_y: 30_000 } });
    assert.equal(created.isError, undefined, JSON.stringify(created.content));
    const id = String((created.structuredContent as J).node_items.Customer);
    // What the platform holds, read back by raw HTTP: the lines expected, and the style that places them.
    const shape = await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${id}`);
    const expected = htmlLines(shape.data.content);
    assert.ok(expected.length >= 4 && expected[0] === 'Customer', JSON.stringify(expected));
    assert.deepEqual([shape.style.textAlign, shape.style.textAlignVertical], ['left', 'top']);
    const { data, svg, png, X, Y, scale } = await viewed([id]);
    const item = data.items.find((i: J) => i.id === id);
    assert.deepEqual(item.text.split('\n'), expected);
    assert.deepEqual([item.textAlign, item.textAlignVertical], ['left', 'top']);
    const drawn = drawnText(svg, id)!;
    assert.deepEqual(drawn.lines.map((l) => l.text), expected, 'one line per member, none run together');
    assert.equal(drawn.anchor, 'start');
    const left = X(item.x - item.width / 2);
    const top = Y(item.y - item.height / 2);
    const w = item.width * scale;
    const h = item.height * scale;
    for (const line of drawn.lines) assert.ok(Math.abs(line.x - (left + 0.08 * w)) < 0.02, `${line.text} at x ${line.x}: the left padding is ${left + 0.08 * w}`);
    assert.ok(drawn.lines[0]!.y < top + 0.08 * h + drawn.size * 1.01, 'the first line at the top');
    // In the PNG: the ink starts at the left padding, not centred, and begins near the top.
    const ink = inkBox(png, left + 4, top + 4, left + w - 4, top + h - 4);
    assert.ok(Math.abs(ink.left - (left + 0.08 * w)) <= 4, `ink from ${ink.left}, padding at ${left + 0.08 * w}`);
    assert.ok(ink.top - top < 0.08 * h + drawn.size, `ink from row ${ink.top}, the box's top at ${top}`);
  });

  it('shapes holding <p>a</p><p>b</p>: two lines; right and bottom, left and top, or centred, as their style says', async () => {
    const make = (style: object, x: number) =>
      platform(sandbox, 'POST', `/v2/boards/${board}/shapes`, { data: { content: '<p>a</p><p>b</p>', shape: 'rectangle' }, style: { fontSize: '24', ...style }, position: { x, y: 40_000 }, geometry: { width: 300, height: 200 } });
    const rightBottom = String((await make({ textAlign: 'right', textAlignVertical: 'bottom' }, 40_000)).id);
    const leftTop = String((await make({ textAlign: 'left', textAlignVertical: 'top' }, 40_400)).id);
    const centred = String((await make({}, 40_800)).id);
    const { data, svg, png, X, Y, scale } = await viewed([rightBottom, leftTop, centred]);
    const pixels = (id: string) => {
      const item = data.items.find((i: J) => i.id === id);
      const left = X(item.x - item.width / 2);
      const top = Y(item.y - item.height / 2);
      return { left, top, w: item.width * scale, h: item.height * scale, drawn: drawnText(svg, id)! };
    };
    for (const id of [rightBottom, leftTop, centred]) assert.deepEqual(pixels(id).drawn.lines.map((l) => l.text), ['a', 'b'], 'two lines');
    const inkOf = (p: ReturnType<typeof pixels>) => inkBox(png, p.left + 4, p.top + 4, p.left + p.w - 4, p.top + p.h - 4);
    // Right and bottom: the ink ends at the right padding and low in the box.
    const rb = pixels(rightBottom);
    const rbInk = inkOf(rb);
    assert.ok(Math.abs(rbInk.right - (rb.left + 0.92 * rb.w)) <= 4, `ink to ${rbInk.right}, right padding at ${rb.left + 0.92 * rb.w}`);
    assert.ok(rbInk.bottom <= rb.top + 0.92 * rb.h && rbInk.bottom >= rb.top + 0.92 * rb.h - rb.drawn.size * 0.6, `ink to row ${rbInk.bottom}`);
    assert.ok(rbInk.top > rb.top + rb.h / 2 - rb.drawn.size * 1.2, 'the lines in the lower part');
    // Left and top: from the left padding, from the top.
    const lt = pixels(leftTop);
    const ltInk = inkOf(lt);
    // 'a' has no ascender: its ink starts between the room's top and the first baseline.
    assert.ok(Math.abs(ltInk.left - (lt.left + 0.08 * lt.w)) <= 4 && ltInk.top > lt.top + 0.08 * lt.h && ltInk.top < lt.top + 0.08 * lt.h + lt.drawn.size, JSON.stringify({ ltInk, lt }));
    // The platform's default (centre, middle): around the box's middle.
    const c = pixels(centred);
    const cInk = inkOf(c);
    assert.ok(Math.abs((cInk.left + cInk.right) / 2 - (c.left + c.w / 2)) <= 3 && Math.abs((cInk.top + cInk.bottom) / 2 - (c.top + c.h / 2)) <= c.drawn.size * 0.3, JSON.stringify(cInk));
  });
});
