/**
 * ViewBoard's picture checked pixel by pixel (issue 33, point 4): the sandbox's demo boards are
 * read straight from the platform, drawn by the off-thread step, and each item's centre is mapped
 * through the stated area and scale: stickies show their colour, shapes their fill, and every
 * connector leaves ink near its middle. Answers are computed here from the platform's data.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import { runOffThread } from '../src/core/tools/off-thread.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { STICKY_COLORS, boardSvg, connectorGeometry, mindmapBranch, textWidthEm, toPictureConnectors, toPictureItems, type PictureInput } from '../src/canvasapi/tasks/board-picture.js';
import { plainText } from '../src/canvasapi/tasks/text.js';
import type { RenderedPicture, RenderInput } from '../src/canvasapi/tasks/board-render.js';
import { BOARD_PICTURE, boundsOf, drawPicture, fitPicture } from '../src/canvasapi/tasks/view-board.js';
import { startTestSandbox } from './support/harness.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function platform(sandbox: RunningSandbox, path: string): Promise<J> {
  const response = await fetch(`${sandbox.canvasapi.baseUrl}${path}`, { headers: { authorization: `Bearer ${sandbox.canvasapi.token}` } });
  assert.ok(response.ok, `GET ${path}: HTTP ${response.status}`);
  return response.json();
}

async function all(sandbox: RunningSandbox, path: string): Promise<J[]> {
  const out: J[] = [];
  let cursor = '';
  do {
    const page = await platform(sandbox, `${path}?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...page.data);
    cursor = page.cursor ?? '';
  } while (cursor);
  return out;
}

const TYPED_PATH: Record<string, string> = { sticky_note: 'sticky_notes', shape: 'shapes', card: 'cards', text: 'texts', app_card: 'app_cards', frame: 'frames' };

async function withStyles(sandbox: RunningSandbox, boardId: string, records: J[]): Promise<J[]> {
  return Promise.all(records.map(async (r) => (TYPED_PATH[r.type] ? { ...r, style: (await platform(sandbox, `/v2/boards/${boardId}/${TYPED_PATH[r.type]}/${r.id}`)).style } : r)));
}

const hex = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));

/** The pixel a picture point falls in: pixel (i, j) covers [i, i+1) x [j, j+1). */
function pixel(png: PNG, x: number, y: number): number[] {
  const i = (Math.floor(y) * png.width + Math.floor(x)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

const near = (a: number[], b: number[], tolerance = 6) => a.every((v, i) => Math.abs(v - b[i]!) <= tolerance);

describe('ViewBoard picture, pixel by pixel', () => {
  let sandbox: RunningSandbox;
  before(async () => {
    sandbox = await startTestSandbox();
  });
  after(async () => {
    await sandbox.close();
  });

  for (const name of ['Sprint 42 Retrospective', 'Payments Architecture', 'Q3 Launch Plan']) {
    it(`${name}: sticky colours, shape fills and connector ink at the mapped places`, async () => {
      const boards = await platform(sandbox, '/v2/boards?limit=50');
      const board = boards.data.find((b: J) => b.name === name);
      // The generic list carries no style (as on the platform): colours come from each item's own endpoint.
      const records = await withStyles(sandbox, board.id, await all(sandbox, `/v2/boards/${board.id}/items`));
      const items = toPictureItems(records);
      const connectors = toPictureConnectors(await all(sandbox, `/v2/boards/${board.id}/connectors`), items);
      const frame = fitPicture(boundsOf(items));
      const input: PictureInput = { ...frame, items, connectors };
      const picture = await drawPicture(input, new AbortController().signal);
      assert.equal(picture.width, frame.widthPx);
      assert.equal(picture.height, frame.heightPx);
      assert.ok(Math.max(picture.width, picture.height) <= 1568);
      const png = PNG.sync.read(Buffer.from(picture.png));
      if (process.env.VIEWBOARD_ARTEFACTS) writeFileSync(`${process.env.VIEWBOARD_ARTEFACTS}/${name.replace(/\W+/g, '-')}.png`, picture.png);
      const at = (bx: number, by: number) => ({ x: (bx - frame.area.x0) * frame.scale, y: (by - frame.area.y0) * frame.scale });

      let checked = 0;
      let heads = 0;
      let curved = 0;
      for (const record of records) {
        const item = items.find((i) => i.id === String(record.id))!;
        // A spot between the centre and the left edge: clear of centred text, inside every shape kind drawn here.
        const spot = at(item.x - item.width * 0.3, item.y);
        const fill = record.type === 'sticky_note' ? STICKY_COLORS[record.style.fillColor] : record.type === 'shape' ? record.style.fillColor : undefined;
        if (!fill) continue;
        // Inside the outline, clear of the text's box (shapeTextBox): below it for diamonds, circles and parallelograms.
        const below: Record<string, [number, number]> = { rhombus: [0, 0.35], flow_chart_decision: [0, 0.35], circle: [0, 0.4], parallelogram: [0.1, 0.44], flow_chart_input_output: [0.1, 0.44] };
        const offset = record.type === 'shape' ? below[record.data.shape] : undefined;
        const probe = record.type === 'sticky_note' ? at(item.x - item.width * 0.45, item.y + item.height * 0.45) : offset ? at(item.x + item.width * offset[0], item.y + item.height * offset[1]) : spot;
        assert.ok(near(pixel(png, probe.x, probe.y), hex(fill)), `${record.type} ${record.id} (${record.data.shape ?? record.style.fillColor}) at ${Math.round(probe.x)},${Math.round(probe.y)}: ${pixel(png, probe.x, probe.y)} is not ${fill}`);
        checked++;
      }
      assert.ok(checked >= 3, `checked ${checked} fills`);

      // Ink along each connector (straight and elbowed: the middle of the longest run; curved: points
      // of the Bézier), its caption's text, and a filled head at each capped end.
      const X = (bx: number) => at(bx, 0).x;
      const Y = (by: number) => at(0, by).y;
      const dark = (x: number, y: number) => pixel(png, x, y).every((v) => v < 120);
      const darkWithin = (x: number, y: number, reach: number) => {
        for (let dx = -reach; dx <= reach; dx++) for (let dy = -reach; dy <= reach; dy++) if (dark(x + dx, y + dy)) return true;
        return false;
      };
      for (const connector of connectors) {
        const { points, mid } = connectorGeometry(connector, X, Y);
        // The caption's box (at most 14 px text): the line under it is veiled, its text is ink.
        const captionHalf = connector.caption ? { w: (textWidthEm(connector.caption) * 14 + 6) / 2, h: 10 } : undefined;
        const underCaption = (p: { x: number; y: number }) => captionHalf !== undefined && Math.abs(p.x - mid.x) <= captionHalf.w + 2 && Math.abs(p.y - mid.y) <= captionHalf.h + 2;
        const samples: { x: number; y: number }[] = [];
        if (connector.shape === 'curved') {
          const [a, c1, c2, b] = points as [{ x: number; y: number }, { x: number; y: number }, { x: number; y: number }, { x: number; y: number }];
          const bezier = (t: number) => {
            const u = 1 - t;
            return { x: u * u * u * a.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * b.x, y: u * u * u * a.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * b.y };
          };
          for (const t of [0.15, 0.3, 0.5, 0.7, 0.85]) samples.push(bezier(t));
        } else {
          let longest = -1;
          for (let i = 1; i < points.length; i++) {
            const length = Math.hypot(points[i]!.x - points[i - 1]!.x, points[i]!.y - points[i - 1]!.y);
            if (length > longest) {
              longest = length;
              samples[0] = { x: (points[i]!.x + points[i - 1]!.x) / 2, y: (points[i]!.y + points[i - 1]!.y) / 2 };
            }
          }
        }
        const onLine = samples.filter((p) => !underCaption(p));
        assert.ok(onLine.length >= (connector.shape === 'curved' ? 3 : 0), `connector ${connector.id}: too few points clear of its caption`);
        for (const p of onLine) assert.ok(darkWithin(p.x, p.y, 2), `connector ${connector.id} (${connector.shape}) has no ink near ${Math.round(p.x)},${Math.round(p.y)}`);
        if (captionHalf) {
          let ink = 0;
          for (let x = Math.round(mid.x - captionHalf.w); x <= mid.x + captionHalf.w; x++) for (let y = Math.round(mid.y - captionHalf.h); y <= mid.y + captionHalf.h; y++) if (dark(x, y)) ink++;
          assert.ok(ink >= 8, `connector ${connector.id}: caption "${connector.caption}" has ${ink} inked pixels`);
        }
        // A head (at least 10 px long): 5 px back from the tip, ink 1.8 px either side of the line's axis, where a 1.5-2 px line alone leaves none.
        const ends: [string, { x: number; y: number }, { x: number; y: number }][] = [[connector.endCap, points.at(-1)!, points.at(-2)!], [connector.startCap, points[0]!, points[1]!]];
        for (const [cap, tip, from] of ends) {
          if (cap === 'none') continue;
          const length = Math.hypot(tip.x - from.x, tip.y - from.y);
          const u = { x: (tip.x - from.x) / length, y: (tip.y - from.y) / length };
          const back = { x: tip.x - 5 * u.x, y: tip.y - 5 * u.y };
          for (const side of [1.8, -1.8]) assert.ok(dark(back.x - side * u.y, back.y + side * u.x), `connector ${connector.id} (${connector.shape}): no ${cap} head at ${Math.round(tip.x)},${Math.round(tip.y)}`);
          heads++;
        }
        if (connector.shape === 'curved') curved++;
      }
      assert.ok(connectors.length >= 1 && heads >= 1);
      if (name === 'Q3 Launch Plan') assert.ok(curved >= 1, 'a curved connector was checked');
    });
  }

  it('mind-map nodes: their box and text at the mapped place, a branch from each to its parent node', async () => {
    const boards = await platform(sandbox, '/v2/boards?limit=50');
    const board = boards.data.find((b: J) => b.name === 'Q3 Launch Plan');
    // Text and links from the platform; the place (which its mind-map endpoint does not give) set here, as a list carrying it would.
    const nodes: J[] = (await platform(sandbox, `/v2-experimental/boards/${board.id}/mindmap_nodes?limit=50`)).data;
    assert.ok(nodes.length >= 4);
    const depth = (node: J): number => (node.parent && nodes.some((n) => n.id === node.parent.id) ? 1 + depth(nodes.find((n) => n.id === node.parent.id)) : 0);
    const rows = new Map<number, number>();
    const records = nodes.map((node) => {
      const level = depth(node);
      const row = rows.get(level) ?? 0;
      rows.set(level, row + 1);
      return { ...node, position: { x: level * 450, y: row * 120, origin: 'center', relativeTo: 'canvas_center' }, geometry: { width: 240, height: 70 } };
    });
    const items = toPictureItems(records);
    const frame = fitPicture(boundsOf(items), 1000);
    const picture = await drawPicture({ ...frame, items, connectors: [] }, new AbortController().signal);
    const png = PNG.sync.read(Buffer.from(picture.png));
    if (process.env.VIEWBOARD_ARTEFACTS) writeFileSync(`${process.env.VIEWBOARD_ARTEFACTS}/mind-map.png`, picture.png);
    const X = (bx: number) => (bx - frame.area.x0) * frame.scale;
    const Y = (by: number) => (by - frame.area.y0) * frame.scale;
    const darkNear = (x: number, y: number, reach: number) => {
      for (let dx = -reach; dx <= reach; dx++) for (let dy = -reach; dy <= reach; dy++) if (pixel(png, x + dx, y + dy).every((v) => v < 140)) return true;
      return false;
    };
    const svg = boardSvg({ ...frame, items, connectors: [] });
    for (const record of records) {
      const item = items.find((i) => i.id === record.id)!;
      const text = plainText(record.data.nodeView.data.content);
      assert.equal(item.text, text);
      assert.ok(svg.includes(`>${text}<`), `"${text}" is drawn as one line`);
      // The box's edge (left side, at mid-height) and ink of the text in its middle band.
      assert.ok(darkNear(X(item.x - item.width / 2), Y(item.y), 1), `node "${text}" has no edge at its left side`);
      let ink = 0;
      for (let x = Math.round(X(item.x - item.width * 0.3)); x <= X(item.x + item.width * 0.3); x++) if (pixel(png, x, Y(item.y)).every((v) => v < 140)) ink++;
      assert.ok(ink >= 3, `node "${text}": ${ink} inked pixels across its middle`);
      // A branch joins the node to its parent node: ink at the branch's middle, the edge of neither.
      const parent = record.parent && items.find((i) => i.id === record.parent.id);
      if (!parent) continue;
      assert.equal(item.parentNode, parent.id);
      const { start, end } = mindmapBranch(parent, item, X, Y);
      assert.ok(darkNear((start.x + end.x) / 2, (start.y + end.y) / 2, 2), `no branch from "${parent.text}" to "${text}"`);
    }
  });

  it('resvg is compiled by the first step only: later steps get the compiled module, draw the same bytes and hand none back', async () => {
    const boards = await platform(sandbox, '/v2/boards?limit=50');
    const board = boards.data.find((b: J) => b.name === 'Payments Architecture');
    const items = toPictureItems(await all(sandbox, `/v2/boards/${board.id}/items`));
    const input: PictureInput = { ...fitPicture(boundsOf(items), 400), items, connectors: [] };
    const signal = new AbortController().signal;
    const compiling = await runOffThread<RenderInput, RenderedPicture>(BOARD_PICTURE, input, signal);
    assert.equal(Object.prototype.toString.call(compiling.resvgModule), '[object WebAssembly.Module]', 'a step given no module compiles one and hands it back');
    const reusing = await runOffThread<RenderInput, RenderedPicture>(BOARD_PICTURE, { ...input, resvgModule: compiling.resvgModule }, signal);
    assert.equal(reusing.resvgModule, undefined, 'a step given the module compiles nothing');
    assert.deepEqual(Buffer.from(reusing.png), Buffer.from(compiling.png));
    // drawPicture keeps the module to itself: its callers see only the picture.
    const drawn = await drawPicture(input, signal);
    assert.equal(drawn.resvgModule, undefined);
    assert.deepEqual(Buffer.from(drawn.png), Buffer.from(compiling.png));
  });

  it('the SVG is deterministic and holds no external reference', async () => {
    const boards = await platform(sandbox, '/v2/boards?limit=50');
    const board = boards.data.find((b: J) => b.name === 'Q3 Launch Plan');
    const items = toPictureItems(await all(sandbox, `/v2/boards/${board.id}/items`));
    const input: PictureInput = { ...fitPicture(boundsOf(items)), items, connectors: [] };
    const svg = boardSvg(input);
    assert.equal(boardSvg(structuredClone(input)), svg);
    assert.doesNotMatch(svg.replace('xmlns="http://www.w3.org/2000/svg"', ''), /href|https?:/);
    assert.match(svg, /\[image\] Hero mockup v3/);
  });
});
