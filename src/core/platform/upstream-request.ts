/** One request to a platform as the client takes it, its answer, and the state one call carries through its attempts. */
import type { HeaderLookup } from './http-send.js';
import type { QueryValue } from './request-url.js';
import type { HttpMethod, OperationEffect } from './resend-rules.js';

export interface UpstreamRequest {
  method: HttpMethod;
  /** Path template relative to the base URL, e.g. `/incidents/{id}`. */
  path: string;
  pathParams?: Record<string, string | number>;
  /** Undefined values are skipped; arrays repeat the key exactly as given (e.g. `statuses[]`). */
  query?: Record<string, QueryValue | undefined>;
  /** Serialised as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The MCP request's abort signal. */
  signal?: AbortSignal;
  /** Human name of the target for messages, e.g. `Incident PABC123`. */
  resourceLabel?: string;
  /**
   * What the operation does; decides whether it may be sent again after a failure that may
   * have reached the platform (see resend-rules.ts). When absent: GET, HEAD and OPTIONS are
   * reads, DELETE is a delete, and POST, PUT and PATCH are treated as possibly creating.
   */
  effect?: OperationEffect;
  /**
   * Explicit override: true when sending the request twice has the same outcome as once
   * (resent after 5xx, reset, timeout); false when it must never be sent twice once it may
   * have reached the platform. Wins over `effect`.
   */
  idempotent?: boolean;
  /**
   * One of many short, alike requests (the pages of the user directory walk): while its caller is
   * the only one using the client, it may take the request slots kept for other callers
   * (../concurrency.ts, `borrowWhenAlone`).
   */
  borrowIdleSlots?: boolean;
}

export interface UpstreamResponse<T> {
  status: number;
  headers: HeaderLookup;
  /** Parsed JSON, or undefined for 204 / an empty body. */
  data: T;
  /** Bytes of the answer's body (what a walk that keeps the records holds, roughly). */
  bytes?: number;
  /**
   * True when a delete that had to be sent again found the resource gone (HTTP 404): an
   * earlier attempt had most likely deleted it. `data` is then
   * `{ success: true, already_deleted: true, note }` and `status` is the 404.
   */
  alreadyApplied?: boolean;
  /** Says what happened when `alreadyApplied` is set. */
  note?: string;
}

/** Status and headers of an answer, as hooks see it. */
export interface AnswerHead {
  status: number;
  headers: HeaderLookup;
}

/** What one call carries from attempt to attempt. */
export interface RequestContext {
  req: UpstreamRequest;
  path: string;
  secrets: string[];
  effect: OperationEffect | undefined;
  /** May be sent again after a failure that may have reached the platform. */
  resendable: boolean;
  /** How an earlier attempt failed after it may have reached the platform (`HTTP 503`, `no answer within 300 ms`, ...). */
  ambiguous: string | undefined;
  /** The request (HTTP request or tool call) this one is made for, for log lines (from its signal). */
  requestId: string | undefined;
  /** Whose credentials it uses: the key of its rate-limit hold. */
  holder: string;
}
