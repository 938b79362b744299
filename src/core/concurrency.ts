/**
 * A counting semaphore shared fairly by callers: at most `limit` holders at a time; the rest wait
 * in a FIFO queue of their own caller (caller.ts, read from the async context), and a freed slot
 * goes round-robin across callers: across groups (a user, a network address) first, then across
 * the group's members. So one caller's burst waits behind its own work, never in front of someone
 * else's, and inventing members buys no more than one group's share.
 *
 * Two more rules keep a burst from holding everything:
 * - a caller holds at most `maxInFlightPerCaller` slots (default: all but a quarter of them), and
 *   a group `maxInFlightPerGroup` (all but an eighth), so that a newcomer usually starts at once
 *   even while another caller's burst runs;
 * - waiters are bounded per member, per group and in all; one more is refused at once with an
 *   `unavailable` ToolError naming how many of what wait and what to do.
 * One exception to the caps: work of many short, alike pieces (the pages of SearchUsers' user
 * directory walk) may ask to `borrowWhenAlone`: while no other caller holds or waits for a slot,
 * it takes the ones kept for newcomers too, as a lone caller could before fair share. A newcomer
 * then waits for one such piece at most, and gets the next freed slot (round-robin).
 * A waiter whose signal aborts leaves its queue at once (it never takes a slot).
 *
 * Every pool users share is one of these, and so fair without code of its own: UpstreamClient's
 * requests in flight per platform client (held around each attempt; backoff holds none), the
 * off-thread pool's workers (tools/off-thread.ts).
 */
import { currentCaller, type Caller } from './caller.js';
import { ToolError } from './errors.js';

export interface FairShareOptions {
  /** What one slot is used for, plural, for messages: "platform requests", "layouts". Default "tasks". */
  name?: string;
  /** Slots one caller (member) may hold; default `limit - floor(limit / 4)` (16 → 12, 1 → 1). */
  maxInFlightPerCaller?: number;
  /** Slots one group may hold, all its members together; default `limit - floor(limit / 8)` (16 → 14). */
  maxInFlightPerGroup?: number;
  /** Waiters one caller (member) may have; default `max(16, 4 × limit)`. */
  maxWaitingPerCaller?: number;
  /** Waiters one group may have, all its members together; default 8 × per caller. */
  maxWaitingPerGroup?: number;
  /** Waiters in all; default 8 × per group. */
  maxWaiting?: number;
  /** retry_after_seconds of a refusal; default 5. */
  retryAfterSeconds?: number;
}

export interface AcquireOptions {
  /** Whose turn it is; default the current caller (caller.ts). */
  caller?: Caller;
  /** Wait whatever the waiting bounds: for work already under way (a platform request's second attempt). */
  neverRefuse?: boolean;
  /** Past the caller's and group's caps, up to the whole limit, while no other caller holds or waits for a slot (see the file's comment). */
  borrowWhenAlone?: boolean;
}

interface Waiter {
  grant: () => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

interface Member {
  readonly key: string;
  readonly queue: Waiter[];
  inFlight: number;
  /** When it was last granted a slot (a grant count; 0: not since it came). */
  servedAt: number;
}

interface Group {
  readonly key: string;
  inFlight: number;
  waiting: number;
  servedAt: number;
  /** Members holding or waiting for slots, in arrival order. */
  readonly members: Map<string, Member>;
}

export class ConcurrencyLimiter {
  readonly limit: number;
  readonly name: string;
  readonly maxInFlightPerCaller: number;
  readonly maxInFlightPerGroup: number;
  readonly maxWaitingPerCaller: number;
  readonly maxWaitingPerGroup: number;
  readonly maxWaiting: number;
  private readonly retryAfterSeconds: number;
  private active = 0;
  private waiting = 0;
  /** Slots granted so far: the clock of the turns. */
  private grants = 0;
  /** Groups holding or waiting for slots, in arrival order. */
  private readonly groups = new Map<string, Group>();

