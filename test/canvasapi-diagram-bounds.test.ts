/**
 * CreateDiagram's layout bound with subgraphs (src/canvasapi/tasks/diagram-work.ts) and its
 * fallbacks (diagram-layout.ts), by counting, never timing: the issue's two shapes (200 nodes in 20
 * subgraphs; a chain alternating across 10) are planned as boxes within the bound and drawn in
 * full; dagre's own failure on clusters falls back to boxes with a note; any accepted random
 * diagram gets a drawing whose frames hold their nodes and do not overlap; past the bound the
 * refusal names the parameter; small layouts are told apart.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { layOutFlow, type FlowLayout, type FlowLayoutInput } from '../src/canvasapi/tasks/diagram-layout.js';
import { planOf } from '../src/canvasapi/tasks/diagram-plan.js';
import { CLUSTER_WORK, isSmallLayout, LayoutTooBig, overBoundIssue, planLayout, WORK_LIMIT } from '../src/canvasapi/tasks/diagram-work.js';
import type { RunningSandbox } from '../src/sandbox/server.js';
import type { AnyToolServer } from '../src/core/tools/registry.js';
import { callTool, canvasApiServerFor, startTestSandbox } from './support/harness.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The issue's first shape: 200 nodes in 20 subgraphs of 10, each with an edge to a node anywhere (about 6 KB). */
function twentySubgraphs(): string {
  let seed = 31;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 200;
  let text = 'flowchart TD\n';
  for (let s = 0; s < 20; s++) {
    text += `subgraph s${s} [Stage ${s}]\n`;
    for (let i = 0; i < 10; i++) {
      const node = s * 10 + i;
      const to = next();
      text += `  n${node}[Step ${node}] --> n${to === node ? (to + 1) % 200 : to}\n`;
    }
    text += 'end\n';
  }
  return text;
}

/** The issue's second shape: a chain of `n` whose nodes alternate across `groups` subgraphs. */
function alternatingChain(n: number, groups: number): string {
  let text = 'flowchart TD\n';
  for (let s = 0; s < groups; s++) text += `subgraph g${s}\n${Array.from({ length: Math.ceil((n - s) / groups) }, (_, k) => `c${s + groups * k}`).join('\n')}\nend\n`;
  for (let i = 1; i < n; i++) text += `c${i - 1}-->c${i}\n`;
  return text;
}

/** The layout input CreateDiagram builds for a Mermaid text. */
function inputOf(mermaid: string): FlowLayoutInput {
  const plan = planOf({ board_id: 'b', mermaid });
  return {
    nodes: plan.nodes.map((node) => ({ id: node.id, width: 220, height: 110 })),
    edges: plan.edges.map(({ from, to }) => ({ from, to })),
    direction: plan.layout === 'grid' ? 'TB' : plan.layout,
    nodeGap: 60,
    rankGap: 90,
    groups: plan.nodes.map((node) => node.frame),
    groupCount: plan.frames.length,
  };
}

interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}
const rectOf = (c: { x: number; y: number }, size: { width: number; height: number }): Rect => ({ left: c.x - size.width / 2, top: c.y - size.height / 2, right: c.x + size.width / 2, bottom: c.y + size.height / 2 });
const inside = (inner: Rect, outer: Rect) => inner.left >= outer.left - 1e-6 && inner.top >= outer.top - 1e-6 && inner.right <= outer.right + 1e-6 && inner.bottom <= outer.bottom + 1e-6;
const overlap = (a: Rect, b: Rect) => a.left < b.right - 1e-6 && b.left < a.right - 1e-6 && a.top < b.bottom - 1e-6 && b.top < a.bottom - 1e-6;

