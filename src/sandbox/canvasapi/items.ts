/**
 * Board items: the per-type endpoints (sticky notes, shapes, texts, cards, app cards, documents,
 * images, embeds, frames, experimental flowchart shapes), the generic /items endpoints (list with
 * type / frame filters, read, move, delete) and the transactional bulk create.
 *
 * Geometry model: `x`/`y` are the item's center. Without a parent they are relative to the canvas
 * center; inside a frame (`parentId`) they are relative to the frame's top-left corner, which is
 * what `position.relativeTo` reports. Connectors, tags, groups and mind-map nodes live in their
 * own collections and are not returned by /items.
 */
import type { SandboxResponse } from '../exchange.js';
import {
  ApiError,
  arr,
  badRequest,
  bool,
  check,
  cursorEnvelope,
  cursorPage,
  invalid,
  json,
  noContent,
  notFound,
  num,
  numeric,
  obj,
  str,
  validate,
  type Issue,
  type Rule,
} from './http.js';
import type { BoardRecord, ItemRecord, ItemType, Store } from './model.js';
import { TYPE_SEGMENT, renderBulkItem, renderGenericItem, renderTypedItem } from './render.js';
import { liveBoard, touchBoard, type Ctx, type Router } from './router.js';
import { attachTag, detachTag, itemsByTag } from './tags.js';

export const ITEM_TYPES: readonly ItemType[] = ['sticky_note', 'shape', 'text', 'card', 'app_card', 'document', 'image', 'embed', 'frame'];
/** Values the v2 item list accepts for `type` (`preview` is valid but never matches here). */
const LIST_TYPES = ['text', 'shape', 'sticky_note', 'image', 'document', 'card', 'app_card', 'preview', 'frame', 'embed'] as const;

export const BASIC_SHAPES = [
  'rectangle', 'round_rectangle', 'circle', 'triangle', 'rhombus', 'parallelogram', 'trapezoid', 'pentagon', 'hexagon', 'octagon',
  'wedge_round_rectangle_callout', 'star', 'flow_chart_predefined_process', 'cloud', 'cross', 'can', 'right_arrow', 'left_arrow',
  'left_right_arrow', 'left_brace', 'right_brace',
] as const;
export const FLOWCHART_SHAPES = [
  'flow_chart_connector', 'flow_chart_magnetic_disk', 'flow_chart_input_output', 'flow_chart_decision', 'flow_chart_delay', 'flow_chart_display',
  'flow_chart_document', 'flow_chart_magnetic_drum', 'flow_chart_internal_storage', 'flow_chart_manual_input', 'flow_chart_manual_operation',
  'flow_chart_merge', 'flow_chart_multidocuments', 'flow_chart_note_curly_left', 'flow_chart_note_curly_right', 'flow_chart_note_square',
  'flow_chart_offpage_connector', 'flow_chart_or', 'flow_chart_predefined_process_2', 'flow_chart_preparation', 'flow_chart_process',
  'flow_chart_online_storage', 'flow_chart_summing_junction', 'flow_chart_terminator',
] as const;
const STICKY_COLORS = ['gray', 'light_yellow', 'yellow', 'orange', 'light_green', 'green', 'dark_green', 'cyan', 'light_pink', 'pink', 'violet', 'red', 'light_blue', 'blue', 'dark_blue', 'black'] as const;
const FONT_FAMILIES = [
  'arial', 'abril_fatface', 'bangers', 'eb_garamond', 'georgia', 'graduate', 'gravitas_one', 'fredoka_one', 'nixie_one', 'open_sans',
  'permanent_marker', 'pt_sans', 'pt_sans_narrow', 'pt_serif', 'rammetto_one', 'roboto', 'roboto_condensed', 'roboto_slab', 'caveat',
  'times_new_roman', 'titan_one', 'lemon_tuesday', 'roboto_mono', 'noto_sans', 'plex_sans', 'plex_serif', 'plex_mono', 'spoof', 'tiempos_text', 'formular',
] as const;
/** Frame fill colors the platform documents (plus its transparent default). */
const FRAME_COLORS = ['#f5f6f8', '#d5f692', '#d0e17a', '#93d275', '#67c6c0', '#23bfe7', '#a6ccf5', '#7b92ff', '#fff9b1', '#f5d128', '#ff9d48', '#f16c7f', '#ea94bb', '#ffcee0', '#b384bb', '#000000', '#ffffffff', '#ffffff'];