  constructor(limit: number, options: FairShareOptions = {}) {
    this.limit = whole('concurrency limit', limit);
    this.name = options.name ?? 'tasks';
    this.maxInFlightPerGroup = Math.min(limit, whole('maxInFlightPerGroup', options.maxInFlightPerGroup ?? limit - Math.floor(limit / 8)));
    this.maxInFlightPerCaller = Math.min(this.maxInFlightPerGroup, whole('maxInFlightPerCaller', options.maxInFlightPerCaller ?? limit - Math.floor(limit / 4)));
    this.maxWaitingPerCaller = whole('maxWaitingPerCaller', options.maxWaitingPerCaller ?? Math.max(16, 4 * limit), 0);
    this.maxWaitingPerGroup = whole('maxWaitingPerGroup', options.maxWaitingPerGroup ?? 8 * this.maxWaitingPerCaller, 0);
    this.maxWaiting = whole('maxWaiting', options.maxWaiting ?? 8 * this.maxWaitingPerGroup, 0);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 5;
  }

  /** Holders right now. */
  get inFlight(): number {
    return this.active;
  }

  /** Waiters right now. */
  get queued(): number {
    return this.waiting;
  }

  /** One caller's holders and waiters right now (the current caller by default). */
  shareOf(caller: Caller = currentCaller()): { inFlight: number; waiting: number; groupInFlight: number; groupWaiting: number } {
    const group = this.groups.get(caller.group);
    const member = group?.members.get(caller.member);
    return { inFlight: member?.inFlight ?? 0, waiting: member?.queue.length ?? 0, groupInFlight: group?.inFlight ?? 0, groupWaiting: group?.waiting ?? 0 };
  }

  /**
   * Resolves with a release function once a slot is free and it is this caller's turn. Rejects with
   * the signal's reason when it aborts first (the waiter is then gone from the queue), or with an
   * `unavailable` ToolError when the caller, its group or the server already has the most waiters
   * allowed. The release function is safe to call more than once.
   */
  acquire(signal?: AbortSignal, options: AcquireOptions = {}): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    const caller = options.caller ?? currentCaller(signal);
    const group = this.groupOf(caller.group);
    const member = this.memberOf(group, caller.member);
    const now = this.takeNow(group, member, options.borrowWhenAlone === true);
    if (now) return Promise.resolve(now);
    const refusal = options.neverRefuse ? undefined : this.refusal(group, member);
    if (refusal) {
      this.forgetIfIdle(group, member);
      return Promise.reject(refusal);
    }
    return this.enqueue(group, member, signal);
  }

  /** A slot now, if this caller may take one without waiting; else undefined (nothing queued). */
  tryAcquire(caller: Caller = currentCaller(), borrowWhenAlone = false): (() => void) | undefined {
    const group = this.groupOf(caller.group);
    const member = this.memberOf(group, caller.member);
    const now = this.takeNow(group, member, borrowWhenAlone);
    if (!now) this.forgetIfIdle(group, member);
    return now;
  }

  private takeNow(group: Group, member: Member, borrowWhenAlone: boolean): (() => void) | undefined {
    if (this.active >= this.limit || !(this.mayTake(group, member) || (borrowWhenAlone && this.alone(group, member)))) return undefined;
    // Nobody who may take a slot waits (the queues are drained whenever one frees): take it.
    this.take(group, member);
    return this.releaser(group, member);
  }

  private mayTake(group: Group, member: Member): boolean {
    return group.inFlight < this.maxInFlightPerGroup && member.inFlight < this.maxInFlightPerCaller;
  }

  /** The member is the only caller holding or waiting (the maps hold only callers with work), and none of its own wait before it. */
  private alone(group: Group, member: Member): boolean {
    return this.groups.size === 1 && group.members.size === 1 && member.queue.length === 0;
  }

