/**
 * Tool-name styles. The contract's names carry a dot (`IncidentOps.WhoAmI`); Claude Desktop,
 * claude.ai, the Anthropic, OpenAI and Bedrock APIs accept only `^[a-zA-Z0-9_-]{1,64}$` and
 * refuse a server whose names break it, so the underscore style (`IncidentOps_WhoAmI`) exists.
 * Clients that prefix every name with the server's own (`mcp__incidentops__…`) get the short style
 * (`WhoAmI`), which does not say the server's name twice and keeps within 64 characters.
 * A call by any spelling reaches the same tool in any style.
 */
import { closest } from './suggest.js';

export const NAME_STYLES = ['contract', 'underscore', 'short'] as const;
export type NameStyle = (typeof NAME_STYLES)[number];

export function styledName(contractName: string, style: NameStyle): string {
  if (style === 'underscore') return contractName.replace(/\./g, '_');
  if (style === 'short') return contractName.slice(contractName.indexOf('.') + 1);
  return contractName;
}

/** Whether `name` is one of the spellings of the tool `contractName`. */
export function namesTool(name: string, contractName: string): boolean {
  return NAME_STYLES.some((style) => styledName(contractName, style) === name);
}

/** The style a name is written in, for a server named `serverName`. */
export function styleOf(name: string, serverName: string): NameStyle {
  const prefix = name.slice(0, serverName.length + 1).toLowerCase();
  if (prefix === `${serverName.toLowerCase()}.`) return 'contract';
  if (prefix === `${serverName.toLowerCase()}_`) return 'underscore';
  return 'short';
}

/**
 * The contract name of a server's tool nearest to a mistyped name in any style. Compared without
 * the prefix, so that `AddStickyNote` finds `AddStickyNoteToBoard` although the full names are far apart.
 */
export function nearestTool(name: string, contractNames: readonly string[], serverName: string): string | undefined {
  const typed = styleOf(name, serverName) === 'short' ? name : name.slice(serverName.length + 1);
  const shortNames = contractNames.map((contractName) => styledName(contractName, 'short'));
  // A name that is the start of a tool's (AddStickyNote, AddStickyNoteToBoard) is nearer than any edit distance says.
  const wanted = typed.toLowerCase();
  const extended = wanted.length >= 4 ? shortNames.filter((candidate) => candidate.toLowerCase().startsWith(wanted)).sort((a, b) => a.length - b.length)[0] : undefined;
  const match = extended ?? closest(typed, shortNames);
  return match === undefined ? undefined : `${serverName}.${match}`;
}

export function parseNameStyle(value: string, source: string): NameStyle {
  const style = value.trim().toLowerCase();
  if ((NAME_STYLES as readonly string[]).includes(style)) return style as NameStyle;
  throw new SelectionError(`${source} must be one of ${NAME_STYLES.join(', ')} (got ${JSON.stringify(value)}).`);
}

/** A tool selection or naming choice that cannot be served (unknown profile, toolset or tool). */
export class SelectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectionError';
  }
}
