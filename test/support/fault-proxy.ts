/**
 * A loopback reverse proxy that injects faults between a tool server and the platform (the
 * sandbox), one request at a time:
 *
 * - `5xx`: a JSON 503 in the platform's error shape;
 * - `html502`: a 502 HTML page, as a load balancer sends it;
 * - `reset`: the connection is reset (TCP RST where the runtime can, else destroyed);
 * - `hang`: no answer at all, until the client gives up (its timeout) or the proxy closes.
 *
 * Each fault comes `before` the platform (the request is never forwarded: nothing happened) or
 * `after` it (the request is forwarded, the platform processes it and answers, and that answer
 * is dropped or replaced: it happened, but the client cannot know). Requests without a matching
 * rule pass through unchanged. Every exchange is recorded, and the proxy counts how many
 * requests it has in flight at once.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FaultKind = '5xx' | 'html502' | 'reset' | 'hang';
export type FaultWhen = 'before' | 'after';

export interface FaultRule {
  fault: FaultKind;
  when: FaultWhen;
  /** Only requests with this method (default any). */
  method?: string;
  /** Only requests whose path (with query) matches (default any). */
  path?: RegExp;
  /** How many matching requests get the fault (default 1). */
  times?: number;
}

export interface FaultExchange {
  method: string;
  /** Path and query as received (and forwarded). */
  path: string;
  /** The fault injected into this exchange, if any. */
  fault?: { kind: FaultKind; when: FaultWhen };
  /** Whether the platform received the request. */
  forwarded: boolean;
  /** The platform's status, when it was forwarded and answered. */
  upstreamStatus?: number;
}

export interface FaultProxy {
  /** Origin of the proxy, e.g. `http://127.0.0.1:41234`; paths are forwarded unchanged. */
  url: string;
  /** Every request received, in arrival order. */
  exchanges: FaultExchange[];
  /** Adds a rule; rules are tried in the order added, and a rule is used up after `times` requests. */
  inject(rule: FaultRule): void;
  /** Drops the rules that are left. */
  clearFaults(): void;
  /** Requests the proxy is handling right now, and the most at once since the last reset. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  resetCounters(): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const HTML_502 =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

function headersOf(raw: string[], drop: Set<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || drop.has(name)) continue;
    out[name] = out[name] !== undefined ? `${out[name]}, ${raw[i + 1]!}` : raw[i + 1]!;
  }
  return out;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Starts the proxy on an ephemeral loopback port in front of `upstream` (an origin such as the sandbox's url). */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  if (target.protocol !== 'http:') throw new Error(`the fault proxy forwards to http:// only, not ${upstream}`);
  const exchanges: FaultExchange[] = [];
  const rules: (FaultRule & { left: number })[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  let maxInFlight = 0;

  const forward = (req: IncomingMessage, body: Buffer): Promise<UpstreamAnswer> =>
    new Promise((resolve, reject) => {
      const headers = headersOf(req.rawHeaders, new Set(['host', 'content-length']));
      headers['content-length'] = String(body.length);
      const outgoing = request(
        { protocol: 'http:', hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false },
        (answer) => {
          readAll(answer).then(
            (answerBody) => resolve({ status: answer.statusCode ?? 502, headers: headersOf(answer.rawHeaders, new Set(['content-length'])), body: answerBody }),
            reject,
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });

  const inject = (kind: FaultKind, req: IncomingMessage, res: ServerResponse, done: () => void): void => {
    switch (kind) {
      case '5xx': {
        const body = JSON.stringify({ status: 503, code: 'serviceUnavailable', message: 'Service temporarily unavailable (injected fault)', type: 'error' });
        res.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body, done);
        return;
      }
      case 'html502':
        res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_502) });
        res.end(HTML_502, done);
        return;
      case 'reset': {
        const socket = req.socket as Socket & { resetAndDestroy?: () => Socket };
        if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
        else socket.destroy();
        done();
        return;
      }
      case 'hang':
        // Never answer; the client times out, or close() destroys the socket.
        req.socket.once('close', done);
        return;
    }
  };

  const server: Server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      inFlight -= 1;
    };
    res.on('close', done);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const exchange: FaultExchange = { method, path, forwarded: false };
    exchanges.push(exchange);
    const rule = rules.find((r) => r.left > 0 && (r.method === undefined || r.method === method) && (r.path === undefined || r.path.test(path)));
    if (rule) {
      rule.left -= 1;
      exchange.fault = { kind: rule.fault, when: rule.when };
    }

    void (async () => {
      const body = await readAll(req);
      if (rule?.when === 'before') {
        inject(rule.fault, req, res, done);
        return;
      }
      let answer: UpstreamAnswer;
      try {
        exchange.forwarded = true;
        answer = await forward(req, body);
      } catch {
        if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' });
        res.end('the fault proxy could not reach the platform');
        return;
      }
      exchange.upstreamStatus = answer.status;
      if (rule?.when === 'after') {
        inject(rule.fault, req, res, done);
        return;
      }
      res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
      res.end(answer.body);
    })().catch(() => {
      res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    inject(rule) {
      rules.push({ ...rule, left: rule.times ?? 1 });
    },
    clearFaults() {
      rules.length = 0;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    resetCounters() {
      maxInFlight = inFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
