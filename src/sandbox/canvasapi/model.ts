/**
 * The whiteboard emulator's internal records and the store that owns them. Times are epoch
 * milliseconds; render.ts turns records into the platform's JSON shapes.
 */
import { Rng } from '../incidentops/random.js';

export type OrgRole = 'organization_internal_admin' | 'organization_internal_user' | 'organization_external_user' | 'organization_team_guest_user' | 'unknown';
export type License = 'full' | 'occasional' | 'free' | 'free_restricted' | 'full_trial' | 'unknown';
export type BoardRole = 'viewer' | 'commenter' | 'editor' | 'coowner' | 'owner';
export type TeamRole = 'member' | 'admin' | 'team_guest' | 'non_team';
export type ProjectRole = 'owner' | 'editor' | 'viewer' | 'commentator' | 'coowner';
export type ItemType = 'sticky_note' | 'shape' | 'text' | 'card' | 'app_card' | 'document' | 'image' | 'embed' | 'frame';

export interface UserRecord {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  /** False for people invited to a board from outside the organization. */
  orgMember: boolean;
  role: OrgRole;
  license: License;
  active: boolean;
  lastActivityAt?: number;
  licenseAssignedAt?: number;
  adminRoles: { type: 'prebuilt' | 'custom'; name: string }[];
}

export interface TeamMembership {
  seq: number;
  role: TeamRole;
  createdAt: number;
  createdBy: string;
  modifiedAt: number;
  modifiedBy: string;
}

export interface TeamRecord {
  id: string;
  seq: number;
  name: string;
  createdAt: number;
  members: Map<string, TeamMembership>;
  /** TeamSettings groups, stored as the platform shows them. */
  settings: Record<string, Record<string, unknown>>;
  classification: { enabled: boolean; defaultLabelId?: string };
}

export interface ProjectMembership {
  seq: number;
  role: ProjectRole;
}

export interface ProjectRecord {
  id: string;
  seq: number;
  teamId: string;
  name: string;
  teamAccess: 'private' | 'view';
  members: Map<string, ProjectMembership>;
  createdAt: number;
}

export interface BoardPolicy {
  permissionsPolicy: { collaborationToolsStartAccess: string; copyAccess: string; sharingAccess: string };
  sharingPolicy: { access: string; inviteToAccountAndBoardLinkAccess: string; organizationAccess: string; teamAccess: string };
}

export interface ItemRecord {
  id: string;
  seq: number;
  boardId: string;
  type: ItemType;
  data: Record<string, unknown>;
  style: Record<string, unknown>;
  /** Center of the item: relative to the canvas center, or to the parent frame's top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
  rotation?: number;
  parentId?: string;
  tagIds: string[];
  createdAt: number;
  createdBy: string;
  modifiedAt: number;
  modifiedBy: string;
}

export interface ConnectorEnd {
  itemId: string;
  /** Relative attachment point, e.g. { x: '50%', y: '0%' }. */
  position?: { x: string; y: string };
  snapTo?: string;
}

export interface ConnectorRecord {
  id: string;
  seq: number;
  boardId: string;
  start: ConnectorEnd;
  end: ConnectorEnd;
  shape: 'straight' | 'elbowed' | 'curved';
  captions: { content: string; position?: string; textAlignVertical?: string }[];
  style: Record<string, string>;
  createdAt: number;
  createdBy: string;
  modifiedAt: number;
  modifiedBy: string;
}

export interface TagRecord {
  id: string;
  seq: number;
  boardId: string;
  title: string;
  fillColor: string;
}

export interface GroupRecord {
  id: string;
  seq: number;
  boardId: string;
  itemIds: string[];
}

export interface MindmapNodeRecord {
  id: string;
  seq: number;
  boardId: string;
  content: string;
  /** Parent mind-map node; undefined for a root. */
  parentNodeId?: string;
  /** Frame holding a root node, if any. */
  frameId?: string;
  x: number;
  y: number;
  width: number;
  direction?: 'start' | 'end';
  createdAt: number;
  createdBy: string;
  modifiedAt: number;
  modifiedBy: string;
}

export interface BoardRecord {
  id: string;
  name: string;
  description: string;
  teamId: string;
  projectId?: string;
  ownerId: string;
  createdAt: number;
  createdBy: string;
  modifiedAt: number;
  modifiedBy: string;
  lastOpenedAt?: number;
  lastOpenedBy?: string;
  policy: BoardPolicy;
  members: Map<string, BoardRole>;
  classificationLabelId?: string;
  items: Map<string, ItemRecord>;
  connectors: Map<string, ConnectorRecord>;
  tags: Map<string, TagRecord>;
  groups: Map<string, GroupRecord>;
  mindmap: Map<string, MindmapNodeRecord>;
  pictureId: number;
}

export interface TrashEntry {
  board: BoardRecord;
  deletedAt: number;
  deletedBy: string;
}

export interface SubscriptionRecord {
  id: string;
  seq: number;
  boardId: string;
  callbackUrl: string;
  status: 'enabled' | 'disabled' | 'lost_access';
  createdAt: number;
  modifiedAt: number;
}

export interface ExportJobRecord {
  id: string;
  requestId: string;
  boardIds: string[];
  format: 'SVG' | 'HTML' | 'PDF';
  createdAt: number;
}

export interface AuditEventRecord {
  id: string;
  seq: number;
  createdAt: number;
  event: string;
  category: string;
  actorId: string;
  objectId: string;
  objectName: string;
  teamId?: string;
  ip: string;
  details: Record<string, unknown>;
}

