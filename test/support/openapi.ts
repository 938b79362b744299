/**
 * A small, generic OpenAPI 3.0 checker for tests, built on Ajv.
 *
 * It answers three questions about a spec document:
 *  - which operation serves `METHOD /raw/path` (templated paths, literal segments preferred);
 *  - does a response body match the schema declared for that status;
 *  - does a request (query pairs, headers, JSON body) match the declared parameters.
 *
 * How the spec is fed to Ajv: the document is deep-cloned and normalised (see `normalise`),
 * every internal `$ref: "#/..."` is rewritten to `<docId>#/...`, and the whole document is
 * registered with Ajv under `<docId>`. Any schema inside it can then be compiled as
 * `{ $ref: "<docId>#<json pointer>" }`; Ajv walks the pointer through the document, so refs into
 * odd places (e.g. `#/components/responses/Conflict/content/application~1json/schema`) work too.
 *
 * OpenAPI 3.0 vs Ajv (draft-07) differences handled here:
 *  - `nullable: true` is understood by Ajv natively when `type` is present; when a schema has
 *    `nullable` but no `type` (Ajv refuses to compile that) it is rewritten to `anyOf [schema, null]`.
 *  - draft-04 style boolean `exclusiveMinimum`/`exclusiveMaximum` are converted to numbers.
 *  - `discriminator`, `example`, `xml`, `x-*` and similar annotations are ignored (`strict: false`;
 *    Ajv's own discriminator support is not enabled because real specs rarely satisfy its rules).
 *  - formats: ajv-formats is installed; formats the spec uses that Ajv does not know (e.g.
 *    `tzinfo`, `activesupport-time-zone`, `TEXTAREA`) are registered as annotations (always valid).
 *    `url` is replaced by a WHATWG URL parse check: ajv-formats' `url` regex rejects loopback and
 *    private-network hosts, which would reject every link produced by a local sandbox.
 */
import _Ajv from 'ajv';
import type { ValidateFunction, ErrorObject } from 'ajv';
import _addFormats from 'ajv-formats';

// ajv and ajv-formats are CommonJS modules whose real export is also exposed as `.default`.
const Ajv = _Ajv.default;
const addFormats = _addFormats.default;
type AjvInstance = InstanceType<typeof Ajv>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };


export interface OpenApiParameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  style?: string;
  explode?: boolean;
  schema?: JsonObject;
  /** JSON pointer of this parameter object inside the document (after $ref resolution). */
  pointer: string;
}

export interface OpenApiOperation {
  method: string; // lower-case
  pathTemplate: string; // as written in `paths`, e.g. /incidents/{id}
  operationId?: string;
  pathParams: Record<string, string>; // decoded values taken from the raw path
  parameters: OpenApiParameter[]; // path-level merged with operation-level, refs resolved
  /** JSON pointer of the operation object, e.g. /paths/~1incidents~1{id}/get */
  pointer: string;
  operation: JsonObject;
}

export interface RequestToValidate {
  method: string;
  path: string; // raw path (may be percent-encoded; a `?query` suffix is ignored)
  query?: [string, string][];
  headers?: Record<string, string | undefined>;
  body?: unknown;
}

export interface OpenApiValidator {
  /** The normalised document (read-only use). */
  readonly document: JsonObject;
  findOperation(method: string, rawPath: string): OpenApiOperation | undefined;
  /** Errors (empty = valid) for a response body against the schema declared for `status`. */
  validateResponse(method: string, rawPath: string, status: number, body: unknown): string[];
  /** Errors (empty = valid) for a request against the operation's declared parameters and body. */
  validateRequest(request: RequestToValidate): string[];
  /** Validate any value against the schema at a JSON pointer of the document (e.g. /components/schemas/User). */
  validateSchemaAt(pointer: string, value: unknown): string[];
}

export interface LoadOpenApiOptions {
  /** Identifier used for the document inside Ajv (unique per validator). */
  documentId?: string;
}

let documentCounter = 0;

