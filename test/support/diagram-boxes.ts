/**
 * Class and ER drawings read back from the sandbox by raw HTTP, for their tests: each box's lines
 * (from its HTML content, the bold name found by its tag), whether its size fits its lines, the
 * boxes on the board, and each connector as its ends' names, caps, stroke and captions.
 */
import assert from 'node:assert/strict';
import type { RunningSandbox } from '../../src/sandbox/server.js';
import { textWidthEm } from '../../src/canvasapi/tasks/board-picture.js';
import { boardItems, platform } from './sandbox-board.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Box { left: number; top: number; right: number; bottom: number }
export const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

const decode = (html: string) => html.replace(/<[^>]*>/g, '').replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** A box's lines as shown: each paragraph's text; `bold` is the one in <strong>. */
export function boxLines(content: string): { lines: string[]; bold: string[] } {
  const paragraphs = content.split('</p>').filter((p) => p.trim());
  return {
    lines: paragraphs.map(decode),
    bold: paragraphs.filter((p) => /<strong>/.test(p)).map(decode),
  };
}

/**
 * Whether a box of this size shows these lines at 14 px: wide enough for the longest (DejaVu Sans's
 * advances, wider than the board's Arial, bold 10% wider, 12 px of room each side) unless it is
 * wrapped, then tall enough for every line at a 1.3 line height, wrapped ones counted as the
 * rows they take, with 8 px above and below.
 */
export function fits(lines: string[], bold: string[], width: number, height: number): string | undefined {
  const inner = width - 24;
  const widths = lines.map((line) => textWidthEm(line) * 14 * (bold.includes(line) ? 1.1 : 1));
  const rows = widths.reduce((sum, w) => sum + Math.max(1, Math.ceil(w / inner)), 0);
  if (Math.max(...widths) > inner && width < 500) return `${width} wide for a line ${Math.round(Math.max(...widths))} px wide, and not wrapping`;
  if (height < rows * 14 * 1.3 + 16) return `${height} high for ${rows} rows`;
  return undefined;
}

/** Each item's box on the board (a frame's children are placed from its top-left corner). */
export function boxesOnBoard(items: J[]): Map<string, Box> {
  const byId = new Map(items.map((item) => [item.id, item]));
  const boxes = new Map<string, Box>();
  for (const item of items) {
    const w = item.geometry?.width ?? 0;
    const h = item.geometry?.height ?? w;
    let { x, y } = item.position;
    if (item.parent?.id) {
      const frame = byId.get(item.parent.id);
      x += frame.position.x - frame.geometry.width / 2;
      y += frame.position.y - frame.geometry.height / 2;
    }
    boxes.set(item.id, { left: x - w / 2, top: y - h / 2, right: x + w / 2, bottom: y + h / 2 });
  }
  return boxes;
}