const POSITION = obj({ x: num(), y: num() });
const PARENT = obj({ id: str({ minLength: 1 }) }, ['id']);
const DIM = num({ positive: true });
const GEOMETRY = obj({ width: DIM, height: DIM, rotation: num() });
const GEOMETRY_NO_ROTATION = obj({ width: DIM, height: DIM });
const WIDTH_ONLY = obj({ width: DIM, rotation: num() });
const ALIGN = str({ enum: ['left', 'right', 'center'] });
const VALIGN = str({ enum: ['top', 'middle', 'bottom'] });

const STICKY_STYLE = obj({ fillColor: str({ enum: STICKY_COLORS }), textAlign: ALIGN, textAlignVertical: VALIGN });
const shapeStyle = (creating: boolean) =>
  obj({
    borderColor: str(),
    borderOpacity: numeric(0, 1),
    borderStyle: str({ enum: ['normal', 'dotted', 'dashed'] }),
    borderWidth: numeric(1, 24),
    color: str(),
    fillColor: str(),
    fillOpacity: numeric(0, 1),
    fontFamily: str({ enum: FONT_FAMILIES }),
    fontSize: numeric(10, 288),
    textAlign: str({ enum: creating ? ['left', 'right', 'center', 'unknown'] : ['left', 'right', 'center'] }),
    textAlignVertical: str({ enum: creating ? ['top', 'middle', 'bottom', 'unknown'] : ['top', 'middle', 'bottom'] }),
  });
const TEXT_STYLE = obj({ color: str(), fillColor: str(), fillOpacity: numeric(0, 1), fontFamily: str({ enum: FONT_FAMILIES }), fontSize: numeric(1), textAlign: ALIGN });
const CUSTOM_FIELD = obj({ fillColor: str(), iconShape: str({ enum: ['round', 'square'] }), iconUrl: str(), textColor: str(), tooltip: str(), value: str() });
const URL_STR = str({ format: 'http-url', maxLength: 2048 });

interface TypeRules {
  data: (creating: boolean, experimental: boolean) => Rule;
  dataRequired: boolean;
  style?: (creating: boolean) => Rule;
  geometry: Rule;
  /** Width and height keep a fixed ratio: only one of them may be given. */
  fixedRatio?: boolean;
  parent: boolean;
}

const RULES: Record<ItemType, TypeRules> = {
  sticky_note: {
    data: () => obj({ content: str(), shape: str({ enum: ['square', 'rectangle'] }) }),
    dataRequired: false,
    style: () => STICKY_STYLE,
    geometry: GEOMETRY_NO_ROTATION,
    fixedRatio: true,
    parent: true,
  },
  shape: {
    data: (_c, experimental) => obj({ content: str(), shape: str({ enum: experimental ? [...BASIC_SHAPES, ...FLOWCHART_SHAPES] : BASIC_SHAPES }) }),
    dataRequired: false,
    style: shapeStyle,
    geometry: GEOMETRY,
    parent: true,
  },
  text: {
    data: () => obj({ content: str() }, ['content']),
    dataRequired: true,
    style: () => TEXT_STYLE,
    geometry: WIDTH_ONLY,
    parent: true,
  },
  card: {
    data: () => obj({ title: str(), description: str(), assigneeId: str({ format: 'int64' }), dueDate: str({ format: 'date-time' }) }),
    dataRequired: false,
    style: () => obj({ cardTheme: str() }),
    geometry: GEOMETRY,
    parent: true,
  },
  app_card: {
    data: () => obj({ title: str(), description: str(), fields: arr(CUSTOM_FIELD), status: str({ enum: ['disconnected', 'connected', 'disabled'] }) }),
    dataRequired: false,
    style: () => obj({ fillColor: str() }),
    geometry: GEOMETRY,
    parent: true,
  },
  document: {
    data: (creating) => obj({ title: str(), url: URL_STR }, creating ? ['url'] : []),
    dataRequired: true,
    geometry: GEOMETRY,
    fixedRatio: true,
    parent: true,
  },
  image: {
    data: (creating) => obj({ title: str(), url: URL_STR }, creating ? ['url'] : []),
    dataRequired: true,
    geometry: GEOMETRY,
    fixedRatio: true,
    parent: true,
  },
  embed: {
    data: (creating) => obj({ url: URL_STR, mode: str({ enum: ['inline', 'modal'] }), previewUrl: URL_STR }, creating ? ['url'] : []),
    dataRequired: true,
    geometry: GEOMETRY_NO_ROTATION,
    fixedRatio: true,
    parent: true,
  },
  frame: {
    data: () => obj({ format: str({ enum: ['custom'] }), title: str(), type: str({ enum: ['freeform'] }), showContent: bool() }),
    dataRequired: true,
    style: () => obj({ fillColor: str() }),
    geometry: GEOMETRY_NO_ROTATION,
    parent: false,
  },
};