/** Build a validator for an OpenAPI 3.0 document (the parsed JSON). The input is not modified. */
export function loadOpenApi(spec: unknown, options: LoadOpenApiOptions = {}): OpenApiValidator {
  if (!isObject(spec) || !isObject(spec.paths)) throw new Error('loadOpenApi: not an OpenAPI document (no `paths`)');
  documentCounter += 1;
  const docId = options.documentId ?? `openapi-doc-${documentCounter}`;
  const document = normalise(structuredClone(spec) as JsonObject, docId);

  const ajv: AjvInstance = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('url', { type: 'string', validate: isAbsoluteUrl });
  for (const format of collectFormats(document)) {
    if (!(format in ajv.formats)) ajv.addFormat(format, true);
  }
  ajv.addSchema(document as object, docId);

  const compiled = new Map<string, ValidateFunction | Error>();
  const validatorAt = (pointer: string): ValidateFunction | Error => {
    let v = compiled.get(pointer);
    if (!v) {
      try {
        v = ajv.compile({ $ref: `${docId}#${encodePointerForUri(pointer)}` });
      } catch (err) {
        v = err instanceof Error ? err : new Error(String(err));
      }
      compiled.set(pointer, v);
    }
    return v;
  };
  const validateAt = (pointer: string, value: unknown, label: string): string[] => {
    const v = validatorAt(pointer);
    if (v instanceof Error) return [`${label}: schema at ${pointer} does not compile: ${v.message}`];
    return v(value) ? [] : formatAjvErrors(v.errors ?? [], label);
  };

  const paths = document.paths as JsonObject;
  const templates = Object.keys(paths).map((template) => ({ template, segments: splitPath(template) }));

  const findOperation = (method: string, rawPath: string): OpenApiOperation | undefined => {
    const m = method.toLowerCase();
    const pathOnly = rawPath.split('?')[0] ?? '';
    const segments = splitPath(pathOnly);
    let best: { template: string; literal: number; params: Record<string, string> } | undefined;
    for (const { template, segments: tSegs } of templates) {
      if (tSegs.length !== segments.length) continue;
      const item = paths[template];
      if (!isObject(item) || !isObject(item[m])) continue;
      const params: Record<string, string> = {};
      let literal = 0;
      let ok = true;
      for (let i = 0; i < tSegs.length && ok; i++) {
        const t = tSegs[i] as string;
        const raw = segments[i] as string;
        const decoded = safeDecode(raw);
        const whole = /^\{([^{}]+)\}$/.exec(t);
        if (whole) {
          if (decoded === '') ok = false;
          else params[whole[1] as string] = decoded;
        } else if (t.includes('{')) {
          // Segment mixing text and templates, e.g. /files/{name}.{ext}
          const names: string[] = [];
          const re = new RegExp(
            '^' + t.replace(/\{([^{}]+)\}|[^{}]+/g, (part, name?: string) => {
              if (name) {
                names.push(name);
                return '([^/]+?)';
              }
              return escapeRegExp(part);
            }) + '$',
          );
          const match = re.exec(decoded);
          if (!match) ok = false;
          else names.forEach((n, idx) => (params[n] = match[idx + 1] ?? ''));
        } else if (t === decoded || t === raw) {
          literal += 1;
        } else {
          ok = false;
        }
      }
      if (!ok) continue;
      if (!best || literal > best.literal) best = { template, literal, params };
    }
    if (!best) return undefined;
    const item = paths[best.template] as JsonObject;
    const operation = item[m] as JsonObject;
    const itemPointer = `/paths/${escapePointerToken(best.template)}`;
    const merged = new Map<string, OpenApiParameter>();
    const addParams = (list: Json | undefined, basePointer: string) => {
      if (!Array.isArray(list)) return;
      list.forEach((entry, idx) => {
        const resolved = resolveRef(document, entry, `${basePointer}/${idx}`);
        if (!resolved || !isObject(resolved.value)) return;
        const p = resolved.value;
        if (typeof p.name !== 'string' || typeof p.in !== 'string') return;
        merged.set(`${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`, {
          name: p.name,
          in: p.in as OpenApiParameter['in'],
          required: p.required === true,
          style: typeof p.style === 'string' ? p.style : undefined,
          explode: typeof p.explode === 'boolean' ? p.explode : undefined,
          schema: isObject(p.schema) ? p.schema : undefined,
          pointer: resolved.pointer,
        });
      });
    };
    addParams(item.parameters, `${itemPointer}/parameters`);
    addParams(operation.parameters, `${itemPointer}/${m}/parameters`);
    return {
      method: m,
      pathTemplate: best.template,
      operationId: typeof operation.operationId === 'string' ? operation.operationId : undefined,
      pathParams: best.params,
      parameters: [...merged.values()],
      pointer: `${itemPointer}/${m}`,
      operation,
    };
  };

  const validateResponse = (method: string, rawPath: string, status: number, body: unknown): string[] => {
    const op = findOperation(method, rawPath);
    if (!op) return [`no operation ${method.toUpperCase()} ${rawPath} in the spec`];
    const label = `${method.toUpperCase()} ${op.pathTemplate} -> ${status}`;
    const responses = op.operation.responses;
    if (!isObject(responses)) return [`${label}: operation declares no responses`];
    const key = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'].find((k) => k in responses);
    if (!key) return [`${label}: status ${status} is not declared (declared: ${Object.keys(responses).join(', ')})`];
    const resolved = resolveRef(document, responses[key], `${op.pointer}/responses/${escapePointerToken(key)}`);
    if (!resolved || !isObject(resolved.value)) return [`${label}: response object for ${key} cannot be resolved`];
    const content = resolved.value.content;
    if (!isObject(content)) {
      return body === undefined || body === null || body === '' ? [] : [`${label}: no content declared but a body was returned`];
    }
    const mediaType = pickJsonMediaType(Object.keys(content));
    if (!mediaType) return []; // nothing JSON-ish declared: nothing to check
    const media = content[mediaType];
    if (!isObject(media) || media.schema === undefined) return [];
    return validateAt(`${resolved.pointer}/content/${escapePointerToken(mediaType)}/schema`, body, label);
  };

  const validateRequest = (request: RequestToValidate): string[] => {
    const method = request.method.toUpperCase();
    const op = findOperation(method, request.path);
    if (!op) return [`no operation ${method} ${request.path} in the spec`];
    const label = `${method} ${op.pathTemplate}`;
    const errors: string[] = [];
    const query = request.query ?? [];

    // Query parameters: names must be declared; values must conform.
    const queryParams = op.parameters.filter((p) => p.in === 'query');
    const byName = new Map<string, OpenApiParameter>();
    for (const p of queryParams) {
      byName.set(p.name, p);
      const explode = p.explode ?? (p.style === undefined || p.style === 'form');
      const type = schemaType(document, p.schema);
      if (explode && (type === 'array' || type === 'string') && !p.name.endsWith('[]') && !byName.has(`${p.name}[]`)) {
        byName.set(`${p.name}[]`, p);
      }
    }
    const grouped = new Map<string, { param: OpenApiParameter; values: string[]; viaAlias: boolean }>();
    for (const [name, value] of query) {
      const param = byName.get(name);
      if (!param) {
        errors.push(`${label}: query parameter "${name}" is not declared (declared: ${queryParams.map((p) => p.name).join(', ') || 'none'})`);
        continue;
      }
      const g = grouped.get(param.name) ?? { param, values: [], viaAlias: false };
      g.values.push(value);
      if (name !== param.name) g.viaAlias = true;
      grouped.set(param.name, g);
    }
    for (const { param, values, viaAlias } of grouped.values()) {
      errors.push(...checkParameterValues(param, values, label, viaAlias));
    }
    for (const p of queryParams) {
      if (p.required && !grouped.has(p.name)) errors.push(`${label}: required query parameter "${p.name}" is missing`);
    }

    // Path parameters: validate the decoded values.
    for (const p of op.parameters.filter((x) => x.in === 'path')) {
      const value = op.pathParams[p.name];
      if (value === undefined) {
        errors.push(`${label}: path parameter "${p.name}" is not in the path template`);
        continue;
      }
      errors.push(...checkParameterValues(p, [value], label));
    }

    // Header parameters.
    const headers = new Map<string, string>();
    for (const [k, v] of Object.entries(request.headers ?? {})) if (v !== undefined) headers.set(k.toLowerCase(), v);
    for (const p of op.parameters.filter((x) => x.in === 'header')) {
      const lname = p.name.toLowerCase();
      const value = headers.get(lname);
      if (value === undefined) {
        if (p.required) errors.push(`${label}: required header "${p.name}" is missing`);
        continue;
      }
      const schema = derefSchema(document, p.schema);
      const allowed: string[] = Array.isArray(schema?.enum)
        ? schema.enum.filter((x): x is string => typeof x === 'string')
        : typeof schema?.default === 'string' && (lname === 'accept' || lname === 'content-type')
          ? [schema.default]
          : [];
      if (allowed.length > 0) {
        const isMedia = lname === 'accept' || lname === 'content-type';
        const ok = allowed.some((a) => (isMedia ? mediaTypeSatisfies(value, a, lname === 'accept') : value === a));
        if (!ok) errors.push(`${label}: header "${p.name}" is ${JSON.stringify(value)}, expected ${allowed.map((a) => JSON.stringify(a)).join(' or ')}`);
      }
    }

    // JSON request body.
    const requestBody = op.operation.requestBody;
    if (requestBody !== undefined) {
      const resolved = resolveRef(document, requestBody, `${op.pointer}/requestBody`);
      const rb = resolved && isObject(resolved.value) ? resolved.value : undefined;
      if (rb && request.body === undefined) {
        if (rb.required === true) errors.push(`${label}: request body is required`);
      } else if (rb && resolved && isObject(rb.content)) {
        const mediaType = pickJsonMediaType(Object.keys(rb.content));
        const media = mediaType ? rb.content[mediaType] : undefined;
        if (mediaType && isObject(media) && media.schema !== undefined) {
          errors.push(...validateAt(`${resolved.pointer}/content/${escapePointerToken(mediaType)}/schema`, request.body, `${label} request body`));
        }
      }
    } else if (request.body !== undefined) {
      errors.push(`${label}: a body was sent but the operation declares no requestBody`);
    }
    return errors;
  };

  /** Check the string values of one parameter (query occurrences or the path value). */
  const checkParameterValues = (param: OpenApiParameter, values: string[], label: string, repeatable = false): string[] => {
    if (!param.schema) return [];
    const where = `${label}: ${param.in} parameter "${param.name}"`;
    const schema = derefSchema(document, param.schema);
    const type = schemaType(document, param.schema);
    const schemaPointer = `${param.pointer}/schema`;
    if (type === 'array') {
      const explode = param.explode ?? (param.style === undefined || param.style === 'form');
      let items: string[];
      if (explode) items = values;
      else {
        if (values.length > 1) return [`${where} is repeated but declared with explode: false (use one comma-separated value)`];
        const sep = param.style === 'spaceDelimited' ? ' ' : param.style === 'pipeDelimited' ? '|' : ',';
        items = (values[0] ?? '').split(sep);
      }
      const itemSchema = schema && isObject(schema.items) ? schema.items : undefined;
      const coerced = items.map((v) => coerce(v, schemaType(document, itemSchema)));
      return validateAt(schemaPointer, coerced, where);
    }
    // Scalar parameter: repetition only makes sense for `[]` names (some specs declare set filters
    // such as `statuses[]` as an exploded string) or when the client used the `name[]` alias.
    if (values.length > 1 && !param.name.endsWith('[]') && !repeatable) {
      return [`${where} is given ${values.length} times but is not an array parameter`];
    }
    const errs: string[] = [];
    for (const v of values) errs.push(...validateAt(schemaPointer, coerce(v, type), `${where}=${JSON.stringify(v)}`));
    return errs;
  };

  return {
    document,
    findOperation,
    validateResponse,
    validateRequest,
    validateSchemaAt: (pointer, value) => validateAt(pointer, value, pointer),
  };
}

