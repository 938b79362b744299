/**
 * The service dependency graph: which technical services rest on which, and the business services
 * on top of them. Fixed by service name, so it is the same for every seed; IDs come from a random
 * source of their own (never the account's), so adding the graph changed no other record.
 * Everything runs on the Kubernetes platform (it has more dependents than an answer lists), and the
 * busy services' dependents are the ones with incidents, so "what else breaks" has open work to show.
 */
import type { BusinessServiceRecord, DependencyRecord, ServiceEnd, ServiceRecord, TeamRecord } from '../model.js';
import { IdFactory, Rng } from '../random.js';

/** The platform every other technical service runs on. */
const FOUNDATION = 'Kubernetes Platform';

/** Technical service -> the technical services it depends on (besides the foundation). */
const TECHNICAL: Record<string, string[]> = {
  'Checkout API': ['Payments Gateway', 'Data Pipeline'],
  'Billing Worker': ['Payments Gateway'],
  'Mobile Backend': ['Checkout API', 'Push Notifications'],
  'Analytics Warehouse': ['Data Pipeline'],
  'Security Monitoring': ['Data Pipeline'],
  'Support Portal': ['Checkout API', 'Internal Admin Tools'],
  'Internal Admin Tools': ['Billing Worker'],
  'Legacy Reporting': ['Analytics Warehouse'],
};

interface BusinessSpec {
  name: string;
  description: string;
  /** The team of this technical service owns it. */
  owner: string;
  /** Technical services, or business services listed before it. */
  dependsOn: string[];
}

const BUSINESS: BusinessSpec[] = [
  { name: 'Online Store', description: 'Customers browse, order and pay on the web.', owner: 'Checkout API', dependsOn: ['Checkout API', 'Payments Gateway'] },
  { name: 'Mobile App', description: 'The iOS and Android shopping apps.', owner: 'Mobile Backend', dependsOn: ['Mobile Backend', 'Push Notifications'] },
  { name: 'Customer Billing', description: 'Invoices, refunds and dunning.', owner: 'Billing Worker', dependsOn: ['Billing Worker', 'Payments Gateway'] },
  { name: 'Business Insights', description: 'Dashboards and reports for the business.', owner: 'Analytics Warehouse', dependsOn: ['Analytics Warehouse', 'Data Pipeline'] },
  { name: 'Customer Experience', description: 'Everything a customer touches.', owner: 'Support Portal', dependsOn: ['Online Store', 'Mobile App', 'Support Portal'] },
];

/** Fixed, so the graph's IDs do not depend on how many draws the account took. */
const GRAPH_SEED = 0x5e7d;

export function generateDependencies(
  seed: number,
  services: readonly ServiceRecord[],
  teamsById: ReadonlyMap<string, TeamRecord>,
  takenIds: Iterable<string>,
): { businessServices: BusinessServiceRecord[]; dependencies: DependencyRecord[] } {
  const ids = new IdFactory(new Rng(seed ^ GRAPH_SEED));
  for (const id of takenIds) ids.reserve(id);
  const technical = new Map(services.map((s) => [s.name, s]));
  const ends = new Map<string, ServiceEnd>(services.map((s) => [s.name, { kind: 'technical', id: s.id }]));
  const businessServices: BusinessServiceRecord[] = BUSINESS.map((spec) => {
    const owner = technical.get(spec.owner);
    const teamId = owner?.teamIds.find((t) => teamsById.has(t)) ?? null;
    const record = { id: ids.next(), name: spec.name, description: spec.description, pointOfContact: teamId ? `${teamsById.get(teamId)?.name ?? 'Team'} on call` : 'Operations', teamId };
    ends.set(spec.name, { kind: 'business', id: record.id });
    return record;
  });
  const dependencies: DependencyRecord[] = [];
  const link = (dependent: string, supporting: string) => {
    const from = ends.get(dependent);
    const to = ends.get(supporting);
    if (from && to && from.id !== to.id) dependencies.push({ id: ids.next('D', 15), supporting: to, dependent: from });
  };
  for (const s of services) if (s.name !== FOUNDATION) link(s.name, FOUNDATION);
  for (const [dependent, supporting] of Object.entries(TECHNICAL)) for (const name of supporting) link(dependent, name);
  for (const spec of BUSINESS) for (const name of spec.dependsOn) link(spec.name, name);
  businessServices.sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
  return { businessServices, dependencies };
}
