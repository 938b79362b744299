import { createRequire } from 'node:module';
import type { DateTime } from 'luxon';
import { z } from 'zod';
import { cappedArray, cappedString, pathId } from '../core/tools/schema.js';

let luxonModule: typeof import('luxon') | undefined;

/**
 * luxon, loaded with the first time or time zone to check: a start lists the tools without it
 * (a third of IncidentOps's own start-up code). Required through createRequire, which the bundle
 * leaves to Node, as it does Ajv and pino.
 */
export function luxon(): typeof import('luxon') {
  const require = createRequire(import.meta.url);
  return (luxonModule ??= require('luxon') as typeof import('luxon'));
}

/** The platform refuses `offset + limit` above this (classic pagination cap). */
export const MAX_PAGE_WINDOW = 10_000;

// Descriptions here are short on purpose: the paging, time and ID conventions are stated once,
// in the server's instructions, not in every parameter of every tool.

export const limitParam = z.number().int().min(1).max(50).default(10).describe('Page size.');

/** Omitted means 0; that default is left out of the listing (the instructions say where paging starts). */
export const offsetParam = z
  .number()
  .int()
  .min(0)
  .optional()
  .transform((offset) => offset ?? 0)
  .describe('Items to skip.');

// Every string parameter built here carries the generic identifier cap of INPUT_LIMITS (checked,
// not listed): a longer value is refused before luxon or Intl looks at it.

export const timeZoneParam = cappedString('identifier')
  .refine((zone) => luxon().IANAZone.isValidZone(zone), {
    message: 'must be an IANA time zone name such as "America/New_York", "Europe/Berlin" or "Etc/UTC"',
  })
  .optional()
  .describe('For returned times.');

export function isoTimeParam(description: string) {
  return cappedString('identifier')
    .refine((value) => parseIsoTime(value) !== undefined, {
      message: 'must be an ISO 8601 date or date-time such as "2026-05-06", "2026-05-06T17:00Z" or "2026-05-06T03:30:00-07:00"',
    })
    .optional()
    .describe(description);
}

/** Longer than any ISO 8601 time (with nanoseconds, offset and padding): not looked at. */
const MAX_ISO_TIME_CHARS = 100;

/** At most this many IDs per filter (the instructions say so; the bound is checked, not advertised). */
export const MAX_FILTER_IDS = 100;

/** An optional `*_ids` filter; `description` says what it keeps (matching any of the IDs is stated once, in the instructions). */
export function idsParam(description: string) {
  return cappedArray(cappedString('identifier', z.string().trim().min(1)))
    .refine((ids) => ids.length <= MAX_FILTER_IDS, { message: `must list at most ${MAX_FILTER_IDS} IDs` })
    .optional()
    .describe(description);
}

/** An ID that goes into the request path (refused before any request when it cannot be one). */
export function idParam(description: string) {
  return pathId(cappedString('identifier', z.string().trim().min(1))).describe(description);
}

