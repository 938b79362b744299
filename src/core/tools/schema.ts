import { z } from 'zod';
import { ToolError, type InputIssue } from '../errors.js';
import { closest } from './suggest.js';

export type JsonSchema = Record<string, unknown>;

/**
 * The bounds every tool argument is held to, in one place. A schema may state a tighter bound (the
 * platform's own limit, e.g. a 120-character tag title); where it states none, these apply.
 *
 * - `identifierChars`: IDs, cursors, filters, e-mail lists, times and time zones (the shared
 *   parameter builders of both servers put it on such parameters).
 * - `textChars`: free text, and any string parameter whose schema states no maximum.
 * - `items`: any array parameter whose schema states no maximum.
 * - `depth`: objects and arrays within each other, counted from a parameter's value (`{}` is 1).
 * - `entries`: object properties plus array items, over all arguments of one call.
 * - `argumentBytes`: all arguments of one call as JSON (UTF-8).
 * - `jsonTextBytes`: a parameter that carries a whole JSON document (CanvasApi's `request_body`),
 *   as text or as the object itself.
 * - `reservedKeys`: names refused as a parameter or property anywhere in the arguments: JavaScript
 *   gives them special meaning, and a JSON parser may silently drop `__proto__`.
 *
 * The generic caps are enforced, not advertised: they say nothing a model needs (see dropMeaninglessBounds).
 */
export const INPUT_LIMITS = {
  identifierChars: 1_000,
  textChars: 10_000,
  items: 1_000,
  depth: 64,
  entries: 50_000,
  argumentBytes: 2_000_000,
  jsonTextBytes: 1_000_000,
  reservedKeys: ['__proto__', 'constructor', 'prototype'] as readonly string[],
} as const;

/** Marks a bound as a generic safety cap (kept for validation, left out of listings). */
const GENERIC_CAP = 'x-generic-cap';

/** Marks the maxLength/maxItems of a schema as a generic cap: checked on every call, never advertised. */
export function genericCap<T extends z.ZodType>(schema: T): T {
  return schema.meta({ [GENERIC_CAP]: true });
}

/**
 * A string schema with the generic cap of its kind; a longer value is refused before any later
 * check (a format, a refinement) looks at it. A platform's own, tighter limit is a plain `.max()`
 * instead, which is advertised.
 */
export function cappedString(kind: 'identifier' | 'text', schema: z.ZodString = z.string()): z.ZodString {
  return genericCap(schema.max(kind === 'identifier' ? INPUT_LIMITS.identifierChars : INPUT_LIMITS.textChars, { abort: true }));
}

/** An array schema with the generic item cap. */
export function cappedArray<T extends z.ZodType>(item: T): z.ZodArray<T> {
  return genericCap(z.array(item).max(INPUT_LIMITS.items));
}

/**
 * Declares the longest string a schema that is not typed as a string (it takes other types too,
 * and checks them itself) accepts; the pre-check of parseArguments refuses a longer one.
 */
export function withStringCap<T extends z.ZodType>(schema: T, maxChars: number): T {
  return schema.meta({ maxLength: maxChars, [GENERIC_CAP]: true });
}

/**
 * Why a value cannot be one ID in a URL path, or undefined when it can. Encoded, `/`, `?`, `#` or
 * `\` would still reach another resource or none (and a 404 that says nothing), and `.` or `..`
 * would change the path itself.
 */
export function pathIdProblem(value: string): string | undefined {
  const bad = /[/?#\\]/.exec(value);
  if (bad) return `must be a single ID, and an ID never contains "${bad[0]}"; pass the ID alone, not a path or a link`;
  if (value === '.' || value === '..') return `must be an ID, not "${value}" (a dot segment would change the request path)`;
  return undefined;
}

/** A string schema for an ID that goes into a request path: refused here, before any request of the call, when it cannot be one (pathIdProblem). */
export function pathId<T extends z.ZodType<string>>(schema: T): T {
  return schema.superRefine((value, ctx) => {
    const problem = pathIdProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `${problem} (got ${previewValue(value)})` });
  }) as unknown as T;
}

