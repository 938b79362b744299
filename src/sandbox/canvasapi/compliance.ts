/**
 * Enterprise governance endpoints: data classification, eDiscovery (cases, legal holds and their
 * content items; read-only), board export jobs, audit logs, content logs and session resets.
 *
 * Export jobs advance with the injected clock: CREATED for the first second, IN_PROGRESS until
 * EXPORT_DURATION_MS have passed, FINISHED afterwards.
 */
import type { SandboxResponse } from '../exchange.js';
import { arr, badRequest, bool, cursorPage, isDateTime, isEmail, isUuid, json, notFound, obj, str, validate, type Query, type Rule } from './http.js';
import type { AuditEventRecord, BoardRecord, CaseRecord, ContentLogRecord, ExportJobRecord, LabelRecord, LegalHoldRecord, Store } from './model.js';
import { iso, renderPlainUser } from './render.js';
import { checkOrg, orgTeam, type Ctx, type Router } from './router.js';
import { enterprisePage } from './org.js';

export const EXPORT_STARTS_AFTER_MS = 1_000;
export const EXPORT_DURATION_MS = 5_000;
export const AUDIT_LOOKBACK_DAYS = 90;
const DAY = 86_400_000;
const AUDIT_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** int64 in JSON: an integer number or a string of digits. */
const INT64: Rule = { kind: 'any' };

const INT64_MAX = 9_223_372_036_854_775_807n;

export function int64Id(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'bigint' && value >= 0n && value <= INT64_MAX) return String(value);
  if (typeof value === 'string' && /^\d{1,19}$/.test(value) && BigInt(value) <= INT64_MAX) return value;
  // A bigint past int64 is named as digits: JSON.stringify throws on a bigint.
  throw badRequest(`Invalid parameters: ${field} must be an integer ID, got ${typeof value === 'bigint' ? String(value) : JSON.stringify(value)}`);
}

function labelOf(store: Store, id: string, field: string): LabelRecord {
  const label = store.labels.find((l) => l.id === id);
  if (!label) throw badRequest(`Invalid parameters: ${field} ${id} is not a classification label of this organization`);
  return label;
}

function renderLabel(l: LabelRecord): Record<string, unknown> {
  return { id: l.id, name: l.name, color: l.color, description: l.description, sharingRecommendation: l.sharingRecommendation, guidelineUrl: l.guidelineUrl };
}

function teamBoard(ctx: Ctx): BoardRecord {
  const team = orgTeam(ctx);
  const id = ctx.params.board_id ?? '';
  const board = ctx.store.boards.get(id);
  if (!board || board.teamId !== team.id) throw notFound('Board', id);
  return board;
}

function numericParam(ctx: Ctx, name: string): string {
  const v = ctx.params[name] ?? '';
  if (!/^[0-9]+$/.test(v)) throw badRequest(`Invalid parameters: ${name} must be numeric, got ${JSON.stringify(v)}`);
  return v;
}

function caseOf(ctx: Ctx): CaseRecord {
  checkOrg(ctx, true);
  const id = numericParam(ctx, 'case_id');
  const c = ctx.store.cases.get(id);
  if (!c) throw notFound('Case', id);
  return c;
}

function holdOf(ctx: Ctx): LegalHoldRecord {
  const c = caseOf(ctx);
  const id = numericParam(ctx, 'legal_hold_id');
  const h = ctx.store.legalHolds.get(id);
  if (!h || h.caseId !== c.id) throw notFound('Legal hold', id);
  return h;
}

function userRef(store: Store, id: string): Record<string, unknown> {
  const u = store.users.get(id);
  return u ? renderPlainUser(u) : { id, email: '', firstName: '', lastName: '' };
}

function renderCase(store: Store, c: CaseRecord): Record<string, unknown> {
  return { id: c.id, organizationId: store.org.id, name: c.name, description: c.description, createdBy: userRef(store, c.createdBy), createdAt: iso(c.createdAt), lastModifiedAt: iso(c.lastModifiedAt) };
}

