/**
 * GET /schedules/{id}/overrides (listScheduleOverrides): a schedule's overrides meeting
 * [since, until), both required. Entries are cut at the bounds unless overflow=true; with
 * `editable` only future overrides come back (the text says then "only the id", the schema
 * requires start, end and user: the schema wins). The spec documents the answer under status 201;
 * the platform answers a GET with 200, and so does the sandbox.
 */
import { intersects } from './oncalls.js';
import { invalid, notFound, type RequestContext } from './request.js';

export function listScheduleOverrides(ctx: RequestContext, id: string): unknown {
  const { q, data, now } = ctx;
  const schedule = data.schedulesById.get(id);
  if (!schedule) throw notFound();
  const zone = schedule.timeZone;
  const since = q.date('since', zone);
  const until = q.date('until', zone);
  const missing = [since === null ? 'since' : '', until === null ? 'until' : ''].filter(Boolean);
  if (missing.length > 0) throw invalid(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} required.`);
  if ((until as number) < (since as number)) throw invalid('until must not be before since.');
  const editable = q.one('editable') !== undefined && q.bool('editable', false);
  const overflow = q.bool('overflow', false);
  const overrides = (schedule.overrides ?? []).filter((o) => intersects(o.start, o.end, since as number, until as number));
  const r = ctx.renderer(zone);
  return {
    overrides: overrides.filter((o) => !editable || o.start > now).map((o) => ({
      id: o.id,
      start: r.time(overflow ? o.start : Math.max(o.start, since as number)),
      end: r.time(overflow ? o.end : Math.min(o.end, until as number)),
      user: r.userRef(o.userId),
    })),
  };
}
