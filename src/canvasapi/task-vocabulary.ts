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

/** How an edge names an item already on the board: `item:3458764612345`. */
export const EXISTING_ITEM_PREFIX = 'item:';
/** An edge end that names no node but looks like the platform's item IDs (digits) is looked up as one. */
export const BARE_ITEM_ID = /^[0-9]{1,40}$/;
/** Mermaid text CreateDiagram reads at most: a 200-node flowchart with long labels fits; parsing it is linear and takes milliseconds. */
export const MERMAID_CHARS = 50_000;
/** Frames a Mermaid diagram may have (one per subgraph). */
export const MERMAID_FRAMES = 20;
/**
 * Reads to extend a diagram: each existing item an edge names (at most `items`), its frame, and
 * the items around where the new nodes go (the frame's children, or the board's), `pages` of 50 each.
 */
export const EXTEND_READS = { items: 20, frames: 1, pages: 10 } as const;
/** Reads to place a new diagram without an origin clear of the board's items: `pages` of 50 each. */
export const PLACE_READS = { pages: 10 } as const;

/** Nodes per bulk-create transaction (the platform's largest). */
export const DIAGRAM_BULK_SIZE = 20;

/**
 * CreateDiagram's budget: exactly the creates it may send (a frame, the node transactions, one
 * connector per edge), the reads that place it (extending: the named items, their frame and the
 * items around; else, without an origin, the board's items), and time for its layout and those
 * requests, within two minutes: the largest diagram is 411 requests, four connectors at a time.
 */
export function createDiagramBudget(args: { nodes?: readonly { id: string }[] | undefined; edges?: readonly { from: string; to: string }[] | undefined; frame_title?: string | undefined; mermaid?: string | undefined; origin_x?: number | undefined; origin_y?: number | undefined }): { requests: number; wallMs: number } {
  // Mermaid text is read on the first call (its reader is not loaded at start): sized for the largest it may hold.
  const creates = args.mermaid !== undefined
    ? MERMAID_FRAMES + Math.ceil(DIAGRAM_LIMITS.nodes / DIAGRAM_BULK_SIZE) + DIAGRAM_LIMITS.edges
    : (args.frame_title ? 1 : 0) + Math.ceil((args.nodes?.length ?? 0) / DIAGRAM_BULK_SIZE) + (args.edges?.length ?? 0);
  const nodeIds = new Set((args.nodes ?? []).map((node) => node.id));
  // An end that names no node but looks like an item ID is read like an item:<ID> one.
  const names = (end: string) => end.startsWith(EXISTING_ITEM_PREFIX) || (!nodeIds.has(end) && BARE_ITEM_ID.test(end));
  const extending = args.mermaid !== undefined ? args.mermaid.includes(EXISTING_ITEM_PREFIX) : (args.edges ?? []).some((e) => names(e.from) || names(e.to));
  const placing = args.origin_x === undefined && args.origin_y === undefined ? PLACE_READS.pages : 0;
  const requests = creates + (extending ? EXTEND_READS.items + EXTEND_READS.frames + 2 * EXTEND_READS.pages : placing);
  return { requests, wallMs: Math.min(115_000, 45_000 + 250 * requests) };
}

/**
 * What one ReadBoard call reads at most, in pages of 50 (the platform's largest) or requests:
 * sized from what it answers (`max_items`, the items it skips to reach `offset`, a filter to
 * scan for), so its budget (core/call-budget.ts) follows from its arguments.
 */
export const BOARD_READS = {
  pageSize: 50,
  /** Item pages are made smaller after one past this size, down to the platform's least `limit` (tasks/board-tags.ts, pageSizeAfter). */
  pageBytes: 4_000_000,
  leastPageSize: 10,
  /** Item pages: those the answer needs, one to look ahead, and this many more to scan for a filter's matches. */
  filterScanPages: 20,
  maxItemPages: 40,
  /** Frames listed (`type=frame`): 100. */
  framePages: 2,
  /** Connectors checked for the listed items: 2 pages, one more per 50 items, at most 20 (1,000 connectors). */
  connectorPages: (maxItems: number) => Math.min(20, 2 + Math.ceil(maxItems / 50)),
  /** Tag list pages searched for `query` (200 tags), and requests for the items of the tags that match. */
  queryTagListPages: 4,
  queryTagRequests: 8,
  /** Requests for the tags of the listed items (per item, or per tag when the board has few). */
  tagRequests: 32,
  /** `counts: true`: one request per item type, for its total. */
  countRequests: 10,
  /**
   * Bytes of platform text one call keeps for its answer (tasks/kept-text.ts counts them): the
   * listed items' lines, and of everything else read only cut copies (the first 40 characters of
   * each item, frame titles to 200, tag titles to 120, captions to 200), about 3 MB at the most.
   */
  keptBytes: 4_000_000,
} as const;

interface ReadBoardReadArgs {
  frame_id?: string | undefined;
  item_types?: readonly string[] | undefined;
  query?: string | undefined;
  max_items?: number | undefined;
  offset?: number | undefined;
  cursor?: string | undefined;
  counts?: boolean | undefined;
  format?: string | undefined;
}

