/**
 * The shape of one CanvasApi catalogue entry. The 139 tools are data of this shape
 * (catalogue/<toolset>.ts, listed by catalogue.ts); one generic handler (handler.ts) executes
 * any of them.
 */
import type { HttpMethod } from '../core/platform/upstream.js';

export type CanvasToolset =
  | 'boards'
  | 'members'
  | 'items'
  | 'frames'
  | 'tags'
  | 'groups'
  | 'connectors'
  | 'mindmaps'
  | 'webhooks'
  | 'metrics'
  | 'organization'
  | 'teams'
  | 'projects'
  | 'compliance'
  | 'tokens';

/**
 * What the call does to data; the tool's annotations follow from it:
 * read    -> readOnly, idempotent, not destructive
 * create  -> additive: not readOnly, not destructive, not idempotent
 * update  -> destructive (overwrites), idempotent
 * delete  -> destructive, idempotent
 * action  -> destructive, not idempotent (revoking a token, resetting sessions)
 */
export type CanvasEffect = 'read' | 'create' | 'update' | 'delete' | 'action';

/**
 * Value checks beyond the JSON type.
 * - email: an e-mail address
 * - utc-datetime-ms: ISO 8601 UTC with milliseconds and a trailing Z (2026-01-31T12:00:00.000Z)
 * - utc-datetime: ISO 8601 UTC with a trailing Z, milliseconds optional
 * - date: YYYY-MM-DD (a real calendar date)
 * - https-url / http-url: absolute URL with that scheme (http-url accepts http and https)
 * - integer-text: a string holding a base-10 integer (for limits the contract types as strings); calls may pass a number too
 * - comma-emails: comma-separated e-mail addresses
 * - uuid: a UUID such as 9b2c5f1e-3d4a-4c8e-9f00-1a2b3c4d5e6f
 */
export type CanvasFormat = 'uuid' | 'email' | 'utc-datetime-ms' | 'utc-datetime' | 'date' | 'https-url' | 'http-url' | 'integer-text' | 'comma-emails';

export interface CanvasParam {
  /** Parameter name exactly as in the contract. */
  name: string;
  /** JSON type of the parameter as the contract declares it. */
  type: 'string' | 'number' | 'integer' | 'boolean' | 'string[]';
  required?: boolean;
  /** Only defaults the contract states (x/y 0, group list limits 10, audit log limit 100, ...). */
  default?: string | number | boolean;
  /**
   * Where the value goes: `path:board_id`, `query:limit`, `body:data.title` (nested path, dots),
   * `body` (the whole body, for request_body of two-mode tools), or `tool` (consumed by the tool, e.g. mode).
   */
  to: string;
  description: string;
  enum?: readonly string[];
  format?: CanvasFormat;
  /** Inclusive bounds for numbers, integers and integer-text. */
  min?: number;
  max?: number;
  /** For string[]: at most this many entries. */
  maxItems?: number;
  /** For strings: at most this many characters (the platform's limit). */
  maxLength?: number;
  /**
   * Sent when the agent omits the parameter, because the platform insists on a value the
   * contract leaves optional (only page sizes; never anything that changes data). Not
   * advertised as a default; the description says what is sent.
   */
  sentWhenOmitted?: number;
  /** For two-mode tools: required when mode is execute (declared optional in the contract). */
  requiredForExecute?: boolean;
  /** For enums: a blank value means "no filter" (the contract says so) and is treated as omitted. */
  blankMeansAll?: boolean;
  /** For enums: values the contract lists but only the platform sets (it refuses them from callers); refused locally, the listing keeps them. */
  setByPlatform?: readonly string[];
  /** For integers: an int64 ID, past 2^53 (taken as digit text, sent as an exact JSON number). */
  int64?: boolean;
}

export interface CanvasToolEntry {
  /** Full tool name, e.g. `CanvasApi.AddBoardFrame`. */
  name: string;
  title: string;
  /** Own words: what it does and what an agent must know (plan, limits, side effects). */
  description: string;
  toolset: CanvasToolset;
  effect: CanvasEffect;
  method: HttpMethod;
  /** Path template with the platform's placeholder names, e.g. `/v2/boards/{board_id}/frames/{item_id}`. */
  path: string;
  params: readonly CanvasParam[];
  /** HTTP statuses that mean success, e.g. [201] or [200, 202]. */
  success: readonly number[];
  /** How the list pages, when it is a list. */
  pagination?: 'cursor' | 'offset';
  /** Plan the endpoint needs; `enterprise` tools say so in their description. */
  plan: 'all' | 'enterprise' | 'enterprise+guard' | 'app-management-token';
  /** OAuth scope the token needs (named in the error when the platform answers 403). */
  scope?: string;
  /** Two-mode tools: key of the request-body schema in request-schemas.ts. */
  requestSchema?: string;
  /**
   * Sent for an omitted parameter whose only valid value the platform's body requires (a mind-map
   * node's type is always `text`). Not advertised as a default; the parameter's description says so.
   */
  whenOmitted?: Readonly<Record<string, string>>;
  /**
   * Parameters the required body cannot do without although the contract marks them optional (the
   * URL of a new document, image or embed): a call without them is refused before anything is sent.
   */
  bodyNeeds?: readonly string[];
  /** The platform answers with a JSON array (a list without envelope) rather than an object. */
  answersArray?: boolean;
  /** Extra cross-field rule the generic handler enforces (see handler.ts). */
  rule?: 'audit-log-window' | 'content-log-window' | 'metrics-date-range' | 'require-tag-id';
}
