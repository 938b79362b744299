/**
 * Enterprise organization endpoints: the organization, its members, teams, team members, team
 * settings (and the organization's defaults for new teams).
 */
import type { SandboxResponse } from '../exchange.js';
import { arr, badRequest, conflict, cursorPage, isEmail, json, noContent, notFound, obj, str, validate, type CursorPage } from './http.js';
import type { License, OrgRole, Store, TeamMembership, TeamRecord, TeamRole, UserRecord } from './model.js';
import { iso, renderOrgMember } from './render.js';
import { checkOrg, orgTeam, type Ctx, type Router } from './router.js';
import { trashBoard } from './boards.js';

const ORG_ROLES: readonly OrgRole[] = ['organization_internal_admin', 'organization_internal_user', 'organization_external_user', 'organization_team_guest_user', 'unknown'];
const LICENSES: readonly License[] = ['full', 'occasional', 'free', 'free_restricted', 'full_trial', 'unknown'];
const INVITE_ROLES = ['member', 'admin', 'team_guest'] as const;
const LIST_ROLES = ['member', 'admin', 'team_guest', 'non_team'] as const;

export function defaultTeamSettingsGroups(): Record<string, Record<string, unknown>> {
  return {
    teamAccountDiscoverySettings: { accountDiscovery: 'request' },
    teamCollaborationSettings: { coOwnerRole: 'enabled' },
    teamCopyAccessLevelSettings: { copyAccessLevel: 'team_editors', copyAccessLevelLimitation: 'team_members' },
    teamInvitationSettings: { inviteExternalUsers: 'allowed', whoCanInvite: 'all_members' },
    teamSharingPolicySettings: {
      allowListedDomains: [],
      createAssetAccessLevel: 'all_members',
      defaultBoardAccess: 'private',
      defaultBoardSharingAccess: 'team_members_with_editing_rights',
      defaultOrganizationAccess: 'view',
      defaultProjectAccess: 'private',
      moveBoardToAccount: 'allowed',
      restrictAllowedDomains: 'disabled',
      sharingOnAccount: 'allowed',
      sharingOnOrganization: 'allowed',
      sharingViaPublicLink: 'allowed_with_editing',
    },
  };
}

const SETTINGS_CHANGES = obj({
  teamAccountDiscoverySettings: obj({ accountDiscovery: str({ enum: ['hidden', 'request', 'join'] }) }),
  teamCollaborationSettings: obj({ coOwnerRole: str({ enum: ['enabled', 'disabled'] }) }),
  teamCopyAccessLevelSettings: obj({ copyAccessLevel: str({ enum: ['anyone', 'team_members', 'team_editors', 'board_owner'] }), copyAccessLevelLimitation: str({ enum: ['anyone', 'team_members'] }) }),
  teamInvitationSettings: obj({ inviteExternalUsers: str({ enum: ['allowed', 'not_allowed'] }), whoCanInvite: str({ enum: ['only_org_admins', 'admins', 'all_members'] }) }),
  teamSharingPolicySettings: obj({
    allowListedDomains: arr(str({ minLength: 1 })),
    createAssetAccessLevel: str({ enum: ['company_admins', 'admins', 'all_members'] }),
    defaultBoardAccess: str({ enum: ['private', 'view', 'comment', 'edit'] }),
    defaultBoardSharingAccess: str({ enum: ['team_members_with_editing_rights', 'owner_and_coowners'] }),
    defaultOrganizationAccess: str({ enum: ['private', 'view', 'comment', 'edit'] }),
    defaultProjectAccess: str({ enum: ['private', 'view'] }),
    moveBoardToAccount: str({ enum: ['allowed', 'not_allowed'] }),
    restrictAllowedDomains: str({ enum: ['enabled', 'enabled_with_external_user_access', 'disabled'] }),
    sharingOnAccount: str({ enum: ['allowed', 'not_allowed'] }),
    sharingOnOrganization: str({ enum: ['allowed', 'allowed_with_editing', 'not_allowed'] }),
    sharingViaPublicLink: str({ enum: ['allowed', 'allowed_with_editing', 'not_allowed'] }),
  }),
});

/** `{ limit, size, data, cursor?, type }` used by the organization-level lists. */
export function enterprisePage<T>(page: CursorPage<T>, limit: number, data: unknown[]): Record<string, unknown> {
  return { limit, size: data.length, data, ...(page.next ? { cursor: page.next } : {}), type: 'cursor-list' };
}

export function renderTeam(team: TeamRecord): Record<string, unknown> {
  return { id: team.id, name: team.name, type: 'team' };
}

function renderTeamMember(team: TeamRecord, userId: string, m: TeamMembership): Record<string, unknown> {
  return { id: userId, role: m.role, teamId: team.id, createdAt: iso(m.createdAt), createdBy: m.createdBy, modifiedAt: iso(m.modifiedAt), modifiedBy: m.modifiedBy, type: 'team-member' };
}

