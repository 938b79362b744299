import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { DestinationStream } from 'pino';

/** One log call: an object of fields and a message, or a message alone (pino's forms). */
export interface LogFn {
  (fields: object, message?: string): void;
  (message: string): void;
}

/** What the project logs through: the part of pino's interface it uses (a pino logger is one). */
export interface Logger {
  level: string;
  isLevelEnabled(level: string): boolean;
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal: LogFn;
  child(bindings: Record<string, unknown>): Logger;
}

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

/** pino's level numbers: a line is written when its level is at or above the logger's. */
const LEVEL_VALUES: Readonly<Record<LogLevel, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

type LineLevel = Exclude<LogLevel, 'silent'>;

/**
 * A logger whose pino logger is made for its first line. A stdio server at `warn` usually writes
 * none, so its start never loads pino (about 2 MB and a few milliseconds of a start). pino is
 * required through createRequire, which the bundle leaves to Node, as it does Ajv.
 */
class DeferredLogger implements Logger {
  #level: LogLevel;
  #real: Logger | undefined;

  constructor(
    level: LogLevel,
    private readonly make: (level: LogLevel) => Logger,
  ) {
    this.#level = level;
  }

  get level(): string {
    return this.#real?.level ?? this.#level;
  }

  set level(value: string) {
    if (this.#real) this.#real.level = value;
    else this.#level = resolveLogLevel(value, undefined, 'level');
  }

  isLevelEnabled(level: string): boolean {
    if (this.#real) return this.#real.isLevelEnabled(level);
    const value = LEVEL_VALUES[level as LogLevel];
    return value !== undefined && value !== Infinity && value >= LEVEL_VALUES[this.#level];
  }

  #write(level: LineLevel, args: unknown[]): void {
    if (!this.#real && !this.isLevelEnabled(level)) return;
    const real = (this.#real ??= this.make(this.#level));
    (real[level] as (...line: unknown[]) => void).apply(real, args);
  }

  trace: LogFn = (...args: unknown[]) => this.#write('trace', args);
  debug: LogFn = (...args: unknown[]) => this.#write('debug', args);
  info: LogFn = (...args: unknown[]) => this.#write('info', args);
  warn: LogFn = (...args: unknown[]) => this.#write('warn', args);
  error: LogFn = (...args: unknown[]) => this.#write('error', args);
  fatal: LogFn = (...args: unknown[]) => this.#write('fatal', args);

  child(bindings: Record<string, unknown>): Logger {
    if (this.#real) return this.#real.child(bindings);
    return new DeferredLogger(this.#level, (level) => {
      const real = (this.#real ??= this.make(this.#level)).child(bindings);
      real.level = level;
      return real;
    });
  }
}

let pinoModule: typeof import('pino') | undefined;
function loadPino(): typeof import('pino') {
  const require = createRequire(import.meta.url);
  return (pinoModule ??= require('pino') as typeof import('pino'));
}

/**
 * Structured logs on stderr: stdout belongs to the stdio MCP transport.
 * Anything that looks like a credential is redacted by path as a second line of defence;
 * the first is never handing secrets to the logger at all.
 * The level goes through `resolveLogLevel` (an unknown one throws a LogLevelError).
 * `destination` replaces stderr (tests capture lines with it).
 */
export function createLogger(level: string | undefined = process.env.TOOLSERVERS_LOG_LEVEL, destination?: DestinationStream): Logger {
  return new DeferredLogger(resolveLogLevel(level), (chosen) => pinoLogger(chosen, destination));
}

function pinoLogger(level: LogLevel, destination: DestinationStream | undefined): Logger {
  const { pino } = loadPino();
  return pino(
    {
      name: 'toolservers',
      level,
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

/** A logger that discards everything, for tests and library use (it never loads pino). */
export const silentLogger: Logger = new DeferredLogger('silent', (level) => loadPino().pino({ level }));
