/**
 * The whiteboard emulator's pieces with rules of their own, called directly: the demo seed (a pure
 * function of seed and clock whose records refer to each other consistently, fingerprinted in
 * test/snapshots/sandbox-canvasapi-demo.json so that a moved random draw shows), the board list's
 * filter and sort, the role a share grants, the organization's e-mail search, and the governance
 * parsers (int64 IDs, audit times, the content-log query) and export-job clock.
 * After an intended change of the demo data, UPDATE_SNAPSHOTS=1 records the new fingerprints.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { filterBoards, grantedRole, newBoard, sortBoards } from '../src/sandbox/canvasapi/boards.js';
import { contentLogQuery, EXPORT_DURATION_MS, EXPORT_STARTS_AFTER_MS, int64Id, jobStatus, parseAuditTime } from '../src/sandbox/canvasapi/compliance.js';
import { seedDemo } from '../src/sandbox/canvasapi/demo.js';
import { ApiError, Query } from '../src/sandbox/canvasapi/http.js';
import { Store, type BoardRecord, type UserRecord } from '../src/sandbox/canvasapi/model.js';
import { membersByEmail } from '../src/sandbox/canvasapi/org.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FINGERPRINTS = path.join(ROOT, 'test', 'snapshots', 'sandbox-canvasapi-demo.json');
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';
const NOW = Date.UTC(2026, 2, 15, 12);

function seededStore(seed: number, enterprise = true, now = NOW): Store {
  const store = new Store({ token: 't', now: () => new Date(now), enterprise, seed });
  seedDemo(store);
  return store;
}

/** The whole store as text: records, maps and sets as entries, the PRNG's state and the IDs drawn. */
function storeText(store: Store): string {
  return JSON.stringify(store, (_key, value: unknown) => (value instanceof Map || value instanceof Set ? [...value] : value));
}

/** Asserts that `fn` throws the platform's 400 with a message containing `text`. */
function throws400(fn: () => unknown, text: string): void {
  assert.throws(fn, (err: unknown) => err instanceof ApiError && err.status === 400 && err.message.includes(text));
}

