/**
 * Deterministic demo content for the whiteboard emulator: an organization with a dozen people,
 * three teams, a project, three boards with a realistic mix of items (a frame with items inside,
 * tags, a group, connectors, a mind map), a webhook subscription, classification labels, audit and
 * content log history over the last weeks, and an eDiscovery case with legal holds.
 *
 * Same seed + same `now` => same data. All times are relative to `now` at start. Every piece draws
 * from the one store PRNG, so seedDemo calls them in a fixed order: changing it changes the data.
 */
import type { ProjectRecord, Store, TeamRecord, TeamRole, UserRecord } from './model.js';
import { DAY, seedLaunchPlanBoard, seedPaymentsBoard, seedRetroBoard, type DemoBoards } from './demo-boards.js';
import { labelIdByName, seedAuditHistory, seedClassificationLabels, seedContentHistory, seedEDiscovery } from './demo-compliance.js';
import { DEMO_DOMAIN, seedOrganization, seedPeople, type DemoPeople } from './demo-people.js';
import { defaultTeamSettingsGroups, newTeam } from './org.js';
import { newProject } from './projects.js';


export interface DemoIds {
  organizationId: string;
  teamId: string;
  projectId: string;
  boardIds: string[];
  appId: string;
}

interface DemoTeams {
  design: TeamRecord;
  platform: TeamRecord;
  marketing: TeamRecord;
}

function addTeamMember(store: Store, team: TeamRecord, user: UserRecord, role: TeamRole, at: number): void {
  team.members.set(user.id, { seq: store.nextSeq(), role, createdAt: at, createdBy: store.meId, modifiedAt: at, modifiedBy: store.meId });
}

/** Product Design (the default team), Platform Engineering and Marketing, with members and classification defaults. */
function seedTeams(store: Store, people: DemoPeople, now: number): DemoTeams {
  const { me, priya, jonas, maya, luis, hannah, kenji, amara, tom, sofia, daniel } = people;
  const design = newTeam(store, 'Product Design', now - 400 * DAY, me.id);
  const platform = newTeam(store, 'Platform Engineering', now - 380 * DAY, me.id);
  const marketing = newTeam(store, 'Marketing', now - 300 * DAY, me.id);
  store.defaultTeamId = design.id;
  const joined: [TeamRecord, UserRecord, TeamRole, number][] = [
    [design, priya, 'admin', 390],
    [design, maya, 'member', 300],
    [design, hannah, 'member', 210],
    [design, amara, 'member', 120],
    [design, daniel, 'team_guest', 40],
    [platform, jonas, 'admin', 370],
    [platform, luis, 'member', 350],
    [platform, kenji, 'member', 200],
    [platform, tom, 'member', 330],
    [marketing, sofia, 'member', 150],
    [marketing, hannah, 'member', 100],
  ];
  for (const [team, user, role, daysAgo] of joined) addTeamMember(store, team, user, role, now - daysAgo * DAY);
  platform.classification.defaultLabelId = labelIdByName(store, 'Confidential');
  marketing.classification = { enabled: false, defaultLabelId: labelIdByName(store, 'Public') };
  marketing.settings.teamSharingPolicySettings = { ...marketing.settings.teamSharingPolicySettings, sharingViaPublicLink: 'allowed' };
  return { design, platform, marketing };
}

/** The "Q3 Launch Plan" project of the design team, with an editor and a viewer. */
function seedLaunchProject(store: Store, design: TeamRecord, people: DemoPeople, now: number): ProjectRecord {
  const project = newProject(store, design, 'Q3 Launch', people.me.id, now - 60 * DAY);
  project.members.set(people.maya.id, { seq: store.nextSeq(), role: 'editor' });
  project.members.set(people.hannah.id, { seq: store.nextSeq(), role: 'viewer' });
  return project;
}

/** A webhook subscription on the launch plan board. */
function seedWebhookSubscription(store: Store, board: DemoBoards['launchPlan'], now: number): void {
  const subAt = now - 14 * DAY;
  const sub = { id: store.ids.uuid(), seq: store.nextSeq(), boardId: board.id, callbackUrl: `https://hooks.${DEMO_DOMAIN}/canvas/board-events`, status: 'enabled' as const, createdAt: subAt, modifiedAt: subAt };
  store.subscriptions.set(sub.id, sub);
}

/** The installed app the app endpoints answer about. */
function seedApp(store: Store, now: number): void {
  store.app = { id: store.ids.numeric('3458764'), name: 'Sprint Sync', installedAt: now - 200 * DAY };
}

export function seedDemo(store: Store): DemoIds {
  const now = store.now();
  seedOrganization(store);
  const people = seedPeople(store, now);
  seedClassificationLabels(store);
  store.defaultTeamSettings = defaultTeamSettingsGroups();
  const teams = seedTeams(store, people, now);
  const project = seedLaunchProject(store, teams.design, people, now);
  const launchPlan = seedLaunchPlanBoard(store, teams.design, project, people, now, labelIdByName(store, 'Confidential'));
  const retro = seedRetroBoard(store, teams.design, people, now);
  const payments = seedPaymentsBoard(store, teams.platform, people, now, labelIdByName(store, 'Internal'));
  const boards: DemoBoards = { launchPlan, retro, payments };
  seedWebhookSubscription(store, launchPlan, now);
  seedApp(store, now);
  seedAuditHistory(store, people, boards, now);
  seedContentHistory(store, boards, now);
  seedEDiscovery(store, people, boards, now);
  return { organizationId: store.org.id, teamId: teams.design.id, projectId: project.id, boardIds: [launchPlan.id, retro.id, payments.id], appId: store.app.id };
}
