/**
 * How names and tools are chosen: by the operator (flags, TOOLSERVERS_* variables) and, over HTTP,
 * per request (path segments, query parameters, X-Toolservers-* headers). A request may pick its
 * name style and narrow the tools, and naming the task tools adds them where the operator's choice
 * keeps them unnamed (selection.ts); it never gets a tool the operator's choice left out.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { NAME_STYLES, parseNameStyle, SelectionError, type NameStyle } from './names.js';
import type { ViewOptions } from './registry.js';
import { commaList, parseBoolean, type ToolSelection } from './selection.js';

/** The choices in words, as flags, variables, query parameters and headers spell them. */
export interface ChoiceInput {
  toolNames?: string;
  profile?: string;
  toolsets?: string | readonly string[];
  tools?: string | readonly string[];
  excludeTools?: string | readonly string[];
  readOnly?: string | boolean;
}

/** Each choice's environment variable, query parameter and header. */
export const CHOICE_SOURCES: Record<keyof ChoiceInput, { env: string; query: string; header: string }> = {
  toolNames: { env: 'TOOLSERVERS_TOOL_NAMES', query: 'tool_names', header: 'x-toolservers-tool-names' },
  profile: { env: 'TOOLSERVERS_PROFILE', query: 'profile', header: 'x-toolservers-profile' },
  toolsets: { env: 'TOOLSERVERS_TOOLSETS', query: 'toolsets', header: 'x-toolservers-toolsets' },
  tools: { env: 'TOOLSERVERS_TOOLS', query: 'tools', header: 'x-toolservers-tools' },
  excludeTools: { env: 'TOOLSERVERS_EXCLUDE_TOOLS', query: 'exclude_tools', header: 'x-toolservers-exclude-tools' },
  readOnly: { env: 'TOOLSERVERS_READ_ONLY', query: 'read_only', header: 'x-toolservers-read-only' },
};

/** Flags win over environment variables. */
export function operatorChoices(flags: ChoiceInput, env: NodeJS.ProcessEnv = process.env): ViewOptions {
  const pick = <K extends keyof ChoiceInput>(key: K): ChoiceInput[K] | undefined => flags[key] ?? (env[CHOICE_SOURCES[key].env]?.trim() || undefined);
  return toViewOptions(
    {
      toolNames: pick('toolNames'),
      profile: pick('profile'),
      toolsets: pick('toolsets'),
      tools: pick('tools'),
      excludeTools: pick('excludeTools'),
      readOnly: pick('readOnly'),
    },
    (key) => (flags[key] !== undefined ? flagName(key) : CHOICE_SOURCES[key].env),
  );
}

/** The view for one HTTP request: the operator's choice, then the URL's and headers' narrowing. */
export function requestViewOptions(operator: ViewOptions, segments: readonly string[], url: string, headers: IncomingHttpHeaders): ViewOptions {
  const query = new URL(url, 'http://local').searchParams;
  const fromRequest = (key: keyof ChoiceInput): string | undefined => {
    const header = headers[CHOICE_SOURCES[key].header];
    const value = query.get(CHOICE_SOURCES[key].query) ?? (Array.isArray(header) ? header.join(',') : header);
    return value === null || value === undefined || value.trim() === '' ? undefined : value;
  };
  const input: ChoiceInput = {
    toolNames: fromRequest('toolNames'),
    profile: fromRequest('profile'),
    toolsets: fromRequest('toolsets'),
    tools: fromRequest('tools'),
    excludeTools: fromRequest('excludeTools'),
    readOnly: fromRequest('readOnly'),
  };
  // Path segments: a name style (`underscore`) or a profile (`readonly`, `everyday`, `meta`).
  const profiles: string[] = [];
  for (const segment of segments) {
    if ((NAME_STYLES as readonly string[]).includes(segment)) input.toolNames = segment;
    else profiles.push(segment);
  }
  const requested = toViewOptions(input, (key) => `the ${CHOICE_SOURCES[key].query} query parameter or ${CHOICE_SOURCES[key].header} header`);
  const selections = [...(operator.selections ?? []), ...profiles.map((profile): ToolSelection => ({ profile })), ...(requested.selections ?? [])];
  const nameStyle = requested.nameStyle ?? operator.nameStyle;
  return { ...(nameStyle ? { nameStyle } : {}), selections };
}

function toViewOptions(input: ChoiceInput, sourceOf: (key: keyof ChoiceInput) => string): ViewOptions {
  const nameStyle: NameStyle | undefined = input.toolNames ? parseNameStyle(input.toolNames, sourceOf('toolNames')) : undefined;
  const readOnly = typeof input.readOnly === 'boolean' ? input.readOnly : parseBoolean(input.readOnly, sourceOf('readOnly'));
  const selection: ToolSelection = {
    ...(input.profile ? { profile: input.profile.trim() } : {}),
    ...(commaList(input.toolsets) ? { toolsets: commaList(input.toolsets) } : {}),
    ...(commaList(input.tools) ? { tools: commaList(input.tools) } : {}),
    ...(commaList(input.excludeTools) ? { excludeTools: commaList(input.excludeTools) } : {}),
    ...(readOnly ? { readOnly } : {}),
  };
  if (input.profile !== undefined && !/^[a-z][a-z0-9-]{0,30}$/i.test(input.profile.trim())) {
    throw new SelectionError(`${sourceOf('profile')} must be a profile name such as everyday (got ${JSON.stringify(input.profile)}).`);
  }
  return { ...(nameStyle ? { nameStyle } : {}), selections: Object.keys(selection).length ? [selection] : [] };
}

function flagName(key: keyof ChoiceInput): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
