/**
 * The three demo boards and their content: the Q3 launch plan (a frame with items inside, tags, a
 * group, connectors, a mind map, media), a sprint retrospective and a colleague's payments
 * architecture flow. Every item, tag and connector draws its ID and times from the store's PRNG,
 * so the order of the calls here is part of the seed.
 */
import type { BoardRecord, BoardRole, ItemRecord, ItemType, ProjectRecord, Store, TagRecord, TeamRecord } from './model.js';
import { newBoard } from './boards.js';
import { DEFAULT_CONNECTOR_STYLE } from './connectors.js';
import type { DemoPeople } from './demo-people.js';

const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export interface DemoBoards {
  launchPlan: BoardRecord;
  retro: BoardRecord;
  payments: BoardRecord;
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

/** Adds items, tags, connectors, groups and mind-map nodes to one board, with seeded IDs and times. */
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

/** ISO 8601 without milliseconds, as the platform writes card due dates. */
const dueDate = (at: number): string => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The launch plan's title and its "This sprint" frame with stickies and cards (one card outside). */
function launchPlanSprint(p1: BoardBuilder, people: DemoPeople, now: number) {
  const { maya, hannah } = people;
  p1.item({ type: 'text', data: { content: '<p><strong>Q3 Launch Plan</strong></p>' }, x: 0, y: -620, w: 520, h: 60, daysAgo: 21 });
  const sprint = p1.item({ type: 'frame', data: { title: 'This sprint', format: 'custom', type: 'freeform', showContent: true }, x: 0, y: 0, w: 1400, h: 800, daysAgo: 20 });
  const s1 = p1.sticky('Finalize pricing page copy', 220, 200, 'light_yellow', sprint, maya.id);
  const s2 = p1.sticky('Load test checkout with 5k rps', 520, 200, 'light_pink', sprint);
  const s3 = p1.sticky('Record onboarding video', 820, 200, 'light_green', sprint, hannah.id);
  const c1 = p1.item({ type: 'card', data: { title: 'Ship in-app tour', description: 'Five steps, skippable, localized in DE/FR/ES.', assigneeId: maya.id, dueDate: dueDate(now + 9 * DAY) }, x: 400, y: 560, w: 320, h: 94, parent: sprint, daysAgo: 12 });
  const c2 = p1.item({ type: 'card', data: { title: 'Release notes draft', description: 'Collect highlights from all squads.', assigneeId: hannah.id, dueDate: dueDate(now + 16 * DAY) }, x: 1100, y: 420, w: 320, h: 94, daysAgo: 8 });
  return { s1, s2, s3, c1, c2 };
}

/** The approval flow shapes: design review, legal sign-off, launch. */
function launchPlanFlow(p1: BoardBuilder) {
  const review = p1.shape('Design review', 'round_rectangle', -1100, -100, '#a6ccf5');
  const signoff = p1.shape('Legal sign-off', 'rhombus', -1100, 150, '#fff9b1', 200, 200);
  const launch = p1.shape('Launch 🚀', 'circle', 1200, -200, '#93d275', 200, 200);
  return { review, signoff, launch };
}

/** One item of each media kind: image, document, embed and app card. */
function launchPlanMedia(p1: BoardBuilder): void {
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
}

/** The launch goals mind map: a root, three goals, two sub-goals of adoption. */
function launchGoalsMindmap(p1: BoardBuilder): void {
  const root = p1.mindNode('Launch goals', undefined, undefined, 0, 1400);
  p1.mindNode('Awareness', root, 'start', -300, 1300);
  const adoption = p1.mindNode('Adoption', root, 'end', 300, 1350);
  p1.mindNode('Retention', root, 'end', 300, 1450);
  p1.mindNode('Onboarding flow', adoption, 'end', 560, 1320);
  p1.mindNode('In-app tips', adoption, 'end', 560, 1380);
}

/** Board 1, "Q3 Launch Plan": in the project, shared with four people, classified Confidential. */
export function seedLaunchPlanBoard(store: Store, team: TeamRecord, project: ProjectRecord, people: DemoPeople, now: number, confidentialLabelId: string): BoardRecord {
  const { me, maya, hannah, priya, daniel } = people;
  const b1 = newBoard(store, { name: 'Q3 Launch Plan', description: 'Scope, owners and open questions for the Q3 release.', teamId: team.id, projectId: project.id, ownerId: me.id, at: now - 21 * DAY });
  b1.members.set(maya.id, 'editor');
  b1.members.set(hannah.id, 'commenter');
  b1.members.set(priya.id, 'coowner');
  b1.members.set(daniel.id, 'viewer');
  b1.lastOpenedAt = now - 3 * HOUR;
  b1.lastOpenedBy = me.id;
  b1.classificationLabelId = confidentialLabelId;
  b1.policy.sharingPolicy.teamAccess = 'edit';
  const p1 = new BoardBuilder(store, b1, now);
  const { s1, s2, s3, c1, c2 } = launchPlanSprint(p1, people, now);
  const { review, signoff, launch } = launchPlanFlow(p1);
  launchPlanMedia(p1);
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
  launchGoalsMindmap(p1);
  return b1;
}

/** Board 2, "Sprint 42 Retrospective": three column headers, six stickies, an action-item tag. */
export function seedRetroBoard(store: Store, team: TeamRecord, people: DemoPeople, now: number): BoardRecord {
  const { me, maya, amara } = people;
  const b2 = newBoard(store, { name: 'Sprint 42 Retrospective', description: 'What went well, what to improve, action items.', teamId: team.id, ownerId: me.id, at: now - 9 * DAY });
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
  return b2;
}

/** Board 3, "Payments Architecture": owned by a colleague (Jonas), a request flow with a decision. */
export function seedPaymentsBoard(store: Store, team: TeamRecord, people: DemoPeople, now: number, internalLabelId: string): BoardRecord {
  const { me, jonas, luis, kenji } = people;
  const b3 = newBoard(store, { name: 'Payments Architecture', description: 'Request flow of the payments platform, current state.', teamId: team.id, ownerId: jonas.id, at: now - 45 * DAY });
  b3.createdBy = jonas.id;
  b3.modifiedBy = luis.id;
  b3.members.set(me.id, 'editor' as BoardRole);
  b3.members.set(luis.id, 'editor');
  b3.members.set(kenji.id, 'commenter');
  b3.classificationLabelId = internalLabelId;
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
  return b3;
}