/** 2^63 - 1: the largest int64. */
const INT64_MAX = 9_223_372_036_854_775_807n;
const INT64_TEXT = /^\s*\d{1,19}\s*$/;
const INT64_EXAMPLE = '"3000457366756290996"';

/**
 * An int64 ID (such as a data-classification label ID): digit text, or a JSON number up to 2^53.
 * A larger JSON number has lost its last digits before any code here sees it, so it is refused
 * with advice to pass text. The value passed on is a bigint, which the upstream client writes
 * into the request body as an exact JSON number (json.ts jsonText).
 */
export function int64Id(): z.ZodType<bigint, unknown> {
  return withStringCap(z.unknown(), 21).transform((value, ctx) => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (typeof value === 'string' && INT64_TEXT.test(value) && BigInt(value.trim()) <= INT64_MAX) return BigInt(value.trim());
    const message =
      typeof value === 'number' && Number.isInteger(value) && value > 0
        ? `is past 2^53, where a JSON number loses its last digits before it reaches this server (got ${value}); pass the ID as text, e.g. ${INT64_EXAMPLE}`
        : `must be a numeric ID (at most 19 digits) as text, e.g. ${INT64_EXAMPLE} (got ${previewValue(value)})`;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

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
 * Removes what costs context and says nothing: bounds of +-(2^53-1) (zod's "any safe integer"),
 * `minLength: 1` on strings (every string parameter must be non-empty; the error says so) and the
 * generic caps of INPUT_LIMITS (marked by cappedString/cappedArray/withStringCap). Validation
 * still uses the zod schema, so nothing is loosened.
 */
export function dropMeaninglessBounds(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  const generic = schema[GENERIC_CAP] === true;
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'maximum' || key === 'minimum') && typeof value === 'number' && Math.abs(value) === Number.MAX_SAFE_INTEGER) continue;
    if (key === 'minLength' && value === 1 && schema.type === 'string') continue;
    if (key === GENERIC_CAP || (generic && (key === 'maxLength' || key === 'maxItems'))) continue;
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

/** At most this many problems are listed in one error; the rest are counted. */
export const MAX_LISTED_ISSUES = 10;

/**
 * Parses tool arguments, turning every zod issue into a parameter-named, actionable message.
 * First, before zod sees anything, the raw arguments are held to INPUT_LIMITS (checkArgumentBounds),
 * so no check ever works on an oversized, overdeep or poisoned value.
 */
export function parseArguments<S extends z.ZodObject>(schema: S, args: unknown): z.output<S> {
  const bounds = checkArgumentBounds(schema, args);
  if (bounds.length) throw ToolError.invalidInput(limitIssues(bounds));
  const result = schema.safeParse(readAsMeant(validationSchemaOf(schema), args ?? {}), { reportInput: true });
  if (result.success) return result.data;
  throw ToolError.invalidInput(limitIssues(describeIssues(schema, result.error.issues)));
}

/** Keeps the first MAX_LISTED_ISSUES problems and says how many more there were. */
export function limitIssues(issues: InputIssue[], max = MAX_LISTED_ISSUES): InputIssue[] {
  if (issues.length <= max) return issues;
  const rest = issues.length - max;
  return [...issues.slice(0, max), { parameter: '(arguments)', problem: `${rest} more problem${rest === 1 ? '' : 's'} not listed; fix these first` }];
}

// ---------------------------------------------------------------------------------------------
// Harmless spellings, read as meant before validation (one rule for every tool of every server)
// ---------------------------------------------------------------------------------------------

/** What the server instructions say about these spellings (once, for every server). */
export const SPELLING_INSTRUCTIONS = 'An optional parameter given as null counts as not given; numbers may be given as digit text ("5").';

const INTEGER_TEXT = /^\s*-?\d{1,16}\s*$/;
const DECIMAL_TEXT = /^\s*-?\d{1,16}(\.\d{1,16})?\s*$/;

function schemaTypes(node: JsonSchema | undefined): readonly unknown[] {
  const type = node?.type;
  return Array.isArray(type) ? type : type === undefined ? [] : [type];
}

/** The number a numeric parameter's digit text means; undefined when it is not plain digits (or not exact). */
function numberFromText(node: JsonSchema | undefined, text: string): number | undefined {
  const types = schemaTypes(node);
  if (types.includes('string') || !(types.includes('integer') || types.includes('number'))) return undefined;
  const pattern = types.includes('number') ? DECIMAL_TEXT : INTEGER_TEXT;
  if (!pattern.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value)) ? value : undefined;
}

/**
 * Arguments as the caller means them, for the schema's declared parameters (and the declared
 * fields of object parameters; free-form JSON such as a request body is left as given):
 * - `null` for an optional parameter means "not given" (a required one keeps its null, and zod says it is required);
 * - digit text for an integer or number parameter is that number.
 * The listed schemas keep the contract's types; this only forgives. Returns the value itself when
 * nothing changes (no copy), and never mutates it.
 */
export function readAsMeant(node: JsonSchema, value: unknown): unknown {
  if (typeof value === 'string') return numberFromText(node, value) ?? value;
  if (Array.isArray(value)) {
    const items = node.items && typeof node.items === 'object' && !Array.isArray(node.items) ? (node.items as JsonSchema) : undefined;
    if (!items || !schemaTypes(items).some((type) => type === 'integer' || type === 'number')) return value;
    return value.map((item) => (typeof item === 'string' ? (numberFromText(items, item) ?? item) : item));
  }
  if (!isPlainObject(value)) return value;
  const objectNode = nodeFor(node, 'object');
  const properties = objectNode?.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return value;
  const required = new Set(Array.isArray(objectNode?.required) ? (objectNode.required as string[]) : []);
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const child = properties[key];
    if (!child || !Object.hasOwn(properties, key)) continue; // unknown: the schema names it
    const given = value[key];
    const meant = given === null ? (required.has(key) || schemaTypes(child).includes('null') ? null : undefined) : readAsMeant(child, given);
    if (meant === given) continue;
    out ??= { ...value };
    if (meant === undefined) delete out[key];
    else out[key] = meant;
  }
  return out ?? value;
}