const DEFAULT_SIZE: Record<ItemType, [number, number]> = {
  sticky_note: [199, 228],
  shape: [200, 200],
  text: [300, 56],
  card: [320, 94],
  app_card: [320, 158],
  document: [320, 454],
  image: [600, 400],
  embed: [720, 405],
  frame: [800, 450],
};

function defaultStyle(type: ItemType): Record<string, unknown> {
  switch (type) {
    case 'sticky_note':
      return { fillColor: 'light_yellow', textAlign: 'center', textAlignVertical: 'top' };
    case 'shape':
      return { fillColor: '#ffffff', fillOpacity: '1.0', fontFamily: 'arial', fontSize: '14', borderColor: '#1a1a1a', borderWidth: '2.0', borderOpacity: '1.0', borderStyle: 'normal', textAlign: 'center', textAlignVertical: 'middle', color: '#1a1a1a' };
    case 'text':
      return { color: '#1a1a1a', fillColor: 'transparent', fillOpacity: '1.0', fontFamily: 'arial', fontSize: '14', textAlign: 'left' };
    case 'card':
      return { cardTheme: '#2d9bf0' };
    case 'app_card':
      return { fillColor: '#2d9bf0' };
    case 'frame':
      return { fillColor: '#ffffffff' };
    default:
      return {};
  }
}

function defaultData(type: ItemType): Record<string, unknown> {
  switch (type) {
    case 'sticky_note':
      return { content: '', shape: 'square' };
    case 'shape':
      return { content: '', shape: 'rectangle' };
    case 'text':
      return { content: '' };
    case 'card':
      return { title: '', description: '' };
    case 'app_card':
      return { title: 'sample app card item', description: '', fields: [], status: 'disconnected', owned: true };
    case 'frame':
      return { title: 'Sample frame title', format: 'custom', type: 'freeform', showContent: true };
    default:
      return {};
  }
}

function describeEmbed(url: string): Record<string, unknown> {
  const u = new URL(url);
  const video = /youtube|youtu\.be|vimeo|loom/i.test(u.hostname);
  const provider = u.hostname.replace(/^www\./, '').split('.')[0] ?? u.hostname;
  return {
    html: `<iframe src="${url}" width="720" height="405" frameborder="0" allowfullscreen></iframe>`,
    providerName: provider.charAt(0).toUpperCase() + provider.slice(1),
    providerUrl: `${u.protocol}//${u.host}`,
    contentType: video ? 'video' : 'rich',
  };
}

/** Normalise style values the platform carries as numeric strings. */
function normaliseStyle(style: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(style)) if (v !== undefined && v !== null) out[k] = typeof v === 'number' ? String(v) : v;
  return out;
}

function mergeData(type: ItemType, prev: Record<string, unknown> | undefined, input: Record<string, any> | undefined): Record<string, unknown> {
  const base = prev ? structuredClone(prev) : defaultData(type);
  if (!input) return base;
  switch (type) {
    case 'document':
      return { ...base, ...(input.url !== undefined ? { documentUrl: input.url } : {}), ...(input.title !== undefined ? { title: input.title } : {}) };
    case 'image':
      return { ...base, ...(input.url !== undefined ? { imageUrl: input.url } : {}), ...(input.title !== undefined ? { title: input.title } : {}) };
    case 'embed': {
      const next: Record<string, unknown> = { ...base };
      for (const k of ['url', 'mode', 'previewUrl']) if (input[k] !== undefined) next[k] = input[k];
      if (input.url !== undefined) Object.assign(next, describeEmbed(String(input.url)));
      return next;
    }
    case 'app_card':
      return { ...base, ...stripNulls(input), owned: true };
    default:
      return { ...base, ...stripNulls(input) };
  }
}