export interface ContentLogRecord {
  id: string;
  seq: number;
  boardId: string;
  itemId: string;
  actionType: 'create' | 'update' | 'delete';
  itemType: 'widget' | 'comment_thread' | 'comment_message';
  actionTime: number;
  actorId: string;
  state: Record<string, unknown>;
}

export interface LabelRecord {
  id: string;
  name: string;
  color: string;
  description: string;
  orderNumber: number;
  sharingRecommendation: string;
  guidelineUrl: string;
  isDefault: boolean;
}

export interface CaseRecord {
  id: string;
  name: string;
  description: string;
  createdBy: string;
  createdAt: number;
  lastModifiedAt: number;
}

export interface LegalHoldRecord {
  id: string;
  caseId: string;
  name: string;
  description: string;
  state: 'PROCESSING' | 'ACTIVE' | 'DELETING';
  userIds: string[];
  createdBy: string;
  createdAt: number;
  lastModifiedAt: number;
  /** Content items held: board keys. */
  contentItems: { id: string; boardId: string; name: string }[];
}

export interface OrganizationRecord {
  id: string;
  name: string;
  fullLicensesPurchased: number;
}

export interface AppRecord {
  id: string;
  name: string;
  installedAt: number;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';

/** Deterministic identifiers in the platform's styles. */
export class Ids {
  private readonly used = new Set<string>();
  constructor(private readonly rng: Rng) {}

  private unique(make: () => string): string {
    for (;;) {
      const id = make();
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }

  /** Board key, e.g. uXjVK4mQz9a= */
  board(): string {
    return this.unique(() => `uXjV${this.rng.chars(7, ALNUM)}=`);
  }

  /** 19-digit numeric ID (items, tags, connectors, teams, ...). */
  numeric(prefix = '3458764'): string {
    return this.unique(() => prefix + this.rng.chars(19 - prefix.length, '0123456789'));
  }

  /** 16-digit user ID: small enough to survive as a JSON number (board invitations report user IDs as integers). */
  user(): string {
    return this.unique(() => `3074457${this.rng.chars(9, '0123456789')}`);
  }

  /** 19-digit int64 ID, past 2^53 as the platform's are (classification labels, which requests carry as JSON integers). */
  int64(prefix = '3000457'): string {
    return this.unique(() => prefix + this.rng.chars(19 - prefix.length, '0123456789'));
  }

  uuid(): string {
    return this.unique(() => {
      const h = this.rng.chars(32, HEX);
      const variant = HEX[8 + this.rng.int(0, 3)] as string;
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    });
  }
}

export interface StoreOptions {
  token: string;
  now: () => Date;
  enterprise: boolean;
  seed: number;
}

/** Everything the emulator knows; mutated by the handlers. */
export class Store {
  readonly rng: Rng;
  readonly ids: Ids;
  readonly token: string;
  readonly enterprise: boolean;
  readonly seed: number;
  private readonly clock: () => Date;
  private seqCounter = 0;
  tokenRevoked = false;

  org!: OrganizationRecord;
  /** The token's owner. */
  meId!: string;
  defaultTeamId!: string;
  app!: AppRecord;
  readonly users = new Map<string, UserRecord>();
  readonly teams = new Map<string, TeamRecord>();
  readonly projects = new Map<string, ProjectRecord>();
  readonly boards = new Map<string, BoardRecord>();
  readonly trash = new Map<string, TrashEntry>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly exportJobs = new Map<string, ExportJobRecord>();
  readonly audit: AuditEventRecord[] = [];
  readonly contentLogs: ContentLogRecord[] = [];
  readonly labels: LabelRecord[] = [];
  readonly cases = new Map<string, CaseRecord>();
  readonly legalHolds = new Map<string, LegalHoldRecord>();
  defaultTeamSettings: Record<string, Record<string, unknown>> = {};
  readonly sessionResets: { email: string; at: number }[] = [];

  constructor(options: StoreOptions) {
    this.rng = new Rng(options.seed);
    this.ids = new Ids(this.rng);
    this.token = options.token;
    this.enterprise = options.enterprise;
    this.seed = options.seed;
    this.clock = options.now;
  }

  now(): number {
    return this.clock().getTime();
  }

  nextSeq(): number {
    this.seqCounter += 1;
    return this.seqCounter;
  }

  me(): UserRecord {
    return this.users.get(this.meId) as UserRecord;
  }

  userByEmail(email: string): UserRecord | undefined {
    const lower = email.trim().toLowerCase();
    for (const u of this.users.values()) if (u.email.toLowerCase() === lower) return u;
    return undefined;
  }

  orgUsers(): UserRecord[] {
    return [...this.users.values()].filter((u) => u.orgMember);
  }

  fullName(userId: string): string {
    const u = this.users.get(userId);
    return u ? `${u.firstName} ${u.lastName}`.trim() : 'Unknown user';
  }

  recordAudit(event: string, category: string, objectId: string, objectName: string, details: Record<string, unknown> = {}, teamId?: string): void {
    const at = this.now();
    const seq = this.nextSeq();
    this.audit.push({
      id: `${new Date(at).toISOString()}#${this.ids.numeric('3074457')}-SBX`,
      seq,
      createdAt: at,
      event,
      category,
      actorId: this.meId,
      objectId,
      objectName,
      ...(teamId ? { teamId } : {}),
      ip: '203.0.113.10',
      details,
    });
  }

  recordContent(boardId: string, itemId: string, actionType: 'create' | 'update' | 'delete', state: Record<string, unknown>): void {
    this.contentLogs.push({
      id: this.ids.uuid(),
      seq: this.nextSeq(),
      boardId,
      itemId,
      actionType,
      itemType: 'widget',
      actionTime: this.now(),
      actorId: this.meId,
      state,
    });
  }
}