// ---------------------------------------------------------------------------------------------
// The pre-check: size, depth, entries, reserved keys and string/array caps of the raw arguments
// ---------------------------------------------------------------------------------------------

const validationJson = new WeakMap<z.ZodObject, JsonSchema>();

/** The validation schema as JSON Schema (with its generic caps), computed once per schema. */
export function validationSchemaOf(schema: z.ZodObject): JsonSchema {
  let json = validationJson.get(schema);
  if (!json) {
    try {
      json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    } catch {
      json = {}; // the structural bounds still apply
    }
    validationJson.set(schema, json);
  }
  return json;
}

type JsonKind = 'string' | 'array' | 'object';

function hasType(node: JsonSchema, kind: JsonKind): boolean {
  const type = node.type;
  return type === kind || (Array.isArray(type) && type.includes(kind));
}

/** The part of a schema node that describes a value of this kind (a union's matching branch). */
function nodeFor(node: JsonSchema | undefined, kind: JsonKind): JsonSchema | undefined {
  if (!node) return undefined;
  const alternatives = node.anyOf ?? node.oneOf;
  if (Array.isArray(alternatives)) {
    const branch = (alternatives as JsonSchema[]).find((alt) => alt && typeof alt === 'object' && hasType(alt, kind));
    if (branch) return branch;
  }
  return node;
}

