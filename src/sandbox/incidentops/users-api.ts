/** GET /users, /users/{id} and /users/me: the account's directory. */
import { intersectsAny, nameFilter, RawJson } from './listing.js';
import { notFound, type RequestContext } from './request.js';
import type { IncidentOpsState } from './state.js';

// Enumerations copied from the spec's parameter declarations.
const INCLUDE_USER = ['contact_methods', 'notification_rules', 'teams', 'subdomains', 'calendar_urls'];
const INCLUDE_USERS = ['contact_methods', 'notification_rules', 'teams', 'subdomains'];

export function getUser(state: IncidentOpsState, ctx: RequestContext, id: string): unknown {
  const include = ctx.q.enumList('include[]', INCLUDE_USER);
  const user = state.data.usersById.get(id);
  if (!user) throw notFound();
  return {
    user: ctx.renderer(null).user(user, {
      calendarUrls: include.includes('calendar_urls'),
      contactMethods: include.includes('contact_methods'),
      notificationRules: include.includes('notification_rules'),
    }),
  };
}

export function listUsers(state: IncidentOpsState, ctx: RequestContext): unknown {
  const { q } = ctx;
  q.enumList('include[]', INCLUDE_USERS); // validated; team/contact references are kept as references
  const page = q.page();
  const teams = q.ids('team_ids[]');
  const named = nameFilter(state.sorted.users, q.one('query'));
  const users = teams === null ? named : named.filter((u) => intersectsAny(u.teamIds, teams));
  // Users never change: each one's JSON is rendered once per base URL, so that a client walking
  // the whole directory in parallel is not held up by the emulator's own CPU.
  let rendered = state.renderedUsers.get(ctx.baseUrl);
  if (!rendered) state.renderedUsers.set(ctx.baseUrl, (rendered = new Map()));
  const r = ctx.renderer(null);
  const slice = users.slice(page.offset, page.offset + page.limit);
  const parts = slice.map((u) => {
    let text = rendered.get(u.id);
    if (text === undefined) rendered.set(u.id, (text = JSON.stringify(r.user(u))));
    return text;
  });
  const more = page.offset + slice.length < users.length;
  return new RawJson(`{"users":[${parts.join(',')}],"limit":${page.limit},"offset":${page.offset},"more":${more},"total":${page.total ? users.length : null}}`);
}