describe('demo seed', () => {
  const CASES: Record<string, [seed: number, enterprise: boolean, now: number]> = {
    'default seed, enterprise': [4242, true, NOW],
    'seed 1, business plan': [1, false, NOW],
    'seed 42, another clock': [42, true, Date.UTC(2025, 10, 2, 7, 30, 5, 123)],
  };

  it('is identical for the same seed and clock, and differs with the seed', () => {
    for (const [label, [seed, enterprise, now]] of Object.entries(CASES)) assert.equal(storeText(seededStore(seed, enterprise, now)), storeText(seededStore(seed, enterprise, now)), label);
    assert.notEqual(storeText(seededStore(2)), storeText(seededStore(4242)));
  });

  it('matches the recorded fingerprints (every random draw in its place)', () => {
    const actual = Object.fromEntries(
      Object.entries(CASES).map(([label, [seed, enterprise, now]]) => {
        const text = storeText(seededStore(seed, enterprise, now));
        return [label, { sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) }];
      }),
    );
    if (UPDATE) writeFileSync(FINGERPRINTS, JSON.stringify(actual, null, 2) + '\n');
    assert.ok(existsSync(FINGERPRINTS), `no ${path.relative(ROOT, FINGERPRINTS)} (run with UPDATE_SNAPSHOTS=1 and review)`);
    assert.deepEqual(actual, JSON.parse(readFileSync(FINGERPRINTS, 'utf8')), 'the demo data changed: if intended, run with UPDATE_SNAPSHOTS=1');
  });

  it("boards' content refers only to records on the same board", () => {
    const store = seededStore(7);
    assert.equal(store.boards.size, 3);
    for (const board of store.boards.values()) {
      for (const item of board.items.values()) {
        assert.equal(item.boardId, board.id);
        if (item.parentId !== undefined) assert.equal(board.items.get(item.parentId)?.type, 'frame', `${item.id}'s parent is a frame on its board`);
        for (const tagId of item.tagIds) assert.ok(board.tags.has(tagId), `tag ${tagId} of ${item.id} is on the board`);
        assert.ok(item.createdAt <= item.modifiedAt && item.modifiedAt <= NOW, `${item.id} was changed after it was made, before now`);
      }
      for (const c of board.connectors.values()) assert.ok(board.items.has(c.start.itemId) && board.items.has(c.end.itemId), `connector ${c.id} joins items of its board`);
      for (const g of board.groups.values()) assert.ok(g.itemIds.length > 1 && g.itemIds.every((id) => board.items.has(id)), `group ${g.id}`);
      for (const n of board.mindmap.values()) if (n.parentNodeId !== undefined) assert.ok(board.mindmap.has(n.parentNodeId), `mind-map node ${n.id}'s parent`);
      for (const userId of board.members.keys()) assert.ok(store.users.has(userId), `member ${userId} of ${board.name}`);
      assert.equal(board.members.get(board.ownerId), 'owner');
      if (board.classificationLabelId !== undefined) assert.ok(store.labels.some((l) => l.id === board.classificationLabelId));
      assert.ok(board.teamId && store.teams.has(board.teamId));
      if (board.projectId !== undefined) assert.equal(store.projects.get(board.projectId)?.teamId, board.teamId);
    }
  });

  it('teams, projects, subscriptions and legal holds refer to existing people, labels, cases and boards', () => {
    const store = seededStore(8);
    const orgUsers = new Set(store.orgUsers().map((u) => u.id));
    assert.equal(store.labels.filter((l) => l.isDefault).length, 1, 'one default label');
    assert.ok(store.teams.has(store.defaultTeamId));
    for (const team of store.teams.values()) {
      for (const userId of team.members.keys()) assert.ok(orgUsers.has(userId), `${team.name} member ${userId}`);
      if (team.classification.defaultLabelId !== undefined) assert.ok(store.labels.some((l) => l.id === team.classification.defaultLabelId), team.name);
    }
    for (const project of store.projects.values()) {
      const team = store.teams.get(project.teamId);
      for (const userId of project.members.keys()) assert.ok(team?.members.has(userId), `${project.name} member ${userId} is in the team`);
    }
    for (const sub of store.subscriptions.values()) assert.ok(store.boards.has(sub.boardId));
    assert.ok(store.legalHolds.size > 0);
    for (const hold of store.legalHolds.values()) {
      assert.ok(store.cases.has(hold.caseId), `case of ${hold.name}`);
      for (const userId of hold.userIds) assert.ok(orgUsers.has(userId), `${hold.name} user ${userId}`);
      for (const item of hold.contentItems) assert.equal(store.boards.get(item.boardId)?.name, item.name);
    }
  });

  it('keeps the audit and content logs in time order, numbered in that order', () => {
    const store = seededStore(9);
    const inOrder = <T>(list: T[], time: (t: T) => number, seq: (t: T) => number) => list.every((x, i) => i === 0 || (time(list[i - 1] as T) <= time(x) && seq(list[i - 1] as T) < seq(x)));
    assert.ok(store.audit.length > 40 && inOrder(store.audit, (e) => e.createdAt, (e) => e.seq), 'audit log');
    assert.ok(store.contentLogs.length > 40 && inOrder(store.contentLogs, (l) => l.actionTime, (l) => l.seq), 'content log');
    assert.ok(store.contentLogs.every((l) => store.boards.has(l.boardId) && store.users.has(l.actorId) && l.actionTime <= NOW));
    const ids = [...store.audit.map((e) => e.id), ...store.contentLogs.map((l) => l.id)];
    assert.equal(new Set(ids).size, ids.length, 'log IDs are unique');
  });
});