function stripNulls(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
}

/** Absolute canvas position of an item's center. */
export function absolutePosition(board: BoardRecord, item: { x: number; y: number; parentId?: string }): { x: number; y: number } {
  if (!item.parentId) return { x: item.x, y: item.y };
  const parent = board.items.get(item.parentId);
  if (!parent) return { x: item.x, y: item.y };
  const p = absolutePosition(board, parent);
  return { x: p.x - parent.width / 2 + item.x, y: p.y - parent.height / 2 + item.y };
}

/** Position of an absolute point relative to a frame's top-left corner. */
function relativeTo(board: BoardRecord, frame: ItemRecord, abs: { x: number; y: number }): { x: number; y: number } {
  const p = absolutePosition(board, frame);
  return { x: abs.x - (p.x - frame.width / 2), y: abs.y - (p.y - frame.height / 2) };
}

function stickyRatio(shape: unknown): number {
  return shape === 'rectangle' ? 228 / 350 : 228 / 199;
}

interface BuildOptions {
  experimental?: boolean;
  /** Prefix for reported field names (bulk: `[3].`). */
  field?: string;
  /** Status for a parent that does not exist (bulk can only report 400). */
  missingParentStatus?: 400 | 404;
}

function bodyRule(type: ItemType, creating: boolean, experimental: boolean): Rule {
  const r = RULES[type];
  const props: Record<string, Rule> = { data: r.data(creating, experimental), position: POSITION, geometry: r.geometry };
  if (r.style) props.style = r.style(creating);
  if (r.parent) props.parent = PARENT;
  return obj(props, creating && r.dataRequired ? ['data'] : []);
}

/** Checks beyond the plain schema: fixed ratios, text height, frame rules, parents. */
function extraIssues(ctx: Ctx, board: BoardRecord, type: ItemType, body: Record<string, any>, prefix: string, item: ItemRecord | undefined): Issue[] {
  const issues: Issue[] = [];
  const r = RULES[type];
  const g = body.geometry as Record<string, unknown> | undefined;
  if (g && r.fixedRatio && g.width !== undefined && g.height !== undefined) issues.push({ field: `${prefix}geometry`, message: `only one of width or height can be set for ${type} items (they keep their aspect ratio)` });
  if (g && type === 'text' && g.height !== undefined) issues.push({ field: `${prefix}geometry.height`, message: 'the height of a text item cannot be set' });
  if (type === 'frame') {
    if (body.parent !== undefined) issues.push({ field: `${prefix}parent`, message: 'frames cannot be placed inside another item' });
    const fill = body.style?.fillColor;
    if (typeof fill === 'string' && !FRAME_COLORS.includes(fill.toLowerCase())) issues.push({ field: `${prefix}style.fillColor`, message: `must be one of ${FRAME_COLORS.join(', ')}` });
    if (body.data?.showContent === false && !ctx.store.enterprise) issues.push({ field: `${prefix}data.showContent`, message: 'hiding frame content is available on the Enterprise plan only' });
  }
  if (type === 'card' && typeof body.data?.assigneeId === 'string' && !ctx.store.users.has(body.data.assigneeId)) {
    issues.push({ field: `${prefix}data.assigneeId`, message: `no user with ID ${body.data.assigneeId}` });
  }
  if (body.parent && typeof body.parent.id === 'string' && r.parent) {
    const parent = board.items.get(body.parent.id);
    if (parent && parent.type !== 'frame') issues.push({ field: `${prefix}parent.id`, message: `item ${parent.id} is a ${parent.type}; only frames can contain items` });
    if (item && parent && parent.id === item.id) issues.push({ field: `${prefix}parent.id`, message: 'an item cannot be its own parent' });
  }
  return issues;
}

function parentFrame(board: BoardRecord, id: string, status: 400 | 404): ItemRecord {
  const parent = board.items.get(id);
  if (!parent) {
    if (status === 404) throw notFound('Parent item', id);
    throw badRequest(`Invalid parameters: parent item ${id} not found on this board`);
  }
  return parent;
}

