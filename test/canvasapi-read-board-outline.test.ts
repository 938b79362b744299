/**
 * ReadBoard's outline (`format: "outline"`): the pure steps checked against plain references
 * (reading order, clustering and overlaps by brute force, flows by edge coverage and a cycle
 * check of their own), with property tests; the work bound on 2,000 items (counted, not timed);
 * then the tool against the sandbox on a board built here by raw HTTP (frames placed out of
 * order, note clusters, a flow with a branch, a merge and a cycle, overlaps, items outside the
 * frames), its answer compared with what the test computes from the items read back; the default
 * answer unchanged; bad input refused with nothing sent; every request valid for the official
 * spec; a 2,000-item board within the budget; and the cost against the contract's tools.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { clusterNotes, CLUSTER_GAP, findOverlaps, NEAR_GAP, OUTLINE_WORK, readingRows, traceFlows, Work, type Box } from '../src/canvasapi/tasks/board-outline.js';
import { fitSections, outlineOf, type OutlineItem } from '../src/canvasapi/tasks/board-outline-lines.js';
import { readBoardBudget } from '../src/canvasapi/task-vocabulary.js';
import { countTokens } from '../src/core/tools/context-size.js';
import { RESULT_BUDGET_BYTES } from '../src/core/tools/result-budget.js';
import { executeTool, findTool, type AnyToolServer } from '../src/core/tools/registry.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import { callTool, canvasApiServerFor, outcomeOf, startTestSandbox } from './support/harness.js';
import { boardItems, platform, workshopBoard } from './support/sandbox-board.js';
import { loadMiroValidators, MIRO_SPEC, specProblems } from './support/miro-spec.js';
import { loadReferenceJson, skipUnlessReference } from './support/reference.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// ----- plain references, written apart from the code they check

const boxAt = (x: number, y: number, w: number, h: number): Box => ({ left: x - w / 2, top: y - h / 2, right: x + w / 2, bottom: y + h / 2 });
const side = (b: Box) => Math.min(b.right - b.left, b.bottom - b.top);
/** Chebyshev gap between boxes. */
const gapOf = (a: Box, b: Box) => Math.max(0, a.left - b.right, b.left - a.right, a.top - b.bottom, b.top - a.bottom);
const closeEnough = (a: Box, b: Box, share: number) => gapOf(a, b) <= share * Math.min(side(a), side(b));
const intersects = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** The documented row rule, done the slow way: take the highest box left, its row is every box left whose top is above its middle (or level). */
function referenceRows(boxes: readonly Box[]): number[][] {
  const left = new Set(boxes.map((_, i) => i));
  const rows: number[][] = [];
  while (left.size) {
    const first = [...left].sort((a, b) => boxes[a]!.top - boxes[b]!.top || boxes[a]!.left - boxes[b]!.left || a - b)[0]!;
    const f = boxes[first]!;
    const row = [...left].filter((i) => boxes[i]!.top < f.top + (f.bottom - f.top) / 2 || boxes[i]!.top === f.top);
    row.sort((a, b) => boxes[a]!.left - boxes[b]!.left || boxes[a]!.top - boxes[b]!.top || a - b);
    for (const i of row) left.delete(i);
    rows.push(row);
  }
  return rows;
}

/** Clusters by flood fill over every pair: sets of indices. */
function referenceClusters(boxes: readonly Box[]): Set<string> {
  const seen = new Set<number>();
  const clusters = new Set<string>();
  for (let i = 0; i < boxes.length; i++) {
    if (seen.has(i)) continue;
    const members = [i];
    seen.add(i);
    for (let k = 0; k < members.length; k++) {
      for (let j = 0; j < boxes.length; j++) if (!seen.has(j) && closeEnough(boxes[members[k]!]!, boxes[j]!, CLUSTER_GAP)) (seen.add(j), members.push(j));
    }
    clusters.add(members.sort((a, b) => a - b).join(','));
  }
  return clusters;
}

const arbBox = (spread: number) =>
  fc.record({ x: fc.integer({ min: -spread, max: spread }), y: fc.integer({ min: -spread, max: spread }), w: fc.integer({ min: 20, max: 400 }), h: fc.integer({ min: 20, max: 400 }) }).map(({ x, y, w, h }) => boxAt(x, y, w, h));

