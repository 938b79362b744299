/**
 * One way to walk a paged platform list, by cursor or by offset, for every tool: page after page
 * within the call's budget (core/call-budget.ts, carried by the signal), stopping at the end of
 * the list, when the walker has what it needs, at a page cap, or when the budget runs out (a page
 * in flight when the time for reads is up is abandoned: the call keeps a margin to answer). A platform whose paging goes wrong cannot keep a walk
 * going: a cursor or offset it sent before, a page of records already read, or more records than
 * the total it gave end the walk. An empty page ends it too, whatever cursor comes with it. The
 * result says why the walk stopped and where the next unread page starts, so a tool can answer
 * with what it has, say what is missing, and give a continuation.
 */
import { budgetOf, CallBudget, WorkScope, type BudgetShortfall } from '../call-budget.js';
import { ToolError } from '../errors.js';

/** Where a page starts: a platform cursor or an offset; the first page has neither. */
export interface PagePosition {
  cursor?: string;
  offset?: number;
}

export interface Page<T> {
  records: readonly T[];
  /** Where the next page starts; undefined at the end of the list. */
  next?: PagePosition;
  /** The list's length, when the platform says. */
  total?: number;
}

/**
 * Why a walk ended: the `end` of the list; `enough` (the walker said so); the page cap; a limit of
 * the budget; or the platform's paging going wrong (`repeated`: a position or a page again;
 * `overrun`: more records than its total).
 */
export type WalkStop = 'end' | 'enough' | 'pages' | BudgetShortfall | 'repeated' | 'overrun';

export interface WalkResult {
  stop: WalkStop;
  /** Every page of the list was read. */
  complete: boolean;
  pages: number;
  records: number;
  /** The first page's total, when the platform gave one. */
  total?: number;
  /** Where the first unread page starts: the continuation (none at the end, nor when paging went wrong). */
  next?: PagePosition;
}

export interface WalkOptions<T> {
  /** The call's signal (it carries the budget and the request ID). */
  signal: AbortSignal;
  /** Where to start (a continuation); the first page by default. */
  start?: PagePosition;
  /** Pages this walk may read at most (its share of the call's budget). */
  maxPages?: number;
  /** Records a full page holds: with a total, progress says how many pages there are. */
  pageSize?: number;
  fetchPage: (at: PagePosition | undefined, signal: AbortSignal) => Promise<Page<T>>;
  /** Each page, in order; returning true ends the walk (`enough`). */
  onPage?: (page: Page<T>, at: PagePosition | undefined) => boolean | void;
  /** A record's ID: a page of records all read before is the same page again. */
  idOf?: (record: T) => string | undefined;
  /** After each page: pages read, and how many there are when the total says. */
  onProgress?: (pages: number, pagesTotal?: number) => void;
}

const positionKey = (at: PagePosition | undefined): string => (at === undefined ? '' : at.cursor !== undefined ? `c:${at.cursor}` : `o:${at.offset ?? 0}`);

export async function walkPages<T>(options: WalkOptions<T>): Promise<WalkResult> {
  const budget = budgetOf(options.signal) ?? new CallBudget();
  const scope = new WorkScope(options.signal, { budget, until: 'deadline' });
  const positions = new Set<string>([positionKey(options.start)]);
  const seenIds = new Set<string>();
  let at = options.start;
  let pages = 0;
  let records = 0;
  let total: number | undefined;
  let slack = 0;
  const result = (stop: WalkStop, next?: PagePosition): WalkResult => ({ stop, complete: stop === 'end', pages, records, ...(total !== undefined ? { total } : {}), ...(next ? { next } : {}) });
  try {
    for (;;) {
      if (options.maxPages !== undefined && pages >= options.maxPages) return result('pages', at);
      const short = scope.timedOut ? 'time' : budget.shortfall();
      if (short) return result(short, at);
      let page: Page<T>;
      try {
        page = await options.fetchPage(at, scope.signal);
      } catch (error) {
        const stop = budgetStop(error, scope, budget);
        if (stop) return result(stop, at);
        throw error;
      }
      pages += 1;
      records += page.records.length;
      if (pages === 1) {
        total = page.total;
        slack = Math.max(page.records.length, options.pageSize ?? 0);
      }
      const enough = options.onPage?.(page, at) === true;
      const pagesTotal = total !== undefined && options.pageSize ? Math.max(pages, Math.ceil(total / options.pageSize)) : undefined;
      options.onProgress?.(pages, pagesTotal);
      const next = page.records.length > 0 ? page.next : undefined;
      if (enough) return result('enough', next);
      if (!next) return result('end');
      if (repeatsPage(page.records, seenIds, options.idOf)) return result('repeated');
      const key = positionKey(next);
      if (positions.has(key) || (next.offset !== undefined && at?.offset !== undefined && next.offset <= at.offset)) return result('repeated');
      if (total !== undefined && records > total + slack) return result('overrun');
      positions.add(key);
      at = next;
    }
  } finally {
    scope.dispose();
  }
}

/** True when every record of a non-empty page was read before; remembers the page's IDs. */
function repeatsPage<T>(records: readonly T[], seenIds: Set<string>, idOf: ((record: T) => string | undefined) | undefined): boolean {
  if (!idOf || records.length === 0) return false;
  const ids = records.map(idOf).filter((id): id is string => id !== undefined);
  if (ids.length < records.length) return false;
  const again = ids.every((id) => seenIds.has(id));
  for (const id of ids) seenIds.add(id);
  return again;
}

/** A page refused or abandoned because the budget ran out (another walk of the call may have spent the last request). */
function budgetStop(error: unknown, scope: WorkScope, budget: CallBudget): BudgetShortfall | undefined {
  if (scope.timedOut) return 'time';
  if (error instanceof ToolError && error.details.kind === 'budget_exceeded') return budget.shortfall() ?? 'requests';
  return undefined;
}

/**
 * Why a walk that did not finish stopped, for an answer's note: "600 of 25000 items read: this
 * call's budget of 40 platform requests was reached". Undefined when it finished or had enough.
 */
export function walkNote(walk: WalkResult, what: string, signal?: AbortSignal): string | undefined {
  if (walk.complete || walk.stop === 'enough') return undefined;
  const read = `${walk.records} ${what}${walk.total !== undefined ? ` of ${walk.total}` : ''} read`;
  switch (walk.stop) {
    case 'pages':
      return `${read} (${walk.pages} pages, as many as this call reads)`;
    case 'requests':
    case 'time':
    case 'memory':
      return `${read}: this call reached its budget of ${(budgetOf(signal) ?? new CallBudget()).describe(walk.stop)}`;
    case 'repeated':
      return `${read}: the platform sent a page or cursor it had sent before, so reading stopped there`;
    case 'overrun':
      return `${read}: the platform sent more than the ${walk.total ?? 0} it said there were, so reading stopped there`;
  }
}
