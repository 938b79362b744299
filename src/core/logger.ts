import { randomUUID } from 'node:crypto';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * The ID of each request being handled (an HTTP request, or one tools/call on stdio), by the abort
 * signal of the MCP request: everything done for a request carries that signal (every platform
 * request does), so its log lines can name the request without the ID being passed around. Not
 * AsyncLocalStorage: on Node 20 that hooks every promise of the process, which cost the HTTP
 * bench about 5% of latency and 8% of throughput.
 */
const requestIds = new WeakMap<AbortSignal, string>();

/** Records that work carrying `signal` belongs to the request `id`. */
export function tagRequest(signal: AbortSignal, id: string): void {
  requestIds.set(signal, id);
}

/** The request that work carrying `signal` belongs to, if any. */
export function requestIdOf(signal: AbortSignal | undefined): string | undefined {
  return signal ? requestIds.get(signal) : undefined;
}

export function newRequestId(): string {
  return randomUUID();
}

/** The levels `TOOLSERVERS_LOG_LEVEL` takes, most verbose first. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Common spellings accepted for a level (case does not matter either). */
export const LOG_LEVEL_ALIASES: Readonly<Record<string, LogLevel>> = {
  warning: 'warn',
  err: 'error',
  critical: 'fatal',
  off: 'silent',
  none: 'silent',
};

/** An unknown log level; the message is one line that lists the valid ones. */
export class LogLevelError extends Error {
  constructor(value: string, setting: string) {
    const shown = value.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
    super(`${setting}="${shown}" is not a log level. Use one of: ${LOG_LEVELS.join(', ')} (also accepted: ${Object.entries(LOG_LEVEL_ALIASES).map(([alias, level]) => `${alias} for ${level}`).join(', ')}).`);
    this.name = 'LogLevelError';
  }
}

/**
 * The level for a setting's value: case-insensitive, aliases accepted, blank means `fallback`.
 * Throws a LogLevelError for anything else.
 */
export function resolveLogLevel(value: string | undefined, fallback: LogLevel = 'info', setting = 'TOOLSERVERS_LOG_LEVEL'): LogLevel {
  const text = value?.trim().toLowerCase();
  if (!text) return fallback;
  if ((LOG_LEVELS as readonly string[]).includes(text)) return text as LogLevel;
  const alias = LOG_LEVEL_ALIASES[text];
  if (alias) return alias;
  throw new LogLevelError(value ?? '', setting);
}

/**
 * Structured logs on stderr: stdout belongs to the stdio MCP transport.
 * Anything that looks like a credential is redacted by path as a second line of defence;
 * the first is never handing secrets to the logger at all.
 * The level goes through `resolveLogLevel` (an unknown one throws a LogLevelError).
 * `destination` replaces stderr (tests capture lines with it).
 */
export function createLogger(level: string | undefined = process.env.TOOLSERVERS_LOG_LEVEL, destination?: DestinationStream): Logger {
  return pino(
    {
      name: 'toolservers',
      level: resolveLogLevel(level),
      redact: {
        paths: [
          'headers.authorization',
          'headers.Authorization',
          '*.headers.authorization',
          '*.headers.Authorization',
          'token',
          '*.token',
          'accessToken',
          '*.accessToken',
          'refreshToken',
          '*.refreshToken',
          'clientSecret',
          '*.clientSecret',
          'access_token',
          '*.access_token',
          'refresh_token',
          '*.refresh_token',
          'client_secret',
          '*.client_secret',
          'code_verifier',
          'serverKey',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

/** A logger that discards everything, for tests and library use. */
export const silentLogger: Logger = pino({ level: 'silent' });