export async function boardConnectors(sandbox: RunningSandbox, board: string): Promise<J[]> {
  const all: J[] = [];
  let cursor = '';
  do {
    const page = await platform(sandbox, 'GET', `/v2/boards/${board}/connectors?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
    all.push(...page.data);
    cursor = page.cursor ?? '';
  } while (cursor);
  return all;
}

/** A connector as `from -> to`, its caps, stroke and captions (`text@position`), its ends named by node_items. */
export function connectorLine(connector: J, nameOf: Map<string, string>): string {
  const captions = (connector.captions ?? []).map((c: J) => `${decode(c.content)}@${c.position ?? '50%'}`).join(', ');
  const s = connector.style;
  return `${nameOf.get(connector.startItem.id)} -> ${nameOf.get(connector.endItem.id)} [${s.startStrokeCap} ${s.endStrokeCap} ${s.strokeStyle}] ${captions}`;
}

/**
 * The drawing checked as a whole: one shape per node of `node_items` and nothing else new
 * (frames aside), each with the lines expected and a size that fits them, set top left; none
 * overlapping another or an item that was there; `connector_items` the connectors, in order.
 */
export async function checkBoxes(sandbox: RunningSandbox, board: string, data: J, before: J[], expected: Record<string, string[]>): Promise<{ items: J[]; nameOf: Map<string, string>; connectors: string[] }> {
  const items = await boardItems(sandbox, board);
  const byId = new Map(items.map((item) => [item.id, item]));
  const old = new Set(before.map((item) => item.id));
  const created = items.filter((item) => !old.has(item.id) && item.type !== 'frame');
  assert.deepEqual(new Set(created.map((item) => item.id)), new Set(Object.values(data.node_items)), 'one item per class or entity, nothing else');
  assert.deepEqual(Object.keys(data.node_items).sort(), Object.keys(expected).sort());
  for (const [name, lines] of Object.entries(expected)) {
    const item = byId.get(data.node_items[name])!;
    assert.equal(item.type, 'shape');
    assert.equal(item.data.shape, 'rectangle');
    const shown = boxLines(item.data.content);
    assert.deepEqual(shown.lines, lines, `${name}'s lines`);
    assert.equal(shown.bold.length, 1, `${name}: one bold line, its name`);
    assert.equal(shown.bold[0], lines.find((line) => !line.startsWith('«')), `${name}: its name is bold`);
    const problem = fits(shown.lines, shown.bold, item.geometry.width, item.geometry.height);
    assert.equal(problem, undefined, `${name}: ${problem}`);
    const style = (await platform(sandbox, 'GET', `/v2/boards/${board}/shapes/${item.id}`)).style;
    assert.deepEqual([style.textAlign, style.textAlignVertical, style.fontSize], ['left', 'top', '14'], `${name} is set top left at 14`);
  }
  const boxes = boxesOnBoard(items);
  for (let a = 0; a < created.length; a++) {
    for (let b = a + 1; b < created.length; b++) assert.ok(!overlap(boxes.get(created[a].id)!, boxes.get(created[b].id)!), `${created[a].id} and ${created[b].id} do not overlap`);
    for (const was of before) assert.ok(!overlap(boxes.get(created[a].id)!, boxes.get(was.id)!), `${created[a].id} is clear of ${was.id}`);
  }
  // Frames (namespaces, frame_title) hold the boxes and are clear of what was there too.
  for (const frame of items.filter((item) => !old.has(item.id) && item.type === 'frame')) {
    for (const was of before) assert.ok(!overlap(boxes.get(frame.id)!, boxes.get(was.id)!), `frame ${frame.id} is clear of ${was.id}`);
  }
  const nameOf = new Map(Object.entries(data.node_items as Record<string, string>).map(([name, id]) => [id, name]));
  const all = await boardConnectors(sandbox, board);
  const byConnector = new Map(all.map((c) => [c.id, c]));
  assert.equal(all.length, data.connector_items.length);
  const connectors = (data.connector_items as string[]).map((id) => connectorLine(byConnector.get(id), nameOf));
  // Each end on the side of its box that faces the other box (across, when they overlap down), no two ends of one box at one point.
  const points = new Set<string>();
  for (const connector of all) {
    for (const [end, other] of [[connector.startItem, connector.endItem], [connector.endItem, connector.startItem]]) {
      const self = boxes.get(end.id)!;
      const them = boxes.get(other.id)!;
      const [px, py] = [end.position.x, end.position.y].map((v: string) => Number(v.slice(0, -1)));
      const side = py === 100 ? 'bottom' : py === 0 ? 'top' : px === 0 ? 'left' : px === 100 ? 'right' : 'inside';
      // The sides the other box lies wholly beyond (two when it is off a corner).
      const facing = [them.top >= self.bottom && 'bottom', them.bottom <= self.top && 'top', them.left >= self.right && 'right', them.right <= self.left && 'left'].filter(Boolean);
      assert.ok(facing.includes(side), `${nameOf.get(end.id)}'s end toward ${nameOf.get(other.id)} is on its ${side}, not ${facing.join(' or ')}`);
      const key = `${end.id} ${px} ${py}`;
      assert.ok(!points.has(key), `two connectors meet ${nameOf.get(end.id)} at ${px}%,${py}%`);
      points.add(key);
    }
  }
  return { items, nameOf, connectors };
}