describe('the outline, step by step (pure)', () => {
  it('reading order: rows with a tolerance of half the first box, left to right', () => {
    // Roughly level frames (tops 0 and 80 of 1,500 high) are one row; the next row starts lower.
    const boxes = [boxAt(3000, 0, 2000, 1500), boxAt(0, 80, 2000, 1500), boxAt(1800, 2500, 2000, 1500), boxAt(0, 2600, 2000, 1500)];
    assert.deepEqual(readingRows(boxes), [[1, 0], [3, 2]]);
    // A small box below the middle of a tall one starts a row of its own.
    assert.deepEqual(readingRows([boxAt(0, 0, 100, 100), boxAt(200, 10, 100, 100), boxAt(100, 60, 100, 100)]), [[0, 1], [2]]);
    fc.assert(
      fc.property(fc.array(arbBox(3000), { maxLength: 40 }), (boxes) => {
        assert.deepEqual(readingRows(boxes), referenceRows(boxes));
        assert.deepEqual(readingRows(boxes).flat().sort((a, b) => a - b), boxes.map((_, i) => i), 'every box once');
      }),
      { numRuns: 200 },
    );
  });

  it('clusters: the same as joining every pair of neighbours, and the near-misses are pairs across clusters within the near reach', () => {
    fc.assert(
      fc.property(fc.array(arbBox(1500), { maxLength: 60 }), (boxes) => {
        const work = Work.forItems(boxes.length);
        const found = clusterNotes(boxes, work);
        assert.equal(found.cut, false);
        assert.deepEqual(new Set(found.clusters.map((c) => [...c].sort((a, b) => a - b).join(','))), referenceClusters(boxes));
        const clusterOf = new Map(found.clusters.flatMap((c, k) => c.map((i) => [i, k] as [number, number])));
        for (const [a, b] of found.near) {
          assert.notEqual(clusterOf.get(a), clusterOf.get(b));
          assert.ok(closeEnough(boxes[a]!, boxes[b]!, NEAR_GAP) && !closeEnough(boxes[a]!, boxes[b]!, CLUSTER_GAP));
        }
        // Every near pair across clusters is found.
        for (let a = 0; a < boxes.length; a++) {
          for (let b = a + 1; b < boxes.length; b++) {
            if (clusterOf.get(a) !== clusterOf.get(b) && closeEnough(boxes[a]!, boxes[b]!, NEAR_GAP)) assert.ok(found.near.some(([x, y]) => x === a && y === b), `near pair ${a},${b}`);
          }
        }
        // Each cluster is in reading order.
        for (const cluster of found.clusters) assert.deepEqual(cluster, referenceRows(cluster.map((i) => boxes[i]!)).flat().map((k) => cluster[k]));
      }),
      { numRuns: 150 },
    );
  });

  it('overlaps: every intersecting pair but the exempt ones, as brute force finds them', () => {
    fc.assert(
      fc.property(fc.array(arbBox(1200), { maxLength: 60 }), fc.integer({ min: 0, max: 7 }), (boxes, mod) => {
        const exempt = (a: number, b: number) => mod > 0 && (a + b) % (mod + 1) === 0;
        const found = findOverlaps(boxes, exempt, Number.MAX_SAFE_INTEGER, Work.forItems(boxes.length));
        const expected: string[] = [];
        for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) if (intersects(boxes[a]!, boxes[b]!) && !exempt(a, b)) expected.push(`${a},${b}`);
        if (found.cut) return;
        assert.deepEqual(found.pairs.map((p) => p.join(',')), expected);
        assert.equal(found.count, expected.length);
      }),
      { numRuns: 150 },
    );
  });

  it('flows: every connector walked once, chains from the sources first, a cycle found exactly when the graph has one', () => {
    const graph = fc.array(fc.tuple(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 0, max: 11 })), { maxLength: 30 });
    fc.assert(
      fc.property(graph, (edges) => {
        const connectors = edges.map(([a, b]) => ({ from: `n${a}`, to: `n${b}` }));
        const flows = traceFlows(connectors, (id) => Number(id.slice(1)), Work.forItems(connectors.length));
        const walked = flows.chains.flatMap((c) => c.steps.map((s) => s.connector)).sort((a, b) => a - b);
        assert.deepEqual(walked, connectors.map((_, i) => i), 'each connector once');
        for (const chain of flows.chains) {
          let at = chain.start;
          for (const step of chain.steps) {
            assert.equal(connectors[step.connector]!.from, at, 'a chain follows its connectors');
            at = step.to;
          }
        }
        // Sources (no incoming, some outgoing) start the first chains, in rank order.
        const targets = new Set(connectors.map((c) => c.to));
        const sources = [...new Set(connectors.map((c) => c.from))].filter((id) => !targets.has(id)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
        const firstChains = flows.chains.filter((c) => !targets.has(c.start)).map((c) => c.start);
        assert.deepEqual([...new Set(firstChains)], sources);
        // Kahn's algorithm: a cycle exists when not every node can be removed.
        const nodes = new Set(connectors.flatMap((c) => [c.from, c.to]));
        const indegree = new Map([...nodes].map((n) => [n, connectors.filter((c) => c.to === n).length]));
        const queue = [...nodes].filter((n) => indegree.get(n) === 0);
        let removed = 0;
        while (queue.length) {
          const n = queue.pop()!;
          removed++;
          for (const c of connectors) {
            if (c.from !== n) continue;
            indegree.set(c.to, indegree.get(c.to)! - 1);
            if (indegree.get(c.to) === 0) queue.push(c.to);
          }
        }
        assert.equal(flows.cycles.length > 0, removed < nodes.size, 'a cycle is reported when there is one');
        for (const cycle of flows.cycles) {
          // Each cycle is a path of connectors closing on its first item.
          const ring = [...cycle, cycle[0]!];
          for (let k = 0; k + 1 < ring.length; k++) assert.ok(connectors.some((c) => c.from === ring[k] && c.to === ring[k + 1]), `cycle ${ring.join('>')}`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('sections share the room: those needing less than an equal share get all of it, the whole within the budget', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.array(fc.string({ maxLength: 80 }), { maxLength: 60 })), fc.integer({ min: 0, max: 6000 }), (sections, budget) => {
        const { lines } = fitSections(sections, budget);
        const bytes = (list: readonly string[]) => list.reduce((sum, line) => sum + Buffer.byteLength(line) + 4, 0);
        assert.ok(Object.values(lines).reduce((sum, list) => sum + bytes(list), 0) <= budget);
        const names = Object.keys(sections);
        for (const name of names) {
          assert.deepEqual(lines[name], sections[name]!.slice(0, lines[name]!.length), 'the first lines kept');
          if (bytes(sections[name]!) <= Math.floor(budget / names.length)) assert.equal(lines[name]!.length, sections[name]!.length, `${name} fits its share`);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('2,000 items stay within the work bound, stacked on one spot or spread out (work counted, not timed)', () => {
    const item = (i: number, box: Box, type = 'sticky_note'): OutlineItem => ({ id: String(1000 + i), type, text: `n${i % 50}`, box });
    const spread = Array.from({ length: 2000 }, (_, i) => item(i, boxAt((i % 50) * 220, Math.floor(i / 50) * 600, 200, 228)));
    const stacked = Array.from({ length: 2000 }, (_, i) => item(i, boxAt(i % 3, i % 5, 200, 228), i % 4 === 0 ? 'shape' : 'sticky_note'));
    const chain = Array.from({ length: 1000 }, (_, i) => ({ id: `c${i}`, from: String(1000 + i), to: String(1000 + ((i * 7 + 1) % 2000)), caption: '' }));
    for (const [name, items] of [['spread', spread], ['stacked', stacked]] as const) {
      const outline = outlineOf({ items, connectors: chain, tags: new Map(), colours: new Map(), budgetBytes: 48_000 });
      const bound = (n: number) => OUTLINE_WORK.base + OUTLINE_WORK.perItem * n;
      assert.ok(outline.work.clusters <= bound(2000) + 1 && outline.work.overlaps <= bound(2000) + 1 && outline.work.flows <= bound(1000) + 1, `${name}: ${JSON.stringify(outline.work)}`);
      const bytes = Buffer.byteLength(JSON.stringify(outline.outline));
      assert.ok(bytes <= 48_000 + 2_000, `${name}: ${bytes} bytes`);
      if (name === 'stacked') {
        assert.ok(outline.notes.some((n) => n.startsWith('outline.overlaps:')), 'the cut is said');
        assert.ok(outline.notes.some((n) => n.startsWith('outline.clusters:')), 'the cut is said');
      } else {
        // Spread out, the grid compares few pairs: well under the bound, nothing cut, no overlaps.
        assert.ok(outline.work.clusters < bound(2000) / 2, `${outline.work.clusters}`);
        assert.ok(!outline.notes.some((n) => n.includes('densely') || n.startsWith('outline.overlaps:')), outline.notes.join('; '));
        assert.equal((outline.outline.overlap_count as number), 0);
      }
    }
  });
});

// ----- against the sandbox

/** Each item's box on the board: a frame's children are placed from its top-left corner. */
function absoluteBoxes(items: J[]): Map<string, Box> {
  const byId = new Map(items.map((item) => [item.id, item]));
  const boxes = new Map<string, Box>();
  for (const item of items) {
    let { x, y } = item.position;
    if (item.parent?.id) {
      const frame = byId.get(item.parent.id);
      x += frame.position.x - frame.geometry.width / 2;
      y += frame.position.y - frame.geometry.height / 2;
    }
    boxes.set(item.id, boxAt(x, y, item.geometry?.width ?? 0, item.geometry?.height ?? 0));
  }
  return boxes;
}

const textOf = (item: J) => String(item.data?.title ?? item.data?.content ?? '').replace(/<[^>]+>/g, '');
/** IDs (the platform's are 19 digits) named in a line, in order. */
const idsIn = (line: string) => [...line.matchAll(/(?<![\d"])(\d{15,})(?![\d"])/g)].map((m) => m[1]!);

describe('ReadBoard format "outline" against the sandbox', () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  let board = '';
  let items: J[] = [];
  let connectors: J[] = [];
  const ids: Record<string, string> = {};
  const http = (method: string, p: string, body?: unknown) => platform(sandbox, method, p, body);

  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
    board = (await http('POST', '/v2/boards', { name: 'Outline test', description: 'frames, clusters, a flow' })).id;
    // Frames created in an order unlike their reading order: Flow and Ideas are roughly level (Ideas left), Parking and Later below (Parking left), and those two overlap.
    for (const [title, x, y] of [['Flow', 3000, 0], ['Ideas', 0, 80], ['Later', 1800, 2500], ['Parking', 0, 2600]] as const) {
      ids[title] = (await http('POST', `/v2/boards/${board}/frames`, { data: { title, format: 'custom', type: 'freeform' }, position: { x, y }, geometry: { width: 2000, height: 1500 } })).id;
    }
    const note = async (name: string, x: number, y: number, colour: string, parent?: string) => {
      ids[name] = (await http('POST', `/v2/boards/${board}/sticky_notes`, { data: { content: `<p>${name}</p>` }, style: { fillColor: colour }, position: { x, y }, geometry: { width: 200 }, ...(parent ? { parent: { id: parent } } : {}) })).id;
    };
    // In Ideas: a row of three (gaps of 20), a pair one above the other (of two colours), and a note 150 right of the row: near it, not in it.
    await note('Idea 1', 300, 300, 'yellow', ids.Ideas);
    await note('Idea 2', 520, 300, 'yellow', ids.Ideas);
    await note('Idea 3', 740, 300, 'yellow', ids.Ideas);
    await note('Maybe', 1090, 300, 'yellow', ids.Ideas);
    await note('Later 1', 1300, 1000, 'yellow', ids.Ideas);
    await note('Later 2', 1300, 1250, 'light_blue', ids.Ideas);
    // On the board, across the left edge of Later (not its child).
    await note('Straddling', 800, 2000, 'pink');
    const vote = await http('POST', `/v2/boards/${board}/tags`, { title: 'Vote' });
    for (const name of ['Idea 1', 'Idea 2', 'Idea 3']) await http('POST', `/v2/boards/${board}/items/${ids[name]}?tag_id=${vote.id}`);
    const shape = async (name: string, x: number, y: number, parent?: string, size = [200, 100]) => {
      ids[name] = (await http('POST', `/v2/boards/${board}/shapes`, { data: { content: `<p>${name}</p>`, shape: 'rectangle' }, position: { x, y }, geometry: { width: size[0], height: size[1] }, ...(parent ? { parent: { id: parent } } : {}) })).id;
    };
    for (const [name, x, y] of [['Start', 200, 200], ['Check', 500, 200], ['Ship', 800, 200], ['Fix', 500, 500], ['Done', 1100, 200], ['Orphan', 1500, 1200]] as const) await shape(name, x, y, ids.Flow);
    await shape('Box one', 6000, 0, undefined, [300, 200]);
    await shape('Box two', 6100, 50, undefined, [300, 200]);
    const text = async (name: string, content: string, x: number, y: number, parent?: string) => {
      ids[name] = (await http('POST', `/v2/boards/${board}/texts`, { data: { content }, position: { x, y }, ...(parent ? { parent: { id: parent } } : {}) })).id;
    };
    await text('Label in Ideas', 'Same label', 1000, 1400, ids.Ideas);
    await text('Label outside', 'Same label', 6000, 1000);
    await text('Long', `A long note: ${'word '.repeat(40)}`, 500, 1300, ids.Parking);
    const connect = (from: string, to: string, caption?: string) => http('POST', `/v2/boards/${board}/connectors`, { startItem: { id: ids[from] }, endItem: { id: ids[to] }, ...(caption ? { captions: [{ content: caption }] } : {}) });
    await connect('Start', 'Check');
    await connect('Check', 'Ship', 'yes');
    await connect('Check', 'Fix', 'no');
    await connect('Fix', 'Check');
    await connect('Ship', 'Done');
    await connect('Fix', 'Done');
    items = await boardItems(sandbox, board);
    connectors = (await http('GET', `/v2/boards/${board}/connectors?limit=50`)).data;
  });
  after(async () => {
    await sandbox?.close();
  });

  it('answers the frames in reading order, the clusters, the flows, the overlaps, the items outside frames and what is ambiguous, as computed from the items read back', async () => {
    const outcome = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, format: 'outline' });
    assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
    const answer = outcome.data as J;
    const outline = answer.outline;
    if (process.env.SHOW_OUTLINE) console.error(JSON.stringify(answer, null, 1));
    const boxes = absoluteBoxes(items);
    const byId = new Map(items.map((item) => [item.id, item]));
    assert.equal(answer.partial, undefined, JSON.stringify(answer.partial));
    assert.deepEqual(answer.counts, { ...Object.fromEntries([...new Set(items.map((i) => i.type))].map((t) => [t, items.filter((i) => i.type === t).length])), connector: connectors.length });

    // Frames: the row rule applied to the frames read back.
    const frames = items.filter((item) => item.type === 'frame');
    const frameOrder = referenceRows(frames.map((f) => boxes.get(f.id)!)).flat().map((i) => frames[i].id);
    assert.deepEqual(outline.frames.map((line: string) => idsIn(line)[0]), frameOrder);
    assert.deepEqual(frameOrder, [ids.Ideas, ids.Flow, ids.Parking, ids.Later], 'the layout built is read as meant');
    for (const line of outline.frames as string[]) {
      const frame = byId.get(idsIn(line)[0]!);
      const children = items.filter((item) => item.parent?.id === frame.id);
      assert.ok(line.startsWith(`${frame.id} ${JSON.stringify(textOf(frame))} `), line);
      for (const type of new Set(children.map((c) => c.type))) assert.ok(line.includes(`${children.filter((c) => c.type === type).length} ${type}`), `${line}: ${type}`);
      // Its texts: children neither notes nor connected, those with text, in reading order.
      const connected = new Set(connectors.flatMap((c) => [c.startItem.id, c.endItem.id]));
      const shown = children.filter((c) => c.type !== 'sticky_note' && !connected.has(c.id) && textOf(c));
      const expected = referenceRows(shown.map((c) => boxes.get(c.id)!)).flat().map((i) => shown[i].id);
      assert.deepEqual(idsIn(line).slice(1), expected, line);
    }

    // Clusters: per container, the neighbours joined by brute force.
    const notes = items.filter((item) => item.type === 'sticky_note');
    const expectedClusters = new Set<string>();
    for (const container of new Set(notes.map((n) => n.parent?.id ?? ''))) {
      const here = notes.filter((n) => (n.parent?.id ?? '') === container);
      for (const set of referenceClusters(here.map((n) => boxes.get(n.id)!))) expectedClusters.add(`${container}|${set.split(',').map((i) => here[Number(i)].id).sort().join(',')}`);
    }
    const clusterOf = (line: string) => {
      const ids = idsIn(line);
      return line.startsWith('in ') ? `${ids[0]}|${ids.slice(1).sort().join(',')}` : `|${ids.sort().join(',')}`;
    };
    assert.deepEqual(new Set(outline.clusters.map(clusterOf)), expectedClusters);
    const row = outline.clusters.find((line: string) => line.includes(ids['Idea 1']!));
    assert.match(row, / 3 notes .* colour yellow #"Vote": /, 'the row shares its colour and its tag');
    assert.deepEqual(idsIn(row).slice(1), [ids['Idea 1'], ids['Idea 2'], ids['Idea 3']], 'in reading order');
    const around = (names: string[]) => {
      const b = names.map((n) => boxes.get(ids[n]!)!);
      return `${Math.round(Math.min(...b.map((x) => x.left)))},${Math.round(Math.min(...b.map((x) => x.top)))} to ${Math.round(Math.max(...b.map((x) => x.right)))},${Math.round(Math.max(...b.map((x) => x.bottom)))}`;
    };
    assert.ok(row.includes(around(['Idea 1', 'Idea 2', 'Idea 3'])), `${row}: its box`);
    assert.match(outline.clusters.find((line: string) => line.includes(ids['Later 1']!)), / 2 notes .* colours yellow, light_blue: /);

    // Flows: each connector once, with its caption; the chains start at the source; the cycle and the join marked.
    const arrows = (outline.flows as string[]).flatMap((line) => [...line.matchAll(/(\d{15,})(?: "[^"]*")?(?: -> | -\["([^"]*)"\]-> )(?=(\d{15,}))/g)].map((m) => `${m[1]}>${m[3]}${m[2] ? `:${m[2]}` : ''}`));
    const expectedArrows = connectors.map((c) => `${c.startItem.id}>${c.endItem.id}${c.captions?.[0]?.content ? `:${c.captions[0].content}` : ''}`);
    assert.deepEqual(arrows.sort(), expectedArrows.sort());
    const targets = new Set(connectors.map((c) => c.endItem.id));
    const sources = [...new Set(connectors.map((c) => c.startItem.id))].filter((id) => !targets.has(id));
    assert.deepEqual(sources, [ids.Start]);
    assert.equal(idsIn(outline.flows[0])[0], ids.Start, 'the first chain starts at the source');
    assert.ok(outline.flows.some((line: string) => line.endsWith(`${ids.Check} "Check" (cycle)`)), 'the loop back to Check');
    assert.ok(outline.flows.some((line: string) => line.endsWith(`${ids.Done} "Done" (joins)`)), 'the second way into Done');
    assert.ok(outline.flows.some((line: string) => idsIn(line)[0] === ids.Check), 'a branch line from Check');

    // Overlaps: every intersecting pair but a frame with its own child and frames with each other.
    const expectedOverlaps: string[] = [];
    for (let a = 0; a < items.length; a++) {
      for (let b = a + 1; b < items.length; b++) {
        const [x, y] = [items[a], items[b]];
        if (!intersects(boxes.get(x.id)!, boxes.get(y.id)!) || x.parent?.id === y.id || y.parent?.id === x.id || (x.type === 'frame' && y.type === 'frame')) continue;
        expectedOverlaps.push([x.id, y.id].sort().join('&'));
      }
    }
    assert.deepEqual(outline.overlaps.map((line: string) => idsIn(line).sort().join('&')).sort(), expectedOverlaps.sort());
    assert.equal(outline.overlap_count, expectedOverlaps.length);
    assert.ok(expectedOverlaps.includes([ids['Box one'], ids['Box two']].sort().join('&')) && expectedOverlaps.includes([ids.Straddling, ids.Later].sort().join('&')));

    // Outside every frame: the items without a parent, in reading order.
    const loose = items.filter((item) => item.type !== 'frame' && !item.parent);
    assert.deepEqual(outline.outside_frames.map((line: string) => idsIn(line)[0]), referenceRows(loose.map((i) => boxes.get(i.id)!)).flat().map((i) => loose[i].id));
    assert.equal(outline.outside_frames_count, loose.length);

    // Ambiguous: exactly the kinds that apply here.
    const sentences = outline.ambiguous as string[];
    const about = (start: string, ...names: string[]) => sentences.filter((s) => s.startsWith(start) && names.every((n) => idsIn(s).includes(ids[n]!)));
    assert.equal(about('frames ', 'Parking', 'Later').length, 1, 'the overlapping frames');
    assert.equal(about('notes ', 'Maybe', 'Idea 3').length, 1, 'the note near the row');
    assert.equal(about('frame ', 'Flow', 'Orphan').length, 1, 'the shape outside the flow');
    assert.equal(about('a cycle: ', 'Check', 'Fix').length, 1, 'the cycle, once');
    assert.equal(about('2 items have the same text "Same label"', 'Label in Ideas', 'Label outside').length, 1);
    assert.equal(about('1 text is longer than 100 characters', 'Long').length, 1);
    assert.equal(sentences.length, 6, sentences.join('\n'));
  });

  it('the default answer is unchanged: format "items" is the same call', async () => {
    const plain = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board });
    const items = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, format: 'items' });
    assert.deepEqual(items.data, plain.data);
    assert.equal((plain.data as J).outline, undefined);
    assert.ok(Array.isArray((plain.data as J).items));
  });

  it('a frame alone: its own items, its flow, nothing of the rest', async () => {
    const outcome = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, frame_id: ids.Flow, format: 'outline' });
    assert.equal(outcome.isError, false, JSON.stringify(outcome.data));
    const outline = (outcome.data as J).outline;
    assert.deepEqual(outline.frames.map((line: string) => idsIn(line)[0]), [ids.Flow]);
    assert.equal(outline.clusters.length, 0);
    assert.equal(outline.flows.flatMap(idsIn).filter((id: string) => id !== undefined).every((id: string) => items.find((i) => i.id === id)?.parent?.id === ids.Flow), true);
    assert.equal(outline.outside_frames_count, 0);
  });

  it('parameters of the listing are refused with format "outline", naming each, nothing sent', async () => {
    const before = sandbox.requests.length;
    const outcome = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, format: 'outline', query: 'x', cursor: 'abc' });
    assert.equal(outcome.isError, true);
    const error = outcome.data as J;
    assert.equal(error.kind, 'invalid_input');
    assert.deepEqual(error.issues.map((i: J) => i.parameter).sort(), ['cursor', 'query']);
    assert.match(error.issues[0].problem, /format "outline"/);
    const wrong = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, format: 'tree' });
    assert.equal(wrong.isError, true);
    assert.match(JSON.stringify(wrong.data), /format/);
    assert.equal(sandbox.requests.length, before, 'nothing was sent');
  });

  it('"What is on this board, in what order, and what is unclear?": the contract plan against one outline call', async () => {
    const call = async (cost: { calls: number; tokens: number }, name: string, args: Record<string, unknown>): Promise<J> => {
      const raw = await executeTool(server, findTool(server, name)!, args, new AbortController().signal);
      const { data, isError } = outcomeOf(raw);
      assert.equal(isError, false, `${name}: ${JSON.stringify(data)}`);
      cost.calls++;
      cost.tokens += await countTokens((raw.content[0] as { text: string }).text);
      return data;
    };
    const contract = { calls: 0, tokens: 0 };
    const task = { calls: 0, tokens: 0 };
    // The contract's best plan: every item page (frames among them), the connectors, the tags and each tag's items; the order, clusters, flows and overlaps are then the agent's to work out (and colours one call per note more).
    let cursor: string | undefined;
    do {
      const page = await call(contract, 'CanvasApi.RetrieveBoardItems', { board_identifier: board, items_limit: '50', ...(cursor ? { pagination_cursor: cursor } : {}) });
      cursor = page.next_page?.pagination_cursor;
    } while (cursor);
    await call(contract, 'CanvasApi.GetBoardConnectors', { board_identifier: board, result_limit: '50' });
    const tags = await call(contract, 'CanvasApi.GetBoardTags', { board_id: board, maximum_number_of_tags: '50' });
    for (const tag of tags.data) await call(contract, 'CanvasApi.RetrieveItemsByTag', { board_id: board, tag_identifier: tag.id, max_items_to_retrieve: '50' });
    await call(task, 'CanvasApi.ReadBoard', { board_id: board, format: 'outline' });
    if (process.env.MEASURE === '1') console.log(`outline: contract ${contract.calls} calls ${contract.tokens} tokens; ReadBoard outline ${task.calls} call ${task.tokens} tokens`);
    assert.equal(task.calls, 1);
    assert.ok(task.tokens < contract.tokens * 0.75, `${task.tokens} vs ${contract.tokens} tokens`);
    const n = (value: number) => value.toLocaleString('en-US');
    const page = readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8');
    const row = page.split('\n').find((line) => line.startsWith('| What is on this board, in what order, and what is unclear? |')) ?? '';
    assert.match(row, new RegExp(`\\| ${contract.calls} \\| ${n(contract.tokens)} \\| [^|]+\\| 1 \\| ${n(task.tokens)} \\|$`), `docs/tasks.md: ${row}`);
  });

  it('every request sent (by the tool and the set-up) matches the official OpenAPI document', { skip: skipUnlessReference(MIRO_SPEC) }, () => {
    const validators = loadMiroValidators(loadReferenceJson(MIRO_SPEC));
    const requests = sandbox.requests.filter((r) => r.platform === 'canvasapi');
    assert.deepEqual(specProblems(validators, requests), []);
    for (const sent of ['/items', '/connectors', '/tags']) assert.ok(requests.some((r) => r.method === 'GET' && r.path.endsWith(sent)), `a request to ${sent} was checked`);
    assert.ok(requests.some((r) => r.method === 'GET' && /\/sticky_notes\/\d+$/.test(r.path)), 'a colour read was checked');
  });
});

