/** One plain HTTP request and its whole answer, for tests that look at status, headers and body as sent. */
import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request nobody answers fails the test after this long instead of hanging it. */
const NO_ANSWER_MS = 10_000;

export function rawRequest(url: string, options: { method?: string; headers?: OutgoingHttpHeaders; body?: string } = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.setTimeout(NO_ANSWER_MS, () => req.destroy(new Error(`no answer within ${NO_ANSWER_MS} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A ServerResponse stand-in that records what a handler answers: status, headers (names in lower
 * case, as node:http reports them to a client) and body.
 */
export class RecordedResponse {
  status = 0;
  headers: Record<string, string | string[]> = {};
  body = '';
  headersSent = false;
  writeHead(status: number, headers: Record<string, string | string[]> = {}): this {
    this.status = status;
    for (const [name, value] of Object.entries(headers)) this.headers[name.toLowerCase()] = value;
    this.headersSent = true;
    return this;
  }
  end(chunk?: Buffer | string): this {
    if (chunk !== undefined) this.body += chunk.toString();
    return this;
  }
  /** A header sent once, by its lower-case name; a missing or repeated header fails the test. */
  header(name: string): string {
    const value = this.headers[name];
    if (typeof value !== 'string') throw new Error(`header ${name}: ${value === undefined ? 'not sent' : 'sent more than once'}`);
    return value;
  }
  get json(): unknown {
    return JSON.parse(this.body);
  }
}
