/**
 * Which tools a server exposes: profiles, toolsets, single tools, exclusions and read-only mode.
 * Filtering happens once per choice; the registry lists and calls only what the selection keeps.
 */
import { namesTool, nearestTool, SelectionError, styledName, styleOf } from './names.js';
import { closest } from './suggest.js';
import type { AnyToolDefinition } from './tool.js';

/** A named set of tools a server offers (`--profile everyday`). */
export interface ToolProfile {
  description: string;
  /** Only tools of these toolsets (default: every toolset). */
  toolsets?: readonly string[];
  /** Only these tools, by contract name (default: every tool of the toolsets). */
  tools?: readonly string[];
  /** Never these tools, by contract name. */
  excludeTools?: readonly string[];
  excludeToolsets?: readonly string[];
  readOnly?: boolean;
  /** List a handful of meta tools (find, describe, call) instead of the tools themselves. */
  meta?: boolean;
  /** Also keep every tool beyond the contract (see ToolDefinition.beyondContract); other choices keep only those they name. */
  includeBeyondContract?: boolean;
}

/**
 * What an operator or a request asks for. Every part narrows; toolsets and tools together name what
 * to include, and naming tools beyond the contract is what keeps them (selectTools).
 */
export interface ToolSelection {
  profile?: string;
  toolsets?: readonly string[];
  tools?: readonly string[];
  excludeTools?: readonly string[];
  readOnly?: boolean;
}

/** Profiles every server has, besides its own. */
export const CORE_PROFILES: Readonly<Record<string, ToolProfile>> = {
  all: { description: 'every tool of the platform contract (the default); tools beyond it are opt-in' },
  readonly: { description: 'only tools that change nothing', readOnly: true },
  meta: { description: 'a few meta tools that find, describe and call every tool, for the smallest context', meta: true },
};

export interface SelectableServer {
  name: string;
  tools: readonly AnyToolDefinition[];
  profiles?: Readonly<Record<string, ToolProfile>>;
}

export function profilesOf(server: Pick<SelectableServer, 'profiles'>): Record<string, ToolProfile> {
  return { ...CORE_PROFILES, ...(server.profiles ?? {}) };
}

export function toolsetsOf(tools: readonly AnyToolDefinition[]): string[] {
  return [...new Set(tools.map((tool) => tool.toolset))];
}

export interface Selected {
  tools: AnyToolDefinition[];
  meta: boolean;
  readOnly: boolean;
}

/** Applies a selection to `base` (all tools, or what an earlier selection kept). Throws SelectionError on unknown names. */
export function applySelection(server: SelectableServer, base: Selected, selection: ToolSelection): Selected {
  let tools = base.tools;
  let meta = base.meta;
  let readOnly = base.readOnly;
  const profiles = profilesOf(server);
  if (selection.profile !== undefined && selection.profile !== '') {
    const profile = profiles[selection.profile.toLowerCase()];
    if (!profile) throw new SelectionError(unknown('profile', selection.profile, Object.keys(profiles)));
    tools = narrow(server, tools, profile);
    meta ||= Boolean(profile.meta);
    readOnly ||= Boolean(profile.readOnly);
  }
  tools = narrow(server, tools, selection);
  readOnly ||= Boolean(selection.readOnly);
  if (readOnly) tools = tools.filter((tool) => tool.hints.readOnlyHint);
  return { tools, meta, readOnly };
}

export function selectTools(server: SelectableServer, ...selections: ToolSelection[]): Selected {
  const selected = selections.reduce((kept, selection) => applySelection(server, kept, selection), { tools: [...server.tools], meta: false, readOnly: false } as Selected);
  if (selected.meta) return selected;
  const asked = namedByChoices(server, selections);
  return { ...selected, tools: selected.tools.filter((tool) => !tool.beyondContract || asked.has(tool.name)) };
}

/** The tools some choice names: by toolset or name, directly or through its profile. */
function namedByChoices(server: SelectableServer, selections: readonly ToolSelection[]): Set<string> {
  const profiles = profilesOf(server);
  const rules: ToolProfile[] = selections.flatMap((selection) => [{ description: '', ...selection }, ...(selection.profile ? [profiles[selection.profile.toLowerCase()] ?? { description: '' }] : [])]);
  if (rules.some((rule) => rule.includeBeyondContract)) return new Set(server.tools.filter((tool) => tool.beyondContract).map((tool) => tool.name));
  const toolsets = new Set(rules.flatMap((rule) => rule.toolsets ?? []).map((name) => name.trim().toLowerCase()));
  const names = new Set(rules.flatMap((rule) => rule.tools ?? []).map((name) => resolveToolName(server, name)));
  return new Set(server.tools.filter((tool) => toolsets.has(tool.toolset) || names.has(tool.name)).map((tool) => tool.name));
}

/** The toolset name that stands for every toolset of the contract: `--toolsets all,tasks` is the contract plus the task tools. */
export const ALL_TOOLSETS = 'all';

/** Toolset names as a choice gives them, with `all` read as every toolset of the contract. */
function expandToolsets(server: SelectableServer, names: readonly string[]): string[] {
  const allToolsets = toolsetsOf(server.tools);
  const contract = toolsetsOf(server.tools.filter((tool) => !tool.beyondContract));
  return names.flatMap((name) => (name.trim().toLowerCase() === ALL_TOOLSETS ? contract : [checkToolset(name, allToolsets)]));
}

