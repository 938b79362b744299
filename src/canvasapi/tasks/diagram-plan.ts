/**
 * CreateDiagram's input, whichever form it came in (Mermaid text, or nodes and edges), as one
 * plan: nodes, edges, frames (a subgraph each, or the one `frame_title`), the flow's direction.
 * Everything is checked here, before anything is sent; each problem names its parameter path
 * (`edges[3].to`) or, for Mermaid text, its line (`mermaid`: `line 4: ...`).
 */
import { ToolError, type InputIssue } from '../../core/errors.js';
import { escapeHtml } from '../../core/html.js';
import { parseMermaid, MermaidError, type MermaidDirection } from './mermaid.js';
import { boxesKind, boxesPlanParts } from './mermaid-boxes.js';
import { BARE_ITEM_ID, DIAGRAM_LIMITS, EXISTING_ITEM_PREFIX, EXTEND_READS, STICKY_COLORS } from '../task-vocabulary.js';

/** CreateDiagram's checked input (the definition is in index.ts). */
export interface CreateDiagramArgs {
  board_id: string;
  mermaid?: string | undefined;
  nodes?: { id: string; text: string; shape?: string | undefined; color?: string | undefined }[] | undefined;
  edges?: { from: string; to: string; label?: string | undefined }[] | undefined;
  layout?: 'flow-down' | 'flow-right' | 'grid' | undefined;
  origin_x?: number | undefined;
  origin_y?: number | undefined;
  frame_title?: string | undefined;
}

/** A connector caption's content at most, as sent (the platform's `Caption.content` maxLength). */
export const CAPTION_CHARS = 200;
const HEX_COLOR = /^#[0-9a-f]{6}$/i;

export interface PlanNode {
  id: string;
  text: string;
  shape?: string;
  color?: string;
  /** The frame it is drawn in, by index in `frames`. */
  frame?: number;
  /** More of the shape's style (a sequence diagram's lifelines and blocks), as the platform takes it. */
  style?: Record<string, string>;
  /** Class and ER boxes: the content as sent (HTML, set top left) and the size that fits it. */
  html?: string;
  size?: { width: number; height: number };
}

export interface PlanEdge {
  /** A node id, or `item:<ID>`: an item already on the board. */
  from: string;
  to: string;
  label?: string;
  stroke?: 'normal' | 'dotted' | 'thick';
  arrows?: 'end' | 'none' | 'both';
  /** The connector's ends, path and style, when the drawing decides them (a sequence diagram's messages). */
  draw?: { start: Record<string, unknown>; end: Record<string, unknown>; shape: 'straight' | 'elbowed' | 'curved'; style?: Record<string, string> };
  /** Class and ER relations: the platform's cap at each end, and captions near each end (cardinalities). */
  caps?: { start: string; end: string };
  endLabels?: { start?: string; end?: string };
  /** Where it meets each box (relative positions), set once the boxes are laid out. */
  ends?: { start: { x: string; y: string }; end: { x: string; y: string } };
}

export interface Plan {
  nodes: PlanNode[];
  edges: PlanEdge[];
  layout: 'grid' | MermaidDirection;
  /** New frames: one per subgraph (each holding its nodes), or the frame_title one (holding all). */
  frames: { title: string; key?: string }[];
  /** Subgraphs are laid out as boxes of their own; a frame_title frame wraps the whole diagram. */
  framesAreGroups: boolean;
  /** The existing items the edges name (IDs without the prefix), in order of first mention. */
  existing: string[];
  /**
   * Edge ends (nodes form) that name no node but look like an item ID: each end -> the edge
   * fields that name it (`edges[3].to`). Looked up on the board before anything is created.
   */
  bare: Map<string, string[]>;
  /** Mermaid lines read but not drawn. */
  notes: string[];
  /** Which form the diagram came in: problems with the whole of it name that parameter. */
  source: 'mermaid' | 'nodes';
  /** What the report calls the edges (`messages[3]`); `edges` without it. */
  edgeNoun?: string;
}

const LAYOUTS = { 'flow-down': 'TB', 'flow-right': 'LR', grid: 'grid' } as const;

