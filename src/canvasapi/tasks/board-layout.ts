/**
 * CanvasApi.CreateBoardLayout: a workshop board from lists of text, in one call. Each section is
 * a frame with a header (a coloured rectangle) and its items as sticky notes in rows (a kanban's as
 * cards in a column); the frames
 * are arranged by layout (retro and kanban side by side, 2×2 and SWOT two by two, brainstorm
 * clusters in a square grid). A story map is a backbone frame of activities over their steps, then
 * a frame per release with its stories under their steps. The layout is simple grid arithmetic; the drawing is CreateDiagram's
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
  releases?: { title: string; stories: string[][] }[] | undefined;
  origin_x?: number | undefined;
  origin_y?: number | undefined;
}

const NOTE = 200;
/** A kanban card: the platform's default size, one line of title and room for a second. */
const CARD = { width: 320, height: 94 } as const;
/** A square sticky note is drawn taller than wide (228 by 199 on the platform): rows leave room for it. */
const NOTE_HEIGHT = Math.ceil((NOTE * 228) / 199);
const GAP = 40;
const PADDING = 40;
const HEADER_HEIGHT = 100;
const FRAME_GAP = 120;

/**
 * Per layout: the section counts allowed, what an item is (a sticky note, or a kanban's card),
 * items per row in a section, frames per row, and the colours in order (sticky colour, header
 * fill; a card's theme is its header's fill).
 */
