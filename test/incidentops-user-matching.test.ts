import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Fuse from 'fuse.js';

import {
  AUTO_ACCEPT_MARGIN,
  AUTO_ACCEPT_THRESHOLD,
  chooseAutoAccept,
  createUserIndex,
  fuzzyComponent,
  normalizeText,
  rankUsers,
  RELATIVE_FLOOR,
  type MatchCandidate,
  type UserMatch,
} from '../src/incidentops/user-matching.js';
import { shortFormPairs } from '../src/incidentops/user-matching/short-forms.js';

interface User extends MatchCandidate {
  team: string;
}

const u = (id: string, name: string, email: string): User => ({ id, name, email, team: 'ops' });

const USERS: User[] = [
  u('u01', 'Alex Johnson', 'alex.johnson@acme.example'),
  u('u02', 'Alexa Johnston', 'alexa.johnston@acme.example'),
  u('u03', 'Alex Jonson', 'ajonson@acme.example'),
  u('u04', 'Maria Garcia', 'maria.garcia@acme.example'),
  u('u05', 'María García-López', 'mgarcialopez@acme.example'),
  u('u06', 'Chris Lee', 'chris.lee@acme.example'),
  u('u07', 'Christine Lee', 'clee@acme.example'),
  u('u08', 'Jane Doe', 'jane.doe@acme.example'),
  u('u09', 'John Doe', 'jdoe@acme.example'),
  u('u10', 'John Smith', 'john.smith@acme.example'),
  u('u11', 'Priya Patel', 'priya.patel@globex.example'),
  u('u12', 'Raj Patel', 'rpatel@globex.example'),
  u('u13', "Kathleen O'Brien", 'kobrien@globex.example'),
  u('u14', 'Lee Wong', 'lee.wong@globex.example'),
  u('u15', 'Sam Taylor', 'sam.taylor@initech.example'),
  u('u16', 'Samantha Green', 'sgreen@initech.example'),
  u('u17', 'Zoë Müller', 'zoe.mueller@initech.example'),
  u('u18', 'Björn Andersson', 'bjorn@initech.example'),
  u('u19', 'Wei Zhang', 'wei.zhang@acme.example'),
  u('u20', 'Li Zhang', 'lzhang@globex.example'),
  u('u21', 'Fatima Al-Sayed', 'fatima.alsayed@acme.example'),
  u('u22', 'Oluwaseun Adeyemi', 'seun.adeyemi@acme.example'),
  u('u23', 'Hiroshi Tanaka', 'htanaka@initech.example'),
  u('u24', 'Emily Chen', 'emily.chen@acme.example'),
  u('u25', 'Emma Chen', 'echen@globex.example'),
  u('u26', 'Michael Brown', 'mbrown@acme.example'),
  u('u27', 'Michelle Brown', 'michelle.b@globex.example'),
  u('u28', 'David Kim', 'dkim@acme.example'),
  u('u29', 'Daniel Kim', 'daniel.kim@initech.example'),
  u('u30', "Sarah O'Connor", 'sarah.oconnor@acme.example'),
  u('u31', 'Tom Nguyen', 'tom.nguyen@acme.example'),
  u('u32', 'Thomas Nguyen-Tran', 'tnguyentran@globex.example'),
  u('u33', 'Olivia Martin', 'olivia.martin@acme.example'),
  u('u34', 'Lucas Martin', 'lucas@martin.example'),
  u('u35', 'Noah Williams', 'noah.w@acme.example'),
  u('u36', 'Ava Wilson', 'ava.wilson@initech.example'),
  u('u37', 'Ethan Moore', 'emoore@acme.example'),
  u('u38', 'Isabella Rossi', 'isabella.rossi@globex.example'),
  u('u39', 'Mateo Fernández', 'mateo.fernandez@acme.example'),
  u('u40', 'Grace Hopper', 'ghopper@navy.example'),
  u('u41', 'Jan Novák', 'jan.novak@initech.example'),
  // letters that do not decompose, German spellings
  u('u42', 'Jørgen Ødegård', 'jorgen.odegard@nordic.example'),
  u('u43', 'Łukasz Wróbel', 'lwrobel@nordic.example'),
  u('u44', 'Ingrid Straße', 'ingrid.strasse@nordic.example'),
  u('u45', 'Klaus Müller', 'klaus.mueller@nordic.example'),
  u('u46', 'Ayşe Yıldız', 'ayse.yildiz@nordic.example'),
  u('u47', 'Þóra Sigurðardóttir', 'thora@nordic.example'),
  u('u48', 'Đorđe Petrović', 'dpetrovic@nordic.example'),
  u('u49', 'Kit Ng', 'christng@initech.example'),
  u('u50', 'Mathias Mueller', 'mmueller@nordic.example'),
  u('u51', 'Bartholomew Quigley', 'bq@initech.example'),
  u('u52', 'Søren Kjær', 'soren.kjaer@nordic.example'),
];

interface Case {
  query: string;
  /** Expected top user id, 'ambiguous' (several users tie near the top) or 'no match'. */
  top: string;
  accept: boolean;
  /** For 'ambiguous': ids that must all appear among the close leaders. */
  among?: string[];
  exact?: boolean;
  on?: 'name' | 'email';
}

