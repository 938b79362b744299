/** The services that raise incidents, each with its escalation policy, and the incident priorities. */
import type { PolicyRecord, PriorityRecord, ServiceRecord } from '../model.js';
import type { IdFactory, Rng } from '../random.js';
import { DAY, wholeSecond } from './common.js';

interface ServiceSpec {
  name: string;
  description: string;
  policy: string;
  urgency: 'high' | 'low';
  fixedStatus?: 'disabled' | 'maintenance';
  /** Relative share of the incidents. */
  weight: number;
}

export const SERVICES: ServiceSpec[] = [
  { name: 'Kubernetes Platform', description: 'Production clusters and ingress.', policy: 'platform', urgency: 'high', weight: 5 },
  { name: 'Deploy Pipeline', description: 'CI/CD runners and artifact registry.', policy: 'platform', urgency: 'low', weight: 3 },
  { name: 'Checkout API', description: 'Public checkout and order placement API.', policy: 'critical', urgency: 'high', weight: 4 },
  { name: 'Payments Gateway', description: 'Card and wallet payment processing.', policy: 'payments', urgency: 'high', weight: 4 },
  { name: 'Billing Worker', description: 'Invoice generation and dunning jobs.', policy: 'payments', urgency: 'low', weight: 2 },
  { name: 'Mobile Backend', description: 'API gateway for the iOS and Android apps.', policy: 'mobile', urgency: 'high', weight: 3 },
  { name: 'Push Notifications', description: 'APNs/FCM delivery service.', policy: 'mobile', urgency: 'low', fixedStatus: 'maintenance', weight: 1 },
  { name: 'Data Pipeline', description: 'Kafka ingestion and stream processing.', policy: 'data', urgency: 'high', weight: 3 },
  { name: 'Analytics Warehouse', description: 'Nightly ETL and BI dashboards.', policy: 'data', urgency: 'low', weight: 2 },
  { name: 'Security Monitoring', description: 'SIEM alerts and intrusion detection.', policy: 'security', urgency: 'high', weight: 2 },
  { name: 'Support Portal', description: 'Customer help center and ticket intake.', policy: 'support', urgency: 'low', weight: 2 },
  { name: 'Internal Admin Tools', description: 'Back-office admin console.', policy: 'business-hours', urgency: 'low', weight: 2 },
  { name: 'Legacy Reporting', description: 'Old reporting stack, switched off.', policy: 'platform', urgency: 'low', fixedStatus: 'disabled', weight: 0 },
];

const PRIORITIES = [
  { name: 'P1', description: 'Critical: widespread customer impact.', color: 'a8171c' },
  { name: 'P2', description: 'High: significant impact on a major feature.', color: 'eb6016' },
  { name: 'P3', description: 'Moderate: degraded service, workaround exists.', color: 'f9b406' },
  { name: 'P4', description: 'Low: minor impact.', color: '0b6ebd' },
  { name: 'P5', description: 'Informational.', color: '6b6b6b' },
] as const;

export function generateServices(rng: Rng, ids: IdFactory, now: number, policyByKey: Map<string, PolicyRecord>): ServiceRecord[] {
  return SERVICES.map((spec) => {
    const policy = policyByKey.get(spec.policy) as PolicyRecord;
    const id = ids.next();
    return {
      id,
      name: spec.name,
      description: spec.description,
      policyId: policy.id,
      teamIds: policy.teamIds.slice(),
      createdAt: wholeSecond(now - rng.int(120, 900) * DAY),
      autoResolveTimeout: spec.urgency === 'low' ? 14_400 : 28_800,
      acknowledgementTimeout: spec.urgency === 'high' ? 1_800 : 3_600,
      fixedStatus: spec.fixedStatus ?? null,
      urgency: spec.urgency,
      integrations: [
        { id: ids.next(), type: 'events_api_v2_inbound_integration_reference', name: 'Events API V2' },
        ...(rng.chance(0.4) ? [{ id: ids.next(), type: 'generic_email_inbound_integration_reference' as const, name: 'Email' }] : []),
      ],
    };
  });
}

export function generatePriorities(ids: IdFactory): PriorityRecord[] {
  return PRIORITIES.map((p) => ({ id: ids.next(), name: p.name, description: p.description, color: p.color }));
}
