/**
 * Enterprise projects (folders of boards inside a team), their settings and members. Deleting a
 * project keeps its boards (they just leave the project).
 */
import type { SandboxResponse } from '../exchange.js';
import { conflict, cursorPage, json, noContent, notFound, obj, str, validate, badRequest } from './http.js';
import type { ProjectMembership, ProjectRecord, ProjectRole, Store, TeamRecord } from './model.js';
import { enterprisePage } from './org.js';
import { orgTeam, type Ctx, type Router } from './router.js';

const ROLES: readonly ProjectRole[] = ['owner', 'editor', 'viewer', 'commentator', 'coowner'];
const SETTINGS = obj({ sharingPolicySettings: obj({ teamAccess: str({ enum: ['private', 'view'] }) }) });

export function newProject(store: Store, team: TeamRecord, name: string, ownerId: string, at: number): ProjectRecord {
  const project: ProjectRecord = {
    id: store.ids.numeric(),
    seq: store.nextSeq(),
    teamId: team.id,
    name,
    teamAccess: 'private',
    members: new Map([[ownerId, { seq: store.nextSeq(), role: 'owner' as ProjectRole }]]),
    createdAt: at,
  };
  store.projects.set(project.id, project);
  return project;
}

function projectOf(ctx: Ctx): { team: TeamRecord; project: ProjectRecord } {
  const team = orgTeam(ctx);
  const id = ctx.params.project_id ?? '';
  const project = ctx.store.projects.get(id);
  if (!project || project.teamId !== team.id) throw notFound('Project', id);
  return { team, project };
}

const render = (p: ProjectRecord) => ({ id: p.id, name: p.name, type: 'project' });
const renderSettings = (p: ProjectRecord) => ({ sharingPolicySettings: { teamAccess: p.teamAccess }, type: 'project_settings' });

function renderMember(ctx: Ctx, userId: string, m: ProjectMembership): Record<string, unknown> {
  return { id: userId, email: ctx.store.users.get(userId)?.email ?? '', role: m.role, type: 'project_member' };
}

function memberOf(ctx: Ctx, project: ProjectRecord): [string, ProjectMembership] {
  const id = ctx.params.member_id ?? '';
  const m = project.members.get(id);
  if (!m) throw notFound('Project member', id);
  return [id, m];
}

// -- projects ---------------------------------------------------------------------------------

function createProject(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const body = validate(ctx.body, obj({ name: str({ minLength: 1, maxLength: 60 }) }, ['name']));
  const project = newProject(ctx.store, team, body.name, ctx.store.meId, ctx.store.now());
  ctx.store.recordAudit('project_created', 'projects', project.id, project.name, {}, team.id);
  return json(201, render(project));
}

function listProjects(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const limit = ctx.query.int('limit', { min: 1, max: 100, def: 100 });
  const projects = [...ctx.store.projects.values()].filter((p) => p.teamId === team.id);
  const page = cursorPage(projects, (p) => p.seq, ctx.query.one('cursor'), limit);
  return json(200, enterprisePage(page, limit, page.page.map(render)));
}

function getProject(ctx: Ctx): SandboxResponse {
  return json(200, render(projectOf(ctx).project));
}

function renameProject(ctx: Ctx): SandboxResponse {
  const { project } = projectOf(ctx);
  const body = validate(ctx.body, obj({ name: str({ minLength: 1, maxLength: 60 }) }, ['name']));
  project.name = body.name;
  return json(200, render(project));
}

/** Deletes the project; its boards stay in the team, outside any project. */
function deleteProject(ctx: Ctx): SandboxResponse {
  const { project, team } = projectOf(ctx);
  for (const b of ctx.store.boards.values()) if (b.projectId === project.id) delete b.projectId;
  ctx.store.projects.delete(project.id);
  ctx.store.recordAudit('project_deleted', 'projects', project.id, project.name, {}, team.id);
  return noContent();
}

// -- project settings -------------------------------------------------------------------------

function getProjectSettings(ctx: Ctx): SandboxResponse {
  return json(200, renderSettings(projectOf(ctx).project));
}

function updateProjectSettings(ctx: Ctx): SandboxResponse {
  const { project } = projectOf(ctx);
  const body = validate(ctx.body, SETTINGS);
  const access = body.sharingPolicySettings?.teamAccess;
  if (access !== undefined) project.teamAccess = access;
  return json(200, renderSettings(project));
}

// -- project members --------------------------------------------------------------------------

/** Adds a member of the project's team (by e-mail) with a role; a second add is a conflict. */
function addProjectMember(ctx: Ctx): SandboxResponse {
  const { project, team } = projectOf(ctx);
  const body = validate(ctx.body, obj({ email: str({ format: 'email' }), role: str({ enum: ROLES }) }, ['email', 'role']));
  const user = ctx.store.userByEmail(body.email);
  if (!user || !user.orgMember) throw notFound('Organization user with e-mail', body.email);
  if (!team.members.has(user.id)) throw badRequest(`Invalid parameters: ${body.email} is not a member of team ${team.id}; add them to the team first`);
  if (project.members.has(user.id)) throw conflict(`${body.email} is already a member of project ${project.id}`);
  const m: ProjectMembership = { seq: ctx.store.nextSeq(), role: body.role };
  project.members.set(user.id, m);
  return json(201, renderMember(ctx, user.id, m));
}

function listProjectMembers(ctx: Ctx): SandboxResponse {
  const { project } = projectOf(ctx);
  const limit = ctx.query.int('limit', { min: 1, max: 100, def: 100 });
  const page = cursorPage([...project.members.entries()], ([, m]) => m.seq, ctx.query.one('cursor'), limit);
  return json(200, enterprisePage(page, limit, page.page.map(([id, m]) => renderMember(ctx, id, m))));
}

function getProjectMember(ctx: Ctx): SandboxResponse {
  const { project } = projectOf(ctx);
  const [id, m] = memberOf(ctx, project);
  return json(200, renderMember(ctx, id, m));
}

function updateProjectMember(ctx: Ctx): SandboxResponse {
  const { project } = projectOf(ctx);
  const [id, m] = memberOf(ctx, project);
  const body = validate(ctx.body, obj({ role: str({ enum: ROLES }) }));
  if (body.role !== undefined) m.role = body.role;
  return json(200, renderMember(ctx, id, m));
}

function removeProjectMember(ctx: Ctx): SandboxResponse {
  const { project } = projectOf(ctx);
  const [id] = memberOf(ctx, project);
  project.members.delete(id);
  return noContent();
}

export function registerProjects(router: Router): void {
  const e = { enterprise: true } as const;
  const withBody = { ...e, body: 'required' } as const;
  const base = '/v2/orgs/:org_id/teams/:team_id/projects';

  router.add('POST', base, createProject, withBody);
  router.add('GET', base, listProjects, e);
  router.add('GET', `${base}/:project_id`, getProject, e);
  router.add('PATCH', `${base}/:project_id`, renameProject, withBody);
  router.add('DELETE', `${base}/:project_id`, deleteProject, e);
  router.add('GET', `${base}/:project_id/settings`, getProjectSettings, e);
  router.add('PATCH', `${base}/:project_id/settings`, updateProjectSettings, withBody);
  router.add('POST', `${base}/:project_id/members`, addProjectMember, withBody);
  router.add('GET', `${base}/:project_id/members`, listProjectMembers, e);
  router.add('GET', `${base}/:project_id/members/:member_id`, getProjectMember, e);
  router.add('PATCH', `${base}/:project_id/members/:member_id`, updateProjectMember, withBody);
  router.add('DELETE', `${base}/:project_id/members/:member_id`, removeProjectMember, e);
}