const CASES: Case[] = [
  // exact names / e-mails
  { query: 'Alex Johnson', top: 'u01', accept: true, exact: true, on: 'name' },
  { query: 'Alexa Johnston', top: 'u02', accept: true, exact: true },
  { query: 'Alex Jonson', top: 'u03', accept: true, exact: true },
  { query: 'Chris Lee', top: 'u06', accept: true, exact: true },
  { query: 'Tom Nguyen', top: 'u31', accept: true, exact: true },
  { query: 'emily chen', top: 'u24', accept: true, exact: true },
  { query: 'Fatima Al-Sayed', top: 'u21', accept: true, exact: true },
  { query: 'jane.doe@acme.example', top: 'u08', accept: true, exact: true, on: 'email' },
  { query: 'JDOE@ACME.EXAMPLE', top: 'u09', accept: true, exact: true, on: 'email' },
  // case / accents
  { query: 'zoe muller', top: 'u17', accept: true, exact: true },
  { query: 'MARÍA GARCÍA-LÓPEZ', top: 'u05', accept: true, exact: true },
  { query: '  maria   garcia ', top: 'u04', accept: false, exact: true }, // María García-López shares both words
  { query: 'garcia', top: 'ambiguous', among: ['u04', 'u05'], accept: false },
  { query: 'Björn', top: 'u18', accept: true },
  // typos: a whole-name typo match nobody else could be meant by is accepted
  { query: 'Jhon Smtih', top: 'u10', accept: true },
  { query: 'Cristine Lee', top: 'u07', accept: true },
  { query: 'Michele Brown', top: 'u27', accept: false }, // "Michael Brown" is two edits away: could be meant
  { query: 'Bartholomew Quigly', top: 'u51', accept: true },
  { query: 'Quigly', top: 'u51', accept: true },
  { query: 'Hiroshy', top: 'u23', accept: true },
  { query: 'Jonh', top: 'ambiguous', among: ['u09', 'u10'], accept: false },
  { query: 'Alex Jonhson', top: 'ambiguous', among: ['u01', 'u03'], accept: false }, // one edit from both
  { query: 'Fatima Alsayed', top: 'u21', accept: false },
  // folded letters and German spellings
  { query: 'Jorgen Odegard', top: 'u42', accept: true, exact: true },
  { query: 'jørgen', top: 'u42', accept: true },
  { query: 'Lukasz Wrobel', top: 'u43', accept: true, exact: true },
  { query: 'Łukasz', top: 'u43', accept: true },
  { query: 'Ingrid Strasse', top: 'u44', accept: true, exact: true },
  { query: 'strasse', top: 'u44', accept: true },
  { query: 'Klaus Mueller', top: 'u45', accept: true },
  { query: 'Klaus Muller', top: 'u45', accept: true, exact: true },
  { query: 'Zoe Mueller', top: 'u17', accept: true },
  { query: 'Mathias Müller', top: 'u50', accept: true },
  { query: 'Müller', top: 'ambiguous', among: ['u17', 'u45', 'u50'], accept: false },
  { query: 'Ayse Yildiz', top: 'u46', accept: true, exact: true },
  { query: 'Thora Sigurdardottir', top: 'u47', accept: true, exact: true },
  { query: 'Dorde Petrovic', top: 'u48', accept: true, exact: true },
  { query: 'Soren Kjaer', top: 'u52', accept: true, exact: true },
  // partial names
  { query: 'christ', top: 'u07', accept: false, on: 'name' }, // a first-name prefix outranks the e-mail christng@
  { query: 'Priya', top: 'u11', accept: true },
  { query: 'hiroshi', top: 'u23', accept: true },
  { query: 'christine', top: 'u07', accept: true },
  { query: 'Lee', top: 'ambiguous', among: ['u06', 'u07', 'u14'], accept: false },
  { query: 'Zhang', top: 'ambiguous', among: ['u19', 'u20'], accept: false },
  { query: 'patel', top: 'ambiguous', among: ['u11', 'u12'], accept: false },
  { query: 'Martin', top: 'ambiguous', among: ['u33', 'u34'], accept: false },
  { query: 'em chen', top: 'ambiguous', among: ['u24', 'u25'], accept: false },
  { query: 'd kim', top: 'ambiguous', among: ['u28', 'u29'], accept: false },
  { query: 'Jan', top: 'u41', accept: false }, // "Jane" is a close runner-up
  { query: 'Seun', top: 'u22', accept: false },
  { query: "o'brien", top: 'u13', accept: true },
  // e-mail fragments
  { query: 'jdoe@', top: 'u09', accept: true, on: 'email' },
  { query: 'kobrien', top: 'u13', accept: true, on: 'email' },
  { query: 'lucas@martin', top: 'u34', accept: true, on: 'email' },
  { query: 'acme.example', top: 'ambiguous', accept: false },
  { query: 'globex.example', top: 'ambiguous', accept: false },
  // reversed order
  { query: 'Doe Jane', top: 'u08', accept: true },
  { query: 'smith john', top: 'u10', accept: true },
  // gibberish
  { query: 'zzqxv', top: 'no match', accept: false },
  { query: 'qwxyzk plomb', top: 'no match', accept: false },
];