/**
 * The most characters a string may have here: the schema's own maximum; else, for a parameter the
 * schema types as a string, the generic text cap; else (inside free-form JSON) none of its own.
 */
export function stringCapOf(node: JsonSchema | undefined): number | undefined {
  const own = nodeFor(node, 'string');
  if (!own) return undefined;
  if (typeof own.maxLength === 'number') return own.maxLength;
  return hasType(own, 'string') ? INPUT_LIMITS.textChars : undefined;
}

/** The most items an array may have here: the schema's own maximum; else, for a parameter typed as an array, the generic cap. */
export function itemCapOf(node: JsonSchema | undefined): number | undefined {
  if (!node) return undefined;
  if (typeof node.maxItems === 'number') return node.maxItems;
  return hasType(node, 'array') ? INPUT_LIMITS.items : undefined;
}

function childNode(node: JsonSchema | undefined, key: string | number): JsonSchema | undefined {
  if (!node) return undefined;
  if (typeof key === 'number') {
    const items = node.items;
    return items && typeof items === 'object' && !Array.isArray(items) ? (items as JsonSchema) : undefined;
  }
  const properties = node.properties as Record<string, JsonSchema> | undefined;
  if (properties && Object.hasOwn(properties, key)) return properties[key];
  const extra = node.additionalProperties;
  return extra && typeof extra === 'object' ? (extra as JsonSchema) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

interface Visit {
  value: unknown;
  node: JsonSchema | undefined;
  /** Objects and arrays from the parameter's value down to this value, this one included. */
  depth: number;
  parent: Visit | undefined;
  key: string | number;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at; at = at.parent) path.push(at.key);
  return path.reverse();
}

export interface JsonBounds {
  maxDepth: number;
  maxBytes: number;
  maxEntries: number;
}

export interface JsonMeasure {
  /** The first bound broken, if any; the walk stops there. */
  exceeded?: 'depth' | 'bytes' | 'entries';
  /** Where a reserved key was found (path from the root, the key last). */
  reservedKeyAt?: (string | number)[];
  /** Bytes of JSON counted (up to the point the walk stopped). */
  bytes: number;
  entries: number;
}

/**
 * Measures a JSON-like value without recursion: stops at the first broken bound or reserved key,
 * so it costs at most the bounds, however large or deep the value is.
 */
export function measureJson(value: unknown, bounds: JsonBounds): JsonMeasure {
  const result: JsonMeasure = { bytes: 0, entries: 0 };
  const stack: Visit[] = [{ value, node: undefined, depth: 0, parent: undefined, key: '' }];
  while (stack.length) {
    const visit = stack.pop() as Visit;
    const problem = step(visit, result, bounds, stack, undefined);
    if (problem) return result;
  }
  return result;
}

