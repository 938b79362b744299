/**
 * Deterministic demo content for the whiteboard emulator: an organization with a dozen people,
 * three teams, a project, three boards with a realistic mix of items (a frame with items inside,
 * tags, a group, connectors, a mind map), a webhook subscription, classification labels, audit and
 * content log history over the last weeks, and an eDiscovery case with legal holds.
 *
 * Same seed + same `now` => same data. All times are relative to `now` at start.
 */
import type { BoardRecord, BoardRole, ItemRecord, ItemType, License, OrgRole, Store, TagRecord, UserRecord } from './model.js';
import { newBoard } from './boards.js';
import { DEFAULT_CONNECTOR_STYLE } from './connectors.js';
import { defaultTeamSettingsGroups, newTeam } from './org.js';
import { newProject } from './projects.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export interface DemoIds {
  organizationId: string;
  teamId: string;
  projectId: string;
  boardIds: string[];
  appId: string;
}

const PEOPLE: [string, string, OrgRole, License, boolean][] = [
  ['Priya', 'Raman', 'organization_internal_admin', 'full', true],
  ['Jonas', 'Becker', 'organization_internal_user', 'full', true],
  ['Maya', 'Okafor', 'organization_internal_user', 'full', true],
  ['Luis', 'Ortega', 'organization_internal_user', 'full', true],
  ['Hannah', 'Lindqvist', 'organization_internal_user', 'occasional', true],
  ['Kenji', 'Watanabe', 'organization_internal_user', 'full', true],
  ['Amara', 'Nwosu', 'organization_internal_user', 'free', true],
  ['Tom', 'Fischer', 'organization_internal_user', 'full', false],
  ['Sofia', 'Marchetti', 'organization_external_user', 'occasional', true],
  ['Daniel', 'Kim', 'organization_team_guest_user', 'free_restricted', true],
];

const DOMAIN = 'northwind.example';

function person(store: Store, first: string, last: string, role: OrgRole, license: License, active: boolean, now: number): UserRecord {
  const rng = store.rng;
  return {
    id: store.ids.user(),
    firstName: first,
    lastName: last,
    email: `${first}.${last}`.toLowerCase() + `@${role === 'organization_external_user' ? 'partner.example' : DOMAIN}`,
    orgMember: true,
    role,
    license,
    active,
    lastActivityAt: now - rng.int(1, active ? 20 : 120) * DAY - rng.int(0, 23) * HOUR,
    licenseAssignedAt: now - rng.int(60, 700) * DAY,
    adminRoles: role === 'organization_internal_admin' ? [{ type: 'prebuilt', name: 'Company Admin' }] : [],
  };
}

interface ItemSeed {
  type: ItemType;
  data: Record<string, unknown>;
  style?: Record<string, unknown>;
  x: number;
  y: number;
  w: number;
  h: number;
  parent?: ItemRecord;
  by?: string;
  daysAgo?: number;
}

const STYLE: Partial<Record<ItemType, Record<string, unknown>>> = {
  sticky_note: { fillColor: 'light_yellow', textAlign: 'center', textAlignVertical: 'top' },
  shape: { fillColor: '#ffffff', fillOpacity: '1.0', fontFamily: 'arial', fontSize: '14', borderColor: '#1a1a1a', borderWidth: '2.0', borderOpacity: '1.0', borderStyle: 'normal', textAlign: 'center', textAlignVertical: 'middle', color: '#1a1a1a' },
  text: { color: '#1a1a1a', fillColor: 'transparent', fillOpacity: '1.0', fontFamily: 'arial', fontSize: '36', textAlign: 'left' },
  card: { cardTheme: '#2d9bf0' },
  app_card: { fillColor: '#2d9bf0' },
  frame: { fillColor: '#f5f6f8' },
};

class BoardBuilder {
  constructor(
    private readonly store: Store,
    readonly board: BoardRecord,
    private readonly now: number,
  ) {}

