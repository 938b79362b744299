/**
 * Boards (create, list, copy, read, update, delete to Trash) and board members (share by e-mail,
 * list, read, change role, remove).
 */
import type { SandboxResponse } from '../exchange.js';
import { arr, badRequest, isEmail, json, noContent, notFound, obj, offsetEnvelope, offsetParam, str, validate } from './http.js';
import type { BoardPolicy, BoardRecord, BoardRole, Store, UserRecord } from './model.js';
import { renderBoard } from './render.js';
import { liveBoard, touchBoard, type Ctx, type Router } from './router.js';

const POLICY_RULE = obj({
  permissionsPolicy: obj({
    collaborationToolsStartAccess: str({ enum: ['all_editors', 'board_owners_and_coowners'] }),
    copyAccess: str({ enum: ['anyone', 'team_members', 'team_editors', 'board_owner'] }),
    sharingAccess: str({ enum: ['team_members_with_editing_rights', 'owner_and_coowners'] }),
  }),
  sharingPolicy: obj({
    access: str({ enum: ['private', 'view', 'edit', 'comment'] }),
    inviteToAccountAndBoardLinkAccess: str({ enum: ['viewer', 'commenter', 'editor', 'no_access'] }),
    organizationAccess: str({ enum: ['private', 'view', 'comment', 'edit'] }),
    teamAccess: str({ enum: ['private', 'view', 'comment', 'edit'] }),
  }),
});

const BOARD_CHANGES = obj({
  name: str({ minLength: 1, maxLength: 60 }),
  description: str({ maxLength: 300 }),
  policy: POLICY_RULE,
  teamId: str({ minLength: 1 }),
  projectId: str({ minLength: 1 }),
});

const COPY_CHANGES = obj({
  name: str({ minLength: 1, maxLength: 60 }),
  description: str({ maxLength: 300 }),
  policy: POLICY_RULE,
  teamId: str({ minLength: 1 }),
});

const BOARD_ROLES = ['viewer', 'commenter', 'editor', 'coowner', 'owner'] as const;
const SORTS = ['default', 'last_modified', 'last_opened', 'last_created', 'alphabetically'] as const;

export function defaultPolicy(): BoardPolicy {
  return {
    permissionsPolicy: { collaborationToolsStartAccess: 'all_editors', copyAccess: 'anyone', sharingAccess: 'team_members_with_editing_rights' },
    sharingPolicy: { access: 'private', inviteToAccountAndBoardLinkAccess: 'no_access', organizationAccess: 'private', teamAccess: 'private' },
  };
}

function applyPolicy(policy: BoardPolicy, change: Record<string, any> | undefined): void {
  if (!change) return;
  Object.assign(policy.permissionsPolicy, change.permissionsPolicy ?? {});
  Object.assign(policy.sharingPolicy, change.sharingPolicy ?? {});
}

export function newBoard(store: Store, fields: { name: string; description: string; teamId: string; projectId?: string; ownerId: string; at: number }): BoardRecord {
  const board: BoardRecord = {
    id: store.ids.board(),
    name: fields.name,
    description: fields.description,
    teamId: fields.teamId,
    ...(fields.projectId ? { projectId: fields.projectId } : {}),
    ownerId: fields.ownerId,
    createdAt: fields.at,
    createdBy: fields.ownerId,
    modifiedAt: fields.at,
    modifiedBy: fields.ownerId,
    policy: defaultPolicy(),
    members: new Map([[fields.ownerId, 'owner' as BoardRole]]),
    items: new Map(),
    connectors: new Map(),
    tags: new Map(),
    groups: new Map(),
    mindmap: new Map(),
    pictureId: Number(store.ids.numeric('9')) % 1_000_000_000_000,
  };
  store.boards.set(board.id, board);
  return board;
}

function resolveTeamProject(ctx: Ctx, teamId: string | undefined, projectId: string | undefined, fallbackTeam: string): { teamId: string; projectId?: string } {
  const team = teamId ?? fallbackTeam;
  if (!ctx.store.teams.has(team)) throw notFound('Team', team);
  if (projectId === undefined) return { teamId: team };
  const project = ctx.store.projects.get(projectId);
  if (!project) throw notFound('Project', projectId);
  if (project.teamId !== team) throw badRequest(`Invalid parameters: project ${projectId} does not belong to team ${team}`);
  return { teamId: team, projectId };
}

