/**
 * Coverage changes in the days after `now`, so that on-call coverage questions have true answers:
 * the payments primary schedule's round-the-clock rotation is moved to a new layer that starts
 * ten hours after the old one ends (a hand-over gap that business hours cannot fill), and two
 * overrides stand in for the people on call. Applied last, so every record generated before
 * stays the same; only the layer that ends and the new records differ.
 */
import type { ScheduleRecord } from '../model.js';
import { onCallAt } from '../oncalls.js';
import type { IdFactory } from '../random.js';
import { DEMO_USER_ID, HOUR } from './common.js';
import type { People } from './people.js';

/** When the old rotation ends and how long until its successor starts, from the first hour at or after `now`. */
const GAP_STARTS_AFTER = 30 * HOUR;
const GAP_LENGTH = 10 * HOUR;
/** Overrides: schedule key, team whose member stands in, and when, from the first hour at or after `now`. */
const OVERRIDES = [
  { schedule: 'payments-primary', team: 1, from: 4 * HOUR, to: 8 * HOUR },
  { schedule: 'platform-secondary', team: 0, from: 20 * HOUR, to: 32 * HOUR },
] as const;

export function addCoverageChanges(ids: IdFactory, now: number, people: People, scheduleByKey: Map<string, ScheduleRecord>): void {
  const hour = Math.ceil(now / HOUR) * HOUR;
  const payments = scheduleByKey.get('payments-primary') as ScheduleRecord;
  const roundTheClock = payments.layers[payments.layers.length - 1];
  if (roundTheClock) {
    const gapStart = hour + GAP_STARTS_AFTER;
    roundTheClock.end = gapStart;
    // Same people and grid: after the gap the rotation goes on as if nothing happened.
    payments.layers.push({ ...roundTheClock, id: ids.next(), name: `${roundTheClock.name} (new rotation)`, start: gapStart + GAP_LENGTH, end: null, userIds: [...roundTheClock.userIds] });
  }
  for (const spec of OVERRIDES) {
    const schedule = scheduleByKey.get(spec.schedule) as ScheduleRecord;
    const start = hour + spec.from;
    const replaced = onCallAt(schedule, start);
    const standIn = people.eligibleOf(spec.team).find((id) => id !== replaced && id !== DEMO_USER_ID);
    if (!standIn) continue;
    (schedule.overrides ??= []).push({ id: ids.next(), start, end: hour + spec.to, userId: standIn });
  }
}