function renderSettings(store: Store, groups: Record<string, Record<string, unknown>>, teamId?: string): Record<string, unknown> {
  return { organizationId: store.org.id, ...(teamId ? { teamId } : {}), ...structuredClone(groups), type: 'team-settings' };
}

export function newTeam(store: Store, name: string, at: number, creatorId: string): TeamRecord {
  const team: TeamRecord = {
    id: store.ids.numeric(),
    seq: store.nextSeq(),
    name,
    createdAt: at,
    members: new Map([[creatorId, { seq: store.nextSeq(), role: 'admin' as TeamRole, createdAt: at, createdBy: creatorId, modifiedAt: at, modifiedBy: creatorId }]]),
    settings: structuredClone(store.defaultTeamSettings),
    classification: { enabled: true, ...(store.labels.find((l) => l.isDefault) ? { defaultLabelId: store.labels.find((l) => l.isDefault)?.id } : {}) },
  };
  store.teams.set(team.id, team);
  return team;
}

function memberOf(ctx: Ctx, team: TeamRecord): [string, TeamMembership] {
  const id = ctx.params.member_id ?? '';
  const m = team.members.get(id);
  if (!m) throw notFound('Team member', id);
  return [id, m];
}

function orgMembersPage(ctx: Ctx, users: UserRecord[], limit: number): { data: UserRecord[]; next?: string } {
  const cursor = ctx.query.one('cursor');
  let start = 0;
  if (cursor) {
    // The cursor is the ID of the last member of the previous page.
    const idx = users.findIndex((u) => u.id === cursor);
    if (idx < 0) throw badRequest(`Invalid parameters: cursor ${JSON.stringify(cursor)} is not a member ID of this organization`);
    start = idx + 1;
  }
  const data = users.slice(start, start + limit);
  const last = data[data.length - 1];
  return { data, ...(start + limit < users.length && last ? { next: last.id } : {}) };
}

// -- the organization and its members ---------------------------------------------------------

function getOrganization(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const { org } = ctx.store;
  return json(200, { id: org.id, name: org.name, fullLicensesPurchased: org.fullLicensesPurchased, plan: ctx.store.enterprise ? 'company' : 'business', type: 'organization' });
}

/** The members with one of the comma-separated e-mails (ignoring case); at most 10 addresses, each well-formed. */
export function membersByEmail(users: UserRecord[], emails: string): UserRecord[] {
  const list = emails.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  if (list.length > 10) throw badRequest(`Invalid parameters: at most 10 emails can be searched at once, got ${list.length}`);
  const bad = list.find((s) => !isEmail(s));
  if (bad) throw badRequest(`Invalid parameters: ${JSON.stringify(bad)} is not an e-mail address`);
  return users.filter((u) => list.includes(u.email.toLowerCase()));
}

/** Sorted by ID; an `emails` search answers a plain array, otherwise a cursor page filtered by role, license and activity. */
function listOrgMembers(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const q = ctx.query;
  const limit = q.int('limit', { min: 1, max: 100, def: 100 });
  const users = ctx.store.orgUsers().sort((a, b) => a.id.localeCompare(b.id));
  const emails = q.one('emails');
  if (emails !== undefined && emails.trim() !== '') return json(200, membersByEmail(users, emails).map(renderOrgMember));
  const role = q.enumValue('role', ORG_ROLES);
  const license = q.enumValue('license', LICENSES);
  const active = q.bool('active', undefined);
  const filtered = users.filter((u) => (!role || u.role === role) && (!license || u.license === license) && (active === undefined || u.active === active));
  const page = orgMembersPage(ctx, filtered, limit);
  return json(200, { limit, size: page.data.length, data: page.data.map(renderOrgMember), ...(page.next ? { cursor: page.next } : {}), type: 'cursor-list' });
}

function getOrgMember(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const id = ctx.params.member_id ?? '';
  const user = ctx.store.users.get(id);
  if (!user || !user.orgMember) throw notFound('Organization member', id);
  return json(200, renderOrgMember(user));
}

// -- teams ------------------------------------------------------------------------------------

function createTeam(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const body = validate(ctx.body, obj({ name: str({ minLength: 1, maxLength: 60 }) }, ['name']));
  const team = newTeam(ctx.store, body.name, ctx.store.now(), ctx.store.meId);
  ctx.store.recordAudit('team_created', 'teams', team.id, team.name, {}, team.id);
  return json(201, renderTeam(team));
}

function listTeams(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const limit = ctx.query.int('limit', { min: 1, max: 100, def: 100 });
  const name = ctx.query.one('name');
  let teams = [...ctx.store.teams.values()];
  if (name) teams = teams.filter((t) => t.name.toLowerCase().includes(name.toLowerCase()));
  const page = cursorPage(teams, (t) => t.seq, ctx.query.one('cursor'), limit);
  return json(200, enterprisePage(page, limit, page.page.map(renderTeam)));
}

function getTeam(ctx: Ctx): SandboxResponse {
  return json(200, renderTeam(orgTeam(ctx)));
}

function renameTeam(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const body = validate(ctx.body, obj({ name: str({ minLength: 1, maxLength: 60 }) }));
  if (body.name !== undefined) team.name = body.name;
  return json(200, renderTeam(team));
}

