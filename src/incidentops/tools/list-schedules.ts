import { z } from 'zod';
import { API_PAGE_SIZE, reportPages } from '../api.js';
import { incidentOpsTool } from '../deps.js';
import { checkPageWindow, limitParam, offsetParam, timeZoneParam } from '../params.js';
import { LIST_TRUNCATION_HINT, listOutput, page, shapeOncall, shapeSchedule } from '../shape.js';

export default incidentOpsTool({
  name: 'IncidentOps.ListSchedules',
  title: 'List schedules',
  description: 'Schedules with who is on call on each now.',
  toolset: 'schedules',
  input: z.strictObject({ limit: limitParam, offset: offsetParam, time_zone: timeZoneParam }).superRefine(checkPageWindow),
  output: listOutput('schedules'),
  truncationHint: LIST_TRUNCATION_HINT,
  handler: async (args, { deps, signal, progress }) => {
    const result = await deps.api.listPage('/schedules', 'schedules', { limit: args.limit, offset: args.offset, time_zone: args.time_zone }, signal);
    const ids = result.items.map((s) => String(s.id));
    // One /oncalls query for the whole page of schedules (paged itself only if it overflows).
    const oncalls = ids.length
      ? (await deps.api.listAll('/oncalls', 'oncalls', { 'schedule_ids[]': ids, time_zone: args.time_zone, limit: API_PAGE_SIZE }, signal, { onProgress: reportPages(progress, 'on-call shifts') }))
          .items
      : [];
    const bySchedule = new Map<string, Map<string, Record<string, unknown>>>();
    for (const oncall of oncalls) {
      const scheduleId = (oncall.schedule as { id?: string } | null)?.id;
      if (!scheduleId) continue;
      const shift = shapeOncall(oncall);
      // A schedule used by several policies or levels yields one entry per use: keep one per user and shift.
      const key = `${(shift.user as { id?: string } | undefined)?.id}|${String(shift.start)}|${String(shift.end)}`;
      const entries = bySchedule.get(scheduleId) ?? new Map();
      if (!entries.has(key)) entries.set(key, { user: shift.user, start: shift.start, end: shift.end });
      bySchedule.set(scheduleId, entries);
    }
    const schedules = result.items.map((schedule) => ({
      ...shapeSchedule(schedule),
      on_call_now: [...(bySchedule.get(String(schedule.id))?.values() ?? [])],
    }));
    return { schedules: schedules, ...page(args.limit, args.offset, result.more, result.items.length) };
  },
});
