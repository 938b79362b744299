/** What the seed generator's parts share: the demo user, time units and small helpers. */

export const DEMO_USER_ID = 'PDEMO01';
export const DEMO_USER_NAME = 'Demo User';
export const DEMO_USER_EMAIL = 'demo.user@example.com';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;

export function slug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** Timestamps are kept to whole seconds, as the platform renders them. */
export function wholeSecond(t: number): number {
  return Math.floor(t / 1000) * 1000;
}

export function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
