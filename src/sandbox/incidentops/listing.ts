/**
 * How the incident platform's lists answer: a page of items with limit/offset/more/total, the
 * `query` name filter, the `*_ids[]` filters and `sort_by` by name.
 */
import { invalid, type Query } from './request.js';

/** A handler's answer already encoded as JSON (sent as is). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The page `page` of `items` under `key`; `more` says whether items follow it, `total` counts all when asked. */
export function paginate<T>(key: string, items: readonly T[], page: { limit: number; offset: number; total: boolean }, render: (item: T) => unknown): unknown {
  const slice = items.slice(page.offset, page.offset + page.limit);
  return {
    [key]: slice.map(render),
    limit: page.limit,
    offset: page.offset,
    more: page.offset + slice.length < items.length,
    total: page.total ? items.length : null,
  };
}

/** The items whose name contains `query` (case-insensitive); all of them without a query. */
export function nameFilter<T extends { name: string }>(items: readonly T[], query: string | undefined): readonly T[] {
  if (query === undefined || query === '') return items;
  const needle = query.toLowerCase();
  return items.filter((i) => i.name.toLowerCase().includes(needle));
}

/** Whether `ids` meets the filter `wanted` (null: no filter). */
export function intersectsAny(ids: readonly string[], wanted: Set<string> | null): boolean {
  return wanted === null || ids.some((id) => wanted.has(id));
}

/** sort_by of the lists sorted by name: name, name:asc (1) or name:desc (-1). */
export function sortOrder(q: Query): 1 | -1 {
  const sortBy = q.one('sort_by') ?? 'name';
  if (!['name', 'name:asc', 'name:desc'].includes(sortBy)) throw invalid(`sort_by must be one of name, name:asc, name:desc; got ${JSON.stringify(sortBy)}.`);
  return sortBy === 'name:desc' ? -1 : 1;
}
