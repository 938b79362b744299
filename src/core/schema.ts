import { z } from 'zod';
import { ToolError, type InputIssue } from './errors.js';
import { closest } from './suggest.js';

export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema advertised for a tool's arguments: flat (no $ref/$defs, no top-level
 * combinators), additionalProperties false, defaults visible.
 */
export function toInputJsonSchema(input: z.ZodObject): JsonSchema {
  const json = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return dropMeaninglessBounds(json);
}

/**
 * Removes what costs context and says nothing: bounds of +-(2^53-1) (zod's "any safe integer") and
 * `minLength: 1` on strings (every string parameter must be non-empty; the error says so). Validation
 * still uses the zod schema, so nothing is loosened.
 */
export function dropMeaninglessBounds(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'maximum' || key === 'minimum') && typeof value === 'number' && Math.abs(value) === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minLength' && value === 1 && schema.type === 'string') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, child]) => [name, dropMeaninglessBounds(child)]));
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = dropMeaninglessBounds(value as JsonSchema);
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = value.map((child) => (child && typeof child === 'object' ? dropMeaninglessBounds(child as JsonSchema) : child));
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** JSON Schema of a tool's structured output. */
export function toOutputJsonSchema(output: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(output, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  // Results may grow fields (a budget note, platform additions): say only what is there.
  return JSON.parse(JSON.stringify(dropMeaninglessBounds(json)), (key, value: unknown) =>
    key === 'additionalProperties' && (value === false || (typeof value === 'object' && value !== null && Object.keys(value).length === 0)) ? undefined : value,
  ) as JsonSchema;
}

/** Whether an output schema says anything (an object with no declared properties does not). */
export function outputSchemaSaysSomething(json: JsonSchema): boolean {
  return json.type !== 'object' || Object.keys((json.properties as object | undefined) ?? {}).length > 0;
}

/** Parses tool arguments, turning every zod issue into a parameter-named, actionable message. */
export function parseArguments<S extends z.ZodObject>(schema: S, args: unknown): z.output<S> {
  const result = schema.safeParse(args ?? {}, { reportInput: true });
  if (result.success) return result.data;
  throw ToolError.invalidInput(describeIssues(schema, result.error.issues));
}

export function describeIssues(schema: z.ZodObject, issues: readonly z.core.$ZodIssue[]): InputIssue[] {
  const allowed = Object.keys(schema.shape);
  const out: InputIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const suggestion = closestName(key, allowed);
        out.push({
          parameter: key,
          problem:
            `unknown parameter${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; ` +
            `allowed parameters: ${allowed.length ? allowed.join(', ') : 'none'}`,
        });
      }
      continue;
    }
    out.push({ parameter: formatPath(issue.path) || '(arguments)', problem: describeIssue(issue) });
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const got = 'input' in issue ? ` (got ${preview(issue.input)})` : '';
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `is required (expected ${article(issue.expected)})`;
      return `expected ${article(issue.expected)}${got}`;
    case 'too_big': {
      const bound = String(issue.maximum);
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${bound} items${got}`;
      if (issue.origin === 'string') return `must be at most ${bound} characters long`;
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${bound}${got}`;
    }
    case 'too_small': {
      const bound = String(issue.minimum);
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at least ${bound} item${bound === '1' ? '' : 's'}${got}`;
      if (issue.origin === 'string') return bound === '1' ? 'must not be empty' : `must be at least ${bound} characters long`;
      return `must be ${issue.inclusive === false ? 'greater than' : 'at least'} ${bound}${got}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${got}`;
    case 'invalid_format':
      return `${issue.message}${got}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}${got}`;
    default:
      return issue.message;
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

function article(type: string): string {
  if (type === 'int') type = 'integer';
  return /^[aeiou]/i.test(type) ? `an ${type}` : `a ${type}`;
}

function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The allowed parameter name nearest to a mistyped one, if any is reasonably close. */
function closestName(name: string, allowed: readonly string[]): string | undefined {
  const prefix = allowed.find((candidate) => candidate.startsWith(name) || name.startsWith(candidate));
  return prefix ?? closest(name, allowed);
}
