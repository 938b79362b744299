/**
 * Method + path-template routing for the whiteboard emulator, plus the lookups most handlers
 * start with (live board, organization, team).
 */
import type { OAuthAuthority, TokenVerification } from '../oauth.js';
import type { SandboxRequest, SandboxResponse } from '../exchange.js';
import { badRequest, notFound, type BodyMode, type Query } from './http.js';
import type { BoardRecord, Store, TeamRecord } from './model.js';

export interface Ctx {
  store: Store;
  req: SandboxRequest;
  params: Record<string, string>;
  query: Query;
  /** Parsed JSON body (undefined when none was sent). */
  body: unknown;
  /** Absolute base URL of the platform in this sandbox. */
  base: string;
  /** The platform's OAuth authorization server. */
  oauth?: OAuthAuthority;
  /** Set when the request authenticated with an OAuth-issued token (not the static sandbox token). */
  token?: TokenVerification;
}

export type Handler = (ctx: Ctx) => SandboxResponse;

export interface RouteOptions {
  body?: BodyMode;
  /** Enterprise-plan endpoint: 403 when the sandbox is not on the enterprise plan. */
  enterprise?: boolean;
  /** Authenticated by its own body (token revocation), not by the Authorization header. */
  noAuth?: boolean;
}

interface Route extends RouteOptions {
  method: string;
  segments: string[];
  literalCount: number;
  handler: Handler;
}

export type Match = { kind: 'ok'; route: Route; params: Record<string, string> } | { kind: 'method'; allowed: string[] } | { kind: 'none' };

function split(path: string): string[] {
  return path.replace(/^\/+|\/+$/g, '').split('/').filter((s) => s !== '');
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): void {
    const segments = split(pattern);
    this.routes.push({ method, segments, literalCount: segments.filter((s) => !s.startsWith(':')).length, handler, ...options });
  }

  match(method: string, rawPath: string): Match {
    const parts = split(rawPath);
    let best: { route: Route; params: Record<string, string> } | undefined;
    const allowed = new Set<string>();
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i] as string;
        let part: string;
        try {
          part = decodeURIComponent(parts[i] as string);
        } catch {
          part = parts[i] as string;
        }
        if (seg.startsWith(':')) params[seg.slice(1)] = part;
        else if (seg !== part) ok = false;
      }
      if (!ok) continue;
      if (route.method !== method) {
        allowed.add(route.method);
        continue;
      }
      if (!best || route.literalCount > best.route.literalCount) best = { route, params };
    }
    if (best) return { kind: 'ok', ...best };
    if (allowed.size > 0) return { kind: 'method', allowed: [...allowed] };
    return { kind: 'none' };
  }
}

/** A board that exists and is not in the Trash, or 404. */
export function liveBoard(ctx: Ctx, id = ctx.params.board_id ?? ''): BoardRecord {
  const board = ctx.store.boards.get(id);
  if (!board) throw notFound('Board', id);
  return board;
}

/** The path's organization must be the sandbox organization. */
export function checkOrg(ctx: Ctx, numericOnly = false): void {
  const orgId = ctx.params.org_id ?? '';
  if (numericOnly && !/^[0-9]+$/.test(orgId)) throw badRequest(`Invalid parameters: org_id must be numeric, got ${JSON.stringify(orgId)}`);
  if (orgId !== ctx.store.org.id) throw notFound('Organization', orgId);
}

export function orgTeam(ctx: Ctx): TeamRecord {
  checkOrg(ctx);
  const id = ctx.params.team_id ?? '';
  const team = ctx.store.teams.get(id);
  if (!team) throw notFound('Team', id);
  return team;
}

export function touchBoard(ctx: Ctx, board: BoardRecord): void {
  board.modifiedAt = ctx.store.now();
  board.modifiedBy = ctx.store.meId;
}
