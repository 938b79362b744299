/**
 * The whiteboard platform's OpenAPI document (miro-openapi.json) with the test-local adjustments
 * every CanvasApi contract check needs (documented spec defects, not shortcuts):
 *  - WidgetDataOutput, ItemDataCreate, ItemStyle, ItemDataChanges and ItemData use `oneOf` over
 *    schemas whose properties are all optional, so any object matches several branches and a
 *    strict validator rejects every valid body. They are checked as `anyOf`.
 *  - Four operations share a method + URL with another one and differ only by a query parameter
 *    (items by tag, items within a frame, remove tag from item, delete group with its items). The
 *    generic validator always picks the first; these are validated against their own operation
 *    through a second document that holds only them, under distinct path prefixes
 *    (`/__<variant>/v2/...`, see `variantPath`).
 */
import type { RecordedRequest } from '../../src/sandbox/recording.js';
import { loadOpenApi, patchSpec, type OpenApiValidator } from './openapi.js';

export const MIRO_SPEC = 'miro-openapi.json';

/** Schemas whose non-exclusive `oneOf` is checked as `anyOf`. */
export const ONE_OF_AS_ANY_OF = ['WidgetDataOutput', 'ItemDataCreate', 'ItemStyle', 'ItemDataChanges', 'ItemData'] as const;

export type MiroVariant = 'by-tag' | 'in-frame' | 'delete-group';

/** Alias path in the second document -> the spec's own path key. */
/** Tools whose request shares method + URL with another operation: validated against their own variant. */
export const TOOL_VARIANTS: Readonly<Record<string, MiroVariant>> = {
  GetItemsWithinFrame: 'in-frame',
  RetrieveItemsByTag: 'by-tag',
  AttachTagToItem: 'by-tag',
  RemoveTagFromItem: 'by-tag',
  DeleteBoardGroup: 'delete-group',
};

export const VARIANT_PATHS: Record<MiroVariant, [string, string][]> = {
  'by-tag': [
    ['/__by-tag/v2/boards/{board_id_PlatformTags}/items', '/v2/boards/{board_id_PlatformTags}/items'],
    ['/__by-tag/v2/boards/{board_id_PlatformTags}/items/{item_id}', '/v2/boards/{board_id_PlatformTags}/items/{item_id}'],
  ],
  'in-frame': [['/__in-frame/v2/boards/{board_id_PlatformContainers}/items', '/v2/boards/{board_id_PlatformContainers}/items']],
  'delete-group': [['/__delete-group/v2/boards/{board_id}/groups/{group_id}', '/v2/boards/{board_id}/groups/{group_id}?']],
};

export interface MiroValidators {
  /** The whole (patched) document. */
  main: OpenApiValidator;
  /** Only the variant operations, under `/__<variant>` prefixes. */
  alt: OpenApiValidator;
}

/** The spec with the `oneOf` -> `anyOf` patches applied (input not modified). */
export function patchMiroSpec<T>(spec: T): T {
  let patched = spec;
  for (const name of ONE_OF_AS_ANY_OF) {
    patched = patchSpec(patched, `/components/schemas/${name}`, (s: { oneOf?: unknown }) => {
      const { oneOf, ...rest } = s;
      return { ...rest, anyOf: oneOf };
    });
  }
  return patched;
}

export function loadMiroValidators(spec: unknown): MiroValidators {
  const patched = patchMiroSpec(spec) as { paths: Record<string, unknown> };
  const main = loadOpenApi(patched);
  const paths: Record<string, unknown> = {};
  for (const entries of Object.values(VARIANT_PATHS)) {
    for (const [alias, key] of entries) {
      if (patched.paths[key] === undefined) throw new Error(`${MIRO_SPEC}: path ${key} not found`);
      paths[alias] = patched.paths[key];
    }
  }
  const alt = loadOpenApi({ ...patched, paths });
  return { main, alt };
}

/** The path to give the validator for a request of an operation variant (or the path itself). */
export function variantPath(variant: MiroVariant | undefined, path: string): string {
  return variant ? `/__${variant}${path}` : path;
}

/**
 * Each request the sandbox recorded, checked against the spec: its operation (a variant by its
 * query: `tag_id` the by-tag one, `parent_item_id` the in-frame one), its parameters and its body.
 * The problems, one line each (none: every request is one the spec allows).
 */
export function specProblems(validators: MiroValidators, requests: readonly RecordedRequest[]): string[] {
  const problems: string[] = [];
  for (const req of requests) {
    const keys = new Set(req.query.map(([key]) => key));
    const variant: MiroVariant | undefined = keys.has('tag_id') ? 'by-tag' : keys.has('parent_item_id') ? 'in-frame' : undefined;
    const validator = variant ? validators.alt : validators.main;
    const path = variantPath(variant, req.path);
    if (!validator.findOperation(req.method, path)) {
      problems.push(`${req.method} ${req.path}: no such operation in the spec`);
      continue;
    }
    for (const e of validator.validateRequest({ method: req.method, path, query: req.query, headers: req.headers, body: req.body })) problems.push(`${req.method} ${req.path}: ${e}`);
  }
  return problems;
}