describe('board list', () => {
  function boards(): BoardRecord[] {
    const store = new Store({ token: 't', now: () => new Date(NOW), enterprise: true, seed: 3 });
    const make = (name: string, description: string, teamId: string, ownerId: string, at: number, projectId?: string) => newBoard(store, { name, description, teamId, ownerId, at, ...(projectId ? { projectId } : {}) });
    const list = [make('beta', 'Roadmap', 't1', 'u1', 100, 'p1'), make('Alpha', 'retro notes', 't1', 'u2', 300), make('beta', 'other', 't2', 'u1', 200), make('gamma', 'ROADMAP draft', 't2', 'u2', 50)];
    list[0]!.lastOpenedAt = 10;
    list[3]!.lastOpenedAt = 20;
    list[1]!.modifiedAt = 150;
    return list;
  }
  const names = (list: BoardRecord[]) => list.map((b) => `${b.name}/${b.description}`);

  it('keeps the boards every given filter matches; the text matches name or description, ignoring case', () => {
    const all = boards();
    assert.equal(filterBoards(all, {}).length, 4);
    assert.equal(filterBoards(all, { teamId: '', text: '' }).length, 4, 'empty filters keep everything');
    assert.deepEqual(names(filterBoards(all, { text: 'roadMAP' })), ['beta/Roadmap', 'gamma/ROADMAP draft']);
    assert.deepEqual(names(filterBoards(all, { text: 'ALPHA' })), ['Alpha/retro notes']);
    assert.deepEqual(names(filterBoards(all, { text: 'roadmap', teamId: 't2' })), ['gamma/ROADMAP draft']);
    assert.deepEqual(names(filterBoards(all, { owner: 'u1', projectId: 'p1' })), ['beta/Roadmap']);
  });

  it('sorts by name (ties by ID), by creation, by last opening (never opened last) or by last change', () => {
    const list = boards();
    const [b0, , b2] = list as [BoardRecord, BoardRecord, BoardRecord, BoardRecord];
    sortBoards(list, 'alphabetically');
    assert.deepEqual(list.map((b) => b.name), ['Alpha', 'beta', 'beta', 'gamma']);
    assert.deepEqual(list.slice(1, 3).map((b) => b.id), [b0.id, b2.id].sort((x, y) => x.localeCompare(y)));
    sortBoards(list, 'last_created');
    assert.deepEqual(list.map((b) => b.createdAt), [300, 200, 100, 50]);
    sortBoards(list, 'last_opened');
    assert.deepEqual(list.slice(0, 2).map((b) => b.lastOpenedAt), [20, 10]);
    assert.ok(list.slice(2).every((b) => b.lastOpenedAt === undefined));
    sortBoards(list, 'default');
    assert.deepEqual(list.map((b) => b.modifiedAt), [200, 150, 100, 50]);
  });

  it('grants commenter when no role is asked, co-owner for owner, the asked role otherwise', () => {
    assert.equal(grantedRole(undefined), 'commenter');
    assert.equal(grantedRole('owner'), 'coowner');
    for (const role of ['viewer', 'commenter', 'editor', 'coowner'] as const) assert.equal(grantedRole(role), role);
  });
});

describe('organization e-mail search', () => {
  const users = seededStore(5).orgUsers();
  const [a, b] = users as [UserRecord, UserRecord];

  it('finds members by any of the addresses, ignoring case, spaces and empty entries', () => {
    assert.deepEqual(membersByEmail(users, ` ${a.email.toUpperCase()} ,, ${b.email} ,`).map((u) => u.id).sort(), [a.id, b.id].sort());
    assert.deepEqual(membersByEmail(users, 'nobody@northwind.example'), []);
  });

  it('refuses more than ten addresses and malformed ones', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `p${i}@x.example`).join(',');
    throws400(() => membersByEmail(users, eleven), 'at most 10 emails');
    assert.equal(membersByEmail(users, eleven.split(',').slice(0, 10).join(',')).length, 0);
    throws400(() => membersByEmail(users, `${a.email},not-an-address`), '"not-an-address" is not an e-mail address');
  });
});

