/** What the upstream client reports to observers (metrics): every answered or failed attempt and every rate-limit wait, with no paths or IDs. */
import type { HttpMethod } from './resend-rules.js';

/** One answered (or failed) attempt, as observers (metrics) see it: no paths, no IDs. */
export interface UpstreamAnswerEvent {
  platform: string;
  method: HttpMethod;
  /** The HTTP status, when an answer's head arrived. */
  status?: number;
  /** Why no (complete) answer came: `timeout`, `cancelled`, or the network error code (`ECONNRESET`). */
  failure?: string;
  seconds: number;
}

/** A wait a 429 imposed: before a retry of the refused request, or holding back a later one. */
export interface RateLimitWaitEvent {
  platform: string;
  seconds: number;
}

export interface UpstreamObserver {
  onUpstreamAnswer?(event: UpstreamAnswerEvent): void;
  onRateLimitWait?(event: RateLimitWaitEvent): void;
}

let upstreamObservers: readonly UpstreamObserver[] = [];

/** Reports every upstream attempt and rate-limit wait of this process until the returned function is called. */
export function observeUpstream(observer: UpstreamObserver): () => void {
  upstreamObservers = [...upstreamObservers, observer];
  return () => {
    upstreamObservers = upstreamObservers.filter((candidate) => candidate !== observer);
  };
}

/** Whether anyone listens: events are only built then. */
export function upstreamObserved(): boolean {
  return upstreamObservers.length > 0;
}

export function reportUpstream(notify: (observer: UpstreamObserver) => void): void {
  for (const observer of upstreamObservers) {
    try {
      notify(observer);
    } catch {
      // An observer's failure never changes a request's outcome.
    }
  }
}

export function reportRateLimitWait(platform: string, waitMs: number): void {
  if (upstreamObservers.length > 0) reportUpstream((observer) => observer.onRateLimitWait?.({ platform, seconds: waitMs / 1000 }));
}

export function reportAnswer(platform: string, method: HttpMethod, started: number, status: number | undefined, failure: string | undefined): void {
  const event: UpstreamAnswerEvent = { platform, method, seconds: (performance.now() - started) / 1000 };
  if (status !== undefined) event.status = status;
  if (failure !== undefined) event.failure = failure;
  reportUpstream((observer) => observer.onUpstreamAnswer?.(event));
}
