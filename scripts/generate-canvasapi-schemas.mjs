#!/usr/bin/env node
// Generates src/canvasapi/request-schemas.ts: the request-body JSON Schemas of the
// CanvasApi tools that take `mode: get_request_schema | execute` plus `request_body`.
//
// Input:  the official Miro OpenAPI 3.0 document. Path from $MIRO_OPENAPI, default
//         ../shared/reference/miro-openapi.json; relative paths are taken from the repo root.
// Output: $CANVASAPI_SCHEMAS_OUT, default src/canvasapi/request-schemas.ts (repo-root relative).
//
// What the generator does with each tool's requestBody schema:
//   * inlines every $ref (the output has no $ref / $defs);
//   * converts OpenAPI 3.0 dialect to JSON Schema 2020-12 (validated with Ajv2020, strict=false,
//     plus ajv-formats);
//   * keeps only validation keywords on an allow-list (type, enum, const, required, numeric and
//     length bounds, pattern, format, default, properties, additionalProperties, items,
//     oneOf/anyOf/allOf/not) and drops everything else (example, examples, xml, x-*,
//     discriminator, externalDocs, deprecated, readOnly/writeOnly, the spec's own titles);
//   * never copies a spec `description`: descriptions come only from DESCRIPTIONS below (our
//     own words) or from short notes generated from the constraints themselves;
//   * writes keys in a fixed order so the output is byte-for-byte reproducible.
//
// Spec quirks handled (each one also flagged with "QUIRK" where it is dealt with):
//   Q1  `nullable: true` (OpenAPI 3.0) -> type array including "null" (and null added to enum).
//   Q2  Boolean `exclusiveMinimum`/`exclusiveMaximum` (3.0) -> numeric 2020-12 form.
//   Q3  `$ref` with sibling keywords, and `allOf: [ {$ref} ]` wrappers -> merged into one schema.
//   Q4  `readOnly: true` properties -> removed from request bodies (and from `required`).
//   Q5  Numeric bounds on string-typed fields (borderOpacity, fontSize, strokeWidth, ... are
//       strings with minimum/maximum in the spec). JSON Schema ignores minimum/maximum on
//       strings, so they are dropped and the range is stated in the description instead.
//   Q6  Keywords that do not apply to the declared type (e.g. `maxLength: 20` on the
//       connector `captions` array) are dropped.
//   Q7  `format: int64` on string IDs (parent.id, assigneeId): ajv-formats' int64 only checks
//       numbers, so on a string it is meaningless; dropped (the description says "numeric ID").
//   Q8  Placeholder defaults: the spec gives sample values as `default` (a dummy PDF/YouTube/PNG
//       URL for the required `url`, "sample app card item", "Sample frame title"). A default on
//       a required property, or a URL / "sample" string, is dropped.
//   Q9  Bulk create (create-items): the body is an array of ItemCreate whose `data` and `style`
//       are `oneOf` unions of open, all-optional object variants. Most real items match several
//       branches, so a strict oneOf rejects valid bodies. We emit one schema per item `type`
//       (pairing the type with its own data/style variant, see ITEM_TYPE_VARIANTS) and make the
//       top-level schema a plain array of {type: <enum>} objects without oneOf.
//   Q10 `frame` is an ItemCreate type but neither union has a frame variant: it takes the data
//       and style of the single-frame create (FrameCreateRequest), which requires data, as the
//       platform does in bulk too. Document, embed and image have no style variant: plain objects.
//   Q11 The spec marks only `type` required for a bulk item; for types whose data variant has
//       required fields (text content, image/document/embed url) the item requires `data`.
//   Q12 Connector creation: the spec requires startItem/endItem but not their `id`, which the
//       API cannot do without; `id` is required inside both end points on create.
//   Q13 Both shape tools (v2 and v2-experimental flowchart) reuse the same ShapeCreateRequest /
//       ShapeUpdateRequest; data.shape has no enum there (flowchart names are accepted), so the
//       description lists common values instead of inventing an enum.
//   Q14 A property named `description` (board, card, app card) is a field, not an annotation:
//       the keyword filter only touches schema keywords, never names inside `properties`.
//   Q15 PATCH bodies: every update tool's spec body already has no top-level `required`
//       (UpdateCanvasBoard reuses the create schema BoardChanges, which requires nothing).
//       Nested requirements are kept (e.g. data.content when `data` is sent to UpdateBoardText,
//       captions[].content), because the API rejects those objects without them.
//   Q16 CreateCanvasBoard / CopyCanvasBoard bodies are optional in the spec
//       (requestBody.required is false); the schema describes the object to send when there is
//       one, and says so.
//   Q17 Content URLs (`data.url`, `data.previewUrl` of images, documents and embeds) are plain
//       strings in the spec, but the platform refuses anything but an http(s) URL: they get
//       `format: uri` and the pattern `^https?://`, so the schema says what will be accepted.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const specPath = path.resolve(repoRoot, process.env.MIRO_OPENAPI ?? '../shared/reference/miro-openapi.json');
const outPath = path.resolve(repoRoot, process.env.CANVASAPI_SCHEMAS_OUT ?? 'src/canvasapi/request-schemas.ts');

