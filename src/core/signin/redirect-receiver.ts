/**
 * The one-shot loopback receiver of a command-line sign-in: a server on 127.0.0.1 that waits for
 * the provider to send the browser back. Only a GET of the redirect path that carries this
 * sign-in's `state` is the answer; anything else (a stray or forged request from another local
 * process, a stale tab) gets an error page and the sign-in keeps waiting.
 */
import { sameSecret } from '../same-secret.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { escapeHtml } from '../html.js';
import { OAuthError } from './oauth-error.js';

/** The redirect that carried this sign-in's state: its query, and the browser's answer still open. */
export interface Callback {
  params: URLSearchParams;
  res: ServerResponse;
}

/** Requests without the state are noted on the terminal this many times at most (the page says the rest). */
const IGNORED_NOTICES = 3;

export class RedirectReceiver {
  /** Resolves with the first request that carries the state; never rejects. */
  readonly callback: Promise<Callback>;
  private readonly server: Server;
  private deliver: (callback: Callback) => void = () => undefined;
  private accepted = false;
  private ignored = 0;
  private port = 0;

  constructor(
    private readonly redirectPath: string,
    private readonly state: string,
    private readonly print: (line: string) => void,
  ) {
    this.callback = new Promise<Callback>((resolve) => {
      this.deliver = resolve;
    });
    this.server = createServer((req, res) => this.receive(req, res));
  }

  /** Starts listening on 127.0.0.1 (`port` 0: any free port); the redirect URI to give the provider. */
  async listen(port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      throw new OAuthError('configuration', `Could not start the local sign-in receiver on 127.0.0.1:${port} (${typeof code === 'string' ? code : 'error'}).`);
    });
    this.port = (this.server.address() as AddressInfo).port;
    return `http://127.0.0.1:${this.port}${this.redirectPath}`;
  }

  /** One request to the receiver: the callback when it is the answer, else an error page. */
  receive(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${this.port}`);
    if (url.pathname !== this.redirectPath) {
      answerPage(res, 404, 'Not found', 'This local address only receives the sign-in redirect.');
      return;
    }
    if (req.method !== 'GET') {
      answerPage(res, 405, 'Method not allowed', 'The sign-in redirect must be a GET request.');
      return;
    }
    if (this.accepted) {
      answerPage(res, 409, 'Already handled', 'This sign-in has already been handled; return to the terminal.');
      return;
    }
    const states = url.searchParams.getAll('state');
    if (states.length !== 1 || !sameSecret(states[0] ?? '', this.state)) {
      this.ignored += 1;
      answerPage(
        res,
        400,
        'Not this sign-in',
        'This address only accepts the answer to the sign-in started by toolservers in your terminal, and this request does not carry its state. If you are signing in, finish in the tab the sign-in address opened.',
      );
      if (this.ignored <= IGNORED_NOTICES) this.print('Ignored a request to the sign-in receiver that did not carry this sign-in\'s state (answered 400); still waiting for the browser ...');
      return;
    }
    this.accepted = true;
    this.deliver({ params: url.searchParams, res });
  }

  /** The callback, or an OAuthError when `timeoutMs` passes first (`timeout`) or the signal aborts (`cancelled`). */
  async arrival(timeoutMs: number, signal: AbortSignal | undefined): Promise<Callback> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        this.callback,
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            reject(new OAuthError('timeout', `No sign-in came back within ${Math.round(timeoutMs / 1000)} s; run the login again.`));
          }, timeoutMs);
          timer.unref?.();
          onAbort = () => reject(new OAuthError('cancelled', 'The sign-in was cancelled.'));
          // An abort while the receiver was starting has already fired: no event will come.
          if (signal?.aborted) onAbort();
          else signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } finally {
      if (timer) clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  close(): void {
    this.server.close();
    this.server.closeAllConnections();
  }
}

/** A small HTML page as the browser's answer (once: an answer already sent is left alone). */
export function answerPage(res: ServerResponse, status: number, title: string, body: string): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
    'referrer-policy': 'no-referrer',
  });
  res.end(htmlPage(title, body));
}

function htmlPage(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;margin:3em"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(body)}</p></body></html>`;
}