const INDEX = createUserIndex(USERS);

function close(matches: UserMatch<User>[]): UserMatch<User>[] {
  const first = matches[0];
  if (!first) return [];
  return matches.filter((m) => Math.round((first.confidence - m.confidence) * 1000) < Math.round(AUTO_ACCEPT_MARGIN * 1000));
}

describe('rankUsers: labelled set', () => {
  it('has a realistic labelled set', () => {
    assert.ok(USERS.length >= 40);
    assert.ok(CASES.length >= 60);
    assert.equal(new Set(USERS.map((x) => x.id)).size, USERS.length);
  });

  for (const c of CASES) {
    it(`${JSON.stringify(c.query)} -> ${c.top}${c.accept ? ' (auto-accepted)' : ''}`, () => {
      const matches = rankUsers(c.query, INDEX);
      // Same results whether given the array or the prepared index.
      assert.deepEqual(rankUsers(c.query, USERS), matches);
      for (const m of matches) {
        assert.ok(m.confidence >= 0 && m.confidence <= 1, `confidence ${m.confidence} out of range`);
        assert.equal(m.confidence, Math.round(m.confidence * 1000) / 1000);
        const exact =
          normalizeText(m.user.name) === normalizeText(c.query) || normalizeText(m.user.email) === normalizeText(c.query);
        if (exact) assert.equal(m.confidence, 1);
        else assert.ok(m.confidence < 1, `non-exact ${m.user.name} scored 1`);
      }
      for (let i = 1; i < matches.length; i++) assert.ok(matches[i - 1]!.confidence >= matches[i]!.confidence);

      const decision = chooseAutoAccept(matches);
      assert.equal(typeof decision.reason, 'string');
      assert.ok(decision.reason.length > 10);

      if (c.top === 'no match') {
        assert.deepEqual(matches, [], `expected no results, got ${matches.map((m) => `${m.user.name}:${m.confidence}`).join(', ')}`);
      } else if (c.top === 'ambiguous') {
        const leaders = close(matches);
        assert.ok(leaders.length >= 2, `expected several close leaders, got ${JSON.stringify(matches.slice(0, 3).map((m) => [m.user.name, m.confidence]))}`);
        for (const id of c.among ?? []) assert.ok(leaders.some((m) => m.user.id === id), `${id} not among leaders`);
        assert.match(decision.reason, /ask which one/);
      } else {
        const top = matches[0];
        assert.ok(top, 'expected at least one result');
        assert.equal(top.user.id, c.top, `top is ${top.user.name} (${top.confidence})`);
        if (c.exact) assert.equal(top.confidence, 1);
        else assert.ok(top.confidence < 1);
        if (c.on) assert.equal(top.matched_on, c.on);
      }
      assert.equal(decision.accepted !== undefined, c.accept, decision.reason);
      if (decision.accepted) assert.equal(decision.accepted, matches[0]);
    });
  }
});