  item(s: ItemSeed): ItemRecord {
    const { store } = this;
    const at = this.now - (s.daysAgo ?? store.rng.int(2, 20)) * DAY - store.rng.int(0, 600) * 60_000;
    const by = s.by ?? store.meId;
    const item: ItemRecord = {
      id: store.ids.numeric(),
      seq: store.nextSeq(),
      boardId: this.board.id,
      type: s.type,
      data: s.data,
      style: { ...(STYLE[s.type] ?? {}), ...(s.style ?? {}) },
      x: s.x,
      y: s.y,
      width: s.w,
      height: s.h,
      ...(s.type === 'frame' || s.type === 'sticky_note' || s.type === 'embed' ? {} : { rotation: 0 }),
      ...(s.parent ? { parentId: s.parent.id } : {}),
      tagIds: [],
      createdAt: at,
      createdBy: by,
      modifiedAt: at + store.rng.int(0, 48) * HOUR,
      modifiedBy: by,
    };
    if (item.modifiedAt > this.now) item.modifiedAt = this.now - HOUR;
    this.board.items.set(item.id, item);
    return item;
  }

  sticky(content: string, x: number, y: number, color: string, parent?: ItemRecord, by?: string): ItemRecord {
    return this.item({ type: 'sticky_note', data: { content, shape: 'square' }, style: { fillColor: color }, x, y, w: 199, h: 228, ...(parent ? { parent } : {}), ...(by ? { by } : {}) });
  }

  shape(content: string, shape: string, x: number, y: number, fill = '#ffffff', w = 240, h = 120): ItemRecord {
    return this.item({ type: 'shape', data: { content, shape }, style: { fillColor: fill }, x, y, w, h });
  }

  tag(title: string, fillColor: string): TagRecord {
    const t: TagRecord = { id: this.store.ids.numeric(), seq: this.store.nextSeq(), boardId: this.board.id, title, fillColor };
    this.board.tags.set(t.id, t);
    return t;
  }

  connect(a: ItemRecord, b: ItemRecord, options: { shape?: 'straight' | 'elbowed' | 'curved'; caption?: string; startSnap?: string; endSnap?: string } = {}): void {
    const { store } = this;
    const at = Math.max(a.createdAt, b.createdAt) + HOUR;
    const id = store.ids.numeric();
    this.board.connectors.set(id, {
      id,
      seq: store.nextSeq(),
      boardId: this.board.id,
      start: { itemId: a.id, snapTo: options.startSnap ?? 'right' },
      end: { itemId: b.id, snapTo: options.endSnap ?? 'left' },
      shape: options.shape ?? 'elbowed',
      captions: options.caption ? [{ content: options.caption, position: '50%', textAlignVertical: 'top' }] : [],
      style: { ...DEFAULT_CONNECTOR_STYLE },
      createdAt: Math.min(at, this.now - HOUR),
      createdBy: store.meId,
      modifiedAt: Math.min(at, this.now - HOUR),
      modifiedBy: store.meId,
    });
  }

  group(items: ItemRecord[]): void {
    const id = this.store.ids.numeric();
    this.board.groups.set(id, { id, seq: this.store.nextSeq(), boardId: this.board.id, itemIds: items.map((i) => i.id) });
  }

  mindNode(content: string, parentId: string | undefined, direction: 'start' | 'end' | undefined, x: number, y: number): string {
    const { store } = this;
    const at = this.now - 6 * DAY + store.rng.int(0, 300) * 60_000;
    const id = store.ids.numeric();
    this.board.mindmap.set(id, {
      id,
      seq: store.nextSeq(),
      boardId: this.board.id,
      content,
      ...(parentId ? { parentNodeId: parentId } : {}),
      x,
      y,
      width: 180,
      ...(direction ? { direction } : {}),
      createdAt: at,
      createdBy: store.meId,
      modifiedAt: at,
      modifiedBy: store.meId,
    });
    return id;
  }
}