/**
 * Apply a change to a deep clone of a spec at a JSON pointer. Useful for documented, test-local
 * workarounds of spec defects: `patchSpec(spec, '/components/schemas/X/properties/y', (s) => ({ ...s, nullable: true }))`.
 */
export function patchSpec<T>(spec: T, pointer: string, change: (node: any) => unknown): T {
  const clone = structuredClone(spec) as unknown as JsonObject;
  const tokens = pointer.split('/').slice(1).map(unescapePointerToken);
  const last = tokens.pop();
  if (last === undefined) throw new Error('patchSpec: empty pointer');
  let node: Json = clone;
  for (const t of tokens) {
    if (!node || typeof node !== 'object') throw new Error(`patchSpec: ${pointer} not found`);
    node = (node as Record<string, Json>)[t] as Json;
  }
  if (!node || typeof node !== 'object') throw new Error(`patchSpec: ${pointer} not found`);
  const parent = node as Record<string, Json>;
  parent[last] = change(parent[last]) as Json;
  return clone as unknown as T;
}

// ---------------------------------------------------------------------------------------------
// helpers

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isAbsoluteUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ftp:';
  } catch {
    return false;
  }
}

function splitPath(p: string): string[] {
  const trimmed = p.replace(/^\/+/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function escapePointerToken(t: string): string {
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointerToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A JSON pointer is placed in a URI fragment: characters outside the fragment set are percent-encoded. */
function encodePointerForUri(pointer: string): string {
  return pointer
    .split('/')
    .map((t) => encodeURIComponent(t).replace(/%7E/gi, '~'))
    .join('/');
}

function getAtPointer(doc: JsonObject, pointer: string): Json | undefined {
  if (pointer === '' || pointer === '/') return doc;
  let node: Json | undefined = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const token = unescapePointerToken(raw);
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}

/** Rewritten refs look like `<docId>#/components/...`; resolve within the document, following chains. */
function resolveRef(doc: JsonObject, value: Json | undefined, pointer: string): { value: Json; pointer: string } | undefined {
  let current = value;
  let currentPointer = pointer;
  for (let hops = 0; hops < 32; hops++) {
    if (!isObject(current) || typeof current.$ref !== 'string') {
      return current === undefined ? undefined : { value: current, pointer: currentPointer };
    }
    const hash = current.$ref.indexOf('#');
    if (hash < 0) return undefined;
    currentPointer = safeDecode(current.$ref.slice(hash + 1));
    current = getAtPointer(doc, currentPointer);
  }
  return undefined;
}

function derefSchema(doc: JsonObject, schema: Json | undefined): JsonObject | undefined {
  const r = resolveRef(doc, schema, '');
  return r && isObject(r.value) ? r.value : undefined;
}

/** The declared `type` of a schema (following $ref and a single-branch allOf), if any. */
function schemaType(doc: JsonObject, schema: Json | undefined): string | undefined {
  const s = derefSchema(doc, schema);
  if (!s) return undefined;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.allOf)) {
    for (const part of s.allOf) {
      const t = schemaType(doc, part);
      if (t) return t;
    }
  }
  return undefined;
}

/** Query/path/header values arrive as strings; convert the ones whose declared type says otherwise. */
function coerce(value: string, type: string | undefined): unknown {
  switch (type) {
    case 'integer':
      return /^-?\d+$/.test(value) ? Number(value) : value;
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'null':
      return value === 'null' || value === '' ? null : value;
    default:
      return value;
  }
}

// application/json first, then any other JSON-ish media type (vnd.*+json), then a wildcard.
function pickJsonMediaType(types: string[]): string | undefined {
  const essence = (t: string) => t.split(';')[0]!.trim().toLowerCase();
  return (
    types.find((t) => essence(t) === 'application/json') ??
    types.find((t) => /[/+]json$/.test(essence(t))) ??
    types.find((t) => essence(t) === '*/*')
  );
}

interface MediaType {
  essence: string;
  params: Map<string, string>;
}

function parseMediaType(s: string): MediaType {
  const [head, ...rest] = s.split(';');
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"|"$/g, ''));
  }
  return { essence: (head ?? '').trim().toLowerCase(), params };
}