describe('governance parsers', () => {
  it('reads int64 IDs from safe integers, bigints and digit strings; absent is undefined', () => {
    assert.equal(int64Id(undefined, 'labelId'), undefined);
    assert.equal(int64Id(null, 'labelId'), undefined);
    assert.equal(int64Id(0, 'labelId'), '0');
    assert.equal(int64Id(9_007_199_254_740_991, 'labelId'), '9007199254740991');
    assert.equal(int64Id(9_223_372_036_854_775_807n, 'labelId'), '9223372036854775807');
    assert.equal(int64Id('3000457123456789012', 'labelId'), '3000457123456789012');
    for (const bad of [-1, 1.5, 2 ** 60, '', '12a', '12345678901234567890', true, 99_999_999_999_999_999_999n, -1n, '9223372036854775808', '9999999999999999999']) {
      throws400(() => int64Id(bad, 'labelId'), 'labelId must be an integer ID');
    }
  });

  it('reads audit times only as UTC with milliseconds', () => {
    assert.equal(parseAuditTime('2026-03-01T10:00:00.250Z', 'createdAfter'), Date.UTC(2026, 2, 1, 10, 0, 0, 250));
    for (const bad of ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00.250+01:00', '2026-03-01', '2026-13-01T10:00:00.000Z']) {
      throws400(() => parseAuditTime(bad, 'createdBefore'), 'createdBefore must be a UTC ISO 8601 date-time');
    }
  });

  it('moves an export job from CREATED through IN_PROGRESS to FINISHED with the clock', () => {
    let now = NOW;
    const store = new Store({ token: 't', now: () => new Date(now), enterprise: true, seed: 1 });
    const at = (age: number) => {
      now = NOW + age;
      return jobStatus(store, NOW);
    };
    assert.deepEqual(
      [0, EXPORT_STARTS_AFTER_MS - 1, EXPORT_STARTS_AFTER_MS, EXPORT_DURATION_MS - 1, EXPORT_DURATION_MS, 10 * EXPORT_DURATION_MS].map(at),
      ['CREATED', 'CREATED', 'IN_PROGRESS', 'IN_PROGRESS', 'FINISHED', 'FINISHED'],
    );
  });

  describe('content-log query', () => {
    const from = '2026-03-01T00:00:00Z';
    const to = '2026-03-02T00:00:00Z';
    const query = (pairs: [string, string][]) => contentLogQuery(new Query(pairs));

    it('reads the window, board and e-mail filters (lower-cased), limit and order', () => {
      assert.deepEqual(query([['from', from], ['to', to]]), { from: Date.parse(from), to: Date.parse(to), boardIds: [], emails: [], limit: 1000, descending: false });
      const full = query([['from', from], ['to', from], ['board_ids', 'b1,b2'], ['emails', 'Maya@X.example'], ['limit', '5'], ['sorting', 'desc']]);
      assert.deepEqual(full, { from: Date.parse(from), to: Date.parse(from), boardIds: ['b1', 'b2'], emails: ['maya@x.example'], limit: 5, descending: true });
    });

    it('refuses a missing or malformed window, a reversed one, and too many or malformed filters, in that order', () => {
      throws400(() => query([['to', to]]), 'query parameter from is required');
      throws400(() => query([['from', 'yesterday'], ['to', 'tomorrow']]), 'from must be an ISO 8601 date-time');
      throws400(() => query([['from', to], ['to', from], ['emails', 'bad']]), 'from must not be later than to');
      const sixteen = Array.from({ length: 16 }, (_, i) => `b${i}`).join(',');
      throws400(() => query([['from', from], ['to', to], ['board_ids', sixteen], ['emails', 'bad']]), 'at most 15 board_ids, got 16');
      throws400(() => query([['from', from], ['to', to], ['emails', 'a@x.example,bad'], ['limit', '0']]), '"bad" is not an e-mail address');
      throws400(() => query([['from', from], ['to', to], ['limit', '1001']]), 'limit');
    });
  });
});