  private enqueue(group: Group, member: Member, signal: AbortSignal | undefined): Promise<() => void> {
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        onAbort: undefined,
        grant: () => {
          if (waiter.onAbort) signal?.removeEventListener('abort', waiter.onAbort);
          resolve(this.releaser(group, member));
        },
      };
      if (signal) {
        waiter.onAbort = () => {
          const index = member.queue.indexOf(waiter);
          if (index >= 0) {
            member.queue.splice(index, 1);
            group.waiting -= 1;
            this.waiting -= 1;
            this.forgetIfIdle(group, member);
          }
          reject(signal.reason ?? new Error('aborted'));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      member.queue.push(waiter);
      group.waiting += 1;
      this.waiting += 1;
    });
  }

  /** Why one more waiter of this member is refused, if it is. */
  private refusal(group: Group, member: Member): ToolError | undefined {
    const mine = member.queue.length;
    if (mine >= this.maxWaitingPerCaller) {
      return this.refuse(`You have ${mine} ${this.name} waiting for this server already, the most one caller may have waiting (${this.maxWaitingPerCaller})`, 'Send fewer at once: wait for some of your calls to answer, then call again.');
    }
    if (group.waiting >= this.maxWaitingPerGroup) {
      return this.refuse(
        `Your clients (one signed-in user, or one network address) have ${group.waiting} ${this.name} waiting for this server already, the most one user or address may have waiting (${this.maxWaitingPerGroup})`,
        'Send fewer at once from all your clients: wait for some calls to answer, then call again.',
      );
    }
    if (this.waiting >= this.maxWaiting) {
      return this.refuse(`The server has ${this.waiting} ${this.name} waiting from all its callers, its limit (${this.maxWaiting})`, 'Call again in a few seconds.');
    }
    return undefined;
  }

  private refuse(why: string, nextStep: string): ToolError {
    return new ToolError({
      kind: 'unavailable',
      message: `${why}, so this one was not started (${this.limit} run at a time); nothing was sent.`,
      nextStep,
      retryAfterSeconds: this.retryAfterSeconds,
    });
  }

  private groupOf(key: string): Group {
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { key, inFlight: 0, waiting: 0, servedAt: 0, members: new Map() }));
    return group;
  }

  private memberOf(group: Group, key: string): Member {
    let member = group.members.get(key);
    if (!member) group.members.set(key, (member = { key, queue: [], inFlight: 0, servedAt: 0 }));
    return member;
  }

  /** A slot to this member: its turn (and its group's) comes again after everyone waiting who was served before. */
  private take(group: Group, member: Member): void {
    this.active += 1;
    group.inFlight += 1;
    member.inFlight += 1;
    group.servedAt = member.servedAt = ++this.grants;
  }

  /** Drops what no longer holds or waits for anything: the maps hold only callers with work. */
  private forgetIfIdle(group: Group, member: Member): void {
    if (member.inFlight === 0 && member.queue.length === 0 && group.members.get(member.key) === member) group.members.delete(member.key);
    if (group.inFlight === 0 && group.waiting === 0 && this.groups.get(group.key) === group) this.groups.delete(group.key);
  }

  private releaser(group: Group, member: Member): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active -= 1;
      group.inFlight -= 1;
      member.inFlight -= 1;
      this.grantFreeSlots();
      this.forgetIfIdle(group, member);
    };
  }

  /**
   * Grants free slots, round-robin: to the group served longest ago (one that came since, first)
   * with a member that waits below its caps, and within it to that member served longest ago; each
   * member's own queue is FIFO.
   */
  private grantFreeSlots(): void {
    while (this.active < this.limit && this.waiting > 0) {
      let next: { group: Group; member: Member } | undefined;
      for (const group of this.groups.values()) {
        if (group.waiting === 0 || group.inFlight >= this.maxInFlightPerGroup || (next && group.servedAt >= next.group.servedAt)) continue;
        const member = this.nextMember(group);
        if (member) next = { group, member };
      }
      if (!next) return;
      const { group, member } = next;
      const waiter = member.queue.shift() as Waiter;
      group.waiting -= 1;
      this.waiting -= 1;
      this.take(group, member);
      waiter.grant();
    }
  }

  /** The group's waiting member below its cap served longest ago. */
  private nextMember(group: Group): Member | undefined {
    let next: Member | undefined;
    for (const member of group.members.values()) {
      if (member.queue.length > 0 && member.inFlight < this.maxInFlightPerCaller && (!next || member.servedAt < next.servedAt)) next = member;
    }
    return next;
  }
}

function whole(what: string, value: number, min = 1): number {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${what} must be an integer of at least ${min} (got ${value})`);
  return value;
}