function applyGeometry(item: ItemRecord, g: Record<string, number> | undefined, fixedRatio: boolean): void {
  if (!g) return;
  if (item.type === 'sticky_note' || fixedRatio) {
    // Sticky notes keep their shape's ratio, fixed-ratio items their current one: one side decides the other.
    const ratio = item.type === 'sticky_note' ? stickyRatio(item.data.shape) : item.height / item.width;
    if (g.width !== undefined) {
      item.width = g.width;
      item.height = Math.round(g.width * ratio * 100) / 100;
    } else if (g.height !== undefined) {
      item.height = g.height;
      item.width = Math.round((g.height / ratio) * 100) / 100;
    }
  } else {
    if (g.width !== undefined) item.width = g.width;
    if (g.height !== undefined) item.height = g.height;
  }
  if (g.rotation !== undefined) item.rotation = g.rotation;
}

/** Validate a create body and build the record (not yet stored). */
export function buildItem(ctx: Ctx, board: BoardRecord, type: ItemType, rawBody: unknown, options: BuildOptions = {}): ItemRecord {
  const prefix = options.field ?? '';
  const issues: Issue[] = [];
  check(rawBody ?? {}, bodyRule(type, true, options.experimental ?? false), prefix.replace(/\.$/, ''), issues);
  if (issues.length > 0) throw invalid(issues);
  const body = (rawBody ?? {}) as Record<string, any>;
  const extra = extraIssues(ctx, board, type, body, prefix, undefined);
  if (extra.length > 0) throw invalid(extra);
  const at = ctx.store.now();
  const [w, h] = DEFAULT_SIZE[type];
  const data = mergeData(type, undefined, body.data);
  const item: ItemRecord = {
    id: ctx.store.ids.numeric(),
    seq: ctx.store.nextSeq(),
    boardId: board.id,
    type,
    data,
    style: { ...defaultStyle(type), ...normaliseStyle(body.style ?? {}) },
    x: body.position?.x ?? 0,
    y: body.position?.y ?? 0,
    width: type === 'sticky_note' && data.shape === 'rectangle' ? 350 : w,
    height: h,
    ...(type === 'frame' || type === 'sticky_note' || type === 'embed' ? {} : { rotation: 0 }),
    tagIds: [],
    createdAt: at,
    createdBy: ctx.store.meId,
    modifiedAt: at,
    modifiedBy: ctx.store.meId,
  };
  applyGeometry(item, body.geometry, RULES[type].fixedRatio ?? false);
  if (body.parent?.id) {
    parentFrame(board, body.parent.id, options.missingParentStatus ?? 404);
    item.parentId = body.parent.id;
  }
  return item;
}

export function storeItem(ctx: Ctx, board: BoardRecord, item: ItemRecord): void {
  board.items.set(item.id, item);
  touchBoard(ctx, board);
  ctx.store.recordContent(board.id, item.id, 'create', { type: item.type, data: item.data });
}

/** Move an item to a new parent and/or position (positions are in the new parent's coordinates). */
function moveItem(board: BoardRecord, item: ItemRecord, position: { x?: number; y?: number } | undefined, parentId: string | undefined): void {
  if (parentId !== undefined && parentId !== item.parentId) {
    const frame = board.items.get(parentId) as ItemRecord;
    const abs = absolutePosition(board, item);
    const rel = relativeTo(board, frame, abs);
    item.parentId = parentId;
    item.x = rel.x;
    item.y = rel.y;
  }
  if (position) {
    if (position.x !== undefined) item.x = position.x;
    if (position.y !== undefined) item.y = position.y;
  }
}

function updateItem(ctx: Ctx, board: BoardRecord, item: ItemRecord, rawBody: unknown, experimental: boolean): void {
  const body = validate(rawBody, bodyRule(item.type, false, experimental));
  const extra = extraIssues(ctx, board, item.type, body, '', item);
  if (extra.length > 0) throw invalid(extra);
  if (body.parent?.id) parentFrame(board, body.parent.id, 404);
  if (body.data) item.data = mergeData(item.type, item.data, body.data);
  if (body.style) item.style = { ...item.style, ...normaliseStyle(body.style) };
  applyGeometry(item, body.geometry, RULES[item.type].fixedRatio ?? false);
  moveItem(board, item, body.position, body.parent?.id);
  item.modifiedAt = ctx.store.now();
  item.modifiedBy = ctx.store.meId;
  touchBoard(ctx, board);
  ctx.store.recordContent(board.id, item.id, 'update', { type: item.type, data: item.data });
}

