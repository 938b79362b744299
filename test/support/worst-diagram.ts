/**
 * The heaviest flow CreateDiagram accepts, for tests and bench/diagram-load.ts: 200 nodes in a
 * chain, and as many edges back up it as the 400-edge limit leaves (201), each from one of the last
 * 50 nodes to one of the first 50. dagre alone lays it out in about 30 s with a gigabyte.
 */
export function worstDiagram(boardId: string): { board_id: string; nodes: { id: string; text: string }[]; edges: { from: string; to: string }[]; layout: 'flow-down' } {
  const nodes = Array.from({ length: 200 }, (_, i) => ({ id: `n${i}`, text: `Step ${i}` }));
  const edges: { from: string; to: string }[] = [];
  for (let i = 1; i < 200; i++) edges.push({ from: `n${i - 1}`, to: `n${i}` });
  for (let k = 0; edges.length < 400; k++) edges.push({ from: `n${199 - (k % 50)}`, to: `n${k % 50}` });
  return { board_id: boardId, nodes, edges, layout: 'flow-down' };
}