/** Copy items, tags, connectors, groups and mind-map nodes of one board into another (new IDs). */
function copyContent(store: Store, src: BoardRecord, dst: BoardRecord, at: number): void {
  const tagMap = new Map<string, string>();
  for (const t of src.tags.values()) {
    const id = store.ids.numeric();
    tagMap.set(t.id, id);
    dst.tags.set(id, { ...t, id, seq: store.nextSeq(), boardId: dst.id });
  }
  const itemMap = new Map<string, string>();
  for (const it of src.items.values()) itemMap.set(it.id, store.ids.numeric());
  for (const it of src.items.values()) {
    const id = itemMap.get(it.id) as string;
    dst.items.set(id, {
      ...structuredClone(it),
      id,
      seq: store.nextSeq(),
      boardId: dst.id,
      ...(it.parentId ? { parentId: itemMap.get(it.parentId) } : {}),
      tagIds: it.tagIds.map((t) => tagMap.get(t)).filter((t): t is string => t !== undefined),
      createdAt: at,
      createdBy: store.meId,
      modifiedAt: at,
      modifiedBy: store.meId,
    });
  }
  for (const c of src.connectors.values()) {
    const start = itemMap.get(c.start.itemId);
    const end = itemMap.get(c.end.itemId);
    if (!start || !end) continue;
    const id = store.ids.numeric();
    dst.connectors.set(id, { ...structuredClone(c), id, seq: store.nextSeq(), boardId: dst.id, start: { ...c.start, itemId: start }, end: { ...c.end, itemId: end }, createdAt: at, createdBy: store.meId, modifiedAt: at, modifiedBy: store.meId });
  }
  for (const g of src.groups.values()) {
    const id = store.ids.numeric();
    dst.groups.set(id, { id, seq: store.nextSeq(), boardId: dst.id, itemIds: g.itemIds.map((i) => itemMap.get(i)).filter((i): i is string => i !== undefined) });
  }
  const nodeMap = new Map<string, string>();
  for (const n of src.mindmap.values()) nodeMap.set(n.id, store.ids.numeric());
  for (const n of src.mindmap.values()) {
    const id = nodeMap.get(n.id) as string;
    dst.mindmap.set(id, {
      ...structuredClone(n),
      id,
      seq: store.nextSeq(),
      boardId: dst.id,
      ...(n.parentNodeId ? { parentNodeId: nodeMap.get(n.parentNodeId) } : {}),
      ...(n.frameId ? { frameId: itemMap.get(n.frameId) } : {}),
      createdAt: at,
      createdBy: store.meId,
      modifiedAt: at,
      modifiedBy: store.meId,
    });
  }
}

/** Move a board to the Trash: it disappears from every read and list. */
export function trashBoard(store: Store, board: BoardRecord): void {
  store.boards.delete(board.id);
  store.trash.set(board.id, { board, deletedAt: store.now(), deletedBy: store.meId });
  for (const s of store.subscriptions.values()) {
    if (s.boardId === board.id) {
      s.status = 'lost_access';
      s.modifiedAt = store.now();
    }
  }
}

function inviteUser(store: Store, email: string): UserRecord {
  const existing = store.userByEmail(email);
  if (existing) return existing;
  const local = email.split('@')[0] ?? email;
  const [first, ...rest] = local.split(/[._-]+/).filter((p) => p !== '');
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const user: UserRecord = {
    id: store.ids.user(),
    firstName: cap(first ?? local),
    lastName: rest.map(cap).join(' '),
    email: email.trim().toLowerCase(),
    orgMember: false,
    role: 'organization_external_user',
    license: 'free',
    active: true,
    adminRoles: [],
  };
  store.users.set(user.id, user);
  return user;
}

function memberBody(store: Store, board: BoardRecord, userId: string, base: string, withLinks: boolean): Record<string, unknown> {
  return {
    id: userId,
    name: store.fullName(userId),
    role: board.members.get(userId),
    type: 'board_member',
    ...(withLinks ? { links: { self: `${base}/v2/boards/${board.id}/members/${userId}` } } : {}),
  };
}

function boardMember(ctx: Ctx, board: BoardRecord): string {
  const id = ctx.params.board_member_id ?? '';
  if (!board.members.has(id)) throw notFound('Board member', id);
  return id;
}

// -- boards -----------------------------------------------------------------------------------

export type BoardSort = (typeof SORTS)[number];

