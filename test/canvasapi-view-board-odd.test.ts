/**
 * ViewBoard on an odd but valid platform (as the Prism mock of the spec answers in dynamic mode):
 * any numbers in items' places, sizes, styles and connector ends still give a picture, never a
 * failure, NaN or Infinity in the SVG. Areas past the coordinate bound are refused before anything is sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { boardSvg, PICTURE_NUMBER_LIMIT, toPictureConnectors, toPictureItems } from '../src/canvasapi/tasks/board-picture.js';
import { boundsOf, fitPicture } from '../src/canvasapi/tasks/view-board.js';
import { VIEW_LIMITS } from '../src/canvasapi/task-vocabulary.js';
import { callRecorded, canvasApiServerFor, startTestSandbox } from './support/harness.js';

const oddNumber = fc.oneof(
  fc.double(),
  fc.constantFrom(1e308, -1e308, 0, -0, 5e-324, Number.MAX_SAFE_INTEGER, -123456789012),
  fc.integer(),
  fc.string({ maxLength: 6 }),
);
const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const TYPES = ['sticky_note', 'shape', 'frame', 'card', 'app_card', 'text', 'image', 'document', 'embed', 'mindmap_node', 'unknown_kind'];

const record = (index: number) =>
  fc.record({
    id: fc.constant(String(index + 1)),
    type: fc.constantFrom(...TYPES),
    data: fc.record({ content: maybe(fc.string({ maxLength: 40 })), title: maybe(fc.string({ maxLength: 40 })), shape: maybe(fc.constantFrom('rectangle', 'circle', 'star', 'can', 'cloud', 'odd')) }),
    position: fc.record({ x: maybe(oddNumber), y: maybe(oddNumber), relativeTo: maybe(fc.constantFrom('canvas_center', 'parent_top_left')) }),
    geometry: fc.record({ width: maybe(oddNumber), height: maybe(oddNumber), rotation: maybe(oddNumber) }),
    style: fc.record({ fillColor: maybe(fc.constantFrom('#ff0000', 'light_blue', 'nonsense')), fontSize: maybe(oddNumber), borderWidth: maybe(oddNumber) }),
    parent: maybe(fc.record({ id: fc.constantFrom('1', '2', '3') })),
  });

describe('ViewBoard on odd platform numbers', () => {
  it('the number bound is the coordinate bound the tool states', () => {
    assert.equal(PICTURE_NUMBER_LIMIT, VIEW_LIMITS.coordinate);
  });

  it('any places, sizes and styles draw a picture with finite numbers only', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => record(i)))),
        fc.array(fc.record({ id: fc.constant('c'), startItem: fc.record({ id: fc.constantFrom('1', '2', '9'), position: maybe(fc.record({ x: oddNumber, y: oddNumber })) }), endItem: fc.record({ id: fc.constantFrom('1', '2', '3') }), shape: fc.constantFrom('straight', 'elbowed', 'curved') }), { maxLength: 3 }),
        (records, connectorRecords) => {
          const items = toPictureItems(records as never);
          const connectors = toPictureConnectors(connectorRecords as never, items);
          const frame = fitPicture(boundsOf(items), 600);
          assert.ok(Number.isInteger(frame.widthPx) && Number.isInteger(frame.heightPx) && frame.widthPx >= 1 && frame.heightPx >= 1, JSON.stringify(frame));
          const svg = boardSvg({ ...frame, items, connectors });
          assert.doesNotMatch(svg, /NaN|Infinity/);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an area past the bound is refused naming area, nothing sent', async () => {
    const sandbox = await startTestSandbox();
    try {
      const server = canvasApiServerFor(sandbox.canvasapi);
      const { isError, data, sent } = await callRecorded(sandbox, server, 'CanvasApi.ViewBoard', { board_id: 'any', area: { x0: -1e308, y0: 0, x1: 1e308, y1: 10 } });
      assert.equal(isError, true);
      assert.match(JSON.stringify(data), /area: coordinates must be from -1e\+9 to 1e\+9/);
      assert.equal(sent.length, 0, 'nothing sent');
    } finally {
      await sandbox.close();
    }
  });
});