export function planOf(args: CreateDiagramArgs): Plan {
  if ((args.mermaid === undefined) === (args.nodes === undefined)) {
    const problem = args.mermaid === undefined ? 'give the diagram as mermaid (flowchart text) or as nodes (with edges)' : 'give mermaid or nodes, not both';
    throw ToolError.invalidInput([
      { parameter: 'mermaid', problem },
      { parameter: 'nodes', problem },
    ]);
  }
  const plan = args.mermaid !== undefined ? mermaidPlan(args, args.mermaid) : nodesPlan(args);
  plan.existing = existingOf(plan.edges);
  const named = new Set([...plan.existing, ...plan.bare.keys()]).size;
  if (named > EXTEND_READS.items) {
    throw ToolError.invalidInput([{ parameter: args.mermaid !== undefined ? 'mermaid' : 'edges', problem: `names ${named} existing items (item:<ID>, or an ID that is no node's); at most ${EXTEND_READS.items}` }]);
  }
  return plan;
}

export const isExisting = (end: string) => end.startsWith(EXISTING_ITEM_PREFIX);

/** The items `item:<ID>` ends name, by ID, in order of first mention. */
const existingOf = (edges: PlanEdge[]) => [...new Set(edges.flatMap((edge) => [edge.from, edge.to]).filter(isExisting))].map((ref) => ref.slice(EXISTING_ITEM_PREFIX.length));

/** The layout without `layout`: a flow down when there are edges, a grid when there are none. */
export const defaultLayout = (edges: readonly unknown[] | undefined) => (edges?.length ? 'flow-down' : 'grid');

/**
 * The plan with its bare item IDs read as `item:<ID>`: `found` holds those the board has. Those it
 * has not are refused, each named by its edge field, nothing sent; the answer's note says which
 * ends were read so.
 */
export function resolveBare(plan: Plan, found: ReadonlySet<string>): string[] {
  const missing = [...plan.bare].filter(([id]) => !found.has(id));
  if (missing.length) {
    const sample = nodeSample(plan.nodes.map((node) => node.id));
    throw ToolError.invalidInput(
      missing.flatMap(([id, fields]) => fields.slice(0, 5).map((parameter) => ({ parameter, problem: `"${id}" is neither the id of a node nor an item of this board; the nodes are ${sample} (an item already on the board is ${EXISTING_ITEM_PREFIX}<its ID>, or its ID alone; ReadBoard lists them)` }))),
    );
  }
  for (const edge of plan.edges) {
    for (const end of ['from', 'to'] as const) if (plan.bare.has(edge[end])) edge[end] = `${EXISTING_ITEM_PREFIX}${edge[end]}`;
  }
  // One note per item: the first few edge fields that named it.
  const notes = [...plan.bare].map(([id, fields]) => `${fields.slice(0, 5).join(', ')}${fields.length > 5 ? ` and ${fields.length - 5} more` : ''}: "${id}" is no node's id, read as ${EXISTING_ITEM_PREFIX}${id}`);
  plan.existing = existingOf(plan.edges);
  plan.bare = new Map();
  return notes;
}

const nodeSample = (ids: string[]) => ids.slice(0, 10).map((id) => `"${id}"`).join(', ') + (ids.length > 10 ? ', ...' : '');

function nodesPlan(args: CreateDiagramArgs): Plan {
  const nodes = args.nodes ?? [];
  const edges = args.edges ?? [];
  const plan: Plan = {
    nodes: nodes.map((node) => ({ ...node, ...(args.frame_title ? { frame: 0 } : {}) })),
    edges: edges.map((edge) => ({ ...edge })),
    layout: LAYOUTS[args.layout ?? defaultLayout(args.edges)],
    frames: args.frame_title ? [{ title: args.frame_title }] : [],
    framesAreGroups: false,
    existing: [],
    bare: new Map(),
    notes: [],
    source: 'nodes',
  };
  checkGraph(plan, (kind, index, field) => ({ parameter: `${kind}s[${index}]${field ? `.${field}` : ''}`, prefix: '' }), true);
  return plan;
}