export interface BoardFilters {
  teamId?: string | undefined;
  projectId?: string | undefined;
  /** Matches the name or the description, ignoring case. */
  text?: string | undefined;
  owner?: string | undefined;
}

/** The boards every given (non-empty) filter keeps. */
export function filterBoards(boards: BoardRecord[], filters: BoardFilters): BoardRecord[] {
  const { teamId, projectId, text, owner } = filters;
  let kept = boards;
  if (teamId) kept = kept.filter((b) => b.teamId === teamId);
  if (projectId) kept = kept.filter((b) => b.projectId === projectId);
  if (text) kept = kept.filter((b) => b.name.toLowerCase().includes(text.toLowerCase()) || b.description.toLowerCase().includes(text.toLowerCase()));
  if (owner) kept = kept.filter((b) => b.ownerId === owner);
  return kept;
}

/** Sorts in place: by name, or newest first by creation, last opening (never opened last) or last change; ties by ID. */
export function sortBoards(boards: BoardRecord[], sort: BoardSort): void {
  const byDesc = (f: (b: BoardRecord) => number) => (a: BoardRecord, b: BoardRecord) => f(b) - f(a) || a.id.localeCompare(b.id);
  switch (sort) {
    case 'alphabetically':
      boards.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
      break;
    case 'last_created':
      boards.sort(byDesc((b) => b.createdAt));
      break;
    case 'last_opened':
      boards.sort(byDesc((b) => b.lastOpenedAt ?? 0));
      break;
    default:
      boards.sort(byDesc((b) => b.modifiedAt));
  }
}

function createBoard(ctx: Ctx): SandboxResponse {
  const body = validate(ctx.body ?? {}, BOARD_CHANGES);
  const { teamId, projectId } = resolveTeamProject(ctx, body.teamId, body.projectId, ctx.store.defaultTeamId);
  const board = newBoard(ctx.store, { name: body.name ?? 'Untitled', description: body.description ?? '', teamId, ...(projectId ? { projectId } : {}), ownerId: ctx.store.meId, at: ctx.store.now() });
  applyPolicy(board.policy, body.policy);
  ctx.store.recordAudit('board_created', 'boards', board.id, board.name, {}, teamId);
  return json(201, renderBoard(ctx.store, board, ctx.base, 'created'));
}

function listBoards(ctx: Ctx): SandboxResponse {
  const q = ctx.query;
  const limit = q.int('limit', { min: 1, max: 50, def: 20 });
  const offset = offsetParam(q);
  const sort = q.enumValue('sort', SORTS, 'default') as BoardSort;
  const text = q.one('query');
  if (text !== undefined && text.length > 500) throw badRequest('Invalid parameters: query must be at most 500 characters long');
  const boards = filterBoards([...ctx.store.boards.values()], { teamId: q.one('team_id'), projectId: q.one('project_id'), text, owner: q.one('owner') });
  sortBoards(boards, sort);
  const page = boards.slice(offset, offset + limit).map((b) => renderBoard(ctx.store, b, ctx.base, 'list'));
  return json(200, offsetEnvelope(ctx.req, boards.length, offset, limit, page));
}

function copyBoard(ctx: Ctx): SandboxResponse {
  const sourceId = ctx.query.required('copy_from');
  const source = liveBoard(ctx, sourceId);
  const body = validate(ctx.body ?? {}, COPY_CHANGES);
  const { teamId } = resolveTeamProject(ctx, body.teamId, undefined, source.teamId);
  const at = ctx.store.now();
  const board = newBoard(ctx.store, { name: body.name ?? `Copy of ${source.name}`.slice(0, 60), description: body.description ?? source.description, teamId, ownerId: ctx.store.meId, at });
  board.policy = structuredClone(source.policy);
  applyPolicy(board.policy, body.policy);
  board.classificationLabelId = source.classificationLabelId;
  copyContent(ctx.store, source, board, at);
  ctx.store.recordAudit('board_copied', 'boards', board.id, board.name, { sourceBoardId: source.id }, teamId);
  return json(201, renderBoard(ctx.store, board, ctx.base, 'copy'));
}

function getBoard(ctx: Ctx): SandboxResponse {
  return json(200, renderBoard(ctx.store, liveBoard(ctx), ctx.base, 'get'));
}