function narrow(server: SelectableServer, tools: AnyToolDefinition[], rule: Omit<ToolProfile, 'description' | 'meta'>): AnyToolDefinition[] {
  const allToolsets = toolsetsOf(server.tools);
  // An empty list (every named toolset belongs to another server, see forServer) keeps no toolset.
  const toolsets = rule.toolsets ? new Set(expandToolsets(server, rule.toolsets)) : undefined;
  // An empty list (every named tool belongs to another server, see forServer) keeps no tool.
  const named = rule.tools ? new Set(rule.tools.map((name) => resolveToolName(server, name))) : undefined;
  if (toolsets || named) tools = tools.filter((tool) => toolsets?.has(tool.toolset) || named?.has(tool.name));
  if (rule.excludeToolsets?.length) {
    const excluded = new Set(rule.excludeToolsets.map((name) => checkToolset(name, allToolsets)));
    tools = tools.filter((tool) => !excluded.has(tool.toolset));
  }
  if (rule.excludeTools?.length) {
    const excluded = new Set(rule.excludeTools.map((name) => resolveToolName(server, name)));
    tools = tools.filter((tool) => !excluded.has(tool.name));
  }
  return tools;
}

function checkToolset(name: string, all: string[]): string {
  const wanted = name.trim().toLowerCase();
  if (all.includes(wanted)) return wanted;
  throw new SelectionError(unknown('toolset', name, [ALL_TOOLSETS, ...all]));
}

/** A tool's contract name from any spelling: contract, underscore, or without the server prefix. */
export function resolveToolName(server: SelectableServer, name: string): string {
  const wanted = name.trim();
  for (const tool of server.tools) {
    if (namesTool(wanted, tool.name)) return tool.name;
  }
  // The nearest name is suggested the way this one was written (with the prefix or without).
  const nearest = nearestTool(wanted, server.tools.map((tool) => tool.name), server.name);
  const suggestion = nearest === undefined ? undefined : styledName(nearest, styleOf(wanted, server.name));
  throw new SelectionError(unknown('tool', name, server.tools.map((tool) => tool.name), suggestion));
}

/**
 * One server's part of a selection made for several (`toolservers serve --tools WhoAmI`,
 * `--toolsets boards`): each server keeps the tools and toolsets it has (`all` is every server's),
 * and a name no server has is refused with the nearest of all. A server left with no name keeps no
 * tool of that kind: `serve --toolsets boards` gives IncidentOps nothing (docs/cli.md).
 */
export function forServer(selection: ToolSelection, server: SelectableServer, servers: readonly SelectableServer[]): ToolSelection {
  if (servers.length < 2 || (!selection.tools && !selection.excludeTools && !selection.toolsets)) return selection;
  const has = (candidate: SelectableServer, name: string) => candidate.tools.some((tool) => namesTool(name.trim(), tool.name));
  const own = (names: readonly string[]) =>
    names.filter((name) => {
      if (has(server, name)) return true;
      if (servers.some((other) => has(other, name))) return false;
      const nearest = servers.flatMap((other) => {
        const tool = nearestTool(name.trim(), other.tools.map((t) => t.name), other.name);
        return tool ? [`"${styledName(tool, styleOf(name.trim(), other.name))}"`] : [];
      });
      throw new SelectionError(`Unknown tool "${name.trim()}"${nearest.length ? ` (did you mean ${nearest.join(' or ')}?)` : ''}: run \`toolservers tools\` to see them.`);
    });
  const toolsetsOfServer = (candidate: SelectableServer) => toolsetsOf(candidate.tools);
  const ownToolsets = (names: readonly string[]) =>
    names.filter((name) => {
      const wanted = name.trim().toLowerCase();
      if (wanted === ALL_TOOLSETS || toolsetsOfServer(server).includes(wanted)) return true;
      if (servers.some((other) => toolsetsOfServer(other).includes(wanted))) return false;
      throw new SelectionError(unknown('toolset', name, [ALL_TOOLSETS, ...new Set(servers.flatMap(toolsetsOfServer))]));
    });
  return {
    ...selection,
    ...(selection.toolsets ? { toolsets: ownToolsets(selection.toolsets) } : {}),
    ...(selection.tools ? { tools: own(selection.tools) } : {}),
    ...(selection.excludeTools ? { excludeTools: own(selection.excludeTools) } : {}),
  };
}

function unknown(what: string, name: string, allowed: readonly string[], suggestion = closest(name, allowed)): string {
  const list = allowed.length > 20 ? `run \`toolservers tools\` to see them` : `one of ${allowed.join(', ')}`;
  return `Unknown ${what} "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}: ${list}.`;
}

/** Splits a comma list from a flag, an environment variable, a header or a query parameter. */
export function commaList(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (typeof value === 'string' ? [value] : value).flatMap((part) => part.split(',')).map((part) => part.trim()).filter(Boolean);
  return parts.length ? parts : undefined;
}

export function parseBoolean(value: string | undefined, source: string): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new SelectionError(`${source} must be true or false (got ${JSON.stringify(value)}).`);
}