describe('ReadBoard format "outline" on a 2,000-item board', () => {
  let sandbox: RunningSandbox;
  after(async () => {
    await sandbox?.close();
  });

  it('reads up to its bounds, answers within the result budget and says what it cut', async () => {
    sandbox = await startTestSandbox();
    const server = canvasApiServerFor(sandbox.canvasapi);
    const http = (method: string, p: string, body?: unknown) => platform(sandbox, method, p, body);
    const board = (await http('POST', '/v2/boards', { name: 'Big' })).id;
    // 2,010 items: 1,000 notes spread in rows, 1,000 stacked on one spot (every pair overlaps), 10 shapes in a chain.
    const notes = Array.from({ length: 2000 }, (_, i) => ({ type: 'sticky_note', data: { content: `<p>n${i}</p>` }, position: i < 1000 ? { x: (i % 50) * 220, y: Math.floor(i / 50) * 600 } : { x: 20000 + (i % 3), y: i % 5 } }));
    const shapes = Array.from({ length: 10 }, (_, i) => ({ type: 'shape', data: { content: `<p>s${i}</p>`, shape: 'rectangle' }, position: { x: -5000, y: i * 300 }, geometry: { width: 200, height: 100 } }));
    const created: J[] = [];
    const all = [...notes, ...shapes];
    for (let i = 0; i < all.length; i += 20) created.push(...(await http('POST', `/v2/boards/${board}/items/bulk`, all.slice(i, i + 20))).data);
    const shapeIds = created.filter((c) => c.type === 'shape').map((c) => c.id);
    for (let i = 0; i + 1 < shapeIds.length; i++) await http('POST', `/v2/boards/${board}/connectors`, { startItem: { id: shapeIds[i] }, endItem: { id: shapeIds[i + 1] } });

    const before = sandbox.requests.length;
    const raw = await executeTool(server, findTool(server, 'CanvasApi.ReadBoard')!, { board_id: board, format: 'outline' }, new AbortController().signal);
    const { data, isError } = outcomeOf(raw);
    assert.equal(isError, false, JSON.stringify(data));
    const answer = data as J;
    const sent = sandbox.requests.length - before;
    assert.ok(sent <= readBoardBudget({ format: 'outline' }).requests, `${sent} requests`);
    assert.ok(Buffer.byteLength((raw.content[0] as { text: string }).text) <= RESULT_BUDGET_BYTES);
    assert.equal(answer.total_items, 2010);
    assert.equal(Object.values(answer.counts_read as Record<string, number>).reduce((a, b) => a + b, 0) - (answer.counts_read.connector ?? 0), 2000, 'the first 2,000 items read');
    const partial = (answer.partial as string[]).join('\n');
    assert.match(partial, /items: /, 'the items not read are said');
    assert.match(partial, /outline\.overlaps: /, 'the overlaps cut short are said');
    assert.match(partial, /colours: read for 40 of the /);
    assert.ok(answer.outline.overlap_count > 0);

    // Its steps ran in a worker thread: with a worker's time limit of 1 ms they are refused, naming max_items; the small board's are not.
    process.env.TOOLSERVERS_OFF_THREAD_TIMEOUT_MS = '1';
    try {
      const limited = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, format: 'outline' });
      assert.equal(limited.isError, true);
      assert.equal((limited.data as J).kind, 'invalid_input');
      assert.deepEqual((limited.data as J).issues.map((i: J) => i.parameter), ['max_items']);
      const small = await callTool(server, 'CanvasApi.ReadBoard', { board_id: board, format: 'outline', max_items: 100 });
      assert.equal(small.isError, false, JSON.stringify(small.data));
    } finally {
      delete process.env.TOOLSERVERS_OFF_THREAD_TIMEOUT_MS;
    }
  });
});