describe('rankUsers: details', () => {
  it('folds letters that do not decompose and German spellings', () => {
    assert.equal(normalizeText('Jørgen Łukasz Yıldız Straße Đorđe Æsa Œuvre Þóra Sigurðardóttir'), 'jorgen lukasz yildiz strasse dorde aesa oeuvre thora sigurdardottir');
    assert.equal(normalizeText('ØLSTRØM ŁUKASZ ẞ'), 'olstrom lukasz ss');
    for (const q of ['Müller', 'Mueller', 'Muller']) {
      const ids = rankUsers(q, INDEX).filter((x) => x.confidence === 0.9).map((x) => x.user.id);
      assert.ok(ids.includes('u45') && ids.includes('u17'), `${q}: ${ids.join(', ')}`);
    }
    // Without an umlaut on either side "ue" is no spelling of "u": Michael is not Michal.
    const plain = [u('a', 'Michael Kurz', 'a@x.example'), u('b', 'Michal Kurz', 'b@x.example')];
    assert.deepEqual(rankUsers('michael kurz', plain).map((x) => [x.user.id, x.confidence]).slice(0, 1), [['a', 1]]);
    assert.ok(rankUsers('michael kurz', plain)[1]!.confidence < 0.85);
  });

  it('ranks a first-name prefix at or above an e-mail local-part prefix of the same length', () => {
    const users = [u('mail', 'Kit Ng', 'christng@x.example'), u('name', 'Christine Lee', 'clee@x.example')];
    const m = rankUsers('chris', users);
    assert.deepEqual(m.map((x) => x.user.id), ['name', 'mail']);
    assert.equal(m[0]!.matched_on, 'name');
  });

  it('ranks the cached directory and extra users together as one directory', () => {
    const a = USERS.slice(0, 20);
    const b = USERS.slice(20);
    for (const q of ['lee', 'Jhon Smtih', 'acme.example', 'Müller', 'zzqxv', 'Michele Brown']) {
      assert.deepEqual(rankUsers(q, [createUserIndex(a), createUserIndex(b)], { maxResults: 50 }), rankUsers(q, INDEX, { maxResults: 50 }), q);
    }
  });

  it('the fuzzy component is fuse.js (name and e-mail, ignoreLocation, threshold 0.45)', () => {
    const docs = USERS.map((x) => ({ name: normalizeText(x.name), email: normalizeText(x.email) }));
    const fuse = new Fuse(docs, { keys: ['name', 'email'], includeScore: true, includeMatches: true, ignoreLocation: true, threshold: 0.45, shouldSort: false });
    for (const q of ['jonh smth', 'alex', 'lee', 'acme.example', 'zzqxv', 'athlee', 'mgarcia', 'brwn', 'chen emily', 'x', 'initech', 'sayed fatima', 'jorgen odegard']) {
      const theirs = new Map(fuse.search(normalizeText(q)).map((r) => [r.refIndex, [Math.round(600 * (1 - r.score!)), r.matches!.some((mt) => mt.key === 'name') ? 'name' : 'email']]));
      USERS.forEach((user, i) => {
        const mine = fuzzyComponent(q, user);
        assert.deepEqual(mine ? [Math.round(mine[0] * 1000), mine[1]] : undefined, theirs.get(i), `${q} / ${user.name}`);
      });
    }
  });


  it('returns nothing for a blank query', () => {
    assert.deepEqual(rankUsers('   ', USERS), []);
    assert.deepEqual(rankUsers('', INDEX), []);
  });

  it('respects maxResults and minConfidence', () => {
    assert.ok(rankUsers('acme.example', INDEX).length === 10);
    assert.equal(rankUsers('acme.example', INDEX, { maxResults: 3 }).length, 3);
    assert.ok(rankUsers('acme.example', INDEX, { maxResults: 100 }).length > 10);
    for (const m of rankUsers('lee', INDEX, { minConfidence: 0.85 })) assert.ok(m.confidence >= 0.85);
  });

  it('scores reordered full names 0.95 and whole name tokens 0.9', () => {
    assert.equal(rankUsers('doe jane', INDEX)[0]?.confidence, 0.95);
    assert.equal(rankUsers('priya', INDEX)[0]?.confidence, 0.9);
    const garcia = rankUsers('maria garcia', INDEX);
    assert.equal(garcia[1]?.user.id, 'u05');
    assert.equal(garcia[1]?.confidence, 0.9);
  });

  it('ranks a prefix of a name token above a mere substring', () => {
    const m = rankUsers('chri', INDEX);
    assert.deepEqual(
      m.slice(0, 2).map((x) => x.user.id),
      ['u06', 'u07'], // "chri" covers more of "chris" than of "christine"
    );
    assert.ok(m[0]!.confidence > m[1]!.confidence);
    assert.ok(m[0]!.confidence < AUTO_ACCEPT_THRESHOLD);
  });

  it('breaks ties stably by name then id', () => {
    const twins = [u('b', 'Sam Lee', 'b@x.example'), u('a', 'Sam Lee', 'a@x.example'), u('c', 'Ann Lee', 'c@x.example')];
    const m = rankUsers('lee', twins);
    assert.deepEqual(
      m.map((x) => x.user.id),
      ['c', 'a', 'b'],
    );
    const exact = rankUsers('Sam Lee', twins);
    assert.deepEqual(
      exact.slice(0, 2).map((x) => [x.user.id, x.confidence]),
      [
        ['a', 1],
        ['b', 1],
      ],
    );
    assert.equal(chooseAutoAccept(exact).accepted, undefined);
    assert.match(chooseAutoAccept(exact).reason, /^Two users match almost equally well/);
  });

  it('keeps the caller type and extra fields', () => {
    const m = rankUsers('grace hopper', INDEX);
    assert.equal(m[0]?.user.team, 'ops');
  });

  it('finds the exact user among 10,000 (cached index or not)', () => {
    const first = ['James', 'Mary', 'Robert', 'Patricia', 'Wei', 'Aisha', 'José', 'Zoë', 'Olu', 'Hana', 'Ivan', 'Chloé'];
    const last = ['Smith', 'García', 'Nguyen', 'Müller', 'Okafor', 'Kowalski', 'Tanaka', 'Rossi', 'Dubois', 'Singh'];
    const many: User[] = [];
    for (let i = 0; i < 10_000; i++) {
      const f = first[i % first.length]!;
      const l = last[Math.floor(i / first.length) % last.length]!;
      many.push(u(`id${i}`, `${f} ${l} ${i}`, `${normalizeText(f)}.${normalizeText(l)}${i}@corp.example`));
    }
    const target = many[4321]!;
    // Speed is measured by `npm run bench`; this checks correctness at directory scale.
    const fresh = rankUsers(target.name.toUpperCase(), many);
    const idx = createUserIndex(many);
    assert.equal(rankUsers('jose garcia', idx).length > 0, true);
    assert.deepEqual(rankUsers('zzqxv', idx), []);
    assert.equal(fresh[0]?.user.id, target.id);
    assert.equal(fresh[0]?.confidence, 1);
  });
});

