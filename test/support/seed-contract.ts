/**
 * Reads the tool contracts (seed documents) into comparable data: tool names, parameter
 * names, required flags and defaults. Parsing is deliberately tolerant of the prose around them.
 */

export interface SeedParameter {
  name: string;
  required: boolean;
  /** Default as written in the seed ("10", "true"), when one is stated. */
  default?: string;
}

export interface SeedTool {
  name: string;
  parameters: SeedParameter[];
}

/** Parses a parameter list like "`since`, `until` (string, optional); `limit` (integer, optional, 1-50, default 10)". */
export function parseParameterList(text: string): SeedParameter[] {
  const out: SeedParameter[] = [];
  // A group of backticked names followed by a parenthesised spec.
  const pattern = /((?:`[a-z_][a-z0-9_]*`(?:\s*,\s*)?)+)\s*\(([^)]*)\)/g;
  for (const match of text.matchAll(pattern)) {
    const names = [...(match[1] ?? '').matchAll(/`([a-z_][a-z0-9_]*)`/g)].map((m) => m[1] as string);
    const spec = match[2] ?? '';
    const required = /\brequired\b/.test(spec) && !/\boptional\b/.test(spec);
    const defaultMatch = /default\s+([^,;)\s]+)/.exec(spec);
    for (const name of names) {
      out.push({ name, required, ...(defaultMatch?.[1] ? { default: defaultMatch[1] } : {}) });
    }
  }
  return out;
}

/** The IncidentOps seed: a Markdown table with one row per tool. */
export function parseIncidentOpsSeed(seed: string): SeedTool[] {
  const tools: SeedTool[] = [];
  for (const line of seed.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(IncidentOps\.[A-Za-z]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!name) continue;
    const params = cells[3] ?? '';
    tools.push({ name, parameters: params === 'none' ? [] : parseParameterList(params) });
  }
  return tools;
}
