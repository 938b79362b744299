/**
 * Tool-name styles. The contract's names carry a dot (`IncidentOps.WhoAmI`); Claude Desktop,
 * claude.ai, the Anthropic, OpenAI and Bedrock APIs accept only `^[a-zA-Z0-9_-]{1,64}$` and
 * refuse a server whose names break it, so the underscore style (`IncidentOps_WhoAmI`) exists.
 * A call by either spelling reaches the same tool in either style.
 */

export const NAME_STYLES = ['contract', 'underscore'] as const;
export type NameStyle = (typeof NAME_STYLES)[number];

export function styledName(contractName: string, style: NameStyle): string {
  return style === 'underscore' ? contractName.replace(/\./g, '_') : contractName;
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