describe('chooseAutoAccept', () => {
  const m = (id: string, confidence: number): UserMatch<MatchCandidate> => ({
    user: { id, name: `User ${id}`, email: `${id}@x.example` },
    confidence,
    matched_on: 'name',
  });

  it('explains an empty result', () => {
    const d = chooseAutoAccept([]);
    assert.equal(d.accepted, undefined);
    assert.match(d.reason, /No user matches/);
  });

  it('accepts a lone confident match and rejects a lone weak one', () => {
    assert.equal(chooseAutoAccept([m('a', AUTO_ACCEPT_THRESHOLD)]).accepted?.user.id, 'a');
    const weak = chooseAutoAccept([m('a', 0.84)]);
    assert.equal(weak.accepted, undefined);
    assert.match(weak.reason, /below the auto-accept threshold/);
  });

  it('applies the margin exactly on 3-decimal confidences', () => {
    assert.equal(chooseAutoAccept([m('a', 0.95), m('b', 0.8)]).accepted?.user.id, 'a'); // 0.95-0.8 is 0.1499999 in floats
    assert.equal(chooseAutoAccept([m('a', 0.95), m('b', 0.801)]).accepted, undefined);
    assert.equal(chooseAutoAccept([m('a', 1), m('b', 0.9)]).accepted, undefined);
  });

  it('accepts a whole-name typo match only when nobody else could be meant and nobody is close', () => {
    const typo = (id: string, confidence: number, rivals: number): UserMatch<MatchCandidate> => ({ ...m(id, confidence), typo: { rivals } });
    assert.equal(chooseAutoAccept([typo('a', 0.558, 0)]).accepted?.user.id, 'a');
    assert.match(chooseAutoAccept([typo('a', 0.558, 0)]).reason, /up to a typo/);
    assert.equal(chooseAutoAccept([typo('a', 0.6, 0), m('b', 0.45)]).accepted?.user.id, 'a');
    const rival = chooseAutoAccept([typo('a', 0.6, 0), m('b', 0.45)].map((x) => (x.user.id === 'a' ? { ...x, typo: { rivals: 1 } } : x)));
    assert.equal(rival.accepted, undefined);
    assert.match(rival.reason, /another user could be meant/);
    assert.equal(chooseAutoAccept([typo('a', 0.6, 0), m('b', 0.5)]).accepted, undefined, 'within the margin');
    assert.equal(chooseAutoAccept([m('a', 0.6)]).accepted, undefined, 'a weak match that is no typo match');
  });

  it('does not rely on the input being sorted', () => {
    assert.equal(chooseAutoAccept([m('b', 0.5), m('a', 0.99)]).accepted?.user.id, 'a');
    assert.equal(chooseAutoAccept([m('b', 0.9), m('a', 0.95)]).accepted, undefined);
  });
});

