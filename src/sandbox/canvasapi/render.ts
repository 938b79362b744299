/**
 * Records -> the platform's JSON shapes. Links are absolute and built from the request's base URL
 * so that they point back into this sandbox.
 */
import type { BoardRecord, ConnectorRecord, ItemRecord, ItemType, MindmapNodeRecord, Store, TagRecord, UserRecord } from './model.js';

export const iso = (ms: number): string => new Date(ms).toISOString();

/** URL segment of each item type's own endpoints. */
export const TYPE_SEGMENT: Record<ItemType, string> = {
  sticky_note: 'sticky_notes',
  shape: 'shapes',
  text: 'texts',
  card: 'cards',
  app_card: 'app_cards',
  document: 'documents',
  image: 'images',
  embed: 'embeds',
  frame: 'frames',
};

/** Types whose item responses carry a `style` object. */
const STYLED = new Set<ItemType>(['sticky_note', 'shape', 'text', 'card', 'app_card', 'frame']);

export function userShort(store: Store, userId: string): { id: string; name: string; type: string } {
  return { id: userId, name: store.fullName(userId), type: 'user' };
}

export function actorRef(userId: string): { id: string; type: string } {
  return { id: userId, type: 'user' };
}

export function boardUrl(base: string, boardId: string): string {
  return `${base}/v2/boards/${boardId}`;
}

export function itemUrl(base: string, item: Pick<ItemRecord, 'boardId' | 'id' | 'type'>): string {
  return `${boardUrl(base, item.boardId)}/${TYPE_SEGMENT[item.type]}/${item.id}`;
}

export function genericItemUrl(base: string, boardId: string, itemId: string): string {
  return `${boardUrl(base, boardId)}/items/${itemId}`;
}

export type BoardVariant = 'created' | 'get' | 'list' | 'copy';

export function renderBoard(store: Store, b: BoardRecord, base: string, variant: BoardVariant): Record<string, unknown> {
  const team = store.teams.get(b.teamId);
  const myRole = b.members.get(store.meId);
  const out: Record<string, unknown> = {
    id: b.id,
    type: 'board',
    name: b.name,
    description: b.description,
    team: { id: b.teamId, name: team?.name ?? 'Unknown team', type: 'team' },
  };
  if (b.projectId && variant !== 'copy') out.project = { id: b.projectId };
  out.picture = { id: b.pictureId, imageURL: `${base}/static/board-pictures/${b.id}.png`, originalUrl: `${base}/static/board-pictures/${b.id}-original.png`, type: 'picture' };
  out.policy = structuredClone(b.policy);
  out.viewLink = `${base}/app/board/${b.id}/`;
  out.owner = userShort(store, b.ownerId);
  if (myRole) out.currentUserMembership = { id: store.meId, name: store.fullName(store.meId), role: myRole, type: 'board_member' };
  out.createdAt = iso(b.createdAt);
  out.createdBy = userShort(store, b.createdBy);
  if ((variant === 'get' || variant === 'list') && b.lastOpenedAt !== undefined && b.lastOpenedBy !== undefined) {
    out.lastOpenedAt = iso(b.lastOpenedAt);
    out.lastOpenedBy = userShort(store, b.lastOpenedBy);
  }
  out.modifiedAt = iso(b.modifiedAt);
  out.modifiedBy = userShort(store, b.modifiedBy);
  if (variant !== 'list') out.links = { self: boardUrl(base, b.id), related: `${boardUrl(base, b.id)}/members?limit=20&offset=0` };
  return out;
}

export function position(item: { x: number; y: number; parentId?: string }): Record<string, unknown> {
  return { x: item.x, y: item.y, origin: 'center', relativeTo: item.parentId ? 'parent_top_left' : 'canvas_center' };
}

export function geometry(item: ItemRecord): Record<string, unknown> {
  return { width: item.width, height: item.height, ...(item.rotation !== undefined ? { rotation: item.rotation } : {}) };
}

function stamps(item: { createdAt: number; createdBy: string; modifiedAt: number; modifiedBy: string }): Record<string, unknown> {
  return { createdAt: iso(item.createdAt), createdBy: actorRef(item.createdBy), modifiedAt: iso(item.modifiedAt), modifiedBy: actorRef(item.modifiedBy) };
}

/** The response of the item's own endpoint (e.g. /sticky_notes/{id}). */
export function renderTypedItem(item: ItemRecord, base: string): Record<string, unknown> {
  return {
    id: item.id,
    type: item.type,
    data: structuredClone(item.data),
    ...(STYLED.has(item.type) ? { style: structuredClone(item.style) } : {}),
    position: position(item),
    geometry: geometry(item),
    ...stamps(item),
    ...(item.parentId ? { parent: { id: item.parentId, links: { self: `${boardUrl(base, item.boardId)}/frames/${item.parentId}` } } } : {}),
    links: { self: itemUrl(base, item), related: `${genericItemUrl(base, item.boardId, item.id)}/tags` },
  };
}