/** One value of a walk: counts it, pushes its children; true when the walk must stop. */
function step(visit: Visit, result: JsonMeasure, bounds: JsonBounds, stack: Visit[], report: ((visit: Visit, problem: string) => void) | undefined): boolean {
  const { value } = visit;
  if (typeof value === 'string') {
    result.bytes += Buffer.byteLength(value) + 2;
    if (report) {
      const cap = stringCapOf(visit.node);
      if (cap !== undefined && value.length > cap && value.trim().length > cap) {
        report(visit, `must be at most ${cap} characters long (got ${value.length} characters)`);
      }
    }
  } else if (Array.isArray(value) || isPlainObject(value)) {
    const depth = visit.depth + 1;
    if (depth > bounds.maxDepth) {
      result.exceeded = 'depth';
      report?.(topLevel(visit), `is nested more than ${bounds.maxDepth} levels deep (objects and arrays within each other); at most ${bounds.maxDepth} levels are allowed`);
      return true;
    }
    result.bytes += 2;
    if (Array.isArray(value)) {
      const node = nodeFor(visit.node, 'array');
      result.entries += value.length;
      const cap = report ? itemCapOf(node) : undefined;
      if (cap !== undefined && value.length > cap) {
        report?.(visit, `must have at most ${cap} items (got ${value.length})`);
      } else if (result.entries <= bounds.maxEntries) {
        for (let i = value.length - 1; i >= 0; i -= 1) stack.push({ value: value[i], node: childNode(node, i), depth, parent: visit, key: i });
      }
    } else {
      const node = nodeFor(visit.node, 'object');
      const keys = Object.keys(value);
      result.entries += keys.length;
      if (result.entries <= bounds.maxEntries) {
        for (let i = keys.length - 1; i >= 0; i -= 1) {
          const key = keys[i] as string;
          const child: Visit = { value: value[key], node: childNode(node, key), depth, parent: visit, key };
          if (INPUT_LIMITS.reservedKeys.includes(key)) {
            result.reservedKeyAt = pathOf(child);
            const properties = node && node.properties && typeof node.properties === 'object' ? Object.keys(node.properties) : [];
            report?.(child, `unknown property "${key}" (a reserved name, refused anywhere in the arguments)${properties.length ? `; allowed properties: ${properties.join(', ')}` : ''}`);
            if (!report) return true;
            continue;
          }
          result.bytes += Buffer.byteLength(key) + 3;
          if (report && key.length > INPUT_LIMITS.identifierChars) {
            report(visit, `has a property name of ${key.length} characters; at most ${INPUT_LIMITS.identifierChars} are allowed`);
            continue;
          }
          stack.push(child);
        }
      }
    }
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    result.bytes += String(value).length;
  } else {
    result.bytes += 5; // true, false, null
  }
  if (result.entries > bounds.maxEntries) {
    result.exceeded = 'entries';
    report?.(topLevel(visit), `holds more than ${bounds.maxEntries} values (object properties and array items); at most ${bounds.maxEntries} are allowed in one call`);
    return true;
  }
  if (result.bytes > bounds.maxBytes) {
    result.exceeded = 'bytes';
    report?.(topLevel(visit), `makes the arguments larger than ${bounds.maxBytes} bytes of JSON (counted ${result.bytes} when stopping); at most ${bounds.maxBytes} are allowed in one call`);
    return true;
  }
  return false;
}

/** The visit of the parameter a value belongs to (bounds on the whole are reported there). */
function topLevel(visit: Visit): Visit {
  let at = visit;
  while (at.parent && at.parent.parent) at = at.parent;
  return at;
}

/**
 * The pre-check of parseArguments: the raw arguments against INPUT_LIMITS and the schema's own
 * string and array maximums, without recursion and without looking past the first broken bound.
 * Reserved keys are unknown parameters (or properties) wherever they are. Unknown parameters are
 * left to the schema, which lists them with the allowed ones.
 */
export function checkArgumentBounds(schema: z.ZodObject, args: unknown): InputIssue[] {
  if (!isPlainObject(args)) return [];
  const issues: InputIssue[] = [];
  const json = validationSchemaOf(schema);
  const shape = schema.shape as Record<string, unknown>;
  const allowed = Object.keys(shape);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const root: Visit = { value: args, node: undefined, depth: 0, parent: undefined, key: '' };
  const stack: Visit[] = [];
  for (const key of Object.keys(args).reverse()) {
    if (INPUT_LIMITS.reservedKeys.includes(key)) {
      issues.push({ parameter: key, problem: `unknown parameter (a reserved name); allowed parameters: ${allowed.length ? allowed.join(', ') : 'none'}` });
    } else if (Object.hasOwn(shape, key)) {
      stack.push({ value: args[key], node: properties[key] ?? {}, depth: 0, parent: root, key });
    }
  }
  const result: JsonMeasure = { bytes: 2, entries: 0 };
  const bounds: JsonBounds = { maxDepth: INPUT_LIMITS.depth, maxBytes: INPUT_LIMITS.argumentBytes, maxEntries: INPUT_LIMITS.entries };
  const report = (visit: Visit, problem: string) => issues.push({ parameter: formatPath(pathOf(visit).slice(1)), problem });
  while (stack.length) {
    const visit = stack.pop() as Visit;
    if (step(visit, result, bounds, stack, report)) break;
  }
  return issues;
}