/** Delete an item and everything that only makes sense with it (connectors, group membership). */
export function removeItem(store: Store, board: BoardRecord, item: ItemRecord): void {
  if (item.type === 'frame') {
    // Children stay on the board, where they were.
    for (const child of board.items.values()) {
      if (child.parentId === item.id) {
        const abs = absolutePosition(board, child);
        delete child.parentId;
        child.x = abs.x;
        child.y = abs.y;
      }
    }
    for (const node of board.mindmap.values()) if (node.frameId === item.id) delete node.frameId;
  }
  board.items.delete(item.id);
  for (const c of [...board.connectors.values()]) if (c.start.itemId === item.id || c.end.itemId === item.id) board.connectors.delete(c.id);
  for (const g of [...board.groups.values()]) {
    if (!g.itemIds.includes(item.id)) continue;
    g.itemIds = g.itemIds.filter((i) => i !== item.id);
    if (g.itemIds.length < 2) board.groups.delete(g.id);
  }
  board.modifiedAt = store.now();
  board.modifiedBy = store.meId;
  store.recordContent(board.id, item.id, 'delete', { type: item.type });
}

export function itemOf(ctx: Ctx, board: BoardRecord, type?: ItemType): ItemRecord {
  const id = ctx.params.item_id ?? '';
  const item = board.items.get(id);
  if (!item || (type && item.type !== type)) throw notFound(type ? `${type} item` : 'Item', id);
  return item;
}

function listItems(ctx: Ctx, allowedTypes: readonly string[]): SandboxResponse {
  const board = liveBoard(ctx);
  const q = ctx.query;
  if (q.has('tag_id')) return itemsByTag(ctx, board);
  const limit = q.int('limit', { min: 10, max: 50, def: 10 });
  let items = [...board.items.values()];
  if (q.has('parent_item_id')) {
    const parentId = q.required('parent_item_id');
    const frame = board.items.get(parentId);
    if (!frame) throw notFound('Parent item', parentId);
    if (frame.type !== 'frame') throw badRequest(`Invalid parameters: item ${parentId} is a ${frame.type}, not a frame`);
    items = items.filter((i) => i.parentId === parentId);
    const type = q.one('type');
    if (type) items = items.filter((i) => i.type === type);
  } else {
    const type = q.enumValue('type', allowedTypes);
    if (type) items = items.filter((i) => i.type === type);
  }
  const page = cursorPage(items, (i) => i.seq, q.one('cursor'), limit);
  return json(200, cursorEnvelope(ctx.req, page, limit, page.page.map((i) => renderGenericItem(i, ctx.base))));
}

function deleteItemOrTag(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  if (ctx.query.has('tag_id')) return detachTag(ctx, board);
  removeItem(ctx.store, board, itemOf(ctx, board));
  return noContent();
}

const BULK_ITEM = obj(
  {
    type: str({ enum: ['app_card', 'text', 'shape', 'sticky_note', 'image', 'document', 'card', 'frame', 'embed'] }),
    data: obj({}),
    style: obj({}),
    position: POSITION,
    geometry: GEOMETRY,
    parent: PARENT,
  },
  ['type'],
);

function bulkCreate(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  const body = ctx.body;
  const issues: Issue[] = [];
  check(body, arr(BULK_ITEM, { minItems: 1, maxItems: 20 }), '', issues);
  if (issues.length > 0) throw new ApiError(400, 'invalidParameters', 'Invalid parameters: no item was created', { fields: issues });
  const built: ItemRecord[] = [];
  (body as Record<string, any>[]).forEach((entry, index) => {
    const { type, ...rest } = entry;
    try {
      built.push(buildItem(ctx, board, type as ItemType, rest, { field: `[${index}].`, missingParentStatus: 400 }));
    } catch (err) {
      if (err instanceof ApiError) {
        throw new ApiError(400, 'invalidParameters', `Invalid parameters: item ${index} is invalid, no item was created (${err.message})`, {
          fields: [{ field: `[${index}]`, message: err.message }],
        });
      }
      throw err;
    }
  });
  for (const item of built) storeItem(ctx, board, item);
  return json(201, { type: 'bulk-list', data: built.map((i) => renderBulkItem(i, ctx.base)) });
}

