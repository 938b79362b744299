/**
 * The demo organization's governance data: its classification labels, an audit log and a content
 * log over the last weeks, and an eDiscovery case file with legal holds. The histories draw from
 * the store's PRNG, so the order of the calls here is part of the seed.
 */
import type { AuditEventRecord, ContentLogRecord, LegalHoldRecord, Store } from './model.js';
import type { DemoBoards } from './demo-boards.js';
import { DEMO_DOMAIN, type DemoPeople } from './demo-people.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Audit events generated next to the few older ones (the last six weeks). */
const AUDIT_EVENTS = 46;

const LABELS: [string, string, string, string, boolean][] = [
  ['Public', '#7ED957', 'Can be shared outside the company', 'NO_SHARING_RESTRICTIONS', false],
  ['Internal', '#F5DC80', 'For employees and contractors only', 'ONLY_WITHIN_ORGANIZATION', true],
  ['Confidential', '#FFA94D', 'Limited to the owning team', 'ONLY_WITHIN_TEAM', false],
  ['Restricted', '#F16C7F', 'Named people only; never export', 'ONLY_WITH_AUTHORIZED_TEAM_MEMBERS', false],
];

const AUDIT_KINDS: [string, string][] = [
  ['sign_in_succeeded', 'authentication'],
  ['sign_in_succeeded', 'authentication'],
  ['sign_in_failed', 'authentication'],
  ['board_created', 'boards'],
  ['board_shared', 'boards'],
  ['team_member_added', 'teams'],
  ['user_license_changed', 'users'],
  ['board_export_job_created', 'ediscovery'],
  ['legal_hold_created', 'ediscovery'],
  ['app_installed', 'apps'],
];

/** The organization's classification scheme, in order; Internal is the default label. */
export function seedClassificationLabels(store: Store): void {
  LABELS.forEach(([name, color, description, sharingRecommendation, isDefault], i) => {
    store.labels.push({ id: store.ids.int64(), name, color, description, orderNumber: i + 1, sharingRecommendation, guidelineUrl: `https://intranet.${DEMO_DOMAIN}/policies/data-classification#${name.toLowerCase()}`, isDefault });
  });
}

/** The ID of a seeded classification label. */
export function labelIdByName(store: Store, name: string): string {
  return store.labels.find((l) => l.name === name)?.id as string;
}

type AuditDraft = Omit<AuditEventRecord, 'seq' | 'id'>;
type ContentDraft = Omit<ContentLogRecord, 'seq' | 'id'>;

/** One random audit event: the first three are older than the last six weeks. */
function auditDraft(store: Store, people: DemoPeople, boards: DemoBoards, i: number, now: number): AuditDraft {
  const { rng } = store;
  const { me, priya, jonas, maya, luis, kenji } = people;
  const [event, category] = rng.pick(AUDIT_KINDS);
  const actor = rng.pick([me, priya, jonas, maya, luis, kenji]);
  const at = i < 3 ? now - (95 + i * 7) * DAY : now - rng.int(1, 42 * 24) * HOUR - rng.int(0, 59) * 60_000;
  const board = rng.pick([boards.launchPlan, boards.retro, boards.payments]);
  const object = category === 'boards' ? { id: board.id, name: board.name } : category === 'authentication' ? { id: actor.id, name: `${actor.firstName} ${actor.lastName}` } : category === 'apps' ? { id: store.app.id, name: store.app.name } : { id: store.ids.numeric('3074457'), name: event.replace(/_/g, ' ') };
  return {
    createdAt: at,
    event,
    category,
    actorId: actor.id,
    objectId: object.id,
    objectName: object.name,
    ...(category === 'boards' ? { teamId: board.teamId } : {}),
    ip: `198.51.100.${rng.int(2, 250)}`,
    details: category === 'authentication' ? { authType: rng.pick(['SSO', 'PASSWORD']), mfaFactorType: rng.pick(['NONE', 'TOTP']) } : {},
  };
}

/** The audit log, chronological: random events, then sequence numbers and IDs in time order. */
export function seedAuditHistory(store: Store, people: DemoPeople, boards: DemoBoards, now: number): void {
  const drafts: AuditDraft[] = [];
  for (let i = 0; i < AUDIT_EVENTS; i++) drafts.push(auditDraft(store, people, boards, i, now));
  drafts.sort((a, b) => a.createdAt - b.createdAt);
  for (const d of drafts) {
    store.audit.push({ ...d, seq: store.nextSeq(), id: `${new Date(d.createdAt).toISOString()}#${store.ids.numeric('1234567')}-DDB` });
  }
}