function mermaidPlan(args: CreateDiagramArgs, text: string): Plan {
  const issues: InputIssue[] = [];
  if (args.edges !== undefined) issues.push({ parameter: 'edges', problem: 'goes with nodes; with mermaid, write the edges in the text' });
  if (args.layout !== undefined) issues.push({ parameter: 'layout', problem: 'leave it out with mermaid: the first line\'s direction decides (flowchart TD, LR, BT, RL)' });
  if (issues.length) throw ToolError.invalidInput(issues);
  // Class and ER diagrams (mermaid-boxes.ts); any other first line is read as a flowchart's.
  const boxes = boxesKind(text);
  if (boxes) return boxesPlan(args, text, boxes);
  let chart;
  try {
    chart = parseMermaid(text);
  } catch (error) {
    if (error instanceof MermaidError) throw ToolError.invalidInput(error.problems.map((problem) => ({ parameter: 'mermaid', problem })));
    throw error;
  }
  if (args.frame_title && chart.subgraphs.length) {
    throw ToolError.invalidInput([{ parameter: 'frame_title', problem: 'leave it out: each subgraph is drawn as a frame of its own, and frames do not nest' }]);
  }
  const plan: Plan = {
    nodes: chart.nodes.map(({ id, text: nodeText, shape, color, subgraph }) => ({ id, text: nodeText, shape, ...(color ? { color } : {}), ...(args.frame_title ? { frame: 0 } : subgraph !== undefined ? { frame: subgraph } : {}) })),
    edges: chart.edges.map(({ from, to, label, stroke, arrows }) => ({ from, to, ...(label ? { label } : {}), stroke, arrows })),
    layout: chart.direction,
    frames: args.frame_title ? [{ title: args.frame_title }] : chart.subgraphs.map((s) => ({ title: s.title, key: s.key })),
    framesAreGroups: !args.frame_title,
    existing: [],
    bare: new Map(),
    notes: chart.ignored,
    source: 'mermaid',
  };
  const lineOf = { node: chart.nodes.map((n) => n.line), edge: chart.edges.map((e) => e.line) };
  checkGraph(plan, (kind, index, field) => ({ parameter: 'mermaid', prefix: lineOf[kind][index] === undefined ? '' : `line ${lineOf[kind][index]}: ${kind === 'node' ? `node ${plan.nodes[index]!.id}` : `the edge ${plan.edges[index]!.from} -> ${plan.edges[index]!.to}`}${field ? `'s ${field}` : ''} ` }));
  return plan;
}

/** A class or ER diagram's plan: boxes sized to their fields, relations with their caps, namespaces as frames. */
function boxesPlan(args: CreateDiagramArgs, text: string, kind: 'class' | 'er'): Plan {
  let parts;
  try {
    parts = boxesPlanParts(text, kind);
  } catch (error) {
    if (error instanceof MermaidError) throw ToolError.invalidInput(error.problems.map((problem) => ({ parameter: 'mermaid', problem })));
    throw error;
  }
  if (args.frame_title && parts.frames.length) throw ToolError.invalidInput([{ parameter: 'frame_title', problem: 'leave it out: each namespace is drawn as a frame of its own, and frames do not nest' }]);
  const plan: Plan = {
    nodes: parts.nodes.map(({ line: _, frame, ...node }) => ({ ...node, ...(args.frame_title ? { frame: 0 } : frame !== undefined ? { frame } : {}) })),
    edges: parts.edges.map(({ line: _, ...edge }) => edge),
    layout: parts.layout,
    frames: args.frame_title ? [{ title: args.frame_title }] : parts.frames,
    framesAreGroups: !args.frame_title,
    existing: [],
    bare: new Map(),
    notes: parts.notes,
    source: 'mermaid',
  };
  const what = kind === 'class' ? 'class' : 'entity';
  checkGraph(plan, (k, index, field) => ({ parameter: 'mermaid', prefix: `line ${k === 'node' ? parts.nodes[index]?.line ?? 1 : parts.edges[index]!.line}: ${k === 'node' ? `${what} ${plan.nodes[index]?.id ?? ''}` : `the relation ${plan.edges[index]!.from} -> ${plan.edges[index]!.to}`}${field ? `'s ${field}` : ''} ` }));
  return plan;
}

type Namer = (kind: 'node' | 'edge', index: number, field: string) => { parameter: string; prefix: string };

/**
 * The checks zod cannot make: node IDs unique, edges between known nodes (or existing items),
 * colours that fit the kind of node, texts within their limits as sent (HTML-escaped: each of
 * & < > " ' takes 5). With `bareOk`, an end that names no node but looks like an item ID goes to
 * `plan.bare` to be looked up, unless something else is wrong (then it is refused with the rest,
 * nothing looked up).
 */
function checkGraph(plan: Plan, name: Namer, bareOk = false): void {
  const issues: InputIssue[] = [];
  const bareIssues = new Set<InputIssue>();
  const add = (kind: 'node' | 'edge', index: number, field: string, problem: string) => {
    const { parameter, prefix } = name(kind, index, field);
    issues.push({ parameter, problem: `${prefix}${problem}` });
  };
  const seen = new Map<string, number>();
  plan.nodes.forEach((node, index) => {
    const first = seen.get(node.id);
    if (first !== undefined) add('node', index, 'id', `"${node.id}" is already the id of nodes[${first}]; node ids must be unique`);
    else seen.set(node.id, index);
    if (isExisting(node.id)) add('node', index, 'id', `"${node.id.slice(0, 100)}" starts with ${EXISTING_ITEM_PREFIX}, which names an existing item in edges: pick another id`);
    const textIssue = escapedTooLong(node.text, DIAGRAM_LIMITS.textChars);
    if (textIssue) add('node', index, 'text', textIssue);
    if (node.color === undefined) return;
    if (node.shape === 'sticky_note' && !(STICKY_COLORS as readonly string[]).includes(node.color)) {
      add('node', index, 'color', `a sticky note's colour must be one of ${STICKY_COLORS.join(', ')} (got "${node.color.slice(0, 30)}")`);
    } else if (node.shape !== 'sticky_note' && !HEX_COLOR.test(node.color)) {
      add('node', index, 'color', `a shape's colour must be #RRGGBB, e.g. "#a6ccf5" (got "${node.color.slice(0, 30)}")`);
    }
  });
  const sample = nodeSample([...seen.keys()]);
  plan.edges.forEach((edge, index) => {
    for (const end of ['from', 'to'] as const) {
      const id = edge[end];
      if (isExisting(id) ? id.length === EXISTING_ITEM_PREFIX.length : !seen.has(id)) {
        add('edge', index, end, `"${id.slice(0, 100)}" is not the id of any node; the nodes are ${sample} (an item already on the board is ${EXISTING_ITEM_PREFIX}<its ID>${bareOk ? ', or its ID alone' : ''})`);
        if (!bareOk || isExisting(id) || !BARE_ITEM_ID.test(id)) continue;
        bareIssues.add(issues[issues.length - 1]!);
        const fields = plan.bare.get(id) ?? [];
        plan.bare.set(id, [...fields, name('edge', index, end).parameter]);
      }
    }
    if (edge.from === edge.to) add('edge', index, 'to', 'must differ from from: a connector joins two different items');
    const labelIssue = edge.label === undefined ? undefined : escapedTooLong(edge.label, CAPTION_CHARS);
    if (labelIssue) add('edge', index, 'label', labelIssue);
  });
  if (!plan.nodes.length) add('node', 0, '', 'a diagram needs at least one new node');
  // Only bare item IDs: they are looked up before anything is created.
  if (issues.some((issue) => !bareIssues.has(issue))) throw ToolError.invalidInput(issues);
}

/** Why a text is too long once HTML-escaped, or undefined when it fits. */
function escapedTooLong(text: string, limit: number): string | undefined {
  const sent = escapeHtml(text).length;
  if (sent <= limit) return undefined;
  return `is ${sent} characters once HTML-escaped (each of & < > " ' counts 5), more than the ${limit} allowed; shorten it or use fewer of those characters`;
}