// ---------------------------------------------------------------------------------------------
// The 20 two-mode tools: tool name (without the `CanvasApi.` prefix) -> spec operation.
// `kind` selects kind-specific descriptions; `title`/`description` are ours.
// ---------------------------------------------------------------------------------------------
const TOOLS = {
  CreateCanvasBoard: {
    method: 'post', path: '/v2/boards', kind: 'board',
    title: 'Create board: request body',
    description: 'Settings for the new board; every field is optional and {} creates an untitled board with default sharing.',
  },
  CopyCanvasBoard: {
    method: 'put', path: '/v2/boards', kind: 'board',
    title: 'Copy board: request body',
    description: 'Overrides applied to the copy (the source board is given separately). Every field is optional.',
  },
  UpdateCanvasBoard: {
    method: 'patch', path: '/v2/boards/{board_id}', kind: 'board',
    title: 'Update board: request body',
    description: 'Only the fields you send are changed.',
  },
  AddItemsToCanvasBoard: {
    method: 'post', path: '/v2/boards/{board_id}/items/bulk', kind: 'bulk',
    title: 'Create items in bulk: request body',
    description: 'A JSON array of 1 to 20 items, possibly of different types. All are created or none is. Each item is checked against the schema for its `type`.',
  },
  AddAppCardToBoard: {
    method: 'post', path: '/v2/boards/{board_id}/app_cards', kind: 'app_card',
    title: 'Create app card: request body',
    description: 'Content, style and placement of the new app card.',
  },
  UpdateCanvasAppCard: {
    method: 'patch', path: '/v2/boards/{board_id}/app_cards/{item_id}', kind: 'app_card',
    title: 'Update app card: request body',
    description: 'Only the fields you send are changed.',
  },
  AddCardToCanvasBoard: {
    method: 'post', path: '/v2/boards/{board_id}/cards', kind: 'card',
    title: 'Create card: request body',
    description: 'Content, style and placement of the new card.',
  },
  UpdateCardOnBoard: {
    method: 'patch', path: '/v2/boards/{board_id}/cards/{item_id}', kind: 'card',
    title: 'Update card: request body',
    description: 'Only the fields you send are changed.',
  },
  AddConnectorToBoard: {
    method: 'post', path: '/v2/boards/{board_id}/connectors', kind: 'connector',
    title: 'Create connector: request body',
    description: 'A line joining two existing items (startItem.id and endItem.id must differ; frames cannot be joined).',
  },
  UpdateConnectorOnBoard: {
    method: 'patch', path: '/v2/boards/{board_id}/connectors/{connector_id}', kind: 'connector',
    title: 'Update connector: request body',
    description: 'Only the fields you send are changed.',
  },
  AddShapeToCanvasBoard: {
    method: 'post', path: '/v2/boards/{board_id}/shapes', kind: 'shape',
    title: 'Create shape: request body',
    description: 'Shape type, text, style and placement of the new shape.',
  },
  UpdateBoardShape: {
    method: 'patch', path: '/v2/boards/{board_id}/shapes/{item_id}', kind: 'shape',
    title: 'Update shape: request body',
    description: 'Only the fields you send are changed.',
  },
  AddStickyNoteToBoard: {
    method: 'post', path: '/v2/boards/{board_id}/sticky_notes', kind: 'sticky_note',
    title: 'Create sticky note: request body',
    description: 'Text, colour and placement of the new sticky note.',
  },
  UpdateStickyNote: {
    method: 'patch', path: '/v2/boards/{board_id}/sticky_notes/{item_id}', kind: 'sticky_note',
    title: 'Update sticky note: request body',
    description: 'Only the fields you send are changed.',
  },
  AddTextToCanvasBoard: {
    method: 'post', path: '/v2/boards/{board_id}/texts', kind: 'text',
    title: 'Create text item: request body',
    description: 'A free-standing text item; data.content is required.',
  },
  UpdateBoardText: {
    method: 'patch', path: '/v2/boards/{board_id}/texts/{item_id}', kind: 'text',
    title: 'Update text item: request body',
    description: 'Only the fields you send are changed.',
  },
  AddFlowchartShapeToBoard: {
    method: 'post', path: '/v2-experimental/boards/{board_id}/shapes', kind: 'shape',
    title: 'Create flowchart shape (experimental API): request body',
    description: 'Like creating a shape, but data.shape may also be a flow_chart_* shape.',
  },
  UpdateFlowchartShape: {
    method: 'patch', path: '/v2-experimental/boards/{board_id}/shapes/{item_id}', kind: 'shape',
    title: 'Update flowchart shape (experimental API): request body',
    description: 'Only the fields you send are changed.',
  },
  UpdateCanvasBoardFrame: {
    method: 'patch', path: '/v2/boards/{board_id}/frames/{item_id}', kind: 'frame',
    title: 'Update frame: request body',
    description: 'Only the fields you send are changed.',
  },
  UpdateTeamSettings: {
    method: 'patch', path: '/v2/orgs/{org_id}/teams/{team_id}/settings', kind: 'team',
    title: 'Update team settings: request body',
    description: 'Five optional groups of team-wide settings; only the settings you send are changed.',
  },
};

