/**
 * Reads the tool contracts (seed documents) into comparable data: tool names, parameter
 * names, required flags and defaults. Parsing is deliberately tolerant of the prose around them.
 */

export interface SeedParameter {
  name: string;
  required: boolean;
  /** Default as written in the seed ("10", "true"), when one is stated. */
  default?: string;
  /** Declared type ("string", "integer", "string[]", ...), when the seed format states one. */
  type?: string;
}

export interface SeedTool {
  name: string;
  parameters: SeedParameter[];
  /** CanvasApi: the tool is marked (M) (takes `mode` and a stringified `request_body`). */
  twoMode?: boolean;
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

/** Maps a seed type word ("string", "array[string]", "all string") to the catalogue's type names. */
function canvasSeedType(spec: string): string | undefined {
  const word = /^\s*(?:all\s+)?([a-z]+(?:\[[a-z]+\])?)/.exec(spec)?.[1];
  if (!word) return undefined;
  return word === 'array[string]' ? 'string[]' : word;
}

/**
 * The CanvasApi seed: a bullet per tool, `- \`CanvasApi.X\` (M): ...parameters...`. Forms handled:
 * - `no parameters`;
 * - `name (type, required|optional[; note])`, and grouped names sharing one spec:
 *   "\`organization_id\`, \`project_name\`, \`team_id\` (all string, required)";
 * - "all optional strings: \`a\`, \`b\`" (every name an optional string);
 * - "all optional: \`a\` (string); \`b\` (string; note)" (every name optional, typed per name);
 * - two-mode tools (M), whose parameters may be listed bare (\`mode\`; \`board_identifier\`; \`request_body\`):
 *   `mode` is required, every other parameter optional (required only when executing), all strings.
 * Prose before the parameters ("invites members.") and after them ("; board goes to the Trash.") is ignored.
 */
export function parseCanvasApiSeed(seed: string): SeedTool[] {
  const tools: SeedTool[] = [];
  for (const line of seed.split('\n')) {
    const head = /^- `(CanvasApi\.[A-Za-z]+)`( \(M\))?:\s*(.*)$/.exec(line.trim());
    if (!head) continue;
    const name = head[1] as string;
    const twoMode = Boolean(head[2]);
    const rest = head[3] ?? '';
    let parameters: SeedParameter[] = [];
    if (/^no parameters\b/.test(rest)) {
      parameters = [];
    } else if (twoMode) {
      // Every backticked name outside parentheses, in order.
      const outside = rest.replace(/\([^)]*\)/g, '');
      for (const m of outside.matchAll(/`([a-z_][a-z0-9_]*)`/g)) {
        const param = m[1] as string;
        parameters.push({ name: param, required: param === 'mode', type: 'string' });
      }
    } else {
      const optionalStrings = /all optional strings:\s*(.*)$/.exec(rest);
      if (optionalStrings) {
        const list = (optionalStrings[1] ?? '').replace(/\([^)]*\)/g, '');
        for (const m of list.matchAll(/`([a-z_][a-z0-9_]*)`/g)) {
          parameters.push({ name: m[1] as string, required: false, type: 'string' });
        }
      } else {
        const allOptional = /^all optional:/.test(rest);
        const pattern = /((?:`[a-z_][a-z0-9_]*`(?:\s*,\s*)?)+)\s*\(([^)]*)\)/g;
        for (const match of rest.matchAll(pattern)) {
          const names = [...(match[1] ?? '').matchAll(/`([a-z_][a-z0-9_]*)`/g)].map((m) => m[1] as string);
          const spec = match[2] ?? '';
          const declared = spec.split(';')[0] ?? '';
          const required = !allOptional && /\brequired\b/.test(declared) && !/\boptional\b/.test(declared);
          const defaultMatch = /default\s+([^,;)\s]+)/.exec(spec);
          const type = canvasSeedType(declared);
          for (const param of names) {
            parameters.push({
              name: param,
              required,
              ...(type ? { type } : {}),
              ...(defaultMatch?.[1] ? { default: defaultMatch[1] } : {}),
            });
          }
        }
      }
    }
    tools.push({ name, parameters, twoMode });
  }
  return tools;
}
