/**
 * Who an HTTP request is for, for the fair share of shared pools (core/caller.ts): the group is
 * what a client cannot multiply cheaply (the signed-in user in OAuth mode, else the network
 * address, an IPv6 one by its /64, which one host usually holds whole); the member is the client's
 * own name for itself (X-Toolservers-Caller), which only divides its group's share.
 * The scope also carries the client's hang-up: the connection closing before the answer is sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv6 } from 'node:net';
import type { Caller, CallerScope } from '../../caller.js';

export const CALLER_HEADER = 'x-toolservers-caller';

/** Short, and safe in logs and metrics labels. */
const SAFE_CALLER_NAME = /^[A-Za-z0-9._:@-]{1,64}$/;

/** The request's caller, or why its X-Toolservers-Caller header is refused. */
export function callerOf(req: IncomingMessage, userKey: string | undefined): Caller | { refused: string } {
  const group = userKey !== undefined ? `user ${userKey}` : `address ${addressGroup(req.socket.remoteAddress)}`;
  const named = req.headers[CALLER_HEADER];
  if (named === undefined) return { group, member: group };
  if (typeof named !== 'string' || !SAFE_CALLER_NAME.test(named)) {
    const problem = typeof named !== 'string' ? 'was sent more than once' : named.length === 0 || named.length > 64 ? `has ${named.length} characters` : 'has other characters';
    return { refused: `X-Toolservers-Caller ${problem}: it must be sent once, 1 to 64 letters, digits or . _ : @ - (a name for one client of this server; its share of the server is shared with the other clients of its user or address).` };
  }
  return { group, member: named };
}

/** The scope of one MCP request: its caller, and a signal that aborts when the client hangs up before its answer is sent. */
export function callerScope(caller: Caller, res: ServerResponse): CallerScope {
  const hangUp = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) hangUp.abort(new Error('the client closed the connection'));
  });
  if (res.destroyed) hangUp.abort(new Error('the client closed the connection'));
  return { caller, hangUp: hangUp.signal };
}

/** IPv4 whole (an IPv4-mapped IPv6 one too); IPv6 by its /64. */
export function addressGroup(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(address.split('%')[0] ?? '')) return address;
  return `${ipv6Hextets(address).slice(0, 4).join(':')}::/64`;
}

/** The 8 hextets of an IPv6 address, each without leading zeros. */
function ipv6Hextets(address: string): string[] {
  const bare = (address.split('%')[0] ?? '').toLowerCase();
  const [head = '', tail] = bare.split('::');
  const split = (part: string) => (part === '' ? [] : part.split(':').flatMap((piece) => (piece.includes('.') ? ['0', '0'] : [piece])));
  const first = split(head);
  const last = tail === undefined ? [] : split(tail);
  const middle = Array.from({ length: Math.max(0, 8 - first.length - last.length) }, () => '0');
  return [...first, ...middle, ...last].map((piece) => Number.parseInt(piece, 16).toString(16));
}