// Q9/Q10: bulk item type -> the ItemDataCreate / ItemStyle oneOf branch it pairs with
// (null: the spec has no variant for that part). Checked against the spec at run time.
const ITEM_TYPE_VARIANTS = {
  app_card: { data: 'AppCardData', style: 'AppCardStyle' },
  card: { data: 'CardData', style: 'CardStyle' },
  document: { data: 'DocumentUrlData', style: null },
  embed: { data: 'EmbedUrlData', style: null },
  // Not in either union: a frame takes the data and style of the single-frame create (QUIRK Q10).
  frame: { data: null, style: null, single: 'FrameCreateRequest' },
  image: { data: 'ImageUrlData', style: null },
  shape: { data: 'ShapeData', style: 'ShapeStyle' },
  sticky_note: { data: 'StickyNoteData', style: 'StickyNoteStyle' },
  text: { data: 'TextData', style: 'TextStyle' },
};
const BULK_ITEM_SCHEMA = 'ItemCreate';
const BULK_TYPE_SCHEMA = 'ItemTypeChange';
const BULK_DATA_UNION = 'ItemDataCreate';
const BULK_STYLE_UNION = 'ItemStyle';

// Q12: extra `required` entries, keyed "<ToolName>:<body path>".
const EXTRA_REQUIRED = {
  'AddConnectorToBoard:startItem': ['id'],
  'AddConnectorToBoard:endItem': ['id'],
};

// ---------------------------------------------------------------------------------------------
// Descriptions, in our own words. Key = a suffix of the property's path inside the body
// (segments joined by '.', array items as '[]'); the longest matching suffix wins. A value is a
// string or a function (schema, ctx) -> string | undefined, ctx = { kind, tool }.
// ---------------------------------------------------------------------------------------------
const SHAPE_EXAMPLES = 'rectangle, round_rectangle, circle, triangle, rhombus, parallelogram, hexagon, star, cloud, cross, can, right_arrow, left_right_arrow';
const FLOWCHART_EXAMPLES = 'flow_chart_process, flow_chart_decision, flow_chart_terminator, flow_chart_input_output, flow_chart_document, flow_chart_connector';