/** The platform's GET /incidents/{id} takes the incident number too; "#1121", as people write it, is that number. */
export const incidentIdParam = pathId(
  cappedString('identifier', z.string().trim().min(1)).transform((id) => (/^#\d+$/.test(id) ? id.slice(1) : id)),
).describe('Incident ID, or its number (1121).');

/**
 * Parses ISO 8601 (date, date-time, with or without offset); undefined when invalid. A bracketed
 * zone name ("...T10:00[Europe/Berlin]", RFC 9557) is not ISO 8601 and the platform refuses it;
 * it is refused here too, before luxon keeps every such name in its zone cache for good.
 */
export function parseIsoTime(value: string): DateTime | undefined {
  if (value.length > MAX_ISO_TIME_CHARS || value.includes('[')) return undefined;
  const parsed = luxon().DateTime.fromISO(value.trim(), { setZone: true });
  return parsed.isValid ? parsed : undefined;
}

interface WindowRules {
  /** Longest allowed span between since and until, in days. */
  maxSpanDays?: number;
  /** How far into the future `until` may reach, in days. */
  maxFutureDays?: number;
  /** Used when `until` is omitted to check the span (the platform's own default is now). */
  now?: () => Date;
}

/** Cross-field checks for pagination and time windows, as zod refinements on the tool's input. */
export function checkPageWindow(args: { limit: number; offset: number }, ctx: z.RefinementCtx): void {
  if (args.offset + args.limit > MAX_PAGE_WINDOW) {
    ctx.addIssue({
      code: 'custom',
      path: ['offset'],
      message: `offset + limit must not exceed ${MAX_PAGE_WINDOW} (got ${args.offset} + ${args.limit}); narrow the filters or time range instead of paging further`,
    });
  }
}

export function checkTimeWindow(args: { since?: string | undefined; until?: string | undefined }, ctx: z.RefinementCtx, rules: WindowRules = {}): void {
  const since = args.since !== undefined ? parseIsoTime(args.since) : undefined;
  const until = args.until !== undefined ? parseIsoTime(args.until) : undefined;
  if ((args.since !== undefined && !since) || (args.until !== undefined && !until)) return; // reported by the field itself
  const now = luxon().DateTime.fromJSDate((rules.now ?? (() => new Date()))());
  if (since && until && since >= until) {
    ctx.addIssue({ code: 'custom', path: ['until'], message: `must be later than since (got since ${args.since}, until ${args.until})` });
    return;
  }
  if (rules.maxSpanDays !== undefined && since) {
    const end = until ?? now;
    if (end.diff(since, 'days').days > rules.maxSpanDays) {
      ctx.addIssue({
        code: 'custom',
        path: ['since'],
        message: `the time range may span at most ${rules.maxSpanDays} days${until ? '' : ' (until defaults to now)'}; narrow it`,
      });
    }
  }
  if (rules.maxFutureDays !== undefined && until && until.diff(now, 'days').days > rules.maxFutureDays) {
    ctx.addIssue({ code: 'custom', path: ['until'], message: `may be at most ${rules.maxFutureDays} days in the future` });
  }
}

/** How far past `at` to look for the next person: longer than a weekly rotation with a gap. */
export const NEXT_SHIFT_LOOKAHEAD_DAYS = 15;

/**
 * Pages of 100 the task tools read at most, which size their budgets (core/call-budget.ts):
 * GetIncidentContext's key events and on-call shifts, WhoIsOnCall's team policies (101: one more
 * than it shows, to know there are more) and shifts over the lookahead.
 */
export const TASK_PAGES = { logEntries: 10, incidentOnCalls: 10, teamPolicies: 2, shifts: 50, dependentsOpen: 2 } as const;

/** WhoIsOnCall's coverage window (`at` to `until`) spans at most this many days. */
export const MAX_WINDOW_DAYS = 14;
/** Schedules whose overrides a coverage answer reads (two requests each), for one policy and for a team's. */
export const OVERRIDE_SCHEDULES = { onePolicy: 10, team: 25 } as const;
/** A team's policies WhoIsOnCall covers at most (the platform's on-call filter takes 100 at once). */
export const MAX_TEAM_POLICIES = 100;

/** Days from `at` (default `now`) to `until`; WhoIsOnCall checks them against its clock before anything is sent. */
export function windowDays(args: { at?: string | undefined; until?: string | undefined; time_zone?: string | undefined }, now = new Date()): number {
  return instantOf(args.until, args.time_zone, now).diff(instantOf(args.at, args.time_zone, now), 'days').days;
}

/** Pages of 100 resolved incidents FindSimilarIncidents ranks itself when the platform has no past incidents for the account. */
export const SIMILAR_INCIDENT_PAGES = 10;
/** Incidents whose notes and alerts FindSimilarIncidents reads when it ranks itself (two requests each); at least its largest limit. */
export const SIMILAR_NOTE_READS = 12;
/** The platform's incident list spans at most six months per query. */
export const SIMILAR_MAX_WINDOW_DAYS = 180;

/** `at` as an instant: an ISO time with an offset, or a local time read in `time_zone` (UTC by default); shown in that zone. */
export function instantOf(at: string | undefined, timeZone: string | undefined, now: Date): DateTime {
  const zone = timeZone ?? 'utc';
  if (at === undefined) return luxon().DateTime.fromJSDate(now).setZone(zone);
  return luxon().DateTime.fromISO(at.trim(), { zone, setZone: true }).setZone(zone);
}
