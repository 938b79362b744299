/**
 * The work one tool call may do: platform requests, wall time and bytes kept. Every call gets
 * one (run-tool.ts: the tool's own, sized from its arguments, else the default), carried on the
 * call's abort signal like its request ID, so that the platform client counts and refuses
 * requests (platform/upstream.ts) and every walk stops in time (tools/pager.ts) without either
 * knowing the other. A call that reaches its budget answers with what it has and says what is
 * missing; the client refusing a request is the backstop for work that does not look first.
 */
import { setMaxListeners } from 'node:events';
import { ToolError } from './errors.js';
import { attachCaller, callerScopeOf } from './caller.js';
import { requestIdOf, tagRequest } from './logger.js';

export interface BudgetLimits {
  /** Platform requests the call may send (each request once, whatever its retries). */
  requests: number;
  /**
   * Milliseconds from the call's start: no request, attempt, retry or wait runs past it (the
   * platform client cuts them), and reads that answer in part stop a margin before it.
   */
  wallMs: number;
  /** Bytes of platform data the call may keep for its answer (what walks hold on to). */
  keptBytes: number;
}

/**
 * Enough for every contract tool (the largest IncidentOps walk is 101 pages: the 10,000-record
 * offset cap), within the rate limits (a user's minute of PagerDuty requests is 960), and an
 * answer well before clients give up on a call (commonly 60 s).
 */
export const DEFAULT_BUDGET: Readonly<BudgetLimits> = Object.freeze({ requests: 120, wallMs: 45_000, keptBytes: 32 * 1024 * 1024 });

/** What ran out. */
export type BudgetShortfall = 'requests' | 'time' | 'memory';

export class CallBudget {
  readonly limits: Readonly<BudgetLimits>;
  private readonly startedAt: number;
  private sent = 0;
  private kept = 0;
  private changesMade = 0;
  private changesUnsure = 0;

  constructor(
    limits: Partial<BudgetLimits> = {},
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.limits = Object.freeze({ ...DEFAULT_BUDGET, ...definedOnly(limits) });
    this.startedAt = clock();
  }

  get requestsSent(): number {
    return this.sent;
  }

  get bytesKept(): number {
    return this.kept;
  }

  timeLeftMs(): number {
    return this.limits.wallMs - (this.clock() - this.startedAt);
  }

  /**
   * Time left for platform reads of a tool that answers in part: the deadline less a margin kept
   * to assemble the answer (and its last small requests) from what arrived.
   */
  readTimeLeftMs(): number {
    return this.timeLeftMs() - answerMarginMs(this.limits.wallMs);
  }

  /** What stops more work now (`requests`: fewer than `requests` left), if anything. */
  shortfall(requests = 1): BudgetShortfall | undefined {
    if (this.sent + requests > this.limits.requests) return 'requests';
    if (this.timeLeftMs() <= 0) return 'time';
    if (this.kept > this.limits.keptBytes) return 'memory';
    return undefined;
  }

  /** Counts one request about to be sent; refuses it (nothing sent) when none is left or the time is up. */
  spendRequest(): void {
    const short = this.shortfall();
    if (short === 'requests' || short === 'time') throw budgetError(short, this);
    this.sent += 1;
  }

  /**
   * Records how a request that changes data ended (platform/upstream.ts): carried out (`made`), or
   * failed after it may have reached the platform (`unsure`). One refused or never sent is not noted.
   */
  noteChange(outcome: 'made' | 'unsure'): void {
    if (outcome === 'made') this.changesMade += 1;
    else this.changesUnsure += 1;
  }

  /** What the call did to platform data: `yes` when a change was carried out, `maybe` when one may have been, else `no` (the audit line's `changed`). */
  get changed(): 'yes' | 'maybe' | 'no' {
    return this.changesMade > 0 ? 'yes' : this.changesUnsure > 0 ? 'maybe' : 'no';
  }

  /** Counts bytes the call keeps (a walk's records or lines); past the limit, walks stop. */
  keep(bytes: number): void {
    this.kept += Math.max(0, bytes);
  }