describe('ReadBoard format "outline" on the workshop board of test/canvasapi-tasks-cost.test.ts', () => {
  let sandbox: RunningSandbox;
  after(async () => {
    await sandbox?.close();
  });

  it('"What is on this board, in what order, and what is unclear?" on 64 items: the contract plan against one outline call', async () => {
    sandbox = await startTestSandbox();
    const server = canvasApiServerFor(sandbox.canvasapi);
    // The same board as there: 2 frames, 50 sticky notes, 8 shapes, 4 texts; 3 tags on 12 notes; 8 connectors.
    const board = await workshopBoard(sandbox);

    const call = async (cost: { calls: number; tokens: number }, name: string, args: Record<string, unknown>): Promise<J> => {
      const raw = await executeTool(server, findTool(server, name)!, args, new AbortController().signal);
      const { data, isError } = outcomeOf(raw);
      assert.equal(isError, false, `${name}: ${JSON.stringify(data)}`);
      cost.calls++;
      cost.tokens += await countTokens((raw.content[0] as { text: string }).text);
      return data;
    };
    const contract = { calls: 0, tokens: 0 };
    const task = { calls: 0, tokens: 0 };
    let cursor: string | undefined;
    do {
      const page = await call(contract, 'CanvasApi.RetrieveBoardItems', { board_identifier: board, items_limit: '50', ...(cursor ? { pagination_cursor: cursor } : {}) });
      cursor = page.next_page?.pagination_cursor;
    } while (cursor);
    await call(contract, 'CanvasApi.GetBoardConnectors', { board_identifier: board, result_limit: '50' });
    const tags = await call(contract, 'CanvasApi.GetBoardTags', { board_id: board, maximum_number_of_tags: '50' });
    for (const tag of tags.data) await call(contract, 'CanvasApi.RetrieveItemsByTag', { board_id: board, tag_identifier: tag.id, max_items_to_retrieve: '50' });
    const outline = (await call(task, 'CanvasApi.ReadBoard', { board_id: board, format: 'outline' })).outline;
    // What it says: the two frames left to right, a cluster in each, the note connector and the chain of 8 steps.
    const frames = (await boardItems(sandbox, board)).filter((item) => item.type === 'frame').sort((a, b) => a.position.x - b.position.x);
    assert.deepEqual(outline.frames.map((line: string) => idsIn(line)[0]), frames.map((f) => f.id));
    assert.equal(outline.clusters.length, 2);
    assert.deepEqual(outline.flows.map((line: string) => idsIn(line).length), [2, 8]);
    if (process.env.MEASURE === '1') console.log(`workshop outline: contract ${contract.calls} calls ${contract.tokens} tokens; ReadBoard outline ${task.calls} call ${task.tokens} tokens`);
    assert.ok(task.tokens < contract.tokens / 2, `${task.tokens} vs ${contract.tokens} tokens`);
    const n = (value: number) => value.toLocaleString('en-US');
    const page = readFileSync(path.join(ROOT, 'docs', 'tasks.md'), 'utf8');
    const row = page.split('\n').find((line) => line.startsWith('| The same, on the 64-item workshop board |')) ?? '';
    assert.match(row, new RegExp(`\\| ${contract.calls} \\| ${n(contract.tokens)} \\| [^|]+\\| 1 \\| ${n(task.tokens)} \\|$`), `docs/tasks.md: ${row}`);
  });
});
