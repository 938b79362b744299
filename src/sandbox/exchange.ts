/**
 * What the host and its platform emulators exchange: a parsed request in, a status, headers and
 * a body out. Below both the host (server.ts) and the emulators, so that types point down.
 */

/** A request as a platform sees it. */
export interface SandboxRequest {
  method: string;
  /** Path after the platform prefix, raw (still percent-encoded), always starting with '/'. */
  path: string;
  /** Decoded query pairs in order, keys verbatim (e.g. 'statuses[]'). */
  query: [string, string][];
  /** Lower-cased header names; repeated headers joined with ', '. Not redacted. */
  headers: Record<string, string>;
  body: Buffer;
  /** Absolute base URL of this platform in this sandbox, e.g. http://127.0.0.1:1234/incidentops */
  baseUrl: string;
}

export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  /** Serialized as JSON unless undefined (then the response has no body). */
  body?: unknown;
  /** Sent verbatim instead of `body` (e.g. an HTML page; set `content-type`, default text/plain). */
  text?: string;
}

export interface SandboxPlatform {
  /** Path prefix without slashes, e.g. 'incidentops'. */
  readonly prefix: string;
  handle(request: SandboxRequest): SandboxResponse | Promise<SandboxResponse>;
}
