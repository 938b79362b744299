/**
 * How one upstream attempt goes over the wire. The default sends with node:http(s) over a
 * keep-alive agent: measured on the HTTP bench it costs about a third of the CPU of the
 * runtime's fetch (no web streams, no Headers object, no AbortSignal plumbing per chunk).
 * An injected fetch (tests, other runtimes) goes through the same interface.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Header lookup by lower-case name; a fetch `Headers` is one too. */
export interface HeaderLookup {
  get(name: string): string | null;
}

export interface CappedBody {
  /** What was read, up to the cap (empty when an overflowing body was not kept). */
  bytes: Buffer;
  /** True when the body went on past the cap and reading was abandoned. */
  overflow: boolean;
}

/** An answer whose head has arrived; its body is read (capped) or discarded once. */
export interface SentAnswer {
  status: number;
  headers: HeaderLookup;
  /**
   * Reads at most `limit` bytes; past it the rest is abandoned (kept up to the cap when
   * `keepOnOverflow`). With `pause`, reading stops once past `pause.bytes` until `pause.wait()`
   * resolves (its rejection fails the read).
   */
  read(limit: number, keepOnOverflow: boolean, pause?: ReadPause): Promise<CappedBody>;
  /** Abandons the body unread (frees or closes the connection). */
  discard(): void;
}

/** A wait before reading past `bytes` (large-answers.ts). */
export interface ReadPause {
  bytes: number;
  wait: () => Promise<void>;
}

export interface SendInit {
  method: string;
  /** Lower-case names, checked values. */
  headers: Record<string, string>;
  body: string | undefined;
}

/** Sends and resolves with the answer's head; rejects with the network error (its `code` says what failed) or on abort. */
export type Send = (url: string, init: SendInit, signal: AbortSignal) => Promise<SentAnswer>;

/**
 * Idle keep-alive sockets are closed after 4 s, before the 5 s that common servers (Node's
 * default) keep them: a request is then never written onto a socket the platform is closing,
 * which would make a create look as if it might have happened.
 */
const IDLE_SOCKET_MS = 4000;
/** Sent unless the request names its own (fetch sends one too). */
const USER_AGENT = 'toolservers';
let agents: { http: HttpAgent; https: HttpsAgent } | undefined;

function agentFor(protocol: string): HttpAgent {
  agents ??= {
    http: new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    https: new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };
  return protocol === 'https:' ? agents.https : agents.http;
}

class NodeHeaders implements HeaderLookup {
  constructor(private readonly raw: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** node:http(s) with a shared keep-alive agent; nothing decompressed (no Accept-Encoding is sent). */
export const nodeSend: Send = (url, init, signal) =>
  new Promise<SentAnswer>((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: init.method, headers, agent: agentFor(target.protocol), signal });
    req.once('error', reject);
    req.once('response', (res) => {
      req.off('error', reject);
      // Errors after the head (reset, abort) surface through read(); until then one must not crash.
      let failure: Error | undefined;
      const remember = (error: Error): void => {
        failure ??= error;
      };
      res.on('error', remember);
      req.on('error', remember);
      resolve({
        status: res.statusCode ?? 0,
        headers: new NodeHeaders(res.headers),
        discard: () => {
          res.destroy();
        },
        read: (limit, keepOnOverflow, pause) =>
          new Promise<CappedBody>((done, fail) => {
            const chunks: Buffer[] = [];
            let size = 0;
            let settled = false;
            let paused = false;
            let filled = 0;
            // A body that announces its length is copied into one buffer as it comes: the chunks and their concatenation are never held together.
            const announced = Number(res.headers['content-length']);
            const whole = Number.isSafeInteger(announced) && announced > 0 && announced <= limit ? Buffer.allocUnsafe(announced) : undefined;
            const finish = (outcome: () => void): void => {
              if (settled) return;
              settled = true;
              res.off('data', onData);
              res.off('end', onEnd);
              res.off('error', onError);
              res.off('close', onClose);
              outcome();
            };
            const onData = (chunk: Buffer): void => {
              if (size + chunk.length > limit) {
                if (whole) chunks.unshift(whole.subarray(0, filled));
                if (keepOnOverflow) chunks.push(chunk.subarray(0, limit - size));
                const bytes = keepOnOverflow ? Buffer.concat(chunks, limit) : Buffer.alloc(0);
                finish(() => done({ bytes, overflow: true }));
                res.destroy();
                return;
              }
              if (whole && chunks.length === 0 && size + chunk.length <= whole.length) {
                chunk.copy(whole, size);
                filled += chunk.length;
              } else chunks.push(chunk);
              size += chunk.length;
              if (pause && !paused && size > pause.bytes) {
                paused = true;
                res.pause();
                pause.wait().then(
                  () => res.resume(),
                  (error: unknown) => {
                    finish(() => fail(error));
                    res.destroy();
                  },
                );
              }
            };
            const onEnd = (): void => finish(() => done({ bytes: bodyOf(whole, filled, chunks, size), overflow: false }));
            const onError = (error: Error): void => finish(() => fail(signal.aborted ? signal.reason : error));
            // A connection closed before the end of the body (reset, abort) without an error event.
            const onClose = (): void => {
              if (!res.complete) finish(() => fail(signal.aborted ? signal.reason : failure ?? Object.assign(new Error('the connection closed before the answer ended'), { code: 'ECONNRESET' })));
            };
            if (failure && !res.complete) {
              finish(() => fail(signal.aborted ? signal.reason : failure));
              return;
            }
            res.on('data', onData);
            res.on('end', onEnd);
            res.on('error', onError);
            res.on('close', onClose);
          }),
      });
    });
    req.end(init.body);
  });