/** Item pages one call may read: enough for its items (and the ones skipped to reach `offset`), plus a scan for filters. */
export function itemPagesFor(args: ReadBoardReadArgs): number {
  const answered = args.max_items ?? READ_LIMITS.defaultMaxItems;
  // With a cursor the offset is where it continues: nothing to skip (when it is further, the skip counts against the cap).
  const skipped = args.cursor ? 0 : (args.offset ?? 0);
  const filtered = args.query !== undefined || args.item_types !== undefined;
  return Math.min(BOARD_READS.maxItemPages, Math.ceil((skipped + answered) / BOARD_READS.pageSize) + 1 + (filtered ? BOARD_READS.filterScanPages : 0));
}

/**
 * ReadBoard's outline (`format: "outline"`, tasks/board-outline-read.ts): the whole board (or a
 * frame) up to `maxItems` items, and the colours of at most `styleReads` sticky notes (one GET
 * each, `styleConcurrency` at a time).
 */
export const OUTLINE_READS = { maxItems: READ_LIMITS.maxItems, styleReads: 40, styleConcurrency: 4 } as const;

/** Item pages the outline reads: as many as `maxItems` fill, within ReadBoard's cap. */
export function outlineItemPages(maxItems: number): number {
  return Math.min(BOARD_READS.maxItemPages, Math.ceil(maxItems / BOARD_READS.pageSize));
}

/** The outline's budget: the board, the frame or the frames, its item pages, the connectors, the tag list's first page, the tags, the colours. */
function outlineBudget(args: ReadBoardReadArgs): number {
  const maxItems = args.max_items ?? OUTLINE_READS.maxItems;
  return 1 + (args.frame_id ? 1 : BOARD_READS.framePages) + outlineItemPages(maxItems) + BOARD_READS.connectorPages(maxItems) + 1 + BOARD_READS.tagRequests + OUTLINE_READS.styleReads;
}

/** ReadBoard's budget: the sum of what each of its reads may take. */
export function readBoardBudget(args: ReadBoardReadArgs): { requests: number; keptBytes: number } {
  if (args.format === 'mermaid') return { requests: MERMAID_READS.requests, keptBytes: BOARD_READS.keptBytes };
  const reads = BOARD_READS;
  if (args.format === 'outline') return { requests: outlineBudget(args), keptBytes: reads.keptBytes };
  const requests =
    1 + // the board
    (args.frame_id ? 1 : reads.framePages) +
    itemPagesFor(args) +
    reads.connectorPages(args.max_items ?? READ_LIMITS.defaultMaxItems) +
    (args.query ? reads.queryTagListPages + reads.queryTagRequests : 1) +
    reads.tagRequests +
    (args.counts ? reads.countRequests : 0);
  return { requests, keptBytes: reads.keptBytes };
}

/**
 * CanvasApi.ViewBoard (tasks/view-board-call.ts): what one picture may hold and read. Past
 * `maxItems` items in the area a picture is no longer readable (about 40x40 px an item at 1,568
 * px), so the call is refused naming a frame or an area to narrow to. The items list carries no
 * style: each coloured item is one GET of its own, at most `styleReads`; the rest are drawn grey.
 */
/** `coordinate`: the largest board coordinate taken or drawn (board-picture.ts clamps the platform's to it): differences stay finite. */
export const VIEW_LIMITS = { maxItems: 600, itemIds: 100, defaultLongSidePx: 1568, minLongSidePx: 256, maxLongSidePx: 2048, coordinate: 1e9 } as const;
export const VIEW_READS = {
  /** Item pages of 50: a whole board or a frame stops at maxItems (one page more says so). */
  itemPages: Math.ceil(VIEW_LIMITS.maxItems / BOARD_READS.pageSize) + 1,
  /** An area: item pages in all; the board's first `areaLoosePages`, then the children of the frames overlapping it. */
  areaItemPages: 40,
  areaLoosePages: 20,
  /** Mind-map nodes (experimental endpoint): one page. */
  mindmapPages: 1,
  /** Frames listed (`type=frame`) to place children and to find a frame by title: 100. */
  framePages: 2,
  /** Connectors of the board looked through for those between the items shown: 1,000. */
  connectorPages: 20,
  styleReads: 150,
} as const;

interface ViewBoardReadArgs {
  frame_id?: string | undefined;
  item_ids?: readonly string[] | undefined;
  area?: unknown;
}

/** ViewBoard's budget: the sum of its reads (the frame, or the frames list; the items and mind-map nodes; connectors; styles). */
export function viewBoardBudget(args: ViewBoardReadArgs): { requests: number } {
  const r = VIEW_READS;
  const items = args.item_ids ? args.item_ids.length : args.area ? r.areaItemPages + r.mindmapPages : r.itemPages + (args.frame_id ? 0 : r.mindmapPages);
  return { requests: (args.frame_id ? 1 : 0) + r.framePages + items + r.connectorPages + r.styleReads };
}