function updateBoard(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  const body = validate(ctx.body, BOARD_CHANGES);
  // A board moved to another team leaves its project unless the change names one.
  const moving = body.teamId !== undefined && body.teamId !== board.teamId;
  const { teamId, projectId } = resolveTeamProject(ctx, body.teamId, body.projectId ?? (moving ? undefined : board.projectId), board.teamId);
  board.teamId = teamId;
  if (projectId) board.projectId = projectId;
  else delete board.projectId;
  if (body.name !== undefined) board.name = body.name;
  if (body.description !== undefined) board.description = body.description;
  applyPolicy(board.policy, body.policy);
  touchBoard(ctx, board);
  return json(200, renderBoard(ctx.store, board, ctx.base, 'created'));
}

function deleteBoard(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  trashBoard(ctx.store, board);
  ctx.store.recordAudit('board_deleted', 'boards', board.id, board.name, { movedToTrash: true }, board.teamId);
  return noContent();
}

// -- board members ----------------------------------------------------------------------------

/** The role a share or role change grants: commenter when none is given (the platform's default), co-owner for owner (a board has one owner). */
export function grantedRole(requested: (typeof BOARD_ROLES)[number] | undefined): BoardRole {
  return requested === undefined ? 'commenter' : requested === 'owner' ? 'coowner' : requested;
}

function shareBoard(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  const body = validate(ctx.body, obj({ emails: arr(str(), { minItems: 1, maxItems: 20 }), role: str({ enum: BOARD_ROLES }), message: str() }, ['emails']));
  const role = grantedRole(body.role);
  const successful: number[] = [];
  const failed: { email: string; reason: string }[] = [];
  for (const email of body.emails as string[]) {
    if (!isEmail(email)) {
      failed.push({ email, reason: 'INVALID_EMAIL' });
      continue;
    }
    const user = inviteUser(ctx.store, email);
    if (board.members.get(user.id) !== 'owner') board.members.set(user.id, role);
    successful.push(Number(user.id));
  }
  touchBoard(ctx, board);
  return json(201, { successful, failed });
}

function listBoardMembers(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  const limit = ctx.query.int('limit', { min: 1, max: 50, def: 20 });
  const offset = offsetParam(ctx.query);
  const ids = [...board.members.keys()];
  const data = ids.slice(offset, offset + limit).map((id) => memberBody(ctx.store, board, id, ctx.base, false));
  return json(200, offsetEnvelope(ctx.req, ids.length, offset, limit, data));
}

function getBoardMember(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  return json(200, memberBody(ctx.store, board, boardMember(ctx, board), ctx.base, true));
}

function updateBoardMember(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  const id = boardMember(ctx, board);
  const body = validate(ctx.body, obj({ role: str({ enum: BOARD_ROLES }) }));
  if (board.members.get(id) === 'owner') throw badRequest("Invalid parameters: the board owner's role cannot be changed");
  // The platform's default for a missing role is commenter (so an empty update demotes).
  board.members.set(id, grantedRole(body.role));
  touchBoard(ctx, board);
  return json(200, memberBody(ctx.store, board, id, ctx.base, true));
}

function removeBoardMember(ctx: Ctx): SandboxResponse {
  const board = liveBoard(ctx);
  const id = boardMember(ctx, board);
  if (board.members.get(id) === 'owner') throw badRequest('Invalid parameters: the board owner cannot be removed from the board');
  board.members.delete(id);
  touchBoard(ctx, board);
  return noContent();
}

export function registerBoards(router: Router): void {
  router.add('POST', '/v2/boards', createBoard, { body: 'optional' });
  router.add('GET', '/v2/boards', listBoards);
  router.add('PUT', '/v2/boards', copyBoard, { body: 'optional' });
  router.add('GET', '/v2/boards/:board_id', getBoard);
  router.add('PATCH', '/v2/boards/:board_id', updateBoard, { body: 'required' });
  router.add('DELETE', '/v2/boards/:board_id', deleteBoard);

  router.add('POST', '/v2/boards/:board_id/members', shareBoard, { body: 'required' });
  router.add('GET', '/v2/boards/:board_id/members', listBoardMembers);
  router.add('GET', '/v2/boards/:board_id/members/:board_member_id', getBoardMember);
  router.add('PATCH', '/v2/boards/:board_id/members/:board_member_id', updateBoardMember, { body: 'required' });
  router.add('DELETE', '/v2/boards/:board_id/members/:board_member_id', removeBoardMember);
}
