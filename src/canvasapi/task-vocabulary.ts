/**
 * The names and bounds of the task tools (tasks/), shared by their input schemas (tasks/index.ts,
 * loaded at start) and their logic (loaded on first call): apart from both, so that the logic
 * imports nothing of the module that loads it, and a start loads nothing of the logic.
 */

/** Shape names the bulk endpoint draws, plus sticky notes. */
export const DIAGRAM_SHAPES = [
  'sticky_note',
  'rectangle', 'round_rectangle', 'circle', 'triangle', 'rhombus', 'parallelogram', 'trapezoid', 'pentagon', 'hexagon', 'octagon',
  'wedge_round_rectangle_callout', 'star', 'flow_chart_predefined_process', 'cloud', 'cross', 'can', 'right_arrow', 'left_arrow',
  'left_right_arrow', 'left_brace', 'right_brace',
] as const;

/** Sticky-note colours the platform knows by name. */
export const STICKY_COLORS = ['gray', 'light_yellow', 'yellow', 'orange', 'light_green', 'green', 'dark_green', 'cyan', 'light_pink', 'pink', 'violet', 'red', 'light_blue', 'blue', 'dark_blue', 'black'] as const;

export const ITEM_TYPES = ['sticky_note', 'shape', 'text', 'card', 'app_card', 'image', 'document', 'embed', 'frame', 'preview'] as const;

/** Nodes and edges one diagram may have: enough for a real flow, bounded for the platform's rate limit. */
export const DIAGRAM_LIMITS = { nodes: 200, edges: 400, textChars: 6_000, nodeIdChars: 100 } as const;
export const READ_LIMITS = { maxItems: 2_000, defaultMaxItems: 500 } as const;