function renderHold(store: Store, h: LegalHoldRecord): Record<string, unknown> {
  return {
    id: h.id,
    organizationId: store.org.id,
    caseId: h.caseId,
    name: h.name,
    description: h.description,
    state: h.state,
    scope: { users: h.userIds.map((u) => userRef(store, u)) },
    scopeValue: 'users',
    createdBy: userRef(store, h.createdBy),
    createdAt: iso(h.createdAt),
    lastModifiedAt: iso(h.lastModifiedAt),
  };
}

/** Pagination envelope of the eDiscovery lists (with a total). */
function discoveryPage<T>(ctx: Ctx, list: T[], keyOf: (t: T) => number, render: (t: T) => unknown): Record<string, unknown> {
  const limit = ctx.query.int('limit', { min: 1, max: 100, def: 100, required: true });
  const page = cursorPage(list, keyOf, ctx.query.one('cursor'), limit);
  return { limit, size: page.page.length, total: page.total, ...(page.next ? { cursor: page.next } : {}), type: 'cursor-list', data: page.page.map(render) };
}

export function jobStatus(store: Store, createdAt: number): 'CREATED' | 'IN_PROGRESS' | 'FINISHED' {
  const age = store.now() - createdAt;
  if (age < EXPORT_STARTS_AFTER_MS) return 'CREATED';
  if (age < EXPORT_DURATION_MS) return 'IN_PROGRESS';
  return 'FINISHED';
}

export function parseAuditTime(value: string, name: string): number {
  if (!AUDIT_TIME_RE.test(value) || Number.isNaN(Date.parse(value))) {
    throw badRequest(`Invalid parameters: ${name} must be a UTC ISO 8601 date-time with milliseconds and a trailing Z, e.g. 2025-01-31T12:00:00.000Z, got ${JSON.stringify(value)}`);
  }
  return Date.parse(value);
}

// -- data classification ----------------------------------------------------------------------

function getOrgClassificationSettings(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const labels = ctx.store.labels.map((l) => ({ ...renderLabel(l), default: l.isDefault, orderNumber: l.orderNumber, type: 'data-classification-label' }));
  return json(200, { enabled: true, labels, type: 'data-classification-organization-settings' });
}

/** Labels the team's boards (or only its unclassified ones) with the given label, or the team's default. */
function classifyTeamBoards(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const body = validate(ctx.body, obj({ labelId: INT64, notClassifiedOnly: bool() }));
  const labelId = int64Id(body.labelId, 'labelId') ?? team.classification.defaultLabelId;
  if (labelId === undefined) throw badRequest('Invalid parameters: labelId is required (the team has no default label)');
  labelOf(ctx.store, labelId, 'labelId');
  let updated = 0;
  for (const b of ctx.store.boards.values()) {
    if (b.teamId !== team.id) continue;
    if (body.notClassifiedOnly === true && b.classificationLabelId !== undefined) continue;
    b.classificationLabelId = labelId;
    updated += 1;
  }
  ctx.store.recordAudit('boards_classification_updated', 'data_classification', team.id, team.name, { labelId, numberUpdatedBoards: updated }, team.id);
  return json(200, { numberUpdatedBoards: updated, type: 'boards-data-classification-label-changed' });
}

function getTeamClassificationSettings(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  return json(200, { ...(team.classification.defaultLabelId ? { defaultLabelId: team.classification.defaultLabelId } : {}), enabled: team.classification.enabled, type: 'team-data-classification-settings' });
}

function updateTeamClassificationSettings(ctx: Ctx): SandboxResponse {
  const team = orgTeam(ctx);
  const body = validate(ctx.body, obj({ defaultLabelId: INT64, enabled: bool() }));
  const labelId = int64Id(body.defaultLabelId, 'defaultLabelId');
  if (labelId !== undefined) team.classification.defaultLabelId = labelOf(ctx.store, labelId, 'defaultLabelId').id;
  if (body.enabled !== undefined) team.classification.enabled = body.enabled;
  return getTeamClassificationSettings(ctx);
}

function getBoardClassification(ctx: Ctx): SandboxResponse {
  const board = teamBoard(ctx);
  const label = board.classificationLabelId ? ctx.store.labels.find((l) => l.id === board.classificationLabelId) : undefined;
  return json(200, { ...(label ? renderLabel(label) : {}), type: 'board-data-classification-label' });
}