/** Every number finite; every grouped node inside its group's box; with `apart`, boxes and the nodes outside them apart. */
function assertDrawing(input: FlowLayoutInput, layout: FlowLayout, apart: boolean): void {
  assert.equal(layout.centres.length, input.nodes.length);
  for (const c of layout.centres) assert.ok(Number.isFinite(c.x) && Number.isFinite(c.y), 'a finite centre');
  const boxes = layout.groupBoxes.map((box) => rectOf(box, box));
  assert.equal(boxes.length, input.groupCount ?? 0);
  input.nodes.forEach((node, index) => {
    const group = input.groups?.[index];
    const rect = rectOf(layout.centres[index]!, node);
    if (group !== undefined) assert.ok(inside(rect, boxes[group]!), `${node.id} lies inside its frame`);
    else if (apart) for (const box of boxes) assert.ok(!overlap(rect, box), `${node.id}, outside subgraphs, is outside every frame`);
  });
  if (apart) boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => assert.ok(!overlap(a, b), `frames ${i} and another overlap`)));
}

describe('layout bounds with subgraphs', () => {
  it("plans the issue's two shapes without dagre's clusters, within the bound, and draws them: frames hold their nodes, apart", () => {
    for (const text of [twentySubgraphs(), alternatingChain(100, 10)]) {
      const input = inputOf(text);
      const plan = planLayout(input);
      assert.equal(plan.mode, 'boxes', 'subgraphs laid out one by one, then as boxes');
      assert.ok(plan.work <= WORK_LIMIT, `predicted ${plan.work} within ${WORK_LIMIT}`);
      // One piece per subgraph, then the top level: every node in exactly one.
      assert.equal(plan.pieces.length, (input.groupCount ?? 0) + 1);
      assert.deepEqual(plan.pieces.flatMap((p) => p.members.filter((m) => m >= 0)).sort((a, b) => a - b), input.nodes.map((_, i) => i));
      const layout = layOutFlow(input);
      assertDrawing(input, layout, true);
      assert.match(layout.fallback ?? '', /laid out on its own and placed as a box/);
    }
  });

  it('the clusters cost what dagre does: border nodes on every rank a cluster spans push the alternating chain to boxes', () => {
    // 32 nodes in 10 alternating subgraphs: dagre's clusters fail on it after seconds; a flat chain of 32 costs little.
    const input = inputOf(alternatingChain(32, 10));
    assert.equal(planLayout(input).mode, 'boxes');
    assert.equal(planLayout({ ...input, groups: undefined, groupCount: 0 }).mode, 'flat');
    // Two subgraphs of a small flow, each holding a run of the chain: dagre's clusters, exactly as before.
    const small = inputOf('flowchart LR\nsubgraph a\nx1-->x2-->x3\nend\nsubgraph b\ny1-->y2\nend\nx3-->y1\ny2-->z');
    assert.equal(planLayout(small).mode, 'clusters');
    assertDrawing(small, layOutFlow(small), true);
  });

  it("dagre's failure on clusters falls back to boxes, with a note, never an internal error", () => {
    // Forced to clusters on a shape dagre cannot do ("Not possible to find intersection inside of the rectangle").
    const input = { ...inputOf(alternatingChain(32, 10)), clusterWork: Number.POSITIVE_INFINITY, workLimit: Number.POSITIVE_INFINITY };
    assert.equal(planLayout(input).mode, 'clusters');
    const layout = layOutFlow(input);
    assert.match(layout.fallback ?? '', /dagre could not lay the subgraphs out together \(.*intersection.*\), so each subgraph was laid out on its own/);
    assertDrawing(input, layout, true);
  });

  it('any accepted random diagram is drawn: frames hold their nodes; as boxes they are apart from each other and from the other nodes', () => {
    const diagrams = fc
      .record({
        n: fc.integer({ min: 1, max: 24 }),
        ends: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 48 }),
        groupOf: fc.array(fc.option(fc.nat({ max: 4 }), { nil: undefined }), { minLength: 24, maxLength: 24 }),
        direction: fc.constantFrom('TB' as const, 'BT' as const, 'LR' as const, 'RL' as const),
        sticky: fc.array(fc.boolean(), { minLength: 24, maxLength: 24 }),
        boxes: fc.boolean(),
      })
      .map(({ n, ends, groupOf, direction, sticky, boxes }) => {
        // Groups renumbered 0.. in order of use: every group holds a node, as the plan's frames do.
        const used = [...new Set(groupOf.slice(0, n).filter((g) => g !== undefined))];
        const input: FlowLayoutInput = {
          nodes: Array.from({ length: n }, (_, i) => (sticky[i] ? { id: `v${i}`, width: 200, height: 200 } : { id: `v${i}`, width: 220, height: 110 })),
          edges: ends.map(([a, b]) => [a % n, b % n] as const).filter(([a, b]) => a !== b).map(([a, b]) => ({ from: `v${a}`, to: `v${b}` })),
          direction,
          nodeGap: 60,
          rankGap: 90,
          ...(used.length ? { groups: groupOf.slice(0, n).map((g) => (g === undefined ? undefined : used.indexOf(g))), groupCount: used.length } : {}),
          ...(boxes ? { clusterWork: 0 } : {}),
        };
        return input;
      });
    let asBoxes = 0;
    fc.assert(
      fc.property(diagrams, (input) => {
        const plan = planLayout(input);
        const layout = layOutFlow(input);
        if (plan.mode === 'boxes') asBoxes++;
        assertDrawing(input, layout, plan.mode === 'boxes');
      }),
      { numRuns: 60, seed: 20261202 },
    );
    assert.ok(asBoxes > 10, `${asBoxes} drawn as boxes`);
  });

  it('past the bound, the refusal names the parameter the diagram came in and what to reduce', () => {
    const input = inputOf(twentySubgraphs());
    assert.throws(() => planLayout({ ...input, workLimit: 10_000 }), (error: unknown) => {
      assert.ok(error instanceof LayoutTooBig);
      const issue = overBoundIssue(error, 'mermaid', true);
      assert.equal(issue.parameter, 'mermaid');
      assert.match(issue.problem, /over the 10 ms allowed.*nothing was laid out or sent: draw fewer nodes or edges.*fewer subgraphs.*split the diagram in two/);
      assert.equal(overBoundIssue(error, 'nodes', false).parameter, 'edges');
      return true;
    });
  });

  it('tells small layouts apart: a few nodes and at most 2 subgraphs, little predicted work', () => {
    const chain = (n: number): FlowLayoutInput => ({
      nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, width: 220, height: 110 })),
      edges: Array.from({ length: n - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` })),
      direction: 'TB',
      nodeGap: 60,
      rankGap: 90,
    });
    assert.equal(isSmallLayout(chain(3)), true);
    assert.equal(isSmallLayout(chain(12)), true);
    assert.equal(isSmallLayout(chain(200)), false);
    assert.equal(isSmallLayout(inputOf('flowchart TD\nsubgraph a\nx-->y\nend\nsubgraph b\nz\nend\ny-->z')), true);
    assert.equal(isSmallLayout(inputOf(alternatingChain(32, 10))), false);
    assert.equal(isSmallLayout(inputOf(twentySubgraphs())), false);
    assert.ok(CLUSTER_WORK < WORK_LIMIT);
  });
});

describe("CreateDiagram on the issue's shapes, against the sandbox", () => {
  let sandbox: RunningSandbox;
  let server: AnyToolServer;
  before(async () => {
    sandbox = await startTestSandbox();
    server = canvasApiServerFor(sandbox.canvasapi);
  });
  after(() => sandbox.close());

  it('draws 200 nodes in 20 subgraphs in full, in 20 frames, saying the layout fell back', async () => {
    const result = await callTool(server, 'CanvasApi.CreateDiagram', { board_id: sandbox.canvasapi.demo!.boardIds[0], mermaid: twentySubgraphs() });
    assert.equal(result.isError, false, JSON.stringify(result.data).slice(0, 500));
    const data = result.data as J;
    assert.match(data.summary, /^200 of 200 nodes and 200 of 200 connectors created in 20 frames\.$/);
    assert.match(data.layout_note, /Each subgraph was laid out on its own and placed as a box/);
  });
});