/** The common fields of an item; `parent` and `self` differ between the generic and the bulk shape. */
function itemCore(item: ItemRecord, parent: Record<string, unknown> | undefined, self: string): Record<string, unknown> {
  return {
    id: item.id,
    type: item.type,
    data: structuredClone(item.data),
    position: position(item),
    geometry: geometry(item),
    ...(parent ? { parent } : {}),
    ...stamps(item),
    links: { self },
  };
}

/** The generic item shape used by /items lists and /items/{id}. */
export function renderGenericItem(item: ItemRecord, base: string): Record<string, unknown> {
  return itemCore(item, item.parentId ? { id: item.parentId } : undefined, genericItemUrl(base, item.boardId, item.id));
}

/** The shape of each entry in a bulk-create response. */
export function renderBulkItem(item: ItemRecord, base: string): Record<string, unknown> {
  const parent = item.parentId ? { id: item.parentId, links: { self: `${boardUrl(base, item.boardId)}/frames/${item.parentId}` } } : undefined;
  return itemCore(item, parent, itemUrl(base, item));
}

const SNAP_POINT: Record<string, { x: string; y: string }> = {
  top: { x: '50%', y: '0%' },
  right: { x: '100%', y: '50%' },
  bottom: { x: '50%', y: '100%' },
  left: { x: '0%', y: '50%' },
  auto: { x: '50%', y: '50%' },
};

export function renderConnector(c: ConnectorRecord, board: BoardRecord, base: string): Record<string, unknown> {
  const end = (e: ConnectorRecord['start']) => {
    const item = board.items.get(e.itemId);
    return {
      id: e.itemId,
      links: { self: item ? itemUrl(base, item) : genericItemUrl(base, board.id, e.itemId) },
      position: e.position ?? SNAP_POINT[e.snapTo ?? 'auto'] ?? { x: '50%', y: '50%' },
    };
  };
  return {
    id: c.id,
    type: 'connector',
    shape: c.shape,
    startItem: end(c.start),
    endItem: end(c.end),
    captions: c.captions.map((cap) => ({ ...cap })),
    style: { ...c.style },
    isSupported: true,
    ...stamps(c),
    links: { self: `${boardUrl(base, board.id)}/connectors/${c.id}` },
  };
}

export function renderTag(t: TagRecord, base: string, withLinks = true): Record<string, unknown> {
  return {
    id: t.id,
    type: 'tag',
    title: t.title,
    fillColor: t.fillColor,
    ...(withLinks ? { links: { self: `${boardUrl(base, t.boardId)}/tags/${t.id}` } } : {}),
  };
}

export function mindmapUrl(base: string, n: Pick<MindmapNodeRecord, 'boardId' | 'id'>): string {
  return `${base}/v2-experimental/boards/${n.boardId}/mindmap_nodes/${n.id}`;
}

export function renderMindmapNode(n: MindmapNodeRecord, base: string): Record<string, unknown> {
  const parent = n.parentNodeId
    ? { id: n.parentNodeId, links: { self: mindmapUrl(base, { boardId: n.boardId, id: n.parentNodeId }) } }
    : n.frameId
      ? { id: n.frameId, links: { self: `${boardUrl(base, n.boardId)}/frames/${n.frameId}` } }
      : undefined;
  return {
    id: n.id,
    type: 'mindmap_node',
    data: {
      nodeView: { type: 'text', data: { type: 'text', content: n.content } },
      isRoot: n.parentNodeId === undefined,
      ...(n.direction ? { direction: n.direction } : {}),
    },
    ...stamps(n),
    ...(parent ? { parent } : {}),
    links: { self: mindmapUrl(base, n) },
  };
}

export function renderOrgMember(u: UserRecord): Record<string, unknown> {
  return {
    id: u.id,
    type: 'organization-member',
    active: u.active,
    email: u.email,
    ...(u.lastActivityAt !== undefined ? { lastActivityAt: iso(u.lastActivityAt) } : {}),
    license: u.license,
    ...(u.licenseAssignedAt !== undefined ? { licenseAssignedAt: iso(u.licenseAssignedAt) } : {}),
    role: u.role,
    ...(u.adminRoles.length > 0 ? { adminRoles: u.adminRoles.map((r) => ({ ...r })) } : {}),
  };
}

export function renderPlainUser(u: UserRecord): Record<string, unknown> {
  return { id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName };
}
