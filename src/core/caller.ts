/**
 * Who a call is for, carried on the call's signal like its budget (and so to every request and step
 * it makes), so that every pool users share (concurrency.ts: platform request slots, layout
 * workers, large answers, any pool added later) can give each caller its share.
 *
 * A caller is two keys. `group` is what an attacker cannot multiply cheaply: the signed-in user in
 * OAuth mode, the client's network address (IPv6 by its /64) in key mode, `local` on stdio. `member`
 * tells apart the clients of one group (X-Toolservers-Caller, checked in serving): a proxy's users,
 * or one user's agents. Pools share slots fairly across groups first, then across a group's members,
 * so that inventing members never buys more than one group's share.
 *
 * The scope also carries the signal of the client hanging up (HTTP), so that a tool call ends
 * with its connection whatever the protocol layer does (tools/registry.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface Caller {
  /** The unit of fairness: a user, a network address, the local process. */
  group: string;
  /** One client within the group (equal to `group` when the client names none). */
  member: string;
}

export interface CallerScope {
  caller: Caller;
  /** Aborts when the client goes away before its answer is sent (an HTTP connection closed). */
  hangUp?: AbortSignal;
}

/** stdio, `call`, and work started outside any request: one caller, the process's user. */
export const LOCAL_CALLER: Readonly<Caller> = Object.freeze({ group: 'local', member: 'local' });

/**
 * A tool call's scope travels on its signal (like its request ID and budget: WorkScope passes it
 * on), not in AsyncLocalStorage, which on Node 20 hooks every promise of the process and cost the
 * HTTP path about a fifth more CPU per call.
 */
const scopesBySignal = new WeakMap<AbortSignal, CallerScope>();

/** Tags a call's signal with its scope; what derives from it (WorkScope) carries it on. */
export function attachCaller(signal: AbortSignal, scope: CallerScope): void {
  scopesBySignal.set(signal, scope);
}

/** The scope a signal carries, if any. */
export function callerScopeOf(signal: AbortSignal | undefined): CallerScope | undefined {
  return signal ? scopesBySignal.get(signal) : undefined;
}

// Work with no call signal (tests, benches) may name its caller for everything it awaits; the
// servers never do, so the hooks stay off.
const outsideCalls = new AsyncLocalStorage<CallerScope>();

/** Runs `work` (and everything it awaits) as this caller, when it has no call signal to carry it: tests and benches. */
export function runAsCaller<T>(scope: CallerScope, work: () => T): T {
  return outsideCalls.run(scope, work);
}

/** The caller `signal` carries; else the one runAsCaller set; else LOCAL_CALLER (stdio, `call`). */
export function currentCaller(signal?: AbortSignal): Caller {
  return callerScopeOf(signal)?.caller ?? outsideCalls.getStore()?.caller ?? LOCAL_CALLER;
}

/**
 * Tool calls in flight, by caller and JSON-RPC ID: a `notifications/cancelled` ends its call even
 * when it comes on another HTTP request than the call (stateless serving; the 2025 era's way to
 * cancel). Only the same caller's notification reaches a call, and an ID two of its clients use at
 * once (they did not name themselves apart: X-Toolservers-Caller) cancels neither.
 */
const callsInFlight = new Map<string, AbortController[]>();

const callKey = (caller: Caller, id: string | number): string => `${caller.group}\n${caller.member}\n${typeof id}:${id}`;

/** Registers the caller's call `id`: its signal aborts on that caller's cancellation; `done()` when it ends. */
export function cancellableCall(caller: Caller, id: string | number): { signal: AbortSignal; abort: (reason: unknown) => void; done: () => void } {
  const key = callKey(caller, id);
  const controller = new AbortController();
  const entries = callsInFlight.get(key) ?? [];
  entries.push(controller);
  callsInFlight.set(key, entries);
  return {
    signal: controller.signal,
    abort: (reason: unknown) => controller.abort(reason),
    done: () => {
      const left = (callsInFlight.get(key) ?? []).filter((entry) => entry !== controller);
      if (left.length > 0) callsInFlight.set(key, left);
      else callsInFlight.delete(key);
    },
  };
}

/** Cancels the caller's call `id`, if exactly one is in flight; whether one was. */
export function cancelCall(caller: Caller, id: string | number, reason?: string): boolean {
  const entries = callsInFlight.get(callKey(caller, id));
  if (entries?.length !== 1) return false;
  entries[0]!.abort(new DOMException(reason ?? 'cancelled by the client', 'AbortError'));
  return true;
}

/** Calls registered now (tests count them). */
export function callsInFlightCount(): number {
  let count = 0;
  for (const entries of callsInFlight.values()) count += entries.length;
  return count;
}
