import Fuse from 'fuse.js';
import { z } from 'zod';
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { ToolError, type InputIssue } from './errors.js';

export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema advertised for a tool's arguments: flat (no $ref/$defs, no top-level
 * combinators), additionalProperties false, defaults visible.
 */
export function toInputJsonSchema(input: z.ZodObject): JsonSchema {
  const json = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** JSON Schema of a tool's structured output. */
export function toOutputJsonSchema(output: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(output, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * Wraps a precomputed JSON Schema for the SDK. Validation is a pass-through on purpose:
 * the registry validates with zod itself so that every input error has our shape and wording.
 */
export function advertisedSchema(json: JsonSchema): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'toolservers',
      validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * The output schema for the SDK: real zod validation of `structuredContent`, with the JSON Schema
 * computed once (a stateless HTTP server builds a server per request and would convert it each time).
 */
export function validatedOutputSchema(output: z.ZodType, json: JsonSchema): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'toolservers',
      validate: (value: unknown) => {
        const result = output.safeParse(value);
        return result.success
          ? { value: result.data as Record<string, unknown> }
          : { issues: result.error.issues.map((issue) => ({ message: issue.message, path: issue.path })) };
      },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
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
  if (prefix) return prefix;
  return new Fuse(allowed, { threshold: 0.4, ignoreLocation: true }).search(name)[0]?.item;
}