/** CreateBoardLayout's layouts and bounds: sections (frames) and items (sticky notes) in one layout, characters per text. */
export const BOARD_LAYOUTS = ['retro', 'kanban', 'story_map', 'two_by_two', 'swot', 'brainstorm'] as const;
export type BoardLayoutName = (typeof BOARD_LAYOUTS)[number];
export const LAYOUT_LIMITS = { sections: 12, releases: 8, items: 200, textChars: 1_000, titleChars: 200 } as const;

/**
 * CreateBoardLayout's budget: a frame per section (a story map: the backbone and one per release),
 * the headers and notes in transactions of 20, and without an origin the reads that place it
 * clear of the board (at most 12 + 11 + 10 = 33 requests; a story map 9 + 11 + 10 = 30).
 */
export function createBoardLayoutBudget(args: { layout?: string; sections?: readonly { items: readonly string[] }[] | undefined; releases?: readonly { stories: readonly (readonly string[])[] }[] | undefined; origin_x?: number | undefined; origin_y?: number | undefined }): { requests: number; wallMs: number } {
  const sections = args.sections?.length ?? 0;
  const releases = args.releases?.length ?? 0;
  const items = (args.sections ?? []).reduce((sum, section) => sum + section.items.length, 0) + (args.releases ?? []).reduce((sum, release) => sum + release.stories.reduce((n, list) => n + list.length, 0), 0);
  const frames = args.layout === 'story_map' ? 1 + releases : sections;
  const placing = args.origin_x === undefined && args.origin_y === undefined ? PLACE_READS.pages : 0;
  const requests = frames + Math.ceil((sections + releases + items) / DIAGRAM_BULK_SIZE) + placing;
  return { requests, wallMs: Math.min(115_000, 45_000 + 250 * requests) };
}

/**
 * CanvasApi.BulkEditItems (tasks/bulk-edit.ts): `maxItems` changed or deleted in one call (more
 * matches are refused before anything is written, with their count); `scanPages` pages of 50 of
 * the list the filter starts from (1,000 items); `styleReads` GETs of the items' own records when
 * colour matters (the items list has no style); the board's tags, `tagPages` pages of 50.
 */
export const BULK_LIMITS = { maxItems: 100, scanPages: 20, styleReads: 200, tagPages: 4, tagsPerChange: 8, textChars: 6_000, findChars: 200 } as const;

interface BulkEditBudgetArgs {
  filter?: { item_ids?: readonly string[] | undefined; tag?: string | undefined; color?: string | undefined } | undefined;
  update?: { color?: string | undefined; add_tags?: readonly string[] | undefined; remove_tags?: readonly string[] | undefined } | undefined;
  delete?: boolean | undefined;
  confirm?: string | undefined;
}

/**
 * BulkEditItems' budget: its reads (the tags, the filter's list or the named items, the items'
 * own records when colour matters, their tags when tags change) and, only with `confirm`, its
 * writes (a PATCH or DELETE per item, a request per tag attached or removed): a preview can write nothing.
 */
export function bulkEditBudget(args: BulkEditBudgetArgs): { requests: number; wallMs: number } {
  const limits = BULK_LIMITS;
  const tagChanges = (args.update?.add_tags?.length ?? 0) + (args.update?.remove_tags?.length ?? 0);
  const reads =
    (args.filter?.tag !== undefined || tagChanges > 0 ? limits.tagPages : 0) +
    (args.filter?.item_ids && args.filter.tag === undefined ? args.filter.item_ids.length : limits.scanPages) +
    (args.filter?.color !== undefined || args.update?.color !== undefined ? limits.styleReads : 0) +
    (tagChanges > 0 ? limits.maxItems : 0);
  const writes = args.confirm === undefined ? 0 : limits.maxItems * (args.delete ? 1 : 1 + tagChanges);
  const requests = reads + writes;
  return { requests, wallMs: Math.min(115_000, 45_000 + 50 * requests) };
}

/**
 * A diagram read as Mermaid (ReadBoard `format: "mermaid"`, EditDiagram): the frame, its items
 * (or the board's, for a query's connected shapes) and the board's connectors, `itemPages` and
 * `connectorPages` pages of 50; a scope larger than that is refused, not read in part.
 */
export const MERMAID_READS = { itemPages: 20, connectorPages: 20, requests: 1 + 20 + 20 } as const;
/**
 * What one EditDiagram call may change: new nodes (one bulk transaction, each placed by a search
 * around its neighbour), and changes in all (renames, deletes, connectors, captions).
 */
export const EDIT_LIMITS = { newNodes: DIAGRAM_BULK_SIZE, changes: 200 } as const;

/** EditDiagram's budget: the scope read twice over at most (the read, and the frame for placing), then its changes. */
export function editDiagramBudget(): { requests: number; wallMs: number } {
  const requests = MERMAID_READS.requests + 1 + 1 + EDIT_LIMITS.changes;
  return { requests, wallMs: 115_000 };
}