describe('properties', () => {
  const letters = [...'abcdefghijklmnopqrstuvwxyzéüñøçÅ'];
  const word = fc
    .array(fc.constantFrom(...letters), { minLength: 1, maxLength: 9 })
    .map((cs) => cs.join(''))
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));
  const usersArb = fc
    .uniqueArray(name, { minLength: 1, maxLength: 25, selector: (n) => normalizeText(n) })
    .map((names) =>
      names.map((n, i) => ({ id: `p${i}`, name: n, email: `${normalizeText(n).replace(/[^a-z]/g, '') || 'x'}${i}@ex.example` })),
    );

  it('confidence in [0,1], sorted, exact name first with 1.0', () => {
    fc.assert(
      fc.property(usersArb, fc.nat(), fc.string({ maxLength: 12 }), (users, pick, randomQuery) => {
        const target = users[pick % users.length]!;
        const idx = createUserIndex(users);
        for (const q of [target.name, target.name.toUpperCase(), randomQuery]) {
          const res = rankUsers(q, idx);
          for (const r of res) assert.ok(r.confidence >= 0 && r.confidence <= 1);
          for (let i = 1; i < res.length; i++) assert.ok(res[i - 1]!.confidence >= res[i]!.confidence);
          const decision = chooseAutoAccept(res);
          if (decision.accepted) {
            assert.equal(decision.accepted, res[0]);
            assert.ok(res[0]!.confidence >= AUTO_ACCEPT_THRESHOLD || res[0]!.typo?.rivals === 0);
            if (res[1]) assert.ok(Math.round((res[0]!.confidence - res[1].confidence) * 1000) >= AUTO_ACCEPT_MARGIN * 1000);
          }
        }
        const res = rankUsers(target.name, idx);
        assert.equal(res[0]?.user.id, target.id);
        assert.equal(res[0]?.confidence, 1);
        assert.ok(res.slice(1).every((r) => r.confidence < 1));
      }),
      { numRuns: 300 },
    );
  });

  it('never auto-accepts when the top two are within the margin', () => {
    const conf = fc.integer({ min: 0, max: 1000 }).map((n) => n / 1000);
    fc.assert(
      fc.property(fc.array(conf, { minLength: 2, maxLength: 6 }), (cs) => {
        const matches = cs
          .map((c, i) => ({ user: { id: `i${i}`, name: `N${i}`, email: `i${i}@x.example` }, confidence: c, matched_on: 'name' as const }))
          .sort((a, b) => b.confidence - a.confidence);
        const [a, b] = matches;
        const gap = Math.round((a!.confidence - b!.confidence) * 1000);
        const decision = chooseAutoAccept(matches);
        if (gap < Math.round(AUTO_ACCEPT_MARGIN * 1000) || a!.confidence < AUTO_ACCEPT_THRESHOLD) {
          assert.equal(decision.accepted, undefined);
        } else {
          assert.equal(decision.accepted, a);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('auto-accept never takes a guess', () => {
  const PEOPLE: User[] = [
    u('sam', 'Sam Patel', 'sam.patel@acme.example'),
    u('samantha', 'Samantha Patel', 'spatel@acme.example'),
    u('bob', 'Bob Smith', 'bob.smith@acme.example'),
    u('robert', 'Robert Jones', 'rjones@acme.example'),
    u('ann', 'Ann Johnson', 'ann.j@acme.example'),
    u('john', 'John Okafor', 'jokafor@acme.example'),
    u('pam', 'Pam Sato', 'pam.sato@acme.example'),
    u('tamsin', 'Tamsin Ward', 'tward@acme.example'),
    u('ingrid', 'Ingrid Holm', 'iholm@acme.example'),
  ];
  const decide = (query: string, users: readonly User[] = PEOPLE) => {
    const matches = rankUsers(query, users);
    return { matches, decision: chooseAutoAccept(matches) };
  };

  it('"sam" with Sam Patel and Samantha Patel accepts nobody, lists both and names the other reading', () => {
    const { matches, decision } = decide('sam');
    assert.equal(matches[0]?.user.id, 'sam');
    assert.ok(matches.some((m) => m.user.id === 'samantha'), 'the other reading is listed');
    assert.equal(decision.accepted, undefined, decision.reason);
    assert.match(decision.reason, /"Samantha Patel"/);
    assert.match(decision.reason, /Ask which one is meant/);
    // Without Samantha, "sam" names one person.
    assert.equal(decide('sam', PEOPLE.filter((p) => p.id !== 'samantha')).decision.accepted?.user.id, 'sam');
  });

  it('a last name the query starts is a plausible reading too ("john": John Okafor or Ann Johnson)', () => {
    const { matches, decision } = decide('john');
    assert.equal(matches[0]?.user.id, 'john');
    assert.equal(decision.accepted, undefined, decision.reason);
    assert.match(decision.reason, /"Ann Johnson"/);
  });

  it('a short form that does not start the name counts: "bob" may be Robert', () => {
    const { decision } = decide('bob');
    assert.equal(decision.accepted, undefined, decision.reason);
    assert.match(decision.reason, /"Robert Jones"/);
    assert.equal(decide('bob', PEOPLE.filter((p) => p.id !== 'robert')).decision.accepted?.user.id, 'bob');
    // The other way round is no short form: "Robert" names Robert Jones.
    assert.equal(decide('robert').decision.accepted?.user.id, 'robert');
  });

  it('the exact full name is accepted beside a namesake prefix, in any order and any case', () => {
    for (const query of ['Sam Patel', 'sam patel', 'PATEL SAM']) {
      const { matches, decision } = decide(query);
      assert.equal(decision.accepted?.user.id, 'sam', `${query}: ${decision.reason}`);
      assert.equal(matches[0]?.namesakes, undefined, 'a full name needs no namesake check');
    }
    // Two words that are not the whole name are still a guess.
    assert.equal(decide('sam pat').decision.accepted, undefined);
  });

  it('the longer name and a unique prefix of it', () => {
    assert.equal(decide('samantha').decision.accepted?.user.id, 'samantha', 'the whole first name names her');
    const prefix = decide('samanth');
    assert.equal(prefix.matches[0]?.user.id, 'samantha');
    assert.equal(prefix.matches[1]?.user.id === 'sam', false, 'Sam Patel is no reading of "samanth"');
    // A prefix alone stays below the threshold: it is listed first, and the agent confirms it.
    assert.equal(prefix.decision.accepted, undefined);
    assert.match(prefix.decision.reason, /confirm it is the intended user/);
  });

  it('an exact e-mail address, or an e-mail fragment with @, names its user', () => {
    assert.equal(decide('sam.patel@acme.example').decision.accepted?.user.id, 'sam');
    assert.equal(decide('SPATEL@acme.example').decision.accepted?.user.id, 'samantha');
    assert.equal(decide('spatel@').decision.accepted?.user.id, 'samantha');
  });

  it('weak matches are not listed beside strong ones, but are listed when nothing is strong', () => {
    for (const query of ['sam', 'Sam Patel', 'ingrid', 'tamsin', 'bob smith']) {
      const { matches } = decide(query);
      const best = matches[0]!.confidence;
      for (const m of matches) assert.ok(m.confidence >= RELATIVE_FLOOR * best - 1e-9, `${query}: ${m.user.name} ${m.confidence} listed beside ${best}`);
    }
    assert.ok(!decide('sam').matches.some((m) => m.user.id === 'pam'), '"Pam Sato" (one letter off) is not listed beside an exact first name');
    // Only weak evidence: it is all there is, so it is listed.
    const weak = decide('xam');
    assert.ok(weak.matches.length > 0 && weak.matches[0]!.confidence < 0.7);
  });

  it('property: a query word that starts another user\'s first or last name is never auto-accepted', () => {
    const syllable = fc.constantFrom('sam', 'an', 'ta', 'ber', 'lo', 'mi', 'ra', 'el', 'jo', 'ka');
    const token = fc.array(syllable, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
    const person = fc.tuple(token, token).map(([first, last]) => `${first[0]!.toUpperCase()}${first.slice(1)} ${last[0]!.toUpperCase()}${last.slice(1)}`);
    fc.assert(
      fc.property(fc.uniqueArray(person, { minLength: 2, maxLength: 12, selector: (n) => n.toLowerCase() }), fc.nat(), fc.boolean(), (names, pick, useLast) => {
        const users = names.map((name, i) => u(`p${i}`, name, `p${i}@ex.example`));
        const target = users[pick % users.length]!;
        const query = normalizeText(target.name).split(' ')[useLast ? 1 : 0]!;
        const matches = rankUsers(query, users);
        const decision = chooseAutoAccept(matches);
        if (!decision.accepted) return;
        const accepted = decision.accepted.user;
        const otherReading = users.some((other) => other !== accepted && normalizeText(other.name).split(' ').some((t) => t.startsWith(query)));
        assert.ok(!otherReading, `"${query}" accepted ${accepted.name} although another name starts with it: ${names.join(', ')}`);
        for (const m of matches) assert.ok(m.confidence >= RELATIVE_FLOOR * matches[0]!.confidence - 1e-9);
      }),
      { numRuns: 500 },
    );
  });
});

describe('short forms that do not begin the name, across the directory\'s languages', () => {
  /** [short form as people type it, full name, language]: the class, not a few examples. */
  const PAIRS: [string, string, string][] = [
    ['Kasia', 'Katarzyna', 'Polish'],
    ['Gosia', 'Małgorzata', 'Polish'],
    ['Basia', 'Barbara', 'Polish'],
    ['Zosia', 'Zofia', 'Polish'],
    ['Kuba', 'Jakub', 'Polish'],
    ['Wojtek', 'Wojciech', 'Polish'],
    ['Jurek', 'Jerzy', 'Polish'],
    ['Asia', 'Joanna', 'Polish'],
    ['Sasha', 'Aleksandr', 'Russian'],
    ['Sasha', 'Alexandra', 'Russian'],
    ['Masha', 'Mariya', 'Russian'],
    ['Katya', 'Ekaterina', 'Russian'],
    ['Dima', 'Dmitry', 'Russian'],
    ['Vanya', 'Ivan', 'Russian'],
    ['Zhenya', 'Yevgeny', 'Russian'],
    ['Volodya', 'Vladimir', 'Russian'],
    ['Natasha', 'Natalya', 'Russian'],
    ['Lyosha', 'Alexei', 'Russian'],
    ['Seryozha', 'Sergey', 'Russian'],
    ['Paco', 'Francisco', 'Spanish'],
    ['Pepe', 'José', 'Spanish'],
    ['Nacho', 'Ignacio', 'Spanish'],
    ['Lola', 'Dolores', 'Spanish'],
    ['Concha', 'Concepción', 'Spanish'],
    ['Quique', 'Enrique', 'Spanish'],
    ['Toño', 'Antonio', 'Spanish'],
    ['Beppe', 'Giuseppe', 'Italian'],
    ['Gigi', 'Luigi', 'Italian'],
    ['Gianni', 'Giovanni', 'Italian'],
    ['Mimmo', 'Domenico', 'Italian'],
    ['Sandro', 'Alessandro', 'Italian'],
    ['Sepp', 'Josef', 'German'],
    ['Fritz', 'Friedrich', 'German'],
    ['Uschi', 'Ursula', 'German'],
    ['Hans', 'Johannes', 'German'],
    ['Heinz', 'Heinrich', 'German'],
    ['Klaus', 'Nikolaus', 'German'],
    ['Margot', 'Marguerite', 'French'],
    ['Manon', 'Marie', 'French'],
    ['Zaza', 'Isabelle', 'French'],
    ['Pierrot', 'Pierre', 'French'],
    ['Zé', 'José', 'Portuguese'],
    ['Chico', 'Francisco', 'Portuguese'],
    ['Bia', 'Beatriz', 'Portuguese'],
    ['Kees', 'Cornelis', 'Dutch'],
    ['Henk', 'Hendrik', 'Dutch'],
    ['Wim', 'Willem', 'Dutch'],
    ['Bram', 'Abraham', 'Dutch'],
    ['Lasse', 'Lars', 'Scandinavian'],
    ['Pelle', 'Per', 'Scandinavian'],
    ['Stina', 'Kristina', 'Scandinavian'],
    ['Honza', 'Jan', 'Czech'],
    ['Pisti', 'István', 'Hungarian'],
    ['Laci', 'László', 'Hungarian'],
    ['Kostas', 'Konstantinos', 'Greek'],
    ['Bill', 'William', 'English'],
    ['Peggy', 'Margaret', 'English'],
    ['Bob', 'Robert', 'English'],
    ['Dick', 'Richard', 'English'],
    ['Ted', 'Edward', 'English'],
    ['Jack', 'John', 'English'],
    ['Liz', 'Elizabeth', 'English'],
    ['Hank', 'Henry', 'English'],
    ['Chuck', 'Charles', 'English'],
  ];

  const OTHERS: User[] = [u('o1', 'Priya Patel', 'ppatel@x.example'), u('o2', 'Wei Zhang', 'wzhang@x.example'), u('o3', 'Omar Haddad', 'ohaddad@x.example')];

  it('covers the languages of the directory, with many pairs each', () => {
    const languages = new Map<string, number>();
    for (const [, , language] of PAIRS) languages.set(language, (languages.get(language) ?? 0) + 1);
    assert.ok(languages.size >= 12, [...languages.keys()].join(', '));
    assert.ok(shortFormPairs().length >= 1000, `the table has ${shortFormPairs().length} pairs`);
  });

  for (const [short, full, language] of PAIRS) {
    it(`${language}: "${short}" lists ${full} and accepts nobody on it alone`, () => {
      const target = u('t', `${full} Nowak`, `t@x.example`);
      const alone = rankUsers(short, [target, ...OTHERS]);
      assert.equal(alone[0]?.user.id, 't', `${short}: ${JSON.stringify(alone.map((m) => [m.user.name, m.confidence]))}`);
      assert.equal(alone[0]!.confidence, 0.72);
      assert.equal(chooseAutoAccept(alone).accepted, undefined, 'a short form alone is a guess: the agent confirms it');
      // Beside someone whose name is the short form itself, the full name is another reading.
      const literal = u('s', `${short} Kowalski`, 's@x.example');
      const both = rankUsers(short, [literal, target, ...OTHERS]);
      assert.equal(both[0]?.user.id, 's');
      assert.ok(both.some((m) => m.user.id === 't'), `${full} is listed beside ${short}`);
      const decision = chooseAutoAccept(both);
      assert.equal(decision.accepted, undefined, decision.reason);
      assert.ok(decision.reason.includes(`"${full} Nowak"`), decision.reason);
      // With the surname, still a reading to confirm; the full name given in full is accepted.
      const named = rankUsers(`${short} Nowak`, [target, ...OTHERS]);
      assert.equal(named[0]?.user.id, 't');
      assert.equal(chooseAutoAccept(rankUsers(`${full} Nowak`, [literal, target, ...OTHERS])).accepted?.user.id, 't');
    });
  }

  it('"Kasia" with four Katarzynas gives several candidates, not one accepted guess', () => {
    const katarzynas = ['Nowak', 'Kowalska', 'Wiśniewska', 'Wójcik'].map((last, i) => u(`k${i}`, `Katarzyna ${last}`, `k${i}@x.example`));
    const kasia = u('kasia', 'Kasia Zielińska', 'kasia.zielinska@x.example');
    for (const directory of [[...katarzynas, ...OTHERS], [kasia, ...katarzynas, ...OTHERS], [u('k9', 'Katarzyna Lewandowska', 'kasia@x.example'), ...katarzynas, ...OTHERS]]) {
      const matches = rankUsers('Kasia', directory);
      const listed = matches.filter((m) => m.user.name.startsWith('Katarzyna'));
      assert.ok(listed.length >= 4, JSON.stringify(matches.map((m) => [m.user.name, m.confidence])));
      const decision = chooseAutoAccept(matches);
      assert.equal(decision.accepted, undefined, decision.reason);
      assert.match(decision.reason, /Katarzyna/);
      assert.match(decision.reason, /[Aa]sk which one is meant/);
    }
  });

  it('property: a short form with several full-name namesakes is never accepted, and lists them', () => {
    const pairs = shortFormPairs();
    fc.assert(
      fc.property(fc.constantFrom(...pairs), fc.integer({ min: 2, max: 4 }), fc.boolean(), ([short, full], count, withLiteral) => {
        const capital = (word: string) => word[0]!.toUpperCase() + word.slice(1);
        const namesakes = Array.from({ length: count }, (_, i) => u(`n${i}`, `${capital(full)} ${['Abara', 'Brennan', 'Costa', 'Dubois'][i]}`, `n${i}@x.example`));
        const directory = [...namesakes, ...OTHERS, ...(withLiteral ? [u('lit', `${capital(short)} Quinn`, 'lit@x.example')] : [])];
        const matches = rankUsers(short, directory);
        assert.equal(chooseAutoAccept(matches).accepted, undefined, `${short} / ${full}`);
        for (const namesake of namesakes) assert.ok(matches.some((m) => m.user.id === namesake.id), `${short}: ${namesake.name} listed`);
      }),
      { numRuns: 400 },
    );
  });

  it('the table is folded as names are, and holds no short form that begins its name (the prefix rule finds those)', () => {
    for (const [short, full] of shortFormPairs()) {
      assert.equal(normalizeText(short), short);
      assert.equal(normalizeText(full), full);
      assert.match(`${short} ${full}`, /^[a-z]+ [a-z]+$/);
      assert.ok(!full.startsWith(short), `${short} begins ${full}`);
    }
  });
});