function classifyBoard(ctx: Ctx): SandboxResponse {
  const board = teamBoard(ctx);
  const body = validate(ctx.body, obj({ labelId: str({ pattern: /^\d{1,19}$/, patternText: 'a numeric label ID' }) }, ['labelId']));
  const label = labelOf(ctx.store, body.labelId, 'labelId');
  board.classificationLabelId = label.id;
  ctx.store.recordAudit('board_classification_updated', 'data_classification', board.id, board.name, { labelId: label.id }, board.teamId);
  return json(200, { ...renderLabel(label), type: 'board-data-classification-label' });
}

// -- eDiscovery -------------------------------------------------------------------------------

function listCases(ctx: Ctx): SandboxResponse {
  checkOrg(ctx, true);
  const cases = [...ctx.store.cases.values()];
  return json(200, discoveryPage(ctx, cases, (c) => cases.indexOf(c), (c) => renderCase(ctx.store, c)));
}

function getCase(ctx: Ctx): SandboxResponse {
  return json(200, renderCase(ctx.store, caseOf(ctx)));
}

function listLegalHolds(ctx: Ctx): SandboxResponse {
  const c = caseOf(ctx);
  const holds = [...ctx.store.legalHolds.values()].filter((h) => h.caseId === c.id);
  return json(200, discoveryPage(ctx, holds, (h) => holds.indexOf(h), (h) => renderHold(ctx.store, h)));
}

function getLegalHold(ctx: Ctx): SandboxResponse {
  return json(200, renderHold(ctx.store, holdOf(ctx)));
}

function listLegalHoldContentItems(ctx: Ctx): SandboxResponse {
  const hold = holdOf(ctx);
  const items = hold.contentItems;
  return json(200, discoveryPage(ctx, items, (i) => items.indexOf(i), (i) => ({ id: i.id, contentId: i.boardId, name: i.name, type: 'board' })));
}

// -- board export jobs ------------------------------------------------------------------------

/** Starts an export job; the same request_id answers the job it already started. */
function createExportJob(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const requestId = ctx.query.required('request_id');
  if (!isUuid(requestId)) throw badRequest(`Invalid parameters: request_id must be a UUID, got ${JSON.stringify(requestId)}`);
  const body = validate(ctx.body, obj({ boardIds: arr(str({ minLength: 1 }), { minItems: 1, maxItems: 50 }), boardFormat: str({ enum: ['SVG', 'HTML', 'PDF'] }) }, ['boardIds']));
  for (const job of ctx.store.exportJobs.values()) if (job.requestId === requestId) return json(200, { jobId: job.id });
  const job = { id: ctx.store.ids.uuid(), requestId, boardIds: [...new Set(body.boardIds as string[])], format: (body.boardFormat ?? 'SVG') as 'SVG' | 'HTML' | 'PDF', createdAt: ctx.store.now() };
  ctx.store.exportJobs.set(job.id, job);
  ctx.store.recordAudit('board_export_job_created', 'ediscovery', job.id, `Export of ${job.boardIds.length} board(s)`, { boardIds: job.boardIds, format: job.format });
  return json(200, { jobId: job.id });
}

function exportJobOf(ctx: Ctx): ExportJobRecord {
  checkOrg(ctx);
  const id = ctx.params.job_id ?? '';
  if (!isUuid(id)) throw badRequest(`Invalid parameters: job_id must be a UUID, got ${JSON.stringify(id)}`);
  const job = ctx.store.exportJobs.get(id);
  if (!job) throw notFound('Board export job', id);
  return job;
}

function getExportJob(ctx: Ctx): SandboxResponse {
  return json(200, { jobStatus: jobStatus(ctx.store, exportJobOf(ctx).createdAt) });
}

/** One board's result: its status while the job runs, then a link to the file (HTML exports are zipped) or an error for a board that never existed. */
function exportResult(ctx: Ctx, job: ExportJobRecord, status: ReturnType<typeof jobStatus>, boardId: string): Record<string, unknown> {
  if (status !== 'FINISHED') return { boardId, status };
  if (!ctx.store.boards.has(boardId) && !ctx.store.trash.has(boardId)) {
    return { boardId, status: 'ERROR', errorType: 'FATAL', errorMessage: `Board ${boardId} does not exist` };
  }
  const ext = job.format.toLowerCase();
  return { boardId, status: 'SUCCESS', exportLink: `${ctx.base}/exports/${job.id}/${encodeURIComponent(boardId)}.${ext === 'html' ? 'zip' : ext}` };
}