const DESCRIPTIONS = {
  // placement
  'position': 'Where to put the item.',
  'position.x': 'Horizontal coordinate of the item centre, in board units; 0 is the board centre. Inside a parent frame it is measured from the frame top-left corner.',
  'position.y': 'Vertical coordinate of the item centre, in board units (grows downwards); 0 is the board centre. Inside a parent frame it is measured from the frame top-left corner.',
  'geometry': 'Size (and rotation, where supported) of the item.',
  'geometry.width': (s, ctx) => ctx.kind === 'sticky_note'
    ? 'Width in board units. Sticky notes keep their aspect ratio: set width or height, not both.'
    : 'Width in board units.',
  'geometry.height': (s, ctx) => ctx.kind === 'sticky_note'
    ? 'Height in board units. Sticky notes keep their aspect ratio: set width or height, not both.'
    : 'Height in board units.',
  'geometry.rotation': 'Rotation in degrees; positive turns clockwise.',
  'parent': 'Frame that should contain the item.',
  'parent.id': 'ID of the frame to place the item in (a numeric ID, sent as a string).',
  // item content
  'data': 'Content of the item.',
  'data.content': (s, ctx) => ({
    sticky_note: 'Text written on the sticky note.',
    shape: 'Text written inside the shape.',
    text: 'The text to show on the board.',
  })[ctx.kind] ?? 'Text written on the item.',
  'data.shape': (s, ctx) => {
    if (ctx.kind === 'sticky_note') return 'Outline of the sticky note: square or rectangle.';
    if (Array.isArray(s.enum)) return 'Kind of shape to draw.';
    return `Kind of shape to draw, for example ${SHAPE_EXAMPLES}; flowchart shapes (${FLOWCHART_EXAMPLES}, ...) are accepted too.`;
  },
  'data.title': (s, ctx) => ({
    card: 'Heading of the card.',
    app_card: 'Heading of the app card.',
    frame: 'Frame title, shown above the frame.',
    document: 'Title shown for the document.',
    image: 'Title shown for the image.',
  })[ctx.kind] ?? 'Heading of the item.',
  'data.description': (s, ctx) => ctx.kind === 'app_card' ? 'Body text of the app card.' : 'Body text of the card.',
  'data.dueDate': 'Due date: an ISO 8601 UTC date-time such as 2025-06-30T17:00:00Z.',
  'data.assigneeId': 'Numeric ID (as a string) of the user the card is assigned to.',
  'data.url': (s, ctx) => ({
    image: 'Public URL of the image to show.',
    document: 'Public URL of the document (for example a PDF) to show.',
    embed: 'URL of the web content to embed (http or https).',
  })[ctx.kind] ?? 'URL of the content.',
  'data.previewUrl': 'URL of an image shown as the preview of the embed.',
  'data.mode': 'inline shows the content on the board; modal opens it in an overlay.',
  'data.status': 'Whether the app card is linked to its source: connected, disconnected or disabled.',
  'data.fields': 'Preview fields shown at the bottom of the app card.',
  'data.fields[].value': 'Text of the preview field.',
  'data.fields[].tooltip': 'Text shown on hover over the preview field.',
  'data.fields[].iconUrl': 'HTTPS URL of an icon (JPG, PNG or SVG).',
  'data.fields[].iconShape': 'Icon outline: round or square.',
  'data.fields[].fillColor': 'Background colour of the field, as a hex code.',
  'data.fields[].textColor': 'Colour of the field text, as a hex code.',
  'data.format': 'Frame format; only custom is accepted.',
  'data.type': 'Frame type; only freeform is accepted.',
  'data.showContent': 'false hides what is inside the frame (Enterprise plan).',
  // item style
  'style': 'Look of the item.',
  'style.fillColor': (s, ctx) => {
    if (Array.isArray(s.enum)) return 'Sticky note colour, by name.';
    if (ctx.kind === 'text') return 'Background colour behind the text, as a hex code such as #fff9b1.';
    return 'Background colour as a hex code such as #fff9b1.';
  },
  'style.color': (s, ctx) => ctx.kind === 'connector'
    ? 'Colour of the caption text, as a hex code.'
    : 'Colour of the text, as a hex code such as #1a1a1a.',
  'style.borderColor': 'Border colour as a hex code.',
  'style.borderStyle': 'Border line pattern.',
  'style.fontFamily': 'Typeface of the text.',
  'style.textAlign': 'Horizontal alignment of the text.',
  'style.textAlignVertical': 'Vertical alignment of the text.',
  'style.fontSize': 'Text size.',
  'style.borderWidth': 'Border thickness.',
  'style.borderOpacity': 'Border opacity: 0 is invisible, 1 is solid.',
  'style.fillOpacity': 'Background opacity: 0 is transparent, 1 is solid.',
  'style.strokeWidth': 'Line thickness.',
  'style.cardTheme': 'Colour of the card border, as a hex code.',
  'style.strokeColor': 'Colour of the connector line, as a hex code.',
  'style.strokeStyle': 'Line pattern of the connector.',
  'style.startStrokeCap': 'Decoration at the start of the line (none, arrow, ...).',
  'style.endStrokeCap': 'Decoration at the end of the line (arrow, stealth, ...).',
  'style.textOrientation': 'Caption orientation: horizontal, or aligned with the line.',
  // connectors
  'startItem': 'Where the connector starts.',
  'endItem': 'Where the connector ends.',
  'startItem.id': 'ID of the item the connector starts from (frames are not supported).',
  'endItem.id': 'ID of the item the connector ends at (frames are not supported); must differ from startItem.id.',
  'startItem.snapTo': 'Side of the item to attach to (auto picks one). Use snapTo or position, not both.',
  'endItem.snapTo': 'Side of the item to attach to (auto picks one). Use snapTo or position, not both.',
  'startItem.position': 'Attachment point relative to the item, as percentages, e.g. {"x":"50%","y":"0%"} is the middle of the top edge.',
  'endItem.position': 'Attachment point relative to the item, as percentages, e.g. {"x":"50%","y":"100%"} is the middle of the bottom edge.',
  'startItem.position.x': 'Percentage from the left edge, "0%" to "100%".',
  'startItem.position.y': 'Percentage from the top edge, "0%" to "100%".',
  'endItem.position.x': 'Percentage from the left edge, "0%" to "100%".',
  'endItem.position.y': 'Percentage from the top edge, "0%" to "100%".',
  'captions': 'Text labels placed along the connector.',
  'captions[].content': 'Label text (simple inline HTML allowed).',
  'captions[].position': 'Where along the line the label sits, as a percentage, e.g. "50%" for the middle.',
  'captions[].textAlignVertical': 'Label placement relative to the line.',
  'shape': (s, ctx) => ctx.kind === 'connector' ? 'How the line is drawn between the two items.' : undefined,
  // boards
  'name': (s, ctx) => ctx.kind === 'board' ? 'Board name.' : undefined,
  'description': (s, ctx) => ctx.kind === 'board' ? 'Board description text.' : undefined,
  'teamId': 'ID of the team that will own the board.',
  'projectId': 'ID of the project the board is added to.',
  'policy': 'Who may view, edit, copy and share the board.',
  'policy.permissionsPolicy': 'Who may use collaboration tools, copy the board and change its sharing.',
  'policy.sharingPolicy': 'Access levels for the public link, the organization and the team.',
  'policy.sharingPolicy.access': 'Access for anyone who has the board link.',
  'policy.sharingPolicy.organizationAccess': 'Access for members of the organization.',
  'policy.sharingPolicy.teamAccess': 'Access for members of the team.',
  'policy.sharingPolicy.inviteToAccountAndBoardLinkAccess': 'Role given to people who join through the team-and-board invite link.',
  'policy.permissionsPolicy.copyAccess': 'Who may copy the board or its content.',
  'policy.permissionsPolicy.sharingAccess': 'Who may change access and invite people.',
  'policy.permissionsPolicy.collaborationToolsStartAccess': 'Who may start timers, voting, video chat and similar tools.',
  // team settings
  'teamAccountDiscoverySettings': 'Whether organization members can find the team.',
  'teamAccountDiscoverySettings.accountDiscovery': 'hidden: invite only; request: members ask to join; join: members join freely.',
  'teamCollaborationSettings': 'Co-owner role on boards and projects.',
  'teamCopyAccessLevelSettings': 'Default copy permissions for new boards.',
  'teamInvitationSettings': 'Who may invite people to the team.',
  'teamSharingPolicySettings': 'Default access and sharing rules for boards in the team.',
  'teamCollaborationSettings.coOwnerRole': 'Turn the co-owner role on or off.',
  'teamCopyAccessLevelSettings.copyAccessLevel': 'Who may copy content of newly created boards by default.',
  'teamCopyAccessLevelSettings.copyAccessLevelLimitation': 'Whether copy rights may go to people outside the team.',
  'teamInvitationSettings.whoCanInvite': 'Which members may send team invitations.',
  'teamInvitationSettings.inviteExternalUsers': 'Whether people outside the team may be invited as collaborators.',
  'teamSharingPolicySettings.defaultBoardAccess': 'Default team-level access for new boards.',
  'teamSharingPolicySettings.defaultOrganizationAccess': 'Default organization-level access for new boards.',
  'teamSharingPolicySettings.defaultProjectAccess': 'Default team-level access for new projects.',
  'teamSharingPolicySettings.sharingViaPublicLink': 'Whether boards may be shared through a public link.',
  'teamSharingPolicySettings.allowListedDomains': 'Email domains allowed when domain restriction is on.',
};