export function seedDemo(store: Store): DemoIds {
  const now = store.now();
  const rng = store.rng;

  store.org = { id: store.ids.numeric('3074457'), name: 'Northwind Labs', fullLicensesPurchased: 40 };

  const me: UserRecord = {
    id: store.ids.user(),
    firstName: 'Alex',
    lastName: 'Morgan',
    email: `alex.morgan@${DOMAIN}`,
    orgMember: true,
    role: 'organization_internal_admin',
    license: 'full',
    active: true,
    lastActivityAt: now - 2 * HOUR,
    licenseAssignedAt: now - 540 * DAY,
    adminRoles: [{ type: 'prebuilt', name: 'Company Admin' }],
  };
  store.users.set(me.id, me);
  store.meId = me.id;
  const people = PEOPLE.map(([f, l, role, license, active]) => person(store, f, l, role, license, active, now));
  for (const p of people) store.users.set(p.id, p);
  const [priya, jonas, maya, luis, hannah, kenji, amara, tom, sofia, daniel] = people as [UserRecord, UserRecord, UserRecord, UserRecord, UserRecord, UserRecord, UserRecord, UserRecord, UserRecord, UserRecord];

  // Classification labels (the organization's scheme) and team defaults.
  const labelSpecs: [string, string, string, string, boolean][] = [
    ['Public', '#7ED957', 'Can be shared outside the company', 'NO_SHARING_RESTRICTIONS', false],
    ['Internal', '#F5DC80', 'For employees and contractors only', 'ONLY_WITHIN_ORGANIZATION', true],
    ['Confidential', '#FFA94D', 'Limited to the owning team', 'ONLY_WITHIN_TEAM', false],
    ['Restricted', '#F16C7F', 'Named people only; never export', 'ONLY_WITH_AUTHORIZED_TEAM_MEMBERS', false],
  ];
  labelSpecs.forEach(([name, color, description, sharingRecommendation, isDefault], i) => {
    store.labels.push({ id: store.ids.int64(), name, color, description, orderNumber: i + 1, sharingRecommendation, guidelineUrl: `https://intranet.${DOMAIN}/policies/data-classification#${name.toLowerCase()}`, isDefault });
  });
  const label = (name: string) => store.labels.find((l) => l.name === name)?.id as string;

  store.defaultTeamSettings = defaultTeamSettingsGroups();

  // Teams.
  const design = newTeam(store, 'Product Design', now - 400 * DAY, me.id);
  const platform = newTeam(store, 'Platform Engineering', now - 380 * DAY, me.id);
  const marketing = newTeam(store, 'Marketing', now - 300 * DAY, me.id);
  store.defaultTeamId = design.id;
  const join = (team: typeof design, user: UserRecord, role: 'member' | 'admin' | 'team_guest', daysAgo: number) => {
    const at = now - daysAgo * DAY;
    team.members.set(user.id, { seq: store.nextSeq(), role, createdAt: at, createdBy: me.id, modifiedAt: at, modifiedBy: me.id });
  };
  join(design, priya, 'admin', 390);
  join(design, maya, 'member', 300);
  join(design, hannah, 'member', 210);
  join(design, amara, 'member', 120);
  join(design, daniel, 'team_guest', 40);
  join(platform, jonas, 'admin', 370);
  join(platform, luis, 'member', 350);
  join(platform, kenji, 'member', 200);
  join(platform, tom, 'member', 330);
  join(marketing, sofia, 'member', 150);
  join(marketing, hannah, 'member', 100);
  platform.classification.defaultLabelId = label('Confidential');
  marketing.classification = { enabled: false, defaultLabelId: label('Public') };
  marketing.settings.teamSharingPolicySettings = { ...marketing.settings.teamSharingPolicySettings, sharingViaPublicLink: 'allowed' };

  const project = newProject(store, design, 'Q3 Launch', me.id, now - 60 * DAY);
  project.members.set(maya.id, { seq: store.nextSeq(), role: 'editor' });
  project.members.set(hannah.id, { seq: store.nextSeq(), role: 'viewer' });

  // -- Board 1: launch plan ------------------------------------------------------------------
  const b1 = newBoard(store, { name: 'Q3 Launch Plan', description: 'Scope, owners and open questions for the Q3 release.', teamId: design.id, projectId: project.id, ownerId: me.id, at: now - 21 * DAY });
  b1.members.set(maya.id, 'editor');
  b1.members.set(hannah.id, 'commenter');
  b1.members.set(priya.id, 'coowner');
  b1.members.set(daniel.id, 'viewer');
  b1.lastOpenedAt = now - 3 * HOUR;
  b1.lastOpenedBy = me.id;
  b1.classificationLabelId = label('Confidential');
  b1.policy.sharingPolicy.teamAccess = 'edit';
  const p1 = new BoardBuilder(store, b1, now);
  p1.item({ type: 'text', data: { content: '<p><strong>Q3 Launch Plan</strong></p>' }, x: 0, y: -620, w: 520, h: 60, daysAgo: 21 });
  const sprint = p1.item({ type: 'frame', data: { title: 'This sprint', format: 'custom', type: 'freeform', showContent: true }, x: 0, y: 0, w: 1400, h: 800, daysAgo: 20 });
  const s1 = p1.sticky('Finalize pricing page copy', 220, 200, 'light_yellow', sprint, maya.id);
  const s2 = p1.sticky('Load test checkout with 5k rps', 520, 200, 'light_pink', sprint);
  const s3 = p1.sticky('Record onboarding video', 820, 200, 'light_green', sprint, hannah.id);
  const c1 = p1.item({ type: 'card', data: { title: 'Ship in-app tour', description: 'Five steps, skippable, localized in DE/FR/ES.', assigneeId: maya.id, dueDate: new Date(now + 9 * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z') }, x: 400, y: 560, w: 320, h: 94, parent: sprint, daysAgo: 12 });
  const c2 = p1.item({ type: 'card', data: { title: 'Release notes draft', description: 'Collect highlights from all squads.', assigneeId: hannah.id, dueDate: new Date(now + 16 * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z') }, x: 1100, y: 420, w: 320, h: 94, daysAgo: 8 });
  const review = p1.shape('Design review', 'round_rectangle', -1100, -100, '#a6ccf5');
  const signoff = p1.shape('Legal sign-off', 'rhombus', -1100, 150, '#fff9b1', 200, 200);
  const launch = p1.shape('Launch 🚀', 'circle', 1200, -200, '#93d275', 200, 200);
  p1.item({ type: 'image', data: { imageUrl: 'https://images.northwind.example/q3/hero-mockup.png', title: 'Hero mockup v3' }, x: -1100, y: 600, w: 600, h: 400 });
  p1.item({ type: 'document', data: { documentUrl: 'https://files.northwind.example/q3/launch-brief.pdf', title: 'Launch brief.pdf' }, x: -400, y: 700, w: 320, h: 454 });
  p1.item({
    type: 'embed',
    data: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', mode: 'modal', previewUrl: 'https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg', html: '<iframe src="https://www.youtube.com/embed/dQw4w9WgXcQ" width="720" height="405" frameborder="0" allowfullscreen></iframe>', providerName: 'YouTube', providerUrl: 'https://www.youtube.com', title: 'Product teaser', contentType: 'video' },
    x: 1400,
    y: 500,
    w: 720,
    h: 405,
  });
  p1.item({
    type: 'app_card',
    data: { title: 'NW-1423: Checkout latency regression', description: 'Synced from the issue tracker', fields: [{ value: 'In progress', fillColor: '#fff9b1', textColor: '#1a1a1a', iconShape: 'round', tooltip: 'Status' }, { value: 'P1', fillColor: '#f16c7f', textColor: '#ffffff', iconShape: 'square', tooltip: 'Priority' }], status: 'connected', owned: true },
    x: 1100,
    y: 150,
    w: 320,
    h: 158,
  });
  const urgent = p1.tag('Urgent', 'red');
  const designTag = p1.tag('Design', 'violet');
  const backend = p1.tag('Backend', 'blue');
  s1.tagIds.push(designTag.id);
  s2.tagIds.push(urgent.id, backend.id);
  c1.tagIds.push(designTag.id);
  c2.tagIds.push(urgent.id);
  p1.group([review, signoff]);
  p1.connect(review, signoff, { shape: 'straight', startSnap: 'bottom', endSnap: 'top', caption: 'then' });
  p1.connect(signoff, launch, { caption: 'approved' });
  p1.connect(c1, s3, { shape: 'curved' });
  const root = p1.mindNode('Launch goals', undefined, undefined, 0, 1400);
  p1.mindNode('Awareness', root, 'start', -300, 1300);
  const adoption = p1.mindNode('Adoption', root, 'end', 300, 1350);
  p1.mindNode('Retention', root, 'end', 300, 1450);
  p1.mindNode('Onboarding flow', adoption, 'end', 560, 1320);
  p1.mindNode('In-app tips', adoption, 'end', 560, 1380);

  // -- Board 2: retrospective ----------------------------------------------------------------
  const b2 = newBoard(store, { name: 'Sprint 42 Retrospective', description: 'What went well, what to improve, action items.', teamId: design.id, ownerId: me.id, at: now - 9 * DAY });
  b2.members.set(maya.id, 'editor');
  b2.members.set(amara.id, 'editor');
  b2.lastOpenedAt = now - 26 * HOUR;
  b2.lastOpenedBy = maya.id;
  const p2 = new BoardBuilder(store, b2, now);
  p2.item({ type: 'text', data: { content: '<p>Sprint 42 — Retro</p>' }, x: 0, y: -500, w: 400, h: 60, daysAgo: 9 });
  const well = p2.shape('Went well', 'rectangle', -600, -300, '#93d275', 360, 80);
  const improve = p2.shape('To improve', 'rectangle', 0, -300, '#ff9d48', 360, 80);
  const actions = p2.shape('Action items', 'rectangle', 600, -300, '#a6ccf5', 360, 80);
  const retroNotes: [string, number, string, string][] = [
    ['Pairing on the payment bug paid off', -600, 'light_green', maya.id],
    ['Design QA happened before code freeze', -600, 'light_green', amara.id],
    ['Too many meetings on Wednesday', 0, 'orange', maya.id],
    ['Flaky e2e tests blocked merges twice', 0, 'orange', me.id],
    ['Quarantine flaky tests within 24h', 600, 'light_blue', me.id],
    ['Move demo to Thursday morning', 600, 'light_blue', amara.id],
  ];
  const actionTag = p2.tag('Action item', 'dark_green');
  const retroStickies = retroNotes.map(([content, x, color, by], i) => p2.sticky(content, x, -40 + (i % 2) * 260, color, undefined, by));
  for (const s of retroStickies.slice(4)) s.tagIds.push(actionTag.id);
  p2.connect(retroStickies[3] as ItemRecord, retroStickies[4] as ItemRecord, { caption: 'fix' });
  p2.group([well, improve, actions]);

  // -- Board 3: architecture (owned by a colleague) ------------------------------------------
  const b3 = newBoard(store, { name: 'Payments Architecture', description: 'Request flow of the payments platform, current state.', teamId: platform.id, ownerId: jonas.id, at: now - 45 * DAY });
  b3.createdBy = jonas.id;
  b3.modifiedBy = luis.id;
  b3.members.set(me.id, 'editor' as BoardRole);
  b3.members.set(luis.id, 'editor');
  b3.members.set(kenji.id, 'commenter');
  b3.classificationLabelId = label('Internal');
  const p3 = new BoardBuilder(store, b3, now);
  p3.item({ type: 'text', data: { content: '<p>Payments request flow</p>' }, x: 0, y: -450, w: 500, h: 60, by: jonas.id, daysAgo: 44 });
  const gw = p3.shape('API gateway', 'rectangle', -800, 0, '#a6ccf5');
  const svc = p3.shape('Payments service', 'round_rectangle', -300, 0, '#d5f692');
  const decide = p3.item({ type: 'shape', data: { content: 'Amount > limit?', shape: 'flow_chart_decision' }, style: { fillColor: '#fff9b1' }, x: 200, y: 0, w: 220, h: 160, by: luis.id });
  const review3 = p3.item({ type: 'shape', data: { content: 'Manual review', shape: 'flow_chart_process' }, style: { fillColor: '#ffcee0' }, x: 200, y: 300, w: 220, h: 120, by: luis.id });
  const ledger = p3.shape('Ledger DB', 'can', 700, 0, '#f5f6f8', 180, 200);
  const queue = p3.shape('Events queue', 'parallelogram', -300, 300, '#67c6c0');
  p3.connect(gw, svc, { caption: 'REST' });
  p3.connect(svc, decide);
  p3.connect(decide, ledger, { caption: 'no' });
  p3.connect(decide, review3, { caption: 'yes', startSnap: 'bottom', endSnap: 'top' });
  p3.connect(svc, queue, { startSnap: 'bottom', endSnap: 'top', shape: 'straight' });

  // -- Webhook subscription --------------------------------------------------------------------
  const subAt = now - 14 * DAY;
  const sub = { id: store.ids.uuid(), seq: store.nextSeq(), boardId: b1.id, callbackUrl: `https://hooks.${DOMAIN}/canvas/board-events`, status: 'enabled' as const, createdAt: subAt, modifiedAt: subAt };
  store.subscriptions.set(sub.id, sub);

  // -- App -----------------------------------------------------------------------------------------
  store.app = { id: store.ids.numeric('3458764'), name: 'Sprint Sync', installedAt: now - 200 * DAY };

  // -- Audit log history (chronological, the last six weeks plus a few older entries) -------------
  const auditKinds: [string, string][] = [
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
  const actors = [me, priya, jonas, maya, luis, kenji];
  const boardsForAudit = [b1, b2, b3];
  const auditDrafts = [] as Omit<(typeof store.audit)[number], 'seq' | 'id'>[];
  for (let i = 0; i < 46; i++) {
    const [event, category] = rng.pick(auditKinds);
    const actor = rng.pick(actors);
    const at = i < 3 ? now - (95 + i * 7) * DAY : now - rng.int(1, 42 * 24) * HOUR - rng.int(0, 59) * 60_000;
    const board = rng.pick(boardsForAudit);
    const object = category === 'boards' ? { id: board.id, name: board.name } : category === 'authentication' ? { id: actor.id, name: `${actor.firstName} ${actor.lastName}` } : category === 'apps' ? { id: store.app.id, name: store.app.name } : { id: store.ids.numeric('3074457'), name: event.replace(/_/g, ' ') };
    auditDrafts.push({
      createdAt: at,
      event,
      category,
      actorId: actor.id,
      objectId: object.id,
      objectName: object.name,
      ...(category === 'boards' ? { teamId: board.teamId } : {}),
      ip: `198.51.100.${rng.int(2, 250)}`,
      details: category === 'authentication' ? { authType: rng.pick(['SSO', 'PASSWORD']), mfaFactorType: rng.pick(['NONE', 'TOTP']) } : {},
    });
  }
  auditDrafts.sort((a, b) => a.createdAt - b.createdAt);
  for (const d of auditDrafts) {
    store.audit.push({ ...d, seq: store.nextSeq(), id: `${new Date(d.createdAt).toISOString()}#${store.ids.numeric('1234567')}-DDB` });
  }

  // -- Content log history ------------------------------------------------------------------
  const contentDrafts: Omit<(typeof store.contentLogs)[number], 'seq' | 'id'>[] = [];
  for (const board of [b1, b2, b3]) {
    const members = [...board.members.keys()];
    for (const item of board.items.values()) {
      contentDrafts.push({ boardId: board.id, itemId: item.id, actionType: 'create', itemType: 'widget', actionTime: item.createdAt, actorId: item.createdBy, state: { type: item.type, data: structuredClone(item.data) } });
      if (rng.chance(0.5)) {
        contentDrafts.push({ boardId: board.id, itemId: item.id, actionType: 'update', itemType: 'widget', actionTime: Math.min(now - HOUR, item.createdAt + rng.int(1, 96) * HOUR), actorId: rng.pick(members), state: { type: item.type, data: structuredClone(item.data) } });
      }
    }
    for (let i = 0; i < 3; i++) {
      const at = now - rng.int(1, 28) * DAY;
      const itemId = store.ids.numeric();
      contentDrafts.push({ boardId: board.id, itemId, actionType: 'create', itemType: 'widget', actionTime: at - 2 * HOUR, actorId: rng.pick(members), state: { type: 'sticky_note', data: { content: 'Draft idea' } } });
      contentDrafts.push({ boardId: board.id, itemId, actionType: 'delete', itemType: 'widget', actionTime: at, actorId: rng.pick(members), state: {} });
    }
    contentDrafts.push({ boardId: board.id, itemId: store.ids.numeric(), actionType: 'create', itemType: 'comment_thread', actionTime: now - rng.int(2, 10) * DAY, actorId: rng.pick(members), state: { content: 'Can we double-check this before Friday?' } });
  }
  contentDrafts.sort((a, b) => a.actionTime - b.actionTime);
  for (const d of contentDrafts) store.contentLogs.push({ ...d, seq: store.nextSeq(), id: store.ids.uuid() });

  // -- eDiscovery -----------------------------------------------------------------------------
  const case1 = { id: store.ids.numeric('3074457'), name: 'Vendor contract dispute', description: 'Preserve planning material related to the 2024 logistics vendor.', createdBy: me.id, createdAt: now - 30 * DAY, lastModifiedAt: now - 12 * DAY };
  const case2 = { id: store.ids.numeric('3074457'), name: 'Former employee review', description: 'Boards touched by a departed contractor.', createdBy: priya.id, createdAt: now - 10 * DAY, lastModifiedAt: now - 10 * DAY };
  store.cases.set(case1.id, case1);
  store.cases.set(case2.id, case2);
  const hold1 = {
    id: store.ids.numeric('3074457'),
    caseId: case1.id,
    name: 'Procurement communications',
    description: 'All boards of the procurement leads.',
    state: 'ACTIVE' as const,
    userIds: [jonas.id, luis.id],
    createdBy: me.id,
    createdAt: now - 29 * DAY,
    lastModifiedAt: now - 12 * DAY,
    contentItems: [b1, b3].map((b) => ({ id: store.ids.numeric('3074457'), boardId: b.id, name: b.name })),
  };
  const hold2 = {
    id: store.ids.numeric('3074457'),
    caseId: case1.id,
    name: 'Finance approvals',
    description: 'Boards with budget approvals.',
    state: 'PROCESSING' as const,
    userIds: [priya.id],
    createdBy: me.id,
    createdAt: now - 2 * DAY,
    lastModifiedAt: now - 2 * DAY,
    contentItems: [],
  };
  const hold3 = {
    id: store.ids.numeric('3074457'),
    caseId: case2.id,
    name: 'Contractor boards',
    description: 'Boards the contractor edited.',
    state: 'ACTIVE' as const,
    userIds: [tom.id],
    createdBy: priya.id,
    createdAt: now - 9 * DAY,
    lastModifiedAt: now - 9 * DAY,
    contentItems: [{ id: store.ids.numeric('3074457'), boardId: b2.id, name: b2.name }],
  };
  for (const h of [hold1, hold2, hold3]) store.legalHolds.set(h.id, h);

  return { organizationId: store.org.id, teamId: design.id, projectId: project.id, boardIds: [b1.id, b2.id, b3.id], appId: store.app.id };
}