  /** "12 platform requests", "45 s", "32 MB of kept data": the limit that ran out, in words. */
  describe(short: BudgetShortfall): string {
    if (short === 'requests') return `${this.limits.requests} platform requests`;
    if (short === 'time') return `${Math.round(this.limits.wallMs / 1000)} s`;
    return `${sizeText(this.limits.keptBytes)} of kept data`;
  }
}

/** `4 MB`, `1.5 MB`, `300 KB`, `512 bytes`: never rounded to a misleading `0 MB`. */
export function sizeText(bytes: number): string {
  if (bytes >= 1_000_000) return `${Number((bytes / 1_000_000).toFixed(1))} MB`;
  if (bytes >= 1_000) return `${Number((bytes / 1_000).toFixed(1))} KB`;
  return `${bytes} byte${bytes === 1 ? '' : 's'}`;
}

/** A tenth of the call's time, at most 5 s: kept at the end of a call to answer with what was read. */
export function answerMarginMs(wallMs: number): number {
  return Math.min(5000, wallMs / 10);
}

function definedOnly(limits: Partial<BudgetLimits>): Partial<BudgetLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => typeof value === 'number' && Number.isFinite(value) && value >= 0));
}

function budgetError(short: BudgetShortfall, budget: CallBudget): ToolError {
  return new ToolError({
    kind: 'budget_exceeded',
    message: `This call reached its budget of ${budget.describe(short)}; the request was not sent.`,
    nextStep: 'Narrow the call (filters, a smaller limit or max_items), or continue from next_page when the tool gives one.',
  });
}

const budgets = new WeakMap<AbortSignal, CallBudget>();
/** The abort reasons of deadlines: scopes made inside a scope that timed out carry the same reason. */
const deadlineReasons = new WeakSet<object>();

/** True when `signal` was aborted because the time for the call's reads ran out (a WorkScope's deadline). */
export function endedByDeadline(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && typeof signal.reason === 'object' && signal.reason !== null && deadlineReasons.has(signal.reason as object);
}

/** Records that work carrying `signal` spends `budget`. */
export function attachBudget(signal: AbortSignal, budget: CallBudget): void {
  budgets.set(signal, budget);
}

/** The budget of the call that work carrying `signal` belongs to, if any. */
export function budgetOf(signal: AbortSignal | undefined): CallBudget | undefined {
  return signal ? budgets.get(signal) : undefined;
}

/**
 * A signal for part of a call's work: aborted with `parent`, by `abort()`, or (with `until:
 * 'deadline'`) when the time for the budget's reads is up (`readTimeLeftMs`: the call keeps a
 * margin to answer with what arrived). It carries the parent's request ID and budget (or
 * `budget`), so the requests made with it log and count as the call's. `dispose()` when done.
 */
export class WorkScope {
  readonly signal: AbortSignal;
  readonly budget: CallBudget | undefined;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onParentAbort: () => void;

  constructor(
    private readonly parent: AbortSignal,
    options: { budget?: CallBudget; until?: 'deadline' } = {},
  ) {
    this.signal = this.controller.signal;
    // Walks run many requests at once, each listening to the signal.
    setMaxListeners(0, this.signal);
    this.budget = options.budget ?? budgetOf(parent);
    if (this.budget) attachBudget(this.signal, this.budget);
    const requestId = requestIdOf(parent);
    if (requestId !== undefined) tagRequest(this.signal, requestId);
    const caller = callerScopeOf(parent);
    if (caller) attachCaller(this.signal, caller);
    this.onParentAbort = () => this.controller.abort(parent.reason);
    if (parent.aborted) this.onParentAbort();
    else parent.addEventListener('abort', this.onParentAbort, { once: true });
    if (options.until === 'deadline' && this.budget && !this.signal.aborted) {
      const left = this.budget.readTimeLeftMs();
      // Already past it: nothing may start with this signal, not even on the next tick.
      if (left <= 0) this.endReads();
      else this.timer = setTimeout(() => this.endReads(), left);
    }
  }

  private endReads(): void {
    const reason = new DOMException('the call ran out of time', 'TimeoutError');
    deadlineReasons.add(reason);
    this.controller.abort(reason);
  }

  /** Aborted by the deadline (its own, or an enclosing scope's), not by the caller. */
  get timedOut(): boolean {
    return endedByDeadline(this.signal);
  }

  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.parent.removeEventListener('abort', this.onParentAbort);
  }
}