const SHAPES: Record<Exclude<BoardLayoutName, 'story_map'>, { sections: [number, number]; item?: 'card'; perRow: number; framesPerRow: (n: number) => number; colours: [string, string][] }> = {
  retro: { sections: [3, 4], perRow: 2, framesPerRow: (n) => n, colours: [['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A']] },
  kanban: { sections: [2, LAYOUT_LIMITS.sections], item: 'card', perRow: 1, framesPerRow: (n) => n, colours: [['gray', '#C4C4C4'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A'], ['light_green', '#C9DF56']] },
  two_by_two: { sections: [4, 4], perRow: 3, framesPerRow: () => 2, colours: [['light_green', '#C9DF56'], ['light_blue', '#6CD8FA'], ['yellow', '#FFDC4A'], ['light_pink', '#F16C7F']] },
  swot: { sections: [4, 4], perRow: 3, framesPerRow: () => 2, colours: [['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['light_blue', '#6CD8FA'], ['orange', '#FF9D48']] },
  brainstorm: { sections: [1, LAYOUT_LIMITS.sections], perRow: 3, framesPerRow: (n) => Math.ceil(Math.sqrt(n)), colours: [['yellow', '#FFDC4A'], ['light_blue', '#6CD8FA'], ['light_green', '#C9DF56'], ['light_pink', '#F16C7F'], ['violet', '#B384BB'], ['orange', '#FF9D48']] },
};

/** The report's words: what the items are, and how to add only what is missing (cards are the contract's card tool's). */
function wordingFor(item: 'sticky_note' | 'card'): ReportWording {
  const addMissing = item === 'card' ? 'CanvasApi.AddCardToCanvasBoard with parent_id the frame' : 'CanvasApi.CreateDiagram nodes with shape sticky_note and origin_x/origin_y in the frame\'s area';
  return {
    summary: (created, total) => `${created} of ${total} items (headers and ${item === 'card' ? 'cards' : 'notes'}) created`,
    connectors: false,
    nextStep: {
      mayExist: `Items marked may_exist may be on the board: read it (CanvasApi.ReadBoard with query) before adding them again. Add only what is missing (${addMissing}), never this whole layout again.`,
      safe: `Nothing listed as failed or not sent exists: add only those (${addMissing}), never this whole layout again.`,
    },
  };
}

/** The story map's colours: activities (header fill), steps and stories (sticky colours), release headers. */
const STORY_MAP = { activity: '#FF9D48', step: 'light_blue', story: 'yellow', release: '#C4C4C4' } as const;

/** The checks the schema cannot make (they depend on the layout); nothing is sent when one fails. */
function refuseBad(args: CreateBoardLayoutArgs): BoardLayoutName {
  const issues: InputIssue[] = [];
  const layout = args.layout as BoardLayoutName;
  const [least, most] = layout === 'story_map' ? [1, LAYOUT_LIMITS.sections] : SHAPES[layout].sections;
  if (args.sections.length < least || args.sections.length > most) {
    issues.push({ parameter: 'sections', problem: `a ${layout} layout has ${least === most ? least : `${least} to ${most}`} sections; got ${args.sections.length}` });
  }
  const steps = args.sections.reduce((sum, section) => sum + section.items.length, 0);
  const stories = (args.releases ?? []).reduce((sum, release) => sum + release.stories.reduce((n, list) => n + list.length, 0), 0);
  if (steps + stories > LAYOUT_LIMITS.items) issues.push({ parameter: stories ? 'releases' : 'sections', problem: `has ${steps + stories} items; at most ${LAYOUT_LIMITS.items} in one layout` });
  if (layout !== 'story_map' && args.releases !== undefined) issues.push({ parameter: 'releases', problem: 'is for layout story_map only' });
  if (layout === 'story_map') {
    args.releases?.forEach((release, index) => {
      if (release.stories.length > steps) issues.push({ parameter: `releases[${index}].stories`, problem: `has ${release.stories.length} lists, one per step; the sections have ${steps} steps` });
    });
  }
  if (issues.length) throw ToolError.invalidInput(issues);
  return layout;
}

/**
 * A story map: the backbone frame (a row of activities, the sections' titles, each over its steps,
 * the sections' items), then a frame per release, a band under the backbone with its stories
 * stacked under their steps (`stories[k]` under the k-th step, counted across the sections).
 */
export function layOutStoryMap(args: CreateBoardLayoutArgs): { plan: Plan; placed: Placed[]; frameBoxes: FrameBox[] } {
  const pitch = NOTE + GAP;
  // Each activity takes its steps' columns, at least one.
  const spans = args.sections.map((section) => Math.max(1, section.items.length));
  const columns = spans.reduce((sum, n) => sum + n, 0);
  const innerWidth = columns * pitch - GAP;
  const frameWidth = innerWidth + 2 * PADDING;
  const nodes: PlanNode[] = [];
  const placed: Placed[] = [];
  const frameBoxes: FrameBox[] = [];
  const frames: Plan['frames'] = [];
  const add = (node: PlanNode, x: number, y: number, width: number, height: number) => {
    nodes.push(node);
    placed.push({ node, x, y, width, height });
  };
  const named = (what: string) => (args.title ? `${args.title}: ${what}` : what);
  const backboneHeight = PADDING + HEADER_HEIGHT + GAP + NOTE_HEIGHT + PADDING;
  frames.push({ title: named('Backbone'), key: 'backbone' });
  frameBoxes.push({ x: frameWidth / 2, y: backboneHeight / 2, width: frameWidth, height: backboneHeight });
  const stepColumns: number[] = [];
  let column = 0;
  args.sections.forEach((section, a) => {
    const left = PADDING + column * pitch;
    add({ id: `sections[${a}].title`, text: section.title, shape: 'rectangle', color: STORY_MAP.activity, frame: 0 }, left + (spans[a]! * pitch - GAP) / 2, PADDING + HEADER_HEIGHT / 2, spans[a]! * pitch - GAP, HEADER_HEIGHT);
    section.items.forEach((text, s) => {
      stepColumns.push(column + s);
      add({ id: `sections[${a}].items[${s}]`, text, shape: 'sticky_note', color: STORY_MAP.step, frame: 0 }, left + s * pitch + NOTE / 2, PADDING + HEADER_HEIGHT + GAP + NOTE_HEIGHT / 2, NOTE, NOTE_HEIGHT);
    });
    column += spans[a]!;
  });
  let top = backboneHeight + FRAME_GAP;
  (args.releases ?? []).forEach((release, r) => {
    const deepest = Math.max(1, ...release.stories.map((list) => list.length));
    const height = PADDING + HEADER_HEIGHT + GAP + deepest * (NOTE_HEIGHT + GAP) - GAP + PADDING;
    const frame = frames.length;
    frames.push({ title: named(release.title), key: `releases[${r}]` });
    frameBoxes.push({ x: frameWidth / 2, y: top + height / 2, width: frameWidth, height });
    add({ id: `releases[${r}].title`, text: release.title, shape: 'rectangle', color: STORY_MAP.release, frame }, frameWidth / 2, top + PADDING + HEADER_HEIGHT / 2, innerWidth, HEADER_HEIGHT);
    release.stories.forEach((list, k) => {
      const x = PADDING + stepColumns[k]! * pitch + NOTE / 2;
      list.forEach((text, j) => {
        add({ id: `releases[${r}].stories[${k}][${j}]`, text, shape: 'sticky_note', color: STORY_MAP.story, frame }, x, top + PADDING + HEADER_HEIGHT + GAP + j * (NOTE_HEIGHT + GAP) + NOTE_HEIGHT / 2, NOTE, NOTE_HEIGHT);
      });
    });
    top += height + FRAME_GAP;
  });
  const plan: Plan = { nodes, edges: [], layout: 'grid', frames, framesAreGroups: true, existing: [], bare: new Map(), notes: [], source: 'nodes' };
  return { plan, placed, frameBoxes };
}

/** Frames, headers and notes, relative to the layout's top-left corner; node ids name the input (`sections[1].items[0]`). */
export function layOutBoard(args: CreateBoardLayoutArgs, layout: Exclude<BoardLayoutName, 'story_map'>): { plan: Plan; placed: Placed[]; frameBoxes: FrameBox[] } {
  const shape = SHAPES[layout];
  const perRow = shape.perRow;
  const item = shape.item === 'card' ? { kind: 'card', ...CARD } : { kind: 'sticky_note', width: NOTE, height: NOTE_HEIGHT };
  const innerWidth = perRow * item.width + (perRow - 1) * GAP;
  const frameWidth = innerWidth + 2 * PADDING;
  const heightOf = (items: number) => PADDING + HEADER_HEIGHT + GAP + Math.max(1, Math.ceil(items / perRow)) * (item.height + GAP) + PADDING - GAP;
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
      const node: PlanNode = { id: `sections[${index}].items[${at}]`, text, shape: item.kind, color: item.kind === 'card' ? fill : sticky, frame: index };
      nodes.push(node);
      const x = left + PADDING + (at % perRow) * (item.width + GAP) + item.width / 2;
      const y = top + PADDING + HEADER_HEIGHT + GAP + Math.floor(at / perRow) * (item.height + GAP) + item.height / 2;
      placed.push({ node, x, y, width: item.width, height: item.height });
    });
  });
  const plan: Plan = { nodes, edges: [], layout: 'grid', frames, framesAreGroups: true, existing: [], bare: new Map(), notes: [], source: 'nodes' };
  return { plan, placed, frameBoxes };
}

export async function createBoardLayout(args: CreateBoardLayoutArgs, context: ToolContext<CanvasApiDeps>): Promise<Json> {
  const layout = refuseBad(args);
  const { plan, placed, frameBoxes } = layout === 'story_map' ? layOutStoryMap(args) : layOutBoard(args, layout);
  const wording = wordingFor(layout !== 'story_map' && SHAPES[layout].item === 'card' ? 'card' : 'sticky_note');
  return drawLaidOut(args, plan, { placed, frameBoxes, leftOut: [] }, context, { wording });
}