function getExportJobResults(ctx: Ctx): SandboxResponse {
  const job = exportJobOf(ctx);
  const status = jobStatus(ctx.store, job.createdAt);
  return json(200, { jobId: job.id, results: job.boardIds.map((boardId) => exportResult(ctx, job, status, boardId)) });
}

// -- audit and content logs -------------------------------------------------------------------

function renderAuditEvent(store: Store, ev: AuditEventRecord): Record<string, unknown> {
  const actor = store.users.get(ev.actorId);
  const team = ev.teamId ? store.teams.get(ev.teamId) : undefined;
  return {
    id: ev.id,
    context: { ip: ev.ip, organization: { id: store.org.id, name: store.org.name }, ...(team ? { team: { id: team.id, name: team.name } } : {}) },
    object: { id: ev.objectId, name: ev.objectName },
    createdAt: iso(ev.createdAt),
    details: structuredClone(ev.details),
    createdBy: { type: 'user', id: ev.actorId, name: store.fullName(ev.actorId), email: actor?.email ?? '' },
    event: ev.event,
    category: ev.category,
  };
}

/** Audit events strictly between createdAfter and createdBefore, which must lie within the lookback window. */
function listAuditLogs(ctx: Ctx): SandboxResponse {
  const q = ctx.query;
  const after = parseAuditTime(q.required('createdAfter'), 'createdAfter');
  const before = parseAuditTime(q.required('createdBefore'), 'createdBefore');
  const oldest = ctx.store.now() - AUDIT_LOOKBACK_DAYS * DAY;
  if (after < oldest) throw badRequest(`Invalid parameters: createdAfter must be within the last ${AUDIT_LOOKBACK_DAYS} days (not before ${iso(oldest)}); use the CSV export for older events`);
  if (after >= before) throw badRequest('Invalid parameters: createdAfter must be earlier than createdBefore');
  const limit = q.int('limit', { min: 1, def: 100 });
  const sorting = q.enumValue('sorting', ['ASC', 'DESC'] as const, 'ASC');
  let events = ctx.store.audit.filter((ev) => ev.createdAt > after && ev.createdAt < before);
  if (sorting === 'DESC') events = events.slice().reverse();
  const page = cursorPage(events, (ev) => ev.seq, q.one('cursor'), limit, sorting === 'DESC');
  const data = page.page.map((ev) => renderAuditEvent(ctx.store, ev));
  return json(200, { type: 'cursor-list', limit, size: data.length, ...(page.next ? { cursor: page.next } : {}), data });
}

export interface ContentLogQuery {
  from: number;
  to: number;
  boardIds: string[];
  /** Lower-cased. */
  emails: string[];
  limit: number;
  /** sorting=desc: newest first. */
  descending: boolean;
}

/** The content-log query: a from..to window (inclusive), at most 15 boards and 15 well-formed e-mails, limit and order. */
export function contentLogQuery(q: Query): ContentLogQuery {
  const fromRaw = q.required('from');
  const toRaw = q.required('to');
  if (!isDateTime(fromRaw)) throw badRequest(`Invalid parameters: from must be an ISO 8601 date-time, got ${JSON.stringify(fromRaw)}`);
  if (!isDateTime(toRaw)) throw badRequest(`Invalid parameters: to must be an ISO 8601 date-time, got ${JSON.stringify(toRaw)}`);
  const from = Date.parse(fromRaw);
  const to = Date.parse(toRaw);
  if (from > to) throw badRequest('Invalid parameters: from must not be later than to');
  const boardIds = q.list('board_ids');
  const emails = q.list('emails').map((s) => s.toLowerCase());
  if (boardIds.length > 15) throw badRequest(`Invalid parameters: at most 15 board_ids, got ${boardIds.length}`);
  if (emails.length > 15) throw badRequest(`Invalid parameters: at most 15 emails, got ${emails.length}`);
  const badEmail = emails.find((m) => !isEmail(m));
  if (badEmail) throw badRequest(`Invalid parameters: ${JSON.stringify(badEmail)} is not an e-mail address`);
  const limit = q.int('limit', { min: 1, max: 1000, def: 1000 });
  const sorting = q.enumValue('sorting', ['asc', 'desc'] as const, 'asc');
  return { from, to, boardIds, emails, limit, descending: sorting === 'desc' };
}

