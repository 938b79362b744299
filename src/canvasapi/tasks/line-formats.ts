/**
 * Every answer field of CanvasApi's task tools that holds a one-line format with platform text in
 * it, and the format (docs/tasks.md, "Platform text in lines"). Platform text is quoted in them
 * (core/tools/line-text.ts). `TEXT_FIELDS` hold one platform text alone, flattened. A test
 * (test/line-forgery.test.ts) fills every platform text with random text and checks that each of
 * these keeps its shape, and that no other answer field depends on platform text: a new format
 * must be listed here.
 */

/** Answer path (`[]` an array's items) -> format. */
export const LINE_FORMATS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'CanvasApi.ReadBoard': {
    'frames[]': 'ID "title" x,y wxh',
    'items[]': 'ID type x,y wxh [frame "title"] [#"tag" ...]: "text"',
    'connectors[]': 'ID: from ["text"] -> to ["text"] [caption "caption"]',
    // format: "outline" (board-outline-lines.ts).
    'outline.frames[]': 'ID "title" left,top to right,bottom: N type, ...|empty[; texts: ID "text", ...[, +N more]]',
    'outline.open_board': '[outside frames: ]N type, ...[; texts: ID "text", ...[, +N more]]',
    'outline.clusters[]': 'in ID|on the board N notes left,top to right,bottom [colour(s) [of N of N notes:] name, ...] [#"tag" ...]: ID "text", ...[, +N more]',
    'outline.flows[]': 'ID "text" -> ID "text" -["caption"]-> ID ... [(joins)|(cycle)]',
    'outline.overlaps[]': 'ID "text" type and ID "text" type',
    'outline.outside_frames[]': 'ID "text" type [left,top to right,bottom]',
    'outline.ambiguous[]': 'a sentence of the server\'s, naming items as ID "text"',
    // format "mermaid" (board-mermaid.ts): texts in Mermaid's quotes, with " \\ # | % < > ` as #<code>;.
    'mermaid[]': '%% toolservers board=ID frame=ID|seeds=ID,... read=TIME state=HEX | flowchart TB|LR | iID<bracket>"text"<bracket>[:::type] | iID cID@--> [|"caption"|] iID',
  },
  'CanvasApi.CreateDiagram': {
    placed: 'N new nodes beside item ID "text"[, in its frame ID], clear of the N items read ... (or, without item:<ID> ends: at 0,0 ... | right of the N items read on the board ...: no platform text)',
    'failed[].error': 'kind (HTTP status): "the platform\'s message"',
  },
  // CreateDiagram's drawing step: the same lines.
  'CanvasApi.CreateBoardLayout': {
    placed: 'N new nodes at 0,0 ... | right of the N items read on the board ...: no platform text',
    'failed[].error': 'kind (HTTP status): "the platform\'s message"',
  },
  'CanvasApi.EditDiagram': {
    'plan[]': 'rename iID type "text" -> "text" | caption cID iID -> iID: "text" -> "text" | remove cID iID -> iID [(with iID)] | remove iID type "text" | add key shape "text" beside ... at x,y | add edge key -> key [caption "text"]',
    'done[]': 'the plan\'s lines (an added node: ... as iID)',
    'failed[].change': 'a line of the plan',
    'failed[].error': 'kind (HTTP status): "the platform\'s message"',
    'not_sent[]': 'a line of the plan',
    'changed_since_read[]': 'iID type "text": added|modified since the read (TIME) | cID: connector iID -> iID ... | iID: no longer in the diagram ...',
  },
  // Area, scale and item IDs only: the board's text is in the picture.
  'CanvasApi.ViewBoard': {},
  // The preview's line per item; colours are the platform's too (bare when they look like one, else quoted).
  'CanvasApi.BulkEditItems': {
    'changes[]': 'ID type "text": color a -> b; text "old" -> "new"; at x,y -> x,y [(in frame ID)]; width a -> b; height a -> b; tags +"title" -"title" | ID type "text": delete',
    'failed[].error': 'kind (HTTP status): "the platform\'s message"',
  },
};

/** Fields that hold one platform text alone: flattened to one line, not quoted. */
export const TEXT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  'CanvasApi.ReadBoard': ['board.name', 'board.description'],
  // Not a text but a digest of the items' state (text included): it changes with platform text and holds none of it (letters, digits, `.-_`).
  'CanvasApi.BulkEditItems': ['confirm'],
};