/** The body read: the announced-length buffer's filled part, then any chunks past it (a body longer than announced), joined. */
function bodyOf(whole: Buffer | undefined, filled: number, chunks: Buffer[], size: number): Buffer {
  if (whole && chunks.length === 0) return filled === whole.length ? whole : whole.subarray(0, filled);
  const parts = whole ? [whole.subarray(0, filled), ...chunks] : chunks;
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
}

/**
 * An injected fetch implementation as a Send. It may ignore the signal, so the wait for its head
 * is raced against the abort.
 */
export function fetchSend(fetchImpl: typeof fetch): Send {
  return async (url, init, signal) => {
    const pending = fetchImpl(url, { method: init.method, headers: init.headers, ...(init.body !== undefined ? { body: init.body } : {}), redirect: 'manual', signal });
    const response = await raceAbort(pending, signal);
    return {
      status: response.status,
      headers: response.headers,
      discard: () => void response.body?.cancel().catch(() => undefined),
      read: (limit, keepOnOverflow, pause) => readStream(response.body, limit, signal, keepOnOverflow, pause),
    };
  };
}

/** Settles with the promise, or rejects as soon as the signal aborts (even if the promise ignores it). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) {
      promise.catch(() => undefined);
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Reads a web stream, never holding more than `limit` bytes: past it the stream is cancelled
 * (which frees the connection). Abort of `signal` cancels it as well.
 */
async function readStream(stream: ReadableStream<Uint8Array> | null, limit: number, signal: AbortSignal, keepOnOverflow: boolean, pause?: ReadPause): Promise<CappedBody> {
  if (!stream) return { bytes: Buffer.alloc(0), overflow: false };
  const reader = stream.getReader();
  const cancel = (reason?: unknown): void => void reader.cancel(reason).catch(() => undefined);
  // An abort cancels the read (fetch implementations that ignore the signal included); the check
  // after each read turns the cancelled read into the abort, never into a short body.
  const onAbort = (): void => cancel(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let paused = false;
  try {
    for (;;) {
      if (pause && !paused && size > pause.bytes) {
        paused = true;
        await pause.wait();
      }
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      const { done, value } = await reader.read();
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      if (done) return { bytes: chunks.length === 1 && chunks[0] !== undefined ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, size) : Buffer.concat(chunks, size), overflow: false };
      if (size + value.byteLength > limit) {
        cancel();
        if (!keepOnOverflow) return { bytes: Buffer.alloc(0), overflow: true };
        chunks.push(value.subarray(0, limit - size));
        return { bytes: Buffer.concat(chunks, limit), overflow: true };
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch (error) {
    cancel();
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
