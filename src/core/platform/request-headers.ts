/**
 * The headers of one request as a plain object with lower-case names: the client's defaults
 * (checked once, on first use), the request's own, and the Authorization value. A name or value
 * the runtime would refuse is reported without quoting it (it may be a credential), and nothing
 * is sent.
 */
import { ToolError } from '../errors.js';

/** A header name as fetch accepts it (an RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** NUL, CR, LF or a character outside Latin-1: refused by fetch's Headers. */
const INVALID_HEADER_VALUE = /[\0\r\n]|[^\u0000-\u00ff]/;

function validHeaderValue(value: string): boolean {
  return !INVALID_HEADER_VALUE.test(value);
}

export interface RequestHeaderSettings {
  platformName: string;
  defaultHeaders?: Record<string, string> | undefined;
  missingCredentialsNextStep?: string | undefined;
}

export class RequestHeaders {
  /** The default headers with lower-case names, once checked. */
  private defaultHeaders: Record<string, string> | undefined;

  constructor(private readonly settings: RequestHeaderSettings) {}

  build(requestHeaders: Record<string, string> | undefined, authorization: string, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { ...this.checkedDefaultHeaders() };
    if (hasBody && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    if (requestHeaders) for (const [name, value] of Object.entries(requestHeaders)) headers[this.checkedHeaderName(name, value, 'request')] = value;
    if (!validHeaderValue(authorization)) throw this.invalidHeader('authorization', 'authorization');
    headers.authorization = authorization;
    return headers;
  }

  /** The client's default headers, checked on first use (as before: a bad one fails the request, not the start). */
  private checkedDefaultHeaders(): Record<string, string> {
    if (this.defaultHeaders) return this.defaultHeaders;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.settings.defaultHeaders ?? {})) headers[this.checkedHeaderName(name, value, 'default')] = value;
    this.defaultHeaders = headers;
    return headers;
  }

  private checkedHeaderName(name: string, value: string, what: 'default' | 'request'): string {
    if (!HEADER_NAME.test(name) || typeof value !== 'string' || !validHeaderValue(value)) throw this.invalidHeader(name, what);
    return name.toLowerCase();
  }

  private invalidHeader(name: string, what: 'default' | 'request' | 'authorization'): ToolError {
    const { platformName } = this.settings;
    // Never quote the value: it may be a credential.
    return new ToolError({
      kind: what === 'authorization' ? 'not_configured' : 'invalid_input',
      message:
        what === 'authorization'
          ? `The configured ${platformName} credentials are not a valid HTTP header value; nothing was sent.`
          : `Header ${name} has an invalid name or value; nothing was sent.`,
      nextStep:
        what === 'authorization'
          ? this.settings.missingCredentialsNextStep ?? `Configure a valid ${platformName} API token.`
          : 'Remove control characters from the header and retry.',
    });
  }
}