/**
 * Does the header value satisfy the expected media type? Type/subtype compare case-insensitively;
 * every parameter of the expected value must be present with the same value (extra parameters such
 * as `charset` are allowed). For `Accept`, any of the comma-separated entries may match.
 */
function mediaTypeSatisfies(actual: string, expected: string, isAccept: boolean): boolean {
  const want = parseMediaType(expected);
  const candidates = isAccept ? actual.split(',') : [actual];
  return candidates.some((c) => {
    const got = parseMediaType(c);
    if (got.essence !== want.essence) return false;
    for (const [k, v] of want.params) if (got.params.get(k) !== v) return false;
    return true;
  });
}

function formatAjvErrors(errors: ErrorObject[], label: string): string[] {
  // oneOf/anyOf failures produce one error per branch; keep them (they explain the failure) but
  // cap the list so a single bad payload does not flood the test output.
  const lines = errors.map((e) => {
    const at = e.instancePath === '' ? '(root)' : e.instancePath;
    const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : '';
    return `${label}: ${at} ${e.message ?? e.keyword}${extra} [schema ${e.schemaPath}]`;
  });
  const unique = [...new Set(lines)];
  return unique.length > 40 ? [...unique.slice(0, 40), `${label}: ... ${unique.length - 40} more`] : unique;
}

