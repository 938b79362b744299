/**
 * What a request sends, settled before anything is sent: whether this client may send its method
 * at all, its concrete path, and its body as JSON text. Each refusal says nothing was sent.
 */
import { ToolError } from '../errors.js';
import { jsonText } from '../json.js';
import { buildPath } from './request-url.js';
import { HTTP_METHODS, type HttpMethod } from './resend-rules.js';
import type { UpstreamRequest } from './upstream-request.js';

/** Throws unless the method is an HTTP method this client sends (`allowed`: a read-only server's list). */
export function refuseUnsendable(req: UpstreamRequest, platformName: string, allowed: readonly HttpMethod[] | undefined): void {
  const { method } = req;
  if (!HTTP_METHODS.includes(method)) {
    throw new ToolError({
      kind: 'internal',
      message: `Unsupported HTTP method ${String(method)}; nothing was sent.`,
      nextStep: 'This is a bug in the tool server; report it.',
    });
  }
  if (allowed && !allowed.includes(method)) {
    throw new ToolError({
      kind: 'internal',
      message: `This ${platformName} server only sends ${allowed.join(', ')} requests; refused to send ${method} ${req.path} (nothing was sent).`,
      nextStep: 'This server is restricted (read-only); use a server configured for changes if changing data is intended.',
    });
  }
}

/** The concrete path (IDs substituted and encoded), always starting with `/` unless empty. */
export function requestPath(req: UpstreamRequest): string {
  const path = buildPath(req.path, req.pathParams);
  return path !== '' && !path.startsWith('/') ? `/${path}` : path;
}

/** The body as JSON text (bigints, int64 IDs, digit-exact), or undefined when there is none. */
export function requestBody(req: UpstreamRequest): string | undefined {
  if (req.body === undefined) return undefined;
  try {
    return jsonText(req.body);
  } catch {
    throw ToolError.invalidParameter('body', 'cannot be serialised as JSON');
  }
}
