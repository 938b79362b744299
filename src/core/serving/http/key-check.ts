/**
 * Key mode: every MCP request carries `Authorization: Bearer <server key>`. The key is kept only as
 * its SHA-256 digest and compared in constant time; a missing or wrong key is answered 401 with
 * where the server's user finds the key, never the key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../logger.js';
import { MIN_SERVER_KEY_LENGTH } from '../../signin/server-key.js';
import { requestLog } from './request-id.js';

/** The expected key and what a refusal tells the client, made once at start. */
export interface ServerKeyCheck {
  digest: Buffer;
  /** `It expects <where>.`: appended to every refusal. */
  expects: string;
}

/** `keyLocation`: where the server's user finds the key (a file, a variable). Throws when the key is too short. */
export function serverKeyCheck(serverKey: string, keyLocation: string | undefined): ServerKeyCheck {
  if (serverKey.length < MIN_SERVER_KEY_LENGTH) throw new Error(`The server key must be at least ${MIN_SERVER_KEY_LENGTH} characters long.`);
  return { digest: digest(serverKey), expects: keyLocation ? `It expects ${keyLocation}.` : 'It expects the key its operator configured.' };
}

/** Constant-time comparison of the presented bearer key with the expected one. */
export function serverKeyProblem(header: string | undefined, expected: Buffer): 'missing' | 'wrong' | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return 'missing';
  return timingSafeEqual(digest(match[1]), expected) ? undefined : 'wrong';
}

/** True when the request carries the key; otherwise it has been answered 401 and logged. */
export function admitServerKey(check: ServerKeyCheck, logger: Logger, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const problem = serverKeyProblem(req.headers.authorization, check.digest);
  if (!problem) return true;
  requestLog(logger, req).warn({ path, reason: problem }, 'rejected request: missing or wrong server key');
  res.writeHead(401, {
    'content-type': 'application/json',
    'www-authenticate': problem === 'missing' ? 'Bearer realm="toolservers"' : 'Bearer realm="toolservers", error="invalid_token"',
  });
  const said = problem === 'missing' ? 'This server needs "Authorization: Bearer <server key>".' : 'The server key sent is not this server\'s.';
  res.end(JSON.stringify({ error: `${said} ${check.expects}` }));
  return false;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