function collectFormats(doc: JsonObject): Set<string> {
  const formats = new Set<string>();
  const walk = (node: Json) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isObject(node)) {
      if (typeof node.format === 'string' && (typeof node.type === 'string' || node.type === undefined)) formats.add(node.format);
      for (const v of Object.values(node)) walk(v);
    }
  };
  walk(doc);
  return formats;
}

/**
 * Prepare a cloned document for Ajv: rewrite internal refs to `<docId>#...`, convert boolean
 * exclusive bounds, and turn `nullable` without `type` into `anyOf [..., {type: null}]`.
 * Examples are walked too; rewriting a `$ref` string inside an example is harmless.
 */
function normalise(doc: JsonObject, docId: string): JsonObject {
  const walk = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v);
    if (typeof out.$ref === 'string' && out.$ref.startsWith('#')) out.$ref = `${docId}${out.$ref}`;
    for (const [bool, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof out[bool] === 'boolean') {
        if (out[bool] === true && typeof out[bound] === 'number') {
          out[bool] = out[bound];
          delete out[bound];
        } else delete out[bool];
      }
    }
    if (out.nullable === true && out.type === undefined) {
      delete out.nullable;
      return { anyOf: [out, { type: 'null' }] };
    }
    return out;
  };
  return walk(doc) as JsonObject;
}