/** Deletes the team with its boards (to the Trash) and projects; another team becomes the default. */
function deleteTeam(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const { store } = ctx;
  for (const b of [...store.boards.values()]) if (b.teamId === team.id) trashBoard(store, b);
  for (const p of [...store.projects.values()]) if (p.teamId === team.id) store.projects.delete(p.id);
  store.teams.delete(team.id);
  if (store.defaultTeamId === team.id) store.defaultTeamId = store.teams.keys().next().value ?? team.id;
  store.recordAudit('team_deleted', 'teams', team.id, team.name, {}, team.id);
  return noContent();
}

// -- team members -----------------------------------------------------------------------------

/** Adds an organization member (by e-mail) to the team; a second add is a conflict. */
function addTeamMember(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const body = validate(ctx.body, obj({ email: str({ format: 'email' }), role: str({ enum: INVITE_ROLES }) }, ['email']));
  const user = ctx.store.userByEmail(body.email);
  if (!user || !user.orgMember) throw notFound('Organization user with e-mail', body.email);
  if (team.members.has(user.id)) throw conflict(`User ${user.id} is already a member of team ${team.id}`);
  const at = ctx.store.now();
  const m: TeamMembership = { seq: ctx.store.nextSeq(), role: body.role ?? 'member', createdAt: at, createdBy: ctx.store.meId, modifiedAt: at, modifiedBy: ctx.store.meId };
  team.members.set(user.id, m);
  return json(201, renderTeamMember(team, user.id, m));
}

function listTeamMembers(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const limit = ctx.query.int('limit', { min: 1, max: 100, def: 100 });
  const role = ctx.query.enumValue('role', LIST_ROLES);
  const entries = [...team.members.entries()].filter(([, m]) => !role || m.role === role);
  const page = cursorPage(entries, ([, m]) => m.seq, ctx.query.one('cursor'), limit);
  return json(200, enterprisePage(page, limit, page.page.map(([id, m]) => renderTeamMember(team, id, m))));
}

function getTeamMember(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const [id, m] = memberOf(ctx, team);
  return json(200, renderTeamMember(team, id, m));
}

function updateTeamMember(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const [id, m] = memberOf(ctx, team);
  const body = validate(ctx.body, obj({ role: str({ enum: INVITE_ROLES }) }));
  if (body.role !== undefined) m.role = body.role;
  m.modifiedAt = ctx.store.now();
  m.modifiedBy = ctx.store.meId;
  return json(200, renderTeamMember(team, id, m));
}

/** Removes the member from the team and from the team's projects. */
function removeTeamMember(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const [id] = memberOf(ctx, team);
  team.members.delete(id);
  for (const p of ctx.store.projects.values()) if (p.teamId === team.id) p.members.delete(id);
  return noContent();
}

// -- team settings ----------------------------------------------------------------------------

function getDefaultTeamSettings(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  return json(200, renderSettings(ctx.store, ctx.store.defaultTeamSettings));
}

function getTeamSettings(ctx: Ctx): SandboxResponse {
  return json(200, renderSettings(ctx.store, orgTeam(ctx).settings, ctx.params.team_id));
}

/** Merges the changed fields into the team's existing settings groups (unknown groups are ignored). */
function updateTeamSettings(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const body = validate(ctx.body, SETTINGS_CHANGES);
  for (const [group, changes] of Object.entries(body)) {
    if (!(group in team.settings) || typeof changes !== 'object' || changes === null) continue;
    Object.assign(team.settings[group] as Record<string, unknown>, structuredClone(changes));
  }
  return json(200, renderSettings(ctx.store, team.settings, team.id));
}

export function registerOrg(router: Router): void {
  const e = { enterprise: true } as const;
  const withBody = { ...e, body: 'required' } as const;
  const org = '/v2/orgs/:org_id';
  const team = `${org}/teams/:team_id`;

  router.add('GET', org, getOrganization, e);
  router.add('GET', `${org}/members`, listOrgMembers, e);
  router.add('GET', `${org}/members/:member_id`, getOrgMember, e);

  router.add('POST', `${org}/teams`, createTeam, withBody);
  router.add('GET', `${org}/teams`, listTeams, e);
  router.add('GET', team, getTeam, e);
  router.add('PATCH', team, renameTeam, withBody);
  router.add('DELETE', team, deleteTeam, e);

  router.add('POST', `${team}/members`, addTeamMember, withBody);
  router.add('GET', `${team}/members`, listTeamMembers, e);
  router.add('GET', `${team}/members/:member_id`, getTeamMember, e);
  router.add('PATCH', `${team}/members/:member_id`, updateTeamMember, withBody);
  router.add('DELETE', `${team}/members/:member_id`, removeTeamMember, e);

  router.add('GET', `${org}/default_teams_settings`, getDefaultTeamSettings, e);
  router.add('GET', `${team}/settings`, getTeamSettings, e);
  router.add('PATCH', `${team}/settings`, updateTeamSettings, withBody);
}