/** One board's content history: each item's creation (and maybe an update), three deleted drafts, a comment thread. */
function boardContentDrafts(store: Store, board: DemoBoards[keyof DemoBoards], now: number): ContentDraft[] {
  const { rng } = store;
  const drafts: ContentDraft[] = [];
  const members = [...board.members.keys()];
  for (const item of board.items.values()) {
    drafts.push({ boardId: board.id, itemId: item.id, actionType: 'create', itemType: 'widget', actionTime: item.createdAt, actorId: item.createdBy, state: { type: item.type, data: structuredClone(item.data) } });
    if (rng.chance(0.5)) {
      drafts.push({ boardId: board.id, itemId: item.id, actionType: 'update', itemType: 'widget', actionTime: Math.min(now - HOUR, item.createdAt + rng.int(1, 96) * HOUR), actorId: rng.pick(members), state: { type: item.type, data: structuredClone(item.data) } });
    }
  }
  for (let i = 0; i < 3; i++) {
    const at = now - rng.int(1, 28) * DAY;
    const itemId = store.ids.numeric();
    drafts.push({ boardId: board.id, itemId, actionType: 'create', itemType: 'widget', actionTime: at - 2 * HOUR, actorId: rng.pick(members), state: { type: 'sticky_note', data: { content: 'Draft idea' } } });
    drafts.push({ boardId: board.id, itemId, actionType: 'delete', itemType: 'widget', actionTime: at, actorId: rng.pick(members), state: {} });
  }
  drafts.push({ boardId: board.id, itemId: store.ids.numeric(), actionType: 'create', itemType: 'comment_thread', actionTime: now - rng.int(2, 10) * DAY, actorId: rng.pick(members), state: { content: 'Can we double-check this before Friday?' } });
  return drafts;
}

/** The content log of the three boards, chronological. */
export function seedContentHistory(store: Store, boards: DemoBoards, now: number): void {
  const drafts = [boards.launchPlan, boards.retro, boards.payments].flatMap((board) => boardContentDrafts(store, board, now));
  drafts.sort((a, b) => a.actionTime - b.actionTime);
  for (const d of drafts) store.contentLogs.push({ ...d, seq: store.nextSeq(), id: store.ids.uuid() });
}

/** Two eDiscovery cases; the first with an active and a processing hold, the second with one active hold. */
export function seedEDiscovery(store: Store, people: DemoPeople, boards: DemoBoards, now: number): void {
  const { me, priya, jonas, luis, tom } = people;
  const orgScopedId = () => store.ids.numeric('3074457');
  const case1 = { id: orgScopedId(), name: 'Vendor contract dispute', description: 'Preserve planning material related to the 2024 logistics vendor.', createdBy: me.id, createdAt: now - 30 * DAY, lastModifiedAt: now - 12 * DAY };
  const case2 = { id: orgScopedId(), name: 'Former employee review', description: 'Boards touched by a departed contractor.', createdBy: priya.id, createdAt: now - 10 * DAY, lastModifiedAt: now - 10 * DAY };
  store.cases.set(case1.id, case1);
  store.cases.set(case2.id, case2);
  const hold1: LegalHoldRecord = {
    id: orgScopedId(),
    caseId: case1.id,
    name: 'Procurement communications',
    description: 'All boards of the procurement leads.',
    state: 'ACTIVE',
    userIds: [jonas.id, luis.id],
    createdBy: me.id,
    createdAt: now - 29 * DAY,
    lastModifiedAt: now - 12 * DAY,
    contentItems: [boards.launchPlan, boards.payments].map((b) => ({ id: orgScopedId(), boardId: b.id, name: b.name })),
  };
  const hold2: LegalHoldRecord = { id: orgScopedId(), caseId: case1.id, name: 'Finance approvals', description: 'Boards with budget approvals.', state: 'PROCESSING', userIds: [priya.id], createdBy: me.id, createdAt: now - 2 * DAY, lastModifiedAt: now - 2 * DAY, contentItems: [] };
  const hold3: LegalHoldRecord = {
    id: orgScopedId(),
    caseId: case2.id,
    name: 'Contractor boards',
    description: 'Boards the contractor edited.',
    state: 'ACTIVE',
    userIds: [tom.id],
    createdBy: priya.id,
    createdAt: now - 9 * DAY,
    lastModifiedAt: now - 9 * DAY,
    contentItems: [{ id: orgScopedId(), boardId: boards.retro.id, name: boards.retro.name }],
  };
  for (const h of [hold1, hold2, hold3]) store.legalHolds.set(h.id, h);
}