// ---------------------------------------------------------------------------------------------
// Conversion
// ---------------------------------------------------------------------------------------------
const READ_ONLY = Symbol('readOnly');

const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const ARRAY_KEYWORDS = ['minItems', 'maxItems', 'uniqueItems'];
const OBJECT_KEYWORDS = ['minProperties', 'maxProperties'];
const GENERIC_KEYWORDS = ['enum', 'const', 'default', 'format'];

// Final key order of every schema object.
const KEY_ORDER = [
  'title', 'description', 'type', 'const', 'enum', 'format', 'pattern', 'minLength', 'maxLength',
  'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf', 'default',
  'minItems', 'maxItems', 'uniqueItems', 'items', 'minProperties', 'maxProperties', 'required',
  'properties', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'not',
];

function fail(message) {
  throw new Error(`generate-canvasapi-schemas: ${message}`);
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function resolvePointer(spec, ref) {
  if (!ref.startsWith('#/')) fail(`only local $refs are supported, got ${ref}`);
  let node = spec;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(key in node)) fail(`unresolvable $ref ${ref}`);
    node = node[key];
  }
  return node;
}

/** Inline $refs and fold single-member / object-only allOf wrappers (Q3). Returns raw OpenAPI. */
function expand(spec, schema, refStack) {
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    if (refStack.includes(ref)) fail(`recursive schema ${ref} cannot be inlined`);
    const { $ref: _ignored, ...siblings } = schema;
    // QUIRK Q3: siblings of $ref (ignored by OpenAPI 3.0 tooling but meant by authors, e.g.
    // nullable/readOnly) are laid over the target.
    const target = expand(spec, resolvePointer(spec, ref), [...refStack, ref]);
    return expand(spec, { ...target, ...siblings }, refStack);
  }
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...siblings } = schema;
    const members = allOf.map((m) => expand(spec, m, refStack));
    const mergeable = members.every((m) => isObject(m) && !m.oneOf && !m.anyOf && !m.allOf && !m.not
      && (m.type === undefined || m.type === 'object' || members.length === 1));
    if (mergeable) {
      // QUIRK Q3: `allOf: [{$ref: X}]` plus siblings, or allOf of plain object schemas.
      let merged = {};
      for (const m of members) {
        const props = { ...(merged.properties ?? {}) };
        for (const [k, v] of Object.entries(m.properties ?? {})) {
          if (k in props) fail('allOf members define the same property twice; cannot merge');
          props[k] = v;
        }
        const required = [...(merged.required ?? []), ...(m.required ?? [])];
        merged = { ...merged, ...m };
        if (Object.keys(props).length) merged.properties = props;
        if (required.length) merged.required = [...new Set(required)];
      }
      return expand(spec, { ...merged, ...siblings }, refStack);
    }
    return { ...siblings, allOf: members };
  }
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && isObject(v)) {
      out.properties = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, expand(spec, p, refStack)]));
    } else if ((k === 'items' || k === 'additionalProperties' || k === 'not') && isObject(v)) {
      out[k] = expand(spec, v, refStack);
    } else if ((k === 'oneOf' || k === 'anyOf') && Array.isArray(v)) {
      out[k] = v.map((m) => expand(spec, m, refStack));
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** Item content URLs (image, document, embed and its preview) the platform refuses unless http(s). */
const HTTP_URL_FIELDS = new Set(['data.url', 'data.previewUrl']);

function pathKey(segments) {
  return segments.join('.').replace(/\.\[\]/g, '[]');
}

function lookupDescription(segments, schema, ctx) {
  for (let start = 0; start < segments.length; start += 1) {
    const key = pathKey(segments.slice(start));
    if (key.startsWith('[]')) continue;
    const entry = DESCRIPTIONS[key];
    if (entry === undefined) continue;
    const text = typeof entry === 'function' ? entry(schema, ctx) : entry;
    if (text !== undefined) return text;
  }
  return undefined;
}

const formatNumber = (n) => String(n);

/**
 * Convert an expanded OpenAPI 3.0 schema to JSON Schema 2020-12.
 * ctx: { tool, kind, segments, parentRequired } (segments = property path inside the body;
 * parentRequired = the `required` list of the enclosing object, when this is a property).
 */
function convert(schema, ctx) {
  if (schema === true || schema === false) return schema;
  if (!isObject(schema)) fail(`unexpected schema at ${pathKey(ctx.segments) || '(body)'}: ${JSON.stringify(schema)}`);
  // QUIRK Q4: read-only properties are server-generated; they do not belong in a request.
  if (schema.readOnly === true && ctx.segments.length > 0) return READ_ONLY;

  const out = {};
  const baseType = schema.type;
  const types = Array.isArray(baseType) ? baseType : baseType === undefined ? [] : [baseType];
  const has = (t) => types.length === 0 || types.includes(t) || (t === 'number' && types.includes('integer'));
  const notes = [];

  if (baseType !== undefined) out.type = baseType;
  // QUIRK Q1: OpenAPI 3.0 `nullable`.
  if (schema.nullable === true && types.length > 0 && !types.includes('null')) {
    out.type = [...types, 'null'];
  }

  for (const k of GENERIC_KEYWORDS) if (k in schema) out[k] = schema[k];
  if (schema.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];

  if (has('string')) {
    for (const k of STRING_KEYWORDS) if (k in schema) out[k] = schema[k];
  }
  // QUIRK Q7: integer formats on strings check nothing (ajv-formats applies them to numbers).
  if (types.includes('string') && ['int32', 'int64'].includes(out.format)) delete out.format;
  // QUIRK Q17: content URLs are plain strings in the spec, but the platform takes only http(s) URLs.
  if (types.includes('string') && HTTP_URL_FIELDS.has(pathKey(ctx.segments.slice(-2)))) {
    out.format = 'uri';
    out.pattern = '^https?://';
  }
  if (has('number')) {
    for (const k of NUMBER_KEYWORDS) if (k in schema) out[k] = schema[k];
    // QUIRK Q2: boolean exclusive bounds (OpenAPI 3.0 / draft 4).
    for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']]) {
      if (typeof schema[flag] === 'boolean') {
        delete out[flag];
        if (schema[flag] && typeof schema[bound] === 'number') {
          out[flag] = schema[bound];
          delete out[bound];
        }
      }
    }
  } else if (types.includes('string') && (typeof schema.minimum === 'number' || typeof schema.maximum === 'number')) {
    // QUIRK Q5: numeric range on a string-typed field: state it instead of a no-op keyword.
    const { minimum: lo, maximum: hi } = schema;
    const range = lo !== undefined && hi !== undefined ? `from ${formatNumber(lo)} to ${formatNumber(hi)}`
      : lo !== undefined ? `of at least ${formatNumber(lo)}` : `of at most ${formatNumber(hi)}`;
    notes.push(`A number ${range}, sent as a JSON string rather than a number.`);
  }
  // QUIRK Q6: keywords of other types (e.g. maxLength on an array) are dropped by the has() gates.
  if (has('array')) {
    for (const k of ARRAY_KEYWORDS) if (k in schema) out[k] = schema[k];
    if (schema.items !== undefined) out.items = convert(schema.items, { ...ctx, segments: [...ctx.segments, '[]'], parentRequired: undefined });
  }
  if (has('object')) {
    for (const k of OBJECT_KEYWORDS) if (k in schema) out[k] = schema[k];
    const required = Array.isArray(schema.required) ? [...schema.required] : [];
    const extra = EXTRA_REQUIRED[`${ctx.tool}:${pathKey(ctx.segments)}`];
    if (extra) for (const r of extra) if (!required.includes(r)) required.push(r);
    if (isObject(schema.properties)) {
      out.properties = {};
      for (const name of Object.keys(schema.properties).sort()) {
        const child = convert(schema.properties[name], { ...ctx, segments: [...ctx.segments, name], parentRequired: required });
        if (child === READ_ONLY) continue;
        out.properties[name] = child;
      }
    }
    const known = out.properties ?? {};
    const kept = required.filter((r, i) => required.indexOf(r) === i && (r in known || !isObject(schema.properties)));
    if (kept.length) out.required = kept;
    if (schema.additionalProperties !== undefined) {
      out.additionalProperties = isObject(schema.additionalProperties)
        ? convert(schema.additionalProperties, { ...ctx, segments: [...ctx.segments, '*'], parentRequired: undefined })
        : schema.additionalProperties;
    }
  }
  for (const k of ['oneOf', 'anyOf', 'allOf']) {
    if (Array.isArray(schema[k])) out[k] = schema[k].map((m) => convert(m, ctx));
  }
  if (isObject(schema.not)) out.not = convert(schema.not, ctx);

  // QUIRK Q8: placeholder defaults.
  if ('default' in out) {
    const parentRequired = ctx.parentRequired ?? [];
    const name = ctx.segments[ctx.segments.length - 1];
    const d = out.default;
    if ((name !== undefined && parentRequired.includes(name))
      || (typeof d === 'string' && (/^https?:\/\//i.test(d) || /sample/i.test(d)))) {
      delete out.default;
    }
  }

  const described = ctx.segments.length > 0 ? lookupDescription(ctx.segments, out, ctx) : undefined;
  const description = [described, ...notes].filter(Boolean).join(' ');
  if (description) out.description = description;
  return out;
}

function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isObject(value)) return value;
  const out = {};
  const keys = Object.keys(value);
  const ordered = [...KEY_ORDER.filter((k) => keys.includes(k)), ...keys.filter((k) => !KEY_ORDER.includes(k)).sort()];
  for (const k of ordered) {
    if (k === 'properties') {
      out.properties = Object.fromEntries(Object.keys(value.properties).sort().map((p) => [p, canonical(value.properties[p])]));
    } else if (k === 'enum' || k === 'required' || k === 'default' || k === 'const') {
      out[k] = value[k];
    } else {
      out[k] = canonical(value[k]);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------
function operationBodySchema(spec, tool, def) {
  const op = spec.paths?.[def.path]?.[def.method];
  if (!op) fail(`${tool}: no operation ${def.method.toUpperCase()} ${def.path} in the spec`);
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (!schema) fail(`${tool}: ${def.method.toUpperCase()} ${def.path} has no application/json request body`);
  return { schema, required: op.requestBody.required === true };
}

function buildSchema(spec, rawSchema, ctx) {
  return convert(expand(spec, rawSchema, []), ctx);
}

function buildItemTypeSchemas(spec) {
  const schemas = spec.components?.schemas ?? {};
  const typeEnum = schemas[BULK_TYPE_SCHEMA]?.enum;
  if (!Array.isArray(typeEnum)) fail(`${BULK_TYPE_SCHEMA} enum not found`);
  const known = Object.keys(ITEM_TYPE_VARIANTS);
  const missing = typeEnum.filter((t) => !known.includes(t));
  const stale = known.filter((t) => !typeEnum.includes(t));
  if (missing.length || stale.length) fail(`bulk item types changed: new ${missing.join(',') || '-'}, gone ${stale.join(',') || '-'}`);
  const branchNames = (union) => (schemas[union]?.oneOf ?? []).map((b) => (b.$ref ?? '').split('/').pop());
  const dataBranches = branchNames(BULK_DATA_UNION);
  const styleBranches = branchNames(BULK_STYLE_UNION);
  const used = { data: new Set(), style: new Set() };
  for (const [type, v] of Object.entries(ITEM_TYPE_VARIANTS)) {
    if (v.data && !dataBranches.includes(v.data)) fail(`${v.data} (for ${type}) is not a branch of ${BULK_DATA_UNION}`);
    if (v.style && !styleBranches.includes(v.style)) fail(`${v.style} (for ${type}) is not a branch of ${BULK_STYLE_UNION}`);
    if (v.data) used.data.add(v.data);
    if (v.style) used.style.add(v.style);
  }
  const unusedData = dataBranches.filter((b) => !used.data.has(b));
  const unusedStyle = styleBranches.filter((b) => !used.style.has(b));
  if (unusedData.length || unusedStyle.length) fail(`union branches not mapped to a type: ${[...unusedData, ...unusedStyle].join(', ')}`);

  const itemCreate = schemas[BULK_ITEM_SCHEMA];
  if (!isObject(itemCreate?.properties)) fail(`${BULK_ITEM_SCHEMA} not found`);
  const result = {};
  for (const type of [...typeEnum].sort()) {
    const v = ITEM_TYPE_VARIANTS[type];
    const ref = (name) => ({ $ref: `#/components/schemas/${name}` });
    const single = v.single ? schemas[v.single] : undefined;
    if (v.single && !isObject(single?.properties)) fail(`${v.single} (for ${type}) not found`);
    const dataSchema = v.data ? ref(v.data) : (single?.properties.data ?? { type: 'object' });
    const dataRequired = v.data ? (expand(spec, ref(v.data), []).required ?? []) : single?.required?.includes('data') ? ['data'] : [];
    const raw = {
      ...itemCreate,
      properties: {
        ...itemCreate.properties,
        type: { type: 'string', const: type },
        data: dataSchema,
        style: v.style ? ref(v.style) : (single?.properties.style ?? { type: 'object' }),
      },
      // QUIRK Q11
      required: [...new Set([...(itemCreate.required ?? []), ...(dataRequired.length ? ['data'] : [])])],
    };
    const schema = buildSchema(spec, raw, { tool: 'AddItemsToCanvasBoard', kind: type, segments: [] });
    schema.title = `Bulk item of type ${type}`;
    schema.description = `One ${type} item in the AddItemsToCanvasBoard array.`;
    schema.properties.type.description = `Must be "${type}".`;
    // QUIRK Q10
    if (!v.data && !single?.properties.data) schema.properties.data.description = `The spec declares no ${type}-specific data fields for bulk creation; any object is passed through.`;
    if (!v.style && !single?.properties.style) schema.properties.style.description = `The spec declares no ${type}-specific style fields for bulk creation; any object is passed through.`;
    result[type] = schema;
  }
  return { types: [...typeEnum], schemas: result };
}

function generate(spec) {
  const output = {};
  for (const [tool, def] of Object.entries(TOOLS)) {
    const { schema: raw, required } = operationBodySchema(spec, tool, def);
    let schema;
    if (tool === 'AddItemsToCanvasBoard') {
      // QUIRK Q9: keep the array bounds from the spec, replace the oneOf-laden items.
      const body = expand(spec, raw, []);
      if (body.type !== 'array') fail('bulk create body is no longer an array');
      const itemRef = raw.items?.$ref?.split('/').pop();
      if (itemRef !== BULK_ITEM_SCHEMA) fail(`bulk create items are ${itemRef}, expected ${BULK_ITEM_SCHEMA}`);
      const { types, schemas } = buildItemTypeSchemas(spec);
      schema = {
        type: 'array',
        minItems: body.minItems,
        maxItems: body.maxItems,
        items: {
          type: 'object',
          description: 'One item to create, validated against the schema for its type; common fields are data, style, position, geometry and parent.',
          required: ['type'],
          properties: {
            type: { type: 'string', enum: [...types].sort(), description: 'Kind of item to create; decides which data and style fields apply.' },
          },
        },
      };
      output['AddItemsToCanvasBoard.itemTypes'] = schemas;
    } else {
      schema = buildSchema(spec, raw, { tool, kind: def.kind, segments: [] });
    }
    schema.title = def.title;
    // QUIRK Q16
    schema.description = required ? def.description : `${def.description} Leaving the body out altogether is also accepted.`;
    output[tool] = schema;
  }
  const sorted = {};
  for (const key of Object.keys(output).sort()) {
    sorted[key] = key.endsWith('.itemTypes')
      ? Object.fromEntries(Object.keys(output[key]).sort().map((t) => [t, canonical(output[key][t])]))
      : canonical(output[key]);
  }
  return sorted;
}

function assertClean(value, where) {
  if (Array.isArray(value)) return value.forEach((v, i) => assertClean(v, `${where}[${i}]`));
  if (!isObject(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' || k === '$defs' || k === 'nullable' || k.startsWith('x-')) {
      // property *names* are fine; only keywords matter, and those live outside `properties`
      fail(`left-over keyword ${k} at ${where}`);
    }
    if (k === 'properties') {
      for (const [p, s] of Object.entries(v)) assertClean(s, `${where}.properties.${p}`);
    } else {
      assertClean(v, `${where}.${k}`);
    }
  }
}

const spec = JSON.parse(readFileSync(specPath, 'utf8'));
const result = generate(spec);
assertClean(result, '$');
mkdirSync(path.dirname(outPath), { recursive: true });
// A TypeScript module, so the schemas ship inside the compiled package with no file to locate at run time.
writeFileSync(
  outPath,
  '// Generated by scripts/generate-canvasapi-schemas.mjs from the official OpenAPI document. Do not edit by hand.\n' +
    `export const canvasApiRequestSchemas: Record<string, unknown> = ${JSON.stringify(result, null, 2)};\n`,
);
process.stdout.write(`wrote ${Object.keys(result).length} entries to ${path.relative(process.cwd(), outPath) || outPath}\n`);