function renderContentLog(store: Store, l: ContentLogRecord): Record<string, unknown> {
  return {
    id: l.id,
    contentId: l.boardId,
    actionType: l.actionType,
    actionTime: iso(l.actionTime),
    actor: { id: l.actorId, email: store.users.get(l.actorId)?.email ?? '', name: store.fullName(l.actorId) },
    itemType: l.itemType,
    itemId: l.itemId,
    state: structuredClone(l.state),
  };
}

function listContentLogs(ctx: Ctx): SandboxResponse {
  checkOrg(ctx);
  const { from, to, boardIds, emails, limit, descending } = contentLogQuery(ctx.query);
  const { store } = ctx;
  const actorIds = new Set(emails.map((m) => store.userByEmail(m)?.id).filter((id): id is string => id !== undefined));
  let logs = store.contentLogs.filter(
    (l) => l.actionTime >= from && l.actionTime <= to && (boardIds.length === 0 || boardIds.includes(l.boardId)) && (emails.length === 0 || actorIds.has(l.actorId)),
  );
  if (descending) logs = logs.slice().reverse();
  const page = cursorPage(logs, (l) => l.seq, ctx.query.one('cursor'), limit, descending);
  return json(200, enterprisePage(page, limit, page.page.map((l) => renderContentLog(store, l))));
}

// -- sessions ---------------------------------------------------------------------------------

function resetSessions(ctx: Ctx): SandboxResponse {
  const email = ctx.query.required('email');
  if (!isEmail(email)) throw badRequest(`Invalid parameters: email must be an e-mail address, got ${JSON.stringify(email)}`);
  const user = ctx.store.userByEmail(email);
  if (!user || !user.orgMember) throw notFound('Organization user with e-mail', email);
  ctx.store.sessionResets.push({ email: user.email, at: ctx.store.now() });
  ctx.store.recordAudit('user_sessions_reset', 'authentication', user.id, `${user.firstName} ${user.lastName}`.trim(), { email: user.email });
  return { status: 200 };
}

export function registerCompliance(router: Router): void {
  const e = { enterprise: true } as const;
  const withBody = { ...e, body: 'required' } as const;
  const org = '/v2/orgs/:org_id';
  const team = `${org}/teams/:team_id`;
  const hold = `${org}/cases/:case_id/legal-holds/:legal_hold_id`;

  router.add('GET', `${org}/data-classification-settings`, getOrgClassificationSettings, e);
  router.add('PATCH', `${team}/data-classification`, classifyTeamBoards, withBody);
  router.add('GET', `${team}/data-classification-settings`, getTeamClassificationSettings, e);
  router.add('PATCH', `${team}/data-classification-settings`, updateTeamClassificationSettings, withBody);
  router.add('GET', `${team}/boards/:board_id/data-classification`, getBoardClassification, e);
  router.add('POST', `${team}/boards/:board_id/data-classification`, classifyBoard, withBody);

  router.add('GET', `${org}/cases`, listCases, e);
  router.add('GET', `${org}/cases/:case_id`, getCase, e);
  router.add('GET', `${org}/cases/:case_id/legal-holds`, listLegalHolds, e);
  router.add('GET', hold, getLegalHold, e);
  router.add('GET', `${hold}/content-items`, listLegalHoldContentItems, e);

  router.add('POST', `${org}/boards/export/jobs`, createExportJob, withBody);
  router.add('GET', `${org}/boards/export/jobs/:job_id`, getExportJob, e);
  router.add('GET', `${org}/boards/export/jobs/:job_id/results`, getExportJobResults, e);

  router.add('GET', '/v2/audit/logs', listAuditLogs, e);
  router.add('GET', `${org}/content-logs/items`, listContentLogs, e);

  router.add('POST', '/v2/sessions/reset_all', resetSessions, e);
}
