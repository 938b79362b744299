/**
 * The demo organization and its people: the token's owner (Alex Morgan, a company admin) and ten
 * colleagues with a mix of roles, licenses and activity. The other demo seeders refer to them by
 * first name, as the story of the demo boards does.
 */
import type { License, OrgRole, Store, UserRecord } from './model.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The organization's e-mail domain (external people use partner.example). */
export const DEMO_DOMAIN = 'northwind.example';

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

/** The token's owner and the colleagues of PEOPLE, by first name. */
export interface DemoPeople {
  me: UserRecord;
  priya: UserRecord;
  jonas: UserRecord;
  maya: UserRecord;
  luis: UserRecord;
  hannah: UserRecord;
  kenji: UserRecord;
  amara: UserRecord;
  tom: UserRecord;
  sofia: UserRecord;
  daniel: UserRecord;
}

function person(store: Store, first: string, last: string, role: OrgRole, license: License, active: boolean, now: number): UserRecord {
  const rng = store.rng;
  return {
    id: store.ids.user(),
    firstName: first,
    lastName: last,
    email: `${first}.${last}`.toLowerCase() + `@${role === 'organization_external_user' ? 'partner.example' : DEMO_DOMAIN}`,
    orgMember: true,
    role,
    license,
    active,
    lastActivityAt: now - rng.int(1, active ? 20 : 120) * DAY - rng.int(0, 23) * HOUR,
    licenseAssignedAt: now - rng.int(60, 700) * DAY,
    adminRoles: role === 'organization_internal_admin' ? [{ type: 'prebuilt', name: 'Company Admin' }] : [],
  };
}

/** The organization record (its ID is the first one the seed draws). */
export function seedOrganization(store: Store): void {
  store.org = { id: store.ids.numeric('3074457'), name: 'Northwind Labs', fullLicensesPurchased: 40 };
}

/** The token's owner, then the colleagues in PEOPLE order, all members of the organization. */
export function seedPeople(store: Store, now: number): DemoPeople {
  const me: UserRecord = {
    id: store.ids.user(),
    firstName: 'Alex',
    lastName: 'Morgan',
    email: `alex.morgan@${DEMO_DOMAIN}`,
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
  return { me, priya, jonas, maya, luis, hannah, kenji, amara, tom, sofia, daniel };
}
