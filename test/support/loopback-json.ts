/**
 * A loopback HTTP stand-in that answers JSON from a route function, and counts what it sent: the
 * base of the fake platforms (fake-board.ts, fake-oncall.ts). `close()` drops kept-alive sockets.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface LoopbackJson {
  baseUrl: string;
  /** Bytes of JSON bodies sent so far. */
  readonly bytesSent: number;
  close(): Promise<void>;
}

/** Starts the server; `answer` gives a request's status and body, and may delay the sending (`send` is called when due). */
export async function startLoopbackJson(answer: (req: IncomingMessage, url: URL) => { status: number; body: unknown; delayMs?: number }): Promise<LoopbackJson> {
  let bytesSent = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake.test');
    const { status, body, delayMs } = answer(req, url);
    const text = JSON.stringify(body);
    bytesSent += Buffer.byteLength(text);
    const send = () => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (delayMs) setTimeout(send, delayMs);
    else send();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    get bytesSent() {
      return bytesSent;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
