/**
 * Reads the YAML that compose.yaml is written in, for tests (no YAML parser is among the
 * dependencies): block mappings and sequences by indentation, full-line comments, plain scalars,
 * double-quoted scalars and flow sequences written as JSON. Anything else (anchors, multi-line
 * strings, inline comments, flow mappings) is refused with the line, never guessed at.
 */
export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  indent: number;
  text: string;
  number: number;
}

export function parseYamlSubset(source: string): YamlValue {
  const lines: Line[] = [];
  source.split('\n').forEach((raw, index) => {
    if (raw.includes('\t')) throw new Error(`line ${index + 1}: tabs are not YAML indentation`);
    const text = raw.trimEnd();
    if (text.trim() === '' || text.trim().startsWith('#')) return;
    lines.push({ indent: text.length - text.trimStart().length, text: text.trim(), number: index + 1 });
  });
  let position = 0;

  function scalar(text: string, line: Line): YamlValue {
    if (text.startsWith('"') || text.startsWith('[')) {
      try {
        return JSON.parse(text) as YamlValue;
      } catch {
        throw new Error(`line ${line.number}: only JSON-style quoted strings and flow sequences are supported: ${text}`);
      }
    }
    if (/^['{&*|>!]/.test(text) || / #/.test(text)) throw new Error(`line ${line.number}: unsupported YAML: ${text}`);
    if (/^-?\d+$/.test(text)) return Number(text);
    if (text === 'true' || text === 'false') return text === 'true';
    if (text === 'null' || text === '~') return null;
    return text;
  }

  function block(indent: number): YamlValue {
    const first = lines[position];
    if (!first || first.indent !== indent) throw new Error(`line ${first?.number ?? 'end'}: expected indentation ${indent}`);
    if (first.text === '-' || first.text.startsWith('- ')) {
      const items: YamlValue[] = [];
      while (lines[position]?.indent === indent && lines[position]!.text.startsWith('-')) {
        const line = lines[position++]!;
        const rest = line.text.slice(1).trim();
        if (rest === '' || /^[^"[]*:( |$)/.test(rest)) throw new Error(`line ${line.number}: only scalar sequence items are supported`);
        items.push(scalar(rest, line));
      }
      return items;
    }
    const map: Record<string, YamlValue> = {};
    while (lines[position]?.indent === indent) {
      const line = lines[position++]!;
      const match = /^([A-Za-z0-9_.-]+):(?: (.*))?$/.exec(line.text);
      if (!match) throw new Error(`line ${line.number}: expected "key: value": ${line.text}`);
      const [, key, rest] = match as unknown as [string, string, string | undefined];
      if (key in map) throw new Error(`line ${line.number}: duplicate key ${key}`);
      if (rest !== undefined && rest.trim() !== '') map[key] = scalar(rest.trim(), line);
      else {
        const next = lines[position];
        map[key] = next && next.indent > indent ? block(next.indent) : null;
      }
    }
    const stray = lines[position];
    if (stray && stray.indent > indent) throw new Error(`line ${stray.number}: unexpected indentation`);
    return map;
  }

  const result = lines.length === 0 ? null : block(lines[0]!.indent);
  if (position < lines.length) throw new Error(`line ${lines[position]!.number}: unexpected content`);
  return result;
}
