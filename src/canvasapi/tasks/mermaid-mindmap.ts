/**
 * A reader of Mermaid mindmap text, for CreateDiagram (draw-mindmap.ts draws it). The hierarchy
 * is by indentation: a node's parent is the nearest node above it indented less. A node is
 * `id[text]`, `id(text)`, `id((text))`, `id))text((`, `id)text(`, `id{{text}}` or plain text;
 * a markdown string ("`...`", possibly over several lines) keeps its text. `::icon(...)` and
 * `:::class` are read (the platform's mind-map nodes are text: listed as not drawn). Line by
 * line, indexOf scans only, linear in the text.
 */
import { DIAGRAM_LIMITS } from '../task-vocabulary.js';
import { MermaidError } from './mermaid.js';
import { FrontMatter, LineProblem, MAX_PROBLEMS } from './mermaid-cursor.js';
import { textOf } from './mermaid-sequence.js';

export interface MindmapNode {
  /** `line 7`: where it is written (its key in the answer). */
  key: string;
  id: string;
  text: string;
  shape: string;
  line: number;
  /** Its parent's index in `nodes` (the root has none). */
  parent?: number;
  depth: number;
}

export interface MindmapDiagram {
  /** Parents before children: in the order written. */
  nodes: MindmapNode[];
  ignored: string[];
}

/** Opening -> closing and the shape's name, longest first. */
const SHAPES: readonly [string, string, string][] = [
  ['((', '))', 'circle'],
  ['))', '((', 'bang'],
  ['{{', '}}', 'hexagon'],
  ['[', ']', 'square'],
  ['(', ')', 'rounded'],
  [')', '(', 'cloud'],
];


export const isMindmapHeader = (keyword: string) => keyword === 'mindmap';

export function parseMindmap(source: string): MindmapDiagram {
  const lines = source.split(/\r?\n/);
  const nodes: MindmapNode[] = [];
  const problems: string[] = [];
  const ignored: string[] = [];
  const notDrawn = { shape: [] as number[], icon: [] as number[], class: [] as number[] };
  /** The path from the root to the last node: each node's indentation and index. */
  const path: { indent: number; index: number }[] = [];
  let header = false;
  const frontMatter = new FrontMatter();
  for (let index = 0; index < lines.length && problems.length < MAX_PROBLEMS; index++) {
    const line = index + 1;
    const raw = lines[index]!;
    const text = raw.trim();
    if (!text || text.startsWith('%%')) continue;
    if (frontMatter.skips(text, line, header, ignored)) continue;
    if (!header) {
      header = true;
      if (text !== 'mindmap') problems.push(`line ${line}: the first line must be "mindmap" alone`);
      continue;
    }
    try {
      if (text.startsWith('::icon(')) {
        if (!nodes.length) throw new LineProblem('an icon belongs to the node above it: there is none');
        notDrawn.icon.push(line);
        continue;
      }
      if (text.startsWith(':::')) {
        if (!nodes.length) throw new LineProblem('a class belongs to the node above it: there is none');
        notDrawn.class.push(line);
        continue;
      }
      // A markdown string may run over several lines: joined up to its closing "`".
      let statement = text;
      const opened = statement.indexOf('"`');
      if (opened >= 0 && statement.indexOf('`"', opened + 2) < 0) {
        // Each added line is searched once: linear however many lines the string runs over.
        const parts = [statement];
        let closed = false;
        while (!closed && index + 1 < lines.length) {
          const next = lines[++index]!.trim();
          parts.push(next);
          closed = next.includes('`"');
        }
        if (!closed) throw new LineProblem('the markdown string ("` ... `") has no closing `"');
        statement = parts.join('\n');
      }
      const indent = raw.length - raw.trimStart().length;
      const node = readNode(statement);
      if (node.shape !== 'plain') notDrawn.shape.push(line);
      if (node.classed) notDrawn.class.push(line);
      while (path.length && path[path.length - 1]!.indent >= indent) path.pop();
      if (!path.length && nodes.length) throw new LineProblem(`"${node.text.slice(0, 30)}" is indented no more than the root: a mind map has one root, and every other node is indented under it`);
      if (nodes.length >= DIAGRAM_LIMITS.nodes) throw new LineProblem(`more than ${DIAGRAM_LIMITS.nodes} nodes`);
      const parent = path[path.length - 1]?.index;
      nodes.push({ key: `line ${line}`, id: node.id, text: node.text, shape: node.shape, line, depth: path.length, ...(parent !== undefined ? { parent } : {}) });
      path.push({ indent, index: nodes.length - 1 });
    } catch (error) {
      if (!(error instanceof LineProblem)) throw error;
      problems.push(`line ${line}: ${error.message}`);
    }
  }
  if (!header) problems.push('line 1: the text is empty; start with "mindmap" and a node per line, indented under its parent');
  else if (!problems.length && !nodes.length) problems.push('the mind map has no nodes');
  if (problems.length) throw new MermaidError(problems.slice(0, MAX_PROBLEMS));
  const list = (lines: number[]) => `line${lines.length > 1 ? 's' : ''} ${lines.slice(0, 10).join(', ')}${lines.length > 10 ? ` and ${lines.length - 10} more` : ''}`;
  if (notDrawn.shape.length) ignored.push(`${list(notDrawn.shape)}: node shapes ([ ], ( ), (( )), )) ((, ) (, {{ }}) are not drawn: the platform's mind-map nodes are text (the text is kept)`);
  if (notDrawn.icon.length) ignored.push(`${list(notDrawn.icon)}: icons (::icon) are not drawn`);
  if (notDrawn.class.length) ignored.push(`${list(notDrawn.class)}: classes (:::) are not drawn`);
  return { nodes, ignored };
}

/** One node's statement: its id, text and shape (and whether a `:::class` follows it). */
function readNode(statement: string): { id: string; text: string; shape: string; classed: boolean } {
  let body = statement;
  let classed = false;
  const classAt = body.lastIndexOf(':::');
  if (classAt > 0) {
    classed = true;
    body = body.slice(0, classAt).trim();
  }
  // The id runs to the first bracket; the rest is the shape's text.
  let open = -1;
  for (let i = 0; i < body.length && open < 0; i++) if ('[({)'.includes(body[i]!)) open = i;
  if (open < 0) return { id: body, text: textOf(body), shape: 'plain', classed };
  const shape = SHAPES.find(([opening, closing]) => body.startsWith(opening, open) && body.endsWith(closing) && body.length >= open + opening.length + closing.length);
  if (!shape) throw new LineProblem(`"${body.slice(0, 40)}" is not a node: write text, or an id with its text in [ ], ( ), (( )), )) ((, ) ( or {{ }}`);
  const id = body.slice(0, open).trim();
  let inner = body.slice(open + shape[0].length, body.length - shape[1].length).trim();
  if (inner.startsWith('"') && inner.endsWith('"') && inner.length >= 2) {
    inner = inner.slice(1, -1);
    if (inner.startsWith('`') && inner.endsWith('`') && inner.length >= 2) inner = inner.slice(1, -1);
  }
  if (!inner) throw new LineProblem(`the node ${id || 'here'} has no text between its brackets`);
  return { id: id || inner, text: textOf(inner), shape: shape[2], classed };
}