function registerTyped(router: Router, type: ItemType, prefix: '/v2' | '/v2-experimental' = '/v2'): void {
  const experimental = prefix === '/v2-experimental';
  const collection = `${prefix}/boards/:board_id/${TYPE_SEGMENT[type]}`;
  router.add(
    'POST',
    collection,
    (ctx) => {
      const board = liveBoard(ctx);
      const item = buildItem(ctx, board, type, ctx.body, { experimental });
      storeItem(ctx, board, item);
      return json(201, renderTypedItem(item, ctx.base));
    },
    { body: 'required' },
  );
  router.add('GET', `${collection}/:item_id`, (ctx) => {
    const board = liveBoard(ctx);
    return json(200, renderTypedItem(itemOf(ctx, board, type), ctx.base));
  });
  router.add(
    'PATCH',
    `${collection}/:item_id`,
    (ctx) => {
      const board = liveBoard(ctx);
      const item = itemOf(ctx, board, type);
      updateItem(ctx, board, item, ctx.body, experimental);
      return json(200, renderTypedItem(item, ctx.base));
    },
    { body: 'required' },
  );
  router.add('DELETE', `${collection}/:item_id`, (ctx) => {
    const board = liveBoard(ctx);
    removeItem(ctx.store, board, itemOf(ctx, board, type));
    return noContent();
  });
}

export function registerItems(router: Router): void {
  for (const type of ITEM_TYPES) registerTyped(router, type);
  registerTyped(router, 'shape', '/v2-experimental');

  router.add('GET', '/v2/boards/:board_id/items', (ctx) => listItems(ctx, LIST_TYPES));
  router.add('GET', '/v2-experimental/boards/:board_id/items', (ctx) => listItems(ctx, ['shape']));
  for (const prefix of ['/v2', '/v2-experimental']) {
    router.add('GET', `${prefix}/boards/:board_id/items/:item_id`, (ctx) => {
      const board = liveBoard(ctx);
      return json(200, renderGenericItem(itemOf(ctx, board), ctx.base));
    });
  }
  router.add('DELETE', '/v2/boards/:board_id/items/:item_id', deleteItemOrTag);
  router.add('DELETE', '/v2-experimental/boards/:board_id/items/:item_id', (ctx) => {
    const board = liveBoard(ctx);
    removeItem(ctx.store, board, itemOf(ctx, board));
    return noContent();
  });
  router.add('POST', '/v2/boards/:board_id/items/:item_id', (ctx) => attachTag(ctx, liveBoard(ctx)));

  router.add(
    'PATCH',
    '/v2/boards/:board_id/items/:item_id',
    (ctx) => {
      const board = liveBoard(ctx);
      const item = itemOf(ctx, board);
      const body = validate(ctx.body, obj({ position: POSITION, parent: PARENT }));
      if (body.parent?.id) {
        if (item.type === 'frame') throw badRequest('Invalid parameters: frames cannot be placed inside another item');
        const parent = parentFrame(board, body.parent.id, 404);
        if (parent.type !== 'frame') throw badRequest(`Invalid parameters: item ${parent.id} is a ${parent.type}; only frames can contain items`);
        if (parent.id === item.id) throw badRequest('Invalid parameters: an item cannot be its own parent');
      }
      moveItem(board, item, body.position, body.parent?.id);
      item.modifiedAt = ctx.store.now();
      item.modifiedBy = ctx.store.meId;
      touchBoard(ctx, board);
      ctx.store.recordContent(board.id, item.id, 'update', { type: item.type, position: { x: item.x, y: item.y }, parentId: item.parentId ?? null });
      return json(200, renderGenericItem(item, ctx.base));
    },
    { body: 'required' },
  );

  router.add('POST', '/v2/boards/:board_id/items/bulk', bulkCreate, { body: 'required' });
}