export function describeIssues(schema: z.ZodObject, issues: readonly z.core.$ZodIssue[]): InputIssue[] {
  const allowed = Object.keys(schema.shape);
  const out: InputIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        // A name far longer than any parameter's is no typo (and its edit distance would cost time).
        const suggestion = key.length <= 100 ? closestName(key, allowed) : undefined;
        out.push({
          parameter: formatPath([key]),
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
      if (issue.input === null) return `must not be null${typeof issue.path.at(-1) === 'string' ? ' (it is required; leave out only optional parameters)' : ''}: expected ${article(issue.expected)}`;
      return `expected ${article(issue.expected)}${got}`;
    case 'too_big': {
      const bound = String(issue.maximum);
      if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${bound} items${got}`;
      if (issue.origin === 'string') return `must be at most ${bound} characters long${typeof issue.input === 'string' ? ` (got ${issue.input.length} characters)` : ''}`;
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

/** `a.b[2].c`; a name longer than 60 characters is shortened (a path never echoes a huge key). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const name = String(key);
      const shown = name.length > 60 ? `${name.slice(0, 57)}...` : name;
      out += out ? `.${shown}` : shown;
    }
  }
  return out;
}

function article(type: string): string {
  if (type === 'int') type = 'integer';
  return /^[aeiou]/i.test(type) ? `an ${type}` : `a ${type}`;
}

function preview(value: unknown): string {
  return previewValue(value);
}

/**
 * A short JSON preview of any value for an error message: at most `max` characters (cut with
 * "..."), built without recursion and without serialising more than it shows, so a huge or deeply
 * nested value costs nothing and is never echoed back.
 */
export function previewValue(value: unknown, max = 60): string {
  if (value === undefined) return 'nothing';
  const text = boundedJson(value, max + 1);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

type Token = { text: string } | { value: unknown };

function boundedJson(value: unknown, limit: number): string {
  let out = '';
  const stack: Token[] = [{ value }];
  while (stack.length && out.length <= limit) {
    const token = stack.pop() as Token;
    if ('text' in token) {
      out += token.text;
      continue;
    }
    let v = token.value;
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      try {
        v = (v as { toJSON: () => unknown }).toJSON();
      } catch {
        v = String(v);
      }
    }
    if (typeof v === 'string') out += JSON.stringify(v.length > limit ? v.slice(0, limit) : v);
    else if (typeof v === 'number') out += Number.isFinite(v) ? String(v) : 'null';
    else if (typeof v === 'boolean' || typeof v === 'bigint') out += String(v);
    else if (v === null) out += 'null';
    else if (Array.isArray(v)) {
      const shown = v.slice(0, limit);
      stack.push({ text: v.length > shown.length ? ',...]' : ']' });
      for (let i = shown.length - 1; i >= 0; i -= 1) {
        stack.push({ value: shown[i] });
        if (i > 0) stack.push({ text: ',' });
      }
      out += '[';
    } else if (typeof v === 'object') {
      const keys = Object.keys(v).slice(0, limit);
      stack.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        stack.push({ value: (v as Record<string, unknown>)[key] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key.length > limit ? key.slice(0, limit) : key)}:` });
      }
      out += '{';
    } else out += String(v);
  }
  return out;
}

/** The allowed parameter name nearest to a mistyped one, if any is reasonably close. */
function closestName(name: string, allowed: readonly string[]): string | undefined {
  const prefix = allowed.find((candidate) => candidate.startsWith(name) || name.startsWith(candidate));
  return prefix ?? closest(name, allowed);
}
