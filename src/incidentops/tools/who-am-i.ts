import { z } from 'zod';
import { incidentOpsTool } from '../deps.js';
import { reportPages } from '../api.js';
import {
  anyArray,
  anyObject,
  checkedOutput,
  contactMethodSchema,
  notificationRuleSchema,
  oncallSchema,
  recordSchema,
  shapeContactMethods,
  shapeNotificationRules,
  shapeOncall,
  shapeUser,
} from '../shape.js';

/** How far ahead WhoAmI looks for the next shift (the platform allows at most 90 days). */
export const NEXT_SHIFT_WINDOW_DAYS = 89;

export default incidentOpsTool({
  name: 'IncidentOps.WhoAmI',
  title: 'Who am I',
  description: `The signed-in user with contact methods and notification rules, and their on-call shifts now and next (within ${NEXT_SHIFT_WINDOW_DAYS} days).`,
  toolset: 'users',
  input: z.strictObject({}),
  output: checkedOutput(
    z.object({
      user: recordSchema,
      contact_methods: z.array(contactMethodSchema),
      notification_rules: z.array(notificationRuleSchema),
      on_call_now: z.boolean(),
      current_shifts: z.array(oncallSchema),
      next_shift: oncallSchema.optional(),
    }),
    z.object({ user: anyObject, contact_methods: anyArray, notification_rules: anyArray, on_call_now: z.boolean(), current_shifts: anyArray, next_shift: anyObject.optional() }),
  ),
  handler: async (_args, { deps, signal, progress }) => {
    const user = await deps.api.getOne('/users/me', {}, 'user', signal, 'the current user', { 'include[]': ['contact_methods', 'notification_rules'] });
    const userId = String(user.id);
    const now = deps.now();
    const until = new Date(now.getTime() + NEXT_SHIFT_WINDOW_DAYS * 86_400_000);
    // earliest=true keeps one shift per (policy, level): the current one if on call, else the next one.
    // So next_shift is the soonest shift on a policy the user is not on call for right now.
    const { items } = await deps.api.listAll('/oncalls', 'oncalls', { 'user_ids[]': [userId], since: now.toISOString(), until: until.toISOString(), earliest: true }, signal, {
      onProgress: reportPages(progress, 'your on-call shifts'),
    });
    const shifts = items.map(shapeOncall);
    const isCurrent = (s: Record<string, unknown>) => s.permanent === true || (typeof s.start === 'string' && Date.parse(s.start) <= now.getTime());
    const current = shifts.filter(isCurrent);
    const upcoming = shifts.filter((s) => !isCurrent(s)).sort((a, b) => Date.parse(String(a.start)) - Date.parse(String(b.start)));
    const contactMethods = shapeContactMethods(user.contact_methods);
    return {
      user: shapeUser(user),
      contact_methods: contactMethods,
      notification_rules: shapeNotificationRules(user.notification_rules, contactMethods),
      on_call_now: current.length > 0,
      current_shifts: current,
      ...(upcoming[0] ? { next_shift: upcoming[0] } : {}),
    };
  },
});
