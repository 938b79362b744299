/**
 * CanvasApi.CreateBoardLayout: a workshop board from lists of text, in one call. Each section is
 * a frame with a header (a coloured rectangle) and its items as sticky notes in rows; the frames
 * are arranged by layout (retro and kanban side by side, 2×2 and SWOT two by two, brainstorm
 * clusters in a square grid). The layout is simple grid arithmetic; the drawing is CreateDiagram's
 * (create-diagram.ts, drawLaidOut): placed clear of the board's items, frames first, the items
 * in bulk transactions of 20, and the same per-item report and retry advice. Bad input is refused
 * before anything is sent.
 */
import { ToolError, type InputIssue } from '../../core/errors.js';
import type { ToolContext } from '../../core/tools/tool.js';
import type { CanvasApiDeps } from '../handler.js';
import { LAYOUT_LIMITS, type BoardLayoutName } from '../task-vocabulary.js';
import { drawLaidOut, type FrameBox, type Placed, type ReportWording } from './create-diagram.js';
import type { Plan, PlanNode } from './diagram-plan.js';

type Json = Record<string, unknown>;

export interface CreateBoardLayoutArgs {
  board_id: string;
  layout: string;
  title?: string | undefined;
  sections: { title: string; items: string[] }[];
  origin_x?: number | undefined;
  origin_y?: number | undefined;
}

const NOTE = 200;
/** A square sticky note is drawn taller than wide (228 by 199 on the platform): rows leave room for it. */
const NOTE_HEIGHT = Math.ceil((NOTE * 228) / 199);
const GAP = 40;
const PADDING = 40;
const HEADER_HEIGHT = 100;
const FRAME_GAP = 120;

/** Per layout: the section counts allowed, notes per row in a section, frames per row, and the colours in order (sticky colour, header fill). */
const SHAPES: Record<BoardLayoutName, { sections: [number, number]; perRow: number; framesPerRow: (n: number) => number; colours: [string, string][] }> = {
  retro: { sections: [3, 4], perRow: 2, framesPerRow: (n) => n, colours: [['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A']] },
  kanban: { sections: [2, LAYOUT_LIMITS.sections], perRow: 1, framesPerRow: (n) => n, colours: [['gray', '#C4C4C4'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A'], ['light_green', '#C9DF56']] },
  two_by_two: { sections: [4, 4], perRow: 3, framesPerRow: () => 2, colours: [['light_green', '#C9DF56'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A'], ['light_pink', '#F16C7F']] },
  swot: { sections: [4, 4], perRow: 3, framesPerRow: () => 2, colours: [['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['light_blue', '#6CD8FA'], ['orange', '#FF9D48']] },
  brainstorm: { sections: [1, LAYOUT_LIMITS.sections], perRow: 3, framesPerRow: (n) => Math.ceil(Math.sqrt(n)), colours: [['yellow', '#FFDC4A'], ['light_blue', '#6CD8FA'], ['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['violet', '#B384BB'], ['orange', '#FF9D48']] },
};

const WORDING: ReportWording = {
  summary: (created, total) => `${created} of ${total} items (headers and notes) created`,
  connectors: false,
  nextStep: {
    mayExist: 'Items marked may_exist may be on the board: read it (CanvasApi.ReadBoard with query) before adding them again. Add only what is missing (CanvasApi.CreateDiagram nodes with shape sticky_note and origin_x/origin_y in the frame\'s area), never this whole layout again.',
    safe: 'Nothing listed as failed or not sent exists: add only those (CanvasApi.CreateDiagram nodes with shape sticky_note and origin_x/origin_y in the frame\'s area), never this whole layout again.',
  },
};

/** The checks the schema cannot make (they depend on the layout); nothing is sent when one fails. */
function refuseBad(args: CreateBoardLayoutArgs): BoardLayoutName {
  const issues: InputIssue[] = [];
  const layout = args.layout as BoardLayoutName;
  const shape = SHAPES[layout];
  if (!shape) throw ToolError.invalidInput([{ parameter: 'layout', problem: `must be one of ${Object.keys(SHAPES).join(', ')}` }]);
  const [least, most] = shape.sections;
  if (args.sections.length < least || args.sections.length > most) {
    issues.push({ parameter: 'sections', problem: `a ${layout} layout has ${least === most ? least : `${least} to ${most}`} sections; got ${args.sections.length}` });
  }
  const items = args.sections.reduce((sum, section) => sum + section.items.length, 0);
  if (items > LAYOUT_LIMITS.items) issues.push({ parameter: 'sections', problem: `has ${items} items; at most ${LAYOUT_LIMITS.items} in one layout` });
  if (issues.length) throw ToolError.invalidInput(issues);
  return layout;
}

/** Frames, headers and notes, relative to the layout's top-left corner; node ids name the input (`sections[1].items[0]`). */
export function layOutBoard(args: CreateBoardLayoutArgs, layout: BoardLayoutName): { plan: Plan; placed: Placed[]; frameBoxes: FrameBox[] } {
  const shape = SHAPES[layout];
  const perRow = shape.perRow;
  const innerWidth = perRow * NOTE + (perRow - 1) * GAP;
  const frameWidth = innerWidth + 2 * PADDING;
  const heightOf = (items: number) => PADDING + HEADER_HEIGHT + GAP + Math.max(1, Math.ceil(items / perRow)) * (NOTE_HEIGHT + GAP) + PADDING - GAP;
  const framesPerRow = shape.framesPerRow(args.sections.length);
  // Frames in one row share the tallest's height, so the rows line up.
  const rowHeights: number[] = [];
  args.sections.forEach((section, index) => {
    const row = Math.floor(index / framesPerRow);
    rowHeights[row] = Math.max(rowHeights[row] ?? 0, heightOf(section.items.length));
  });
  const rowTops = rowHeights.map((_, row) => rowHeights.slice(0, row).reduce((sum, h) => sum + h + FRAME_GAP, 0));
  const nodes: PlanNode[] = [];
  const placed: Placed[] = [];
  const frameBoxes: FrameBox[] = [];
  const frames: Plan['frames'] = [];
  args.sections.forEach((section, index) => {
    const row = Math.floor(index / framesPerRow);
    const left = (index % framesPerRow) * (frameWidth + FRAME_GAP);
    const top = rowTops[row]!;
    const height = rowHeights[row]!;
    frames.push({ title: args.title ? `${args.title}: ${section.title}` : section.title, key: `sections[${index}]` });
    frameBoxes.push({ x: left + frameWidth / 2, y: top + height / 2, width: frameWidth, height });
    const [sticky, fill] = shape.colours[index % shape.colours.length]!;
    const header: PlanNode = { id: `sections[${index}].title`, text: section.title, shape: 'rectangle', color: fill, frame: index };
    nodes.push(header);
    placed.push({ node: header, x: left + frameWidth / 2, y: top + PADDING + HEADER_HEIGHT / 2, width: innerWidth, height: HEADER_HEIGHT });
    section.items.forEach((text, at) => {
      const node: PlanNode = { id: `sections[${index}].items[${at}]`, text, shape: 'sticky_note', color: sticky, frame: index };
      nodes.push(node);
      const x = left + PADDING + (at % perRow) * (NOTE + GAP) + NOTE / 2;
      const y = top + PADDING + HEADER_HEIGHT + GAP + Math.floor(at / perRow) * (NOTE_HEIGHT + GAP) + NOTE_HEIGHT / 2;
      placed.push({ node, x, y, width: NOTE, height: NOTE_HEIGHT });
    });
  });
  const plan: Plan = { nodes, edges: [], layout: 'grid', frames, framesAreGroups: true, existing: [], bare: new Map(), notes: [], source: 'nodes' };
  return { plan, placed, frameBoxes };
}

export async function createBoardLayout(args: CreateBoardLayoutArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const layout = refuseBad(args);
  const { plan, placed, frameBoxes } = layOutBoard(args, layout);
  return drawLaidOut(args, plan, { placed, frameBoxes, leftOut: [] }, context, { wording: WORDING });
}
